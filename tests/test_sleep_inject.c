/* Sleep injection into recorded training (features/sleep_inject.h): the
 * fixed schedule's sleeps and the time they add, idle readings taken from the
 * trace's IDLE samples, every GPU sleeping at once, the energy counter and
 * 1-second-averaged power across the edges, the random schedule's share of
 * time asleep, files left alone, and limits.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "features/sleep_inject.h"

/* 10 Hz: 5 s IDLE (util 0, 60 W, SM 210 MHz), then 20 s TRAINING (util 90,
 * 300 W, SM 1980 MHz, memory 40000 MiB), then 5 s unlabelled; energy counts
 * what the GPU drew; gpu = index; t0 offsets the clock. */
static struct wt_sample *make(int gpu, double t0, size_t *n)
{
    *n = 300;
    struct wt_sample *s = malloc(*n * sizeof(*s));
    assert_non_null(s);
    double e = 1000;
    for (size_t i = 0; i < *n; i++) {
        wt_sample_clear(&s[i], gpu);
        double t = (double)i / 10;
        int train = t >= 5 && t < 25;
        s[i].t_s = t0 + t;
        s[i].label = t < 5 ? WT_CLASS_IDLE : train ? WT_CLASS_TRAINING : WT_CLASS_NONE;
        s[i].v[WT_COL_UTIL_GPU] = train ? 90 : 0;
        s[i].v[WT_COL_POWER] = train ? 300 : 60;
        s[i].v[WT_COL_SM_CLOCK] = train ? 1980 : 210;
        s[i].v[WT_COL_MEM_USED] = t >= 5 ? 40000 : 500;
        s[i].v[WT_COL_CLOCK_REASONS] = 0;
        s[i].v[WT_COL_ENERGY] = e;
        e += s[i].v[WT_COL_POWER] * 0.1;
    }
    return s;
}

static const struct wt_sleep_opts fixed_half = {.asleep = 0.5, .period_s = 4};

static void test_fixed(void **state)
{
    (void)state;
    size_t n;
    struct wt_sample *s = make(0, 0, &n);
    struct wt_err err;
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &fixed_half, &err), WT_OK);
    /* runs of 2 s from t = 5: sleeps start at recorded 7, 9, ..., 23 (9 of
     * them, 2 s each, 20 samples each) */
    assert_int_equal(n, 300 + 9 * 20);
    for (size_t i = 1; i < n; i++)
        assert_true(s[i].t_s > s[i - 1].t_s);
    assert_true(fabs(s[n - 1].t_s - (29.9 + 18)) < 1e-9);
    size_t asleep = 0, train = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].label != WT_CLASS_TRAINING)
            continue;
        train++;
        if (s[i].v[WT_COL_UTIL_GPU] == 0) {
            asleep++;
            /* the idle readings are the IDLE samples'; memory stays held */
            assert_true(s[i].v[WT_COL_POWER] == 60 && s[i].v[WT_COL_SM_CLOCK] == 210);
            assert_true(s[i].v[WT_COL_MEM_USED] == 40000);
            assert_true(s[i].v[WT_COL_CLOCK_REASONS] == 1);
        } else {
            assert_true(s[i].v[WT_COL_POWER] == 300 && s[i].v[WT_COL_CLOCK_REASONS] == 0);
        }
    }
    assert_int_equal(train, 200 + 180);
    assert_int_equal(asleep, 180);
    /* the first sleep: recorded t = 7.0 is now 9.0, and 7.0 .. 8.9 sleep */
    assert_true(fabs(s[70].t_s - 7.0) < 1e-9 && s[70].v[WT_COL_UTIL_GPU] == 0);
    assert_true(fabs(s[90].t_s - 9.0) < 1e-9 && s[90].v[WT_COL_UTIL_GPU] == 90);
    /* the energy counter never goes back, and counts the sleeps at idle power */
    for (size_t i = 1; i < n; i++)
        assert_true(s[i].v[WT_COL_ENERGY] > s[i - 1].v[WT_COL_ENERGY]);
    assert_true(fabs(s[n - 1].v[WT_COL_ENERGY] -
                     (1000 + 60 * 0.1 * 99 + 300 * 0.1 * 200 + 60 * 0.1 * 180)) < 1e-6);
    free(s);
}

static void test_gpus_sleep_together(void **state)
{
    (void)state;
    struct wt_sample *s[2];
    size_t n[2];
    s[0] = make(0, 0, &n[0]);
    s[1] = make(1, 0.004, &n[1]); /* polled 4 ms later */
    for (size_t i = 0; i < n[1]; i++)
        if (s[1][i].label == WT_CLASS_IDLE)
            s[1][i].label = WT_CLASS_NONE; /* GPU 1: no IDLE samples, lowest readings */
    struct wt_err err;
    assert_int_equal(wt_sleep_inject(s, n, 2, &fixed_half, &err), WT_OK);
    assert_int_equal(n[0], n[1]);
    for (size_t i = 0; i < n[0]; i++) {
        assert_true(fabs(s[1][i].t_s - s[0][i].t_s) < 0.0045);
        assert_true(s[1][i].v[WT_COL_UTIL_GPU] == s[0][i].v[WT_COL_UTIL_GPU]);
        assert_true(s[1][i].v[WT_COL_POWER] == s[0][i].v[WT_COL_POWER]);
    }
    free(s[0]);
    free(s[1]);
}

static void test_avg1s_ramps(void **state)
{
    (void)state;
    size_t n;
    struct wt_sample *s = make(0, 0, &n);
    struct wt_sleep_opts o = fixed_half;
    o.avg1s = 1;
    struct wt_err err;
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_OK);
    /* sleep 7.0 .. 8.9: down from 300 W over its first second, then idle */
    assert_true(fabs(s[70].v[WT_COL_POWER] - 300) < 1e-9);
    assert_true(fabs(s[75].v[WT_COL_POWER] - 180) < 1e-9);
    assert_true(fabs(s[80].v[WT_COL_POWER] - 60) < 1e-9);
    /* the run from 9.0: up from idle over its first second */
    assert_true(fabs(s[90].v[WT_COL_POWER] - 60) < 1e-9);
    assert_true(fabs(s[95].v[WT_COL_POWER] - 180) < 1e-9);
    assert_true(fabs(s[100].v[WT_COL_POWER] - 300) < 1e-9);
    free(s);
}

static void test_random_share(void **state)
{
    (void)state;
    /* 2000 s of training at 10 Hz */
    size_t n = 20000, n2 = n;
    struct wt_sample *s = malloc(n * sizeof(*s)), *s2 = malloc(n * sizeof(*s2));
    assert_true(s && s2);
    for (size_t i = 0; i < n; i++) {
        wt_sample_clear(&s[i], 0);
        s[i].t_s = (double)i / 10;
        s[i].label = WT_CLASS_TRAINING;
        s[i].v[WT_COL_UTIL_GPU] = 95;
        s[i].v[WT_COL_POWER] = 250;
    }
    memcpy(s2, s, n * sizeof(*s));
    struct wt_sleep_opts o = {.asleep = 0.3, .period_s = 4, .random = 1, .seed = 7};
    struct wt_err err;
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_OK);
    size_t asleep = 0;
    for (size_t i = 0; i < n; i++)
        asleep += s[i].v[WT_COL_UTIL_GPU] == 0;
    double share = (double)asleep / (double)n;
    assert_true(share > 0.26 && share < 0.34);
    /* no IDLE samples: a sleeping GPU reads the lowest power recorded */
    for (size_t i = 0; i < n; i++)
        assert_true(s[i].v[WT_COL_POWER] == 250);
    /* the same seed, the same schedule */
    assert_int_equal(wt_sleep_inject(&s2, &n2, 1, &o, &err), WT_OK);
    assert_int_equal(n2, n);
    assert_memory_equal(s, s2, n * sizeof(*s));
    free(s);
    free(s2);
}

/* Sleeps shorter than the poll: a poll lands in one with the chance its
 * length gives (every such sleep had been a whole idle reading: 0.01% of the
 * time asleep read as 1 reading in 40), and a 1-second power average holds
 * the second's share asleep (it had fallen to idle after each). */
static void test_short_sleeps(void **state)
{
    (void)state;
    size_t n;
    struct wt_sample *s = make(0, 0, &n);
    /* 20 s of training at 10 Hz: runs of 0.95 s, sleeps of 0.05 s (half a poll) */
    struct wt_sleep_opts o = {.asleep = 0.05, .period_s = 1, .avg1s = 1, .seed = 3};
    struct wt_err err;
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_OK);
    size_t asleep = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].label != WT_CLASS_TRAINING)
            continue;
        if (s[i].v[WT_COL_UTIL_GPU] == 0)
            asleep++;
        else /* awake: at most 0.1 s of the last second asleep */
            assert_true(s[i].v[WT_COL_POWER] >= 300 - 240 * 0.1 - 1e-9);
    }
    /* 20 sleeps, each a reading with chance 1/2 (about 10; were 20) */
    assert_int_equal(n - 300, asleep);
    assert_true(asleep >= 4 && asleep <= 16);
    for (size_t i = 1; i < n; i++)
        assert_true(s[i].t_s > s[i - 1].t_s && s[i].v[WT_COL_ENERGY] > s[i - 1].v[WT_COL_ENERGY]);
    /* the counter counts the sleeps' whole time at idle power */
    assert_true(fabs(s[n - 1].v[WT_COL_ENERGY] -
                     (1000 + 60 * 0.1 * 99 + 300 * 0.1 * 200 + 60 * (s[n - 1].t_s - 29.9))) < 1e-6);
    free(s);
    /* 0.01% asleep: almost never seen */
    s = make(0, 0, &n);
    o = (struct wt_sleep_opts){.asleep = 0.0001, .period_s = 4, .avg1s = 1, .seed = 3};
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_OK);
    assert_int_equal(n, 300);
    for (size_t i = 0; i < n; i++)
        assert_true(s[i].v[WT_COL_POWER] >= (s[i].label == WT_CLASS_TRAINING ? 299.9 : 60));
    free(s);
}

/* A counter that is not the last power times the time (power changing
 * between polls, a trapezoid rule): the readings inside a sleep take the
 * recorded counter at the sleep's start, so it never goes back (a power
 * times the elapsed time had passed the next recorded value). */
static void test_energy_never_back(void **state)
{
    (void)state;
    /* fixed sleeps (one starts at 7 s, after 300 W at 6.9 s), then random
     * sleeps between polls */
    const struct wt_sleep_opts sched[] = {
        fixed_half, {.asleep = 0.37, .period_s = 1.3, .random = 1, .seed = 11}};
    for (size_t k = 0; k < sizeof(sched) / sizeof(sched[0]); k++) {
        size_t n;
        struct wt_sample *s = make(0, 0, &n);
        for (size_t i = 0; i < n; i++)
            if (s[i].label == WT_CLASS_TRAINING)
                s[i].v[WT_COL_POWER] = i % 2 ? 300 : 100;
        for (size_t i = 1; i < n; i++)
            s[i].v[WT_COL_ENERGY] = s[i - 1].v[WT_COL_ENERGY] +
                                    (s[i - 1].v[WT_COL_POWER] + s[i].v[WT_COL_POWER]) * 0.05;
        struct wt_err err;
        assert_int_equal(wt_sleep_inject(&s, &n, 1, &sched[k], &err), WT_OK);
        for (size_t i = 1; i < n; i++)
            assert_true(s[i].v[WT_COL_ENERGY] >= s[i - 1].v[WT_COL_ENERGY]);
        free(s);
    }
}

static void test_left_alone(void **state)
{
    (void)state;
    size_t n;
    struct wt_sample *s = make(0, 0, &n);
    for (size_t i = 0; i < n; i++)
        if (s[i].label == WT_CLASS_TRAINING)
            s[i].label = WT_CLASS_INFERENCE;
    struct wt_sample *copy = malloc(n * sizeof(*s));
    assert_non_null(copy);
    memcpy(copy, s, n * sizeof(*s));
    struct wt_err err;
    /* no training: nothing to hide */
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &fixed_half, &err), WT_OK);
    assert_int_equal(n, 300);
    assert_memory_equal(s, copy, n * sizeof(*s));
    /* asleep 0: nothing injected */
    free(s);
    s = make(0, 0, &n);
    memcpy(copy, s, n * sizeof(*s));
    struct wt_sleep_opts o = {.asleep = 0, .period_s = 4};
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_OK);
    assert_int_equal(n, 300);
    assert_memory_equal(s, copy, n * sizeof(*s));
    free(s);
    free(copy);
}

static void test_limits(void **state)
{
    (void)state;
    size_t n;
    struct wt_sample *s = make(0, 0, &n);
    struct wt_err err;
    struct wt_sleep_opts o = {.asleep = 0.96, .period_s = 4};
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_EINVAL);
    assert_non_null(strstr(err.msg, "share asleep"));
    /* two training samples a year apart: the schedule is refused, and the
     * streams are as they were */
    s[100].t_s = 1e5;
    s[101].t_s = 3.2e7;
    s[101].label = WT_CLASS_TRAINING;
    n = 102;
    o.asleep = 0.5;
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_ENOMEM);
    assert_non_null(strstr(err.msg, "sleeps"));
    assert_int_equal(n, 102);
    /* 10 days, 3 s asleep per recorded second: fewer sleeps than the
     * limit, but too many samples */
    s[101].t_s = 9e5;
    o.asleep = 0.75;
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_ENOMEM);
    assert_non_null(strstr(err.msg, "samples"));
    assert_int_equal(n, 102);
    assert_true(s[101].t_s == 9e5);
    free(s);
    /* a smaller limit of the caller's: 480 samples do not fit in 479 */
    s = make(0, 0, &n);
    struct wt_sleep_opts small = fixed_half;
    small.max_samples = 479;
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &small, &err), WT_ENOMEM);
    assert_int_equal(n, 300);
    small.max_samples = 480;
    /* GPU indices the trace does not use (a trace of GPU 2 only) add nothing:
     * they were counted as if they had the samples, and it did not fit */
    {
        struct wt_sample *ss[3] = {NULL, NULL, s};
        size_t nn[3] = {0, 0, n};
        assert_int_equal(wt_sleep_inject(ss, nn, 3, &small, &err), WT_OK);
        assert_int_equal(nn[0], 0);
        assert_int_equal(nn[1], 0);
        assert_int_equal(nn[2], 480);
        free(ss[0]);
        free(ss[1]);
        free(ss[2]);
    }
    s = make(0, 0, &n);
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &small, &err), WT_OK);
    assert_int_equal(n, 480);
    /* times too large for 2-second runs to move the clock */
    for (size_t i = 0; i < n; i++)
        s[i].t_s += 1e17;
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &fixed_half, &err), WT_ENOMEM);
    assert_non_null(strstr(err.msg, "times too large"));
    free(s);
}

/* A few rows around a long gap: the sleeps that would fill it are bounded by
 * the input (the review's 245-byte trace made 15 million samples, 2.1 GB),
 * while the same rows without the gap still take their 20-fold share. */
static void test_gap_bounded(void **state)
{
    (void)state;
    struct wt_err err;
    const struct wt_sleep_opts o = {.asleep = 0.95, .period_s = 4};
    size_t n = 12;
    struct wt_sample *s = malloc(n * sizeof(*s));
    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        wt_sample_clear(&s[i], 0);
        s[i].t_s = i < 11 ? (double)i / 100 : 8000;
        s[i].label = WT_CLASS_TRAINING;
        s[i].v[WT_COL_UTIL_GPU] = 90;
    }
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_ENOMEM);
    assert_non_null(strstr(err.msg, "mostly gaps"));
    assert_int_equal(n, 12);
    assert_true(s[11].t_s == 8000);
    free(s);
    /* a gap-free trace at the highest strength is still stretched */
    s = make(0, 0, &n);
    assert_int_equal(wt_sleep_inject(&s, &n, 1, &o, &err), WT_OK);
    assert_true(n > 300 * 10);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_gpus_sleep_together),
        cmocka_unit_test(test_avg1s_ramps),
        cmocka_unit_test(test_random_share),
        cmocka_unit_test(test_left_alone),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_gap_bounded),
        cmocka_unit_test(test_short_sleeps),
        cmocka_unit_test(test_energy_never_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
