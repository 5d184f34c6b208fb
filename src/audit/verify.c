/* The audit log's single-pass verifier (see verify.h and spec §7).
 *
 * Diagnosis rules, in the order they are applied to line i (0-based seq):
 *   - no final newline, NUL bytes, over 64 KiB or not a valid record:
 *     MALFORMED; if it is the very last line, nothing follows it and no signed
 *     checkpoint covers it, it is a TORN_TAIL (an interrupted write) instead;
 *   - seq != i: SEQUENCE (deleted, duplicated or reordered lines);
 *   - prev != root of lines 0..i-1: BROKEN_LINK.  Line i-1 was altered, unless
 *     putting the right root into line i's own `prev` makes line i+1 (or a
 *     signed checkpoint of size i+1) agree, in which case line i's `prev` was
 *     altered: one line of look-ahead names the right line;
 *   - a checkpoint record that is not signed by the log key, or whose
 *     origin/size/root differ from the log: BAD_SIGNATURE;
 *   - a signed external checkpoint (side file, --against) of size s whose
 *     root differs from the root of lines 0..s-1: REWRITTEN; with s larger
 *     than the log: TRUNCATED;
 *   - an external checkpoint not signed by the log key, or signed by it for
 *     another origin (another log's): WRONG_KEY, and never compared.
 *
 * SPDX-License-Identifier: MIT
 */
#include "audit/verify.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sodium.h>

#include "audit/entry.h"
#include "util/fileio.h"
#include "util/text.h"

const char *wt_damage_name(enum wt_damage d)
{
    static const char *const names[] = {"none",        "torn-tail",     "malformed", "sequence",
                                        "broken-link", "bad-signature", "wrong-key", "truncated",
                                        "rewritten",   "bad-checkpoint"};
    return (unsigned)d < sizeof(names) / sizeof(names[0]) ? names[d] : "?";
}

struct ext {
    const char *label;
    int loaded; /* 1 parsed, -1 unreadable, -2 not a checkpoint, -3 the side file
                 * replaced by what is not a file, or by one that fails reads (damage,
                 * after what the others show) */
    struct wt_note note;
    struct wt_checkpoint cp;
    int sig;      /* 1 verified by the log key, 0 absent, -1 invalid, 2 verified by
                   * the log key but for another origin (another log's checkpoint) */
    int edited;   /* sig 1 from one valid signature line of the log key, beside one
                   * of that key that does not verify (the file was edited) */
    int checked;  /* root compared */
    int reloaded; /* the side file has been re-read during the scan (side_reload): it
                   * was compared before; stays set */
    int has_prev; /* holds a reload not compared yet; prev_* is the one compared */
    struct wt_note prev_note;
    struct wt_checkpoint prev_cp;
    char why[700]; /* loaded < 0: what was wrong with it */
};

struct vs {
    const struct wt_verify_opts *o;
    struct wt_verify_report *r;
    const char *name; /* file name for messages */
    struct wt_note_vkey key;
    int have_key;
    uint64_t n;   /* valid records so far */
    uint64_t off; /* offset of the next line */
    int stopped;
    int torn_candidate;
    int side_missing;     /* side_path does not exist (and is not optional) */
    int partial;          /* the bad line had no newline */
    uint64_t lines_after; /* lines (complete or not) after the first bad one */
    int cut;              /* not read to its end: over 64 MiB from the first bad line on */
    int pending;          /* broken link awaiting look-ahead */
    uint8_t alt_root[32];
    uint64_t last_seal;   /* size sealed by the last good checkpoint record */
    uint64_t seal_before; /* the one before it */
    struct ext ext[1 + WT_VERIFY_AGAINST_SLOTS];
    size_t next;
    uint64_t max_ext;      /* largest signed external size */
    int finishing;         /* in finish(): the side file is re-read there alone */
    uint8_t last_leaf[32]; /* leaf hash of the last valid line */
};

static void warnf(struct vs *v, const char *fmt, ...) WT_PRINTF(2, 3);
static void warnf(struct vs *v, const char *fmt, ...)
{
    if (v->r->nwarn >= WT_VERIFY_MAX_WARN)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->r->warn[v->r->nwarn], sizeof(v->r->warn[0]), fmt, ap);
    va_end(ap);
    wt_text_clean(v->r->warn[v->r->nwarn++]); /* one line, whatever the path's bytes */
}

static void damage(struct vs *v, enum wt_damage d, uint64_t line, uint64_t off, const char *fmt,
                   ...) WT_PRINTF(5, 6);
static void damage(struct vs *v, enum wt_damage d, uint64_t line, uint64_t off, const char *fmt,
                   ...)
{
    struct wt_verify_report *r = v->r;
    r->damage = d;
    r->line = line;
    r->offset = off;
    int k = line ? snprintf(r->message, sizeof(r->message), "%s:%llu: %s: ", v->name,
                            (unsigned long long)line, wt_damage_name(d))
                 : snprintf(r->message, sizeof(r->message), "%s: %s: ", v->name, wt_damage_name(d));
    if (k < 0 || (size_t)k >= sizeof(r->message))
        k = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message + k, sizeof(r->message) - (size_t)k, fmt, ap);
    va_end(ap);
}

static void append_msg(struct wt_verify_report *r, const char *more)
{
    size_t k = strlen(r->message);
    snprintf(r->message + k, sizeof(r->message) - k, "%s", more);
}

static void stop(struct vs *v)
{
    v->stopped = 1;
}

static void ext_check_sig(struct vs *v, struct ext *e)
{
    e->sig = wt_note_verify(&e->note, &v->key, NULL);
    /* a valid line of the key beside a bad one: the body is the key's, and
     * is compared with the log as any (a truncation it shows was reported as
     * a checkpoint of another key); the edit is damage of its own (finish) */
    if (e->sig < 0 && wt_note_signed_by(&e->note, &v->key) == 1) {
        e->sig = 1;
        e->edited = 1;
    }
    /* the key's name is the log's origin (init names the key after it, the
     * genesis record and --vkey pin the pair), but the signature binds the
     * name only to the key, not to the body: a note signed with the log's
     * key for another origin says nothing about this log's lines */
    if (e->sig == 1 && strcmp(e->cp.origin, v->key.name) != 0)
        e->sig = 2;
    if (e->sig == 1 && e->cp.size > v->max_ext)
        v->max_ext = e->cp.size;
}

static int read_checkpoint(FILE *f, const char *path, struct wt_note *note,
                           struct wt_checkpoint *cp, char *msg, size_t cap);

/* The side file read again, once the scan has compared the checkpoint it held
 * (e) or reached the log's end: a writer appending while the scan runs signs
 * it anew after every window, and the lines it appended since the scan began
 * were all "not covered by any signed checkpoint yet" (exit 3 on nearly every
 * verification of a live log, the warning forged appends also give).  A
 * checkpoint signed by the log's key for more lines than e's (exactly want
 * lines, when want is not 0) takes e's place, to be compared when the scan
 * reaches its size; anything else (older, unsigned, unreadable, spoilt) is
 * left out: e, read at the start, has been compared.  Not a source of
 * damage on its own: one for lines the scan did not read (appended after it)
 * gives way at the end to the one compared before it (finish), which stays
 * the side file's checkpoint the report names (side_size). */
static void side_reload(struct vs *v, struct ext *e, uint64_t want)
{
    if (!v->have_key || !v->o->side_path || e->label != v->o->side_path || e->loaded != 1 ||
        e->sig != 1 || !e->checked || e->has_prev)
        return;
    const char *why = NULL;
    FILE *f = wt_fopen_regular(e->label, &why);
    struct wt_note note;
    struct wt_checkpoint cp;
    char msg[300];
    if (!f || read_checkpoint(f, e->label, &note, &cp, msg, sizeof(msg)) != 1)
        return;
    if (cp.size <= e->cp.size || (want && cp.size != want) ||
        wt_note_verify(&note, &v->key, NULL) != 1 || strcmp(cp.origin, v->key.name) != 0) {
        wt_note_free(&note);
        return;
    }
    e->prev_note = e->note;
    e->prev_cp = e->cp;
    e->has_prev = 1;
    e->note = note;
    e->cp = cp;
    e->checked = 0;
    e->reloaded = 1;
}

/* A reload for lines the scan did not read: the compared one back. */
static void side_restore(struct ext *e)
{
    if (!e->has_prev)
        return;
    wt_note_free(&e->note);
    e->note = e->prev_note;
    e->cp = e->prev_cp;
    e->checked = 1;
    e->has_prev = 0;
}

/* Compares every signed external checkpoint of size v->n with root. */
static int ext_compare(struct vs *v, const uint8_t root[32], uint64_t line, uint64_t off)
{
    for (size_t i = 0; i < v->next; i++) {
        struct ext *e = &v->ext[i];
        if (!e->loaded || e->sig != 1 || e->checked || e->cp.size != v->n)
            continue;
        e->checked = 1;
        if (memcmp(e->cp.root, root, 32) != 0) {
            (void)line;
            (void)off;
            /* a checkpoint record of this very size has just sealed it: the
             * lines that differ start after the seal before that one */
            uint64_t from = (v->last_seal >= v->n ? v->seal_before : v->last_seal) + 1;
            if (e->cp.size == 0) { /* no line to name ("lines 1..0") */
                damage(v, WT_DMG_REWRITTEN, 1, 0,
                       "%s is signed by the log key for 0 lines with a root other than the "
                       "empty log's: no log has that checkpoint (the log key signed a forged "
                       "one)",
                       e->label);
                return -1;
            }
            damage(v, WT_DMG_REWRITTEN, from, 0,
                   "%s is signed by the log key for %llu lines with a different root: lines "
                   "%llu..%llu were rewritten%s, or the log forked",
                   e->label, (unsigned long long)e->cp.size, (unsigned long long)from,
                   (unsigned long long)e->cp.size,
                   from > 1 ? " (any line before them too if it was done with the log key, "
                              "which re-signs the log's own checkpoint records)"
                            : "");
            return -1;
        }
        if (e->cp.size > v->r->sealed) {
            v->r->sealed = e->cp.size; /* == v->n: the last line read */
            v->r->sealed_ts_ms = v->r->last_ts_ms;
        }
        if (e->cp.size > v->r->sealed_through)
            v->r->sealed_through = e->cp.size;
        if (e->has_prev) { /* the reload compared: the one before it is done with */
            wt_note_free(&e->prev_note);
            e->has_prev = 0;
        }
        /* in finish() the side file was re-read for the lines read, once:
         * another read there, for lines appended after the scan, was taken
         * for a truncation */
        if (!v->finishing)
            side_reload(v, e, 0);
    }
    return 0;
}

/* The root of the valid prefix plus line `rec` with its prev set to the
 * right root: what the next line's prev would be had only prev been edited. */
static void alt_root(struct vs *v, const char *p, size_t len, const uint8_t root[32])
{
    static const char key[] = ",\"prev\":\"";
    char want[45];
    wt_b64_hash(root, want);
    const char *at = NULL;
    for (size_t i = 0; i + sizeof(key) - 1 + 44 <= len; i++)
        if (!memcmp(p + i, key, sizeof(key) - 1)) {
            at = p + i + sizeof(key) - 1;
            break;
        }
    struct wt_merkle_range tmp = v->r->range;
    uint8_t leaf[32];
    if (!at) {
        memset(v->alt_root, 0, 32);
        return;
    }
    char *copy = malloc(len);
    if (!copy) {
        memset(v->alt_root, 0, 32);
        return;
    }
    memcpy(copy, p, len);
    memcpy(copy + (at - p), want, 44);
    wt_merkle_leaf_hash(copy, len, leaf);
    free(copy);
    wt_merkle_range_append(&tmp, leaf);
    wt_merkle_range_root(&tmp, v->alt_root);
}

/* next_prev: the root that the next line links to, or that a signed
 * checkpoint covering the bad line has (by_checkpoint) */
static void resolve_pending_from(struct vs *v, const uint8_t next_prev[32], int by_checkpoint)
{
    if (!v->pending)
        return;
    v->pending = 0;
    if (!memcmp(next_prev, v->alt_root, 32)) {
        /* the bad line's own prev was edited; the line before it is intact */
        struct wt_verify_report *r = v->r;
        uint64_t line = v->n + 1;
        damage(v, WT_DMG_BROKEN_LINK, line, r->valid_bytes,
               "the 'prev' field of this line was altered (%s still %s the right root)",
               by_checkpoint ? "a signed checkpoint of the log up to this line"
                             : "the line after it",
               by_checkpoint ? "has" : "links to");
    }
}

static void resolve_pending(struct vs *v, const uint8_t next_prev[32])
{
    resolve_pending_from(v, next_prev, 0);
}

/* A checkpoint record's own note is signed by the log key for the lines
 * before it (size i, the log's origin) with root: 1, else 0. */
static int own_note_attests(struct vs *v, const struct wt_entry *e, uint64_t i,
                            const uint8_t root[32])
{
    struct wt_note note;
    struct wt_checkpoint cp;
    struct wt_err err = {{0}};
    if (!e->note || wt_note_parse(e->note, e->note_len, &note, &err) != WT_OK)
        return 0;
    int sig = wt_note_verify(&note, &v->key, NULL);
    int ok = sig == 1 && wt_checkpoint_parse(note.text, note.body_len, &cp, &err) == WT_OK &&
             !strcmp(cp.origin, v->r->origin) && cp.size == i && !memcmp(cp.root, root, 32);
    wt_note_free(&note);
    return ok;
}

static void check_line(struct vs *v, const char *p, size_t len, int complete)
{
    struct wt_verify_report *r = v->r;
    uint64_t off = v->off;
    v->off += len + (complete ? 1 : 0);
    if (v->stopped) {
        if (v->pending && v->lines_after == 0 && complete) {
            struct wt_entry e;
            struct wt_err err;
            if (wt_entry_parse(p, len, &e, &err) == WT_OK) {
                resolve_pending(v, e.prev);
                wt_entry_free(&e);
            }
            v->pending = 0;
        }
        v->lines_after++;
        return;
    }
    uint64_t i = v->n, line = i + 1;
    if (!complete) {
        damage(v, WT_DMG_MALFORMED, line, off, "incomplete last line (%zu bytes without a newline)",
               len);
        v->torn_candidate = 1;
        v->partial = 1;
        stop(v);
        return;
    }
    if (len > WT_ENTRY_MAX_LINE || memchr(p, '\0', len)) {
        damage(v, WT_DMG_MALFORMED, line, off, "%s",
               len > WT_ENTRY_MAX_LINE ? "line longer than 64 KiB" : "NUL bytes in the line");
        v->torn_candidate = 1;
        stop(v);
        return;
    }
    struct wt_entry e;
    struct wt_err err = {{0}};
    if (wt_entry_parse(p, len, &e, &err) != WT_OK) {
        damage(v, WT_DMG_MALFORMED, line, off, "%s", err.msg);
        v->torn_candidate = 1;
        stop(v);
        return;
    }
    if (e.seq != i) {
        if (e.seq < i)
            damage(v, WT_DMG_SEQUENCE, line, off,
                   "seq %llu, expected %llu: an earlier line is repeated here (duplicated or "
                   "reordered lines)",
                   (unsigned long long)e.seq, (unsigned long long)i);
        else
            damage(v, WT_DMG_SEQUENCE, line, off,
                   "seq %llu, expected %llu: %llu line(s) deleted before this one, or lines "
                   "reordered",
                   (unsigned long long)e.seq, (unsigned long long)i,
                   (unsigned long long)(e.seq - i));
        goto bad;
    }
    uint8_t root[32];
    wt_merkle_range_root(&r->range, root);
    if (memcmp(e.prev, root, 32) != 0) {
        if (i == 0)
            damage(v, WT_DMG_BROKEN_LINK, line, off,
                   "the first record's 'prev' is not the empty tree's root");
        else {
            damage(v, WT_DMG_BROKEN_LINK, i, r->valid_bytes - r->last_line_len,
                   "line %llu does not link to this line ('prev' differs from the root of "
                   "lines 1..%llu): this line was altered, or lines were inserted or removed",
                   (unsigned long long)line, (unsigned long long)i);
            alt_root(v, p, len, root);
            v->pending = 1;
            if (e.type == WT_ENTRY_CHECKPOINT && own_note_attests(v, &e, i, root)) {
                /* the line's own note, signed by the log key, has the root of
                 * lines 1..i: they are intact, and this line's prev was edited
                 * (the last line of a log without its side file had blamed
                 * the line before it) */
                v->pending = 0;
                damage(v, WT_DMG_BROKEN_LINK, line, r->valid_bytes,
                       "the 'prev' field of this line was altered (its own checkpoint, signed "
                       "by the log key, still has the right root of lines 1..%llu)",
                       (unsigned long long)i);
            }
        }
        goto bad;
    }
    if (i == 0 && e.type != WT_ENTRY_GENESIS) {
        damage(v, WT_DMG_MALFORMED, line, off, "the first record must be of type genesis, not %s",
               wt_entry_type_name(e.type));
        goto bad;
    }
    if (i > 0 && e.type == WT_ENTRY_GENESIS) {
        damage(v, WT_DMG_MALFORMED, line, off, "a second genesis record");
        goto bad;
    }
    switch (e.type) {
    case WT_ENTRY_GENESIS:
        snprintf(r->origin, sizeof(r->origin), "%s", e.origin);
        memcpy(r->pk, e.pk, 32);
        r->have_genesis = 1;
        if (v->o->vkey &&
            (strcmp(v->o->vkey->name, e.origin) || memcmp(v->o->vkey->pk, e.pk, 32))) {
            damage(v, WT_DMG_WRONG_KEY, line, off,
                   "the log's origin and key (%.80s) are not the expected --vkey (%.80s): the "
                   "log was re-created with another key, or this is another log",
                   e.origin, v->o->vkey->name);
            goto bad;
        }
        snprintf(v->key.name, sizeof(v->key.name), "%s", e.origin);
        v->key.type = WT_KEY_ED25519;
        memcpy(v->key.pk, e.pk, 32);
        v->key.keyid = wt_note_keyid(e.origin, WT_KEY_ED25519, e.pk);
        v->have_key = 1;
        /* the genesis line holds only the key every signature is checked with */
        if (!r->sealed_through)
            r->sealed_through = 1;
        for (size_t k = 0; k < v->next; k++)
            if (v->ext[k].loaded)
                ext_check_sig(v, &v->ext[k]);
        break;
    case WT_ENTRY_CHECKPOINT: {
        struct wt_note note;
        struct wt_checkpoint cp;
        if (wt_note_parse(e.note, e.note_len, &note, &err) != WT_OK) {
            damage(v, WT_DMG_BAD_SIGNATURE, line, off, "checkpoint note: %s", err.msg);
            goto bad;
        }
        int sig = wt_note_verify(&note, &v->key, NULL);
        int cprc = wt_checkpoint_parse(note.text, note.body_len, &cp, &err);
        wt_note_free(&note);
        if (sig != 1) {
            damage(v, WT_DMG_BAD_SIGNATURE, line, off,
                   "checkpoint record %s: lines %llu..%llu may have been rewritten",
                   sig == 0 ? "not signed by the log key" : "with an invalid signature",
                   (unsigned long long)(v->last_seal + 1), (unsigned long long)i);
            goto bad;
        }
        if (cprc != WT_OK) {
            damage(v, WT_DMG_BAD_SIGNATURE, line, off, "checkpoint record body: %s", err.msg);
            goto bad;
        }
        if (strcmp(cp.origin, r->origin) || cp.size != i || memcmp(cp.root, e.prev, 32)) {
            damage(v, WT_DMG_BAD_SIGNATURE, line, off,
                   "checkpoint record is signed for %ssize %llu, root %s; the log has %llu "
                   "lines before it%s",
                   strcmp(cp.origin, r->origin) ? "another origin, " : "",
                   (unsigned long long)cp.size,
                   memcmp(cp.root, e.prev, 32) ? "not that of those lines" : "theirs",
                   (unsigned long long)i, cp.size != i ? " (the size differs)" : "");
            goto bad;
        }
        r->ckpt_records++;
        if (i > r->sealed) {
            r->sealed = i;
            r->sealed_ts_ms = r->last_ts_ms; /* line i's: this one is not read yet */
        }
        r->sealed_through = i + 1; /* this record's own line */
        v->seal_before = v->last_seal;
        v->last_seal = i;
        break;
    }
    case WT_ENTRY_KEYROLL:
        damage(v, WT_DMG_MALFORMED, line, off,
               "keyroll records (forward-secure mode) are not supported by this version");
        goto bad;
    case WT_ENTRY_RECOVERY:
        r->recoveries++;
        break;
    default:
        break;
    }
    if (ext_compare(v, root, line, off))
        goto bad;
    uint8_t leaf[32];
    wt_merkle_leaf_hash(p, len, leaf);
    wt_merkle_range_append(&r->range, leaf);
    memcpy(v->last_leaf, leaf, 32);
    v->n++;
    r->entries = v->n;
    r->valid_bytes = v->off;
    r->last_line_len = len + 1;
    r->last_ts_ms = e.ts_ms;
    if (v->o->on_entry)
        v->o->on_entry(v->o->on_entry_arg, &e, p, len, r);
    wt_entry_free(&e);
    return;
bad:
    wt_entry_free(&e);
    stop(v);
}

/* Reads a signed checkpoint from f (closed here) into note and cp: 1, or
 * -1 (cannot be read) or -2 (not a signed checkpoint) with msg saying why. */
static int read_checkpoint(FILE *f, const char *path, struct wt_note *note,
                           struct wt_checkpoint *cp, char *msg, size_t cap)
{
    char *buf = malloc(WT_NOTE_MAX_LEN + 1);
    errno = 0;
    size_t n = buf ? fread(buf, 1, WT_NOTE_MAX_LEN + 1, f) : 0;
    int rerr = ferror(f), why = buf ? errno : ENOMEM;
    fclose(f);
    struct wt_err err = {{0}};
    int loaded = 1;
    if (!buf || rerr) {
        loaded = -1;
        snprintf(msg, cap, "cannot read checkpoint %s: %s", path, strerror(why ? why : EIO));
        errno = why; /* the caller tells a file that fails reads from a lack of memory */
    } else if (n > WT_NOTE_MAX_LEN) {
        loaded = -2;
        snprintf(msg, cap, "%s: larger than 64 KiB", path);
    } else if (wt_note_parse(buf, n, note, &err) != WT_OK) {
        loaded = -2;
        snprintf(msg, cap, "%s: %s", path, err.msg);
    } else if (wt_checkpoint_parse(note->text, note->body_len, cp, &err) != WT_OK) {
        loaded = -2;
        wt_note_free(note);
        snprintf(msg, cap, "%s: %s", path, err.msg);
    }
    free(buf);
    return loaded;
}

/* What to do about a side checkpoint file that is missing or spoilt (every
 * such message says it; the writers add only that they refuse). */
#define SIDE_REMEDY                                                                                \
    "check the log against a copy held elsewhere (--against), then `workloadtruth recover "        \
    "--reseal` signs it as it is"

static void load_ext(struct vs *v, const char *path, int side, int witnessed)
{
    struct ext *e = &v->ext[v->next];
    e->label = path;
    const char *why = NULL;
    errno = 0;
    FILE *f = wt_fopen_regular(path, &why);
    if (!f) {
        if (side && errno == ENOENT) {
            if (v->o->side_optional)
                warnf(v, "no checkpoint file %s: only checkpoint records seal the log", path);
            else
                v->side_missing = 1;
            return;
        }
        /* the side file replaced by a directory, a FIFO or a symbolic
         * link loop is damage, as a deleted one is (not a question left
         * open: exit 2 hid the rewrite that exit 1 names when it is gone) */
        struct stat st;
        int loop = errno == ELOOP;
        if (side && (loop || (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))) {
            v->next++;
            e->loaded = -3;
            snprintf(v->r->message, sizeof(v->r->message),
                     "the checkpoint file %s is %s, not the file writers leave there: the "
                     "lines could have been rewritten or cut without the key; move it aside "
                     "(keeping it as evidence), " SIDE_REMEDY,
                     path,
                     loop                  ? "a loop of symbolic links"
                     : S_ISDIR(st.st_mode) ? "a directory"
                                           : "not a regular file");
            snprintf(e->why, sizeof(e->why), "%.699s", v->r->message);
            return;
        }
        v->next++;
        e->loaded = -1;
        snprintf(v->r->message, sizeof(v->r->message), "cannot read checkpoint %s: %s", path, why);
        snprintf(e->why, sizeof(e->why), "%.699s", v->r->message);
        return;
    }
    v->next++;
    e->loaded = read_checkpoint(f, path, &e->note, &e->cp, v->r->message, sizeof(v->r->message));
    if (side && e->loaded == -1 && errno != ENOMEM && errno != EINTR && errno != ESTALE) {
        /* a regular file that fails reads (EIO: /proc/self/mem linked in its
         * place; EAGAIN: one that would block) is not the file writers
         * leave there either: damage, as a deleted one is (exit 2 hid the
         * cut that exit 1 names when it is gone).  A file that cannot be
         * opened (EACCES: writers of other umasks), or that a writer
         * replaced on NFS as it was read (ESTALE), stays a question */
        e->loaded = -3;
        char cause[200];
        snprintf(cause, sizeof(cause), "%s", strerror(errno ? errno : EIO));
        snprintf(v->r->message, sizeof(v->r->message),
                 "the checkpoint file %s cannot be read (%s), unlike the file writers leave "
                 "there: the lines could have been rewritten or cut without the key; move it "
                 "aside (keeping it as evidence), " SIDE_REMEDY,
                 path, cause);
    }
    if (e->loaded == 1 && witnessed && v->o->witness &&
        wt_note_verify(&e->note, v->o->witness, NULL) != 1) {
        wt_note_free(&e->note);
        e->loaded = -1;
        snprintf(v->r->message, sizeof(v->r->message),
                 "%s carries no valid cosignature by the witness %s+%08x: not the witness's copy "
                 "(take it from the witness host)",
                 path, v->o->witness->name, (unsigned)v->o->witness->keyid);
    }
    if (e->loaded < 0)
        snprintf(e->why, sizeof(e->why), "%.699s", v->r->message);
}

/* Whether the missing side file is an init's that was killed before it
 * wrote it: the log holds its genesis record alone, and the
 * checkpoint.init.HASH that init made durable first (HASH: the first 8
 * bytes of the genesis line's leaf hash) is the log key's signed checkpoint
 * of that very line (which nobody without the key can make); the next
 * writer takes it up. */
static int interrupted_init(struct vs *v)
{
    char path[PATH_MAX], hex[17], msg[400];
    if (v->n != 1 || !v->have_key || !v->o->side_path)
        return 0;
    sodium_bin2hex(hex, sizeof(hex), v->last_leaf, 8);
    if (snprintf(path, sizeof(path), "%s.init.%s", v->o->side_path, hex) >= (int)sizeof(path))
        return 0;
    const char *why = NULL;
    FILE *f = wt_fopen_regular(path, &why);
    if (!f)
        return 0;
    struct wt_note note;
    struct wt_checkpoint cp;
    if (read_checkpoint(f, path, &note, &cp, msg, sizeof(msg)) != 1)
        return 0;
    int ok = wt_note_verify(&note, &v->key, NULL) == 1 && !strcmp(cp.origin, v->key.name) &&
             cp.size == 1 && !memcmp(cp.root, v->last_leaf, 32);
    wt_note_free(&note);
    return ok;
}

static void begin(struct vs *v, const char *name, const struct wt_verify_opts *o,
                  struct wt_verify_report *r)
{
    static const struct wt_verify_opts none = {0};
    memset(v, 0, sizeof(*v));
    memset(r, 0, sizeof(*r));
    v->o = o ? o : &none;
    v->r = r;
    v->name = name;
    wt_merkle_range_init(&r->range);
    if (v->o->vkey) {
        v->key = *v->o->vkey;
        v->have_key = 1;
    }
    if (v->o->side_path)
        load_ext(v, v->o->side_path, 1, 0);
    for (size_t i = 0; i < v->o->nagainst && i < WT_VERIFY_AGAINST_SLOTS; i++)
        load_ext(v, v->o->against[i], 0, i < v->o->nwitnessed);
    if (v->have_key)
        for (size_t k = 0; k < v->next; k++)
            if (v->ext[k].loaded == 1)
                ext_check_sig(v, &v->ext[k]);
}

/* ms as seconds for a message: whole seconds from 10 s, else 3 digits
 * (0.001, 2.5), never "0" for a threshold below a second */
static void seconds(char *buf, size_t cap, int64_t ms)
{
    double s = (double)ms / 1000.0;
    snprintf(buf, cap, s >= 10 ? "%.0f" : "%.3g", s);
}

static int finish(struct vs *v)
{
    struct wt_verify_report *r = v->r;
    /* the side file re-read during the scan: one signed for lines this scan
     * did not read (a writer appended them after it) tells nothing of this
     * log's lines, and is left out; at the end, one for exactly the lines
     * read is taken up as well (side_reload) */
    v->finishing = 1;
    for (size_t i = 0; i < v->next; i++) {
        struct ext *e = &v->ext[i];
        if (e->has_prev && e->cp.size != v->n)
            side_restore(e);
        if (!v->stopped && r->sealed < v->n)
            side_reload(v, e, v->n);
    }
    uint8_t root[32];
    wt_merkle_range_root(&r->range, root);
    memcpy(r->root, root, 32);
    r->file_bytes = v->off;
    /* damage the lines themselves show stands whatever the checkpoints are:
     * an attacker who also spoils the side file must not turn it into "no
     * conclusion" (exit 2) or hide which line is bad */
    /* a bad last line is a torn write only after a genesis record: init
     * links the log with its genesis line whole, so a log whose first line
     * is torn or junk was emptied or cut (like an empty one), not
     * interrupted; the writers refuse it as damaged, and so does this */
    int tearable = v->torn_candidate && v->lines_after == 0 && r->have_genesis && !v->cut;
    int line_damage =
        v->stopped && r->damage != WT_DMG_NONE && r->damage != WT_DMG_TORN_TAIL && !tearable;
    /* external checkpoints that could not be used.  One that cannot be read
     * (or a damaged --against file) leaves the question open only if the
     * others conclude nothing: an attacker who spoils the side file must not
     * hide the truncation a witness's checkpoint shows */
    const struct ext *unusable = NULL;
    for (size_t i = 0; i < v->next; i++) {
        struct ext *e = &v->ext[i];
        int side = v->o->side_path && e->label == v->o->side_path;
        if (e->loaded < 0 && line_damage) {
            char more[800];
            snprintf(more, sizeof(more), "; besides, a checkpoint could not be used: %s",
                     e->why); /* which names the file */
            append_msg(r, more);
            r->status = WT_VERIFY_DAMAGED;
            goto out;
        }
        if (e->loaded == -2 && side) {
            r->damage = WT_DMG_CHECKPOINT;
            r->line = 0;
            append_msg(r, " (the side-file checkpoint is damaged: move it aside, keeping it as "
                          "evidence, " SIDE_REMEDY ")");
            r->status = WT_VERIFY_DAMAGED;
            goto out;
        }
        if (e->loaded < 0 && !unusable)
            unusable = e;
    }
    if (v->pending && v->lines_after == 0) {
        /* the broken line is the last one: a checkpoint of size n+1 can tell */
        for (size_t i = 0; i < v->next; i++)
            if (v->ext[i].loaded == 1 && v->ext[i].sig == 1 && v->ext[i].cp.size == v->n + 1)
                resolve_pending_from(v, v->ext[i].cp.root, 1);
        v->pending = 0;
    }
    if (r->damage == WT_DMG_BROKEN_LINK && v->n > 0 && r->line == v->n) {
        /* line n+1 does not link to line n, which was blamed; but a signed
         * checkpoint of lines 1..n as they are proves line n intact: line
         * n+1 is the one the writer did not write */
        for (size_t i = 0; i < v->next; i++) {
            const struct ext *e = &v->ext[i];
            if (e->loaded != 1 || e->sig != 1 || e->cp.size != v->n || memcmp(e->cp.root, root, 32))
                continue;
            damage(v, WT_DMG_BROKEN_LINK, v->n + 1, r->valid_bytes,
                   "this line does not link to line %llu, which %s covers as it is (signed): "
                   "this line was altered or inserted, or lines after line %llu were removed",
                   (unsigned long long)v->n, e->label, (unsigned long long)v->n);
            /* and lines 1..n are sealed by it (the report shows them) */
            if (v->n > r->sealed) {
                r->sealed = v->n;
                r->sealed_ts_ms = r->last_ts_ms;
            }
            if (v->n > r->sealed_through)
                r->sealed_through = v->n;
            break;
        }
    }
    /* (not after a cut: what follows an over-long first line is unknown) */
    if (v->n == 0 && !r->have_genesis && v->lines_after == 0 && !v->cut) {
        /* nothing (or only one broken first line) left, but a checkpoint says
         * the log had lines: it was cut (the signature can only be checked
         * with --vkey, there being no genesis key).  A damaged first line
         * with lines after it is not a cut: its own damage stands. */
        for (size_t i = 0; i < v->next; i++) {
            struct ext *e = &v->ext[i];
            if (e->loaded != 1 || e->cp.size == 0 || (v->have_key && e->sig != 1))
                continue;
            damage(v, WT_DMG_TRUNCATED, 1, 0,
                   "the log has no complete record but %s says it had %llu lines%s: lines "
                   "1..%llu are missing (truncated)",
                   e->label, (unsigned long long)e->cp.size,
                   v->have_key ? " (its signature checks with the verification key)"
                               : " (its signature is unchecked: no genesis key, no --vkey)",
                   (unsigned long long)e->cp.size);
            r->status = WT_VERIFY_DAMAGED;
            goto out;
        }
    }
    if (!v->stopped && !r->have_genesis && v->n == 0 && v->off == 0) {
        r->damage = WT_DMG_MALFORMED;
        snprintf(r->message, sizeof(r->message), "%s: empty log (no genesis record)", v->name);
        r->status = WT_VERIFY_DAMAGED;
        goto out;
    }
    if (v->stopped) {
        int torn = tearable && v->max_ext <= v->n;
        if (!r->have_genesis && v->torn_candidate && v->lines_after == 0)
            append_msg(r, "; no complete genesis record (init never leaves a torn one: the log "
                          "was emptied or cut)");
        if (v->cut) {
            char more[200];
            snprintf(more, sizeof(more),
                     "; over 64 MiB from offset %llu on without a valid record (not read "
                     "further): too much for a torn write, which is one record of at most 64 KiB",
                     (unsigned long long)r->valid_bytes);
            append_msg(r, more);
        }
        if (!torn && v->partial && v->max_ext > v->n) {
            char label[300] = "a signed checkpoint";
            for (size_t i = 0; i < v->next; i++)
                if (v->ext[i].sig == 1 && v->ext[i].cp.size == v->max_ext)
                    snprintf(label, sizeof(label), "%s", v->ext[i].label);
            damage(v, WT_DMG_TRUNCATED, v->n + 1, r->valid_bytes,
                   "the log ends inside this line but %s covers %llu lines: lines %llu..%llu "
                   "are missing (truncated)",
                   label, (unsigned long long)v->max_ext, (unsigned long long)(v->n + 1),
                   (unsigned long long)v->max_ext);
        }
        if (!torn) {
            r->status = WT_VERIFY_DAMAGED;
            goto out;
        }
        uint64_t torn_bytes = v->off - r->valid_bytes;
        r->damage = WT_DMG_TORN_TAIL;
        warnf(v, "line %llu: torn tail (%llu bytes from offset %llu: %s); %s",
              (unsigned long long)r->line, (unsigned long long)torn_bytes,
              (unsigned long long)r->valid_bytes,
              v->partial ? "no final newline" : "not a valid record",
              "an interrupted write, quarantined by `workloadtruth recover` or the next writer");
    }
    /* checkpoints larger than the log, not signed by its key, or of another log:
     * the log's own checkpoints first (pass 0), so that what they show
     * (truncation, a rewrite) is not hidden behind a checkpoint given for
     * another log or signed by another key (pass 1) */
    for (size_t k = 0; k < 2 * v->next; k++) {
        struct ext *e = &v->ext[k % v->next];
        if (e->loaded != 1 || (k < v->next) != (e->sig == 1))
            continue;
        if (e->sig == 2) {
            damage(v, WT_DMG_WRONG_KEY, 0, 0,
                   "%s belongs to another log: its origin is %s, the log's is %s (it is signed "
                   "with the log's key, so it was made with that key for another log, or given "
                   "for the wrong log); it is not compared with this log",
                   e->label, e->cp.origin, r->origin);
            r->status = WT_VERIFY_DAMAGED;
            goto out;
        }
        if (e->sig != 1) {
            if (!r->have_genesis)
                continue;
            damage(v, WT_DMG_WRONG_KEY, 0, 0,
                   "%s is %s by the log's key (%s): the log was re-created with another key, "
                   "or the checkpoint belongs to another log",
                   e->label, e->sig == 0 ? "not signed" : "signed with an invalid signature",
                   r->origin);
            r->status = WT_VERIFY_DAMAGED;
            goto out;
        }
        if (!e->checked && e->cp.size == v->n && ext_compare(v, root, v->n + 1, r->valid_bytes)) {
            r->status = WT_VERIFY_DAMAGED;
            goto out;
        }
        if (e->cp.size > v->n) {
            damage(v, WT_DMG_TRUNCATED, v->n + 1, r->valid_bytes,
                   "%s is signed for %llu lines but the log has %llu: lines %llu..%llu are "
                   "missing (truncated)",
                   e->label, (unsigned long long)e->cp.size, (unsigned long long)v->n,
                   (unsigned long long)(v->n + 1), (unsigned long long)e->cp.size);
            r->status = WT_VERIFY_DAMAGED;
            goto out;
        }
        if (v->o->side_path && e->label == v->o->side_path)
            r->side_size = e->cp.size;
    }
    for (size_t i = 0; i < v->next; i++) {
        const struct ext *e = &v->ext[i];
        if (e->loaded != 1 || !e->edited)
            continue;
        int side = v->o->side_path && e->label == v->o->side_path;
        damage(v, WT_DMG_CHECKPOINT, 0, 0,
               "%s carries a signature line by the log's key (%s) that does not verify, beside "
               "one that does: the file was edited (no writer leaves a bad signature); the "
               "checkpoint its valid signature covers matches the log's lines%s",
               e->label, r->origin,
               side ? "; move it aside (keeping it as evidence), " SIDE_REMEDY : "");
        r->status = WT_VERIFY_DAMAGED;
        goto out;
    }
    if (!r->have_genesis && r->damage != WT_DMG_TORN_TAIL) {
        r->status = WT_VERIFY_DAMAGED;
        if (r->damage == WT_DMG_NONE || r->damage == WT_DMG_TORN_TAIL) {
            r->damage = WT_DMG_MALFORMED;
            snprintf(r->message, sizeof(r->message), "%s:1: malformed: no genesis record", v->name);
        }
        goto out;
    }
    if (r->sealed < v->n)
        warnf(v, "lines %llu..%llu are not covered by any signed checkpoint yet",
              (unsigned long long)(r->sealed + 1), (unsigned long long)v->n);
    /* stale: judged on the last line a signed root covers, as `report` does:
     * a line anyone able to write the file appended with a later time must
     * not hide a stopped writer (nor the time of the last checkpoint record,
     * which its own signature does not cover); with nothing signed, on the
     * last line (the unsigned lines are a warning of their own) */
    int64_t stale_ts = r->sealed ? r->sealed_ts_ms : r->last_ts_ms;
    if (v->o->stale_ms > 0 && v->o->now_ms - stale_ts > v->o->stale_ms) {
        char age[32], lim[32];
        seconds(age, sizeof(age), v->o->now_ms - stale_ts);
        seconds(lim, sizeof(lim), v->o->stale_ms);
        if (r->sealed)
            warnf(v,
                  "the last signed entry (line %llu) is %s s old (more than %s s): the writer "
                  "may have stopped",
                  (unsigned long long)r->sealed, age, lim);
        else
            warnf(v, "the last entry is %s s old (more than %s s): the writer may have stopped",
                  age, lim);
    }
    if (unusable) { /* nothing concluded without it */
        snprintf(r->message, sizeof(r->message), "%s", unusable->why);
        if (unusable->loaded <= -2) {
            r->damage = WT_DMG_CHECKPOINT;
            r->line = 0;
        }
        r->status = unusable->loaded == -3 ? WT_VERIFY_DAMAGED : WT_VERIFY_ERROR;
        goto out;
    }
    if (v->side_missing && v->n >= 1 && interrupted_init(v)) {
        warnf(v,
              "no checkpoint file %s: an init was killed before writing it, and the signed "
              "checkpoint of the genesis record it left (%s.init.*) matches the log; the next "
              "writer, or `workloadtruth recover`, takes it up",
              v->o->side_path, v->o->side_path);
    } else if (v->side_missing && v->n >= 1) {
        /* init writes it with the genesis record and writers only ever
         * replace it: gone, lines rewritten or cut by someone without the
         * key would show nowhere else (the writers refuse such a log too) */
        damage(v, WT_DMG_CHECKPOINT, 0, 0,
               "the checkpoint file %s is missing: a log has one from its genesis record on, so "
               "it was deleted, and the lines could have been rewritten or cut without the "
               "key; " SIDE_REMEDY "%s",
               v->o->side_path,
               v->o->nagainst ? " (the checkpoints given with --against match the lines they "
                                "cover)"
                              : "");
        r->status = WT_VERIFY_DAMAGED;
        goto out;
    }
    r->status = r->nwarn ? WT_VERIFY_WARN : WT_VERIFY_OK;
    if (r->damage == WT_DMG_NONE || r->damage == WT_DMG_TORN_TAIL) {
        if (r->damage == WT_DMG_NONE)
            r->line = 0;
        snprintf(r->message, sizeof(r->message),
                 "%s: %llu entr%s verified (%llu sealed by signed checkpoints, %llu checkpoint "
                 "record%s); key: %s",
                 v->name, (unsigned long long)v->n, v->n == 1 ? "y" : "ies",
                 (unsigned long long)r->sealed, (unsigned long long)r->ckpt_records,
                 r->ckpt_records == 1 ? "" : "s",
                 v->o->vkey ? "pinned by --vkey" : "the log's own (pass --vkey to pin it)");
    } else {
        char more[80];
        snprintf(more, sizeof(more), " (the %llu entries before it verify)",
                 (unsigned long long)v->n);
        append_msg(r, more);
    }
out:
    if (unusable && r->status == WT_VERIFY_DAMAGED && strcmp(r->message, unusable->why)) {
        char more[800];
        snprintf(more, sizeof(more), "; besides, a checkpoint could not be used: %s",
                 unusable->why);
        append_msg(r, more);
    }
    for (size_t i = 0; i < v->next; i++) {
        if (v->ext[i].loaded == 1)
            wt_note_free(&v->ext[i].note);
        if (v->ext[i].has_prev)
            wt_note_free(&v->ext[i].prev_note);
    }
    return r->status;
}

int wt_verify_buffer(const char *buf, size_t len, const struct wt_verify_opts *o,
                     struct wt_verify_report *r)
{
    struct vs *v = malloc(sizeof(*v));
    if (!v) {
        memset(r, 0, sizeof(*r));
        snprintf(r->message, sizeof(r->message), "out of memory");
        return r->status = WT_VERIFY_ERROR;
    }
    begin(v, "log", o, r);
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (buf + pos)) : len - pos;
        check_line(v, buf + pos, l, nl != NULL);
        pos += l + (nl ? 1 : 0);
    }
    int st = finish(v);
    free(v);
    return st;
}

int wt_verify_file(const char *path, const struct wt_verify_opts *o, struct wt_verify_report *r)
{
    const char *why = NULL;
    errno = 0;
    FILE *f = wt_fopen_regular(path, &why);
    if (!f) {
        /* a log deleted, or replaced by a directory or a FIFO, is held to its
         * checkpoints as an empty one is: one for lines it does not have
         * shows them cut (exit 1), where "cannot open" concluded nothing
         * (exit 2).  Without such a checkpoint it stays a log that cannot be
         * opened (a mistyped path is not tampering). */
        struct stat st;
        int gone =
            errno == ENOENT || errno == ELOOP || (stat(path, &st) == 0 && !S_ISREG(st.st_mode));
        char what[160];
        snprintf(what, sizeof(what), "%s", why);
        FILE *none = gone ? fopen("/dev/null", "rb") : NULL;
        if (none) {
            int st0 = wt_verify_stream(none, path, o, r);
            fclose(none);
            if (st0 == WT_VERIFY_DAMAGED && r->damage == WT_DMG_TRUNCATED) {
                char msg[sizeof(r->message)];
                snprintf(msg, sizeof(msg), "%s", r->message);
                int k = snprintf(r->message, sizeof(r->message),
                                 "cannot open %.300s (%.100s), read as empty: ", path, what);
                if (k > 0 && (size_t)k < sizeof(r->message)) {
                    size_t room = sizeof(r->message) - (size_t)k - 1, ml = strlen(msg);
                    memcpy(r->message + k, msg, ml < room ? ml : room);
                    r->message[k + (ml < room ? ml : room)] = '\0';
                }
                wt_text_clean(r->message);
                return st0;
            }
        }
        memset(r, 0, sizeof(*r));
        snprintf(r->message, sizeof(r->message), "cannot open %s: %s", path, what);
        wt_text_clean(r->message);
        return r->status = WT_VERIFY_ERROR;
    }
    int st = wt_verify_stream(f, path, o, r);
    fclose(f);
    return st;
}

/* Takes up a prescan's state (see verify.h): 1 when it can be, 0 when the
 * whole file must be scanned instead. */
static int resume(struct vs *v, const struct wt_verify_resume *from)
{
    struct wt_verify_report *r = v->r;
    if (!from->valid || (v->o->vkey && (strcmp(v->o->vkey->name, from->key.name) ||
                                        memcmp(v->o->vkey->pk, from->key.pk, 32))))
        return 0;
    v->key = from->key; /* the genesis line's, as check_line takes it */
    v->have_key = 1;
    for (size_t k = 0; k < v->next; k++) {
        struct ext *e = &v->ext[k];
        if (e->loaded == 1)
            ext_check_sig(v, e);
        /* compared when the scan passes its size: behind us, its root is gone */
        if (e->loaded == 1 && e->sig == 1 && e->cp.size < from->n)
            return 0;
    }
    v->n = from->n;
    v->off = from->off;
    v->last_seal = from->last_seal;
    v->seal_before = from->seal_before;
    memcpy(v->last_leaf, from->last_leaf, 32);
    r->entries = from->n;
    r->valid_bytes = from->off;
    r->sealed = from->sealed;
    r->sealed_through = from->sealed_through;
    r->ckpt_records = from->ckpt_records;
    r->recoveries = from->recoveries;
    r->last_line_len = from->last_line_len;
    r->have_genesis = from->n > 0;
    memcpy(r->origin, from->origin, sizeof(r->origin));
    memcpy(r->pk, from->pk, 32);
    r->range = from->range;
    r->last_ts_ms = from->last_ts_ms;
    r->sealed_ts_ms = from->sealed_ts_ms;
    r->resumed_lines = from->n;
    r->resumed_off = from->off;
    return 1;
}

static void snapshot(const struct vs *v, struct wt_verify_resume *s)
{
    const struct wt_verify_report *r = v->r;
    memset(s, 0, sizeof(*s));
    if (v->stopped || !r->have_genesis)
        return;
    s->valid = 1;
    s->n = v->n;
    s->off = v->off;
    s->last_seal = v->last_seal;
    s->seal_before = v->seal_before;
    s->key = v->key;
    s->sealed = r->sealed;
    s->sealed_through = r->sealed_through;
    s->ckpt_records = r->ckpt_records;
    s->recoveries = r->recoveries;
    s->last_line_len = r->last_line_len;
    memcpy(s->last_leaf, v->last_leaf, 32);
    memcpy(s->origin, r->origin, sizeof(s->origin));
    memcpy(s->pk, r->pk, 32);
    s->range = r->range;
    s->last_ts_ms = r->last_ts_ms;
    s->sealed_ts_ms = r->sealed_ts_ms;
}

/* Whether the prescan's last line is still in f where it read it, f left
 * at its start.  Its reads were not atomic: one that ended inside a torn
 * last line, then went on in a line appended after that was cut (another
 * writer's quarantine, a short write cut back), joined the two halves into
 * a valid record that was never in the file; no line after it can link to
 * it, so it is the last one. */
static int last_line_same(FILE *f, const struct wt_verify_resume *from)
{
    uint64_t len = from->last_line_len;
    int same = 0;
    char *buf = NULL;
    if (len >= 2 && len <= WT_ENTRY_MAX_LINE + 1 && len <= from->off &&
        (buf = malloc(len)) != NULL && fseeko(f, (off_t)(from->off - len), SEEK_SET) == 0 &&
        fread(buf, 1, len, f) == len && buf[len - 1] == '\n') {
        uint8_t leaf[32];
        wt_merkle_leaf_hash(buf, len - 1, leaf);
        same = !memcmp(leaf, from->last_leaf, 32);
    }
    free(buf);
    clearerr(f);
    return fseeko(f, 0, SEEK_SET) == 0 && same;
}

/* The state at a line boundary, for wt_verify_stream_keep: kept while the
 * boundary is at or before the mark, the lines before it intact, and no
 * external checkpoint compared yet (one that sealed lines would be in the
 * state, and resuming with a newer side file than it must conclude what a
 * whole scan with that file does: a prescan's state, which has none). */
static void keep_at(const struct vs *v, uint64_t mark, struct wt_verify_resume *keep)
{
    if (!keep || v->stopped || v->off > mark || !v->r->have_genesis)
        return;
    for (size_t k = 0; k < v->next; k++)
        if (v->ext[k].checked || v->ext[k].reloaded) /* reloaded: compared before */
            return;
    snapshot(v, keep);
}

/* A line verified (at file offset off), into the tail: the lines that
 * start within the last t->want bytes are kept, older ones dropped when the
 * buffer is full (so each byte moves about once). */
static void tail_add(struct wt_verify_tail *t, const char *p, size_t len, uint64_t off)
{
    if (!t || t->failed)
        return;
    size_t need = len + 1;
    if (t->len + need > t->cap) {
        size_t end = t->len + need, cut = end > t->want ? end - t->want : 0, k = 0;
        /* the first line start at or after cut (lines start after a newline) */
        while (k < t->len && k < cut) {
            const char *nl = memchr(t->buf + k, '\n', t->len - k);
            k = nl ? (size_t)(nl - t->buf) + 1 : t->len;
        }
        if (k > 0) {
            memmove(t->buf, t->buf + k, t->len - k);
            t->len -= k;
            t->off += k;
        }
        if (t->len + need > t->cap) {
            size_t cap = 2 * t->want + need + 1;
            char *nb = realloc(t->buf, cap);
            if (!nb) {
                t->failed = 1;
                return;
            }
            t->buf = nb;
            t->cap = cap;
        }
    }
    if (t->len == 0)
        t->off = off;
    memcpy(t->buf + t->len, p, len);
    t->buf[t->len + len] = '\n';
    t->len += need;
}

/* The verifier over f from its position: from a prescan (from, NULL: the
 * whole file), or as a prescan (snap: its state after the complete lines,
 * no conclusion drawn); keep: the state at the last boundary <= mark; tail:
 * the last lines verified. */
static int scan(FILE *f, const char *path, const struct wt_verify_opts *o,
                const struct wt_verify_resume *from, struct wt_verify_report *r,
                struct wt_verify_resume *snap, uint64_t mark, struct wt_verify_resume *keep,
                struct wt_verify_tail *tail)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    struct vs *v = malloc(sizeof(*v));
    char *line = malloc(WT_ENTRY_MAX_LINE + 2);
    char *chunk = malloc(1 << 16);
    int st = WT_VERIFY_ERROR;
    memset(r, 0, sizeof(*r));
    if (keep)
        memset(keep, 0, sizeof(*keep));
    if (!v || !line || !chunk) {
        snprintf(r->message, sizeof(r->message), "out of memory");
        goto out;
    }
    if (from && from->valid && !last_line_same(f, from))
        from = NULL; /* the whole file, from its start */
    begin(v, base, o, r);
    if (from && resume(v, from) && fseeko(f, (off_t)from->off, SEEK_SET) != 0) {
        st = finish(v);
        snprintf(r->message, sizeof(r->message), "cannot read %s: %s", path, strerror(errno));
        st = r->status = WT_VERIFY_ERROR;
        goto out;
    }
    size_t ll = 0;     /* bytes in line (capped) */
    uint64_t real = 0; /* real length of the current line */
    size_t got;
    while ((got = fread(chunk, 1, 1 << 16, f)) > 0) {
        size_t pos = 0;
        if (o && o->after_read)
            o->after_read(o->after_read_ctx);
        if (o && o->cancel && atomic_load(o->cancel)) {
            st = finish(v);          /* frees what begin() loaded; its verdict is replaced */
            r->damage = WT_DMG_NONE; /* no conclusion about the lines not read */
            r->line = r->offset = 0;
            snprintf(r->message, sizeof(r->message),
                     "verification of %s interrupted at offset %llu: a stop was asked", path,
                     (unsigned long long)v->off);
            st = r->status = WT_VERIFY_ERROR;
            goto out;
        }
        while (pos < got) {
            const char *nl = memchr(chunk + pos, '\n', got - pos);
            size_t l = nl ? (size_t)(nl - (chunk + pos)) : got - pos;
            size_t room = WT_ENTRY_MAX_LINE + 1 - ll;
            size_t take = l < room ? l : room;
            memcpy(line + ll, chunk + pos, take);
            ll += take;
            real += l;
            pos += l;
            if (nl) {
                keep_at(v, mark, keep);
                uint64_t n_before = v->n, at = v->off;
                /* an over-long line is kept at 64 KiB + 1 bytes: rejected as such */
                check_line(v, line, ll, 1);
                if (v->n > n_before) /* verified: a valid line is whole in `line` */
                    tail_add(tail, line, ll, at);
                if (real > ll)
                    v->off += real - ll;
                ll = 0;
                real = 0;
                pos++;
            }
        }
        /* nothing further can change the verdict once a line follows the first
         * bad one (it is no torn tail), or once more than a torn write could
         * leave (one record) follows it: a sparse hole of terabytes made the
         * verifier, and every writer opening the log, read for hours */
        if (v->stopped && !v->pending && v->lines_after > 0)
            break;
        if (!v->stopped && real > WT_VERIFY_MAX_TORN_BYTES) {
            damage(v, WT_DMG_MALFORMED, v->n + 1, v->off, "line longer than 64 KiB");
            v->torn_candidate = 1;
            /* taken as the file's end, as a whole read of a hole (no newline)
             * does: a signed checkpoint covering more lines says "truncated" */
            v->partial = 1;
            stop(v);
            v->off += real;
            real = 0;
            v->cut = 1;
            break;
        }
        if (v->stopped && v->off + real - r->valid_bytes > WT_VERIFY_MAX_TORN_BYTES) {
            /* what follows the bad line is known as well as a whole read
             * would know it: a line (complete or not) if a byte does; such a
             * line, over 64 KiB, resolves no broken link (finish() must not
             * take the bad line for the last one: a checkpoint of its size
             * would name another line, and one of a log with no genesis
             * record would call the lines after it missing) */
            if (v->lines_after == 0 && (real > 0 || getc(f) != EOF)) {
                v->lines_after = 1;
                v->pending = 0;
            }
            v->off += real;
            real = 0;
            v->cut = 1;
            break;
        }
    }
    if (ferror(f)) {
        /* read as ending here: a signed checkpoint of more lines shows them
         * cut (exit 1), as it does for a deleted log; a log linked to a
         * file that fails reads (/proc/self/mem) was "cannot read", exit 2,
         * which hid the cut.  Anything else concludes nothing (exit 2). */
        int e = errno;
        st = finish(v);
        if (st == WT_VERIFY_DAMAGED && r->damage == WT_DMG_TRUNCATED) {
            char msg[sizeof(r->message)];
            snprintf(msg, sizeof(msg), "%s", r->message);
            snprintf(r->message, sizeof(r->message),
                     "cannot read %.300s past offset %llu (%.100s), read as ending there: %.550s",
                     path, (unsigned long long)v->off, strerror(e), msg);
            goto out;
        }
        snprintf(r->message, sizeof(r->message), "cannot read %s: %s", path, strerror(e));
        st = r->status = WT_VERIFY_ERROR;
        goto out;
    }
    keep_at(v, mark, keep);
    if (snap) { /* a line being appended is the next scan's */
        snapshot(v, snap);
        st = finish(v);
        goto out;
    }
    if (real > 0) {
        check_line(v, line, ll, 0);
        if (real > ll)
            v->off += real - ll;
    }
    st = finish(v);
    struct stat fs;
    if ((v->cut || (v->stopped && v->lines_after > 0)) && fstat(fileno(f), &fs) == 0 &&
        S_ISREG(fs.st_mode) && (uint64_t)fs.st_size > r->file_bytes)
        r->file_bytes = (uint64_t)fs.st_size; /* the part not read */
out:
    /* one line, whatever the path's or the log's bytes (a newline in
     * --log-dir forged a second line on stderr) */
    wt_text_clean(r->message);
    free(chunk);
    free(line);
    free(v);
    return st;
}

static int same_file_state(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
           a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* scan(), for readers, which take no lock (spec 9.3): a writer may repair a
 * torn tail while they read (cut it back and write a line in its place), and
 * the halves of two lines then read as one malformed line followed by
 * another (damaged, exit 1) or as a tail torn that never was.  Damage or a
 * torn tail found in a regular file that changed while it was read is read
 * again from where the scan began, at most twice more; what the last read
 * finds stands. */
static int scan_settled(FILE *f, const char *path, const struct wt_verify_opts *o,
                        const struct wt_verify_resume *from, struct wt_verify_report *r,
                        uint64_t mark, struct wt_verify_resume *keep, struct wt_verify_tail *tail)
{
    off_t start = ftello(f);
    for (int tries = 0;; tries++) {
        struct stat before, after;
        int reg = fstat(fileno(f), &before) == 0 && S_ISREG(before.st_mode) && start >= 0;
        if (tail)
            tail->len = 0;
        int st = scan(f, path, o, from, r, NULL, mark, keep, tail);
        int suspect =
            st == WT_VERIFY_DAMAGED || (st == WT_VERIFY_WARN && r->damage == WT_DMG_TORN_TAIL);
        if (!suspect || !reg || tries == 2 || fstat(fileno(f), &after) != 0 ||
            same_file_state(&before, &after) || fseeko(f, start, SEEK_SET) != 0)
            return st;
        clearerr(f);
    }
}

int wt_verify_stream(FILE *f, const char *path, const struct wt_verify_opts *o,
                     struct wt_verify_report *r)
{
    return scan_settled(f, path, o, NULL, r, 0, NULL, NULL);
}

int wt_verify_stream_from(FILE *f, const char *path, const struct wt_verify_opts *o,
                          const struct wt_verify_resume *from, struct wt_verify_report *r)
{
    return scan_settled(f, path, o, from, r, 0, NULL, NULL);
}

int wt_verify_stream_keep(FILE *f, const char *path, const struct wt_verify_opts *o,
                          const struct wt_verify_resume *from, uint64_t mark,
                          struct wt_verify_report *r, struct wt_verify_resume *keep,
                          struct wt_verify_tail *tail)
{
    return scan_settled(f, path, o, from, r, mark, keep, tail);
}

int wt_verify_prescan(FILE *f, const struct wt_verify_resume *from, const atomic_int *cancel,
                      struct wt_verify_resume *out)
{
    struct wt_verify_report *r = malloc(sizeof(*r));
    struct wt_verify_opts o = {.cancel = cancel};
    memset(out, 0, sizeof(*out));
    if (!r)
        return -1;
    int st = scan(f, "log", &o, from, r, out, 0, NULL, NULL);
    free(r);
    return st == WT_VERIFY_ERROR && !out->valid ? -1 : 0;
}

int wt_log_read_leaves(const char *path, uint64_t n, uint8_t (**leaves)[32], uint64_t want,
                       char **line, size_t *line_len, struct wt_err *err)
{
    *leaves = NULL;
    if (line) {
        *line = NULL;
        *line_len = 0;
    }
    if (n > (1ull << 40))
        return wt_errf(err, WT_ENOMEM, "log too large");
    uint8_t(*lv)[32] = malloc((size_t)(n ? n : 1) * 32);
    const char *why = "out of memory";
    FILE *f = lv ? wt_fopen_regular(path, &why) : NULL;
    char *buf = NULL;
    size_t cap = 0;
    int rc = WT_OK;
    if (!lv || !f) {
        rc = !lv ? wt_errf(err, WT_ENOMEM, "out of memory")
                 : wt_errf(err, WT_EIO, "cannot open %s: %s", path, why);
        goto out;
    }
    for (uint64_t i = 0; i < n; i++) {
        ssize_t got = getline(&buf, &cap, f);
        if (got <= 0 || buf[got - 1] != '\n' || (size_t)got > WT_ENTRY_MAX_LINE + 1) {
            rc = wt_errf(err, WT_EINVAL, "%s: line %llu is missing or changed while reading", path,
                         (unsigned long long)(i + 1));
            goto out;
        }
        wt_merkle_leaf_hash(buf, (size_t)got - 1, lv[i]);
        if (line && i == want) {
            *line = malloc((size_t)got);
            if (!*line) {
                rc = wt_errf(err, WT_ENOMEM, "out of memory");
                goto out;
            }
            memcpy(*line, buf, (size_t)got - 1);
            (*line)[got - 1] = '\0';
            *line_len = (size_t)got - 1;
        }
    }
    *leaves = lv;
    lv = NULL;
out:
    free(buf);
    free(lv);
    if (f)
        fclose(f);
    return rc;
}
