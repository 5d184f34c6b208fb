/* Evaluation over labelled traces (see eval.h). */
#include "eval/eval.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "telemetry/source.h"

#define MAX_DEPTH 16

void wt_eval_init(struct wt_eval_report *rep, const struct wt_eval_opts *o)
{
    memset(rep, 0, sizeof(*rep));
    rep->window_s = o->window_s;
    rep->classifier = o->clf->name;
}

void wt_eval_add_counts(struct wt_eval_counts *dst, const struct wt_eval_counts *src)
{
    dst->scored += src->scored;
    dst->correct += src->correct;
    dst->skipped_unlabelled += src->skipped_unlabelled;
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

double wt_eval_class_accuracy(const struct wt_eval_counts *c, enum wt_class cls)
{
    size_t n = wt_eval_class_total(c, cls);
    return n ? (double)c->confusion[cls][cls] / (double)n : NAN;
}

static char *parent_name(const char *path)
{
    const char *end = strrchr(path, '/');
    if (!end)
        return strdup(".");
    const char *start = end;
    while (start > path && start[-1] != '/')
        start--;
    if (start == end)
        return strdup("/");
    return strndup(start, (size_t)(end - start));
}

static int score_gpu(struct wt_source *src, int gpu, const struct wt_eval_opts *o,
                     const struct wt_device_info *info, struct wt_eval_counts *c,
                     struct wt_err *err)
{
    struct wt_sample *s = NULL;
    size_t n = 0, cap = 0;
    int rc;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            struct wt_sample *ns = realloc(s, ncap * sizeof(*s));
            if (!ns) {
                rc = wt_errf(err, WT_ENOMEM, "out of memory");
                goto out;
            }
            s = ns;
            cap = ncap;
        }
        size_t got = 0;
        rc = wt_source_read(src, gpu, s + n, cap - n, &got, err);
        if (rc == WT_DONE)
            break;
        if (rc == WT_ENODEV) { /* GPU index not present in this file */
            rc = WT_OK;
            goto out;
        }
        if (rc)
            goto out;
        n += got;
    }
    struct wt_window_iter it;
    size_t start, count;
    wt_window_iter_init(&it, s, n, o->window_s);
    while (wt_window_iter_next(&it, &start, &count)) {
        struct wt_window w = {
            .s = s + start,
            .n = count,
            .gpu = gpu,
            .power_semantics = info->power_semantics,
            .gpu_model = info->name,
        };
        enum wt_class truth = wt_window_truth(&w);
        if (truth == WT_CLASS_NONE) {
            c->skipped_unlabelled++;
            continue;
        }
        if (count < o->clf->min_samples || count < 2 || wt_window_seconds(&w) < 0.5 * o->window_s) {
            c->skipped_short++;
            continue;
        }
        struct wt_result r;
        rc = wt_classify_window(o->clf, &w, &r, err);
        if (rc)
            goto out;
        int pred = (r.cls >= 0 && r.cls < WT_NPRED) ? (int)r.cls : WT_CLASS_UNKNOWN;
        c->confusion[truth][pred]++;
        c->scored++;
        c->correct += (pred == (int)truth);
    }
    rc = WT_OK;
out:
    free(s);
    return rc;
}

static int add_file(struct wt_eval_report *rep, const char *path, const struct wt_eval_opts *o,
                    int from_dir, struct wt_err *err)
{
    struct wt_source_config cfg = {0};
    struct wt_source *src = NULL;
    cfg.trace_path = path;
    cfg.trace_opts = o->trace_opts;
    int rc = wt_source_open("replay", &cfg, &src, err);
    if (rc == WT_EFORMAT && from_dir) {
        char **nt = realloc(rep->not_traces, (rep->nnot_traces + 1) * sizeof(*nt));
        if (!nt)
            return wt_errf(err, WT_ENOMEM, "out of memory");
        rep->not_traces = nt;
        if (!(nt[rep->nnot_traces] = strdup(path)))
            return wt_errf(err, WT_ENOMEM, "out of memory");
        rep->nnot_traces++;
        return WT_OK;
    }
    if (rc)
        return rc;
    int ngpus = 0;
    if ((rc = wt_source_device_count(src, &ngpus, err)) != WT_OK)
        goto out;
    if (ngpus == 0) {
        rc = wt_errf(err, WT_EINVAL, "%s: the trace has no data rows", path);
        goto out;
    }
    if (rep->nfiles == rep->cap) {
        size_t ncap = rep->cap ? rep->cap * 2 : 64;
        struct wt_eval_file *nf = realloc(rep->files, ncap * sizeof(*nf));
        if (!nf) {
            rc = wt_errf(err, WT_ENOMEM, "out of memory");
            goto out;
        }
        rep->files = nf;
        rep->cap = ncap;
    }
    struct wt_eval_file *f = &rep->files[rep->nfiles];
    memset(f, 0, sizeof(*f));
    f->path = strdup(path);
    f->group = parent_name(path);
    if (!f->path || !f->group) {
        free(f->path);
        free(f->group);
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    rep->nfiles++;
    for (int g = 0; g < ngpus; g++) {
        struct wt_device_info info;
        if ((rc = wt_source_device_info(src, g, &info, err)) != WT_OK)
            goto out;
        if (g == 0)
            snprintf(f->gpu_model, sizeof(f->gpu_model), "%s", info.name);
        if ((rc = score_gpu(src, g, o, &info, &f->c, err)) != WT_OK)
            goto out;
    }
out:
    wt_source_close(src);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_csv_suffix(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && !strcasecmp(name + n - 4, ".csv");
}

static int add_dir(struct wt_eval_report *rep, const char *dir, const struct wt_eval_opts *o,
                   int depth, struct wt_err *err)
{
    if (depth > MAX_DEPTH)
        return wt_errf(err, WT_EINVAL, "%s: directories nested deeper than %d", dir, MAX_DEPTH);
    DIR *d = opendir(dir);
    if (!d)
        return wt_errf(err, WT_EIO, "cannot open directory '%s': %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = WT_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **nn = realloc(names, ncap * sizeof(*nn));
            if (!nn) {
                rc = wt_errf(err, WT_ENOMEM, "out of memory");
                goto out;
            }
            names = nn;
            cap = ncap;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) {
            rc = wt_errf(err, WT_ENOMEM, "out of memory");
            goto out;
        }
        snprintf(names[n], len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        n++;
    }
    qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n && rc == WT_OK; i++) {
        struct stat st;
        if (stat(names[i], &st) != 0) {
            rc = wt_errf(err, WT_EIO, "cannot stat '%s': %s", names[i], strerror(errno));
            break;
        }
        if (S_ISDIR(st.st_mode))
            rc = add_dir(rep, names[i], o, depth + 1, err);
        else if (S_ISREG(st.st_mode) && has_csv_suffix(names[i]))
            rc = add_file(rep, names[i], o, 1, err);
    }
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return rc;
}

int wt_eval_add_path(struct wt_eval_report *rep, const char *path, const struct wt_eval_opts *o,
                     struct wt_err *err)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) != 0)
        return wt_errf(err, WT_EIO, "cannot open '%s': %s", path, strerror(errno));
    if (strcmp(path, "-") != 0 && S_ISDIR(st.st_mode))
        return add_dir(rep, path, o, 0, err);
    return add_file(rep, path, o, 0, err);
}

void wt_eval_free(struct wt_eval_report *rep)
{
    for (size_t i = 0; i < rep->nfiles; i++) {
        free(rep->files[i].path);
        free(rep->files[i].group);
    }
    free(rep->files);
    for (size_t i = 0; i < rep->nnot_traces; i++)
        free(rep->not_traces[i]);
    free(rep->not_traces);
    memset(rep, 0, sizeof(*rep));
}
