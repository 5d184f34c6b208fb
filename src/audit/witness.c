/* The mini witness (see witness.h).
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE /* flock, gethostname */
#include "audit/witness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/log.h"
#include "audit/merkle.h"
#include "audit/proof.h"
#include "util/fileio.h"

/* tries of 10 ms to take the state lock: 5 s */
#define WT_WITNESS_LOCK_TRIES 500

/* The witness's key file: a cosignature key. */
static int read_witness_key(const char *path, struct wt_note_key *k, struct wt_err *err)
{
    int rc = wt_log_read_key(path, k, err);
    if (rc == WT_OK && k->type != WT_KEY_COSIG) {
        wt_note_key_wipe(k);
        return wt_errf(err, WT_EINVAL, "%s is not a cosignature key", path);
    }
    return rc;
}

int wt_witness_key(const char *dir, const char *name, struct wt_note_key *k, int *created,
                   struct wt_err *err)
{
    char path[PATH_MAX];
    struct stat st;
    *created = 0;
    if (sodium_init() < 0)
        return wt_errf(err, WT_EIO, "libsodium failed to initialise");
    /* a bad name is refused before the state directory is made */
    if (name && !wt_note_name_ok(name))
        return wt_errf(err, WT_EINVAL,
                       "--name '%.80s': not a key name (1..255 bytes of printable UTF-8, no "
                       "spaces, no '+')",
                       name);
    int rc = wt_mkdir_durable(dir, 0700, err); /* the state must outlive a crash */
    if (rc != WT_OK)
        return rc;
    if (snprintf(path, sizeof(path), "%s/witness.key", dir) >= (int)sizeof(path))
        return wt_errf(err, WT_EINVAL, "path too long");
    if (stat(path, &st) == 0)
        return read_witness_key(path, k, err);
    char nm[WT_NOTE_NAME_MAX + 1];
    if (name) {
        snprintf(nm, sizeof(nm), "%s", name);
    } else {
        char host[128] = "localhost";
        if (gethostname(host, sizeof(host) - 1) == 0)
            host[sizeof(host) - 1] = '\0';
        for (char *c = host; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || *c == '-' || *c == '.'))
                *c = '-';
        snprintf(nm, sizeof(nm), "witness.%s", host[0] ? host : "localhost");
    }
    rc = wt_note_key_generate(k, nm, WT_KEY_COSIG, err);
    if (rc)
        return rc;
    char text[600];
    int n = wt_note_format_skey(k, text, sizeof(text) - 1);
    if (n < 0) {
        wt_note_key_wipe(k);
        return wt_errf(err, WT_EINVAL, "witness name too long");
    }
    text[n++] = '\n';
    rc = wt_write_file_durable(dir, path, text, (size_t)n, 0600, WT_FILE_EXCL, err);
    int e = errno;
    sodium_memzero(text, sizeof(text));
    if (rc) {
        wt_note_key_wipe(k);
        /* another witness started on this state at the same time and made
         * its key first (the file is linked whole): that is the key */
        return e == EEXIST ? read_witness_key(path, k, err) : rc;
    }
    *created = 1;
    return WT_OK;
}

static int refuse(struct wt_witness_result *res, int code, const char *fmt, ...) WT_PRINTF(3, 4);
static int refuse(struct wt_witness_result *res, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->message, sizeof(res->message), fmt, ap);
    va_end(ap);
    res->code = code;
    return WT_OK;
}

int wt_witness_add(const char *dir, const struct wt_note_key *wkey,
                   const struct wt_note_vkey *log_vkey, const char *req, size_t len, uint64_t now_s,
                   struct wt_witness_result *res, struct wt_err *err)
{
    struct wt_witness_req r;
    struct wt_note note, old;
    struct wt_checkpoint cp, oldcp;
    struct wt_err perr = {{0}};
    char lockpath[PATH_MAX];
    int lockfd = -1, have_note = 0, have_old = 0, have_req = 0, rc = WT_OK;
    char *state = NULL, *newstate = NULL;
    memset(res, 0, sizeof(*res));
    memset(&note, 0, sizeof(note));
    memset(&old, 0, sizeof(old));

    if (wt_witness_req_parse(req, len, &r, &perr) != WT_OK) {
        refuse(res, WT_WITNESS_BAD_REQUEST, "bad request: %s", perr.msg);
        goto out;
    }
    have_req = 1;
    if (wt_note_parse(r.checkpoint, r.checkpoint_len, &note, &perr) != WT_OK) {
        refuse(res, WT_WITNESS_BAD_REQUEST, "bad checkpoint note: %s", perr.msg);
        goto out;
    }
    have_note = 1;
    if (wt_note_verify(&note, log_vkey, NULL) != 1) {
        refuse(res, WT_WITNESS_FORBIDDEN, "the checkpoint is not validly signed by %s",
               log_vkey->name);
        goto out;
    }
    if (wt_checkpoint_parse(note.text, note.body_len, &cp, &perr) != WT_OK) {
        refuse(res, WT_WITNESS_BAD_REQUEST, "bad checkpoint: %s", perr.msg);
        goto out;
    }
    if (strcmp(cp.origin, log_vkey->name) != 0) {
        refuse(res, WT_WITNESS_FORBIDDEN, "checkpoint origin '%.100s' is not the log's", cp.origin);
        goto out;
    }
    res->new_size = cp.size;

    uint8_t oh[32];
    char hex[17];
    crypto_hash_sha256(oh, (const unsigned char *)cp.origin, strlen(cp.origin));
    sodium_bin2hex(hex, sizeof(hex), oh, 8);
    snprintf(res->state_path, sizeof(res->state_path), "%s/log-%s.checkpoint", dir, hex);
    snprintf(lockpath, sizeof(lockpath), "%s/state.lock", dir);
    lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lockfd < 0) {
        rc = wt_errf(err, WT_EIO, "cannot open %s: %s", lockpath, strerror(errno));
        goto out;
    }
    /* another request holds it for milliseconds: wait for it, but not
     * forever (a stuck witness held every later request of a cron job
     * silently) */
    int locked = -1, lerr = 0;
    for (int tries = 0; tries < WT_WITNESS_LOCK_TRIES; tries++) {
        if ((locked = flock(lockfd, LOCK_EX | LOCK_NB)) == 0 || (lerr = errno) != EWOULDBLOCK)
            break;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    if (locked) {
        rc = lerr == EWOULDBLOCK
                 ? wt_errf(err, WT_EBUSY,
                           "%s is in use: another witness process has held it for %d s", lockpath,
                           WT_WITNESS_LOCK_TRIES / 100)
                 : wt_errf(err, WT_EIO, "cannot lock %s: %s", lockpath, strerror(lerr));
        goto out;
    }
    /* the stored checkpoint, if any */
    /* a regular file only (a FIFO planted there must not hang the witness
     * while it holds the state lock), and a stored copy that exists but
     * cannot be opened is an error, not "no state" */
    const char *why = NULL;
    errno = 0;
    FILE *f = wt_fopen_regular(res->state_path, &why);
    if (!f && errno != ENOENT) {
        rc = wt_errf(err, WT_EIO, "%s: unreadable witness state: %s", res->state_path,
                     why ? why : "cannot open");
        goto out;
    }
    if (f) {
        state = malloc(WT_NOTE_MAX_LEN + 1);
        size_t n = state ? fread(state, 1, WT_NOTE_MAX_LEN + 1, f) : 0;
        int bad = !state || ferror(f) || n > WT_NOTE_MAX_LEN;
        fclose(f);
        if (bad)
            wt_errf(&perr, WT_EIO, "%s",
                    !state                ? "out of memory"
                    : n > WT_NOTE_MAX_LEN ? "larger than a note can be"
                                          : "read error");
        if (bad || wt_note_parse(state, n, &old, &perr) != WT_OK ||
            wt_checkpoint_parse(old.text, old.body_len, &oldcp, &perr) != WT_OK) {
            rc =
                wt_errf(err, WT_EIO, "%s: unreadable witness state: %s", res->state_path, perr.msg);
            goto out;
        }
        have_old = 1;
        res->stored_size = oldcp.size;
        /* the state is keyed by origin only: a key of the same name (any
         * log can be init'ed with --origin), or an origin whose hash prefix
         * collides, must not advance another log's state */
        int oldsig = wt_note_verify(&old, log_vkey, NULL);
        if (!strcmp(oldcp.origin, cp.origin) && oldsig < 0) {
            /* this key's own signature line, which does not verify: the
             * stored copy is damaged, not another log's */
            rc = wt_errf(err, WT_EIO,
                         "%s: the stored checkpoint carries this log key's signature, but it does "
                         "not verify: the witness state is damaged (restore it from a copy)",
                         res->state_path);
            goto out;
        }
        if (strcmp(oldcp.origin, cp.origin) != 0 || oldsig != 1) {
            refuse(res, WT_WITNESS_FORBIDDEN,
                   "this witness holds %.100s under another log key: refusing to advance it "
                   "with a checkpoint signed by key %s+%08lx",
                   oldcp.origin, log_vkey->name, (unsigned long)log_vkey->keyid);
            goto out;
        }
    } else if (errno != ENOENT) {
        rc = wt_errf(err, WT_EIO, "cannot read %s: %s", res->state_path, strerror(errno));
        goto out;
    }
    /* C2SP tlog-witness: an old size larger than the checkpoint's own can
     * never be valid, whatever this witness holds: 400, before the 409
     * comparison with the size held.  (A checkpoint smaller than the one
     * held, sent from the size held, is one: the log shrank.) */
    if (r.old_size > cp.size && cp.size < res->stored_size) {
        refuse(res, WT_WITNESS_BAD_REQUEST,
               "the checkpoint (size %llu) is smaller than the one this witness holds (%llu): "
               "the log shrank",
               (unsigned long long)cp.size, (unsigned long long)res->stored_size);
        goto out;
    }
    if (r.old_size > cp.size) {
        refuse(res, WT_WITNESS_BAD_REQUEST,
               "bad request: old size %llu is larger than the checkpoint's size %llu (no "
               "consistency proof leads from a larger tree to a smaller one)",
               (unsigned long long)r.old_size, (unsigned long long)cp.size);
        goto out;
    }
    if (r.old_size != res->stored_size) {
        refuse(res, WT_WITNESS_CONFLICT,
               "conflict: the request is from size %llu but this witness holds size %llu",
               (unsigned long long)r.old_size, (unsigned long long)res->stored_size);
        goto out;
    }
    /* from here old == the size held <= the checkpoint's size.  C2SP
     * tlog-witness: a checkpoint of the very size held must have the root
     * held, else 409 (a fork at that size), before any proof is looked at */
    if (have_old && oldcp.size == cp.size && memcmp(oldcp.root, cp.root, sizeof(cp.root)) != 0) {
        refuse(res, WT_WITNESS_CONFLICT,
               "conflict: the checkpoint has the size this witness holds (%llu) with another "
               "root: the log was rewritten or forked at that size",
               (unsigned long long)cp.size);
        goto out;
    }
    if (have_old && oldcp.size == cp.size && r.nproof != 0) {
        refuse(res, WT_WITNESS_BAD_PROOF,
               "a checkpoint of the size this witness holds (%llu) takes an empty proof; this "
               "one has %zu hash%s",
               (unsigned long long)cp.size, r.nproof, r.nproof == 1 ? "" : "es");
        goto out;
    }
    if (have_old && wt_merkle_verify_consistency(oldcp.size, cp.size, oldcp.root, cp.root,
                                                 (const uint8_t(*)[32])r.proof, r.nproof) != 0) {
        refuse(res, WT_WITNESS_BAD_PROOF,
               "the consistency proof from size %llu to %llu does not verify: the log was "
               "rewritten or forked below the size this witness holds",
               (unsigned long long)oldcp.size, (unsigned long long)cp.size);
        goto out;
    }
    if (!have_old && r.nproof != 0) {
        refuse(res, WT_WITNESS_BAD_PROOF, "a first checkpoint takes an empty proof");
        goto out;
    }
    int n = wt_note_sig_line(wkey, note.text, note.body_len, now_s, res->cosig_line,
                             sizeof(res->cosig_line));
    if (n < 0) {
        rc = wt_errf(err, WT_EINVAL, "cannot cosign");
        goto out;
    }
    /* persist first: the body, the log key's signature lines (verified
     * above), then ours.  Other lines a requester added are not kept: saved,
     * they could push the state past what the note parser reads back (16
     * signature lines) and break this witness for good. */
    size_t cl = strlen(res->cosig_line), sl = 0;
    newstate = malloc(note.len + cl + 1);
    if (!newstate) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    memcpy(newstate, note.text, note.body_len);
    sl = note.body_len;
    newstate[sl++] = '\n';
    const char *line = note.text + note.body_len + 1;
    int kept = 0;
    for (int i = 0; i < note.nsigs; i++) {
        const char *nl = strchr(line, '\n');
        size_t ll = (size_t)(nl - line) + 1;
        /* one copy: duplicates (all valid) could push the state past 16 lines */
        if (!kept && note.sigs[i].keyid == log_vkey->keyid &&
            !strcmp(note.sigs[i].name, log_vkey->name)) {
            kept = 1;
            memcpy(newstate + sl, line, ll);
            sl += ll;
        }
        line += ll;
    }
    memcpy(newstate + sl, res->cosig_line, cl + 1);
    sl += cl;
    struct wt_note check;
    if (wt_note_parse(newstate, sl, &check, &perr) != WT_OK) {
        rc = wt_errf(err, WT_EINVAL, "the state to save would not read back: %s", perr.msg);
        goto out;
    }
    wt_note_free(&check);
    if ((rc = wt_write_file_durable(dir, res->state_path, newstate, sl, 0644, WT_FILE_REPLACE,
                                    err)) != WT_OK)
        goto out;
    res->code = WT_WITNESS_OK;
    snprintf(res->message, sizeof(res->message), "cosigned %s at size %llu (was %llu)", cp.origin,
             (unsigned long long)cp.size, (unsigned long long)res->stored_size);
out:
    if (lockfd >= 0)
        close(lockfd);
    if (have_note)
        wt_note_free(&note);
    if (have_old)
        wt_note_free(&old);
    if (have_req)
        wt_witness_req_free(&r);
    free(state);
    free(newstate);
    return rc;
}
