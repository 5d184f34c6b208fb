/* Throughput benchmarks (not timed tests): samples per second for trace
 * parsing, and windows per second for feature extraction + classification.
 *
 * usage: wt_bench [--quick] [--trace FILE]
 *   Parsing is measured on a generated 10 Hz, 8-GPU trace held in memory (or
 *   on FILE); classification on 30-second windows at 10 Hz (300 samples):
 *   the Python tool's training window, then windows of every simulator
 *   profile on a 4-GPU host (each with its peers).
 *   --quick runs a few iterations only (a smoke test for CI).
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classify/classifier.h"
#include "telemetry/source.h"
#include "telemetry/trace_reader.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char *make_trace(size_t rows, size_t *len)
{
    size_t cap = rows * 96 + 256, off = 0;
    char *b = malloc(cap);
    if (!b)
        return NULL;
    off += (size_t)snprintf(b + off, cap - off,
                            "# format: workloadtruth-trace/1\n# power_semantics: instant\n"
                            "t_s,gpu,util_gpu_pct,util_mem_pct,mem_used_mib,mem_total_mib,"
                            "power_w,label\n");
    for (size_t i = 0; i < rows; i++)
        off += (size_t)snprintf(
            b + off, cap - off, "%.3f,%zu,%zu,%zu,41250.5,81559,%.2f,TRAINING\n",
            (double)(i / 8) * 0.1, i % 8, 80 + i % 17, 30 + i % 11, 400.0 + (double)(i % 97));
    *len = off;
    return b;
}

static int bench_parse(const char *path, int quick)
{
    size_t len = 0, rows = quick ? 20000 : 2000000;
    char *data = NULL;
    int iters = quick ? 1 : 3;
    if (!path) {
        data = make_trace(rows, &len);
        if (!data)
            return 1;
    }
    double best = 0;
    size_t count = 0;
    for (int it = 0; it < iters; it++) {
        FILE *f = path ? fopen(path, "rb") : fmemopen(data, len, "rb");
        struct wt_trace_reader *r;
        struct wt_err err = {{0}};
        if (!f) {
            fprintf(stderr, "wt_bench: cannot open trace %s: %s\n", path ? path : "<generated>",
                    strerror(errno));
            free(data);
            return 1;
        }
        if (wt_trace_open_stream(f, 1, path ? path : "<generated>", NULL, &r, &err)) {
            fprintf(stderr, "wt_bench: cannot open trace: %s\n", err.msg);
            free(data);
            return 1;
        }
        struct wt_sample s;
        int rc;
        count = 0;
        double t0 = now();
        while ((rc = wt_trace_next(r, &s, &err)) == WT_OK)
            count++;
        double dt = now() - t0;
        wt_trace_close(r);
        if (rc != WT_DONE) {
            fprintf(stderr, "wt_bench: %s\n", err.msg);
            free(data);
            return 1;
        }
        if (dt > 0 && count / dt > best)
            best = count / dt;
    }
    printf("trace parsing: %zu rows, %.0f samples/s (best of %d)\n", count, best, iters);
    free(data);
    return 0;
}

/* Times features + classification of the windows, taken in turn, for each
 * classifier; `what` names them in the output. */
static int time_windows(const struct wt_window *win, size_t nw, int quick, const char *what)
{
    const struct wt_classifier *const *all = wt_classifier_all();
    struct wt_err err = {{0}};
    for (int c = 0; all[c]; c++) {
        long iters = quick ? 1000 : 200000;
        double samples = 0;
        struct wt_result r;
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            const struct wt_window *w = &win[(size_t)i % nw];
            samples += (double)w->n;
            if (wt_classify_window(all[c], w, &r, &err)) {
                fprintf(stderr, "wt_bench: %s\n", err.msg);
                return 1;
            }
        }
        double dt = now() - t0;
        printf("features + classification (%s): %s: %.0f windows/s, %.0f samples/s on one core\n",
               all[c]->name, what, iters / dt, samples / dt);
    }
    return 0;
}

static int bench_classify(int quick)
{
    enum { WINDOW = 300 };
    struct wt_sample buf[WINDOW];
    struct wt_source_config cfg = {0};
    struct wt_source *src;
    struct wt_err err;
    size_t n;
    cfg.profile = "training";
    if (wt_source_open("synthetic", &cfg, &src, &err) ||
        wt_source_read_n(src, 0, buf, WINDOW, &n, &err)) {
        fprintf(stderr, "wt_bench: %s\n", err.msg);
        return 1;
    }
    wt_source_close(src);
    for (size_t i = 0; i < n; i++)
        buf[i].t_s = 0.1 * (double)i;
    struct wt_window w = {.s = buf, .n = n, .power_semantics = "instant", .gpu_model = "synthetic"};
    return time_windows(&w, 1, quick,
                        "the Python tool's training window, 30 s at 10 Hz (300 samples)");
}

/* The same over windows of every simulator profile (10 Hz, 4 GPUs, each
 * window with its 3 peers): the Python tool's window above is an easy one
 * (one GPU, no peers, a regular pattern), these are what a host looks like.
 * Each is the run's second 30 s, past its start-up (load phase, memory
 * ramp), as the benchmark suites take theirs from 30 s on. */
static int bench_classify_sim(int quick)
{
    enum { WINDOW = 300, GPUS = 4, MAXW = 16 * GPUS };
    static const char *const profiles[] = {
        "dense-training",   "peft-training",     "grad-accum-training", "inference-poisson",
        "inference-bursty", "inference-diurnal", "inference-periodic",  "inference-continuous",
        "inference-vllm",   "idle-bare",         "idle-resident",       NULL};
    static struct wt_sample buf[MAXW][WINDOW];
    static struct wt_window win[MAXW], peers[MAXW][GPUS - 1];
    size_t nw = 0;
    struct wt_err err = {{0}};
    for (int p = 0; profiles[p] && nw + GPUS <= MAXW; p++) {
        struct wt_source_config cfg = {0};
        struct wt_source *src;
        cfg.profile = profiles[p];
        cfg.gpus = GPUS;
        cfg.seed = 7;
        if (wt_source_open("synthetic", &cfg, &src, &err)) {
            fprintf(stderr, "wt_bench: %s: %s\n", profiles[p], err.msg);
            return 1;
        }
        for (int g = 0; g < GPUS; g++) {
            size_t n, skip;
            if (wt_source_read_n(src, g, buf[nw + (size_t)g], WINDOW, &skip, &err) ||
                skip != WINDOW || /* the first 30 s, then the window */
                wt_source_read_n(src, g, buf[nw + (size_t)g], WINDOW, &n, &err) || n != WINDOW) {
                fprintf(stderr, "wt_bench: %s: GPU %d: %s\n", profiles[p], g,
                        err.msg[0] ? err.msg : "too few samples");
                wt_source_close(src);
                return 1;
            }
            win[nw + (size_t)g] = (struct wt_window){.s = buf[nw + (size_t)g],
                                                     .n = WINDOW,
                                                     .gpu = g,
                                                     .power_semantics = "instant",
                                                     .gpu_model = "NVIDIA H100 80GB HBM3"};
        }
        wt_source_close(src);
        for (int g = 0; g < GPUS; g++) {
            size_t k = 0;
            for (int o = 0; o < GPUS; o++)
                if (o != g)
                    peers[nw + (size_t)g][k++] = win[nw + (size_t)o];
            win[nw + (size_t)g].peers = peers[nw + (size_t)g];
            win[nw + (size_t)g].npeers = GPUS - 1;
        }
        nw += GPUS;
    }
    char what[128];
    snprintf(what, sizeof(what),
             "%zu simulator windows (11 profiles, 30 s at 10 Hz, %d GPUs: 3 peers each)", nw, GPUS);
    return time_windows(win, nw, quick, what);
}

int main(int argc, char **argv)
{
    int quick = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--trace") && i + 1 < argc)
            path = argv[++i];
        else {
            fprintf(stderr, "usage: wt_bench [--quick] [--trace FILE]\n");
            return 2;
        }
    }
    if (bench_parse(path, quick) || bench_classify(quick) || bench_classify_sim(quick))
        return 1;
    return 0;
}
