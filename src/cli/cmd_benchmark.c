/* `workloadtruth benchmark`: the Python tool's synthetic benchmark, scored
 * with any classifier, deterministic for a given --seed.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "eval/benchmark.h"
#include "output/output.h"

int wt_cmd_benchmark(int argc, char **argv)
{
    static const char *const suites[] = {"seed", NULL};
    unsigned long long trials = 50, window = 30, seed = 0;
    const char *suite = "seed";
    const char *clf_name = wt_classifier_default()->name;
    bool json = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--trials", WT_OPT_UINT, &trials, "N", "windows per cell (default 50)", 1, 100000, NULL, false},
        {"--window", WT_OPT_UINT, &window, "N", "samples per window (default 30)", 2, 100000, NULL, false},
        {"--seed", WT_OPT_UINT, &seed, "N", "random seed; same seed, same result (default 0)", 0, 18446744073709551615.0, NULL, false},
        {"--suite", WT_OPT_CHOICE, &suite, "NAME", "benchmark suite: seed (the Python tool's; default)", 0, 0, suites, false},
        {"--classifier", WT_OPT_CHOICE, &clf_name, "NAME", "classifier (default: the first listed)", 0, 0, wt_cli_classifier_names(), false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print JSON (the Python tool's shape)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth benchmark",
        "Score a classifier on synthetic telemetry: 3 profiles (training, inference, idle)\n"
        "x clean/evasion, --trials windows of --window samples each.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if ((double)trials * (double)window > 1e8) {
        fprintf(stderr, "workloadtruth benchmark: --trials x --window is limited to 100000000 "
                        "samples per cell (see --help)\n");
        return WT_EXIT_USAGE;
    }
    const struct wt_classifier *clf = wt_classifier_find(clf_name);
    struct wt_bench_report rep;
    struct wt_err err = {{0}};
    if (wt_benchmark_seed(clf, (unsigned)trials, (unsigned)window, seed, &rep, &err) != WT_OK) {
        fprintf(stderr, "workloadtruth benchmark: %s\n", err.msg);
        return WT_EXIT_ERROR;
    }
    if (json) {
        json_t *j = wt_json_benchmark(&rep);
        int rc = wt_json_print(stdout, j);
        json_decref(j);
        if (rc) {
            fprintf(stderr, "workloadtruth benchmark: cannot write JSON output\n");
            return WT_EXIT_ERROR;
        }
    } else {
        wt_text_benchmark(stdout, &rep);
    }
    return fflush(stdout) == 0 ? WT_EXIT_OK : WT_EXIT_ERROR;
}
