/* Prometheus metrics of the agent (see metrics.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "export/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "util/text.h"

static const char *const class_names[4] = {"training", "inference", "idle", "unknown"};
static const char *const tamper_names[3] = {"power_limit_below_default", "clocks_locked",
                                            "software_power_cap"};

static int class_slot(enum wt_class c)
{
    switch (c) {
    case WT_CLASS_TRAINING:
        return 0;
    case WT_CLASS_INFERENCE:
        return 1;
    case WT_CLASS_IDLE:
        return 2;
    default:
        return 3;
    }
}

void wt_metrics_init(struct wt_metrics *m)
{
    memset(m, 0, sizeof(*m));
    pthread_mutex_init(&m->mu, NULL);
    /* in a pod, gethostname() is the pod's name: the DaemonSet passes the
     * node's as NODE_NAME (as dcgm-exporter's does) */
    const char *node = getenv("NODE_NAME");
    if (node && *node)
        snprintf(m->hostname, sizeof(m->hostname), "%s", node);
    else if (gethostname(m->hostname, sizeof(m->hostname) - 1) != 0)
        snprintf(m->hostname, sizeof(m->hostname), "unknown");
    m->hostname[sizeof(m->hostname) - 1] = '\0';
    m->counter_hold_s = WT_METRICS_COUNTER_HOLD_S;
}

void wt_metrics_free(struct wt_metrics *m)
{
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++)
        free(m->gpu[i].owner_l);
    pthread_mutex_destroy(&m->mu);
}

static struct wt_gpu_metrics *slot(struct wt_metrics *m, int i)
{
    return i >= 0 && i < WT_METRICS_MAX_GPUS ? &m->gpu[i] : NULL;
}

void wt_metrics_gpu(struct wt_metrics *m, int i, const struct wt_gpu_labels *l)
{
    pthread_mutex_lock(&m->mu);
    struct wt_gpu_metrics *g = slot(m, i);
    if (g) {
        free(g->owner_l);
        memset(g, 0, sizeof(*g));
        g->used = 1;
        g->l = *l;
        g->cls = WT_CLASS_UNKNOWN;
        g->confidence = NAN;
        g->declared = WT_CLASS_NONE;
        g->since = wt_mono_s();
    }
    pthread_mutex_unlock(&m->mu);
}

static unsigned long long owner_key(const struct wt_gpu_labels *l)
{
    const char *parts[4] = {l->pod, l->k8s_namespace, l->container, l->slurm_job_id};
    uint64_t h = WT_FNV1A_INIT;
    for (int p = 0; p < 4; p++) /* the NUL too: "a","b" != "ab","" */
        h = wt_fnv1a(h, parts[p], strlen(parts[p]) + 1);
    return h ? h : 1;
}

/* Whether an owner's series is still exposed after it left (see
 * wt_metrics_render): for hold after its own hold and its leaving. */
static int left_shown(const struct wt_owner_counts *o, double now, double hold)
{
    double from = o->since + hold;
    return o->key && o->left > 0 && now < (from > o->left ? from : o->left) + hold;
}

/* The slot of owner key: its own, or a free one, or the least recently
 * left one whose series is no longer shown, or the least recently left one
 * (a 17th owner within a hold pushes the oldest shown one out); never the
 * slot of avoid (the owner arriving, whose counts are read next). */
static struct wt_owner_counts *owner_slot(struct wt_gpu_metrics *g, unsigned long long key,
                                          unsigned long long avoid, double now, double hold)
{
    struct wt_owner_counts *pick = NULL;
    int pick_shown = 0;
    for (int k = 0; k < WT_METRICS_OWNERS; k++) {
        struct wt_owner_counts *o = &g->owners[k];
        if (o->key == key)
            return o;
        if (o->key && o->key == avoid)
            continue;
        int shown = left_shown(o, now, hold);
        if (!pick || (pick->key && !o->key) ||
            (pick->key && o->key &&
             (pick_shown > shown || (pick_shown == shown && o->last_used < pick->last_used)))) {
            pick = o;
            pick_shown = shown;
        }
    }
    memset(pick, 0, sizeof(*pick));
    pick->key = key;
    return pick;
}

/* wt_metrics_owner's work, under m->mu */
static void owner_locked(struct wt_metrics *m, int i, const struct wt_gpu_labels *l)
{
    struct wt_gpu_metrics *g = slot(m, i);
    if (g && g->used) {
        /* another owner is another series: a new owner's counts start from
         * zero (a new job's series had carried the previous job's windows);
         * one of the last WT_METRICS_OWNERS owners coming back continues its
         * own (restarting it made increase() lose that owner's windows) */
        unsigned long long was = owner_key(&g->l), now = owner_key(l);
        if (was != now) {
            struct wt_owner_counts *o = owner_slot(g, was, now, wt_mono_s(), m->counter_hold_s);
            memcpy(o->per_class, g->per_class, sizeof(o->per_class));
            o->since = g->since;
            o->last_used = ++g->owner_tick;
            if (!g->owner_l)
                g->owner_l = calloc(WT_METRICS_OWNERS, sizeof(*g->owner_l));
            if (g->owner_l) { /* else its series goes at once, as before */
                struct wt_owner_labels *ol = &g->owner_l[o - g->owners];
                o->left = wt_mono_s();
                memcpy(ol->pod, g->l.pod, sizeof(ol->pod));
                memcpy(ol->k8s_namespace, g->l.k8s_namespace, sizeof(ol->k8s_namespace));
                memcpy(ol->container, g->l.container, sizeof(ol->container));
                memcpy(ol->slurm_job_id, g->l.slurm_job_id, sizeof(ol->slurm_job_id));
            }
            memset(g->per_class, 0, sizeof(g->per_class));
            g->since = wt_mono_s(); /* a new series: 0 for counter_hold_s */
            for (int k = 0; k < WT_METRICS_OWNERS; k++)
                if (g->owners[k].key == now) {
                    memcpy(g->per_class, g->owners[k].per_class, sizeof(g->per_class));
                    g->since = g->owners[k].since;
                    break;
                }
        }
        memcpy(g->l.pod, l->pod, sizeof(g->l.pod));
        memcpy(g->l.k8s_namespace, l->k8s_namespace, sizeof(g->l.k8s_namespace));
        memcpy(g->l.container, l->container, sizeof(g->l.container));
        memcpy(g->l.slurm_job_id, l->slurm_job_id, sizeof(g->l.slurm_job_id));
    }
}

void wt_metrics_owner(struct wt_metrics *m, int i, const struct wt_gpu_labels *l)
{
    pthread_mutex_lock(&m->mu);
    owner_locked(m, i, l);
    pthread_mutex_unlock(&m->mu);
}

/* The sources of a declaration, as the audit record's declared_by names them. */
static const char *const declared_by_names[] = {"command-line", "policy",   "policy-default",
                                                "process",      "conflict", "unlisted"};
enum { NDECLARED_BY = sizeof(declared_by_names) / sizeof(declared_by_names[0]) };

static const char *known_declared_by(const char *by)
{
    for (int k = 0; by && k < NDECLARED_BY; k++)
        if (!strcmp(by, declared_by_names[k]))
            return declared_by_names[k];
    return NULL;
}

/* wt_metrics_window's work, under m->mu */
static void window_locked(struct wt_metrics *m, int i, const struct wt_result *r,
                          enum wt_class declared, enum wt_verdict verdict, const char *declared_by)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct wt_gpu_metrics *g = slot(m, i);
    if (g && g->used) {
        g->classified = 1;
        g->last_window = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
        g->cls = r->cls;
        g->confidence = r->confidence;
        g->declared = declared;
        g->verdict = verdict;
        g->declared_by = known_declared_by(declared_by);
        g->per_class[class_slot(r->cls)]++;
        double lr = r->features.v[WT_F_LIMIT_RATIO], cap = r->features.v[WT_F_SWCAP_FRAC];
        g->tamper[0] = wt_measured(lr) && lr < 0.97;
        g->tamper[1] = r->features.v[WT_F_CLOCKS_LOCKED] == 1;
        g->tamper[2] = wt_measured(cap) && cap >= 0.5;
    }
}

void wt_metrics_window(struct wt_metrics *m, int i, const struct wt_result *r,
                       enum wt_class declared, enum wt_verdict verdict, const char *declared_by)
{
    pthread_mutex_lock(&m->mu);
    window_locked(m, i, r, declared, verdict, declared_by);
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_owned_window(struct wt_metrics *m, int i, const struct wt_gpu_labels *owner,
                             const struct wt_result *r, enum wt_class declared,
                             enum wt_verdict verdict, const char *declared_by, int owner_changed)
{
    pthread_mutex_lock(&m->mu);
    if (owner)
        owner_locked(m, i, owner);
    window_locked(m, i, r, declared, verdict, declared_by);
    struct wt_gpu_metrics *g = slot(m, i);
    if (owner_changed && g && g->used)
        g->owner_changed++;
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_owner_changed(struct wt_metrics *m, int i)
{
    pthread_mutex_lock(&m->mu);
    struct wt_gpu_metrics *g = slot(m, i);
    if (g && g->used)
        g->owner_changed++;
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_samples(struct wt_metrics *m, int i, unsigned long long n, int read_error)
{
    pthread_mutex_lock(&m->mu);
    struct wt_gpu_metrics *g = slot(m, i);
    if (g && g->used) {
        g->samples += n;
        g->read_errors += read_error ? 1 : 0;
    }
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_gpu_failed(struct wt_metrics *m, int i)
{
    if (i < 0 || i >= WT_METRICS_MAX_GPUS)
        return;
    pthread_mutex_lock(&m->mu);
    /* no job is on it any more: its last owner's counts become a series of
     * an owner that left (shown for the hold, then gone), not the GPU's
     * attribution to that job until the agent restarts */
    struct wt_gpu_labels none = m->gpu[i].l;
    none.pod[0] = none.k8s_namespace[0] = none.container[0] = none.slurm_job_id[0] = '\0';
    owner_locked(m, i, &none);
    m->gpu[i].failed = 1;
    m->gpu[i].classified = 0;
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_gpu_ended(struct wt_metrics *m, int i)
{
    if (i < 0 || i >= WT_METRICS_MAX_GPUS)
        return;
    pthread_mutex_lock(&m->mu);
    m->gpu[i].classified = 0;
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_stop(struct wt_metrics *m)
{
    pthread_mutex_lock(&m->mu);
    m->stopped = 1;
    /* the last textfile outlives the agent: its class, declaration,
     * mismatch and tamper gauges would assert the last window for ever (an
     * alert on a mismatch nobody watches any more); the counters stay */
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++)
        m->gpu[i].classified = 0;
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_scraped(struct wt_metrics *m)
{
    pthread_mutex_lock(&m->mu);
    m->scrapes++;
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_audit(struct wt_metrics *m, unsigned long long appends, unsigned long long errors,
                      unsigned long long dropped, int checkpointed)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    pthread_mutex_lock(&m->mu);
    m->appends = appends;
    m->append_errors = errors;
    m->dropped = dropped;
    if (checkpointed) {
        m->last_checkpoint = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
        m->last_checkpoint_mono = wt_mono_s();
    }
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_audit_verified(struct wt_metrics *m, int damaged)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    pthread_mutex_lock(&m->mu);
    m->log_verdict = damaged ? 2 : 1;
    m->last_verification = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    pthread_mutex_unlock(&m->mu);
}

void wt_metrics_escape(const char *in, char *out, size_t cap)
{
    size_t j = 0;
    for (size_t i = 0; in[i] && j + 3 < cap; i++) {
        char c = in[i];
        if (c == '\\' || c == '"') {
            out[j++] = '\\';
            out[j++] = c;
        } else if (c == '\n') {
            out[j++] = '\\';
            out[j++] = 'n';
        } else {
            out[j++] = c;
        }
    }
    /* a label value must be valid UTF-8, or the whole scrape is rejected: do
     * not end inside a sequence cut by cap, and mark invalid or control bytes */
    out[wt_utf8_cut(out, j)] = '\0';
    wt_text_clean(out);
}

/* --- rendering ------------------------------------------------------------ */

struct buf {
    char *p;
    size_t len, cap;
    int failed;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t ncap = b->cap * 2 + (size_t)n;
        char *np = realloc(b->p, ncap);
        if (!np) {
            b->failed = 1;
            return;
        }
        b->p = np;
        b->cap = ncap;
    }
}

static void family(struct buf *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The labels of a GPU, escaped, into out (without braces). */
static void gpu_labels(const struct wt_metrics *m, const struct wt_gpu_labels *gl, char *out,
                       size_t cap)
{
    char e[12][512]; /* a pod name is up to 253 bytes, escaped up to twice that */
    wt_metrics_escape(gl->gpu, e[0], sizeof(e[0]));
    wt_metrics_escape(gl->uuid, e[1], sizeof(e[1]));
    wt_metrics_escape(gl->pci_bus_id, e[2], sizeof(e[2]));
    wt_metrics_escape(gl->model, e[3], sizeof(e[3]));
    wt_metrics_escape(m->hostname, e[4], sizeof(e[4]));
    wt_metrics_escape(gl->pod, e[5], sizeof(e[5]));
    wt_metrics_escape(gl->k8s_namespace, e[6], sizeof(e[6]));
    wt_metrics_escape(gl->container, e[7], sizeof(e[7]));
    wt_metrics_escape(gl->slurm_job_id, e[8], sizeof(e[8]));
    int dcgm = m->label_style_dcgm;
    /* dcgm-exporter's MIG labels, between modelName and Hostname as it
     * writes them; only in that style, only for MIG devices */
    char mig[1700] = "";
    if (dcgm && (gl->gi_profile[0] || gl->gi_id[0])) {
        wt_metrics_escape(gl->gi_profile, e[9], sizeof(e[9]));
        wt_metrics_escape(gl->gi_id, e[10], sizeof(e[10]));
        wt_metrics_escape(gl->ci_id, e[11], sizeof(e[11]));
        snprintf(mig, sizeof(mig), "GPU_I_PROFILE=\"%s\",GPU_I_ID=\"%s\",%s%s%s", e[9], e[10],
                 e[11][0] ? "GPU_CI_ID=\"" : "", e[11], e[11][0] ? "\"," : "");
    }
    snprintf(out, cap,
             "gpu=\"%s\",%s=\"%s\",pci_bus_id=\"%s\",%s=\"%s\",%s%s=\"%s\","
             "pod=\"%s\",namespace=\"%s\",container=\"%s\",slurm_job_id=\"%s\"",
             e[0], dcgm ? "UUID" : "uuid", e[1], e[2], dcgm ? "modelName" : "model_name", e[3], mig,
             dcgm ? "Hostname" : "hostname", e[4], e[5], e[6], e[7], e[8]);
}

/* The label of the families keyed by GPU alone: gpu, and GPU_I_ID for a
 * MIG device in the dcgm style (whose gpu is its parent's); into out. */
static const char *gpu_only(const struct wt_metrics *m, const struct wt_gpu_metrics *g, char *out,
                            size_t cap)
{
    char e[3][512];
    wt_metrics_escape(g->l.gpu, e[0], sizeof(e[0]));
    wt_metrics_escape(g->l.gi_id, e[1], sizeof(e[1]));
    wt_metrics_escape(g->l.ci_id, e[2], sizeof(e[2]));
    if (m->label_style_dcgm && g->l.gi_id[0] && g->l.ci_id[0])
        snprintf(out, cap, "gpu=\"%s\",GPU_I_ID=\"%s\",GPU_CI_ID=\"%s\"", e[0], e[1], e[2]);
    else if (m->label_style_dcgm && g->l.gi_id[0])
        snprintf(out, cap, "gpu=\"%s\",GPU_I_ID=\"%s\"", e[0], e[1]);
    else
        snprintf(out, cap, "gpu=\"%s\"", e[0]);
    return out;
}

static void number(struct buf *b, double v)
{
    if (isnan(v))
        put(b, "NaN\n");
    else
        put(b, "%.6g\n", v);
}

/* Unix seconds to the millisecond (%.6g would round them to 1000 s). */
static void timestamp(struct buf *b, double v)
{
    if (isnan(v) || v <= 0)
        put(b, "NaN\n");
    else
        put(b, "%.3f\n", v);
}

char *wt_metrics_render(struct wt_metrics *m, size_t *len)
{
    struct buf b = {malloc(8192), 0, 8192, 0};
    if (!b.p)
        return NULL;
    b.p[0] = '\0';
    char lab[8192];            /* eleven escaped labels and their names */
    double mono = wt_mono_s(); /* the counters' hold and the checkpoint's age */
    pthread_mutex_lock(&m->mu);
    family(&b, "workloadtruth_build_info", "gauge", "Build information about workloadtruth.");
    put(&b, "workloadtruth_build_info{version=\"%s\"} 1\n", WT_VERSION);
    family(&b, "workloadtruth_up", "gauge", "1 while the agent is running, 0 once it stopped.");
    put(&b, "workloadtruth_up %d\n", !m->stopped);

    family(&b, "workloadtruth_gpu_workload_class", "gauge",
           "Workload class of the last classified window of each GPU (1 for the current class).");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++) {
        const struct wt_gpu_metrics *g = &m->gpu[i];
        if (!g->used || !g->classified)
            continue;
        gpu_labels(m, &g->l, lab, sizeof(lab));
        for (int c = 0; c < 4; c++)
            put(&b, "workloadtruth_gpu_workload_class{%s,class=\"%s\"} %d\n", lab, class_names[c],
                class_slot(g->cls) == c);
    }
    family(&b, "workloadtruth_gpu_classification_confidence", "gauge",
           "Confidence (0..1) of the last classified window of each GPU.");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++) {
        const struct wt_gpu_metrics *g = &m->gpu[i];
        if (!g->used || !g->classified)
            continue;
        gpu_labels(m, &g->l, lab, sizeof(lab));
        put(&b, "workloadtruth_gpu_classification_confidence{%s} ", lab);
        number(&b, g->confidence);
    }
    family(&b, "workloadtruth_gpu_declared_workload_class", "gauge",
           "Workload class the GPU's owner declared (1 for the declared class); absent when "
           "nothing was declared.");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++) {
        const struct wt_gpu_metrics *g = &m->gpu[i];
        if (!g->used || !g->classified || g->declared == WT_CLASS_NONE)
            continue;
        gpu_labels(m, &g->l, lab, sizeof(lab));
        for (int c = 0; c < 3; c++)
            put(&b, "workloadtruth_gpu_declared_workload_class{%s,class=\"%s\"} %d\n", lab,
                class_names[c], class_slot(g->declared) == c);
    }
    family(&b, "workloadtruth_gpu_declaration_mismatch", "gauge",
           "1 when the last window's class contradicts the declared type (a MISMATCH verdict).");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++) {
        const struct wt_gpu_metrics *g = &m->gpu[i];
        if (!g->used || !g->classified)
            continue;
        gpu_labels(m, &g->l, lab, sizeof(lab));
        put(&b, "workloadtruth_gpu_declaration_mismatch{%s} %d\n", lab,
            g->declared != WT_CLASS_NONE && g->verdict == WT_VERDICT_MISMATCH);
    }
    family(&b, "workloadtruth_gpu_declaration_verdict", "gauge",
           "The last window's verdict against the declared type (1 for it: match, mismatch, "
           "or inconclusive when the class is unknown); absent when nothing was declared.");
    static const char *const verdicts[] = {"match", "mismatch", "inconclusive"};
    static const enum wt_verdict verdict_of[] = {WT_VERDICT_MATCH, WT_VERDICT_MISMATCH,
                                                 WT_VERDICT_INCONCLUSIVE};
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++) {
        const struct wt_gpu_metrics *g = &m->gpu[i];
        if (!g->used || !g->classified || g->declared == WT_CLASS_NONE)
            continue;
        gpu_labels(m, &g->l, lab, sizeof(lab));
        for (int v = 0; v < 3; v++)
            put(&b, "workloadtruth_gpu_declaration_verdict{%s,verdict=\"%s\"} %d\n", lab,
                verdicts[v], g->verdict == verdict_of[v]);
    }
    family(&b, "workloadtruth_gpu_declaration_source", "gauge",
           "Where the last window's declared type came from (1 for it: command-line, policy, "
           "policy-default, process; conflict when the GPU's processes disagreed and none "
           "was taken, unlisted when they could not be listed: both also without a "
           "declaration); absent when nothing was declared by any of them.");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++) {
        const struct wt_gpu_metrics *g = &m->gpu[i];
        if (!g->used || !g->classified || !g->declared_by)
            continue;
        gpu_labels(m, &g->l, lab, sizeof(lab));
        for (int k = 0; k < NDECLARED_BY; k++)
            put(&b, "workloadtruth_gpu_declaration_source{%s,source=\"%s\"} %d\n", lab,
                declared_by_names[k], g->declared_by == declared_by_names[k]);
    }
    family(&b, "workloadtruth_gpu_classifications_total", "counter",
           "Windows classified, per GPU and class.");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++) {
        const struct wt_gpu_metrics *g = &m->gpu[i];
        if (!g->used)
            continue;
        gpu_labels(m, &g->l, lab, sizeof(lab));
        /* a new series shows 0 for counter_hold_s first (see metrics.h):
         * then increase() sees its first windows; a stopped agent's last
         * word is the count */
        int counts = m->stopped || mono - g->since >= m->counter_hold_s;
        for (int c = 0; c < 4; c++)
            put(&b, "workloadtruth_gpu_classifications_total{%s,class=\"%s\"} %llu\n", lab,
                class_names[c], counts ? g->per_class[c] : 0ULL);
        /* the owners that left: each series stays for counter_hold_s after
         * its hold and its leaving, whichever is later, so that every reader
         * that scrapes within the hold sees its final count (an owner gone
         * within the hold had only ever shown 0, and increase() never
         * counted it; one gone after it lost its last windows) */
        unsigned long long now_key = owner_key(&g->l);
        for (int k = 0; k < WT_METRICS_OWNERS; k++) {
            const struct wt_owner_counts *o = &g->owners[k];
            double shown_from = o->since + m->counter_hold_s;
            if (!g->owner_l || o->key == now_key || !left_shown(o, mono, m->counter_hold_s))
                continue;
            const struct wt_owner_labels *ol = &g->owner_l[k];
            struct wt_gpu_labels left = g->l;
            memcpy(left.pod, ol->pod, sizeof(left.pod));
            memcpy(left.k8s_namespace, ol->k8s_namespace, sizeof(left.k8s_namespace));
            memcpy(left.container, ol->container, sizeof(left.container));
            memcpy(left.slurm_job_id, ol->slurm_job_id, sizeof(left.slurm_job_id));
            gpu_labels(m, &left, lab, sizeof(lab));
            int shown = m->stopped || mono >= shown_from;
            for (int c = 0; c < 4; c++)
                put(&b, "workloadtruth_gpu_classifications_total{%s,class=\"%s\"} %llu\n", lab,
                    class_names[c], shown ? o->per_class[c] : 0ULL);
        }
    }
    family(&b, "workloadtruth_gpu_tamper_indicator", "gauge",
           "1 when the last window shows a configuration that can hide training (a tamper "
           "indicator, not a class).");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++) {
        const struct wt_gpu_metrics *g = &m->gpu[i];
        if (!g->used || !g->classified)
            continue;
        gpu_labels(m, &g->l, lab, sizeof(lab));
        for (int t = 0; t < 3; t++)
            put(&b, "workloadtruth_gpu_tamper_indicator{%s,indicator=\"%s\"} %d\n", lab,
                tamper_names[t], g->tamper[t]);
    }
    family(&b, "workloadtruth_gpu_failed", "gauge",
           "1 once a GPU failed and is no longer watched (its class gauges are gone), else 0.");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++)
        if (m->gpu[i].used)
            put(&b, "workloadtruth_gpu_failed{%s} %d\n", gpu_only(m, &m->gpu[i], lab, sizeof(lab)),
                m->gpu[i].failed);
    family(&b, "workloadtruth_gpu_last_window_timestamp_seconds", "gauge",
           "Unix time the GPU's last window was classified: a sampler that stalls (a hung "
           "driver call, a quiet input) stops it while the class gauges keep their value.");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++) {
        const struct wt_gpu_metrics *g = &m->gpu[i];
        if (!g->used || !g->classified)
            continue;
        gpu_labels(m, &g->l, lab, sizeof(lab));
        put(&b, "workloadtruth_gpu_last_window_timestamp_seconds{%s} ", lab);
        timestamp(&b, g->last_window);
    }
    family(&b, "workloadtruth_samples_read_total", "counter", "Telemetry samples read per GPU.");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++)
        if (m->gpu[i].used)
            put(&b, "workloadtruth_samples_read_total{%s} %llu\n",
                gpu_only(m, &m->gpu[i], lab, sizeof(lab)), m->gpu[i].samples);
    family(&b, "workloadtruth_read_errors_total", "counter",
           "Telemetry reads that failed and ended the GPU's watch (it fell off the bus, its "
           "trace broke), per GPU; a single reading the driver refuses is 'not measured', not "
           "counted.");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++)
        if (m->gpu[i].used)
            put(&b, "workloadtruth_read_errors_total{%s} %llu\n",
                gpu_only(m, &m->gpu[i], lab, sizeof(lab)), m->gpu[i].read_errors);
    family(&b, "workloadtruth_gpu_owner_changed_windows_total", "counter",
           "Windows whose owner (job, pod, container) or declared type changed while they were "
           "sampled, per GPU: their verdict is inconclusive, so a count that keeps rising is a "
           "GPU that changes hands every window.");
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++)
        if (m->gpu[i].used)
            put(&b, "workloadtruth_gpu_owner_changed_windows_total{%s} %llu\n",
                gpu_only(m, &m->gpu[i], lab, sizeof(lab)), m->gpu[i].owner_changed);
    family(&b, "workloadtruth_audit_appends_total", "counter",
           "Window (class) records appended durably to the audit log; heartbeats and "
           "checkpoints are not counted.");
    put(&b, "workloadtruth_audit_appends_total %llu\n", m->appends);
    family(&b, "workloadtruth_audit_append_errors_total", "counter",
           "Audit-log writes and checkpoint updates that failed, and failed tries to reopen a log "
           "that cannot be written (all are retried: after 0.5 s, then twice as long each time, "
           "up to 30 s).");
    put(&b, "workloadtruth_audit_append_errors_total %llu\n", m->append_errors);
    family(&b, "workloadtruth_audit_dropped_records_total", "counter",
           "Records never written: the writer fell behind and its queue overflowed.");
    put(&b, "workloadtruth_audit_dropped_records_total %llu\n", m->dropped);
    family(&b, "workloadtruth_audit_last_checkpoint_age_seconds", "gauge",
           "Seconds since the audit log's last signed checkpoint (NaN before the first).");
    put(&b, "workloadtruth_audit_last_checkpoint_age_seconds ");
    /* on the monotonic clock: the wall clock stepped back an hour made it
     * -3593 s, and an alert on a stalled writer could not fire */
    number(&b, m->last_checkpoint > 0 ? mono - m->last_checkpoint_mono : NAN);
    family(&b, "workloadtruth_audit_last_checkpoint_timestamp_seconds", "gauge",
           "Unix time of the audit log's last signed checkpoint (NaN before the first); "
           "time() - it stays right in a textfile the agent no longer rewrites.");
    put(&b, "workloadtruth_audit_last_checkpoint_timestamp_seconds ");
    timestamp(&b, m->last_checkpoint);
    family(&b, "workloadtruth_audit_log_damaged", "gauge",
           "1 when the agent's last verification of the whole audit log (every --verify-every "
           "seconds) found it damaged, as verify-log would (exit 1): run verify-log for the "
           "diagnosis; 0 when intact; NaN before the first.");
    put(&b, "workloadtruth_audit_log_damaged ");
    number(&b, m->log_verdict ? (double)(m->log_verdict == 2) : NAN);
    family(&b, "workloadtruth_audit_log_last_verification_timestamp_seconds", "gauge",
           "Unix time of the agent's last verification of the whole audit log that concluded "
           "(NaN before the first).");
    put(&b, "workloadtruth_audit_log_last_verification_timestamp_seconds ");
    timestamp(&b, m->log_verdict ? m->last_verification : 0);
    family(&b, "workloadtruth_scrapes_total", "counter", "Scrapes of this exporter.");
    put(&b, "workloadtruth_scrapes_total %llu\n", m->scrapes);
    pthread_mutex_unlock(&m->mu);
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    *len = b.len;
    return b.p;
}

int wt_metrics_write_textfile(struct wt_metrics *m, const char *dir, struct wt_err *err)
{
    size_t len;
    char *text = wt_metrics_render(m, &len);
    if (!text)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    char path[4096];
    snprintf(path, sizeof(path), "%s/workloadtruth.prom", dir);
    /* node_exporter reads it as another user: 0644 whatever the umask (a
     * systemd UMask=0027 made it 0640), set before it is renamed into place
     * (a chmod after left it unreadable for a moment each write).  Not
     * fsync'ed: a rename makes it atomic for readers, a crash costs one
     * rewrite, and watch writes it on its sampling thread, which a slow disk
     * must not stall (two fsyncs per window took 3 windows of 1 s to 24 s
     * behind a disk whose fsync took 3 s) */
    int rc = wt_write_file_durable(dir, path, text, len, 0644,
                                   WT_FILE_REPLACE | WT_FILE_EXACT_MODE | WT_FILE_NO_SYNC, err);
    free(text);
    return rc;
}
