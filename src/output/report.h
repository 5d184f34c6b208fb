/* The audit log as a self-contained HTML page, for people rather than
 * parsers: the log's verification status at the top, then per GPU a summary
 * table, a timeline of the classes (coloured bands) and of the confidence
 * (a line), the declared-vs-observed mismatches and the tamper indicators,
 * each marked on the timeline and listed with their times and lines.
 *
 * The page has inline CSS and inline SVG only: no script, no image, font or
 * style sheet fetched from anywhere, no URL at all (a Content-Security-Policy
 * meta tag forbids them too), so it can be mailed or archived as one file.
 * Everything taken from the log (GPU names, reasons, tamper indicators,
 * declarations) is treated as untrusted text: HTML-escaped, with control and
 * bidirectional-override characters replaced.
 *
 * It verifies the log with the verifier (audit/verify.h), which hands it the
 * records of the prefix it accepted as it reads them (one read, one parse);
 * when damage found later takes back records it already used, it reads that
 * prefix again, hashing it to be sure it read the same bytes.  When the log
 * is damaged it shows the records before the first bad line and says where
 * and how the log is damaged.  Memory is bounded:
 * the timeline keeps the last max_windows windows of each GPU (counts in the
 * summary cover all of them), lists keep their latest entries, and a
 * timeline has at most one column per pixel (consecutive windows are merged
 * into a column that shows their class shares, mean and range of
 * confidence).
 *
 * It is not a verifier of its own (verify-log is), does not classify, and
 * changes nothing.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_OUTPUT_REPORT_H
#define WT_OUTPUT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "audit/note.h"
#include "audit/verify.h"
#include "util/err.h"

#define WT_REPORT_DEFAULT_WINDOWS 10000 /* per GPU, on the timeline */
#define WT_REPORT_MAX_GPUS 256          /* GPUs shown; more are counted, not shown */
#define WT_REPORT_MAX_LISTED 100        /* latest mismatches / tamper windows listed per GPU */

struct wt_report_opts {
    const char *title;               /* NULL: "WorkloadTruth audit report" */
    const char *log_label;           /* the log's name on the page (NULL: its path) */
    const struct wt_note_vkey *vkey; /* pin the log's key (NULL: trust the genesis key) */
    const char *side_path;           /* the checkpoint side file (NULL: none) */
    size_t max_windows;              /* per GPU on the timeline (0: WT_REPORT_DEFAULT_WINDOWS) */
    int64_t now_ms;                  /* "generated at" (0: not shown) */
    int64_t stale_ms; /* warn when the last signed line is older than this at now_ms (0: never) */
    int reread;       /* tests: the page from a second read of the log (what a damaged log
                       * taking back signed records gets), not from the verifier's one */
    size_t feed_max;  /* tests: records held back before the verifier's end (0: 4096) */
};

/* What the page says, for the caller's one-line summary. */
struct wt_report_info {
    int status;            /* WT_VERIFY_OK, _WARN or _DAMAGED */
    enum wt_damage damage; /* the verifier's (WT_DMG_TORN_TAIL is a warning) */
    uint64_t line;         /* first bad line, 0 when none */
    uint64_t entries;      /* records the verifier accepted */
    uint64_t shown;        /* records the page is drawn from (those before a bad line) */
    size_t gpus;           /* GPUs with class records, at most WT_REPORT_MAX_GPUS */
    int more_gpus;         /* and more GPUs than that, counted in the totals below */
    uint64_t windows;      /* class records */
    uint64_t mismatches;   /* class records whose verdict is MISMATCH */
    uint64_t tampered;     /* class records with tamper indicators */
    char message[1024];    /* the verifier's message */
};

/* Verifies the log at log_path and writes the page to out.  Returns WT_OK
 * when the page was written (whatever the log's state, which info and the
 * page report), WT_EIO when the log cannot be read or changed while it was
 * read, or out fails, WT_ENOMEM.  info may be NULL. */
int wt_report_write(FILE *out, const char *log_path, const struct wt_report_opts *o,
                    struct wt_report_info *info, struct wt_err *err) WT_WARN_UNUSED;

/* The same into a malloc'd, NUL-terminated buffer. */
int wt_report_html(const char *log_path, const struct wt_report_opts *o, char **html, size_t *len,
                   struct wt_report_info *info, struct wt_err *err) WT_WARN_UNUSED;

/* Writes s as HTML text (also fit for attribute values): & < > " ' become
 * entities, C0/C1 controls (but tab and newline), DEL, bidirectional
 * overrides and invalid UTF-8 become U+FFFD; at most max bytes of s are read
 * (a cut is marked with an ellipsis).  Returns 0, or -1 on a write error. */
int wt_html_escape(FILE *out, const char *s, size_t max);

#endif
