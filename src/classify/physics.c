/* The `physics` classifier, the default: a rule for IDLE and a small boosted
 * tree model for TRAINING vs INFERENCE over features that survive evasion
 * (see features.h and ../shared/research/workload-physics.md).
 *
 * 1. No utilization and no power measured: UNKNOWN.
 * 2. A window that covers less than WT_PHYSICS_MIN_SECONDS (its span plus one
 *    sample period) is UNKNOWN: too short to show a rhythm, and a second's
 *    lull in a training job is not an idle GPU.
 * 3. IDLE when the GPU was active (utilization >= 5%, or power above 20% of
 *    its reference when utilization is not measured) in at most 20% of the
 *    window and its mean power is at most 40% of the reference.
 * 4. Otherwise the model's log-odds s of TRAINING, read from power: when
 *    power has a scale and tells when the GPU is active, the model sees the
 *    window's features with utilization (GPU and memory) left out, in
 *    training as here (wt_physics_model_view; utilization's shape did not
 *    carry to a source the model had not seen, docs/evaluation.md item 28).
 *    TRAINING when
 *    p = 1 / (1 + e^-s) >= 0.5 + WT_PHYSICS_MARGIN, INFERENCE when
 *    p <= 0.5 - WT_PHYSICS_MARGIN, else UNKNOWN (too little evidence to call).
 *
 * Reasons list the model's decision and the features that moved it most
 * (feature, value, direction, log-odds), from the model's exact additive
 * attribution.  Configuration anomalies are reported as tamper indicators.
 * The model itself is data (models/physics.model), made by `workloadtruth
 * train`; this file holds no fitted numbers.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classifier.h"
#include "classify/model.h"
#include "features/stats.h"

#define IDLE_DUTY_MAX 0.2
#define IDLE_POWER_NORM_MAX 0.4
#define WT_PHYSICS_MARGIN 0.15
/* The model learnt from windows of 10 to 30 s: a window much shorter (10
 * samples of a 10 Hz trace span 1 s) has no cadence to read. */
#define MAX_EVIDENCE 5

/* The features the model may use: time shape (the step rhythm inside
 * bursts, power cadence, on/off structure, bursts per minute), cross-GPU
 * synchrony, the collective-wait signature, memory growth, and
 * compute-boundedness measured so that duty cycling does not move it much
 * (energy per active second, memory-bandwidth share).
 * Chosen by the procedure in docs/evaluation.md ("Model selection"): mean
 * utilization and power levels and memory residency are left out, as the
 * physics predicts they do not survive evasion or a new source, and so is
 * power per unit of utilization, which a locked SM clock or another GPU
 * model shifts. */
const enum wt_feature wt_physics_model_features[] = {
    WT_F_POWER_ACF_PEAK, WT_F_SQUARE_WAVE,     WT_F_ON_LEN,        WT_F_PEER_SYNC,
    WT_F_SPIN_FRAC,      WT_F_MEM_SLOPE,       WT_F_ENERGY_ACTIVE, WT_F_BURST_RATE,
    WT_F_MEMUTIL_RATIO,  WT_F_ACTIVE_ACF_PEAK,
};
const size_t wt_physics_model_nfeatures =
    sizeof(wt_physics_model_features) / sizeof(wt_physics_model_features[0]);

/* Output shows every feature, the Python tool's six first. */
static const enum wt_feature exposed[] = {
    WT_F_AVG_GPU_UTIL,      WT_F_STD_GPU_UTIL,   WT_F_MEM_GROWTH,
    WT_F_AVG_POWER,         WT_F_STD_POWER,      WT_F_AVG_PROCS,
    WT_F_SAMPLE_PERIOD,     WT_F_POWER_REF,      WT_F_DUTY,
    WT_F_UTIL_ACTIVE,       WT_F_UTIL_ACTIVE_CV, WT_F_POWER_NORM,
    WT_F_POWER_ACTIVE_NORM, WT_F_POWER_P95_NORM, WT_F_POWER_CV,
    WT_F_POWER_PER_UTIL,    WT_F_UTIL_ACF_PEAK,  WT_F_UTIL_ACF_LAG,
    WT_F_ACTIVE_ACF_PEAK,   WT_F_POWER_ACF_PEAK, WT_F_POWER_ACF_LAG,
    WT_F_SQUARE_WAVE,       WT_F_POWER_JITTER,   WT_F_UTIL_JITTER,
    WT_F_SPIN_FRAC,         WT_F_ON_LEN,         WT_F_ON_LEN_CV,
    WT_F_GAP_LEN,           WT_F_BURST_RATE,     WT_F_PEAK_POWER_ON,
    WT_F_MEMUTIL_RATIO,     WT_F_MEM_FRAC,       WT_F_MEM_CV,
    WT_F_MEM_SLOPE,         WT_F_ENERGY_ACTIVE,  WT_F_SWCAP_FRAC,
    WT_F_PIN_AT_CAP,        WT_F_SM_CLOCK_RATIO, WT_F_LIMIT_RATIO,
    WT_F_CLOCKS_LOCKED,     WT_F_PEER_SYNC,      WT_F_PEER_ANTI,
};
_Static_assert(sizeof(exposed) / sizeof(exposed[0]) == WT_NFEATURES, "expose every feature");

int wt_physics_is_idle(const struct wt_features *f)
{
    double duty = f->v[WT_F_DUTY], pn = f->v[WT_F_POWER_NORM];
    return wt_measured(duty) && duty <= IDLE_DUTY_MAX &&
           (!wt_measured(pn) || pn <= IDLE_POWER_NORM_MAX);
}

/* The built-in model, parsed once: pthread_once, as two threads classifying
 * from cold (a library caller's) parsed into the one model together and
 * failed with made-up errors, kept for good. */
static struct wt_model builtin_m;
static int builtin_state; /* 1 ok, -1 failed */
static struct wt_err builtin_saved;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_parse(void)
{
    const char *text = wt_model_builtin_text();
    builtin_state = wt_model_parse(&builtin_m, text, strlen(text), "models/physics.model",
                                   &builtin_saved) == WT_OK
                        ? 1
                        : -1;
}

static const struct wt_model *builtin_model(struct wt_err *err)
{
    pthread_once(&builtin_once, builtin_parse);
    if (builtin_state < 0) {
        if (err)
            *err = builtin_saved;
        return NULL;
    }
    return &builtin_m;
}

void wt_physics_tamper(struct wt_result *out, const struct wt_features *f)
{
    double lr = f->v[WT_F_LIMIT_RATIO];
    if (wt_measured(lr) && lr < 0.97 && out->ntamper < WT_MAX_TAMPER)
        snprintf(out->tamper[out->ntamper++], WT_REASON_LEN,
                 "enforced power limit is %.0f%% of the default limit", 100 * lr);
    if (f->v[WT_F_CLOCKS_LOCKED] == 1 && out->ntamper < WT_MAX_TAMPER)
        snprintf(out->tamper[out->ntamper++], WT_REASON_LEN,
                 "SM clocks look locked (application clocks set, or constant below the "
                 "maximum under load)");
    double cap = f->v[WT_F_SWCAP_FRAC], pin = f->v[WT_F_PIN_AT_CAP];
    if (wt_measured(cap) && cap >= 0.5 && out->ntamper < WT_MAX_TAMPER)
        snprintf(out->tamper[out->ntamper++], WT_REASON_LEN,
                 "software power cap asserted in %.0f%% of samples%s", 100 * cap,
                 wt_measured(pin) && pin >= 0.5 ? ", power pinned at the limit" : "");
}

const struct wt_features *wt_physics_model_view(const struct wt_window *w,
                                                const struct wt_features *full,
                                                struct wt_features *pview)
{
    if (!wt_measured(full->v[WT_F_POWER_REF]))
        return full;
    /* power in at least half of the rows that measure utilization or power,
     * and not 0 W throughout (a sensor that reads nothing): one power
     * reading beside a window of utilization had outweighed it */
    size_t npow = 0, nsig = 0;
    int watts = 0;
    for (size_t i = 0; i < w->n; i++) {
        const double *v = w->s[i].v;
        int p = wt_measured(v[WT_COL_POWER]);
        npow += p;
        nsig += p || wt_measured(v[WT_COL_UTIL_GPU]);
        watts |= p && v[WT_COL_POWER] > 0;
    }
    if (npow == 0 || npow * 2 < nsig || !watts)
        return full;
    /* no utilization here nor at the peers: the view is the full features */
    int util = 0;
    for (size_t i = 0; i <= w->npeers && !util; i++) {
        const struct wt_window *x = i ? &w->peers[i - 1] : w;
        util = wt_stat_count(x->s, x->n, WT_COL_UTIL_GPU) ||
               wt_stat_count(x->s, x->n, WT_COL_UTIL_MEM);
    }
    if (!util)
        return full;
    wt_features_compute_without(w, (1u << WT_COL_UTIL_GPU) | (1u << WT_COL_UTIL_MEM), pview);
    return wt_measured(pview->v[WT_F_DUTY]) ? pview : full;
}

struct credit {
    int f;
    double c;
};

static int cmp_credit(const void *a, const void *b)
{
    double x = fabs(((const struct credit *)a)->c), y = fabs(((const struct credit *)b)->c);
    return (x < y) - (x > y);
}

/* Whether the window measures any feature the model splits on: with none,
 * every tree would follow its missing-value branches to a "verdict" that no
 * telemetry supports. */
static int model_has_evidence(const struct wt_model *m, const struct wt_features *f)
{
    for (int t = 0; t < m->ntrees; t++)
        for (int i = 0; i < m->tree[t].nnodes; i++) {
            int ft = m->tree[t].node[i].feature;
            if (ft >= 0 && (!f || wt_measured(f->v[ft])))
                return 1;
        }
    return 0;
}

/* UNKNOWN with confidence 0: the reason just added says why there is no
 * evidence. */
static int no_evidence(struct wt_result *out)
{
    out->cls = WT_CLASS_UNKNOWN;
    out->confidence = 0;
    return WT_OK;
}

static int physics_classify(const struct wt_classifier *c, const struct wt_window *w,
                            const struct wt_features *f, struct wt_result *out, struct wt_err *err)
{
    wt_physics_tamper(out, f);
    if (!wt_measured(f->v[WT_F_AVG_GPU_UTIL]) && !wt_measured(f->v[WT_F_AVG_POWER])) {
        wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                             "neither GPU utilization nor power is measured: no evidence");
        return no_evidence(out);
    }
    /* before the IDLE rule too: a second's lull in a training job is not an
     * idle GPU (with --declared it would be a MISMATCH) */
    double covers = wt_window_seconds(w) +
                    (wt_measured(f->v[WT_F_SAMPLE_PERIOD]) ? f->v[WT_F_SAMPLE_PERIOD] : 0);
    /* a microsecond of slack: t_s differences carry rounding (50 samples at
     * 10 Hz read 4.9 + 0.1 = 4.99999999999998 s at some start times and were
     * UNKNOWN at some offsets, judged at others) */
    if (covers < WT_PHYSICS_MIN_SECONDS - 1e-6) {
        wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                             "the window covers %.4g s (its span and one sample period): too "
                             "short to judge (at least %.0f s; "
                             "the model learnt from 10 to 30 s): no evidence",
                             /* rounded down: 4.996 s is not "5 s"; with the same
                              * microsecond of slack (a span of 0.99999999 s read
                              * "0.999 s" from a recording, "1 s" from its source) */
                             floor((covers + 1e-6) * 1000) / 1000, WT_PHYSICS_MIN_SECONDS);
        return no_evidence(out);
    }
    if (wt_physics_is_idle(f)) {
        double duty = f->v[WT_F_DUTY], pn = f->v[WT_F_POWER_NORM];
        out->cls = WT_CLASS_IDLE;
        out->confidence = 1.0 - duty / IDLE_DUTY_MAX * 0.3;
        wt_result_add_reason(out, WT_F_DUTY, duty, WT_CLASS_IDLE,
                             "active %.0f%% of the window <= idle threshold %.0f%%", 100 * duty,
                             100 * IDLE_DUTY_MAX);
        if (wt_measured(pn))
            wt_result_add_reason(out, WT_F_POWER_NORM, pn, WT_CLASS_IDLE,
                                 "mean power %.0f%% of the %.0f W reference <= idle threshold "
                                 "%.0f%%",
                                 100 * pn, f->v[WT_F_POWER_REF], 100 * IDLE_POWER_NORM_MAX);
        return WT_OK;
    }
    const struct wt_model *m = c->model ? c->model : builtin_model(err);
    if (!m)
        return WT_EINVAL;
    if (!wt_measured(f->v[WT_F_DUTY])) {
        /* power alone, with no limit and a GPU model we cannot rate (or
         * neither signal): whether the GPU was busy at all is unknown, and
         * so is everything after */
        size_t nutil = wt_stat_count(w->s, w->n, WT_COL_UTIL_GPU);
        size_t npow = wt_stat_count(w->s, w->n, WT_COL_POWER);
        if (nutil == 0 && !wt_measured(f->v[WT_F_POWER_REF]))
            wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                                 "cannot tell when the GPU is active: no utilization, and power "
                                 "has no scale (no power limit, GPU model '%.60s' not rated): no "
                                 "evidence",
                                 w->gpu_model);
        else if (!wt_measured(f->v[WT_F_POWER_REF]))
            wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                                 "cannot tell when the GPU is active: power has no scale (no "
                                 "power limit, GPU model '%.60s' not rated) and utilization is "
                                 "in %zu of %zu samples (5 at least, over half the window, or "
                                 "half the samples): no evidence",
                                 w->gpu_model, nutil, w->n);
        else
            wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                                 "cannot tell when the GPU is active: utilization in %zu and power "
                                 "in %zu of %zu samples: no evidence",
                                 nutil, npow, w->n);
        return no_evidence(out);
    }
    struct wt_features pview;
    const struct wt_features *full = f;
    f = wt_physics_model_view(w, full, &pview);
    if (!model_has_evidence(m, NULL)) {
        /* a model of constants (a hand-made one: train refuses to write
         * it) said TRAINING at 0.99 for every window, on no evidence */
        wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                             "the model splits on no feature (a constant score for every "
                             "window): no evidence");
        return no_evidence(out);
    }
    if (!model_has_evidence(m, f)) {
        wt_result_add_reason(
            out, -1, NAN, WT_CLASS_NONE, "%s",
            f != full && model_has_evidence(m, full)
                ? "the model splits only on features this window measures from GPU "
                  "utilization, which the model reads only where power has no scale (a power "
                  "limit or a known GPU model): no evidence"
                : "none of the model's features can be computed from this window (activity "
                  "and the power scale need utilization, a power limit or a known GPU "
                  "model): no evidence");
        return no_evidence(out);
    }
    double credit[WT_NFEATURES];
    double s = wt_model_score(m, f, credit);
    double p = 1 / (1 + exp(-s));
    out->score = s;
    enum wt_class side = s >= 0 ? WT_CLASS_TRAINING : WT_CLASS_INFERENCE;
    if (fabs(p - 0.5) < WT_PHYSICS_MARGIN) {
        out->cls = WT_CLASS_UNKNOWN;
        out->confidence = 0.5;
        wt_result_add_reason(out, -1, s, WT_CLASS_NONE,
                             "evidence too weak: P(TRAINING) = %.2f is within %.2f of 0.5 -- "
                             "inconclusive",
                             p, WT_PHYSICS_MARGIN);
    } else {
        out->cls = side;
        out->confidence = side == WT_CLASS_TRAINING ? p : 1 - p;
        wt_result_add_reason(out, -1, s, side,
                             "model: P(TRAINING) = %.2f (log-odds %+.2f) over active windows", p,
                             s);
    }
    struct credit cr[WT_NFEATURES];
    int k = 0;
    for (int i = 0; i < WT_NFEATURES; i++)
        if (credit[i] != 0)
            cr[k++] = (struct credit){i, credit[i]};
    qsort(cr, (size_t)k, sizeof(cr[0]), cmp_credit);
    for (int i = 0; i < k && i < MAX_EVIDENCE; i++) {
        double v = f->v[cr[i].f];
        enum wt_class fav = cr[i].c > 0 ? WT_CLASS_TRAINING : WT_CLASS_INFERENCE;
        char val[32];
        if (wt_measured(v))
            snprintf(val, sizeof(val), "%.3g", v);
        else
            snprintf(val, sizeof(val), "not measured");
        wt_result_add_reason(out, cr[i].f, v, fav, "%s = %s -> %s (%+.2f)",
                             wt_feature_name(cr[i].f), val, wt_class_name(fav), cr[i].c);
        if (out->nreasons)
            out->reasons[out->nreasons - 1].weight = cr[i].c;
    }
    if (f != full && wt_stat_count(w->s, w->n, WT_COL_UTIL_GPU) > 0)
        wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                             "the model read power, not utilization (utilization decides IDLE "
                             "only): the values above are those without utilization");
    /* said, since "not measured" features then decide by the branches the
     * model learnt for missing values */
    if (!wt_measured(f->v[WT_F_POWER_REF]) && wt_stat_count(w->s, w->n, WT_COL_POWER) > 0)
        wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                             "power has no scale (no power limit, GPU model '%.60s' not rated): "
                             "its features are not measured; record power_limit_w (nvidia-smi "
                             "power.limit) or the GPU name",
                             w->gpu_model ? w->gpu_model : "unknown");
    /* likewise with no power at all: the model is trained on windows that
     * have it, so a utilization-only window is decided partly by those
     * branches (measured: in-sample 63.5% with 72 INFERENCE windows called
     * TRAINING, docs/classifier.md) */
    if (wt_stat_count(w->s, w->n, WT_COL_POWER) == 0)
        wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                             "power not measured: the model learnt from windows with power, so "
                             "its power features decide by missing-value branches (a model "
                             "trained with --missing stop: give no evidence): weaker evidence "
                             "(docs/classifier.md); record power_w");
    return WT_OK;
}

const struct wt_classifier wt_classifier_physics = {
    .name = "physics",
    .description = "IDLE rule + boosted trees over cadence, compute-boundedness, energy, "
                   "memory and cross-GPU features (default)",
    .exposed = exposed,
    .nexposed = sizeof(exposed) / sizeof(exposed[0]),
    .min_samples = 5,
    .max_seconds = 30,
    .classify = physics_classify,
    .model = NULL,
};

struct wt_classifier wt_classifier_physics_with(const struct wt_model *m)
{
    struct wt_classifier c = wt_classifier_physics;
    c.model = m;
    return c;
}
