/* Labelled windows from trace files (see dataset.h). */
#include "eval/dataset.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "features/sleep_inject.h"
#include "features/transform.h"
#include "telemetry/owners.h"
#include "telemetry/source.h"
#include "util/fileio.h"

#define MAX_DEPTH 16

/* The current directory as the shell names it: $PWD when it is this
 * directory (links kept, as `pwd` shows them), else getcwd; NULL when
 * neither is known.  malloc'd. */
static char *logical_cwd(void)
{
    const char *pwd = getenv("PWD");
    struct stat a, b;
    if (pwd && pwd[0] == '/' && stat(pwd, &a) == 0 && stat(".", &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        return strdup(pwd);
    char buf[PATH_MAX];
    return getcwd(buf, sizeof(buf)) ? strdup(buf) : NULL;
}

char *wt_ds_group(const char *path)
{
    if (!strcmp(path, "-"))
        return strdup("stdin"); /* a pipe has no folder */
    /* The folder's name however the path spells it, without following
     * links (as `cd` and `pwd` do): "f.csv" run inside hap/, "hap/./f.csv",
     * "x/../hap/f.csv" and "LINK/f.csv" with LINK -> hap named "LINK" in
     * every spelling; a relative path is read from the current directory. */
    char *cwd = NULL, *full = NULL, *out = NULL;
    const char **comp = NULL;
    if (path[0] != '/')
        cwd = logical_cwd();
    size_t len = (cwd ? strlen(cwd) + 1 : 0) + strlen(path) + 1;
    full = malloc(len);
    comp = malloc(len * sizeof(*comp));
    if (!full || !comp)
        goto done;
    snprintf(full, len, "%s%s%s", cwd ? cwd : "", cwd ? "/" : "", path);
    size_t n = 0;
    int above = 0; /* ".." past the start of a relative path */
    for (char *save = NULL, *c = strtok_r(full, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, "..")) {
            if (n)
                n--;
            else if (path[0] != '/' && !cwd)
                above = 1;
            continue;
        }
        comp[n++] = c;
    }
    /* comp[n - 1] is the file; its folder is the one before it */
    if (n >= 2)
        out = strdup(comp[n - 2]);
    else if (path[0] == '/' || cwd)
        out = strdup("/");
    else
        out = strdup(above ? ".." : ".");
done:
    free(cwd);
    free(full);
    free(comp);
    return out;
}

struct gpu_stream {
    struct wt_sample *s;
    size_t n;
    struct wt_device_info info;
};

static int load_gpu(struct wt_source *src, int gpu, struct gpu_stream *g, struct wt_err *err)
{
    size_t cap = 0;
    for (;;) {
        if (g->n == cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            struct wt_sample *ns = realloc(g->s, ncap * sizeof(*ns));
            if (!ns)
                return wt_errf(err, WT_ENOMEM, "out of memory");
            g->s = ns;
            cap = ncap;
        }
        size_t got = 0;
        int rc = wt_source_read(src, gpu, g->s + g->n, cap - g->n, &got, err);
        if (rc == WT_DONE || rc == WT_ENODEV) /* ENODEV: index absent from this file */
            return WT_OK;
        if (rc)
            return rc;
        g->n += got;
    }
}

/* Sleep injection over the file's GPUs, with a schedule seeded by the file's
 * name (not its directory), so the same trace gets the same sleeps however it
 * is reached. */
static int inject(const char *path, struct gpu_stream *g, int ngpus, const struct wt_sleep_opts *so,
                  struct wt_err *err)
{
    struct wt_sample **s = calloc((size_t)ngpus, sizeof(*s));
    size_t *n = calloc((size_t)ngpus, sizeof(*n));
    int rc;
    if (!s || !n) {
        free(s);
        free(n);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    unsigned char h[8];
    crypto_generichash(h, sizeof(h), (const unsigned char *)base, strlen(base), NULL, 0);
    struct wt_sleep_opts o = *so;
    for (int i = 0; i < 8; i++)
        o.seed ^= (uint64_t)h[i] << (8 * i);
    o.avg1s = !strcmp(g[0].info.power_semantics, "avg1s");
    for (int i = 0; i < ngpus; i++) {
        s[i] = g[i].s;
        n[i] = g[i].n;
    }
    rc = wt_sleep_inject(s, n, ngpus, &o, err);
    for (int i = 0; i < ngpus; i++) {
        g[i].s = s[i];
        g[i].n = n[i];
    }
    if (rc)
        wt_err_prefix(err, path);
    free(s);
    free(n);
    return rc;
}

/* First index with t_s >= t (binary search; samples are time-ordered). */
static size_t lower_bound(const struct wt_sample *s, size_t n, double t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].t_s < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void wt_ds_seen_free(struct wt_ds_seen *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].path);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

const char *wt_ds_seen_file(const struct wt_ds_seen *s, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].dev == st.st_dev && s->v[i].ino == st.st_ino)
            return s->v[i].path;
    return NULL;
}

int wt_ds_skips_add(struct wt_ds_skips *s, const char *path, const char *same_as,
                    struct wt_err *err)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].path, path) && !s->v[i].same_as == !same_as &&
            (!same_as || !strcmp(s->v[i].same_as, same_as)))
            return WT_OK;
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 16;
        struct wt_ds_skipped *nv = realloc(s->v, ncap * sizeof(*nv));
        if (!nv)
            return wt_errf(err, WT_ENOMEM, "out of memory");
        s->v = nv;
        s->cap = ncap;
    }
    struct wt_ds_skipped *e = &s->v[s->n];
    e->path = strdup(path);
    e->same_as = same_as ? strdup(same_as) : NULL;
    if (!e->path || (same_as && !e->same_as)) {
        free(e->path);
        free(e->same_as);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    s->n++;
    return WT_OK;
}

void wt_ds_skips_free(struct wt_ds_skips *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].path);
        free(s->v[i].same_as);
    }
    free(s->v);
    memset(s, 0, sizeof(*s));
}

/* A metadata line (the preamble's "# key: value") of a key the reader acts
 * on: what the data mean (labels, the GPU, how power was read); not one
 * whose value is empty, which the reader reads as absent (but an empty
 * format, which it refuses). */
static int acted_on(const char *line, size_t len)
{
    static const char *const keys[] = {"format",     "label",           "gpu_model",
                                       "gpu_models", "power_semantics", "power_semantics_per_gpu"};
    size_t i = 1;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    size_t k = i;
    while (k < len && line[k] != ':' && line[k] != ' ' && line[k] != '\t')
        k++;
    for (size_t j = 0; j < sizeof(keys) / sizeof(keys[0]); j++)
        if (k - i == strlen(keys[j]) && !strncasecmp(line + i, keys[j], k - i)) {
            size_t v = k;
            while (v < len && (line[v] == ' ' || line[v] == '\t'))
                v++;
            if (v < len && line[v] == ':')
                v++;
            while (v < len && isspace((unsigned char)line[v]))
                v++;
            return j == 0 || v < len;
        }
    return 0;
}

/* SHA-256 of the file's lines as the reader reads them: not the comment
 * lines of its preamble (the '#' lines before the header, less the metadata
 * the reader acts on), nor blank lines, nor carriage returns, each line
 * ended by one '\n' (a last line without one too): a copy with a note
 * added, its line ends changed, a blank line more or its last newline
 * dropped is a copy (one with a comment line more was learnt from in the
 * fold that held out its original, which then scored as if in-sample; one
 * without its last newline, until 2026-12-08); a '#' line after the header
 * is a row, and counts.  -1 when it cannot be read (the reader then says
 * why). */
static int file_sha(const char *path, unsigned char out[32])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int preamble = 1;
    while ((n = getline(&line, &cap, f)) > 0) {
        size_t len = (size_t)n, k = 0, blank = 1;
        if (preamble && line[0] == '#' && !acted_on(line, len))
            continue;
        for (size_t i = 0; i < len; i++)
            if (line[i] != '\r' && line[i] != '\n') {
                blank = blank && isspace((unsigned char)line[i]);
                line[k++] = line[i];
            }
        if (blank)
            continue;
        preamble = preamble && line[0] == '#';
        line[k++] = '\n';
        crypto_hash_sha256_update(&st, (const unsigned char *)line, k);
    }
    free(line);
    int bad = ferror(f);
    fclose(f);
    crypto_hash_sha256_final(&st, out);
    return bad ? -1 : 0;
}

/* The file's identity: device, inode and content; standard input for "-". */
static int file_id(const char *path, struct wt_ds_id *id)
{
    struct stat st;
    if (!strcmp(path, "-") ? fstat(STDIN_FILENO, &st) : stat(path, &st))
        return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    id->have_sha = strcmp(path, "-") && S_ISREG(st.st_mode) && file_sha(path, id->sha) == 0;
    return 0;
}

/* The entry id matches: the same file (*copy = 0) or a copy of it (*copy = 1). */
static const struct wt_ds_id *seen_find(const struct wt_ds_seen *s, const struct wt_ds_id *id,
                                        int *copy)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (s->v[i].dev == id->dev && s->v[i].ino == id->ino) {
            *copy = 0;
            return &s->v[i];
        }
    for (size_t i = 0; s && id->have_sha && i < s->n; i++)
        if (s->v[i].have_sha && !memcmp(s->v[i].sha, id->sha, sizeof(id->sha))) {
            *copy = 1;
            return &s->v[i];
        }
    return NULL;
}

static int seen_add(struct wt_ds_seen *s, const struct wt_ds_id *id, const char *path,
                    struct wt_err *err)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        struct wt_ds_id *nv = realloc(s->v, ncap * sizeof(*nv));
        if (!nv)
            return wt_errf(err, WT_ENOMEM, "out of memory");
        s->v = nv;
        s->cap = ncap;
    }
    s->v[s->n] = *id;
    if (!(s->v[s->n].path = strdup(path)))
        return wt_errf(err, WT_ENOMEM, "out of memory");
    s->n++;
    return WT_OK;
}

/* 1 when the folders holding a and b are one directory (a link to a
 * folder: every trace reached through it is its target's, not a copy in
 * another folder, and is not said as one); 0 when they differ or cannot be
 * read. */
static int same_real_dir(const char *a, const char *b)
{
    char da[PATH_MAX], db[PATH_MAX];
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    snprintf(da, sizeof(da), "%.*s", sa ? (int)(sa - a) + (sa == a) : 1, sa ? a : ".");
    snprintf(db, sizeof(db), "%.*s", sb ? (int)(sb - b) + (sb == b) : 1, sb ? b : ".");
    return wt_same_file(da, db);
}

static int do_file(const char *path, const struct wt_ds_opts *o, const struct wt_ds_callbacks *cb,
                   int from_dir, struct wt_err *err)
{
    /* a trace read before is skipped; it is recorded once it opens as a
     * trace, so a CSV that is not one, met in a directory and then named,
     * is still an error when named */
    struct wt_ds_id id = {0};
    int have_id = o->seen && file_id(path, &id) == 0, copy = 0;
    const struct wt_ds_id *before = have_id ? seen_find(o->seen, &id, &copy) : NULL;
    if (before && !copy && cb->duplicate) {
        /* the same file reached under another folder (a link into another
         * source's folder) stands in both, as a copy does: said as one, so
         * that --holdout source holds the two out together (it was scored
         * in the other folder's fold by a model that learnt its own
         * source's other traces) */
        char *g1 = wt_ds_group(path), *g2 = wt_ds_group(before->path);
        int other = g1 && g2 && strcmp(g1, g2) != 0 && !same_real_dir(path, before->path);
        free(g1);
        free(g2);
        if (other)
            return cb->duplicate(cb->ctx, path, before->path, err);
        return WT_OK;
    }
    if (before)
        return copy && cb->duplicate ? cb->duplicate(cb->ctx, path, before->path, err) : WT_OK;
    struct wt_source_config cfg = {0};
    struct wt_source *src = NULL;
    struct gpu_stream *g = NULL;
    struct wt_window *peers = NULL;
    char *group = NULL;
    int ngpus = 0, rc;
    cfg.trace_path = path;
    cfg.trace_opts = o->trace_opts;
    rc = wt_source_open("replay", &cfg, &src, err);
    if (rc == WT_EFORMAT && from_dir && cb->not_trace)
        return cb->not_trace(cb->ctx, path, err);
    if (rc)
        return rc;
    if ((rc = wt_source_device_count(src, &ngpus, err)) != WT_OK)
        goto out;
    if (ngpus == 0 && from_dir && cb->not_trace) {
        /* a header and no row (`nvidia-smi ... > run.csv` killed at once, a
         * record stopped before its first row) in a directory: skipped, as
         * an empty file is (it stopped the whole eval or train); named,
         * still an error */
        rc = cb->not_trace(cb->ctx, path, err);
        goto out;
    }
    if (ngpus == 0) {
        rc = wt_errf(err, WT_EINVAL, "%s: the trace has no data rows", path);
        goto out;
    }
    /* recorded once it has rows: one without, met in a directory and then
     * named, is still an error when named */
    if (have_id && (rc = seen_add(o->seen, &id, path, err)) != WT_OK)
        goto out;
    g = calloc((size_t)ngpus, sizeof(*g));
    peers = calloc((size_t)ngpus, sizeof(*peers));
    group = wt_ds_group(path);
    if (!g || !peers || !group) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < ngpus; i++) {
        rc = wt_source_device_info(src, i, &g[i].info, err);
        if (rc == WT_ENODEV) /* an index absent from this file: no samples, info filled */
            rc = WT_OK;
        if (rc != WT_OK || (rc = load_gpu(src, i, &g[i], err)) != WT_OK)
            goto out;
    }
    if (o->sleep && (rc = inject(path, g, ngpus, o->sleep, err)) != WT_OK)
        goto out;
    for (int i = 0; i < ngpus; i++) {
        if (o->columns)
            wt_keep_columns(g[i].s, g[i].n, o->columns);
        if (o->resample_hz > 0)
            g[i].n = wt_resample(g[i].s, g[i].n, o->resample_hz);
    }
    if (cb->file && (rc = cb->file(cb->ctx, path, group, g[0].info.name, err)) != WT_OK)
        goto out;
    /* a trace's owners column: a GPU's peers are its job's (as under watch) */
    const struct wt_owners *owners = o->all_peers ? NULL : wt_source_owners(src);
    for (int i = 0; i < ngpus; i++) {
        struct wt_window_iter it;
        size_t start, count;
        wt_window_iter_init(&it, g[i].s, g[i].n, o->window_s);
        while (wt_window_iter_next(&it, &start, &count)) {
            struct wt_window w = {
                .s = g[i].s + start,
                .n = count,
                .gpu = i,
                .power_semantics = g[i].info.power_semantics,
                .gpu_model = g[i].info.name,
                .peers = peers,
                .npeers = 0,
            };
            double t0 = it.t0 + o->window_s * it.k;
            double t1 = t0 + o->window_s;
            for (int j = 0; j < ngpus && !o->alone; j++) {
                if (j == i)
                    continue;
                size_t a = lower_bound(g[j].s, g[j].n, t0), b = lower_bound(g[j].s, g[j].n, t1);
                if (b > a &&
                    wt_owners_same_job(owners, count ? g[i].s[start].owner : 0, g[j].s[a].owner)) {
                    peers[w.npeers] = (struct wt_window){
                        .s = g[j].s + a,
                        .n = b - a,
                        .gpu = j,
                        .power_semantics = g[j].info.power_semantics,
                        .gpu_model = g[j].info.name,
                    };
                    w.npeers++;
                }
            }
            /* the truth of what is scored: a classifier that reads the last
             * truth_s seconds of a longer window (cut as it cuts) was
             * scored against the labels of the whole */
            struct wt_window scored = w;
            if (o->truth_s > 0) {
                size_t from = wt_window_tail_start(&w, o->truth_s);
                scored.s += from;
                scored.n -= from;
            }
            /* and the window's own label, as the trace format says (80% of
             * its rows): 30 s of IDLE then 30 s of TRAINING, a window of 60 s
             * that straddles the change, was scored TRAINING by its tail */
            int truth = wt_window_truth(&scored);
            if (o->truth_s > 0 && o->window_s > o->truth_s && wt_window_truth(&w) != truth)
                truth = WT_CLASS_NONE;
            struct wt_ds_window dw = {
                .path = path,
                .group = group,
                .gpu_model = g[i].info.name,
                .t_start = t0,
                .w = &w,
                .truth = truth,
                .skip = WT_DS_SCORED,
            };
            /* short: the window, and the part of it that is scored (a
             * window of 60 s whose last 30 s held 2 samples was scored,
             * UNKNOWN, instead of counted short) */
            double scored_s = o->truth_s > 0 && o->truth_s < o->window_s ? o->truth_s : o->window_s;
            if (dw.truth == WT_CLASS_NONE)
                dw.skip = WT_DS_UNLABELLED;
            else if (count < 2 || count < o->min_samples ||
                     wt_window_seconds(&w) < 0.5 * o->window_s || scored.n < 2 ||
                     scored.n < o->min_samples || wt_window_seconds(&scored) < 0.5 * scored_s)
                dw.skip = WT_DS_SHORT;
            if ((rc = cb->window(cb->ctx, &dw, err)) != WT_OK)
                goto out;
        }
    }
out:
    if (g)
        for (int i = 0; i < ngpus; i++)
            free(g[i].s);
    free(g);
    free(peers);
    free(group);
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

/* The directories a walk is in (a link back to one of them is a loop). */
struct dir_chain {
    dev_t dev;
    ino_t ino;
    const struct dir_chain *up;
};

static int do_dir(const char *dir, const struct stat *dst, const struct wt_ds_opts *o,
                  const struct wt_ds_callbacks *cb, int depth, const struct dir_chain *up,
                  struct wt_err *err)
{
    for (const struct dir_chain *c = up; c; c = c->up)
        if (c->dev == dst->st_dev && c->ino == dst->st_ino)
            return wt_errf(err, WT_EINVAL,
                           "'%s' is a link back to a directory above it (a loop); "
                           "remove it or name the directories to search",
                           dir);
    if (depth > MAX_DEPTH)
        return wt_errf(err, WT_EINVAL, "%s: directories nested deeper than %d", dir, MAX_DEPTH);
    const struct dir_chain here = {dst->st_dev, dst->st_ino, up};
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
        if (!(names[n] = malloc(len))) {
            rc = wt_errf(err, WT_ENOMEM, "out of memory");
            goto out;
        }
        snprintf(names[n], len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        n++;
    }
    if (n > 1) /* names is NULL in an empty directory */
        qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n && rc == WT_OK; i++) {
        struct stat st;
        if (stat(names[i], &st) != 0) {
            /* only *.csv files are searched for: a broken link named
             * otherwise (notes.txt -> gone) is none of the walk's business */
            if (has_csv_suffix(names[i]))
                rc = wt_errf(err, WT_EIO, "cannot stat '%s': %s", names[i], strerror(errno));
        } else if (S_ISDIR(st.st_mode))
            rc = do_dir(names[i], &st, o, cb, depth + 1, &here, err);
        else if (S_ISREG(st.st_mode) && has_csv_suffix(names[i]))
            rc = do_file(names[i], o, cb, 1, err);
    }
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return rc;
}

int wt_ds_walk(const char *path, const struct wt_ds_opts *o, const struct wt_ds_callbacks *cb,
               struct wt_err *err)
{
    struct stat st;
    if (strcmp(path, "-") != 0) {
        if (stat(path, &st) != 0)
            return wt_errf(err, WT_EIO, "cannot open '%s': %s", path, strerror(errno));
        if (S_ISDIR(st.st_mode))
            return do_dir(path, &st, o, cb, 0, NULL, err);
    }
    return do_file(path, o, cb, 0, err);
}
