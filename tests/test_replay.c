/* The replay source: per-GPU streams from interleaved files, raw nvidia-smi
 * CSV in both layouts, limits, errors, and every real trace under
 * ../shared/traces read back row for row against its MANIFEST.csv.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "telemetry/source.h"

static struct wt_source *open_replay(const char *path, const struct wt_trace_opts *o,
                                     size_t max_buffered)
{
    struct wt_source_config cfg = {0};
    struct wt_source *src = NULL;
    struct wt_err err;
    cfg.trace_path = path;
    if (o)
        cfg.trace_opts = *o;
    cfg.max_buffered = max_buffered;
    if (wt_source_open("replay", &cfg, &src, &err) != WT_OK)
        fail_msg("open %s: %s", path, err.msg);
    return src;
}

static size_t read_all(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap)
{
    size_t n = 0, got;
    struct wt_err err;
    int rc;
    while ((rc = wt_source_read(src, gpu, buf + n, cap - n > 7 ? 7 : cap - n, &got, &err)) == WT_OK)
        n += got;
    if (rc != WT_DONE)
        fail_msg("read: %s", err.msg);
    return n;
}

static void test_interleaved(void **state)
{
    (void)state;
    const char *p = tu_temp("# gpu_model: Test GPU\n# power_semantics: instant\n"
                            "t_s,gpu,power_w\n0,0,10\n0,1,20\n1,0,11\n1,1,21\n2,1,22\n2,0,12\n");
    struct wt_source *src = open_replay(p, NULL, 0);
    struct wt_sample buf[16];
    /* GPU 1 first: GPU 0's rows wait in their queue */
    size_t n = read_all(src, 1, buf, 16);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++)
        assert_true(buf[i].gpu == 1 && buf[i].v[WT_COL_POWER] == 20 + (double)i);
    n = read_all(src, 0, buf, 16);
    assert_int_equal(n, 3);
    assert_true(buf[2].v[WT_COL_POWER] == 12);
    int count;
    struct wt_err err;
    assert_int_equal(wt_source_device_count(src, &count, &err), WT_OK);
    assert_int_equal(count, 2);
    struct wt_device_info info;
    assert_int_equal(wt_source_device_info(src, 1, &info, &err), WT_OK);
    assert_string_equal(info.name, "Test GPU");
    assert_string_equal(info.power_semantics, "instant");
    assert_string_equal(wt_source_meta(src, "gpu_model"), "Test GPU");
    size_t got;
    assert_int_equal(wt_source_read(src, 5, buf, 4, &got, &err), WT_ENODEV);
    assert_contains(err.msg, "no GPU 5 in this trace (GPUs: 0, 1)");
    assert_int_equal(wt_source_device_info(src, 5, &info, &err), WT_ENODEV);
    assert_string_equal(info.name, "Test GPU"); /* filled all the same */
    wt_source_close(src);
}

/* A recording of GPUs that differ (record's gpu_models and
 * power_semantics_per_gpu lists) reads back each GPU's own model. */
static void test_mixed_models(void **state)
{
    (void)state;
    const char *p = tu_temp("# gpu_model: mixed (see gpu_models)\n# power_semantics: unknown\n"
                            "# gpu_models: 0=NVIDIA A100-SXM4-40GB; 1=NVIDIA H100 PCIe;2= x ; 3=\n"
                            "# power_semantics_per_gpu: 0=instant; 1=AVG1S; 2=weird\n"
                            "t_s,gpu,power_w\n0,0,10\n0,1,20\n0,2,1\n0,3,1\n0,4,1\n");
    struct wt_source *src = open_replay(p, NULL, 0);
    struct wt_device_info info;
    struct wt_err err;
    assert_int_equal(wt_source_device_info(src, 0, &info, &err), WT_OK);
    assert_string_equal(info.name, "NVIDIA A100-SXM4-40GB");
    assert_string_equal(info.power_semantics, "instant");
    assert_int_equal(wt_source_device_info(src, 1, &info, &err), WT_OK);
    assert_string_equal(info.name, "NVIDIA H100 PCIe");
    assert_string_equal(info.power_semantics, "avg1s");
    assert_int_equal(wt_source_device_info(src, 2, &info, &err), WT_OK);
    assert_string_equal(info.name, "x");
    assert_string_equal(info.power_semantics, "unknown"); /* not a semantics: the file's */
    assert_int_equal(wt_source_device_info(src, 3, &info, &err), WT_OK);
    assert_string_equal(info.name, "mixed (see gpu_models)"); /* empty: the file's */
    assert_int_equal(wt_source_device_info(src, 4, &info, &err), WT_OK);
    assert_string_equal(info.name, "mixed (see gpu_models)");
    wt_source_close(src);
}

/* One row per metric: rows of a GPU at the same time with no column in
 * common are one sample; a second reading of a column starts a new one. */
static void test_split_rows(void **state)
{
    (void)state;
    struct wt_sample buf[8];
    const char *p = tu_temp("t_s,gpu,util_gpu_pct,power_w,label\n"
                            "0,0,90,,TRAINING\n0,0,,300,\n0,1,10,,\n"
                            "1,0,91,,\n1,0,,310,TRAINING\n"
                            "2,0,92,,\n2,0,93,,\n");
    struct wt_source *src = open_replay(p, NULL, 0);
    assert_int_equal(read_all(src, 0, buf, 8), 4);
    assert_true(buf[0].v[WT_COL_UTIL_GPU] == 90 && buf[0].v[WT_COL_POWER] == 300);
    assert_int_equal(buf[0].label, WT_CLASS_TRAINING);
    assert_true(buf[1].v[WT_COL_POWER] == 310 && buf[1].label == WT_CLASS_TRAINING);
    assert_true(buf[2].v[WT_COL_UTIL_GPU] == 92 && buf[3].v[WT_COL_UTIL_GPU] == 93);
    assert_int_equal(read_all(src, 1, buf, 8), 1);
    wt_source_close(src);
    /* the GPUs' rows interleaved (sorted by time, metric, GPU): the same samples
     * as rows grouped by GPU, read in either GPU order */
    p = tu_temp("t_s,gpu,util_gpu_pct,power_w\n"
                "0,0,90,\n0,1,80,\n0,0,,300\n0,1,,200\n"
                "1,0,91,\n1,1,81,\n1,0,,310\n1,1,,210\n");
    for (int first = 0; first < 2; first++) {
        src = open_replay(p, NULL, 0);
        for (int k = 0; k < 2; k++) {
            int g = k ? !first : first;
            assert_int_equal(read_all(src, g, buf, 8), 2);
            for (int i = 0; i < 2; i++)
                assert_true(buf[i].v[WT_COL_UTIL_GPU] == 90 - 10 * g + i &&
                            buf[i].v[WT_COL_POWER] == 300 - 100 * g + 10 * i);
        }
        wt_source_close(src);
    }
}

static void test_limits_and_errors(void **state)
{
    (void)state;
    struct wt_source_config cfg = {0};
    struct wt_source *src;
    struct wt_err err;
    cfg.trace_path = "/nonexistent/trace.csv";
    assert_int_equal(wt_source_open("replay", &cfg, &src, &err), WT_EIO);
    assert_string_equal(err.msg, "cannot open '/nonexistent/trace.csv': No such file or directory");
    cfg.trace_path = NULL;
    assert_int_equal(wt_source_open("replay", &cfg, &src, &err), WT_EINVAL);
    assert_contains(err.msg, "needs a trace");
    /* header only: no data rows */
    const char *p = tu_temp("t_s,power_w\n");
    src = open_replay(p, NULL, 0);
    struct wt_sample buf[8];
    size_t got;
    assert_int_equal(wt_source_read(src, 0, buf, 8, &got, &err), WT_EINVAL);
    assert_contains(err.msg, "the trace has no data rows");
    wt_source_close(src);
    /* the buffered-sample cap: reading GPU 1 queues GPU 0's rows */
    p = tu_temp("t_s,gpu\n0,0\n1,0\n2,0\n3,0\n4,0\n5,1\n");
    src = open_replay(p, NULL, 3);
    assert_int_equal(wt_source_read(src, 1, buf, 8, &got, &err), WT_ENOMEM);
    assert_contains(err.msg, "more than 3 samples waiting");
    wt_source_close(src);
    /* ... unless the reader said it will not read GPU 0 (record --gpus 1):
     * its rows, queued ones too, are dropped */
    src = open_replay(p, NULL, 3);
    assert_int_equal(wt_source_read(src, 1, buf, 8, &got, &err), WT_ENOMEM);
    wt_source_ignore(src, 0);
    assert_int_equal(wt_source_read(src, 1, buf, 8, &got, &err), WT_OK);
    assert_true(got == 1 && buf[0].gpu == 1 && buf[0].t_s == 5);
    wt_source_close(src);
    src = open_replay(p, NULL, 3);
    wt_source_ignore(src, 0);
    wt_source_ignore(src, 99); /* out of range: nothing */
    assert_int_equal(read_all(src, 1, buf, 8), 1);
    wt_source_close(src);
    /* counting a file's GPUs queues nothing: 6 rows of GPU 0 and one of GPU
     * 1 are counted under a cap of 3 (the count had queued the whole file,
     * 2.4 GB for the 16M rows allowed), and GPU 0 is read after */
    p = tu_temp("t_s,gpu\n0,0\n1,0\n2,0\n3,0\n4,0\n5,0\n6,1\n");
    src = open_replay(p, NULL, 3);
    int count = 0;
    assert_int_equal(wt_source_device_count(src, &count, &err), WT_OK);
    assert_int_equal(count, 2);
    assert_int_equal(read_all(src, 0, buf, 8), 6);
    wt_source_close(src);
    /* listing GPUs (`gpus`, MCP list_gpus) keeps each GPU's first sample
     * only: GPU 1's limit is read past five rows of GPU 0 under a cap of 3
     * (they were queued: an endless pipe grew without bound until the cap) */
    p = tu_temp("t_s,gpu,power_limit_w\n0,0,300\n1,0,301\n2,0,302\n3,0,303\n4,0,304\n5,1,"
                "400\n6,1,401\n");
    for (int stdin_too = 0; stdin_too < 2; stdin_too++) {
        struct wt_source_config lc = {0};
        FILE *in = NULL;
        lc.trace_path = p;
        if (stdin_too) {
            in = freopen(p, "r", stdin);
            assert_non_null(in);
            lc.trace_path = "-";
        }
        lc.max_buffered = 3;
        lc.list_only = true;
        assert_int_equal(wt_source_open("replay", &lc, &src, &err), WT_OK);
        assert_int_equal(wt_source_device_count(src, &count, &err), WT_OK);
        assert_int_equal(count, 2);
        struct wt_device_info li;
        assert_int_equal(wt_source_device_info(src, 1, &li, &err), WT_OK);
        assert_true(li.power_limit_w == 400);
        assert_int_equal(wt_source_device_info(src, 0, &li, &err), WT_OK);
        assert_true(li.power_limit_w == 300);
        wt_source_close(src);
    }
    /* a limit in a row of its own at the first sample's time is merged into
     * it before the GPU's info is read: a file gave no limit where standard
     * input (read to its end) gave 300 W */
    p = tu_temp("t_s,gpu,power_w,power_limit_w\n0,2,100,\n0,2,,300\n1,2,101,301\n");
    for (int lo = 0; lo < 2; lo++) {
        struct wt_source_config lc = {0};
        lc.trace_path = p;
        lc.list_only = lo;
        assert_int_equal(wt_source_open("replay", &lc, &src, &err), WT_OK);
        struct wt_device_info li;
        assert_int_equal(wt_source_device_info(src, 2, &li, &err), WT_OK);
        assert_true(li.power_limit_w == 300);
        if (!lo) /* the samples read after are unchanged */
            assert_int_equal(read_all(src, 2, buf, 8), 2);
        wt_source_close(src);
    }
    /* ... and no further than the next time: a GPU of one row before many
     * of another queues one of them, not all (a cap of 3) */
    p = tu_temp("t_s,gpu,power_w\n0,0,1\n1,1,1\n2,1,1\n3,1,1\n4,1,1\n5,1,1\n");
    src = open_replay(p, NULL, 3);
    struct wt_device_info one;
    assert_int_equal(wt_source_device_info(src, 0, &one, &err), WT_OK);
    assert_int_equal(wt_source_device_info(src, 1, &one, &err), WT_OK);
    wt_source_close(src);
    /* ... nor, when every row has one time, past INFO_READ_AHEAD rows: a GPU
     * of one row before 5000 rows of another at the same time (a cap of
     * 4200) is not read to the end of the file */
    {
        size_t cap = 64 + 5001 * 16, len = 0;
        char *t = malloc(cap);
        assert_non_null(t);
        len += (size_t)snprintf(t + len, cap - len, "t_s,gpu,power_w\n5,2,1\n");
        for (int i = 0; i < 5000; i++)
            len += (size_t)snprintf(t + len, cap - len, "5,0,%d\n", i);
        p = tu_temp(t);
        free(t);
        src = open_replay(p, NULL, 4200);
        assert_int_equal(wt_source_device_info(src, 2, &one, &err), WT_OK);
        wt_source_close(src);
    }
    /* a GPU the file does not have is absent at once, without queueing the
     * file to find out (a recording of GPU 2 only, a cap of 3 rows) */
    p = tu_temp("t_s,gpu\n0,2\n1,2\n2,2\n3,2\n4,2\n5,2\n");
    src = open_replay(p, NULL, 3);
    assert_int_equal(wt_source_device_count(src, &count, &err), WT_OK);
    assert_int_equal(count, 3);
    struct wt_device_info info;
    assert_int_equal(wt_source_device_info(src, 0, &info, &err), WT_ENODEV);
    assert_int_equal(wt_source_read(src, 1, buf, 2, &got, &err), WT_ENODEV);
    assert_contains(err.msg, "no GPU 1 in this trace (GPUs: 2)");
    assert_int_equal(read_all(src, 2, buf, 8), 6);
    wt_source_close(src);
    /* ... and says a parse error with its line, as reading would */
    p = tu_temp("t_s,gpu\n0,0\n1,x\n");
    src = open_replay(p, NULL, 0);
    assert_true(wt_source_device_count(src, &count, &err) < 0);
    assert_contains(err.msg, ":3: column 'gpu'");
    wt_source_close(src);
    /* a parse error surfaces through read with file and line */
    p = tu_temp("t_s,power_w\n0,1\n1,x\n");
    src = open_replay(p, NULL, 0);
    assert_int_equal(wt_source_read(src, 0, buf, 1, &got, &err), WT_OK);
    assert_true(wt_source_read(src, 0, buf, 8, &got, &err) < 0);
    assert_contains(err.msg, ":3: column 'power_w': not a number: 'x'");
    wt_source_close(src);
}

static void test_nvsmi_layouts(void **state)
{
    (void)state;
    struct wt_sample buf[64];
    /* with an index column, units in cells */
    const char *p = tu_temp("timestamp, index, utilization.gpu [%], memory.used [MiB], "
                            "power.draw [W]\n"
                            "2024/04/03 10:47:35.000, 0, 90 %, 131 MiB, 72.36 W\n"
                            "2024/04/03 10:47:35.002, 1, 0 %, 5 MiB, 60.00 W\n"
                            "2024/04/03 10:47:36.000, 0, 91 %, 132 MiB, 73.00 W\n"
                            "2024/04/03 10:47:36.002, 1, 0 %, 5 MiB, 61.00 W\n");
    struct wt_source *src = open_replay(p, NULL, 0);
    assert_int_equal(read_all(src, 1, buf, 64), 2);
    assert_true(buf[1].v[WT_COL_POWER] == 61 && buf[1].v[WT_COL_MEM_USED] == 5);
    assert_int_equal(read_all(src, 0, buf, 64), 2);
    assert_true(buf[0].v[WT_COL_UTIL_GPU] == 90 && fabs(buf[1].t_s - 1.0) < 1e-9);
    wt_source_close(src);
    /* the model comes from the `name` field of the rows: known before the
     * first read, so that power can be put on the card's rated scale */
    p = tu_temp("timestamp, index, name, power.draw [W], power.limit [W]\n"
                "2024/04/03 10:47:35.000, 0, NVIDIA A100-SXM4-40GB, 72.36 W, 400.00 W\n"
                "2024/04/03 10:47:35.002, 1, NVIDIA A100-SXM4-40GB, 60.00 W, 300.00 W\n");
    src = open_replay(p, NULL, 0);
    struct wt_device_info info;
    struct wt_err ierr;
    assert_int_equal(wt_source_device_info(src, 1, &info, &ierr), WT_OK);
    assert_string_equal(info.name, "NVIDIA A100-SXM4-40GB");
    assert_true(info.power_limit_w == 300);
    assert_int_equal(read_all(src, 0, buf, 64), 1);
    assert_int_equal(read_all(src, 1, buf, 64), 1);
    assert_int_equal(wt_source_device_info(src, 3, &info, &ierr),
                     WT_ENODEV); /* absent, info filled */
    assert_string_equal(info.name, "NVIDIA A100-SXM4-40GB");
    wt_source_close(src);
    /* the preferred power field "[N/A]" on every field of the first rows,
     * the averaged one with values later: the GPU's semantics are those of
     * the field read (the header's first choice, instant, had been said) */
    p = tu_temp("timestamp, index, power.draw.instant [W], power.draw.average [W]\n"
                "2024/04/03 10:47:35.000, 0, [N/A], [N/A]\n"
                "2024/04/03 10:47:36.000, 0, [N/A], [N/A]\n"
                "2024/04/03 10:47:37.000, 0, [N/A], 250.00 W\n"
                "2024/04/03 10:47:38.000, 0, [N/A], 251.00 W\n");
    src = open_replay(p, NULL, 0);
    assert_int_equal(wt_source_device_info(src, 0, &info, &ierr), WT_OK);
    assert_string_equal(info.power_semantics, "avg1s");
    assert_int_equal(read_all(src, 0, buf, 64), 4);
    assert_true(buf[3].v[WT_COL_POWER] == 251);
    wt_source_close(src);
    /* a host whose GPUs differ: each GPU is its own rows' model, so a T4 is
     * not put on an A100's power scale */
    p = tu_temp("timestamp, index, name, power.draw [W]\n"
                "2024/04/03 10:00:00.000, 0, NVIDIA A100-SXM4-80GB, 60 W\n"
                "2024/04/03 10:00:00.000, 1, Tesla T4, 68 W\n"
                "2024/04/03 10:00:01.000, 0, NVIDIA A100-SXM4-80GB, 60 W\n"
                "2024/04/03 10:00:01.000, 1, Tesla T4, 69 W\n");
    src = open_replay(p, NULL, 0);
    assert_int_equal(wt_source_device_info(src, 1, &info, &ierr), WT_OK);
    assert_string_equal(info.name, "Tesla T4");
    assert_int_equal(wt_source_device_info(src, 0, &info, &ierr), WT_OK);
    assert_string_equal(info.name, "NVIDIA A100-SXM4-80GB");
    wt_source_close(src);
    /* without an index column: per-tick groups, detected from timestamps */
    char t[4096];
    size_t off = (size_t)snprintf(t, sizeof(t),
                                  "timestamp, power.draw [W], utilization.gpu [%%], "
                                  "utilization.memory [%%]\n");
    for (int tick = 0; tick < 10; tick++)
        for (int g = 0; g < 2; g++)
            off += (size_t)snprintf(t + off, sizeof(t) - off,
                                    "2024/04/03 10:47:%02d.%03d, %d.00 W, %d %%, 1 %%\n", 10 + tick,
                                    g * 4, 100 * (g + 1) + tick, g ? 0 : 95);
    p = tu_temp(t);
    src = open_replay(p, NULL, 0);
    int count;
    struct wt_err err;
    assert_int_equal(wt_source_device_count(src, &count, &err), WT_OK);
    assert_int_equal(count, 2);
    assert_int_equal(read_all(src, 1, buf, 64), 10);
    for (int i = 0; i < 10; i++)
        assert_true(buf[i].v[WT_COL_POWER] == 200 + i && buf[i].v[WT_COL_UTIL_GPU] == 0);
    wt_source_close(src);
}

/* ---- every real trace, checked against MANIFEST.csv ---- */

/* Splits one MANIFEST line (RFC 4180 quoting) into at most cap fields. */
static int split_manifest(char *line, char **f, int cap)
{
    int n = 0;
    char *p = line, *w;
    while (n < cap) {
        f[n++] = w = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0')
                    return n;
                if (*p == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *w++ = *p++;
                }
            }
            *w = '\0';
            if (*p == ',')
                p++;
            else
                return n;
        } else {
            char *c = strchr(p, ',');
            if (!c) {
                p[strcspn(p, "\r\n")] = '\0';
                return n;
            }
            *c = '\0';
            p = c + 1;
        }
    }
    return n;
}

static void test_shared_traces(void **state)
{
    (void)state;
    char manifest[512];
    snprintf(manifest, sizeof(manifest), "%s/MANIFEST.csv", WT_SHARED_TRACES);
    FILE *m = fopen(manifest, "r");
    if (!m) {
        print_message("no %s: skipped\n", manifest);
        skip();
    }
    static char line[65536];
    size_t cap = 1 << 20;
    struct wt_sample *buf = malloc(cap * sizeof(*buf));
    assert_non_null(buf);
    int files = 0;
    assert_non_null(fgets(line, sizeof(line), m)); /* header */
    while (fgets(line, sizeof(line), m)) {
        char *f[16];
        if (split_manifest(line, f, 16) < 10)
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", WT_SHARED_TRACES, f[0]);
        long want_rows = atol(f[8]);
        int want_gpus = atoi(f[6]);
        /* label counts: "INFERENCE:15282;IDLE:912;empty:4569" */
        long want[4] = {0}; /* TRAINING, INFERENCE, IDLE, empty */
        for (char *tok = strtok(f[9], ";"); tok; tok = strtok(NULL, ";")) {
            char *colon = strchr(tok, ':');
            assert_non_null(colon);
            *colon = '\0';
            enum wt_class c = wt_class_parse(tok, false);
            want[c == WT_CLASS_NONE ? 3 : c] = atol(colon + 1);
        }
        struct wt_source *src = open_replay(path, NULL, 0);
        int gpus;
        struct wt_err err;
        if (wt_source_device_count(src, &gpus, &err) != WT_OK)
            fail_msg("%s", err.msg);
        if (gpus != want_gpus)
            fail_msg("%s: %d GPUs, MANIFEST says %d", f[0], gpus, want_gpus);
        long rows = 0, got[4] = {0};
        for (int g = 0; g < gpus; g++) {
            size_t n = read_all(src, g, buf, cap);
            rows += (long)n;
            for (size_t i = 0; i < n; i++) {
                got[buf[i].label == WT_CLASS_NONE ? 3 : buf[i].label]++;
                if (i)
                    assert_true(buf[i].t_s >= buf[i - 1].t_s);
            }
        }
        if (rows != want_rows)
            fail_msg("%s: read %ld rows, MANIFEST says %ld", f[0], rows, want_rows);
        for (int c = 0; c < 4; c++)
            if (got[c] != want[c])
                fail_msg("%s: label %d: %ld rows, MANIFEST says %ld", f[0], c, got[c], want[c]);
        wt_source_close(src);
        files++;
    }
    fclose(m);
    free(buf);
    assert_int_equal(files, 157);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleaved),   cmocka_unit_test(test_mixed_models),
        cmocka_unit_test(test_split_rows),    cmocka_unit_test(test_limits_and_errors),
        cmocka_unit_test(test_nvsmi_layouts), cmocka_unit_test(test_shared_traces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
