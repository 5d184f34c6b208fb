/* `workloadtruth benchmark`: the Python tool's synthetic benchmark (`--suite
 * seed`, its flags and JSON shape), and the simulator's suites (`sim`: every
 * workload profile; `evasion`: every evasion family at several strengths,
 * with the throughput an evader gives up; `board`: serving under the board
 * settings operators use, power cap and clock lock).  Deterministic for a given --seed.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/model.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "eval/benchmark.h"
#include "eval/trainset.h"
#include "output/output.h"
#include "telemetry/simulate.h"

#define WT_BENCH_MAX_SIM_S 360000.0 /* simulated seconds per cell */
#include "telemetry/source.h"

/* The same as JSON: {python_profiles, simulator_profiles, evasion_families}. */
static int list_json(void)
{
    size_t n;
    json_t *py = json_array(), *sim = json_array(), *ev = json_array();
    json_t *j = json_pack("{s:o,s:o,s:o}", "python_profiles", py, "simulator_profiles", sim,
                          "evasion_families", ev);
    if (!j)
        return WT_EXIT_ERROR;
    for (const struct wt_synth_profile *const *p = wt_synth_profiles(); *p; p++)
        json_array_append_new(py, json_string((*p)->name));
    const struct wt_sim_profile_info *pr = wt_sim_profiles(&n);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(sim, json_pack("{s:s,s:s,s:s}", "name", pr[i].name, "class",
                                             wt_class_name(pr[i].cls), "description",
                                             pr[i].description));
    const struct wt_sim_evasion_info *e = wt_sim_evasions(&n);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(ev, json_pack("{s:s,s:f,s:s,s:b}", "name", e[i].name,
                                            "default_strength", e[i].default_strength,
                                            "description", e[i].description, "board", e[i].board));
    int rc = wt_json_print(stdout, j);
    json_decref(j);
    return rc ? WT_EXIT_ERROR : WT_EXIT_OK;
}

static void list(void)
{
    size_t n;
    printf("synthetic profiles of the Python tool (suite seed; classify --evasion for its "
           "transform):\n");
    for (const struct wt_synth_profile *const *p = wt_synth_profiles(); *p; p++)
        printf("  %-22s %s\n", (*p)->name, "the Python tool's profile");
    const struct wt_sim_profile_info *pr = wt_sim_profiles(&n);
    printf("\nsimulator profiles (suite sim; classify --backend synthetic --profile NAME):\n");
    for (size_t i = 0; i < n; i++)
        printf("  %-22s %-9s %s\n", pr[i].name, wt_class_name(pr[i].cls), pr[i].description);
    const struct wt_sim_evasion_info *ev = wt_sim_evasions(&n);
    printf("\nevasion families (suite evasion; classify --evasion-family NAME "
           "[--evasion-strength S]; board settings, marked +, also apply to serving and idle "
           "profiles: suite board):\n");
    for (size_t i = 0; i < n; i++)
        printf("  %-22s default %.2f %s %s\n", ev[i].name, ev[i].default_strength,
               ev[i].board ? "+" : " ", ev[i].description);
}

/* --holdout family: the physics model is refitted without each evasion
 * family's simulator windows and scores that family's cells. */
struct holdout {
    struct wt_trainset ts;
    struct wt_train_config cfg;
    enum wt_feature flist[WT_NFEATURES];
    unsigned char *exclude;
    struct wt_model *m;
    struct wt_classifier clf;
    char family[64];
    int fitted;
};

static int pick_family(void *vctx, const char *family, const struct wt_classifier **out,
                       struct wt_err *err)
{
    struct holdout *h = vctx;
    const char *key = family ? family : "";
    if (h->fitted && !strcmp(h->family, key)) {
        *out = &h->clf;
        return WT_OK;
    }
    for (size_t f = 0; f < h->ts.nfiles; f++) {
        char fam[64];
        h->exclude[f] = family && wt_trainset_sim_family(&h->ts.files[f], fam, sizeof(fam)) &&
                        !strcmp(fam, family);
    }
    int rc = wt_trainset_fit(&h->ts, h->exclude, &h->cfg, h->m, err);
    if (rc)
        return rc;
    if (h->m->ntrees == 0) /* every window would get the prior, UNKNOWN: not a score */
        return wt_errf(err, WT_EINVAL,
                       "holding out family '%s': no tree could be grown: the features given do "
                       "not separate the windows",
                       family ? family : "(none)");
    snprintf(h->family, sizeof(h->family), "%s", key);
    h->fitted = 1;
    h->clf = wt_classifier_physics_with(h->m);
    *out = &h->clf;
    return WT_OK;
}

/* nfeatures: how many of h->flist the models may use (0: the physics set);
 * retime, sim_seed, sim_weight, missing_stop: as train's --retime, --sim-seed,
 * --sim-weight, --missing. */
static int holdout_init(struct holdout *h, const struct wt_strlist *traces, size_t nfeatures,
                        int retime, uint64_t sim_seed, double sim_weight, int missing_stop,
                        struct wt_err *err)
{
    h->cfg = wt_train_default;
    h->cfg.retime = retime;
    h->cfg.sim_seed = sim_seed;
    h->cfg.sim_weight = sim_weight;
    h->cfg.missing_stop = missing_stop;
    if (nfeatures) {
        h->cfg.features = h->flist;
        h->cfg.nfeatures = nfeatures;
    }
    int rc = WT_OK;
    for (int i = 0; i < traces->n && rc == WT_OK; i++)
        rc = wt_trainset_add(&h->ts, traces->v[i], &h->cfg, err);
    if (rc == WT_OK) /* the files train names, as train names them */
        wt_cli_say_skipped("benchmark", &h->ts.skipped_files);
    if (rc == WT_OK && h->ts.nfiles == 0) {
        char where[400];
        rc = wt_errf(err, WT_EINVAL, "--traces: no trace files (*.csv) found in %s",
                     wt_strlist_join(traces, where, sizeof(where)));
    }
    /* as train refuses them: the models would be the generated windows' alone */
    if (rc == WT_OK && h->ts.n == 0)
        rc = wt_errf(err, WT_EINVAL,
                     "--traces: the traces hold no labelled TRAINING or INFERENCE window (labels "
                     "must cover 80%% of a 30-second window; see eval)");
    size_t real[2];
    wt_trainset_real_counts(&h->ts, NULL, real);
    for (int c = 0; rc == WT_OK && c < 2; c++)
        if (real[c] == 0 && (h->cfg.sim_per_cell || h->cfg.py_per_cell))
            fprintf(stderr,
                    "workloadtruth benchmark: warning: the traces hold no %s window; the models "
                    "learn it from the generated windows alone\n",
                    c ? "TRAINING" : "INFERENCE");
    if (rc == WT_OK && h->cfg.sim_per_cell)
        rc = wt_trainset_add_sim(&h->ts, h->cfg.sim_per_cell, &h->cfg, err);
    if (rc == WT_OK && h->cfg.py_per_cell)
        rc = wt_trainset_add_python(&h->ts, h->cfg.py_per_cell, err);
    if (rc)
        return rc;
    h->exclude = calloc(h->ts.nfiles ? h->ts.nfiles : 1, 1);
    h->m = malloc(sizeof(*h->m));
    if (!h->exclude || !h->m)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    return WT_OK;
}

static void holdout_free(struct holdout *h)
{
    wt_trainset_free(&h->ts);
    free(h->exclude);
    free(h->m);
}

int wt_cmd_benchmark(int argc, char **argv)
{
    static const char *const suites[] = {"seed", "sim", "evasion", "board", NULL};
    static const char *const holdouts[] = {"family", NULL};
    struct wt_strlist traces = {0};
    const char *holdout_by = NULL, *features = NULL;
    struct holdout ho = {0};
    struct wt_model *model = NULL;
    struct wt_bench_report *rep = NULL;
    struct wt_err err = {{0}};
    int status = WT_EXIT_USAGE, rc;
    unsigned long long trials = 50, window = 30, seed = 0, retime = 0, sim_seed = 0;
    double seconds = 30, hz = 10, sim_weight = wt_train_default.sim_weight;
    const char *suite = "seed", *model_path = NULL, *missing = "side";
    const char *clf_name = wt_classifier_default()->name;
    bool json = false, want_list = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--trials", WT_OPT_UINT, &trials, "N", "windows per cell (default 50)", 1, 100000, NULL, false},
        {"--window", WT_OPT_UINT, &window, "N", "suite seed: samples per window (default 30)", 2, 100000, NULL, false},
        {"--seconds", WT_OPT_DOUBLE, &seconds, "S", "suites sim, evasion, board: window length in seconds (default 30)", 1, 3600, NULL, false},
        {"--sample-hz", WT_OPT_DOUBLE, &hz, "HZ", "suites sim, evasion, board: samples per second (default 10)", 0.1, 100, NULL, false},
        {"--seed", WT_OPT_UINT, &seed, "N", "random seed; same seed, same result (default 0)", 0, 9007199254740992.0, NULL, false},
        {"--suite", WT_OPT_CHOICE, &suite, "NAME", "seed (the Python tool's; default), sim, evasion, board", 0, 0, suites, false},
        {"--classifier", WT_OPT_CHOICE, &clf_name, "NAME", "classifier (default: physics)", 0, 0, wt_cli_classifier_names(), false},
        {"--model", WT_OPT_STRING, &model_path, "FILE", "physics classifier: use this model instead of the built-in one", 0, 0, NULL, false},
        {"--holdout", WT_OPT_CHOICE, &holdout_by, "BY", "suite evasion: score each family with a physics model trained without that family's simulator windows (needs --traces)", 0, 0, holdouts, false},
        {"--traces", WT_OPT_LIST, &traces, "DIR|FILE", "--holdout: the labelled traces the models are trained on (as for train)", 0, 0, NULL, false},
        {"--features", WT_OPT_STRING, &features, "LIST", "--holdout: the features the models may use (default: the physics set)", 0, 0, NULL, false},
        {"--retime", WT_OPT_UINT, &retime, "0|1", "--holdout: learn each trace window at the native rate as another poller's clock would time it (default 0)", 0, 1, NULL, false},
        {"--sim-seed", WT_OPT_UINT, &sim_seed, "N", "--holdout: draw the simulator windows of each model's training with this seed (default 0, the shipped model's)", 0, 4294967295.0, NULL, false},
        {"--sim-weight", WT_OPT_DOUBLE, &sim_weight, "W", "--holdout: the simulator's windows weigh W times what a source of as many windows would (default 0.4)", 0.01, 100, NULL, false},
        {"--missing", WT_OPT_CHOICE, &missing, "side|stop", "--holdout: a split on a feature the window does not measure: side (learnt; default) or stop (no evidence either way), as train --missing", 0, 0, wt_cli_missing_choices, false},
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
        "0.75, 1 and its default, with the throughput the evader gives up.  With\n"
        "--holdout family, each family is scored by a model trained without it.  Suite\n"
        "board: every serving profile under each board setting (power cap, clock lock)\n"
        "at its default strength and at 1, and the share called TRAINING.",
        "Leave-one-family-out: workloadtruth benchmark --suite evasion --holdout family "
        "--traces ../shared/traces",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc) {
        status = prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
        goto out;
    }
    if (want_list) {
        for (int i = 0; opts[i].name; i++)
            if (opts[i].seen && strcmp(opts[i].name, "--list") && strcmp(opts[i].name, "--json")) {
                fprintf(stderr,
                        "workloadtruth benchmark: --list takes no other option than --json, "
                        "not %s (see --help)\n",
                        opts[i].name);
                status = WT_EXIT_USAGE;
                goto out;
            }
        if (json) {
            status = list_json();
        } else {
            list();
            status = WT_EXIT_OK;
        }
        goto out;
    }
    if (strcmp(suite, "seed") && wt_opts_get(opts, "--window")->seen) {
        fprintf(stderr, "workloadtruth benchmark: --window (samples) is for --suite seed; the "
                        "sim, evasion and board suites take --seconds (see --help)\n");
        goto out;
    }
    if (!strcmp(suite, "seed") &&
        (wt_opts_get(opts, "--seconds")->seen || wt_opts_get(opts, "--sample-hz")->seen)) {
        fprintf(stderr, "workloadtruth benchmark: --seconds and --sample-hz are for the sim, "
                        "evasion and board suites; --suite seed takes --window (see --help)\n");
        goto out;
    }
    if (!strcmp(suite, "seed") && seed == WT_TRAINSET_PY_SEED) {
        fprintf(stderr,
                "workloadtruth benchmark: --seed %llu is the seed `train` draws its Python-"
                "profile windows with (the shipped model's training windows): the suite would "
                "score them; choose another (see --help)\n",
                seed);
        goto out;
    }
    if ((double)trials * (double)window > 1e8) {
        fprintf(stderr, "workloadtruth benchmark: --trials x --window is limited to 100000000 "
                        "samples per cell (see --help)\n");
        goto out;
    }
    /* each simulated sample costs more (a GPU's physics, an evasion's clean
     * twin): 1.08e6 per cell took 34 s of the evasion suite here (docs/cli.md),
     * so 1e7 is about 6 minutes */
    if (strcmp(suite, "seed") && (double)trials * seconds * hz > 1e7) {
        fprintf(stderr, "workloadtruth benchmark: --trials x --seconds x --sample-hz is limited "
                        "to 10000000 samples per cell (see --help)\n");
        goto out;
    }
    /* and the simulator steps through every window's run-up and length in
     * 10 ms steps whatever the sample rate: 36000 simulated seconds per cell
     * (--trials 100) took 22 s here, so 360000 is a few minutes */
    if (strcmp(suite, "seed") &&
        (double)trials * (seconds + WT_BENCH_SIM_MAX_OFFSET_S) > WT_BENCH_MAX_SIM_S) {
        fprintf(stderr,
                "workloadtruth benchmark: --trials x (--seconds + %g s of run-up) is limited to "
                "%g simulated seconds per cell (see --help)\n",
                WT_BENCH_SIM_MAX_OFFSET_S, WT_BENCH_MAX_SIM_S);
        goto out;
    }
    /* windows the physics classifier can only call UNKNOWN: refused, not
     * scored 0% */
    /* a window of S seconds at HZ holds as few as floor(S x HZ) samples, which
     * cover that many sample periods: 5 s at 1.1 Hz is 5 samples, 4.5 s */
    if (strcmp(suite, "seed") && !strcmp(clf_name, "physics") &&
        (seconds < 5 || floor(seconds * hz + 1e-9) / hz < 5 - 1e-6 ||
         floor((seconds < 30 ? seconds : 30) * hz + 1e-9) <
             (double)wt_classifier_physics.min_samples)) {
        fprintf(stderr,
                "workloadtruth benchmark: the physics classifier calls a window UNKNOWN when it "
                "covers less than 5 s (its samples times the sample period) or has fewer "
                "than %zu samples in its last 30 s: --seconds %g at --sample-hz %g can give "
                "%g samples; give --seconds 5 or more, holding 5 s of whole sample periods, and "
                "--sample-hz %.3g or more (see --help)\n",
                wt_classifier_physics.min_samples, seconds, hz, floor(seconds * hz + 1e-9),
                (double)wt_classifier_physics.min_samples / 30.0);
        goto out;
    }
    const struct wt_classifier *clf = wt_classifier_find(clf_name);
    if (holdout_by && (strcmp(suite, "evasion") || clf != &wt_classifier_physics || model_path ||
                       traces.n == 0)) {
        fprintf(stderr, "workloadtruth benchmark: --holdout family goes with --suite evasion, "
                        "the physics classifier and --traces DIR, without --model (see --help)\n");
        goto out;
    }
    if (holdout_by && wt_opts_no_stdin(&help, &traces, "--holdout")) /* once per view */
        goto out;
    if (!holdout_by &&
        (traces.n || features || wt_opts_get(opts, "--retime")->seen ||
         wt_opts_get(opts, "--sim-seed")->seen || wt_opts_get(opts, "--sim-weight")->seen ||
         wt_opts_get(opts, "--missing")->seen)) {
        fprintf(stderr, "workloadtruth benchmark: --traces, --features, --retime, --sim-seed, "
                        "--sim-weight and --missing go with --holdout (see --help)\n");
        goto out;
    }
    if (model_path && clf != &wt_classifier_physics) {
        fprintf(stderr, "workloadtruth benchmark: --model goes with the physics classifier "
                        "(see --help)\n");
        goto out;
    }
    if (strcmp(suite, "seed") != 0 && seconds * hz < (double)clf->min_samples) {
        fprintf(stderr,
                "workloadtruth benchmark: --seconds %g at --sample-hz %g gives %g samples per "
                "window; the %s classifier needs at least %zu (see --help)\n",
                seconds, hz, seconds * hz, clf->name, clf->min_samples);
        goto out;
    }
    if (!strcmp(suite, "seed") && window < clf->min_samples) {
        fprintf(stderr,
                "workloadtruth benchmark: --window %llu: the %s classifier needs at least %zu "
                "samples per window (see --help)\n",
                window, clf->name, clf->min_samples);
        goto out;
    }
    size_t nfeatures = 0;
    if (features && wt_features_parse(features, ho.flist, &nfeatures, &err) != WT_OK) {
        fprintf(stderr, "workloadtruth benchmark: --features: %s (see --help)\n", err.msg);
        goto out;
    }
    struct wt_classifier custom;
    status = WT_EXIT_ERROR;
    if (!(rep = malloc(sizeof(*rep)))) {
        fprintf(stderr, "workloadtruth benchmark: out of memory\n");
        goto out;
    }
    if (holdout_by && holdout_init(&ho, &traces, nfeatures, (int)retime, sim_seed, sim_weight,
                                   wt_cli_missing_stop(missing), &err) != WT_OK) {
        fprintf(stderr, "workloadtruth benchmark: %s\n", err.msg);
        goto out;
    }
    if (model_path) {
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
        rc = wt_benchmark_sim(clf, suite, (unsigned)trials, seconds, hz, seed,
                              holdout_by ? pick_family : NULL, &ho, rep, &err);
    if (rc != WT_OK) {
        fprintf(stderr, "workloadtruth benchmark: %s\n", err.msg);
        goto out;
    }
    rep->model = model_path;
    rep->holdout = holdout_by;
    rep->train = holdout_by ? &ho.cfg : NULL;
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
    holdout_free(&ho);
    wt_strlist_free(&traces);
    free(model);
    free(rep);
    return status;
}
