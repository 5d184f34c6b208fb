/* The audit log as a self-contained HTML page (see report.h): verify,
 * gathering from the records the verifier accepts as it reads them (a
 * second read of the verified prefix, hashing it, only when later damage
 * takes back records used) per-GPU counts, a bounded ring of timeline
 * points and bounded lists, then print.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "audit/entry.h"
#include "audit/merkle.h"
#include "output/report.h"
#include "util/text.h"
#include "util/fileio.h"

enum { C_TRAIN, C_INFER, C_IDLE, C_UNK, NCLASS };

static const char *const cls_name[NCLASS] = {"training", "inference", "idle", "unknown"};
static const char *const cls_upper[NCLASS] = {"TRAINING", "INFERENCE", "IDLE", "UNKNOWN"};
static const char *const cls_color[NCLASS] = {"#4263eb", "#0ca678", "#ced4da", "#868e96"};

#define COL_MISMATCH "#e03131"
#define COL_TAMPER "#f76707"
#define COL_LINE "#212529"

#define PF_MISMATCH 1u
#define PF_TAMPER 2u

#define MAX_EVENTS 50 /* log events (recoveries, heartbeat problems) listed */
#define MAX_REASONS 6 /* of the latest window, per GPU */
#define MAX_TEXT 1024 /* joined tamper indicators */
#define SHOW_STR 256  /* bytes of a log string shown */
#define MAX_GAPS_DRAWN 12

/* --- the model --------------------------------------------------------- */

struct point {
    int64_t ts;
    uint64_t seq;
    uint32_t conf; /* ppm */
    uint8_t cls;
    uint8_t flags;
};

struct event {
    int64_t ts;
    uint64_t seq;
    uint32_t conf;
    uint8_t cls;
    char *declared, *verdict, *job, *text;
};

struct evring {
    struct event *v;
    size_t n, head;
    uint64_t total;
};

struct gpu {
    char *id;
    long long idx; /* -1: not recorded */
    char *model, *source;
    uint64_t windows, count[NCLASS], conf_sum, declared, mismatches, inconclusive, tampered;
    uint64_t unlisted;         /* windows whose processes could not be listed (declared_by) */
    int64_t first_ts, last_ts; /* of the first and the last window in log order */
    int64_t min_ts, max_ts;    /* the earliest and latest (a clock stepped back) */
    uint64_t first_seq, last_seq;
    struct point *pts; /* ring of the last max_windows */
    size_t pcap, pn, phead;
    struct evring mm, tp;
    char *reason[MAX_REASONS]; /* of the latest window */
    uint32_t last_conf;
    uint8_t last_cls;
};

struct logev {
    int64_t ts;
    uint64_t seq;
    char text[320];
};

/* A classifier (the record's `model`: "physics/...", a --model file's
 * "...model-sha256:...", "rules/...") and the windows it classified: a log
 * written by several is told as such (their confidences differ in kind). */
#define MAX_CLF 8
struct clf {
    char *name; /* NULL: the records name none */
    uint64_t windows, first_seq, last_seq;
};

struct model {
    struct wt_verify_report vr;
    struct clf clf[MAX_CLF];
    size_t nclf;
    uint64_t clf_other; /* windows of classifiers past MAX_CLF */
    const struct wt_report_opts *o;
    const char *log_path;
    size_t max_windows;
    uint64_t shown;
    struct gpu *g;
    size_t ng, gcap;
    uint64_t hidden_windows;                     /* of GPUs past WT_REPORT_MAX_GPUS */
    uint64_t hidden_mismatches, hidden_tampered; /* among them */
    struct evring hidden_mm; /* the latest of those mismatches (text: the GPU) */
    uint64_t n_class, n_heartbeat, n_checkpoint, n_recovery;
    int64_t genesis_ts, first_ts, last_ts;
    int have_genesis, have_ts; /* 0 is a time too (1970), not "none" */
    /* entries dated over a minute before the genesis record, or over a day
     * after the report's time: a clock set wrong, or times a key holder
     * wrote (the page showed them under a green "Log verified") */
    uint64_t n_early, n_late;
    int64_t early_ts, late_ts; /* the earliest and the latest of them */
    int64_t last_line_ts;      /* ts_ms of the last line shown (log order) */
    int64_t last_sealed_ts;    /* ts_ms of the last line a signed root covers (a checkpoint
                                * record's own ts_ms is signed by nobody) */
    int have_hb;
    int64_t hb_ts;
    long long hb_windows, hb_dropped, hb_errors, hb_gpus, hb_failed;
    char hb_failed_list[SHOW_STR + 8]; /* longer than shown: the cut is marked */
    struct logev ev[MAX_EVENTS];
    size_t nev, evhead;
    uint64_t ev_total;
};

static char *dupn(const char *s, size_t max)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    if (n > max)
        n = max;
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static void event_free(struct event *e)
{
    free(e->declared);
    free(e->verdict);
    free(e->job);
    free(e->text);
    memset(e, 0, sizeof(*e));
}

static void model_free(struct model *m)
{
    for (size_t i = 0; i < m->ng; i++) {
        struct gpu *g = &m->g[i];
        free(g->id);
        free(g->model);
        free(g->source);
        free(g->pts);
        for (size_t k = 0; k < g->mm.n; k++)
            event_free(&g->mm.v[k]);
        for (size_t k = 0; k < g->tp.n; k++)
            event_free(&g->tp.v[k]);
        free(g->mm.v);
        free(g->tp.v);
        for (int k = 0; k < MAX_REASONS; k++)
            free(g->reason[k]);
    }
    free(m->g);
    m->g = NULL;
    m->ng = 0;
    for (size_t k = 0; k < m->hidden_mm.n; k++)
        event_free(&m->hidden_mm.v[k]);
    free(m->hidden_mm.v);
    memset(&m->hidden_mm, 0, sizeof(m->hidden_mm));
    for (size_t i = 0; i < m->nclf; i++)
        free(m->clf[i].name);
    m->nclf = 0;
}

static int count_clf(struct model *m, const struct wt_entry *e)
{
    const char *name = json_string_value(json_object_get(e->obj, "model"));
    for (size_t i = 0; i < m->nclf; i++) {
        struct clf *c = &m->clf[i];
        if (name ? c->name && !strcmp(c->name, name) : !c->name) {
            c->windows++;
            c->last_seq = e->seq;
            return WT_OK;
        }
    }
    if (m->nclf == MAX_CLF) {
        m->clf_other++;
        return WT_OK;
    }
    struct clf *c = &m->clf[m->nclf];
    c->name = name ? dupn(name, SIZE_MAX) : NULL;
    if (name && !c->name)
        return WT_ENOMEM;
    c->windows = 1;
    c->first_seq = c->last_seq = e->seq;
    m->nclf++;
    return WT_OK;
}

static int cls_index(const char *s)
{
    for (int i = 0; i < NCLASS; i++)
        if (s && !strcmp(s, cls_name[i]))
            return i;
    return C_UNK;
}

static const char *ev_str(json_t *ev, const char *key)
{
    json_t *v = ev ? json_object_get(ev, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A ring slot for a new event of window p (the oldest is dropped when full). */
static struct event *evring_push(struct evring *r, const struct point *p, struct wt_err *err)
{
    if (!r->v) {
        r->v = calloc(WT_REPORT_MAX_LISTED, sizeof(*r->v));
        if (!r->v) {
            wt_errf(err, WT_ENOMEM, "out of memory");
            return NULL;
        }
    }
    r->total++;
    struct event *e;
    if (r->n < WT_REPORT_MAX_LISTED) {
        e = &r->v[r->n++];
    } else {
        e = &r->v[r->head];
        r->head = (r->head + 1) % WT_REPORT_MAX_LISTED;
        event_free(e);
    }
    e->ts = p->ts;
    e->seq = p->seq;
    e->cls = p->cls;
    e->conf = p->conf;
    return e;
}

static const struct event *evring_at(const struct evring *r, size_t i)
{
    return &r->v[(r->head + i) % r->n];
}

static struct gpu *find_gpu(struct model *m, const char *id, struct wt_err *err, int *hidden)
{
    *hidden = 0;
    for (size_t i = m->ng; i-- > 0;)
        if (!strcmp(m->g[i].id, id))
            return &m->g[i];
    if (m->ng >= WT_REPORT_MAX_GPUS) {
        *hidden = 1;
        return NULL;
    }
    if (m->ng == m->gcap) {
        size_t cap = m->gcap ? m->gcap * 2 : 8;
        struct gpu *g = realloc(m->g, cap * sizeof(*g));
        if (!g) {
            wt_errf(err, WT_ENOMEM, "out of memory");
            return NULL;
        }
        m->g = g;
        m->gcap = cap;
    }
    struct gpu *g = &m->g[m->ng];
    memset(g, 0, sizeof(*g));
    g->idx = -1;
    g->id = dupn(id, SIZE_MAX); /* whole: it is the key (shown cut) */
    if (!g->id) {
        wt_errf(err, WT_ENOMEM, "out of memory");
        return NULL;
    }
    m->ng++;
    return g;
}

static int push_point(struct model *m, struct gpu *g, const struct point *p, struct wt_err *err)
{
    if (g->pn < m->max_windows) {
        if (g->pn == g->pcap) {
            size_t cap = g->pcap ? g->pcap * 2 : 64;
            if (cap > m->max_windows)
                cap = m->max_windows;
            struct point *v = realloc(g->pts, cap * sizeof(*v));
            if (!v)
                return wt_errf(err, WT_ENOMEM, "out of memory (%zu timeline points)", cap);
            g->pts = v;
            g->pcap = cap;
        }
        g->pts[g->pn++] = *p;
    } else {
        g->pts[g->phead] = *p;
        g->phead = (g->phead + 1) % g->pn;
    }
    return WT_OK;
}

static const struct point *pt_at(const struct gpu *g, size_t i)
{
    return &g->pts[(g->phead + i) % g->pn];
}

/* "tamper_1" .. in the order written, joined (an ellipsis where cut). */
static char *join_tamper(json_t *ev)
{
    char buf[MAX_TEXT];
    size_t n = 0, cap = sizeof(buf) - 4; /* room for the ellipsis */
    const char *k;
    json_t *v;
    int cut = 0;
    if (!ev)
        return NULL;
    json_object_foreach(ev, k, v)
    {
        if (strncmp(k, "tamper_", 7) || !json_is_string(v))
            continue;
        int w = snprintf(buf + n, cap + 1 - n, "%s%s", n ? " \xC2\xB7 " : "", json_string_value(v));
        if (w < 0 || (size_t)w > cap - n) {
            n = wt_utf8_cut(buf, cap);
            cut = 1;
            break;
        }
        n += (size_t)w;
    }
    if (cut) {
        memcpy(buf + n, "\xE2\x80\xA6", 3);
        n += 3;
    }
    buf[n] = '\0';
    return n ? dupn(buf, sizeof(buf)) : NULL;
}

/* Whether a class record is a declared-vs-observed mismatch: its verdict,
 * else a plain comparison of the declared class with the observed one. */
static int is_mismatch(json_t *ev, int cls, const char **declared, const char **verdict)
{
    *declared = ev_str(ev, "declared");
    *verdict = ev_str(ev, "verdict");
    if (*verdict)
        return !strcasecmp(*verdict, "MISMATCH");
    return *declared && cls != C_UNK && strcasecmp(*declared, cls_name[cls]) != 0;
}

/* A mismatch's declared type, verdict and Slurm job, copied into x. */
static void mismatch_fill(struct event *x, json_t *ev, const char *declared, const char *verdict)
{
    x->declared = dupn(declared ? declared : "", SIZE_MAX);
    x->verdict = dupn(verdict ? verdict : "MISMATCH", SIZE_MAX);
    json_t *job = ev ? json_object_get(ev, "slurm_job_id") : NULL;
    char jb[32];
    if (json_is_integer(job)) {
        snprintf(jb, sizeof(jb), "%" JSON_INTEGER_FORMAT, json_integer_value(job));
        x->job = dupn(jb, sizeof(jb));
    } else if (json_is_string(job)) {
        x->job = dupn(json_string_value(job), SIZE_MAX);
    }
}

static struct point point_of(const struct wt_entry *e)
{
    struct point p = {0};
    p.ts = e->ts_ms;
    p.seq = e->seq;
    int64_t c = e->conf_ppm;
    p.conf = (uint32_t)(c < 0 ? 0 : c > 1000000 ? 1000000 : c);
    p.cls = (uint8_t)cls_index(e->cls);
    return p;
}

static int ingest_class(struct model *m, const struct wt_entry *e, struct wt_err *err)
{
    int hidden;
    struct gpu *g = find_gpu(m, e->gpu ? e->gpu : "?", err, &hidden);
    json_t *ev = json_object_get(e->obj, "evidence");
    if (!json_is_object(ev))
        ev = NULL;
    const char *declared, *verdict;
    int mismatch = is_mismatch(ev, cls_index(e->cls), &declared, &verdict);
    m->n_class++;
    if (count_clf(m, e) != WT_OK)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    if (!g) {
        if (!hidden)
            return WT_ENOMEM;
        /* not shown, but in the totals; its mismatches listed on their own
         * (each replayed job trace is a GPU of its own: on a cluster's log
         * the first 256 jobs hid every later job's mismatches) */
        m->hidden_windows++;
        m->hidden_mismatches += (uint64_t)mismatch;
        char *tamper = join_tamper(ev);
        m->hidden_tampered += tamper != NULL;
        free(tamper);
        if (mismatch) {
            struct point p = point_of(e);
            struct event *x = evring_push(&m->hidden_mm, &p, err);
            if (!x)
                return WT_ENOMEM;
            mismatch_fill(x, ev, declared, verdict);
            x->text = dupn(e->gpu ? e->gpu : "?", SIZE_MAX);
        }
        return WT_OK;
    }
    json_t *idx = json_object_get(e->obj, "gpu_idx");
    if (json_is_integer(idx))
        g->idx = (long long)json_integer_value(idx);
    const char *s;
    if ((s = ev_str(ev, "gpu_model")) != NULL && (!g->model || strcmp(g->model, s))) {
        free(g->model);
        g->model = dupn(s, SIZE_MAX);
    }
    if ((s = ev_str(ev, "source")) != NULL && (!g->source || strcmp(g->source, s))) {
        free(g->source);
        g->source = dupn(s, SIZE_MAX);
    }

    struct point p = point_of(e);

    /* declared vs observed; a window whose processes could not be listed
     * (watch: declared_by "unlisted", verdict INCONCLUSIVE) has no
     * declaration, and is told apart */
    const char *by = ev_str(ev, "declared_by");
    if (by && !strcmp(by, "unlisted") && !declared && !mismatch) {
        g->unlisted++;
    } else if (declared || verdict) {
        g->declared++;
        if ((verdict && !strcasecmp(verdict, "INCONCLUSIVE")) || (!verdict && p.cls == C_UNK))
            g->inconclusive++;
    }
    char *tamper = join_tamper(ev);
    if (mismatch) {
        p.flags |= PF_MISMATCH;
        g->mismatches++;
        struct event *x = evring_push(&g->mm, &p, err);
        if (!x) {
            free(tamper);
            return WT_ENOMEM;
        }
        mismatch_fill(x, ev, declared, verdict);
    }
    if (tamper) {
        p.flags |= PF_TAMPER;
        g->tampered++;
        struct event *x = evring_push(&g->tp, &p, err);
        if (!x) {
            free(tamper);
            return WT_ENOMEM;
        }
        x->text = tamper;
    }

    if (!g->windows) {
        g->first_ts = g->min_ts = g->max_ts = p.ts;
        g->first_seq = p.seq;
    }
    if (p.ts < g->min_ts)
        g->min_ts = p.ts;
    if (p.ts > g->max_ts)
        g->max_ts = p.ts;
    g->windows++;
    g->count[p.cls]++;
    g->conf_sum += p.conf;
    g->last_ts = p.ts;
    g->last_seq = p.seq;
    g->last_cls = p.cls;
    g->last_conf = p.conf;
    for (int k = 0; k < MAX_REASONS; k++) {
        char key[16];
        snprintf(key, sizeof(key), "reason_%d", k + 1);
        free(g->reason[k]);
        g->reason[k] = dupn(ev_str(ev, key), SIZE_MAX);
    }
    return push_point(m, g, &p, err);
}

static void add_logev(struct model *m, const struct wt_entry *e, const char *text)
{
    struct logev *x;
    m->ev_total++;
    if (m->nev < MAX_EVENTS) {
        x = &m->ev[m->nev++];
    } else {
        x = &m->ev[m->evhead];
        m->evhead = (m->evhead + 1) % MAX_EVENTS;
    }
    x->ts = e->ts_ms;
    x->seq = e->seq;
    snprintf(x->text, sizeof(x->text), "%s", text);
}

static long long hb_int(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

static void ingest_heartbeat(struct model *m, const struct wt_entry *e)
{
    long long dropped = hb_int(e->obj, "dropped"), errors = hb_int(e->obj, "write_errors");
    long long failed = hb_int(e->obj, "failed_gpus");
    const char *fl = ev_str(e->obj, "failed_list");
    long long windows = hb_int(e->obj, "windows");
    /* a new run of watch (its window count starts again) or another GPU
     * failing is news even when the counts repeat the last heartbeat's */
    int changed = !m->have_hb || dropped != m->hb_dropped || errors != m->hb_errors ||
                  failed != m->hb_failed || windows < m->hb_windows ||
                  strcmp(fl ? fl : "", m->hb_failed_list) != 0;
    m->n_heartbeat++;
    if (changed && (dropped > 0 || errors > 0 || failed > 0)) {
        char t[320];
        snprintf(t, sizeof(t),
                 "heartbeat: %lld record(s) dropped, %lld write error(s), %lld GPU(s) failed%s%s",
                 dropped, errors, failed, fl ? ": " : "", fl ? fl : "");
        add_logev(m, e, t);
    }
    m->have_hb = 1;
    m->hb_ts = e->ts_ms;
    m->hb_windows = windows;
    m->hb_dropped = dropped;
    m->hb_errors = errors;
    m->hb_gpus = hb_int(e->obj, "gpus");
    m->hb_failed = failed;
    snprintf(m->hb_failed_list, sizeof(m->hb_failed_list), "%s", fl ? fl : "");
}

static int ingest(struct model *m, const struct wt_entry *e, struct wt_err *err)
{
    m->last_line_ts = e->ts_ms;
    if (m->have_genesis && e->ts_ms < m->genesis_ts - 60000) {
        if (!m->n_early++ || e->ts_ms < m->early_ts)
            m->early_ts = e->ts_ms;
    }
    if (m->o->now_ms && e->ts_ms > m->o->now_ms + 86400000LL) {
        if (!m->n_late++ || e->ts_ms > m->late_ts)
            m->late_ts = e->ts_ms;
    }
    if (!m->have_ts || e->ts_ms < m->first_ts)
        m->first_ts = e->ts_ms;
    if (!m->have_ts || e->ts_ms > m->last_ts)
        m->last_ts = e->ts_ms;
    m->have_ts = 1;
    switch (e->type) {
    case WT_ENTRY_GENESIS:
        m->genesis_ts = e->ts_ms;
        m->have_genesis = 1;
        return WT_OK;
    case WT_ENTRY_CLASS:
        return ingest_class(m, e, err);
    case WT_ENTRY_HEARTBEAT:
        ingest_heartbeat(m, e);
        return WT_OK;
    case WT_ENTRY_CHECKPOINT:
        m->n_checkpoint++;
        return WT_OK;
    case WT_ENTRY_RECOVERY: {
        char t[320];
        const char *q = ev_str(e->obj, "quarantine");
        m->n_recovery++;
        snprintf(t, sizeof(t),
                 "recovery: %lld bytes of a torn last line at offset %lld removed%s%s",
                 hb_int(e->obj, "dropped_bytes"), hb_int(e->obj, "offset"), q ? ", kept in " : "",
                 q ? q : "");
        add_logev(m, e, t);
        return WT_OK;
    }
    default:
        return WT_OK;
    }
}

/* Reads the first vr.entries lines again, hashing every one (their root must
 * be the verifier's), and ingests the first m->shown of them. */
static int read_prefix(struct model *m, struct wt_err *err)
{
    const struct wt_verify_report *r = &m->vr;
    int rc = WT_OK;
    char *line = NULL;
    FILE *f = NULL;
    uint64_t bytes = 0;
    struct wt_merkle_range range;
    wt_merkle_range_init(&range);
    if (r->entries == 0)
        return WT_OK;
    const char *why = NULL;
    f = wt_fopen_regular(m->log_path, &why);
    if (!f) {
        rc = wt_errf(err, WT_EIO, "cannot open %s: %s", m->log_path, why);
        goto cleanup;
    }
    line = malloc(WT_ENTRY_MAX_LINE + 2);
    if (!line) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (uint64_t i = 0; i < r->entries; i++) {
        if (!fgets(line, WT_ENTRY_MAX_LINE + 2, f)) {
            rc = wt_errf(err, WT_EIO, "%s: %s at line %" PRIu64 " on the second read", m->log_path,
                         ferror(f) ? "read error" : "ended early (changed since it was verified)",
                         i + 1);
            goto cleanup;
        }
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            rc = wt_errf(err, WT_EIO, "%s:%" PRIu64 ": changed since it was verified", m->log_path,
                         i + 1);
            goto cleanup;
        }
        len--;
        bytes += len + 1;
        uint8_t leaf[32];
        wt_merkle_leaf_hash(line, len, leaf);
        wt_merkle_range_append(&range, leaf);
        if (i >= m->shown)
            continue;
        struct wt_entry e;
        struct wt_err perr = {{0}};
        if (wt_entry_parse(line, len, &e, &perr) != WT_OK) {
            rc = wt_errf(err, WT_EIO, "%s:%" PRIu64 ": changed since it was verified (%s)",
                         m->log_path, i + 1, perr.msg);
            goto cleanup;
        }
        if (i < m->vr.sealed)
            m->last_sealed_ts = e.ts_ms;
        rc = ingest(m, &e, err);
        wt_entry_free(&e);
        if (rc)
            goto cleanup;
    }
    uint8_t root[32];
    wt_merkle_range_root(&range, root);
    if (bytes != r->valid_bytes || memcmp(root, r->root, 32)) {
        rc = wt_errf(err, WT_EIO,
                     "%s: changed between verification and reading (the verified lines hash "
                     "differently now); run the report again",
                     m->log_path);
        goto cleanup;
    }
cleanup:
    free(line);
    if (f)
        fclose(f);
    return rc;
}

/* The records come from the verifier as it reads the log (one read, one
 * parse: wt_verify_opts.on_entry), but which of them the page shows is known
 * only at its end (m->shown, from the final report): a later line or an
 * external checkpoint compared at the end can take back records delivered
 * (a broken link blames the line before it, a checkpoint file of the log
 * up to a size with another root, one signed by another key).  So a record
 * is ingested once a verified signature covers it (r->sealed_through) and
 * another record followed it; the others wait here, in order, up to
 * fd->cap of them (WT_REPORT_FEED_MAX unless wt_report_opts.feed_max says
 * otherwise, for tests; or FEED_MAX_BYTES of lines): past that the oldest is
 * ingested anyway (most often a log that a signature covers at its end, as a
 * side file does).  At the end the waiting records up to m->shown are
 * ingested; when records ingested are not to be shown after all, the page
 * is built again from a second read (read_prefix: damage taking back signed
 * records, or a long unsigned stretch not shown), as it was before the one
 * read: the page is the same either way (test_one_read_same_page).  The
 * time of the last signed line shown is that of the last or the one before
 * it (sealed_through <= sealed + 1): else a second read too. */
#define WT_REPORT_FEED_MAX 4096
#define FEED_MAX_BYTES (2u << 20)

struct feed {
    struct model *m;
    struct wt_entry *q; /* ring of cap records not ingested yet */
    size_t cap, head, n;
    size_t *len; /* their line lengths */
    size_t bytes;
    uint64_t fed;             /* records ingested: lines 1..fed */
    int64_t ts_prev, ts_last; /* ts_ms of lines fed-1 and fed */
    int failed;               /* out of memory or an ingest error: read again */
};

static int feed_one(struct feed *fd)
{
    struct wt_entry *e = &fd->q[fd->head];
    int rc = fd->failed ? WT_OK : ingest(fd->m, e, &(struct wt_err){{0}});
    if (rc)
        fd->failed = 1;
    fd->ts_prev = fd->ts_last;
    fd->ts_last = e->ts_ms;
    fd->bytes -= fd->len[fd->head];
    wt_entry_free(e);
    fd->head = (fd->head + 1) % fd->cap;
    fd->n--;
    fd->fed++;
    return rc;
}

static void feed_entry(void *arg, const struct wt_entry *e, const char *line, size_t len,
                       const struct wt_verify_report *r)
{
    struct feed *fd = arg;
    (void)line;
    if (fd->failed)
        return;
    if (!fd->q) {
        fd->q = calloc(fd->cap, sizeof(*fd->q));
        fd->len = calloc(fd->cap, sizeof(*fd->len));
        if (!fd->q || !fd->len) {
            fd->failed = 1;
            return;
        }
    }
    /* signed, and not the last line delivered (the one e follows) */
    uint64_t upto = r->entries - 1 < r->sealed_through ? r->entries - 1 : r->sealed_through;
    while (fd->n && fd->fed < upto)
        feed_one(fd);
    while (fd->n && (fd->n == fd->cap || fd->bytes + len > FEED_MAX_BYTES))
        feed_one(fd);
    if (fd->fed + fd->n + 1 != r->entries) { /* not the verifier's order */
        fd->failed = 1;
        return;
    }
    size_t k = (fd->head + fd->n) % fd->cap;
    fd->q[k] = *e;
    json_incref(e->obj);
    fd->len[k] = len;
    fd->bytes += len;
    fd->n++;
}

static void feed_free(struct feed *fd)
{
    for (; fd->q && fd->n; fd->n--, fd->head = (fd->head + 1) % fd->cap)
        wt_entry_free(&fd->q[fd->head]);
    free(fd->q);
    free(fd->len);
    fd->q = NULL;
    fd->len = NULL;
}

/* Ingests the waiting records up to m->shown: 1, or 0 when the page must be
 * built from a second read instead (records ingested that are not shown). */
static int feed_finish(struct feed *fd)
{
    struct model *m = fd->m;
    uint64_t sealed = m->vr.sealed < m->shown ? m->vr.sealed : m->shown;
    if (fd->failed || fd->fed > m->shown || fd->fed + fd->n != m->vr.entries ||
        sealed + 1 < m->shown)
        return 0;
    while (fd->fed < m->shown)
        if (feed_one(fd))
            return 0;
    /* as read_prefix: the time of the last line shown that a signed root covers */
    if (sealed && sealed == m->shown)
        m->last_sealed_ts = fd->ts_last;
    else if (sealed)
        m->last_sealed_ts = fd->ts_prev;
    return 1;
}

/* The model emptied (what ingest() built), for a second read. */
static int model_restart(struct model *m)
{
    struct model *fresh = calloc(1, sizeof(*fresh));
    if (!fresh)
        return -1;
    fresh->vr = m->vr;
    fresh->o = m->o;
    fresh->log_path = m->log_path;
    fresh->max_windows = m->max_windows;
    fresh->shown = m->shown;
    model_free(m);
    *m = *fresh;
    free(fresh);
    return 0;
}

/* --- formatting -------------------------------------------------------- */

int wt_html_escape(FILE *out, const char *s, size_t max)
{
    static const char repl[] = "\xEF\xBF\xBD"; /* U+FFFD */
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t i = 0;
    while (i < max && p[i]) {
        unsigned c = p[i];
        if (c < 0x80) {
            switch (c) {
            case '&':
                fputs("&amp;", out);
                break;
            case '<':
                fputs("&lt;", out);
                break;
            case '>':
                fputs("&gt;", out);
                break;
            case '"':
                fputs("&quot;", out);
                break;
            case '\'':
                fputs("&#39;", out);
                break;
            default:
                if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F)
                    fputs(repl, out);
                else
                    fputc((int)c, out);
            }
            i++;
            continue;
        }
        size_t n;
        uint32_t cp, min;
        if (c >= 0xC2 && c <= 0xDF)
            n = 2, cp = c & 0x1F, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF)
            n = 3, cp = c & 0x0F, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4)
            n = 4, cp = c & 0x07, min = 0x10000;
        else
            n = 0, cp = 0, min = 0;
        int ok = n > 0 && i + n <= max;
        for (size_t k = 1; ok && k < n; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                ok = 0;
            else
                cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (ok && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)))
            ok = 0;
        if (!ok) {
            if (n > 0 && i + n > max)
                break; /* cut by max: the ellipsis says so */
            fputs(repl, out);
            i++;
            continue;
        }
        /* C1 controls and the characters that reorder text around them or
         * are invisible (GPU-0001 and GPU-0001 with a zero-width space read
         * as one) */
        if ((cp >= 0x80 && cp <= 0x9F) || wt_text_hidden(cp))
            fputs(repl, out);
        else
            fwrite(p + i, 1, n, out);
        i += n;
    }
    if (p[i]) /* i never passes the terminating NUL */
        fputs("\xE2\x80\xA6", out);
    return ferror(out) ? -1 : 0;
}

static void esc(FILE *f, const char *s)
{
    (void)wt_html_escape(f, s, SHOW_STR);
}

/* "2026-11-30 06:46:12Z"; with ms: "...:12.345Z"; kind 1: "06:46:12",
 * 2: "06:46:12.345", 3: "11-30 06:46". */
static void fmt_time(char *buf, size_t cap, int64_t ms, int kind)
{
    time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    int frac = (int)(ms - (int64_t)t * 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(buf, cap, "?");
        return;
    }
    switch (kind) {
    case 1:
        snprintf(buf, cap, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
        break;
    case 2:
        snprintf(buf, cap, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
        break;
    case 3:
        snprintf(buf, cap, "%02d-%02d %02d:%02d", tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min);
        break;
    default:
        snprintf(buf, cap, "%04d-%02d-%02d %02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    }
}

static void fmt_dur(char *buf, size_t cap, int64_t ms)
{
    int64_t s = ms / 1000;
    if (s < 120)
        snprintf(buf, cap, "%" PRId64 " s", s);
    else if (s < 7200)
        snprintf(buf, cap, "%" PRId64 " min", s / 60);
    else if (s < 172800)
        snprintf(buf, cap, "%" PRId64 " h %" PRId64 " min", s / 3600, (s % 3600) / 60);
    else
        snprintf(buf, cap, "%" PRId64 " d %" PRId64 " h", s / 86400, (s % 86400) / 3600);
}

static void put_time(FILE *f, int64_t ms)
{
    char t[48];
    fmt_time(t, sizeof(t), ms, 0);
    fputs(t, f);
}

/* "2026-11-30 06:46:12Z &#8594; 07:10:00Z" (the date once when it is the
 * same), on two lines with br */
static void put_period(FILE *f, int64_t a, int64_t b, int br)
{
    char ta[48], tb[48];
    fmt_time(ta, sizeof(ta), a, 0);
    fmt_time(tb, sizeof(tb), b, 0);
    /* the date part, up to its space (a year may have more than 4 digits) */
    const char *sp = strchr(ta, ' ');
    size_t dl = sp ? (size_t)(sp - ta) + 1 : 0;
    fprintf(f, "%s%s&#8594; %s", ta, br ? "<br>" : " ", dl && !strncmp(ta, tb, dl) ? tb + dl : tb);
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* --- page parts -------------------------------------------------------- */

static const char css[] =
    ":root{--train:#4263eb;--infer:#0ca678;--idle:#ced4da;--unk:#868e96;--bad:#e03131;"
    "--tamper:#f76707;--ok:#2b8a3e;--warn:#e8590c;--ink:#212529;--muted:#6c757d;"
    "--line:#e9ecef;--bg:#f4f5f7}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"
    "'Segoe UI',Roboto,'DejaVu Sans',Arial,sans-serif}\n"
    "main{max-width:1240px;margin:0 auto;padding:24px 20px 40px}\n"
    "header.top{margin-bottom:18px}\n"
    "h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:0 0 2px}"
    "h3{font-size:14px;margin:18px 0 6px;color:#343a40}\n"
    ".sub{color:var(--muted);font-size:13px}\n"
    ".card{background:#fff;border:1px solid #dee2e6;border-radius:10px;padding:18px 20px;"
    "margin:0 0 18px;box-shadow:0 1px 2px rgba(0,0,0,.04)}\n"
    ".status{border-left:8px solid var(--ok)}.status.warn{border-left-color:var(--warn)}"
    ".status.bad{border-left-color:var(--bad);background:#fff5f5}\n"
    ".badge{display:inline-block;font-weight:700;font-size:15px;padding:4px 12px;border-radius:"
    "999px;color:#fff;background:var(--ok);letter-spacing:.02em}\n"
    ".warn .badge{background:var(--warn)}.bad .badge{background:var(--bad)}\n"
    ".msg{margin:10px 0 12px;font-size:14px;overflow-wrap:anywhere}\n"
    ".wide{overflow-x:auto}\n"
    ".damage{border:1px solid #ffc9c9;background:#fff;border-radius:8px;padding:10px 14px;"
    "margin:0 0 12px}\n"
    ".damage b{color:var(--bad)}\n"
    "dl.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(270px,1fr));gap:6px 22px;"
    "margin:0}\n"
    "dl.facts div{border-top:1px solid var(--line);padding-top:5px;min-width:0}\n"
    "dt{color:var(--muted);font-size:12px}dd{margin:0;overflow-wrap:anywhere}\n"
    ".mono{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12.5px}\n"
    "ul.warns{margin:10px 0 0;padding-left:20px;color:#9c3a00}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}\n"
    "th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}"
    "\nth{color:var(--muted);font-weight:600;font-size:12px;background:#f8f9fa}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "td.t{white-space:nowrap}\n"
    ".scroll{max-height:340px;overflow:auto;border:1px solid var(--line);border-radius:6px}\n"
    ".scroll th{position:sticky;top:0}\n"
    ".sw{display:inline-block;width:11px;height:11px;border-radius:2px;vertical-align:-1px;"
    "margin-right:5px}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:12.5px;color:#495057;"
    "margin:8px 0 0}\n"
    ".legend span{white-space:nowrap}\n"
    ".gpuhead{display:flex;justify-content:space-between;align-items:baseline;flex-wrap:wrap;"
    "gap:6px}\n"
    ".pill{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;"
    "font-weight:600;color:#fff}\n"
    ".c-training{background:var(--train)}.c-inference{background:var(--infer)}"
    ".c-idle{background:var(--idle);color:#343a40}.c-unknown{background:var(--unk)}\n"
    ".grid2{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 28px}\n"
    "@media (max-width:900px){.grid2{grid-template-columns:1fr}}\n"
    ".cap{color:var(--muted);font-size:12.5px;margin:14px 0 4px}\n"
    "svg.tl{width:100%;height:auto;display:block;background:#fff}\n"
    ".bad-t{color:var(--bad);font-weight:600}.tam-t{color:#d9480f;font-weight:600}\n"
    ".none{color:var(--muted);font-style:italic}\n"
    ".reasons{margin:4px 0 0;padding-left:20px;color:#495057;font-size:12.5px}\n"
    "footer{color:var(--muted);font-size:12px;margin-top:10px}\n";

static void legend(FILE *f)
{
    fputs("<div class=\"legend\">", f);
    for (int c = 0; c < NCLASS; c++)
        fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>%s</span>", cls_color[c],
                cls_name[c]);
    fprintf(f,
            "<span><svg width=\"22\" height=\"10\" aria-hidden=\"true\"><line x1=\"1\" y1=\"5\" "
            "x2=\"21\" y2=\"5\" stroke=\"%s\" stroke-width=\"2\"/></svg> confidence (0&#8211;1)"
            "</span>"
            "<span><svg width=\"22\" height=\"10\" aria-hidden=\"true\"><rect x=\"1\" y=\"1\" "
            "width=\"20\" height=\"8\" fill=\"%s\" fill-opacity=\".18\"/></svg> its range in "
            "merged columns</span>"
            "<span><svg width=\"12\" height=\"10\" aria-hidden=\"true\"><path d=\"M1 1h10l-5 8z\" "
            "fill=\"%s\"/></svg> mismatch: declared &#8800; observed</span>"
            "<span><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><path "
            "d=\"M6 1l5 5-5 5-5-5z\" fill=\"%s\"/></svg> tamper indicator</span>"
            "<span><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><line x1=\"6\" y1=\"0\" "
            "x2=\"6\" y2=\"12\" stroke=\"#495057\" stroke-dasharray=\"2 2\"/></svg> gap in "
            "time</span>",
            COL_LINE, COL_LINE, COL_MISMATCH, COL_TAMPER);
    fputs("</div>\n", f);
}

static const char *damage_meaning(enum wt_damage d)
{
    switch (d) {
    case WT_DMG_TORN_TAIL:
        return "the last line was cut short by an interrupted write (a crash): a warning, not "
               "tampering; `workloadtruth recover` or the next `watch` quarantines it";
    case WT_DMG_MALFORMED:
        return "a line that is not a valid record";
    case WT_DMG_SEQUENCE:
        return "lines deleted, duplicated or reordered";
    case WT_DMG_BROKEN_LINK:
        return "a line altered, or lines inserted or removed";
    case WT_DMG_BAD_SIGNATURE:
        return "a checkpoint record whose signature or root is wrong: the lines since the "
               "previous good checkpoint record may have been rewritten";
    case WT_DMG_WRONG_KEY:
        return "not signed by the expected key: the log was re-created with another key, or a "
               "checkpoint belongs to another log";
    case WT_DMG_TRUNCATED:
        return "a signed checkpoint covers more lines than the log has: lines were cut off";
    case WT_DMG_REWRITTEN:
        return "a signed checkpoint's root differs from the log's: lines rewritten, or the log "
               "forked";
    case WT_DMG_CHECKPOINT:
        return "the checkpoint file is not a readable signed checkpoint";
    default:
        return "";
    }
}

static void fact_u(FILE *f, const char *name, uint64_t v)
{
    fprintf(f, "<div><dt>%s</dt><dd>%" PRIu64 "</dd></div>", name, v);
}

static void fact_s(FILE *f, const char *name, const char *v, int mono)
{
    fprintf(f, "<div><dt>%s</dt><dd%s>", name, mono ? " class=\"mono\"" : "");
    esc(f, v);
    fputs("</dd></div>", f);
}

static void render_status(FILE *f, const struct model *m)
{
    const struct wt_verify_report *r = &m->vr;
    const char *cls = r->status == WT_VERIFY_DAMAGED ? "bad"
                      : r->status == WT_VERIFY_WARN  ? "warn"
                                                     : "ok";
    const char *badge = r->status == WT_VERIFY_DAMAGED ? "&#10008; Log DAMAGED"
                        : r->status == WT_VERIFY_WARN  ? "&#9888; Log verified, with warnings"
                                                       : "&#10004; Log verified";
    fprintf(f, "<section class=\"card status %s\" id=\"status\">\n<span class=\"badge\">%s</span>",
            cls, badge);
    fputs("\n<p class=\"msg\">", f);
    (void)wt_html_escape(f, r->message, sizeof(r->message));
    fputs("</p>\n", f);
    if (r->status == WT_VERIFY_DAMAGED) {
        fputs("<div class=\"damage\"><b>Damage: ", f);
        esc(f, wt_damage_name(r->damage));
        fputs("</b> &#8212; ", f);
        esc(f, damage_meaning(r->damage));
        fputs(".<br>", f);
        if (r->line)
            fprintf(f, "First bad line: <b>%" PRIu64 "</b> (byte offset %" PRIu64 "). ", r->line,
                    r->offset);
        /* the lines before the damage that no signature covers */
        uint64_t upto = r->line ? r->line - 1 : r->entries;
        if (m->shown && r->line)
            fprintf(f,
                    "This page shows only lines 1&#8211;%" PRIu64
                    ", which verify and which a verified signature covers; nothing from the "
                    "first bad line on.",
                    m->shown);
        else if (m->shown)
            fprintf(f,
                    "The damage is in no line of the log itself; this page shows its lines "
                    "1&#8211;%" PRIu64 ", which verify and which a verified signature covers.",
                    m->shown);
        else
            fputs("No line of this log is covered by a verified signature; nothing of it is "
                  "shown.",
                  f);
        if (upto > m->shown && r->damage != WT_DMG_WRONG_KEY)
            fprintf(f,
                    " Lines %" PRIu64 "&#8211;%" PRIu64
                    " are not shown either: they link to each other, but no signature covers "
                    "them, so anyone able to write the file could have written them.",
                    m->shown + 1, upto);
        if (r->damage == WT_DMG_REWRITTEN)
            fputs(" A checkpoint signed with the log's own key contradicts these lines: if the "
                  "key itself was used, no line can be trusted.",
                  f);
        fputs("</div>\n", f);
    } else if (m->shown < r->entries && m->shown == 1 && r->sealed == 0) {
        /* the genesis line alone: shown for its key, which no signature covers */
        fprintf(f,
                "<div class=\"damage\">This page shows line 1 only, the genesis record: the "
                "log's key, which every signature is checked with; no signature covers it or "
                "its time. Lines 2&#8211;%" PRIu64
                " are not shown: no signed checkpoint covers them yet, so anyone able to write "
                "the file could have written them (a writer still running, or one that was "
                "killed, leaves its last lines so until it signs them).</div>\n",
                r->entries);
    } else if (m->shown < r->entries) {
        fprintf(f,
                "<div class=\"damage\">This page shows lines 1&#8211;%" PRIu64
                ", which a verified signature covers. Lines %" PRIu64 "&#8211;%" PRIu64
                " are not shown: no signed checkpoint covers them yet, so anyone able to write "
                "the file could have written them (a writer still running, or one that was "
                "killed, leaves its last lines so until it signs them).</div>\n",
                m->shown, m->shown + 1, r->entries);
    }
    fputs("<dl class=\"facts\">", f);
    /* on damage, the verifier's count and root run up to the line where it
     * found the damage, which may be that line itself (an altered line shows
     * when the next one does not link to it) */
    int damaged = r->status == WT_VERIFY_DAMAGED;
    fact_u(f, damaged ? "entries read before the damage was found" : "entries verified",
           r->entries);
    fact_u(f, "sealed by signed checkpoints", r->sealed);
    fact_u(f, "checkpoint records", r->ckpt_records);
    fact_u(f, "recoveries", r->recoveries);
    fact_s(f, "origin", r->origin[0] ? r->origin : "(none)", 1);
    fact_s(f, "key",
           m->o->vkey ? "pinned: the expected verifier key was given"
                      : "the log's own genesis key (not pinned: give --vkey)",
           0);
    char b64[45], buf[160];
    wt_b64_hash(r->root, b64);
    fact_s(f, damaged ? "Merkle root of the lines read" : "Merkle root of the verified lines", b64,
           1);
    fact_s(f, "log", m->o->log_label ? m->o->log_label : m->log_path, 1);
    snprintf(buf, sizeof(buf), "%" PRIu64 " of %" PRIu64 " bytes verified", r->valid_bytes,
             r->file_bytes);
    fact_s(f, "size", buf, 0);
    if (r->side_size) {
        snprintf(buf, sizeof(buf), "%" PRIu64 " lines", r->side_size);
        fact_s(f, "checkpoint file covers", buf, 0);
    }
    for (size_t i = 0; i < m->nclf; i++) {
        const struct clf *c = &m->clf[i];
        char line[SHOW_STR + 160];
        snprintf(line, sizeof(line), "%s: %" PRIu64 " window%s, lines %" PRIu64 "-%" PRIu64,
                 c->name ? c->name : "(not recorded)", c->windows, c->windows == 1 ? "" : "s",
                 c->first_seq + 1, c->last_seq + 1);
        fact_s(f, m->nclf > 1 ? "classifier (several: confidences differ in kind)" : "classifier",
               line, 1);
    }
    if (m->clf_other)
        fact_u(f, "windows of other classifiers", m->clf_other);
    if (m->have_genesis) {
        fmt_time(buf, sizeof(buf), m->genesis_ts, 0);
        fact_s(f, "created", buf, 0);
    }
    if (m->shown < r->entries) { /* the verifier's last line is not shown */
        if (m->shown) {
            fmt_time(buf, sizeof(buf), m->last_line_ts, 0);
            fact_s(f, "last entry shown", buf, 0);
        }
    } else if (r->entries) {
        fmt_time(buf, sizeof(buf), r->last_ts_ms, 0);
        fact_s(f, "last entry", buf, 0);
    }
    fputs("</dl>\n", f);
    if (r->nwarn) {
        fputs("<ul class=\"warns\">", f);
        for (int i = 0; i < r->nwarn && i < WT_VERIFY_MAX_WARN; i++) {
            fputs("<li>", f);
            (void)wt_html_escape(f, r->warn[i], sizeof(r->warn[i]));
            fputs("</li>", f);
        }
        fputs("</ul>\n", f);
    }
    fputs("</section>\n", f);
}

static void gpu_title(FILE *f, const struct gpu *g)
{
    if (g->idx >= 0)
        fprintf(f, "GPU %lld", g->idx);
    else
        fputs("GPU", f);
    if (g->model) {
        fputs(" &#183; ", f);
        esc(f, g->model);
    }
}

/* A small stacked bar of the class shares. */
static void mix_bar(FILE *f, const struct gpu *g, int w)
{
    fprintf(f, "<svg width=\"%d\" height=\"12\" role=\"img\"><title>", w);
    for (int c = 0; c < NCLASS; c++)
        fprintf(f, "%s%s %.1f%%", c ? ", " : "", cls_name[c], pct(g->count[c], g->windows));
    fputs("</title>", f);
    double x = 0;
    for (int c = 0; c < NCLASS; c++) {
        if (!g->count[c])
            continue;
        double cw = w * (double)g->count[c] / (double)g->windows;
        fprintf(f, "<rect x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"12\" fill=\"%s\"/>", x, cw,
                cls_color[c]);
        x += cw;
    }
    fputs("</svg>", f);
}

/* One mismatch as a table row: time, line, the GPU (gpu: the mismatches of
 * GPUs not shown, whose GPU is e->text), declared, observed, confidence,
 * verdict, job. */
static void mismatch_row(FILE *f, const struct event *e, int gpu)
{
    fputs("<tr><td class=\"t\">", f);
    put_time(f, e->ts);
    fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td><td%s>", e->seq + 1,
            gpu ? " class=\"mono\"" : "");
    if (gpu) {
        esc(f, e->text);
        fputs("</td><td>", f);
    }
    esc(f, e->declared);
    fprintf(f,
            "</td><td><span class=\"pill c-%s\">%s</span></td><td "
            "class=\"n\">%.2f</td><td class=\"bad-t\">",
            cls_name[e->cls], cls_upper[e->cls], e->conf / 1e6);
    esc(f, e->verdict);
    fputs("</td><td>", f);
    esc(f, e->job ? e->job : "");
    fputs("</td></tr>\n", f);
}

/* A table of mismatches (the latest, oldest first); gpu: with a GPU column
 * (the mismatches of GPUs not shown). */
static void mismatch_table(FILE *f, const struct evring *r, int gpu)
{
    fprintf(f,
            "<div class=\"scroll\"><table><tr><th>time (UTC)</th><th class=\"n\">line</th>%s"
            "<th>declared</th><th>observed</th><th class=\"n\">confidence</th><th>verdict</th>"
            "<th>job</th></tr>\n",
            gpu ? "<th>GPU</th>" : "");
    for (size_t i = 0; i < r->n; i++)
        mismatch_row(f, evring_at(r, i), gpu);
    fputs("</table></div>\n", f);
}

static void render_overview(FILE *f, const struct model *m, const size_t *order)
{
    fputs("<section class=\"card\" id=\"overview\">\n<h2>GPUs</h2>\n", f);
    if (!m->ng) {
        fputs("<p class=\"none\">No classification in the verified part of this log yet.</p>\n", f);
        legend(f);
        fputs("</section>\n", f);
        return;
    }
    fputs("<div class=\"wide\"><table><tr><th>GPU</th><th>class mix</th><th "
          "class=\"n\">windows</th>",
          f);
    for (int c = 0; c < NCLASS; c++)
        fprintf(f, "<th class=\"n\">%s</th>", cls_name[c]);
    fputs("<th class=\"n\">mean conf.</th><th class=\"n\">mismatches</th><th "
          "class=\"n\">tamper</th><th>first &#8594; last window (UTC)</th></tr>\n",
          f);
    for (size_t k = 0; k < m->ng; k++) {
        const struct gpu *g = &m->g[order[k]];
        fprintf(f, "<tr><td class=\"t\"><a href=\"#gpu-%zu\">", k + 1);
        gpu_title(f, g);
        /* the id too: two GPUs may share an index and a model (logs of
         * several nodes or traces) */
        fputs("</a><div class=\"sub mono\">", f);
        esc(f, g->id);
        fputs("</div></td><td>", f);
        mix_bar(f, g, 150);
        fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td>", g->windows);
        for (int c = 0; c < NCLASS; c++)
            fprintf(f, "<td class=\"n\">%" PRIu64 "</td>", g->count[c]);
        fprintf(f, "<td class=\"n\">%.2f</td>", (double)g->conf_sum / 1e6 / (double)g->windows);
        fprintf(f, "<td class=\"n%s\">%" PRIu64 "</td>", g->mismatches ? " bad-t" : "",
                g->mismatches);
        fprintf(f, "<td class=\"n%s\">%" PRIu64 "</td><td class=\"t\">",
                g->tampered ? " tam-t" : "", g->tampered);
        put_period(f, g->min_ts, g->max_ts, 1);
        fputs("</td></tr>\n", f);
    }
    fputs("</table></div>\n", f);
    if (m->hidden_windows)
        fprintf(f,
                "<p class=\"sub\">%" PRIu64 " more windows of GPUs beyond the first %d (%" PRIu64
                " mismatches, %" PRIu64 " with tamper indicators) are counted in the totals but "
                "not shown.</p>\n",
                m->hidden_windows, WT_REPORT_MAX_GPUS, m->hidden_mismatches, m->hidden_tampered);
    if (m->hidden_mm.n) {
        fprintf(f, "<p class=\"sub\">Their mismatches");
        if (m->hidden_mm.total > m->hidden_mm.n)
            fprintf(f, ", the latest %zu", m->hidden_mm.n);
        fputs(":</p>\n", f);
        mismatch_table(f, &m->hidden_mm, 1);
    }
    legend(f);
    fputs("</section>\n", f);
}

/* --- the timeline ------------------------------------------------------ */

#define SVG_W 1200
#define PL 96 /* left margin: row labels */
#define PR 16
#define PW (SVG_W - PL - PR) /* plot width, pixels: at most one column per pixel */
#define Y_MM 6               /* mismatch markers row */
#define Y_TP 22              /* tamper markers row */
#define Y_ST 40              /* class strip */
#define H_ST 30
#define Y_CH 82 /* confidence chart */
#define H_CH 96
#define Y_AX (Y_CH + H_CH + 16)
#define SVG_H (Y_AX + 8)

struct bucket {
    uint32_t n, cnt[NCLASS], mm, tp;
    uint32_t cmin, cmax;
    uint64_t csum;
    int64_t ts0, ts1;
    uint64_t seq0, seq1;
};

static double bx(size_t b, size_t nb)
{
    return PL + (double)PW * (double)b / (double)nb;
}

static double cy(double conf)
{
    return Y_CH + H_CH * (1.0 - conf);
}

static int pure_class(const struct bucket *b)
{
    for (int c = 0; c < NCLASS; c++)
        if (b->cnt[c] == b->n)
            return c;
    return -1;
}

static int dominant(const struct bucket *b)
{
    int best = 0;
    for (int c = 1; c < NCLASS; c++)
        if (b->cnt[c] > b->cnt[best])
            best = c;
    return best;
}

/* Tooltip text for buckets [b0, b1]. */
static void span_title(FILE *f, const struct bucket *bk, size_t b0, size_t b1)
{
    uint32_t n = 0, cnt[NCLASS] = {0};
    uint64_t csum = 0;
    for (size_t b = b0; b <= b1; b++) {
        n += bk[b].n;
        csum += bk[b].csum;
        for (int c = 0; c < NCLASS; c++)
            cnt[c] += bk[b].cnt[c];
    }
    char t0[48], t1[48];
    fmt_time(t0, sizeof(t0), bk[b0].ts0, 0);
    fmt_time(t1, sizeof(t1), bk[b1].ts1, 0);
    fputs("<title>", f);
    if (n == 1)
        fprintf(f, "line %" PRIu64 ", %s: ", bk[b0].seq0 + 1, t0);
    else
        fprintf(f,
                "lines %" PRIu64 "&#8211;%" PRIu64 ", %s &#8594; %s, %u windows: ", bk[b0].seq0 + 1,
                bk[b1].seq1 + 1, t0, t1, n);
    int first = 1;
    for (int c = 0; c < NCLASS; c++) {
        if (!cnt[c])
            continue;
        if (n == 1)
            fprintf(f, "%s", cls_upper[c]);
        else
            fprintf(f, "%s%s %u", first ? "" : ", ", cls_name[c], cnt[c]);
        first = 0;
    }
    fprintf(f, "; %s confidence %.2f</title>", n == 1 ? "" : "mean", (double)csum / 1e6 / n);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

struct gap {
    size_t i; /* the point after the gap */
    int64_t ms;
};

/* the longest first, a step back of the clock counted by its size */
static int cmp_gap(const void *a, const void *b)
{
    int64_t x = ((const struct gap *)a)->ms, y = ((const struct gap *)b)->ms;
    x = x < 0 ? -x : x;
    y = y < 0 ? -y : y;
    return (y > x) - (y < x);
}

static int render_timeline(FILE *f, const struct gpu *g, struct wt_err *err)
{
    size_t n = g->pn, nb = n < PW ? n : PW;
    struct bucket *bk = calloc(nb, sizeof(*bk));
    int64_t *d = n > 1 ? malloc((n - 1) * sizeof(*d)) : NULL;
    struct gap *gaps = n > 1 ? malloc((n - 1) * sizeof(*gaps)) : NULL;
    int rc = WT_OK;
    if (!bk || (n > 1 && (!d || !gaps))) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory (timeline of %zu windows)", n);
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        const struct point *p = pt_at(g, i);
        struct bucket *b = &bk[(size_t)((uint64_t)i * nb / n)];
        if (!b->n) {
            b->ts0 = p->ts;
            b->seq0 = p->seq;
            b->cmin = p->conf;
            b->cmax = p->conf;
        }
        b->n++;
        b->cnt[p->cls]++;
        b->csum += p->conf;
        if (p->conf < b->cmin)
            b->cmin = p->conf;
        if (p->conf > b->cmax)
            b->cmax = p->conf;
        b->mm += !!(p->flags & PF_MISMATCH);
        b->tp += !!(p->flags & PF_TAMPER);
        b->ts1 = p->ts;
        b->seq1 = p->seq;
    }
    const struct point *p0 = pt_at(g, 0), *pn = pt_at(g, n - 1);
    int64_t span = pn->ts - p0->ts;
    if (span < 0) /* the clock stepped back */
        span = -span;
    int tkind = span < 120000 ? 2 : span < 86400000 ? 1 : 3;
    char a[48], b[48];
    fmt_time(a, sizeof(a), p0->ts, 0);
    fmt_time(b, sizeof(b), pn->ts, 0);
    fprintf(f,
            "<p class=\"cap\">Timeline: %zu window%s (lines %" PRIu64 "&#8211;%" PRIu64
            "), %s &#8594; %s",
            n, n == 1 ? "" : "s", p0->seq + 1, pn->seq + 1, a, b);
    if (n < g->windows)
        fprintf(f, "; the last %zu of %" PRIu64 " windows", n, g->windows);
    if (nb < n)
        fprintf(f,
                "; each column merges about %.0f windows (class shares stacked, mean "
                "confidence and its range)",
                (double)n / (double)nb);
    else
        fputs("; one column per window, in log order", f);
    fputs(". Hover for details.</p>\n", f);

    fprintf(f,
            "<svg class=\"tl\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"class and "
            "confidence timeline\" font-size=\"11\">\n",
            SVG_W, SVG_H);
    /* row labels and frame */
    fprintf(f,
            "<g fill=\"#6c757d\" text-anchor=\"end\"><text x=\"%d\" y=\"%d\">mismatch</text>"
            "<text x=\"%d\" y=\"%d\">tamper</text><text x=\"%d\" y=\"%d\">class</text>"
            "<text x=\"%d\" y=\"%d\">confidence</text><text x=\"%d\" y=\"%d\">1.0</text>"
            "<text x=\"%d\" y=\"%d\">0.5</text><text x=\"%d\" y=\"%d\">0</text></g>\n",
            PL - 10, Y_MM + 10, PL - 10, Y_TP + 10, PL - 10, Y_ST + H_ST / 2 + 4, PL - 34,
            Y_CH + H_CH / 2 + 4, PL - 6, Y_CH + 4, PL - 6, Y_CH + H_CH / 2 + 4, PL - 6,
            Y_CH + H_CH + 4);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f8f9fa\"/>\n", PL, Y_CH,
            PW, H_CH);
    /* chart background tinted by the dominant class */
    fputs("<g fill-opacity=\".16\" shape-rendering=\"crispEdges\">", f);
    for (size_t s = 0; s < nb;) {
        size_t e = s;
        int c = dominant(&bk[s]);
        while (e + 1 < nb && dominant(&bk[e + 1]) == c)
            e++;
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
                bx(s, nb), Y_CH, bx(e + 1, nb) - bx(s, nb), H_CH, cls_color[c]);
        s = e + 1;
    }
    fputs("</g>\n", f);
    fprintf(f,
            "<g stroke=\"#dee2e6\" stroke-width=\"1\"><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
            "y2=\"%.1f\"/><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
            "stroke-dasharray=\"4 3\"/><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/></g>\n",
            PL, PL + PW, cy(1), cy(1), PL, PL + PW, cy(.5), cy(.5), PL, PL + PW, cy(0), cy(0));
    /* the class strip: runs of one class, stacked shares where merged */
    fputs("<g shape-rendering=\"crispEdges\">", f);
    for (size_t s = 0; s < nb;) {
        int c = pure_class(&bk[s]);
        if (c >= 0) {
            size_t e = s;
            while (e + 1 < nb && pure_class(&bk[e + 1]) == c)
                e++;
            fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">",
                    bx(s, nb), Y_ST, bx(e + 1, nb) - bx(s, nb), H_ST, cls_color[c]);
            span_title(f, bk, s, e);
            fputs("</rect>", f);
            s = e + 1;
            continue;
        }
        double y = Y_ST;
        fputs("<g>", f);
        span_title(f, bk, s, s);
        for (int k = 0; k < NCLASS; k++) {
            if (!bk[s].cnt[k])
                continue;
            double h = (double)H_ST * bk[s].cnt[k] / bk[s].n;
            fprintf(f, "<rect x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" height=\"%.2f\" fill=\"%s\"/>",
                    bx(s, nb), y, bx(s + 1, nb) - bx(s, nb), h, cls_color[k]);
            y += h;
        }
        fputs("</g>", f);
        s++;
    }
    fputs("</g>\n", f);
    /* gaps in time between consecutive windows (from two: a clock that
     * stepped back between them is marked too) */
    size_t ngap = 0;
    if (n >= 2) {
        for (size_t i = 1; i < n; i++)
            d[i - 1] = pt_at(g, i)->ts - pt_at(g, i - 1)->ts;
        qsort(d, n - 1, sizeof(*d), cmp_i64);
        int64_t med = d[(n - 1) / 2], thr = med * 10 > 120000 ? med * 10 : 120000;
        for (size_t i = 1; i < n; i++) {
            int64_t dt = pt_at(g, i)->ts - pt_at(g, i - 1)->ts;
            if (dt > thr || dt < -1000) /* a gap, or the clock stepped back */
                gaps[ngap++] = (struct gap){i, dt};
        }
        qsort(gaps, ngap, sizeof(*gaps), cmp_gap);
        for (size_t k = 0; k < ngap && k < MAX_GAPS_DRAWN; k++) {
            double x = bx((size_t)((uint64_t)gaps[k].i * nb / n), nb);
            char du[48], t0[48];
            int back = gaps[k].ms < 0;
            fmt_dur(du, sizeof(du), back ? -gaps[k].ms : gaps[k].ms);
            fmt_time(t0, sizeof(t0), pt_at(g, gaps[k].i - 1)->ts, 0);
            fprintf(f,
                    "<g><title>%s %s after %s (line %" PRIu64 ")</title><line "
                    "x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#343a40\" "
                    "stroke-dasharray=\"3 3\"/><text x=\"%.1f\" y=\"%d\" fill=\"#343a40\" "
                    "font-size=\"10\">%s %s</text></g>\n",
                    back ? "the clock stepped back by" : "no window for", du, t0,
                    pt_at(g, gaps[k].i - 1)->seq + 1, x, x, Y_ST - 2, Y_CH + H_CH, x + 3, Y_CH + 11,
                    back ? "clock back" : "gap", du);
        }
    }
    /* confidence: range of merged windows, then the mean line */
    if (nb < n) {
        fprintf(f, "<path fill=\"%s\" fill-opacity=\".18\" d=\"", COL_LINE);
        for (size_t k = 0; k < nb; k++)
            fprintf(f, "%c%.1f %.1f", k ? 'L' : 'M', (bx(k, nb) + bx(k + 1, nb)) / 2,
                    cy(bk[k].cmax / 1e6));
        for (size_t k = nb; k-- > 0;)
            fprintf(f, "L%.1f %.1f", (bx(k, nb) + bx(k + 1, nb)) / 2, cy(bk[k].cmin / 1e6));
        fputs("Z\"/>\n", f);
    }
    if (nb == 1) {
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", bx(0, 1) + PW / 2.0,
                cy((double)bk[0].csum / 1e6 / bk[0].n), COL_LINE);
    } else {
        fprintf(f,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
                "stroke-linejoin=\"round\" points=\"",
                COL_LINE);
        for (size_t k = 0; k < nb; k++)
            fprintf(f, "%s%.1f,%.1f", k ? " " : "", (bx(k, nb) + bx(k + 1, nb)) / 2,
                    cy((double)bk[k].csum / 1e6 / bk[k].n));
        fputs("\"/>\n", f);
    }
    /* markers: a triangle / diamond per column, a bar over runs of columns */
    for (int kind = 0; kind < 2; kind++) {
        for (size_t s0 = 0; s0 < nb;) {
            uint32_t hit = kind ? bk[s0].tp : bk[s0].mm;
            if (!hit) {
                s0++;
                continue;
            }
            size_t e = s0;
            uint64_t total = hit;
            while (e + 1 < nb && (kind ? bk[e + 1].tp : bk[e + 1].mm)) {
                e++;
                total += kind ? bk[e].tp : bk[e].mm;
            }
            char t0[48], t1[48];
            fmt_time(t0, sizeof(t0), bk[s0].ts0, 0);
            fmt_time(t1, sizeof(t1), bk[e].ts1, 0);
            fputs("<g><title>", f);
            if (kind)
                fprintf(f, "%" PRIu64 " window%s with tamper indicators", total,
                        total == 1 ? "" : "s");
            else
                fprintf(f, "%" PRIu64 " declared&#8211;observed mismatch%s", total,
                        total == 1 ? "" : "es");
            if (bk[s0].seq0 == bk[e].seq1)
                fprintf(f, ": line %" PRIu64 ", %s", bk[s0].seq0 + 1, t0);
            else
                fprintf(f, " among lines %" PRIu64 "&#8211;%" PRIu64 ", %s &#8594; %s",
                        bk[s0].seq0 + 1, bk[e].seq1 + 1, t0, t1);
            fputs("</title>", f);
            double x0 = bx(s0, nb), x1 = bx(e + 1, nb), x = (x0 + x1) / 2;
            int y = kind ? Y_TP + 1 : Y_MM + 1;
            const char *col = kind ? COL_TAMPER : COL_MISMATCH;
            if (x1 - x0 >= 12)
                fprintf(f,
                        "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"10\" rx=\"3\" "
                        "fill=\"%s\"/>",
                        x0, y, x1 - x0, col);
            else if (kind)
                fprintf(f, "<path d=\"M%.1f %dl5 5-5 5-5-5z\" fill=\"%s\"/>", x, y, col);
            else
                fprintf(f, "<path d=\"M%.1f %dh10l-5 10z\" fill=\"%s\"/>", x - 5, y, col);
            fputs("</g>\n", f);
            s0 = e + 1;
        }
    }
    /* time axis */
    size_t nt = nb < 6 ? nb : 6;
    fputs("<g fill=\"#495057\">", f);
    for (size_t k = 0; k < nt; k++) {
        size_t b0 = nt > 1 ? k * (nb - 1) / (nt - 1) : 0;
        double x = (bx(b0, nb) + bx(b0 + 1, nb)) / 2;
        const char *anchor = "middle";
        if (nt > 1 && k == 0)
            anchor = "start", x = bx(0, nb);
        else if (nt > 1 && k == nt - 1)
            anchor = "end", x = bx(nb, nb);
        char t[48];
        fmt_time(t, sizeof(t), bk[b0].ts0, tkind);
        fprintf(f,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#adb5bd\"/>"
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>",
                x, x, Y_CH + H_CH, Y_CH + H_CH + 4, x, Y_AX, anchor, t);
    }
    fputs("</g>\n</svg>\n", f);
cleanup:
    free(bk);
    free(d);
    free(gaps);
    return rc;
}

static void render_lists(FILE *f, const struct gpu *g)
{
    fprintf(f, "<h3>Declared vs observed: %" PRIu64 " mismatch%s</h3>\n", g->mismatches,
            g->mismatches == 1 ? "" : "es");
    if (g->unlisted)
        fprintf(f,
                "<p class=\"sub\">%" PRIu64 " window%s whose processes could not be listed: "
                "what they declare is not known, so no verdict.</p>\n",
                g->unlisted, g->unlisted == 1 ? "" : "s");
    if (!g->declared)
        fputs("<p class=\"none\">No declaration is recorded for this GPU's windows.</p>\n", f);
    else if (!g->mismatches && g->inconclusive >= g->declared)
        /* not "none contradicts it": no window was judged */
        fprintf(f,
                "<p class=\"sub\">%" PRIu64 " window%s with a declaration: none could be judged "
                "(every verdict inconclusive: the class unknown, the owner changed in the "
                "window, or a job too idle or too short to judge).</p>\n",
                g->declared, g->declared == 1 ? "" : "s");
    else if (!g->mismatches && g->inconclusive)
        fprintf(f,
                "<p class=\"sub\">%" PRIu64 " window%s with a declaration: none contradicts it "
                "(%" PRIu64 " inconclusive).</p>\n",
                g->declared, g->declared == 1 ? "" : "s", g->inconclusive);
    else if (!g->mismatches)
        fprintf(f,
                "<p class=\"sub\">%" PRIu64 " window%s with a declaration: none contradicts "
                "it.</p>\n",
                g->declared, g->declared == 1 ? "" : "s");
    else {
        fprintf(f, "<p class=\"sub\">%" PRIu64 " of %" PRIu64 " windows with a declaration",
                g->mismatches, g->declared);
        if (g->mm.total > g->mm.n)
            fprintf(f, "; the latest %zu are listed", g->mm.n);
        fputs(".</p>\n", f);
        mismatch_table(f, &g->mm, 0);
    }
    fprintf(f, "<h3>Tamper indicators: %" PRIu64 " window%s</h3>\n", g->tampered,
            g->tampered == 1 ? "" : "s");
    if (!g->tampered) {
        fputs("<p class=\"none\">None recorded.</p>\n", f);
        return;
    }
    if (g->tp.total > g->tp.n)
        fprintf(f, "<p class=\"sub\">The latest %zu are listed.</p>\n", g->tp.n);
    fputs("<div class=\"scroll\"><table><tr><th>time (UTC)</th><th class=\"n\">line</th>"
          "<th>class</th><th>indicators"
          "</th></tr>\n",
          f);
    for (size_t i = 0; i < g->tp.n; i++) {
        const struct event *e = evring_at(&g->tp, i);
        fputs("<tr><td class=\"t\">", f);
        put_time(f, e->ts);
        fprintf(f,
                "</td><td class=\"n\">%" PRIu64
                "</td><td><span class=\"pill c-%s\">%s</span></td><td class=\"tam-t\">",
                e->seq + 1, cls_name[e->cls], cls_upper[e->cls]);
        (void)wt_html_escape(f, e->text, MAX_TEXT);
        fputs("</td></tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

static int render_gpu(FILE *f, const struct gpu *g, size_t k, struct wt_err *err)
{
    fprintf(f, "<section class=\"card\" id=\"gpu-%zu\">\n<div class=\"gpuhead\"><h2>", k + 1);
    gpu_title(f, g);
    fprintf(f,
            "</h2><span>latest: <span class=\"pill c-%s\">%s</span> "
            "%.2f</span></div>\n<div class=\"sub mono\">",
            cls_name[g->last_cls], cls_upper[g->last_cls], g->last_conf / 1e6);
    esc(f, g->id);
    if (g->source) {
        fputs(" &#183; source ", f);
        esc(f, g->source);
    }
    fputs("</div>\n", f);
    int rc = render_timeline(f, g, err);
    if (rc)
        return rc;
    legend(f);
    fputs("<div class=\"grid2\"><div><h3>Windows per class</h3><table><tr><th>class</th>"
          "<th class=\"n\">windows</th><th class=\"n\">share</th></tr>\n",
          f);
    for (int c = 0; c < NCLASS; c++)
        fprintf(f,
                "<tr><td><i class=\"sw\" style=\"background:%s\"></i>%s</td><td "
                "class=\"n\">%" PRIu64 "</td><td class=\"n\">%.1f%%</td></tr>\n",
                cls_color[c], cls_name[c], g->count[c], pct(g->count[c], g->windows));
    fprintf(f,
            "<tr><th>all</th><th class=\"n\">%" PRIu64 "</th><th class=\"n\">mean conf. "
            "%.2f</th></tr></table></div>\n",
            g->windows, (double)g->conf_sum / 1e6 / (double)g->windows);
    fputs("<div><h3>Summary</h3><table>", f);
    fprintf(
        f, "<tr><td>declared&#8211;observed mismatches</td><td class=\"n%s\">%" PRIu64 "</td></tr>",
        g->mismatches ? " bad-t" : "", g->mismatches);
    fprintf(f, "<tr><td>windows with tamper indicators</td><td class=\"n%s\">%" PRIu64 "</td></tr>",
            g->tampered ? " tam-t" : "", g->tampered);
    fputs("<tr><td>first window</td><td class=\"n\">", f);
    put_time(f, g->first_ts);
    fprintf(f, " (line %" PRIu64 ")</td></tr><tr><td>last window</td><td class=\"n\">",
            g->first_seq + 1);
    put_time(f, g->last_ts);
    fprintf(f, " (line %" PRIu64 ")</td></tr>", g->last_seq + 1);
    char du[48];
    fmt_dur(du, sizeof(du), g->max_ts - g->min_ts);
    fprintf(f, "<tr><td>span</td><td class=\"n\">%s%s</td></tr></table>\n", du,
            g->last_ts < g->first_ts || g->min_ts < g->first_ts || g->max_ts > g->last_ts
                ? " (earliest to latest: the clock stepped back)"
                : "");
    int nr = 0;
    for (int i = 0; i < MAX_REASONS; i++)
        nr += g->reason[i] != NULL;
    if (nr) {
        fputs("<h3>Why the latest window was classified so</h3><ol class=\"reasons\">", f);
        for (int i = 0; i < MAX_REASONS; i++) {
            if (!g->reason[i])
                continue;
            fputs("<li>", f);
            esc(f, g->reason[i]);
            fputs("</li>", f);
        }
        fputs("</ol>", f);
    }
    fputs("</div></div>\n", f);
    render_lists(f, g);
    fputs("</section>\n", f);
    return WT_OK;
}

static void render_events(FILE *f, const struct model *m)
{
    fputs("<section class=\"card\" id=\"events\">\n<h2>Log</h2>\n<p class=\"sub\">", f);
    fprintf(f,
            "%" PRIu64 " record%s shown: %" PRIu64 " classification%s, %" PRIu64
            " heartbeat%s, %" PRIu64 " checkpoint record%s, %" PRIu64 " recover%s",
            m->shown, m->shown == 1 ? "" : "s", m->n_class, m->n_class == 1 ? "" : "s",
            m->n_heartbeat, m->n_heartbeat == 1 ? "" : "s", m->n_checkpoint,
            m->n_checkpoint == 1 ? "" : "s", m->n_recovery, m->n_recovery == 1 ? "y" : "ies");
    if (m->have_ts) {
        fputs("; ", f);
        put_period(f, m->first_ts, m->last_ts, 0);
    }
    fputs(".</p>\n", f);
    if (m->have_hb) {
        fputs("<p>Last heartbeat ", f);
        put_time(f, m->hb_ts);
        fprintf(f,
                ": %lld windows written by that run of <span class=\"mono\">watch</span>, %lld "
                "dropped, %lld write errors, %lld of %lld GPUs failed",
                m->hb_windows, m->hb_dropped, m->hb_errors, m->hb_failed, m->hb_gpus);
        if (m->hb_failed_list[0]) {
            fputs(" (", f);
            esc(f, m->hb_failed_list);
            fputs(")", f);
        }
        fputs(".</p>\n", f);
    }
    if (m->nev) {
        fputs("<table><tr><th>time (UTC)</th><th class=\"n\">line</th><th>event</th></tr>\n", f);
        for (size_t i = 0; i < m->nev; i++) {
            const struct logev *e = &m->ev[(m->evhead + i) % m->nev];
            fputs("<tr><td class=\"t\">", f);
            put_time(f, e->ts);
            fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td><td>", e->seq + 1);
            esc(f, e->text);
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
        if (m->ev_total > m->nev)
            fprintf(f, "<p class=\"sub\">The latest %zu of %" PRIu64 " events are listed.</p>\n",
                    m->nev, m->ev_total);
    }
    fputs("</section>\n", f);
}

static int gpu_order_cmp(const struct gpu *a, const struct gpu *b)
{
    if ((a->idx < 0) != (b->idx < 0))
        return a->idx < 0 ? 1 : -1;
    if (a->idx != b->idx)
        return a->idx < b->idx ? -1 : 1;
    return strcmp(a->id, b->id);
}

static int render(FILE *f, struct model *m, struct wt_err *err)
{
    const char *title = m->o->title ? m->o->title : "WorkloadTruth audit report";
    size_t *order = m->ng ? malloc(m->ng * sizeof(*order)) : NULL;
    if (m->ng && !order)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    for (size_t i = 0; i < m->ng; i++) {
        /* insertion sort: a few GPUs */
        size_t j = i;
        while (j > 0 && gpu_order_cmp(&m->g[order[j - 1]], &m->g[i]) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"workloadtruth " WT_VERSION "\">\n<title>",
          f);
    (void)wt_html_escape(f, title, SHOW_STR);
    fprintf(f,
            "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<header class=\"top\">"
            "<h1>",
            css);
    (void)wt_html_escape(f, title, SHOW_STR);
    fputs("</h1><div class=\"sub\">Audit log <span class=\"mono\">", f);
    esc(f, m->o->log_label ? m->o->log_label : m->log_path);
    fputs("</span>", f);
    if (m->o->now_ms) {
        fputs(" &#183; generated ", f);
        put_time(f, m->o->now_ms);
    }
    fputs(" by workloadtruth " WT_VERSION " &#183; times are UTC, when the record was written"
          "</div></header>\n",
          f);
    render_status(f, m);
    render_overview(f, m, order);
    int rc = WT_OK;
    for (size_t k = 0; k < m->ng && !rc; k++)
        rc = render_gpu(f, &m->g[order[k]], k, err);
    free(order);
    if (rc)
        return rc;
    render_events(f, m);
    fputs("<footer>How to read: each GPU's timeline shows its windows in log order, oldest on "
          "the left; the coloured strip is the class the classifier saw, the line its "
          "confidence. Mismatch markers are windows whose observed class contradicts the "
          "declared one; tamper markers are windows whose telemetry looked manipulated. A line "
          "number is the record's line in the log (<span class=\"mono\">workloadtruth prove "
          "LINE-1</span> proves it to a third party). This page runs no script and loads "
          "nothing.</footer>\n</main>\n</body>\n</html>\n",
          f);
    return WT_OK;
}

/* --- entry points ------------------------------------------------------ */

int wt_report_write(FILE *out, const char *log_path, const struct wt_report_opts *o,
                    struct wt_report_info *info, struct wt_err *err)
{
    static const struct wt_report_opts none = {0};
    struct model *m = calloc(1, sizeof(*m));
    int rc = WT_OK;
    if (!m)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    m->o = o ? o : &none;
    m->log_path = log_path;
    m->max_windows = m->o->max_windows ? m->o->max_windows : WT_REPORT_DEFAULT_WINDOWS;
    struct wt_verify_opts vo = {0};
    struct feed fd = {0};
    fd.m = m;
    fd.cap = m->o->feed_max ? m->o->feed_max : WT_REPORT_FEED_MAX;
    vo.vkey = m->o->vkey;
    vo.side_path = m->o->side_path;
    vo.now_ms = m->o->now_ms;
    vo.on_entry = m->o->reread ? NULL : feed_entry;
    vo.on_entry_arg = &fd;
    int st = wt_verify_file(log_path, &vo, &m->vr);
    if (st == WT_VERIFY_ERROR) {
        rc = wt_errf(err, WT_EIO, "%s", m->vr.message);
        goto cleanup;
    }
    m->vr.status = st;
    m->shown = m->vr.entries;
    if (st == WT_VERIFY_DAMAGED) {
        if (m->vr.line >= 1)
            m->shown = m->vr.line - 1 < m->vr.entries ? m->vr.line - 1 : m->vr.entries;
        else if (m->vr.damage == WT_DMG_WRONG_KEY)
            m->shown = 0;
        /* lines no verified signature covers only link to each other: anyone
         * able to write the file could have written them (a forged history
         * ended by a junk line must not read as the log's) */
        if (m->shown > m->vr.sealed_through)
            m->shown = m->vr.sealed_through;
    } else if (m->shown > m->vr.sealed_through) {
        /* intact, but its last lines are not signed yet (a writer still
         * running or killed; or lines appended, or a whole history forged
         * after a cut, by someone without the key): not shown as the log's */
        m->shown = m->vr.sealed_through;
    }
    if (!feed_finish(&fd)) {
        feed_free(&fd);
        if (model_restart(m)) {
            rc = wt_errf(err, WT_ENOMEM, "out of memory");
            goto cleanup;
        }
        rc = m->shown ? read_prefix(m, err) : WT_OK;
        if (rc)
            goto cleanup;
    }
    feed_free(&fd);
    /* stale: judged on the last line a signed root covers, not on a line
     * anyone could have appended with a later time, nor on the time of the
     * last checkpoint record itself (its signature covers the lines before
     * it, not its own ts_ms) */
    int64_t stale_ts = m->vr.sealed ? m->last_sealed_ts : m->last_line_ts;
    if (m->o->stale_ms > 0 && m->o->now_ms && m->shown > 0 && st != WT_VERIFY_DAMAGED &&
        m->o->now_ms - stale_ts > m->o->stale_ms && m->vr.nwarn < WT_VERIFY_MAX_WARN) {
        double age = (double)(m->o->now_ms - stale_ts) / 1000.0,
               lim = (double)m->o->stale_ms / 1000.0;
        snprintf(m->vr.warn[m->vr.nwarn++], sizeof(m->vr.warn[0]),
                 age >= 10 ? "the last entry shown is %.0f s old (more than %.3g s): the writer "
                             "may have stopped"
                           : "the last entry shown is %.3g s old (more than %.3g s): the writer "
                             "may have stopped",
                 age, lim);
        st = m->vr.status = WT_VERIFY_WARN;
    }
    if ((m->n_early || m->n_late) && st != WT_VERIFY_DAMAGED) {
        char a[64] = "", b[64] = "";
        if (m->n_early)
            fmt_time(a, sizeof(a), m->early_ts, 0);
        if (m->n_late)
            fmt_time(b, sizeof(b), m->late_ts, 0);
        if (m->n_early && m->vr.nwarn < WT_VERIFY_MAX_WARN)
            snprintf(m->vr.warn[m->vr.nwarn++], sizeof(m->vr.warn[0]),
                     "%" PRIu64 " entr%s dated more than a minute before the log was created "
                     "(the earliest %s): the host's clock was set back, or the times were "
                     "written by hand",
                     m->n_early, m->n_early == 1 ? "y is" : "ies are", a);
        if (m->n_late && m->vr.nwarn < WT_VERIFY_MAX_WARN)
            snprintf(m->vr.warn[m->vr.nwarn++], sizeof(m->vr.warn[0]),
                     "%" PRIu64 " entr%s dated more than a day after this report (the latest "
                     "%s): the host's clock was set ahead, or the times were written by hand",
                     m->n_late, m->n_late == 1 ? "y is" : "ies are", b);
        st = m->vr.status = WT_VERIFY_WARN;
    }
    rc = render(out, m, err);
    if (rc)
        goto cleanup;
    if (fflush(out) || ferror(out)) {
        rc = wt_errf(err, WT_EIO, "writing the report: %s", strerror(errno));
        goto cleanup;
    }
    if (info) {
        memset(info, 0, sizeof(*info));
        info->status = st;
        info->damage = m->vr.damage;
        info->line = m->vr.line;
        info->entries = m->vr.entries;
        info->shown = m->shown;
        info->gpus = m->ng;
        info->more_gpus = m->hidden_windows > 0;
        info->windows = m->n_class;
        info->mismatches = m->hidden_mismatches;
        info->tampered = m->hidden_tampered;
        for (size_t i = 0; i < m->ng; i++) {
            info->mismatches += m->g[i].mismatches;
            info->tampered += m->g[i].tampered;
        }
        snprintf(info->message, sizeof(info->message), "%s", m->vr.message);
    }
cleanup:
    feed_free(&fd);
    model_free(m);
    free(m);
    return rc;
}

int wt_report_html(const char *log_path, const struct wt_report_opts *o, char **html, size_t *len,
                   struct wt_report_info *info, struct wt_err *err)
{
    char *buf = NULL;
    size_t n = 0;
    *html = NULL;
    *len = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return wt_errf(err, WT_ENOMEM, "open_memstream: %s", strerror(errno));
    int rc = wt_report_write(f, log_path, o, info, err);
    if (fclose(f) && rc == WT_OK)
        rc = wt_errf(err, WT_ENOMEM, "closing the report buffer");
    if (rc) {
        free(buf);
        return rc;
    }
    *html = buf;
    *len = n;
    return WT_OK;
}
