/* The synthetic source: the Python tool's profiles reproduced exactly
 * (parameters, clamps, memory growth, timestamps, evasion transform) and
 * determinism for a seed.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "features/stats.h"
#include "telemetry/source.h"

#define BIG 20000

static struct wt_sample buf[BIG];

static size_t gen(const char *profile, bool evasion, uint64_t seed, size_t n)
{
    struct wt_source_config cfg = {0};
    struct wt_source *src;
    struct wt_err err;
    size_t got;
    cfg.profile = profile;
    cfg.evasion = evasion;
    cfg.seed = seed;
    assert_int_equal(wt_source_open("synthetic", &cfg, &src, &err), WT_OK);
    assert_int_equal(wt_source_read_n(src, 0, buf, n, &got, &err), WT_OK);
    wt_source_close(src);
    assert_int_equal(got, n);
    return got;
}

static void test_profiles_table(void **state)
{
    (void)state;
    const struct wt_synth_profile *t = wt_synth_profile_find("training");
    const struct wt_synth_profile *i = wt_synth_profile_find("inference");
    const struct wt_synth_profile *d = wt_synth_profile_find("idle");
    assert_non_null(t);
    assert_non_null(i);
    assert_non_null(d);
    assert_null(wt_synth_profile_find("mining"));
    /* training: util 88 sd 4, mem util 70 sd 6, base 18000, +120/sample, ceiling
     * 38000, power 340 sd 12, 1 process */
    assert_true(t->util_mean == 88 && t->util_sd == 4 && t->memutil_mean == 70 &&
                t->memutil_sd == 6 && t->mem_base_mib == 18000 && t->mem_growth_mib == 120 &&
                t->mem_ceiling_mib == 38000 && t->power_mean_w == 340 && t->power_sd_w == 12 &&
                t->procs == 1);
    assert_true(i->util_mean == 35 && i->util_sd == 28 && i->memutil_mean == 22 &&
                i->memutil_sd == 5 && i->mem_base_mib == 9000 && i->mem_growth_mib == 0 &&
                i->mem_ceiling_mib == 9500 && i->power_mean_w == 160 && i->power_sd_w == 55 &&
                i->procs == 1);
    assert_true(d->util_mean == 1 && d->util_sd == 1 && d->memutil_mean == 0.5 &&
                d->memutil_sd == 0.5 && d->mem_base_mib == 400 && d->mem_growth_mib == 0 &&
                d->mem_ceiling_mib == 400 && d->power_mean_w == 35 && d->power_sd_w == 5 &&
                d->procs == 0);
}

static void test_training_stream(void **state)
{
    (void)state;
    size_t n = gen("training", false, 7, BIG);
    for (size_t i = 0; i < n; i++) {
        assert_true(buf[i].t_s == (double)(i + 1));
        double mem = 18000 + 120.0 * (double)i;
        if (mem > 38000)
            mem = 38000;
        assert_true(buf[i].v[WT_COL_MEM_USED] == mem);
        assert_true(buf[i].v[WT_COL_MEM_TOTAL] == 40960);
        assert_true(buf[i].v[WT_COL_PROCS] == 1);
        assert_true(buf[i].v[WT_COL_UTIL_GPU] >= 0 && buf[i].v[WT_COL_UTIL_GPU] <= 100);
        assert_true(isnan(buf[i].v[WT_COL_TEMP])); /* not produced: not measured */
    }
    /* the Gaussian parameters (tolerances: > 6 standard errors) */
    assert_true(fabs(wt_stat_mean(buf, n, WT_COL_UTIL_GPU) - 88) < 0.2);
    assert_true(fabs(wt_stat_stdev(buf, n, WT_COL_UTIL_GPU) - 4) < 0.15);
    assert_true(fabs(wt_stat_mean(buf, n, WT_COL_UTIL_MEM) - 70) < 0.3);
    assert_true(fabs(wt_stat_stdev(buf, n, WT_COL_UTIL_MEM) - 6) < 0.2);
    assert_true(fabs(wt_stat_mean(buf, n, WT_COL_POWER) - 340) < 0.6);
    assert_true(fabs(wt_stat_stdev(buf, n, WT_COL_POWER) - 12) < 0.4);
}

static void test_clamps(void **state)
{
    (void)state;
    /* inference util 35 sd 28 and idle util 1 sd 1 hit the 0 clamp often */
    size_t n = gen("inference", false, 1, BIG);
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++) {
        double u = buf[i].v[WT_COL_UTIL_GPU];
        assert_true(u >= 0 && u <= 100);
        zeros += (u == 0);
        assert_true(buf[i].v[WT_COL_POWER] >= 0);
        assert_true(buf[i].v[WT_COL_MEM_USED] == 9000);
    }
    assert_true(zeros > n / 20); /* P(N(35,28) < 0) is about 10.6% */
    n = gen("idle", false, 1, BIG);
    for (size_t i = 0; i < n; i++) {
        assert_true(buf[i].v[WT_COL_UTIL_MEM] >= 0);
        assert_true(buf[i].v[WT_COL_PROCS] == 0);
        assert_true(buf[i].v[WT_COL_MEM_USED] == 400);
    }
}

static void test_evasion(void **state)
{
    (void)state;
    size_t n = gen("training", true, 3, 400);
    for (size_t i = 0; i < n; i++) {
        double u = buf[i].v[WT_COL_UTIL_GPU];
        assert_true(u >= 0 && u <= 55);
        if (i % 4 == 0)
            assert_true(u <= 55 * 0.2 + 1e-9);
        assert_true(buf[i].v[WT_COL_MEM_USED] <= 1.1 * 18000 + 1e-9);
    }
    /* memory still grows until the 1.1 x base cap */
    assert_true(buf[0].v[WT_COL_MEM_USED] == 18000);
    assert_true(buf[5].v[WT_COL_MEM_USED] == 18600);
    assert_true(fabs(buf[399].v[WT_COL_MEM_USED] - 19800) < 1e-9);
}

static void test_deterministic(void **state)
{
    (void)state;
    static struct wt_sample a[100];
    gen("inference", true, 42, 100);
    memcpy(a, buf, sizeof(a));
    gen("inference", true, 42, 100);
    assert_memory_equal(a, buf, sizeof(a));
    gen("inference", true, 43, 100);
    assert_true(memcmp(a, buf, sizeof(a)) != 0);
}

static void test_errors(void **state)
{
    (void)state;
    struct wt_source_config cfg = {0};
    struct wt_source *src;
    struct wt_err err;
    cfg.profile = "mining";
    assert_int_equal(wt_source_open("synthetic", &cfg, &src, &err), WT_EINVAL);
    assert_contains(err.msg, "unknown synthetic profile 'mining'");
    assert_int_equal(wt_source_open("amd", &cfg, &src, &err), WT_EINVAL);
    assert_contains(err.msg, "unknown backend 'amd'");
    cfg.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
    assert_int_equal(wt_source_open("nvml", &cfg, &src, &err), WT_ENODEV);
    assert_contains(err.msg, "cannot load the NVIDIA management library");
    cfg.nvml_lib = NULL;
    cfg.profile = "idle";
    assert_int_equal(wt_source_open("synthetic", &cfg, &src, &err), WT_OK);
    size_t n;
    assert_int_equal(wt_source_read(src, 1, buf, 1, &n, &err), WT_ENODEV);
    struct wt_device_info info;
    assert_int_equal(wt_source_device_info(src, 0, &info, &err), WT_OK);
    assert_contains(info.name, "synthetic");
    wt_source_close(src);
}

/* A live window's buffer grows from nothing: a caller's empty buffer (cap 0)
 * was "grown" to 0 samples forever (realloc of 0 bytes). */
static void test_read_polls_empty_buffer(void **state)
{
    (void)state;
    struct wt_source_config cfg = {0};
    struct wt_source *src;
    struct wt_err err;
    struct wt_sample *b = NULL;
    size_t cap = 0, n = 0;
    cfg.profile = "training";
    cfg.seed = 1;
    assert_int_equal(wt_source_open("synthetic", &cfg, &src, &err), WT_OK);
    assert_int_equal(wt_source_read_polls(src, 0, &b, &cap, 100, 5, 1.0, NULL, NULL, &n, &err),
                     WT_OK);
    assert_true(n >= 5 && n <= cap && cap <= 100);
    free(b);
    wt_source_close(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profiles_table),
        cmocka_unit_test(test_training_stream),
        cmocka_unit_test(test_clamps),
        cmocka_unit_test(test_evasion),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_read_polls_empty_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
