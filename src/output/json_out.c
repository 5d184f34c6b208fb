/* JSON output (see output.h). */
#include "output/output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "util/text.h"

json_t *wt_json_number(double v, int digits)
{
    if (!isfinite(v))
        return json_null();
    return json_real(wt_round(v, digits));
}

/* A feature's value: the Python tool's six rounded to 4 decimals as it prints
 * them, the others to 6 significant digits, the precision of the model file's
 * thresholds and of the audit log, so a value shown is the value the model
 * compared (4 decimals turned a memory slope of 8e-05 into 0.0001 and 3e-05
 * into 0). */

json_t *wt_json_text(const char *s)
{
    json_t *j = s ? json_string(s) : NULL;
    if (j || !s)
        return j;
    char *c = strdup(s);
    if (!c)
        return NULL;
    j = json_string(wt_text_clean(c));
    free(c);
    return j;
}

static json_t *feature_number(enum wt_feature f, double v)
{
    if (f <= WT_F_AVG_PROCS || !isfinite(v))
        return wt_json_number(v, 4);
    char buf[40];
    snprintf(buf, sizeof(buf), "%.6g", v);
    double r = strtod(buf, NULL);
    return json_real(r == 0.0 ? 0.0 : r);
}

/* json_object_set_new that remembers failure instead of returning it. */
static void put(json_t *o, const char *k, json_t *v, int *bad)
{
    if (!v || json_object_set_new(o, k, v) != 0)
        *bad = 1;
}

static void push(json_t *a, json_t *v, int *bad)
{
    if (!v || json_array_append_new(a, v) != 0)
        *bad = 1;
}

json_t *wt_json_result(const struct wt_result *r)
{
    int bad = 0;
    json_t *o = json_object();
    json_t *reasons = json_array();
    json_t *feats = json_object();
    if (!o || !reasons || !feats) {
        json_decref(o);
        json_decref(reasons);
        json_decref(feats);
        return NULL;
    }
    put(o, "workload_type", wt_json_text(wt_class_name(r->cls)), &bad);
    put(o, "confidence", wt_json_number(r->confidence, 4), &bad);
    put(o, "gpu_index", json_integer(r->gpu_index), &bad);
    put(o, "window_seconds", wt_json_number(r->window_seconds, 4), &bad);
    put(o, "sample_count", json_integer((json_int_t)r->sample_count), &bad);
    for (size_t i = 0; i < r->nreasons; i++)
        push(reasons, wt_json_text(r->reasons[i].text), &bad);
    put(o, "reasons", reasons, &bad);
    if (r->classifier)
        for (size_t i = 0; i < r->classifier->nexposed; i++) {
            enum wt_feature f = r->classifier->exposed[i];
            put(feats, wt_feature_name(f), feature_number(f, r->features.v[f]), &bad);
        }
    put(o, "features", feats, &bad);
    if (r->classifier)
        put(o, "classifier", wt_json_text(r->classifier->name), &bad);
    json_t *ev = json_array();
    for (size_t i = 0; i < r->nreasons; i++) {
        const struct wt_reason *x = &r->reasons[i];
        if (x->feature < 0 || x->favours == WT_CLASS_NONE)
            continue;
        json_t *e = json_object();
        put(e, "feature", wt_json_text(wt_feature_name(x->feature)), &bad);
        /* the value the classifier read (the model's view may leave out
         * utilization), not the full feature set's */
        put(e, "value", feature_number(x->feature, x->value), &bad);
        put(e, "favours", wt_json_text(wt_class_name(x->favours)), &bad);
        /* physics: always the key, null for the IDLE rule's evidence, which
         * has no log-odds (an IDLE window's objects lacked it) */
        if (isfinite(x->weight))
            put(e, "log_odds", wt_json_number(x->weight, 4), &bad);
        else if (r->classifier && !strcmp(r->classifier->name, "physics"))
            put(e, "log_odds", json_null(), &bad);
        push(ev, e, &bad);
    }
    put(o, "evidence", ev, &bad);
    json_t *tp = json_array();
    for (size_t i = 0; i < r->ntamper; i++)
        push(tp, wt_json_text(r->tamper[i]), &bad);
    put(o, "tamper_indicators", tp, &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* How a --holdout's models were trained: the `train` options that rebuild
 * them, and each setting (features resolved: the physics set when none was
 * named). */
static json_t *train_json(const struct wt_train_config *c, int *bad)
{
    json_t *o = json_object();
    json_t *fl = json_array();
    char args[2048];
    if (wt_train_config_args(c, 1, args, sizeof(args)) != 0)
        *bad = 1; /* 28 feature names fit many times over */
    put(o, "options", wt_json_text(args), bad);
    /* as given, as in "options" (4 decimals said 0.1235 of 0.123456) */
    put(o, "window_seconds", isfinite(c->window_s) ? json_real(c->window_s) : json_null(), bad);
    put(o, "rounds", json_integer(c->rounds), bad);
    put(o, "depth", json_integer(c->depth), bad);
    put(o, "simulate", json_integer(c->sim_per_cell), bad);
    put(o, "sim_weight", isfinite(c->sim_weight) ? json_real(c->sim_weight) : json_null(), bad);
    put(o, "python_windows", json_integer(c->py_per_cell), bad);
    put(o, "alone_views", json_integer(c->alone_views), bad);
    put(o, "retime", json_integer(c->retime), bad);
    put(o, "sim_seed", json_integer((json_int_t)c->sim_seed), bad);
    put(o, "missing", wt_json_text(c->missing_stop ? "stop" : "side"), bad);
    const enum wt_feature *f = c->features ? c->features : wt_physics_model_features;
    size_t n = c->features ? c->nfeatures : wt_physics_model_nfeatures;
    for (size_t i = 0; i < n; i++)
        push(fl, wt_json_text(wt_feature_name(f[i])), bad);
    put(o, "features", fl, bad);
    return o;
}

static json_t *sim_benchmark(const struct wt_bench_report *b, int *bad)
{
    json_t *o = json_object();
    json_t *cells = json_array();
    json_t *fams = json_array();
    unsigned t = 0, c = 0, tr = 0;
    for (unsigned i = 0; i < b->ncells; i++) {
        t += b->cells[i].trials;
        c += b->cells[i].correct;
        tr += b->cells[i].training;
    }
    put(o, "suite", wt_json_text(b->suite), bad);
    put(o, "classifier", wt_json_text(b->classifier), bad);
    put(o, "source", wt_json_text("simulator"), bad);
    /* as given (4 decimals read 0.3333 of 0.333333 Hz: not a rerun) */
    put(o, "window_seconds", json_real(b->window_s), bad);
    put(o, "sample_hz", json_real(b->sample_hz), bad);
    put(o, "trials_per_cell", json_integer(b->trials), bad);
    put(o, "seed", json_integer((json_int_t)b->seed), bad);
    put(o, "holdout", b->holdout ? wt_json_text(b->holdout) : json_null(), bad);
    put(o, "model", b->model ? wt_json_text(b->model) : json_null(), bad);
    if (b->holdout && b->train)
        put(o, "training", train_json(b->train, bad), bad);
    put(o, "accuracy", wt_json_number(t ? (double)c / t : NAN, 4), bad);
    if (!strcmp(b->suite, "board")) {
        put(o, "default_strength_accuracy", wt_json_number(wt_bench_default_accuracy(b), 4), bad);
        put(o, "called_training", wt_json_number(t ? (double)tr / t : NAN, 4), bad);
    }
    if (!strcmp(b->suite, "evasion")) {
        put(o, "default_strength_accuracy", wt_json_number(wt_bench_default_accuracy(b), 4), bad);
        for (unsigned i = 0; i < b->ncells; i++) {
            const struct wt_bench_cell *x = &b->cells[i];
            if (!x->is_default)
                continue;
            json_t *f = json_object();
            put(f, "family", wt_json_text(x->family), bad);
            put(f, "default_strength", wt_json_number(x->strength, 4), bad);
            put(f, "accuracy", wt_json_number(x->trials ? (double)x->correct / x->trials : NAN, 4),
                bad);
            put(f, "throughput_cost", wt_json_number(x->throughput_cost, 6), bad);
            push(fams, f, bad);
        }
        put(o, "per_family", fams, bad);
    } else {
        json_decref(fams);
    }
    for (unsigned i = 0; i < b->ncells; i++) {
        const struct wt_bench_cell *x = &b->cells[i];
        json_t *cj = json_object();
        put(cj, "profile", wt_json_text(x->profile), bad);
        put(cj, "truth", wt_json_text(wt_class_name(x->truth)), bad);
        put(cj, "evasion", x->family ? wt_json_text(x->family) : json_null(), bad);
        put(cj, "strength", wt_json_number(x->strength, 4), bad);
        put(cj, "trials", json_integer(x->trials), bad);
        put(cj, "correct", json_integer(x->correct), bad);
        put(cj, "called_training", json_integer(x->training), bad);
        put(cj, "accuracy", wt_json_number(x->trials ? (double)x->correct / x->trials : NAN, 4),
            bad);
        put(cj, "throughput_cost", wt_json_number(x->throughput_cost, 6), bad);
        push(cells, cj, bad);
    }
    put(o, "cells", cells, bad);
    return o;
}

json_t *wt_json_benchmark(const struct wt_bench_report *b)
{
    int bad = 0;
    if (strcmp(b->suite, "seed")) {
        json_t *o = sim_benchmark(b, &bad);
        if (bad) {
            json_decref(o);
            return NULL;
        }
        return o;
    }
    json_t *o = json_object();
    json_t *cells = json_array();
    if (!o || !cells) {
        json_decref(o);
        json_decref(cells);
        return NULL;
    }
    put(o, "source", wt_json_text("synthetic"), &bad);
    put(o, "note",
        wt_json_text("synthetic telemetry from the Python tool's profiles; accuracy on real GPU "
                     "traces is measured by `workloadtruth eval`"),
        &bad);
    put(o, "window_size", json_integer(b->window), &bad);
    put(o, "trials_per_cell", json_integer(b->trials), &bad);
    put(o, "clean_accuracy", wt_json_number(wt_bench_accuracy(b, false), 4), &bad);
    put(o, "evasion_accuracy", wt_json_number(wt_bench_accuracy(b, true), 4), &bad);
    for (unsigned i = 0; i < b->ncells; i++) {
        const struct wt_bench_cell *c = &b->cells[i];
        json_t *cj = json_object();
        if (!cj) {
            bad = 1;
            break;
        }
        put(cj, "profile", wt_json_text(c->profile), &bad);
        put(cj, "evasion", json_boolean(c->evasion), &bad);
        put(cj, "trials", json_integer(c->trials), &bad);
        put(cj, "correct", json_integer(c->correct), &bad);
        put(cj, "accuracy", wt_json_number(c->trials ? (double)c->correct / c->trials : 0, 4),
            &bad);
        push(cells, cj, &bad);
    }
    put(o, "cells", cells, &bad);
    put(o, "suite", wt_json_text(b->suite), &bad);
    put(o, "classifier", wt_json_text(b->classifier), &bad);
    put(o, "seed", json_integer((json_int_t)b->seed), &bad);
    put(o, "model", b->model ? wt_json_text(b->model) : json_null(), &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static const char *pred_name(int p)
{
    return wt_class_name((enum wt_class)p);
}

static json_t *counts_json(const struct wt_eval_counts *c, int *bad)
{
    json_t *o = json_object();
    json_t *pc = json_object();
    json_t *conf = json_object();
    if (!o || !pc || !conf) {
        json_decref(o);
        json_decref(pc);
        json_decref(conf);
        *bad = 1;
        return NULL;
    }
    put(o, "windows", json_integer((json_int_t)c->scored), bad);
    put(o, "correct", json_integer((json_int_t)c->correct), bad);
    put(o, "accuracy", wt_json_number(c->scored ? (double)c->correct / c->scored : NAN, 4), bad);
    json_t *sk = json_object();
    put(sk, "unlabelled", json_integer((json_int_t)c->skipped_unlabelled), bad);
    put(sk, "short", json_integer((json_int_t)c->skipped_short), bad);
    put(o, "skipped", sk, bad);
    for (int t = 0; t < WT_NCLASSES; t++) {
        json_t *cls = json_object();
        json_t *row = json_object();
        put(cls, "windows", json_integer((json_int_t)wt_eval_class_total(c, t)), bad);
        put(cls, "correct", json_integer((json_int_t)c->confusion[t][t]), bad);
        put(cls, "accuracy", wt_json_number(wt_eval_class_accuracy(c, t), 4), bad);
        put(pc, wt_class_name(t), cls, bad);
        for (int p = 0; p < WT_NPRED; p++)
            put(row, pred_name(p), json_integer((json_int_t)c->confusion[t][p]), bad);
        put(conf, wt_class_name(t), row, bad);
    }
    size_t false_train, nontrain;
    wt_eval_false_training(c, &false_train, &nontrain);
    put(o, "per_class", pc, bad);
    put(o, "confusion", conf, bad);
    put(o, "false_training_rate",
        wt_json_number(nontrain ? (double)false_train / nontrain : NAN, 4), bad);
    return o;
}

json_t *wt_json_eval(const struct wt_eval_report *e)
{
    int bad = 0;
    struct wt_eval_counts tot;
    wt_eval_total(e, &tot);
    json_t *o = counts_json(&tot, &bad);
    if (!o)
        return NULL;
    json_t *first = json_object();
    put(first, "classifier", wt_json_text(e->classifier), &bad);
    put(first, "window_seconds", wt_json_number(e->window_s, 4), &bad);
    put(first, "files", json_integer((json_int_t)e->nfiles), &bad);
    put(first, "model", e->model ? wt_json_text(e->model) : json_null(), &bad);
    /* null: the model as given, in-sample for the traces it learnt from */
    put(first, "holdout", e->holdout ? wt_json_text(e->holdout) : json_null(), &bad);
    if (e->alone || e->all_peers)
        put(first, "peers", wt_json_text(e->alone ? "none" : "all"), &bad);
    if (e->evasion) {
        json_t *ev = json_object();
        put(ev, "family", wt_json_text(e->evasion), &bad);
        /* as given (0.125, 4e-05), as the folds' settings: not rounded to 0 */
        put(ev, "strength", json_real(e->evasion_strength), &bad);
        put(ev, "applied_to", wt_json_text("recorded TRAINING stretches (sleep injection)"), &bad);
        put(first, "evasion", ev, &bad);
    }
    if (e->trained)
        put(first, "training", train_json(&e->train, &bad), &bad);
    if (json_object_update(first, o) != 0)
        bad = 1;
    json_decref(o);
    o = first;

    json_t *sources = json_array();
    for (size_t i = 0; i < e->nfiles; i++) {
        size_t j;
        for (j = 0; j < i; j++)
            if (!strcmp(e->files[j].group, e->files[i].group))
                break;
        if (j < i)
            continue; /* group already emitted */
        struct wt_eval_counts g = {0};
        size_t nf = 0;
        for (j = i; j < e->nfiles; j++)
            if (!strcmp(e->files[j].group, e->files[i].group)) {
                wt_eval_add_counts(&g, &e->files[j].c);
                nf++;
            }
        json_t *gj = json_object();
        put(gj, "source", wt_json_text(e->files[i].group), &bad);
        put(gj, "files", json_integer((json_int_t)nf), &bad);
        json_t *cj = counts_json(&g, &bad);
        if (cj && json_object_update(gj, cj) != 0)
            bad = 1;
        json_decref(cj);
        push(sources, gj, &bad);
    }
    put(o, "per_source", sources, &bad);

    json_t *files = json_array();
    for (size_t i = 0; i < e->nfiles; i++) {
        const struct wt_eval_file *f = &e->files[i];
        json_t *fj = json_object();
        put(fj, "file", wt_json_text(f->path), &bad);
        put(fj, "source", wt_json_text(f->group), &bad);
        put(fj, "gpu_model", wt_json_text(f->gpu_model), &bad);
        put(fj, "power_scale", json_boolean(!f->no_power_scale), &bad);
        json_t *cj = counts_json(&f->c, &bad);
        if (cj && json_object_update(fj, cj) != 0)
            bad = 1;
        json_decref(cj);
        push(files, fj, &bad);
    }
    put(o, "per_file", files, &bad);
    json_t *nt = json_array(), *dups = json_array();
    for (size_t i = 0; i < e->skipped_files.n; i++) {
        const struct wt_ds_skipped *s = &e->skipped_files.v[i];
        if (!s->same_as) {
            push(nt, wt_json_text(s->path), &bad);
            continue;
        }
        json_t *d = json_object();
        put(d, "file", wt_json_text(s->path), &bad);
        put(d, "same_as", wt_json_text(s->same_as), &bad);
        push(dups, d, &bad);
    }
    put(o, "not_traces", nt, &bad);
    put(o, "copies", dups, &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *str_or_null(const char *s)
{
    return s && *s ? wt_json_text(s) : json_null();
}

json_t *wt_json_processes(const struct wt_proc *p, size_t n)
{
    int bad = 0;
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        put(o, "pid", json_integer(p[i].pid), &bad);
        put(o, "used_memory_mib", wt_json_number(p[i].used_mib, 1), &bad);
        put(o, "sm_util_pct", wt_json_number(p[i].sm_util_pct, 1), &bad);
        put(o, "command", str_or_null(p[i].comm), &bad);
        put(o, "user", str_or_null(p[i].user), &bad);
        put(o, "container_id", str_or_null(p[i].container_id), &bad);
        put(o, "pod_uid", str_or_null(p[i].pod_uid), &bad);
        put(o, "slurm_job_id", str_or_null(p[i].slurm_job_id), &bad);
        push(a, o, &bad);
    }
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

json_t *wt_json_device(const struct wt_device_info *d, const struct wt_proc *p, size_t n,
                       int have_procs)
{
    int bad = 0;
    json_t *o = json_object();
    if (!o)
        return NULL;
    put(o, "index", json_integer(d->index), &bad);
    put(o, "name", wt_json_text(d->name), &bad);
    put(o, "uuid", str_or_null(d->uuid), &bad);
    put(o, "pci_bus_id", str_or_null(d->pci_bus_id), &bad);
    put(o, "memory_total_mib", wt_json_number(d->mem_total_mib, 1), &bad);
    put(o, "power_limit_w", wt_json_number(d->power_limit_w, 3), &bad);
    put(o, "power_default_limit_w", wt_json_number(d->power_default_limit_w, 3), &bad);
    put(o, "power_semantics", wt_json_text(d->power_semantics), &bad);
    put(o, "mig_mode",
        d->mig_mode < 0 ? json_null() : wt_json_text(d->mig_mode ? "enabled" : "disabled"), &bad);
    put(o, "is_mig_device", json_boolean(d->is_mig), &bad);
    put(o, "parent", d->is_mig ? json_integer(d->parent) : json_null(), &bad);
    put(o, "driver_version", str_or_null(d->driver_version), &bad);
    put(o, "notes", str_or_null(d->notes), &bad);
    put(o, "processes", have_procs ? wt_json_processes(p, n) : json_null(), &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int wt_json_print(FILE *f, const json_t *j)
{
    if (!j)
        return -1;
    if (json_dumpf(j, f, WT_JSON_FLAGS) != 0)
        return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

json_t *wt_json_verify(const struct wt_verify_report *r, int status, int key_pinned,
                       const char *log)
{
    static const char *const st_names[] = {"ok", "damaged", "error", "warnings"};
    char root[45];
    wt_b64_hash(r->root, root);
    int valid = status == WT_VERIFY_OK || status == WT_VERIFY_WARN;
    json_t *j = json_object();
    if (!j)
        return NULL;
    json_object_set_new(j, "valid", json_boolean(valid));
    json_object_set_new(j, "message", wt_json_text(r->message));
    json_object_set_new(j, "entries", json_integer((json_int_t)r->entries));
    json_object_set_new(j, "status", wt_json_text(st_names[status & 3]));
    /* nothing concluded (status error): no damage named either */
    int dmg = r->damage != WT_DMG_NONE && status != WT_VERIFY_ERROR;
    json_object_set_new(j, "damage", !dmg ? json_null() : wt_json_text(wt_damage_name(r->damage)));
    json_object_set_new(j, "line", r->line ? json_integer((json_int_t)r->line) : json_null());
    /* damage of no line (a checkpoint file, the key) has no offset either */
    json_object_set_new(j, "offset",
                        dmg && r->line ? json_integer((json_int_t)r->offset) : json_null());
    json_object_set_new(j, "sealed", json_integer((json_int_t)r->sealed));
    json_object_set_new(j, "checkpoint_records", json_integer((json_int_t)r->ckpt_records));
    json_object_set_new(j, "recoveries", json_integer((json_int_t)r->recoveries));
    json_object_set_new(j, "origin", r->have_genesis ? wt_json_text(r->origin) : json_null());
    json_object_set_new(j, "root", status == WT_VERIFY_ERROR ? json_null() : wt_json_text(root));
    json_object_set_new(j, "key_pinned", json_boolean(key_pinned));
    json_object_set_new(j, "log", wt_json_text(log));
    json_t *w = json_array();
    for (int i = 0; i < r->nwarn; i++)
        json_array_append_new(w, wt_json_text(r->warn[i]));
    json_object_set_new(j, "warnings", w);
    return j;
}

json_t *wt_json_run(const struct wt_run_outcome *run, enum wt_class declared, enum wt_verdict v)
{
    json_t *j = wt_json_result(&run->job);
    if (!j)
        return NULL;
    if (run->requested > 1) {
        json_t *arr = json_array();
        for (size_t i = 0; i < run->n; i++)
            json_array_append_new(arr, wt_json_result(&run->w[i]));
        json_t *job =
            json_pack("{s:I,s:I}", "windows", (json_int_t)run->n, "min_agree", (json_int_t)run->k);
        /* a trace that ended before the windows asked for */
        if (job && run->n < run->requested)
            json_object_set_new(job, "windows_requested", json_integer((json_int_t)run->requested));
        json_object_set_new(j, "job", job);
        json_object_set_new(j, "windows", arr);
    }
    /* who runs on the GPU: pid, memory, user, container, pod, Slurm job */
    if (run->have_procs)
        json_object_set_new(j, "processes", wt_json_processes(run->procs, run->nprocs));
    if (declared != WT_CLASS_NONE) {
        json_object_set_new(j, "declared", wt_json_text(wt_class_lname(declared)));
        json_object_set_new(j, "verdict", wt_json_text(wt_verdict_name(v)));
    }
    return j;
}
