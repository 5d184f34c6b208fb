/* `workloadtruth train`: derives the physics model from labelled traces and
 * writes it in the model text format.  Deterministic: the same traces and
 * options give the same file, byte for byte (models/physics.model is made by
 * the command in docs/classifier.md, and a test checks it).
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify/classifier.h"
#include "classify/model.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "eval/eval.h"
#include "eval/trainset.h"
#include "util/fileio.h"

/* Writes the training windows as CSV: what the model learns from, for review
 * and for studying features outside the tool. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "a,b,...,simulator,python-synthetic": the real sources sorted (not in the
 * order the traces were named: the model file does not depend on it), then the
 * generated ones; *nreal counts the real trace files. */
static int source_list(const struct wt_trainset *ts, char *out, size_t cap, size_t *nreal)
{
    static const char *const generated[] = {"simulator", "python-synthetic"};
    const char **names = malloc((ts->nfiles ? ts->nfiles : 1) * sizeof(*names));
    size_t n = 0;
    if (!names)
        return -1;
    *nreal = 0;
    for (size_t i = 0; i < ts->nfiles; i++) {
        const char *g = ts->files[i].group;
        if (ts->files[i].builtin)
            continue;
        (*nreal)++;
        size_t j = 0;
        while (j < n && strcmp(names[j], g))
            j++;
        if (j == n)
            names[n++] = g;
    }
    if (n > 1)
        qsort(names, n, sizeof(*names), cmp_str);
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < ts->nfiles; i++)
            if (ts->files[i].builtin && !strcmp(ts->files[i].group, generated[k])) {
                names[n++] = generated[k];
                break;
            }
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (strlen(out) + strlen(names[i]) + 6 >= cap) { /* room for ",..." */
            strcat(out, ",...");
            break;
        }
        strcat(out, i ? "," : "");
        strcat(out, names[i]);
    }
    free(names);
    return 0;
}

static int dump_trainset(const struct wt_trainset *ts, const char *path)
{
    struct wt_cli_out o;
    if (wt_cli_out_open(&o, "train", "--dump-features", path) != 0)
        return -1;
    FILE *f = o.f;
    fputs("file,source,gpu_model,truth", f);
    for (int k = 0; k < WT_NFEATURES; k++)
        fprintf(f, ",%s", wt_feature_name((enum wt_feature)k));
    fputc('\n', f);
    for (size_t i = 0; i < ts->n; i++) {
        const struct wt_trainset_file *tf = &ts->files[ts->file[i]];
        wt_csv_text(f, tf->path);
        fputc(',', f);
        wt_csv_text(f, tf->group);
        fputc(',', f);
        wt_csv_text(f, tf->gpu_model);
        fprintf(f, ",%s", ts->y[i] ? "TRAINING" : "INFERENCE");
        for (int k = 0; k < WT_NFEATURES; k++) {
            double v = ts->x[i].v[k];
            if (isnan(v))
                fputs(",", f);
            else
                fprintf(f, ",%.6g", v);
        }
        fputc('\n', f);
    }
    return wt_cli_out_commit(&o, "train", "--dump-features");
}

int wt_cmd_train(int argc, char **argv)
{
    struct wt_strlist paths = {0};
    const char *out_path = NULL, *features = NULL, *dump_path = NULL;
    enum wt_feature flist[WT_NFEATURES];
    struct wt_train_config cfg = wt_train_default;
    unsigned long long rounds = (unsigned long long)cfg.rounds,
                       depth = (unsigned long long)cfg.depth;
    unsigned long long sim = cfg.sim_per_cell, py = cfg.py_per_cell,
                       alone = (unsigned long long)cfg.alone_views, per_tick = 0,
                       retime = (unsigned long long)cfg.retime, sim_seed = cfg.sim_seed;
    double interval = 1;
    const char *missing = "side";
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--traces", WT_OPT_LIST, &paths, "DIR|FILE", "labelled traces, or directories searched for *.csv", 0, 0, NULL, false},
        {"--out", WT_OPT_STRING, &out_path, "FILE", "where to write the model ('-' = standard output)", 0, 0, NULL, false},
        {"--window", WT_OPT_DOUBLE, &cfg.window_s, "SECONDS", "window length (default 30; 5..30: the classifier says UNKNOWN under 5 s and scores the last 30 s of a window)", WT_PHYSICS_MIN_SECONDS, 30, NULL, false},
        {"--rounds", WT_OPT_UINT, &rounds, "N", "boosting rounds: trees (default 300)", 1, WT_MODEL_MAX_TREES, NULL, false},
        {"--features", WT_OPT_STRING, &features, "LIST", "features the model may use (default: the physics set)", 0, 0, NULL, false},
        {"--simulate", WT_OPT_UINT, &sim, "N", "simulator windows per profile/evasion cell added to the traces (default 60; 0: none)", 0, 1000, NULL, false},
        {"--sim-weight", WT_OPT_DOUBLE, &cfg.sim_weight, "W", "the simulator's windows weigh W times what a source of as many windows would (default 0.4)", 0.01, 100, NULL, false},
        {"--python-windows", WT_OPT_UINT, &py, "N", "windows per Python-profile cell added (default 40; 0: none)", 0, 10000, NULL, false},
        {"--alone-views", WT_OPT_UINT, &alone, "0|1", "also learn each multi-GPU window without its peers (default 1)", 0, 1, NULL, false},
        {"--retime", WT_OPT_UINT, &retime, "0|1", "learn each trace window at the native rate as another poller's clock would time it: up to 0.6% fast or slow, each sample up to 5 ms off (default 0)", 0, 1, NULL, false},
        {"--sim-seed", WT_OPT_UINT, &sim_seed, "N", "draw the simulator windows with this seed (default 0, the shipped model's)", 0, 4294967295.0, NULL, false},
        {"--missing", WT_OPT_CHOICE, &missing, "side|stop", "what a split on a feature the window does not measure does: side (the side learnt in training; default) or stop (the tree stops there: no evidence either way)", 0, 0, wt_cli_missing_choices, false},
        {"--depth", WT_OPT_UINT, &depth, "N", "tree depth (default 3)", 1, 3, NULL, false},
        {"--gpus-per-tick", WT_OPT_UINT, &per_tick, "N", "nvidia-smi CSV without an index column: rows per tick (default: detect)", 1, WT_MAX_GPUS, NULL, false},
        {"--interval", WT_OPT_DOUBLE, &interval, "S", "nvidia-smi CSV without timestamps: seconds per tick (default 1)", 0.001, 3600, NULL, false},
        {"--dump-features", WT_OPT_STRING, &dump_path, "FILE", "also write every training window (source, file, class, features) as CSV to FILE ('-' = standard output)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth train",
        "Derive the physics classifier's model from labelled traces (TRAINING and\n"
        "INFERENCE windows that the IDLE rule does not claim, at the native rate and\n"
        "at 1 Hz, with all columns, utilization and power, and power only, and at\n"
        "0.2 Hz with all columns), plus\n"
        "windows of the simulator's profiles and evasion families and of the Python\n"
        "tool's synthetic profiles.  Each window is learnt as the classifier shows it\n"
        "to the model: where power has a scale, without utilization.",
        "The shipped model is: workloadtruth train --traces ../shared/traces --out "
        "models/physics.model",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, &paths);
    int status = WT_EXIT_ERROR;
    struct wt_trainset ts = {0};
    struct wt_model *m = NULL;
    if (prc) {
        status = prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
        goto out;
    }
    if (paths.n == 0 || !out_path) {
        fprintf(stderr, "workloadtruth train: needs --traces DIR|FILE... and --out FILE "
                        "(see --help)\n");
        status = WT_EXIT_USAGE;
        goto out;
    }
    if (wt_opts_no_stdin(&help, &paths, "train")) { /* once per view */
        status = WT_EXIT_USAGE;
        goto out;
    }
    struct wt_err ferr = {{0}};
    if (features && wt_features_parse(features, flist, &cfg.nfeatures, &ferr) != WT_OK) {
        fprintf(stderr, "workloadtruth train: --features: %s (see --help)\n", ferr.msg);
        status = WT_EXIT_USAGE;
        goto out;
    }
    if (features)
        cfg.features = flist;
    /* outputs are checked before minutes of training, and may not be inputs */
    if (dump_path && !strcmp(dump_path, "-") && !strcmp(out_path, "-")) {
        fprintf(stderr, "workloadtruth train: --out - and --dump-features - would both write "
                        "to standard output: name a file for one (see --help)\n");
        status = WT_EXIT_USAGE;
        goto out;
    }
    if (!*out_path || (dump_path && !*dump_path)) {
        fprintf(stderr, "workloadtruth train: %s: empty file name (see --help)\n",
                !*out_path ? "--out" : "--dump-features");
        status = WT_EXIT_USAGE;
        goto out;
    }
    const char *const outs[] = {strcmp(out_path, "-") ? out_path : NULL,
                                dump_path && strcmp(dump_path, "-") ? dump_path : NULL};
    const char *const onames[] = {"--out", "--dump-features"};
    /* one file for both: the model's rename would replace the features */
    if (outs[0] && outs[1] && wt_same_path(outs[0], outs[1])) {
        fprintf(stderr,
                "workloadtruth train: --out and --dump-features name the same file, %s: "
                "name two (see --help)\n",
                WT_CLEAN(outs[0]));
        status = WT_EXIT_USAGE;
        goto out;
    }
    for (int i = 0; i < 2; i++) {
        const char *clash = outs[i] ? wt_output_clash(outs[i], paths.v, paths.n) : NULL;
        if (clash) {
            fprintf(stderr, "workloadtruth train: %s %s: %s\n", onames[i], WT_CLEAN(outs[i]),
                    clash);
            status = WT_EXIT_USAGE;
            goto out;
        }
        int e = outs[i] ? wt_cli_out_writable(outs[i], 0) : 0;
        if (e) {
            fprintf(stderr, "workloadtruth train: cannot write %s %s: %s\n", onames[i],
                    WT_CLEAN(outs[i]), strerror(e));
            goto out; /* an I/O error, status 1 */
        }
    }
    if (cfg.window_s > wt_classifier_physics.max_seconds) {
        fprintf(stderr,
                "workloadtruth train: --window %g: at most %g s: the physics classifier scores "
                "the last %g s of a window, so a model trained on longer windows would learn "
                "features scoring never sees (see --help)\n",
                cfg.window_s, wt_classifier_physics.max_seconds, wt_classifier_physics.max_seconds);
        status = WT_EXIT_USAGE;
        goto out;
    }
    cfg.rounds = (int)rounds;
    cfg.sim_per_cell = (unsigned)sim;
    cfg.py_per_cell = (unsigned)py;
    cfg.alone_views = (int)alone;
    cfg.retime = (int)retime;
    cfg.sim_seed = sim_seed;
    cfg.missing_stop = wt_cli_missing_stop(missing);
    cfg.depth = (int)depth;
    cfg.trace_opts.rows_per_tick = (unsigned)per_tick;
    cfg.trace_opts.interval_s = interval;
    struct wt_err err = {{0}};
    for (int i = 0; i < paths.n; i++)
        if (wt_trainset_add(&ts, paths.v[i], &cfg, &err) != WT_OK) {
            fprintf(stderr, "workloadtruth train: %s\n", err.msg);
            goto out;
        }
    wt_cli_say_skipped("train", &ts.skipped_files);
    if (ts.nfiles == 0) {
        char where[512];
        fprintf(stderr, "workloadtruth train: no trace files (*.csv) found in %s\n",
                wt_strlist_join(&paths, where, sizeof(where)));
        goto out;
    }
    if (ts.n == 0) {
        fprintf(stderr, "workloadtruth train: the traces hold no labelled TRAINING or INFERENCE "
                        "window (labels must cover 80%% of a --window; see eval)\n");
        goto out;
    }
    if (cfg.sim_per_cell && wt_trainset_add_sim(&ts, cfg.sim_per_cell, &cfg, &err) != WT_OK) {
        fprintf(stderr, "workloadtruth train: %s\n", err.msg);
        goto out;
    }
    if (cfg.py_per_cell && wt_trainset_add_python(&ts, cfg.py_per_cell, &err) != WT_OK) {
        fprintf(stderr, "workloadtruth train: %s\n", err.msg);
        goto out;
    }
    for (int i = 0; i < 2; i++) {
        /* a trace read through a link inside an input directory escapes the
         * check made before the walk: renaming an output over it loses it */
        const char *read_as = outs[i] ? wt_ds_seen_file(&ts.seen[0], outs[i]) : NULL;
        if (read_as) {
            fprintf(stderr, "workloadtruth train: %s %s: is a trace it read (as %s); not written\n",
                    onames[i], WT_CLEAN(outs[i]), read_as);
            status = WT_EXIT_USAGE;
            goto out;
        }
    }
    if (dump_path && dump_trainset(&ts, dump_path) != 0)
        goto out;
    size_t real[2];
    wt_trainset_real_counts(&ts, NULL, real);
    for (int c = 0; c < 2; c++)
        if (real[c] == 0 && (cfg.sim_per_cell || cfg.py_per_cell))
            fprintf(stderr,
                    "workloadtruth train: warning: the traces hold no %s window; the model "
                    "learns it from the generated windows alone\n",
                    c ? "TRAINING" : "INFERENCE");
    m = malloc(sizeof(*m));
    if (!m || wt_trainset_fit(&ts, NULL, &cfg, m, &err) != WT_OK) {
        fprintf(stderr, "workloadtruth train: %s\n", m ? err.msg : "out of memory");
        goto out;
    }
    if (m->ntrees == 0) { /* every window would get the prior: not a classifier */
        fprintf(stderr, "workloadtruth train: no tree could be grown: the features given do not "
                        "separate the windows (utilization features are not read where power has a "
                        "scale: see docs/classifier.md); no model written\n");
        goto out;
    }
    size_t ntrain = 0, nreal = 0;
    char groups[160];
    for (size_t i = 0; i < ts.n; i++)
        ntrain += ts.y[i];
    if (source_list(&ts, groups, sizeof(groups), &nreal) != 0) {
        fprintf(stderr, "workloadtruth train: out of memory\n");
        goto out;
    }
    {
        /* the command, over as many "made by" lines as it takes (a meta line
         * holds 199 bytes: one line cut the options that rebuild the model) */
        char args[1024];
        (void)wt_train_config_args(&cfg, 0, args, sizeof(args));
        char *line = m->meta[m->nmeta++];
        snprintf(line, sizeof(m->meta[0]), "made by: workloadtruth train");
        for (char *w = strtok(args, " "); w && m->nmeta < WT_MODEL_MAX_META;
             w = strtok(NULL, " ")) {
            if (strlen(line) + 1 + strlen(w) >= sizeof(m->meta[0])) {
                line = m->meta[m->nmeta++];
                snprintf(line, sizeof(m->meta[0]), "made by (continued): %.150s", w);
            } else {
                strcat(line, " ");
                strcat(line, w);
            }
        }
    }
    snprintf(m->meta[m->nmeta++], sizeof(m->meta[0]), "data: %zu trace files; sources %s", nreal,
             groups);
    snprintf(m->meta[m->nmeta++], sizeof(m->meta[0]),
             "windows: %zu active (TRAINING %zu, INFERENCE %zu), each trace window in 7 views: "
             "native and 1 Hz x all columns, util+power, power only; 0.2 Hz all columns",
             ts.n, ntrain, ts.n - ntrain);
    snprintf(m->meta[m->nmeta++], sizeof(m->meta[0]),
             "reads: power, not utilization, wherever power has a scale (features without "
             "util_gpu_pct and util_mem_pct), in training and in use");
    snprintf(m->meta[m->nmeta++], sizeof(m->meta[0]),
             "boosting: learning rate %g, lambda %g, %d thresholds per feature; score = "
             "log-odds of TRAINING",
             cfg.learning_rate, cfg.lambda, cfg.nthresholds);
    {
        /* every name, over as many "features:" lines as it takes */
        size_t nf = cfg.features ? cfg.nfeatures : wt_physics_model_nfeatures;
        const enum wt_feature *fs = cfg.features ? cfg.features : wt_physics_model_features;
        char *line = NULL;
        for (size_t i = 0; i < nf && m->nmeta < WT_MODEL_MAX_META; i++) {
            const char *name = wt_feature_name(fs[i]);
            if (!line || strlen(line) + 1 + strlen(name) >= sizeof(m->meta[0])) {
                line = m->meta[m->nmeta++];
                snprintf(line, sizeof(m->meta[0]), "features: %s", name);
            } else {
                strcat(line, ",");
                strcat(line, name);
            }
        }
    }
    struct wt_cli_out mo;
    if (wt_cli_out_open(&mo, "train", "--out", out_path) != 0)
        goto out;
    (void)wt_model_write(m, mo.f); /* a write error is the stream's, reported by commit */
    if (wt_cli_out_commit(&mo, "train", "--out") != 0)
        goto out;
    fprintf(stderr, "workloadtruth train: %d trees from %zu windows written to %s\n", m->ntrees,
            ts.n, strcmp(out_path, "-") ? out_path : "standard output");
    status = WT_EXIT_OK;
out:
    free(m);
    wt_trainset_free(&ts);
    wt_strlist_free(&paths);
    return status;
}
