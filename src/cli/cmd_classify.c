/* `workloadtruth classify`: windows of telemetry from a source, classified and
 * printed as the Python tool prints them; with --declared, also a verdict and
 * a distinct exit code on MISMATCH.  With --windows N it classifies N
 * consecutive windows and decides at job level (k of n, verdict.h).  With
 * --log-dir it also appends the job-level result to an audit log (what the
 * Slurm plugin runs at job end, with --job-id).
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classifier.h"
#include "classify/model.h"
#include "classify/run.h"
#include "classify/verdict.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "output/output.h"
#include "telemetry/simulate.h"
#include "telemetry/source.h"

#define MAX_SAMPLES 1000000
#define MAX_WINDOWS 10000

static int fail(const char *msg)
{
    fprintf(stderr, "workloadtruth classify: %s\n", msg);
    return WT_EXIT_ERROR;
}

int wt_cmd_classify(int argc, char **argv)
{
    static const char *const backends[] = {"auto", "nvml", "synthetic", "replay", NULL};
    const char *backend = "auto", *profile = "training", *trace = NULL, *declared_s = NULL;
    const char *clf_name = wt_classifier_default()->name, *model_path = NULL;
    const char *family = NULL, *nvml_lib = NULL, *log_dir = NULL, *job_id = NULL, *peers = "job";
    unsigned long long gpu = 0, samples = 10, seed = 0, per_tick = 0, nwin = 1, kagree = 0;
    double interval = 1.0, start = NAN, strength = -1, sim_hz = 10;
    bool json = false, evasion = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--backend", WT_OPT_CHOICE, &backend, "B", "telemetry source: auto (default: nvml when a driver is present), nvml, synthetic, replay", 0, 0, backends, false},
        {"--profile", WT_OPT_CHOICE, &profile, "P", "synthetic profile (default training; see `benchmark --list`)", 0, 0, wt_opts_profile_names(), false},
        {"--evasion", WT_OPT_FLAG, &evasion, NULL, "synthetic: apply the Python tool's evasion transform", 0, 0, NULL, false},
        {"--evasion-family", WT_OPT_STRING, &family, "NAME", "simulator: evasion family applied to a training profile (power-cap, clock-lock: to any profile)", 0, 0, NULL, false},
        {"--evasion-strength", WT_OPT_DOUBLE, &strength, "S", "simulator: evasion strength 0..1 (default: the family's)", 0, 1, NULL, false},
        {"--sample-hz", WT_OPT_DOUBLE, &sim_hz, "HZ", "simulator: samples per second (default 10)", 0.1, 100, NULL, false},
        {"--gpu-index", WT_OPT_UINT, &gpu, "N", "GPU to classify (default 0)", 0, WT_MAX_GPUS - 1, NULL, false},
        {"--samples", WT_OPT_UINT, &samples, "N", "samples per window; live GPUs: polls per window (default 10; simulator profiles: 30 s of samples)", 2, MAX_SAMPLES, NULL, false},
        {"--windows", WT_OPT_UINT, &nwin, "N", "classify N consecutive windows and decide at job level (default 1)", 1, MAX_WINDOWS, NULL, false},
        {"--min-agree", WT_OPT_UINT, &kagree, "K", "job level: windows that must agree (default: a majority of --windows)", 1, MAX_WINDOWS, NULL, false},
        {"--interval", WT_OPT_DOUBLE, &interval, "S", "seconds between live samples; nvidia-smi CSV without timestamps: seconds per tick (default 1; synthetic: 1 s, a simulator profile: --sample-hz)", 0.001, 3600, NULL, false},
        {"--trace", WT_OPT_STRING, &trace, "FILE", "replay a trace or nvidia-smi CSV ('-' = stdin); implies --backend replay", 0, 0, NULL, false},
        {"--start", WT_OPT_DOUBLE, &start, "SECONDS", "skip samples before this t_s (trace time; the Python tool's synthetic profiles start at 1, the simulator's at 0)", -1e12, 1e12, NULL, false},
        {"--gpus-per-tick", WT_OPT_UINT, &per_tick, "N", "nvidia-smi CSV without an index column: rows per tick (default: detect)", 1, WT_MAX_GPUS, NULL, false},
        {"--peers", WT_OPT_CHOICE, &peers, "job|all|none", "the trace's or simulator's other GPUs read beside the GPU: those of its job where the trace's owners column names it, else all (job; default), all, or none (they ran unrelated jobs)", 0, 0, wt_cli_peer_choices, false},
        {"--classifier", WT_OPT_CHOICE, &clf_name, "NAME", "classifier (default: physics)", 0, 0, wt_cli_classifier_names(), false},
        {"--model", WT_OPT_STRING, &model_path, "FILE", "physics classifier: use this model instead of the built-in one", 0, 0, NULL, false},
        {"--nvml-lib", WT_OPT_STRING, &nvml_lib, "PATH", "NVML library to load (default: $WT_NVML_LIB, else libnvidia-ml.so.1)", 0, 0, NULL, false},
        {"--declared", WT_OPT_STRING, &declared_s, "TYPE", "the owner's declared type: training, inference or idle", 0, 0, NULL, false},
        {"--seed", WT_OPT_UINT, &seed, "N", "synthetic: random seed (default 0)", 0, 18446744073709551615.0, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print JSON (the Python tool's shape)", 0, 0, NULL, false},
        {"--log-dir", WT_OPT_STRING, &log_dir, "DIR", "append the job-level result as a class record to the audit log in DIR (created when neither log nor key exists)", 0, 0, NULL, false},
        {"--job-id", WT_OPT_STRING, &job_id, "ID", "with --log-dir: the scheduler's job id, recorded as evidence slurm_job_id", 0, 0, NULL, false},
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
                    "workloadtruth classify: --declared: invalid choice '%s' "
                    "(choose from training, inference, idle) (see --help)\n",
                    WT_SHOWN(declared_s));
            return WT_EXIT_USAGE;
        }
    }
    if (log_dir && !*log_dir) {
        /* refused before classifying: found at the append, it exited 1 and a
         * MISMATCH lost its exit status 3 */
        fprintf(stderr, "workloadtruth classify: --log-dir: empty directory name (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (job_id) {
        size_t n = strlen(job_id);
        if (!log_dir || n == 0 || n > 64 ||
            strspn(job_id, "0123456789_.abcdefghijklmnopqrstuvwxyz"
                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ-") != n) {
            fprintf(stderr, "workloadtruth classify: --job-id needs --log-dir and is 1 to 64 "
                            "letters, digits, '.', '_' or '-' (see --help)\n");
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
    if (nvml_lib && strcmp(backend, "nvml") && strcmp(backend, "auto")) {
        /* it was ignored: the user thought a library was tried */
        fprintf(stderr, "workloadtruth classify: --nvml-lib goes with --backend nvml or auto "
                        "(see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (wt_opts_profile_fits(&help, opts, backend))
        return WT_EXIT_USAGE;
    if (wt_opts_get(opts, "--gpus-per-tick")->seen && strcmp(backend, "replay")) {
        /* it was ignored: the user thought it applied */
        fprintf(stderr, "workloadtruth classify: --gpus-per-tick goes with --trace (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if ((family || wt_opts_get(opts, "--evasion-strength")->seen ||
         wt_opts_get(opts, "--sample-hz")->seen) &&
        (strcmp(backend, "synthetic") || wt_synth_profile_find(profile))) {
        fprintf(stderr, "workloadtruth classify: --evasion-family, --evasion-strength and "
                        "--sample-hz go with --backend synthetic and a simulator profile (see "
                        "`benchmark --list`); to inject sleeps into a recorded trace's "
                        "training, use `eval --evasion-family` (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (wt_opts_get(opts, "--evasion-strength")->seen && (!family || !strcmp(family, "none"))) {
        fprintf(stderr, "workloadtruth classify: --evasion-strength needs --evasion-family "
                        "(not none) (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (family && strcmp(family, "none") && !wt_sim_evasion_find(family)) {
        fprintf(stderr,
                "workloadtruth classify: --evasion-family: unknown family '%s' (see "
                "`benchmark --list`) (see --help)\n",
                WT_SHOWN(family));
        return WT_EXIT_USAGE;
    }
    if (!wt_opts_get(opts, "--samples")->seen && !strcmp(backend, "synthetic") &&
        !wt_synth_profile_find(profile)) {
        /* a simulator profile samples at --sample-hz: 10 samples would be a
         * window too short to judge (UNKNOWN), so 30 s of them */
        double n = ceil(30.0 * sim_hz);
        samples = n < 10 ? 10 : (unsigned)n;
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
    /* the simulator steps in 10 ms whatever the sample rate: 1e6 simulated
     * seconds took 9 s here; 2e7 samples at 0.1 Hz would have taken half an
     * hour */
    if (!strcmp(backend, "synthetic") && !wt_synth_profile_find(profile) &&
        (double)samples * (double)nwin / sim_hz > 1e6) {
        fprintf(stderr, "workloadtruth classify: --samples x --windows / --sample-hz is limited "
                        "to 1000000 simulated seconds (see --help)\n");
        return WT_EXIT_USAGE;
    }

    const struct wt_classifier *clf = wt_classifier_find(clf_name);
    struct wt_classifier custom;
    struct wt_model *model = NULL;
    struct wt_err err = {{0}};
    struct wt_run_outcome run = {0};
    json_t *where = NULL; /* the audit-log record (--log-dir) */
    int status = WT_EXIT_ERROR;
    if (model_path && clf != &wt_classifier_physics) {
        fprintf(stderr, "workloadtruth classify: --model goes with the physics classifier "
                        "(see --help)\n");
        return WT_EXIT_USAGE;
    }
    /* a trace's or the synthetic source's window is --samples samples: too
     * few for the classifier is known now, a usage error as in watch (a
     * live GPU's poll may bring several readings: judged when read) */
    if (strcmp(backend, "nvml") && strcmp(backend, "auto") && samples < clf->min_samples) {
        fprintf(stderr,
                "workloadtruth classify: --samples %llu: the %s classifier needs at least %zu "
                "samples per window (see --help)\n",
                samples, clf->name, clf->min_samples);
        status = WT_EXIT_USAGE;
        goto out;
    }
    /* a simulator profile so sparse that the last max_seconds of a window
     * (what physics scores) hold fewer samples than it needs: every window
     * UNKNOWN, whatever --samples (0.1 Hz: 3 samples in 30 s) */
    if (!strcmp(backend, "synthetic") && !wt_synth_profile_find(profile) && clf->max_seconds > 0 &&
        floor(clf->max_seconds * sim_hz + 1e-9) < (double)clf->min_samples) {
        fprintf(stderr,
                "workloadtruth classify: --sample-hz %g: the %s classifier reads a window's "
                "last %g s, which hold %g samples at that rate; it needs %zu (--sample-hz "
                "%.3g or more) (see --help)\n",
                sim_hz, clf->name, clf->max_seconds, floor(clf->max_seconds * sim_hz + 1e-9),
                clf->min_samples, (double)clf->min_samples / clf->max_seconds);
        status = WT_EXIT_USAGE;
        goto out;
    }
    if (model_path) {
        /* read after the usage checks (a missing --model with --samples 2
         * was exit 1, "cannot open", not the usage error it is) */
        model = malloc(sizeof(*model));
        if (!model || wt_model_load(model, model_path, &err) != WT_OK) {
            fail(model ? err.msg : "out of memory");
            goto out;
        }
        custom = wt_classifier_physics_with(model);
        clf = &custom;
    }

    struct wt_run_request rq = {0};
    rq.backend = backend;
    rq.cfg.trace_path = trace;
    rq.cfg.trace_opts.rows_per_tick = (unsigned)per_tick;
    rq.cfg.trace_opts.interval_s = interval;
    rq.cfg.profile = profile;
    rq.cfg.evasion = evasion;
    rq.cfg.evasion_family = family;
    rq.cfg.evasion_strength = strength;
    rq.cfg.sample_hz = sim_hz;
    rq.cfg.seed = seed;
    rq.cfg.interval_s = interval;
    rq.cfg.nvml_lib = nvml_lib;
    rq.gpu = (int)gpu;
    rq.samples = (size_t)samples;
    rq.windows = (size_t)nwin;
    rq.min_agree = k;
    rq.start = start;
    rq.clf = clf;
    rq.alone = !strcmp(peers, "none");
    rq.all_peers = !strcmp(peers, "all");
    if (wt_run_classify(&rq, &run, &err) != WT_OK) {
        fail(err.msg);
        goto out;
    }
    const struct wt_result *res = run.w;
    const struct wt_result *shown = &run.job;
    if (run.n < run.requested) {
        char left[64] = "";
        if (run.leftover)
            snprintf(left, sizeof(left), " (and %zu sample%s, too few for another)", run.leftover,
                     run.leftover == 1 ? "" : "s");
        fprintf(stderr,
                "workloadtruth classify: warning: %s ended after %zu of %llu windows%s; the job "
                "is decided on those, still needing %zu to agree\n",
                !trace               ? backend
                : strcmp(trace, "-") ? WT_CLEAN(trace)
                                     : "standard input",
                run.n, nwin, left, run.k);
    }
    enum wt_verdict v = WT_VERDICT_INCONCLUSIVE;
    if (declared != WT_CLASS_NONE)
        v = wt_verdict_for(declared, shown);
    if (log_dir) {
        char source[256];
        wt_source_label(backend, trace, profile, source, sizeof(source));
        json_t *extra = json_object();
        if (extra && job_id)
            json_object_set_new(extra, "slurm_job_id", json_string(job_id));
        if (extra && declared != WT_CLASS_NONE) {
            json_object_set_new(extra, "declared", json_string(wt_class_lname(declared)));
            json_object_set_new(extra, "verdict", json_string(wt_verdict_name(v)));
        }
        char model_id[17] = "";
        if (model)
            snprintf(model_id, sizeof(model_id), "%s", model->file_id); /* as watch names it */
        struct wt_run_log_opts lo = {source, extra, 30, "workloadtruth classify", model_id, NULL};
        int lrc = extra ? wt_run_log_result(&run, log_dir, &lo, &where, &err)
                        : wt_errf(&err, WT_ENOMEM, "out of memory");
        json_decref(extra);
        if (lrc != WT_OK) {
            /* the verdict too: a job-level MISMATCH of an UNKNOWN job (its
             * windows split between undeclared classes) said only
             * "classified UNKNOWN" */
            char verdict[64] = "";
            if (declared != WT_CLASS_NONE)
                snprintf(verdict, sizeof(verdict), " (declared %s: %s)", wt_class_lname(declared),
                         wt_verdict_name(v));
            fprintf(stderr,
                    where ? "workloadtruth classify: classified %s%s: %s\n"
                          : "workloadtruth classify: classified %s%s, but could not append to "
                            "the audit log: %s\n",
                    wt_class_name(shown->cls), verdict, err.msg);
            goto out;
        }
    }
    /* a MISMATCH exits 3 also when the output cannot be written: that is
     * what a scheduler hook acts on */
    int mismatch = declared != WT_CLASS_NONE && v == WT_VERDICT_MISMATCH;
    if (json) {
        json_t *j = wt_json_run(&run, declared, v);
        if (j && where)
            json_object_set_new(j, "audit_log", json_incref(where));
        int prc2 = wt_json_print(stdout, j);
        json_decref(j);
        if (prc2) {
            wt_cli_stdout_failed("classify");
            status = mismatch ? WT_EXIT_MISMATCH : WT_EXIT_ERROR;
            goto out;
        }
    } else {
        if (nwin > 1)
            for (size_t i = 0; i < run.n; i++)
                printf("window %-7zu: %-9s %.2f\n", i + 1, wt_class_name(res[i].cls),
                       res[i].confidence);
        wt_text_result(stdout, shown);
        if (declared != WT_CLASS_NONE) {
            printf("declared      : %s\n", wt_class_lname(declared));
            printf("verdict       : %s\n", wt_verdict_name(v));
        }
        if (where)
            printf("audit log     : %s (record %lld)\n",
                   WT_CLEAN(json_string_value(json_object_get(where, "log"))),
                   (long long)json_integer_value(json_object_get(where, "seq")));
    }
    if (fflush(stdout) != 0) {
        wt_cli_stdout_failed("classify");
        status = mismatch ? WT_EXIT_MISMATCH : WT_EXIT_ERROR;
        goto out;
    }
    status = mismatch ? WT_EXIT_MISMATCH : WT_EXIT_OK;
out:
    json_decref(where);
    wt_run_free(&run);
    free(model);
    return status;
}
