/* Feature extraction (see features.h).
 *
 * Time-shape features (cadence, bursts, cross-GPU correlation) are computed on
 * a uniform grid at the window's median sample period (sample-and-hold), so
 * irregular sampling and different rates give comparable values; lags and
 * lengths are in seconds.
 *
 * SPDX-License-Identifier: MIT
 */
#include "features/features.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/gpu_models.h"
#include "features/stats.h"
#include "features/transform.h"

#define MAX_GRID 4096
#define MIN_STEP_S 0.05 /* the finest grid step: 20 Hz */
#define MIN_LAG_S 0.3
#define MAX_LAG_S 10.0
#define CAP_BIT_SW_POWER 0x4ULL
#define CAP_BIT_APP_CLOCKS 0x2ULL

static const char *const names[WT_NFEATURES] = {
    [WT_F_AVG_GPU_UTIL] = "avg_gpu_util_pct",
    [WT_F_STD_GPU_UTIL] = "std_gpu_util_pct",
    [WT_F_MEM_GROWTH] = "mem_growth_mib_per_sample",
    [WT_F_AVG_POWER] = "avg_power_watts",
    [WT_F_STD_POWER] = "std_power_watts",
    [WT_F_AVG_PROCS] = "avg_process_count",
    [WT_F_SAMPLE_PERIOD] = "sample_period_s",
    [WT_F_POWER_REF] = "power_ref_w",
    [WT_F_DUTY] = "duty",
    [WT_F_UTIL_ACTIVE] = "util_active_pct",
    [WT_F_UTIL_ACTIVE_CV] = "util_active_cv",
    [WT_F_POWER_NORM] = "power_norm",
    [WT_F_POWER_ACTIVE_NORM] = "power_active_norm",
    [WT_F_POWER_P95_NORM] = "power_p95_norm",
    [WT_F_POWER_CV] = "power_cv",
    [WT_F_POWER_PER_UTIL] = "power_per_util",
    [WT_F_UTIL_ACF_PEAK] = "util_acf_peak",
    [WT_F_UTIL_ACF_LAG] = "util_acf_lag_s",
    [WT_F_POWER_ACF_PEAK] = "power_acf_peak",
    [WT_F_POWER_ACF_LAG] = "power_acf_lag_s",
    [WT_F_SQUARE_WAVE] = "square_wave",
    [WT_F_POWER_JITTER] = "power_jitter",
    [WT_F_UTIL_JITTER] = "util_jitter_pct",
    [WT_F_SPIN_FRAC] = "spin_frac",
    [WT_F_ON_LEN] = "on_len_s",
    [WT_F_ON_LEN_CV] = "on_len_cv",
    [WT_F_GAP_LEN] = "gap_len_s",
    [WT_F_BURST_RATE] = "burst_rate_per_min",
    [WT_F_PEAK_POWER_ON] = "peak_power_on_norm",
    [WT_F_MEMUTIL_RATIO] = "memutil_ratio",
    [WT_F_MEM_FRAC] = "mem_frac",
    [WT_F_MEM_CV] = "mem_cv",
    [WT_F_MEM_SLOPE] = "mem_slope_frac_per_min",
    [WT_F_ENERGY_ACTIVE] = "energy_per_active_s_norm",
    [WT_F_SWCAP_FRAC] = "swcap_frac",
    [WT_F_PIN_AT_CAP] = "pin_at_cap",
    [WT_F_SM_CLOCK_RATIO] = "sm_clock_ratio",
    [WT_F_LIMIT_RATIO] = "limit_ratio",
    [WT_F_CLOCKS_LOCKED] = "clocks_locked",
    [WT_F_PEER_SYNC] = "peer_sync",
    [WT_F_PEER_ANTI] = "peer_anti",
    [WT_F_ACTIVE_ACF_PEAK] = "active_acf_peak",
};

const char *wt_feature_name(enum wt_feature f)
{
    return (f >= 0 && f < WT_NFEATURES) ? names[f] : "?";
}

int wt_feature_lookup(const char *name)
{
    for (int i = 0; i < WT_NFEATURES; i++)
        if (!strcmp(names[i], name))
            return i;
    return -1;
}

int wt_features_parse(const char *list, enum wt_feature *out, size_t *n, struct wt_err *err)
{
    *n = 0;
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[64];
        if (len == 0 || (comma && !comma[1])) /* ",x", "x,,y", "x,": a name left out */
            return wt_errf(err, WT_EINVAL, "an empty name in the list '%.60s'", list);
        if (len >= sizeof(name))
            return wt_errf(err, WT_EINVAL, "feature name too long");
        memcpy(name, p, len);
        name[len] = '\0';
        int f = wt_feature_lookup(name);
        if (f < 0)
            return wt_errf(err, WT_EINVAL, "unknown feature '%s'", name);
        for (size_t i = 0; i < *n; i++)
            if (out[i] == (enum wt_feature)f) /* a model would hold it twice */
                return wt_errf(err, WT_EINVAL, "feature '%s' named twice", name);
        if (*n >= WT_NFEATURES)
            return wt_errf(err, WT_EINVAL, "too many features");
        out[(*n)++] = (enum wt_feature)f;
        p += len + (comma ? 1 : 0);
    }
    if (!*n)
        return wt_errf(err, WT_EINVAL, "no feature named");
    return WT_OK;
}

/* ------------------------------------------------------------ helpers */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of the column (NaN if none measured); tmp has room for n. */
static double col_quantile(const struct wt_sample *s, size_t n, enum wt_col c, double q,
                           double *tmp)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (wt_measured(s[i].v[c]))
            tmp[k++] = s[i].v[c];
    if (!k)
        return NAN;
    qsort(tmp, k, sizeof(double), cmp_double);
    double pos = q * (double)(k - 1);
    size_t lo = (size_t)pos;
    double frac = pos - (double)lo;
    return lo + 1 < k ? tmp[lo] * (1 - frac) + tmp[lo + 1] * frac : tmp[lo];
}

/* The time sample i stands for: until the next sample (the last one for the
 * median period), shared by the samples of its time stamp.  Called with i
 * rising from 0; *end and *w carry the current group of equal stamps. */
static double sample_time(const struct wt_sample *s, size_t n, size_t i, double period, size_t *end,
                          double *w)
{
    if (i >= *end) {
        *end = i + 1;
        while (*end < n && s[*end].t_s == s[i].t_s)
            (*end)++;
        double gap = *end < n ? s[*end].t_s - s[i].t_s : period;
        *w = wt_measured(gap) && gap > 0 ? gap / (double)(*end - i) : 0;
    }
    return *w;
}

/* The share of the window's time covered by rows that measure column c: a
 * row stands for the time until the next row (rows sharing a time stamp
 * share it, the last row stands for the median period), as for the duty
 * cycle; by rows when the rows carry no time.  The settings and state bits
 * behind the power scale and the tamper indicators (power_limit_w,
 * clock_reasons) are read only when this is at least half: one reading
 * among thirty rows said "software power cap asserted in 100% of samples"
 * and scaled every watt of the window by its limit. */
static double col_time_share(const struct wt_sample *s, size_t n, enum wt_col c, double period)
{
    double tot = 0, cov = 0;
    size_t k = 0, end = 0;
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        tot += sample_time(s, n, i, period, &end, &w);
        if (wt_measured(s[i].v[c])) {
            cov += w;
            k++;
        }
    }
    if (!(tot > 0))
        return n ? (double)k / (double)n : 0;
    if (k == n || k < 3)
        return cov / tot;
    /* A column read in rows of its own (every other row; a converter's row
     * per metric group, 30 ms apart): each reading also stands until the
     * next one, up to their (lower) median interval.  Its rows alone covered
     * 14.9 s of 29.9 (a limit on every other row was no limit, the scale
     * fell back to rated power and the class flipped), or 6% (staggered
     * rows).  Three readings at least: one or two among thirty rows still
     * cover only their own rows. */
    double *tr = malloc(2 * k * sizeof(double));
    if (!tr)
        return cov / tot;
    double *gs = tr + k;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (wt_measured(s[i].v[c]))
            tr[m++] = s[i].t_s;
    for (size_t j = 0; j + 1 < k; j++)
        gs[j] = tr[j + 1] - tr[j];
    qsort(gs, k - 1, sizeof(double), cmp_double);
    /* the lower median: of two gaps, the shorter (readings in rows 0, 1
     * and 29 of 30 held 14.5 s each with the mean, and covered half) */
    double cap = gs[(k - 2) / 2];
    double held = 0, t_end = s[0].t_s + tot;
    for (size_t j = 0; j < k && cap > 0; j++) {
        double until = (j + 1 < k ? tr[j + 1] : t_end) - tr[j];
        held += until < cap ? (until > 0 ? until : 0) : cap;
    }
    free(tr);
    double share = (held > cov ? held : cov) / tot;
    return share < 1 ? share : 1;
}

/* A uniform grid of one column: sample-and-hold from the first measured value. */
struct grid {
    double t0, h;
    size_t n;
    double *v; /* NaN before the first measured value */
};

static int grid_build(struct grid *g, const struct wt_sample *s, size_t n, enum wt_col c, double t0,
                      double h, size_t len, int avg)
{
    g->t0 = t0;
    g->h = h;
    g->n = len;
    g->v = malloc(len * sizeof(double));
    if (!g->v)
        return -1;
    size_t j = 0;
    double last = NAN;
    for (size_t k = 0; k < len; k++) {
        double t = t0 + h * (double)k, sum = 0;
        size_t m = 0;
        /* a tolerance for rounding that grows with the clock (epoch times) */
        while (j < n && s[j].t_s <= t + 1e-9 + 1e-3 * h + fabs(t) * 1e-14) {
            if (wt_measured(s[j].v[c])) {
                last = s[j].v[c];
                sum += last;
                m++;
            }
            j++;
        }
        g->v[k] = avg && m ? sum / (double)m : last;
    }
    return 0;
}

/* x to two significant digits (29.86 and 30.04 are 30, 1.999 and 2.03 are
 * 2.0).  For a window busy throughout, the mean run length and the bursts per
 * minute measure only how long the window spans on the grid, which moves with
 * the poller's step, jitter and clock: the model had learnt each source's
 * sample period from their third and fourth digits (docs/evaluation.md,
 * item 19). */
static double two_digits(double x)
{
    if (!(x > 0) || !isfinite(x))
        return x;
    double p = pow(10.0, 1.0 - floor(log10(x)));
    return isfinite(p) ? round(x * p) / p : x; /* p overflows below ~1e-307 */
}

static double series_mean(const double *v, size_t n, size_t *k)
{
    double sum = 0;
    *k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) {
            sum += v[i];
            (*k)++;
        }
    return *k ? sum / (double)*k : NAN;
}

/* Sum of squared deviations from m of the measured values. */
static double sq_dev(const double *v, size_t n, double m)
{
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            ss += (v[i] - m) * (v[i] - m);
    return ss;
}

/* The lags in cells that the cadence peaks search: MIN_LAG_S..MAX_LAG_S and
 * at most a third of the series.  0 when the range is empty. */
static int acf_lags(size_t n, double h, size_t *lmin, size_t *lmax)
{
    *lmin = (size_t)ceil(MIN_LAG_S / h - 1e-9);
    *lmax = (size_t)floor(MAX_LAG_S / h + 1e-9);
    if (*lmin < 1)
        *lmin = 1;
    if (*lmax > n / 3)
        *lmax = n / 3;
    return *lmax >= *lmin;
}

/* Highest local maximum of the autocorrelation at lags MIN_LAG_S..MAX_LAG_S
 * (and at most a third of the series).  0 when there is none or the series is
 * constant; NaN when it is too short or mostly not measured. */
static void acf_peak(const double *v, size_t n, double h, double *peak, double *lag)
{
    size_t k;
    *peak = NAN;
    *lag = NAN;
    double m = series_mean(v, n, &k);
    if (k < 8 || k < n / 2)
        return;
    double var = sq_dev(v, n, m);
    *peak = 0;
    *lag = 0;
    size_t lmin, lmax;
    if (var <= 1e-12 * (double)k * (1 + m * m))
        return; /* constant: no cadence */
    if (!acf_lags(n, h, &lmin, &lmax))
        return;
    double *r = malloc((lmax + 2) * sizeof(double));
    if (!r)
        return;
    for (size_t L = lmin - 1; L <= lmax + 1; L++) {
        double acc = 0;
        for (size_t i = 0; i + L < n; i++)
            if (!isnan(v[i]) && !isnan(v[i + L]))
                acc += (v[i] - m) * (v[i + L] - m);
        r[L] = acc / var;
    }
    for (size_t L = lmin; L <= lmax; L++)
        if (r[L] > r[L - 1] && r[L] >= r[L + 1] && r[L] > *peak) {
            *peak = r[L];
            *lag = (double)L * h;
        }
    free(r);
}

/* The same peak over the cells where the GPU is active only (others NaN):
 * the step rhythm inside bursts, which sleeps between them do not dilute
 * and which a pure on/off duty cycle (constant while on) does not have.
 * Normalized like acf_peak (by the active cells' variance and count), so a
 * window active throughout gets the same value; a lag needs
 * ACTIVE_ACF_MIN_PAIRS pairs of active cells.  NaN with fewer than 8
 * active cells or no lag in range with enough pairs. */
#define ACTIVE_ACF_MIN_PAIRS 20
static double acf_peak_active(const double *v, size_t n, double h)
{
    size_t k;
    double m = series_mean(v, n, &k);
    if (k < 8)
        return NAN;
    double var = sq_dev(v, n, m) / (double)k;
    size_t lmin, lmax;
    if (var <= 1e-12 * (1 + m * m))
        return 0; /* constant while active: no rhythm */
    if (!acf_lags(n, h, &lmin, &lmax))
        return NAN;
    double *r = malloc((lmax + 2) * sizeof(double));
    if (!r)
        return NAN;
    int any = 0;
    for (size_t L = lmin - 1; L <= lmax + 1; L++) {
        double acc = 0;
        size_t np = 0;
        for (size_t i = 0; i + L < n; i++)
            if (!isnan(v[i]) && !isnan(v[i + L])) {
                acc += (v[i] - m) * (v[i + L] - m);
                np++;
            }
        r[L] = np >= ACTIVE_ACF_MIN_PAIRS ? acc / (double)k / var : NAN;
    }
    double peak = 0;
    for (size_t L = lmin; L <= lmax; L++) {
        if (isnan(r[L]))
            continue;
        any = 1;
        if (r[L] > r[L - 1] && r[L] >= r[L + 1] && r[L] > peak)
            peak = r[L]; /* a NaN neighbour compares false: not a peak */
    }
    free(r);
    return any ? peak : NAN;
}

static double pearson(const double *a, const double *b, size_t n)
{
    double sa = 0, sb = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(a[i]) && !isnan(b[i])) {
            sa += a[i];
            sb += b[i];
            k++;
        }
    if (k < 8)
        return NAN;
    double ma = sa / (double)k, mb = sb / (double)k, sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(a[i]) && !isnan(b[i])) {
            sab += (a[i] - ma) * (b[i] - mb);
            saa += (a[i] - ma) * (a[i] - ma);
            sbb += (b[i] - mb) * (b[i] - mb);
        }
    if (saa <= 1e-12 || sbb <= 1e-12)
        return NAN;
    return sab / sqrt(saa * sbb);
}

static int is_active(double util, double pnorm, int use_util)
{
    if (use_util)
        return !isnan(util) && util >= WT_ACTIVE_UTIL_PCT;
    return !isnan(pnorm) && pnorm > WT_ACTIVE_POWER_NORM;
}

/* The active signal per cell when a cell averages several samples (the
 * grid of grid_build with avg): the mean of the cell's active samples, NaN
 * unless more than half of the samples that measure the signal are active.
 * A cell across an on/off edge would otherwise hold a partial mean that
 * still counts as active, and such cells, recurring with the duty period,
 * read as a rhythm inside bursts (active_acf_peak about 0.9 for a pure duty
 * cycle at 100 Hz).  A cell without a new sample holds the previous one. */
static void active_cells(double *act, const struct wt_sample *s, size_t n, double t0, double h,
                         size_t len, int use_util, double ref, enum wt_col sig)
{
    size_t j = 0;
    double last = NAN;
    for (size_t k = 0; k < len; k++) {
        double t = t0 + h * (double)k, sum = 0;
        size_t m = 0, ma = 0;
        while (j < n && s[j].t_s <= t + 1e-9 + 1e-3 * h + fabs(t) * 1e-14) {
            const double *v = s[j].v;
            if (wt_measured(v[sig])) {
                double pn = wt_measured(ref) ? v[WT_COL_POWER] / ref : NAN;
                m++;
                if (is_active(v[WT_COL_UTIL_GPU], pn, use_util)) {
                    ma++;
                    sum += v[sig];
                }
            }
            j++;
        }
        if (m)
            last = 2 * ma > m ? sum / (double)ma : NAN;
        act[k] = last;
    }
}

/* ------------------------------------------------------------ compute */

void wt_features_compute_basic(const struct wt_window *w, struct wt_features *f)
{
    const struct wt_sample *s = w->s;
    size_t n = w->n;
    for (int i = 0; i < WT_NFEATURES; i++)
        f->v[i] = NAN;
    f->v[WT_F_AVG_GPU_UTIL] = wt_stat_mean(s, n, WT_COL_UTIL_GPU);
    f->v[WT_F_STD_GPU_UTIL] = wt_stat_stdev(s, n, WT_COL_UTIL_GPU);
    f->v[WT_F_MEM_GROWTH] = wt_stat_slope_per_sample(s, n, WT_COL_MEM_USED);
    f->v[WT_F_AVG_POWER] = wt_stat_mean(s, n, WT_COL_POWER);
    f->v[WT_F_STD_POWER] = wt_stat_stdev(s, n, WT_COL_POWER);
    f->v[WT_F_AVG_PROCS] = wt_stat_mean(s, n, WT_COL_PROCS);
}

void wt_features_compute(const struct wt_window *w, struct wt_features *f)
{
    const struct wt_sample *s = w->s;
    size_t n = w->n;
    wt_features_compute_basic(w, f);
    if (n < 2)
        return;

    double *tmp = malloc(n * sizeof(double));
    struct grid gu = {0}, gp = {0}, gm = {0}; /* gm: for the peers (below) */
    if (!tmp)
        return;
    double period = wt_stat_median_period(s, n, tmp);
    /* a difference of two times carries their rounding (1e-12 s at t = 5000,
     * 2e-7 s at Unix time): traces hold at most microseconds, so the period
     * is one, else the grid below depends on where the clock started */
    if (period >= 1e-5)
        period = round(period * 1e6) / 1e6;
    f->v[WT_F_SAMPLE_PERIOD] = period;

    /* power scale: the enforced limit, else the model's rated power */
    double limit = col_quantile(s, n, WT_COL_POWER_LIMIT, 0.5, tmp);
    double deflimit = col_quantile(s, n, WT_COL_POWER_DEFAULT_LIMIT, 0.5, tmp);
    /* a limit below 1 W is no limit (a driver's "not supported" 0, a broken
     * file's 1e-310, which made 620 W an infinite, so unmeasured, ratio) */
    /* "at least half" within the times' rounding (exactly half read
     * 0.49999998 at Unix time, 0.4999999999999394 at t = 5000) */
    const double half = 0.5 - 1e-4;
    int have_limit = wt_measured(limit) && limit >= 1 &&
                     col_time_share(s, n, WT_COL_POWER_LIMIT, period) >= half;
    int have_reasons = col_time_share(s, n, WT_COL_CLOCK_REASONS, period) >= half;
    double ref = have_limit ? limit : wt_gpu_rated_power_w(w->gpu_model);
    f->v[WT_F_POWER_REF] = ref;
    if (have_limit && wt_measured(deflimit) && deflimit >= 1 &&
        col_time_share(s, n, WT_COL_POWER_DEFAULT_LIMIT, period) >= half)
        f->v[WT_F_LIMIT_RATIO] = limit / deflimit;

    size_t nutil = wt_stat_count(s, n, WT_COL_UTIL_GPU);
    size_t npow = wt_stat_count(s, n, WT_COL_POWER);
    /* half of the rows that measure either: rows that measure neither (a
     * converter's row of clocks and memory) had counted, and with every
     * other row empty a window of an odd count of rows lost its activity */
    size_t nsig = 0;
    for (size_t i = 0; i < n; i++)
        nsig += wt_measured(s[i].v[WT_COL_UTIL_GPU]) || wt_measured(s[i].v[WT_COL_POWER]);
    /* utilization also when power, though in more rows, has no scale to
     * tell activity by, if its readings can: five at least, spread over
     * half the window's span (one reading among 300 of power had made a
     * GPU drawing 400 W IDLE, a MISMATCH for a declared training job) */
    int util_spread = 0;
    if (nutil >= 5 && !wt_measured(ref)) {
        double first = NAN, last = NAN;
        for (size_t i = 0; i < n; i++)
            if (wt_measured(s[i].v[WT_COL_UTIL_GPU])) {
                if (isnan(first))
                    first = s[i].t_s;
                last = s[i].t_s;
            }
        util_spread = last - first >= half * (s[n - 1].t_s - s[0].t_s);
    }
    int use_util = nutil > 0 && (nutil * 2 >= nsig || util_spread);
    int have_activity = use_util || (npow > 0 && npow * 2 >= nsig && wt_measured(ref));

    /* per-sample pass: activity, power and utilization while active */
    size_t nmeas = 0, nact = 0, nact_util = 0, nact_mu = 0, nact_pow = 0, npin = 0, nlim = 0,
           ncap = 0, nreason = 0, napp = 0, nclk = 0;
    double su = 0, suu = 0, sp_act = 0, smu = 0, su_mu = 0, sclk = 0, clk_lo = INFINITY,
           clk_hi = -INFINITY, wtot = 0, wact = 0, grp_w = 0;
    size_t grp_end = 0; /* samples [.., grp_end) share the time weight grp_w */
    double smax = col_quantile(s, n, WT_COL_SM_CLOCK_MAX, 0.5, tmp);
    for (size_t i = 0; i < n; i++) {
        const double *v = s[i].v;
        double pn = wt_measured(ref) ? v[WT_COL_POWER] / ref : NAN;
        if (have_reasons && wt_measured(v[WT_COL_CLOCK_REASONS])) {
            uint64_t bits = (uint64_t)v[WT_COL_CLOCK_REASONS];
            nreason++;
            ncap += (bits & CAP_BIT_SW_POWER) != 0;
            napp += (bits & CAP_BIT_APP_CLOCKS) != 0;
        }
        if (!have_activity)
            continue;
        /* a sample stands for the time until the next one (the last for the
         * median period), as on the grid: with irregular polling, counting
         * samples would weigh a burst of quick polls over a slow stretch.
         * Samples that share a time stamp share that time. */
        double wi = sample_time(s, n, i, period, &grp_end, &grp_w);
        /* a row whose activity signal is not measured is neither busy nor
         * idle time: an empty utilization cell is not 0% (trace format,
         * rule 4), and had halved the duty of a trace that left every
         * other row empty */
        if (!wt_measured(use_util ? v[WT_COL_UTIL_GPU] : pn))
            continue;
        nmeas++;
        wtot += wi;
        if (!is_active(v[WT_COL_UTIL_GPU], pn, use_util))
            continue;
        wact += wi;
        nact++;
        if (wt_measured(v[WT_COL_UTIL_GPU])) {
            su += v[WT_COL_UTIL_GPU];
            suu += v[WT_COL_UTIL_GPU] * v[WT_COL_UTIL_GPU];
            nact_util++;
            if (wt_measured(v[WT_COL_UTIL_MEM])) {
                smu += v[WT_COL_UTIL_MEM];
                su_mu += v[WT_COL_UTIL_GPU];
                nact_mu++;
            }
        }
        if (wt_measured(pn)) {
            sp_act += pn;
            tmp[nact_pow++] = pn;
        }
        if (have_limit && wt_measured(v[WT_COL_POWER]) && wt_measured(v[WT_COL_POWER_LIMIT]) &&
            v[WT_COL_POWER_LIMIT] >= 1) { /* below 1 W no limit, as for the scale */
            nlim++;
            npin += v[WT_COL_POWER] >= 0.97 * v[WT_COL_POWER_LIMIT];
        }
        if (wt_measured(v[WT_COL_SM_CLOCK])) {
            double c = v[WT_COL_SM_CLOCK];
            nclk++;
            if (wt_measured(smax) && smax > 0)
                sclk += c / smax;
            clk_lo = c < clk_lo ? c : clk_lo;
            clk_hi = c > clk_hi ? c : clk_hi;
        }
    }
    /* sample-to-sample changes while active (both samples active), and the
     * collective-wait signature: kernels resident (util pinned at 100%) but
     * the board near idle power, as ranks wait in an all-reduce */
    if (have_activity && nact >= 2) {
        double dp = 0, pm = 0, du = 0;
        size_t kp = 0, ku = 0, nspin = 0, nspin_den = 0;
        /* a row pairs with the row before it that measures the same column
         * (lp, lu), both active, no idle row between; a row whose activity
         * is not measured is passed over, not taken for idle (with every
         * other row empty, no two neighbours measured and these were NaN) */
        size_t lp = SIZE_MAX, lu = SIZE_MAX;
        int prev_active = 0;
        for (size_t i = 0; i < n; i++) {
            const double *b = s[i].v;
            double pnb = wt_measured(ref) ? b[WT_COL_POWER] / ref : NAN;
            if (!wt_measured(use_util ? b[WT_COL_UTIL_GPU] : pnb))
                continue;
            if (!is_active(b[WT_COL_UTIL_GPU], pnb, use_util)) {
                lp = lu = SIZE_MAX;
                prev_active = 0;
                continue;
            }
            if (wt_measured(b[WT_COL_POWER])) {
                if (lp != SIZE_MAX) {
                    dp += fabs(b[WT_COL_POWER] - s[lp].v[WT_COL_POWER]);
                    pm += b[WT_COL_POWER];
                    kp++;
                }
                lp = i;
            }
            if (wt_measured(b[WT_COL_UTIL_GPU])) {
                if (lu != SIZE_MAX) {
                    du += fabs(b[WT_COL_UTIL_GPU] - s[lu].v[WT_COL_UTIL_GPU]);
                    ku++;
                }
                lu = i;
            }
            if (prev_active && wt_measured(b[WT_COL_UTIL_GPU]) && wt_measured(pnb)) {
                nspin_den++;
                nspin += b[WT_COL_UTIL_GPU] >= 99 && pnb < 0.35;
            }
            prev_active = 1;
        }
        if (kp && pm > 0)
            f->v[WT_F_POWER_JITTER] = dp / pm;
        if (ku)
            f->v[WT_F_UTIL_JITTER] = du / (double)ku;
        if (nspin_den)
            f->v[WT_F_SPIN_FRAC] = (double)nspin / (double)nspin_den;
    }
    if (nact_pow) {
        /* the same (interpolated) 95th percentile as power_p95_norm */
        qsort(tmp, nact_pow, sizeof(double), cmp_double);
        double pos = 0.95 * (double)(nact_pow - 1);
        size_t lo = (size_t)pos;
        double frac = pos - (double)lo;
        f->v[WT_F_PEAK_POWER_ON] =
            lo + 1 < nact_pow ? tmp[lo] * (1 - frac) + tmp[lo + 1] * frac : tmp[lo];
    }
    if (have_activity) {
        /* duty by time (see above); by samples when they carry no time */
        f->v[WT_F_DUTY] = wtot > 0 ? wact / wtot : (double)nact / (double)(nmeas ? nmeas : 1);
        if (nact_util) {
            double m = su / (double)nact_util;
            f->v[WT_F_UTIL_ACTIVE] = m;
            double var = suu / (double)nact_util - m * m;
            f->v[WT_F_UTIL_ACTIVE_CV] = m > 0 ? sqrt(var > 0 ? var : 0) / m : NAN;
        } /* no active sample: no mean while active (NaN, like power_active_norm) */
        if (nact_pow)
            f->v[WT_F_POWER_ACTIVE_NORM] = sp_act / (double)nact_pow;
        if (nact_mu && su_mu > 0)
            f->v[WT_F_MEMUTIL_RATIO] = smu / su_mu;
        if (nlim)
            f->v[WT_F_PIN_AT_CAP] = (double)npin / (double)nlim;
        if (nclk && wt_measured(smax) && smax > 0)
            f->v[WT_F_SM_CLOCK_RATIO] = sclk / (double)nclk;
        double pa = f->v[WT_F_POWER_ACTIVE_NORM], ua = f->v[WT_F_UTIL_ACTIVE];
        if (wt_measured(pa) && wt_measured(ua) && ua > 0)
            f->v[WT_F_POWER_PER_UTIL] = pa / (ua / 100.0);
    }
    if (nreason) {
        f->v[WT_F_SWCAP_FRAC] = (double)ncap / (double)nreason;
        f->v[WT_F_CLOCKS_LOCKED] = (double)napp * 2 >= (double)nreason;
    }
    /* the clock is judged under load (10 active samples with a clock) when
     * the column covers half the window's time: a GPU busy 40% of the time
     * at a locked clock is as locked as one busy throughout; with no maximum
     * to compare against, nothing is judged */
    int clk_judged = nclk >= 10 && wt_measured(smax) && smax > 0 &&
                     col_time_share(s, n, WT_COL_SM_CLOCK, period) >= half;
    if (clk_judged && clk_hi - clk_lo <= 0.01 * clk_hi && clk_hi < 0.95 * smax)
        f->v[WT_F_CLOCKS_LOCKED] = 1;
    else if (clk_judged && !wt_measured(f->v[WT_F_CLOCKS_LOCKED]))
        /* judged and not locked; fewer is "not measured", not a 0 */
        f->v[WT_F_CLOCKS_LOCKED] = 0;

    /* power level and shape */
    double pmean = f->v[WT_F_AVG_POWER], psd = f->v[WT_F_STD_POWER];
    if (wt_measured(pmean) && wt_measured(ref)) {
        f->v[WT_F_POWER_NORM] = pmean / ref;
        f->v[WT_F_POWER_P95_NORM] = col_quantile(s, n, WT_COL_POWER, 0.95, tmp) / ref;
    }
    if (wt_measured(pmean) && wt_measured(psd) && pmean > 0)
        f->v[WT_F_POWER_CV] = psd / pmean;

    /* memory */
    double mmean = wt_stat_mean(s, n, WT_COL_MEM_USED);
    double mtotal = col_quantile(s, n, WT_COL_MEM_TOTAL, 0.5, tmp);
    double msd = wt_stat_stdev(s, n, WT_COL_MEM_USED);
    /* more memory used than the card has (a total of 1 MiB beside 900 GB
     * used) is no scale: the features per total are not measured */
    int total_ok = wt_measured(mtotal) && mtotal > 0;
    for (size_t i = 0; i < n && total_ok; i++)
        total_ok = !(s[i].v[WT_COL_MEM_USED] > 1.01 * mtotal);
    if (wt_measured(mmean) && total_ok) {
        f->v[WT_F_MEM_FRAC] = mmean / mtotal;
        /* least squares over time (not per sample: duplicated or irregular
         * samples must not change the growth per minute), in two passes
         * with memory relative to its first reading: a flat memory is a
         * slope of exactly 0 (one pass left +-1e-14, by the memory's value,
         * and the model had split on its sign) */
        double st = 0, m0 = NAN;
        size_t nm = 0;
        for (size_t i = 0; i < n; i++)
            if (wt_measured(s[i].v[WT_COL_MEM_USED])) {
                if (!nm)
                    m0 = s[i].v[WT_COL_MEM_USED];
                st += s[i].t_s - s[0].t_s;
                nm++;
            }
        double tm = nm ? st / (double)nm : 0, stt = 0, stm = 0;
        for (size_t i = 0; i < n; i++)
            if (wt_measured(s[i].v[WT_COL_MEM_USED])) {
                double dt = s[i].t_s - s[0].t_s - tm;
                stt += dt * dt;
                stm += dt * (s[i].v[WT_COL_MEM_USED] - m0);
            }
        if (nm >= 2 && stt > 0) {
            double slope = stm / stt;
            if (isfinite(slope * 60.0 / mtotal)) /* absurd values overflow: not measured */
                f->v[WT_F_MEM_SLOPE] = slope * 60.0 / mtotal;
        }
    }
    if (wt_measured(mmean) && wt_measured(msd) && mmean > 0)
        f->v[WT_F_MEM_CV] = msd / mmean;

    /* energy per active second: the counter when present, else integrated power */
    double span = s[n - 1].t_s - s[0].t_s;
    double active_s = wt_measured(f->v[WT_F_DUTY]) ? f->v[WT_F_DUTY] * span : NAN;
    if (wt_measured(active_s) && active_s > 0 && wt_measured(ref)) {
        /* Both are put on the whole window: a counter read over part of it,
         * or power with gaps, is scaled by span / the time it covers (gaps
         * are bridged, not counted as zero energy). */
        size_t i0 = n, i1 = n;
        for (size_t i = 0; i < n && i0 == n; i++)
            if (wt_measured(s[i].v[WT_COL_ENERGY]))
                i0 = i;
        for (size_t i = n; i > 0 && i1 == n; i--)
            if (wt_measured(s[i - 1].v[WT_COL_ENERGY]))
                i1 = i - 1;
        double energy = NAN, from_power = NAN;
        /* a counter that goes back anywhere (a reset, a wrap) is not used:
         * its first and last readings would hide the lost energy */
        int monotonic = 1;
        for (size_t i = i0, last = i0; i0 < i1 && i <= i1 && monotonic; i++)
            if (wt_measured(s[i].v[WT_COL_ENERGY])) {
                monotonic = s[i].v[WT_COL_ENERGY] >= s[last].v[WT_COL_ENERGY];
                last = i;
            }
        if (i0 < i1 && monotonic && s[i1].t_s > s[i0].t_s) {
            energy = s[i1].v[WT_COL_ENERGY] - s[i0].v[WT_COL_ENERGY];
            double covered = s[i1].t_s - s[i0].t_s;
            if (covered != span)
                energy *= span / covered;
        }
        if (npow >= 2) {
            size_t first = n, last = n;
            from_power = 0;
            for (size_t i = 0; i < n; i++) {
                if (!wt_measured(s[i].v[WT_COL_POWER]))
                    continue;
                if (last < n)
                    from_power += 0.5 * (s[last].v[WT_COL_POWER] + s[i].v[WT_COL_POWER]) *
                                  (s[i].t_s - s[last].t_s);
                else
                    first = i;
                last = i;
            }
            double covered = last < n ? s[last].t_s - s[first].t_s : 0;
            if (!(covered > 0))
                from_power = NAN;
            else if (covered != span)
                from_power *= span / covered;
        }
        /* the counter is the better measure (it sees between polls), unless
         * measured power contradicts it by more than 2x: a counter stuck at
         * 0 ("not supported"), in other units, or forged would otherwise
         * outweigh the power column */
        if (!wt_measured(energy) || (wt_measured(from_power) && from_power > 0 &&
                                     !(energy >= 0.5 * from_power && energy <= 2 * from_power)))
            energy = from_power;
        if (wt_measured(energy))
            f->v[WT_F_ENERGY_ACTIVE] = energy / active_s / ref;
    }

    /* time shape on a uniform grid */
    if (!wt_measured(period) || !(span > 0) || !isfinite(span))
        goto out;
    /* The step is the sample period, or a whole multiple of it when the
     * samples come faster than MIN_STEP_S or the window would need more than
     * MAX_GRID cells; then each cell holds the mean of its samples, so that
     * a fast on/off pattern is averaged rather than aliased. */
    double h = period;
    if (h < MIN_STEP_S)
        h = period * ceil(MIN_STEP_S / period - 1e-9);
    /* span / h is e.g. 29.9 / 0.1 = 298.999...: without the tolerance the
     * last sample would leave the grid, depending on the window's start. */
    /* the same tolerance as a sample's cell (grid_build): a last sample
     * within a thousandth of a step of a cell's time has that cell (1e-6
     * was less than the rounding of a Unix-time span: 1.1e-7 s / 0.103 s) */
    double cells = floor(span / h + 1e-3) + 1; /* a double: span may be huge */
    if (cells > MAX_GRID) {
        h *= ceil(cells / MAX_GRID);
        cells = floor(span / h + 1e-3) + 1;
    }
    if (!(cells >= 1)) /* NaN: a period too small to multiply (subnormal) */
        goto out;
    size_t len = cells > MAX_GRID ? MAX_GRID : (size_t)cells;
    int avg = h > 1.5 * period;
    if (len < 4)
        goto out;
    if (nutil >= 2 && grid_build(&gu, s, n, WT_COL_UTIL_GPU, s[0].t_s, h, len, avg) != 0)
        goto out;
    if (npow >= 2 && grid_build(&gp, s, n, WT_COL_POWER, s[0].t_s, h, len, avg) != 0)
        goto out;
    if (gu.v)
        acf_peak(gu.v, len, h, &f->v[WT_F_UTIL_ACF_PEAK], &f->v[WT_F_UTIL_ACF_LAG]);
    if (gp.v)
        acf_peak(gp.v, len, h, &f->v[WT_F_POWER_ACF_PEAK], &f->v[WT_F_POWER_ACF_LAG]);

    /* runs of activity on the grid: none without the activity signal's
     * grid (one reading), where bursts and gaps are not measured rather
     * than 0 */
    if (have_activity && (use_util ? gu.v != NULL : gp.v != NULL)) {
        size_t runs = 0, gaps = 0, cur = 0;
        double son = 0, sson = 0, sgap = 0;
        int prev = -1;
        size_t first_gap_start = (size_t)-1;
        double ind_u = 0, ind_uu = 0, ind_i = 0, ind_ui = 0;
        size_t ind_n = 0;
        /* the signal of the active cells (utilization, else power), the
         * others NaN: for the rhythm inside bursts */
        const double *sig = gu.v ? gu.v : gp.v;
        double *act = sig ? malloc(len * sizeof(double)) : NULL;
        for (size_t k = 0; k <= len; k++) {
            int a = -1;
            if (k < len) {
                double u = gu.v ? gu.v[k] : NAN;
                double pn = gp.v && wt_measured(ref) ? gp.v[k] / ref : NAN;
                a = is_active(u, pn, use_util);
                if (act)
                    act[k] = a == 1 ? sig[k] : NAN;
                if (gu.v && !isnan(u)) {
                    ind_u += u;
                    ind_uu += u * u;
                    ind_i += a;
                    ind_ui += a * u;
                    ind_n++;
                }
            }
            if (a != prev) {
                if (prev == 1) {
                    /* to 0.01 s: a grid step of 0.999999 s or 1.000001 s
                     * must not move a 30 s run across a threshold */
                    double l = round((double)cur * h * 100.0) / 100.0;
                    son += l;
                    sson += l * l;
                    runs++;
                } else if (prev == 0 && first_gap_start != (size_t)-1 && a == 1) {
                    sgap += (double)cur * h; /* a gap between two active runs */
                    gaps++;
                }
                if (prev == 1 && a == 0)
                    first_gap_start = k;
                cur = 0;
                prev = a;
            }
            cur++;
        }
        if (runs) {
            double m = son / (double)runs;
            f->v[WT_F_ON_LEN] = two_digits(m);
            double var = sson / (double)runs - m * m;
            f->v[WT_F_ON_LEN_CV] = runs > 1 && m > 0 ? sqrt(var > 0 ? var : 0) / m : 0;
        }
        f->v[WT_F_GAP_LEN] = gaps ? sgap / (double)gaps : 0;
        f->v[WT_F_BURST_RATE] = two_digits((double)runs / ((double)len * h / 60.0));
        if (act && avg)
            active_cells(act, s, n, s[0].t_s, h, len, use_util, ref,
                         gu.v ? WT_COL_UTIL_GPU : WT_COL_POWER);
        if (act)
            f->v[WT_F_ACTIVE_ACF_PEAK] = acf_peak_active(act, len, h);
        free(act);
        /* square wave: squared correlation of util with its on/off indicator */
        if (ind_n >= 8) {
            double mu = ind_u / (double)ind_n, mi = ind_i / (double)ind_n;
            double cov = ind_ui / (double)ind_n - mu * mi;
            double vu = ind_uu / (double)ind_n - mu * mu, vi = mi * (1 - mi);
            f->v[WT_F_SQUARE_WAVE] = (vu > 1e-9 && vi > 1e-9) ? cov * cov / (vu * vi) : 0;
        }
    }

    /* cross-GPU: correlation of the same signal with the host's other GPUs */
    /* Both grids are read half a sample period late, each cell taking the
     * sample nearest to its time on both GPUs: GPUs polled one after another
     * a few ms apart lagged a whole cell behind on the plain grid (its cells
     * take the latest sample at or before their time). */
    enum wt_col pc = gu.v ? WT_COL_UTIL_GPU : WT_COL_POWER;
    double t_near = s[0].t_s + 0.5 * period;
    if (w->npeers && (gu.v || gp.v) && grid_build(&gm, s, n, pc, t_near, h, len, avg) == 0) {
        const double *mine = gm.v;
        double sum = 0, lo = INFINITY;
        size_t k = 0;
        for (size_t p = 0; p < w->npeers; p++) {
            struct grid gq = {0};
            const struct wt_window *q = &w->peers[p];
            if (q->n < 8 || grid_build(&gq, q->s, q->n, pc, t_near, h, len, avg) != 0)
                continue;
            double r = pearson(mine, gq.v, len);
            free(gq.v);
            if (isnan(r))
                continue;
            sum += r;
            lo = r < lo ? r : lo;
            k++;
        }
        if (k) {
            f->v[WT_F_PEER_SYNC] = sum / (double)k;
            f->v[WT_F_PEER_ANTI] = lo;
        }
    }
out:
    /* absurd inputs (a limit of 1e-300 W, util of 1e300 %) overflow to inf:
     * such a value was not measured in any useful sense */
    for (int i = 0; i < WT_NFEATURES; i++)
        if (isinf(f->v[i]))
            f->v[i] = NAN;
    free(gm.v);
    free(gu.v);
    free(gp.v);
    free(tmp);
}

void wt_features_compute_without(const struct wt_window *w, uint32_t drop, struct wt_features *f)
{
    size_t total = w->n;
    for (size_t p = 0; p < w->npeers; p++)
        total += w->peers[p].n;
    struct wt_sample *copy = malloc((total ? total : 1) * sizeof(*copy));
    struct wt_window *peers = w->npeers ? malloc(w->npeers * sizeof(*peers)) : NULL;
    for (int i = 0; i < WT_NFEATURES; i++)
        f->v[i] = NAN;
    if (!copy || (w->npeers && !peers))
        goto out;
    struct wt_window v = *w;
    memcpy(copy, w->s, w->n * sizeof(*copy));
    v.s = copy;
    size_t at = w->n;
    for (size_t p = 0; p < w->npeers; p++) {
        peers[p] = w->peers[p];
        memcpy(copy + at, w->peers[p].s, w->peers[p].n * sizeof(*copy));
        peers[p].s = copy + at;
        at += w->peers[p].n;
    }
    v.peers = peers;
    wt_keep_columns(copy, total, WT_COLS_ALL & ~drop);
    wt_features_compute(&v, f);
out:
    free(copy);
    free(peers);
}
