/* `workloadtruth benchmark`: the Python tool's synthetic benchmark (`--suite
 * seed`, its flags and JSON shape), and the simulator's suites (`sim`: every
 * workload profile; `evasion`: every evasion family at several strengths,
 * with the throughput an evader gives up).  Deterministic for a given --seed.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/model.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "eval/benchmark.h"
#include "output/output.h"
#include "telemetry/simulate.h"
#include "telemetry/source.h"

static void list(void)
{
    size_t n;
    printf(
        "synthetic profiles of the Python tool (suite seed; add --evasion for its transform):\n");
    for (const struct wt_synth_profile *const *p = wt_synth_profiles(); *p; p++)
        printf("  %-22s %s\n", (*p)->name, "the Python tool's profile");
    const struct wt_sim_profile_info *pr = wt_sim_profiles(&n);
    printf("\nsimulator profiles (suite sim; classify --backend synthetic --profile NAME):\n");
    for (size_t i = 0; i < n; i++)
        printf("  %-22s %-9s %s\n", pr[i].name, wt_class_name(pr[i].cls), pr[i].description);
    const struct wt_sim_evasion_info *ev = wt_sim_evasions(&n);
    printf("\nevasion families (suite evasion; classify --evasion-family NAME "
           "[--evasion-strength S]):\n");
    for (size_t i = 0; i < n; i++)
        printf("  %-22s default %.2f  %s\n", ev[i].name, ev[i].default_strength, ev[i].description);
}

int wt_cmd_benchmark(int argc, char **argv)
{
    static const char *const suites[] = {"seed", "sim", "evasion", NULL};
    unsigned long long trials = 50, window = 30, seed = 0;
    double seconds = 30, hz = 10;
    const char *suite = "seed", *model_path = NULL;
    const char *clf_name = wt_classifier_default()->name;
    bool json = false, want_list = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--trials", WT_OPT_UINT, &trials, "N", "windows per cell (default 50)", 1, 100000, NULL, false},
        {"--window", WT_OPT_UINT, &window, "N", "suite seed: samples per window (default 30)", 2, 100000, NULL, false},
        {"--seconds", WT_OPT_DOUBLE, &seconds, "S", "suites sim, evasion: window length in seconds (default 30)", 1, 3600, NULL, false},
        {"--sample-hz", WT_OPT_DOUBLE, &hz, "HZ", "suites sim, evasion: samples per second (default 10)", 0.1, 100, NULL, false},
        {"--seed", WT_OPT_UINT, &seed, "N", "random seed; same seed, same result (default 0)", 0, 18446744073709551615.0, NULL, false},
        {"--suite", WT_OPT_CHOICE, &suite, "NAME", "seed (the Python tool's; default), sim, evasion", 0, 0, suites, false},
        {"--classifier", WT_OPT_CHOICE, &clf_name, "NAME", "classifier (default: physics)", 0, 0, wt_cli_classifier_names(), false},
        {"--model", WT_OPT_STRING, &model_path, "FILE", "physics classifier: use this model instead of the built-in one", 0, 0, NULL, false},
        {"--list", WT_OPT_FLAG, &want_list, NULL, "list the profiles and evasion families, then exit", 0, 0, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print JSON (suite seed: the Python tool's shape)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth benchmark",
        "Score a classifier on synthetic telemetry.  Suite seed: the Python tool's 3\n"
        "profiles x clean/evasion, --trials windows of --window samples.  Suite sim: every\n"
        "simulator profile.  Suite evasion: every evasion family at strengths 0.25, 0.5,\n"
        "0.75, 1 and its default, with the throughput the evader gives up.",
        NULL,
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if (want_list) {
        list();
        return WT_EXIT_OK;
    }
    if (strcmp(suite, "seed") && wt_opts_get(opts, "--window")->seen) {
        fprintf(stderr, "workloadtruth benchmark: --window (samples) is for --suite seed; the "
                        "sim and evasion suites take --seconds (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (!strcmp(suite, "seed") &&
        (wt_opts_get(opts, "--seconds")->seen || wt_opts_get(opts, "--sample-hz")->seen)) {
        fprintf(stderr, "workloadtruth benchmark: --seconds and --sample-hz are for the sim and "
                        "evasion suites; --suite seed takes --window (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if ((double)trials * (double)window > 1e8) {
        fprintf(stderr, "workloadtruth benchmark: --trials x --window is limited to 100000000 "
                        "samples per cell (see --help)\n");
        return WT_EXIT_USAGE;
    }
    const struct wt_classifier *clf = wt_classifier_find(clf_name);
    struct wt_classifier custom;
    struct wt_model *model = NULL;
    struct wt_bench_report *rep = malloc(sizeof(*rep));
    struct wt_err err = {{0}};
    int status = WT_EXIT_ERROR, rc;
    if (!rep) {
        fprintf(stderr, "workloadtruth benchmark: out of memory\n");
        return WT_EXIT_ERROR;
    }
    if (model_path) {
        if (clf != &wt_classifier_physics) {
            fprintf(stderr, "workloadtruth benchmark: --model goes with the physics classifier "
                            "(see --help)\n");
            free(rep);
            return WT_EXIT_USAGE;
        }
        model = malloc(sizeof(*model));
        if (!model || wt_model_load(model, model_path, &err) != WT_OK) {
            fprintf(stderr, "workloadtruth benchmark: %s\n", model ? err.msg : "out of memory");
            goto out;
        }
        custom = wt_classifier_physics_with(model);
        clf = &custom;
    }
    if (!strcmp(suite, "seed"))
        rc = wt_benchmark_seed(clf, (unsigned)trials, (unsigned)window, seed, rep, &err);
    else
        rc = wt_benchmark_sim(clf, suite, (unsigned)trials, seconds, hz, seed, rep, &err);
    if (rc != WT_OK) {
        fprintf(stderr, "workloadtruth benchmark: %s\n", err.msg);
        goto out;
    }
    if (json) {
        json_t *j = wt_json_benchmark(rep);
        int jrc = wt_json_print(stdout, j);
        json_decref(j);
        if (jrc) {
            fprintf(stderr, "workloadtruth benchmark: cannot write JSON output\n");
            goto out;
        }
    } else {
        wt_text_benchmark(stdout, rep);
    }
    status = fflush(stdout) == 0 ? WT_EXIT_OK : WT_EXIT_ERROR;
out:
    free(model);
    free(rep);
    return status;
}
