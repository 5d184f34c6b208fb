/* The `replay` source: a trace file, raw nvidia-smi CSV or standard input,
 * delivered as one sample stream per GPU.
 *
 * Rows are read lazily from the trace reader and queued per GPU, so a single
 * GPU of an interleaved multi-GPU file (or of a live pipe) can be consumed
 * without reading everything first.  The total number of queued samples is
 * capped (max_buffered) so a huge input cannot exhaust memory.  Counting a
 * file's GPUs reads it once more with a reader of its own that keeps nothing
 * (it had queued the whole file: 2.4 GB for 16M rows, to classify 10).
 * Timing comes from the trace; replay never sleeps.
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "telemetry/source.h"
#include "util/text.h"

#define DEFAULT_MAX_BUFFERED ((size_t)16 * 1024 * 1024)

struct queue {
    struct wt_sample *s;
    size_t head, len, cap;
    int present;
    int read;     /* a caller has read this GPU */
    int ignored;  /* ... and will not: its rows are dropped as they come */
    long dropped; /* rows dropped since it was ignored */
    int complete; /* a row of another time came after its first sample */
};

/* A stream's GPU nobody reads while others are read (`record --trace -
 * --gpus 0` of an 8-GPU nvidia-smi pipe) keeps its newest rows only: it
 * would otherwise grow for as long as the pipe runs. */
#define MAX_UNREAD 65536

struct replay {
    struct wt_trace_reader *r;
    struct queue *q; /* WT_MAX_GPUS; each queue's last sample may still grow */
    int eof;
    int stream, any_read;    /* standard input or a FIFO; some GPU has been read */
    int counting;            /* a stream read to its end to count its GPUs: none dropped */
    int list_only;           /* each GPU's first sample is kept, no more */
    int stream_peers;        /* unread GPUs keep their newest rows before any read too */
    double last_t;           /* the time of the row read last */
    unsigned long same_time; /* rows that repeat their GPU's time and columns (merge) */
    size_t buffered, max_buffered;
    char *path; /* a regular file: counted by a pass of its own */
    struct wt_trace_opts topts;
    unsigned char *seen; /* after that pass: the GPUs the file has (the others are
                            absent at once, not found by queueing the file) */
};

/* A row with the same time as its GPU's row before it (not yet read; rows of
 * other GPUs may come between) and none of its columns: the rest of that
 * sample, written as rows of its own (one row per metric), merged into it.
 * 1 when merged; 2 when it measures a column that row does (a second sample
 * at the same time, kept as one of its own). */
static int merge(struct queue *q, const struct wt_sample *s)
{
    if (q->len == q->head)
        return 0;
    struct wt_sample *last = &q->s[q->len - 1];
    if (last->t_s != s->t_s)
        return 0;
    for (int c = 0; c < WT_NCOLS; c++)
        if (wt_measured(last->v[c]) && wt_measured(s->v[c]))
            return 2; /* a second sample at the same time: kept as one */
    if ((last->label != WT_CLASS_NONE && s->label != WT_CLASS_NONE && last->label != s->label) ||
        (last->owner && s->owner && last->owner != s->owner))
        return 0;
    for (int c = 0; c < WT_NCOLS; c++)
        if (wt_measured(s->v[c]))
            last->v[c] = s->v[c];
    if (last->label == WT_CLASS_NONE)
        last->label = s->label;
    if (!last->owner)
        last->owner = s->owner;
    return 1;
}

static int push(struct replay *rp, const struct wt_sample *s, struct wt_err *err)
{
    struct queue *q = &rp->q[s->gpu];
    if (q->ignored) {
        q->present = 1;
        q->dropped++;
        return WT_OK;
    }
    int merged = merge(q, s);
    if (merged == 1)
        return WT_OK;
    if (merged == 2 && ++rp->same_time == 3)
        /* a GPU measured twice at one time, again and again: the rows of
         * several GPUs read as one (a `gpu` column missing, or named
         * gpu_index or index: a training GPU and an idle one were read as
         * one switching between them, exit 0) */
        wt_trace_warn_row(rp->r, 'T',
                          "GPU %d has a second row at the same t_s (%g) measuring the same "
                          "columns, the third such row: are several GPUs' rows read as one (no "
                          "'gpu' column, or one named otherwise)?",
                          s->gpu, s->t_s);
    if (q->len > q->head)
        q->complete = 1;
    if (rp->list_only && q->len > q->head) {
        q->present = 1; /* listing GPUs of an endless pipe: bounded */
        return WT_OK;
    }
    /* the oldest unread row goes (a stream's peers are read by
     * read_queued, which does not count: they keep their newest rows), also
     * when the cap on all queued rows is reached, before any GPU is read
     * too: a stream without the GPU asked for ends in "no GPU N", not in the
     * cap's error (each GPU keeps its newest row) */
    if (rp->stream && !rp->counting && !q->read && q->len > q->head &&
        (((rp->any_read || rp->stream_peers) && q->len - q->head >= MAX_UNREAD) ||
         rp->buffered >= rp->max_buffered)) {
        q->head++;
        rp->buffered--;
    }
    if (rp->buffered >= rp->max_buffered)
        return wt_errf(err, WT_ENOMEM, "%s:%lu: more than %zu samples waiting to be read",
                       wt_trace_name(rp->r), wt_trace_lineno(rp->r), rp->max_buffered);
    if (q->head > 0 && q->head >= q->len / 2) {
        memmove(q->s, q->s + q->head, (q->len - q->head) * sizeof(*q->s));
        q->len -= q->head;
        q->head = 0;
    }
    if (q->len == q->cap) {
        size_t ncap = q->cap ? q->cap * 2 : 256;
        struct wt_sample *ns = realloc(q->s, ncap * sizeof(*ns));
        if (!ns)
            return wt_errf(err, WT_ENOMEM, "%s:%lu: out of memory queueing samples",
                           wt_trace_name(rp->r), wt_trace_lineno(rp->r));
        q->s = ns;
        q->cap = ncap;
    }
    q->s[q->len++] = *s;
    q->present = 1;
    rp->buffered++;
    return WT_OK;
}

/* Reads one row into its GPU's queue.  WT_DONE at end of input. */
static int pull(struct replay *rp, struct wt_err *err)
{
    struct wt_sample s;
    if (rp->eof)
        return WT_DONE;
    int rc = wt_trace_next(rp->r, &s, err);
    if (rc == WT_DONE) {
        rp->eof = 1;
        return WT_DONE;
    }
    if (rc)
        return rc;
    rp->last_t = s.t_s;
    return push(rp, &s, err);
}

static int replay_open(struct wt_source *src, const struct wt_source_config *cfg,
                       struct wt_err *err)
{
    if (!cfg->trace_path)
        return wt_errf(err, WT_EINVAL,
                       "the replay backend needs a trace: --trace FILE ('-' for standard input)");
    struct replay *rp = calloc(1, sizeof(*rp));
    if (!rp)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    rp->q = calloc(WT_MAX_GPUS, sizeof(*rp->q));
    if (!rp->q) {
        free(rp);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    rp->max_buffered = cfg->max_buffered ? cfg->max_buffered : DEFAULT_MAX_BUFFERED;
    /* a FIFO (`<(...)`) too: counting its GPUs queued every row of the
     * pipe (2.5 GB, then "more than 16777216 samples waiting") */
    rp->stream = wt_trace_is_stream(cfg->trace_path);
    rp->list_only = cfg->list_only;
    rp->stream_peers = cfg->stream_peers;
    struct wt_trace_opts topts = cfg->trace_opts;
    if (!topts.stop)
        topts.stop = cfg->stop; /* a quiet pipe must not outlast a stop */
    int rc = wt_trace_open(cfg->trace_path, &topts, &rp->r, err);
    if (rc) {
        free(rp->q);
        free(rp);
        return rc;
    }
    struct stat st;
    if (!rp->stream && stat(cfg->trace_path, &st) == 0 && S_ISREG(st.st_mode)) {
        rp->path = strdup(cfg->trace_path); /* NULL: counted by queueing it all */
        rp->topts = topts;
    }
    src->priv = rp;
    return WT_OK;
}

/* The GPUs of a regular file, read by a reader of its own that keeps only
 * which GPUs have rows (the same rows, so the same errors at the same
 * lines); a GPU a file gains after this pass (a file still being written)
 * stays absent. */
static int count_file(struct replay *rp, int *count, struct wt_err *err)
{
    unsigned char *seen = calloc(WT_MAX_GPUS, 1);
    if (!seen)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    struct wt_trace_reader *r;
    struct wt_trace_opts quiet = rp->topts;
    quiet.quiet = 1; /* the reader of the rows warns */
    int rc = wt_trace_open(rp->path, &quiet, &r, err);
    if (rc) {
        free(seen);
        return rc;
    }
    struct wt_sample s;
    int top = -1;
    while ((rc = wt_trace_next(r, &s, err)) == WT_OK) {
        if (s.gpu >= 0 && s.gpu < WT_MAX_GPUS)
            seen[s.gpu] = 1;
        if (s.gpu > top)
            top = s.gpu;
    }
    wt_trace_close(r);
    if (rc != WT_DONE) {
        free(seen);
        return rc;
    }
    free(rp->seen);
    rp->seen = seen;
    *count = top + 1;
    return WT_OK;
}

/* A GPU the counting pass found no row of. */
static int unseen(const struct replay *rp, int gpu)
{
    return rp->seen && !rp->seen[gpu];
}

static int replay_count(struct wt_source *src, int *count, struct wt_err *err)
{
    struct replay *rp = src->priv;
    int rc;
    if (rp->path && !rp->eof)
        return count_file(rp, count, err);
    /* a pipe given by name (record and watch count its GPUs): every row is
     * kept for the GPUs to be read, up to the cap's error, none dropped */
    rp->counting = 1;
    while ((rc = pull(rp, err)) == WT_OK)
        ;
    rp->counting = 0;
    if (rc != WT_DONE)
        return rc;
    *count = 0;
    for (int i = 0; i < WT_MAX_GPUS; i++)
        if (rp->q[i].present)
            *count = i + 1;
    return WT_OK;
}

/* A GPU index no row of the trace names (it was read whole, or counted). */
static int absent(const struct replay *rp, int gpu, struct wt_err *err)
{
    char list[128] = "";
    size_t off = 0;
    for (int i = 0; i < WT_MAX_GPUS && off + 8 < sizeof(list); i++)
        if (rp->seen ? rp->seen[i] : rp->q[i].present)
            off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d", off ? ", " : "", i);
    /* a stop (SIGTERM) ended a stream: the GPU may yet have come */
    if (wt_trace_stopped(rp->r) && off) /* absent as far as is known: WT_ENODEV still */
        return wt_errf(err, WT_ENODEV,
                       "%s: stopped before a row of GPU %d arrived (GPUs so far: %s)",
                       wt_trace_name(rp->r), gpu, list);
    if (wt_trace_stopped(rp->r))
        return wt_errf(err, WT_EINVAL, "%s: stopped before a data row arrived",
                       wt_trace_name(rp->r));
    if (off)
        return wt_errf(err, WT_ENODEV, "%s: no GPU %d in this trace (GPUs: %s)",
                       wt_trace_name(rp->r), gpu, list);
    return wt_errf(err, WT_EINVAL, "%s: the trace has no data rows", wt_trace_name(rp->r));
}

/* s[0..n) into out, cut where it does not fit on a character boundary
 * (not inside one, which wt_text_clean would show as '?'). */
static void copy_name(char *out, size_t cap, const char *s, size_t n)
{
    if (n > cap - 1)
        n = wt_utf8_cut(s, cap - 1);
    memcpy(out, s, n);
    out[n] = '\0';
}

/* The value for one GPU in a per-GPU metadata list, as `record` writes for a
 * host whose GPUs differ ("0=NVIDIA A100-SXM4-40GB; 1=NVIDIA H100 PCIe"),
 * copied to out; 0 when the list or that GPU is absent. */
static int per_gpu(const char *list, int gpu, char *out, size_t cap)
{
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        long idx = -1;
        if (eq && eq > p && isdigit((unsigned char)*p)) {
            char *stop;
            idx = strtol(p, &stop, 10);
            if (stop != eq)
                idx = -1;
        }
        if (idx == gpu) {
            size_t vl = len - (size_t)(eq + 1 - p);
            const char *v = eq + 1;
            while (vl && *v == ' ')
                v++, vl--;
            while (vl && v[vl - 1] == ' ')
                vl--;
            if (!vl)
                return 0;
            copy_name(out, cap, v, vl);
            return 1;
        }
        p += len;
    }
    return 0;
}

/* Rows read past a GPU's first row, at most, to find the rest of that
 * sample (rows of one time, one per metric, of every GPU): a file whose
 * rows all have one time is not read to its end for it */
#define INFO_READ_AHEAD 4096

/* Fills info from the trace's metadata (and the GPU's first row); for an
 * index the trace does not have (GPUs 0 and 1 of a trace of GPU 2 only),
 * info is filled as well and WT_ENODEV returned: callers listing GPUs
 * 0..count-1 skip it. */
static int replay_info(struct wt_source *src, int gpu, struct wt_device_info *info,
                       struct wt_err *err)
{
    struct replay *rp = src->priv;
    if (gpu < 0 || gpu >= WT_MAX_GPUS)
        return wt_errf(err, WT_ENODEV, "%s: no GPU %d", wt_trace_name(rp->r), gpu);
    /* Read up to this GPU's first row: raw nvidia-smi CSV names the model in
     * its rows (the `name` field), and the limits come from the row. */
    struct queue *q = &rp->q[gpu];
    /* of a file, on to its second row or a later time: the first sample is
     * then whole (a limit written in a row of its own at the same time is
     * merged into it, as standard input, read to its end by `gpus`, had
     * it), and no more of the file is queued than one tick (or
     * INFO_READ_AHEAD rows); a stream is not held up for a row that may
     * come a second later */
    size_t ahead = 0;
    /* ... nor, in a file, before its power field is fixed (nvidia-smi's
     * preferred field "[N/A]" on the first rows: the semantics of the field
     * read are the GPU's, not the header's first choice) */
    while (!rp->eof && !unseen(rp, gpu) &&
           (q->len == q->head || (rp->path && ahead++ < INFO_READ_AHEAD &&
                                  ((!q->complete && !(rp->last_t > q->s[q->head].t_s)) ||
                                   wt_trace_power_pending(rp->r))))) {
        int rc = pull(rp, err);
        if (rc != WT_OK && rc != WT_DONE)
            return rc;
    }
    /* a recording of GPUs that differ names each one in a list */
    const char *model = wt_trace_meta_value(rp->r, "gpu_model");
    info->index = gpu;
    if (!per_gpu(wt_trace_meta_value(rp->r, "gpu_models"), gpu, info->name, sizeof(info->name)))
        copy_name(info->name, sizeof(info->name), model && *model ? model : "unknown",
                  model && *model ? strlen(model) : 7);
    wt_text_clean(info->name); /* the trace's text, shown and logged as is */
    char sem[16];
    if (per_gpu(wt_trace_meta_value(rp->r, "power_semantics_per_gpu"), gpu, sem, sizeof(sem)) &&
        (!strcasecmp(sem, "instant") || !strcasecmp(sem, "avg1s")))
        snprintf(info->power_semantics, sizeof(info->power_semantics), "%s",
                 tolower((unsigned char)sem[0]) == 'i' ? "instant" : "avg1s");
    else
        snprintf(info->power_semantics, sizeof(info->power_semantics), "%s",
                 wt_trace_meta(rp->r)->power_semantics);
    info->mem_total_mib = NAN;
    info->power_limit_w = NAN;
    info->power_default_limit_w = NAN;
    if (q->len > q->head) {
        const struct wt_sample *s = &q->s[q->head];
        info->mem_total_mib = s->v[WT_COL_MEM_TOTAL];
        info->power_limit_w = s->v[WT_COL_POWER_LIMIT];
        info->power_default_limit_w = s->v[WT_COL_POWER_DEFAULT_LIMIT];
    }
    if ((!q->present && rp->eof) || unseen(rp, gpu))
        return absent(rp, gpu, err);
    return WT_OK;
}

/* Hands out the first k (at most cap) queued samples of q into buf (*n). */
static void take(struct replay *rp, struct queue *q, size_t k, struct wt_sample *buf, size_t cap,
                 size_t *n)
{
    if (k > cap)
        k = cap;
    memcpy(buf, q->s + q->head, k * sizeof(*buf));
    q->head += k;
    rp->buffered -= k;
    *n = k;
}

static int replay_read(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap, size_t *n,
                       struct wt_err *err)
{
    struct replay *rp = src->priv;
    if (gpu < 0 || gpu >= WT_MAX_GPUS)
        return wt_errf(err, WT_ENODEV, "%s: no GPU %d", wt_trace_name(rp->r), gpu);
    struct queue *q = &rp->q[gpu];
    if (unseen(rp, gpu)) /* no need to queue the whole file to find that out */
        return absent(rp, gpu, err);
    q->read = rp->any_read = 1;
    /* a GPU's last sample is handed out only once its GPU's next row (of
     * another time) or the end shows it complete */
    int failed = 0;
    while (q->len - q->head <= (size_t)!rp->eof) {
        int rc = pull(rp, err);
        if (rc == WT_DONE)
            break;
        if (rc && q->len == q->head)
            return rc;
        if (rc) { /* what was read goes out first; the reader repeats its error next time */
            failed = 1;
            break;
        }
    }
    if (q->len == q->head)
        return q->present ? WT_DONE : absent(rp, gpu, err);
    size_t k = q->len - q->head;
    if (!rp->eof && !failed)
        k--;
    take(rp, q, k, buf, cap, n);
    return WT_OK;
}

/* What read would hand out now, without reading input: every queued
 * sample but the last, which is complete too once a row of a later time (of
 * any GPU: a stream's rows come in time order) or the end has come. */
static int replay_read_queued(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap,
                              size_t *n, struct wt_err *err)
{
    struct replay *rp = src->priv;
    *n = 0;
    if (gpu < 0 || gpu >= WT_MAX_GPUS || !rp->q[gpu].present || rp->q[gpu].ignored)
        return wt_errf(err, WT_ENODEV, "%s: no GPU %d so far", wt_trace_name(rp->r), gpu);
    struct queue *q = &rp->q[gpu];
    size_t k = q->len - q->head;
    if (k && !rp->eof && !(rp->last_t > q->s[q->len - 1].t_s))
        k--;
    take(rp, q, k, buf, cap, n);
    return WT_OK;
}

static const char *replay_meta(struct wt_source *src, const char *key)
{
    struct replay *rp = src->priv;
    if (!strcmp(key, "power_semantics"))
        return wt_trace_meta(rp->r)->power_semantics;
    return wt_trace_meta_value(rp->r, key);
}

static const char *replay_meta_at(struct wt_source *src, size_t i, const char **key)
{
    struct replay *rp = src->priv;
    const struct wt_trace_meta *m = wt_trace_meta(rp->r);
    if (i >= m->n)
        return NULL;
    *key = m->kv[i].key;
    return m->kv[i].value;
}

static const struct wt_owners *replay_owners(struct wt_source *src)
{
    struct replay *rp = src->priv;
    return wt_trace_owners(rp->r);
}

static void replay_close(struct wt_source *src)
{
    struct replay *rp = src->priv;
    if (!rp)
        return;
    wt_trace_close(rp->r);
    for (int i = 0; i < WT_MAX_GPUS; i++)
        free(rp->q[i].s);
    free(rp->q);
    free(rp->path);
    free(rp->seen);
    free(rp);
}

static void replay_ignore(struct wt_source *src, int gpu)
{
    struct replay *rp = src->priv;
    if (gpu < 0 || gpu >= WT_MAX_GPUS)
        return;
    struct queue *q = &rp->q[gpu];
    rp->buffered -= q->len - q->head;
    q->dropped += (long)(q->len - q->head);
    free(q->s);
    q->s = NULL;
    q->head = q->len = q->cap = 0;
    q->ignored = 1;
}

static long replay_ignored_rows(struct wt_source *src, int gpu)
{
    struct replay *rp = src->priv;
    if (gpu < 0 || gpu >= WT_MAX_GPUS || !rp->q[gpu].ignored || !rp->q[gpu].present)
        return -1;
    return rp->q[gpu].dropped;
}

const struct wt_source_ops wt_source_replay = {
    .name = "replay",
    .description = "a trace file or nvidia-smi --query-gpu CSV (file or standard input)",
    .open = replay_open,
    .device_count = replay_count,
    .device_info = replay_info,
    .read = replay_read,
    .meta = replay_meta,
    .meta_at = replay_meta_at,
    .owners = replay_owners,
    .ignore = replay_ignore,
    .ignored_rows = replay_ignored_rows,
    .read_queued = replay_read_queued,
    .close = replay_close,
};
