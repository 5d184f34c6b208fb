/* Sleep injection applied to a recorded trace (see sleep_inject.h). */
#include "features/sleep_inject.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "features/stats.h"
#include "util/rng.h"

#define MIN_IDLE_SAMPLES 5           /* IDLE-labelled readings needed to take their median */
#define RAMP_S 1.0                   /* "avg1s" power: its averaging window */
#define MAX_SLEEPS ((size_t)1 << 20) /* 24 days of recorded training in 2-second runs */

/* the columns a sleeping GPU changes, and what they read when it does */
static const enum wt_col idle_cols[] = {WT_COL_UTIL_GPU, WT_COL_UTIL_MEM,  WT_COL_POWER,
                                        WT_COL_SM_CLOCK, WT_COL_MEM_CLOCK, WT_COL_PCIE_TX,
                                        WT_COL_PCIE_RX};
#define NIDLE (sizeof(idle_cols) / sizeof(idle_cols[0]))

struct sleep {
    double at;  /* recorded time the sleep starts at */
    double len; /* seconds */
    double u;   /* 0..1: where the poll falls in it (rounds its sample count) */
    double out; /* output time it starts at (at plus the sleeps before) */
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* What column c reads on this GPU at idle: the median over its IDLE samples
 * when at least MIN_IDLE_SAMPLES are measured; else the lowest measured value
 * (power, clocks) or 0 (utilization, PCIe); NaN when never measured. */
static double column_idle(const struct wt_sample *s, size_t n, enum wt_col c, double *buf)
{
    size_t k = 0;
    double lo = NAN;
    for (size_t i = 0; i < n; i++) {
        double x = s[i].v[c];
        if (!wt_measured(x))
            continue;
        if (!(lo <= x))
            lo = x;
        if (s[i].label == WT_CLASS_IDLE)
            buf[k++] = x;
    }
    if (k >= MIN_IDLE_SAMPLES) {
        qsort(buf, k, sizeof(*buf), cmp_double);
        return k % 2 ? buf[k / 2] : (buf[k / 2 - 1] + buf[k / 2]) / 2;
    }
    if (c == WT_COL_POWER || c == WT_COL_SM_CLOCK || c == WT_COL_MEM_CLOCK)
        return lo;
    return wt_measured(lo) ? 0 : NAN; /* utilization, PCIe: nothing runs */
}

static double draw(struct wt_rng *r, double mean, int random)
{
    if (!random)
        return mean;
    return -mean * log(1.0 - wt_rng_uniform(r)); /* exponential, mean `mean` */
}

/* Samples inserted for a sleep of len seconds at dt spacing: floor(len / dt
 * + u), whose mean over the poll's phase u is len / dt (a poller lands in a
 * 0.4 ms sleep at 10 Hz once in 250 times; rounding up had made every such
 * sleep a whole idle reading). A double: with a sub-microsecond spacing it
 * can exceed any size_t. */
static double inserted(const struct sleep *k, double dt)
{
    double c = floor(k->len / dt + k->u);
    /* the samples stay inside the sleep (t0 + (c - 1) dt < t0 + len) */
    return fmin(c, ceil(k->len / dt - 1e-6));
}

/* Share of the second before output time t that the job slept (sleeps k0..
 * of the output schedule, the earliest one that can overlap first): what a
 * 1-second power average then holds of idle. */
static double asleep_share(const struct sleep *sl, size_t nsl, size_t *k0, double t)
{
    while (*k0 < nsl && sl[*k0].out + sl[*k0].len <= t - RAMP_S)
        (*k0)++;
    double a = 0;
    for (size_t k = *k0; k < nsl && sl[k].out < t; k++)
        a += fmin(t, sl[k].out + sl[k].len) - fmax(t - RAMP_S, sl[k].out);
    return a <= 0 ? 0 : a >= RAMP_S ? 1 : a / RAMP_S;
}

int wt_sleep_inject(struct wt_sample **s, size_t *n, int ngpus, const struct wt_sleep_opts *o,
                    struct wt_err *err)
{
    struct sleep *sl = NULL;
    struct wt_sample **out = NULL;
    size_t *nout = NULL, nsl = 0, cap = 0, maxn = 0, total = 0;
    double *buf = NULL, *dt = NULL;
    int rc = WT_OK;
    if (!(o->asleep > 0) || ngpus <= 0)
        return WT_OK;
    if (!(o->asleep <= WT_SLEEP_MAX_ASLEEP) || !(o->period_s > 0))
        return wt_errf(err, WT_EINVAL, "sleep injection: share asleep %g must be in (0, %g]",
                       o->asleep, WT_SLEEP_MAX_ASLEEP);
    /* the training job's span, over all GPUs */
    double ta = INFINITY, tb = -INFINITY;
    for (int g = 0; g < ngpus; g++)
        for (size_t i = 0; i < n[g]; i++)
            if (s[g][i].label == WT_CLASS_TRAINING) {
                ta = fmin(ta, s[g][i].t_s);
                tb = fmax(tb, s[g][i].t_s);
            }
    if (!(ta <= tb))
        return WT_OK; /* nothing to hide */
    /* the schedule, in recorded time */
    struct wt_rng rng;
    wt_rng_seed(&rng, o->seed);
    double run_mean = o->period_s * (1 - o->asleep), sleep_mean = o->period_s * o->asleep;
    if ((tb - ta) / run_mean > (double)MAX_SLEEPS || ta + run_mean / 4 == ta) {
        /* too many sleeps, or a clock too coarse for them */
        rc = wt_errf(err, WT_ENOMEM,
                     "sleep injection: the training spans %.0f s from t = %g s: more than %zu "
                     "sleeps, or times too large",
                     tb - ta, ta, MAX_SLEEPS);
        goto out;
    }
    for (double t = ta + draw(&rng, run_mean, o->random); t < tb;
         t += draw(&rng, run_mean, o->random)) {
        if (nsl == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            struct sleep *ns = realloc(sl, ncap * sizeof(*ns));
            if (!ns) {
                rc = wt_errf(err, WT_ENOMEM, "out of memory");
                goto out;
            }
            sl = ns;
            cap = ncap;
        }
        sl[nsl++] = (struct sleep){t, draw(&rng, sleep_mean, o->random), 0, 0};
        if (nsl > MAX_SLEEPS) {
            rc = wt_errf(err, WT_ENOMEM,
                         "sleep injection: the training spans %.0f s, more than %zu sleeps",
                         tb - ta, MAX_SLEEPS);
            goto out;
        }
    }
    /* drawn after the schedule, which stays what it was */
    double moved = 0;
    for (size_t k = 0; k < nsl; k++) {
        sl[k].u = wt_rng_uniform(&rng);
        sl[k].out = sl[k].at + moved; /* summed as the samples' shift is */
        moved += sl[k].len;
    }
    for (int g = 0; g < ngpus; g++)
        maxn = n[g] > maxn ? n[g] : maxn;
    out = calloc((size_t)ngpus, sizeof(*out));
    nout = calloc((size_t)ngpus, sizeof(*nout));
    buf = malloc((maxn ? maxn : 1) * sizeof(*buf));
    dt = calloc((size_t)ngpus, sizeof(*dt));
    if (!out || !nout || !buf || !dt) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    /* sizes first, so nothing is half done when the result is too large */
    size_t limit = o->max_samples ? o->max_samples : WT_SLEEP_MAX_SAMPLES, nin = 0;
    for (int g = 0; g < ngpus; g++)
        nin += n[g];
    /* bounded by the input too: a handful of rows around a long gap would
     * otherwise make 2^24 samples (2.4 GB) of sleeps */
    int relative = limit > WT_SLEEP_SLACK && nin < (limit - WT_SLEEP_SLACK) / WT_SLEEP_MAX_GROWTH;
    if (relative)
        limit = nin * WT_SLEEP_MAX_GROWTH + WT_SLEEP_SLACK;
    for (int g = 0; g < ngpus; g++) {
        if (n[g] == 0) { /* an index the trace does not use: nothing to insert */
            nout[g] = 0;
            continue;
        }
        dt[g] = wt_stat_median_period(s[g], n[g], buf);
        if (!(dt[g] > 0))
            dt[g] = 0.1; /* fewer than 2 distinct times: NVML's usual 10 Hz */
        double m = (double)n[g];
        for (size_t k = 0; k < nsl && m <= (double)limit; k++)
            m += inserted(&sl[k], dt[g]);
        if (!(m <= (double)limit) || (total += (size_t)m) > limit) {
            if (relative)
                rc = wt_errf(err, WT_ENOMEM,
                             "sleep injection would make more than %zu samples of this trace's "
                             "%zu (%d times as many, plus %zu): its time span is mostly gaps",
                             limit, nin, WT_SLEEP_MAX_GROWTH, WT_SLEEP_SLACK);
            else
                rc = wt_errf(err, WT_ENOMEM,
                             "sleep injection would make more than %zu samples of this trace",
                             limit);
            goto out;
        }
        nout[g] = (size_t)m;
    }
    for (int g = 0; g < ngpus; g++)
        if (!(out[g] = malloc((nout[g] ? nout[g] : 1) * sizeof(**out)))) {
            rc = wt_errf(err, WT_ENOMEM, "out of memory");
            goto out;
        }
    for (int g = 0; g < ngpus; g++) {
        double idle[NIDLE], p_idle = NAN;
        for (size_t c = 0; c < NIDLE; c++) {
            idle[c] = column_idle(s[g], n[g], idle_cols[c], buf);
            if (idle_cols[c] == WT_COL_POWER)
                p_idle = idle[c];
        }
        double shift = 0, energy = 0, p_last = NAN;
        size_t k = 0, m = 0, k0 = 0;
        for (size_t i = 0; i < n[g]; i++) {
            const struct wt_sample *x = &s[g][i];
            for (; k < nsl && sl[k].at <= x->t_s; k++) {
                /* before this GPU's first sample it has no state to sleep
                 * in: the job's sleep only moves its samples back */
                const struct wt_sample *tpl = i ? &s[g][i - 1] : NULL;
                double t0 = sl[k].at + shift;
                size_t cnt = tpl ? (size_t)inserted(&sl[k], dt[g]) : 0;
                /* the counter at the sleep's start: the recorded one
                 * between tpl and x, in proportion (a power times
                 * the time could pass x's own and go back) */
                double ran = 0, de = tpl ? x->v[WT_COL_ENERGY] - tpl->v[WT_COL_ENERGY] : NAN;
                if (tpl && de > 0 && x->t_s > tpl->t_s)
                    ran = de * fmin(1, (sl[k].at - tpl->t_s) / (x->t_s - tpl->t_s));
                for (size_t j = 0; j < cnt; j++) {
                    struct wt_sample *y = &out[g][m++];
                    *y = *tpl;
                    y->t_s = t0 + (double)j * dt[g];
                    for (size_t c = 0; c < NIDLE; c++)
                        if (wt_measured(y->v[idle_cols[c]]))
                            y->v[idle_cols[c]] = idle[c];
                    double into = (double)j * dt[g];
                    /* a 1-second average: the last second's share asleep
                     * at idle, the rest at the power before the sleep */
                    if (o->avg1s && wt_measured(p_last) && wt_measured(p_idle)) {
                        double a = asleep_share(sl, nsl, &k0, y->t_s);
                        y->v[WT_COL_POWER] = p_last + (p_idle - p_last) * a;
                    }
                    if (wt_measured(y->v[WT_COL_CLOCK_REASONS]))
                        y->v[WT_COL_CLOCK_REASONS] = 0x1; /* GPU idle */
                    /* the counter: the run up to the sleep at the last
                     * recorded power, then idle */
                    if (wt_measured(y->v[WT_COL_ENERGY]) && wt_measured(p_idle))
                        y->v[WT_COL_ENERGY] = tpl->v[WT_COL_ENERGY] + energy + ran + p_idle * into;
                }
                /* the sleep's energy, whatever the polls saw of it */
                if (tpl && wt_measured(p_idle))
                    energy += p_idle * sl[k].len;
                shift += sl[k].len;
            }
            struct wt_sample *y = &out[g][m++];
            *y = *x;
            y->t_s = x->t_s + shift;
            if (wt_measured(y->v[WT_COL_ENERGY]))
                y->v[WT_COL_ENERGY] += energy;
            /* the recorded power: asleep_share counts every sleep of the
             * second, so a sleep's readings start from this, not from a
             * reading already lowered by the sleep before */
            p_last = x->v[WT_COL_POWER];
            if (o->avg1s && wt_measured(p_idle) && wt_measured(y->v[WT_COL_POWER])) {
                double a = asleep_share(sl, nsl, &k0, y->t_s);
                y->v[WT_COL_POWER] += (p_idle - y->v[WT_COL_POWER]) * a;
            }
        }
        nout[g] = m;
    }
    for (int g = 0; g < ngpus; g++) {
        free(s[g]);
        s[g] = out[g];
        n[g] = nout[g];
        out[g] = NULL;
    }
out:
    if (out)
        for (int g = 0; g < ngpus; g++)
            free(out[g]);
    free(out);
    free(nout);
    free(buf);
    free(dt);
    free(sl);
    return rc;
}
