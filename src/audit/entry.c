/* Audit-log records: build and parse (see entry.h).  The key tables below are
 * the record format; docs/audit-log.md describes the same tables in prose.
 *
 * SPDX-License-Identifier: MIT
 */
#include "audit/entry.h"

#include <stdlib.h>
#include <string.h>

#include "audit/note.h"

static const char *const type_names[] = {"genesis",    "class",   "heartbeat",
                                         "checkpoint", "keyroll", "recovery"};

const char *wt_entry_type_name(enum wt_entry_type t)
{
    return (unsigned)t < sizeof(type_names) / sizeof(type_names[0]) ? type_names[t] : "?";
}

int wt_entry_type_parse(const char *name, enum wt_entry_type *t)
{
    for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
        if (!strcmp(name, type_names[i])) {
            *t = (enum wt_entry_type)i;
            return 0;
        }
    return -1;
}

int wt_entry_key_ok(const char *k)
{
    size_t n = 0;
    for (; k[n]; n++)
        if (!((k[n] >= 'a' && k[n] <= 'z') || (k[n] >= '0' && k[n] <= '9') || k[n] == '_'))
            return 0;
    return n >= 1 && n <= 32;
}

/* What a key's value must be. */
enum kind {
    K_INT,     /* integer in [min, max] */
    K_STR,     /* string of 1..max bytes, printable */
    K_NAME,    /* [a-z0-9_]{1,32} */
    K_REASON,  /* [a-z0-9_-]{1,32} */
    K_ORIGIN,  /* note key name rules */
    K_HASH,    /* base64 of 32 bytes */
    K_HEX64,   /* 64 lowercase hex digits */
    K_ED25519, /* the string "ed25519" */
    K_NOTE,    /* a string of at most WT_NOTE_MAX_LEN bytes (checked by the verifier) */
    K_FLATOBJ, /* flat object: name keys, int or short string values */
};

struct keyspec {
    const char *name;
    enum kind kind;
    int required;
    long long min, max;
};

#define END                                                                                        \
    {                                                                                              \
        NULL, K_INT, 0, 0, 0                                                                       \
    }
static const struct keyspec common[] = {
    {"v", K_INT, 1, 1, 1},
    {"seq", K_INT, 1, 0, WT_ENTRY_MAX_INT},
    {"ts_ms", K_INT, 1, 0, WT_ENTRY_MAX_INT},
    {"type", K_NAME, 1, 0, 0},
    {"prev", K_HASH, 1, 0, 0},
    END,
};
static const struct keyspec genesis[] = {
    {"origin", K_ORIGIN, 1, 0, 0},
    {"alg", K_ED25519, 1, 0, 0},
    {"pk", K_HASH, 1, 0, 0},
    END,
};
static const struct keyspec klass[] = {
    {"gpu", K_STR, 1, 0, 128},
    {"gpu_idx", K_INT, 0, 0, 65535},
    {"class", K_NAME, 1, 0, 0},
    {"conf_ppm", K_INT, 1, 0, 1000000},
    {"model", K_STR, 0, 0, 128},
    {"evidence", K_FLATOBJ, 0, 0, 0},
    {"evidence_sha256", K_HEX64, 0, 0, 0},
    END,
};
static const struct keyspec checkpoint[] = {
    {"note", K_NOTE, 1, 0, 0},
    END,
};
static const struct keyspec keyroll[] = {
    {"epoch", K_INT, 1, 0, WT_ENTRY_MAX_INT},
    {"pk", K_HASH, 1, 0, 0},
    {"note", K_NOTE, 1, 0, 0},
    END,
};
static const struct keyspec recovery[] = {
    {"dropped_bytes", K_INT, 1, 0, WT_ENTRY_MAX_INT},
    {"offset", K_INT, 1, 0, WT_ENTRY_MAX_INT},
    {"reason", K_REASON, 1, 0, 0},
    {"quarantine", K_STR, 0, 0, 255},
    END,
};

static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

static int int_ok(json_t *v, long long min, long long max)
{
    if (!json_is_integer(v))
        return 0;
    json_int_t x = json_integer_value(v);
    return x >= min && x <= max;
}

static int flat_ok(json_t *o, const char **why)
{
    const char *k;
    json_t *v;
    size_t n = 0;
    json_object_foreach(o, k, v)
    {
        if (++n > WT_ENTRY_MAX_KEYS) {
            *why = "more than 64 keys";
            return 0;
        }
        if (!wt_entry_key_ok(k)) {
            *why = "a key that is not [a-z0-9_]{1,32}";
            return 0;
        }
        if (json_is_integer(v)) {
            if (!int_ok(v, -WT_ENTRY_MAX_INT, WT_ENTRY_MAX_INT)) {
                *why = "an integer beyond 2^53-1";
                return 0;
            }
        } else if (json_is_string(v)) {
            if (json_string_length(v) > WT_ENTRY_MAX_STR || !printable(json_string_value(v))) {
                *why = "a string longer than 256 bytes or with control characters";
                return 0;
            }
        } else {
            *why = "a value that is neither an integer nor a string";
            return 0;
        }
    }
    return 1;
}

/* Checks value v of key spec s; on failure sets *why. */
static int value_ok(const struct keyspec *s, json_t *v, const char **why)
{
    const char *str = json_is_string(v) ? json_string_value(v) : NULL;
    size_t len = str ? json_string_length(v) : 0;
    switch (s->kind) {
    case K_INT:
        *why = "not an integer in range";
        return int_ok(v, s->min, s->max);
    case K_STR:
        *why = "not a short printable string";
        return str && len >= 1 && len <= (size_t)s->max && strlen(str) == len && printable(str);
    case K_NAME:
        *why = "not a name ([a-z0-9_]{1,32})";
        return str && strlen(str) == len && wt_entry_key_ok(str);
    case K_REASON: {
        *why = "not a reason ([a-z0-9_-]{1,32})";
        if (!str || len < 1 || len > 32)
            return 0;
        for (size_t i = 0; i < len; i++)
            if (!((str[i] >= 'a' && str[i] <= 'z') || (str[i] >= '0' && str[i] <= '9') ||
                  str[i] == '_' || str[i] == '-'))
                return 0;
        return 1;
    }
    case K_ORIGIN:
        *why = "not a valid log origin (no spaces or '+')";
        return str && strlen(str) == len && wt_note_name_ok(str);
    case K_HASH: {
        uint8_t h[32];
        *why = "not base64 of 32 bytes";
        return str && wt_b64_hash_decode(str, len, h) == 0;
    }
    case K_HEX64:
        *why = "not 64 lowercase hex digits";
        if (!str || len != 64)
            return 0;
        for (size_t i = 0; i < 64; i++)
            if (!((str[i] >= '0' && str[i] <= '9') || (str[i] >= 'a' && str[i] <= 'f')))
                return 0;
        return 1;
    case K_ED25519:
        *why = "not \"ed25519\"";
        return str && !strcmp(str, "ed25519");
    case K_NOTE:
        *why = "not a string of at most 64 KiB without NUL bytes";
        return str && len >= 1 && len <= WT_NOTE_MAX_LEN && strlen(str) == len;
    case K_FLATOBJ:
        *why = "not a flat object";
        return json_is_object(v) && flat_ok(v, why);
    }
    return 0;
}

/* Walks obj's keys from iterator it against the ordered table spec. */
static int check_keys(json_t *obj, void **it, const struct keyspec *spec, int open_tail,
                      struct wt_err *err)
{
    const struct keyspec *s = spec;
    size_t free_keys = 0;
    for (; *it; *it = json_object_iter_next(obj, *it)) {
        const char *k = json_object_iter_key(*it);
        json_t *v = json_object_iter_value(*it);
        const char *why = "";
        while (s->name && strcmp(s->name, k)) {
            if (s->required)
                return wt_errf(err, WT_EINVAL, "missing key '%s' (or keys out of order)", s->name);
            s++;
        }
        if (!s->name) {
            if (!open_tail)
                return wt_errf(err, WT_EINVAL, "unexpected key '%.40s'", k);
            /* heartbeat: free-form status keys after the fixed ones, flat
             * as evidence is (docs/audit-log.md): at most 64, integers or
             * strings of at most 256 printable bytes (empty ones too) */
            if (++free_keys > WT_ENTRY_MAX_KEYS)
                return wt_errf(err, WT_EINVAL, "more than %d status keys", WT_ENTRY_MAX_KEYS);
            if (!wt_entry_key_ok(k))
                return wt_errf(err, WT_EINVAL, "key '%.40s' is not [a-z0-9_]{1,32}", k);
            if (json_is_string(v)) {
                size_t len = json_string_length(v);
                if (len > WT_ENTRY_MAX_STR || strlen(json_string_value(v)) != len ||
                    !printable(json_string_value(v)))
                    return wt_errf(err, WT_EINVAL,
                                   "key '%s': not a string of at most %d printable bytes", k,
                                   WT_ENTRY_MAX_STR);
                continue;
            }
            struct keyspec any = {k, K_INT, 0, -WT_ENTRY_MAX_INT, WT_ENTRY_MAX_INT};
            if (!value_ok(&any, v, &why))
                return wt_errf(err, WT_EINVAL, "key '%s': %s", k, why);
            continue;
        }
        if (!value_ok(s, v, &why))
            return wt_errf(err, WT_EINVAL, "key '%s': %s", k, why);
        s++;
        if (spec == common && !strcmp(k, "prev")) {
            *it = json_object_iter_next(obj, *it);
            break;
        }
    }
    for (; s->name; s++)
        if (s->required)
            return wt_errf(err, WT_EINVAL, "missing key '%s'", s->name);
    return WT_OK;
}

void wt_entry_free(struct wt_entry *e)
{
    if (e && e->obj) {
        json_decref(e->obj);
        e->obj = NULL;
    }
}

int wt_entry_parse(const char *line, size_t len, struct wt_entry *e, struct wt_err *err)
{
    memset(e, 0, sizeof(*e));
    if (len == 0 || len > WT_ENTRY_MAX_LINE)
        return wt_errf(err, WT_EINVAL, "record of %zu bytes (1..65536 allowed)", len);
    if (memchr(line, '\0', len) || memchr(line, '\n', len) || memchr(line, '\r', len))
        return wt_errf(err, WT_EINVAL, "NUL, CR or LF byte inside the record");
    json_error_t je;
    json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (!o)
        return wt_errf(err, WT_EINVAL, "not JSON: %s (column %d)", je.text, je.column);
    int rc = WT_EINVAL;
    if (!json_is_object(o)) {
        wt_errf(err, rc, "not a JSON object");
        goto fail;
    }
    void *it = json_object_iter(o);
    if ((rc = check_keys(o, &it, common, 0, err)) != WT_OK)
        goto fail;
    rc = WT_EINVAL;
    e->obj = o;
    e->seq = (uint64_t)json_integer_value(json_object_get(o, "seq"));
    e->ts_ms = (int64_t)json_integer_value(json_object_get(o, "ts_ms"));
    const char *tname = json_string_value(json_object_get(o, "type"));
    if (wt_entry_type_parse(tname, &e->type)) {
        wt_errf(err, rc, "unknown record type '%s'", tname);
        goto fail;
    }
    const char *prev = json_string_value(json_object_get(o, "prev"));
    (void)wt_b64_hash_decode(prev, strlen(prev), e->prev); /* checked above */
    static const struct keyspec *const by_type[] = {genesis,    klass,   NULL,
                                                    checkpoint, keyroll, recovery};
    static const struct keyspec none[] = {END};
    const struct keyspec *spec = by_type[e->type] ? by_type[e->type] : none;
    if ((rc = check_keys(o, &it, spec, e->type == WT_ENTRY_HEARTBEAT, err)) != WT_OK) {
        wt_err_prefix(err, tname);
        goto fail;
    }
    rc = WT_EINVAL;
    /* the bytes must be exactly jansson's compact form of what they say */
    char *again = json_dumps(o, JSON_COMPACT);
    int same = again && strlen(again) == len && !memcmp(again, line, len);
    free(again);
    if (!same) {
        wt_errf(err, rc,
                "not in the canonical compact form (whitespace, escapes or number "
                "spelling differ from what the writer prints)");
        goto fail;
    }
    switch (e->type) {
    case WT_ENTRY_GENESIS: {
        e->origin = json_string_value(json_object_get(o, "origin"));
        const char *pk = json_string_value(json_object_get(o, "pk"));
        (void)wt_b64_hash_decode(pk, strlen(pk), e->pk);
        break;
    }
    case WT_ENTRY_CHECKPOINT:
    case WT_ENTRY_KEYROLL: {
        json_t *n = json_object_get(o, "note");
        e->note = json_string_value(n);
        e->note_len = json_string_length(n);
        break;
    }
    case WT_ENTRY_CLASS:
        e->gpu = json_string_value(json_object_get(o, "gpu"));
        e->cls = json_string_value(json_object_get(o, "class"));
        e->conf_ppm = (int64_t)json_integer_value(json_object_get(o, "conf_ppm"));
        break;
    default:
        break;
    }
    return WT_OK;
fail:
    json_decref(o);
    memset(e, 0, sizeof(*e));
    return rc;
}

int wt_entry_build(uint64_t seq, int64_t ts_ms, enum wt_entry_type type, const uint8_t prev[32],
                   json_t *fields, char **line, size_t *len, struct wt_err *err)
{
    *line = NULL;
    *len = 0;
    if (seq > (uint64_t)WT_ENTRY_MAX_INT || ts_ms < 0 || ts_ms > WT_ENTRY_MAX_INT)
        return wt_errf(err, WT_EINVAL, "record seq or time out of range");
    char prevb[45];
    wt_b64_hash(prev, prevb);
    json_t *o = json_pack("{s:i,s:I,s:I,s:s,s:s}", "v", 1, "seq", (json_int_t)seq, "ts_ms",
                          (json_int_t)ts_ms, "type", wt_entry_type_name(type), "prev", prevb);
    if (!o)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    int rc = WT_OK;
    if (fields) {
        const char *k;
        json_t *v;
        json_object_foreach(fields, k, v)
        {
            if (json_object_get(o, k)) {
                rc = wt_errf(err, WT_EINVAL, "record field '%.40s' repeats a common key", k);
                goto out;
            }
            if (json_object_set(o, k, v)) {
                rc = wt_errf(err, WT_ENOMEM, "out of memory");
                goto out;
            }
        }
    }
    char *s = json_dumps(o, JSON_COMPACT);
    if (!s) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    size_t n = strlen(s);
    struct wt_entry chk;
    if ((rc = wt_entry_parse(s, n, &chk, err)) != WT_OK) {
        wt_err_prefix(err, "refusing to write an invalid record");
        free(s);
        goto out;
    }
    wt_entry_free(&chk);
    *line = s;
    *len = n;
out:
    json_decref(o);
    return rc;
}
