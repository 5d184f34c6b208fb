/* Trace writer (see trace_writer.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "telemetry/trace_writer.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "telemetry/owners.h"
#include "telemetry/trace_reader.h"
#include "util/text.h"

#define PENDING_MAX (1 << 20)

struct wt_trace_writer {
    FILE *f;
    int owns;
    char *created; /* the resolved path of a file this writer made (NULL: none) */
    dev_t created_dev;
    ino_t created_ino;
    char name[256];
    char *buf;
    size_t len, cap;
    unsigned long rows;
    int header_done; /* the header is in the file: a later flush holds whole rows only */
    const struct wt_owners *owners; /* NULL: no owners column */
    /* each GPU's last row: its time, and that time as written */
    double last_t[WT_MAX_GPUS], last_written[WT_MAX_GPUS];
    char last_text[WT_MAX_GPUS][32];
    unsigned char have_t[WT_MAX_GPUS];
};

static int put(struct wt_trace_writer *w, const char *s, size_t n, struct wt_err *err)
{
    if (w->len + n + 1 > w->cap) {
        size_t ncap = w->cap ? w->cap * 2 : 65536;
        while (ncap < w->len + n + 1)
            ncap *= 2;
        char *nb = realloc(w->buf, ncap);
        if (!nb)
            return wt_errf(err, WT_ENOMEM, "out of memory");
        w->buf = nb;
        w->cap = ncap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    return WT_OK;
}

/* All of p to fd, again after a signal (EINTR): a signal that stops the
 * recording (SIGINT, SIGTERM, record's own --duration alarm, none of them
 * installed with SA_RESTART) while a write(2) waits on a full pipe must not
 * end the recording with an error, nor leave the part of a row already
 * written to it as its last line.  0, or -1 with errno set; *done: the bytes
 * written either way. */
static int write_all(int fd, const char *p, size_t n, size_t *done)
{
    *done = 0;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                /* a non-blocking descriptor (a pipe whose other end set
                 * O_NONBLOCK: it is shared): wait until it takes more, as a
                 * blocking write would (it failed, half a row sent) */
                struct pollfd pf = {.fd = fd, .events = POLLOUT};
                if (poll(&pf, 1, -1) >= 0 || errno == EINTR)
                    continue;
            }
            return -1;
        }
        if (k == 0) {
            errno = ENOSPC;
            return -1;
        }
        p += k;
        n -= (size_t)k;
        *done += (size_t)k;
    }
    return 0;
}

int wt_trace_writer_flush(struct wt_trace_writer *w, struct wt_err *err)
{
    if (!w->len)
        return fflush(w->f) == 0
                   ? WT_OK
                   : wt_errf(err, WT_EIO,
                             w->owns ? "cannot write '%s': %s" : "cannot write to %s: %s", w->name,
                             strerror(errno));
    /* everything pending in one write; a short write (full disk) is cut back
     * to the last complete row, so the file stays a valid trace */
    int fd = fileno(w->f);
    int ferr = fflush(w->f) != 0;
    /* standard output redirected to a plain file (`--out - >run.csv`) is
     * cut back too; not one opened for appending, which others may share */
    struct stat st;
    int cut_back =
        w->owns || (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !(fcntl(fd, F_GETFL) & O_APPEND));
    off_t before = cut_back && !ferr ? lseek(fd, 0, SEEK_CUR) : -1;
    size_t done = 0;
    ferr = ferr || write_all(fd, w->buf, w->len, &done) != 0;
    int saved = errno;
    if (ferr) {
        /* the rows that reached the file are kept, up to the end of the
         * last whole one (a 1 MiB write on a full disk had lost them all);
         * the header goes whole or not at all (the first flush) */
        size_t keep = 0;
        if (w->header_done)
            for (size_t i = done; i > 0; i--)
                if (w->buf[i - 1] == '\n') {
                    keep = i;
                    break;
                }
        w->len = 0;
        if (before >= 0 && ftruncate(fd, before + (off_t)keep) == 0)
            lseek(fd, before + (off_t)keep, SEEK_SET);
        return wt_errf(err, WT_EIO, w->owns ? "cannot write '%s': %s" : "cannot write to %s: %s",
                       w->name, strerror(saved));
    }
    w->len = 0;
    w->header_done = 1;
    return WT_OK;
}

/* One metadata line, "# key: value\n", every control character in the
 * value (a newline, a tab, an escape) becoming a space: text a user gave
 * (record --workload, --evasion-note) cannot end the line or reach a
 * terminal that later shows the header.  A byte that is not valid UTF-8
 * becomes '?': the reader keeps metadata whole only up to its first
 * invalid byte (a note of one 0xFF byte came back empty, "cut"). */
static int put_meta(struct wt_trace_writer *w, const char *key, const char *value,
                    struct wt_err *err)
{
    if (!value)
        value = "";
    size_t at = w->len;
    int rc = put(w, "# ", 2, err);
    if (rc == WT_OK)
        rc = put(w, key, strlen(key), err);
    if (rc == WT_OK)
        rc = put(w, ": ", 2, err);
    if (rc == WT_OK) {
        size_t from = w->len;
        rc = put(w, value, strlen(value), err);
        for (size_t i = from; rc == WT_OK && i < w->len;) {
            uint32_t cp;
            size_t k = wt_utf8_next((const unsigned char *)w->buf + i, w->len - i, &cp);
            if (k == 0) {
                w->buf[i++] = '?';
                continue;
            }
            if ((unsigned char)w->buf[i] < 0x20 || w->buf[i] == 0x7f)
                w->buf[i] = ' ';
            else if (cp >= 0x80 && cp <= 0x9f) /* C1: two bytes, both */
                w->buf[i] = w->buf[i + 1] = ' ';
            i += k;
        }
    }
    if (rc == WT_OK)
        rc = put(w, "\n", 1, err);
    if (rc)
        w->len = at;
    return rc;
}

int wt_trace_writer_open(const char *path, const char *const *keys, const char *const *values,
                         size_t n, const struct wt_owners *owners, struct wt_trace_writer **out,
                         struct wt_err *err)
{
    *out = NULL;
    struct wt_trace_writer *w = calloc(1, sizeof(*w));
    if (!w)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    /* a path too long for the messages keeps its end, which names the file
     * (its first 255 bytes named a directory above it) */
    const char *shown = strcmp(path, "-") ? path : "standard output";
    size_t sl = strlen(shown);
    if (sl < sizeof(w->name))
        snprintf(w->name, sizeof(w->name), "%s", shown);
    else
        snprintf(w->name, sizeof(w->name), "...%s", shown + sl - (sizeof(w->name) - 4));
    w->owners = owners;
    /* a line the reader could not read back whole is an error, never cut;
     * checked before the file is created or emptied */
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(keys[i]) + (values[i] ? strlen(values[i]) : 0) + 4; /* "# ", ": " */
        if (len > WT_TRACE_MAX_LINE) {
            int rc = wt_errf(err, WT_EINVAL,
                             "%s: metadata '%s' is %zu bytes, more than a trace line holds (%d)",
                             w->name, keys[i], len, WT_TRACE_MAX_LINE);
            free(w);
            return rc;
        }
    }
    if (!strcmp(path, "-")) {
        w->f = stdout;
    } else {
        /* made here (exclusively) or emptied: one made here whose header
         * never reached it is removed at close ("no file is made" when
         * nothing was recorded; a full disk had left an empty file, which
         * is no trace), one that was there stays, with its owner and mode */
        struct stat st;
        int existed = stat(path, &st) == 0; /* through a link: its target */
        w->f = fopen(path, existed ? "w" : "wx");
        if (!w->f && errno == EEXIST) /* a dangling link ("wx" refuses any link) */
            w->f = fopen(path, "w");
        if (w->f && !existed && fstat(fileno(w->f), &st) == 0) {
            w->created = realpath(path, NULL); /* the file, not a link to it */
            w->created_dev = st.st_dev;
            w->created_ino = st.st_ino;
        }
        w->owns = 1;
        if (!w->f) {
            int rc = wt_errf(err, WT_EIO, "cannot create '%s': %s", path, strerror(errno));
            free(w);
            return rc;
        }
        /* unbuffered: each flush is then one write(2) of whole rows, so a
         * process killed between flushes leaves no torn last row */
        setvbuf(w->f, NULL, _IONBF, 0);
    }
    char line[1200];
    int rc = put_meta(w, "format", "workloadtruth-trace/1", err);
    for (size_t i = 0; i < n && rc == WT_OK; i++)
        rc = put_meta(w, keys[i], values[i], err);
    if (rc == WT_OK) {
        snprintf(line, sizeof(line), "t_s,gpu");
        for (int c = 0; c < WT_NCOLS; c++) {
            strncat(line, ",", sizeof(line) - strlen(line) - 1);
            strncat(line, wt_col_name(c), sizeof(line) - strlen(line) - 1);
        }
        strncat(line, owners ? ",label,owners\n" : ",label\n", sizeof(line) - strlen(line) - 1);
        rc = put(w, line, strlen(line), err);
    }
    if (rc == WT_OK)
        rc = wt_trace_writer_flush(w, err);
    if (rc) {
        wt_trace_writer_close(w, NULL);
        return rc;
    }
    *out = w;
    return WT_OK;
}

/* x with 10 significant digits as a plain decimal (the spec's rule 5: no
 * exponent), trailing zeros dropped.  Magnitudes below 1e-20, a rounding
 * residue in any column, are written as 0; from 1e19 on, beyond every
 * column's range (wt_col_range), %g's exponent is kept, so a row never
 * outgrows its buffer.  Returns the length written. */
static int plain(char *out, size_t cap, double x)
{
    double a = fabs(x);
    if (a < 1e-20)
        return snprintf(out, cap, "0");
    if (a >= 1e19)
        return snprintf(out, cap, "%.10g", x);
    if (a < 1e-10 || a >= 1e16) {
        /* the digits of %.9e, placed by its exponent: "-1.234567890e+17"
         * becomes -123456789000000000, "1.2345e-11" 0.000000000012345 */
        char e[40];
        snprintf(e, sizeof(e), "%.9e", x);
        const char *p = e;
        char digits[11];
        int nd = 0, exp10;
        size_t n = 0;
        if (*p == '-')
            out[n++] = *p++;
        for (; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9' && nd < 10)
                digits[nd++] = *p;
        exp10 = atoi(p + 1);
        if (exp10 >= 0) { /* 16..18: a whole number */
            for (int i = 0; i <= exp10 && n + 1 < cap; i++)
                out[n++] = i < nd ? digits[i] : '0';
        } else { /* -20..-11 */
            while (nd > 1 && digits[nd - 1] == '0')
                nd--;
            if (n + 2 < cap) {
                out[n++] = '0';
                out[n++] = '.';
            }
            for (int i = 0; i < -exp10 - 1 && n + 1 < cap; i++)
                out[n++] = '0';
            for (int i = 0; i < nd && n + 1 < cap; i++)
                out[n++] = digits[i];
        }
        out[n] = '\0';
        return (int)n;
    }
    int mag = (int)floor(log10(a)); /* 1e-6 -> -6, 123.4 -> 2 */
    int prec = 9 - mag;
    if (prec < 0)
        prec = 0;
    int n = snprintf(out, cap, "%.*f", prec, x);
    if (n <= 0 || (size_t)n >= cap)
        return n;
    if (strchr(out, '.')) {
        while (n > 0 && out[n - 1] == '0')
            n--;
        if (n > 0 && out[n - 1] == '.')
            n--;
        out[n] = '\0';
    }
    return n;
}

/* t_s as written: milliseconds, or microseconds when the time has them (a
 * trace sampled faster than 1 kHz would otherwise repeat its times), or
 * more digits where a GPU's row would otherwise get the time written for
 * its previous row, or an earlier one, although its time is later: the
 * reader merges such rows (a sample was lost on the way through `record`). */
static int format_time(struct wt_trace_writer *w, const struct wt_sample *s, char *line, size_t cap)
{
    const int g = s->gpu >= 0 && s->gpu < WT_MAX_GPUS ? s->gpu : -1;
    int off = 0;
    double back = s->t_s;
    /* the time of the GPU's row before: written the same (at 6 decimals it
     * could fall before it, where that one needed more) */
    if (g >= 0 && w->have_t[g] && s->t_s == w->last_t[g])
        return snprintf(line, cap, "%s", w->last_text[g]);
    for (int i = 0; i < 3; i++) {
        /* decimals: 6, 9, then every significant digit a double has (17),
         * as plain decimals: %.17g wrote 1e-10, an exponent the format's
         * readers need not take (at most 29 decimals, the text kept for the
         * next row holding 31 characters) */
        int dec = i == 0 ? 6 : 9;
        if (i == 2 && s->t_s != 0 && isfinite(s->t_s)) {
            int e = (int)floor(log10(fabs(s->t_s)));
            dec = 16 - e < 9 ? 9 : 16 - e > 29 ? 29 : 16 - e;
        }
        off = snprintf(line, cap, "%.*f", dec, s->t_s);
        if (off < 0 || (size_t)off >= cap)
            off = 0;
        while (off > 0 && line[off - 1] == '0' && off >= 4 && line[off - 4] != '.')
            off--;
        line[off] = '\0';
        back = strtod(line, NULL);
        /* the written times in the order of the times (one written as its
         * predecessor, or before it, would be merged with it or refused) */
        if (g < 0 || !w->have_t[g] || s->t_s == w->last_t[g] ||
            (s->t_s > w->last_t[g]) == (back > w->last_written[g]))
            break;
    }
    /* no digits put it after its predecessor, written rounded up past it
     * (0.3 us apart): the predecessor's time again, never an earlier one
     * (the reader refuses a time that goes back; the same time, it merges
     * or keeps apart as it did before) */
    if (g >= 0 && w->have_t[g] && s->t_s > w->last_t[g] && back < w->last_written[g]) {
        off = snprintf(line, cap, "%s", w->last_text[g]);
        back = w->last_written[g];
    }
    if (g >= 0) {
        w->have_t[g] = 1;
        w->last_t[g] = s->t_s;
        w->last_written[g] = back;
        snprintf(w->last_text[g], sizeof(w->last_text[g]), "%.31s", line);
    }
    return off;
}

int wt_trace_writer_row(struct wt_trace_writer *w, const struct wt_sample *s, struct wt_err *err)
{
    char line[1024];
    int off = format_time(w, s, line, sizeof(line));
    off += snprintf(line + off, sizeof(line) - (size_t)off, ",%d", s->gpu);
    for (int c = 0; c < WT_NCOLS && off < (int)sizeof(line) - 40; c++) {
        double x = s->v[c];
        if (!wt_measured(x))
            off += snprintf(line + off, sizeof(line) - (size_t)off, ",");
        else if (c == WT_COL_CLOCK_REASONS)
            off +=
                snprintf(line + off, sizeof(line) - (size_t)off, ",0x%llx", (unsigned long long)x);
        else if (c == WT_COL_ENERGY && fabs(x) < 1e19)
            /* a counter since the driver loaded: 1e10 J on a long-running host,
             * read in mJ; ten digits would make its differences 0.  From
             * 1e15 J on (the counter may start anywhere), the whole joules,
             * which are all a double holds there; "-0.000" written as 0 */
            off += snprintf(line + off, sizeof(line) - (size_t)off,
                            fabs(x) < 1e15 ? ",%.3f" : ",%.0f", fabs(x) < 0.0005 ? 0.0 : x);
        else {
            line[off++] = ',';
            off += plain(line + off, sizeof(line) - (size_t)off, x);
        }
    }
    off += snprintf(line + off, sizeof(line) - (size_t)off, ",%s", wt_class_name(s->label));
    size_t at = w->len; /* a row is put whole or not at all */
    int rc = put(w, line, (size_t)off, err);
    if (rc == WT_OK && w->owners) {
        const char *o = wt_owners_text(w->owners, s->owner);
        rc = put(w, ",", 1, err);
        if (rc == WT_OK)
            rc = put(w, o, strlen(o), err);
    }
    if (rc == WT_OK)
        rc = put(w, "\n", 1, err);
    if (rc) {
        w->len = at;
        return rc;
    }
    w->rows++;
    if (w->len >= PENDING_MAX)
        return wt_trace_writer_flush(w, err);
    return WT_OK;
}

int wt_trace_writer_close(struct wt_trace_writer *w, struct wt_err *err)
{
    if (!w)
        return WT_OK;
    int rc = wt_trace_writer_flush(w, err);
    if (w->owns && fclose(w->f) != 0 && rc == WT_OK)
        rc = wt_errf(err, WT_EIO, w->owns ? "cannot write '%s': %s" : "cannot write to %s: %s",
                     w->name, strerror(errno));
    struct stat st;
    if (w->created && !w->header_done && stat(w->created, &st) == 0 &&
        st.st_dev == w->created_dev && st.st_ino == w->created_ino)
        (void)unlink(w->created);
    free(w->created);
    free(w->buf);
    free(w);
    return rc;
}
