/* The audit log's writer: init, open (lock, verify, recover a torn tail),
 * append, signed checkpoints.  All durability code lives here.
 *
 * One writer holds an exclusive flock on the lock file.  Each record is one
 * write() of one whole line to an O_APPEND descriptor, followed by
 * fdatasync() before the append is reported as done; a short write is cut
 * back with ftruncate().  A failed fdatasync makes the handle unusable: it is
 * never retried (a retry that "succeeds" proves nothing); the caller closes
 * and reopens, which syncs the file, drops it from the page cache and
 * re-verifies what is on disk.  Checkpoints are published after
 * the data (tmp file, fsync, rename, fsync of the directory).  Opening a log
 * verifies it; a torn tail past every signed size is moved to a quarantine
 * file and a `recovery` record says so; any other damage makes open refuse.
 * This module does not classify, sample or print.
 *
 * Opening verifies the lines after the writers' last verification when it
 * can: D/log.verified holds the verifier's state there (the lines, bytes,
 * Merkle range and last line read), authenticated with a key derived from
 * the log's signing key, so that only a writer can have written it.  A
 * missing, stale or forged one costs a whole scan, nothing else.
 *
 * Files, given a log directory D:  D/log.jsonl, D/checkpoint, D/log.key,
 * D/log.lock, D/log.verified (and D/log.jsonl.torn.<offset> after a
 * recovery).  Given a log file F instead (the Python tool's --log-file): F,
 * F.checkpoint, F.key, F.lock, F.verified.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_AUDIT_LOG_H
#define WT_AUDIT_LOG_H

#include <jansson.h>
#include <limits.h>
#include <stdint.h>

#include "audit/entry.h"
#include "audit/note.h"
#include "audit/verify.h"
#include "util/err.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

struct wt_log_paths {
    char dir[PATH_MAX];
    char log[PATH_MAX];
    char checkpoint[PATH_MAX];
    char key[PATH_MAX];
    char lock[PATH_MAX];
    char state[PATH_MAX]; /* the writers' verification state (log.verified) */
};

int wt_log_paths_dir(struct wt_log_paths *p, const char *dir, struct wt_err *err) WT_WARN_UNUSED;
int wt_log_paths_file(struct wt_log_paths *p, const char *file, struct wt_err *err) WT_WARN_UNUSED;

struct wt_log_opts {
    int64_t (*clock_ms)(void *ctx); /* NULL: the real-time clock */
    void *clock_ctx;
    int no_recover; /* refuse to open a log with a torn tail instead of repairing it */
    /* open (and sign) a log of more than its genesis record whose checkpoint
     * side file is missing; otherwise that is refused, since a log cut or
     * extended by someone without the key would then verify (recover --reseal) */
    int reseal;
    /* a checkpoint file that cannot be written at the end of open (a full
     * disk) does not fail the open: the log is open, verified, with its last
     * entries not yet published (wt_log_published() < wt_log_size();
     * rec->publish_error says why), and the caller publishes later, as after
     * a failed wt_log_publish (watch: an agent that cannot start on a full
     * disk cannot queue records for when it has room).  Only when the
     * checkpoint file exists: without one, entries appended before it is
     * written would make the next open refuse the log */
    int publish_later;
    /* a scan of this log made without its lock (wt_log_prescan): open
     * verifies the lines after it, not all of them again (NULL: all) */
    const struct wt_log_prescan *prescan;
    /* verify every line, not only those after the state file (recover) */
    int whole;
    /* as wt_verify_opts.cancel: a stop asked while open verifies the log
     * ends the open with an error (NULL: never) */
    const atomic_int *cancel;
};

/* A writer's scan of the log before it waits for the lock, so that writers
 * that meet (Slurm job ends) verify a long log in parallel, not in turn
 * under the lock (see wt_verify_prescan).  Only for the same log file:
 * open scans it all when it was replaced meanwhile. */
/* The state file's size: a header (magic, size, the log's device and
 * inode), the state, and its authenticator. */
#define WT_LOG_STATE_BYTES (32 + sizeof(struct wt_verify_resume) + 32)
struct wt_log_prescan {
    struct wt_verify_resume v;
    uint64_t dev, ino;
    /* the scan resumed from the state file, as read (open takes the scan
     * only if the file's authenticator is the log key's) */
    int based;
    uint64_t based_n; /* the lines of that state */
    unsigned char state[WT_LOG_STATE_BYTES];
};
/* Fills *out (out->v.valid 0 when there is nothing to resume: no log yet,
 * a bad line, an I/O error, a stop asked through cancel (may be NULL);
 * open then scans it all).  It starts from the state file (log.verified)
 * when that is for this file. */
void wt_log_prescan(const struct wt_log_paths *p, const atomic_int *cancel,
                    struct wt_log_prescan *out);

/* What open found and did. */
struct wt_log_recovery {
    int repaired;             /* a torn tail was quarantined */
    uint64_t offset, dropped; /* where it started, how many bytes */
    char quarantine[PATH_MAX + 32];
    uint64_t entries;  /* records found */
    uint64_t resumed;  /* of them, verified before (a prescan, the state file): not read */
    uint64_t unsealed; /* of them, past the last signed checkpoint (now sealed): the
                        * last `unsealed` lines, which this writer did not write */
    /* publish_later: why the checkpoint file could not be written, so that
     * they are not sealed yet ("" when they are) */
    char publish_error[512];
    /* the open was refused because the log is damaged (verify-log would
     * exit 1), not for a key that changed, a lock or an I/O error */
    int damaged;
};

/* Creates a log: the directory (mode 0750) when given a directory, the key
 * file (mode 0600, O_EXCL), the genesis record and the first checkpoint.
 * origin NULL: "workloadtruth.<host>/<16 random hex digits>"; key NULL: a
 * fresh Ed25519 key (otherwise the given one, e.g. the spec's test key).
 * Writes the verifier key text to vkey.  Fails if the log already exists. */
int wt_log_init(const struct wt_log_paths *p, const char *origin, const struct wt_note_key *key,
                const struct wt_log_opts *o, char *vkey, size_t cap,
                struct wt_err *err) WT_WARN_UNUSED;

/* A key without its log: another process's wt_log_init may be making it
 * (it writes the key, takes the writers' lock, then links the log).  Waits,
 * polling every 10 ms, while the log is missing and its key exists, for at
 * least min_s seconds (the key linked, the lock not yet taken), then for as
 * long as another process holds the writers' lock or the key is younger than
 * WT_LOG_KEY_YOUNG_S seconds, up to max_s in all.  Returns 1 when the log
 * exists at the end, else 0: missing with its key (deleted, or an init
 * interrupted; never re-created here) or without one; -1 when a stop was
 * asked through cancel (may be NULL) while it waited. */
#define WT_LOG_KEY_YOUNG_S 10
int wt_log_wait_for_init(const struct wt_log_paths *p, double min_s, double max_s,
                         const atomic_int *cancel);

/* What a writer says of what open found, the same words for every writer:
 * the torn tail it quarantined, and the lines past the last signed
 * checkpoint that it has now signed without having written them (a killed
 * writer's, or someone's without the key).  Each fills buf and returns 1
 * when there is something to say, else 0 (buf ""); control characters in
 * the path are shown as '?' (one line). */
int wt_log_repaired_msg(const struct wt_log_recovery *rec, const char *log, char *buf, size_t cap);
int wt_log_unsealed_msg(const struct wt_log_recovery *rec, const char *log, char *buf, size_t cap);

struct wt_log;

int wt_log_open(struct wt_log **out, const struct wt_log_paths *p, const struct wt_log_opts *o,
                struct wt_log_recovery *rec, struct wt_err *err) WT_WARN_UNUSED;

/* The writer's locks, kept by a writer between a failed write and its next
 * try (wt_log_close_keep_lock, wt_log_reopen): closing the log released
 * them, and another writer took the log during the retry pause. */
struct wt_log_lock {
    int lockfd, loglockfd; /* -1: none */
};
#define WT_LOG_LOCK_NONE                                                                           \
    {                                                                                              \
        -1, -1                                                                                     \
    }
/* Closes l (may be NULL) but moves its locks into *held (locks held there
 * already are released first). */
void wt_log_close_keep_lock(struct wt_log *l, struct wt_log_lock *held);
/* wt_log_open with the locks in *held taken over (a lock on a log file that
 * has been replaced meanwhile is taken anew); on failure they stay in *held,
 * still locked, with any lock this call took. */
int wt_log_reopen(struct wt_log **out, const struct wt_log_paths *p, const struct wt_log_opts *o,
                  struct wt_log_recovery *rec, struct wt_log_lock *held,
                  struct wt_err *err) WT_WARN_UNUSED;
/* Releases the locks in *held. */
void wt_log_lock_release(struct wt_log_lock *held);

/* Appends one record (fields borrowed, may be NULL) durably; *seq (may be
 * NULL) gets its seq.  On failure nothing is acknowledged; after an I/O
 * failure the handle refuses further appends (wt_log_failed). */
int wt_log_append(struct wt_log *l, enum wt_entry_type type, json_t *fields, uint64_t *seq,
                  struct wt_err *err) WT_WARN_UNUSED;

/* Signs a checkpoint of the current size and replaces the side file. */
int wt_log_publish(struct wt_log *l, struct wt_err *err) WT_WARN_UNUSED;

/* Appends a `checkpoint` record sealing everything before it, then publishes. */
int wt_log_seal(struct wt_log *l, struct wt_err *err) WT_WARN_UNUSED;

uint64_t wt_log_size(const struct wt_log *l);
uint64_t wt_log_published(const struct wt_log *l); /* size of the side-file checkpoint */
int wt_log_failed(const struct wt_log *l);
void wt_log_root(const struct wt_log *l, uint8_t root[32]);
/* After an append whose line was written but whose fdatasync failed: 1, and
 * the size and root the log has if that line survives (a reopen tells). */
int wt_log_unsynced(const struct wt_log *l, uint64_t *size, uint8_t root[32]);
const char *wt_log_origin(const struct wt_log *l);
int wt_log_vkey(const struct wt_log *l, char *out, size_t cap);
/* The log's public key, as a verifier holds the log to it. */
void wt_log_public_key(const struct wt_log *l, struct wt_note_vkey *v);
void wt_log_close(struct wt_log *l);

/* Reads a key file (PRIVATE+KEY+...), refusing one readable by group or
 * others. */
int wt_log_read_key(const char *path, struct wt_note_key *k, struct wt_err *err) WT_WARN_UNUSED;

#endif
