/* Trace reader: the project's trace format and raw nvidia-smi CSV (see
 * trace_reader.h).
 *
 * CSV splitting is done here rather than with a library: the format is
 * line-oriented with `#` metadata lines, needs a line number for every error
 * and a hard cap on line length, and fields are short numbers; quoted fields
 * (RFC 4180 style, "" for a quote) are accepted for spreadsheet exports.
 *
 * SPDX-License-Identifier: MIT
 */
#include "telemetry/trace_reader.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "telemetry/owners.h"
#include "util/num.h"
#include "util/fileio.h"
#include "util/hash.h"

#define RBUF_SIZE 65536
/* a line's bytes: WT_TRACE_MAX_LINE, a CR and a byte-order mark */
#define LINE_ROOM (WT_TRACE_MAX_LINE + 4)
#define NVSMI_LOOKAHEAD 128 /* rows buffered to detect the rows-per-tick grouping */
#define MAX_IDENTS 64       /* distinct uuid/pci.bus_id values in one file */

enum field_kind {
    F_IGNORE,
    F_TIME,   /* native t_s */
    F_GPU,    /* native gpu / nvidia-smi index */
    F_LABEL,  /* native label */
    F_OWNERS, /* native owners (telemetry/owners.h) */
    F_COL,    /* a numeric column */
    F_STAMP,  /* nvidia-smi timestamp */
    F_IDENT,  /* nvidia-smi uuid / pci.bus_id: GPU identity */
    F_NAME,   /* nvidia-smi name: the GPU's model, kept as metadata (note_model) */
    F_ALT,    /* nvidia-smi: a power or limit field below the chosen one (alt_resolve) */
};

struct field {
    enum field_kind kind;
    int col;               /* enum wt_col for F_COL and F_ALT */
    int prio;              /* nvidia-smi power and limit fields: their rank */
    const char *semantics; /* nvidia-smi power fields */
    char name[48];         /* for messages */
};

struct cell {
    char *p;
    size_t len;
};

#define NAME_MAX_LEN 95 /* bytes of an nvidia-smi `name` cell that are kept */

struct pending {
    struct wt_sample s;
    unsigned long lineno;
    char name[NAME_MAX_LEN + 1]; /* the row's `name` cell, "" for none */
};

struct wt_trace_reader {
    FILE *f;
    int owns_f;
    char name[1024]; /* as given: a path over 255 bytes was cut, naming no file */
    struct wt_trace_opts opts;
    struct wt_trace_meta meta;
    int failed;
    struct wt_err first_err; /* repeated by every call after a failure */

    /* input buffering */
    char *rbuf;
    size_t rlen, rpos;
    int eof;
    int stopped; /* input ended by opts.stop, not by the writer */
    char *line;  /* LINE_ROOM + 1 */
    size_t line_len;
    unsigned long lineno;     /* line last read */
    unsigned long row_lineno; /* line of the row last returned */
    int have_peek;            /* `line` holds an unconsumed line */
    int unterminated;         /* `line` is the last and has no newline */
    /* native `gpu`: the first row with an empty cell, the first naming a
     * GPU other than 0 (and that GPU); both in one file is an error */
    unsigned long empty_gpu_line, other_gpu_line;
    int other_gpu;

    /* header */
    int ncols;
    struct field fields[WT_TRACE_MAX_COLS];
    int power_prio; /* nvidia-smi: priority of the chosen power field */
    int power_limit_prio;
    int has_stamp, has_index, has_ident;
    int power_field, limit_field;
    /* the power (limit) field read, fixed by the first row where one of them
     * has a value: the chosen one, else the best F_ALT with one; -1 before */
    int power_lock, limit_lock;
    struct wt_owners *owners; /* the owners column's cells; NULL: no such column */
    int owners_full;          /* a cell met the table's limit (said once) */
    char *header;             /* nvidia-smi: the header line, to skip where it comes again */
    size_t header_len;

    /* nvidia-smi state */
    double stamp0;
    int have_stamp0;
    unsigned long ordinal; /* data rows seen */
    char *idents[MAX_IDENTS];
    int nidents;
    struct pending *queue; /* lookahead rows waiting for a GPU index */
    size_t qlen, qpos;
    int grouped;       /* rows_per_tick decided */
    double tick_gap;   /* detected grouping: a longer gap ends a tick (0: not detected) */
    unsigned tick_pos; /* the last row's place in its tick */
    int deferred;      /* queue_ahead met this error: returned once the queue is read */
    double prev_row_t; /* the last row's t_s */
    /* GPU models from the `name` field: a row's GPU may be known only once
     * the grouping is, so a row's name is kept until its GPU is */
    char row_name[NAME_MAX_LEN + 1]; /* of the row last parsed */
    unsigned char *named;            /* WT_MAX_GPUS: the GPU's model is recorded */
    uint64_t *name_hash;             /* WT_MAX_GPUS: without index, the first name's (0: none) */
    unsigned long *name_line;        /* ... and the line it was read on */
    int models_given;                /* the metadata names the model: rows are not read */
    int list_given;                  /* the metadata has gpu_models: not built here */
    size_t list_at;                  /* 1 + index of the gpu_models entry built here */
    int deriving;                    /* note_model is adding a key (see add_meta) */

    /* per-GPU monotonic time check */
    double *last_t; /* WT_MAX_GPUS, NaN = none yet */
};

/* ---------------------------------------------------------------- input */

static void printable(char *dst, size_t cap, const char *s, size_t len)
{
    size_t j = 0;
    for (size_t i = 0; i < len && j + 4 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (len > 0 && j + 4 >= cap && j >= 3) {
        dst[j - 3] = dst[j - 2] = dst[j - 1] = '.';
    }
    dst[j] = '\0';
}

static int fail(struct wt_trace_reader *r, struct wt_err *err, int code, unsigned long lineno,
                const char *fmt, ...) WT_PRINTF(5, 6);

static int fail(struct wt_trace_reader *r, struct wt_err *err, int code, unsigned long lineno,
                const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    r->failed = code;
    /* a name too long for the message with its line and reason (512 bytes)
     * is shown by its last 200 bytes: the file's own name and folders, and
     * what failed where, rather than a path cut in its middle */
    const char *nm = r->name, *dots = "";
    size_t nl = strlen(nm);
    if (nl > 240) {
        nm += nl - 200;
        while ((*nm & 0xC0) == 0x80) /* not inside a UTF-8 character */
            nm++;
        dots = "...";
    }
    if (lineno)
        wt_errf(&r->first_err, code, "%s%s:%lu: %s", dots, nm, lineno, msg);
    else
        wt_errf(&r->first_err, code, "%s%s: %s", dots, nm, msg);
    if (err)
        *err = r->first_err;
    return code;
}

/* Reads the next line into r->line.  Returns WT_OK, WT_DONE or an error. */
static int read_line(struct wt_trace_reader *r, struct wt_err *err)
{
    if (r->have_peek) {
        r->have_peek = 0;
        return WT_OK;
    }
    r->line_len = 0;
    r->unterminated = 0;
    for (;;) {
        if (r->rpos == r->rlen) {
            if (r->eof)
                break;
            /* read(2) on a real descriptor returns what a pipe has now, so a
             * live `nvidia-smi -lms 100 | workloadtruth` is not held back
             * until 64 KiB arrive; fread is for in-memory streams. */
            int fd = fileno(r->f);
            ssize_t got;
            if (fd >= 0) {
                for (;;) {
                    if (r->opts.stop) {
                        /* Wait in short polls, so a stop asked while the
                         * pipe is quiet ends the input instead of hanging. */
                        if (*r->opts.stop)
                            goto stopped;
                        struct pollfd pfd = {.fd = fd, .events = POLLIN};
                        int pr = poll(&pfd, 1, 100);
                        if (pr == 0 || (pr < 0 && errno == EINTR))
                            continue;
                    }
                    got = read(fd, r->rbuf, RBUF_SIZE);
                    if (got >= 0 || errno != EINTR)
                        break;
                }
            } else {
                got = (ssize_t)fread(r->rbuf, 1, RBUF_SIZE, r->f);
                if (got == 0 && ferror(r->f))
                    got = -1;
            }
            r->rpos = 0;
            r->rlen = got > 0 ? (size_t)got : 0;
            if (got < 0)
                return fail(r, err, WT_EIO, r->lineno + 1, "read error: %s", strerror(errno));
            if (got == 0) {
                r->eof = 1;
                break;
            }
        }
        char *start = r->rbuf + r->rpos;
        size_t avail = r->rlen - r->rpos;
        char *nl = memchr(start, '\n', avail);
        size_t take = nl ? (size_t)(nl - start) : avail;
        if (r->line_len + take > LINE_ROOM)
            return fail(r, err, WT_EINVAL, r->lineno + 1, "line longer than %d bytes",
                        WT_TRACE_MAX_LINE);
        memcpy(r->line + r->line_len, start, take);
        r->line_len += take;
        r->rpos += take + (nl ? 1 : 0);
        if (nl)
            goto got;
    }
    if (r->line_len == 0)
        return WT_DONE;
    r->unterminated = 1;
    goto got;
stopped:
    r->eof = 1;
    r->stopped = 1;
    r->rpos = r->rlen = 0;
    r->line_len = 0;
    return WT_DONE;
got:
    r->lineno++;
    if (r->line_len && r->line[r->line_len - 1] == '\r')
        r->line_len--;
    r->line[r->line_len] = '\0';
    if (memchr(r->line, '\0', r->line_len))
        return fail(r, err, WT_EINVAL, r->lineno, "contains a NUL byte (binary data?)");
    if (memchr(r->line, '\r', r->line_len))
        return fail(r, err, WT_EINVAL, r->lineno,
                    "carriage return inside a line: a file with CR-only line ends? (use LF or "
                    "CRLF)");
    /* a byte-order mark at any line's start, not only the file's: metadata
     * lines put before a spreadsheet's export (`cat meta.txt export.csv`)
     * left it before the header, whose first column then went unknown (a
     * `gpu` column dropped merged every GPU into GPU 0) */
    if (r->line_len >= 3 && memcmp(r->line, "\xEF\xBB\xBF", 3) == 0) {
        memmove(r->line, r->line + 3, r->line_len - 2);
        r->line_len -= 3;
    }
    if (r->line_len > WT_TRACE_MAX_LINE) /* counted without its CR and byte-order mark */
        return fail(r, err, WT_EINVAL, r->lineno, "line longer than %d bytes", WT_TRACE_MAX_LINE);
    return WT_OK;
}

static int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)s[i]))
            return 0;
    return 1;
}

static void trim(char **p, size_t *len)
{
    while (*len && isspace((unsigned char)**p)) {
        (*p)++;
        (*len)--;
    }
    while (*len && isspace((unsigned char)(*p)[*len - 1]))
        (*len)--;
}

/* Splits r->line into cells in place.  Returns the count, or -1 (too many
 * cells), -2 (unterminated quote) or -3 (text after a closing quote), with
 * *bad the 0-based index of that cell. */
static int split_cells(char *line, size_t len, struct cell *cells, int cap, int *bad)
{
    int n = 0;
    *bad = 0;
    size_t i = 0;
    for (;;) {
        if (n == cap)
            return -1;
        /* skip leading spaces before a quote */
        size_t j = i;
        while (j < len && (line[j] == ' ' || line[j] == '\t'))
            j++;
        if (j < len && line[j] == '"') {
            char *out = line + j;
            size_t k = j + 1, w = 0;
            for (;;) {
                if (k >= len) {
                    *bad = n;
                    return -2;
                }
                if (line[k] == '"') {
                    if (k + 1 < len && line[k + 1] == '"') {
                        out[w++] = '"';
                        k += 2;
                        continue;
                    }
                    k++;
                    break;
                }
                out[w++] = line[k++];
            }
            cells[n].p = out;
            cells[n].len = w;
            while (k < len && (line[k] == ' ' || line[k] == '\t'))
                k++;
            n++;
            if (k >= len)
                return n;
            if (line[k] != ',') {
                *bad = n - 1;
                return -3;
            }
            i = k + 1;
            continue;
        }
        char *comma = memchr(line + i, ',', len - i);
        size_t end = comma ? (size_t)(comma - line) : len;
        cells[n].p = line + i;
        cells[n].len = end - i;
        trim(&cells[n].p, &cells[n].len);
        n++;
        if (!comma)
            return n;
        i = end + 1;
    }
}

/* -------------------------------------------------------------- header */

struct nvsmi_field {
    const char *name;
    enum field_kind kind;
    int col;
    int prio;              /* for columns fed by several fields */
    const char *semantics; /* power fields */
};

static const struct nvsmi_field nvsmi_fields[] = {
    {"timestamp", F_STAMP, 0, 0, NULL},
    {"name", F_NAME, 0, 0, NULL},
    {"index", F_GPU, 0, 0, NULL},
    {"uuid", F_IDENT, 0, 0, NULL},
    {"gpu_uuid", F_IDENT, 0, 0, NULL},
    {"pci.bus_id", F_IDENT, 0, 0, NULL},
    {"gpu_bus_id", F_IDENT, 0, 0, NULL},
    {"utilization.gpu", F_COL, WT_COL_UTIL_GPU, 0, NULL},
    {"utilization.memory", F_COL, WT_COL_UTIL_MEM, 0, NULL},
    {"memory.used", F_COL, WT_COL_MEM_USED, 0, NULL},
    {"memory.total", F_COL, WT_COL_MEM_TOTAL, 0, NULL},
    {"power.draw.instant", F_COL, WT_COL_POWER, 3, "instant"},
    {"power.draw", F_COL, WT_COL_POWER, 2, "unknown"},
    {"power.draw.average", F_COL, WT_COL_POWER, 1, "avg1s"},
    {"enforced.power.limit", F_COL, WT_COL_POWER_LIMIT, 2, NULL},
    {"power.limit", F_COL, WT_COL_POWER_LIMIT, 1, NULL},
    {"power.default_limit", F_COL, WT_COL_POWER_DEFAULT_LIMIT, 0, NULL},
    {"clocks.current.sm", F_COL, WT_COL_SM_CLOCK, 0, NULL},
    {"clocks.sm", F_COL, WT_COL_SM_CLOCK, 0, NULL},
    {"clocks.max.sm", F_COL, WT_COL_SM_CLOCK_MAX, 0, NULL},
    {"clocks.max.streaming_multiprocessor", F_COL, WT_COL_SM_CLOCK_MAX, 0, NULL},
    {"clocks.current.memory", F_COL, WT_COL_MEM_CLOCK, 0, NULL},
    {"clocks.mem", F_COL, WT_COL_MEM_CLOCK, 0, NULL},
    {"temperature.gpu", F_COL, WT_COL_TEMP, 0, NULL},
    {"clocks_event_reasons.active", F_COL, WT_COL_CLOCK_REASONS, 0, NULL},
    {"clocks_throttle_reasons.active", F_COL, WT_COL_CLOCK_REASONS, 0, NULL},
    {"clocks_event_reasons", F_COL, WT_COL_CLOCK_REASONS, 0, NULL},
};

static const struct nvsmi_field *nvsmi_lookup(const char *name, size_t len)
{
    /* nvidia-smi writes "utilization.gpu [%]": compare the part before " [". */
    const char *br = memchr(name, '[', len);
    if (br) {
        len = (size_t)(br - name);
        while (len && isspace((unsigned char)name[len - 1]))
            len--;
    }
    for (size_t i = 0; i < sizeof(nvsmi_fields) / sizeof(nvsmi_fields[0]); i++)
        if (strlen(nvsmi_fields[i].name) == len && !strncasecmp(nvsmi_fields[i].name, name, len))
            return &nvsmi_fields[i];
    return NULL;
}

static int add_meta(struct wt_trace_reader *r, const char *key, size_t klen, const char *val,
                    size_t vlen, struct wt_err *err)
{
    /* the limit is the file's: the keys the reader derives from nvidia-smi's
     * `name` (gpu_model, gpu_models) have two places of their own */
    if (r->meta.n >= WT_TRACE_MAX_META + (r->deriving ? 2 : 0))
        return fail(r, err, WT_ENOMEM, r->lineno, "more than %d metadata lines", WT_TRACE_MAX_META);
    /* a key the reader acts on may repeat, but not change: which of two
     * labels or formats is meant cannot be told */
    static const char *const acted_on[] = {"format",    "label",      "power_semantics",
                                           "gpu_model", "gpu_models", "power_semantics_per_gpu"};
    for (size_t k = 0; k < sizeof(acted_on) / sizeof(acted_on[0]); k++) {
        /* in any letter case, as the header's names: `# GPU_Model:` is kept
         * as `gpu_model` (it was an unknown key, silently unrated power) */
        if (strlen(acted_on[k]) != klen || strncasecmp(acted_on[k], key, klen))
            continue;
        key = acted_on[k];
        /* an empty value says nothing: as if the line were not there (an
         * empty `# power_semantics:` made an nvidia-smi file's 1-second
         * averages "instant", and an empty `# gpu_model:` left the model its
         * rows name unread); an empty format is still refused */
        if (vlen == 0 && k != 0)
            return WT_OK;
        /* values read in any letter case are compared so: `# label:
         * TRAINING` then `# label: training` says the same */
        int anycase = k == 1 || k == 2 || k == 5;
        for (size_t i = 0; i < r->meta.n; i++)
            if (!strcmp(r->meta.kv[i].key, acted_on[k]) &&
                (strlen(r->meta.kv[i].value) != vlen ||
                 (anycase ? strncasecmp(r->meta.kv[i].value, val, vlen)
                          : memcmp(r->meta.kv[i].value, val, vlen))))
                return fail(r, err, WT_EINVAL, r->lineno,
                            "metadata '%s' given again with another value (first on line %lu)",
                            acted_on[k], (unsigned long)r->meta.kv[i].line);
    }
    struct wt_trace_kv *kv = realloc(r->meta.kv, (r->meta.n + 1) * sizeof(*kv));
    if (!kv)
        return fail(r, err, WT_ENOMEM, r->lineno, "out of memory");
    r->meta.kv = kv;
    kv[r->meta.n].key = strndup(key, klen);
    kv[r->meta.n].value = strndup(val, vlen);
    if (!kv[r->meta.n].key || !kv[r->meta.n].value) {
        free(kv[r->meta.n].key);
        free(kv[r->meta.n].value);
        return fail(r, err, WT_ENOMEM, r->lineno, "out of memory");
    }
    kv[r->meta.n].line = r->lineno;
    r->meta.n++;
    return WT_OK;
}

/* The line a metadata key was read from (the first, as wt_trace_meta_value). */
static size_t meta_line(const struct wt_trace_reader *r, const char *key)
{
    for (size_t i = 0; i < r->meta.n; i++)
        if (!strcmp(r->meta.kv[i].key, key))
            return r->meta.kv[i].line;
    return 0;
}

/* "# key: value" -> metadata; "#" lines without "key:" are comments. */
/* A '#' line of r->line shaped `# key: value` (a key of 1 to 64 letters,
 * digits, '_', '-' or '.'): its key and value, trimmed; else 0 (a free-text
 * comment, even one that happens to contain a colon). */
static int meta_shape(const struct wt_trace_reader *r, char **key, size_t *klen, char **val,
                      size_t *vlen)
{
    char *p = r->line + 1;
    size_t len = r->line_len - 1;
    trim(&p, &len);
    char *colon = memchr(p, ':', len);
    if (!colon)
        return 0;
    *key = p;
    *klen = (size_t)(colon - p);
    *val = colon + 1;
    *vlen = len - *klen - 1;
    trim(key, klen);
    trim(val, vlen);
    if (*klen == 0 || *klen > 64)
        return 0;
    for (size_t i = 0; i < *klen; i++)
        if (!(isalnum((unsigned char)(*key)[i]) || (*key)[i] == '_' || (*key)[i] == '-' ||
              (*key)[i] == '.'))
            return 0;
    return 1;
}

static int parse_meta_line(struct wt_trace_reader *r, struct wt_err *err)
{
    char *key, *val;
    size_t klen, vlen;
    if (!meta_shape(r, &key, &klen, &val, &vlen))
        return WT_OK;
    return add_meta(r, key, klen, val, vlen, err);
}

/* A cell that is data, not a column name: a number, a number with one of
 * nvidia-smi's units ("72.36 W", "50 %"), or an nvidia-smi timestamp
 * ("2024/04/03 10:47:35.123"): `--format=csv,noheader` output. */
static int looks_like_data(const struct cell *c)
{
    static const char *const units[] = {" W", " %", " MiB", " MHz", " C", " J"};
    double d;
    if (c->len == 0)
        return 0;
    if (wt_parse_double(c->p, c->len, &d) == 0)
        return 1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t ul = strlen(units[i]);
        if (c->len > ul && !memcmp(c->p + c->len - ul, units[i], ul) &&
            wt_parse_double(c->p, c->len - ul, &d) == 0)
            return 1;
    }
    return c->len >= 10 && isdigit((unsigned char)c->p[0]) && isdigit((unsigned char)c->p[3]) &&
           c->p[4] == '/' && c->p[7] == '/' && isdigit((unsigned char)c->p[8]);
}

static int parse_header(struct wt_trace_reader *r, struct wt_err *err)
{
    struct cell cells[WT_TRACE_MAX_COLS];
    int bad;
    int n = split_cells(r->line, r->line_len, cells, WT_TRACE_MAX_COLS, &bad);
    if (n == -1)
        return fail(r, err, WT_EINVAL, r->lineno, "header has more than %d columns",
                    WT_TRACE_MAX_COLS);
    if (n < 0)
        return fail(r, err, WT_EINVAL, r->lineno, "header, column %d: %s", bad + 1,
                    n == -2 ? "unterminated quoted field" : "text after the closing quote");
    /* native names in any letter case, as the metadata keys: `GPU` or
     * `Power_W` had been unknown columns, silently dropped (two GPUs read as
     * one) */
    char lower[WT_TRACE_MAX_COLS][32];
    for (int i = 0; i < n; i++) {
        lower[i][0] = '\0';
        if (cells[i].len < sizeof(lower[i]) && !memchr(cells[i].p, '\0', cells[i].len)) {
            for (size_t k = 0; k < cells[i].len; k++)
                lower[i][k] = (char)tolower((unsigned char)cells[i].p[k]);
            lower[i][cells[i].len] = '\0';
        }
    }
    int native = 0, nvsmi = 0, data = 0, col = -1;
    for (int i = 0; i < n; i++) {
        if (col < 0 && wt_col_lookup(lower[i], strlen(lower[i])) >= 0)
            col = i;
        if (!strcmp(lower[i], "t_s"))
            native = 1;
        else if (nvsmi_lookup(cells[i].p, cells[i].len) &&
                 nvsmi_lookup(cells[i].p, cells[i].len)->kind != F_NAME)
            nvsmi = 1; /* `name` alone does not make a CSV nvidia-smi output */
        data += looks_like_data(&cells[i]);
    }
    /* a file that says it is a trace is not read as nvidia-smi output, nor
     * skipped as "not a trace" by a directory walk */
    const char *fmt = wt_trace_meta_value(r, "format");
    if (!native && fmt) {
        char shown[64];
        printable(shown, sizeof(shown), fmt, strlen(fmt));
        return fail(r, err, WT_EINVAL, r->lineno,
                    "header lacks the required column 't_s' (the metadata says 'format: %s')",
                    shown);
    }
    /* the trace's own columns without 't_s' (misspelt, dropped): a broken
     * trace, not a CSV file of something else for a directory walk to skip */
    if (!native && !nvsmi && col >= 0) {
        char shown[64];
        printable(shown, sizeof(shown), cells[col].p, cells[col].len);
        return fail(r, err, WT_EINVAL, r->lineno,
                    "header lacks the required column 't_s' (it names the trace column '%s')",
                    shown);
    }
    if (!native && !nvsmi) {
        if (data)
            return fail(r, err, WT_EINVAL, r->lineno,
                        "missing header: expected a line of column names ('t_s,...' or "
                        "nvidia-smi --query-gpu field names), found data");
        return fail(r, err, WT_EFORMAT, r->lineno,
                    "header names no known column: a trace needs 't_s' (or nvidia-smi "
                    "--query-gpu fields such as 'timestamp' or 'power.draw [W]')");
    }
    r->meta.kind = native ? WT_TRACE_NATIVE : WT_TRACE_NVSMI;
    r->ncols = n;
    r->power_prio = r->power_limit_prio = -1;
    r->power_field = r->limit_field = -1;
    r->power_lock = r->limit_lock = -1;
    int seen_col[WT_NCOLS];
    int seen_t = 0, seen_gpu = 0, seen_label = 0, seen_owners = 0;
    for (int i = 0; i < WT_NCOLS; i++)
        seen_col[i] = -1;
    for (int i = 0; i < n; i++) {
        struct field *f = &r->fields[i];
        printable(f->name, sizeof(f->name), cells[i].p, cells[i].len);
        f->kind = F_IGNORE;
        if (native) {
            if (!strcmp(lower[i], "t_s")) {
                f->kind = F_TIME;
                if (seen_t++)
                    return fail(r, err, WT_EINVAL, r->lineno, "column 't_s' appears twice");
            } else if (!strcmp(lower[i], "gpu")) {
                f->kind = F_GPU;
                if (seen_gpu++)
                    return fail(r, err, WT_EINVAL, r->lineno, "column 'gpu' appears twice");
            } else if (!strcmp(lower[i], "label")) {
                f->kind = F_LABEL;
                if (seen_label++)
                    return fail(r, err, WT_EINVAL, r->lineno, "column 'label' appears twice");
            } else if (!strcmp(lower[i], "owners")) {
                f->kind = F_OWNERS;
                if (seen_owners++)
                    return fail(r, err, WT_EINVAL, r->lineno, "column 'owners' appears twice");
                if (!r->owners && !(r->owners = wt_owners_new()))
                    return fail(r, err, WT_ENOMEM, r->lineno, "out of memory");
            } else {
                int c = lower[i][0] ? wt_col_lookup(lower[i], strlen(lower[i])) : -1;
                if (c >= 0) {
                    if (seen_col[c] >= 0)
                        return fail(r, err, WT_EINVAL, r->lineno, "column '%s' appears twice",
                                    wt_col_name(c));
                    seen_col[c] = i;
                    f->kind = F_COL;
                    f->col = c;
                }
            }
            continue;
        }
        const struct nvsmi_field *nf = nvsmi_lookup(cells[i].p, cells[i].len);
        if (!nf)
            continue;
        f->kind = nf->kind;
        f->col = nf->col;
        if (nf->kind == F_STAMP) {
            if (r->has_stamp++)
                return fail(r, err, WT_EINVAL, r->lineno, "column 'timestamp' appears twice");
        } else if (nf->kind == F_GPU) {
            if (r->has_index++)
                return fail(r, err, WT_EINVAL, r->lineno, "column 'index' appears twice");
        } else if (nf->kind == F_NAME) {
            /* the model name: no column of its own */
        } else if (nf->kind == F_IDENT) {
            if (r->has_ident) {
                f->kind = F_IGNORE; /* uuid and pci.bus_id both present: one is enough */
                continue;
            }
            r->has_ident = 1;
        } else if (nf->col == WT_COL_POWER || nf->col == WT_COL_POWER_LIMIT) {
            int *prio = nf->col == WT_COL_POWER ? &r->power_prio : &r->power_limit_prio;
            int *field = nf->col == WT_COL_POWER ? &r->power_field : &r->limit_field;
            if (nf->prio == *prio)
                return fail(r, err, WT_EINVAL, r->lineno, "column '%s' appears twice", nf->name);
            f->prio = nf->prio;
            f->semantics = nf->semantics;
            /* the others are kept as alternatives: a field nvidia-smi leaves
             * "[N/A]" on this GPU (power.draw.instant before Ampere) beside
             * one with values had made power "not measured" */
            if (nf->prio < *prio) {
                f->kind = F_ALT;
                continue;
            }
            if (*field >= 0)
                r->fields[*field].kind = F_ALT;
            *prio = nf->prio;
            *field = i;
            if (nf->col == WT_COL_POWER)
                r->meta.power_semantics = nf->semantics;
        } else {
            if (seen_col[nf->col] >= 0) {
                /* two spellings of one reading (clocks_throttle_reasons and
                 * clocks_event_reasons): name both as the file does */
                const char *prev = r->fields[seen_col[nf->col]].name;
                if (strcasecmp(prev, f->name))
                    return fail(r, err, WT_EINVAL, r->lineno,
                                "columns '%s' and '%s' both give %s: keep one", prev, f->name,
                                wt_col_name(nf->col));
                return fail(r, err, WT_EINVAL, r->lineno, "column '%s' appears twice", f->name);
            }
            seen_col[nf->col] = i;
        }
    }
    if (native && !seen_t)
        return fail(r, err, WT_EINVAL, r->lineno, "header lacks the required column 't_s'");
    /* timestamp, index, uuid, name alone: nothing measured on any row
     * (--query-compute-apps output, its gpu_uuid taken for the GPU, read as
     * GPUs with no readings: UNKNOWN, with no hint why) */
    int measures = 0;
    for (int i = 0; i < n && !measures; i++)
        measures = r->fields[i].kind == F_COL || r->fields[i].kind == F_ALT;
    if (!measures && native) {
        /* t_s and columns none of which is read: every window was UNKNOWN,
         * exit 0, no word why (nvidia-smi's names under a native header,
         * `Power (W)`).  A header of t_s, gpu, label alone says what it is. */
        char ignored[240] = "";
        size_t off = 0;
        for (int i = 0; i < n && off < sizeof(ignored) - 1; i++)
            if (r->fields[i].kind == F_IGNORE)
                off += (size_t)snprintf(ignored + off, sizeof(ignored) - off, "%s'%.60s'",
                                        off ? ", " : "", r->fields[i].name);
        if (off)
            return fail(r, err, WT_EINVAL, r->lineno,
                        "header names no reading column (util_gpu_pct, power_w, ...: "
                        "docs/trace-format.md); not read: %s",
                        ignored);
    }
    if (!measures && !native)
        return fail(r, err, WT_EINVAL, r->lineno,
                    "header names no reading (nvidia-smi --query-gpu fields such as "
                    "utilization.gpu or power.draw); --query-compute-apps output lists "
                    "processes, not GPU telemetry");
    return WT_OK;
}

/* ---------------------------------------------------------------- rows */

static int all_digits(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)p[i]))
            return 0;
    return len > 0;
}

static int is_na(const char *p, size_t len)
{
    if (len >= 2 && p[0] == '[' && p[len - 1] == ']')
        return 1; /* [N/A], [Not Supported], [Unknown Error], ... */
    return (len == 3 && !strncasecmp(p, "N/A", 3));
}

/* The unit nvidia-smi writes for a column (NULL: none). */
static const char *col_unit(int col)
{
    switch (col) {
    case WT_COL_UTIL_GPU:
    case WT_COL_UTIL_MEM:
        return "%";
    case WT_COL_MEM_USED:
    case WT_COL_MEM_TOTAL:
        return "MiB";
    case WT_COL_POWER:
    case WT_COL_POWER_LIMIT:
    case WT_COL_POWER_DEFAULT_LIMIT:
        return "W";
    case WT_COL_SM_CLOCK:
    case WT_COL_SM_CLOCK_MAX:
    case WT_COL_MEM_CLOCK:
        return "MHz";
    default:
        return NULL;
    }
}

/* Strips the column's nvidia-smi unit suffix: "72.36 W", "0 %", "131 MiB",
 * "1410 MHz".  nvidia-smi always puts a space before the unit; letters glued
 * to the value are part of it ("0x000000000000000C", a hex mask, keeps its
 * C).  Any other unit ("100 kW", or "300 MiB" in a power column) is left in
 * place, so the cell is not a number: an error, not a value off by a factor
 * or read as another quantity. */
static void strip_unit(const char *p, size_t *len, const char *unit)
{
    size_t l = *len;
    while (l && (isalpha((unsigned char)p[l - 1]) || p[l - 1] == '%'))
        l--;
    if (!unit || l == *len || !l || !isspace((unsigned char)p[l - 1]))
        return;
    if (*len - l != strlen(unit) || memcmp(p + l, unit, *len - l))
        return;
    while (l && isspace((unsigned char)p[l - 1]))
        l--;
    *len = l;
}

/* Days since 1970-01-01 of a civil date (H. Hinnant's algorithm). */
static long days_from_civil(long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long)doe - 719468;
}

/* nvidia-smi timestamp "2024/04/03 10:47:35.123" (also '-' and 'T'), or plain
 * seconds.  Returns 0 and seconds since the epoch (local clock, no zone). */
static int parse_stamp(const char *p, size_t len, double *out)
{
    if (wt_parse_double(p, len, out) == 0)
        return 0;
    /* the date and time up to the seconds fit in buf; the seconds, which may
     * have any number of digits, are read from p */
    char buf[64];
    size_t blen = len < sizeof(buf) ? len : sizeof(buf) - 1;
    memcpy(buf, p, blen);
    buf[blen] = '\0';
    int Y, M, D, h, m, consumed = 0;
    char s1, s2, sep;
    if (sscanf(buf, "%4d%c%2d%c%2d%c%2d:%2d:%n", &Y, &s1, &M, &s2, &D, &sep, &h, &m, &consumed) !=
            8 ||
        consumed == 0)
        return -1;
    if (!((s1 == '/' && s2 == '/') || (s1 == '-' && s2 == '-')) || !(sep == ' ' || sep == 'T'))
        return -1;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (M < 1 || M > 12 || h < 0 || h > 23 || m < 0 || m > 59)
        return -1;
    int leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
    if (D < 1 || D > mdays[M - 1] + (M == 2 && leap))
        return -1; /* 2023/02/29 would be read as 2023/03/01 */
    double sec;
    /* no leap seconds: Linux clocks (and so nvidia-smi) never show :60 */
    if (wt_parse_double(p + consumed, len - (size_t)consumed, &sec) != 0 || sec < 0 || sec >= 60)
        return -1;
    long days = days_from_civil(Y, (unsigned)M, (unsigned)D);
    *out = (double)days * 86400.0 + h * 3600.0 + m * 60.0 + sec;
    return 0;
}

/* A cell, checked against the values its column can physically take
 * (wt_col_range): a percentage outside 0..100 or a negative power, memory,
 * clock, throughput or count is a broken recorder or a forged file, and would
 * otherwise move the features silently (950% utilization or -300 W reads as
 * some other load).  Above, every column is bounded far beyond any GPU (100 kW
 * of power; 1e15 otherwise, 1e18 for the energy counter, which may start at
 * any value): a mean of 1e307 W overflows to "not measured", which let an idle
 * rule pass. */
static int parse_value(struct wt_trace_reader *r, const struct field *f, const struct cell *c,
                       double *out, struct wt_err *err)
{
    const char *p = c->p;
    size_t len = c->len;
    char shown[40];
    if (len == 0) {
        *out = NAN;
        return WT_OK;
    }
    if (r->meta.kind == WT_TRACE_NVSMI) {
        if (is_na(p, len)) {
            *out = NAN;
            return WT_OK;
        }
        strip_unit(p, &len, col_unit(f->col));
    }
    if (f->col == WT_COL_CLOCK_REASONS) {
        uint64_t u;
        if (wt_parse_u64(p, len, &u) == 0) {
            if (u >= (UINT64_C(1) << 53)) {
                printable(shown, sizeof(shown), c->p, c->len);
                return fail(r, err, WT_EINVAL, r->lineno,
                            "column '%s': bitmask '%s' uses bits above 52", f->name, shown);
            }
            *out = (double)u;
            return WT_OK;
        }
        /* a whole number written as a float ("4.0": pandas, for a column
         * with empty cells) */
        double d;
        if (wt_parse_double(p, len, &d) == 0 && d >= 0 && d < 9007199254740992.0 && d == floor(d)) {
            *out = d;
            return WT_OK;
        }
        printable(shown, sizeof(shown), c->p, c->len);
        return fail(r, err, WT_EINVAL, r->lineno,
                    "column '%s': not a bitmask (a whole number, or 0x hex): '%s'", f->name, shown);
    }
    int prc = wt_parse_double(p, len, out);
    if (prc != 0) {
        printable(shown, sizeof(shown), c->p, c->len);
        return fail(r, err, WT_EINVAL, r->lineno, "column '%s': %s: '%s'", f->name,
                    prc == -2 ? "a number out of range" : "not a number", shown);
    }
    double lo, hi;
    wt_col_range(f->col, &lo, &hi);
    if (*out < lo - 1e-6 || *out > hi + 1e-6) { /* a computed 100.0000000001% is 100% */
        printable(shown, sizeof(shown), c->p, c->len);
        return fail(r, err, WT_EINVAL, r->lineno,
                    "column '%s': %s is impossible (must be %g to %g)", f->name, shown, lo, hi);
    }
    return WT_OK;
}

static int ident_index(struct wt_trace_reader *r, const struct cell *c, int *gpu,
                       struct wt_err *err)
{
    for (int i = 0; i < r->nidents; i++)
        if (strlen(r->idents[i]) == c->len && !memcmp(r->idents[i], c->p, c->len)) {
            *gpu = i;
            return WT_OK;
        }
    if (r->nidents == MAX_IDENTS)
        return fail(r, err, WT_EINVAL, r->lineno, "more than %d distinct GPUs", MAX_IDENTS);
    r->idents[r->nidents] = strndup(c->p, c->len);
    if (!r->idents[r->nidents])
        return fail(r, err, WT_ENOMEM, r->lineno, "out of memory");
    *gpu = r->nidents++;
    return WT_OK;
}

/* Whether a warning (its kind and file, hashed into `key`) is the process's
 * first: `train` and `eval --holdout` read a file once per view and fold,
 * and said the same thing up to a dozen times (past the first 256 keys, a
 * warning is given at each read).  The whole name is hashed: keys of names
 * cut at 255 bytes made two files of a deep directory one. */
static int first_warning(uint64_t key)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static uint64_t warned[256];
    static size_t nwarned;
    int first = 1;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nwarned && first; i++)
        first = warned[i] != key;
    if (first && nwarned < sizeof(warned) / sizeof(warned[0]))
        warned[nwarned++] = key;
    pthread_mutex_unlock(&mu);
    return first;
}

static void vwarn(const struct wt_trace_reader *r, unsigned long line, char kind, const char *fmt,
                  va_list ap) __attribute__((format(printf, 4, 0)));
static void vwarn(const struct wt_trace_reader *r, unsigned long line, char kind, const char *fmt,
                  va_list ap)
{
    uint64_t key = wt_fnv1a(wt_fnv1a(WT_FNV1A_INIT, &kind, 1), r->name, strlen(r->name));
    if (r->opts.quiet || !first_warning(key))
        return;
    char msg[600], nm[sizeof(r->name)];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    printable(nm, sizeof(nm), r->name, strlen(r->name)); /* a name may hold escapes */
    fprintf(stderr, "workloadtruth: warning: %s:%lu: %s\n", nm, line, msg);
}

void wt_trace_warn(const struct wt_trace_reader *r, char kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vwarn(r, r->lineno, kind, fmt, ap);
    va_end(ap);
}

void wt_trace_warn_row(const struct wt_trace_reader *r, char kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vwarn(r, r->row_lineno, kind, fmt, ap);
    va_end(ap);
}

/* Parses r->line into s.  gpu is -1 when it must still be derived from the
 * tick grouping (nvidia-smi without an index). */
/* nvidia-smi's power (limit) fields: the file's first row where any of them
 * has a value fixes which is read from then on: the chosen (highest-ranked)
 * one if it has a value there, else the best-ranked other that has one; the
 * power semantics follow the field.  One field for the whole file, so that a
 * window never mixes instantaneous and averaged power. */
static int alt_resolve(struct wt_trace_reader *r, const struct cell *cells, struct wt_sample *s,
                       int col, int primary, int *lock, struct wt_err *err)
{
    if (primary < 0 || *lock == primary)
        return WT_OK;
    if (*lock >= 0) {
        s->v[col] = NAN;
        return parse_value(r, &r->fields[*lock], &cells[*lock], &s->v[col], err);
    }
    if (wt_measured(s->v[col])) {
        *lock = primary;
        return WT_OK;
    }
    int best = -1;
    double best_v = NAN;
    for (int i = 0; i < r->ncols; i++) {
        const struct field *f = &r->fields[i];
        if (f->kind != F_ALT || f->col != col || (best >= 0 && f->prio < r->fields[best].prio))
            continue;
        /* a cell that is no number is no value here (these columns were
         * ignored, and a file that read must still read): the reader's
         * error state is kept as it was */
        int failed = r->failed;
        struct wt_err first = r->first_err;
        double d;
        if (parse_value(r, f, &cells[i], &d, NULL) != WT_OK) {
            r->failed = failed;
            r->first_err = first;
            continue;
        }
        if (wt_measured(d)) {
            best = i;
            best_v = d;
        }
    }
    if (best < 0)
        return WT_OK; /* none has a value yet */
    *lock = best;
    s->v[col] = best_v;
    /* the semantics follow the field, unless the file's metadata says them */
    if (col == WT_COL_POWER && !wt_trace_meta_value(r, "power_semantics"))
        r->meta.power_semantics = r->fields[best].semantics;
    return WT_OK;
}

/* After alt_resolve: a row whose chosen power (limit) field is empty while
 * another of them has a value is warned of, once per file.  One field is
 * read for the whole file, so on a host of mixed GPUs (an A100 leaves
 * power.draw.instant [N/A] where an H100 gives it) the GPU without it had
 * its power read as not measured, and `record` wrote it so, without a word. */
static void alt_lost(struct wt_trace_reader *r, const struct cell *cells, const struct wt_sample *s,
                     int col, int primary, int lock)
{
    if (primary < 0 || lock < 0 || wt_measured(s->v[col]))
        return;
    for (int i = 0; i < r->ncols; i++) {
        const struct field *f = &r->fields[i];
        if (i == lock || !(i == primary || (f->kind == F_ALT && f->col == col)))
            continue;
        int failed = r->failed;
        struct wt_err first = r->first_err;
        double d;
        int rc = parse_value(r, f, &cells[i], &d, NULL);
        r->failed = failed;
        r->first_err = first;
        if (rc == WT_OK && wt_measured(d)) {
            char where[32] = "";
            if (s->gpu >= 0)
                snprintf(where, sizeof(where), " (GPU %d)", s->gpu);
            wt_trace_warn(r, col == WT_COL_POWER ? 'P' : 'L',
                          "column '%s' is empty on this row%s while '%s' has a value: one %s "
                          "field is read for the whole file (the first row with one chose it), "
                          "so such rows' %s is not measured",
                          r->fields[lock].name, where, f->name,
                          col == WT_COL_POWER ? "power" : "power limit",
                          col == WT_COL_POWER ? "power" : "power limit");
            return;
        }
    }
}

int wt_trace_power_pending(const struct wt_trace_reader *r)
{
    if (r->power_field < 0 || r->power_lock >= 0)
        return 0;
    for (int i = 0; i < r->ncols; i++)
        if (r->fields[i].kind == F_ALT && r->fields[i].col == WT_COL_POWER)
            return 1;
    return 0;
}

static int parse_row(struct wt_trace_reader *r, struct wt_sample *s, struct wt_err *err)
{
    struct cell cells[WT_TRACE_MAX_COLS];
    int bad;
    int n = split_cells(r->line, r->line_len, cells, WT_TRACE_MAX_COLS, &bad);
    if (n <= -2) {
        const char *what = n == -2 ? "unterminated quoted field" : "text after the closing quote";
        if (bad < r->ncols)
            return fail(r, err, WT_EINVAL, r->lineno, "column '%s': %s", r->fields[bad].name, what);
        return fail(r, err, WT_EINVAL, r->lineno, "cell %d (the header has %d columns): %s",
                    bad + 1, r->ncols, what);
    }
    if (n == -1)
        return fail(r, err, WT_EINVAL, r->lineno,
                    "more than %d cells, but the header has %d columns", WT_TRACE_MAX_COLS,
                    r->ncols);
    if (n != r->ncols)
        return fail(r, err, WT_EINVAL, r->lineno, "%d cell%s, but the header has %d columns%s", n,
                    n == 1 ? "" : "s", r->ncols,
                    r->unterminated && n < r->ncols
                        ? " (the last line, with no newline: a recording cut off mid-row? "
                          "Delete that line to read the rest)"
                        : "");
    if (r->unterminated)
        /* read, but said: a recorder killed mid-row leaves "300.5" as "3" */
        wt_trace_warn(r, 'N',
                      "the last line has no newline; read as a complete row (a recording cut "
                      "off mid-row would leave its last cell short)");
    wt_sample_clear(s, 0);
    s->label = r->meta.label;
    r->row_name[0] = '\0';
    int gpu_set = 0;
    char shown[40];
    for (int i = 0; i < n; i++) {
        const struct field *f = &r->fields[i];
        const struct cell *c = &cells[i];
        double d;
        switch (f->kind) {
        case F_IGNORE:
        case F_ALT: /* alt_resolve, after the row */
            break;
        case F_TIME:
            if (c->len == 0)
                return fail(r, err, WT_EINVAL, r->lineno, "column 't_s': empty (t_s is required)");
            int prc = wt_parse_double(c->p, c->len, &s->t_s);
            if (prc != 0) {
                printable(shown, sizeof(shown), c->p, c->len);
                return fail(r, err, WT_EINVAL, r->lineno, "column 't_s': %s: '%s'",
                            prc == -2 ? "a number out of range" : "not a number", shown);
            }
            /* Seconds: Unix time in seconds (1.7e9) passes, in ms, us or ns
             * since 1970 would be read 1000x too slow and lose sub-second
             * precision in a double. */
            if (fabs(s->t_s) > WT_TRACE_MAX_T_S) {
                printable(shown, sizeof(shown), c->p, c->len);
                return fail(r, err, WT_EINVAL, r->lineno,
                            "column 't_s': %s is more than %.0e seconds (over 300 years): t_s is "
                            "in seconds, not milliseconds or nanoseconds",
                            shown, WT_TRACE_MAX_T_S);
            }
            break;
        case F_GPU:
            if (r->meta.kind == WT_TRACE_NVSMI && (c->len == 0 || is_na(c->p, c->len)))
                return fail(r, err, WT_EINVAL, r->lineno, "column '%s': empty", f->name);
            /* native: an empty cell is GPU 0 in a file of one GPU (pandas
             * writes the rows of files without the column so); beside
             * another GPU's rows it cannot be told whose it is (it had
             * silently joined GPU 0) */
            if (c->len == 0) {
                if (r->other_gpu_line)
                    return fail(r, err, WT_EINVAL, r->lineno,
                                "column '%s': empty, but line %lu names GPU %d: an empty cell "
                                "is GPU 0 only in a file of one GPU",
                                f->name, r->other_gpu_line, r->other_gpu);
                if (!r->empty_gpu_line)
                    r->empty_gpu_line = r->lineno;
                break;
            }
            {
                uint64_t g;
                /* "1.0": pandas writes an integer column with empty cells as
                 * floats (as for clock_reasons); the digits before the point */
                size_t dl = c->len;
                const char *dot = memchr(c->p, '.', c->len);
                if (dot && dot > c->p) {
                    size_t k = (size_t)(dot - c->p) + 1;
                    while (k < c->len && c->p[k] == '0')
                        k++;
                    if (k == c->len)
                        dl = (size_t)(dot - c->p);
                }
                if (!all_digits(c->p, dl) || wt_parse_u64(c->p, dl, &g) != 0) {
                    printable(shown, sizeof(shown), c->p, c->len);
                    return fail(r, err, WT_EINVAL, r->lineno,
                                "column '%s': not a GPU index (0, 1, ...): '%s'", f->name, shown);
                }
                if (g >= WT_MAX_GPUS)
                    return fail(r, err, WT_EINVAL, r->lineno,
                                "column '%s': GPU index %llu is not below %d", f->name,
                                (unsigned long long)g, WT_MAX_GPUS);
                if (g && r->empty_gpu_line)
                    return fail(r, err, WT_EINVAL, r->lineno,
                                "column '%s': GPU %d, but line %lu has an empty cell: an empty "
                                "cell is GPU 0 only in a file of one GPU",
                                f->name, (int)g, r->empty_gpu_line);
                if (g && !r->other_gpu_line) {
                    r->other_gpu_line = r->lineno;
                    r->other_gpu = (int)g;
                }
                s->gpu = (int)g;
                gpu_set = 1;
            }
            break;
        case F_LABEL:
            if (c->len) {
                char lb[16];
                if (c->len >= sizeof(lb) ||
                    (memcpy(lb, c->p, c->len), lb[c->len] = '\0',
                     (s->label = wt_class_parse(lb, false)) == WT_CLASS_NONE)) {
                    printable(shown, sizeof(shown), c->p, c->len);
                    return fail(r, err, WT_EINVAL, r->lineno,
                                "column 'label': '%s' is not TRAINING, INFERENCE, IDLE or empty",
                                shown);
                }
            }
            break;
        case F_OWNERS: {
            char why[160];
            int orc = wt_owners_intern(r->owners, c->p, c->len, &s->owner, why, sizeof(why));
            if (orc == -2) {
                /* a valid cell past the table's limit (a long stream on
                 * `watch --trace -`, every GPU's rows interned, stopped the
                 * watched GPU): "not known", said once, as record does */
                if (!r->owners_full && !r->opts.quiet) {
                    char nm[sizeof(r->name)];
                    printable(nm, sizeof(nm), r->name, strlen(r->name));
                    fprintf(stderr,
                            "workloadtruth: warning: %s:%lu: column 'owners': %s: a new owner "
                            "set that does not fit reads as not known\n",
                            nm, r->lineno, why);
                }
                r->owners_full = 1;
            } else if (orc)
                return fail(r, err, !strcmp(why, "out of memory") ? WT_ENOMEM : WT_EINVAL,
                            r->lineno, "column 'owners': %s", why);
            break;
        }
        case F_COL: {
            int rc = parse_value(r, f, c, &d, err);
            if (rc)
                return rc;
            s->v[f->col] = d;
            break;
        }
        case F_STAMP: {
            if (c->len == 0 || is_na(c->p, c->len))
                return fail(r, err, WT_EINVAL, r->lineno, "column 'timestamp': empty");
            if (parse_stamp(c->p, c->len, &d) != 0) {
                printable(shown, sizeof(shown), c->p, c->len);
                return fail(r, err, WT_EINVAL, r->lineno,
                            "column 'timestamp': not a time (YYYY/MM/DD HH:MM:SS.mmm): '%s'",
                            shown);
            }
            /* bounded as a native t_s is (year 9999, or 1e300 plain
             * seconds, were taken: times past a double's whole seconds) */
            if (fabs(d) > WT_TRACE_MAX_T_S ||
                (r->have_stamp0 && fabs(d - r->stamp0) > WT_TRACE_MAX_T_S)) {
                printable(shown, sizeof(shown), c->p, c->len);
                return fail(r, err, WT_EINVAL, r->lineno,
                            "column 'timestamp': '%s' is out of range (more than %.0e seconds "
                            "from 1970 or from the first row)",
                            shown, WT_TRACE_MAX_T_S);
            }
            if (!r->have_stamp0) {
                r->stamp0 = d;
                r->have_stamp0 = 1;
            }
            s->t_s = d - r->stamp0;
            break;
        }
        case F_NAME:
            if (c->len && !is_na(c->p, c->len)) {
                size_t l = c->len > NAME_MAX_LEN ? NAME_MAX_LEN : c->len;
                memcpy(r->row_name, c->p, l);
                r->row_name[l] = '\0';
            }
            break;
        case F_IDENT: {
            if (r->has_index)
                break; /* the index says which GPU */
            int g = 0;
            /* "[N/A]" or nothing is no GPU's identity (it had become a GPU
             * of its own) */
            if (c->len == 0 || is_na(c->p, c->len))
                return fail(r, err, WT_EINVAL, r->lineno, "column '%s': empty", f->name);
            int rc = ident_index(r, c, &g, err);
            if (rc)
                return rc;
            s->gpu = g;
            gpu_set = 1;
            break;
        }
        }
    }
    if (r->meta.kind == WT_TRACE_NVSMI && !gpu_set)
        s->gpu = -1;
    int rc = alt_resolve(r, cells, s, WT_COL_POWER, r->power_field, &r->power_lock, err);
    if (rc == WT_OK)
        rc = alt_resolve(r, cells, s, WT_COL_POWER_LIMIT, r->limit_field, &r->limit_lock, err);
    if (rc == WT_OK) {
        alt_lost(r, cells, s, WT_COL_POWER, r->power_field, r->power_lock);
        alt_lost(r, cells, s, WT_COL_POWER_LIMIT, r->limit_field, r->limit_lock);
    }
    return rc;
}

/* After the header, a line starting with '#' is a misplaced metadata line or
 * comment when it has a key's shape (`# key: ...`) or, with a header of
 * several columns, no comma; otherwise it is a row whose first cell (an
 * unknown text column written unquoted) starts with '#'. */
static int meta_after_header(const struct wt_trace_reader *r)
{
    char *key, *val;
    size_t klen, vlen;
    return (r->ncols > 1 && !memchr(r->line, ',', r->line_len)) ||
           meta_shape(r, &key, &klen, &val, &vlen);
}

/* Reads the next non-blank data line and parses it. */
static int next_raw(struct wt_trace_reader *r, struct wt_sample *s, unsigned long *lineno,
                    struct wt_err *err)
{
    for (;;) {
        int rc = read_line(r, err);
        if (rc)
            return rc;
        if (is_blank(r->line, r->line_len))
            continue;
        if (r->line[0] == '#' && meta_after_header(r))
            return fail(r, err, WT_EINVAL, r->lineno,
                        "metadata line after the header (metadata must come first)");
        /* nvidia-smi -l restarted onto the same file (>>) writes its header
         * again: skipped (it was "column 'timestamp': not a time") */
        if (r->header && r->line_len == r->header_len && !memcmp(r->line, r->header, r->line_len))
            continue;
        rc = parse_row(r, s, err);
        if (rc)
            return rc;
        *lineno = r->lineno;
        return WT_OK;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Decides how many rows make one tick from the buffered timestamps: gaps
 * inside a tick are much shorter than gaps between ticks.  Each grouping G
 * (2 rows a tick and up) is tried: the gaps after every G-th row are the
 * between-tick ones, the others within a tick; G fits when the middle
 * between-tick gap is at least 4 times the middle within-tick gap and at
 * least 95% of the gaps fall on their side of the threshold between them (a
 * tick that was late by tens of milliseconds, as real nvidia-smi logs have,
 * no longer sends the whole file back to one GPU).  The best fit wins, the
 * smaller G on a tie; none: 1.  *thr gets half the middle between-tick
 * gap (0 for none), which tick_position takes for the end of a tick: a
 * stall inside a tick (tens of ms in real 10 Hz logs) is shorter. */
static unsigned detect_rows_per_tick(const struct pending *q, size_t n, double *thr_out)
{
    *thr_out = 0;
    if (n < 4)
        return 1;
    size_t ng = n - 1;
    double *g = malloc(ng * sizeof(double));
    double *bw = malloc(ng * sizeof(double));
    double *wi = malloc(ng * sizeof(double));
    unsigned result = 1;
    double best_frac = 0;
    if (!g || !bw || !wi)
        goto out;
    for (size_t i = 0; i < ng; i++) {
        double d = q[i + 1].s.t_s - q[i].s.t_s;
        g[i] = (d > 0 ? d : 0) + 0.0005;
    }
    for (size_t G = 2; G <= WT_MAX_GPUS && 2 * G <= n; G++) {
        size_t nb = 0, nw = 0;
        for (size_t i = 0; i < ng; i++) {
            if (i % G == G - 1)
                bw[nb++] = g[i];
            else
                wi[nw++] = g[i];
        }
        if (nb < 2 || nw < 1)
            continue;
        qsort(bw, nb, sizeof(double), cmp_double);
        qsort(wi, nw, sizeof(double), cmp_double);
        /* the lower middle of the between-tick gaps: of two, one long stall
         * must not pass for a tick (30 rows of one GPU, one stall: not 10) */
        double mb = bw[(nb - 1) / 2], mw = wi[nw / 2];
        if (mb < 4 * mw)
            continue;
        double thr = sqrt(mb * mw);
        size_t right = 0;
        for (size_t i = 0; i < ng; i++)
            right += (i % G == G - 1) ? g[i] > thr : g[i] <= thr;
        double frac = (double)right / (double)ng;
        /* the first fit needs 95% or more (19 of 20 gaps: the threshold
         * had been raised by its own tolerance, and exactly 95% read as one
         * GPU); a later G must do better (the smaller G on a tie) */
        if (result == 1 ? frac >= 0.95 - 1e-9 : frac > best_frac + 1e-9) {
            best_frac = frac;
            result = (unsigned)G;
            *thr_out = mb / 2;
        }
    }
out:
    free(g);
    free(bw);
    free(wi);
    return result;
}

/* Makes up to `want` rows wait in the queue after the one being read;
 * fewer at the end of the input or before a bad row, whose error is held
 * back (r->deferred) until the rows before it have been read.  Returns how
 * many wait. */
static size_t queue_ahead(struct wt_trace_reader *r, size_t want)
{
    if (r->qpos) {
        memmove(r->queue, r->queue + r->qpos, (r->qlen - r->qpos) * sizeof(*r->queue));
        r->qlen -= r->qpos;
        r->qpos = 0;
    }
    while (r->qlen < want && r->qlen < NVSMI_LOOKAHEAD && !r->failed && !r->deferred) {
        struct pending *p = &r->queue[r->qlen];
        struct wt_err ignored;
        int rc = next_raw(r, &p->s, &p->lineno, &ignored);
        if (rc == WT_DONE)
            break;
        if (rc != WT_OK) { /* fail() has kept the message in r->first_err */
            r->deferred = r->failed ? r->failed : rc;
            r->failed = 0;
            break;
        }
        memcpy(p->name, r->row_name, sizeof(p->name));
        r->qlen++;
    }
    return r->qlen;
}

/* Gaps after a row at t (the rows waiting in the queue) that disagree with
 * ticks of T rows in which that row has place p: a gap as long as one
 * between ticks where a tick goes on, or a short one where it should end. */
static size_t off_beat(const struct wt_trace_reader *r, double t, unsigned p, unsigned T)
{
    size_t off = 0;
    double prev = t;
    for (size_t j = r->qpos; j < r->qlen; j++) {
        int between = r->queue[j].s.t_s - prev > r->tick_gap;
        off += between != (p == T - 1);
        p = p + 1 == T ? 0 : p + 1;
        prev = r->queue[j].s.t_s;
    }
    return off;
}

/* The place in its tick of a row at t (nvidia-smi without an index, G rows a
 * tick detected from the timestamps): the next place, except after a gap
 * as long as one between ticks where the tick was not complete.  Either
 * rows are missing (a GPU that fell off the bus: the rows after them would
 * shift to the next GPU for good), or the tick stalled (a collector reading
 * GPUs one by one).  The rows that follow tell: the gaps of the next three
 * ticks are scored against the tick going on, against a tick of G rows
 * starting at this row (a row missing once) and one of G - 1 rows (a GPU
 * gone for good), and a new tick starts here only when one of the last two
 * fits better (a tie: it goes on, as it always did). */
static unsigned tick_position(struct wt_trace_reader *r, double t, unsigned G)
{
    if (r->ordinal == 0)
        return 0;
    unsigned next = r->tick_pos + 1 == G ? 0 : r->tick_pos + 1;
    if (next == 0 || !(t - r->prev_row_t > r->tick_gap))
        return next;
    queue_ahead(r, 3 * (size_t)G + 1);
    size_t keep = off_beat(r, t, next, G);
    size_t whole = off_beat(r, t, 0, G);
    size_t short_tick = off_beat(r, t, 0, G - 1);
    return (whole < short_tick ? whole : short_tick) < keep ? 0 : next;
}

static int fill_queue(struct wt_trace_reader *r, struct wt_err *err)
{
    if (r->opts.rows_per_tick || !r->has_stamp) { /* nothing to detect: no read-ahead */
        r->meta.rows_per_tick = r->opts.rows_per_tick ? r->opts.rows_per_tick : 1;
        r->grouped = 1;
        return WT_OK;
    }
    r->queue = malloc(NVSMI_LOOKAHEAD * sizeof(*r->queue));
    if (!r->queue)
        return fail(r, err, WT_ENOMEM, 0, "out of memory");
    r->qlen = r->qpos = 0;
    /* a bad row among these is held back (r->deferred) until the rows
     * before it have been read, as for the rows read ahead later: `record
     * --trace -` writes them, as it does with an index column */
    queue_ahead(r, NVSMI_LOOKAHEAD);
    r->meta.rows_per_tick = detect_rows_per_tick(r->queue, r->qlen, &r->tick_gap);
    r->grouped = 1;
    return WT_OK;
}

/* Appends "GPU=NAME" to the malloc'd list *list ("0=A; 1=B", the gpu_models
 * form), writing a ';' in the name as ',' as `record` does: it would cut the
 * entry.  Returns 0, or -1 when out of memory (*list unchanged). */
static int list_add(char **list, int gpu, const char *name)
{
    size_t old = *list ? strlen(*list) : 0;
    size_t cap = old + 16 + strlen(name);
    char *p = realloc(*list, cap);
    if (!p)
        return -1;
    char *d = p + old + snprintf(p + old, cap - old, "%s%d=", old ? "; " : "", gpu);
    for (const char *c = name; *c; c++)
        *d++ = *c == ';' ? ',' : *c;
    *d = '\0';
    *list = p;
    return 0;
}

/* Records the model nvidia-smi's `name` gives for a GPU, from the first of its
 * rows that has one.  The first name in the file is the gpu_model key, all a
 * host whose GPUs share one model needs.  Once a GPU names another model, the
 * GPUs are listed in a gpu_models key ("0=NVIDIA A100-SXM4-80GB; 1=Tesla T4",
 * as `record` writes for GPUs that differ), which the replay source reads
 * before gpu_model: else a T4 beside an A100 would be put on the A100's power
 * scale.  A model the file's metadata gives is not overridden by the rows. */
static int note_model(struct wt_trace_reader *r, int gpu, const char *name, struct wt_err *err)
{
    if (r->models_given || r->named[gpu])
        return WT_OK;
    r->named[gpu] = 1;
    const char *first = wt_trace_meta_value(r, "gpu_model");
    if (!first)
        return add_meta(r, "gpu_model", 9, name, strlen(name), err);
    if (r->list_given || (!r->list_at && !strcmp(first, name)))
        return WT_OK;
    if (r->list_at) { /* grows in place: the key was built here, no line changes it */
        if (list_add(&r->meta.kv[r->list_at - 1].value, gpu, name))
            return fail(r, err, WT_ENOMEM, r->lineno, "out of memory");
        return WT_OK;
    }
    /* the first GPU of another model: every GPU named so far has the first */
    char *list = NULL;
    for (int g = 0; g < WT_MAX_GPUS; g++)
        if (r->named[g] && list_add(&list, g, g == gpu ? name : first)) {
            free(list);
            return fail(r, err, WT_ENOMEM, r->lineno, "out of memory");
        }
    int rc = add_meta(r, "gpu_models", 10, list, strlen(list), err);
    free(list);
    if (rc)
        return rc;
    r->list_at = r->meta.n;
    return WT_OK;
}

int wt_trace_next(struct wt_trace_reader *r, struct wt_sample *s, struct wt_err *err)
{
    int rc;
    unsigned long lineno;
    const char *name = r->row_name;
    if (r->failed) {
        if (err)
            *err = r->first_err;
        return r->failed;
    }
    if (r->meta.kind == WT_TRACE_NVSMI && !r->has_index && !r->has_ident) {
        if (!r->grouped && (rc = fill_queue(r, err)) != WT_OK)
            return rc;
        if (r->qpos < r->qlen) {
            *s = r->queue[r->qpos].s;
            lineno = r->queue[r->qpos].lineno;
            name = r->queue[r->qpos].name;
            r->qpos++;
        } else if (r->deferred) { /* the rows before the bad one are out: its error */
            r->failed = r->deferred;
            r->deferred = 0;
            if (err)
                *err = r->first_err;
            return r->failed;
        } else if ((rc = next_raw(r, s, &lineno, err)) != WT_OK) {
            return rc;
        }
        unsigned g = r->meta.rows_per_tick;
        if (g > 1 && r->tick_gap > 0) {
            /* the peek below may overwrite the row's name where it lies */
            char own[NAME_MAX_LEN + 1];
            memcpy(own, name, sizeof(own));
            r->tick_pos = tick_position(r, s->t_s, g);
            r->prev_row_t = s->t_s;
            memcpy(r->row_name, own, sizeof(own));
            name = r->row_name;
            s->gpu = (int)r->tick_pos;
        } else {
            s->gpu = (int)(r->ordinal % g);
        }
        if (!r->has_stamp) {
            double dt = r->opts.interval_s > 0 ? r->opts.interval_s : 1.0;
            s->t_s = (double)(r->ordinal / g) * dt;
        }
        /* a GPU's rows naming two models are several GPUs' rows taken for
         * one (no index column, the rows per tick unknown: read as one GPU,
         * its class confidently wrong) */
        if (*name) {
            uint64_t h = wt_fnv1a(WT_FNV1A_INIT, name, strlen(name)) | 1; /* never 0 */
            uint64_t *first = &r->name_hash[s->gpu];
            if (!*first) {
                *first = h;
                r->name_line[s->gpu] = lineno;
            } else if (*first != h) {
                char shown[64];
                printable(shown, sizeof(shown), name, strlen(name));
                return fail(r, err, WT_EINVAL, lineno,
                            "column 'name': '%s', but GPU %d's earlier rows (from line %lu) "
                            "name another model: rows of %s GPUs without an index column, or "
                            "a name damaged on one of those lines (add 'index' to --query-gpu; "
                            "classify, record and eval also take --gpus-per-tick N, the GPUs "
                            "per poll)",
                            shown, s->gpu, r->name_line[s->gpu], g > 1 ? "more" : "several");
            }
        }
    } else {
        if ((rc = next_raw(r, s, &lineno, err)) != WT_OK)
            return rc;
        if (s->gpu < 0)
            s->gpu = 0;
        if (r->meta.kind == WT_TRACE_NVSMI && !r->has_stamp) {
            /* one row per GPU per tick: time advances when a GPU repeats */
            double dt = r->opts.interval_s > 0 ? r->opts.interval_s : 1.0;
            double prev = r->last_t[s->gpu];
            s->t_s = isnan(prev) ? 0 : prev + dt;
        }
    }
    r->ordinal++;
    r->row_lineno = lineno;
    double prev = r->last_t[s->gpu];
    if (!isnan(prev) && s->t_s < prev) {
        /* milliseconds, or as many digits as tell the two apart */
        int digits = 3;
        char a[40], b[40];
        do {
            snprintf(a, sizeof(a), "%.*f", digits, s->t_s);
            snprintf(b, sizeof(b), "%.*f", digits, prev);
        } while (!strcmp(a, b) && ++digits < 17);
        /* nvidia-smi's timestamp is the local wall clock: it goes back
         * when daylight saving ends or the clock is stepped.  Still an
         * error (the samples' order and spacing are unknown), but one that
         * says what to do. */
        return fail(r, err, WT_EINVAL, lineno,
                    "column '%s': %s%s is earlier than the previous sample of GPU %d (%s%s)%s",
                    r->meta.kind == WT_TRACE_NVSMI ? "timestamp" : "t_s", a,
                    r->meta.kind == WT_TRACE_NVSMI ? " s" : "", s->gpu, b,
                    r->meta.kind == WT_TRACE_NVSMI ? " s" : "",
                    r->meta.kind == WT_TRACE_NVSMI && r->has_stamp
                        ? ": nvidia-smi prints local time, so a clock set back does this (the "
                          "end of daylight saving: run it with TZ=UTC; an NTP step: have NTP "
                          "slew the clock)"
                        : "");
    }
    r->last_t[s->gpu] = s->t_s;
    if (*name) {
        r->deriving = 1;
        rc = note_model(r, s->gpu, name, err);
        r->deriving = 0;
        if (rc != WT_OK)
            return rc;
    }
    return WT_OK;
}

/* ---------------------------------------------------------------- open */

/* A per-GPU metadata list ("0=NVIDIA A100-SXM4-40GB; 1=NVIDIA H100 PCIe"):
 * each entry GPU=VALUE, the GPU below WT_MAX_GPUS and named once.  A second
 * entry for a GPU was ignored (the first won), as was an entry of another
 * shape: a key the reader acts on may repeat but never change its value. */
static int check_gpu_list(struct wt_trace_reader *r, const char *key, struct wt_err *err)
{
    const char *list = wt_trace_meta_value(r, key);
    if (!list)
        return WT_OK;
    unsigned char *seen = calloc(WT_MAX_GPUS, 1);
    if (!seen)
        return fail(r, err, WT_ENOMEM, meta_line(r, key), "out of memory");
    int rc = WT_OK;
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        if (!*p)
            break;
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t d = 0;
        while (d < len && isdigit((unsigned char)p[d]))
            d++;
        char shown[60];
        printable(shown, sizeof(shown), p, len);
        if (d == 0 || d >= len || p[d] != '=') {
            rc = fail(r, err, WT_EINVAL, meta_line(r, key),
                      "metadata '%s': entry '%s' is not GPU=VALUE (GPU an index)", key, shown);
            break;
        }
        unsigned long idx = d > 5 ? WT_MAX_GPUS : strtoul(p, NULL, 10);
        if (idx >= WT_MAX_GPUS) {
            rc = fail(r, err, WT_EINVAL, meta_line(r, key),
                      "metadata '%s': entry '%s': GPU index not below %d", key, shown, WT_MAX_GPUS);
            break;
        }
        if (seen[idx]++) {
            rc = fail(r, err, WT_EINVAL, meta_line(r, key),
                      "metadata '%s': GPU %lu is given twice (entry '%s')", key, idx, shown);
            break;
        }
        p += len;
    }
    free(seen);
    return rc;
}

int wt_trace_open_stream(FILE *f, int owns_f, const char *name, const struct wt_trace_opts *opts,
                         struct wt_trace_reader **out, struct wt_err *err)
{
    int rc;
    *out = NULL;
    struct wt_trace_reader *r = calloc(1, sizeof(*r));
    if (!r) {
        if (owns_f)
            fclose(f);
        return wt_errf(err, WT_ENOMEM, "%s: out of memory", name);
    }
    r->f = f;
    r->owns_f = owns_f;
    snprintf(r->name, sizeof(r->name), "%s", name);
    if (opts)
        r->opts = *opts;
    r->meta.label = WT_CLASS_NONE;
    r->meta.power_semantics = NULL;
    r->rbuf = malloc(RBUF_SIZE);
    r->line = malloc(LINE_ROOM + 1);
    r->last_t = malloc(WT_MAX_GPUS * sizeof(double));
    r->named = calloc(WT_MAX_GPUS, 1);
    r->name_hash = calloc(WT_MAX_GPUS, sizeof(uint64_t));
    r->name_line = calloc(WT_MAX_GPUS, sizeof(unsigned long));
    if (!r->rbuf || !r->line || !r->last_t || !r->named || !r->name_hash || !r->name_line) {
        rc = wt_errf(err, WT_ENOMEM, "%s: out of memory", name);
        goto fail;
    }
    for (int i = 0; i < WT_MAX_GPUS; i++)
        r->last_t[i] = NAN;

    for (;;) {
        rc = read_line(r, err);
        if (rc == WT_DONE) {
            /* an empty file (or comments alone) is no trace: a directory
             * walk skips it, as a CSV that is not one ("nvidia-smi > run.csv"
             * killed at once stopped a whole eval or train), unless its
             * metadata says it is a trace */
            int declared = wt_trace_meta_value(r, "format") != NULL;
            rc = fail(r, err, r->stopped || declared ? WT_EINVAL : WT_EFORMAT, 0,
                      r->stopped ? "stopped before a header line arrived"
                                 : "empty trace: no header line");
            goto fail;
        }
        if (rc)
            goto fail;
        if (is_blank(r->line, r->line_len))
            continue;
        if (r->line[0] == '#') {
            if ((rc = parse_meta_line(r, err)) != WT_OK)
                goto fail;
            continue;
        }
        break;
    }
    if ((rc = parse_header(r, err)) != WT_OK)
        goto fail;
    if (r->meta.kind == WT_TRACE_NVSMI) {
        if (!(r->header = malloc(r->line_len + 1))) {
            rc = fail(r, err, WT_ENOMEM, r->lineno, "out of memory");
            goto fail;
        }
        memcpy(r->header, r->line, r->line_len);
        r->header_len = r->line_len;
    }
    r->models_given = wt_trace_meta_value(r, "gpu_model") != NULL;
    r->list_given = wt_trace_meta_value(r, "gpu_models") != NULL;
    const char *fmt = wt_trace_meta_value(r, "format");
    if (fmt && strcmp(fmt, "workloadtruth-trace/1") != 0) {
        /* a later version may change what columns mean: not read as this one */
        char shown[60];
        printable(shown, sizeof(shown), fmt, strlen(fmt));
        rc = fail(r, err, WT_EINVAL, meta_line(r, "format"),
                  "metadata 'format': '%s' is not supported (this version reads "
                  "workloadtruth-trace/1)",
                  shown);
        goto fail;
    }
    const char *lab = wt_trace_meta_value(r, "label");
    if (lab && *lab) {
        r->meta.label = wt_class_parse(lab, false);
        if (r->meta.label == WT_CLASS_NONE) {
            char shown[40];
            printable(shown, sizeof(shown), lab, strlen(lab));
            rc = fail(r, err, WT_EINVAL, meta_line(r, "label"),
                      "metadata 'label': '%s' is not TRAINING, INFERENCE or IDLE", shown);
            goto fail;
        }
    }
    const char *ps = wt_trace_meta_value(r, "power_semantics");
    if (ps && *ps) {
        /* one of three words, in any case; any other text says nothing the
         * features can use, so it is read as unknown (the data stay usable) */
        r->meta.power_semantics = !strcasecmp(ps, "instant") ? "instant"
                                  : !strcasecmp(ps, "avg1s") ? "avg1s"
                                                             : "unknown";
    }
    if (!r->meta.power_semantics)
        r->meta.power_semantics = "unknown";
    if ((rc = check_gpu_list(r, "gpu_models", err)) != WT_OK ||
        (rc = check_gpu_list(r, "power_semantics_per_gpu", err)) != WT_OK)
        goto fail;
    r->meta.rows_per_tick = 1;
    *out = r;
    return WT_OK;
fail:
    wt_trace_close(r);
    return rc;
}

int wt_trace_is_stream(const char *path)
{
    struct stat st;
    if (!strcmp(path, "-"))
        return 1;
    return stat(path, &st) == 0 &&
           (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode));
}

int wt_trace_open(const char *path, const struct wt_trace_opts *opts, struct wt_trace_reader **out,
                  struct wt_err *err)
{
    *out = NULL;
    if (!strcmp(path, "-"))
        return wt_trace_open_stream(stdin, 0, "<stdin>", opts, out, err);
    const char *why = NULL;
    FILE *f = opts && opts->regular_only ? wt_fopen_regular(path, &why) : fopen(path, "rb");
    if (!f)
        return wt_errf(err, WT_EIO, "cannot open '%s': %s", path, why ? why : strerror(errno));
    /* a directory opens, and its first read failed as "DIR:1: read error"
     * (a line 1 it does not have) */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return wt_errf(err, WT_EIO,
                       "cannot open '%s': is a directory (a trace is one file; `eval --traces "
                       "DIR` reads the traces of a directory)",
                       path);
    }
    return wt_trace_open_stream(f, 1, path, opts, out, err);
}

const struct wt_trace_meta *wt_trace_meta(const struct wt_trace_reader *r)
{
    return &r->meta;
}

const char *wt_trace_meta_value(const struct wt_trace_reader *r, const char *key)
{
    for (size_t i = 0; i < r->meta.n; i++)
        if (!strcmp(r->meta.kv[i].key, key))
            return r->meta.kv[i].value;
    return NULL;
}

const char *wt_trace_name(const struct wt_trace_reader *r)
{
    return r->name;
}

unsigned long wt_trace_lineno(const struct wt_trace_reader *r)
{
    return r->row_lineno;
}

int wt_trace_stopped(const struct wt_trace_reader *r)
{
    return r->stopped;
}

void wt_trace_close(struct wt_trace_reader *r)
{
    if (!r)
        return;
    if (r->owns_f && r->f)
        fclose(r->f);
    for (size_t i = 0; i < r->meta.n; i++) {
        free(r->meta.kv[i].key);
        free(r->meta.kv[i].value);
    }
    free(r->meta.kv);
    for (int i = 0; i < r->nidents; i++)
        free(r->idents[i]);
    free(r->queue);
    free(r->rbuf);
    free(r->line);
    free(r->last_t);
    free(r->named);
    free(r->name_hash);
    free(r->name_line);
    free(r->header);
    wt_owners_free(r->owners);
    free(r);
}

const struct wt_owners *wt_trace_owners(const struct wt_trace_reader *r)
{
    return r->owners;
}
