/* Features, statistics and windows: NaN-aware statistics, the Python tool's
 * six features, time-based windowing, the 80% label rule and the rated-power
 * table that puts power on the card's scale.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "classify/classifier.h"
#include "features/features.h"
#include "features/gpu_models.h"
#include "features/stats.h"
#include "features/transform.h"
#include "features/window.h"

static void fill(struct wt_sample *s, size_t n, const double *util, const double *t)
{
    for (size_t i = 0; i < n; i++) {
        wt_sample_clear(&s[i], 0);
        s[i].t_s = t ? t[i] : (double)i;
        s[i].v[WT_COL_UTIL_GPU] = util[i];
    }
}

static void test_stats(void **state)
{
    (void)state;
    struct wt_sample s[6];
    double u[6] = {2, 4, NAN, 4, 5, 5};
    fill(s, 6, u, NULL);
    assert_int_equal(wt_stat_count(s, 6, WT_COL_UTIL_GPU), 5);
    assert_true(fabs(wt_stat_mean(s, 6, WT_COL_UTIL_GPU) - 4.0) < 1e-12);
    /* values 2,4,4,5,5: squared deviations 4,0,0,1,1 -> 6/4 */
    assert_true(fabs(wt_stat_stdev(s, 6, WT_COL_UTIL_GPU) - sqrt(1.5)) < 1e-12);
    assert_true(isnan(wt_stat_mean(s, 6, WT_COL_POWER)));
    assert_true(isnan(wt_stat_stdev(s, 1, WT_COL_UTIL_GPU)));
    /* slope against the sample index, skipping NaN but keeping positions */
    double m[5] = {10, NAN, 30, 40, 50};
    fill(s, 5, m, NULL);
    assert_true(fabs(wt_stat_slope_per_sample(s, 5, WT_COL_UTIL_GPU) - 10.0) < 1e-12);
    double flat[3] = {7, 7, 7};
    fill(s, 3, flat, NULL);
    assert_true(wt_stat_slope_per_sample(s, 3, WT_COL_UTIL_GPU) == 0.0);
    assert_true(wt_stat_stdev(s, 3, WT_COL_UTIL_GPU) == 0.0);
}

static void test_feature_names(void **state)
{
    (void)state;
    const char *want[] = {"avg_gpu_util_pct", "std_gpu_util_pct", "mem_growth_mib_per_sample",
                          "avg_power_watts",  "std_power_watts",  "avg_process_count"};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(wt_feature_name(i), want[i]);
        assert_int_equal(wt_feature_lookup(want[i]), i);
    }
    assert_int_equal(wt_feature_lookup("nope"), -1);
}

static void test_rated_power(void **state)
{
    (void)state;
    /* the names in ../shared/traces, and NVML's spellings */
    assert_true(wt_gpu_rated_power_w("NVIDIA H100 80GB HBM3") == 700);
    assert_true(wt_gpu_rated_power_w("NVIDIA H100 PCIe") == 350);
    assert_true(wt_gpu_rated_power_w("NVIDIA H100 NVL") == 400);
    assert_true(wt_gpu_rated_power_w("NVIDIA H200") == 700);
    assert_true(wt_gpu_rated_power_w("NVIDIA A100-SXM4-80GB") == 400);
    assert_true(wt_gpu_rated_power_w("NVIDIA A100 80GB PCIe") == 300);
    assert_true(wt_gpu_rated_power_w("NVIDIA A800 80GB PCIe") == 300);
    /* a laptop GPU's power is set by the laptop (35..175 W for one name):
     * not the desktop card's 450 W */
    assert_true(isnan(wt_gpu_rated_power_w("NVIDIA GeForce RTX 4090 Laptop GPU")));
    assert_true(isnan(wt_gpu_rated_power_w("NVIDIA GeForce RTX 3060 Laptop GPU")));
    assert_true(wt_gpu_rated_power_w("NVIDIA A100-PCIE-40GB") == 250);
    assert_true(wt_gpu_rated_power_w("Tesla V100-SXM2-32GB") == 300);
    assert_true(wt_gpu_rated_power_w("NVIDIA TITAN X (Pascal)") == 250);
    assert_true(wt_gpu_rated_power_w("nvidia l4") == 72);
    assert_true(wt_gpu_rated_power_w("NVIDIA L40S") == 350);
    assert_true(wt_gpu_rated_power_w("NVIDIA A10G") == 300);
    assert_true(wt_gpu_rated_power_w("NVIDIA A10") == 150);
    assert_true(wt_gpu_rated_power_w("NVIDIA A2") == 60);
    assert_true(wt_gpu_rated_power_w("Tesla P40") == 250);
    assert_true(wt_gpu_rated_power_w("Tesla P4") == 75);
    assert_true(wt_gpu_rated_power_w("Tesla K40m") == 235);
    assert_true(wt_gpu_rated_power_w("Tesla K20Xm") == 235);
    assert_true(wt_gpu_rated_power_w("Tesla K20c") == 225);
    assert_true(isnan(wt_gpu_rated_power_w("Quadro K2000"))); /* not a K20 */
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 3090 Ti") == 450);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 3090") == 350);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX A4000") == 140);
    assert_true(wt_gpu_rated_power_w("Quadro RTX 8000") == 295);
    /* a model token inside another name is not that model */
    assert_true(wt_gpu_rated_power_w("NVIDIA GH200 480GB") == 1000);
    assert_true(wt_gpu_rated_power_w("NVIDIA GB200") == 1200);
    assert_true(wt_gpu_rated_power_w("NVIDIA H20") == 400);       /* datasheet TDP 400 W */
    assert_true(isnan(wt_gpu_rated_power_w("NVIDIA RTX A1000"))); /* not an A100 */
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX A2000") == 70);  /* not an A2 */
    /* variants listed before their base model */
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 4070 Ti SUPER") == 285);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 4070 SUPER") == 220);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 4070") == 200);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 3060") == 170);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 2080 SUPER") == 250);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce GTX 1080") == 180);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX 4000 SFF Ada Generation") == 70);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX 4000 Ada Generation") == 130);
    assert_true(wt_gpu_rated_power_w("Quadro RTX 5000") == 230);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX 5000 Ada Generation") == 250);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX PRO 6000 Blackwell Workstation Edition") == 600);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition") ==
                300);
    assert_true(wt_gpu_rated_power_w("Quadro GV100") == 250); /* not a V100 */
    assert_true(wt_gpu_rated_power_w("AMD Instinct MI250") == 500);
    assert_true(wt_gpu_rated_power_w("AMD Instinct MI250X") == 560);
    assert_true(isnan(wt_gpu_rated_power_w("Quadro P4000"))); /* not a P4 */
    /* boards with several GPUs: NVML reports each GPU, so the scale is per GPU */
    assert_true(wt_gpu_rated_power_w("Tesla K80") == 150);
    assert_true(wt_gpu_rated_power_w("Tesla M60") == 150);
    assert_true(wt_gpu_rated_power_w("NVIDIA A16") == 62.5);
    assert_true(wt_gpu_rated_power_w("Tesla P100-SXM2-16GB") == 300);
    assert_true(wt_gpu_rated_power_w("Tesla P100-PCIE-16GB") == 250);
    assert_true(wt_gpu_rated_power_w("Tesla V100-SXM3-32GB") == 350);
    assert_true(wt_gpu_rated_power_w("NVIDIA GB300") == 1400);
    assert_true(wt_gpu_rated_power_w("NVIDIA B300 SXM6 AC") == 1100);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce GTX 1070 Ti") == 180);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce GTX 1070") == 150);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce GTX 1660 SUPER") == 125);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 2060 SUPER") == 175);
    assert_true(wt_gpu_rated_power_w("Quadro RTX 4000") == 160);
    /* the PCIe variants' words in either order, and variants with a power of
     * their own */
    assert_true(wt_gpu_rated_power_w("NVIDIA A100-PCIE-80GB") == 300);
    assert_true(wt_gpu_rated_power_w("NVIDIA A100 PCIe 80GB") == 300);
    assert_true(wt_gpu_rated_power_w("NVIDIA A100-SXM4-80GB") == 400);
    assert_true(wt_gpu_rated_power_w("NVIDIA A800 40GB Active") == 240);
    assert_true(wt_gpu_rated_power_w("Tesla V100-FHHL-16GB") == 150);
    assert_true(wt_gpu_rated_power_w("Tesla V100S-PCIE-32GB") == 250);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 4090 D") == 425);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 4090") == 450);
    /* models that had no entry */
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX A5500") == 230);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX PRO 5000 Blackwell") == 300);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX PRO 4500 Blackwell") == 200);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX PRO 4000 Blackwell") == 140);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX PRO 4000 Blackwell SFF Edition") == 70);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX 2000 Ada Generation") == 70);
    assert_true(wt_gpu_rated_power_w("Quadro GP100") == 235);
    assert_true(wt_gpu_rated_power_w("GeForce GTX TITAN") == 250);
    assert_true(wt_gpu_rated_power_w("GeForce GTX TITAN Black") == 250);
    assert_true(wt_gpu_rated_power_w("GeForce GTX TITAN X") == 250);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 5060 Ti") == 180);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX 5060") == 145);
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce GTX 1650") == 75);
    /* spacing and separators a hand-written trace may use */
    assert_true(wt_gpu_rated_power_w("NVIDIA GeForce RTX  4090") == 450);
    assert_true(wt_gpu_rated_power_w("NVIDIA_GeForce_RTX_4090") == 450);
    assert_true(wt_gpu_rated_power_w("rtx4090") == 450);
    assert_true(wt_gpu_rated_power_w("NVIDIA\tA100 80GB  PCIe") == 300);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX 6000  Ada Generation") == 300);
    assert_true(wt_gpu_rated_power_w("NVIDIA RTX PRO 6000 Blackwell Max Q Workstation Edition") ==
                300);
    assert_true(isnan(wt_gpu_rated_power_w("NVIDIA RTX A 1000"))); /* still not an A100 */
    /* Turing and Pascal laptop GPUs say so this way */
    assert_true(isnan(wt_gpu_rated_power_w("GeForce RTX 2080 with Max-Q Design")));
    assert_true(isnan(wt_gpu_rated_power_w("GeForce GTX 1080 with Max-Q Design")));
    assert_true(isnan(wt_gpu_rated_power_w("unknown")));
    assert_true(isnan(wt_gpu_rated_power_w("")));
    assert_true(isnan(wt_gpu_rated_power_w(NULL)));
}

/* Energy per active second of a GPU at its limit is 1, whether power has gaps
 * or the energy counter covers only part of the window (it read 0 with every
 * other power cell empty, which flipped a full-load window to INFERENCE). */
static void test_energy_gaps(void **state)
{
    (void)state;
    enum { N = 30 };
    struct wt_sample s[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = 100;
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    for (int variant = 0; variant < 4; variant++) {
        fill(s, N, u, NULL);
        for (int i = 0; i < N; i++) {
            s[i].v[WT_COL_POWER_LIMIT] = 700;
            if (variant != 1 || i % 2 == 0)
                s[i].v[WT_COL_POWER] = 700; /* variant 1: every other cell empty */
            if (variant == 2 && i == 0)
                s[i].v[WT_COL_ENERGY] = 5000; /* one reading: not a counter */
            if (variant == 3 && i >= 25)
                s[i].v[WT_COL_ENERGY] = 5000 + 700.0 * i; /* the last 4 s only */
        }
        wt_features_compute(&w, &f);
        assert_true(fabs(f.v[WT_F_ENERGY_ACTIVE] - 1.0) < 1e-9);
    }
}

/* Values not judged are "not measured", not 0: clocks_locked from clock
 * readings on fewer than half the samples, utilization while active with no
 * active sample; peak_power_on_norm is the same interpolated 95th percentile
 * as power_p95_norm. */
static void test_not_judged_is_nan(void **state)
{
    (void)state;
    enum { N = 30 };
    struct wt_sample s[N];
    double u[N];
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    for (int i = 0; i < N; i++)
        u[i] = 95;
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++) {
        s[i].v[WT_COL_POWER] = 300 + 10 * i; /* 300..590 W */
        s[i].v[WT_COL_SM_CLOCK_MAX] = 1980;
        if (i < 12)
            s[i].v[WT_COL_SM_CLOCK] = 1500; /* 12 of 30 rows: not judged */
    }
    wt_features_compute(&w, &f);
    assert_true(isnan(f.v[WT_F_CLOCKS_LOCKED]));
    assert_true(fabs(f.v[WT_F_PEAK_POWER_ON] - f.v[WT_F_POWER_P95_NORM]) < 1e-12);
    assert_true(fabs(f.v[WT_F_PEAK_POWER_ON] * 700 - 575.5) < 1e-9);
    for (int i = 0; i < N; i++)
        u[i] = 0;
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++)
        s[i].v[WT_COL_POWER] = 70;
    wt_features_compute(&w, &f);
    assert_true(isnan(f.v[WT_F_UTIL_ACTIVE]));
}

/* A window longer than the grid's 4096 cells: the step is a whole multiple
 * of the sample period, so a 1.4 s on/off cadence keeps its lag (it read
 * 4.2 s when the step was span / 4095). */
static void test_long_window_cadence(void **state)
{
    (void)state;
    enum { N = 4200 };
    static struct wt_sample s[N];
    static double u[N];
    for (int i = 0; i < N; i++)
        u[i] = (i / 7) % 2 ? 0 : 100;
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++)
        s[i].t_s = 0.1 * i;
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    wt_features_compute(&w, &f);
    assert_true(fabs(f.v[WT_F_UTIL_ACF_LAG] - 1.4) < 1e-6);
    assert_true(f.v[WT_F_UTIL_ACF_PEAK] > 0.99);
    assert_true(f.v[WT_F_ON_LEN_CV] < 1e-6);
}

/* A 30 s window at 10 Hz whose span divides to 298.999... cells: its last
 * sample must still reach the grid (a burst in it alone was lost). */
static void test_grid_keeps_last_sample(void **state)
{
    (void)state;
    enum { N = 300 };
    struct wt_sample s[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = i == N - 1 ? 100 : 0;
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++)
        s[i].t_s = 5.1 + 0.1 * i;
    assert_true((s[N - 1].t_s - s[0].t_s) / 0.1 < N - 1); /* the rounding case */
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_BURST_RATE] > 0);
    assert_true(fabs(f.v[WT_F_ON_LEN] - 0.1) < 1e-9);
}

/* A GPU busy throughout for 30 samples at 1 Hz has a 30 s on-phase, whether
 * the step reads 1.0, 1.000001 or 0.999999 s: the model's thresholds sit at
 * that value, so float noise in a run's length must not move it (run
 * lengths are rounded to 0.01 s). */
static void test_run_length_rounding(void **state)
{
    (void)state;
    enum { N = 30 };
    struct wt_sample s[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = 100;
    const double steps[] = {1.0, 1.000001, 0.999999};
    for (size_t a = 0; a < 3; a++) {
        fill(s, N, u, NULL);
        for (int i = 0; i < N; i++)
            s[i].t_s = steps[a] * i;
        struct wt_window w = {
            .s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
        struct wt_features f;
        wt_features_compute(&w, &f);
        assert_true(f.v[WT_F_ON_LEN] == 30.0);
    }
}

/* Memory growth per minute is a slope over time: duplicated rows do not
 * halve it.  An energy counter that goes back (a reset) is not trusted:
 * power is integrated instead. */
static void test_slope_and_counter_reset(void **state)
{
    (void)state;
    enum { N = 60 };
    struct wt_sample s[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = 100;
    struct wt_window w = {
        .s = s, .n = 30, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f1, f2;
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++) {
        s[i].v[WT_COL_MEM_TOTAL] = 80000;
        s[i].v[WT_COL_MEM_USED] = 1000 + 80.0 * i; /* 80 MiB/s: 6% of the card per minute */
    }
    wt_features_compute(&w, &f1);
    fill(s, N, u, NULL); /* the same, every row twice */
    for (int i = 0; i < N; i++) {
        s[i].t_s = (double)(i / 2);
        s[i].v[WT_COL_MEM_TOTAL] = 80000;
        s[i].v[WT_COL_MEM_USED] = 1000 + 80.0 * (i / 2);
    }
    w.n = N;
    wt_features_compute(&w, &f2);
    assert_true(fabs(f1.v[WT_F_MEM_SLOPE] - 0.06) < 1e-9);
    assert_true(fabs(f2.v[WT_F_MEM_SLOPE] - 0.06) < 1e-9);

    fill(s, N, u, NULL);
    for (int i = 0; i < 30; i++) {
        s[i].v[WT_COL_POWER_LIMIT] = 700;
        s[i].v[WT_COL_POWER] = 700;
        s[i].v[WT_COL_ENERGY] = 700.0 * (i < 15 ? 1000 + i : i - 15); /* reset at 15 */
    }
    w.n = 30;
    wt_features_compute(&w, &f1);
    assert_true(fabs(f1.v[WT_F_ENERGY_ACTIVE] - 1.0) < 1e-9);

    /* flat memory is a slope of exactly 0, whatever its value and the
     * clock's origin (one pass left +-1e-14 by the value, and the model
     * had split on its sign) */
    const double flat[] = {60000, 60001.3, 12345.678, 79999.9};
    for (size_t k = 0; k < sizeof(flat) / sizeof(flat[0]); k++) {
        fill(s, N, u, NULL);
        for (int i = 0; i < N; i++) {
            s[i].t_s = 1767225600.0 + 0.1 * i;
            s[i].v[WT_COL_MEM_TOTAL] = 81559;
            s[i].v[WT_COL_MEM_USED] = flat[k];
        }
        w.n = N;
        wt_features_compute(&w, &f1);
        assert_true(f1.v[WT_F_MEM_SLOPE] == 0.0);
    }
}

/* Duty is a share of time: a GPU polled every 0.1 s while busy for its first
 * second, then every second while idle, is busy 1 s in 21, not 10 samples
 * in 30. */
static void test_duty_by_time(void **state)
{
    (void)state;
    enum { N = 30 };
    struct wt_sample s[N];
    double u[N], t[N];
    for (int i = 0; i < N; i++) {
        t[i] = i <= 10 ? 0.1 * i : (double)(i - 10) + 1.0;
        u[i] = i < 10 ? 100 : 0;
    }
    fill(s, N, u, t);
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    wt_features_compute(&w, &f);
    /* 10 active samples of 0.1 s each; the 30 samples weigh 21 s (20 s from
     * the first to the last, plus the median period, 1 s, for the last) */
    assert_true(f.v[WT_F_SAMPLE_PERIOD] == 1.0);
    assert_true(fabs(f.v[WT_F_DUTY] - 1.0 / 21.0) < 1e-9); /* by samples: 10 / 30 */

    /* two polls a second stamped with whole seconds: samples that share a
     * time share its second (the first of each pair weighed 0: duty 0, IDLE) */
    for (int i = 0; i < N; i++) {
        t[i] = (double)(i / 2);
        u[i] = i % 2 ? 0 : 100;
    }
    fill(s, N, u, t);
    wt_features_compute(&w, &f);
    assert_true(fabs(f.v[WT_F_DUTY] - 0.5) < 1e-9);

    /* an empty utilization cell is "not measured", never 0%: busy rows with
     * every other row left empty are busy throughout (duty had been 0.5, the
     * same as rows that said 0%), and so is energy per active second */
    for (int i = 0; i < N; i++) {
        t[i] = (double)i;
        u[i] = i % 2 ? NAN : 100;
    }
    fill(s, N, u, t);
    for (int i = 0; i < N; i++)
        s[i].v[WT_COL_POWER] = i % 2 ? NAN : 500;
    wt_features_compute(&w, &f);
    assert_true(fabs(f.v[WT_F_DUTY] - 1.0) < 1e-9);
    struct wt_features half_rows;
    struct wt_sample s2[N / 2];
    for (int i = 0; i < N / 2; i++)
        s2[i] = s[2 * i];
    struct wt_window w2 = w;
    w2.s = s2;
    w2.n = N / 2;
    wt_features_compute(&w2, &half_rows);
    assert_true(fabs(f.v[WT_F_ENERGY_ACTIVE] - half_rows.v[WT_F_ENERGY_ACTIVE]) < 1e-9);
    /* a row with power but no utilization is not counted idle either */
    for (int i = 1; i < N; i += 2)
        s[i].v[WT_COL_POWER] = 500;
    wt_features_compute(&w, &f);
    assert_true(fabs(f.v[WT_F_DUTY] - 1.0) < 1e-9);
}

/* Rows that measure a column only every other row, or nothing at all (a
 * converter's row per metric group): "not measured", never a reason to lose
 * the column (a review compared such files with the same rows removed). */
static void test_partial_rows(void **state)
{
    (void)state;
    enum { N = 29 }; /* an odd count: 14 of 29 rows measure */
    struct wt_sample s[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = i % 2 ? NAN : 95 + (i % 4);
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++) {
        s[i].v[WT_COL_POWER] = i % 2 ? NAN : 300;
        /* the limit is read on the other rows */
        s[i].v[WT_COL_POWER_LIMIT] = i % 2 ? 350 : NAN;
    }
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    wt_features_compute(&w, &f);
    /* activity from rows that measure it (half of 29 rows had been too few) */
    assert_true(fabs(f.v[WT_F_DUTY] - 1.0) < 1e-9);
    /* the limit covers the window: it is the scale, not the rated 700 W */
    assert_true(f.v[WT_F_POWER_REF] == 350);
    /* changes between the rows that measure: jitter is measured */
    assert_true(wt_measured(f.v[WT_F_UTIL_JITTER]) && f.v[WT_F_UTIL_JITTER] > 0);
    assert_true(wt_measured(f.v[WT_F_POWER_JITTER]));

    /* a limit read in 3 rows of 29, at the start, or in rows 0, 1 and 28
     * (two gaps: their mean held each reading 14 s): not the scale */
    for (int i = 0; i < N; i++)
        s[i].v[WT_COL_POWER_LIMIT] = i < 3 ? 350 : NAN;
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_POWER_REF] == 700);
    for (int i = 0; i < N; i++)
        s[i].v[WT_COL_POWER_LIMIT] = i < 2 || i == N - 1 ? 350 : NAN;
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_POWER_REF] == 700);

    /* --resample: rows within a tick's step fill in what the tick's row
     * left empty (power at t, utilization 30 ms later: utilization was lost) */
    struct wt_sample r[2 * N];
    for (int i = 0; i < 2 * N; i++) {
        wt_sample_clear(&r[i], 0);
        r[i].t_s = i / 2 + (i % 2 ? 0.03 : 0);
        r[i].v[i % 2 ? WT_COL_UTIL_GPU : WT_COL_POWER] = i % 2 ? 97 : 400;
    }
    size_t m = wt_resample(r, 2 * N, 1.0);
    assert_int_equal(m, N);
    for (size_t i = 0; i < m; i++)
        assert_true(r[i].v[WT_COL_UTIL_GPU] == 97 && r[i].v[WT_COL_POWER] == 400);
}

/* Memory used beyond the card's total is no scale: a trace with 900 GB
 * used on an 80 GB card (or a total of 1 MiB) gave mem_frac ~11 and a
 * growth per minute to match. */
static void test_mem_over_total(void **state)
{
    (void)state;
    enum { N = 30 };
    struct wt_sample s[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = 90;
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++) {
        s[i].v[WT_COL_MEM_USED] = 40000 + 100 * i;
        s[i].v[WT_COL_MEM_TOTAL] = 81559;
    }
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_MEM_FRAC] > 0.49 && f.v[WT_F_MEM_FRAC] < 0.52);
    assert_true(wt_measured(f.v[WT_F_MEM_SLOPE]));
    s[17].v[WT_COL_MEM_USED] = 900000;
    wt_features_compute(&w, &f);
    assert_true(isnan(f.v[WT_F_MEM_FRAC]));
    assert_true(isnan(f.v[WT_F_MEM_SLOPE]));
    assert_true(wt_measured(f.v[WT_F_MEM_CV])); /* not a ratio to the total */
}

/* A locked SM clock is judged under load, from the active samples, when
 * the clock column covers half the window: a GPU busy 4 s in every 10 at
 * a clock locked at 1200 of 1980 MHz was not judged at all (its active
 * samples were fewer than half of the window's). */
static void test_clock_lock_bursty(void **state)
{
    (void)state;
    enum { N = 60 };
    struct wt_sample s[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = i % 10 < 4 ? 100 : 0;
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++) {
        s[i].v[WT_COL_POWER] = u[i] ? 500 : 80;
        s[i].v[WT_COL_SM_CLOCK] = 1200;
        s[i].v[WT_COL_SM_CLOCK_MAX] = 1980;
    }
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    wt_features_compute(&w, &f);
    assert_true(fabs(f.v[WT_F_DUTY] - 0.4) < 1e-9);
    assert_true(f.v[WT_F_CLOCKS_LOCKED] == 1.0);

    /* a clock that moves under load is judged not locked */
    for (int i = 0; i < N; i++)
        s[i].v[WT_COL_SM_CLOCK] = 1200 + 30 * (i % 7);
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_CLOCKS_LOCKED] == 0.0);

    /* a clock read only while busy covers 40% of the window: not judged */
    for (int i = 0; i < N; i++)
        s[i].v[WT_COL_SM_CLOCK] = u[i] ? 1200 : NAN;
    wt_features_compute(&w, &f);
    assert_true(isnan(f.v[WT_F_CLOCKS_LOCKED]));

    /* nine active samples are too few to judge */
    for (int i = 0; i < N; i++) {
        u[i] = i < 9 ? 100 : 0;
        s[i].v[WT_COL_UTIL_GPU] = u[i];
        s[i].v[WT_COL_SM_CLOCK] = 1200;
    }
    wt_features_compute(&w, &f);
    assert_true(isnan(f.v[WT_F_CLOCKS_LOCKED]));
}

/* The power scale and the tamper indicators come from power_limit_w and
 * clock_reasons only when the rows that carry them cover half the window's
 * time: one reading among thirty said "software power cap asserted in 100%
 * of samples" and made its 100 W limit the scale of every watt. */
static void test_settings_coverage(void **state)
{
    (void)state;
    enum { N = 30 };
    struct wt_sample s[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = 0;
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++) {
        s[i].v[WT_COL_POWER] = 60;
        s[i].v[WT_COL_POWER_DEFAULT_LIMIT] = 700;
    }
    s[7].v[WT_COL_POWER_LIMIT] = 100;
    s[7].v[WT_COL_CLOCK_REASONS] = 0x6; /* SW power cap, application clocks */
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_POWER_REF] == 700.0); /* the H100 SXM's rated power */
    assert_true(isnan(f.v[WT_F_LIMIT_RATIO]));
    assert_true(isnan(f.v[WT_F_SWCAP_FRAC]));
    assert_true(isnan(f.v[WT_F_CLOCKS_LOCKED]));

    /* on half of the time (every other second), they count */
    for (int i = 0; i < N; i += 2) {
        s[i].v[WT_COL_POWER_LIMIT] = 100;
        s[i].v[WT_COL_CLOCK_REASONS] = 0x6;
    }
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_POWER_REF] == 100.0);
    assert_true(fabs(f.v[WT_F_LIMIT_RATIO] - 100.0 / 700.0) < 1e-9);
    assert_true(f.v[WT_F_SWCAP_FRAC] == 1.0);
    assert_true(f.v[WT_F_CLOCKS_LOCKED] == 1.0);

    /* exactly half, at Unix time: the sums of time differences come to
     * 0.49999998 there (it was read as less than half) */
    for (int i = 0; i < N; i++) {
        s[i].t_s = round((1.7e9 + 0.1 * i) * 1000) / 1000;
        s[i].v[WT_COL_POWER_LIMIT] = i < N / 2 ? 100 : NAN;
        s[i].v[WT_COL_CLOCK_REASONS] = i < N / 2 ? 0x4 : NAN;
    }
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_POWER_REF] == 100.0);
    assert_true(f.v[WT_F_SWCAP_FRAC] == 1.0);

    /* a burst of quick rows carrying them is a short time, not many rows */
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++) {
        s[i].t_s = i < 20 ? 0.01 * i : 0.2 + (double)(i - 19);
        s[i].v[WT_COL_POWER] = 60;
        if (i < 20) {
            s[i].v[WT_COL_POWER_LIMIT] = 100;
            s[i].v[WT_COL_CLOCK_REASONS] = 0x4;
        }
    }
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_POWER_REF] == 700.0);
    assert_true(isnan(f.v[WT_F_SWCAP_FRAC]));
}

/* The same samples give the same features wherever the clock started: the
 * period, a difference of two times, carries their rounding (1e-12 s at
 * t = 5000, 2e-7 s at Unix time), and the grid built on it lost or gained a
 * cell (on_len_s 29.9 instead of 30 from t = 4110 on; 20 of the corpus's 2156
 * windows changed class when shifted by 5000 s). */
static void test_clock_origin(void **state)
{
    (void)state;
    enum { N = 300 };
    static struct wt_sample s[N];
    static const double offs[] = {0, 4110, 5000.5, 1.7e9};
    struct wt_features f0, f;
    for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
        for (int i = 0; i < N; i++) {
            wt_sample_clear(&s[i], 0);
            /* as a trace file holds them: milliseconds */
            s[i].t_s = round((offs[o] + 0.1 * i) * 1000) / 1000;
            s[i].v[WT_COL_UTIL_GPU] = i % 30 < 20 ? 100 : 0; /* 2 s on, 1 s off */
            s[i].v[WT_COL_POWER] = i % 30 < 20 ? 600 : 90;
        }
        struct wt_window w = {
            .s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
        wt_features_compute(&w, o ? &f : &f0);
        if (!o)
            continue;
        for (int k = 0; k < WT_NFEATURES; k++) {
            double a = f0.v[k], b = f.v[k];
            if (isnan(a) != isnan(b) || (!isnan(a) && fabs(a - b) > 1e-6 * (1 + fabs(a))))
                fail_msg("offset %g: %s is %.9g, at offset 0 %.9g", offs[o],
                         wt_feature_name((enum wt_feature)k), b, a);
        }
    }
}

/* Resampling to 1 Hz: a 1 Hz stream with a poller's jitter is unchanged
 * (keeping the first sample at or after each tick dropped every other row of
 * 0, 0.998, 2.002, 2.998, ...); a 10 Hz stream keeps the first sample at or
 * after each second, as before, also when one sample sits just before a tick. */
static void test_resample_jitter(void **state)
{
    (void)state;
    enum { N = 40 };
    struct wt_sample s[N];
    for (int i = 0; i < N; i++) {
        wt_sample_clear(&s[i], 0);
        s[i].t_s = i + (i % 2 ? -0.002 : 0.002) * (i > 0 && i < N - 1);
    }
    assert_int_equal(wt_resample(s, N, 1.0), N);
    /* random jitter of up to 5 ms */
    unsigned r = 1;
    for (int i = 0; i < N; i++) {
        r = r * 1103515245u + 12345u;
        s[i].t_s = i + ((double)(r >> 16 & 0x7fff) / 32767.0 - 0.5) * 0.01;
    }
    s[0].t_s = 0;
    s[N - 1].t_s = N - 1; /* the last sample stands only for a tick at or before it */
    assert_int_equal(wt_resample(s, N, 1.0), N);
    /* 10 Hz, one sample 20 ms early: the samples at whole seconds are kept */
    for (int i = 0; i < N; i++)
        s[i].t_s = 0.1 * i - (i == 19 ? 0.02 : 0);
    size_t m = wt_resample(s, N, 1.0);
    assert_int_equal(m, 4);
    for (size_t i = 0; i < m; i++)
        assert_true(fabs(s[i].t_s - (double)i) < 1e-9);
    /* a slower stream is unchanged */
    for (int i = 0; i < N; i++)
        s[i].t_s = 1.5 * i;
    assert_int_equal(wt_resample(s, N, 1.0), N);
}

/* Two GPUs running the same steps, polled 3 ms apart, are in step: each grid
 * cell takes each GPU's nearest sample (the later GPU lagged a whole cell). */
/* An H100 (GPU 0, samples a) with one peer (GPU 1, samples b), n each. */
static void h100_pair(const struct wt_sample *a, const struct wt_sample *b, size_t n,
                      struct wt_window *w, struct wt_window *peer)
{
    *peer = (struct wt_window){
        .s = b, .n = n, .gpu = 1, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    *w = (struct wt_window){.s = a,
                            .n = n,
                            .power_semantics = "instant",
                            .gpu_model = "NVIDIA H100",
                            .peers = peer,
                            .npeers = 1};
}

static void test_peer_skew(void **state)
{
    (void)state;
    enum { N = 300 };
    struct wt_sample a[N], b[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = (i / 3) % 2 ? 100 : 0; /* 0.3 s on, 0.3 s off at 10 Hz */
    fill(a, N, u, NULL);
    fill(b, N, u, NULL);
    for (int i = 0; i < N; i++) {
        a[i].t_s = 0.1 * i;
        b[i].t_s = 0.1 * i + 0.003;
    }
    struct wt_window peer, w;
    h100_pair(a, b, N, &w, &peer);
    struct wt_features f;
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_PEER_SYNC] > 0.99); /* was 1/3 with a one-cell lag */
}

/* Features without some columns: computed from a copy (the window and its
 * peers are left as they were), the dropped columns' features not measured,
 * activity and cross-GPU synchrony read from power instead. */
static void test_without_columns(void **state)
{
    (void)state;
    enum { N = 300 };
    struct wt_sample a[N], b[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = (i / 3) % 2 ? 100 : 0;
    fill(a, N, u, NULL);
    fill(b, N, u, NULL);
    for (int i = 0; i < N; i++) {
        a[i].t_s = b[i].t_s = 0.1 * i;
        a[i].v[WT_COL_UTIL_MEM] = a[i].v[WT_COL_UTIL_GPU] / 2;
        a[i].v[WT_COL_POWER] = b[i].v[WT_COL_POWER] = u[i] ? 600 : 80;
    }
    struct wt_window peer, w;
    h100_pair(a, b, N, &w, &peer);
    struct wt_features full, pv;
    wt_features_compute(&w, &full);
    wt_features_compute_without(&w, (1u << WT_COL_UTIL_GPU) | (1u << WT_COL_UTIL_MEM), &pv);
    assert_true(wt_measured(full.v[WT_F_AVG_GPU_UTIL]) && wt_measured(full.v[WT_F_MEMUTIL_RATIO]));
    assert_false(wt_measured(pv.v[WT_F_AVG_GPU_UTIL]));
    assert_false(wt_measured(pv.v[WT_F_MEMUTIL_RATIO]));
    assert_false(wt_measured(pv.v[WT_F_SPIN_FRAC]));
    assert_true(fabs(pv.v[WT_F_DUTY] - full.v[WT_F_DUTY]) < 0.02); /* from power */
    assert_true(pv.v[WT_F_PEER_SYNC] > 0.99);                      /* from power */
    assert_true(fabs(pv.v[WT_F_AVG_POWER] - full.v[WT_F_AVG_POWER]) < 1e-9);
    assert_true(a[5].v[WT_COL_UTIL_GPU] == 100); /* the window is untouched */
    assert_true(b[5].v[WT_COL_UTIL_GPU] == 100);
}

/* The physics model reads power, not utilization, when power is on a scale:
 * the same power under another utilization is the same score; without a
 * scale (an unrated GPU model, no limit) it reads utilization, and does not
 * say it read power. */
static void test_model_reads_power(void **state)
{
    (void)state;
    enum { N = 300 };
    struct wt_sample a[N], b[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = i % 12 < 10 ? 99 : 60; /* 1.2 s steps at 10 Hz */
    fill(a, N, u, NULL);
    fill(b, N, u, NULL);
    for (int i = 0; i < N; i++) {
        a[i].t_s = b[i].t_s = 0.1 * i;
        a[i].v[WT_COL_POWER] = b[i].v[WT_COL_POWER] = i % 12 < 10 ? 330 + (i % 3) * 5 : 180;
        b[i].v[WT_COL_UTIL_GPU] = 20 + (i * 7) % 50; /* another stack's utilization */
    }
    struct wt_window wa = {
        .s = a, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA A100-SXM4-40GB"};
    struct wt_window wb = wa;
    wb.s = b;
    struct wt_result ra, rb;
    struct wt_err err;
    assert_int_equal(wt_classify_window(&wt_classifier_physics, &wa, &ra, &err), WT_OK);
    assert_int_equal(wt_classify_window(&wt_classifier_physics, &wb, &rb, &err), WT_OK);
    assert_true(isfinite(ra.score));
    assert_true(ra.score == rb.score);
    assert_int_equal(ra.cls, rb.cls);
    assert_true(wt_measured(ra.features.v[WT_F_AVG_GPU_UTIL])); /* shown, not read */
    int said = 0;
    for (size_t i = 0; i < ra.nreasons; i++)
        said |= strstr(ra.reasons[i].text, "the model read power, not utilization") != NULL;
    assert_true(said);
    wa.gpu_model = wb.gpu_model = "Mystery Accelerator";
    assert_int_equal(wt_classify_window(&wt_classifier_physics, &wa, &ra, &err), WT_OK);
    said = 0;
    for (size_t i = 0; i < ra.nreasons; i++)
        said |= strstr(ra.reasons[i].text, "the model read power") != NULL;
    assert_false(said);

    /* the view reads power only where power is in at least half of the
     * rows that measure either signal, and reads more than 0 W: one
     * reading (or a sensor reading 0 W) beside 300 of utilization had
     * outweighed them */
    struct wt_features full, pview;
    wa.gpu_model = "NVIDIA A100-SXM4-40GB";
    for (int i = 0; i < N; i++)
        a[i].v[WT_COL_POWER] = i < 150 ? 330 : NAN; /* half: power */
    wt_features_compute(&wa, &full);
    assert_ptr_equal(wt_physics_model_view(&wa, &full, &pview), &pview);
    a[150].v[WT_COL_POWER] = NAN;
    a[149].v[WT_COL_POWER] = NAN; /* 148 of 300: utilization */
    wt_features_compute(&wa, &full);
    assert_ptr_equal(wt_physics_model_view(&wa, &full, &pview), &full);
    for (int i = 0; i < N; i++)
        a[i].v[WT_COL_POWER] = 0; /* 0 W throughout */
    wt_features_compute(&wa, &full);
    assert_ptr_equal(wt_physics_model_view(&wa, &full, &pview), &full);
}

/* Activity by utilization when power, though in more rows, has no scale
 * (a GPU model the table does not rate, no limit): it had been judged by
 * neither, and the window was UNKNOWN.  With the activity signal read once
 * (no grid), bursts and gaps are not measured, not 0. */
static void test_activity_signal(void **state)
{
    (void)state;
    enum { N = 300 };
    struct wt_sample s[N];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = i % 5 == 0 || i % 5 == 1 ? (i % 20 < 15 ? 99 : 0) : NAN; /* 120 of 300 */
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++) {
        s[i].t_s = 0.1 * i;
        s[i].v[WT_COL_POWER] = 200;
    }
    struct wt_window w = {
        .s = s, .n = N, .power_semantics = "instant", .gpu_model = "Mystery Accelerator"};
    struct wt_features f;
    wt_features_compute(&w, &f);
    assert_true(fabs(f.v[WT_F_DUTY] - 0.75) < 0.05);
    assert_true(wt_measured(f.v[WT_F_BURST_RATE]));
    /* but not from one reading, nor from readings bunched in a corner of the
     * window: a GPU drawing 400 W was IDLE by one utilization of 0 */
    for (int i = 0; i < N; i++)
        s[i].v[WT_COL_UTIL_GPU] = i == 0 ? 0 : NAN;
    wt_features_compute(&w, &f);
    assert_true(isnan(f.v[WT_F_DUTY]));
    for (int i = 0; i < N; i++)
        s[i].v[WT_COL_UTIL_GPU] = i < 100 ? 99 : NAN;
    wt_features_compute(&w, &f);
    assert_true(isnan(f.v[WT_F_DUTY]));

    for (int i = 0; i < N; i++) {
        wt_sample_clear(&s[i], 0);
        s[i].t_s = 0.1 * i;
        s[i].v[WT_COL_MEM_USED] = 1000;
    }
    s[0].v[WT_COL_UTIL_GPU] = 99; /* utilization read once */
    wt_features_compute(&w, &f);
    assert_true(wt_measured(f.v[WT_F_DUTY]));
    assert_true(isnan(f.v[WT_F_BURST_RATE]));
    assert_true(isnan(f.v[WT_F_GAP_LEN]));
    assert_true(isnan(f.v[WT_F_ON_LEN]));
}

/* The rhythm inside bursts: a pure on/off square wave has none (constant
 * while on), however periodic its duty cycle; a training step rhythm keeps
 * it through sleeps of irregular length, which blur the whole-window
 * autocorrelation. */
static void test_active_acf(void **state)
{
    (void)state;
    enum { N = 300 };
    struct wt_sample s[N];
    double u[N];
    struct wt_window w = {.s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100"};
    struct wt_features f;
    for (int i = 0; i < N; i++)
        u[i] = (i / 20) % 2 ? 0 : 100; /* 2 s on, 2 s off */
    fill(s, N, u, NULL);
    for (int i = 0; i < N; i++)
        s[i].t_s = 0.1 * i;
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_UTIL_ACF_PEAK] > 0.8);
    assert_true(f.v[WT_F_ACTIVE_ACF_PEAK] == 0);

    /* steps of 0.8 s (0.6 s at 100%, 0.2 s at 40%) in bursts of 2..4 s,
     * separated by sleeps of 0.5..3.7 s */
    static const int sleep_ds[] = {5, 37, 12, 29, 8, 21, 33, 14, 26, 9};
    int i = 0, b = 0;
    while (i < N) {
        int burst = 20 + 10 * (b % 3);
        for (int k = 0; k < burst && i < N; k++, i++)
            u[i] = k % 8 < 6 ? 100 : 40;
        for (int k = 0; k < sleep_ds[b % 10] && i < N; k++, i++)
            u[i] = 0;
        b++;
    }
    fill(s, N, u, NULL);
    for (int k = 0; k < N; k++)
        s[k].t_s = 0.1 * k;
    wt_features_compute(&w, &f);
    assert_true(f.v[WT_F_ACTIVE_ACF_PEAK] > 0.5);
    assert_true(f.v[WT_F_ACTIVE_ACF_PEAK] > f.v[WT_F_UTIL_ACF_PEAK] + 0.2);

    /* nothing active: not measurable */
    for (int k = 0; k < N; k++)
        u[k] = 0;
    fill(s, N, u, NULL);
    wt_features_compute(&w, &f);
    assert_true(isnan(f.v[WT_F_ACTIVE_ACF_PEAK]));
}

/* Faster than the 20 Hz grid (cells averaging several samples), a pure
 * duty cycle still has no rhythm while on: a cell straddling an on/off edge
 * holds a partial mean, and must not count as an active cell with a value of
 * its own (it recurs with the duty period and read as a rhythm: about 0.5
 * at 100 Hz).  Also with power only, and at 33 Hz. */
static void test_active_acf_fast(void **state)
{
    (void)state;
    enum { N = 3000 };
    static struct wt_sample s[N];
    static double u[N];
    static const double hz[] = {100, 33, 50};
    for (int r = 0; r < 3; r++) {
        struct wt_window w = {
            .s = s, .n = N, .power_semantics = "instant", .gpu_model = "NVIDIA H100 80GB HBM3"};
        struct wt_features f;
        for (int i = 0; i < N; i++) {
            double t = i / hz[r];
            u[i] = fmod(t, 2.0) < 1.23 ? 95 : 0; /* 1.23 s on, 0.77 s off */
        }
        fill(s, N, u, NULL);
        for (int i = 0; i < N; i++) {
            s[i].t_s = i / hz[r];
            s[i].v[WT_COL_POWER] = u[i] > 0 ? 650 : 80;
            if (r == 2)
                s[i].v[WT_COL_UTIL_GPU] = NAN; /* power only */
        }
        wt_features_compute(&w, &f);
        if (!(f.v[WT_F_ACTIVE_ACF_PEAK] < 0.1))
            fail_msg("%g Hz%s: active_acf_peak %g", hz[r], r == 2 ? " (power only)" : "",
                     f.v[WT_F_ACTIVE_ACF_PEAK]);
    }
}

static void test_windows(void **state)
{
    (void)state;
    struct wt_sample s[10];
    double u[10] = {0};
    double t[10] = {0.5, 1, 2.9, 3.0, 3.1, 9.0, 9.5, 12.1, 12.2, 12.3};
    fill(s, 10, u, t);
    struct wt_window_iter it;
    size_t start, count;
    wt_window_iter_init(&it, s, 10, 3.0);
    /* windows [0.5,3.5) [3.5,6.5) (empty: not returned) [6.5,9.5) [9.5,12.5) */
    assert_true(wt_window_iter_next(&it, &start, &count));
    assert_true(start == 0 && count == 5);
    assert_true(wt_window_iter_next(&it, &start, &count));
    assert_true(start == 5 && count == 1);
    assert_true(wt_window_iter_next(&it, &start, &count));
    assert_true(start == 6 && count == 4);
    assert_false(wt_window_iter_next(&it, &start, &count));

    /* Unix-epoch times and huge gaps, where rounding puts a window's end at
     * or before its first sample: every call still advances (this hung) */
    const double far[][2] = {{1000000000.1, 1224170740.1}, {0, 1e18}, {0, 1e300}};
    for (size_t k = 0; k < sizeof(far) / sizeof(far[0]); k++) {
        fill(s, 2, u, far[k]);
        wt_window_iter_init(&it, s, 2, 30.0);
        assert_true(wt_window_iter_next(&it, &start, &count));
        assert_true(start == 0 && count == 1);
        assert_true(wt_window_iter_next(&it, &start, &count));
        assert_true(start == 1 && count == 1);
        assert_false(wt_window_iter_next(&it, &start, &count));
    }

    /* a sample on a window's end where the division and the product round
     * apart: 68.874 - 8.874 is 59.99999.., 8.874 + 60 is 68.874; the sample
     * starts window 2, not a window of its own (a spurious short one) */
    double bt[4] = {8.874, 38.874, 68.874, 69.874};
    fill(s, 4, u, bt);
    wt_window_iter_init(&it, s, 4, 30.0);
    assert_true(wt_window_iter_next(&it, &start, &count));
    assert_true(start == 0 && count == 1 && it.k == 0);
    assert_true(wt_window_iter_next(&it, &start, &count));
    assert_true(start == 1 && count == 1 && it.k == 1);
    assert_true(wt_window_iter_next(&it, &start, &count));
    assert_true(start == 2 && count == 2 && it.k == 2);
    assert_false(wt_window_iter_next(&it, &start, &count));
}

static void test_truth(void **state)
{
    (void)state;
    struct wt_sample s[10];
    double u[10] = {0};
    fill(s, 10, u, NULL);
    struct wt_window w = {.s = s, .n = 10, .power_semantics = "unknown", .gpu_model = "x"};
    for (int i = 0; i < 10; i++)
        s[i].label = WT_CLASS_TRAINING;
    assert_int_equal(wt_window_truth(&w), WT_CLASS_TRAINING);
    s[0].label = WT_CLASS_NONE;
    s[1].label = WT_CLASS_IDLE; /* 8 of 10: still scored */
    assert_int_equal(wt_window_truth(&w), WT_CLASS_TRAINING);
    s[2].label = WT_CLASS_NONE; /* 7 of 10: not scored */
    assert_int_equal(wt_window_truth(&w), WT_CLASS_NONE);
    w.n = 0;
    assert_int_equal(wt_window_truth(&w), WT_CLASS_NONE);
    assert_true(wt_window_seconds(&w) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_feature_names),
        cmocka_unit_test(test_rated_power),
        cmocka_unit_test(test_energy_gaps),
        cmocka_unit_test(test_not_judged_is_nan),
        cmocka_unit_test(test_long_window_cadence),
        cmocka_unit_test(test_grid_keeps_last_sample),
        cmocka_unit_test(test_active_acf),
        cmocka_unit_test(test_active_acf_fast),
        cmocka_unit_test(test_duty_by_time),
        cmocka_unit_test(test_partial_rows),
        cmocka_unit_test(test_mem_over_total),
        cmocka_unit_test(test_clock_lock_bursty),
        cmocka_unit_test(test_settings_coverage),
        cmocka_unit_test(test_clock_origin),
        cmocka_unit_test(test_resample_jitter),
        cmocka_unit_test(test_peer_skew),
        cmocka_unit_test(test_without_columns),
        cmocka_unit_test(test_model_reads_power),
        cmocka_unit_test(test_activity_signal),
        cmocka_unit_test(test_run_length_rounding),
        cmocka_unit_test(test_slope_and_counter_reset),
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_truth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
