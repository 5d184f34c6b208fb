/* A tiny audit-log writer for the crash loop and the fault-injection tests.
 *
 *   audit_writer DIR COUNT [SEAL_EVERY]
 *       Opens the log in DIR (running its recovery), or creates it (fresh key)
 *       when DIR has no log yet, then appends COUNT class records (0: until
 *       killed).  Record k (0-based) of this run carries the evidence
 *       {"run": RUN, "n": k}; RUN is $WT_WRITER_RUN or else the process id.
 *       Each acknowledged seq is printed on its own line to stdout, flushed
 *       right after wt_log_append returns OK.  Every SEAL_EVERY records (0:
 *       never) a checkpoint record is appended and published; a run that ends
 *       normally publishes a checkpoint.  On any error: the message on stderr,
 *       exit 1.
 *   audit_writer --recover DIR
 *       Opens and closes the log (repairing a torn tail); exit 0, or 1.
 *   audit_writer --verify DIR
 *       Verifies the log with its side-file checkpoint and its own key;
 *       prints the report; exits with the verifier's status (0 ok,
 *       1 damaged, 2 error, 3 ok with warnings).
 *   audit_writer --sanitizer
 *       Prints "asan" if built with AddressSanitizer, else "none".
 *   audit_writer --forge-proof KEYFILE INDEX < LINES
 *       Prints an inclusion proof (tlog-proof) of line INDEX (0-based) of a
 *       tree whose leaves are the lines of standard input (at most 64), in a
 *       checkpoint signed with the log key in KEYFILE: what a holder of the
 *       key can sign, whatever the lines hold (verify-proof must not print
 *       such a line as the log's record at INDEX).
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/log.h"
#include "audit/merkle.h"
#include "audit/note.h"
#include "audit/proof.h"
#include "audit/verify.h"

#if defined(__SANITIZE_ADDRESS__)
#define WT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WT_ASAN 1
#endif
#endif

static int usage(void)
{
    fprintf(stderr, "usage: audit_writer DIR COUNT [SEAL_EVERY]\n"
                    "       audit_writer --recover DIR | --verify DIR | --sanitizer\n"
                    "       audit_writer --forge-proof KEYFILE INDEX < LINES\n");
    return 2;
}

static int parse_count(const char *s, unsigned long long *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno || end == s || *end || s[0] == '-' ? -1 : 0;
}

static int open_log(const char *dir, struct wt_log **l, struct wt_err *err)
{
    struct wt_log_paths p;
    struct stat st;
    int rc = wt_log_paths_dir(&p, dir, err);
    if (rc)
        return rc;
    if (stat(p.log, &st) != 0 || st.st_size == 0) {
        char vkey[600];
        rc = wt_log_init(&p, NULL, NULL, NULL, vkey, sizeof(vkey), err);
        if (rc)
            return rc;
    }
    struct wt_log_recovery rec;
    rc = wt_log_open(l, &p, NULL, &rec, err);
    if (rc == WT_OK && rec.repaired)
        fprintf(stderr, "audit_writer: recovered a torn tail: %llu bytes at offset %llu -> %s\n",
                (unsigned long long)rec.dropped, (unsigned long long)rec.offset, rec.quarantine);
    return rc;
}

static int do_verify(const char *dir)
{
    struct wt_log_paths p;
    struct wt_err err;
    struct wt_verify_report r;
    if (wt_log_paths_dir(&p, dir, &err)) {
        fprintf(stderr, "audit_writer: %s\n", err.msg);
        return WT_VERIFY_ERROR;
    }
    struct wt_verify_opts o = {.side_path = p.checkpoint};
    int st = wt_verify_file(p.log, &o, &r);
    printf("%s\n", r.message);
    for (int i = 0; i < r.nwarn; i++)
        printf("warning: %s\n", r.warn[i]);
    printf("status %d entries %llu sealed %llu recoveries %llu\n", st,
           (unsigned long long)r.entries, (unsigned long long)r.sealed,
           (unsigned long long)r.recoveries);
    return st;
}

static int forge_proof(const char *keyfile, const char *index_s)
{
    enum { MAXL = 64 };
    static char lines[MAXL][4096];
    static uint8_t leaves[MAXL][WT_HASH_LEN];
    static struct wt_tlog_proof p;
    struct wt_err err = {{0}};
    struct wt_note_key k;
    unsigned long long index;
    char body[512], *note = NULL, *text = NULL;
    int n = 0, rc = 1, blen;
    if (parse_count(index_s, &index))
        return usage();
    if (wt_log_read_key(keyfile, &k, &err) != WT_OK) {
        fprintf(stderr, "audit_writer: %s\n", err.msg);
        return 1;
    }
    while (n < MAXL && fgets(lines[n], sizeof(lines[n]), stdin)) {
        lines[n][strcspn(lines[n], "\n")] = '\0';
        wt_merkle_leaf_hash(lines[n], strlen(lines[n]), leaves[n]);
        n++;
    }
    if (index >= (unsigned long long)n) {
        fprintf(stderr, "audit_writer: index %llu of %d lines\n", index, n);
        goto out;
    }
    const uint8_t(*cl)[WT_HASH_LEN] = (const uint8_t(*)[WT_HASH_LEN])leaves;
    struct wt_checkpoint c = {0};
    snprintf(c.origin, sizeof(c.origin), "%s", k.name);
    c.size = (uint64_t)n;
    wt_merkle_root(cl, c.size, c.root);
    blen = wt_checkpoint_format(&c, body, sizeof(body));
    if (blen <= 0 || wt_note_sign(&k, body, (size_t)blen, &note, &err) != WT_OK ||
        wt_merkle_inclusion_proof(cl, c.size, index, p.path, WT_PROOF_MAX_HASHES, &p.npath) != 0)
        goto out;
    p.index = index;
    p.extra = (uint8_t *)lines[index];
    p.extra_len = strlen(lines[index]);
    p.checkpoint = note;
    p.checkpoint_len = strlen(note);
    if (wt_tlog_proof_format(&p, &text, &err) != WT_OK)
        goto out;
    rc = fputs(text, stdout) < 0 || fflush(stdout) ? 1 : 0;
out:
    if (rc && err.msg[0])
        fprintf(stderr, "audit_writer: %s\n", err.msg);
    free(text);
    free(note);
    wt_note_key_wipe(&k);
    return rc;
}

int main(int argc, char **argv)
{
    struct wt_err err = {{0}};
    struct wt_log *l = NULL;
    if (argc == 2 && !strcmp(argv[1], "--sanitizer")) {
#ifdef WT_ASAN
        puts("asan");
#else
        puts("none");
#endif
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "--forge-proof"))
        return forge_proof(argv[2], argv[3]);
    if (argc == 3 && !strcmp(argv[1], "--verify"))
        return do_verify(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "--recover")) {
        if (open_log(argv[2], &l, &err)) {
            fprintf(stderr, "audit_writer: %s\n", err.msg);
            return 1;
        }
        wt_log_close(l);
        return 0;
    }
    unsigned long long count, seal_every = 0;
    if (argc < 3 || argc > 4 || argv[1][0] == '-' || parse_count(argv[2], &count) ||
        (argc == 4 && parse_count(argv[3], &seal_every)))
        return usage();
    const char *run_env = getenv("WT_WRITER_RUN");
    long long run = run_env && *run_env ? atoll(run_env) : (long long)getpid();

    if (open_log(argv[1], &l, &err)) {
        fprintf(stderr, "audit_writer: %s\n", err.msg);
        return 1;
    }
    static const char *const classes[] = {"training", "inference", "idle", "mining"};
    for (unsigned long long k = 0; count == 0 || k < count; k++) {
        json_t *f = json_pack("{s:s,s:s,s:i,s:{s:I,s:I}}", "gpu",
                              "GPU-00000000-1111-2222-3333-444444444444", "class", classes[k % 4],
                              "conf_ppm", (int)(k * 7919 % 1000001), "evidence", "run",
                              (json_int_t)run, "n", (json_int_t)k);
        uint64_t seq;
        int rc = f ? wt_log_append(l, WT_ENTRY_CLASS, f, &seq, &err)
                   : wt_errf(&err, WT_ENOMEM, "out of memory");
        json_decref(f);
        if (rc) {
            fprintf(stderr, "audit_writer: %s\n", err.msg);
            wt_log_close(l);
            return 1;
        }
        printf("%llu\n", (unsigned long long)seq);
        fflush(stdout);
        if (seal_every && (k + 1) % seal_every == 0 && wt_log_seal(l, &err)) {
            fprintf(stderr, "audit_writer: %s\n", err.msg);
            wt_log_close(l);
            return 1;
        }
    }
    if (wt_log_published(l) != wt_log_size(l) && wt_log_publish(l, &err)) {
        fprintf(stderr, "audit_writer: %s\n", err.msg);
        wt_log_close(l);
        return 1;
    }
    wt_log_close(l);
    return 0;
}
