/* The telemetry simulator: tables, determinism, every profile and evasion
 * family in physical ranges, the physics each one promises (step cadence,
 * memory plateaus, power cap, clock lock, duty cycling, migration), the
 * throughput an evasion gives up, and every error of wt_sim_open.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "features/sleep_inject.h"
#include "telemetry/simulate.h"

#define HZ 10
#define SECS 120
#define N (HZ * SECS)
#define MAXG 4

static struct wt_sample buf[MAXG][N * 5]; /* up to 600 s at 10 Hz per GPU */

static struct wt_sim_config cfg(const char *profile, const char *evasion, double strength)
{
    struct wt_sim_config c = {0};
    c.profile = profile;
    c.evasion = evasion;
    c.strength = strength;
    c.seed = 42;
    return c;
}

/* Runs c for n samples per GPU (GPUs interleaved sample by sample) into buf;
 * returns the number of GPUs and, if work is not NULL, the work done. */
static unsigned run(const struct wt_sim_config *c, size_t n, double *work)
{
    struct wt_sim *s;
    struct wt_err err;
    int rc = wt_sim_open(&s, c, &err);
    if (rc)
        fail_msg("open: %s", err.msg);
    unsigned ng = wt_sim_gpus(s);
    assert_true(ng >= 1 && ng <= MAXG);
    assert_true(n <= sizeof(buf[0]) / sizeof(buf[0][0]));
    for (size_t i = 0; i < n; i++)
        for (unsigned g = 0; g < ng; g++)
            wt_sim_next(s, g, &buf[g][i]);
    if (work)
        *work = wt_sim_work_done(s);
    wt_sim_close(s);
    return ng;
}

static double mean_col(unsigned g, size_t from, size_t to, enum wt_col col)
{
    double sum = 0;
    for (size_t i = from; i < to; i++)
        sum += buf[g][i].v[col];
    return sum / (double)(to - from);
}

static double frac_reason(unsigned g, size_t from, size_t to, unsigned bit)
{
    size_t k = 0;
    for (size_t i = from; i < to; i++)
        k += ((unsigned)buf[g][i].v[WT_COL_CLOCK_REASONS] & bit) != 0;
    return (double)k / (double)(to - from);
}

/* Normalised autocorrelation of a column at a lag (in samples). */
static double acf(unsigned g, size_t from, size_t to, enum wt_col col, size_t lag)
{
    double m = mean_col(g, from, to, col), num = 0, den = 0;
    for (size_t i = from; i < to; i++) {
        double d = buf[g][i].v[col] - m;
        den += d * d;
        if (i + lag < to)
            num += d * (buf[g][i + lag].v[col] - m);
    }
    return den > 0 ? num / den : 0;
}

static void test_tables(void **state)
{
    (void)state;
    size_t np, ne;
    const struct wt_sim_profile_info *p = wt_sim_profiles(&np);
    const struct wt_sim_evasion_info *e = wt_sim_evasions(&ne);
    assert_true(np >= 11);
    assert_true(ne >= 10);
    for (size_t i = 0; i < np; i++) {
        assert_ptr_equal(wt_sim_profile_find(p[i].name), &p[i]);
        assert_true(p[i].description && *p[i].description);
    }
    for (size_t i = 0; i < ne; i++) {
        assert_ptr_equal(wt_sim_evasion_find(e[i].name), &e[i]);
        assert_true(e[i].default_strength >= 0 && e[i].default_strength <= 1);
        assert_true(e[i].description && *e[i].description);
    }
    assert_int_equal(wt_sim_profile_find("dense-training")->cls, WT_CLASS_TRAINING);
    assert_int_equal(wt_sim_profile_find("inference-periodic")->cls, WT_CLASS_INFERENCE);
    assert_int_equal(wt_sim_profile_find("idle-resident")->cls, WT_CLASS_IDLE);
    assert_null(wt_sim_profile_find("mining"));
    assert_null(wt_sim_profile_find(NULL));
    assert_null(wt_sim_evasion_find("none"));
    /* dilution's default gives N = round(1 + 19 s) = 5 fake passes */
    assert_int_equal(lround(1 + 19 * wt_sim_evasion_find("dilution")->default_strength), 5);
    assert_true(wt_sim_evasion_find("duty-fixed")->default_strength == 0.5);
}

static void test_deterministic(void **state)
{
    (void)state;
    static struct wt_sample a[2][600], b[2][600];
    const char *profiles[] = {"dense-training", "inference-poisson", "inference-bursty"};
    for (int k = 0; k < 3; k++) {
        struct wt_sim_config c = cfg(profiles[k], NULL, -1);
        c.gpus = 2;
        struct wt_sim *s1, *s2;
        struct wt_err err;
        assert_int_equal(wt_sim_open(&s1, &c, &err), WT_OK);
        assert_int_equal(wt_sim_open(&s2, &c, &err), WT_OK);
        /* one reads the GPUs interleaved, the other one after the other */
        for (int i = 0; i < 600; i++)
            for (unsigned g = 0; g < 2; g++)
                wt_sim_next(s1, g, &a[g][i]);
        for (unsigned g = 0; g < 2; g++)
            for (int i = 0; i < 600; i++)
                wt_sim_next(s2, g, &b[g][i]);
        assert_memory_equal(a, b, sizeof(a));
        assert_true(wt_sim_work_done(s1) == wt_sim_work_done(s2));
        wt_sim_close(s1);
        wt_sim_close(s2);
        /* another seed gives another stream */
        c.seed = 43;
        assert_int_equal(wt_sim_open(&s1, &c, &err), WT_OK);
        for (int i = 0; i < 600; i++)
            wt_sim_next(s1, 0, &b[0][i]);
        wt_sim_close(s1);
        assert_true(memcmp(a[0], b[0], sizeof(a[0])) != 0);
    }
}

/* Every column measured and in its physical range. */
static void check_ranges(const struct wt_sim_config *c, unsigned ng, size_t n, enum wt_class cls)
{
    for (unsigned g = 0; g < ng; g++) {
        double e_prev = -1;
        for (size_t i = 0; i < n; i++) {
            const struct wt_sample *x = &buf[g][i];
            const double *v = x->v;
            for (int k = 0; k < WT_NCOLS; k++)
                if (!wt_measured(v[k]))
                    fail_msg("%s/%s: column %s not measured", c->profile,
                             c->evasion ? c->evasion : "-", wt_col_name(k));
            assert_int_equal(x->label, cls);
            assert_int_equal(x->gpu, (int)g);
            assert_true(x->t_s == (double)i / HZ);
            assert_true(v[WT_COL_UTIL_GPU] >= 0 && v[WT_COL_UTIL_GPU] <= 100);
            assert_true(v[WT_COL_UTIL_MEM] >= 0 && v[WT_COL_UTIL_MEM] <= 100);
            assert_true(v[WT_COL_MEM_USED] >= 0 && v[WT_COL_MEM_USED] <= v[WT_COL_MEM_TOTAL]);
            assert_true(v[WT_COL_POWER] > 0);
            assert_true(v[WT_COL_POWER] <= 1.05 * v[WT_COL_POWER_LIMIT]);
            assert_true(v[WT_COL_POWER_LIMIT] <= v[WT_COL_POWER_DEFAULT_LIMIT]);
            assert_true(v[WT_COL_ENERGY] >= e_prev);
            e_prev = v[WT_COL_ENERGY];
            assert_true(v[WT_COL_SM_CLOCK] > 0 && v[WT_COL_SM_CLOCK] <= v[WT_COL_SM_CLOCK_MAX]);
            assert_true(v[WT_COL_MEM_CLOCK] > 0);
            assert_true(v[WT_COL_TEMP] > 15 && v[WT_COL_TEMP] < 95);
            assert_true(v[WT_COL_PCIE_TX] >= 0 && v[WT_COL_PCIE_RX] >= 0);
            double r = v[WT_COL_CLOCK_REASONS];
            assert_true(r == floor(r) && r >= 0 && r <= 7);
            assert_true(((unsigned)r & 1) == (v[WT_COL_UTIL_GPU] == 0));
            assert_true(v[WT_COL_PROCS] == 0 || v[WT_COL_PROCS] == 1);
        }
        /* energy integrates power: within 5 % of the mean power x time */
        double e = buf[g][n - 1].v[WT_COL_ENERGY];
        double pe = mean_col(g, 1, n, WT_COL_POWER) * (double)(n - 1) / HZ;
        assert_true(fabs(e - pe) < 0.05 * pe);
    }
}

static void test_profiles_in_range(void **state)
{
    (void)state;
    size_t np;
    const struct wt_sim_profile_info *p = wt_sim_profiles(&np);
    const char *gpus[] = {"h100", "h200", "a100", "l40s", "v100"};
    for (size_t i = 0; i < np; i++) {
        struct wt_sim_config c = cfg(p[i].name, NULL, -1);
        c.gpu = gpus[i % 5];
        c.gpus = 2;
        c.power_semantics = i % 2 ? "avg1s" : "instant";
        unsigned ng = run(&c, N, NULL);
        assert_int_equal(ng, 2);
        check_ranges(&c, ng, N, p[i].cls);
    }
}

static void test_evasions_in_range(void **state)
{
    (void)state;
    size_t ne;
    const struct wt_sim_evasion_info *e = wt_sim_evasions(&ne);
    const char *base[] = {"dense-training", "peft-training", "grad-accum-training"};
    const double strengths[] = {-1, 0, 1};
    for (size_t i = 0; i < ne; i++)
        for (int k = 0; k < 3; k++) {
            struct wt_sim_config c = cfg(base[(i + (size_t)k) % 3], e[i].name, strengths[k]);
            unsigned ng = run(&c, N, NULL);
            check_ranges(&c, ng, N, WT_CLASS_TRAINING);
        }
}

static void test_dense_training(void **state)
{
    (void)state;
    struct wt_sim_config c = cfg("dense-training", NULL, -1);
    c.gpus = 2;
    run(&c, N, NULL);
    /* busy while active, with the 1.2 s step cadence in util */
    size_t act = 0;
    double sum = 0;
    for (size_t i = 0; i < N; i++)
        if (buf[0][i].v[WT_COL_UTIL_GPU] > 0) {
            act++;
            sum += buf[0][i].v[WT_COL_UTIL_GPU];
        }
    assert_true(act > N * 9 / 10);
    assert_true(sum / (double)act > 80);
    size_t from = 25 * HZ;
    double at_step = acf(0, from, N, WT_COL_UTIL_GPU, 12);  /* 1.2 s */
    double half_step = acf(0, from, N, WT_COL_UTIL_GPU, 6); /* 0.6 s */
    assert_true(at_step > 0.3);
    assert_true(at_step > half_step + 0.2);
    /* power ~0.8 of the limit while computing, ~0.7 on average */
    double pw = mean_col(0, from, N, WT_COL_POWER);
    assert_true(pw > 0.6 * 700 && pw < 0.8 * 700);
    /* memory ramps, then a plateau at 60-85 % flat within +-40 MiB */
    assert_true(buf[0][HZ].v[WT_COL_MEM_USED] < buf[0][from].v[WT_COL_MEM_USED] / 2);
    double lo = 1e12, hi = 0;
    for (size_t i = from; i < N; i++) {
        lo = fmin(lo, buf[0][i].v[WT_COL_MEM_USED]);
        hi = fmax(hi, buf[0][i].v[WT_COL_MEM_USED]);
    }
    assert_true(hi - lo <= 81);
    assert_true(lo > 0.6 * 81559 - 40 && hi < 0.85 * 81559 + 40);
    /* both GPUs step in sync: their util series agree up to noise */
    for (size_t i = 0; i < N; i++)
        assert_true(fabs(buf[0][i].v[WT_COL_UTIL_GPU] - buf[1][i].v[WT_COL_UTIL_GPU]) <= 6);
    assert_true(mean_col(0, 0, N, WT_COL_PROCS) == 1);
}

static void test_training_shapes(void **state)
{
    (void)state;
    /* LoRA: low utilization, ~0.3 of the limit, memory 30-40 %, visible cadence */
    struct wt_sim_config c = cfg("peft-training", NULL, -1);
    run(&c, N, NULL);
    size_t from = 25 * HZ;
    double u = mean_col(0, from, N, WT_COL_UTIL_GPU);
    assert_true(u >= 11 && u <= 22);
    double p = mean_col(0, from, N, WT_COL_POWER);
    assert_true(p > 0.22 * 700 && p < 0.38 * 700);
    double m = mean_col(0, from, N, WT_COL_MEM_USED) / 81559;
    assert_true(m > 0.29 && m < 0.41);
    assert_true(acf(0, from, N, WT_COL_UTIL_GPU, 10) > 0.2);
    /* gradient accumulation: cadence at the micro-step and at the optimizer step */
    c = cfg("grad-accum-training", NULL, -1);
    run(&c, N, NULL);
    assert_true(mean_col(0, from, N, WT_COL_UTIL_GPU) > 80);
    assert_true(acf(0, from, N, WT_COL_UTIL_GPU, 15) > 0.2); /* 4 x 0.33 + 0.19 s */
}

static void test_inference(void **state)
{
    (void)state;
    /* vLLM: flat memory >= 85 % once loaded */
    struct wt_sim_config c = cfg("inference-vllm", NULL, -1);
    run(&c, N, NULL);
    for (size_t i = 15 * HZ; i < N; i++)
        assert_true(buf[0][i].v[WT_COL_MEM_USED] >= 0.85 * 81559);
    /* decode is memory-bound: memory util high relative to util; below the limit */
    c = cfg("inference-poisson", NULL, -1);
    run(&c, N, NULL);
    double u = mean_col(0, 50, N, WT_COL_UTIL_GPU);
    double mu = mean_col(0, 50, N, WT_COL_UTIL_MEM);
    assert_true(u > 20 && u < 95);
    assert_true(mu / u > 0.55);
    assert_true(mean_col(0, 50, N, WT_COL_POWER) < 0.6 * 700);
    /* saturated continuous batching: util ~90-97 %, power ~0.6-0.7 of the limit */
    c = cfg("inference-continuous", NULL, -1);
    run(&c, N, NULL);
    u = mean_col(0, 10 * HZ, N, WT_COL_UTIL_GPU);
    assert_true(u > 88 && u < 98);
    double p = mean_col(0, 10 * HZ, N, WT_COL_POWER);
    assert_true(p > 0.55 * 700 && p < 0.75 * 700);
    /* bursty: idle stretches between bursts */
    c = cfg("inference-bursty", NULL, -1);
    c.seed = 1;
    run(&c, N * 2, NULL);
    size_t zero = 0;
    for (size_t i = 0; i < N * 2; i++)
        zero += buf[0][i].v[WT_COL_UTIL_GPU] == 0;
    assert_true(zero > N / 10);
}

static void test_idle(void **state)
{
    (void)state;
    struct wt_sim_config c = cfg("idle-bare", NULL, -1);
    run(&c, N, NULL);
    for (size_t i = 0; i < N; i++) {
        const double *v = buf[0][i].v;
        assert_true(v[WT_COL_UTIL_GPU] == 0 && v[WT_COL_PROCS] == 0);
        assert_true(v[WT_COL_MEM_USED] <= 0.01 * v[WT_COL_MEM_TOTAL]);
        assert_true(fabs(v[WT_COL_POWER] - 70) < 12);
        assert_true(v[WT_COL_CLOCK_REASONS] == 1);
    }
    c = cfg("idle-resident", NULL, -1);
    run(&c, N, NULL);
    for (size_t i = 0; i < N; i++) {
        const double *v = buf[0][i].v;
        assert_true(v[WT_COL_UTIL_GPU] == 0 && v[WT_COL_PROCS] == 1);
        assert_true(v[WT_COL_MEM_USED] >= 0.2 * v[WT_COL_MEM_TOTAL]);
        assert_true(fabs(v[WT_COL_POWER] - 115) < 15);
    }
}

static void test_power_cap(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        struct wt_sim_config c = cfg("dense-training", "power-cap", -1); /* default 0.5 */
        c.power_semantics = k ? "avg1s" : "instant";
        run(&c, N, NULL);
        for (size_t i = 0; i < N; i++) {
            const double *v = buf[0][i].v;
            assert_true(v[WT_COL_POWER_LIMIT] == 490);
            assert_true(v[WT_COL_POWER_DEFAULT_LIMIT] == 700);
            assert_true(v[WT_COL_POWER] <= v[WT_COL_POWER_LIMIT]);
            if ((unsigned)v[WT_COL_CLOCK_REASONS] & 4)
                assert_true(v[WT_COL_SM_CLOCK] < 1980);
            else if (v[WT_COL_UTIL_GPU] > 0) /* the board's own clock until the cap shows */
                assert_true(v[WT_COL_SM_CLOCK] >= 1980 - 3 * 15);
        }
        assert_true(frac_reason(0, 10 * HZ, N, 4) > 0.6);
        if (k)
            continue;
        /* SwPowerCap shows once the power has reached the limit, not while it
         * climbs to it (the bit came with 43 % of the limit at a step start) */
        for (size_t i = 0; i < N; i++)
            if ((unsigned)buf[0][i].v[WT_COL_CLOCK_REASONS] & 4)
                assert_true(buf[0][i].v[WT_COL_POWER] >= 0.95 * 490);
        /* instant power sits at the limit while the cap binds */
        size_t capped = 0, pinned = 0;
        for (size_t i = 10 * HZ; i < N; i++)
            if ((unsigned)buf[0][i].v[WT_COL_CLOCK_REASONS] & 4) {
                capped++;
                pinned += buf[0][i].v[WT_COL_POWER] > 0.97 * 490;
            }
        assert_true(pinned > capped * 8 / 10);
    }
    /* a limit the demand is just under: power that noise takes to the limit
     * is held there with SwPowerCap and the clock below its maximum (it read
     * 574 W, the limit, with neither on 15% of samples at strength 0.3) */
    struct wt_sim_config c = cfg("dense-training", "power-cap", 0.3);
    run(&c, N, NULL);
    size_t at = 0;
    for (size_t i = 0; i < N; i++) {
        const double *v = buf[0][i].v;
        if (v[WT_COL_POWER] < v[WT_COL_POWER_LIMIT])
            continue;
        at++;
        assert_true((unsigned)v[WT_COL_CLOCK_REASONS] & 4);
        assert_true(v[WT_COL_SM_CLOCK] < 1980);
    }
    assert_true(at > 0);
}

static void test_clock_lock(void **state)
{
    (void)state;
    double w_lock, w_base;
    struct wt_sim_config c = cfg("dense-training", NULL, -1);
    run(&c, N, &w_base);
    double p_base = mean_col(0, 10 * HZ, N, WT_COL_POWER);
    c = cfg("dense-training", "clock-lock", -1); /* 0.5: 0.75 x 1980 = 1485 MHz */
    run(&c, N, &w_lock);
    for (size_t i = 0; i < N; i++) {
        assert_true(buf[0][i].v[WT_COL_SM_CLOCK] == 1485);
        assert_true((unsigned)buf[0][i].v[WT_COL_CLOCK_REASONS] & 2);
    }
    assert_true(mean_col(0, 10 * HZ, N, WT_COL_POWER) < 0.85 * p_base);
    assert_true(w_lock < 0.95 * w_base);
}

/* The board settings also apply to serving and idle GPUs, as operators set
 * them there: locked clocks lower serving power; a cap pins it. */
static void test_board_on_serving(void **state)
{
    (void)state;
    struct wt_sim_config c = cfg("inference-continuous", NULL, -1);
    run(&c, N, NULL);
    double p_base = mean_col(0, 10 * HZ, N, WT_COL_POWER);
    c = cfg("inference-continuous", "clock-lock", 1.0); /* half the max clock */
    run(&c, N, NULL);
    for (size_t i = 0; i < N; i++) {
        assert_true(buf[0][i].v[WT_COL_SM_CLOCK] == 990);
        assert_true((unsigned)buf[0][i].v[WT_COL_CLOCK_REASONS] & 2);
    }
    assert_true(mean_col(0, 10 * HZ, N, WT_COL_POWER) < 0.9 * p_base);
    c = cfg("inference-continuous", "power-cap", 1.0); /* 40 % of the default limit */
    run(&c, N, NULL);
    for (size_t i = 0; i < N; i++)
        assert_true(buf[0][i].v[WT_COL_POWER] <= 1.05 * buf[0][i].v[WT_COL_POWER_LIMIT]);
    assert_true(buf[0][0].v[WT_COL_POWER_LIMIT] < 0.45 * buf[0][0].v[WT_COL_POWER_DEFAULT_LIMIT]);
    c = cfg("idle-bare", "clock-lock", -1);
    run(&c, N, NULL);
    assert_true(mean_col(0, 0, N, WT_COL_UTIL_GPU) == 0);
}

/* Decode is memory-bound: a 16-fold lower clock costs it 1-6 % latency and
 * saves 42 % of its energy [MALIAKEL].  At half the clock, saturated serving
 * draws under 0.7 of its power (0.8 when one kappa set both speed and power);
 * capped to 40 % of the limit it still serves over 85 % of its requests (with
 * one kappa the clock fell to the floor: 71 % in a 600 s run at seed 1) */
static void test_decode_clock(void **state)
{
    (void)state;
    size_t n = 5 * N; /* 600 s */
    double base, w;
    struct wt_sim_config c = cfg("inference-continuous", NULL, -1);
    run(&c, n, &base);
    double p_base = mean_col(0, 30 * HZ, n, WT_COL_POWER);
    c = cfg("inference-continuous", "clock-lock", 1.0);
    run(&c, n, &w);
    assert_true(mean_col(0, 30 * HZ, n, WT_COL_POWER) < 0.7 * p_base);
    c = cfg("inference-continuous", "power-cap", 1.0);
    run(&c, n, &w);
    assert_true(w > 0.85 * base);
}

static void test_duty_fixed(void **state)
{
    (void)state;
    struct wt_sim_config c = cfg("dense-training", "duty-fixed", 0.5);
    run(&c, N, NULL);
    size_t zero = 0, busy = 0;
    for (size_t i = 10 * HZ; i < N; i++) {
        zero += buf[0][i].v[WT_COL_UTIL_GPU] == 0;
        busy += buf[0][i].v[WT_COL_UTIL_GPU] > 50;
    }
    double nn = (double)(N - 10 * HZ);
    assert_true(zero / nn > 0.4 && zero / nn < 0.6);
    assert_true(busy / nn > 0.35);
    /* memory is held through the sleeps */
    for (size_t i = 30 * HZ; i < N; i++)
        assert_true(buf[0][i].v[WT_COL_MEM_USED] > 0.55 * 81559);
}

/* At strength 1 the job still trains 5 % of the time (it ran no step at all,
 * yet the benchmark scored the cell as TRAINING) */
static void test_duty_full_strength(void **state)
{
    (void)state;
    /* the same bound as sleep injection into real traces (eval --evasion-family) */
    assert_true(WT_SIM_DUTY_MAX_ASLEEP == WT_SLEEP_MAX_ASLEEP);
    size_t n = 5 * N; /* 600 s */
    double base, w;
    struct wt_sim_config c = cfg("dense-training", NULL, -1);
    run(&c, n, &base);
    for (int k = 0; k < 2; k++) {
        c = cfg("dense-training", k ? "duty-random" : "duty-fixed", 1);
        run(&c, n, &w);
        assert_true(w > 0.02 * base && w < 0.08 * base);
        size_t zero = 0, busy = 0;
        for (size_t i = 30 * HZ; i < n; i++) {
            zero += buf[0][i].v[WT_COL_UTIL_GPU] == 0;
            busy += buf[0][i].v[WT_COL_UTIL_GPU] > 0;
        }
        assert_true(zero > busy && busy > 0);
    }
}

static void test_util_cap(void **state)
{
    (void)state;
    struct wt_sim_config c = cfg("dense-training", "util-cap", 0.5);
    run(&c, N, NULL);
    for (size_t i = 0; i < N; i++)
        assert_true(buf[0][i].v[WT_COL_UTIL_GPU] <= 70);
    /* a cap of 70.6 %: util reads whole percents at or under it (71 was read) */
    c = cfg("dense-training", "util-cap", 0.49);
    run(&c, N, NULL);
    for (size_t i = 0; i < N; i++)
        assert_true(buf[0][i].v[WT_COL_UTIL_GPU] <= 70);
}

/* Data-parallel ranks stay in lock-step under a utilization cap: rank 1's
 * collective spin while rank 0 saves a checkpoint was slowed by the cap, so
 * rank 1 fell behind at every checkpoint (from t = 349.5 s at strength 0.5:
 * one GPU computing while the other idled). */
static void test_util_cap_lockstep(void **state)
{
    (void)state;
    struct wt_sim_config c = cfg("dense-training", "util-cap", 0.5);
    c.gpus = 2;
    struct wt_sim *s;
    struct wt_err err;
    if (wt_sim_open(&s, &c, &err))
        fail_msg("open: %s", err.msg);
    size_t apart = 0;
    for (size_t i = 0; i < 9000; i++) { /* 900 s at 10 Hz: past two checkpoints */
        struct wt_sample a, b;
        wt_sim_next(s, 0, &a);
        wt_sim_next(s, 1, &b);
        double pa = a.v[WT_COL_POWER], pb = b.v[WT_COL_POWER];
        apart += (pa > 300 && pb < 200) || (pb > 300 && pa < 200);
    }
    wt_sim_close(s);
    assert_int_equal(apart, 0);
}

static void test_burn_and_mem_minimal(void **state)
{
    (void)state;
    struct wt_sim_config c = cfg("dense-training", NULL, -1);
    run(&c, N, NULL);
    size_t from = 25 * HZ;
    double u0 = mean_col(0, from, N, WT_COL_UTIL_GPU);
    double mu0 = mean_col(0, from, N, WT_COL_UTIL_MEM);
    double m0 = mean_col(0, from, N, WT_COL_MEM_USED);
    c = cfg("dense-training", "burn", 1);
    run(&c, N, NULL);
    assert_true(mean_col(0, from, N, WT_COL_UTIL_GPU) > u0 + 3);
    assert_true(mean_col(0, from, N, WT_COL_UTIL_MEM) < mu0 - 3);
    c = cfg("dense-training", "mem-minimal", 1);
    run(&c, N, NULL);
    double m1 = mean_col(0, from, N, WT_COL_MEM_USED);
    assert_true(m1 < 0.12 * 81559 && m1 < m0 / 4);
    assert_true(mean_col(0, from, N, WT_COL_UTIL_GPU) < u0 - 10);
}

static void test_migration(void **state)
{
    (void)state;
    struct wt_sim_config c = cfg("dense-training", "migration", -1);
    unsigned ng = run(&c, N, NULL);
    assert_int_equal(ng, 4); /* the default for migration */
    size_t ok = 0, from = 10 * HZ;
    size_t busy[MAXG] = {0};
    for (size_t i = from; i < N; i++) {
        unsigned k = 0;
        for (unsigned g = 0; g < ng; g++)
            if (buf[g][i].v[WT_COL_UTIL_GPU] > 5) {
                k++;
                busy[g]++;
            }
        ok += k <= 1;
    }
    assert_true(ok > (N - from) * 9 / 10);
    for (unsigned g = 0; g < ng; g++) {
        assert_true(busy[g] > (N - from) / 10);
        /* the idle GPUs keep their memory */
        for (size_t i = 30 * HZ; i < N; i++)
            assert_true(buf[g][i].v[WT_COL_MEM_USED] > 0.55 * 81559);
    }
}

static void test_work_done(void **state)
{
    (void)state;
    size_t n = 5 * N; /* 600 s */
    double base, w;
    struct wt_sim_config c = cfg("dense-training", NULL, -1);
    run(&c, n, &base);
    assert_true(base > 400 && base < 520); /* ~1.2 s steps, load and 2 checkpoints */
    c = cfg("dense-training", "duty-fixed", 0.5);
    run(&c, n, &w);
    assert_true(w < 0.6 * base && w > 0.4 * base);
    /* at strength 0 duty-fixed is the same job as its twin without evasion
     * (it skipped a draw of the job's stream: 466 steps against 465) */
    for (uint64_t seed = 1; seed <= 6; seed++) {
        double clean;
        c = cfg("dense-training", NULL, -1);
        c.seed = seed;
        c.randomize = seed > 3;
        run(&c, n, &clean);
        c.evasion = "duty-fixed";
        c.strength = 0;
        run(&c, n, &w);
        assert_true(w == clean);
    }
    c = cfg("dense-training", "dilution", -1); /* N = 5 fake passes per step */
    run(&c, n, &w);
    assert_true(w < 0.6 * base);
    c = cfg("dense-training", "work-variation", -1); /* about free */
    run(&c, n, &w);
    assert_true(fabs(w / base - 1) < 0.15);
    c = cfg("dense-training", "migration", -1); /* one GPU of 4 at a time */
    run(&c, n, &w);
    c.evasion = NULL;
    c.gpus = 4;
    double base4;
    run(&c, n, &base4);
    assert_true(fabs(base4 - 4 * base) < 1e-9); /* data parallel: all GPUs work */
    assert_true(w < 0.3 * base4);
    /* at strength 1 a GPU works its 1 s slot after a 0.4 s hop: 1 / 1.4 of
     * one GPU's work (the hop came out of the slot: 0.6) */
    c = cfg("dense-training", "migration", 1);
    run(&c, n, &w);
    assert_true(w > 0.66 * base && w < 0.78 * base);
    /* inference counts served requests; idle does nothing */
    c = cfg("inference-poisson", NULL, -1);
    run(&c, n, &w);
    assert_true(w > 1.5 * 590 * 0.8 && w < 2 * 600 * 1.2);
    c = cfg("idle-bare", NULL, -1);
    run(&c, N, &w);
    assert_true(w == 0);
}

static void test_semantics_and_rates(void **state)
{
    (void)state;
    struct wt_sim *s;
    struct wt_err err;
    struct wt_sim_config c = cfg("dense-training", NULL, -1);
    assert_int_equal(wt_sim_open(&s, &c, &err), WT_OK);
    assert_string_equal(wt_sim_gpu_model(s), "NVIDIA H100 80GB HBM3");
    assert_string_equal(wt_sim_power_semantics(s), "instant");
    assert_int_equal(wt_sim_gpus(s), 1);
    struct wt_sample x;
    wt_sim_next(s, 1, &x); /* no such GPU: nothing measured */
    assert_true(isnan(x.v[WT_COL_POWER]) && x.label == WT_CLASS_NONE);
    wt_sim_close(s);
    const char *keys[] = {"h200", "a100", "l40s", "v100"};
    const char *names[] = {"NVIDIA H200", "NVIDIA A100-SXM4-40GB", "NVIDIA L40S",
                           "Tesla V100-SXM2-32GB"};
    for (int i = 0; i < 4; i++) {
        c.gpu = keys[i];
        c.power_semantics = "avg1s";
        assert_int_equal(wt_sim_open(&s, &c, &err), WT_OK);
        assert_string_equal(wt_sim_gpu_model(s), names[i]);
        assert_string_equal(wt_sim_power_semantics(s), "avg1s");
        wt_sim_close(s);
    }
    /* the 1 s average hides the step dips that instant power shows */
    double d[2];
    for (int k = 0; k < 2; k++) {
        c = cfg("dense-training", NULL, -1);
        c.power_semantics = k ? "avg1s" : "instant";
        run(&c, N, NULL);
        d[k] = 0;
        for (size_t i = 25 * HZ; i < N; i++)
            d[k] += fabs(buf[0][i].v[WT_COL_POWER] - buf[0][i - 1].v[WT_COL_POWER]);
    }
    assert_true(d[1] < 0.5 * d[0]);
    /* extreme rates: util is the duty cycle over the (long) period */
    c = cfg("dense-training", NULL, -1);
    c.sample_hz = 0.1;
    assert_int_equal(wt_sim_open(&s, &c, &err), WT_OK);
    double sum = 0;
    for (int i = 0; i < 60; i++) {
        wt_sim_next(s, 0, &x);
        assert_true(x.t_s == i / 0.1);
        if (i >= 4)
            sum += x.v[WT_COL_UTIL_GPU];
    }
    wt_sim_close(s);
    assert_true(sum / 56 > 75 && sum / 56 < 97);
    c.sample_hz = 100;
    assert_int_equal(wt_sim_open(&s, &c, &err), WT_OK);
    for (int i = 0; i < 3000; i++)
        wt_sim_next(s, 0, &x);
    assert_true(x.t_s == 2999 / 100.0);
    wt_sim_close(s);
}

static void expect_error(struct wt_sim_config c, const char *needle)
{
    struct wt_sim *s = (struct wt_sim *)&c; /* must be reset to NULL */
    struct wt_err err;
    assert_int_equal(wt_sim_open(&s, &c, &err), WT_EINVAL);
    assert_null(s);
    assert_contains(err.msg, needle);
}

static void test_errors(void **state)
{
    (void)state;
    struct wt_err err;
    struct wt_sim *s;
    struct wt_sim_config c = cfg("dense-training", NULL, -1);
    assert_int_equal(wt_sim_open(NULL, &c, &err), WT_EINVAL);
    assert_int_equal(wt_sim_open(&s, NULL, &err), WT_EINVAL);
    assert_contains(err.msg, "no configuration");
    expect_error(cfg(NULL, NULL, -1), "no profile");
    expect_error(cfg("mining", NULL, -1), "unknown simulator profile 'mining'");
    expect_error(cfg("dense-training", "teleport", -1), "unknown evasion family 'teleport'");
    expect_error(cfg("idle-bare", "duty-fixed", -1),
                 "evasion 'duty-fixed' applies to training profiles, not 'idle-bare' (only the "
                 "board settings power-cap and clock-lock apply to any profile)");
    expect_error(cfg("inference-vllm", "burn", 0.5),
                 "evasion 'burn' applies to training profiles, not 'inference-vllm'");
    expect_error(cfg("dense-training", "duty-fixed", 1.5), "strength 1.5 is above 1");
    expect_error(cfg("dense-training", "duty-fixed", NAN), "strength is not a number");
    c = cfg("dense-training", NULL, -1);
    c.gpu = "b200";
    expect_error(c, "unknown GPU model 'b200'");
    c.gpu = NULL;
    c.sample_hz = 0.05;
    expect_error(c, "sample rate 0.05 Hz is outside 0.1..100");
    c.sample_hz = 101;
    expect_error(c, "sample rate 101 Hz is outside 0.1..100");
    c.sample_hz = -1;
    expect_error(c, "outside 0.1..100");
    c.sample_hz = NAN;
    expect_error(c, "outside 0.1..100");
    c.sample_hz = 0;
    c.power_semantics = "peak";
    expect_error(c, "unknown power semantics 'peak'");
    c.power_semantics = NULL;
    c.gpus = 17;
    expect_error(c, "17 GPUs is outside 1..16");
    c = cfg("dense-training", "migration", -1);
    c.gpus = 1;
    expect_error(c, "evasion 'migration' needs at least 2 GPUs");
    /* the edges are accepted */
    c = cfg("dense-training", "none", 1);
    c.sample_hz = 100;
    c.gpus = 16;
    assert_int_equal(wt_sim_open(&s, &c, &err), WT_OK);
    assert_int_equal(wt_sim_gpus(s), 16);
    wt_sim_close(s);
    c.sample_hz = 0.1;
    c.evasion = "dilution";
    c.strength = 1;
    assert_int_equal(wt_sim_open(&s, &c, &err), WT_OK);
    wt_sim_close(s);
    wt_sim_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_profiles_in_range),
        cmocka_unit_test(test_evasions_in_range),
        cmocka_unit_test(test_dense_training),
        cmocka_unit_test(test_training_shapes),
        cmocka_unit_test(test_inference),
        cmocka_unit_test(test_idle),
        cmocka_unit_test(test_power_cap),
        cmocka_unit_test(test_clock_lock),
        cmocka_unit_test(test_board_on_serving),
        cmocka_unit_test(test_decode_clock),
        cmocka_unit_test(test_duty_fixed),
        cmocka_unit_test(test_duty_full_strength),
        cmocka_unit_test(test_util_cap),
        cmocka_unit_test(test_util_cap_lockstep),
        cmocka_unit_test(test_burn_and_mem_minimal),
        cmocka_unit_test(test_migration),
        cmocka_unit_test(test_work_done),
        cmocka_unit_test(test_semantics_and_rates),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
