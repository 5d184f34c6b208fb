/* `workloadtruth classify`: windows of telemetry from a source, classified and
 * printed as the Python tool prints them; with --declared, also a verdict and
 * a distinct exit code on MISMATCH.  With --windows N it classifies N
 * consecutive windows and decides at job level (k of n, verdict.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classifier.h"
#include "classify/model.h"
#include "classify/verdict.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "output/output.h"
#include "telemetry/simulate.h"
#include "telemetry/source.h"

#define MAX_SAMPLES 1000000
#define MAX_WINDOWS 10000

static const char *const *profile_names(void)
{
    static const char *names[64];
    const struct wt_synth_profile *const *all = wt_synth_profiles();
    int i = 0;
    for (; all[i] && i < 63; i++)
        names[i] = all[i]->name;
    size_t n;
    const struct wt_sim_profile_info *sim = wt_sim_profiles(&n);
    for (size_t j = 0; j < n && i < 63; j++)
        names[i++] = sim[j].name;
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

/* The host's other GPUs over the same time span, as peers for cross-GPU
 * features.  Each peer keeps the first sample past the window for the next. */
struct peer {
    int gpu;
    struct wt_sample *s;
    size_t n, cap;
    struct wt_sample carry;
    int have_carry, done;
};

static int peer_fill(struct wt_source *src, struct peer *p, double t0, double t1,
                     struct wt_err *err)
{
    p->n = 0;
    for (;;) {
        struct wt_sample smp;
        if (p->have_carry) {
            smp = p->carry;
            p->have_carry = 0;
        } else if (p->done) {
            return WT_OK;
        } else {
            size_t got = 0;
            int rc = wt_source_read(src, p->gpu, &smp, 1, &got, err);
            if (rc == WT_DONE || rc == WT_ENODEV) {
                p->done = 1;
                return WT_OK;
            }
            if (rc)
                return rc;
        }
        if (smp.t_s > t1) {
            p->carry = smp;
            p->have_carry = 1;
            return WT_OK;
        }
        if (smp.t_s < t0)
            continue;
        if (p->n == p->cap) {
            size_t ncap = p->cap ? p->cap * 2 : 256;
            struct wt_sample *ns = realloc(p->s, ncap * sizeof(*ns));
            if (!ns)
                return wt_errf(err, WT_ENOMEM, "out of memory");
            p->s = ns;
            p->cap = ncap;
        }
        p->s[p->n++] = smp;
    }
}

/* The job-level result of n windows: Python-shaped, with the k-of-n rule. */
static void job_result(const struct wt_result *w, size_t n, size_t k, struct wt_result *job)
{
    enum wt_class cls[MAX_WINDOWS];
    for (size_t i = 0; i < n; i++)
        cls[i] = w[i].cls;
    size_t votes = 0, count[4] = {0}; /* TRAINING, INFERENCE, IDLE, UNKNOWN */
    memset(job, 0, sizeof(*job));
    job->cls = wt_job_class(cls, n, k, &votes);
    job->classifier = w[0].classifier;
    job->gpu_index = w[0].gpu_index;
    job->score = NAN;
    for (size_t i = 0; i < n; i++) {
        job->sample_count += w[i].sample_count;
        count[w[i].cls >= 0 && w[i].cls <= WT_CLASS_UNKNOWN ? w[i].cls : WT_CLASS_UNKNOWN]++;
    }
    job->window_seconds = w[n - 1].window_seconds; /* replaced by the caller's span */
    job->confidence = (double)votes / (double)n;
    job->features = w[n - 1].features;
    if (job->cls == WT_CLASS_UNKNOWN)
        wt_result_add_reason(job, -1, NAN, WT_CLASS_NONE,
                             "no class in at least %zu of %zu windows (TRAINING %zu, INFERENCE "
                             "%zu, IDLE %zu, UNKNOWN %zu) -- inconclusive",
                             k, n, count[0], count[1], count[2], count[3]);
    else
        wt_result_add_reason(job, -1, NAN, job->cls,
                             "%zu of %zu windows %s (rule: at least %zu of %zu)", votes, n,
                             wt_class_name(job->cls), k, n);
    /* tamper indicators seen in any window, once each */
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < w[i].ntamper && job->ntamper < WT_MAX_TAMPER; t++) {
            size_t j = 0;
            while (j < job->ntamper && strcmp(job->tamper[j], w[i].tamper[t]))
                j++;
            if (j == job->ntamper)
                memcpy(job->tamper[job->ntamper++], w[i].tamper[t], WT_REASON_LEN);
        }
}

int wt_cmd_classify(int argc, char **argv)
{
    static const char *const backends[] = {"auto", "nvml", "synthetic", "replay", NULL};
    const char *backend = "auto", *profile = "training", *trace = NULL, *declared_s = NULL;
    const char *clf_name = wt_classifier_default()->name, *model_path = NULL;
    const char *family = NULL, *nvml_lib = NULL;
    unsigned long long gpu = 0, samples = 10, seed = 0, per_tick = 0, nwin = 1, kagree = 0;
    double interval = 1.0, start = NAN, strength = -1, sim_hz = 10;
    bool json = false, evasion = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--backend", WT_OPT_CHOICE, &backend, "B", "telemetry source: auto (default: nvml when a driver is present), nvml, synthetic, replay", 0, 0, backends, false},
        {"--profile", WT_OPT_CHOICE, &profile, "P", "synthetic profile (default training; see `benchmark --list`)", 0, 0, profile_names(), false},
        {"--evasion", WT_OPT_FLAG, &evasion, NULL, "synthetic: apply the Python tool's evasion transform", 0, 0, NULL, false},
        {"--evasion-family", WT_OPT_STRING, &family, "NAME", "simulator: evasion family applied to a training profile", 0, 0, NULL, false},
        {"--evasion-strength", WT_OPT_DOUBLE, &strength, "S", "simulator: evasion strength 0..1 (default: the family's)", 0, 1, NULL, false},
        {"--sample-hz", WT_OPT_DOUBLE, &sim_hz, "HZ", "simulator: samples per second (default 10)", 0.1, 100, NULL, false},
        {"--gpu-index", WT_OPT_UINT, &gpu, "N", "GPU to classify (default 0)", 0, WT_MAX_GPUS - 1, NULL, false},
        {"--samples", WT_OPT_UINT, &samples, "N", "samples per window (default 10)", 2, MAX_SAMPLES, NULL, false},
        {"--windows", WT_OPT_UINT, &nwin, "N", "classify N consecutive windows and decide at job level (default 1)", 1, MAX_WINDOWS, NULL, false},
        {"--min-agree", WT_OPT_UINT, &kagree, "K", "job level: windows that must agree (default: a majority of --windows)", 1, MAX_WINDOWS, NULL, false},
        {"--interval", WT_OPT_DOUBLE, &interval, "S", "seconds between live samples; nvidia-smi CSV without timestamps: seconds per tick (default 1)", 0.001, 3600, NULL, false},
        {"--trace", WT_OPT_STRING, &trace, "FILE", "replay a trace or nvidia-smi CSV ('-' = stdin); implies --backend replay", 0, 0, NULL, false},
        {"--start", WT_OPT_DOUBLE, &start, "SECONDS", "skip samples before this t_s (trace time; synthetic samples are at 1, 2, 3 ...)", -1e12, 1e12, NULL, false},
        {"--gpus-per-tick", WT_OPT_UINT, &per_tick, "N", "nvidia-smi CSV without an index column: rows per tick (default: detect)", 1, WT_MAX_GPUS, NULL, false},
        {"--classifier", WT_OPT_CHOICE, &clf_name, "NAME", "classifier (default: physics)", 0, 0, wt_cli_classifier_names(), false},
        {"--model", WT_OPT_STRING, &model_path, "FILE", "physics classifier: use this model instead of the built-in one", 0, 0, NULL, false},
        {"--nvml-lib", WT_OPT_STRING, &nvml_lib, "PATH", "NVML library to load (default: $WT_NVML_LIB, else libnvidia-ml.so.1)", 0, 0, NULL, false},
        {"--declared", WT_OPT_STRING, &declared_s, "TYPE", "the owner's declared type: training, inference or idle", 0, 0, NULL, false},
        {"--seed", WT_OPT_UINT, &seed, "N", "synthetic: random seed (default 0)", 0, 18446744073709551615.0, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print JSON (the Python tool's shape)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth classify",
        "Classify GPU telemetry as TRAINING, INFERENCE or IDLE: one window of --samples\n"
        "samples, or --windows consecutive windows decided at job level (k of n).",
        "With --declared, also prints a verdict: MATCH, MISMATCH or INCONCLUSIVE.\n"
        "exit status: 0 ok (MATCH or INCONCLUSIVE), 1 error, 2 usage error, 3 MISMATCH.",
        NULL,
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
    if ((family || wt_opts_get(opts, "--evasion-strength")->seen ||
         wt_opts_get(opts, "--sample-hz")->seen) &&
        (strcmp(backend, "synthetic") || wt_synth_profile_find(profile))) {
        fprintf(stderr, "workloadtruth classify: --evasion-family, --evasion-strength and "
                        "--sample-hz go with --backend synthetic and a simulator profile (see "
                        "`benchmark --list`) (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (wt_opts_get(opts, "--evasion-strength")->seen && !family) {
        fprintf(stderr, "workloadtruth classify: --evasion-strength needs --evasion-family "
                        "(see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (family && !wt_sim_evasion_find(family)) {
        fprintf(stderr,
                "workloadtruth classify: --evasion-family: unknown family '%.40s' (see "
                "`benchmark --list`) (see --help)\n",
                family);
        return WT_EXIT_USAGE;
    }
    if (evasion && (strcmp(backend, "synthetic") || !wt_synth_profile_find(profile))) {
        fprintf(stderr, "workloadtruth classify: --evasion is the Python tool's transform for "
                        "--backend synthetic with its profiles (training, inference, idle); "
                        "simulator profiles take --evasion-family (see --help)\n");
        return WT_EXIT_USAGE;
    }
    size_t k = kagree ? (size_t)kagree : wt_job_default_k((size_t)nwin);
    if (k > nwin || 2 * k <= nwin) {
        fprintf(stderr,
                "workloadtruth classify: --min-agree must be more than half of --windows and "
                "at most --windows (%llu) (see --help)\n",
                nwin);
        return WT_EXIT_USAGE;
    }
    if ((double)samples * (double)nwin > 2e7) {
        fprintf(stderr, "workloadtruth classify: --samples x --windows is limited to 20000000 "
                        "(see --help)\n");
        return WT_EXIT_USAGE;
    }

    const struct wt_classifier *clf = wt_classifier_find(clf_name);
    struct wt_classifier custom;
    struct wt_model *model = NULL;
    struct wt_err err = {{0}};
    struct wt_source *src = NULL;
    struct wt_sample *buf = NULL;
    struct wt_result *res = NULL;
    int status = WT_EXIT_ERROR;
    if (model_path) {
        if (clf != &wt_classifier_physics) {
            fprintf(stderr, "workloadtruth classify: --model goes with the physics classifier "
                            "(see --help)\n");
            return WT_EXIT_USAGE;
        }
        model = malloc(sizeof(*model));
        if (!model || wt_model_load(model, model_path, &err) != WT_OK) {
            fail(model ? err.msg : "out of memory");
            goto out;
        }
        custom = wt_classifier_physics_with(model);
        clf = &custom;
    }

    struct wt_source_config cfg = {0};
    cfg.trace_path = trace;
    cfg.trace_opts.rows_per_tick = (unsigned)per_tick;
    cfg.trace_opts.interval_s = interval;
    cfg.profile = profile;
    cfg.evasion = evasion;
    cfg.evasion_family = family;
    cfg.evasion_strength = strength;
    cfg.sample_hz = sim_hz;
    cfg.seed = seed;
    cfg.interval_s = interval;
    cfg.nvml_lib = nvml_lib;
    if (wt_source_open(backend, &cfg, &src, &err) != WT_OK) {
        fail(err.msg);
        goto out;
    }
    buf = malloc((size_t)samples * sizeof(*buf));
    res = malloc((size_t)nwin * sizeof(*res));
    if (!buf || !res) {
        fail("out of memory");
        goto out;
    }
    struct wt_device_info info;
    if (wt_source_device_info(src, (int)gpu, &info, &err) != WT_OK) {
        fail(err.msg);
        goto out;
    }
    /* peers: the other GPUs of a trace file or of the simulator (not of a
     * stream on standard input, whose GPUs are unknown until it ends) */
    int ngpu = 1;
    struct peer *peers = NULL;
    struct wt_window *pw = NULL;
    size_t npeers = 0;
    int live = !strcmp(src->ops->name, "nvml");
    if (!(trace && !strcmp(trace, "-")) && !live &&
        wt_source_device_count(src, &ngpu, &err) != WT_OK) {
        fail(err.msg);
        goto out;
    }
    if (ngpu > 1) {
        peers = calloc((size_t)ngpu, sizeof(*peers));
        pw = calloc((size_t)ngpu, sizeof(*pw));
        if (!peers || !pw) {
            free(peers);
            free(pw);
            fail("out of memory");
            goto out;
        }
        for (int g2 = 0; g2 < ngpu; g2++)
            if (g2 != (int)gpu)
                peers[npeers++].gpu = g2;
    }
    double t_first = NAN, t_last = NAN;
    for (size_t wi = 0; wi < nwin; wi++) {
        size_t n = 0;
        if (read_window(src, (int)gpu, wi ? NAN : start, buf, (size_t)samples, &n, &err) != WT_OK) {
            fail(err.msg);
            goto out_peers;
        }
        if (n < samples) {
            char msg[400];
            snprintf(msg, sizeof(msg),
                     "%s: GPU %llu has only %zu sample%s%s; --samples asks for %llu%s",
                     trace ? (strcmp(trace, "-") ? trace : "<stdin>") : backend, gpu, n,
                     n == 1 ? "" : "s", isnan(start) ? "" : " from --start", samples,
                     wi ? " per window" : "");
            if (wi) {
                char more[80];
                snprintf(more, sizeof(more), " (window %zu of %llu)", wi + 1, nwin);
                strncat(msg, more, sizeof(msg) - strlen(msg) - 1);
            }
            fail(msg);
            goto out_peers;
        }
        if (wi == 0)
            t_first = buf[0].t_s;
        t_last = buf[n - 1].t_s;
        struct wt_window w = {.s = buf,
                              .n = n,
                              .gpu = (int)gpu,
                              .power_semantics = info.power_semantics,
                              .gpu_model = info.name,
                              .peers = pw,
                              .npeers = 0};
        for (size_t p = 0; p < npeers; p++) {
            if (peer_fill(src, &peers[p], buf[0].t_s, buf[n - 1].t_s, &err) != WT_OK) {
                fail(err.msg);
                goto out_peers;
            }
            if (peers[p].n)
                pw[w.npeers++] = (struct wt_window){.s = peers[p].s,
                                                    .n = peers[p].n,
                                                    .gpu = peers[p].gpu,
                                                    .power_semantics = info.power_semantics,
                                                    .gpu_model = info.name};
        }
        if (wt_classify_window(clf, &w, &res[wi], &err) != WT_OK) {
            fail(err.msg);
            goto out_peers;
        }
    }
    for (size_t p = 0; p < npeers; p++)
        free(peers[p].s);
    free(peers);
    free(pw);
    peers = NULL;
    pw = NULL;
    npeers = 0;
    struct wt_result job;
    const struct wt_result *shown = &res[0];
    enum wt_verdict v = WT_VERDICT_INCONCLUSIVE;
    if (nwin > 1) {
        job_result(res, (size_t)nwin, k, &job);
        job.window_seconds = t_last - t_first;
        shown = &job;
    }
    if (declared != WT_CLASS_NONE)
        v = wt_verdict_for(declared, shown);
    if (json) {
        json_t *j = wt_json_result(shown);
        if (j && nwin > 1) {
            json_t *arr = json_array();
            for (size_t i = 0; i < nwin; i++)
                json_array_append_new(arr, wt_json_result(&res[i]));
            json_t *jb = json_object();
            json_object_set_new(jb, "windows", json_integer((json_int_t)nwin));
            json_object_set_new(jb, "min_agree", json_integer((json_int_t)k));
            json_object_set_new(j, "job", jb);
            json_object_set_new(j, "windows", arr);
        }
        if (j && src->ops->processes) {
            /* who runs on the GPU: pid, memory, user, container, pod, Slurm job */
            struct wt_proc procs[64];
            size_t np = 0;
            struct wt_err perr;
            if (wt_source_processes(src, (int)gpu, procs, 64, &np, &perr) == WT_OK)
                json_object_set_new(j, "processes", wt_json_processes(procs, np));
        }
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
        if (nwin > 1)
            for (size_t i = 0; i < nwin; i++)
                printf("window %-6zu: %-9s %.2f\n", i + 1, wt_class_name(res[i].cls),
                       res[i].confidence);
        wt_text_result(stdout, shown);
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
    goto out;
out_peers:
    for (size_t p = 0; p < npeers; p++)
        free(peers[p].s);
    free(peers);
    free(pw);
out:
    free(res);
    free(buf);
    free(model);
    wt_source_close(src);
    return status;
}
