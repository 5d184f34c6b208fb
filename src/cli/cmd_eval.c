/* `workloadtruth eval`: scores a classifier on labelled traces with the trace
 * format's window rule.  The harness every accuracy claim comes from.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "eval/eval.h"
#include "output/output.h"

int wt_cmd_eval(int argc, char **argv)
{
    struct wt_strlist paths = {0};
    double window = 30, interval = 1;
    unsigned long long per_tick = 0;
    const char *clf_name = wt_classifier_default()->name;
    bool json = false, per_file = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--traces", WT_OPT_LIST, &paths, "DIR|FILE", "trace files, or directories searched for *.csv", 0, 0, NULL, false},
        {"--window", WT_OPT_DOUBLE, &window, "SECONDS", "window length (default 30)", 0.01, 86400, NULL, false},
        {"--classifier", WT_OPT_CHOICE, &clf_name, "NAME", "classifier (default: the first listed)", 0, 0, wt_cli_classifier_names(), false},
        {"--gpus-per-tick", WT_OPT_UINT, &per_tick, "N", "nvidia-smi CSV without an index column: rows per tick (default: detect)", 1, WT_MAX_GPUS, NULL, false},
        {"--interval", WT_OPT_DOUBLE, &interval, "S", "nvidia-smi CSV without timestamps: seconds per tick (default 1)", 0.001, 3600, NULL, false},
        {"--per-file", WT_OPT_FLAG, &per_file, NULL, "text output: also one row per file", 0, 0, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print JSON (totals, per class, confusion, per source, per file)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth eval",
        "Score a classifier on labelled traces: each GPU's stream is cut into --window\n"
        "second windows; a window is scored when >= 80% of its rows carry one label.",
        "Paths may also be given without --traces.",
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, &paths);
    if (prc) {
        wt_strlist_free(&paths);
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    }
    if (paths.n == 0) {
        fprintf(stderr, "workloadtruth eval: no traces given: --traces DIR|FILE... (see --help)\n");
        wt_strlist_free(&paths);
        return WT_EXIT_USAGE;
    }
    struct wt_eval_opts o = {0};
    o.window_s = window;
    o.clf = wt_classifier_find(clf_name);
    o.trace_opts.rows_per_tick = (unsigned)per_tick;
    o.trace_opts.interval_s = interval;
    struct wt_eval_report rep;
    struct wt_err err = {{0}};
    int status = WT_EXIT_OK;
    wt_eval_init(&rep, &o);
    for (int i = 0; i < paths.n; i++)
        if (wt_eval_add_path(&rep, paths.v[i], &o, &err) != WT_OK) {
            fprintf(stderr, "workloadtruth eval: %s\n", err.msg);
            status = WT_EXIT_ERROR;
            goto out;
        }
    if (rep.nfiles == 0) {
        fprintf(stderr, "workloadtruth eval: no trace files found\n");
        status = WT_EXIT_ERROR;
        goto out;
    }
    struct wt_eval_counts tot;
    wt_eval_total(&rep, &tot);
    if (tot.scored == 0)
        status = WT_EXIT_ERROR; /* reported after the output, which says why */
    if (json) {
        json_t *j = wt_json_eval(&rep);
        int rc = wt_json_print(stdout, j);
        json_decref(j);
        if (rc) {
            fprintf(stderr, "workloadtruth eval: cannot write JSON output\n");
            status = WT_EXIT_ERROR;
        }
    } else {
        wt_text_eval(stdout, &rep, per_file);
    }
    if (fflush(stdout) != 0)
        status = WT_EXIT_ERROR;
    if (tot.scored == 0)
        fprintf(stderr,
                "workloadtruth eval: no window could be scored (%zu unlabelled or mixed, "
                "%zu short); labels cover too little of each --window\n",
                tot.skipped_unlabelled, tot.skipped_short);
out:
    wt_eval_free(&rep);
    wt_strlist_free(&paths);
    return status;
}
