/* Backend registry and the thin wrappers over the vtable (see source.h). */
#include "telemetry/source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct wt_source_ops *const backends[] = {
    &wt_source_synthetic,
    &wt_source_replay,
    &wt_source_nvml,
    NULL,
};

const struct wt_source_ops *const *wt_source_all(void)
{
    return backends;
}

const struct wt_source_ops *wt_source_find(const char *name)
{
    for (int i = 0; backends[i]; i++)
        if (!strcmp(backends[i]->name, name))
            return backends[i];
    return NULL;
}

int wt_source_open(const char *backend, const struct wt_source_config *cfg, struct wt_source **out,
                   struct wt_err *err)
{
    *out = NULL;
    const struct wt_source_ops *ops = wt_source_find(backend);
    if (!strcmp(backend, WT_BACKEND_AUTO)) {
        /* a live GPU when the driver is there; else say what to use instead */
        int rc = wt_source_open("nvml", cfg, out, err);
        if (rc == WT_ENODEV || rc == WT_ENOTSUP) {
            char why[sizeof(err->msg)];
            snprintf(why, sizeof(why), "%s", err ? err->msg : "");
            return wt_errf(err, rc,
                           "no NVIDIA GPU to read (%.300s); use --backend synthetic, or --trace "
                           "FILE",
                           why);
        }
        return rc;
    }
    if (!ops)
        return wt_errf(err, WT_EINVAL, "unknown backend '%s' (auto, synthetic, replay, nvml)",
                       backend);
    struct wt_source *src = calloc(1, sizeof(*src));
    if (!src)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    src->ops = ops;
    int rc = ops->open(src, cfg, err);
    if (rc) {
        free(src);
        return rc;
    }
    *out = src;
    return WT_OK;
}

int wt_source_device_count(struct wt_source *src, int *count, struct wt_err *err)
{
    return src->ops->device_count(src, count, err);
}

int wt_source_device_info(struct wt_source *src, int gpu, struct wt_device_info *info,
                          struct wt_err *err)
{
    memset(info, 0, sizeof(*info));
    info->mig_mode = -1;
    info->parent = -1;
    info->gpu_instance_id = info->compute_instance_id = -1;
    info->achieved_hz = NAN;
    info->util_buffer_period_s = NAN;
    info->power_buffer_period_s = NAN;
    return src->ops->device_info(src, gpu, info, err);
}

int wt_source_read(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap, size_t *n,
                   struct wt_err *err)
{
    *n = 0;
    if (cap == 0)
        return WT_OK;
    return src->ops->read(src, gpu, buf, cap, n, err);
}

int wt_source_read_n(struct wt_source *src, int gpu, struct wt_sample *buf, size_t want, size_t *n,
                     struct wt_err *err)
{
    *n = 0;
    while (*n < want) {
        size_t got = 0;
        int rc = wt_source_read(src, gpu, buf + *n, want - *n, &got, err);
        if (rc == WT_DONE)
            break;
        if (rc)
            return rc;
        *n += got;
    }
    return WT_OK;
}

void wt_polls_init(struct wt_polls *p)
{
    memset(p, 0, sizeof(*p));
    p->last_end = NAN;
}

void wt_polls_free(struct wt_polls *p)
{
    if (!p)
        return;
    free(p->carry);
    wt_polls_init(p);
}

/* Room for `need` samples in *buf (at most max): WT_OK, WT_DONE when it is
 * full at max, or WT_ENOMEM. */
static int polls_room(struct wt_sample **buf, size_t *cap, size_t need, size_t max,
                      struct wt_err *err)
{
    if (need <= *cap)
        return WT_OK;
    if (*cap >= max)
        return WT_DONE;
    size_t ncap = *cap ? *cap : (max < 256 ? max : 256);
    while (ncap < need && ncap < max)
        ncap = ncap * 2 < max ? ncap * 2 : max;
    struct wt_sample *nb = realloc(*buf, ncap * sizeof(*nb));
    if (!nb)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    *buf = nb;
    *cap = ncap;
    return WT_OK;
}

/* Whether s[k] completes a window (see wt_source_read_polls). */
static int polls_complete(const struct wt_sample *s, size_t k, size_t polls, double want,
                          double since)
{
    if (k + 1 < polls)
        return 0;
    if (isfinite(since))
        /* the time since the previous window's last sample: its span alone
         * (>= polls - 1.1 intervals before) ended a window of buffered
         * readings, ten a poll, after 4 polls of 5 */
        return s[k].t_s - since >= want;
    if (polls < 2)
        return 1;
    /* a first window: its span and one spacing (a first poll's lone sample
     * and then buffered readings covered one interval less than asked, and a
     * 5-poll window was too short to judge) */
    double span = s[k].t_s - s[0].t_s;
    return k > 0 && span + span / (double)k >= want;
}

int wt_source_read_polls(struct wt_source *src, int gpu, struct wt_sample **buf, size_t *cap,
                         size_t max, size_t polls, double interval, struct wt_polls *st,
                         const atomic_int *cancel, size_t *n, struct wt_err *err)
{
    double want = ((double)polls - 0.1) * interval;
    double since = st ? st->last_end : NAN;
    size_t scan = 0, done = 0; /* samples found not to complete it; through the one that does */
    int rc;
    *n = 0;
    if (st && st->ncarry) {
        size_t k = st->ncarry < max ? st->ncarry : max;
        if ((rc = polls_room(buf, cap, k, max, err)) < 0)
            return rc;
        if (k > *cap)
            k = *cap;
        memcpy(*buf, st->carry, k * sizeof(**buf));
        st->ncarry = 0;
        /* a caller back more than a window late (a round slower than a
         * window) finds more than a window carried: the older readings go (a
         * gap, which the window's span shows) and this window is the newest
         * polls x interval of them, so that windows never fall behind the
         * GPU (they did, by a window more each slow round, until the
         * driver's ring wrapped) */
        double w = (double)polls * interval, last = (*buf)[k - 1].t_s;
        if (isfinite(since) && last - since > w + 1e-3 * interval) {
            double from = last - w;
            size_t j = 0;
            while (j < k && (*buf)[j].t_s <= from + 1e-3 * interval)
                j++;
            memmove(*buf, *buf + j, (k - j) * sizeof(**buf));
            k -= j;
            since = from;
        }
        *n = k;
    }
    for (;;) {
        for (; scan < *n && !done; scan++)
            if (polls_complete(*buf, scan, polls, want, since))
                done = scan + 1;
        if (done)
            break;
        if (cancel && *cancel)
            return WT_DONE;
        if ((rc = polls_room(buf, cap, *n + 1, max, err)) < 0)
            return rc;
        if (rc == WT_DONE)
            break; /* full at max */
        size_t got = 0;
        rc = wt_source_read(src, gpu, *buf + *n, *cap - *n, &got, err);
        if (rc == WT_DONE)
            break;
        if (rc)
            return rc;
        *n += got;
    }
    if (done && st) {
        /* the readings up to polls intervals after the previous end (a first
         * window: its first sample less one spacing); a thousandth of an
         * interval for the rounding of the driver's microsecond stamps */
        const struct wt_sample *s = *buf;
        double base = isfinite(since) ? since
                      : done > 1      ? s[0].t_s - (s[done - 1].t_s - s[0].t_s) / (double)(done - 1)
                                      : NAN;
        double end = base + ((double)polls + 1e-3) * interval;
        size_t keep = isfinite(end) ? done : *n; /* one poll's window: all it brought */
        while (keep < *n && s[keep].t_s <= end)
            keep++;
        size_t left = *n - keep;
        if (left) {
            if (left > st->carry_cap) {
                struct wt_sample *nc = realloc(st->carry, left * sizeof(*nc));
                if (!nc)
                    return wt_errf(err, WT_ENOMEM, "out of memory");
                st->carry = nc;
                st->carry_cap = left;
            }
            memcpy(st->carry, s + keep, left * sizeof(*s));
            st->ncarry = left;
            *n = keep;
        }
    }
    if (st && *n)
        st->last_end = (*buf)[*n - 1].t_s;
    return WT_OK;
}

int wt_source_processes(struct wt_source *src, int gpu, struct wt_proc *out, size_t cap, size_t *n,
                        size_t *total, struct wt_err *err)
{
    size_t all = 0;
    *n = 0;
    if (total)
        *total = 0;
    if (!src->ops->processes)
        return wt_errf(err, WT_ENOTSUP, "the %s backend does not list processes", src->ops->name);
    int rc = src->ops->processes(src, gpu, out, cap, n, &all, err);
    if (total)
        *total = all < *n ? *n : all;
    return rc;
}

const char *wt_source_meta(struct wt_source *src, const char *key)
{
    return src->ops->meta ? src->ops->meta(src, key) : NULL;
}

const char *wt_source_meta_at(struct wt_source *src, size_t i, const char **key)
{
    return src->ops->meta_at ? src->ops->meta_at(src, i, key) : NULL;
}

const struct wt_owners *wt_source_owners(struct wt_source *src)
{
    return src && src->ops->owners ? src->ops->owners(src) : NULL;
}

void wt_source_ignore(struct wt_source *src, int gpu)
{
    if (src && src->ops->ignore)
        src->ops->ignore(src, gpu);
}

long wt_source_ignored_rows(struct wt_source *src, int gpu)
{
    return src && src->ops->ignored_rows ? src->ops->ignored_rows(src, gpu) : -1;
}

int wt_source_read_queued(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap,
                          size_t *n, struct wt_err *err)
{
    *n = 0;
    if (!src || !src->ops->read_queued)
        return wt_errf(err, WT_ENODEV, "the %s source keeps no samples read ahead",
                       src ? src->ops->name : "(none)");
    return src->ops->read_queued(src, gpu, buf, cap, n, err);
}

/* queued: a stream's peer, read without waiting (what has come of it by
 * the time the GPU's window is whole, GPUs it has not named yet none) */
int wt_peer_fill(struct wt_source *src, struct wt_peer *p, double t0, double t1, int queued,
                 struct wt_err *err)
{
    p->n = 0;
    for (;;) {
        struct wt_sample smp;
        if (p->have_carry) {
            smp = p->carry;
            p->have_carry = 0;
        } else if (p->done) {
            return WT_OK;
        } else if (queued) {
            size_t got = 0;
            int rc = wt_source_read_queued(src, p->gpu, &smp, 1, &got, err);
            if (rc == WT_ENODEV || (rc == WT_OK && got == 0))
                return WT_OK; /* nothing more so far */
            if (rc)
                return rc;
        } else {
            size_t got = 0;
            int rc = wt_source_read(src, p->gpu, &smp, 1, &got, err);
            if (rc == WT_DONE || rc == WT_ENODEV) {
                p->done = 1;
                return WT_OK;
            }
            if (rc)
                return rc;
        }
        if (smp.t_s > t1) {
            p->carry = smp;
            p->have_carry = 1;
            return WT_OK;
        }
        if (smp.t_s < t0)
            continue;
        if (p->n == p->cap) {
            size_t ncap = p->cap ? p->cap * 2 : 256;
            struct wt_sample *ns = realloc(p->s, ncap * sizeof(*ns));
            if (!ns)
                return wt_errf(err, WT_ENOMEM, "out of memory");
            p->s = ns;
            p->cap = ncap;
        }
        p->s[p->n++] = smp;
    }
}

void wt_source_label(const char *backend, const char *trace, const char *profile, char *out,
                     size_t cap)
{
    if (trace) {
        const char *b = strrchr(trace, '/');
        snprintf(out, cap, "replay:%.200s", !strcmp(trace, "-") ? "<stdin>" : b ? b + 1 : trace);
    } else if (!strcmp(backend, "synthetic")) {
        snprintf(out, cap, "synthetic:%.100s", profile ? profile : "");
    } else {
        snprintf(out, cap, "%s", strcmp(backend, WT_BACKEND_AUTO) ? backend : "nvml");
    }
}

void wt_source_close(struct wt_source *src)
{
    if (!src)
        return;
    if (src->ops->close)
        src->ops->close(src);
    free(src);
}
