/* Evaluation over labelled traces (see eval.h): dataset windows in, counts
 * out. */
#include "eval/eval.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/dataset.h"
#include "eval/trainset.h"
#include "features/gpu_models.h"

void wt_eval_init(struct wt_eval_report *rep, const struct wt_eval_opts *o)
{
    memset(rep, 0, sizeof(*rep));
    rep->window_s = o->window_s;
    rep->classifier = o->clf->name;
    rep->alone = o->alone;
    rep->all_peers = o->all_peers;
}

void wt_eval_add_counts(struct wt_eval_counts *dst, const struct wt_eval_counts *src)
{
    dst->scored += src->scored;
    dst->correct += src->correct;
    dst->skipped_unlabelled += src->skipped_unlabelled;
    dst->skipped_no_label += src->skipped_no_label;
    dst->skipped_short += src->skipped_short;
    for (int t = 0; t < WT_NCLASSES; t++)
        for (int p = 0; p < WT_NPRED; p++)
            dst->confusion[t][p] += src->confusion[t][p];
}

void wt_eval_total(const struct wt_eval_report *rep, struct wt_eval_counts *tot)
{
    memset(tot, 0, sizeof(*tot));
    for (size_t i = 0; i < rep->nfiles; i++)
        wt_eval_add_counts(tot, &rep->files[i].c);
}

size_t wt_eval_class_total(const struct wt_eval_counts *c, enum wt_class cls)
{
    size_t n = 0;
    for (int p = 0; p < WT_NPRED; p++)
        n += c->confusion[cls][p];
    return n;
}

void wt_eval_false_training(const struct wt_eval_counts *c, size_t *called, size_t *of)
{
    *called = *of = 0;
    for (int t = 0; t < WT_NCLASSES; t++)
        if (t != WT_CLASS_TRAINING) {
            *of += wt_eval_class_total(c, t);
            *called += c->confusion[t][WT_CLASS_TRAINING];
        }
}

double wt_eval_class_accuracy(const struct wt_eval_counts *c, enum wt_class cls)
{
    size_t n = wt_eval_class_total(c, cls);
    return n ? (double)c->confusion[cls][cls] / (double)n : NAN;
}

/* GPU family of a model name: "NVIDIA H100 80GB HBM3" and "NVIDIA H100" are
 * both "H100"; "Tesla V100-SXM2-32GB" is "V100"; "NVIDIA TITAN X" is "TITAN X";
 * "NVIDIA GeForce RTX 4090" is "RTX 4090" (GeForce is a brand, not a family).
 * Letter case, '-' and '_' do not matter, as for the rated-power table
 * (gpu_models.c): "NVIDIA-H100-80GB-HBM3" (a Kubernetes node label's
 * spelling) and "nvidia h100" are "H100" too (they were families of their
 * own, "NVIDIA" and "nvidia", and --holdout gpu_model scored an H100 trace so
 * spelt with a model that learnt the other H100s).  Upper case. */
void wt_eval_gpu_family(const char *model, char *out, size_t cap)
{
    char norm[256];
    size_t k = 0;
    for (const char *q = model; *q && k < sizeof(norm) - 1; q++) {
        char c = *q == '-' || *q == '_' ? ' ' : (char)toupper((unsigned char)*q);
        if (c == ' ' && (k == 0 || norm[k - 1] == ' '))
            continue;
        norm[k++] = c;
    }
    norm[k] = '\0';
    const char *p = norm;
    static const char *const vendors[] = {"NVIDIA ", "TESLA ", "AMD ", "INSTINCT ", "GEFORCE "};
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++)
            if (!strncmp(p, vendors[i], strlen(vendors[i]))) {
                p += strlen(vendors[i]);
                again = 1;
            }
    }
    size_t n = strcspn(p, " ");
    if (!strncmp(p, "TITAN", 5) || !strncmp(p, "RTX", 3) || !strncmp(p, "GTX", 3) ||
        !strncmp(p, "QUADRO", 6))
        n += p[n] == ' ' ? 1 + strcspn(p + n + 1, " ") : 0;
    snprintf(out, cap, "%.*s", (int)n, p);
}

struct ctx {
    struct wt_eval_report *rep;
    const struct wt_eval_opts *o;
};

static int on_file(void *vctx, const char *path, const char *group, const char *gpu_model,
                   struct wt_err *err)
{
    struct ctx *c = vctx;
    struct wt_eval_report *rep = c->rep;
    if (rep->nfiles == rep->cap) {
        size_t ncap = rep->cap ? rep->cap * 2 : 64;
        struct wt_eval_file *nf = realloc(rep->files, ncap * sizeof(*nf));
        if (!nf)
            return wt_errf(err, WT_ENOMEM, "out of memory");
        rep->files = nf;
        rep->cap = ncap;
    }
    struct wt_eval_file *f = &rep->files[rep->nfiles];
    memset(f, 0, sizeof(*f));
    char fam[96];
    wt_eval_gpu_family(gpu_model, fam, sizeof(fam));
    f->path = strdup(path);
    f->group = strdup(c->o->group_by_model ? fam : group);
    if (!f->path || !f->group) {
        free(f->path);
        free(f->group);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    snprintf(f->gpu_model, sizeof(f->gpu_model), "%s", gpu_model);
    rep->nfiles++;
    return WT_OK;
}

void wt_csv_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void wt_eval_dump_header(FILE *f)
{
    fputs("file,source,gpu_model,gpu,t_start,truth,predicted,confidence,score", f);
    for (int i = 0; i < WT_NFEATURES; i++)
        fprintf(f, ",%s", wt_feature_name(i));
    fputc('\n', f);
}

static void dump_row(struct ctx *c, const struct wt_ds_window *dw, const struct wt_result *r)
{
    FILE *f = c->o->dump;
    wt_csv_text(f, dw->path);
    fputc(',', f);
    wt_csv_text(f, dw->group);
    fputc(',', f);
    wt_csv_text(f, dw->gpu_model);
    fprintf(f, ",%d,%.3f,%s,%s,%.4f,", dw->w->gpu, dw->t_start, wt_class_name(dw->truth),
            wt_class_name(r->cls), r->confidence);
    if (wt_measured(r->score))
        fprintf(f, "%.4f", r->score);
    for (int i = 0; i < WT_NFEATURES; i++) {
        if (wt_measured(r->features.v[i]))
            fprintf(f, ",%.6g", r->features.v[i]);
        else
            fputs(",", f);
    }
    fputc('\n', f);
}

static int on_window(void *vctx, const struct wt_ds_window *dw, struct wt_err *err)
{
    struct ctx *c = vctx;
    struct wt_eval_counts *cnt = &c->rep->files[c->rep->nfiles - 1].c;
    if (dw->skip == WT_DS_UNLABELLED) {
        cnt->skipped_unlabelled++;
        size_t i = 0;
        while (i < dw->w->n && dw->w->s[i].label == WT_CLASS_NONE)
            i++;
        cnt->skipped_no_label += i == dw->w->n;
        return WT_OK;
    }
    if (dw->skip == WT_DS_SHORT) {
        cnt->skipped_short++;
        return WT_OK;
    }
    struct wt_result r;
    int rc = wt_classify_window(c->o->clf, dw->w, &r, err);
    if (rc)
        return rc;
    struct wt_eval_file *file = &c->rep->files[c->rep->nfiles - 1];
    if (!file->no_power_scale && !wt_measured(wt_gpu_rated_power_w(dw->gpu_model))) {
        int power = 0, limit = 0;
        for (size_t i = 0; i < dw->w->n; i++) {
            power |= wt_measured(dw->w->s[i].v[WT_COL_POWER]);
            limit |= wt_measured(dw->w->s[i].v[WT_COL_POWER_LIMIT]);
        }
        file->no_power_scale = power && !limit;
    }
    int pred = (r.cls >= 0 && r.cls < WT_NPRED) ? (int)r.cls : WT_CLASS_UNKNOWN;
    cnt->confusion[dw->truth][pred]++;
    cnt->scored++;
    cnt->correct += (pred == (int)dw->truth);
    if (c->o->dump)
        dump_row(c, dw, &r);
    return WT_OK;
}

static int on_not_trace(void *vctx, const char *path, struct wt_err *err)
{
    return wt_ds_skips_add(&((struct ctx *)vctx)->rep->skipped_files, path, NULL, err);
}

static int on_duplicate(void *vctx, const char *path, const char *same_as, struct wt_err *err)
{
    return wt_ds_skips_add(&((struct ctx *)vctx)->rep->skipped_files, path, same_as, err);
}

int wt_eval_add_path(struct wt_eval_report *rep, const char *path, const struct wt_eval_opts *o,
                     struct wt_err *err)
{
    struct ctx c = {rep, o};
    struct wt_ds_opts dso = {
        .seen = &rep->seen,
        .window_s = o->window_s,
        .trace_opts = o->trace_opts,
        .resample_hz = o->resample_hz,
        .columns = o->columns,
        .min_samples = o->clf->min_samples,
        .truth_s = o->clf->max_seconds,
        .sleep = o->sleep,
        .alone = o->alone,
        .all_peers = o->all_peers,
    };
    struct wt_ds_callbacks cb = {on_file, on_window, on_not_trace, on_duplicate, &c};
    return wt_ds_walk(path, &dso, &cb, err);
}

void wt_eval_free(struct wt_eval_report *rep)
{
    for (size_t i = 0; i < rep->nfiles; i++) {
        free(rep->files[i].path);
        free(rep->files[i].group);
    }
    free(rep->files);
    wt_ds_skips_free(&rep->skipped_files);
    wt_ds_seen_free(&rep->seen);
    if (rep->classifier_owned)
        free((char *)rep->classifier);
    memset(rep, 0, sizeof(*rep));
}

/* Union-find over file indices: the root of f's fold. */
static size_t fold_root(size_t *up, size_t f)
{
    while (up[f] != f)
        f = up[f] = up[up[f]];
    return f;
}

/* Each trace's fold under --holdout source: its folder's, merged with the
 * folder of any copy of it in another folder (read once, under the folder
 * named first): the sources a trace stands in are held out together, so
 * that it is scored by a model that learnt from none of them (a copy that
 * sorted first scored its trace in a fold that had learnt from the rest of
 * its true source).  Returns 0, or -1 when out of memory. */
static int source_folds(const struct wt_trainset *ts, size_t *up)
{
    for (size_t f = 0; f < ts->nfiles; f++)
        up[f] = f;
    for (size_t f = 0; f < ts->nfiles; f++)
        for (size_t g = 0; g < f; g++)
            if (!ts->files[f].builtin && !ts->files[g].builtin &&
                !strcmp(ts->files[f].group, ts->files[g].group)) {
                up[fold_root(up, f)] = fold_root(up, g);
                break;
            }
    for (size_t i = 0; i < ts->skipped_files.n; i++) {
        const struct wt_ds_skipped *c = &ts->skipped_files.v[i];
        if (!c->same_as)
            continue; /* not a trace */
        char *cg = wt_ds_group(c->path);
        if (!cg)
            return -1;
        size_t kept = SIZE_MAX, other = SIZE_MAX;
        for (size_t f = 0; f < ts->nfiles; f++) {
            if (ts->files[f].builtin)
                continue;
            if (kept == SIZE_MAX && !strcmp(ts->files[f].path, c->same_as))
                kept = f;
            if (other == SIZE_MAX && !strcmp(ts->files[f].group, cg))
                other = f;
        }
        free(cg);
        if (kept != SIZE_MAX && other != SIZE_MAX)
            up[fold_root(up, other)] = fold_root(up, kept);
    }
    return 0;
}

int wt_eval_holdout(struct wt_eval_report *rep, const char *const *paths, int npaths,
                    const struct wt_eval_opts *o, const char *by, struct wt_err *err)
{
    struct wt_trainset ts = {0};
    struct wt_train_config cfg = wt_train_default;
    struct wt_model *m = malloc(sizeof(*m));
    unsigned char *exclude = NULL, *done = NULL;
    size_t *up = NULL; /* --holdout source: the folds (source_folds) */
    int rc = WT_OK, by_model = !strcmp(by, "gpu_model");
    if (!m)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    if (!by_model && strcmp(by, "source")) {
        rc = wt_errf(err, WT_EINVAL, "--holdout: by 'source' or 'gpu_model', not '%.40s'", by);
        goto out;
    }
    cfg.window_s = o->window_s;
    cfg.features = o->train_features;
    if (o->train_alone >= 0)
        cfg.alone_views = o->train_alone;
    if (o->train_depth > 0)
        cfg.depth = o->train_depth;
    if (o->train_rounds > 0)
        cfg.rounds = o->train_rounds;
    cfg.retime = o->train_retime;
    cfg.sim_seed = o->train_sim_seed;
    if (o->train_sim_weight > 0)
        cfg.sim_weight = o->train_sim_weight;
    cfg.missing_stop = o->train_missing_stop;
    cfg.nfeatures = o->train_nfeatures;
    cfg.trace_opts = o->trace_opts; /* read the traces as they are scored */
    for (int i = 0; i < npaths; i++)
        if ((rc = wt_trainset_add(&ts, paths[i], &cfg, err)) != WT_OK)
            goto out;
    for (size_t i = 0; i < ts.skipped_files.n; i++)
        if ((rc = wt_ds_skips_add(&rep->skipped_files, ts.skipped_files.v[i].path,
                                  ts.skipped_files.v[i].same_as, err)) != WT_OK)
            goto out;
    if (ts.nfiles == 0)
        goto out;    /* no trace: the caller says so, before any window is simulated */
    if (ts.n == 0) { /* as train refuses them: the folds would learn generated windows alone */
        rc = wt_errf(err, WT_EINVAL,
                     "the traces hold no labelled TRAINING or INFERENCE window to train the "
                     "folds on (labels must cover 80%% of a --window)");
        goto out;
    }
    if (o->train_sim >= 0)
        cfg.sim_per_cell = (unsigned)o->train_sim;
    if (cfg.sim_per_cell && (rc = wt_trainset_add_sim(&ts, cfg.sim_per_cell, &cfg, err)))
        goto out;
    if (o->train_py >= 0)
        cfg.py_per_cell = (unsigned)o->train_py;
    if (cfg.py_per_cell && (rc = wt_trainset_add_python(&ts, cfg.py_per_cell, err)) != WT_OK)
        goto out;
    rep->train = cfg; /* as the report's reader would retrain a fold */
    rep->trained = 1;
    rep->holdout = by_model ? "gpu_model" : "source";
    exclude = calloc(ts.nfiles ? ts.nfiles : 1, 1);
    done = calloc(ts.nfiles ? ts.nfiles : 1, 1);
    up = malloc((ts.nfiles ? ts.nfiles : 1) * sizeof(*up));
    if (!exclude || !done || !up || (!by_model && source_folds(&ts, up))) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t f = 0; f < ts.nfiles; f++) {
        if (done[f] || ts.files[f].builtin)
            continue; /* the generated windows are never held out, nor scored here */
        char key[96], k2[96];
        if (by_model)
            wt_eval_gpu_family(ts.files[f].gpu_model, key, sizeof(key));
        else
            snprintf(key, sizeof(key), "%s", ts.files[f].group);
        for (size_t g = 0; g < ts.nfiles; g++) {
            if (by_model)
                wt_eval_gpu_family(ts.files[g].gpu_model, k2, sizeof(k2));
            else
                snprintf(k2, sizeof(k2), "%s", ts.files[g].group);
            /* the built-in windows are never held out, also when a trace's
             * GPU or directory is named like theirs ("synthetic": a `record
             * --backend synthetic` trace held them out, and they were then
             * opened as files; a directory "simulator" was never scored) */
            exclude[g] = (by_model ? !strcmp(key, k2) : fold_root(up, g) == fold_root(up, f)) &&
                         !ts.files[g].builtin;
        }
        /* sources held out together (a trace in both) are named together */
        for (size_t g = 0, kl = strlen(key); !by_model && g < ts.nfiles && kl < sizeof(key); g++) {
            int named = !exclude[g] || !strcmp(ts.files[g].group, ts.files[f].group);
            for (size_t h = 0; !named && h < g; h++)
                named = exclude[h] && !strcmp(ts.files[h].group, ts.files[g].group);
            if (!named)
                kl += (size_t)snprintf(key + kl, sizeof(key) - kl, "+%s", ts.files[g].group);
        }
        char what[200];
        snprintf(what, sizeof(what), "holding out %s '%s'", by, key);
        if ((rc = wt_trainset_fit(&ts, exclude, &cfg, m, err)) != WT_OK) {
            wt_err_prefix(err, what);
            goto out;
        }
        if (m->ntrees == 0) { /* every window would get the prior, UNKNOWN: not a score */
            rc = wt_errf(err, WT_EINVAL,
                         "%s: no tree could be grown: the features given do not separate the "
                         "other traces' windows (utilization features are not read where power "
                         "has a scale: see docs/classifier.md)",
                         what);
            goto out;
        }
        size_t real[2];
        wt_trainset_real_counts(&ts, exclude, real);
        for (int c = 0; c < 2; c++)
            if (real[c] == 0)
                fprintf(stderr,
                        "workloadtruth eval: warning: %s: the other traces hold no %s window; "
                        "this fold learns it from the generated windows alone\n",
                        what, c ? "TRAINING" : "INFERENCE");
        struct wt_classifier clf = wt_classifier_physics_with(m);
        struct wt_eval_opts fo = *o;
        fo.clf = &clf;
        for (size_t g = 0; g < ts.nfiles; g++) {
            if (!exclude[g])
                continue;
            done[g] = 1;
            if ((rc = wt_eval_add_path(rep, ts.files[g].path, &fo, err)) != WT_OK)
                goto out;
        }
    }
out:
    free(exclude);
    free(done);
    free(up);
    free(m);
    wt_trainset_free(&ts);
    return rc;
}
