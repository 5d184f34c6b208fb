/* The HTML report (output/report.c): hostile strings from the log are
 * escaped, a damaged log shows its damage and only the lines before it, an
 * empty log and a missing one, and a long log downsampled to one column per
 * pixel with the last N windows.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include <sodium.h>

#include "audit/entry.h"
#include "audit/log.h"
#include "audit/merkle.h"
#include "audit/note.h"
#include "output/report.h"

static void has(const char *html, const char *needle)
{
    if (!strstr(html, needle))
        fail_msg("expected '%s' in the report", needle);
}

static void lacks(const char *html, const char *needle)
{
    const char *at = strstr(html, needle);
    if (at)
        fail_msg("did not expect '%s' in the report: ...%.80s...", needle, at);
}

static size_t count(const char *html, const char *needle)
{
    size_t n = 0;
    for (const char *p = html; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static char *escaped(const char *s, size_t max)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    assert_int_equal(wt_html_escape(f, s, max), 0);
    fclose(f);
    return buf;
}

static void test_escape(void **state)
{
    (void)state;
    char *e = escaped("<script>alert(\"x\")</script>&'", 1000);
    assert_string_equal(e, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
    free(e);
    /* controls, a bidi override, invalid UTF-8, a C1 control, an overlong '/' */
    e = escaped("a\x01"
                "b\x7f"
                "c\xE2\x80\xAE"
                "d\xFF"
                "e\xC2\x85"
                "f\xC0\xAF"
                "g\tok",
                1000);
    assert_string_equal(e, "a\xEF\xBF\xBD"
                           "b\xEF\xBF\xBD"
                           "c\xEF\xBF\xBD"
                           "d\xEF\xBF\xBD"
                           "e\xEF\xBF\xBD"
                           "f\xEF\xBF\xBD\xEF\xBF\xBD"
                           "g\tok");
    free(e);
    /* ordinary UTF-8 passes; a cut is marked and never splits a character */
    e = escaped("GPU \xC3\xA9t\xC3\xA9", 1000);
    assert_string_equal(e, "GPU \xC3\xA9t\xC3\xA9");
    free(e);
    e = escaped("ab\xC3\xA9"
                "cd",
                3);
    assert_string_equal(e, "ab\xE2\x80\xA6");
    free(e);
    e = escaped("abcdef", 3);
    assert_string_equal(e, "abc\xE2\x80\xA6");
    free(e);
}

/* --- logs made without the writer (fast: no fsync, no key) -------------- */

struct mk {
    FILE *f;
    struct wt_merkle_range range;
    uint64_t seq;
    struct wt_note_key key; /* a fixed test key: mk_close signs the lines */
};

static void mk_line(struct mk *m, int64_t ts, enum wt_entry_type type, json_t *fields)
{
    uint8_t root[32], leaf[32];
    char *line;
    size_t len;
    struct wt_err err = {{0}};
    wt_merkle_range_root(&m->range, root);
    if (wt_entry_build(m->seq, ts, type, root, fields, &line, &len, &err) != WT_OK)
        fail_msg("%s", err.msg);
    json_decref(fields);
    assert_int_equal(fwrite(line, 1, len, m->f), len);
    fputc('\n', m->f);
    wt_merkle_leaf_hash(line, len, leaf);
    wt_merkle_range_append(&m->range, leaf);
    free(line);
    m->seq++;
}

static int64_t mk_genesis_ts = 1767225600000; /* the genesis record's time */

static void mk_open(struct mk *m, char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/wt_report_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    m->f = fdopen(fd, "wb");
    assert_non_null(m->f);
    wt_merkle_range_init(&m->range);
    m->seq = 0;
    static const uint8_t seed[32] = {7};
    struct wt_err err = {{0}};
    if (wt_note_key_from_seed(&m->key, "report.test/0000000000000001", WT_KEY_ED25519, seed,
                              &err) != WT_OK)
        fail_msg("%s", err.msg);
    char pk[45];
    wt_b64_hash(m->key.pk, pk);
    mk_line(m, mk_genesis_ts, WT_ENTRY_GENESIS,
            json_pack("{s:s,s:s,s:s}", "origin", "report.test/0000000000000001", "alg", "ed25519",
                      "pk", pk));
}

/* The signed checkpoint note of the lines written so far (malloc'd). */
static char *mk_note(struct mk *m)
{
    struct wt_checkpoint cp;
    char body[WT_NOTE_NAME_MAX + 128], *note = NULL;
    struct wt_err err = {{0}};
    memset(&cp, 0, sizeof(cp));
    snprintf(cp.origin, sizeof(cp.origin), "%s", m->key.name);
    cp.size = m->seq;
    wt_merkle_range_root(&m->range, cp.root);
    int n = wt_checkpoint_format(&cp, body, sizeof(body));
    assert_true(n > 0);
    if (wt_note_sign(&m->key, body, (size_t)n, &note, &err) != WT_OK)
        fail_msg("%s", err.msg);
    return note;
}

/* Seals the lines written: a checkpoint record, as wt_log_seal writes (the
 * report shows only signed lines). */
static void mk_seal(struct mk *m, int64_t ts)
{
    char *note = mk_note(m);
    mk_line(m, ts, WT_ENTRY_CHECKPOINT, json_pack("{s:s}", "note", note));
    free(note);
}

/* Seals the lines written and closes the file. */
static void mk_close(struct mk *m, int64_t ts)
{
    mk_seal(m, ts);
    assert_int_equal(fclose(m->f), 0);
}

static void mk_class(struct mk *m, int64_t ts, const char *gpu, int idx, const char *cls, long conf,
                     json_t *ev)
{
    json_t *f = json_pack("{s:s,s:i,s:s,s:i,s:s}", "gpu", gpu, "gpu_idx", idx, "class", cls,
                          "conf_ppm", (int)conf, "model", "physics/workloadtruth-test");
    if (ev)
        json_object_set_new(f, "evidence", ev);
    mk_line(m, ts, WT_ENTRY_CLASS, f);
}

static char *report(const char *path, const struct wt_report_opts *o, struct wt_report_info *info)
{
    char *html = NULL;
    size_t len = 0;
    struct wt_err err = {{0}};
    int rc = wt_report_html(path, o, &html, &len, info, &err);
    if (rc)
        fail_msg("report of %s: %s", path, err.msg);
    assert_int_equal(strlen(html), len);
    /* self-contained: nothing that fetches, no script */
    lacks(html, "<script");
    lacks(html, "http:");
    lacks(html, "https:");
    lacks(html, "src=\"");
    lacks(html, "href=\"/");
    lacks(html, "url(");
    lacks(html, "@import");
    has(html, "</html>\n");
    return html;
}

static void test_hostile_strings(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    json_t *ev = json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "samples", 20, "source",
                           "replay:<b>x</b>.csv", "gpu_model", "</style><script>alert(1)</script>",
                           "reason_1",
                           "<img src=x onerror=alert(1)> \xE2\x80\xAE"
                           "evil",
                           "tamper_1", "\"><svg onload=alert(1)>", "declared", "inference<iframe>",
                           "verdict", "MISMATCH", "slurm_job_id", "42&<x>");
    mk_class(&m, 1767225601000, "GPU-<a href=javascript:alert(1)>", 0, "training", 912000, ev);
    /* tamper indicators longer than the list keeps: cut whole characters */
    char e250[251];
    for (int i = 0; i < 125; i++)
        memcpy(e250 + 2 * i, "\xC3\xA9", 2);
    e250[250] = '\0';
    ev = json_object();
    for (int i = 1; i <= 5; i++) {
        char k[16];
        snprintf(k, sizeof(k), "tamper_%d", i);
        json_object_set_new(ev, k, json_string(e250));
    }
    mk_class(&m, 1767225602000, "GPU-2", 1, "inference", 700000, ev);
    mk_close(&m, 1767225602000);

    struct wt_report_opts o = {0};
    o.title = "Fleet <b>report</b> & co";
    struct wt_report_info info;
    char *html = report(path, &o, &info);
    assert_int_equal(info.windows, 2);
    assert_int_equal(info.mismatches, 1);
    assert_int_equal(info.tampered, 2);
    assert_int_equal(info.gpus, 2);
    lacks(html, "<img");
    lacks(html, "<svg onload");
    lacks(html, "<iframe");
    lacks(html, "<a href=javascript");
    lacks(html, "<b>");
    lacks(html, "\xE2\x80\xAE");
    has(html, "<title>Fleet &lt;b&gt;report&lt;/b&gt; &amp; co</title>");
    has(html, "&lt;/style&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    has(html, "&lt;img src=x onerror=alert(1)&gt; \xEF\xBF\xBD"
              "evil");
    has(html, "&quot;&gt;&lt;svg onload=alert(1)&gt;");
    has(html, "inference&lt;iframe&gt;");
    has(html, "42&amp;&lt;x&gt;");
    has(html, "GPU-&lt;a href=javascript:alert(1)&gt;");
    has(html, "\xC3\xA9\xC3\xA9\xE2\x80\xA6</td>");
    assert_int_equal(count(html, "\xEF\xBF\xBD"), 1); /* the U+202E above only */
    /* the style element is ours alone */
    assert_int_equal(count(html, "<style>"), 1);
    assert_int_equal(count(html, "</style>"), 1);
    free(html);
    unlink(path);
}

static void test_signed_log_damaged(void **state)
{
    (void)state;
    char dir[64], vkey[600];
    snprintf(dir, sizeof(dir), "/tmp/wt_report_d_XXXXXX");
    assert_non_null(mkdtemp(dir));
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    assert_int_equal(wt_log_paths_dir(&p, dir, &err), 0);
    if (wt_log_init(&p, "report.test/0000000000000002", NULL, NULL, vkey, sizeof(vkey), &err))
        fail_msg("%s", err.msg);
    struct wt_log *l;
    if (wt_log_open(&l, &p, NULL, NULL, &err))
        fail_msg("%s", err.msg);
    static const char *cls[] = {"training", "training", "inference", "idle", "training"};
    for (int i = 0; i < 5; i++) {
        json_t *f = json_pack("{s:s,s:i,s:s,s:i}", "gpu", "GPU-1111", "gpu_idx", 0, "class", cls[i],
                              "conf_ppm", 800000 + i * 10000);
        assert_int_equal(wt_log_append(l, WT_ENTRY_CLASS, f, NULL, &err), 0);
        json_decref(f);
        if (i == 1) /* line 4 seals lines 1..3 */
            assert_int_equal(wt_log_seal(l, &err), 0);
    }
    assert_int_equal(wt_log_seal(l, &err), 0);
    wt_log_close(l);

    struct wt_note_vkey vk;
    assert_int_equal(wt_note_parse_vkey(vkey, &vk, &err), 0);
    struct wt_report_opts o = {0};
    o.side_path = p.checkpoint;
    o.vkey = &vk;
    struct wt_report_info info;
    char *html = report(p.log, &o, &info);
    assert_int_equal(info.status, WT_VERIFY_OK);
    assert_int_equal(info.windows, 5);
    assert_int_equal(info.shown, info.entries);
    has(html, "Log verified");
    has(html, "pinned: the expected verifier key was given");
    lacks(html, "Log DAMAGED");
    free(html);

    /* damage outside the log's lines (a garbage checkpoint file): no bad line */
    char garbage[96];
    snprintf(garbage, sizeof(garbage), "%s/garbage", dir);
    FILE *gf = fopen(garbage, "w");
    assert_non_null(gf);
    fputs("garbage\n", gf);
    fclose(gf);
    o.side_path = garbage;
    html = report(p.log, &o, &info);
    assert_int_equal(info.status, WT_VERIFY_DAMAGED);
    assert_int_equal(info.line, 0);
    has(html, "The damage is in no line of the log itself");
    lacks(html, "from the first bad line on");
    lacks(html, "not shown either"); /* the log ends with a checkpoint record */
    assert_int_equal(info.shown, info.entries);
    free(html);
    o.side_path = p.checkpoint;

    /* edit line 6 (the fourth class record, after the first seal): idle -> training */
    size_t len;
    FILE *f = fopen(p.log, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 16);
    assert_non_null(buf);
    len = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    buf[len] = '\0';
    char *l6 = buf;
    for (int i = 0; i < 5; i++)
        l6 = strchr(l6, '\n') + 1;
    char *at = strstr(l6, "\"class\":\"idle\"");
    assert_non_null(at);
    assert_true(at < strchr(l6, '\n'));
    f = fopen(p.log, "wb");
    assert_non_null(f);
    fwrite(buf, 1, (size_t)(at - buf), f);
    fputs("\"class\":\"training\"", f);
    fputs(at + strlen("\"class\":\"idle\""), f);
    fclose(f);
    free(buf);

    html = report(p.log, &o, &info);
    assert_int_equal(info.status, WT_VERIFY_DAMAGED);
    assert_int_equal(info.damage, WT_DMG_BROKEN_LINK);
    assert_int_equal(info.line, 6);
    /* lines 1..3 are signed by line 4; line 5 only links to them: anyone
     * able to write the file could have written it */
    assert_int_equal(info.shown, 4);
    assert_int_equal(info.windows, 2);
    has(html, "Log DAMAGED");
    has(html, "broken-link");
    has(html, "First bad line: <b>6</b>");
    has(html, "shows only lines 1&#8211;4");
    has(html, "Lines 5&#8211;5 are not shown either");
    /* the verifier's count and root include the altered line: not called verified */
    has(html, "entries read before the damage was found");
    has(html, "Merkle root of the lines read");
    lacks(html, "entries verified");
    free(html);

    /* a log re-created with another key: nothing is shown */
    struct wt_note_vkey other = vk;
    other.pk[0] ^= 1;
    o.vkey = &other;
    o.side_path = NULL;
    html = report(p.log, &o, &info);
    assert_int_equal(info.status, WT_VERIFY_DAMAGED);
    assert_int_equal(info.shown, 0);
    assert_int_equal(info.windows, 0);
    has(html, "No classification");
    free(html);

    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* An intact log whose last lines no signed checkpoint covers (a writer
 * killed before it signed them; or lines appended, or a history forged after
 * a cut with the side file deleted, by someone without the key): the page
 * shows only the signed lines, and says why. */
static void test_unsealed_tail(void **state)
{
    (void)state;
    char dir[64];
    snprintf(dir, sizeof(dir), "/tmp/wt_report_u_XXXXXX");
    assert_non_null(mkdtemp(dir));
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    assert_int_equal(wt_log_paths_dir(&p, dir, &err), 0);
    if (wt_log_init(&p, "report.test/0000000000000003", NULL, NULL, NULL, 0, &err))
        fail_msg("%s", err.msg);
    struct wt_log *l;
    if (wt_log_open(&l, &p, NULL, NULL, &err))
        fail_msg("%s", err.msg);
    static const char *cls[] = {"training", "training", "inference", "inference", "inference"};
    for (int i = 0; i < 5; i++) {
        json_t *f = json_pack("{s:s,s:i,s:s,s:i}", "gpu", "GPU-2222", "gpu_idx", 0, "class", cls[i],
                              "conf_ppm", 900000);
        assert_int_equal(wt_log_append(l, WT_ENTRY_CLASS, f, NULL, &err), 0);
        json_decref(f);
        if (i == 1) /* line 4 seals lines 1..3; lines 5..7 stay unsigned */
            assert_int_equal(wt_log_seal(l, &err), 0);
    }
    wt_log_close(l);
    struct wt_report_opts o = {0};
    o.side_path = p.checkpoint;
    struct wt_report_info info;
    char *html = report(p.log, &o, &info);
    assert_int_equal(info.status, WT_VERIFY_WARN);
    assert_int_equal(info.entries, 7);
    assert_int_equal(info.shown, 4);
    assert_int_equal(info.windows, 2); /* the two signed ones, not the three after */
    has(html, "Lines 5&#8211;7 are not shown: no signed checkpoint covers them yet");
    has(html, "last entry shown");
    lacks(html, "INFERENCE");
    free(html);
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* No signed checkpoint at all: only the genesis line is shown, for its key,
 * and the page does not say a signature covers it (it said "lines 1-1, which
 * a verified signature covers" beside "0 sealed"). */
static void test_genesis_only(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    mk_class(&m, mk_genesis_ts + 1000, "GPU-0000", 0, "training", 900000, NULL);
    mk_class(&m, mk_genesis_ts + 2000, "GPU-0000", 0, "training", 900000, NULL);
    assert_int_equal(fclose(m.f), 0);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    assert_int_equal(info.shown, 1);
    has(html, "This page shows line 1 only, the genesis record");
    has(html, "Lines 2&#8211;3 are not shown");
    lacks(html, "which a verified signature covers");
    free(html);
    unlink(path);
}

/* The clock stepped back an hour while the agent ran: the timeline marks it,
 * and periods and the span run from the earliest window to the latest (the
 * span was "-3598 s", the period reversed). */
static void test_clock_back(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    int64_t ts = 1767225600000;
    for (int i = 0; i < 40; i++) {
        mk_class(&m, ts, "GPU-0000", 0, "training", 900000, NULL);
        ts += 10000;
        if (i == 19)
            ts -= 3600000;
    }
    mk_close(&m, ts);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    assert_int_equal(info.windows, 40);
    has(html, ">clock back 59 min</text>");
    has(html, "the clock stepped back by 59 min after");
    has(html, "(earliest to latest: the clock stepped back)");
    lacks(html, ">-");
    lacks(html, "span</td><td class=\"n\">-");
    free(html);
    unlink(path);

    /* two windows only: still marked (the gaps were looked at from 3) */
    mk_open(&m, path, sizeof(path));
    ts = 1767225600000;
    mk_class(&m, ts, "GPU-0000", 0, "training", 900000, NULL);
    mk_class(&m, ts - 3600000, "GPU-0000", 0, "training", 900000, NULL);
    mk_close(&m, ts);
    html = report(path, NULL, &info);
    assert_int_equal(info.windows, 2);
    has(html, ">clock back 60 min</text>");
    free(html);
    unlink(path);
}

/* --stale-after is judged on the last line shown: an unsigned line with a
 * later time (anyone could append one) must not hide a writer that stopped. */
static void test_stale_on_shown(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    const int64_t t0 = 1767225600000;
    for (int i = 0; i < 3; i++)
        mk_class(&m, t0 + i * 10000, "GPU-0000", 0, "training", 900000, NULL);
    mk_seal(&m, t0 + 20000);
    mk_class(&m, t0 + 1000000, "GPU-0000", 0, "inference", 900000, NULL); /* unsigned */
    assert_int_equal(fclose(m.f), 0);
    struct wt_report_opts o = {0};
    o.now_ms = t0 + 1001000;
    o.stale_ms = 60000;
    struct wt_report_info info;
    char *html = report(path, &o, &info);
    assert_int_equal(info.status, WT_VERIFY_WARN);
    assert_int_equal(info.windows, 3);
    has(html, "the last entry shown is 981 s old (more than 60 s): the writer may have stopped");
    free(html);
    unlink(path);

    /* the last line a checkpoint record: its signature covers the lines
     * before it, not its own ts_ms, which could be set to any time */
    mk_open(&m, path, sizeof(path));
    for (int i = 0; i < 3; i++)
        mk_class(&m, t0 + i * 10000, "GPU-0000", 0, "training", 900000, NULL);
    mk_seal(&m, t0 + 1000000);
    assert_int_equal(fclose(m.f), 0);
    html = report(path, &o, &info);
    assert_int_equal(info.windows, 3);
    has(html, "the last entry shown is 981 s old (more than 60 s): the writer may have stopped");
    free(html);
    unlink(path);
}

/* Entries dated long before the genesis record, or long after the report's
 * time, are warned of (a key holder's log showed 1970 and the year 287396
 * under a green "Log verified"); a minute's slack before the genesis. */
static void test_times_off(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    const int64_t t0 = mk_genesis_ts;
    mk_class(&m, t0 - 30000, "GPU-0000", 0, "training", 900000, NULL); /* within the slack */
    mk_class(&m, t0 - 7200000, "GPU-0000", 0, "training", 900000, NULL);
    mk_class(&m, t0 - 3600000, "GPU-0000", 0, "training", 900000, NULL);
    mk_class(&m, t0 + 10LL * 86400000, "GPU-0000", 0, "training", 900000, NULL);
    mk_close(&m, t0);
    struct wt_report_opts o = {0};
    o.now_ms = t0 + 86400000;
    struct wt_report_info info;
    char *html = report(path, &o, &info);
    assert_int_equal(info.status, WT_VERIFY_WARN);
    has(html, "2 entries are dated more than a minute before the log was created (the earliest "
              "2025-12-31 22:00:00Z)");
    has(html, "1 entry is dated more than a day after this report (the latest 2026-01-11");
    free(html);
    unlink(path);
}

/* A heartbeat's list of failed GPUs is shown whole up to the page's 256 bytes
 * (it was cut at 60, unmarked: "...,22,2" for GPUs 22, 23 and 24), and a cut
 * beyond that is marked. */
static void test_heartbeat_failed_list(void **state)
{
    (void)state;
    char path[64], list[400];
    struct mk m;
    size_t k = 0;
    for (int g = 0; g < 25; g++)
        k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%d", g ? "," : "", g);
    mk_open(&m, path, sizeof(path));
    const int64_t t0 = 1767225600000;
    mk_class(&m, t0, "GPU-0000", 0, "training", 900000, NULL);
    mk_line(&m, t0 + 1000, WT_ENTRY_HEARTBEAT,
            json_pack("{s:i,s:i,s:i,s:i,s:i,s:s}", "windows", 1, "dropped", 0, "write_errors", 0,
                      "gpus", 26, "failed_gpus", 25, "failed_list", list));
    mk_close(&m, t0 + 2000);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    has(html,
        "25 of 26 GPUs failed (0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24)");
    has(html,
        "25 GPU(s) failed: 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24<");
    free(html);
    unlink(path);

    /* the longest list a record holds (256 bytes): whole in the heartbeat
     * paragraph; in the event line, after its text, cut and the cut marked */
    char longlist[257];
    memset(longlist, '7', sizeof(longlist) - 1);
    longlist[sizeof(longlist) - 1] = '\0';
    mk_open(&m, path, sizeof(path));
    mk_class(&m, t0, "GPU-0000", 0, "training", 900000, NULL);
    mk_line(&m, t0 + 1000, WT_ENTRY_HEARTBEAT,
            json_pack("{s:i,s:i,s:i,s:i,s:i,s:s}", "windows", 1, "dropped", 0, "write_errors", 0,
                      "gpus", 2, "failed_gpus", 1, "failed_list", longlist));
    mk_close(&m, t0 + 2000);
    html = report(path, NULL, &info);
    char whole[300];
    snprintf(whole, sizeof(whole), "1 of 2 GPUs failed (%s)", longlist);
    has(html, whole);
    has(html, "GPU(s) failed: 7777");
    has(html, "7777\xE2\x80\xA6<");
    free(html);
    unlink(path);
}

/* Heartbeats that repeat the last one's counts: listed again when another
 * GPU failed or a new run of watch began (its window count starts again);
 * only the first of three was listed (GPU 5's failure was not). */
static void test_heartbeat_news(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    const int64_t t0 = 1767225600000;
    mk_class(&m, t0, "GPU-0000", 0, "training", 900000, NULL);
    static const struct {
        int64_t dt;
        int windows;
        const char *list;
    } hb[] = {
        {1000, 5, "GPU 0: fell off the bus"},
        {61000, 9, "GPU 0: fell off the bus"},   /* the same news */
        {3601000, 2, "GPU 5: fell off the bus"}, /* a new run, another GPU */
        {3661000, 3, "GPU 5: fell off the bus"},
        {3721000, 1, "GPU 5: fell off the bus"}, /* a new run */
    };
    for (size_t i = 0; i < sizeof(hb) / sizeof(hb[0]); i++)
        mk_line(&m, t0 + hb[i].dt, WT_ENTRY_HEARTBEAT,
                json_pack("{s:i,s:i,s:i,s:i,s:i,s:s}", "windows", hb[i].windows, "dropped", 0,
                          "write_errors", 0, "gpus", 8, "failed_gpus", 1, "failed_list",
                          hb[i].list));
    mk_close(&m, t0 + 3800000);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    assert_int_equal(count(html, "1 GPU(s) failed: GPU 0: fell off the bus"), 1);
    assert_int_equal(count(html, "1 GPU(s) failed: GPU 5: fell off the bus"), 2);
    free(html);
    unlink(path);
}

/* Two GPUs of one index and model (logs of two nodes): the overview shows
 * each one's id, so that its rows can be told apart. */
static void test_overview_ids(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    const int64_t t0 = 1767225600000;
    mk_class(&m, t0, "GPU-aaaa-1111", 0, "training", 900000, NULL);
    mk_class(&m, t0 + 30000, "GPU-bbbb-2222", 0, "inference", 900000, NULL);
    mk_close(&m, t0 + 60000);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    has(html, "</a><div class=\"sub mono\">GPU-aaaa-1111</div></td>");
    has(html, "</a><div class=\"sub mono\">GPU-bbbb-2222</div></td>");
    free(html);
    unlink(path);
}

/* Declared windows none of which contradicts the declaration: a GPU whose
 * every verdict was inconclusive says that none could be judged (it said
 * "none contradicts it"), one with some says how many. */
static void test_declared_inconclusive(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    const int64_t t0 = 1767225600000;
    for (int i = 0; i < 3; i++) {
        mk_class(&m, t0 + i * 30000, "GPU-a", 0, "unknown", 300000,
                 json_pack("{s:s,s:s}", "declared", "inference", "verdict", "INCONCLUSIVE"));
        mk_class(&m, t0 + i * 30000, "GPU-b", 1, i ? "inference" : "unknown", 900000,
                 json_pack("{s:s,s:s}", "declared", "inference", "verdict",
                           i ? "MATCH" : "INCONCLUSIVE"));
        mk_class(&m, t0 + i * 30000, "GPU-c", 2, "inference", 900000,
                 json_pack("{s:s,s:s}", "declared", "inference", "verdict", "MATCH"));
    }
    mk_close(&m, t0 + 90000);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    has(html, "3 windows with a declaration: none could be judged (every verdict inconclusive");
    has(html, "3 windows with a declaration: none contradicts it (1 inconclusive).");
    has(html, "3 windows with a declaration: none contradicts it.");
    assert_int_equal(count(html, "none contradicts it"), 2);
    free(html);
    unlink(path);
}

/* A log written by several classifiers (a model file changed, rules) says
 * which wrote which windows (the page named none). */
static void test_classifiers_named(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    const int64_t t0 = 1767225600000;
    mk_class(&m, t0, "GPU-aaaa-1111", 0, "training", 900000, NULL);
    mk_class(&m, t0 + 30000, "GPU-aaaa-1111", 0, "training", 900000, NULL);
    mk_line(&m, t0 + 60000, WT_ENTRY_CLASS,
            json_pack("{s:s,s:i,s:s,s:i,s:s}", "gpu", "GPU-aaaa-1111", "gpu_idx", 0, "class",
                      "idle", "conf_ppm", 1000000, "model", "rules/workloadtruth-test"));
    mk_line(&m, t0 + 90000, WT_ENTRY_CLASS,
            json_pack("{s:s,s:i,s:s,s:i}", "gpu", "GPU-aaaa-1111", "gpu_idx", 0, "class", "idle",
                      "conf_ppm", 1000000));
    mk_close(&m, t0 + 120000);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    has(html, "<dt>classifier (several: confidences differ in kind)</dt><dd class=\"mono\">"
              "physics/workloadtruth-test: 2 windows, lines 2-3</dd>");
    has(html, "rules/workloadtruth-test: 1 window, lines 4-4</dd>");
    has(html, "(not recorded): 1 window, lines 5-5</dd>");
    free(html);
    unlink(path);
    /* one classifier: named, without the warning */
    mk_open(&m, path, sizeof(path));
    mk_class(&m, t0, "GPU-aaaa-1111", 0, "training", 900000, NULL);
    mk_close(&m, t0 + 30000);
    html = report(path, NULL, &info);
    has(html, "<dt>classifier</dt><dd class=\"mono\">physics/workloadtruth-test: 1 window");
    lacks(html, "several");
    free(html);
    unlink(path);
}

/* A period in a year after 9999 drops the repeated date whole, and only
 * when it is the same (it cut 11 bytes: "103373-12-11 00:53:20Z -> 8
 * 00:53:20Z" for a week). */
static void test_period_long_year(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    const int64_t genesis = mk_genesis_ts;
    mk_genesis_ts = 3199999395200000; /* the log's period starts in that year */
    mk_open(&m, path, sizeof(path));
    mk_class(&m, 3199999395200000, "GPU-0000", 0, "training", 900000, NULL);
    mk_class(&m, 3200000000000000, "GPU-0000", 0, "training", 900000, NULL);
    mk_close(&m, 3200000000000000);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    has(html, "recoveries; 103373-12-11 00:53:20Z &#8594; 103373-12-18 00:53:20Z.");
    free(html);
    unlink(path);
    mk_open(&m, path, sizeof(path));
    mk_class(&m, 3199999395200000, "GPU-0000", 0, "training", 900000, NULL);
    mk_class(&m, 3199999395230000, "GPU-0000", 0, "training", 900000, NULL);
    mk_close(&m, 3199999395230000);
    html = report(path, NULL, &info);
    has(html, "recoveries; 103373-12-11 00:53:20Z &#8594; 00:53:50Z.");
    free(html);
    unlink(path);
    mk_genesis_ts = genesis;
}

/* A log written at time 0 (a clock at the epoch): 0 is a time, not "none"
 * (the page lost its "created" fact and began its period at the next line). */
static void test_time_zero(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_genesis_ts = 0;
    mk_open(&m, path, sizeof(path));
    mk_genesis_ts = 1767225600000;
    mk_class(&m, 0, "GPU-0000", 0, "training", 900000, NULL);
    mk_class(&m, 10000, "GPU-0000", 0, "training", 900000, NULL);
    mk_close(&m, 20000);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    assert_int_equal(info.windows, 2);
    has(html, "<dt>created</dt><dd>1970-01-01 00:00:00Z");
    has(html, "; 1970-01-01 00:00:00Z");
    free(html);
    unlink(path);
}

static void test_empty_and_missing(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    fclose(m.f);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    assert_int_equal(info.status, WT_VERIFY_WARN); /* no checkpoint file, unsealed */
    assert_int_equal(info.entries, 1);
    assert_int_equal(info.windows, 0);
    assert_int_equal(info.gpus, 0);
    has(html, "No classification in the verified part of this log yet.");
    has(html, "Log verified, with warnings");
    free(html);

    /* a zero-byte file is a damaged log, still reported */
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fclose(f);
    html = report(path, NULL, &info);
    assert_int_equal(info.status, WT_VERIFY_DAMAGED);
    has(html, "empty log");
    free(html);
    unlink(path);

    /* a missing file is an error, not a page */
    char *out = NULL;
    size_t len = 0;
    struct wt_err err = {{0}};
    assert_int_equal(wt_report_html("/nonexistent/wt/log.jsonl", NULL, &out, &len, NULL, &err),
                     WT_EIO);
    assert_null(out);
    assert_contains(err.msg, "/nonexistent/wt/log.jsonl");
}

static void test_downsampled(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    const int n = 6000;
    for (int i = 0; i < n; i++) {
        /* GPU 1: alternating blocks; GPU 0: training with a declared mismatch every 500 */
        const char *c1 = (i / 7) % 3 == 0 ? "inference" : (i / 7) % 3 == 1 ? "idle" : "training";
        json_t *ev = NULL;
        if (i % 500 == 0)
            ev = json_pack("{s:s,s:s}", "declared", "inference", "verdict", "MISMATCH");
        if (i == 4321)
            ev = json_pack("{s:s}", "tamper_1", "power flat while utilisation varies");
        int64_t ts = 1767225600000 + (int64_t)i * 10000 + (i >= 3000 ? 7200000 : 0);
        mk_class(&m, ts, "GPU-0000", 0, "training", 900000 + (i % 7) * 10000, ev);
        mk_class(&m, ts + 1, "GPU-0001", 1, c1, 500000 + (i % 5) * 90000, NULL);
    }
    mk_close(&m, 1767225600000 + (int64_t)(n - 1) * 10000 + 7200001);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    assert_int_equal(info.windows, 2 * n);
    assert_int_equal(info.mismatches, n / 500);
    assert_int_equal(info.tampered, 1);
    has(html, "each column merges about 6 windows");
    has(html, "gap 2 h 0 min");
    /* columns are bounded by the plot's pixels, not by the windows */
    assert_true(count(html, "<polyline") == 2);
    assert_true(count(html, "<rect") < 2 * 1100 * 4 + 100);
    assert_true(strlen(html) < 1500000);
    free(html);

    /* only the last 500 windows of each GPU on the timelines; counts cover all */
    struct wt_report_opts o = {0};
    o.max_windows = 500;
    html = report(path, &o, &info);
    assert_int_equal(info.windows, 2 * n);
    has(html, "the last 500 of 6000 windows");
    has(html, "one column per window");
    /* the mismatch list keeps the latest WT_REPORT_MAX_LISTED */
    has(html, "12 mismatches");
    free(html);
    unlink(path);
}

/* More GPUs than the page shows: the others' mismatches and tamper
 * indicators are still in the totals, and their latest mismatches are listed
 * (a replayed job trace is a GPU of its own: on a cluster's log the first
 * 256 jobs hid every later job's mismatches); the GPUs shown stay the first
 * 256, whose whole history is there, also when more than 256 write in turn. */
static void test_many_gpus(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    const int n = WT_REPORT_MAX_GPUS + 44;
    for (int i = 0; i < n; i++) {
        char gpu[32];
        snprintf(gpu, sizeof(gpu), "GPU-%04d", i);
        json_t *ev = json_pack("{s:s,s:s,s:s,s:s}", "declared", "inference", "verdict", "MISMATCH",
                               "tamper_1", "power limit below default", "slurm_job_id",
                               i == n - 1 ? "job-last" : "j");
        mk_class(&m, 1767225600000 + i, gpu, i % 8, "training", 900000, ev);
    }
    mk_close(&m, 1767225600000 + n - 1);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    assert_int_equal(info.gpus, WT_REPORT_MAX_GPUS);
    assert_true(info.more_gpus);
    assert_int_equal(info.windows, n);
    assert_int_equal(info.mismatches, n);
    assert_int_equal(info.tampered, n);
    has(html, "44 more windows of GPUs beyond the first 256 (44 mismatches, 44 with tamper "
              "indicators)");
    has(html, "Their mismatches:</p>");
    has(html, "GPU-0299</td>"); /* the newest job's mismatch, listed */
    has(html, "job-last");
    free(html);
    unlink(path);
}

/* A window whose processes could not be listed (watch: declared_by
 * "unlisted", verdict INCONCLUSIVE, no declared type) is no declaration: it
 * read "2 windows with a declaration: none could be judged". */
static void test_unlisted_not_declared(void **state)
{
    (void)state;
    char path[64];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    for (int i = 0; i < 2; i++) {
        json_t *ev = json_pack("{s:s,s:s,s:i}", "declared_by", "unlisted", "verdict",
                               "INCONCLUSIVE", "processes_unlisted", 1);
        mk_class(&m, 1767225600000 + i, "GPU-a", 0, "training", 900000, ev);
    }
    mk_close(&m, 1767225600001);
    struct wt_report_info info;
    char *html = report(path, NULL, &info);
    has(html, "No declaration is recorded for this GPU");
    has(html, "2 windows whose processes could not be listed");
    assert_null(strstr(html, "with a declaration"));
    free(html);
    unlink(path);
}

/* --- one read: the page from the verifier's records is the page from a
 * second read (report.c's feed), for every kind of damage --------------- */

/* Writes the signed checkpoint of the lines written so far to path, as the
 * writer's side file. */
static void mk_side(struct mk *m, const char *path)
{
    char *note = mk_note(m);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(note, f);
    assert_int_equal(fclose(f), 0);
    free(note);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 65536 > cap) {
            cap = (n + 65536) * 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return buf;
}

static void spill(const char *path, const char *a, size_t alen, const char *b, size_t blen)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(a, 1, alen, f), alen);
    if (blen)
        assert_int_equal(fwrite(b, 1, blen, f), blen);
    assert_int_equal(fclose(f), 0);
}

/* The page (and info) of the log at path, from one read and from two:
 * the same, byte for byte; also with only 3 records held back (the oldest
 * used early, and a second read when they are not to be shown). */
static int same_page(const char *path, const char *side, const char *what)
{
    struct wt_report_opts o = {0}, o2, o3;
    o.side_path = side;
    o.now_ms = 1767225600000 + 86400000;
    o.stale_ms = 3600000;
    o2 = o;
    o2.reread = 1;
    o3 = o;
    o3.feed_max = 3;
    struct wt_report_info i1, i2, i3;
    char *h1 = NULL, *h2 = NULL, *h3 = NULL;
    size_t l1 = 0, l2 = 0, l3 = 0;
    struct wt_err e1 = {{0}}, e2 = {{0}}, e3 = {{0}};
    int r1 = wt_report_html(path, &o, &h1, &l1, &i1, &e1);
    int r2 = wt_report_html(path, &o2, &h2, &l2, &i2, &e2);
    int r3 = wt_report_html(path, &o3, &h3, &l3, &i3, &e3);
    int same = r1 == r2 &&
               (r1 || (l1 == l2 && !memcmp(h1, h2, l1) && !memcmp(&i1, &i2, sizeof(i1)))) &&
               (!r1 || !strcmp(e1.msg, e2.msg));
    int same3 = r3 == r2 &&
                (r3 || (l3 == l2 && !memcmp(h3, h2, l3) && !memcmp(&i3, &i2, sizeof(i3)))) &&
                (!r3 || !strcmp(e3.msg, e2.msg));
    if (!same)
        print_error("%s: the page from one read differs from the page from two\n", what);
    if (!same3)
        print_error("%s: with 3 records held back, the page differs from the page from two\n",
                    what);
    free(h1);
    free(h2);
    free(h3);
    return same && same3;
}

/* A log with signed and unsigned stretches, heartbeats, mismatches and a
 * recovery record, and stretches longer than the records report.c holds
 * back (4096): every line changed, removed, repeated, cut, with and without
 * the side file, with a side file of an earlier size, junk appended. */
static void test_one_read_same_page(void **state)
{
    (void)state;
    char path[64], side[80], old_side[80], work[80], work_side[96];
    struct mk m;
    mk_open(&m, path, sizeof(path));
    snprintf(side, sizeof(side), "%s.checkpoint", path);
    snprintf(old_side, sizeof(old_side), "%s.old", path);
    snprintf(work, sizeof(work), "%s.w", path);
    snprintf(work_side, sizeof(work_side), "%s.w.checkpoint", path);
    const int64_t t0 = 1767225600000;
    int64_t t = t0;
    static const char *cls[] = {"training", "inference", "idle"};
    for (int i = 0; i < 40; i++) {
        json_t *ev = NULL;
        if (i % 7 == 3)
            ev = json_pack("{s:s}", "declared", "inference");
        mk_class(&m, t += 1000, i % 2 ? "GPU-B" : "GPU-A", i % 2, cls[i % 3], 700000 + i * 1000,
                 ev);
        if (i % 9 == 8)
            mk_line(&m, t += 10, WT_ENTRY_HEARTBEAT,
                    json_pack("{s:i,s:i,s:i,s:i,s:i}", "windows", i, "dropped", i % 2,
                              "write_errors", 0, "gpus", 2, "failed_gpus", 0));
        if (i == 20)
            mk_line(&m, t += 10, WT_ENTRY_RECOVERY,
                    json_pack("{s:i,s:i,s:s}", "dropped_bytes", 17, "offset", 1234, "reason",
                              "torn-tail"));
        if (i % 6 == 5)
            mk_seal(&m, t += 5000);
        if (i == 30)
            mk_side(&m, old_side);
    }
    mk_side(&m, side); /* covers all: the last lines are signed by it only */
    assert_int_equal(fflush(m.f), 0);
    size_t len;
    char *log = slurp(path, &len);
    size_t nl = 0, *start = malloc((len + 1) * sizeof(*start));
    assert_non_null(start);
    for (size_t i = 0; i < len; i++)
        if (i == 0 || log[i - 1] == '\n')
            start[nl++] = i;
    start[nl] = len;
    int ok = same_page(path, side, "intact");
    ok &= same_page(path, NULL, "intact, no side file");
    ok &= same_page(path, old_side, "intact, an older side file");
    char what[160];
    for (size_t k = 0; k < nl; k++) {
        size_t a = start[k], b = start[k + 1]; /* line k+1, newline included */
        char *mod = malloc(len + (b - a) + 16);
        assert_non_null(mod);
        for (int kind = 0; kind < 7; kind++) {
            size_t ml = 0;
            switch (kind) {
            case 0: /* one byte of the line's middle (a digit or a letter: still JSON) */
            case 1: /* a byte of its prev field */
            case 2: /* its first byte: no longer a record */
                memcpy(mod, log, len);
                ml = len;
                {
                    size_t at = a + (b - a) / 2;
                    if (kind == 1) {
                        const char *pv = strstr(log + a, "\"prev\":\"");
                        at = pv && (size_t)(pv - log) < b ? (size_t)(pv - log) + 12 : at;
                    } else if (kind == 2) {
                        at = a;
                    }
                    mod[at] = mod[at] == '7' ? '8' : kind == 2 ? '[' : '7';
                }
                break;
            case 3: /* removed */
                memcpy(mod, log, a);
                memcpy(mod + a, log + b, len - b);
                ml = len - (b - a);
                break;
            case 4: /* repeated */
                memcpy(mod, log, b);
                memcpy(mod + b, log + a, len - a);
                ml = len + (b - a);
                break;
            case 5: /* cut in its middle */
                memcpy(mod, log, a + (b - a) / 2);
                ml = a + (b - a) / 2;
                break;
            default: /* cut after it */
                memcpy(mod, log, b);
                ml = b;
                break;
            }
            spill(work, mod, ml, NULL, 0);
            for (int s = 0; s < 3; s++) {
                if (s < 2) {
                    size_t sl;
                    char *sb = slurp(s ? old_side : side, &sl);
                    spill(work_side, sb, sl, NULL, 0);
                    free(sb);
                } else {
                    unlink(work_side);
                }
                snprintf(what, sizeof(what), "line %zu, change %d, side file %d", k + 1, kind, s);
                ok &= same_page(work, work_side, what);
            }
        }
        free(mod);
    }
    spill(work, log, len, "{\"junk\":1}\n", 11);
    ok &= same_page(work, side, "junk appended");
    spill(work, log, len, "junk", 4);
    ok &= same_page(work, side, "a torn tail");

    /* longer than the records held back: a long unsigned stretch that a
     * checkpoint record then signs, a long unsigned tail, and damage in them */
    for (int i = 0; i < 4500; i++)
        mk_class(&m, t += 1000, "GPU-C", 2, cls[i % 3], 800000, NULL);
    mk_seal(&m, t += 5000);
    for (int i = 0; i < 4300; i++)
        mk_class(&m, t += 1000, "GPU-C", 2, cls[(i / 100) % 3], 800000, NULL);
    assert_int_equal(fflush(m.f), 0);
    free(log);
    log = slurp(path, &len);
    ok &= same_page(path, side, "long unsigned tail");
    mk_side(&m, work_side);
    spill(work, log, len, NULL, 0);
    ok &= same_page(work, work_side, "long unsigned tail, signed by the side file");
    ok &= same_page(work, side, "long unsigned tail, an old side file");
    const double at[] = {0.3, 0.5, 0.52, 0.8, 0.99};
    for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
        size_t cut = (size_t)(at[k] * (double)len);
        spill(work, log, cut, NULL, 0);
        snprintf(what, sizeof(what), "long log cut at %zu", cut);
        ok &= same_page(work, side, what);
        char *mod = malloc(len);
        assert_non_null(mod);
        memcpy(mod, log, len);
        mod[cut] = mod[cut] == '7' ? '8' : '7';
        spill(work, mod, len, NULL, 0);
        snprintf(what, sizeof(what), "long log changed at %zu", cut);
        ok &= same_page(work, side, what);
        free(mod);
    }
    assert_int_equal(fclose(m.f), 0);
    free(log);
    free(start);
    unlink(path);
    unlink(side);
    unlink(old_side);
    unlink(work);
    unlink(work_side);
    assert_true(ok);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_hostile_strings),
        cmocka_unit_test(test_signed_log_damaged),
        cmocka_unit_test(test_unsealed_tail),
        cmocka_unit_test(test_clock_back),
        cmocka_unit_test(test_stale_on_shown),
        cmocka_unit_test(test_times_off),
        cmocka_unit_test(test_heartbeat_failed_list),
        cmocka_unit_test(test_heartbeat_news),
        cmocka_unit_test(test_overview_ids),
        cmocka_unit_test(test_classifiers_named),
        cmocka_unit_test(test_period_long_year),
        cmocka_unit_test(test_genesis_only),
        cmocka_unit_test(test_time_zero),
        cmocka_unit_test(test_empty_and_missing),
        cmocka_unit_test(test_downsampled),
        cmocka_unit_test(test_many_gpus),
        cmocka_unit_test(test_unlisted_not_declared),
        cmocka_unit_test(test_declared_inconclusive),
        cmocka_unit_test(test_one_read_same_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
