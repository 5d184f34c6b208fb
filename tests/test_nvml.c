/* The nvml source against the driver test double (tests/fake_nvml.c): loading
 * and symbol fallbacks, every column, sample buffers and their timestamps,
 * MIG, per-process lists (including the 535-era struct), and faults (lost
 * GPU, version mismatch, missing driver, missing symbols, permissions).
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include <time.h>

#include "telemetry/source.h"
#include "util/clock.h"

static const char *fixture = WT_TEST_DATA "/fake_gpu.csv";

static void env(const char *faults)
{
    setenv("WT_FAKE_NVML_TRACE", fixture, 1);
    setenv("WT_FAKE_NVML_PROCS", "0:4242:2048,0:4243:512,1:4343:1024", 1);
    if (faults)
        setenv("WT_FAKE_NVML_FAULTS", faults, 1);
    else
        unsetenv("WT_FAKE_NVML_FAULTS");
    unsetenv("WT_FAKE_NVML_SPEED");
    unsetenv("WT_FAKE_NVML_PREROLL");
}

static int open_nvml(const char *lib, double interval, struct wt_source **src, struct wt_err *err)
{
    struct wt_source_config cfg = {0};
    cfg.nvml_lib = lib;
    cfg.interval_s = interval;
    return wt_source_open("nvml", &cfg, src, err);
}

static struct wt_source *must_open(const char *lib, double interval)
{
    struct wt_source *src;
    struct wt_err err;
    if (open_nvml(lib, interval, &src, &err) != WT_OK)
        fail_msg("open: %s", err.msg);
    return src;
}

/* Reads until at least want samples of gpu arrived (or a failure). */
static size_t read_some(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap,
                        size_t want, int *rc_out, struct wt_err *err)
{
    size_t n = 0;
    *rc_out = WT_OK;
    while (n < want) {
        size_t got = 0;
        int rc = wt_source_read(src, gpu, buf + n, cap - n, &got, err);
        if (rc) {
            *rc_out = rc;
            break;
        }
        n += got;
    }
    return n;
}

static void test_open_and_info(void **state)
{
    (void)state;
    env(NULL);
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.2);
    int n;
    struct wt_err err;
    assert_int_equal(wt_source_device_count(src, &n, &err), WT_OK);
    assert_int_equal(n, 2);
    struct wt_device_info d;
    assert_int_equal(wt_source_device_info(src, 1, &d, &err), WT_OK);
    assert_string_equal(d.name, "NVIDIA A100-SXM4-40GB");
    assert_string_equal(d.uuid, "GPU-fake-0000-0001");
    assert_string_equal(d.pci_bus_id, "00000000:18:00.0");
    assert_string_equal(d.driver_version, "550.54.15");
    assert_string_equal(d.power_semantics, "instant"); /* NVML_FI_DEV_POWER_INSTANT works */
    assert_true(d.mem_total_mib == 40960);
    assert_true(d.power_limit_w == 400 && d.power_default_limit_w == 400);
    assert_int_equal(d.mig_mode, 0);
    assert_string_equal(wt_source_meta(src, "driver_version"), "550.54.15");
    assert_int_equal(wt_source_device_info(src, 2, &d, &err), WT_ENODEV);
    wt_source_close(src);
    /* a UUID call that fails once is asked again: the GPU keeps its identity
     * (it had none for the run); one that always fails gives none */
    env("flaky=1:nvmlDeviceGetUUID:1:0:999");
    src = must_open(WT_FAKE_NVML, 0.2);
    assert_int_equal(wt_source_device_info(src, 1, &d, &err), WT_OK);
    assert_string_equal(d.uuid, "GPU-fake-0000-0001");
    wt_source_close(src);
    env("flaky=1:nvmlDeviceGetUUID:1:1:10");
    src = must_open(WT_FAKE_NVML, 0.2);
    assert_int_equal(wt_source_device_info(src, 1, &d, &err), WT_OK);
    assert_string_equal(d.uuid, "");
    assert_string_equal(d.name, "NVIDIA A100-SXM4-40GB");
    wt_source_close(src);
}

/* Sub-second samples from the driver's buffers, every column, in time order. */
static void test_samples(void **state)
{
    (void)state;
    env(NULL);
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.25);
    static struct wt_sample buf[400];
    struct wt_err err;
    int rc;
    size_t n = read_some(src, 0, buf, 400, 15, &rc, &err), nenergy = 0;
    assert_int_equal(rc, WT_OK);
    /* rows of two polls at least (one late first poll, on a loaded machine,
     * can bring 15 rows at once, with the counter on its newest only) */
    for (;;) {
        size_t polls = 0;
        for (size_t i = 0; i < n; i++)
            polls += wt_measured(buf[i].v[WT_COL_ENERGY]);
        if (polls >= 2 || n >= 390)
            break;
        n += read_some(src, 0, buf + n, 400 - n, 1, &rc, &err);
        assert_int_equal(rc, WT_OK);
    }
    double last_e = NAN;
    assert_true(n >= 15);
    for (size_t i = 0; i < n; i++) {
        const struct wt_sample *s = &buf[i];
        if (i)
            assert_true(s->t_s > buf[i - 1].t_s);
        assert_true(s->t_s > -0.5 && s->t_s < 60);
        /* the fixture: util = 37 k mod 101, mem util = 0.4 util, power = 100 + 2.5 util */
        double u = s->v[WT_COL_UTIL_GPU];
        assert_true(wt_measured(u));
        assert_true(s->v[WT_COL_UTIL_MEM] == floor(u * 0.4));
        assert_true(fabs(s->v[WT_COL_POWER] - (100 + 2.5 * u)) < 1e-6);
        assert_true(s->v[WT_COL_MEM_USED] == 20000 && s->v[WT_COL_MEM_TOTAL] == 40960);
        assert_true(s->v[WT_COL_POWER_LIMIT] == 400 && s->v[WT_COL_POWER_DEFAULT_LIMIT] == 400);
        assert_true(s->v[WT_COL_SM_CLOCK] == 1410 && s->v[WT_COL_SM_CLOCK_MAX] == 1410);
        assert_true(s->v[WT_COL_MEM_CLOCK] == 1215 && s->v[WT_COL_TEMP] == 55);
        assert_true(s->v[WT_COL_PCIE_TX] == 12 && s->v[WT_COL_PCIE_RX] == 34);
        assert_true(s->v[WT_COL_CLOCK_REASONS] == 0);
        /* the counter read at a poll, on that poll's newest row only */
        if (wt_measured(s->v[WT_COL_ENERGY])) {
            assert_true(s->v[WT_COL_ENERGY] > 1000);
            assert_true(!wt_measured(last_e) || s->v[WT_COL_ENERGY] >= last_e);
            last_e = s->v[WT_COL_ENERGY];
            nenergy++;
        }
        assert_true(s->v[WT_COL_PROCS] == 2);
    }
    assert_true(nenergy >= 2 && nenergy < n);
    /* consecutive buffered samples are the trace's 0.1 s apart */
    assert_true(fabs((buf[2].t_s - buf[1].t_s) - 0.1) < 0.002);
    /* GPU 1 has been sampled meanwhile: its rows are queued */
    size_t got;
    assert_int_equal(wt_source_read(src, 1, buf, 400, &got, &err), WT_OK);
    assert_true(got >= 5);
    assert_true(buf[0].v[WT_COL_CLOCK_REASONS] == 4);
    struct wt_device_info d;
    assert_int_equal(wt_source_device_info(src, 0, &d, &err), WT_OK);
    assert_true(d.achieved_hz > 5 && d.achieved_hz < 15);
    wt_source_close(src);
}

/* A GPU nobody reads keeps only its newest 4096 rows (record --gpus 0 on a
 * host of 8 had queued 200000 rows, about 30 MB, for each other GPU). */
static void test_unread_queue(void **state)
{
    (void)state;
    env(NULL);
    setenv("WT_FAKE_NVML_SPEED", "10",
           1); /* the fixture's 12 s end in 1.2 s: then polls are rows */
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.0005);
    static struct wt_sample buf[8192];
    struct wt_err err;
    int rc;
    size_t n = read_some(src, 0, buf, 8192, 6000, &rc, &err);
    assert_int_equal(rc, WT_OK);
    double last0 = buf[n - 1].t_s;
    size_t got = 0;
    assert_int_equal(wt_source_read(src, 1, buf, 8192, &got, &err), WT_OK);
    assert_true(got > 1000 && got <= 4096);
    assert_true(fabs(buf[got - 1].t_s - last0) < 0.5); /* the newest, not the oldest */
    wt_source_close(src);
    unsetenv("WT_FAKE_NVML_SPEED");
}

static void test_empty_and_boottime(void **state)
{
    (void)state;
    static struct wt_sample buf[100];
    struct wt_err err;
    int rc;
    /* empty buffers (an idle GPU): one sample per poll, from point readings */
    env("empty_samples");
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.1);
    size_t n = read_some(src, 0, buf, 100, 4, &rc, &err);
    assert_int_equal(rc, WT_OK);
    /* polls keep to a 0.1 s grid: a late one shortens the gap after it, so
     * each gap is only checked loosely and the whole run against the grid */
    assert_true(n >= 4);
    for (size_t i = 1; i < n; i++) {
        double dt = buf[i].t_s - buf[i - 1].t_s;
        assert_true(dt > 0 && dt < 20); /* (a stalled poll on a loaded machine) */
        assert_true(wt_measured(buf[i].v[WT_COL_UTIL_GPU])); /* GetUtilizationRates */
    }
    assert_true(buf[n - 1].t_s - buf[0].t_s >= (double)(n - 2) * 0.1 - 1e-3);
    wt_source_close(src);
    /* buffer timestamps counting from boot are re-anchored to wall time */
    env("boottime");
    src = must_open(WT_FAKE_NVML, 0.2);
    n = read_some(src, 0, buf, 100, 10, &rc, &err);
    assert_int_equal(rc, WT_OK);
    for (size_t i = 0; i < n; i++)
        assert_true(buf[i].t_s > -0.5 && buf[i].t_s < 30); /* not seconds since boot */
    wt_source_close(src);
}

/* The driver's buffers already hold 3 s of readings at start: they are not
 * part of the run, but their spacing is measured. */
static void test_history(void **state)
{
    (void)state;
    env(NULL);
    setenv("WT_FAKE_NVML_PREROLL", "3", 1);
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.2);
    struct wt_device_info d;
    struct wt_err err;
    assert_int_equal(wt_source_device_info(src, 0, &d, &err), WT_OK);
    assert_true(fabs(d.util_buffer_period_s - 0.1) < 1e-3);
    assert_true(fabs(d.power_buffer_period_s - 0.1) < 1e-3);
    static struct wt_sample buf[100];
    int rc;
    size_t n = read_some(src, 0, buf, 100, 5, &rc, &err);
    assert_int_equal(rc, WT_OK);
    for (size_t i = 0; i < n; i++)
        assert_true(buf[i].t_s > -0.05); /* nothing from before the run */
    /* the first sample is the trace's at 3.0 s (k = 30: util 37 * 30 mod 101),
     * or a later one when the first poll came late (a loaded machine: up to
     * 7 s late; from k = 101 on, the values are those of k - 101, which a
     * sample from before the run would have) */
    int first_k = -1;
    for (int k = 30; k <= 100 && first_k < 0; k++)
        if (buf[0].v[WT_COL_UTIL_GPU] == (37 * k) % 101)
            first_k = k;
    assert_true(first_k >= 30);
    wt_source_close(src);
    unsetenv("WT_FAKE_NVML_PREROLL");
}

/* A new trace file at path (a mkstemp template) that starts with head,
 * open to write its rows. */
static FILE *new_trace(char *path, const char *head)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(head, f);
    return f;
}

#define A100_HEAD "# gpu_model: NVIDIA A100-SXM4-40GB\n# power_semantics: instant\n"

/* Writes a trace for the fake to serve into path (a mkstemp template): head,
 * then 50 rows of 0.1 s with utilization util, memory utilization 20 and power
 * 300 W rising; no faults. */
static void serve(char *path, const char *head, const char *util)
{
    FILE *f = new_trace(path, head);
    for (int i = 0; i < 50; i++)
        fprintf(f, "%.1f,0,%s,20,%d\n", i * 0.1, util, 300 + i);
    fclose(f);
    setenv("WT_FAKE_NVML_TRACE", path, 1);
    unsetenv("WT_FAKE_NVML_FAULTS");
}

static void test_power_semantics(void **state)
{
    (void)state;
    /* no instantaneous field on an Ampere-or-newer (not A100) board: avg1s */
    char path[] = "/tmp/wt_fake_h100_XXXXXX";
    serve(path,
          "# gpu_model: NVIDIA H100 80GB HBM3\n# power_semantics: avg1s\n"
          "t_s,gpu,util_gpu_pct,util_mem_pct,power_w\n",
          "50");
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.2);
    struct wt_device_info d;
    struct wt_err err;
    assert_int_equal(wt_source_device_info(src, 0, &d, &err), WT_OK);
    assert_string_equal(d.power_semantics, "avg1s");
    assert_true(isnan(d.mem_total_mib)); /* column absent: NOT_SUPPORTED: not measured */
    static struct wt_sample buf[100];
    int rc;
    size_t n = read_some(src, 0, buf, 100, 3, &rc, &err);
    assert_int_equal(rc, WT_OK);
    assert_true(n >= 3);
    assert_true(isnan(buf[0].v[WT_COL_MEM_USED]));
    assert_true(buf[0].v[WT_COL_POWER] >= 300);
    wt_source_close(src);
    unlink(path);
}

/* The power semantics follow the model number as a word: RTX A1000/A3000
 * (not GA100) average over a second, A100/A30 read instantaneous power. */
static void test_power_semantics_names(void **state)
{
    (void)state;
    static const struct {
        const char *name, *want;
    } cases[] = {{"NVIDIA RTX A1000", "avg1s"},
                 {"NVIDIA RTX A3000 Laptop GPU", "avg1s"},
                 {"NVIDIA A30", "instant"},
                 {"NVIDIA A100 80GB PCIe", "instant"}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        char path[] = "/tmp/wt_fake_name_XXXXXX";
        FILE *f = new_trace(path, "");
        fprintf(f, "# gpu_model: %s\nt_s,gpu,util_gpu_pct,power_w\n0,0,50,100\n0.1,0,50,101\n",
                cases[c].name);
        fclose(f);
        setenv("WT_FAKE_NVML_TRACE", path, 1);
        unsetenv("WT_FAKE_NVML_FAULTS");
        struct wt_source *src = must_open(WT_FAKE_NVML, 0.2);
        struct wt_device_info d;
        struct wt_err err;
        assert_int_equal(wt_source_device_info(src, 0, &d, &err), WT_OK);
        if (strcmp(d.power_semantics, cases[c].want))
            fail_msg("%s: power semantics %s, want %s", cases[c].name, d.power_semantics,
                     cases[c].want);
        wt_source_close(src);
        unlink(path);
    }
}

/* A driver's bogus reading (a utilization of 4294967295 %) is not measured:
 * it would move the features, and a trace recorded from it is unreadable. */
static void test_bogus_values(void **state)
{
    (void)state;
    char path[] = "/tmp/wt_fake_bogus_XXXXXX";
    serve(path, A100_HEAD "t_s,gpu,util_gpu_pct,util_mem_pct,power_w\n", "4294967295");
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.1);
    static struct wt_sample buf[100];
    int rc;
    struct wt_err err;
    size_t n = read_some(src, 0, buf, 100, 5, &rc, &err);
    assert_int_equal(rc, WT_OK);
    assert_true(n >= 5);
    for (size_t i = 0; i < n; i++) {
        assert_true(isnan(buf[i].v[WT_COL_UTIL_GPU]));
        assert_true(buf[i].v[WT_COL_UTIL_MEM] == 20);
    }
    wt_source_close(src);
    unlink(path);
}

/* The default power limit and the maximum SM clock are read at every poll:
 * probed once at start, a failed first read (here the trace's first 0.3 s
 * have neither, so the fake answers NOT_SUPPORTED) left the GPU without its
 * limit ratio and tamper indicators for the whole run.  A failed read after
 * a good one (from 0.8 s) keeps the last value read. */
static void test_settings_every_poll(void **state)
{
    (void)state;
    char path[] = "/tmp/wt_fake_settings_XXXXXX";
    FILE *f = new_trace(path, A100_HEAD "t_s,gpu,util_gpu_pct,power_w,power_limit_w,"
                                        "power_default_limit_w,sm_clock_max_mhz\n");
    for (int i = 0; i < 50; i++) {
        if (i < 3 || i >= 8)
            fprintf(f, "%.1f,0,90,250,250,,\n", i * 0.1);
        else
            fprintf(f, "%.1f,0,90,250,250,400,1410\n", i * 0.1);
    }
    fclose(f);
    setenv("WT_FAKE_NVML_TRACE", path, 1);
    unsetenv("WT_FAKE_NVML_FAULTS");
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.2);
    static struct wt_sample buf[200];
    struct wt_err err;
    int rc;
    size_t n = 0;
    /* rows until one past 1.2 s (the fake's trace time runs with the clock) */
    while (n < 190 && (n == 0 || buf[n - 1].t_s < 1.2)) {
        n += read_some(src, 0, buf + n, 200 - n, 1, &rc, &err);
        assert_int_equal(rc, WT_OK);
    }
    assert_true(buf[n - 1].v[WT_COL_POWER_DEFAULT_LIMIT] == 400);
    assert_true(buf[n - 1].v[WT_COL_SM_CLOCK_MAX] == 1410);
    struct wt_device_info d;
    assert_int_equal(wt_source_device_info(src, 0, &d, &err), WT_OK);
    assert_true(d.power_default_limit_w == 400);
    wt_source_close(src);
    unlink(path);
}

/* A live window of 5 polls covers 5 intervals: the first as the classifier
 * counts it (span and one sample period), the later ones from the previous
 * window's last sample.  The first poll's lone sample and then the driver's
 * buffered readings covered one interval less, and with ten readings a poll
 * every later window ended after 4 polls (its span alone reached 3.9
 * intervals): a window of the fewest polls a classifier judges was UNKNOWN. */
static void test_window_covers_polls(void **state)
{
    (void)state;
    env(NULL);
    setenv("WT_FAKE_NVML_SPEED", "5", 1); /* readings 0.02 s apart: ten a poll */
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.2);
    struct wt_sample *b = NULL;
    size_t cap = 0, n = 0;
    struct wt_err err;
    struct wt_polls st;
    double end, prev = NAN;
    wt_polls_init(&st);
    for (int w = 0; w < 3; w++) {
        assert_int_equal(wt_source_read_polls(src, 0, &b, &cap, 4096, 5, 0.2, &st, NULL, &n, &err),
                         WT_OK);
        assert_true(n >= 5);
        end = st.last_end;
        assert_true(end == b[n - 1].t_s);
        double covers = w ? end - prev : b[n - 1].t_s - b[0].t_s + 0.02;
        if (covers < 0.98 - 1e-9)
            fail_msg("window %d: 5 polls of 0.2 s cover %.3f s (%zu samples)", w + 1, covers, n);
        prev = end;
    }
    free(b);
    wt_polls_free(&st);
    wt_source_close(src);
    unsetenv("WT_FAKE_NVML_SPEED");
}

/* A late poll (a slow process list, a busy host) brings more readings in
 * one read than the window has room for: those past its 5 intervals open
 * the next window, which they may fill alone.  The whole read was taken,
 * and a 1.3 s delay made 5 polls of 0.2 s cover 1.3 s.  A caller back more
 * than a window late finds more than a window carried: the next window is
 * the newest of them, the older dropped (windows fell behind the GPU by a
 * window more each slow round). */
static void test_window_carries_late_readings(void **state)
{
    (void)state;
    env(NULL);
    /* readings 0.1 s apart, two a poll, for the fixture's 12.8 s */
    setenv("WT_FAKE_NVML_SPEED", "1", 1);
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.2);
    struct wt_sample *b = NULL;
    size_t cap = 0, n = 0;
    struct wt_err err;
    struct wt_polls st;
    double prev = NAN;
    /* the third fills the fourth; after the fifth, 1.5 s are carried, and
     * the sixth is the newest 1 s of them */
    const double late[] = {0, 0.3, 1.3, 0, 2.5, 0, 0};
    wt_polls_init(&st);
    for (int w = 0; w < 7; w++) {
        struct timespec ts = {0, (long)(late[w] * 1e9) % 1000000000L};
        ts.tv_sec = (time_t)late[w];
        nanosleep(&ts, NULL);
        assert_int_equal(wt_source_read_polls(src, 0, &b, &cap, 4096, 5, 0.2, &st, NULL, &n, &err),
                         WT_OK);
        assert_true(n >= 5);
        assert_true(st.last_end == b[n - 1].t_s);
        for (size_t i = 1; i < n; i++)
            assert_true(b[i].t_s > b[i - 1].t_s);
        if (w) {
            int dropped = w == 5;
            double gap = b[0].t_s - prev;
            double covers = dropped ? st.last_end - b[0].t_s + 0.1 : st.last_end - prev;
            if (covers < 0.95 - 1e-9 || covers > 1.0 + 1e-6)
                fail_msg("window %d: 5 polls of 0.2 s cover %.3f s (%zu samples)", w + 1, covers,
                         n);
            /* none lost between windows (the next reading, 0.1 s on), but
             * those dropped for being more than a window behind */
            if (dropped ? gap < 0.3 : (gap <= 0 || gap > 0.1 + 1e-6))
                fail_msg("window %d starts %.3f s after the previous one", w + 1, gap);
        }
        prev = st.last_end;
    }
    free(b);
    wt_polls_free(&st);
    wt_source_close(src);
    unsetenv("WT_FAKE_NVML_SPEED");
}

static void test_lost_gpu(void **state)
{
    (void)state;
    env("lost=1@40");
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.05);
    static struct wt_sample buf[2000];
    struct wt_err err;
    int rc = WT_OK;
    size_t got;
    /* GPU 1 works, then falls off the bus */
    for (int i = 0; i < 200 && rc == WT_OK; i++)
        rc = wt_source_read(src, 1, buf, 2000, &got, &err);
    assert_int_equal(rc, WT_ENODEV);
    assert_contains(err.msg, "GPU 1 (NVIDIA A100-SXM4-40GB, 00000000:18:00.0) fell off the bus");
    assert_contains(err.msg, "GPU is lost");
    /* ... and GPU 0 keeps working */
    size_t n = read_some(src, 0, buf, 2000, 3, &rc, &err);
    assert_int_equal(rc, WT_OK);
    assert_true(n >= 3);
    struct wt_device_info d;
    assert_int_equal(wt_source_device_info(src, 1, &d, &err), WT_OK);
    assert_contains(d.notes, "fell off the bus");
    wt_source_close(src);
}

static void test_open_errors(void **state)
{
    (void)state;
    struct wt_source *src;
    struct wt_err err;
    env("init=18");
    assert_int_equal(open_nvml(WT_FAKE_NVML, 1, &src, &err), WT_EIO);
    assert_contains(err.msg, "are different versions");
    assert_contains(err.msg, "reboot, or reload the nvidia kernel module");
    env("init=9");
    assert_int_equal(open_nvml(WT_FAKE_NVML, 1, &src, &err), WT_ENODEV);
    assert_contains(err.msg, "the NVIDIA kernel driver is not loaded");
    env("init=4");
    assert_int_equal(open_nvml(WT_FAKE_NVML, 1, &src, &err), WT_EIO);
    assert_contains(err.msg, "no permission");
    env("nogpus");
    assert_int_equal(open_nvml(WT_FAKE_NVML, 1, &src, &err), WT_ENODEV);
    assert_contains(err.msg, "reports no GPU");
    env("noperm=handle");
    assert_int_equal(open_nvml(WT_FAKE_NVML, 1, &src, &err), WT_EIO);
    assert_contains(err.msg, "no NVIDIA GPU could be opened");
    env(NULL);
    assert_int_equal(open_nvml("/nonexistent/libnvidia-ml.so.1", 1, &src, &err), WT_ENODEV);
    assert_contains(err.msg, "cannot load the NVIDIA management library");
    assert_int_equal(open_nvml("/usr/local/cuda/lib64/stubs/libnvidia-ml.so", 1, &src, &err),
                     WT_EINVAL);
    assert_contains(err.msg, "a CUDA toolkit stub");
    assert_int_equal(open_nvml(WT_FAKE_NVML_BROKEN, 1, &src, &err), WT_EIO);
    assert_contains(err.msg, "lacks the NVML function nvmlDeviceGetCount_v2 (or "
                             "nvmlDeviceGetCount)");
    /* auto: no driver -> the suggestion */
    struct wt_source_config cfg = {0};
    cfg.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
    assert_int_equal(wt_source_open("auto", &cfg, &src, &err), WT_ENODEV);
    assert_contains(err.msg, "use --backend synthetic, or --trace FILE");
    /* WT_NVML_LIB picks the library when no path is given */
    setenv("WT_NVML_LIB", WT_FAKE_NVML, 1);
    cfg.nvml_lib = NULL;
    assert_int_equal(wt_source_open("auto", &cfg, &src, &err), WT_OK);
    assert_string_equal(src->ops->name, "nvml");
    wt_source_close(src);
    unsetenv("WT_NVML_LIB");
}

/* A driver without the _v2 entry points, sample buffers or field values. */
static void test_old_driver(void **state)
{
    (void)state;
    env(NULL);
    struct wt_source *src = must_open(WT_FAKE_NVML_OLD, 0.1);
    struct wt_err err;
    struct wt_device_info d;
    assert_int_equal(wt_source_device_info(src, 0, &d, &err), WT_OK);
    assert_string_equal(d.pci_bus_id, "");             /* no _v3/_v2 PCI info */
    assert_true(d.mem_total_mib == 40960);             /* nvmlDeviceGetMemoryInfo (v1) */
    assert_string_equal(d.power_semantics, "instant"); /* A100 by name: GA100 is instant */
    assert_contains(d.notes, "no utilization sample buffer");
    static struct wt_sample buf[50];
    int rc;
    size_t n = read_some(src, 0, buf, 50, 3, &rc, &err);
    assert_int_equal(rc, WT_OK);
    assert_true(wt_measured(buf[0].v[WT_COL_UTIL_GPU]));
    assert_true(wt_measured(buf[0].v[WT_COL_CLOCK_REASONS])); /* the Throttle name */
    assert_true(buf[n - 1].v[WT_COL_PROCS] == 2);
    struct wt_proc p[8];
    size_t np;
    assert_int_equal(wt_source_processes(src, 0, p, 8, &np, NULL, &err), WT_OK);
    assert_int_equal(np, 2);
    assert_int_equal(p[0].pid, 4242);
    assert_true(p[0].used_mib == 2048);
    wt_source_close(src);
}

static void test_processes(void **state)
{
    (void)state;
    struct wt_err err;
    struct wt_proc p[8];
    size_t np;
    /* nvmlDeviceGetRunningProcessDetailList */
    env(NULL);
    struct wt_source *src = must_open(WT_FAKE_NVML, 1);
    assert_int_equal(wt_source_processes(src, 0, p, 8, &np, NULL, &err), WT_OK);
    assert_int_equal(np, 2);
    assert_true(p[0].pid == 4242 && p[0].used_mib == 2048);
    assert_true(p[1].pid == 4243 && p[1].used_mib == 512);
    assert_true(wt_measured(p[0].sm_util_pct));
    assert_int_equal(wt_source_processes(src, 1, p, 8, &np, NULL, &err), WT_OK);
    assert_true(np == 1 && p[0].pid == 4343 && p[0].used_mib == 1024);
    wt_source_close(src);
    /* drivers 535.43-535.85: 32-byte entries behind _v3; read at the right stride */
    env("proc535");
    src = must_open(WT_FAKE_NVML, 1);
    assert_string_equal(wt_source_meta(src, "driver_version"), "535.54.03");
    assert_int_equal(wt_source_processes(src, 0, p, 8, &np, NULL, &err), WT_OK);
    assert_int_equal(np, 2);
    assert_true(p[0].pid == 4242 && p[0].used_mib == 2048);
    assert_true(p[1].pid == 4243 && p[1].used_mib == 512);
    wt_source_close(src);
}

static void test_mig(void **state)
{
    (void)state;
    env("mig=0");
    unsetenv("WT_FAKE_NVML_DRIVER");
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.1);
    int n;
    struct wt_err err;
    assert_int_equal(wt_source_device_count(src, &n, &err), WT_OK);
    assert_int_equal(n, 4); /* 2 GPUs + GPU 0's 2 MIG devices */
    struct wt_device_info d;
    assert_int_equal(wt_source_device_info(src, 0, &d, &err), WT_OK);
    assert_int_equal(d.mig_mode, 1);
    assert_contains(d.notes, "MIG mode: power, energy and processes are its instances' together");
    assert_int_equal(wt_source_device_info(src, 2, &d, &err), WT_OK);
    assert_true(d.is_mig && d.parent == 0);
    assert_contains(d.name, "MIG");
    assert_contains(d.notes, "no utilization, sample buffers or per-process utilization on MIG");
    static struct wt_sample buf[50];
    int rc;
    read_some(src, 2, buf, 50, 2, &rc, &err);
    assert_int_equal(rc, WT_OK);
    assert_true(isnan(buf[0].v[WT_COL_UTIL_GPU]));
    assert_true(wt_measured(buf[0].v[WT_COL_MEM_USED]));
    /* the whole GPU's power (its sibling instances' load) is not the slice's */
    assert_true(isnan(buf[0].v[WT_COL_POWER]));
    assert_true(isnan(buf[0].v[WT_COL_ENERGY]));
    assert_true(wt_measured(buf[0].v[WT_COL_POWER_LIMIT]));
    read_some(src, 0, buf, 50, 2, &rc, &err);
    assert_true(wt_measured(buf[0].v[WT_COL_POWER])); /* the parent GPU has it */
    wt_source_close(src);
    /* MIG devices the driver refuses to list are said on the parent (they
     * were missing without a word); an empty slot (NOT_FOUND) is not */
    env("mig=0,noperm=nvmlDeviceGetMigDeviceHandleByIndex");
    src = must_open(WT_FAKE_NVML, 0.1);
    assert_int_equal(wt_source_device_count(src, &n, &err), WT_OK);
    assert_int_equal(n, 2);
    assert_int_equal(wt_source_device_info(src, 0, &d, &err), WT_OK);
    assert_contains(d.notes, "MIG devices not listed: nvmlDeviceGetMigDeviceHandleByIndex: ");
    wt_source_close(src);
}

static void test_not_supported(void **state)
{
    (void)state;
    env(NULL);
    /* both temperature calls (the versioned one and its fallback) */
    setenv("WT_FAKE_NVML_FAULTS",
           "notsup=nvmlDeviceGetTemperatureV,notsup=nvmlDeviceGetTemperature,"
           "noperm=nvmlDeviceGetPcieThroughput",
           1);
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.2);
    static struct wt_sample buf[100];
    struct wt_err err;
    int rc;
    size_t n = read_some(src, 0, buf, 100, 2, &rc, &err);
    assert_int_equal(rc, WT_OK);
    assert_true(n >= 2);
    assert_true(isnan(buf[0].v[WT_COL_TEMP]));
    assert_true(isnan(buf[0].v[WT_COL_PCIE_TX]));
    assert_true(wt_measured(buf[0].v[WT_COL_POWER]));
    wt_source_close(src);
}

/* Rows of gpu read until one at or past t_end (seconds of the run). */
static size_t read_until(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap,
                         double t_end)
{
    struct wt_err err;
    int rc;
    size_t n = 0;
    while (n < cap && (n == 0 || buf[n - 1].t_s < t_end)) {
        n += read_some(src, gpu, buf + n, cap - n, 1, &rc, &err);
        if (rc != WT_OK)
            fail_msg("GPU %d: %s", gpu, err.msg);
    }
    return n;
}

/* The widest spacing of buf's rows after its first. */
static double widest_gap(const struct wt_sample *buf, size_t n)
{
    double g = 0;
    for (size_t i = 2; i < n; i++)
        if (buf[i].t_s - buf[i - 1].t_s > g)
            g = buf[i].t_s - buf[i - 1].t_s;
    return g;
}

/* One failed call on the utilization buffer costs no readings: its first
 * size query failing at start turned the buffer off for the whole run (one
 * row a poll), and a failed drain mid-run wrote the poll's own row, after
 * which every reading the next drain returned was older and dropped (an
 * --interval of them). */
static void test_buffer_call_fails(void **state)
{
    (void)state;
    /* util = tenths of a second mod 100, power = 100 + the same mod 200: a
     * row's power is its own reading's when (power - 100) mod 100 = util */
    char path[] = "/tmp/wt_fake_pair_XXXXXX";
    FILE *f = new_trace(path, A100_HEAD "t_s,gpu,util_gpu_pct,power_w\n");
    for (int i = 0; i < 300; i++)
        fprintf(f, "%.1f,0,%d,%d\n", i * 0.1, i % 100, 100 + i % 200);
    fclose(f);
    const char *faults[] = {"flaky=0:nvmlDeviceGetSamples#1:1:0:999",
                            "flaky=0:nvmlDeviceGetSamples#1:5:0:999",
                            "flaky=0:nvmlDeviceGetSamples#1:6:0:10"};
    static struct wt_sample buf[400];
    for (size_t k = 0; k < sizeof(faults) / sizeof(faults[0]); k++) {
        env(faults[k]);
        setenv("WT_FAKE_NVML_TRACE", path, 1);
        struct wt_source *src = must_open(WT_FAKE_NVML, 0.5);
        size_t n = read_until(src, 0, buf, 400, 2.6);
        double gap = widest_gap(buf, n);
        if (n < 20 || gap > 0.15)
            fail_msg("%s: %zu rows in %.2f s, a gap of %.2f s", faults[k], n, buf[n - 1].t_s, gap);
        /* and each row's power is its own reading's (the delayed rows took
         * a reading 1.8 s later: the power buffer had been drained) */
        for (size_t i = 0; i < n; i++) {
            double u = buf[i].v[WT_COL_UTIL_GPU], p = buf[i].v[WT_COL_POWER];
            if (wt_measured(u) && wt_measured(p) && fmod(p - 100, 100) != u)
                fail_msg("%s: the row at %.2f s: util %g with power %g", faults[k], buf[i].t_s, u,
                         p);
        }
        wt_source_close(src);
    }
    unlink(path);
}

/* Each GPU's buffered readings are timed from when its own buffers were read:
 * with one time taken as the poll began, a GPU whose calls are slow (or one
 * polled after it) had every reading put earlier than it was taken, 0.3 s
 * here, for the whole run.  Both GPUs serve the same readings (util = tenths
 * of a second, mod 100): one reading's rows on the two GPUs are at most a
 * buffer period and the calls' time apart. */
static void test_slow_calls_keep_time(void **state)
{
    (void)state;
    char path[] = "/tmp/wt_fake_slow_XXXXXX";
    FILE *f = new_trace(path, A100_HEAD "t_s,gpu,util_gpu_pct,power_w\n");
    for (int i = 0; i < 300; i++)
        fprintf(f, "%.1f,0,%d,200\n%.1f,1,%d,200\n", i * 0.1, i % 100, i * 0.1, i % 100);
    fclose(f);
    env("slow=1:nvmlDeviceGetPcieThroughput:150");
    setenv("WT_FAKE_NVML_TRACE", path, 1);
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.5);
    static struct wt_sample a[200], b[200];
    size_t na = read_until(src, 0, a, 200, 3.0), nb = read_until(src, 1, b, 200, 3.0);
    size_t pairs = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (a[i].v[WT_COL_UTIL_GPU] == b[j].v[WT_COL_UTIL_GPU] && a[i].t_s > 0.5 &&
                fabs(a[i].t_s - b[j].t_s) < 5) {
                pairs++;
                if (fabs(a[i].t_s - b[j].t_s) > 0.2)
                    fail_msg("reading %g: GPU 0 at %.3f s, GPU 1 at %.3f s",
                             a[i].v[WT_COL_UTIL_GPU], a[i].t_s, b[j].t_s);
            }
    assert_true(pairs >= 10);
    wt_source_close(src);
    unlink(path);
}

/* A GPU that stops answering (every call NVML_ERROR_UNKNOWN) is taken as
 * lost once its polls have measured nothing for 10 s: it gave rows with
 * nothing measured for the rest of the run (at start, the same GPU is not
 * used). */
static void test_gpu_stops_answering(void **state)
{
    (void)state;
    env("lost=1@60:999");
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.5);
    static struct wt_sample buf[2000];
    struct wt_err err;
    int rc = WT_OK;
    size_t got;
    double t0 = wt_mono_s();
    while (rc == WT_OK && wt_mono_s() - t0 < 30)
        rc = wt_source_read(src, 1, buf, 2000, &got, &err);
    assert_int_equal(rc, WT_ENODEV);
    assert_contains(err.msg,
                    "GPU 1 (NVIDIA A100-SXM4-40GB, 00000000:18:00.0) has answered no query");
    struct wt_device_info d;
    assert_int_equal(wt_source_device_info(src, 1, &d, &err), WT_OK);
    assert_contains(d.notes, "has answered no query");
    assert_false(d.unusable); /* it was read before */
    size_t n = read_some(src, 0, buf, 2000, 3, &rc, &err);
    assert_int_equal(rc, WT_OK);
    assert_true(n >= 3);
    wt_source_close(src);
}

/* Memory is read with the call the GPU answered first, only: v1's "used"
 * counts the driver's reserved memory, and a poll whose v2 call failed once
 * wrote v1's, a 912 MiB step in a trace whose memory never changed (the
 * memory-growth features read it as training's).  A failed read is not
 * measured. */
static void test_memory_call_fixed(void **state)
{
    (void)state;
    char path[] = "/tmp/wt_fake_mem_XXXXXX";
    FILE *f = new_trace(path, A100_HEAD "t_s,gpu,util_gpu_pct,mem_used_mib,mem_total_mib\n");
    for (int i = 0; i < 100; i++)
        fprintf(f, "%.1f,0,50,30000,40960\n", i * 0.1);
    fclose(f);
    env("reserved=912,flaky=0:nvmlDeviceGetMemoryInfo_v2:4:3:999");
    setenv("WT_FAKE_NVML_TRACE", path, 1);
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.05);
    static struct wt_sample buf[400];
    size_t n = read_until(src, 0, buf, 400, 1.0), measured = 0;
    for (size_t i = 0; i < n; i++) {
        double m = buf[i].v[WT_COL_MEM_USED];
        if (wt_measured(m) && m != 30000)
            fail_msg("the row at %.2f s: %g MiB used, not 30000", buf[i].t_s, m);
        measured += wt_measured(m);
    }
    if (measured < 3 || measured == n)
        fail_msg("%zu of %zu rows measured memory (the failed reads: none)", measured, n);
    wt_source_close(src);
    /* a driver without the v2 call: v1's throughout */
    env("reserved=912,notsup=nvmlDeviceGetMemoryInfo_v2");
    setenv("WT_FAKE_NVML_TRACE", path, 1);
    src = must_open(WT_FAKE_NVML, 0.05);
    n = read_until(src, 0, buf, 400, 0.5);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++)
        if (wt_measured(buf[i].v[WT_COL_MEM_USED]))
            assert_true(buf[i].v[WT_COL_MEM_USED] == 30912);
    wt_source_close(src);
    unlink(path);
}

/* The probes that decide how a GPU is read for the whole run are asked again
 * when they fail with UNKNOWN or TIMEOUT: one failed call made an H100 with
 * the instantaneous field read 1-second averages, a GPU whose architecture
 * the driver knows read "unknown" power, and the v1 memory call (reserved
 * memory counted as used) stand for the run. */
static void test_probes_retry(void **state)
{
    (void)state;
    static const struct {
        const char *model, *field, *faults, *want; /* field: the instantaneous one's */
    } cases[] = {
        {"NVIDIA H100 80GB HBM3", "instant", "flaky=0:nvmlDeviceGetFieldValues:1:0:999", "instant"},
        {"NVIDIA H100 80GB HBM3", "instant", "flaky=0:nvmlDeviceGetFieldValues:1:0:10", "instant"},
        {"NVIDIA Foo 9000", "avg1s", "flaky=0:nvmlDeviceGetArchitecture:1:0:10", "avg1s"},
        {"NVIDIA Foo 9000", "avg1s", "flaky=0:nvmlDeviceGetArchitecture:1:1:999", "unknown"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        char path[] = "/tmp/wt_fake_probe_XXXXXX";
        FILE *f = new_trace(path, "");
        fprintf(f,
                "# gpu_model: %s\n# power_semantics: %s\nt_s,gpu,util_gpu_pct,power_w\n"
                "0,0,50,100\n0.1,0,50,101\n",
                cases[c].model, cases[c].field);
        fclose(f);
        env(cases[c].faults);
        setenv("WT_FAKE_NVML_TRACE", path, 1);
        struct wt_source *src = must_open(WT_FAKE_NVML, 0.2);
        struct wt_device_info d;
        struct wt_err err;
        assert_int_equal(wt_source_device_info(src, 0, &d, &err), WT_OK);
        if (strcmp(d.power_semantics, cases[c].want))
            fail_msg("%s with %s: power semantics %s, want %s", cases[c].model, cases[c].faults,
                     d.power_semantics, cases[c].want);
        wt_source_close(src);
        unlink(path);
    }
    /* the v2 memory call failing at the probe, once */
    char path[] = "/tmp/wt_fake_probe_XXXXXX";
    FILE *f = new_trace(path, A100_HEAD "t_s,gpu,util_gpu_pct,mem_used_mib,mem_total_mib\n");
    for (int i = 0; i < 100; i++)
        fprintf(f, "%.1f,0,50,30000,40960\n", i * 0.1);
    fclose(f);
    env("reserved=912,flaky=0:nvmlDeviceGetMemoryInfo_v2:1:0:999");
    setenv("WT_FAKE_NVML_TRACE", path, 1);
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.05);
    static struct wt_sample buf[400];
    size_t n = read_until(src, 0, buf, 400, 0.5), measured = 0;
    for (size_t i = 0; i < n; i++) {
        double m = buf[i].v[WT_COL_MEM_USED];
        if (wt_measured(m) && m != 30000)
            fail_msg("the row at %.2f s: %g MiB used, not 30000 (the v1 call's)", buf[i].t_s, m);
        measured += wt_measured(m);
    }
    assert_true(measured > 0);
    wt_source_close(src);
    unlink(path);
}

/* A driver buffer that holds more readings since the last poll than the
 * backend's first buffer (1024) is drained whole: the fetches were cut to
 * 1024 readings, failed as too short, and the readings were lost. */
static void test_buffer_grows(void **state)
{
    (void)state;
    char path[] = "/tmp/wt_fake_ring_XXXXXX";
    FILE *f = new_trace(path, A100_HEAD "t_s,gpu,util_gpu_pct,power_w\n");
    for (int i = 0; i < 15000; i++)
        fprintf(f, "%.2f,0,%d,%d\n", i * 0.01, 20 + i % 60, 100 + i % 200);
    fclose(f);
    env("ring=6000");
    setenv("WT_FAKE_NVML_TRACE", path, 1);
    setenv("WT_FAKE_NVML_SPEED", "20", 1); /* 2000 readings a second */
    struct wt_source *src = must_open(WT_FAKE_NVML, 1.0);
    static struct wt_sample buf[12000];
    size_t n = read_until(src, 0, buf, 12000, 2.2);
    /* the trace's 0.01 s rows are 0.5 ms apart at 20 times the speed */
    if (n < 3000 || widest_gap(buf, n) > 0.01)
        fail_msg("%zu rows, the widest gap %.3f s", n, widest_gap(buf, n));
    for (size_t i = 1; i < n; i++)
        assert_true(wt_measured(buf[i].v[WT_COL_UTIL_GPU]) && wt_measured(buf[i].v[WT_COL_POWER]));
    wt_source_close(src);
    unlink(path);
}

/* A GPU the caller said it will not read is not polled: a slow one nobody
 * asked for (0.3 s a call) slowed the polls of the one read to about 3 a
 * second for 10. */
static void test_ignored_gpu_not_polled(void **state)
{
    (void)state;
    env("empty_samples,slow=1:nvmlDeviceGetPowerManagementDefaultLimit:300");
    struct wt_source *src = must_open(WT_FAKE_NVML, 0.1);
    wt_source_ignore(src, 1);
    static struct wt_sample buf[200];
    size_t n = read_until(src, 0, buf, 200, 1.5);
    double per_s = (double)(n - 1) / (buf[n - 1].t_s - buf[0].t_s);
    if (per_s < 6)
        fail_msg("GPU 0: %.1f samples a second at a 0.1 s interval", per_s);
    wt_source_close(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_and_info),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_unread_queue),
        cmocka_unit_test(test_empty_and_boottime),
        cmocka_unit_test(test_power_semantics),
        cmocka_unit_test(test_history),
        cmocka_unit_test(test_lost_gpu),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_old_driver),
        cmocka_unit_test(test_processes),
        cmocka_unit_test(test_mig),
        cmocka_unit_test(test_power_semantics_names),
        cmocka_unit_test(test_bogus_values),
        cmocka_unit_test(test_not_supported),
        cmocka_unit_test(test_settings_every_poll),
        cmocka_unit_test(test_window_covers_polls),
        cmocka_unit_test(test_window_carries_late_readings),
        cmocka_unit_test(test_buffer_call_fails),
        cmocka_unit_test(test_slow_calls_keep_time),
        cmocka_unit_test(test_gpu_stops_answering),
        cmocka_unit_test(test_memory_call_fixed),
        cmocka_unit_test(test_probes_retry),
        cmocka_unit_test(test_ignored_gpu_not_polled),
        cmocka_unit_test(test_buffer_grows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
