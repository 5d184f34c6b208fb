/* One classification run (see run.h): source, windows, peers, job level.
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE /* flock */
#include "classify/run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/entry.h"
#include "audit/log.h"
#include "classify/verdict.h"
#include "output/output.h"
#include "telemetry/owners.h"
#include "util/text.h"

/* Reads `want` samples of gpu at or after time `start` (NaN = from the start). */
#define LIVE_MAX_SAMPLES 1000000      /* a live window's buffer, samples at most */
#define WT_RUN_SYNTH_MAX_START 604800 /* seconds of synthetic samples --start may skip */

static int read_window(struct wt_source *src, int gpu, double start, struct wt_sample *buf,
                       size_t want, size_t *n, const atomic_int *cancel, struct wt_err *err)
{
    *n = 0;
    while (*n < want) {
        size_t got = 0;
        if (cancel && *cancel)
            return WT_DONE;
        int rc = wt_source_read(src, gpu, buf + *n, want - *n, &got, err);
        if (rc == WT_DONE)
            return WT_OK;
        if (rc)
            return rc;
        if (!isnan(start)) {
            size_t keep = 0;
            for (size_t i = 0; i < got; i++)
                if (buf[*n + i].t_s >= start)
                    buf[*n + keep++] = buf[*n + i];
            got = keep;
        }
        *n += got;
    }
    return WT_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Each feature's median over the windows that measure it (NaN when none
 * does): the job's typical window, which one odd window does not move.  The
 * tamper indicators' features take the worst window instead (the highest SW
 * cap share, pinning and clock lock, the lowest limit ratio), as the job's
 * tamper indicators are those of any window. */
void wt_job_features(const struct wt_result *w, size_t n, double *vals, struct wt_features *out)
{
    for (int f = 0; f < WT_NFEATURES; f++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (!isnan(w[i].features.v[f]))
                vals[m++] = w[i].features.v[f];
        if (m == 0) {
            out->v[f] = NAN;
            continue;
        }
        qsort(vals, m, sizeof(*vals), cmp_double);
        if (f == WT_F_CLOCKS_LOCKED || f == WT_F_SWCAP_FRAC || f == WT_F_PIN_AT_CAP)
            out->v[f] = vals[m - 1];
        else if (f == WT_F_LIMIT_RATIO)
            out->v[f] = vals[0];
        else
            out->v[f] = m % 2 ? vals[m / 2] : vals[m / 2 - 1] / 2 + vals[m / 2] / 2;
    }
}

/* The job-level result of n windows: Python-shaped, with the k-of-n rule. */
/* The job's result from its n windows, decided by k of them; asked is the
 * number of windows asked for (more than n when `what` ended early). */
static int job_result(const struct wt_result *w, size_t n, size_t k, size_t asked, const char *what,
                      struct wt_result *job, struct wt_err *err)
{
    enum wt_class *cls = malloc(n * sizeof(*cls));
    double *vals = malloc(n * sizeof(*vals));
    if (!cls || !vals) {
        free(cls);
        free(vals);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        cls[i] = w[i].cls;
    size_t votes = 0, count[4] = {0}; /* TRAINING, INFERENCE, IDLE, UNKNOWN */
    memset(job, 0, sizeof(*job));
    job->cls = wt_job_class(cls, n, k, &votes);
    free(cls);
    job->classifier = w[0].classifier;
    job->gpu_index = w[0].gpu_index;
    job->score = NAN;
    for (size_t i = 0; i < n; i++) {
        job->sample_count += w[i].sample_count;
        count[w[i].cls >= 0 && w[i].cls <= WT_CLASS_UNKNOWN ? w[i].cls : WT_CLASS_UNKNOWN]++;
    }
    /* the verdict is judged on the windows (verdict.h), not on job->cls */
    job->job_windows = n;
    job->job_k = k;
    for (int c = 0; c < WT_NCLASSES; c++)
        job->job_count[c] = count[c];
    job->window_seconds = w[n - 1].window_seconds; /* replaced by the caller's span */
    job->confidence = (double)votes / (double)n;
    wt_job_features(w, n, vals, &job->features);
    free(vals);
    if (job->cls == WT_CLASS_UNKNOWN && n == asked)
        wt_result_add_reason(job, -1, NAN, WT_CLASS_NONE,
                             "no class in at least %zu of %zu windows (TRAINING %zu, INFERENCE "
                             "%zu, IDLE %zu, UNKNOWN %zu): the job's class is UNKNOWN",
                             k, n, count[0], count[1], count[2], count[3]);
    else if (job->cls == WT_CLASS_UNKNOWN && n < k)
        wt_result_add_reason(job, -1, NAN, WT_CLASS_NONE,
                             "%zu of the %zu windows asked for classified, fewer than the %zu that "
                             "must agree (TRAINING %zu, INFERENCE %zu, IDLE %zu, UNKNOWN %zu): the "
                             "job's class is UNKNOWN",
                             n, asked, k, count[0], count[1], count[2], count[3]);
    else if (job->cls == WT_CLASS_UNKNOWN)
        wt_result_add_reason(job, -1, NAN, WT_CLASS_NONE,
                             "no class in at least %zu of the %zu window%s classified, of %zu "
                             "asked for (TRAINING %zu, INFERENCE %zu, IDLE %zu, UNKNOWN %zu): the "
                             "job's class is UNKNOWN",
                             k, n, n == 1 ? "" : "s", asked, count[0], count[1], count[2],
                             count[3]);
    else if (n == asked)
        wt_result_add_reason(job, -1, NAN, job->cls,
                             "%zu of %zu windows %s (rule: at least %zu of %zu)", votes, n,
                             wt_class_name(job->cls), k, n);
    else
        wt_result_add_reason(job, -1, NAN, job->cls,
                             "%zu of the %zu windows classified %s (rule: at least %zu of the %zu "
                             "asked for)",
                             votes, n, wt_class_name(job->cls), k, asked);
    if (n < asked)
        wt_result_add_reason(job, -1, NAN, WT_CLASS_NONE,
                             "%s ended after %zu of the %zu windows asked for", what, n, asked);
    /* the windows' caveats about power ("power not measured ...", "power has
     * no scale ..."), once each: the text output of a job shows only its own
     * reasons, so they were seen in JSON only */
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < w[i].nreasons; r++) {
            const struct wt_reason *c = &w[i].reasons[r];
            if (c->feature != -1 || c->favours != WT_CLASS_NONE || strncmp(c->text, "power ", 6))
                continue;
            int dup = 0;
            for (size_t j = 0; j < job->nreasons && !dup; j++)
                dup = !strcmp(job->reasons[j].text, c->text);
            if (!dup)
                wt_result_add_reason(job, -1, NAN, WT_CLASS_NONE, "%s", c->text);
        }
    /* tamper indicators seen in any window, once per kind: from the job's
     * features, which hold the worst window's values of these (merging the
     * windows' texts, which carry each window's percentages, filled the
     * slots with one kind and dropped another) */
    size_t seen = 0;
    for (size_t i = 0; i < n; i++)
        seen += w[i].ntamper;
    if (seen) {
        /* "power pinned at the limit" qualifies the power cap only from a
         * window that showed both (the highest cap share and the highest
         * pinning of two other windows claimed a combination none showed) */
        struct wt_features tf = job->features;
        double pin = NAN;
        for (size_t i = 0; i < n; i++) {
            double c = w[i].features.v[WT_F_SWCAP_FRAC], p = w[i].features.v[WT_F_PIN_AT_CAP];
            if (wt_measured(c) && c >= 0.5 && wt_measured(p) && !(p <= pin))
                pin = p;
        }
        tf.v[WT_F_PIN_AT_CAP] = pin;
        wt_physics_tamper(job, &tf);
    }
    return WT_OK;
}

void wt_run_free(struct wt_run_outcome *out)
{
    if (!out)
        return;
    free(out->w);
    out->w = NULL;
    out->n = 0;
    free(out->procs);
    out->procs = NULL;
    out->nprocs = 0;
    out->have_procs = 0;
}

int wt_run_classify(const struct wt_run_request *rq, struct wt_run_outcome *out, struct wt_err *err)
{
    struct wt_source *src = NULL;
    struct wt_sample *buf = NULL;
    struct wt_peer *peers = NULL;
    struct wt_window *pw = NULL;
    struct wt_polls live_polls; /* the previous live window's end, readings past it */
    size_t npeers = 0;
    int ngpu = 1, rc;
    const char *trace = rq->cfg.trace_path;
    wt_polls_init(&live_polls);
    memset(out, 0, sizeof(*out));
    out->requested = rq->windows;
    out->k = rq->min_agree ? rq->min_agree : wt_job_default_k(rq->windows);
    struct wt_source_config cfg = rq->cfg;
    /* a stream's GPUs not classified are its peers: bounded from the
     * start (one without the GPU asked for queued the others up to the
     * cap, 2.3 GB, while that GPU was looked for) */
    cfg.stream_peers = trace && wt_trace_is_stream(trace) && !rq->alone;
    if ((rc = wt_source_open(rq->backend, &cfg, &src, err)) != WT_OK)
        return rc;
    size_t cap = rq->samples;
    buf = malloc(cap * sizeof(*buf));
    out->w = calloc(rq->windows, sizeof(*out->w));
    if (!buf || !out->w) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    /* a stream is not counted (it has no end to count to): its peers are
     * the GPUs it has named by the time a window is whole, read as they
     * came (an nvidia-smi pipe of 8 GPUs in training lost its strongest
     * evidence, and its MISMATCH, until 2026-12-07); with --peers none
     * their rows are dropped as they come, not queued (a stream without
     * --gpu-index's GPU queued 16M rows, 2.3 GB, before saying so; queued
     * peers keep their newest rows only) */
    const int stream = trace && wt_trace_is_stream(trace) && !strcmp(src->ops->name, "replay");
    if (stream && rq->alone)
        for (int g = 0; g < WT_MAX_GPUS; g++)
            if (g != rq->gpu)
                wt_source_ignore(src, g);
    /* live GPUs are read alone (no peers), and a GPU the source is not told
     * to ignore is polled too: one nobody asked for that answered slowly
     * stretched the window (a slow PCIe query of GPU 1 made 10 polls of GPU
     * 0 at 0.2 s take 14 s, and changed the verdict), as record and watch
     * --gpus had learnt */
    if (!strcmp(src->ops->name, "nvml"))
        for (int g = 0; g < WT_MAX_GPUS; g++)
            if (g != rq->gpu)
                wt_source_ignore(src, g);
    if ((rc = wt_source_device_info(src, rq->gpu, &out->info, err)) != WT_OK)
        goto out;
    /* peers: the other GPUs of a trace file, of the simulator or of a
     * stream (every index, those it has not named yet reading as none) */
    int live = !strcmp(src->ops->name, "nvml");
    if (live && !isnan(rq->start)) {
        rc = wt_errf(err, WT_EINVAL,
                     "--start is trace time: it goes with a trace or the synthetic source, not "
                     "a live GPU");
        goto out;
    }
    /* the synthetic source never ends: reaching a far start would take hours */
    if (!strcmp(src->ops->name, "synthetic") && rq->start > WT_RUN_SYNTH_MAX_START) {
        rc = wt_errf(err, WT_EINVAL,
                     "--start %.15g: the synthetic source never ends; at most %d s (a week) of it "
                     "can be skipped",
                     rq->start, WT_RUN_SYNTH_MAX_START);
        goto out;
    }
    if (stream)
        ngpu = WT_MAX_GPUS;
    else if (!live && (rc = wt_source_device_count(src, &ngpu, err)) != WT_OK)
        goto out;
    if (ngpu > 1 && !rq->alone) {
        peers = calloc((size_t)ngpu, sizeof(*peers));
        pw = calloc((size_t)ngpu, sizeof(*pw));
        if (!peers || !pw) {
            rc = wt_errf(err, WT_ENOMEM, "out of memory");
            goto out;
        }
        for (int g2 = 0; g2 < ngpu; g2++)
            if (g2 != rq->gpu)
                peers[npeers++].gpu = g2;
    }
    /* a trace's owners column: a GPU's peers are its job's (as under watch) */
    const struct wt_owners *owners = rq->all_peers ? NULL : wt_source_owners(src);
    double t_first = NAN, t_last = NAN;
    for (size_t wi = 0; wi < rq->windows; wi++) {
        size_t n = 0;
        /* a live GPU's window is --samples polls (--samples x --interval
         * seconds), with every buffered reading they bring */
        rc = live ? wt_source_read_polls(src, rq->gpu, &buf, &cap, LIVE_MAX_SAMPLES, rq->samples,
                                         rq->cfg.interval_s > 0 ? rq->cfg.interval_s : 1,
                                         &live_polls, rq->cancel, &n, err)
                  : read_window(src, rq->gpu, wi ? NAN : rq->start, buf, rq->samples, &n,
                                rq->cancel, err);
        if (rc != WT_OK)
            goto out;
        if (n < rq->samples && wi) {
            /* a finite source ended after whole windows: those are kept
             * and decided on (the caller says so), not thrown away */
            out->leftover = n;
            break;
        }
        if (n < rq->samples) {
            rc = wt_errf(err, WT_EINVAL,
                         "%s: GPU %d has only %zu sample%s%s; --samples asks for %zu",
                         trace ? (strcmp(trace, "-") ? trace : "<stdin>") : rq->backend, rq->gpu, n,
                         n == 1 ? "" : "s", isnan(rq->start) ? "" : " from --start", rq->samples);
            goto out;
        }
        if (wi == 0)
            t_first = buf[0].t_s;
        t_last = buf[n - 1].t_s;
        struct wt_window w = {.s = buf,
                              .n = n,
                              .gpu = rq->gpu,
                              .power_semantics = out->info.power_semantics,
                              .gpu_model = out->info.name,
                              .peers = pw,
                              .npeers = 0};
        size_t other_jobs = 0;
        for (size_t p = 0; p < npeers; p++) {
            if ((rc = wt_peer_fill(src, &peers[p], buf[0].t_s, buf[n - 1].t_s, stream, err)) !=
                WT_OK)
                goto out;
            /* not of this GPU's job when the window began */
            if (peers[p].n && !wt_owners_same_job(owners, buf[0].owner, peers[p].s[0].owner))
                other_jobs++;
            else if (peers[p].n)
                pw[w.npeers++] = (struct wt_window){.s = peers[p].s,
                                                    .n = peers[p].n,
                                                    .gpu = peers[p].gpu,
                                                    .power_semantics = out->info.power_semantics,
                                                    .gpu_model = out->info.name};
        }
        if ((rc = wt_classify_window(rq->clf, &w, &out->w[wi], err)) != WT_OK)
            goto out;
        wt_result_note_other_jobs(&out->w[wi], other_jobs, w.npeers, "GPUs of the trace");
        out->n = wi + 1;
        if (rq->progress)
            rq->progress(rq->progress_ctx, wi + 1, rq->windows);
    }
    out->t_first = t_first;
    out->t_last = t_last;
    if (rq->windows > 1) {
        const char *what = !trace               ? "the source"
                           : strcmp(trace, "-") ? "the trace"
                                                : "standard input";
        if ((rc = job_result(out->w, out->n, out->k, rq->windows, what, &out->job, err)) != WT_OK)
            goto out;
        out->job.window_seconds = t_last - t_first;
    } else {
        out->job = out->w[0];
    }
    if (src->ops->processes) {
        struct wt_err perr;
        out->procs = malloc(WT_MAX_PROCS * sizeof(*out->procs));
        out->have_procs = out->procs && wt_source_processes(src, rq->gpu, out->procs, WT_MAX_PROCS,
                                                            &out->nprocs, NULL, &perr) == WT_OK;
    }
    rc = WT_OK;
out:
    for (size_t p = 0; p < npeers; p++)
        free(peers[p].s);
    free(peers);
    free(pw);
    free(buf);
    wt_polls_free(&live_polls);
    wt_source_close(src);
    return rc;
}

static int check_extra(const json_t *extra, const json_t *ev, struct wt_err *err)
{
    const char *k;
    json_t *v;
    if (!extra)
        return WT_OK;
    if (!json_is_object(extra) || json_object_size(extra) > WT_RUN_LOG_MAX_EXTRA)
        return wt_errf(err, WT_EINVAL, "extra evidence: an object of at most %d keys",
                       WT_RUN_LOG_MAX_EXTRA);
    json_object_foreach((json_t *)extra, k, v)
    {
        if (!wt_entry_key_ok(k))
            return wt_errf(err, WT_EINVAL, "extra evidence key '%.40s': keys are [a-z0-9_]{1,32}",
                           k);
        if (!json_is_string(v) || strlen(json_string_value(v)) > WT_ENTRY_MAX_STR)
            return wt_errf(err, WT_EINVAL,
                           "extra evidence '%s': the value must be a string of at most %d bytes", k,
                           WT_ENTRY_MAX_STR);
        if (ev && json_object_get(ev, k))
            return wt_errf(err, WT_EINVAL,
                           "extra evidence '%s': the class record already has that key", k);
    }
    return WT_OK;
}

int wt_run_log_result(const struct wt_run_outcome *run, const char *log_dir,
                      const struct wt_run_log_opts *o, json_t **where, struct wt_err *err)
{
    struct wt_log_paths p;
    struct wt_log *l = NULL;
    struct wt_log_recovery rec;
    json_t *f = NULL, *warnings = NULL;
    uint64_t seq = 0;
    struct stat st;
    int rc;
    if (where)
        *where = NULL;
    if ((rc = check_extra(o->extra_evidence, NULL, err)) != WT_OK)
        return rc;
    if ((rc = wt_log_paths_dir(&p, log_dir, err)) != WT_OK)
        return rc;
    if (stat(p.log, &st) != 0 && errno == ENOENT) {
        char vkey[256];
        struct wt_err ierr = {{0}};
        int irc = WT_OK;
        if (stat(p.key, &st) != 0) { /* neither log nor key: create them */
            irc = wt_log_init(&p, NULL, NULL, NULL, vkey, sizeof(vkey), &ierr);
            if (irc == WT_OK) {
                char shown[sizeof(p.dir)]; /* one line: control characters as '?' */
                snprintf(shown, sizeof(shown), "%s", p.dir);
                fprintf(stderr, "%s: created the audit log in %s; verifier key: %s\n",
                        o->who ? o->who : "workloadtruth", wt_text_clean(shown), vkey);
            }
        }
        /* A key without its log: another job creating it (wait for its log
         * as for a busy lock, at least 2 s even for callers that do not
         * wait for locks, such as MCP: an init takes milliseconds), else a
         * deleted log, which is not started again here under the same key:
         * that is `init`'s to do, deliberately (as for watch). */
        if (wt_log_wait_for_init(&p, 2, o->lock_wait_s > 2 ? o->lock_wait_s : 2, NULL) != 1) {
            if (irc != WT_OK) {
                *err = ierr;
                return irc;
            }
            return wt_errf(err, WT_EINVAL,
                           "%s is missing but its key %s exists: the log was deleted, or an "
                           "init was interrupted; check, then start a new log with this key "
                           "by running `workloadtruth init --log-dir %s` (after moving its "
                           "checkpoint file aside, keeping it as evidence, if there is one)",
                           p.log, p.key, log_dir);
        }
    }
    /* verified first without the lock, as other writers may be doing:
     * under it, only the lines appended since (Slurm job ends that met
     * waited in turn for one another's whole-log verification, and gave up
     * after lock_wait_s on a long log) */
    struct wt_log_prescan ps;
    wt_log_prescan(&p, o->cancel, &ps);
    struct wt_log_opts lo = {.prescan = &ps, .cancel = o->cancel};
    for (double waited = 0;; waited += 0.1) { /* another writer: wait for it */
        if ((rc = wt_log_open(&l, &p, &lo, &rec, err)) == WT_OK)
            break;
        if (rc == WT_EBUSY && o->cancel && atomic_load(o->cancel))
            return wt_errf(err, WT_ESTOP, "%s is in use by another writer, and a stop was asked",
                           p.log);
        if (rc != WT_EBUSY || waited >= o->lock_wait_s)
            return rc;
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
    /* what open repaired, and lines it signed that no writer sealed
     * (appended by someone without the key?): said on stderr, as every
     * writer says them, and in *where for callers whose stderr nobody reads */
    warnings = json_array();
    for (int i = 0; i < 2 && warnings; i++) {
        char msg[2 * PATH_MAX + 128];
        if (i ? wt_log_unsealed_msg(&rec, p.log, msg, sizeof(msg))
              : wt_log_repaired_msg(&rec, p.log, msg, sizeof(msg))) {
            fprintf(stderr, "%s: %s\n", o->who ? o->who : "workloadtruth", msg);
            json_array_append_new(warnings, json_string(msg));
        }
    }
    if (!warnings) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    const struct wt_result *r = &run->job;
    f = wt_json_class_record(r, &run->info, o->source, r->sample_count, run->t_first, run->t_last,
                             r->classifier ? r->classifier : wt_classifier_default(),
                             o->model_id ? o->model_id : "");
    json_t *ev = f ? json_object_get(f, "evidence") : NULL;
    if (!ev) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    if (o->extra_evidence) {
        if ((rc = check_extra(o->extra_evidence, ev, err)) != WT_OK)
            goto out;
        if (json_object_update(ev, o->extra_evidence)) {
            rc = wt_errf(err, WT_ENOMEM, "out of memory");
            goto out;
        }
    }
    if ((rc = wt_log_append(l, WT_ENTRY_CLASS, f, &seq, err)) != WT_OK)
        goto out;
    int prc = wt_log_publish(l, err);
    if (prc != WT_OK) {
        /* the record is in the log (written and fdatasync'ed): only the
         * checkpoint file failed.  Saying "could not append" was wrong: the
         * caller then reported no record, and the next writer named the
         * line as one "no signed checkpoint covered (... or by someone
         * without the key)" */
        char why[sizeof(err->msg)] = "";
        if (err)
            snprintf(why, sizeof(why), "%s", err->msg);
        rc = wt_errf(err, prc,
                     "record %llu was appended to %s, but the checkpoint that seals it could not "
                     "be written (%.200s); the record is in the log, not yet covered by a signed "
                     "checkpoint: the next writer (or `workloadtruth recover`) seals it",
                     (unsigned long long)seq, p.log, why);
    }
    if (where)
        *where = json_pack("{s:s,s:I,s:I,s:O}", "log", p.log, "seq", (json_int_t)seq, "size",
                           (json_int_t)wt_log_size(l), "warnings", warnings);
out:
    json_decref(warnings);
    json_decref(f);
    wt_log_close(l);
    return rc;
}
