/* `workloadtruth classify`: one window of telemetry from a source, classified,
 * printed as the Python tool prints it; with --declared, also a verdict and
 * a distinct exit code on MISMATCH.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classifier.h"
#include "classify/verdict.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "output/output.h"
#include "telemetry/source.h"

#define MAX_SAMPLES 1000000

static const char *const *profile_names(void)
{
    static const char *names[32];
    const struct wt_synth_profile *const *all = wt_synth_profiles();
    int i;
    for (i = 0; all[i] && i < 31; i++)
        names[i] = all[i]->name;
    names[i] = NULL;
    return names;
}

static int fail(const char *msg)
{
    fprintf(stderr, "workloadtruth classify: %s\n", msg);
    return WT_EXIT_ERROR;
}

/* Reads `want` samples of gpu at or after time `start` (NaN = from the start). */
static int read_window(struct wt_source *src, int gpu, double start, struct wt_sample *buf,
                       size_t want, size_t *n, struct wt_err *err)
{
    *n = 0;
    while (*n < want) {
        size_t got = 0;
        int rc = wt_source_read(src, gpu, buf + *n, want - *n, &got, err);
        if (rc == WT_DONE)
            return WT_OK;
        if (rc)
            return rc;
        if (!isnan(start)) {
            size_t keep = 0;
            for (size_t i = 0; i < got; i++)
                if (buf[*n + i].t_s >= start)
                    buf[*n + keep++] = buf[*n + i];
            got = keep;
        }
        *n += got;
    }
    return WT_OK;
}

int wt_cmd_classify(int argc, char **argv)
{
    static const char *const backends[] = {"nvml", "synthetic", "replay", NULL};
    const char *backend = "nvml", *profile = "training", *trace = NULL, *declared_s = NULL;
    const char *clf_name = wt_classifier_default()->name;
    unsigned long long gpu = 0, samples = 10, seed = 0, per_tick = 0;
    double interval = 1.0, start = NAN;
    bool json = false, evasion = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--backend", WT_OPT_CHOICE, &backend, "B", "telemetry source: nvml (default), synthetic, replay", 0, 0, backends, false},
        {"--profile", WT_OPT_CHOICE, &profile, "P", "synthetic profile (default training)", 0, 0, profile_names(), false},
        {"--evasion", WT_OPT_FLAG, &evasion, NULL, "synthetic: apply the Python tool's evasion transform", 0, 0, NULL, false},
        {"--gpu-index", WT_OPT_UINT, &gpu, "N", "GPU to classify (default 0)", 0, WT_MAX_GPUS - 1, NULL, false},
        {"--samples", WT_OPT_UINT, &samples, "N", "samples in the window (default 10)", 2, MAX_SAMPLES, NULL, false},
        {"--interval", WT_OPT_DOUBLE, &interval, "S", "seconds between live samples; nvidia-smi CSV without timestamps: seconds per tick (default 1)", 0.001, 3600, NULL, false},
        {"--trace", WT_OPT_STRING, &trace, "FILE", "replay a trace or nvidia-smi CSV ('-' = stdin); implies --backend replay", 0, 0, NULL, false},
        {"--start", WT_OPT_DOUBLE, &start, "SECONDS", "skip samples before this t_s (trace time; synthetic samples are at 1, 2, 3 ...)", -1e12, 1e12, NULL, false},
        {"--gpus-per-tick", WT_OPT_UINT, &per_tick, "N", "nvidia-smi CSV without an index column: rows per tick (default: detect)", 1, WT_MAX_GPUS, NULL, false},
        {"--classifier", WT_OPT_CHOICE, &clf_name, "NAME", "classifier (default: the first listed)", 0, 0, wt_cli_classifier_names(), false},
        {"--declared", WT_OPT_STRING, &declared_s, "TYPE", "the owner's declared type: training, inference or idle", 0, 0, NULL, false},
        {"--seed", WT_OPT_UINT, &seed, "N", "synthetic: random seed (default 0)", 0, 18446744073709551615.0, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print JSON (the Python tool's shape)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth classify",
        "Classify one window of GPU telemetry as TRAINING, INFERENCE or IDLE.",
        "With --declared, also prints a verdict: MATCH, MISMATCH or INCONCLUSIVE.\n"
        "exit status: 0 ok (MATCH or INCONCLUSIVE), 1 error, 2 usage error, 3 MISMATCH.",
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;

    enum wt_class declared = WT_CLASS_NONE;
    if (declared_s) {
        declared = wt_class_parse(declared_s, false);
        if (declared == WT_CLASS_NONE) {
            fprintf(stderr,
                    "workloadtruth classify: --declared: invalid choice '%.40s' "
                    "(choose from training, inference, idle) (see --help)\n",
                    declared_s);
            return WT_EXIT_USAGE;
        }
    }
    if (trace) {
        if (wt_opts_get(opts, "--backend")->seen && strcmp(backend, "replay") != 0) {
            fprintf(stderr,
                    "workloadtruth classify: --trace needs --backend replay, not '%s' "
                    "(see --help)\n",
                    backend);
            return WT_EXIT_USAGE;
        }
        backend = "replay";
    } else if (!strcmp(backend, "replay")) {
        fprintf(stderr, "workloadtruth classify: --backend replay needs --trace FILE "
                        "('-' for standard input) (see --help)\n");
        return WT_EXIT_USAGE;
    }

    const struct wt_classifier *clf = wt_classifier_find(clf_name);
    struct wt_source_config cfg = {0};
    cfg.trace_path = trace;
    cfg.trace_opts.rows_per_tick = (unsigned)per_tick;
    cfg.trace_opts.interval_s = interval;
    cfg.profile = profile;
    cfg.evasion = evasion;
    cfg.seed = seed;
    cfg.interval_s = interval;

    struct wt_err err = {{0}};
    struct wt_source *src = NULL;
    struct wt_sample *buf = NULL;
    int status = WT_EXIT_ERROR;
    if (wt_source_open(backend, &cfg, &src, &err) != WT_OK) {
        fail(err.msg);
        goto out;
    }
    buf = malloc((size_t)samples * sizeof(*buf));
    if (!buf) {
        fail("out of memory");
        goto out;
    }
    size_t n = 0;
    if (read_window(src, (int)gpu, start, buf, (size_t)samples, &n, &err) != WT_OK) {
        fail(err.msg);
        goto out;
    }
    if (n < samples) {
        char msg[400];
        snprintf(msg, sizeof(msg), "%s: GPU %llu has only %zu sample%s%s; --samples asks for %llu",
                 trace ? (strcmp(trace, "-") ? trace : "<stdin>") : backend, gpu, n,
                 n == 1 ? "" : "s", isnan(start) ? "" : " from --start", samples);
        fail(msg);
        goto out;
    }
    struct wt_device_info info;
    if (wt_source_device_info(src, (int)gpu, &info, &err) != WT_OK) {
        fail(err.msg);
        goto out;
    }
    struct wt_window w = {buf, n, (int)gpu, info.power_semantics, info.name};
    struct wt_result r;
    if (wt_classify_window(clf, &w, &r, &err) != WT_OK) {
        fail(err.msg);
        goto out;
    }
    enum wt_verdict v = WT_VERDICT_INCONCLUSIVE;
    if (declared != WT_CLASS_NONE)
        v = wt_verdict_for(declared, &r);
    if (json) {
        json_t *j = wt_json_result(&r);
        if (j && declared != WT_CLASS_NONE) {
            json_object_set_new(j, "declared", json_string(wt_class_lname(declared)));
            json_object_set_new(j, "verdict", json_string(wt_verdict_name(v)));
        }
        int prc2 = wt_json_print(stdout, j);
        json_decref(j);
        if (prc2) {
            fail("cannot write JSON output");
            goto out;
        }
    } else {
        wt_text_result(stdout, &r);
        if (declared != WT_CLASS_NONE) {
            printf("declared      : %s\n", wt_class_lname(declared));
            printf("verdict       : %s\n", wt_verdict_name(v));
        }
    }
    if (fflush(stdout) != 0) {
        fail("cannot write output");
        goto out;
    }
    status =
        (declared != WT_CLASS_NONE && v == WT_VERDICT_MISMATCH) ? WT_EXIT_MISMATCH : WT_EXIT_OK;
out:
    free(buf);
    wt_source_close(src);
    return status;
}
