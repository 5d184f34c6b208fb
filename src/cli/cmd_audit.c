/* The audit-log commands other than `watch`: init, verify-log, checkpoint,
 * prove, verify-proof, consistency, witness and recover.  Each is a thin
 * wrapper over src/audit; the formats are in docs/audit-log.md.
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/log.h"
#include "audit/merkle.h"
#include "audit/proof.h"
#include "audit/verify.h"
#include "audit/witness.h"
#include "cli/audit_common.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "output/output.h"
#include "util/fileio.h"
#include "util/text.h"

void wt_cli_report_unsealed(const char *prog, const char *log, const struct wt_log_recovery *rec)
{
    char msg[2 * PATH_MAX + 128];
    if (wt_log_unsealed_msg(rec, log, msg, sizeof(msg)))
        fprintf(stderr, "%s: %s\n", prog, msg);
}

int wt_cli_log_paths(const char *prog, const char *dir, const char *file, struct wt_log_paths *p)
{
    struct wt_err err = {{0}};
    int rc;
    if (dir && file) {
        fprintf(stderr, "%s: give --log-dir or --log-file, not both (see --help)\n", prog);
        return 2;
    }
    if (dir && !*dir) {
        fprintf(stderr, "%s: --log-dir: empty directory name (see --help)\n", prog);
        return 2;
    }
    if (file && !*file) { /* a usage error in every command, as --log-dir '' is */
        fprintf(stderr, "%s: --log-file: empty file name (see --help)\n", prog);
        return 2;
    }
    if (file) {
        struct stat st;
        if (lstat(file, &st) == 0 && S_ISLNK(st.st_mode)) {
            /* the writers never follow one (O_NOFOLLOW): "Too many levels of
             * symbolic links", or for a dangling one "already exists; an
             * audit log is never re-created", while verify-log read through */
            fprintf(stderr, "%s: --log-file %s: is a symbolic link; give the log's real path\n",
                    prog, WT_CLEAN(file));
            return 2;
        }
        if (stat(file, &st) == 0 && !S_ISREG(st.st_mode)) {
            fprintf(stderr, "%s: --log-file %s: %s\n", prog, WT_CLEAN(file),
                    S_ISDIR(st.st_mode) ? "is a directory (use --log-dir)" : "not a regular file");
            return 2;
        }
        rc = wt_log_paths_file(p, file, &err);
        /* the log of a --log-dir directory named as a file (DIR/log.jsonl):
         * its side files are the directory's (DIR/checkpoint, DIR/log.key),
         * not FILE.checkpoint, as the MCP tools read it; a healthy log was
         * reported without its checkpoint (damaged), and writers refused it */
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        if (rc == WT_OK && !strcmp(base, "log.jsonl") && access(p->checkpoint, F_OK) != 0 &&
            access(p->key, F_OK) != 0) {
            struct wt_log_paths d;
            if (wt_log_paths_dir(&d, p->dir, &err) == WT_OK &&
                (access(d.checkpoint, F_OK) == 0 || access(d.key, F_OK) == 0))
                *p = d;
        }
    } else {
        const char *given = dir ? "--log-dir" : "WT_LOG_DIR";
        if (!dir)
            dir = getenv("WT_LOG_DIR");
        if (!dir || !*dir) {
            dir = WT_DEFAULT_LOG_DIR;
            given = "the default log directory";
        }
        /* a log file named as the directory: said as the other way round
         * is (it read "cannot open F/log.jsonl: Not a directory") */
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISREG(st.st_mode)) {
            fprintf(stderr, "%s: %s %s: is a file (use --log-file)\n", prog, given, WT_CLEAN(dir));
            return 2;
        }
        rc = wt_log_paths_dir(p, dir, &err);
    }
    if (rc) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        return 1;
    }
    return 0;
}

/* A file (or '-': standard input) of at most max bytes, NUL-terminated;
 * NULL (reported) when it cannot be read, or is larger: then *too_large is
 * set, since such input is no proof, request or checkpoint (exit 1 or 400:
 * not the I/O error's 2, which a hook may retry), and the message about it
 * starts with big_prefix (the witness's "400: bad request: ") */
static char *read_input(const char *prog, const char *path, size_t max, size_t *len, int *too_large,
                        const char *big_prefix)
{
    *too_large = 0;
    const char *why = NULL;
    FILE *f = (!path || !strcmp(path, "-")) ? stdin : wt_fopen_regular(path, &why);
    if (!f) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, WT_CLEAN(path), why);
        return NULL;
    }
    char *buf = malloc(max + 2);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = !buf || ferror(f);
    if (f != stdin)
        fclose(f);
    if (bad || n > max) {
        const char *shown = path && strcmp(path, "-") ? WT_CLEAN(path) : "<stdin>";
        if (!bad)
            fprintf(stderr, "%s: %s%s: input too large (over %zu bytes)\n", prog, big_prefix, shown,
                    max);
        else
            fprintf(stderr, "%s: %s: %s\n", prog, shown, !buf ? "out of memory" : "read error");
        *too_large = !bad;
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Reads a verifier key of any type given as text or a file's name for
 * option opt; 0, or 2 (reported). */
static int read_any_vkey(const char *prog, const char *opt, const char *arg, struct wt_note_vkey *v)
{
    struct wt_err err = {{0}};
    char text[1024];
    /* key text is the key, whatever a file of that name holds: a log's key
     * text (origin+id+base64) is also a relative path, which anyone who
     * can write the directory the verifier runs in (the log directory, an
     * unpacked proof bundle) could create with a key of their own, and the
     * "pinned" key was then theirs */
    if (strlen(arg) < sizeof(text)) {
        snprintf(text, sizeof(text), "%s", arg);
        if (wt_note_parse_vkey(text, v, &err) == WT_OK)
            return 0;
        err.msg[0] = '\0';
    }
    int is_file = access(arg, R_OK) == 0;
    if (is_file) {
        /* the whole file, the key alone (blanks after it): only its first
         * line was read, so a key followed by other lines, a NUL byte and
         * anything, or blanks past the buffer and more passed as that key */
        const char *why = "cannot open";
        FILE *f = wt_fopen_regular(arg, &why);
        size_t n = f ? fread(text, 1, sizeof(text), f) : 0;
        if (f) {
            why = ferror(f)               ? "read error"
                  : n == 0                ? "empty"
                  : n == sizeof(text)     ? "larger than 1 KiB (a verifier key file holds one key)"
                  : memchr(text, '\0', n) ? "contains a NUL byte"
                                          : NULL;
            fclose(f);
        }
        if (why) {
            fprintf(stderr, "%s: cannot read verifier key file %s: %s\n", prog, WT_CLEAN(arg), why);
            return 2;
        }
        while (n && strchr(" \t\r\n", text[n - 1]))
            n--;
        text[n] = '\0';
        const char *nl = strchr(text, '\n');
        if (nl) { /* the second line with something on it */
            unsigned line = 1;
            for (const char *c = text; c <= nl + strspn(nl, " \t\r\n"); c++)
                line += *c == '\n';
            fprintf(stderr,
                    "%s: %s: %s:%u: more than one line (a verifier key file holds one key)\n", prog,
                    opt, WT_CLEAN(arg), line);
            return 2;
        }
    } else {
        snprintf(text, sizeof(text), "%s", arg);
    }
    if (wt_note_parse_vkey(text, v, &err) != WT_OK) {
        /* the argument is a key or a file's name: say both when it is neither */
        if (is_file)
            fprintf(stderr, "%s: %s: %s: %s\n", prog, opt, WT_CLEAN(arg), err.msg);
        else
            fprintf(stderr, "%s: %s: %s (nor is it a readable file)\n", prog, opt, err.msg);
        return 2;
    }
    return 0;
}

int wt_cli_read_vkey(const char *prog, const char *arg, struct wt_note_vkey *v)
{
    int rc = read_any_vkey(prog, "--vkey", arg, v);
    if (rc)
        return rc;
    if (v->type != WT_KEY_ED25519) { /* every caller wants a log's key */
        fprintf(stderr,
                "%s: --vkey: not a log's verifier key (key type 0x%02x%s; a log key is "
                "type 0x01, as `init` prints it)\n",
                prog, v->type, v->type == WT_KEY_COSIG ? ", a witness's cosignature key" : "");
        return 2;
    }
    return 0;
}

static int parse_index(const char *prog, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    /* digits only: strtoull would also take a sign and leading blanks */
    if (!isdigit((unsigned char)s[0]) || *end || errno || v >= (1ull << 53)) {
        fprintf(stderr, "%s: not an entry index: '%s' (see --help)\n", prog, WT_SHOWN(s));
        return 2;
    }
    *out = v;
    return 0;
}

/* --- init ------------------------------------------------------------ */

int wt_cmd_init(int argc, char **argv)
{
    const char *dir = NULL, *file = NULL, *origin = NULL;
    bool json = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--log-dir", WT_OPT_STRING, &dir, "DIR", "log directory to create (default: $WT_LOG_DIR, else ./" WT_DEFAULT_LOG_DIR ")", 0, 0, NULL, false},
        {"--log-file", WT_OPT_STRING, &file, "FILE", "log file to create instead (side files FILE.key, FILE.checkpoint, FILE.lock)", 0, 0, NULL, false},
        {"--origin", WT_OPT_STRING, &origin, "NAME", "the log's name in checkpoints (default: workloadtruth.<host>/<random id>)", 0, 0, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print JSON", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth init",
        "Create a tamper-evident audit log: a signing key (mode 0600), the genesis\n"
        "record and the first signed checkpoint.  Prints the verifier key: keep a copy\n"
        "off this host and pass it to verify-log --vkey.",
        "exit status: 0 created, 1 error (e.g. the log exists), 2 usage error.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    struct wt_log_paths p;
    if ((prc = wt_cli_log_paths(help.prog, dir, file, &p)) != 0)
        return prc;
    struct wt_err err = {{0}};
    char vkey[600];
    struct stat kst;
    int had_key = stat(p.key, &kst) == 0 && kst.st_size > 0;
    if (wt_log_init(&p, origin, NULL, NULL, vkey, sizeof(vkey), &err) != WT_OK) {
        fprintf(stderr, "%s: %s\n", help.prog, err.msg);
        return WT_EXIT_ERROR;
    }
    if (had_key) /* a log under this key restarted: say so where it is seen */
        fprintf(stderr,
                "%s: note: kept the existing key %s (an earlier init did not finish, or its "
                "log was deleted); a checkpoint of the old log held elsewhere will not match\n",
                help.prog, p.key);
    int rc = 0;
    if (json) {
        json_t *j = json_pack("{s:s,s:s,s:s,s:s}", "log", p.log, "key", p.key, "checkpoint",
                              p.checkpoint, "vkey", vkey);
        rc = wt_json_print(stdout, j);
        json_decref(j);
    } else {
        printf("created %s (key %s, checkpoint %s)\n", p.log, p.key, p.checkpoint);
        printf("verifier key (keep a copy off this host; verify-log --vkey):\n%s\n", vkey);
    }
    errno = 0;
    if (rc || fflush(stdout) != 0 || ferror(stdout)) {
        /* the log exists now and init will not make it again: the verifier
         * key, printed nowhere else, goes to standard error */
        int e = errno;
        fprintf(stderr,
                "%s: created %s, but cannot write to standard output%s%s; its verifier key "
                "(keep a copy off this host; verify-log --vkey): %s\n",
                help.prog, p.log, e ? ": " : "", e ? strerror(e) : "", vkey);
        wt_cli_stdout_reported = 1;
        return WT_EXIT_ERROR;
    }
    return WT_EXIT_OK;
}

/* --- verify-log ------------------------------------------------------ */

/* --witness-vkey's key: a witness's (type 0x04); 0, or 2 (said). */
static int read_witness_vkey(const char *prog, const char *arg, struct wt_note_vkey *v)
{
    int prc = read_any_vkey(prog, "--witness-vkey", arg, v);
    if (prc)
        return prc;
    if (v->type != WT_KEY_COSIG) {
        fprintf(stderr,
                "%s: --witness-vkey: not a witness's cosignature key (key type 0x%02x; a "
                "witness key is type 0x04, as `witness` prints it)\n",
                prog, v->type);
        return WT_EXIT_USAGE;
    }
    return 0;
}

int wt_cmd_verify_log(int argc, char **argv)
{
    const char *dir = NULL, *file = NULL, *vkey_arg = NULL, *wvkey = NULL;
    struct wt_strlist against = {0};
    double stale = 0;
    bool json = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--log-dir", WT_OPT_STRING, &dir, "DIR", "log directory (default: $WT_LOG_DIR, else ./" WT_DEFAULT_LOG_DIR ")", 0, 0, NULL, false},
        {"--log-file", WT_OPT_STRING, &file, "FILE", "log file (its checkpoint is FILE.checkpoint)", 0, 0, NULL, false},
        {"--vkey", WT_OPT_STRING, &vkey_arg, "KEY", "the log's verifier key (text or file), as printed by init: pins the key", 0, 0, NULL, false},
        {"--against", WT_OPT_LIST, &against, "CHECKPOINT", "signed checkpoints kept elsewhere (a witness's copy, an old export)", 0, 0, NULL, false},
        {"--witness-vkey", WT_OPT_STRING, &wvkey, "KEY", "require this witness's cosignature on every --against checkpoint (a copy said to be the witness's)", 0, 0, NULL, false},
        {"--stale-after", WT_OPT_DOUBLE, &stale, "S", "warn when the last signed entry is older than S seconds (default: never)", 0, 1e9, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print JSON ({valid, message, entries, ...})", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth verify-log",
        "Verify an audit log in one pass: every record, every link, every signed\n"
        "checkpoint, and the log against checkpoints kept elsewhere.  Names the first\n"
        "bad line and the kind of damage.",
        "exit status: 0 intact, 1 tampered or corrupt, 2 usage or I/O error,\n"
        "3 intact with warnings (torn tail, entries not yet sealed, stale).",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    int status = WT_VERIFY_ERROR;
    if (prc) {
        wt_strlist_free(&against);
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    }
    struct wt_log_paths p, alt_file, alt_dir;
    struct wt_note_vkey vk, wvk;
    struct wt_verify_opts vo = {0};
    struct wt_verify_report *r = calloc(1, sizeof(*r));
    if (!r)
        goto out;
    /* a failure before verifying is said on stderr, and with --json also as
     * the JSON object a hook reads (status "error") */
    const char *early = NULL;
    int pinned = 0; /* a --vkey that was read: an unreadable one pins nothing */
    int have_paths = wt_cli_log_paths(help.prog, dir, file, &p) == 0;
    if (!have_paths) {
        early = "the log's path is not usable";
    } else if (vkey_arg && wt_cli_read_vkey(help.prog, vkey_arg, &vk)) {
        early = "--vkey: not a readable log verifier key";
    } else {
        pinned = vkey_arg != NULL;
        if ((size_t)against.n > WT_VERIFY_MAX_AGAINST) {
            fprintf(stderr, "%s: at most %d --against checkpoints\n", help.prog,
                    WT_VERIFY_MAX_AGAINST);
            early = "too many --against checkpoints";
        } else if (wvkey && !against.n) {
            fprintf(stderr, "%s: --witness-vkey goes with --against (see --help)\n", help.prog);
            early = "--witness-vkey goes with --against";
        } else if (wvkey && read_witness_vkey(help.prog, wvkey, &wvk)) {
            early = "--witness-vkey: not a readable witness verifier key";
        }
    }
    if (early) {
        if (json) {
            snprintf(r->message, sizeof(r->message), "%s (see standard error)", early);
            /* the log's path, as every other verify-log --json names it */
            json_t *j = wt_json_verify(r, WT_VERIFY_ERROR, pinned,
                                       have_paths ? p.log
                                       : file     ? file
                                       : dir      ? dir
                                                  : "");
            if (j)
                wt_json_print(stdout, j);
            json_decref(j);
        }
        goto out;
    }
    if (vkey_arg)
        vo.vkey = &vk;
    for (int i = 0; i < against.n; i++)
        vo.against[vo.nagainst++] = against.v[i];
    if (wvkey) { /* the user's --against files, not the other side file below */
        vo.witness = &wvk;
        vo.nwitnessed = vo.nagainst;
    }
    vo.side_path = p.checkpoint;
    /* DIR/log.jsonl named as a file has two possible checkpoint files,
     * DIR/checkpoint (a --log-dir log's) and DIR/log.jsonl.checkpoint (a
     * --log-file log's): it is held to both where both are there, as to a
     * checkpoint given with --against.  Which one was used hung on which
     * exists, so an older checkpoint planted beside a cut log outranked the
     * one that shows the cut. */
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : file;
    struct wt_err aerr = {{0}};
    if (file && !strcmp(base, "log.jsonl") && vo.nagainst < WT_VERIFY_AGAINST_SLOTS &&
        wt_log_paths_file(&alt_file, file, &aerr) == WT_OK &&
        wt_log_paths_dir(&alt_dir, alt_file.dir, &aerr) == WT_OK) {
        const char *other =
            strcmp(p.checkpoint, alt_file.checkpoint) ? alt_file.checkpoint : alt_dir.checkpoint;
        struct stat ast;
        if (stat(other, &ast) == 0) /* as wt_cli_log_paths looks: a dangling link is none */
            vo.against[vo.nagainst++] = other;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    vo.now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    /* rounded up: 0.0004 s is "warn", not 0 ms, which means never */
    vo.stale_ms = (int64_t)ceil(stale * 1000);
    status = wt_verify_file(p.log, &vo, r);
    if (json) {
        json_t *j = wt_json_verify(r, status, pinned, p.log);
        if (status == WT_VERIFY_ERROR) /* said on stderr as well, as without --json */
            fprintf(stderr, "%s: %s\n", help.prog, r->message);
        if (wt_json_print(stdout, j))
            status = WT_VERIFY_ERROR;
        json_decref(j);
    } else {
        if (status == WT_VERIFY_ERROR)
            fprintf(stderr, "%s: %s\n", help.prog, r->message);
        else
            printf("%s: %s\n",
                   status == WT_VERIFY_DAMAGED ? "DAMAGED"
                   : status == WT_VERIFY_WARN  ? "OK with warnings"
                                               : "OK",
                   r->message);
        for (int i = 0; i < r->nwarn; i++)
            printf("warning: %s\n", r->warn[i]);
    }
out:
    free(r);
    wt_strlist_free(&against);
    return status;
}

/* --- helpers for the exports: a verified log and its side checkpoint ---- */

struct exported {
    struct wt_log_paths p;
    struct wt_verify_report r;
    char *ckpt; /* side-file note text */
    size_t ckpt_len;
    struct wt_checkpoint cp;
    const char *given; /* prove --checkpoint: the file the checkpoint came from */
};

/* The verifier key of the log x verified (its origin and genesis key). */
static void log_vkey(const struct exported *x, struct wt_note_vkey *lk)
{
    memset(lk, 0, sizeof(*lk));
    snprintf(lk->name, sizeof(lk->name), "%s", x->r.origin);
    lk->type = WT_KEY_ED25519;
    memcpy(lk->pk, x->r.pk, 32);
    lk->keyid = wt_note_keyid(lk->name, WT_KEY_ED25519, lk->pk);
}

static int load_verified(const char *prog, const char *dir, const char *file, const char *vkey,
                         struct exported *x)
{
    struct wt_note_vkey vk;
    struct wt_verify_opts vo = {0};
    struct wt_err err = {{0}};
    int rc = wt_cli_log_paths(prog, dir, file, &x->p);
    if (rc) /* an unusable path concludes nothing about the log: 2, not 1 */
        return WT_EXIT_USAGE;
    if (vkey) {
        if ((rc = wt_cli_read_vkey(prog, vkey, &vk)) != 0)
            return rc;
        vo.vkey = &vk;
    }
    vo.side_path = x->p.checkpoint;
    int st = wt_verify_file(x->p.log, &vo, &x->r);
    if (st == WT_VERIFY_ERROR || st == WT_VERIFY_DAMAGED) {
        fprintf(stderr, "%s: %s\n", prog, x->r.message);
        return st == WT_VERIFY_ERROR ? 2 : 1;
    }
    if (!x->r.side_size) {
        fprintf(stderr, "%s: %s: no signed checkpoint file to export from\n", prog,
                x->p.checkpoint);
        return 1;
    }
    /* read again, so checked again: whoever can write the directory could
     * have replaced the file since it was verified */
    int big;
    x->ckpt = read_input(prog, x->p.checkpoint, WT_NOTE_MAX_LEN, &x->ckpt_len, &big, "");
    struct wt_note n;
    if (!x->ckpt) /* an I/O error (reported): nothing concluded; too large: no checkpoint */
        return big ? 1 : WT_EXIT_USAGE;
    if (wt_note_parse(x->ckpt, x->ckpt_len, &n, &err) != WT_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog, x->p.checkpoint, err.msg);
        return 1;
    }
    struct wt_note_vkey lk;
    log_vkey(x, &lk);
    int signed_ok = wt_note_verify(&n, &lk, NULL) == 1;
    rc = wt_checkpoint_parse(n.text, n.body_len, &x->cp, &err);
    wt_note_free(&n);
    if (rc) {
        fprintf(stderr, "%s: %s: %s\n", prog, x->p.checkpoint, err.msg);
        return 1;
    }
    if (!signed_ok || strcmp(x->cp.origin, x->r.origin)) {
        fprintf(stderr,
                "%s: %s changed while reading and is not signed by this log's key; run "
                "verify-log\n",
                prog, x->p.checkpoint);
        return 1;
    }
    /* a live writer may have signed a newer checkpoint meanwhile: fine, the
     * log only grows and the callers recompute its root from the file */
    if (x->cp.size < x->r.side_size) {
        fprintf(stderr, "%s: %s shrank while reading; try again\n", prog, x->p.checkpoint);
        return 1;
    }
    return 0;
}

/* The leaf hashes of the lines the side-file checkpoint covers (and a copy
 * of line `want`, if asked), checked against its root.  0, or 1 (reported). */
static int checkpoint_leaves(const char *prog, const struct exported *x, uint64_t want,
                             uint8_t (**leaves)[32], char **line, size_t *line_len)
{
    struct wt_err err = {{0}};
    uint8_t root[32];
    if (wt_log_read_leaves(x->p.log, x->cp.size, leaves, want, line, line_len, &err) != WT_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        return 1;
    }
    wt_merkle_root((const uint8_t(*)[32]) * leaves, x->cp.size, root);
    if (memcmp(root, x->cp.root, 32) && x->given) {
        fprintf(stderr,
                "%s: --checkpoint %s: signed by the log's key for %llu lines with another root "
                "than the log's: the key signed two histories (a fork), or the log was "
                "rewritten since; run verify-log --against %s\n",
                prog, x->given, (unsigned long long)x->cp.size, x->given);
        return 1;
    }
    if (memcmp(root, x->cp.root, 32)) {
        fprintf(stderr, "%s: the log does not match its signed checkpoint; run verify-log\n", prog);
        return 1;
    }
    return 0;
}

/* --- checkpoint ------------------------------------------------------ */

int wt_cmd_checkpoint(int argc, char **argv)
{
    const char *dir = NULL, *file = NULL, *vkey = NULL;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--log-dir", WT_OPT_STRING, &dir, "DIR", "log directory (default: $WT_LOG_DIR, else ./" WT_DEFAULT_LOG_DIR ")", 0, 0, NULL, false},
        {"--log-file", WT_OPT_STRING, &file, "FILE", "log file", 0, 0, NULL, false},
        {"--vkey", WT_OPT_STRING, &vkey, "KEY", "pin the log's verifier key", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth checkpoint",
        "Print the log's latest signed checkpoint (a C2SP signed note), after verifying\n"
        "the log.  Keep copies elsewhere: verify-log --against detects a later rewrite\n"
        "or truncation below it.",
        "exit status: 0 printed, 1 the log does not verify, 2 usage or I/O error.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    struct exported *x = calloc(1, sizeof(*x));
    int rc = x ? load_verified(help.prog, dir, file, vkey, x) : 1;
    /* standard output that cannot be written is an I/O error (2), not a
     * damaged log (1): a hook must not read a full disk as tampering */
    if (!rc && (fwrite(x->ckpt, 1, x->ckpt_len, stdout) != x->ckpt_len || fflush(stdout)))
        rc = WT_EXIT_USAGE;
    if (x)
        free(x->ckpt);
    free(x);
    return rc;
}

/* --- prove ----------------------------------------------------------- */

/* Replaces x's checkpoint with the signed checkpoint in path (a witness's
 * cosigned copy): signed by the log's key, for this log, no larger than the
 * log's own.  0, or 1 (reported). */
static int use_checkpoint(const char *prog, const char *path, struct exported *x)
{
    struct wt_err err = {{0}};
    struct wt_note n;
    struct wt_checkpoint cp;
    struct wt_note_vkey lk;
    size_t len = 0;
    int big;
    char who[160]; /* its messages name the option, as the ones below do */
    snprintf(who, sizeof(who), "%s: --checkpoint", prog);
    char *text = read_input(who, path, WT_NOTE_MAX_LEN, &len, &big, "");
    if (!text) /* an I/O error (reported): nothing concluded; too large: no checkpoint */
        return big ? 1 : WT_EXIT_USAGE;
    if (wt_note_parse(text, len, &n, &err) != WT_OK) {
        fprintf(stderr, "%s: --checkpoint %s: %s\n", prog, WT_CLEAN(path), err.msg);
        free(text);
        return 1;
    }
    log_vkey(x, &lk);
    const char *why = NULL;
    if (wt_note_verify(&n, &lk, NULL) != 1)
        why = "not signed by this log's key";
    else if (wt_checkpoint_parse(n.text, n.body_len, &cp, &err) != WT_OK)
        why = err.msg;
    else if (strcmp(cp.origin, x->r.origin))
        why = "a checkpoint of another log";
    else if (cp.size > x->cp.size)
        why = "larger than the log's own signed checkpoint";
    wt_note_free(&n);
    if (why) {
        fprintf(stderr, "%s: --checkpoint %s: %s\n", prog, WT_CLEAN(path), why);
        free(text);
        return 1;
    }
    free(x->ckpt);
    x->ckpt = text;
    x->ckpt_len = len;
    x->cp = cp;
    x->given = path;
    return 0;
}

int wt_cmd_prove(int argc, char **argv)
{
    const char *dir = NULL, *file = NULL, *vkey = NULL, *ckpt = NULL;
    struct wt_strlist pos = {0};
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--log-dir", WT_OPT_STRING, &dir, "DIR", "log directory (default: $WT_LOG_DIR, else ./" WT_DEFAULT_LOG_DIR ")", 0, 0, NULL, false},
        {"--log-file", WT_OPT_STRING, &file, "FILE", "log file", 0, 0, NULL, false},
        {"--vkey", WT_OPT_STRING, &vkey, "KEY", "pin the log's verifier key", 0, 0, NULL, false},
        {"--checkpoint", WT_OPT_STRING, &ckpt, "FILE", "prove against this signed checkpoint of the log instead (e.g. a witness's cosigned copy, which the proof then carries)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth prove",
        "Print an inclusion proof (c2sp.org/tlog-proof@v1) that entry INDEX (its seq,\n"
        "0-based) is in the log: the entry itself, its audit path and the signed\n"
        "checkpoint.  Anyone with the verifier key checks it offline with verify-proof.",
        "exit status: 0 printed, 1 the log does not verify or INDEX is not sealed yet,\n"
        "2 usage or I/O error.",
        "INDEX",
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, &pos);
    if (prc) {
        wt_strlist_free(&pos);
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    }
    uint64_t index = 0;
    if (pos.n != 1) {
        fprintf(stderr, "%s: give one entry INDEX (see --help)\n", help.prog);
        wt_strlist_free(&pos);
        return WT_EXIT_USAGE;
    }
    prc = parse_index(help.prog, pos.v[0], &index);
    wt_strlist_free(&pos);
    if (prc)
        return prc;
    struct exported *x = calloc(1, sizeof(*x));
    struct wt_tlog_proof pr;
    uint8_t(*leaves)[32] = NULL;
    char *line = NULL, *text = NULL;
    size_t line_len = 0;
    struct wt_err err = {{0}};
    int rc = x ? load_verified(help.prog, dir, file, vkey, x) : 1;
    memset(&pr, 0, sizeof(pr));
    if (!rc && ckpt)
        rc = use_checkpoint(help.prog, ckpt, x);
    if (rc)
        goto out;
    rc = 1;
    if (index >= x->cp.size) {
        fprintf(stderr, "%s: entry %llu is not covered by the signed checkpoint (size %llu)\n",
                help.prog, (unsigned long long)index, (unsigned long long)x->cp.size);
        goto out;
    }
    if (checkpoint_leaves(help.prog, x, index, &leaves, &line, &line_len))
        goto out;
    if (wt_merkle_inclusion_proof((const uint8_t(*)[32])leaves, x->cp.size, index, pr.path,
                                  WT_PROOF_MAX_HASHES, &pr.npath)) {
        fprintf(stderr, "%s: cannot build the proof\n", help.prog);
        goto out;
    }
    pr.index = index;
    pr.extra = (uint8_t *)line;
    pr.extra_len = line_len;
    pr.checkpoint = x->ckpt;
    pr.checkpoint_len = x->ckpt_len;
    if (wt_tlog_proof_format(&pr, &text, &err) != WT_OK) {
        fprintf(stderr, "%s: %s\n", help.prog, err.msg);
        goto out;
    }
    fputs(text, stdout);
    rc = fflush(stdout) ? WT_EXIT_USAGE : WT_EXIT_OK; /* an I/O error, as for checkpoint */
out:
    free(text);
    free(line);
    free(leaves);
    if (x)
        free(x->ckpt);
    free(x);
    return rc;
}

/* --- verify-proof ---------------------------------------------------- */

/* verify-proof --json's answer to an invalid proof (or no proof at all):
 * {"valid": false, "reason": WHY}; exit 1, or 2 when it cannot be printed */
static int proof_invalid_json(const char *why)
{
    json_t *j = json_pack("{s:b,s:s}", "valid", 0, "reason", why);
    int rc = !j || wt_json_print(stdout, j) ? 2 : 1;
    json_decref(j);
    return rc;
}

int wt_cmd_verify_proof(int argc, char **argv)
{
    const char *vkey = NULL, *in = "-", *wvkey = NULL;
    bool json = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--vkey", WT_OPT_STRING, &vkey, "KEY", "the log's verifier key (required)", 0, 0, NULL, false},
        {"--witness-vkey", WT_OPT_STRING, &wvkey, "KEY", "also require this witness's cosignature on the checkpoint (prove --checkpoint with the witness's copy)", 0, 0, NULL, false},
        {"--proof", WT_OPT_STRING, &in, "FILE", "the proof (default: standard input)", 0, 0, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print the result and the entry as JSON", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth verify-proof",
        "Check an inclusion proof made by `prove`, offline: the checkpoint's signature,\n"
        "then that the entry it carries is in the log at that checkpoint.",
        "exit status: 0 valid, 1 invalid, 2 usage or I/O error.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if (!vkey) {
        fprintf(stderr, "%s: --vkey is required (see --help)\n", help.prog);
        return WT_EXIT_USAGE;
    }
    struct wt_note_vkey vk, wvk;
    if ((prc = wt_cli_read_vkey(help.prog, vkey, &vk)) != 0)
        return prc;
    if (wvkey && (prc = read_witness_vkey(help.prog, wvkey, &wvk)) != 0)
        return prc;
    size_t len = 0;
    int big;
    char *text = read_input(help.prog, in, WT_PROOF_MAX_TEXT, &len, &big, "");
    if (!text) /* too large: not a proof (1); else an I/O error, nothing concluded */
        return !big ? WT_EXIT_USAGE : json ? proof_invalid_json("not a proof: input too large") : 1;
    struct wt_tlog_proof pr;
    struct wt_note note;
    struct wt_checkpoint cp;
    struct wt_err err = {{0}};
    int rc = 1, have_pr = 0, have_note = 0;
    const char *why = NULL;
    char whybuf[sizeof(err.msg) + 40];
    /* not a proof: said on standard error, and with --json as an invalid
     * one on standard output too (a JSON reader got nothing) */
    if (wt_tlog_proof_parse(text, len, &pr, &err) != WT_OK) {
        fprintf(stderr, "%s: %s\n", help.prog, err.msg);
        snprintf(whybuf, sizeof(whybuf), "not a proof: %s", err.msg);
        if (json)
            rc = proof_invalid_json(whybuf);
        goto out;
    }
    have_pr = 1;
    if (wt_note_parse(pr.checkpoint, pr.checkpoint_len, &note, &err) != WT_OK) {
        fprintf(stderr, "%s: checkpoint: %s\n", help.prog, err.msg);
        snprintf(whybuf, sizeof(whybuf), "not a proof: checkpoint: %s", err.msg);
        if (json)
            rc = proof_invalid_json(whybuf);
        goto out;
    }
    have_note = 1;
    uint8_t leaf[32];
    if (wt_note_verify(&note, &vk, NULL) != 1)
        why = "the checkpoint is not signed by this key";
    else if (wvkey && wt_note_verify(&note, &wvk, NULL) != 1)
        why = "the checkpoint carries no valid cosignature by this witness (prove --checkpoint "
              "with the witness's copy bundles one)";
    else if (wt_checkpoint_parse(note.text, note.body_len, &cp, &err) != WT_OK)
        why = err.msg;
    else if (strcmp(cp.origin, vk.name) != 0)
        why = "the checkpoint is for another log (its origin is not the key's name)";
    else if (!pr.extra)
        why = "the proof carries no entry ('extra' line)";
    else {
        wt_merkle_leaf_hash(pr.extra, pr.extra_len, leaf);
        struct wt_entry e;
        if (pr.index >= cp.size) {
            snprintf(whybuf, sizeof(whybuf),
                     "the entry's index %llu is not below the checkpoint's tree size %llu",
                     (unsigned long long)pr.index, (unsigned long long)cp.size);
            why = whybuf;
        } else if (wt_merkle_verify_inclusion(leaf, pr.index, cp.size,
                                              (const uint8_t(*)[32])pr.path, pr.npath,
                                              cp.root) != 0)
            why = "the audit path does not lead from the entry to the checkpoint's root";
        /* what is printed as the log's record at that index is one, with
         * that seq (a key holder could sign any bytes into a tree) */
        else if (wt_entry_parse((const char *)pr.extra, pr.extra_len, &e, &err) != WT_OK)
            why = "the entry is not a log record";
        else {
            if (e.seq != pr.index)
                why = "the entry's seq is not its index in the log";
            wt_entry_free(&e);
        }
    }
    if (why && json) {
        rc = proof_invalid_json(why);
        goto out;
    }
    if (why) {
        printf("INVALID: %s\n", why);
        goto out;
    }
    if (json) {
        json_t *j = json_object();
        json_t *entry =
            json_loadb((const char *)pr.extra, pr.extra_len, JSON_REJECT_DUPLICATES, NULL);
        json_object_set_new(j, "valid", json_true());
        json_object_set_new(j, "index", json_integer((json_int_t)pr.index));
        json_object_set_new(j, "tree_size", json_integer((json_int_t)cp.size));
        json_object_set_new(j, "origin", json_string(cp.origin));
        json_object_set_new(j, "entry", entry ? entry : json_null());
        rc = wt_json_print(stdout, j) ? 2 : 0;
        json_decref(j);
    } else {
        /* a record's JSON escapes every control character; the terminal
         * gets no other (wt_entry_parse took the line) */
        char *shown = strndup((const char *)pr.extra, pr.extra_len);
        char origin[sizeof(cp.origin)]; /* a key name: it may hold bidi controls */
        snprintf(origin, sizeof(origin), "%s", cp.origin);
        printf("OK: entry %llu is in %s at size %llu\n%s\n", (unsigned long long)pr.index,
               wt_text_clean(origin), (unsigned long long)cp.size,
               shown ? wt_text_clean(shown) : "");
        free(shown);
        rc = shown ? 0 : 2;
    }
out:
    if (have_note)
        wt_note_free(&note);
    if (have_pr)
        wt_tlog_proof_free(&pr);
    free(text);
    return rc;
}

/* --- consistency ----------------------------------------------------- */

int wt_cmd_consistency(int argc, char **argv)
{
    const char *dir = NULL, *file = NULL, *vkey = NULL;
    unsigned long long old = 0;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--log-dir", WT_OPT_STRING, &dir, "DIR", "log directory (default: $WT_LOG_DIR, else ./" WT_DEFAULT_LOG_DIR ")", 0, 0, NULL, false},
        {"--log-file", WT_OPT_STRING, &file, "FILE", "log file", 0, 0, NULL, false},
        {"--vkey", WT_OPT_STRING, &vkey, "KEY", "pin the log's verifier key", 0, 0, NULL, false},
        {"--old", WT_OPT_UINT, &old, "N", "the size the witness holds (0 for a new witness)", 0, 9007199254740991.0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth consistency",
        "Print a witness request (the c2sp.org/tlog-witness add-checkpoint body):\n"
        "'old N', the consistency proof from size N to the latest signed checkpoint,\n"
        "and that checkpoint.  Feed it to `workloadtruth witness` on another machine.",
        "exit status: 0 printed, 1 the log does not verify or N is too large,\n"
        "2 usage or I/O error.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if (!wt_opts_get(opts, "--old")->seen) {
        fprintf(stderr,
                "%s: --old N is required (the size the witness holds; 0 for a new "
                "witness) (see --help)\n",
                help.prog);
        return WT_EXIT_USAGE;
    }
    struct exported *x = calloc(1, sizeof(*x));
    uint8_t(*leaves)[32] = NULL;
    char *text = NULL;
    struct wt_witness_req req;
    struct wt_err err = {{0}};
    memset(&req, 0, sizeof(req));
    int rc = x ? load_verified(help.prog, dir, file, vkey, x) : 1;
    if (rc)
        goto out;
    rc = 1;
    if (old > x->cp.size) {
        fprintf(stderr,
                "%s: --old %llu is larger than the log's signed size %llu: the log "
                "shrank, or the witness holds another log\n",
                help.prog, old, (unsigned long long)x->cp.size);
        goto out;
    }
    if (checkpoint_leaves(help.prog, x, UINT64_MAX, &leaves, NULL, NULL))
        goto out;
    if (wt_merkle_consistency_proof((const uint8_t(*)[32])leaves, x->cp.size, old, req.proof,
                                    WT_PROOF_MAX_HASHES, &req.nproof)) {
        fprintf(stderr, "%s: cannot build the proof\n", help.prog);
        goto out;
    }
    req.old_size = old;
    req.checkpoint = x->ckpt;
    req.checkpoint_len = x->ckpt_len;
    if (wt_witness_req_format(&req, &text, &err) != WT_OK) {
        fprintf(stderr, "%s: %s\n", help.prog, err.msg);
        goto out;
    }
    fputs(text, stdout);
    rc = fflush(stdout) ? WT_EXIT_USAGE : WT_EXIT_OK; /* an I/O error, as for checkpoint */
out:
    free(text);
    free(leaves);
    if (x)
        free(x->ckpt);
    free(x);
    return rc;
}

/* --- witness --------------------------------------------------------- */

int wt_cmd_witness(int argc, char **argv)
{
    const char *state = NULL, *vkey = NULL, *name = NULL, *in = "-";
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--state", WT_OPT_STRING, &state, "DIR", "the witness's state directory (required; made on first use)", 0, 0, NULL, false},
        {"--vkey", WT_OPT_STRING, &vkey, "KEY", "the log's verifier key (required)", 0, 0, NULL, false},
        {"--name", WT_OPT_STRING, &name, "NAME", "the witness's key name when creating its key (default witness.<host>)", 0, 0, NULL, false},
        {"--request", WT_OPT_STRING, &in, "FILE", "the request made by `consistency` (default: standard input)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth witness",
        "A minimal C2SP witness, for another machine: checks that a log checkpoint is\n"
        "signed by the log and consistent with the one it holds, stores it atomically,\n"
        "then prints its cosignature line.  Its stored copy (printed path) is what\n"
        "verify-log --against takes.",
        "exit status: 0 cosigned, 1 refused (409 conflict: wrong --old, or the size\n"
        "held with another root; 422: the log was rewritten or forked below the size\n"
        "held; 403: not signed by the log; 400: a malformed request (or over 256 KiB),\n"
        "or old larger than the checkpoint's size, as when a checkpoint smaller than\n"
        "the one held comes from the size held), 2 usage or I/O error.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if (!state || !vkey) {
        fprintf(stderr, "%s: --state and --vkey are required (see --help)\n", help.prog);
        return WT_EXIT_USAGE;
    }
    struct wt_note_vkey lv;
    if ((prc = wt_cli_read_vkey(help.prog, vkey, &lv)) != 0)
        return prc;
    /* the request first: one that cannot be read makes no state directory
     * nor key */
    size_t len = 0;
    int big;
    char *req = read_input(help.prog, in, WT_PROOF_MAX_TEXT, &len, &big, "400: bad request: ");
    if (!req) /* too large: a malformed request, 400 (exit 1) */
        return big ? WT_EXIT_ERROR : WT_EXIT_USAGE;
    struct wt_note_key wk;
    struct wt_err err = {{0}};
    int created = 0;
    if (wt_witness_key(state, name, &wk, &created, &err) != WT_OK) {
        fprintf(stderr, "%s: %s\n", help.prog, err.msg);
        free(req);
        return WT_EXIT_USAGE;
    }
    if (created) {
        struct wt_note_vkey wv;
        char text[600];
        wt_note_key_public(&wk, &wv);
        if (wt_note_format_vkey(&wv, text, sizeof(text)) > 0)
            fprintf(stderr, "%s: created witness key; its verifier key: %s\n", help.prog, text);
    }
    struct wt_witness_result *res = malloc(sizeof(*res));
    int rc = WT_EXIT_USAGE;
    if (!res) {
        fprintf(stderr, "%s: out of memory\n", help.prog);
    } else if (wt_witness_add(state, &wk, &lv, req, len, (uint64_t)time(NULL), res, &err) !=
               WT_OK) {
        fprintf(stderr, "%s: %s\n", help.prog, err.msg);
    } else if (res->code != WT_WITNESS_OK) {
        fprintf(stderr, "%s: %d: %s\n", help.prog, res->code, wt_text_clean(res->message));
        rc = WT_EXIT_ERROR;
    } else {
        fputs(res->cosig_line, stdout);
        fprintf(stderr, "%s: %s; stored in %s\n", help.prog, wt_text_clean(res->message),
                WT_CLEAN(res->state_path));
        rc = fflush(stdout) ? WT_EXIT_USAGE : WT_EXIT_OK;
        if (rc != WT_EXIT_OK) /* stored, but its cosignature did not get out */
            fprintf(stderr,
                    "%s: the cosignature line was not written; the checkpoint is stored: a "
                    "request from size %llu (consistency --old %llu) gets it cosigned again\n",
                    help.prog, (unsigned long long)res->new_size,
                    (unsigned long long)res->new_size);
    }
    free(res);
    free(req);
    wt_note_key_wipe(&wk);
    return rc;
}

/* --- recover --------------------------------------------------------- */

int wt_cmd_recover(int argc, char **argv)
{
    const char *dir = NULL, *file = NULL;
    bool reseal = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--log-dir", WT_OPT_STRING, &dir, "DIR", "log directory (default: $WT_LOG_DIR, else ./" WT_DEFAULT_LOG_DIR ")", 0, 0, NULL, false},
        {"--log-file", WT_OPT_STRING, &file, "FILE", "log file", 0, 0, NULL, false},
        {"--reseal", WT_OPT_FLAG, &reseal, NULL, "sign the log as it is although its checkpoint file is missing (check it against a copy held elsewhere first)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth recover",
        "Repair a log after a crash, as the next writer would: a torn last line past\n"
        "every signed checkpoint moves to a quarantine file, a `recovery` record says so,\n"
        "and a checkpoint is signed.  Refuses (and changes nothing) when the damage is\n"
        "anything else, or when the checkpoint file is missing (unless --reseal).  Needs\n"
        "the signing key and the writer's lock.",
        "exit status: 0 nothing to do or repaired, 1 refused or failed, 2 usage error.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    struct wt_log_paths p;
    if ((prc = wt_cli_log_paths(help.prog, dir, file, &p)) != 0)
        return prc;
    struct wt_log *l = NULL;
    struct wt_log_recovery rec;
    struct wt_err err = {{0}};
    struct wt_log_opts lo = {0};
    lo.reseal = reseal;
    lo.whole = 1; /* every line read again, whatever the writers verified before */
    if (wt_log_open(&l, &p, &lo, &rec, &err) != WT_OK) {
        fprintf(stderr, "%s: %s\n", help.prog, err.msg);
        return WT_EXIT_ERROR;
    }
    wt_cli_report_unsealed(help.prog, p.log, &rec);
    if (rec.repaired)
        printf("repaired: %llu bytes from offset %llu moved to %s; recovery record appended; "
               "%llu entries\n",
               (unsigned long long)rec.dropped, (unsigned long long)rec.offset, rec.quarantine,
               (unsigned long long)wt_log_size(l));
    else
        printf("nothing to repair: %llu entries%s\n", (unsigned long long)wt_log_size(l),
               rec.unsealed ? " (the unsealed ones are now covered by a signed checkpoint)" : "");
    wt_log_close(l);
    return WT_EXIT_OK;
}
