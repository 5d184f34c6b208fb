/* The seed benchmark (see benchmark.h). */
#include "eval/benchmark.h"

#include <stdlib.h>
#include <string.h>

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
                struct wt_window w = {buf, n, 0, "unknown", "synthetic"};
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
