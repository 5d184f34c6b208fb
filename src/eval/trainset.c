/* The physics model's training set (see trainset.h). */
#include "eval/trainset.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classifier.h"
#include "classify/train.h"
#include "eval/simcache.h"
#include "features/transform.h"
#include "telemetry/source.h"
#include "telemetry/simulate.h"
#include "util/rng.h"

const struct wt_train_config wt_train_default = {
    .window_s = 30,
    .rounds = 300,
    .depth = 3,
    .learning_rate = 0.3,
    .lambda = 1.0,
    .min_child = 0.02,
    .nthresholds = 32,
    .sim_per_cell = 60,
    .sim_weight = 0.4,
    .py_per_cell = 40,
    .alone_views = 1,
    .retime = 0,
    .sim_seed = 0,
    .missing_stop = 0,
};

/* Appends printf-style text at buf's end; 0, or -1 once cap is exceeded. */
static int append(char *buf, size_t cap, const char *fmt, ...) WT_PRINTF(3, 4);
static int append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= cap - len ? -1 : 0;
}

int wt_train_config_args(const struct wt_train_config *c, int list_features, char *buf, size_t cap)
{
    if (!cap)
        return -1;
    buf[0] = 0;
    int rc = append(buf, cap,
                    "--window %.15g --rounds %d --depth %d --simulate %u --sim-weight %.15g "
                    "--python-windows %u --alone-views %d",
                    c->window_s, c->rounds, c->depth, c->sim_per_cell, c->sim_weight,
                    c->py_per_cell, c->alone_views);
    if (c->features && !list_features)
        rc |= append(buf, cap, " --features (listed below)");
    for (size_t i = 0; c->features && list_features && i < c->nfeatures; i++)
        rc |= append(buf, cap, "%s%s", i ? "," : " --features ", wt_feature_name(c->features[i]));
    if (c->retime)
        rc |= append(buf, cap, " --retime 1");
    if (c->sim_seed)
        rc |= append(buf, cap, " --sim-seed %llu", (unsigned long long)c->sim_seed);
    if (c->missing_stop)
        rc |= append(buf, cap, " --missing stop");
    if (c->trace_opts.rows_per_tick)
        rc |= append(buf, cap, " --gpus-per-tick %u", c->trace_opts.rows_per_tick);
    if (c->trace_opts.interval_s != 1 && c->trace_opts.interval_s > 0)
        rc |= append(buf, cap, " --interval %.15g", c->trace_opts.interval_s);
    return rc ? -1 : 0;
}

#define POWER_ONLY                                                                                 \
    ((1u << WT_COL_POWER) | (1u << WT_COL_POWER_LIMIT) | (1u << WT_COL_POWER_DEFAULT_LIMIT))

struct view {
    double hz;
    uint32_t columns;
};
#define UTIL_POWER (POWER_ONLY | (1u << WT_COL_UTIL_GPU))
/* How deployments see a GPU: the native rate and NVML's common 1 Hz, each
 * with all columns, utilization and power, and power only; and a slow poll,
 * 0.2 Hz with all columns (6 samples a 30 s window: no step rhythm, no
 * cross-GPU synchrony), so that a poller slower than 1 Hz is not a regime the
 * model never saw (docs/evaluation.md item 25). */
static const struct view views[] = {
    {0, 0}, {1, 0}, {0, POWER_ONLY}, {1, POWER_ONLY}, {0, UTIL_POWER}, {1, UTIL_POWER}, {0.2, 0}};
_Static_assert(sizeof(views) / sizeof(views[0]) == WT_TRAINSET_VIEWS, "one seen-set per view");

struct ctx {
    struct wt_trainset *ts;
    int file;
    size_t view;
    int builtin; /* adding generated windows, not a trace file's */
};

static int on_file(void *vctx, const char *path, const char *group, const char *gpu_model,
                   struct wt_err *err)
{
    struct ctx *c = vctx;
    struct wt_trainset *ts = c->ts;
    /* the same file comes once per view: find it */
    for (size_t i = 0; i < ts->nfiles; i++)
        if (ts->files[i].builtin == c->builtin && !strcmp(ts->files[i].path, path)) {
            c->file = (int)i;
            return WT_OK;
        }
    if (ts->nfiles == ts->fcap) {
        size_t ncap = ts->fcap ? ts->fcap * 2 : 64;
        struct wt_trainset_file *nf = realloc(ts->files, ncap * sizeof(*nf));
        if (!nf)
            return wt_errf(err, WT_ENOMEM, "out of memory");
        ts->files = nf;
        ts->fcap = ncap;
    }
    struct wt_trainset_file *f = &ts->files[ts->nfiles];
    f->path = strdup(path);
    f->group = strdup(group);
    f->gpu_model = strdup(gpu_model);
    f->builtin = c->builtin;
    if (!f->path || !f->group || !f->gpu_model) {
        free(f->path);
        free(f->group);
        free(f->gpu_model);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    c->file = (int)ts->nfiles++;
    return WT_OK;
}

static int add_window(struct wt_trainset *ts, int file, const struct wt_ds_window *dw,
                      struct wt_err *err);
static int push_row(struct wt_trainset *ts, const struct wt_features *f, unsigned char y, int file,
                    struct wt_err *err);

/* A seed that names a window the same whatever path the traces were given
 * by: its directory, file name, start and view. */
static uint64_t window_seed(const struct wt_ds_window *dw, size_t view)
{
    const char *base = strrchr(dw->path, '/');
    base = base ? base + 1 : dw->path;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *q = dw->group; *q; q++)
        h = (h ^ (unsigned char)*q) * 0x100000001b3ULL;
    h = (h ^ '/') * 0x100000001b3ULL;
    for (const char *q = base; *q; q++)
        h = (h ^ (unsigned char)*q) * 0x100000001b3ULL;
    uint64_t t;
    memcpy(&t, &dw->t_start, sizeof(t));
    return wt_mix64(h ^ wt_mix64(t ^ ((uint64_t)view << 56)));
}

/* The window as another poller would have timed it: its clock k times as
 * fast (k within 0.6% of 1) and each sample late or early by up to a fifth of
 * the sample period (at most 5 ms), the same on every GPU of the host.  So the
 * model cannot learn a source's exact sample period from how many seconds a
 * window busy throughout spans. */
static int retimed(struct wt_trainset *ts, int file, const struct wt_ds_window *dw, size_t view,
                   struct wt_err *err)
{
    const struct wt_window *w = dw->w;
    size_t np = w->npeers, total = w->n;
    for (size_t p = 0; p < np; p++)
        total += w->peers[p].n;
    struct wt_sample *buf = malloc((total ? total : 1) * sizeof(*buf));
    struct wt_window *peers = malloc((np ? np : 1) * sizeof(*peers));
    if (!buf || !peers) {
        free(buf);
        free(peers);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    struct wt_rng rng;
    wt_rng_seed(&rng, window_seed(dw, view));
    double k = 1.0 + 0.012 * (wt_rng_uniform(&rng) - 0.5);
    double t0 = w->n ? w->s[0].t_s : 0;
    double period = w->n > 1 ? (w->s[w->n - 1].t_s - t0) / (double)(w->n - 1) : 0;
    double amp = 0.2 * period < 0.005 ? 0.2 * period : 0.005;
    size_t off = 0;
    struct wt_window one = *w;
    for (size_t p = 0; p <= np; p++) {
        const struct wt_window *src = p ? &w->peers[p - 1] : w;
        struct wt_sample *dst = buf + off;
        for (size_t i = 0; i < src->n; i++) {
            dst[i] = src->s[i];
            double t = t0 + (src->s[i].t_s - t0) * k + amp * (2 * wt_rng_uniform(&rng) - 1);
            /* never before the sample it follows */
            dst[i].t_s = i && t < dst[i - 1].t_s ? dst[i - 1].t_s : t;
        }
        if (p) {
            peers[p - 1] = *src;
            peers[p - 1].s = dst;
        } else {
            one.s = dst;
        }
        off += src->n;
    }
    one.peers = np ? peers : NULL;
    one.npeers = np;
    struct wt_ds_window dw1 = *dw;
    dw1.w = &one;
    int rc = add_window(ts, file, &dw1, err);
    free(buf);
    free(peers);
    return rc;
}

/* A trace's window at its native rate, retimed when asked (train --retime);
 * the simulator's and the Python tool's windows are as generated. */
static int learn(struct ctx *c, const struct wt_ds_window *dw, struct wt_err *err)
{
    if (c->ts->retime && !c->builtin && views[c->view].hz == 0)
        return retimed(c->ts, c->file, dw, c->view, err);
    return add_window(c->ts, c->file, dw, err);
}

static int on_window(void *vctx, const struct wt_ds_window *dw, struct wt_err *err)
{
    struct ctx *c = vctx;
    struct wt_trainset *ts = c->ts;
    if (dw->skip != WT_DS_SCORED || dw->truth == WT_CLASS_IDLE)
        return WT_OK;
    /* a window of a multi-GPU host is also learnt as if its GPU were alone,
     * so that "no other GPU" is not itself evidence of a class */
    if (dw->w->npeers && ts->alone_views) {
        struct wt_window alone = *dw->w;
        struct wt_ds_window dw1 = *dw;
        alone.npeers = 0;
        alone.peers = NULL;
        dw1.w = &alone;
        int rc = learn(c, &dw1, err);
        if (rc)
            return rc;
    }
    return learn(c, dw, err);
}

static int add_window(struct wt_trainset *ts, int file, const struct wt_ds_window *dw,
                      struct wt_err *err)
{
    struct wt_features f;
    wt_features_compute(dw->w, &f);
    if (wt_physics_is_idle(&f))
        return WT_OK; /* the rule decides these; the model sees active windows */
    struct wt_features pview;
    const struct wt_features *mf = wt_physics_model_view(dw->w, &f, &pview);
    if (mf != &f)
        f = *mf; /* what the classifier will show the model */
    return push_row(ts, &f, dw->truth == WT_CLASS_TRAINING, file, err);
}

static int push_row(struct wt_trainset *ts, const struct wt_features *f, unsigned char y, int file,
                    struct wt_err *err)
{
    if (ts->n == ts->cap) {
        size_t ncap = ts->cap ? ts->cap * 2 : 4096;
        struct wt_features *nx = realloc(ts->x, ncap * sizeof(*nx));
        if (!nx)
            return wt_errf(err, WT_ENOMEM, "out of memory");
        ts->x = nx;
        unsigned char *ny = realloc(ts->y, ncap);
        if (!ny)
            return wt_errf(err, WT_ENOMEM, "out of memory");
        ts->y = ny;
        int *nfile = realloc(ts->file, ncap * sizeof(int));
        if (!nfile)
            return wt_errf(err, WT_ENOMEM, "out of memory");
        ts->file = nfile;
        ts->cap = ncap;
    }
    ts->x[ts->n] = *f;
    ts->y[ts->n] = y;
    ts->file[ts->n] = file;
    ts->n++;
    return WT_OK;
}

/* every view walks the same files: the first one's skips are the list */
static int on_not_trace(void *vctx, const char *path, struct wt_err *err)
{
    struct ctx *c = vctx;
    return c->view ? WT_OK : wt_ds_skips_add(&c->ts->skipped_files, path, NULL, err);
}

static int on_duplicate(void *vctx, const char *path, const char *same_as, struct wt_err *err)
{
    struct ctx *c = vctx;
    return c->view ? WT_OK : wt_ds_skips_add(&c->ts->skipped_files, path, same_as, err);
}

int wt_trainset_add(struct wt_trainset *ts, const char *path, const struct wt_train_config *c,
                    struct wt_err *err)
{
    ts->window_s = c->window_s;
    ts->alone_views = c->alone_views;
    ts->retime = c->retime;
    for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
        struct ctx cx = {ts, -1, v, 0};
        struct wt_ds_opts o = {
            .seen = &ts->seen[v],
            .window_s = c->window_s,
            .resample_hz = views[v].hz,
            .columns = views[v].columns,
            .min_samples = wt_classifier_physics.min_samples,
            .trace_opts = c->trace_opts,
        };
        struct wt_ds_callbacks cb = {on_file, on_window, on_not_trace, on_duplicate, &cx};
        int rc = wt_ds_walk(path, &o, &cb, err);
        if (rc)
            return rc;
    }
    return WT_OK;
}

#define SIM_SEED_DOMAIN 0x7ea1a5eedULL
#define SIM_MAX_GPUS 16

static int add_sim_cell(struct wt_trainset *ts, const char *profile, const char *family,
                        double strength, unsigned per_cell, unsigned cell,
                        const struct wt_train_config *c, struct wt_err *err)
{
    static const char *const gpus[] = {"h100", "a100", "h200", "l40s", "v100"};
    char path[96];
    if (family)
        snprintf(path, sizeof(path), "simulator:%s+%s@%.2f", profile, family, strength);
    else
        snprintf(path, sizeof(path), "simulator:%s", profile);
    struct ctx cx = {ts, -1, 0, 1};
    int rc = on_file(&cx, path, "simulator", "simulated", err);
    if (rc)
        return rc;
    size_t per_gpu = (size_t)(c->window_s * 10) + 2;
    struct wt_sample *buf = malloc(per_gpu * SIM_MAX_GPUS * sizeof(*buf));
    if (!buf)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    for (unsigned t = 0; t < per_cell && rc == WT_OK; t++) {
        uint64_t seed =
            wt_mix64(SIM_SEED_DOMAIN ^ c->sim_seed ^ wt_mix64(((uint64_t)cell << 32) | t));
        struct wt_sim_config sc = {
            .profile = profile,
            .evasion = family,
            .strength = family ? strength : -1,
            .gpu = gpus[(cell + t) % 5],
            .sample_hz = 10,
            .power_semantics = (t % 2) ? "avg1s" : "instant",
            .randomize = 1,
            .seed = seed,
        };
        /* training jobs: sometimes data parallel over several GPUs */
        if (!family && !strcmp(profile, "dense-training") && t % 3 == 1)
            sc.gpus = 2 + (unsigned)(t % 7);
        struct wt_sim *sim;
        if ((rc = wt_sim_open(&sim, &sc, err)) != WT_OK)
            break;
        struct wt_rng rng;
        wt_rng_seed(&rng, seed ^ 0x0ff5e7ULL);
        double offset = 30 + 300 * wt_rng_uniform(&rng);
        unsigned g = wt_sim_gpus(sim);
        if (g > SIM_MAX_GPUS)
            g = SIM_MAX_GPUS;
        size_t n[SIM_MAX_GPUS] = {0};
        for (unsigned i = 0; i < g; i++) {
            struct wt_sample smp;
            for (;;) {
                wt_sim_next(sim, i, &smp);
                if (smp.t_s >= offset + c->window_s)
                    break;
                if (smp.t_s >= offset && n[i] < per_gpu)
                    buf[i * per_gpu + n[i]++] = smp;
            }
        }
        for (size_t v = 0; v < sizeof(views) / sizeof(views[0]) && rc == WT_OK; v++) {
            size_t m[SIM_MAX_GPUS];
            static struct wt_sample view[SIM_MAX_GPUS][3602];
            struct wt_window peers[SIM_MAX_GPUS];
            for (unsigned i = 0; i < g; i++) {
                m[i] = n[i] < 3602 ? n[i] : 3602;
                memcpy(view[i], buf + i * per_gpu, m[i] * sizeof(struct wt_sample));
                if (views[v].columns)
                    wt_keep_columns(view[i], m[i], views[v].columns);
                if (views[v].hz > 0)
                    m[i] = wt_resample(view[i], m[i], views[v].hz);
                if (i)
                    peers[i - 1] =
                        (struct wt_window){.s = view[i],
                                           .n = m[i],
                                           .gpu = (int)i,
                                           .power_semantics = wt_sim_power_semantics(sim),
                                           .gpu_model = wt_sim_gpu_model(sim)};
            }
            struct wt_window w = {.s = view[0],
                                  .n = m[0],
                                  .gpu = 0,
                                  .power_semantics = wt_sim_power_semantics(sim),
                                  .gpu_model = wt_sim_gpu_model(sim),
                                  .peers = peers,
                                  .npeers = g - 1};
            struct wt_ds_window dw = {
                .path = path,
                .group = "simulator",
                .gpu_model = wt_sim_gpu_model(sim),
                .t_start = offset,
                .w = &w,
                .truth = wt_window_truth(&w),
                .skip = m[0] >= wt_classifier_physics.min_samples ? WT_DS_SCORED : WT_DS_SHORT};
            rc = on_window(&cx, &dw, err);
        }
        wt_sim_close(sim);
    }
    free(buf);
    return rc;
}

/* Appends the windows of a cache entry (simcache.h) as add_sim_cell would
 * have: its cells as files, then its windows in order. */
static int add_cached(struct wt_trainset *ts, const struct wt_simcache_data *d, struct wt_err *err)
{
    int *index = malloc(d->nfiles * sizeof(*index));
    if (!index)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    int rc = WT_OK;
    for (size_t i = 0; i < d->nfiles && rc == WT_OK; i++) {
        struct ctx cx = {ts, -1, 0, 1};
        rc = on_file(&cx, d->path[i], d->group[i], d->gpu_model[i], err);
        index[i] = cx.file;
    }
    for (size_t i = 0; i < d->n && rc == WT_OK; i++)
        rc = push_row(ts, &d->x[i], d->y[i], index[d->file[i]], err);
    free(index);
    return rc;
}

static int simulate(struct wt_trainset *ts, unsigned per_cell, const struct wt_train_config *c,
                    struct wt_err *err)
{
    static const double strengths[] = {0.25, 0.5, 0.75, 1.0};
    size_t np, ne;
    const struct wt_sim_profile_info *prof = wt_sim_profiles(&np);
    const struct wt_sim_evasion_info *ev = wt_sim_evasions(&ne);
    unsigned cell = 0;
    int rc = WT_OK;
    for (size_t p = 0; p < np && rc == WT_OK; p++)
        rc = add_sim_cell(ts, prof[p].name, NULL, -1, per_cell, cell++, c, err);
    for (size_t f = 0; f < ne && rc == WT_OK; f++)
        for (size_t k = 0; k < 4 && rc == WT_OK; k++)
            rc = add_sim_cell(ts, "dense-training", ev[f].name, strengths[k], per_cell, cell++, c,
                              err);
    return rc;
}

int wt_trainset_add_sim(struct wt_trainset *ts, unsigned per_cell, const struct wt_train_config *c,
                        struct wt_err *err)
{
    if (c->window_s > WT_TRAINSET_SIM_MAX_WINDOW_S)
        return wt_errf(err, WT_EINVAL,
                       "--window %g: simulated training windows are limited to %d s "
                       "(--simulate 0 trains on the traces alone)",
                       c->window_s, WT_TRAINSET_SIM_MAX_WINDOW_S);
    /* WT_SIM_CACHE: the same windows from an earlier run of this very
     * binary with the same settings (simcache.h), else simulated and saved */
    const char *dir = getenv(WT_SIMCACHE_ENV);
    struct wt_simcache_key key;
    const char *refused = dir && *dir ? wt_simcache_dir_refused(dir) : NULL;
    if (refused)
        fprintf(stderr, "workloadtruth: %s=%s not used: %s\n", WT_SIMCACHE_ENV, dir, refused);
    if (!dir || !*dir || refused || wt_simcache_key(c, per_cell, ts->alone_views, &key) != 0)
        return simulate(ts, per_cell, c, err);
    struct wt_simcache_data d;
    if (wt_simcache_load(dir, &key, &d)) {
        int rc = add_cached(ts, &d, err);
        wt_simcache_data_free(&d);
        return rc;
    }
    size_t file0 = ts->nfiles, win0 = ts->n;
    int rc = simulate(ts, per_cell, c, err);
    struct wt_err serr = {{0}};
    if (rc == WT_OK && wt_simcache_save(dir, &key, ts, file0, win0, &serr) != WT_OK)
        fprintf(stderr, "workloadtruth: %s: %s; the simulator's windows are not cached\n",
                WT_SIMCACHE_ENV, serr.msg);
    return rc;
}

int wt_trainset_sim_family(const struct wt_trainset_file *f, char *fam, size_t cap)
{
    /* add_sim_cell names evasion cells "simulator:dense-training+FAMILY@STRENGTH" */
    static const char prefix[] = "simulator:dense-training+";
    if (!f->builtin || strncmp(f->path, prefix, sizeof(prefix) - 1))
        return 0;
    const char *name = f->path + sizeof(prefix) - 1, *at = strchr(name, '@');
    size_t n = at ? (size_t)(at - name) : strlen(name);
    if (n >= cap)
        return 0;
    memcpy(fam, name, n);
    fam[n] = 0;
    return 1;
}

int wt_trainset_add_python(struct wt_trainset *ts, unsigned per_cell, struct wt_err *err)
{
    static const char *const profiles[] = {"training", "inference", "idle"};
    /* the Python tool's `classify` reads 10 samples by default, its
     * benchmark 30: learn windows of both lengths */
    static const size_t lengths[] = {10, 30};
    struct wt_sample buf[30];
    int rc = WT_OK;
    for (unsigned p = 0; p < 3 && rc == WT_OK; p++)
        for (int ev = 0; ev < 2 && rc == WT_OK; ev++) {
            char path[64];
            snprintf(path, sizeof(path), "python-synthetic:%s%s", profiles[p],
                     ev ? "+evasion" : "");
            struct ctx cx = {ts, -1, 0, 1};
            if ((rc = on_file(&cx, path, "python-synthetic", "synthetic", err)) != WT_OK)
                break;
            for (unsigned t = 0; t < per_cell && rc == WT_OK; t++) {
                size_t len = lengths[t % 2];
                struct wt_source_config cfg = {0};
                struct wt_source *src;
                size_t n;
                cfg.profile = profiles[p];
                cfg.evasion = ev;
                cfg.seed = wt_mix64(WT_TRAINSET_PY_SEED ^
                                    wt_mix64(((uint64_t)(p * 2 + (unsigned)ev) << 32) | t));
                if ((rc = wt_source_open("synthetic", &cfg, &src, err)) != WT_OK)
                    break;
                rc = wt_source_read_n(src, 0, buf, len, &n, err);
                wt_source_close(src);
                if (rc)
                    break;
                for (size_t i = 0; i < n; i++)
                    buf[i].label = wt_class_parse(profiles[p], false);
                struct wt_window w = {
                    .s = buf, .n = n, .power_semantics = "unknown", .gpu_model = "synthetic"};
                struct wt_ds_window dw = {.path = path,
                                          .group = "python-synthetic",
                                          .gpu_model = "synthetic",
                                          .w = &w,
                                          .truth = wt_class_parse(profiles[p], false),
                                          .skip = WT_DS_SCORED};
                rc = on_window(&cx, &dw, err);
            }
        }
    return rc;
}

struct fit_row {
    struct wt_features x;
    double w;
    unsigned char y;
};

static int cmp_row(const void *a, const void *b)
{
    const struct fit_row *p = a, *q = b;
    int c = memcmp(p->x.v, q->x.v, sizeof(p->x.v));
    if (!c)
        c = (p->y > q->y) - (p->y < q->y);
    if (!c)
        c = memcmp(&p->w, &q->w, sizeof(p->w));
    return c;
}

/* Rows in one canonical order (by their bytes), so that the floating-point sums
 * of training, and so the model, do not depend on the order the traces were
 * named in: `train --traces b --traces a` makes the same file as `a` then `b`.
 * Equal rows are interchangeable, so qsort's instability does not matter. */
static int canonical_order(struct wt_features *x, unsigned char *y, double *w, size_t n,
                           struct wt_err *err)
{
    struct fit_row *r = malloc((n ? n : 1) * sizeof(*r));
    if (!r)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof(r[i]));
        r[i].x = x[i];
        r[i].w = w[i];
        r[i].y = y[i];
    }
    qsort(r, n, sizeof(*r), cmp_row);
    for (size_t i = 0; i < n; i++) {
        x[i] = r[i].x;
        w[i] = r[i].w;
        y[i] = r[i].y;
    }
    free(r);
    return WT_OK;
}

/* one source: the same group, both generated or both traces (a trace
 * directory named "simulator" is not the simulator) */
static int same_source(const struct wt_trainset_file *a, const struct wt_trainset_file *b)
{
    return a->builtin == b->builtin && !strcmp(a->group, b->group);
}

/* The simulator's windows (not a trace directory named "simulator"). */
static int is_simulator(const struct wt_trainset_file *f)
{
    return f->builtin && !strcmp(f->group, "simulator");
}

void wt_trainset_real_counts(const struct wt_trainset *ts, const unsigned char *exclude,
                             size_t n[2])
{
    n[0] = n[1] = 0;
    for (size_t i = 0; i < ts->n; i++)
        if (!ts->files[ts->file[i]].builtin && !(exclude && exclude[ts->file[i]]))
            n[ts->y[i] ? 1 : 0]++;
}

int wt_trainset_fit(const struct wt_trainset *ts, const unsigned char *exclude,
                    const struct wt_train_config *c, struct wt_model *out, struct wt_err *err)
{
    size_t n = 0;
    struct wt_features *x = malloc((ts->n ? ts->n : 1) * sizeof(*x));
    unsigned char *y = malloc(ts->n ? ts->n : 1);
    double *w = malloc((ts->n ? ts->n : 1) * sizeof(double));
    size_t *count = calloc(ts->nfiles ? ts->nfiles : 1, sizeof(size_t) * 2);
    int rc;
    if (!x || !y || !w || !count) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    /* windows per (source, class), counted on the first file of each source */
    for (size_t i = 0; i < ts->n; i++) {
        if (exclude && exclude[ts->file[i]])
            continue;
        size_t g = 0;
        while (!same_source(&ts->files[g], &ts->files[ts->file[i]]))
            g++;
        count[g * 2 + ts->y[i]]++;
    }
    double total[2] = {0, 0};
    for (size_t i = 0; i < ts->n; i++) {
        if (exclude && exclude[ts->file[i]])
            continue;
        size_t g = 0;
        while (!same_source(&ts->files[g], &ts->files[ts->file[i]]))
            g++;
        x[n] = ts->x[i];
        y[n] = ts->y[i];
        w[n] = 1.0 / sqrt((double)count[g * 2 + ts->y[i]]);
        if (is_simulator(&ts->files[ts->file[i]]))
            w[n] *= c->sim_weight;
        n++;
    }
    if ((rc = canonical_order(x, y, w, n, err)) != WT_OK)
        goto out;
    for (size_t i = 0; i < n; i++)
        total[y[i]] += w[i];
    if (total[0] <= 0 || total[1] <= 0) {
        rc =
            wt_errf(err, WT_EINVAL, "training needs active windows of both TRAINING and INFERENCE");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        w[i] *= (double)n / (2.0 * total[y[i]]); /* each class sums to n / 2 */
    struct wt_train_opts o = {
        .rounds = c->rounds,
        .depth = c->depth,
        .learning_rate = c->learning_rate,
        .lambda = c->lambda,
        .min_child = c->min_child * (double)n / 100.0,
        .nthresholds = c->nthresholds,
        .missing_stop = c->missing_stop,
        .features = c->features ? c->features : wt_physics_model_features,
        .nfeatures = c->features ? c->nfeatures : wt_physics_model_nfeatures,
    };
    rc = wt_train_boost(x, y, w, n, &o, out, err);
out:
    free(x);
    free(y);
    free(w);
    free(count);
    return rc;
}

void wt_trainset_free(struct wt_trainset *ts)
{
    for (size_t i = 0; i < ts->nfiles; i++) {
        free(ts->files[i].path);
        free(ts->files[i].group);
        free(ts->files[i].gpu_model);
    }
    free(ts->files);
    free(ts->x);
    free(ts->y);
    free(ts->file);
    for (int v = 0; v < WT_TRAINSET_VIEWS; v++)
        wt_ds_seen_free(&ts->seen[v]);
    wt_ds_skips_free(&ts->skipped_files);
    memset(ts, 0, sizeof(*ts));
}
