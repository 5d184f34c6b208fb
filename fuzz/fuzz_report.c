/* libFuzzer target for the HTML report (src/output/report.c) over signed logs:
 * the input's lines become records appended with the log writer
 * (audit/log.h) and a fixed key, so the report draws them, then the page is
 * rendered and checked.  The renderer is where text an attacker controls
 * (GPU names, reasons, declarations, job ids: anything a workload or its
 * owner can get into a record) meets HTML.
 *
 * Input: the first byte picks options (bit 0: a small timeline, so windows
 * merge into columns; bit 1: "generated at" and --stale-after; bit 2: the
 * side file is not given to the renderer; bit 3: the key is pinned).  Then lines:
 *   {...}     a JSON object: a class record's fields (a heartbeat's when the
 *             writer refuses it as a class record; skipped when refused too)
 *   #N        the clock jumps to N ms (it also steps 1 s per record; back
 *             jumps are allowed)
 *   S         seal: a checkpoint record and a signed side file
 *   !bytes    after the last seal, these raw bytes (and a newline) are
 *             appended to the log file itself: damage, or lines without a
 *             signature
 * Every log is sealed at the end, before the raw lines.
 *
 * The page must be written (WT_OK), hold no NUL, be valid UTF-8, and every
 * '<' in it must open or close one of the tags the renderer itself writes
 * (an escaped string can start none); and it must be the page a second read
 * of the log draws (wt_report_opts.reread: the one-read path, which holds
 * records back until the verifier's end says which are shown, against the
 * two-read one), also with only 2 records held back (feed_max).  Any crash, leak, sanitizer report
 * or broken property is a bug.  Logs live in a temporary directory under /dev/shm when it exists
 * (fdatasync there costs nothing).
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_report -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/log.h"
#include "audit/note.h"
#include "output/report.h"
#include "fuzz_logdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ORIGIN "fuzz.example.invalid/report"
#define MAX_RECORDS 64

static struct wt_log_paths paths;
static struct wt_note_key key;

static int64_t now_ms;

static int64_t fuzz_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

/* The tags report.c writes (and nothing else may appear after a '<'). */
static const char *const tags[] = {
    "!DOCTYPE", "a",    "b",     "body", "br",   "circle", "dd",       "div",   "dl",      "dt",
    "footer",   "g",    "h1",    "h2",   "h3",   "head",   "header",   "html",  "i",       "li",
    "line",     "main", "meta",  "ol",   "p",    "path",   "polyline", "rect",  "section", "span",
    "style",    "svg",  "table", "td",   "text", "th",     "time",     "title", "tr",      "ul",
};

static int tag_ok(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '/')
        i++;
    size_t j = i;
    while (j < n && (s[j] == '!' || (s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z') ||
                     (s[j] >= '0' && s[j] <= '9')))
        j++;
    if (j == i || j == n || (s[j] != ' ' && s[j] != '>' && s[j] != '/' && s[j] != '\n'))
        return 0;
    for (size_t t = 0; t < sizeof(tags) / sizeof(tags[0]); t++)
        if (strlen(tags[t]) == j - i && memcmp(tags[t], s + i, j - i) == 0)
            return 1;
    return 0;
}

static int utf8_ok(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c < 0x80             ? 1
                   : (c & 0xe0) == 0xc0 ? 2
                   : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 ? 4
                                        : 0;
        if (!k || i + k > n || (k == 2 && c < 0xc2) || (k == 4 && c > 0xf4))
            return 0;
        for (size_t m = 1; m < k; m++)
            if ((s[i + m] & 0xc0) != 0x80)
                return 0;
        i += k;
    }
    return 1;
}

static void check_page(const char *html, size_t len)
{
    if (strlen(html) != len || !utf8_ok((const unsigned char *)html, len))
        abort();
    for (size_t i = 0; i < len; i++)
        if (html[i] == '<' && !tag_ok(html + i + 1, len - i - 1)) {
            fprintf(stderr, "fuzz_report: '<' at byte %zu does not open a known tag: %.40s\n", i,
                    html + i);
            abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wt_err err;
    if (!fuzz_dir[0]) {
        fuzz_dir_make("report");
        uint8_t seed[32] = {7};
        if (wt_note_key_from_seed(&key, ORIGIN, WT_KEY_ED25519, seed, &err) != WT_OK ||
            wt_log_paths_dir(&paths, fuzz_dir, &err) != WT_OK)
            abort();
    }
    if (size == 0)
        return 0;
    unsigned flags = data[0];
    const char *in = (const char *)data + 1, *end = (const char *)data + size;
    fuzz_dir_clean();
    now_ms = 1700000000000;
    struct wt_log_opts lo = {.clock_ms = fuzz_clock};
    char vkey[512];
    if (wt_log_init(&paths, ORIGIN, &key, &lo, vkey, sizeof(vkey), &err) != WT_OK)
        abort();
    struct wt_log *l = NULL;
    struct wt_log_recovery rec;
    if (wt_log_open(&l, &paths, &lo, &rec, &err) != WT_OK)
        abort();
    size_t records = 0;
    const char *raw = NULL; /* the first '!' line */
    while (in < end) {
        const char *nl = memchr(in, '\n', (size_t)(end - in));
        size_t n = nl ? (size_t)(nl - in) : (size_t)(end - in);
        if (n && in[0] == '!') {
            raw = in;
            break;
        }
        now_ms += 1000;
        if (n && in[0] == '{' && records < MAX_RECORDS) {
            json_t *f = json_loadb(in, n, JSON_REJECT_DUPLICATES, NULL);
            if (json_is_object(f)) {
                records++;
                if (wt_log_append(l, WT_ENTRY_CLASS, f, NULL, &err) != WT_OK &&
                    (wt_log_failed(l) ||
                     (wt_log_append(l, WT_ENTRY_HEARTBEAT, f, NULL, &err) != WT_OK &&
                      wt_log_failed(l))))
                    abort();
            }
            json_decref(f);
        } else if (n > 1 && in[0] == '#') {
            char num[24];
            size_t k = n - 1 < sizeof(num) - 1 ? n - 1 : sizeof(num) - 1;
            memcpy(num, in + 1, k);
            num[k] = '\0';
            long long v = strtoll(num, NULL, 10);
            if (v >= 0 && v < 4000000000000LL)
                now_ms = v;
        } else if (n == 1 && in[0] == 'S') {
            if (wt_log_seal(l, &err) != WT_OK)
                abort();
        }
        in += n + (nl != NULL);
    }
    if (wt_log_seal(l, &err) != WT_OK)
        abort();
    wt_log_close(l);
    if (raw) {
        FILE *f = fopen(paths.log, "ab");
        if (!f)
            abort();
        /* the raw lines go in as they are, newlines and all, with a final one */
        size_t n = (size_t)(end - raw);
        if (fwrite(raw, 1, n, f) != n || fputc('\n', f) == EOF || fclose(f) != 0)
            abort();
    }
    struct wt_report_opts ro = {0};
    ro.title = "fuzz";
    if (flags & 1)
        ro.max_windows = 3;
    if (flags & 2) {
        ro.now_ms = 1700000100000;
        ro.stale_ms = 60000;
    }
    if (!(flags & 4))
        ro.side_path = paths.checkpoint;
    struct wt_note_vkey vk;
    if (flags & 8) {
        wt_note_key_public(&key, &vk);
        ro.vkey = &vk;
    }
    char *html = NULL;
    size_t len = 0;
    struct wt_report_info info;
    if (wt_report_html(paths.log, &ro, &html, &len, &info, &err) != WT_OK) {
        fprintf(stderr, "fuzz_report: %s\n", err.msg);
        abort();
    }
    check_page(html, len);
    /* the page drawn from the verifier's one read is the page of a second
     * read of the log (the way the report was made before, and still is when
     * later damage takes back records it used) */
    ro.reread = 1;
    char *html2 = NULL;
    size_t len2 = 0;
    struct wt_report_info info2;
    if (wt_report_html(paths.log, &ro, &html2, &len2, &info2, &err) != WT_OK) {
        fprintf(stderr, "fuzz_report: second read: %s\n", err.msg);
        abort();
    }
    if (len2 != len || memcmp(html, html2, len) != 0 || info2.shown != info.shown ||
        info2.status != info.status) {
        fprintf(stderr, "fuzz_report: one read and a second read draw different pages\n");
        abort();
    }
    free(html2);
    /* and with 2 records held back (the oldest used early, a second read
     * when they are not to be shown) */
    ro.reread = 0;
    ro.feed_max = 2;
    if (wt_report_html(paths.log, &ro, &html2, &len2, &info2, &err) != WT_OK) {
        fprintf(stderr, "fuzz_report: 2 held back: %s\n", err.msg);
        abort();
    }
    if (len2 != len || memcmp(html, html2, len) != 0 || info2.shown != info.shown) {
        fprintf(stderr, "fuzz_report: with 2 records held back, another page\n");
        abort();
    }
    free(html2);
    if (!raw && ro.side_path &&
        ((info.status != WT_VERIFY_OK && info.status != WT_VERIFY_WARN) ||
         info.shown != info.entries)) {
        /* the log as written verifies, and all of it is shown */
        fprintf(stderr, "fuzz_report: status %d, %llu of %llu records shown: %s\n", info.status,
                (unsigned long long)info.shown, (unsigned long long)info.entries, info.message);
        abort();
    }
    free(html);
    return 0;
}
