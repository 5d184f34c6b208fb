/* The rule classifier: every rule, boundary, tie, confidence and reason
 * string of the Python tool, pinned.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "classify/classifier.h"

#define N 10

struct spec {
    double util_a, util_b; /* alternating values (NAN = not measured) */
    double power_a, power_b;
    double mem0, mem_step; /* mem = mem0 + step * i (NAN = not measured) */
    double procs;
};

static struct wt_sample buf[N];

static void run(const struct spec *sp, struct wt_result *r)
{
    for (int i = 0; i < N; i++) {
        wt_sample_clear(&buf[i], 0);
        buf[i].t_s = i + 1;
        buf[i].v[WT_COL_UTIL_GPU] = (i % 2) ? sp->util_b : sp->util_a;
        buf[i].v[WT_COL_POWER] = (i % 2) ? sp->power_b : sp->power_a;
        buf[i].v[WT_COL_MEM_USED] = sp->mem0 + sp->mem_step * i;
        buf[i].v[WT_COL_PROCS] = sp->procs;
    }
    struct wt_window w = {.s = buf, .n = N, .power_semantics = "unknown", .gpu_model = "test"};
    struct wt_err err;
    assert_int_equal(wt_classify_window(&wt_classifier_rules, &w, r, &err), WT_OK);
}

static void assert_reasons(const struct wt_result *r, const char *const *want)
{
    size_t n = 0;
    while (want[n])
        n++;
    if (r->nreasons != n) {
        for (size_t i = 0; i < r->nreasons; i++)
            print_message("reason: %s\n", r->reasons[i].text);
        fail_msg("expected %zu reasons, got %zu", n, r->nreasons);
    }
    for (size_t i = 0; i < n; i++)
        assert_string_equal(r->reasons[i].text, want[i]);
}

static void test_idle(void **state)
{
    (void)state;
    struct wt_result r;
    struct spec s = {1.0, 1.0, 35, 35, 400, 0, 0};
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_IDLE);
    assert_true(fabs(r.confidence - (1 - 1.0 / 5 * 0.3)) < 1e-12);
    const char *want[] = {"avg GPU utilization 1.0% <= idle threshold 5.0%",
                          "avg power 35.0 W <= idle threshold 50.0 W", NULL};
    assert_reasons(&r, want);
    /* boundaries are inclusive */
    s = (struct spec){5.0, 5.0, 50, 50, 400, 0, 0};
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_IDLE);
    assert_true(fabs(r.confidence - 0.7) < 1e-12);
    s.power_a = s.power_b = 50.01;
    run(&s, &r);
    assert_true(r.cls != WT_CLASS_IDLE);
    s = (struct spec){5.01, 5.01, 40, 40, 400, 0, 0};
    run(&s, &r);
    assert_true(r.cls != WT_CLASS_IDLE);
    /* a trace may carry a negative utilization: confidence stays at most 1
     * (it was 1 + 1e6 x 0.3 / 5, found by fuzz_features) */
    s = (struct spec){-1e6, -1e6, 40, 40, 400, 0, 0};
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_IDLE);
    assert_true(r.confidence == 1);
}

static void test_training_all_votes(void **state)
{
    (void)state;
    struct wt_result r;
    struct spec s = {88, 88, 340, 340, 18000, 120, 1};
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_TRAINING);
    assert_true(r.confidence == 1.0);
    const char *want[] = {"avg GPU utilization 88.0% >= training threshold 65.0%",
                          "GPU utilization std-dev 0.0% <= training threshold 15.0%",
                          "memory growth 120.0 MiB/sample >= training threshold 5.0 MiB/sample",
                          "power std-dev 0.0 W <= training threshold 25.0 W", NULL};
    assert_reasons(&r, want);
    assert_true(r.features.v[WT_F_AVG_GPU_UTIL] == 88);
    assert_true(fabs(r.features.v[WT_F_MEM_GROWTH] - 120) < 1e-9);
    assert_true(r.features.v[WT_F_AVG_PROCS] == 1);
    assert_int_equal(r.sample_count, N);
    assert_true(r.window_seconds == N - 1);
}

static void test_inference_all_votes(void **state)
{
    (void)state;
    struct wt_result r;
    struct spec s = {10, 60, 100, 200, 9000, 0, 1};
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_INFERENCE);
    assert_true(r.confidence == 1.0);
    const char *want[] = {"avg GPU utilization 35.0% <= inference threshold 70.0%",
                          "GPU utilization std-dev 26.4% >= inference threshold 12.0%",
                          "memory growth 0.0 MiB/sample < inference threshold 5.0 MiB/sample",
                          "power std-dev 52.7 W >= inference threshold 20.0 W", NULL};
    assert_reasons(&r, want);
}

/* Utilization thresholds: >= 65 votes training, <= 70 votes inference. */
static void test_util_boundaries(void **state)
{
    (void)state;
    struct wt_result r;
    /* flat util (sd 0: training vote), flat memory (slope 0: inference vote),
     * flat power (sd 0: training vote) -> 2 + [u >= 65] vs 1 + [u <= 70] */
    struct spec s = {65, 65, 100, 100, 1000, 0, 1};
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_TRAINING);
    assert_true(r.confidence == 0.75);
    const char *want[] = {"avg GPU utilization 65.0% >= training threshold 65.0%",
                          "GPU utilization std-dev 0.0% <= training threshold 15.0%",
                          "power std-dev 0.0 W <= training threshold 25.0 W",
                          "avg GPU utilization 65.0% <= inference threshold 70.0%",
                          "memory growth 0.0 MiB/sample < inference threshold 5.0 MiB/sample",
                          NULL};
    assert_reasons(&r, want);
    s.util_a = s.util_b = 64.9;
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_UNKNOWN);
    assert_true(r.confidence == 0.5);
    assert_string_equal(r.reasons[r.nreasons - 1].text,
                        "training and inference signals tied (2 votes each) -- inconclusive");
    s.util_a = s.util_b = 70.0;
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_TRAINING);
    assert_true(r.confidence == 0.75);
    s.util_a = s.util_b = 70.1;
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_TRAINING);
    assert_true(r.confidence == 0.75);
    assert_int_equal(r.nreasons, 4);
}

/* Memory slope: >= 5 MiB/sample votes training, < 5 votes inference. */
static void test_slope_boundary(void **state)
{
    (void)state;
    struct wt_result r;
    /* util 68 votes both sides; flat util and power vote training twice;
     * so: training 3 + [slope >= 5], inference 1 + [slope < 5] */
    struct spec s = {68, 68, 100, 100, 1000, 5.0, 1};
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_TRAINING);
    assert_true(r.confidence == 1.0);
    assert_string_equal(r.reasons[2].text,
                        "memory growth 5.0 MiB/sample >= training threshold 5.0 MiB/sample");
    s.mem_step = 4.99;
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_TRAINING);
    assert_true(r.confidence == 0.75);
    assert_string_equal(r.reasons[r.nreasons - 1].text,
                        "memory growth 5.0 MiB/sample < inference threshold 5.0 MiB/sample");
}

/* Util std-dev in [12, 15] and power std-dev in [20, 25] vote for both sides. */
static void test_sd_overlap(void **state)
{
    (void)state;
    struct wt_result r;
    double k = sqrt((N - 1.0) / N); /* alternating +-d gives sd = d / k */
    struct spec s = {50 - 13.5 * k, 50 + 13.5 * k, 200 - 22 * k, 200 + 22 * k, 1000, 0, 1};
    run(&s, &r);
    assert_true(fabs(r.features.v[WT_F_STD_GPU_UTIL] - 13.5) < 1e-9);
    assert_true(fabs(r.features.v[WT_F_STD_POWER] - 22) < 1e-9);
    /* training: sd(util) <= 15, sd(power) <= 25 -> 2; inference: util <= 70,
     * sd(util) >= 12, slope < 5, sd(power) >= 20 -> 4 */
    assert_int_equal(r.cls, WT_CLASS_INFERENCE);
    assert_true(r.confidence == 1.0);
    const char *want[] = {"GPU utilization std-dev 13.5% <= training threshold 15.0%",
                          "power std-dev 22.0 W <= training threshold 25.0 W",
                          "avg GPU utilization 50.0% <= inference threshold 70.0%",
                          "GPU utilization std-dev 13.5% >= inference threshold 12.0%",
                          "memory growth 0.0 MiB/sample < inference threshold 5.0 MiB/sample",
                          "power std-dev 22.0 W >= inference threshold 20.0 W",
                          NULL};
    assert_reasons(&r, want);
}

/* The Python tool's evasive training: 2 votes each -> UNKNOWN. */
static void test_tie(void **state)
{
    (void)state;
    struct wt_result r;
    double k = sqrt((N - 1.0) / N);
    struct spec s = {45 - 19 * k, 45 + 19 * k, 340 - 12 * k, 340 + 12 * k, 18000, 60, 1};
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_UNKNOWN);
    assert_true(r.confidence == 0.5);
    const char *want[] = {"memory growth 60.0 MiB/sample >= training threshold 5.0 MiB/sample",
                          "power std-dev 12.0 W <= training threshold 25.0 W",
                          "avg GPU utilization 45.0% <= inference threshold 70.0%",
                          "GPU utilization std-dev 19.0% >= inference threshold 12.0%",
                          "training and inference signals tied (2 votes each) -- inconclusive",
                          NULL};
    assert_reasons(&r, want);
}

static void test_not_measured(void **state)
{
    (void)state;
    struct wt_result r;
    /* power only, steady and above the idle level: one training vote */
    struct spec s = {NAN, NAN, 100, 100, NAN, 0, NAN};
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_TRAINING);
    assert_true(r.confidence == 0.25);
    assert_true(isnan(r.features.v[WT_F_AVG_GPU_UTIL]));
    assert_true(isnan(r.features.v[WT_F_AVG_PROCS]));
    const char *want[] = {"power std-dev 0.0 W <= training threshold 25.0 W",
                          "GPU utilization not measured -- its rules abstain",
                          "memory growth not measured -- its rules abstain", NULL};
    assert_reasons(&r, want);
    /* power only, at idle level */
    s.power_a = s.power_b = 40;
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_IDLE);
    assert_true(r.confidence == 0.7);
    /* nothing measured at all: a tie with no votes */
    s.power_a = s.power_b = NAN;
    run(&s, &r);
    assert_int_equal(r.cls, WT_CLASS_UNKNOWN);
}

static void test_too_few_samples(void **state)
{
    (void)state;
    struct wt_sample one;
    wt_sample_clear(&one, 3);
    struct wt_window w = {
        .s = &one, .n = 1, .gpu = 3, .power_semantics = "unknown", .gpu_model = "test"};
    struct wt_result r;
    struct wt_err err;
    assert_int_equal(wt_classify_window(&wt_classifier_rules, &w, &r, &err), WT_EINVAL);
    assert_string_equal(err.msg,
                        "GPU 3: 1 sample in the window; the rules classifier needs at least 2");
    assert_int_equal(r.cls, WT_CLASS_UNKNOWN);
}

/* The physics classifier does not read a cadence into 10 samples of a
 * 10 Hz trace (1 s): UNKNOWN, however busy the GPU. */
static void test_physics_short_window(void **state)
{
    (void)state;
    struct wt_sample s[10];
    for (int i = 0; i < 10; i++) {
        wt_sample_clear(&s[i], 0);
        s[i].t_s = 0.1 * i;
        s[i].v[WT_COL_UTIL_GPU] = 100;
        s[i].v[WT_COL_POWER] = 650;
    }
    struct wt_window w = {
        .s = s, .n = 10, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_result r;
    struct wt_err err;
    assert_int_equal(wt_classify_window(wt_classifier_find("physics"), &w, &r, &err), WT_OK);
    assert_int_equal(r.cls, WT_CLASS_UNKNOWN);
    assert_non_null(strstr(r.reasons[0].text, "too short"));
    for (int i = 0; i < 10; i++)
        s[i].t_s = 1.0 * i; /* 10 s at 1 Hz: the model scores it */
    assert_int_equal(wt_classify_window(wt_classifier_find("physics"), &w, &r, &err), WT_OK);
    assert_true(isfinite(r.score));
    assert_null(strstr(r.reasons[0].text, "too short"));
}

/* A window longer than the model's 30 s is scored on its last 30 s: a GPU
 * busy throughout gets the same class and confidence from 30, 31 and 600
 * samples at 1 Hz (its on-phase length had put longer windows out of the
 * model's range: steady training read as INFERENCE from 31 samples on). */
static void test_physics_long_window(void **state)
{
    (void)state;
    enum { NL = 600 };
    static struct wt_sample s[NL];
    for (int i = 0; i < NL; i++) {
        wt_sample_clear(&s[i], 0);
        s[i].t_s = i;
        s[i].v[WT_COL_UTIL_GPU] = 100;
        s[i].v[WT_COL_POWER] = 650;
    }
    const struct wt_classifier *c = wt_classifier_find("physics");
    struct wt_result r30, r;
    struct wt_err err;
    struct wt_window w = {.s = s, .n = 30, .power_semantics = "avg1s", .gpu_model = "NVIDIA H100"};
    assert_int_equal(wt_classify_window(c, &w, &r30, &err), WT_OK);
    const size_t lens[] = {31, 60, 600};
    for (size_t k = 0; k < 3; k++) {
        w.n = lens[k];
        w.s = s + (NL - lens[k]);
        assert_int_equal(wt_classify_window(c, &w, &r, &err), WT_OK);
        assert_int_equal(r.cls, r30.cls);
        assert_true(r.confidence == r30.confidence);
        assert_int_equal(r.sample_count, lens[k]);
        assert_non_null(strstr(r.reasons[r.nreasons - 1].text, "last 30 s"));
    }
}

/* Times so large that t_last - 30 == t_last (a reviewer's nanosecond
 * epoch): the tail keeps the last sample, read no further (ASan), and the
 * window is too sparse to judge. */
static void test_physics_huge_times(void **state)
{
    (void)state;
    enum { NH = 20 };
    struct wt_sample *s = calloc(NH, sizeof(*s)); /* exact size: ASan sees a read past it */
    assert_non_null(s);
    for (int i = 0; i < NH; i++) {
        wt_sample_clear(&s[i], 0);
        s[i].t_s = 1.712e18 + 1e9 * i;
        s[i].v[WT_COL_UTIL_GPU] = 98;
        s[i].v[WT_COL_POWER] = 300;
    }
    struct wt_window w = {
        .s = s, .n = NH, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_result r;
    struct wt_err err;
    assert_int_equal(wt_classify_window(wt_classifier_find("physics"), &w, &r, &err), WT_OK);
    assert_int_equal(r.cls, WT_CLASS_UNKNOWN);
    assert_non_null(strstr(r.reasons[0].text, "1 sample"));
    free(s);
}

static void test_registry(void **state)
{
    (void)state;
    assert_ptr_equal(wt_classifier_find("rules"), &wt_classifier_rules);
    assert_null(wt_classifier_find("nope"));
    assert_non_null(wt_classifier_default());
    assert_ptr_equal(wt_classifier_all()[0], wt_classifier_default());
    assert_int_equal(wt_classifier_rules.nexposed, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle),
        cmocka_unit_test(test_training_all_votes),
        cmocka_unit_test(test_inference_all_votes),
        cmocka_unit_test(test_util_boundaries),
        cmocka_unit_test(test_slope_boundary),
        cmocka_unit_test(test_sd_overlap),
        cmocka_unit_test(test_tie),
        cmocka_unit_test(test_not_measured),
        cmocka_unit_test(test_physics_short_window),
        cmocka_unit_test(test_physics_long_window),
        cmocka_unit_test(test_physics_huge_times),
        cmocka_unit_test(test_too_few_samples),
        cmocka_unit_test(test_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
