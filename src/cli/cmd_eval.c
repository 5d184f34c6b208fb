/* `workloadtruth eval`: scores a classifier on labelled traces with the trace
 * format's window rule.  The harness every accuracy claim comes from.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/model.h"
#include "features/sleep_inject.h"
#include "features/transform.h"
#include "telemetry/simulate.h"

#include "cli/cli.h"
#include "cli/opts.h"
#include "eval/eval.h"
#include "eval/trainset.h"
#include "output/output.h"
#include "util/fileio.h"

int wt_cmd_eval(int argc, char **argv)
{
    struct wt_strlist paths = {0};
    double window = 30, interval = 1;
    unsigned long long per_tick = 0;
    const char *clf_name = wt_classifier_default()->name;
    bool json = false, per_file = false;
    double resample = 0;
    long long train_sim = -1;
    unsigned long long train_sim_u = 0, train_py_u = 0, alone_u = 1, depth_u = 0, rounds_u = 0,
                       retime_u = 0, sim_seed_u = 0;
    double sim_weight = wt_train_default.sim_weight;
    const char *columns = NULL, *dump_path = NULL, *holdout = NULL, *features = NULL;
    const char *model_path = NULL, *family = NULL, *missing = "side", *peers = "job";
    double strength = -1;
    static const char *const families[] = {"duty-fixed", "duty-random", NULL};
    struct wt_sleep_opts sleep = {0};
    struct wt_model *model = NULL;
    struct wt_classifier custom;
    enum wt_feature flist[WT_NFEATURES];
    static const char *const holdouts[] = {"source", "gpu_model", NULL};
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--traces", WT_OPT_LIST, &paths, "DIR|FILE", "trace files, or directories searched for *.csv", 0, 0, NULL, false},
        {"--window", WT_OPT_DOUBLE, &window, "SECONDS", "window length (default 30; the physics classifier: 5 or more)", 0.01, 86400, NULL, false},
        {"--classifier", WT_OPT_CHOICE, &clf_name, "NAME", "classifier (default: physics)", 0, 0, wt_cli_classifier_names(), false},
        {"--gpus-per-tick", WT_OPT_UINT, &per_tick, "N", "nvidia-smi CSV without an index column: rows per tick (default: detect)", 1, WT_MAX_GPUS, NULL, false},
        {"--interval", WT_OPT_DOUBLE, &interval, "S", "nvidia-smi CSV without timestamps: seconds per tick (default 1)", 0.001, 3600, NULL, false},
        {"--resample", WT_OPT_DOUBLE, &resample, "HZ", "poll the traces at HZ instead of their native rate (e.g. 1)", 0.001, 1000, NULL, false},
        {"--columns", WT_OPT_STRING, &columns, "LIST", "keep only these trace columns, e.g. power_w or util_gpu_pct,power_w", 0, 0, NULL, false},
        {"--dump-features", WT_OPT_STRING, &dump_path, "FILE", "write every scored window's features as CSV to FILE", 0, 0, NULL, false},
        {"--holdout", WT_OPT_CHOICE, &holdout, "BY", "leave one out: train the physics model without each source (or gpu_model) and score it", 0, 0, holdouts, false},
        {"--features", WT_OPT_STRING, &features, "LIST", "--holdout: the features the model may use (default: the physics set)", 0, 0, NULL, false},
        {"--simulate", WT_OPT_UINT, &train_sim_u, "N", "--holdout: simulator windows per profile/evasion cell added to each fold's training (default 60; 0: real traces only)", 0, 1000, NULL, false},
        {"--sim-weight", WT_OPT_DOUBLE, &sim_weight, "W", "--holdout: the simulator's windows weigh W times what a source of as many windows would (default 0.4)", 0.01, 100, NULL, false},
        {"--python-windows", WT_OPT_UINT, &train_py_u, "N", "--holdout: windows per Python-profile cell added to each fold's training (default 40; 0: none)", 0, 10000, NULL, false},
        {"--model", WT_OPT_STRING, &model_path, "FILE", "physics classifier: use this model instead of the built-in one", 0, 0, NULL, false},
        {"--alone-views", WT_OPT_UINT, &alone_u, "0|1", "--holdout: also learn each multi-GPU window without its peers (default 1)", 0, 1, NULL, false},
        {"--retime", WT_OPT_UINT, &retime_u, "0|1", "--holdout: learn each trace window at the native rate as another poller's clock would time it (default 0)", 0, 1, NULL, false},
        {"--sim-seed", WT_OPT_UINT, &sim_seed_u, "N", "--holdout: draw the simulator windows of each fold's training with this seed (default 0, the shipped model's)", 0, 4294967295.0, NULL, false},
        {"--missing", WT_OPT_CHOICE, &missing, "side|stop", "--holdout: a split on a feature the window does not measure: side (learnt; default) or stop (no evidence either way), as train --missing", 0, 0, wt_cli_missing_choices, false},
        {"--depth", WT_OPT_UINT, &depth_u, "N", "--holdout: tree depth of each fold's model (default 3)", 1, 3, NULL, false},
        {"--rounds", WT_OPT_UINT, &rounds_u, "N", "--holdout: boosting rounds of each fold's model (default 300)", 1, WT_MODEL_MAX_TREES, NULL, false},
        {"--evasion-family", WT_OPT_CHOICE, &family, "NAME", "inject this sleep-injection evasion into the recorded training before scoring (duty-fixed or duty-random)", 0, 0, families, false},
        {"--evasion-strength", WT_OPT_DOUBLE, &strength, "S", "--evasion-family: mean share of time asleep, 0..0.95 (default 0.5)", 0, WT_SLEEP_MAX_ASLEEP, NULL, false},
        {"--peers", WT_OPT_CHOICE, &peers, "job|all|none", "each GPU read beside its file's other GPUs of its job where the file's owners column names it, else all (job; default), beside all, or alone (none: a host whose GPUs ran unrelated jobs)", 0, 0, wt_cli_peer_choices, false},
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
        NULL,
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
    if (model_path && o.clf != &wt_classifier_physics) {
        fprintf(stderr, "workloadtruth eval: --model goes with the physics classifier "
                        "(see --help)\n");
        wt_strlist_free(&paths);
        return WT_EXIT_USAGE;
    }
    o.trace_opts.rows_per_tick = (unsigned)per_tick;
    o.trace_opts.interval_s = interval;
    o.resample_hz = resample;
    o.alone = !strcmp(peers, "none");
    o.all_peers = !strcmp(peers, "all");
    if (wt_opts_get(opts, "--simulate")->seen)
        train_sim = (long long)train_sim_u;
    o.train_sim = (int)train_sim;
    o.train_alone = wt_opts_get(opts, "--alone-views")->seen ? (int)alone_u : -1;
    o.train_py = wt_opts_get(opts, "--python-windows")->seen ? (int)train_py_u : -1;
    o.train_depth = (int)depth_u;
    o.train_rounds = (int)rounds_u;
    o.train_retime = (int)retime_u;
    o.train_sim_seed = sim_seed_u;
    o.train_sim_weight = sim_weight;
    o.train_missing_stop = wt_cli_missing_stop(missing);
    struct wt_eval_report rep;
    struct wt_err err = {{0}};
    int status = WT_EXIT_OK;
    if (wt_opts_get(opts, "--evasion-strength")->seen && !family) {
        fprintf(stderr, "workloadtruth eval: --evasion-strength goes with --evasion-family "
                        "(see --help)\n");
        goto usage;
    }
    if (family) {
        sleep.asleep = strength >= 0 ? strength : wt_sim_evasion_find(family)->default_strength;
        sleep.period_s = WT_SIM_DUTY_PERIOD_S;
        sleep.random = !strcmp(family, "duty-random");
        o.sleep = &sleep;
    }
    /* before their values are read: "--features x" without --holdout was
     * "unknown feature 'x'" */
    static const char *const train_only[] = {
        "--features", "--simulate", "--sim-weight", "--python-windows", "--alone-views",
        "--retime",   "--sim-seed", "--missing",    "--depth",          "--rounds",
        NULL};
    for (int i = 0; train_only[i]; i++)
        if (!holdout && wt_opts_get(opts, train_only[i])->seen) {
            fprintf(stderr, "workloadtruth eval: %s goes with --holdout (see --help)\n",
                    train_only[i]);
            goto usage;
        }
    if (columns && wt_columns_parse(columns, &o.columns, &err) != WT_OK) {
        fprintf(stderr, "workloadtruth eval: --columns: %s (see --help)\n", err.msg);
        goto usage;
    }
    if (features) {
        if (wt_features_parse(features, flist, &o.train_nfeatures, &err) != WT_OK) {
            fprintf(stderr, "workloadtruth eval: --features: %s (see --help)\n", err.msg);
            goto usage;
        }
        o.train_features = flist;
    }
    if (dump_path && !*dump_path) {
        fprintf(stderr, "workloadtruth eval: --dump-features: empty file name (see --help)\n");
        goto usage;
    }
    if (dump_path && !strcmp(dump_path, "-")) {
        fprintf(stderr, "workloadtruth eval: --dump-features -: standard output carries the "
                        "report: name a file (see --help)\n");
        goto usage;
    }
    const char *clash =
        dump_path ? wt_output_clash(dump_path, (const char *const *)paths.v, paths.n) : NULL;
    /* nor the model it read (it was replaced by the CSV) */
    if (!clash && dump_path && model_path && wt_same_path(dump_path, model_path))
        clash = "is the --model file";
    if (clash) {
        fprintf(stderr, "workloadtruth eval: --dump-features %s: %s\n", WT_CLEAN(dump_path), clash);
        goto usage;
    }
    /* usage first: the --dump-features file is opened after every check
     * (a path that cannot be written made a usage error exit 1) */
    if (holdout && model_path) {
        fprintf(stderr, "workloadtruth eval: --holdout trains its own models; --model cannot go "
                        "with it (see --help)\n");
        goto usage;
    }
    if (holdout && !strcmp(holdout, "gpu_model"))
        o.group_by_model = 1; /* rows per held-out GPU model */
    if (o.clf->classify == wt_classifier_physics.classify && window < WT_PHYSICS_MIN_SECONDS) {
        /* the physics classifier says UNKNOWN for a window under 5 s: every
         * window would be scored wrong (and --holdout trained each fold's
         * model for nothing) */
        fprintf(stderr,
                "workloadtruth eval: --window %g: the physics classifier needs windows of %g s "
                "or more (see --help)\n",
                window, WT_PHYSICS_MIN_SECONDS);
        goto usage;
    }
    if (holdout && window > wt_classifier_physics.max_seconds) {
        /* the folds' models would learn features of whole long windows, and
         * be scored on the last max_seconds of each */
        fprintf(stderr,
                "workloadtruth eval: --window %g: with --holdout at most %g s: the physics "
                "classifier scores the last %g s of a window, so a fold's model trained on "
                "longer windows would learn features scoring never sees (see --help)\n",
                window, wt_classifier_physics.max_seconds, wt_classifier_physics.max_seconds);
        goto usage;
    }
    if (holdout) {
        if (wt_opts_no_stdin(&help, &paths, "--holdout")) { /* each fold reads them again */
            goto usage;
        }
        if (o.clf->classify != wt_classifier_physics.classify) {
            fprintf(stderr,
                    "workloadtruth eval: --holdout trains the physics classifier; "
                    "'%s' has nothing to train (see --help)\n",
                    o.clf->name);
            goto usage;
        }
    }
    if (model_path) {
        /* read after every usage check (a missing --model with --holdout
         * was exit 1, "cannot open", not the usage error it is) */
        struct wt_err merr = {{0}};
        model = malloc(sizeof(*model));
        if (!model || wt_model_load(model, model_path, &merr) != WT_OK) {
            fprintf(stderr, "workloadtruth eval: %s\n", model ? merr.msg : "out of memory");
            free(model);
            wt_strlist_free(&paths);
            return WT_EXIT_ERROR;
        }
        custom = wt_classifier_physics_with(model);
        o.clf = &custom;
    }
    /* written whole or not at all: a failure leaves the old file */
    struct wt_cli_out dump = {0};
    if (dump_path) {
        if (wt_cli_out_open(&dump, "eval", "--dump-features", dump_path) != 0) {
            wt_strlist_free(&paths);
            free(model);
            return WT_EXIT_ERROR;
        }
        o.dump = dump.f;
        wt_eval_dump_header(o.dump);
    }
    wt_eval_init(&rep, &o);
    rep.model = model_path;
    if (family) {
        rep.evasion = family;
        rep.evasion_strength = sleep.asleep;
    }
    if (holdout) {
        if (wt_eval_holdout(&rep, paths.v, paths.n, &o, holdout, &err) != WT_OK) {
            fprintf(stderr, "workloadtruth eval: %s\n", err.msg);
            status = WT_EXIT_ERROR;
            goto out;
        }
        char name[64];
        snprintf(name, sizeof(name), "physics, each %s held out", holdout);
        rep.classifier = strdup(name);
        rep.classifier_owned = 1;
    } else {
        for (int i = 0; i < paths.n; i++)
            if (wt_eval_add_path(&rep, paths.v[i], &o, &err) != WT_OK) {
                fprintf(stderr, "workloadtruth eval: %s\n", err.msg);
                status = WT_EXIT_ERROR;
                goto out;
            }
    }
    if (rep.nfiles == 0) {
        char where[512];
        /* what was found instead: a CSV that is not a trace is still named */
        for (size_t i = 0; i < rep.skipped_files.n; i++)
            fprintf(stderr, "workloadtruth eval: not a trace, skipped: %s\n",
                    WT_CLEAN(rep.skipped_files.v[i].path));
        fprintf(stderr, "workloadtruth eval: no trace files (*.csv) found in %s\n",
                wt_strlist_join(&paths, where, sizeof(where)));
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
            wt_cli_stdout_failed("eval");
            status = WT_EXIT_ERROR;
        }
    } else {
        wt_text_eval(stdout, &rep, per_file);
    }
    if (fflush(stdout) != 0)
        status = WT_EXIT_ERROR;
    /* power with nothing to scale it by: its features are not measured, and
     * accuracy falls (docs/evaluation.md, item 6), said, not left to guess */
    size_t unscaled = 0;
    /* --columns without power_limit_w: the file may have it, not what is read */
    const char *no_limit = o.columns && !(o.columns & (UINT32_C(1) << WT_COL_POWER_LIMIT))
                               ? "power_limit_w not among --columns"
                               : "no power_limit_w column";
    for (size_t i = 0; status == WT_EXIT_OK && o.clf != &wt_classifier_rules && i < rep.nfiles; i++)
        if (rep.files[i].no_power_scale && unscaled++ < 5)
            fprintf(stderr,
                    "workloadtruth eval: %s: no power scale (%s, and GPU model '%s' is not in "
                    "the rated-power table): its power features are not measured\n",
                    WT_CLEAN(rep.files[i].path), no_limit, WT_CLEAN(rep.files[i].gpu_model));
    if (unscaled > 5)
        fprintf(stderr,
                "workloadtruth eval: %zu more files without a power scale (JSON: "
                "per_file power_scale false)\n",
                unscaled - 5);
    /* every window UNKNOWN because --columns kept neither utilization nor power
     * (or columns no file has): a "0.0%" read as the classifier's, exit 0 */
    size_t unknown = 0;
    for (int t = 0; t < WT_NCLASSES; t++)
        unknown += tot.confusion[t][WT_NPRED - 1];
    if (status == WT_EXIT_OK && columns && tot.scored > 0 && unknown == tot.scored)
        fprintf(stderr,
                "workloadtruth eval: every scored window is UNKNOWN: the columns kept by "
                "--columns %s give the classifier nothing to decide on (it needs GPU "
                "utilization, or power with a power scale)\n",
                WT_CLEAN(columns));
    if (tot.scored == 0) {
        /* the cause the counts point at: labels, or windows too short */
        const char *why =
            tot.skipped_unlabelled && tot.skipped_no_label == tot.skipped_unlabelled &&
                    !tot.skipped_short
                ? "no row carries a label (a label column, or a '# label:' line): eval scores "
                  "labelled traces; 'classify --trace FILE' reads unlabelled ones"
            : !tot.skipped_short
                ? (o.clf->max_seconds > 0 && window > o.clf->max_seconds
                       ? "labels cover too little of each --window, or of its last 30 s "
                         "(the part the classifier scores: both must carry one label on 80% "
                         "of their rows)"
                       : "labels cover too little of each --window")
            : !tot.skipped_unlabelled
                ? "every labelled window had too few samples for the classifier or spanned "
                  "less than half of --window"
                : "windows were unlabelled or mixed, or too short (too few samples, or less "
                  "than half of --window)";
        fprintf(stderr,
                "workloadtruth eval: no window could be scored (%zu unlabelled or mixed, "
                "%zu short); %s\n",
                tot.skipped_unlabelled, tot.skipped_short, why);
    }
out:
    if (o.dump && status == WT_EXIT_OK) {
        /* a trace read through a link inside an input directory escapes the
         * check made before the walk: renaming the dump over it loses it */
        const char *read_as = wt_ds_seen_file(&rep.seen, dump_path);
        if (read_as) {
            fprintf(
                stderr,
                "workloadtruth eval: --dump-features %s: is a trace it read (as %s); not written\n",
                WT_CLEAN(dump_path), read_as);
            status = WT_EXIT_USAGE;
        }
    }
    if (o.dump && status == WT_EXIT_OK && wt_cli_out_commit(&dump, "eval", "--dump-features"))
        status = WT_EXIT_ERROR;
    wt_cli_out_abort(&dump);
    wt_eval_free(&rep);
    wt_strlist_free(&paths);
    free(model);
    return status;
usage: /* before the report or the --dump-features file exists */
    wt_strlist_free(&paths);
    free(model);
    return WT_EXIT_USAGE;
}
