/* Audit-log records: building them (one compact JSON object per line, fixed
 * key order, integers only) and parsing them back with every check the
 * format asks for.
 *
 * A record line is compact UTF-8 JSON of 1..65536 bytes with the keys "v",
 * "seq", "ts_ms", "type", "prev" first and then the type's own keys (see
 * docs/audit-log.md).  The parser rejects duplicate keys, floats, integers
 * beyond 2^53-1, unknown keys and types, and any line that is not exactly
 * what jansson's compact writer prints for the parsed object, so two readers
 * can never see different content behind the same bytes.  This module knows
 * nothing of files, trees or signatures (the `prev` and `note` values are
 * checked for form only).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_AUDIT_ENTRY_H
#define WT_AUDIT_ENTRY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define WT_ENTRY_MAX_LINE 65536 /* bytes, without the newline */
#define WT_ENTRY_MAX_INT 9007199254740991LL
#define WT_ENTRY_MAX_STR 256 /* evidence and heartbeat string values */
#define WT_ENTRY_MAX_KEYS 64 /* in evidence / heartbeat objects */

enum wt_entry_type {
    WT_ENTRY_GENESIS,
    WT_ENTRY_CLASS,
    WT_ENTRY_HEARTBEAT,
    WT_ENTRY_CHECKPOINT,
    WT_ENTRY_KEYROLL,
    WT_ENTRY_RECOVERY,
};

/* A parsed record.  The pointers point into obj, which the entry owns. */
struct wt_entry {
    json_t *obj;
    uint64_t seq;
    int64_t ts_ms;
    enum wt_entry_type type;
    uint8_t prev[32];
    /* genesis */
    const char *origin;
    uint8_t pk[32];
    /* checkpoint, keyroll */
    const char *note;
    size_t note_len;
    /* class */
    const char *gpu;
    const char *cls;
    int64_t conf_ppm;
};

const char *wt_entry_type_name(enum wt_entry_type t);
/* Returns 0 and sets *t, or -1 for an unknown name. */
int wt_entry_type_parse(const char *name, enum wt_entry_type *t);

/* Builds the line for a record: the common keys, then every key of fields
 * (borrowed, may be NULL) in its order.  *line is malloc'd and
 * NUL-terminated, without the newline.  The result is checked with
 * wt_entry_parse, so a record the parser would refuse is never written. */
int wt_entry_build(uint64_t seq, int64_t ts_ms, enum wt_entry_type type, const uint8_t prev[32],
                   json_t *fields, char **line, size_t *len, struct wt_err *err) WT_WARN_UNUSED;

/* Parses and checks one line (without its newline). */
int wt_entry_parse(const char *line, size_t len, struct wt_entry *e,
                   struct wt_err *err) WT_WARN_UNUSED;
void wt_entry_free(struct wt_entry *e);

/* Key rule for class/evidence/heartbeat names: [a-z0-9_]{1,32}. */
int wt_entry_key_ok(const char *k);

#endif
