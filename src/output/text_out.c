/* Text output (see output.h).  The classify layout is the Python tool's. */
#include "output/output.h"
#include "util/text.h"

#include <math.h>
#include <string.h>

void wt_text_result(FILE *f, const struct wt_result *r)
{
    fprintf(f, "workload_type : %s\n", wt_class_name(r->cls));
    fprintf(f, "confidence    : %.2f\n", r->confidence);
    fprintf(f, "gpu_index     : %d\n", r->gpu_index);
    fprintf(f, "samples       : %zu over %.1fs\n", r->sample_count, r->window_seconds);
    fprintf(f, "reasons:\n");
    for (size_t i = 0; i < r->nreasons; i++)
        fprintf(f, "  - %s\n", r->reasons[i].text);
    if (r->ntamper) {
        fprintf(f, "tamper indicators:\n");
        for (size_t i = 0; i < r->ntamper; i++)
            fprintf(f, "  ! %s\n", r->tamper[i]);
    }
}

static void pct(FILE *f, double x)
{
    if (isnan(x))
        fprintf(f, "%7s", "-");
    else
        fprintf(f, "%6.1f%%", 100.0 * x);
}

/* How a --holdout's models were trained, as the options of `train`. */
static void train_line(FILE *f, const struct wt_train_config *c)
{
    char args[2048];
    (void)wt_train_config_args(c, 1, args, sizeof(args)); /* a cut list still reads */
    fprintf(f, "models trained as: workloadtruth train %s\n", args);
}

/* ", model PATH", its control characters as '?' (a newline in the path would
 * forge a line, as in eval's file names) */
static void model_path(FILE *f, const char *path)
{
    char shown[4097];
    snprintf(shown, sizeof(shown), "%s", path);
    fprintf(f, ", model %s", wt_text_clean(shown));
}

/* The end of the header line: which model scored (two runs that differ in
 * these alone printed the same header) */
static void model_note(FILE *f, const struct wt_bench_report *b)
{
    if (b->model)
        model_path(f, b->model);
    if (b->holdout)
        fprintf(f, ", each %s scored by a model trained without it", b->holdout);
    fputc('\n', f);
    if (b->holdout && b->train)
        train_line(f, b->train);
}

void wt_text_benchmark(FILE *f, const struct wt_bench_report *b)
{
    if (strcmp(b->suite, "seed")) {
        fprintf(f,
                "benchmark suite '%s', classifier '%s': %u trials per cell, %.15g-second windows "
                "at %.15g Hz, seed %llu",
                b->suite, b->classifier, b->trials, b->window_s, b->sample_hz,
                (unsigned long long)b->seed);
        model_note(f, b);
        fprintf(f, "%-22s %-16s %8s %7s %9s %10s\n", "profile", "evasion", "strength", "trials",
                "accuracy", "given up");
        unsigned t = 0, c = 0, tr = 0;
        for (unsigned i = 0; i < b->ncells; i++) {
            const struct wt_bench_cell *x = &b->cells[i];
            t += x->trials;
            c += x->correct;
            tr += x->training;
            fprintf(f, "%-22s %-16s ", x->profile, x->family ? x->family : "-");
            if (isnan(x->strength))
                fprintf(f, "%8s", "-");
            else
                fprintf(f, "%7.2f%s", x->strength, x->is_default ? "*" : " ");
            fprintf(f, " %7u  ", x->trials);
            pct(f, x->trials ? (double)x->correct / x->trials : NAN);
            if (isnan(x->throughput_cost))
                fprintf(f, " %10s\n", "-");
            else
                fprintf(f, " %9.1f%%\n", 100 * x->throughput_cost);
        }
        fprintf(f, "accuracy: ");
        pct(f, t ? (double)c / t : NAN);
        fputc('\n', f);
        if (!strcmp(b->suite, "board")) {
            fprintf(f, "accuracy at each setting's default strength (*): ");
            pct(f, wt_bench_default_accuracy(b));
            fprintf(f, "\ncalled TRAINING (serving accused of training): ");
            pct(f, t ? (double)tr / t : NAN);
            fputc('\n', f);
        }
        if (!strcmp(b->suite, "evasion")) {
            fprintf(f, "accuracy at each family's default strength (*): ");
            pct(f, wt_bench_default_accuracy(b));
            fprintf(f, "\ngiven up: the share of useful training work the evader loses\n");
        }
        return;
    }
    fprintf(f,
            "benchmark suite '%s', classifier '%s': %u trials per cell, window %u samples, "
            "seed %llu",
            b->suite, b->classifier, b->trials, b->window, (unsigned long long)b->seed);
    model_note(f, b);
    fprintf(f, "%-12s %-8s %7s %8s %9s\n", "profile", "evasion", "trials", "correct", "accuracy");
    for (unsigned i = 0; i < b->ncells; i++) {
        const struct wt_bench_cell *c = &b->cells[i];
        fprintf(f, "%-12s %-8s %7u %8u   ", c->profile, c->evasion ? "yes" : "no", c->trials,
                c->correct);
        pct(f, c->trials ? (double)c->correct / c->trials : NAN);
        fputc('\n', f);
    }
    fprintf(f, "clean accuracy   : ");
    pct(f, wt_bench_accuracy(b, false));
    fprintf(f, "\nevasion accuracy : ");
    pct(f, wt_bench_accuracy(b, true));
    fputc('\n', f);
}

static void counts_line(FILE *f, const char *name, const struct wt_eval_counts *c)
{
    fprintf(f, "  %-40s %7zu ", name, c->scored);
    pct(f, c->scored ? (double)c->correct / c->scored : NAN);
    for (int t = 0; t < WT_NCLASSES; t++) {
        size_t n = wt_eval_class_total(c, t);
        fputc(' ', f);
        if (n)
            pct(f, wt_eval_class_accuracy(c, t));
        else
            fprintf(f, "%7s", "-");
        fprintf(f, " %5zu", n);
    }
    fputc('\n', f);
}

static void counts_header(FILE *f, const char *what)
{
    fprintf(f, "  %-40s %7s %7s %7s %5s %7s %5s %7s %5s\n", what, "windows", "acc", "TRAIN", "n",
            "INFER", "n", "IDLE", "n");
}

void wt_text_eval(FILE *f, const struct wt_eval_report *e, int per_file)
{
    struct wt_eval_counts t;
    wt_eval_total(e, &t);
    fprintf(f, "classifier '%s', %g-second windows, %zu trace file%s", e->classifier, e->window_s,
            e->nfiles, e->nfiles == 1 ? "" : "s");
    if (e->model) /* which model scored, as benchmark says */
        model_path(f, e->model);
    fputc('\n', f);
    if (e->alone)
        fprintf(f, "peers: none (each GPU read without its file's other GPUs)\n");
    else if (e->all_peers)
        fprintf(f, "peers: all (each GPU read beside all its file's other GPUs, whatever their "
                   "owners)\n");
    if (e->evasion)
        fprintf(f, "evasion: %s at strength %.15g injected into the recorded training\n",
                e->evasion, e->evasion_strength);
    if (e->trained)
        train_line(f, &e->train);
    else if (strcmp(e->classifier, "rules"))
        /* it cannot know which files a model learnt from (a review found
         * nothing said so) */
        fprintf(f,
                "in-sample for every trace the model learnt from (%s); --holdout "
                "source|gpu_model scores each by a model that did not\n",
                e->model ? "see the model file's 'meta data' line"
                         : "the shipped model: ../shared/traces");
    fprintf(f, "windows scored: %zu   skipped: %zu unlabelled/mixed, %zu short\n", t.scored,
            t.skipped_unlabelled, t.skipped_short);
    fprintf(f, "accuracy: ");
    pct(f, t.scored ? (double)t.correct / t.scored : NAN);
    fprintf(f, " (%zu of %zu windows)\n", t.correct, t.scored);
    fprintf(f, "per class (accuracy = share of that class's windows classified correctly):\n");
    for (int c = 0; c < WT_NCLASSES; c++) {
        fprintf(f, "  %-10s ", wt_class_name(c));
        pct(f, wt_eval_class_accuracy(&t, c));
        fprintf(f, "  (%zu of %zu)\n", t.confusion[c][c], wt_eval_class_total(&t, c));
    }
    fprintf(f, "confusion (rows: truth, columns: predicted):\n  %-10s", "");
    for (int p = 0; p < WT_NPRED; p++)
        fprintf(f, " %10s", wt_class_name(p));
    fputc('\n', f);
    for (int c = 0; c < WT_NCLASSES; c++) {
        fprintf(f, "  %-10s", wt_class_name(c));
        for (int p = 0; p < WT_NPRED; p++)
            fprintf(f, " %10zu", t.confusion[c][p]);
        fputc('\n', f);
    }
    /* the README's "non-training called TRAINING" (--json: false_training_rate) */
    size_t false_train, nontrain;
    wt_eval_false_training(&t, &false_train, &nontrain);
    if (nontrain)
        fprintf(f, "non-training windows called TRAINING: %.1f%% (%zu of %zu)\n",
                100.0 * (double)false_train / (double)nontrain, false_train, nontrain);
    else
        fprintf(f, "non-training windows called TRAINING: - (0 of 0)\n");
    fprintf(f, "per source (directory, or GPU model with --holdout gpu_model):\n");
    counts_header(f, "source");
    for (size_t i = 0; i < e->nfiles; i++) {
        size_t j;
        for (j = 0; j < i; j++)
            if (!strcmp(e->files[j].group, e->files[i].group))
                break;
        if (j < i)
            continue;
        struct wt_eval_counts g = {0};
        for (j = i; j < e->nfiles; j++)
            if (!strcmp(e->files[j].group, e->files[i].group))
                wt_eval_add_counts(&g, &e->files[j].c);
        char group[256];
        snprintf(group, sizeof(group), "%s", e->files[i].group);
        counts_line(f, wt_text_clean(group), &g);
    }
    if (per_file) {
        fprintf(f, "per file:\n");
        counts_header(f, "file");
        for (size_t i = 0; i < e->nfiles; i++) {
            const char *p = e->files[i].path;
            size_t len = strlen(p);
            char name[48];
            if (len > 40)
                snprintf(name, sizeof(name), "...%s", p + len - 37);
            else
                snprintf(name, sizeof(name), "%s", p);
            counts_line(f, wt_text_clean(name), &e->files[i].c);
        }
    }
    /* file names may hold any bytes: a newline would forge a line */
    for (size_t i = 0; i < e->skipped_files.n; i++) {
        const struct wt_ds_skipped *s = &e->skipped_files.v[i];
        char a[4096], b[4096];
        snprintf(a, sizeof(a), "%s", s->same_as ? s->same_as : "");
        snprintf(b, sizeof(b), "%s", s->path);
        if (s->same_as)
            fprintf(f, "a copy of %s, read once: %s\n", wt_text_clean(a), wt_text_clean(b));
        else
            fprintf(f, "not a trace, skipped: %s\n", wt_text_clean(b));
    }
}
