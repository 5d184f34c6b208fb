/* Classifier registry and the shared classify entry point (see classifier.h). */
#include "classify/classifier.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/stats.h"
#include "util/text.h"

static const struct wt_classifier *const classifiers[] = {
    &wt_classifier_physics, /* the default */
    &wt_classifier_rules,
    NULL,
};

const struct wt_classifier *const *wt_classifier_all(void)
{
    return classifiers;
}

const struct wt_classifier *wt_classifier_default(void)
{
    return classifiers[0];
}

const struct wt_classifier *wt_classifier_find(const char *name)
{
    for (int i = 0; classifiers[i]; i++)
        if (!strcmp(classifiers[i]->name, name))
            return classifiers[i];
    return NULL;
}

void wt_result_add_reason(struct wt_result *r, int feature, double value, enum wt_class favours,
                          const char *fmt, ...)
{
    if (r->nreasons >= WT_MAX_REASONS)
        return;
    struct wt_reason *x = &r->reasons[r->nreasons++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->text, sizeof(x->text), fmt, ap);
    va_end(ap);
    /* valid UTF-8 for JSON, whatever a precision or the buffer cut (a GPU
     * model named in a reason may hold multi-byte characters) */
    wt_text_clean(x->text);
    x->feature = feature;
    x->value = value;
    x->favours = favours;
    x->weight = NAN;
}

void wt_result_note_other_jobs(struct wt_result *r, size_t other_jobs, size_t npeers,
                               const char *gpus)
{
    if (other_jobs && npeers)
        wt_result_add_reason(r, -1, NAN, WT_CLASS_NONE,
                             "%zu of the other %s ran no process of this GPU's job (Slurm job, "
                             "pod, container): cross-GPU synchrony read only the %zu that did",
                             other_jobs, gpus, npeers);
    else if (other_jobs)
        wt_result_add_reason(r, -1, NAN, WT_CLASS_NONE,
                             "the other %s ran no process of this GPU's job (Slurm job, pod, "
                             "container): read alone, without cross-GPU synchrony",
                             gpus);
}

int wt_classify_window(const struct wt_classifier *c, const struct wt_window *w,
                       struct wt_result *out, struct wt_err *err)
{
    memset(out, 0, sizeof(*out));
    out->cls = WT_CLASS_UNKNOWN;
    out->classifier = c;
    out->gpu_index = w->gpu;
    out->sample_count = w->n;
    out->window_seconds = wt_window_seconds(w);
    out->score = NAN;
    for (int i = 0; i < WT_NFEATURES; i++)
        out->features.v[i] = NAN;
    if (w->n < c->min_samples)
        return wt_errf(err, WT_EINVAL,
                       "GPU %d: %zu sample%s in the window; the %s classifier needs at least %zu",
                       w->gpu, w->n, w->n == 1 ? "" : "s", c->name, c->min_samples);
    /* the last max_seconds of a longer window: samples after t_last - max
     * (as eval cuts [t0, t0 + W)), the peers over the same time */
    struct wt_window tail;
    struct wt_window *tpeers = NULL;
    const struct wt_sample *full_s = w->s; /* the window as given */
    const size_t full_n = w->n;
    size_t from = 0;
    int sparse = 0;
    if (c->max_seconds > 0 && w->n >= 2) {
        from = wt_window_tail_start(w, c->max_seconds);
        /* too sparse to judge: scoring the whole, longer window instead would
         * read run lengths the model never saw (steady training at 0.1 Hz
         * read as INFERENCE) */
        sparse = w->n - from < c->min_samples;
    }
    if (from > 0) {
        tail = *w;
        tail.s = w->s + from;
        tail.n = w->n - from;
        double cut = w->s[from].t_s;
        if (w->npeers) {
            tpeers = malloc(w->npeers * sizeof(*tpeers));
            if (!tpeers)
                return wt_errf(err, WT_ENOMEM, "out of memory");
            for (size_t p = 0; p < w->npeers; p++) {
                tpeers[p] = w->peers[p];
                size_t k = 0;
                while (k < tpeers[p].n && tpeers[p].s[k].t_s < cut)
                    k++;
                tpeers[p].s += k;
                tpeers[p].n -= k;
            }
            tail.peers = tpeers;
        }
        w = &tail; /* sample_count and window_seconds still say what was given */
    }
    if (c->basic_features)
        wt_features_compute_basic(w, &out->features);
    else
        wt_features_compute(w, &out->features);
    if (sparse) {
        /* polled often enough but with a hole in the recording: say so, not
         * "poll more often" */
        double every = floor(c->max_seconds / (double)c->min_samples);
        double *tmp = malloc(sizeof(double) * full_n);
        double period = tmp ? wt_stat_median_period(full_s, full_n, tmp) : NAN;
        free(tmp);
        if (period <= every)
            wt_result_add_reason(
                out, -1, NAN, WT_CLASS_NONE,
                "too sparse: %zu sample%s in the window's last %.0f s, the %s classifier needs "
                "%zu: the recording has a gap (samples every %.3g s, then none for %.0f s)",
                w->n, w->n == 1 ? "" : "s", c->max_seconds, c->name, c->min_samples, period,
                full_s[full_n - w->n].t_s - full_s[full_n - w->n - 1].t_s);
        else
            wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                                 "too sparse: %zu sample%s in the window's last %.0f s, the %s "
                                 "classifier needs %zu (poll at least every %.0f s)",
                                 w->n, w->n == 1 ? "" : "s", c->max_seconds, c->name,
                                 c->min_samples, every);
        out->cls = WT_CLASS_UNKNOWN;
        out->confidence = 0;
        free(tpeers);
        return WT_OK;
    }
    int rc = c->classify(c, w, &out->features, out, err);
    if (from > 0 && rc == WT_OK)
        wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                             "scored on the window's last %.0f s (%zu of %zu samples): the model "
                             "learnt from windows of at most %.0f s",
                             c->max_seconds, w->n, w->n + from, c->max_seconds);
    free(tpeers);
    return rc;
}
