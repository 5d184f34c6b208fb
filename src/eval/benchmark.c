/* The seed benchmark (see benchmark.h). */
#include "eval/benchmark.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/simulate.h"
#include "telemetry/source.h"
#include "util/rng.h"

#define MAX_WINDOW 100000

int wt_benchmark_seed(const struct wt_classifier *c, unsigned trials, unsigned window,
                      uint64_t seed, struct wt_bench_report *out, struct wt_err *err)
{
    static const char *const profiles[] = {"training", "inference", "idle"};
    memset(out, 0, sizeof(*out));
    out->suite = "seed";
    out->classifier = c->name;
    out->window = window;
    out->trials = trials;
    out->seed = seed;
    if (window < c->min_samples || window > MAX_WINDOW)
        return wt_errf(err, WT_EINVAL, "window must be %zu..%d samples, got %u", c->min_samples,
                       MAX_WINDOW, window);
    struct wt_sample *buf = malloc(window * sizeof(*buf));
    if (!buf)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    int rc = WT_OK;
    for (unsigned p = 0; p < 3; p++) {
        for (int ev = 0; ev < 2; ev++) {
            struct wt_bench_cell *cell = &out->cells[out->ncells];
            cell->profile = profiles[p];
            cell->evasion = ev;
            cell->strength = NAN;
            cell->throughput_cost = NAN;
            cell->truth = wt_class_parse(profiles[p], false);
            for (unsigned t = 0; t < trials; t++) {
                struct wt_source_config cfg = {0};
                struct wt_source *src = NULL;
                size_t n = 0;
                cfg.profile = profiles[p];
                cfg.evasion = ev;
                cfg.seed = wt_mix64(seed ^ wt_mix64(((uint64_t)out->ncells << 32) | t));
                if ((rc = wt_source_open("synthetic", &cfg, &src, err)) != WT_OK)
                    goto out;
                rc = wt_source_read_n(src, 0, buf, window, &n, err);
                wt_source_close(src);
                if (rc)
                    goto out;
                struct wt_window w = {
                    .s = buf, .n = n, .power_semantics = "unknown", .gpu_model = "synthetic"};
                struct wt_result r;
                if ((rc = wt_classify_window(c, &w, &r, err)) != WT_OK)
                    goto out;
                cell->trials++;
                if (r.cls == wt_class_parse(profiles[p], false))
                    cell->correct++;
            }
            out->ncells++;
        }
    }
out:
    free(buf);
    return rc;
}

double wt_bench_accuracy(const struct wt_bench_report *r, bool evasion)
{
    unsigned t = 0, c = 0;
    for (unsigned i = 0; i < r->ncells; i++)
        if (r->cells[i].evasion == evasion) {
            t += r->cells[i].trials;
            c += r->cells[i].correct;
        }
    return t ? (double)c / t : 0.0;
}

double wt_bench_default_accuracy(const struct wt_bench_report *r)
{
    unsigned t = 0, c = 0;
    for (unsigned i = 0; i < r->ncells; i++)
        if (r->cells[i].family && r->cells[i].is_default) {
            t += r->cells[i].trials;
            c += r->cells[i].correct;
        }
    return t ? (double)c / t : NAN;
}

#define SIM_WARMUP_S 30.0 /* windows start after this ... */
/* ... at a uniformly drawn offset up to this much later (300 s) */
#define SIM_SPREAD_S (WT_BENCH_SIM_MAX_OFFSET_S - SIM_WARMUP_S)
#define SIM_MAX_GPUS 16

/* The samples of a trial's GPUs, per_gpu each, grown to the GPUs a trial
 * has (most have 1, migration 4): sized for 16 at once, a 3600-s window at
 * 100 Hz had reserved 875 MB and failed under an address-space limit. */
struct sim_buf {
    struct wt_sample *s;
    size_t per_gpu;
    unsigned gpus;
};

/* Runs one simulated trial: returns the class of GPU 0's window (with the
 * other GPUs as peers) and the useful work done by the end of the window. */
static int sim_trial(const struct wt_classifier *c, const struct wt_sim_config *cfg,
                     double window_s, struct sim_buf *b, enum wt_class *cls, double *work,
                     unsigned *gpus, struct wt_err *err)
{
    struct wt_sim *sim;
    int rc = wt_sim_open(&sim, cfg, err);
    if (rc)
        return rc;
    struct wt_rng rng;
    wt_rng_seed(&rng, cfg->seed ^ 0x0ff5e7ULL);
    double offset = SIM_WARMUP_S + SIM_SPREAD_S * wt_rng_uniform(&rng);
    unsigned g = wt_sim_gpus(sim);
    if (g > SIM_MAX_GPUS)
        g = SIM_MAX_GPUS;
    if (g > b->gpus) {
        struct wt_sample *ns = realloc(b->s, b->per_gpu * g * sizeof(*ns));
        if (!ns) {
            wt_sim_close(sim);
            return wt_errf(err, WT_ENOMEM, "out of memory");
        }
        b->s = ns;
        b->gpus = g;
    }
    struct wt_sample *buf = b->s;
    size_t per_gpu = b->per_gpu;
    size_t n[SIM_MAX_GPUS] = {0};
    for (unsigned i = 0; i < g; i++) {
        struct wt_sample s;
        for (;;) {
            wt_sim_next(sim, i, &s);
            if (s.t_s >= offset + window_s)
                break;
            if (s.t_s >= offset && n[i] < per_gpu)
                buf[i * per_gpu + n[i]++] = s;
        }
    }
    struct wt_window peers[SIM_MAX_GPUS];
    for (unsigned i = 1; i < g; i++)
        peers[i - 1] = (struct wt_window){.s = buf + i * per_gpu,
                                          .n = n[i],
                                          .gpu = (int)i,
                                          .power_semantics = wt_sim_power_semantics(sim),
                                          .gpu_model = wt_sim_gpu_model(sim)};
    struct wt_window w = {.s = buf,
                          .n = n[0],
                          .gpu = 0,
                          .power_semantics = wt_sim_power_semantics(sim),
                          .gpu_model = wt_sim_gpu_model(sim),
                          .peers = peers,
                          .npeers = g - 1};
    struct wt_result r;
    rc = wt_classify_window(c, &w, &r, err);
    *cls = r.cls;
    *work = wt_sim_work_done(sim);
    *gpus = wt_sim_gpus(sim);
    wt_sim_close(sim);
    return rc;
}

static int run_cell(const struct wt_classifier *c, struct wt_bench_cell *cell, unsigned idx,
                    unsigned trials, double window_s, double sample_hz, uint64_t seed,
                    struct sim_buf *buf, struct wt_err *err)
{
    double work = 0, work_clean = 0;
    for (unsigned t = 0; t < trials; t++) {
        struct wt_sim_config cfg = {0};
        cfg.profile = cell->profile;
        cfg.evasion = cell->family;
        cfg.strength = cell->family ? cell->strength : -1;
        cfg.sample_hz = sample_hz;
        cfg.randomize = 1;
        cfg.seed = wt_mix64(seed ^ wt_mix64(((uint64_t)(idx + 1000) << 32) | t));
        enum wt_class cls;
        double wk;
        unsigned gpus;
        int rc = sim_trial(c, &cfg, window_s, buf, &cls, &wk, &gpus, err);
        if (rc)
            return rc;
        cell->trials++;
        cell->correct += cls == cell->truth;
        cell->training += cls == WT_CLASS_TRAINING;
        work += wk;
        if (cell->family && cell->truth == WT_CLASS_TRAINING) {
            /* the same job without the evasion, on as many GPUs (migration
             * spreads one job over 4: its cost is against 4 GPUs' work) */
            cfg.evasion = NULL;
            cfg.strength = -1;
            cfg.gpus = gpus;
            if ((rc = sim_trial(c, &cfg, window_s, buf, &cls, &wk, &gpus, err)) != WT_OK)
                return rc;
            work_clean += wk;
        }
    }
    cell->throughput_cost = work_clean > 0 ? 1 - work / work_clean : NAN;
    return WT_OK;
}

int wt_benchmark_sim(const struct wt_classifier *c, const char *suite, unsigned trials,
                     double window_s, double sample_hz, uint64_t seed, wt_bench_pick_fn pick,
                     void *pick_ctx, struct wt_bench_report *out, struct wt_err *err)
{
    static const double strengths[] = {0.25, 0.5, 0.75, 1.0};
    memset(out, 0, sizeof(*out));
    out->suite = suite;
    out->classifier = c->name;
    out->trials = trials;
    out->window_s = window_s;
    out->sample_hz = sample_hz;
    out->seed = seed;
    int evasion = !strcmp(suite, "evasion"), board = !strcmp(suite, "board");
    if (!evasion && !board && strcmp(suite, "sim"))
        return wt_errf(err, WT_EINVAL, "unknown suite '%s' (seed, sim, evasion, board)", suite);
    size_t np, ne;
    const struct wt_sim_profile_info *prof = wt_sim_profiles(&np);
    const struct wt_sim_evasion_info *ev = wt_sim_evasions(&ne);
    if (evasion) {
        for (size_t f = 0; f < ne; f++) {
            int have_default = 0;
            for (size_t k = 0; k <= 4; k++) {
                double st;
                if (k < 4)
                    st = strengths[k];
                else if (!have_default)
                    st = ev[f].default_strength;
                else
                    break;
                if (out->ncells == WT_BENCH_MAX_CELLS)
                    return wt_errf(err, WT_EINVAL, "too many benchmark cells");
                struct wt_bench_cell *cell = &out->cells[out->ncells++];
                cell->profile = "dense-training";
                cell->family = ev[f].name;
                cell->evasion = true;
                cell->strength = st;
                cell->is_default = fabs(st - ev[f].default_strength) < 1e-9;
                have_default |= cell->is_default;
                cell->truth = WT_CLASS_TRAINING;
            }
        }
    } else if (board) {
        /* serving GPUs under the board settings operators also use: each at
         * its family's default strength and at full strength */
        for (size_t f = 0; f < ne; f++)
            for (size_t p = 0; p < np && ev[f].board; p++)
                for (int k = 0; k < 2 && prof[p].cls == WT_CLASS_INFERENCE; k++) {
                    if (out->ncells == WT_BENCH_MAX_CELLS)
                        return wt_errf(err, WT_EINVAL, "too many benchmark cells");
                    struct wt_bench_cell *cell = &out->cells[out->ncells++];
                    cell->profile = prof[p].name;
                    cell->family = ev[f].name;
                    cell->evasion = true;
                    cell->strength = k ? 1.0 : ev[f].default_strength;
                    cell->is_default = !k;
                    cell->truth = WT_CLASS_INFERENCE;
                }
    } else {
        for (size_t p = 0; p < np && out->ncells < WT_BENCH_MAX_CELLS; p++) {
            struct wt_bench_cell *cell = &out->cells[out->ncells++];
            cell->profile = prof[p].name;
            cell->strength = NAN;
            cell->truth = prof[p].cls;
        }
    }
    size_t per_gpu = (size_t)(window_s * sample_hz) + 2;
    if (window_s <= 0 || window_s > 3600 || sample_hz < 0.1 || sample_hz > 100)
        return wt_errf(err, WT_EINVAL, "window must be 0..3600 s and the rate 0.1..100 Hz");
    struct sim_buf buf = {.per_gpu = per_gpu};
    int rc = WT_OK;
    for (unsigned i = 0; i < out->ncells && rc == WT_OK; i++) {
        const struct wt_classifier *ci = c;
        if (pick && (rc = pick(pick_ctx, out->cells[i].family, &ci, err)) != WT_OK)
            break;
        rc = run_cell(ci, &out->cells[i], i, trials, window_s, sample_hz, seed, &buf, err);
    }
    free(buf.s);
    return rc;
}
