/* The audit log's single-pass verifier (spec §7), also the writer's startup
 * scan.
 *
 * It reads the log line by line (O(n) hashing, O(log n) state plus one line),
 * checks every record (form, sequence, the `prev` link to the Merkle root of
 * all earlier lines, checkpoint records' signatures and roots), then holds the
 * log to every externally supplied signed checkpoint: the side file and any
 * --against copy (a witness's, an old export).  It names the first bad line
 * and the kind of damage.  It never modifies anything: repairing a torn tail
 * is log.c's job.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_AUDIT_VERIFY_H
#define WT_AUDIT_VERIFY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "audit/merkle.h"
#include "audit/note.h"

struct wt_entry;
struct wt_verify_report;

/* Exit statuses of verify-log (spec §7). */
#define WT_VERIFY_OK 0
#define WT_VERIFY_DAMAGED 1 /* tampering or corruption */
#define WT_VERIFY_ERROR 2   /* usage or I/O error: nothing was concluded */
#define WT_VERIFY_WARN 3    /* intact, with warnings (torn tail, unsealed entries, ...) */

enum wt_damage {
    WT_DMG_NONE,
    WT_DMG_TORN_TAIL,     /* a partial / NUL-filled / unparsable last line past every seal */
    WT_DMG_MALFORMED,     /* a line that is not a valid record */
    WT_DMG_SEQUENCE,      /* seq out of order: lines deleted, duplicated or reordered */
    WT_DMG_BROKEN_LINK,   /* `prev` differs from the root of the lines before it */
    WT_DMG_BAD_SIGNATURE, /* a checkpoint record whose signature or root is wrong */
    WT_DMG_WRONG_KEY,     /* the log's key is not the expected (--vkey) key */
    WT_DMG_TRUNCATED,     /* a signed checkpoint covers more lines than the log has */
    WT_DMG_REWRITTEN,     /* a signed checkpoint's root differs: rewritten or forked */
    WT_DMG_CHECKPOINT,    /* an external checkpoint that is unreadable or not signed by the log */
};

const char *wt_damage_name(enum wt_damage d);

/* The most bytes after the last valid record that a writer or `recover`
 * quarantines as a torn write (one interrupted line is at most 64 KiB); a
 * larger tail is left for a person to look at. */
#define WT_VERIFY_MAX_TORN_BYTES (64ull << 20)
#define WT_VERIFY_MAX_AGAINST 16 /* --against checkpoints a user may give */
/* room in wt_verify_opts.against: the user's, and DIR/log.jsonl's other
 * side checkpoint, which verify-log --log-file adds (it was left out when
 * the user had given 16) */
#define WT_VERIFY_AGAINST_SLOTS (WT_VERIFY_MAX_AGAINST + 1)
#define WT_VERIFY_MAX_WARN 6

struct wt_verify_opts {
    const struct wt_note_vkey *vkey; /* expected log key; NULL: the genesis key is trusted */
    const char *side_path;           /* the `checkpoint` side file (NULL: none) */
    /* a side_path that does not exist is a warning, not damage: for a
     * writer, which applies its own rule (an interrupted init, --reseal);
     * otherwise a log with a genesis record and no side file is damaged
     * (init writes it with the genesis record, writers only replace it) */
    int side_optional;
    const char *against[WT_VERIFY_AGAINST_SLOTS]; /* more signed checkpoints to hold the log to */
    size_t nagainst;
    /* when set, each of the first `nwitnessed` `against` checkpoints (the
     * user's; not a second side file verify-log adds) must also carry this
     * witness's valid cosignature; one that does not is not used, as an
     * unreadable one is not (checked on the bytes compared: read once) */
    const struct wt_note_vkey *witness;
    size_t nwitnessed;
    int64_t now_ms;   /* for staleness */
    int64_t stale_ms; /* warn when the last signed entry is older than this (0: never) */
    /* when set (a stop was asked: watch's SIGTERM), reading ends within 64 KiB
     * with WT_VERIFY_ERROR and a message saying so; NULL: never */
    const atomic_int *cancel;
    /* for tests: called after each read of up to 64 KiB (to change the file
     * between two reads, as a writer may while a reader takes no lock) */
    void (*after_read)(void *ctx);
    void *after_read_ctx;
    /* when set, called with each record of the valid prefix as the scan
     * accepts it, in order (each line hashed and checked as the scan does):
     * e is the parsed record, valid during the call only (json_incref
     * e->obj to keep it), line its bytes without the newline, r the report
     * so far (r->entries is the record's line number; r->sealed_through,
     * r->sealed what verified signatures cover up to here).  A reader that
     * needs the records reads the log once this way.  What the final report
     * says can still take back a record delivered: damage found on a later
     * line or at the end (a broken link on the next line blames the line
     * before it; an external checkpoint compared at the end) is for the
     * caller to apply to what it kept, from the final report.  Lines a
     * resume state covers (wt_verify_stream_from, _keep) are not read, so
     * not delivered. */
    void (*on_entry)(void *arg, const struct wt_entry *e, const char *line, size_t len,
                     const struct wt_verify_report *r);
    void *on_entry_arg;
};

struct wt_verify_report {
    int status;            /* WT_VERIFY_* */
    enum wt_damage damage; /* the first problem found (torn tail included) */
    uint64_t line;         /* 1-based first bad line, 0 when none */
    uint64_t offset;       /* byte offset of that line */
    char message[1024];    /* one line saying what is wrong and where, or a summary */

    uint64_t entries;     /* records in the valid prefix */
    uint64_t valid_bytes; /* bytes of the valid prefix */
    uint64_t file_bytes;
    uint64_t sealed;         /* largest size covered by a verified signature */
    uint64_t sealed_through; /* the last line that is, or is covered by, a verified
                              * signature: a checkpoint record counts itself, and the
                              * genesis line (the key) counts */
    uint64_t side_size;      /* size of the side-file checkpoint (0: none) */
    uint64_t ckpt_records;
    uint64_t recoveries; /* recovery records in the log */
    int have_genesis;
    char origin[WT_NOTE_NAME_MAX + 1];
    uint8_t pk[32];
    uint8_t root[32]; /* root of the valid prefix */
    struct wt_merkle_range range;
    int64_t last_ts_ms;
    int64_t sealed_ts_ms;   /* ts_ms of line `sealed` (when sealed > 0) */
    uint64_t last_line_len; /* bytes of the last valid line, newline included */
    uint64_t resumed_lines; /* lines taken from a resume state, not read by this scan
                             * (0: it read the file from its start) */
    uint64_t resumed_off;   /* where this scan began reading (0, or the state's offset) */
    int nwarn;
    char warn[WT_VERIFY_MAX_WARN][300];
};

/* Verifies the log file at path.  Returns the status (also in r->status). */
int wt_verify_file(const char *path, const struct wt_verify_opts *o, struct wt_verify_report *r);

/* The same over an open regular file (read from its current position; not
 * closed): a caller that reads the file again after verifying it uses the
 * same open file, not a path that may have been replaced meanwhile. */
int wt_verify_stream(FILE *f, const char *path, const struct wt_verify_opts *o,
                     struct wt_verify_report *r);

/* A writer's scan of a log without its lock, to resume under it.  Verifying
 * a long log takes seconds to minutes (about 40 us a line), and a writer
 * holds the lock while it verifies: writers that met (Slurm job ends)
 * waited in turn and gave up after their lock wait.  So a writer first
 * scans the log's complete lines without the lock (wt_verify_prescan), in
 * parallel with the others, then, holding the lock, resumes the scan there
 * (wt_verify_stream_from): the lines appended since are verified, and the
 * external checkpoints (the side file, read then) are held to the log as a
 * whole scan would.  Lines changed between the two reads are not seen by
 * this writer; every verifier sees them.  Plain data, for the caller to
 * keep. */
struct wt_verify_resume {
    int valid; /* the scan found the lines intact up to off (else nothing to resume) */
    uint64_t n, off, last_seal, seal_before;
    struct wt_note_vkey key; /* the genesis record's */
    uint64_t sealed, sealed_through, ckpt_records, recoveries, last_line_len;
    uint8_t last_leaf[32]; /* the last line's: checked under the lock (a prescan across a cut) */
    char origin[WT_NOTE_NAME_MAX + 1];
    uint8_t pk[32];
    struct wt_merkle_range range;
    int64_t last_ts_ms, sealed_ts_ms;
};

/* Scans f's complete lines from its start (from `from`, an earlier scan's
 * state, when not NULL and its last line is still there as it read it) and
 * fills *out; out->valid is 0 when a line is bad (damage is for the whole
 * scan to report) or cancel (as wt_verify_opts.cancel; may be NULL) ended
 * the reading.  Returns 0, or -1 on a read error or a cancel. */
int wt_verify_prescan(FILE *f, const struct wt_verify_resume *from, const atomic_int *cancel,
                      struct wt_verify_resume *out);

/* wt_verify_stream from a prescan of the same file: reads f from from->off
 * on.  It scans the whole file instead (from its start) when the prescan
 * cannot be resumed: not valid, its last line no longer in f as it read
 * it (a read across a cut and regrowth joined two lines), another genesis
 * key than o->vkey, or an external checkpoint of fewer lines than the
 * prescan had (its root was not kept). */
int wt_verify_stream_from(FILE *f, const char *path, const struct wt_verify_opts *o,
                          const struct wt_verify_resume *from, struct wt_verify_report *r);

/* The last lines a scan verified, as it read them (wt_verify_stream_keep):
 * whole lines, those that start within the last `want` bytes of the
 * verified part it read.  A reader lists these bytes, not bytes read from
 * the file again (which may have been rewritten in place meanwhile). */
struct wt_verify_tail {
    size_t want;  /* set by the caller */
    char *buf;    /* malloc'd (the caller frees it), NULL when no line was kept */
    size_t len;   /* bytes in buf: whole lines, each with its newline */
    uint64_t off; /* the file offset of buf[0], a line's start */
    int failed;   /* out of memory: the lines are not all there */
    size_t cap;
};

/* wt_verify_stream_from (from may be NULL: the whole file) that also keeps,
 * in *keep, the state at the last line boundary at or before byte `mark`
 * that it passed with the lines before it intact and before it compared an
 * external checkpoint (keep->valid 0 when none; mark UINT64_MAX: the last
 * such boundary): a reader that verifies the same log again and again (the
 * MCP server, a writer's log.verified) resumes there next time, reading
 * again every line from that boundary on.  Lines before it changed in place since are not seen by
 * that later scan; every whole scan sees them.  tail (may be NULL) receives the last lines
 * verified. */
int wt_verify_stream_keep(FILE *f, const char *path, const struct wt_verify_opts *o,
                          const struct wt_verify_resume *from, uint64_t mark,
                          struct wt_verify_report *r, struct wt_verify_resume *keep,
                          struct wt_verify_tail *tail);

/* The same over an in-memory log (for tests and fuzzing). */
int wt_verify_buffer(const char *buf, size_t len, const struct wt_verify_opts *o,
                     struct wt_verify_report *r);

/* Leaf hashes of the first n lines of a log already verified to have at
 * least n (for proofs): *leaves is malloc'd (n hashes).  If want < n, a
 * malloc'd copy of line `want` (without newline) goes to *line. */
int wt_log_read_leaves(const char *path, uint64_t n, uint8_t (**leaves)[32], uint64_t want,
                       char **line, size_t *line_len, struct wt_err *err) WT_WARN_UNUSED;

#endif
