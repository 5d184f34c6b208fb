/* `workloadtruth watch`: classify continuously and append every window's
 * result to the tamper-evident audit log (src/audit).
 *
 * Two threads: the main one samples and classifies (one window per watched
 * GPU per iteration) and queues records; a writer thread appends them
 * (write + fdatasync), publishes a signed checkpoint after each batch, and
 * every --heartbeat seconds (and every --seal-every records) appends a
 * heartbeat and a checkpoint record.  A slow or failing disk therefore never
 * stalls sampling (the --textfile, written on the sampling thread, is renamed
 * into place without fsync; only a hung file system there would stall it):
 * records wait in a bounded queue (the oldest are dropped,
 * and counted in the next heartbeat, only when it overflows).  After a write
 * error the writer reopens the log, which re-verifies it, and retries; the
 * pause between tries doubles while they fail (a reopen reads the whole log).
 * A full disk at the start is the same: the log opens with its checkpoint
 * file not yet written, and records queue until it can be.
 * A third thread verifies the whole log every --verify-every seconds, as
 * verify-log does (writers resume from their last verification, so without
 * it a line changed before that point waits for someone's verify-log).
 * SIGINT/SIGTERM stop sampling; the queue is drained and a final checkpoint
 * record sealed.  A GPU that fails is reported and the others go on.
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE /* nanosleep, gmtime_r */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdio_ext.h> /* __fpurge */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/log.h"
#include "classify/classifier.h"
#include "classify/declared.h"
#include "classify/model.h"
#include "classify/verdict.h"
#include "cli/audit_common.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "export/exporter.h"
#include "export/metrics.h"
#include "output/output.h"
#include "telemetry/owners.h"
#include "telemetry/source.h"
#include "util/clock.h"
#include "util/hash.h"

#define MAX_WINDOW 100000
#define QUEUE_MAX 10000
/* as many processes as the nvml source lists (nvml.c): the GPU's main owner
 * and a declaration may be any of them (with 64, the 65th was not read) */
#define MAX_PROCS 1024
#define REOPEN_TRIES_AT_EXIT 3 /* after the stop: attempts in a row that write nothing */
#define RETRY_MIN_S 0.5        /* the writer's first pause after a failed try */
#define RETRY_MAX_S 30.0       /* its longest, while the disk stays full */
#define FIRST_VERIFY_S 300.0   /* the first whole-log verification after the start */

/* a checkpoint file that cannot be written when the log is opened (a full
 * disk) is a failed publish to retry, as in a running writer, not a reason
 * to stop: the log itself was verified */
static const struct wt_log_opts log_opts = {.publish_later = 1};

static atomic_int stop_flag;
static atomic_int signalled; /* a signal asked for the stop */
/* the first open only: a stop asked while it verifies a long log ends it
 * (nothing is written yet); a reopen while stopping must finish, to write
 * the queue */
static const struct wt_log_opts first_open_opts = {.publish_later = 1, .cancel = &stop_flag};
/* for /healthz: GPUs watched, log writable; read by the exporter's thread */
static atomic_int healthy_flag;
/* the bytes of indices in a heartbeat's failed_list (the log's strings are
 * at most 256 bytes: the rest is "+N more") */
#define FAILED_LIST_MAX 240

static int healthy(void *ctx)
{
    (void)ctx;
    return atomic_load_explicit(&healthy_flag, memory_order_relaxed);
}

static atomic_int verify_stop; /* ends the whole-log verification (below) */

static void on_signal(int sig)
{
    (void)sig;
    signalled = 1;
    stop_flag = 1;
    verify_stop = 1;
}

/* Sleeps s seconds unless asked to stop. */
static void nap(double s)
{
    double end = wt_mono_s() + s;
    while (!stop_flag) {
        double left = end - wt_mono_s();
        if (left <= 0)
            return;
        if (left > 0.1)
            left = 0.1;
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* --- the whole-log verification -------------------------------------- */

/* Every --verify-every seconds (the first FIRST_VERIFY_S after the start,
 * or --verify-every if shorter: an agent restarted more often than every
 * --verify-every seconds, a pod on a node that is updated, must still
 * verify the log now and then) a thread verifies the whole log as
 * `verify-log` does, held to the log's own key and its checkpoint file.  A writer's open resumes
 * from the last verification (log.verified), so a line changed before that point would otherwise
 * wait for someone's verify-log, however long this agent runs. It reads without the lock, as
 * verify-log does, while this agent's writer appends: a line read half-written is a torn tail (a
 * warning, not damage), and damage is read again before it is reported, so a read that raced the
 * writer's own repair of a torn tail (its reopen after a write error) is
 * not taken for tampering.  Reported on stderr and as the
 * workloadtruth_audit_log_damaged gauge; nothing is written to the log. */
struct verifier {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* signalled at the end: the wait ends at once */
    int done;          /* under mu */
    double every_s;
    const struct wt_log_paths *paths;
    struct wt_note_vkey vkey;
    struct wt_metrics *metrics; /* NULL: no exporter */
    const char *prog;
};

/* Waits s seconds; 0 at the end, or once a stop was asked. */
static int verifier_wait(struct verifier *v, double s)
{
    double end = wt_mono_s() + s;
    pthread_mutex_lock(&v->mu);
    while (!v->done && !atomic_load(&verify_stop) && wt_mono_s() < end) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += 200 * 1000000L; /* a stop signal is seen within 0.2 s */
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&v->cv, &v->mu, &ts);
    }
    int go = !v->done && !atomic_load(&verify_stop);
    pthread_mutex_unlock(&v->mu);
    return go;
}

static void *verifier_main(void *arg)
{
    struct verifier *v = arg;
    const struct wt_verify_opts o = {
        .vkey = &v->vkey, .side_path = v->paths->checkpoint, .cancel = &verify_stop};
    struct wt_verify_report *r = malloc(sizeof(*r));
    if (!r) {
        fprintf(stderr, "%s: out of memory: the audit log will not be verified while watch runs\n",
                v->prog);
        return NULL;
    }
    double wait = v->every_s < FIRST_VERIFY_S ? v->every_s : FIRST_VERIFY_S;
    for (; verifier_wait(v, wait); wait = v->every_s) {
        double t0 = wt_mono_s();
        int st = wt_verify_file(v->paths->log, &o, r);
        if (st == WT_VERIFY_DAMAGED) {
            if (atomic_load(&verify_stop))
                break; /* damage read once: nothing concluded (above) */
            st = wt_verify_file(v->paths->log, &o, r); /* read again (above) */
        }
        /* cut short by the stop: nothing concluded; a verification that was
         * done when the stop came is still reported */
        if (st == WT_VERIFY_ERROR && atomic_load(&verify_stop))
            break;
        if (st == WT_VERIFY_DAMAGED) {
            fprintf(stderr,
                    "%s: verification of the whole audit log %s: DAMAGED: %s (`workloadtruth "
                    "verify-log` gives the diagnosis)\n",
                    v->prog, v->paths->log, r->message);
        } else if (st == WT_VERIFY_ERROR) {
            fprintf(stderr,
                    "%s: verification of the whole audit log %s concluded nothing: %s (tried "
                    "again in %g s)\n",
                    v->prog, v->paths->log, r->message, v->every_s);
            continue;
        } else {
            fprintf(stderr,
                    "%s: verification of the whole audit log %s: intact, %llu records (%.1f s)\n",
                    v->prog, v->paths->log, (unsigned long long)r->entries, wt_mono_s() - t0);
        }
        if (v->metrics)
            wt_metrics_audit_verified(v->metrics, st == WT_VERIFY_DAMAGED);
    }
    free(r);
    return NULL;
}

/* --- the writer thread ------------------------------------------------ */

struct qrec {
    enum wt_entry_type type;
    json_t *fields;
    struct qrec *next;
};

struct writer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct qrec *head, *tail;
    size_t qlen;
    int done;
    /* writer-only state */
    struct qrec *retry; /* written, but its fdatasync failed: on disk or not? */
    uint64_t retry_size;
    uint8_t retry_root[32];
    struct wt_log_paths paths;
    struct wt_log *log;
    struct wt_log_lock held; /* the log's locks while it is closed after a failure */
    struct wt_note_vkey key; /* the key of the log as first opened: a reopen holds it */
    int another_said;        /* "is now another log" said (whatever was said before it) */
    uint64_t seen;           /* the log's size when this writer last had it open */
    double heartbeat_s;
    unsigned long seal_every;
    unsigned long since_seal;
    double last_beat;
    /* shared counters (under mu) */
    unsigned long long written, dropped, errors;
    unsigned ngpus, failed_gpus;
    int gave_up;
    int log_ok;   /* the last write succeeded (for /healthz: a disk that recovers heals it) */
    int unsealed; /* everything was written but the final seal was not */
    char failed_list[FAILED_LIST_MAX + 1]; /* "0,1,...": the first failed GPUs */
    unsigned failed_unlisted;              /* failed GPUs beyond failed_list */
    struct wt_metrics *metrics;            /* NULL: no exporter */
};

/* Tells the exporter what the writer did (takes mu). */
static void report_metrics(struct writer *w, int checkpointed)
{
    if (!w->metrics)
        return;
    /* under mu: the main and writer threads both report, and counters read
     * by one must not be stored after newer ones from the other (a counter
     * going back reads as a reset); the metrics' own lock is taken inside */
    pthread_mutex_lock(&w->mu);
    wt_metrics_audit(w->metrics, w->written, w->errors, w->dropped, checkpointed);
    pthread_mutex_unlock(&w->mu);
}

static void push(struct writer *w, enum wt_entry_type type, json_t *fields)
{
    struct qrec *r = malloc(sizeof(*r));
    if (!r) {
        json_decref(fields);
        pthread_mutex_lock(&w->mu);
        w->dropped++;
        pthread_mutex_unlock(&w->mu);
        return;
    }
    r->type = type;
    r->fields = fields;
    r->next = NULL;
    pthread_mutex_lock(&w->mu);
    if (w->qlen >= QUEUE_MAX) {
        struct qrec *old = w->head;
        w->head = old->next;
        if (!w->head)
            w->tail = NULL;
        json_decref(old->fields);
        free(old);
        w->qlen--;
        w->dropped++;
    }
    if (w->tail)
        w->tail->next = r;
    else
        w->head = r;
    w->tail = r;
    w->qlen++;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Puts a record that could not be written back at the front of the queue. */
static void requeue(struct writer *w, struct qrec *r)
{
    pthread_mutex_lock(&w->mu);
    r->next = w->head;
    w->head = r;
    if (!w->tail)
        w->tail = r;
    w->qlen++;
    pthread_mutex_unlock(&w->mu);
}

/* Writes DIR/workloadtruth.prom now; a failure is said and watching goes on.
 * A failure that repeats every round (a FIFO planted at the .tmp name) is
 * said at most once a minute with a count, as the MCP server's messages are
 * (it was one line a round: 1,256 in 25 s at a short round); the first
 * write that succeeds after failures says so, and the agent's last write
 * (last_word) that fails is said whatever came before.  Called from the
 * sampling thread only. */
static void write_textfile(struct wt_metrics *m, const char *dir, int last_word)
{
    static char last[sizeof(((struct wt_err *)0)->msg)];
    static double said_at;
    static unsigned long held, failed;
    struct wt_err err = {{0}};
    if (wt_metrics_write_textfile(m, dir, &err) == WT_OK) {
        if (failed)
            fprintf(stderr,
                    "workloadtruth watch: --textfile: written again after %lu failed "
                    "round%s\n",
                    failed, failed == 1 ? "" : "s");
        failed = held = 0;
        last[0] = '\0';
        return;
    }
    failed++;
    double t = wt_mono_s();
    int same = !strcmp(err.msg, last);
    if (same && t - said_at < 60 && !last_word) { /* the last failure is always said */
        held++;
        return;
    }
    if (held && same)
        fprintf(stderr, "workloadtruth watch: --textfile: %s (and %lu more like it in %.0f s)\n",
                err.msg, held, t - said_at);
    else {
        if (held)
            fprintf(stderr,
                    "workloadtruth watch: --textfile: the message before came %lu more "
                    "time%s\n",
                    held, held == 1 ? "" : "s");
        fprintf(stderr, "workloadtruth watch: --textfile: %s\n", err.msg);
    }
    snprintf(last, sizeof(last), "%s", err.msg);
    said_at = t;
    held = 0;
}

/* Opens the log if it is not open; reports failures once per streak. */
static int ensure_open(struct writer *w, int *reported)
{
    if (w->log)
        return 0;
    struct wt_err err = {{0}};
    struct wt_log_recovery rec;
    if (wt_log_reopen(&w->log, &w->paths, &log_opts, &rec, &w->held, &err) != WT_OK) {
        if (!*reported)
            fprintf(stderr, "workloadtruth watch: %s; will retry\n", err.msg);
        *reported = 1;
        w->log = NULL;
        return -1;
    }
    /* a log re-created in its place with another key (init after the
     * directory was moved away) is another log: this watch's records are not
     * signed into it (they were, while the verifier, holding the first key,
     * called it damaged), as a log of another key is refused at start */
    struct wt_note_vkey now;
    wt_log_public_key(w->log, &now);
    if (strcmp(now.name, w->key.name) || memcmp(now.pk, w->key.pk, sizeof(now.pk))) {
        /* said even after a first failure was (the log missing, whose
         * message says to run init: the log that init makes is refused) */
        if (!w->another_said)
            fprintf(stderr,
                    "workloadtruth watch: %s is now another log (key %.80s, not the %.80s this "
                    "watch opened): it was re-created in the place of the log being written; "
                    "not written to; will retry (restart watch to write to the new log)\n",
                    w->paths.log, now.name, w->key.name);
        w->another_said = 1;
        *reported = 1;
        wt_log_close_keep_lock(w->log, &w->held);
        w->log = NULL;
        return -1;
    }
    w->another_said = 0;
    char msg[2 * PATH_MAX + 128];
    if (wt_log_repaired_msg(&rec, w->paths.log, msg, sizeof(msg)))
        fprintf(stderr, "workloadtruth watch: %s\n", msg);
    /* lines not sealed yet that this writer wrote, or already reported, are
     * not news (while the disk is full, every reopen finds them) */
    uint64_t first = rec.entries - rec.unsealed;
    if (w->seen > first)
        rec.unsealed = rec.entries > w->seen ? rec.entries - w->seen : 0;
    wt_cli_report_unsealed("workloadtruth watch", w->paths.log, &rec);
    if (*reported)
        fprintf(stderr, "workloadtruth watch: %s reopened and verified (%llu entries)\n",
                w->paths.log, (unsigned long long)wt_log_size(w->log));
    *reported = 0;
    return 0;
}

/* A key without its log: another agent's init may be making it (waited
 * for up to INIT_WAIT_MAX_S: under load, sanitizers or a busy disk, an init
 * took more than 2 s and a second agent started with it called the log
 * deleted). */
#define INIT_WAIT_MAX_S 60

/* /healthz as the writer sees the log, set where the log's state changes
 * (under w->mu): it had followed only the sampling rounds, so a sampler
 * waiting on a quiet pipe kept answering 200 while every write failed. */
static void health_set(const struct writer *w)
{
    atomic_store_explicit(&healthy_flag, !w->gave_up && w->log_ok, memory_order_relaxed);
}

/* A record written.  The first after failed writes says so: the journal
 * showed each failure and the retries, and nothing when writes came back. */
static void wrote_one(struct writer *w)
{
    pthread_mutex_lock(&w->mu);
    w->written++;
    int resumed = !w->log_ok;
    unsigned long long errors = w->errors;
    w->log_ok = 1;
    health_set(w);
    pthread_mutex_unlock(&w->mu);
    if (resumed)
        fprintf(stderr,
                "workloadtruth watch: %s: records written again (%llu failed writes so far)\n",
                w->paths.log, errors);
}

static void fail_log(struct writer *w, const char *msg)
{
    fprintf(stderr, "workloadtruth watch: %s\n", msg);
    pthread_mutex_lock(&w->mu);
    w->errors++;
    w->log_ok = 0;
    health_set(w);
    pthread_mutex_unlock(&w->mu);
    /* a line written but not synced (fdatasync failed) is this writer's too:
     * found unsealed at the reopen, it is not news */
    uint64_t unsynced;
    uint8_t unsynced_root[32];
    w->seen = wt_log_unsynced(w->log, &unsynced, unsynced_root) ? unsynced : wt_log_size(w->log);
    /* reopened (and re-verified) before the next try; its locks are kept
     * meanwhile: released, another writer took the log during the pause */
    wt_log_close_keep_lock(w->log, &w->held);
    w->log = NULL;
}

static int heartbeat(struct writer *w, int seal)
{
    struct wt_err err = {{0}};
    pthread_mutex_lock(&w->mu);
    json_t *f = json_pack("{s:I,s:I,s:I,s:i,s:i}", "windows", (json_int_t)w->written, "dropped",
                          (json_int_t)w->dropped, "write_errors", (json_int_t)w->errors, "gpus",
                          (int)w->ngpus, "failed_gpus", (int)w->failed_gpus);
    if (f && w->failed_list[0]) {
        char fl[FAILED_LIST_MAX + 32];
        snprintf(fl, sizeof(fl), "%s", w->failed_list);
        if (w->failed_unlisted) {
            size_t k = strlen(fl);
            snprintf(fl + k, sizeof(fl) - k, " +%u more", w->failed_unlisted);
        }
        json_object_set_new(f, "failed_list", json_string(fl));
    }
    pthread_mutex_unlock(&w->mu);
    if (!f)
        return -1;
    int rc = wt_log_append(w->log, WT_ENTRY_HEARTBEAT, f, NULL, &err);
    json_decref(f);
    if (!rc && seal)
        rc = wt_log_seal(w->log, &err);
    if (rc) {
        fail_log(w, err.msg);
        return -1;
    }
    w->since_seal = 0;
    w->last_beat = wt_mono_s();
    return 0;
}

/* RETRY_MIN_S between the writer's last tries once watch is stopping: not
 * nap(), which the stop signal ends at once (a passing error still gets its
 * chance to clear) */
static void stopping_pause(void)
{
    struct timespec ts = {0, (long)(RETRY_MIN_S * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The writer's pause before the next try: delay seconds, cut to RETRY_MIN_S
 * once watch is stopping (its last tries come every RETRY_MIN_S: a passing
 * error still gets its chance to clear, as before the backoff). */
static void retry_pause(struct writer *w, double delay)
{
    for (double t = 0; t < delay; t += RETRY_MIN_S) {
        pthread_mutex_lock(&w->mu);
        int done = w->done;
        pthread_mutex_unlock(&w->mu);
        if (done || stop_flag) {
            stopping_pause();
            return;
        }
        nap(delay - t < RETRY_MIN_S ? delay - t : RETRY_MIN_S);
    }
}

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    int reported = 0, exit_tries = 0;
    /* each try after a failure reopens the log, which verifies all of it
     * again (seconds for a long log): the pause doubles while tries fail,
     * so a disk that stays full does not keep a core busy */
    double delay = RETRY_MIN_S;
    w->last_beat = wt_mono_s();
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->head && !w->retry && !w->done && wt_mono_s() - w->last_beat < w->heartbeat_s) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_nsec += 200 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&w->cv, &w->mu, &ts);
        }
        if (!w->head && !w->retry && w->done)
            break;
        pthread_mutex_unlock(&w->mu);
        if (ensure_open(w, &reported) != 0) {
            /* a log that cannot be opened is a failed write each try: the
             * error counter keeps rising while the disk stays full */
            pthread_mutex_lock(&w->mu);
            w->errors++;
            w->log_ok = 0;
            health_set(w);
            pthread_mutex_unlock(&w->mu);
            report_metrics(w, 0);
            pthread_mutex_lock(&w->mu);
            int stopping = w->done; /* set by the main thread, under mu */
            pthread_mutex_unlock(&w->mu);
            if (stopping && ++exit_tries >= REOPEN_TRIES_AT_EXIT) {
                pthread_mutex_lock(&w->mu);
                w->gave_up = 1;
                health_set(w);
                break;
            }
            retry_pause(w, delay);
            delay = delay * 2 < RETRY_MAX_S ? delay * 2 : RETRY_MAX_S;
            pthread_mutex_lock(&w->mu);
            continue;
        }
        /* a record whose line was written but whose fdatasync failed: the
         * reopened (re-verified, on-disk) log tells whether it is there */
        if (w->retry) {
            uint8_t root[32];
            wt_log_root(w->log, root);
            struct qrec *r = w->retry;
            w->retry = NULL;
            if (wt_log_size(w->log) == w->retry_size && !memcmp(root, w->retry_root, 32)) {
                json_decref(r->fields);
                free(r);
                wrote_one(w);
                w->since_seal++;
                exit_tries = 0; /* progress: only attempts that write nothing count */
            } else {
                requeue(w, r);
            }
        }
        /* append what is queued, oldest first; a record is taken off the
         * queue while it is written and put back in front if that fails */
        int ok = 1;
        for (;;) {
            pthread_mutex_lock(&w->mu);
            struct qrec *r = w->head;
            if (r) {
                w->head = r->next;
                if (!w->head)
                    w->tail = NULL;
                w->qlen--;
            }
            pthread_mutex_unlock(&w->mu);
            if (!r)
                break;
            struct wt_err err = {{0}};
            if (wt_log_append(w->log, r->type, r->fields, NULL, &err) != WT_OK) {
                if (wt_log_unsynced(w->log, &w->retry_size, w->retry_root))
                    w->retry = r;
                else
                    requeue(w, r);
                fail_log(w, err.msg);
                ok = 0;
                break;
            }
            json_decref(r->fields);
            free(r);
            wrote_one(w);
            w->since_seal++;
            exit_tries = 0; /* progress: only attempts that write nothing count */
            /* under sustained load the queue never empties: end the batch
             * when a heartbeat is due, so checkpoints keep coming */
            if ((w->seal_every && w->since_seal >= w->seal_every) ||
                wt_mono_s() - w->last_beat >= w->heartbeat_s)
                break;
        }
        if (ok) {
            /* a failed publish or heartbeat waits like a failed append: the
             * heartbeat is still due, and retrying at once would spin on a
             * full disk */
            struct wt_err err = {{0}};
            if (wt_log_publish(w->log, &err) != WT_OK) {
                fail_log(w, err.msg);
                ok = 0;
            } else if ((wt_mono_s() - w->last_beat >= w->heartbeat_s ||
                        (w->seal_every && w->since_seal >= w->seal_every)) &&
                       heartbeat(w, 1) != 0) {
                ok = 0;
            }
            report_metrics(w, ok && w->log != NULL);
        } else {
            report_metrics(w, 0);
        }
        pthread_mutex_lock(&w->mu);
        int stopping = w->done; /* set by the main thread, under mu */
        pthread_mutex_unlock(&w->mu);
        if (!ok && stopping && ++exit_tries >= REOPEN_TRIES_AT_EXIT) {
            pthread_mutex_lock(&w->mu);
            w->gave_up = 1;
            health_set(w);
            break;
        }
        if (!ok) {
            retry_pause(w, delay);
            delay = delay * 2 < RETRY_MAX_S ? delay * 2 : RETRY_MAX_S;
        } else {
            delay = RETRY_MIN_S;
        }
        pthread_mutex_lock(&w->mu);
    }
    int gave_up = w->gave_up;
    pthread_mutex_unlock(&w->mu);
    /* the final seal: a heartbeat and a checkpoint record */
    if (!gave_up) {
        int sealed = 0;
        for (int t = 0; t < REOPEN_TRIES_AT_EXIT && !sealed; t++) {
            if (t)
                stopping_pause();
            if (ensure_open(w, &reported) == 0 && heartbeat(w, 1) == 0)
                sealed = 1;
        }
        if (sealed) /* the last textfile's checkpoint time is this seal's */
            report_metrics(w, 1);
        if (!sealed) {
            pthread_mutex_lock(&w->mu);
            w->gave_up = 1;
            health_set(w);
            w->unsealed = 1;
            pthread_mutex_unlock(&w->mu);
        }
    }
    wt_log_close(w->log);
    w->log = NULL;
    wt_log_lock_release(&w->held);
    return NULL;
}

/* --- the command ----------------------------------------------------- */

/* The owner a window is attributed to: the process with an owner using the
 * most GPU memory (labels of several would name an owner that does not
 * exist); its job is the one the audit record and the metrics name.  NULL
 * when no process has one. */
static const struct wt_proc *main_owner(const struct wt_proc *procs, size_t n)
{
    const struct wt_proc *q = NULL;
    for (size_t k = 0; k < n; k++) {
        const struct wt_proc *c = &procs[k];
        if (!(c->pod_name[0] || c->pod_uid[0] || c->k8s_namespace[0] || c->container_id[0] ||
              c->slurm_job_id[0]))
            continue;
        double cu = wt_measured(c->used_mib) ? c->used_mib : -1;
        double qu = q && wt_measured(q->used_mib) ? q->used_mib : -1;
        if (!q || cu > qu)
            q = c;
    }
    return q;
}

/* Who is on a GPU and what was declared there, at a window's start.  A
 * window is partly another job's when its main owner (the one using the most
 * GPU memory) at the start is gone at the end, or the one at the end was not
 * there at the start (a job ended, another began), or the declaration
 * changed: it cannot be held against either.  Helpers that come and go beside
 * a job that stays are no change, nor are owners that swap places in memory.
 * Owners are told apart by what the kernel says of them (Slurm job, pod UID,
 * container), not by their environment (POD_NAME, which a process sets). */
struct attribution {
    int known; /* the process list could be read */
    size_t n;  /* distinct owners */
    uint64_t set[MAX_PROCS];
    uint64_t main; /* 0: no owner */
    enum wt_class declared;
    /* the same of the owners the kernel names (a Slurm job from its cgroup,
     * pod UID, container), which a process cannot change: for peers */
    size_t kn;
    uint64_t kset[MAX_PROCS];
    uint64_t kmain;
};

static uint64_t owner_hash(const struct wt_proc *c, int kernel_only)
{
    char key[200];
    const char *job = kernel_only && !c->slurm_job_from_cgroup ? "" : c->slurm_job_id;
    snprintf(key, sizeof(key), "%s|%s|%s", job, c->pod_uid, c->container_id);
    uint64_t h = wt_fnv1a(WT_FNV1A_INIT, key, strlen(key));
    return h ? h : 1;
}

static int in_list(const uint64_t *set, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == h)
            return 1;
    return 0;
}

static int in_set(const struct attribution *a, uint64_t h)
{
    return in_list(a->set, a->n, h);
}

/* --operator-declared: the declared type is --declared or the policy's
 * default line only, never what the processes' environments say (a job
 * can set them: WORKLOADTRUTH_DECLARED, SLURM_JOB_PARTITION, ...) */
static bool operator_declared;

static enum wt_class declared_of(const struct wt_policy *policy, enum wt_class cli,
                                 const struct wt_proc *procs, size_t n,
                                 enum wt_declared_source *src)
{
    return wt_declared_for(policy, cli, procs, operator_declared ? 0 : n, src);
}

/* Adds owner h, using mib of GPU memory, to set (n of them); the one using
 * the most is *main (the first of equals, as main_owner). */
static void owner_add(uint64_t *set, size_t *n, uint64_t *main, double *main_mib, uint64_t h,
                      double mib)
{
    if (!in_list(set, *n, h) && *n < MAX_PROCS)
        set[(*n)++] = h;
    if (mib > *main_mib) {
        *main_mib = mib;
        *main = h;
    }
}

static void attribution_of(const struct wt_policy *policy, enum wt_class cli,
                           const struct wt_proc *procs, size_t n, struct attribution *a)
{
    a->n = a->kn = 0;
    a->main = a->kmain = 0;
    double main_mib = -2, kmain_mib = -2;
    for (size_t i = 0; i < n; i++) {
        const struct wt_proc *c = &procs[i];
        double mib = wt_measured(c->used_mib) ? c->used_mib : -1;
        if (c->slurm_job_id[0] || c->pod_uid[0] || c->container_id[0])
            owner_add(a->set, &a->n, &a->main, &main_mib, owner_hash(c, 0), mib);
        if (c->slurm_job_from_cgroup || c->pod_uid[0] || c->container_id[0])
            owner_add(a->kset, &a->kn, &a->kmain, &kmain_mib, owner_hash(c, 1), mib);
    }
    enum wt_declared_source dsrc;
    a->known = 1;
    a->declared = declared_of(policy, cli, procs, n, &dsrc);
}

/* Whether GPU h's window may be read beside GPU g's as one job's (cross-GPU
 * synchrony, `peer_sync`): g has no owner the kernel names (a bare process, a
 * job id from the environment only, or no process list: every GPU is a peer,
 * as in a trace), h's processes could not be listed, or g's main such owner
 * has a process on h.  A GPU with no process of that owner, idle or another
 * job's, is not part of g's job: eight single-GPU servers on one host read as
 * one synchronous job otherwise (docs/evaluation.md item 20).  Owners a
 * process names itself (SLURM_JOB_ID) do not count: one per rank would read a
 * data-parallel job's GPUs apart. */
static int same_job(const struct attribution *g, const struct attribution *h)
{
    if (!g->known || !g->kmain || !h->known)
        return 1;
    return in_list(h->kset, h->kn, g->kmain);
}

/* Whether a window that began with a and ended with b was partly another's. */
static int attribution_changed(const struct attribution *a, const struct attribution *b)
{
    if (a->declared != b->declared || (a->main != 0) != (b->main != 0))
        return 1;
    return a->main && (!in_set(b, a->main) || !in_set(a, b->main));
}

int wt_cmd_watch(int argc, char **argv)
{
    static const char *const backends[] = {"auto", "nvml", "synthetic", "replay", NULL};
    operator_declared = false; /* set by its option below */
    const char *backend = "auto", *profile = "training", *trace = NULL, *gpus = NULL;
    const char *clf_name = wt_classifier_default()->name, *model_path = NULL, *nvml_lib = NULL;
    const char *dir = NULL, *file = NULL;
    const char *listen = NULL, *textfile = NULL, *declared_s = NULL, *policy_path = NULL;
    const char *label_style = "prometheus", *peer_mode = "job";
    static const char *const peer_modes[] = {"job", "all", "none", NULL};
    static const char *const label_styles[] = {"prometheus", "dcgm", NULL};
    char model_id[17] = "";
    unsigned long long gpu_index = 0, window = 10, iterations = 0, seed = 0, seal_every = 100;
    double interval = 1.0, beat = 60, pace = 0, verify_every = 86400;
    double counter_hold = WT_METRICS_COUNTER_HOLD_S;
    bool json = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--backend", WT_OPT_CHOICE, &backend, "B", "telemetry source: auto (default: nvml when a driver is present), nvml, synthetic, replay", 0, 0, backends, false},
        {"--profile", WT_OPT_CHOICE, &profile, "P", "synthetic profile (default training)", 0, 0, wt_opts_profile_names(), false},
        {"--trace", WT_OPT_STRING, &trace, "FILE", "replay a trace ('-' = stdin); implies --backend replay", 0, 0, NULL, false},
        {"--gpu-index", WT_OPT_UINT, &gpu_index, "N", "GPU to watch (default 0)", 0, WT_MAX_GPUS - 1, NULL, false},
        {"--gpus", WT_OPT_STRING, &gpus, "LIST", "GPUs to watch: all, or 0,1,... (instead of --gpu-index)", 0, 0, NULL, false},
        {"--peers", WT_OPT_CHOICE, &peer_mode, "job|all|none", "the other watched GPUs (--trace -: the stream's other GPUs) read beside each: those of its job when the kernel names it, else all (job; default), all, or none", 0, 0, peer_modes, false},
        {"--interval", WT_OPT_DOUBLE, &interval, "S", "seconds between samples (default 1; simulator profiles: 0.1; 0: no pacing, synthetic only)", 0, 3600, NULL, false},
        {"--window", WT_OPT_UINT, &window, "N", "samples per window; live GPUs: polls per window (default 10; simulator profiles: 300, 30 s)", 2, MAX_WINDOW, NULL, false},
        {"--iterations", WT_OPT_UINT, &iterations, "N", "windows per GPU, then stop (default 0: until interrupted or the trace ends)", 0, 1e12, NULL, false},
        {"--log-dir", WT_OPT_STRING, &dir, "DIR", "audit log directory (default: $WT_LOG_DIR, else ./" WT_DEFAULT_LOG_DIR "); created if missing", 0, 0, NULL, false},
        {"--log-file", WT_OPT_STRING, &file, "FILE", "audit log file instead (side files FILE.key, FILE.checkpoint, FILE.lock)", 0, 0, NULL, false},
        {"--heartbeat", WT_OPT_DOUBLE, &beat, "S", "seconds between heartbeat + checkpoint records (default 60)", 0.01, 86400, NULL, false},
        {"--seal-every", WT_OPT_UINT, &seal_every, "N", "also a heartbeat + checkpoint record every N windows (default 100; 0: only every --heartbeat)", 0, 1e9, NULL, false},
        {"--verify-every", WT_OPT_DOUBLE, &verify_every, "S", "verify the whole audit log every S seconds while watching, as verify-log does (default 86400, a day; 0: never)", 0, 31536000, NULL, false},
        {"--classifier", WT_OPT_CHOICE, &clf_name, "NAME", "classifier (default: physics)", 0, 0, wt_cli_classifier_names(), false},
        {"--model", WT_OPT_STRING, &model_path, "FILE", "physics classifier: use this model", 0, 0, NULL, false},
        {"--seed", WT_OPT_UINT, &seed, "N", "synthetic: random seed (default 0)", 0, 18446744073709551615.0, NULL, false},
        {"--nvml-lib", WT_OPT_STRING, &nvml_lib, "PATH", "NVML library to load (default: $WT_NVML_LIB, else libnvidia-ml.so.1)", 0, 0, NULL, false},
        {"--declared", WT_OPT_STRING, &declared_s, "TYPE", "the declared type (training, inference, idle) of GPUs whose jobs declare none", 0, 0, NULL, false},
        {"--policy", WT_OPT_STRING, &policy_path, "FILE", "declared types by Slurm partition / Kubernetes namespace (see docs/deployment.md)", 0, 0, NULL, false},
        {"--operator-declared", WT_OPT_FLAG, &operator_declared, NULL, "the declared type is --declared or the policy's default line only: what jobs set in their environment is not read for it", 0, 0, NULL, false},
        {"--listen", WT_OPT_STRING, &listen, "HOST:PORT", "serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9400; :PORT: every interface; '': none)", 0, 0, NULL, false},
        {"--textfile", WT_OPT_STRING, &textfile, "DIR", "also write DIR/workloadtruth.prom for node_exporter's textfile collector", 0, 0, NULL, false},
        {"--label-style", WT_OPT_CHOICE, &label_style, "S", "metric labels: prometheus (uuid, model_name, hostname; default) or dcgm (UUID, modelName, Hostname)", 0, 0, label_styles, false},
        {"--counter-hold", WT_OPT_DOUBLE, &counter_hold, "S", "a new owner's classification counters show 0 for S seconds before their counts, so that increase() counts its first windows: at least every reader's scrape interval (default 120)", 0, 86400, NULL, false},
        {"--pace", WT_OPT_DOUBLE, &pace, "S", "replay and synthetic: at least S seconds per iteration (default 0: as fast as read)", 0, 3600, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print each window's result as one JSON line", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth watch",
        "Classify continuously and append one record per GPU per window to a\n"
        "tamper-evident audit log (created with a new key when neither it nor its\n"
        "key exists), with signed checkpoints and heartbeats.  Stops after\n"
        "--iterations, at the end of a replayed trace, or on Ctrl-C / SIGTERM (with a\n"
        "final checkpoint).",
        "Declared types (for MISMATCH verdicts and the mismatch metric), in order: the\n"
        "environment of the GPU's processes (the first of WORKLOADTRUTH_DECLARED,\n"
        "SPANK_WORKLOAD_TYPE, SLURM_SPANK_WORKLOAD_TYPE, WORKLOAD_TYPE that holds a\n"
        "workload type; an empty or misspelt one does not hide the next), --policy\n"
        "rules, --declared, the policy's default line; with --operator-declared,\n"
        "--declared or the default line only (a job cannot change them).\n"
        "exit status: 0 ok, 1 error (including records that could not be written),\n"
        "2 usage error.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if (trace) {
        if (wt_opts_get(opts, "--backend")->seen && strcmp(backend, "replay")) {
            fprintf(stderr, "%s: --trace needs --backend replay, not '%s' (see --help)\n",
                    help.prog, backend);
            return WT_EXIT_USAGE;
        }
        backend = "replay";
    } else if (!strcmp(backend, "replay")) {
        fprintf(stderr, "%s: --backend replay needs --trace FILE (see --help)\n", help.prog);
        return WT_EXIT_USAGE;
    }
    if (nvml_lib && strcmp(backend, "nvml") && strcmp(backend, "auto")) {
        fprintf(stderr, "%s: --nvml-lib goes with --backend nvml or auto (see --help)\n",
                help.prog);
        return WT_EXIT_USAGE;
    }
    if (gpus && wt_opts_get(opts, "--gpu-index")->seen) {
        fprintf(stderr, "%s: give --gpus or --gpu-index, not both (see --help)\n", help.prog);
        return WT_EXIT_USAGE;
    }
    const struct wt_opt *prof = wt_opts_get(opts, "--profile");
    if (((prof->seen && !wt_opts_python_default_profile(prof, backend)) ||
         wt_opts_get(opts, "--seed")->seen) &&
        strcmp(backend, "synthetic")) {
        fprintf(stderr, "%s: --profile and --seed go with --backend synthetic (see --help)\n",
                help.prog);
        return WT_EXIT_USAGE;
    }
    if (!strcmp(backend, "synthetic") && !wt_synth_profile_find(profile)) {
        /* a simulator profile samples at 10 Hz: 30 s windows (10 samples, 1 s,
         * were UNKNOWN), paced at its own rate (a round of 300 samples x 1 s
         * took 300 s of wall-clock time for 30 simulated seconds) */
        if (!wt_opts_get(opts, "--window")->seen)
            window = 300;
        if (!wt_opts_get(opts, "--interval")->seen)
            interval = 0.1;
    }
    if (interval <= 0 && strcmp(backend, "synthetic")) {
        fprintf(stderr, "%s: --interval 0 is only for --backend synthetic (see --help)\n",
                help.prog);
        return WT_EXIT_USAGE;
    }
    /* metric labels without metrics did nothing, silently; --listen '' (a
     * unit that always passes both) is accepted */
    if (wt_opts_get(opts, "--label-style")->seen && !wt_opts_get(opts, "--listen")->seen &&
        !textfile) {
        fprintf(stderr, "%s: --label-style goes with --listen or --textfile (see --help)\n",
                help.prog);
        return WT_EXIT_USAGE;
    }
    if (listen && !listen[0])
        listen = NULL; /* --listen '': no listener (a unit that always passes --listen) */
    /* a malformed --listen is a usage error before the source is opened (a
     * host without a driver yet said "no NVIDIA GPU", exit 1, and a unit's
     * RestartPreventExitStatus=2 never stopped the restarts) */
    struct wt_err lerr;
    if (listen && wt_exporter_check_addr(listen, &lerr) != WT_OK) {
        fprintf(stderr, "%s: %s (see --help)\n", help.prog, lerr.msg);
        return WT_EXIT_USAGE;
    }
    enum wt_class declared_cli = WT_CLASS_NONE;
    if (declared_s && (declared_cli = wt_class_parse(declared_s, false)) == WT_CLASS_NONE) {
        fprintf(stderr,
                "%s: --declared: invalid choice '%s' (choose from training, inference, idle) "
                "(see --help)\n",
                help.prog, WT_SHOWN(declared_s));
        return WT_EXIT_USAGE;
    }
    if (pace > 0 && strcmp(backend, "synthetic") && strcmp(backend, "replay")) {
        fprintf(stderr,
                "%s: --pace is for --backend synthetic and replay (live sources are "
                "paced by --interval) (see --help)\n",
                help.prog);
        return WT_EXIT_USAGE;
    }
    const struct wt_classifier *clf = wt_classifier_find(clf_name);
    struct wt_classifier custom;
    struct wt_model *model = NULL;
    struct wt_policy *policy = NULL;
    struct wt_err err = {{0}};
    if (policy_path) {
        policy = malloc(sizeof(*policy));
        if (!policy || wt_policy_load(policy, policy_path, &err) != WT_OK) {
            fprintf(stderr, "%s: --policy %s\n", help.prog, policy ? err.msg : "out of memory");
            free(policy);
            return WT_EXIT_ERROR;
        }
    }
    if (operator_declared && declared_cli == WT_CLASS_NONE &&
        (!policy || policy->fallback == WT_CLASS_NONE)) {
        fprintf(stderr,
                "%s: --operator-declared needs --declared or a --policy with a default line "
                "(see --help)\n",
                help.prog);
        free(policy);
        return WT_EXIT_USAGE;
    }
    if (operator_declared && policy && policy->n > 0)
        fprintf(stderr,
                "%s: --operator-declared: the policy's partition and namespace rules are not "
                "used (they read what the jobs' environments say)\n",
                help.prog);
    if (model_path) {
        if (clf != &wt_classifier_physics) {
            fprintf(stderr, "%s: --model goes with the physics classifier\n", help.prog);
            free(policy);
            return WT_EXIT_USAGE;
        }
        model = malloc(sizeof(*model));
        if (!model || wt_model_load(model, model_path, &err) != WT_OK) {
            fprintf(stderr, "%s: %s\n", help.prog, model ? err.msg : "out of memory");
            free(model);
            free(policy);
            return WT_EXIT_ERROR;
        }
        custom = wt_classifier_physics_with(model);
        clf = &custom;
        /* records name the model by the hash of the bytes loaded */
        snprintf(model_id, sizeof(model_id), "%s", model->file_id);
    }

    /* metrics that are never written are worse than a refusal */
    const char *tbad = NULL;
    struct stat tst;
    if (textfile && stat(textfile, &tst) != 0)
        tbad = strerror(errno);
    else if (textfile && !S_ISDIR(tst.st_mode))
        tbad = "not a directory";
    else if (textfile && access(textfile, W_OK) != 0)
        tbad = "cannot write there";
    if (tbad) {
        fprintf(stderr, "%s: --textfile %s: %s (see --help)\n", help.prog, WT_CLEAN(textfile),
                tbad);
        free(model);
        free(policy);
        return WT_EXIT_USAGE;
    }
    if (window < clf->min_samples) {
        /* every window would fail: refuse now rather than log nothing */
        fprintf(stderr,
                "%s: --window %llu: the %s classifier needs at least %zu samples per window "
                "(see --help)\n",
                help.prog, window, clf->name, clf->min_samples);
        free(model);
        free(policy);
        return WT_EXIT_USAGE;
    }

    struct writer *w = calloc(1, sizeof(*w));
    struct wt_metrics *metrics = (listen || textfile) ? calloc(1, sizeof(*metrics)) : NULL;
    struct wt_exporter *exporter = NULL;
    struct wt_proc *procs = malloc(MAX_PROCS * sizeof(*procs));
    struct wt_source *src = NULL;
    struct wt_sample **buf = NULL;
    size_t *nbuf = NULL, *bcap = NULL;
    /* each GPU's previous live window's end, and readings past it */
    struct wt_polls *live_polls = NULL;
    struct wt_device_info *info = NULL;
    struct wt_window *wins = NULL, *peers = NULL;
    struct wt_peer *speers = NULL; /* standard input's other GPUs */
    size_t nspeers = 0;
    struct attribution *at_start = NULL;
    unsigned char *sel = NULL, *alive = NULL, *unlisted_said = NULL;
    int status = WT_EXIT_ERROR, ngpus = 0, writer_started = 0, textfile_lock = -1;
    int textfile_locked = 0, textfile_last = 0; /* the directory is ours; up 0 written */
    pthread_t tid;
    if (!w || !procs || ((listen || textfile) && !metrics)) {
        fprintf(stderr, "%s: out of memory\n", help.prog);
        free(w);
        free(metrics);
        free(procs);
        free(model);
        free(policy);
        return WT_EXIT_ERROR;
    }
    w->held = (struct wt_log_lock)WT_LOG_LOCK_NONE;
    if (metrics) {
        wt_metrics_init(metrics);
        metrics->label_style_dcgm = !strcmp(label_style, "dcgm");
        metrics->counter_hold_s = counter_hold;
    }
    w->metrics = metrics;
    /* One agent per --textfile directory, held for its life: two writing
     * the one workloadtruth.prom replaced each other's metrics at every
     * round, and through the one workloadtruth.prom.tmp a reader could find
     * it empty or torn (one truncated the file the other had just renamed
     * into place).  A directory that cannot be opened to read (mode 0733)
     * or locked (flock on some network file systems) is written unlocked,
     * as before, with a warning for the latter. */
    if (textfile) {
        textfile_lock = open(textfile, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (textfile_lock >= 0 && flock(textfile_lock, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            if (e == EWOULDBLOCK) {
                fprintf(stderr,
                        "%s: --textfile %s: another workloadtruth watch writes its "
                        "workloadtruth.prom (give each agent a directory of its own, or watch "
                        "every GPU from one agent with --gpus all)\n",
                        help.prog, WT_CLEAN(textfile));
                goto out;
            }
            fprintf(stderr,
                    "%s: warning: --textfile %s: cannot lock it (%s): another agent given it "
                    "would not be refused\n",
                    help.prog, WT_CLEAN(textfile), strerror(e));
            close(textfile_lock);
            textfile_lock = -1;
        }
        textfile_locked = textfile_lock >= 0;
    }
    if ((prc = wt_cli_log_paths(help.prog, dir, file, &w->paths)) != 0) {
        status = prc;
        goto out;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* a closed terminal stops it as cleanly, sealing the log; unless SIGHUP
     * was ignored when it started (nohup) */
    struct sigaction hup;
    if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);

    struct wt_source_config cfg = {0};
    cfg.trace_path = trace;
    cfg.trace_opts.interval_s = interval > 0 ? interval : 1;
    cfg.profile = profile;
    cfg.seed = seed;
    cfg.interval_s = interval > 0 ? interval : 1;
    cfg.nvml_lib = nvml_lib;
    cfg.stop = &stop_flag;
    /* Standard input is watched as it arrives: counting its GPUs would read
     * it to the end first (a live nvidia-smi pipe never ends), so only the
     * --gpu-index GPU is watched; its peers are the other GPUs the stream
     * has named by the time its window is whole, read as they came, each
     * keeping its newest rows (as classify reads a stream; until 2026-12-07
     * watch read it alone, and an 8-GPU training pipe lost its cross-GPU
     * synchrony); with --peers none their rows are dropped as they come. */
    int from_stdin = trace && !strcmp(trace, "-");
    int stream_peers = from_stdin && strcmp(peer_mode, "none") != 0;
    cfg.stream_peers = stream_peers;
    if (from_stdin && gpus) {
        fprintf(stderr,
                "%s: --gpus needs a file: standard input is watched as it arrives, one GPU "
                "(--gpu-index) (see --help)\n",
                help.prog);
        status = WT_EXIT_USAGE;
        goto out;
    }
    if (wt_source_open(backend, &cfg, &src, &err) != WT_OK ||
        (!from_stdin && wt_source_device_count(src, &ngpus, &err) != WT_OK)) {
        fprintf(stderr, "%s: %s\n", help.prog, err.msg);
        goto out;
    }
    /* a stop while a trace was read to count its GPUs cut the count short:
     * not a usage error about --gpu-index (exit 2 stops a service for good),
     * and no log is made for windows that will not be classified */
    if (trace && !from_stdin && stop_flag) {
        fprintf(stderr,
                "%s: %s: stopped while it was read to count its GPUs, before any window: "
                "nothing logged\n",
                help.prog, WT_CLEAN(trace));
        goto out;
    }
    if (from_stdin)
        ngpus = (int)gpu_index + 1;
    sel = calloc((size_t)ngpus + 1, 1);
    alive = calloc((size_t)ngpus + 1, 1);
    unlisted_said = calloc((size_t)ngpus + 1, 1);
    buf = calloc((size_t)ngpus + 1, sizeof(*buf));
    nbuf = calloc((size_t)ngpus + 1, sizeof(*nbuf));
    bcap = calloc((size_t)ngpus + 1, sizeof(*bcap));
    live_polls = calloc((size_t)ngpus + 1, sizeof(*live_polls));
    info = calloc((size_t)ngpus + 1, sizeof(*info));
    wins = calloc((size_t)ngpus + 1, sizeof(*wins));
    peers = calloc(stream_peers ? WT_MAX_GPUS : (size_t)ngpus + 1, sizeof(*peers));
    if (stream_peers && (speers = calloc(WT_MAX_GPUS, sizeof(*speers))) != NULL)
        for (int g = 0; g < WT_MAX_GPUS; g++)
            if (g != (int)gpu_index)
                speers[nspeers++].gpu = g;
    at_start = calloc((size_t)ngpus + 1, sizeof(*at_start));
    if (!sel || !alive || !unlisted_said || !buf || !nbuf || !bcap || !live_polls || !info ||
        !wins || !peers || !at_start || (stream_peers && !speers)) {
        fprintf(stderr, "%s: out of memory\n", help.prog);
        goto out;
    }
    for (int g = 0; g <= ngpus; g++)
        wt_polls_init(&live_polls[g]); /* none yet: each GPU's first window */
    /* a GPU the driver does not list (now) is not a usage error: after a
     * reset or a reboot it may be back, and a service restarts on exit 1 but
     * not on 2 (RestartPreventExitStatus=2); a trace's GPUs do not change */
    int nvml_src = !strcmp(src->ops->name, "nvml");
    if (gpus) {
        if (wt_opts_gpu_list(gpus, ngpus, sel)) {
            unsigned char *any = calloc(WT_MAX_GPUS, 1);
            int well_formed = any && wt_opts_gpu_list(gpus, WT_MAX_GPUS, any) == 0;
            free(any);
            if (well_formed && nvml_src) {
                fprintf(stderr, "%s: --gpus %s: the driver lists %d GPU%s now\n", help.prog,
                        WT_SHOWN(gpus), ngpus, ngpus == 1 ? "" : "s");
                goto out;
            }
            fprintf(stderr, "%s: --gpus: '%s' is not 'all' or a list of GPUs 0..%d\n", help.prog,
                    WT_SHOWN(gpus), ngpus - 1);
            status = WT_EXIT_USAGE;
            goto out;
        }
    } else if ((int)gpu_index >= ngpus) {
        fprintf(stderr, "%s: --gpu-index %llu: the %s %d GPU%s\n", help.prog, gpu_index,
                nvml_src ? "driver lists" : "source has", ngpus, ngpus == 1 ? "" : "s");
        if (!nvml_src)
            status = WT_EXIT_USAGE;
        goto out;
    } else {
        sel[gpu_index] = 1;
    }
    char source_label[300];
    wt_source_label(src->ops->name, trace, profile, source_label, sizeof(source_label));
    /* the rows of GPUs not watched are not kept, also while the watched ones
     * are looked for (`--trace - --gpu-index 1` of a stream of GPU 0 only
     * queued it until 16M samples, 2.4 GB) */
    for (int g = 0; g < WT_MAX_GPUS && !stream_peers; g++)
        if (g >= ngpus || !sel[g])
            wt_source_ignore(src, g);
    int replay_src = !strcmp(src->ops->name, "replay");
    for (int g = 0; g < ngpus; g++) {
        if (!sel[g])
            continue;
        int irc = wt_source_device_info(src, g, &info[g], &err);
        if (irc == WT_ENODEV && replay_src && gpus && !strcmp(gpus, "all")) {
            sel[g] = 0; /* an index the trace does not have */
            wt_source_ignore(src, g);
            continue;
        }
        if (irc == WT_ENODEV && replay_src && !from_stdin) {
            /* a GPU the file does not have, below its highest: a usage
             * error, as one above it is */
            fprintf(stderr, "%s: --%s: %s\n", help.prog, gpus ? "gpus" : "gpu-index", err.msg);
            status = WT_EXIT_USAGE;
            goto out;
        }
        if (irc != WT_OK) {
            fprintf(stderr, "%s: GPU %d: %s; not watching it\n", help.prog, g, err.msg);
            wt_source_ignore(src, g);
            continue;
        }
        buf[g] = malloc((size_t)window * sizeof(**buf));
        bcap[g] = (size_t)window;
        if (!buf[g]) {
            fprintf(stderr, "%s: out of memory\n", help.prog);
            goto out;
        }
        alive[g] = 1;
        w->ngpus++;
    }
    if (!w->ngpus) {
        fprintf(stderr, "%s: no GPU to watch\n", help.prog);
        goto out;
    }

    if (metrics) {
        for (int g = 0; g < ngpus && g < WT_METRICS_MAX_GPUS; g++) {
            if (!alive[g])
                continue;
            struct wt_gpu_labels l;
            memset(&l, 0, sizeof(l));
            snprintf(l.gpu, sizeof(l.gpu), "%d", g);
            snprintf(l.uuid, sizeof(l.uuid), "%s", info[g].uuid);
            if (info[g].is_mig && info[g].gpu_instance_id >= 0 && !strcmp(label_style, "dcgm")) {
                /* as dcgm-exporter labels a MIG device: its parent GPU's
                 * index and UUID, and the GPU instance (it gave our
                 * enumeration index and the MIG UUID, which join nothing) */
                snprintf(l.gpu, sizeof(l.gpu), "%d", info[g].parent);
                /* the parent's UUID, empty when it could not be read: the
                 * MIG UUID joins nothing of dcgm-exporter's */
                snprintf(l.uuid, sizeof(l.uuid), "%s", info[g].parent_uuid);
                snprintf(l.gi_profile, sizeof(l.gi_profile), "%s", info[g].mig_profile);
                snprintf(l.gi_id, sizeof(l.gi_id), "%d", info[g].gpu_instance_id);
                /* another watched device of this GPU instance: its compute
                 * instance tells their series apart; a driver that cannot
                 * say it leaves "unknown-" and our enumeration index, which
                 * is unique (two devices' series were one) */
                for (int h = 0; h < ngpus; h++)
                    if (h != g && alive[h] && info[h].is_mig && info[h].parent == info[g].parent &&
                        info[h].gpu_instance_id == info[g].gpu_instance_id) {
                        if (info[g].compute_instance_id >= 0)
                            snprintf(l.ci_id, sizeof(l.ci_id), "%d", info[g].compute_instance_id);
                        else
                            snprintf(l.ci_id, sizeof(l.ci_id), "unknown-%d", g);
                        break;
                    }
            }
            snprintf(l.pci_bus_id, sizeof(l.pci_bus_id), "%s", info[g].pci_bus_id);
            snprintf(l.model, sizeof(l.model), "%s", info[g].name);
            if (l.gi_id[0]) { /* and the GPU's model, without " MIG 3g.40gb" */
                char *mig = strstr(l.model, " MIG ");
                if (mig)
                    *mig = '\0';
            }
            wt_metrics_gpu(metrics, g, &l);
        }
    }
    /* the metrics port before the log: a port that cannot be had leaves no
     * new log behind (/healthz says unhealthy until the log is open) */
    if (listen) {
        unsigned port = 0;
        int erc = wt_exporter_start(&exporter, listen, metrics, healthy, NULL, &port, &err);
        if (erc != WT_OK) {
            fprintf(stderr, "%s: %s\n", help.prog, err.msg);
            /* a malformed HOST:PORT is a usage error; a port it cannot have is not */
            status = erc == WT_EINVAL ? WT_EXIT_USAGE : WT_EXIT_ERROR;
            goto out;
        }
        char host[128];
        snprintf(host, sizeof(host), "%s", listen);
        char *colon = strrchr(host, ':');
        if (colon)
            *colon = '\0';
        int v6 = strchr(host, ':') && host[0] != '['; /* an IPv6 address in a URL: [::1] */
        fprintf(stderr, "%s: serving metrics at http://%s%s%s:%u/metrics%s\n", help.prog,
                v6 ? "[" : "", host[0] ? host : "localhost", v6 ? "]" : "", port,
                host[0] ? "" : " (on every interface)");
    }
    /* the log, once the source and GPUs are known to be fine: create it
     * when missing, then open it so a damaged log or a held lock fails
     * before sampling */
    /* neither log nor key: create them, as classify does; another agent's
     * init may win (its key is there, its log follows): then its log is
     * waited for.  Deciding on the key after a wait that found none raced
     * such an init: its key, linked just after the wait looked, read as a
     * deleted log's (cli_audit, "two watch agents on a new log"). */
    int have_log = access(w->paths.log, F_OK) == 0;
    struct wt_err ierr = {{0}};
    if (!have_log && access(w->paths.key, F_OK) != 0) {
        char vkey[600];
        if (wt_log_init(&w->paths, NULL, NULL, NULL, vkey, sizeof(vkey), &ierr) == WT_OK) {
            fprintf(stderr,
                    "%s: created audit log %s; verifier key (keep a copy off this host):\n%s\n",
                    help.prog, w->paths.log, vkey);
            have_log = 1;
        } else if (access(w->paths.log, F_OK) != 0 && access(w->paths.key, F_OK) != 0) {
            /* it failed here (a full disk), and no other init is under way
             * (its key would be there): said at once, not after waiting
             * for an init and calling the log deleted */
            fprintf(stderr, "%s: cannot create the audit log: %s\n", help.prog, ierr.msg);
            goto out;
        }
    }
    int waited = have_log ? 1 : wt_log_wait_for_init(&w->paths, 2, INIT_WAIT_MAX_S, &stop_flag);
    if (waited < 0) {
        /* a signal while another agent's init was awaited: a stop, not a
         * failure (it had been ignored for up to a minute, then exit 1) */
        fprintf(stderr, "%s: stopped while waiting for %s to be created: nothing logged\n",
                help.prog, WT_CLEAN(w->paths.log));
        status = WT_EXIT_OK;
        goto out;
    }
    if (!waited) {
        if (access(w->paths.key, F_OK) == 0)
            /* not created again on its own: someone who can delete the log
             * but not read the key would get a fresh log that verifies */
            fprintf(stderr,
                    "%s: %s is missing but its key %s exists: the log was deleted, or an init "
                    "was interrupted; check, then start a new log with this key by running "
                    "`workloadtruth init` with the same log option (after moving its checkpoint "
                    "file aside, keeping it as evidence, if there is one)\n",
                    help.prog, WT_CLEAN(w->paths.log), WT_CLEAN(w->paths.key));
        else
            fprintf(stderr, "%s: %s\n", help.prog,
                    ierr.msg[0] ? ierr.msg
                                : "the audit log's key vanished while its log was awaited");
        goto out;
    }
    w->log_ok = 1;
    {
        /* open it now so a damaged log or a held lock fails before sampling */
        struct wt_log_recovery rec;
        int orc = wt_log_open(&w->log, &w->paths, &first_open_opts, &rec, &err);
        if (orc != WT_OK) {
            w->log = NULL;
            /* the textfile written at out says so (the gauge was NaN, and
             * an agent refused at every start raised no alert) */
            if (rec.damaged && metrics)
                wt_metrics_audit_verified(metrics, 1);
            fprintf(stderr, "%s: %s%s\n", help.prog, err.msg,
                    orc == WT_ESTOP ? "; stopped before sampling, nothing written" : "");
            if (orc == WT_ESTOP)
                status = WT_EXIT_OK; /* a stop asked, as after sampling */
            goto out;
        }
        char msg[2 * PATH_MAX + 128];
        if (wt_log_repaired_msg(&rec, w->paths.log, msg, sizeof(msg)))
            fprintf(stderr, "%s: %s\n", help.prog, msg);
        wt_cli_report_unsealed(help.prog, w->paths.log, &rec);
        w->seen = wt_log_size(w->log);
        wt_log_public_key(w->log, &w->key);
        if (rec.publish_error[0]) {
            /* its checkpoint file could not be written (a full disk): a
             * failed write, as in a running agent; /healthz says 503 and
             * the writer publishes with the first batch it writes */
            fprintf(stderr, "%s: %s; will retry\n", help.prog, rec.publish_error);
            w->errors++;
            w->log_ok = 0;
        }
    }

    atomic_store_explicit(&healthy_flag, w->log_ok, memory_order_relaxed);
    pthread_mutex_init(&w->mu, NULL);
    /* the writer's waits run on the monotonic clock: a step of the wall
     * clock must not postpone heartbeats */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    w->heartbeat_s = beat;
    w->seal_every = (unsigned long)seal_every;
    /* the key the log was opened with, taken before the writer thread owns
     * the log */
    struct verifier ver = {
        .every_s = verify_every, .paths = &w->paths, .metrics = metrics, .prog = help.prog};
    wt_log_public_key(w->log, &ver.vkey);
    if (pthread_create(&tid, NULL, writer_main, w) != 0) {
        fprintf(stderr, "%s: cannot start the log writer thread\n", help.prog);
        goto out;
    }
    writer_started = 1;
    pthread_t vtid;
    int verifier_started = 0;
    if (verify_every > 0) {
        pthread_mutex_init(&ver.mu, NULL);
        pthread_condattr_t vca;
        pthread_condattr_init(&vca);
        pthread_condattr_setclock(&vca, CLOCK_MONOTONIC);
        pthread_cond_init(&ver.cv, &vca);
        pthread_condattr_destroy(&vca);
        verifier_started = pthread_create(&vtid, NULL, verifier_main, &ver) == 0;
        if (!verifier_started)
            fprintf(stderr,
                    "%s: cannot start the verification thread: the audit log will not be "
                    "verified while watch runs (run verify-log)\n",
                    help.prog);
    }

    int synthetic = !strcmp(src->ops->name, "synthetic");
    int peers_none = !strcmp(peer_mode, "none"), peers_job = !strcmp(peer_mode, "job");
    /* a replayed trace's owners column names each GPU's job as the kernel
     * does live (record writes it): the same rule */
    const struct wt_owners *owners = wt_source_owners(src);
    /* A live GPU's window is --window polls, --window x --interval seconds:
     * each poll may bring several of the driver's buffered readings, and
     * counting samples would make windows too short to judge. */
    int live = !strcmp(src->ops->name, "nvml");
    int gpu_failed = 0, record_failed = 0;
    unsigned long long done_windows = 0;
    unsigned long long unprinted = 0; /* window lines not printed after a stop signal */
    struct wt_result res;
    double t_round = NAN; /* when the previous round's windows were judged (pacing) */
    for (unsigned long long it = 0; (!iterations || it < iterations) && !stop_flag; it++) {
        int nlive = 0;
        /* who is on each GPU as its window starts */
        for (int g = 0; g < ngpus; g++) {
            size_t n0 = 0;
            struct wt_err perr = {{0}};
            at_start[g].known = 0;
            if (alive[g] && src->ops->processes &&
                wt_source_processes(src, g, procs, MAX_PROCS, &n0, NULL, &perr) == WT_OK)
                attribution_of(policy, declared_cli, procs, n0, &at_start[g]);
        }
        for (int g = 0; g < ngpus && !stop_flag; g++) {
            nbuf[g] = 0;
            if (!alive[g])
                continue;
            size_t n = 0;
            int rc =
                live ? wt_source_read_polls(src, g, &buf[g], &bcap[g], MAX_WINDOW, (size_t)window,
                                            interval, &live_polls[g], NULL, &n, &err)
                     : wt_source_read_n(src, g, buf[g], (size_t)window, &n, &err);
            if (metrics)
                wt_metrics_samples(metrics, g, n, rc != WT_OK && rc != WT_DONE);
            if (stop_flag)
                break;
            if (rc != WT_OK) {
                alive[g] = 0;
                int others = 0;
                for (int h = 0; h < ngpus; h++)
                    others += alive[h];
                fprintf(stderr, "%s: GPU %d failed: %s%s\n", help.prog, g, err.msg,
                        others ? "; watching the others" : "");
                gpu_failed = 1;
                if (metrics)
                    wt_metrics_gpu_failed(metrics, g);
                pthread_mutex_lock(&w->mu);
                w->failed_gpus++;
                /* at most 240 bytes of indices: the log refuses a string
                 * over 256 (every heartbeat after about the 88th failed GPU
                 * failed, and the final seal with it); the rest is said as
                 * "+N more" (heartbeat()) */
                size_t fl = strlen(w->failed_list);
                char idx[16];
                int il = snprintf(idx, sizeof(idx), "%s%d", fl ? "," : "", g);
                if (il > 0 && fl + (size_t)il <= FAILED_LIST_MAX)
                    memcpy(w->failed_list + fl, idx, (size_t)il + 1);
                else
                    w->failed_unlisted++;
                pthread_mutex_unlock(&w->mu);
                continue;
            }
            if (n < window) {
                alive[g] = 0;
                if (metrics) /* its gauges would repeat its last window while others go on */
                    wt_metrics_gpu_ended(metrics, g);
                if (n)
                    fprintf(stderr,
                            "%s: GPU %d: the trace ended (%zu samples left over, fewer than "
                            "a window)\n",
                            help.prog, g, n);
                continue;
            }
            nbuf[g] = n;
            nlive++;
        }
        if (stop_flag || !nlive)
            break;
        {
            /* --pace and a synthetic round's span are both floors (--pace 1
             * had cut a synthetic round of 10 x 0.5 s to 1 s), kept between
             * rounds that have windows: the wait comes once this round's
             * windows are read, so a trace that has ended ends the run at
             * once (it waited one more --pace first) */
            double round_s = synthetic && interval > 0 ? (double)window * interval : 0;
            if (pace > round_s)
                round_s = pace;
            if (round_s > 0 && isfinite(t_round))
                nap(round_s - (wt_mono_s() - t_round));
            t_round = wt_mono_s();
        }
        if (stop_flag)
            break; /* stopped in the wait: this round is not judged, as before it was read */
        for (int g = 0; g < ngpus; g++) {
            if (!nbuf[g])
                continue;
            /* peers: the other watched GPUs, less those on which this GPU's
             * owner as the kernel names it (Slurm job cgroup, pod UID,
             * container) had no process as the window began (another job's,
             * or idle), or, replaying a trace, its owners column says so;
             * without such an owner here, or a process list there, every GPU
             * is a peer (same_job, wt_owners_same_job) */
            size_t np = 0, other_jobs = 0;
            for (int h = 0; h < ngpus; h++) {
                if (h == g || !nbuf[h] || peers_none)
                    continue;
                if (peers_job && (!same_job(&at_start[g], &at_start[h]) ||
                                  !wt_owners_same_job(owners, buf[g][0].owner, buf[h][0].owner))) {
                    other_jobs++;
                    continue;
                }
                peers[np++] = (struct wt_window){.s = buf[h],
                                                 .n = nbuf[h],
                                                 .gpu = h,
                                                 .power_semantics = info[h].power_semantics,
                                                 .gpu_model = info[h].name};
            }
            /* standard input's other GPUs: their rows of this window's span
             * that have come (GPUs it has not named, none), as classify */
            for (size_t p = 0; p < nspeers; p++) {
                struct wt_peer *sp = &speers[p];
                if (wt_peer_fill(src, sp, buf[g][0].t_s, buf[g][nbuf[g] - 1].t_s, 1, &err) !=
                    WT_OK) {
                    fprintf(stderr, "%s: GPU %d, peer GPU %d: %s; read without it\n", help.prog, g,
                            sp->gpu, err.msg);
                    continue;
                }
                if (!sp->n)
                    continue;
                if (peers_job && !wt_owners_same_job(owners, buf[g][0].owner, sp->s[0].owner)) {
                    other_jobs++;
                    continue;
                }
                peers[np++] = (struct wt_window){.s = sp->s,
                                                 .n = sp->n,
                                                 .gpu = sp->gpu,
                                                 .power_semantics = info[g].power_semantics,
                                                 .gpu_model = info[g].name};
            }
            struct wt_window win = {.s = buf[g],
                                    .n = nbuf[g],
                                    .gpu = g,
                                    .power_semantics = info[g].power_semantics,
                                    .gpu_model = info[g].name,
                                    .peers = np ? peers : NULL,
                                    .npeers = np};
            if (wt_classify_window(clf, &win, &res, &err) != WT_OK) {
                fprintf(stderr, "%s: GPU %d: %s\n", help.prog, g, err.msg);
                continue;
            }
            wt_result_note_other_jobs(&res, other_jobs, np,
                                      from_stdin ? "GPUs of the trace" : "watched GPUs");
            /* who runs there, what they declared */
            size_t np2 = 0;
            struct wt_err perr = {{0}};
            if (src->ops->processes &&
                wt_source_processes(src, g, procs, MAX_PROCS, &np2, NULL, &perr) != WT_OK)
                np2 = 0;
            /* a process list that could not be read, at the window's end or
             * its start: what the processes claim (which beats --declared)
             * and whether the owner changed are not known, so the verdict is
             * INCONCLUSIVE, not one held against --declared (a driver error
             * at the window's end recorded a job that declared training,
             * and trained, as a MISMATCH with --declared inference) */
            int unlisted =
                src->ops->processes && !operator_declared && (perr.msg[0] || !at_start[g].known);
            if (unlisted && !unlisted_said[g]) {
                char why[300];
                if (perr.msg[0])
                    snprintf(why, sizeof(why), "%.299s", perr.msg); /* "GPU g: ..." */
                else
                    snprintf(why, sizeof(why), "GPU %d: its processes could not be listed", g);
                fprintf(stderr,
                        "%s: %s: what its processes declare is not known, so its verdicts are "
                        "INCONCLUSIVE until they can be listed again (--operator-declared does "
                        "not read them)\n",
                        help.prog, why);
                unlisted_said[g] = 1;
            } else if (!unlisted) {
                unlisted_said[g] = 0;
            }
            enum wt_declared_source dsrc;
            enum wt_class declared = declared_of(policy, declared_cli, procs, np2, &dsrc);
            /* not what --declared says either: the processes may declare
             * otherwise, which beats it (the record said "declared training,
             * by command-line" of a job that declared inference) */
            if (unlisted) {
                declared = WT_CLASS_NONE;
                dsrc = WT_DECL_UNLISTED;
            }
            /* a window whose owner or declaration changed while it was
             * sampled (one job ended, another began) is partly each one's:
             * its verdict is INCONCLUSIVE, not a MISMATCH held against the
             * owner at its end */
            int changed = 0;
            size_t mig_owners = 0;
            if (at_start[g].known && !perr.msg[0]) {
                struct attribution now;
                attribution_of(policy, declared_cli, procs, np2, &now);
                changed = attribution_changed(&at_start[g], &now);
                /* a GPU in MIG mode: its power and its process list are its
                 * instances' together, each a tenant's; with more than one
                 * owner on it, the window is theirs together (a slice's
                 * training was held against the job using the most memory
                 * on another) */
                if (info[g].mig_mode == 1 && !info[g].is_mig)
                    mig_owners = now.kn > at_start[g].kn ? now.kn : at_start[g].kn;
            }
            int shared = mig_owners > 1;
            /* with --operator-declared the type is the node's, whoever ran:
             * an owner change (which a job can stage, by a process whose
             * environment names another SLURM_JOB_ID) is recorded but does
             * not make the verdict INCONCLUSIVE */
            enum wt_verdict verdict = WT_VERDICT_INCONCLUSIVE;
            if (declared != WT_CLASS_NONE && (!(changed || shared) || operator_declared) &&
                !unlisted)
                verdict = wt_verdict_for(declared, &res);
            const struct wt_proc *q = main_owner(procs, np2);
            const char *job = q ? q->slurm_job_id : "";
            json_t *f = wt_json_class_record(
                &res, &info[g], source_label, nbuf[g], nbuf[g] ? buf[g][0].t_s : NAN,
                nbuf[g] ? buf[g][nbuf[g] - 1].t_s : NAN, clf, model_id);
            if (!f) {
                fprintf(stderr, "%s: out of memory\n", help.prog);
                record_failed = 1;
                stop_flag = 1;
                break;
            }
            json_t *ev = json_object_get(f, "evidence");
            if (declared != WT_CLASS_NONE) {
                json_object_set_new(ev, "declared", json_string(wt_class_lname(declared)));
                json_object_set_new(ev, "declared_by", json_string(wt_declared_source_name(dsrc)));
                json_object_set_new(ev, "verdict", json_string(wt_verdict_name(verdict)));
            } else if (dsrc == WT_DECL_CONFLICT) {
                json_object_set_new(ev, "declared_by", json_string("conflict"));
            } else if (dsrc == WT_DECL_UNLISTED) {
                json_object_set_new(ev, "declared_by", json_string("unlisted"));
                json_object_set_new(ev, "verdict", json_string(wt_verdict_name(verdict)));
            }
            if (job[0])
                json_object_set_new(ev, "slurm_job_id", json_string(job));
            if (changed)
                json_object_set_new(ev, "owner_changed",
                                    json_integer(1)); /* log values: integers or strings */
            if (unlisted)
                json_object_set_new(ev, "processes_unlisted", json_integer(1));
            if (other_jobs)
                json_object_set_new(ev, "peers_other_jobs", json_integer((json_int_t)other_jobs));
            if (shared)
                json_object_set_new(ev, "mig_owners", json_integer((json_int_t)mig_owners));
            if (metrics) {
                /* the owner's labels (a failed process list keeps the
                 * last), with the window, as one update */
                struct wt_gpu_labels ol;
                memset(&ol, 0, sizeof(ol));
                if (!perr.msg[0]) {
                    if (q) {
                        snprintf(ol.pod, sizeof(ol.pod), "%s",
                                 q->pod_name[0] ? q->pod_name : q->pod_uid);
                        snprintf(ol.k8s_namespace, sizeof(ol.k8s_namespace), "%s",
                                 q->k8s_namespace);
                        snprintf(ol.container, sizeof(ol.container), "%.12s", q->container_id);
                        snprintf(ol.slurm_job_id, sizeof(ol.slurm_job_id), "%s", q->slurm_job_id);
                    }
                }
                wt_metrics_owned_window(metrics, g, perr.msg[0] ? NULL : &ol, &res, declared,
                                        verdict,
                                        declared != WT_CLASS_NONE || dsrc == WT_DECL_CONFLICT ||
                                                dsrc == WT_DECL_UNLISTED
                                            ? wt_declared_source_name(dsrc)
                                            : NULL,
                                        changed);
            }
            push(w, WT_ENTRY_CLASS, f);
            done_windows++;
            if (signalled) {
                /* after a stop signal a line that waits on a stuck reader
                 * has no signal left to cut it (the stop hung with several
                 * GPUs): the window is logged, not printed */
                unprinted++;
                continue;
            }
            char when[32];
            time_t now = time(NULL);
            struct tm tmv;
            strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tmv));
            errno = 0;
            if (json) {
                json_t *j = wt_json_result(&res);
                if (j) {
                    json_object_set_new(j, "time", json_string(when));
                    json_object_set_new(j, "iteration", json_integer((json_int_t)it + 1));
                    json_object_set_new(j, "log", json_string(w->paths.log));
                    if (declared != WT_CLASS_NONE)
                        json_object_set_new(j, "declared", json_string(wt_class_lname(declared)));
                    if (declared != WT_CLASS_NONE || unlisted)
                        json_object_set_new(j, "verdict", json_string(wt_verdict_name(verdict)));
                    if (changed)
                        json_object_set_new(j, "owner_changed", json_true());
                    if (unlisted)
                        json_object_set_new(j, "processes_unlisted", json_true());
                    char *line = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(15));
                    if (line)
                        printf("%s\n", line);
                    free(line);
                    json_decref(j);
                }
            } else {
                printf("[%s] GPU %d: %-9s confidence %.2f", when, g, wt_class_name(res.cls),
                       res.confidence);
                if (declared != WT_CLASS_NONE)
                    printf("  declared %s: %s", wt_class_lname(declared), wt_verdict_name(verdict));
                else if (unlisted)
                    printf("  declared not known: %s", wt_verdict_name(verdict));
                if (changed)
                    printf("  (owner changed during the window)");
                if (unlisted)
                    printf("  (processes not listed)");
                printf("\n");
            }
            /* standard output gone (`watch --json | head`): stop as on
             * SIGTERM, sealing the log; main reports it and exits 1 */
            if (fflush(stdout) != 0 || ferror(stdout)) {
                /* a signal that came while a slow reader held the line
                 * back interrupted the write: that is the stop asked for,
                 * not a broken output (it exited 1, "cannot write to
                 * standard output").  The rest of the line is dropped: a
                 * retry would wait on the reader again */
                if (errno == EINTR && signalled) {
                    __fpurge(stdout);
                    clearerr(stdout);
                    fprintf(stderr,
                            "%s: stopped while writing a window line to standard output; the "
                            "rest of the line was dropped (the audit log has the window)\n",
                            help.prog);
                }
                stop_flag = 1;
            }
        }
        /* records dropped from a full queue count now, not when the stuck
         * writer next finishes a batch */
        report_metrics(w, 0);
        if (textfile)
            write_textfile(metrics, textfile, 0);
        pthread_mutex_lock(&w->mu);
        atomic_store_explicit(&healthy_flag, !w->gave_up && w->log_ok, memory_order_relaxed);
        pthread_mutex_unlock(&w->mu);
    }
    /* stop: a verification under way ends (within 64 KiB of reading) */
    if (verifier_started) {
        atomic_store(&verify_stop, 1);
        pthread_mutex_lock(&ver.mu);
        ver.done = 1;
        pthread_cond_signal(&ver.cv);
        pthread_mutex_unlock(&ver.mu);
        pthread_join(vtid, NULL);
        pthread_cond_destroy(&ver.cv);
        pthread_mutex_destroy(&ver.mu);
    }
    /* the writer drains the queue and seals */
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(tid, NULL);
    writer_started = 0;
    if (metrics) {
        /* the last word of the textfile: what was written, and that the
         * agent is no longer running (node_exporter keeps serving the file) */
        report_metrics(w, 0);
        wt_metrics_stop(metrics);
        if (textfile)
            write_textfile(metrics, textfile, 1);
        textfile_last = 1;
    }
    size_t left = 0;
    if (w->retry) {
        json_decref(w->retry->fields);
        free(w->retry);
        w->retry = NULL;
        left++;
    }
    for (struct qrec *r = w->head, *nx; r; r = nx) {
        nx = r->next;
        json_decref(r->fields);
        free(r);
        left++;
    }
    w->head = w->tail = NULL;
    if (unprinted)
        fprintf(stderr,
                "%s: %llu window line%s after the stop signal not printed (the audit log has "
                "%s)\n",
                help.prog, unprinted, unprinted == 1 ? "" : "s", unprinted == 1 ? "it" : "them");
    if (w->gave_up && !left && w->unsealed) {
        fprintf(stderr,
                "%s: %llu window%s logged to %s, but the final heartbeat and checkpoint could "
                "not be written (see the errors above); `workloadtruth recover` seals it\n",
                help.prog, w->written, w->written == 1 ? "" : "s", w->paths.log);
        status = WT_EXIT_ERROR;
    } else if (w->gave_up) {
        fprintf(stderr,
                "%s: %zu record%s could not be written to %s (see the errors above)%s; the "
                "entries written before are intact (verify-log)\n",
                help.prog, left, left == 1 ? "" : "s", w->paths.log,
                w->dropped ? ", besides those dropped when the queue was full" : "");
        if (w->dropped)
            fprintf(stderr,
                    "%s: %llu record%s dropped: the queue of %d overflowed while the log "
                    "could not be written\n",
                    help.prog, w->dropped, w->dropped == 1 ? " was" : "s were", QUEUE_MAX);
        status = WT_EXIT_ERROR;
    } else if (w->dropped) {
        fprintf(stderr,
                "%s: %llu window%s logged to %s; %llu record%s dropped: writing the log (an "
                "fdatasync per record) fell behind and the queue of %d overflowed; a slow or "
                "failing disk, or windows faster than the disk (--interval 0)\n",
                help.prog, w->written, w->written == 1 ? "" : "s", w->paths.log, w->dropped,
                w->dropped == 1 ? " was" : "s were", QUEUE_MAX);
        status = WT_EXIT_ERROR;
    } else {
        fprintf(stderr, "%s: %llu window%s logged to %s\n", help.prog, w->written,
                w->written == 1 ? "" : "s", w->paths.log);
        /* every GPU failed: nothing is watched any more (a service manager
         * should restart it, e.g. after a GPU reset) */
        int all_failed = w->ngpus > 0 && w->failed_gpus >= w->ngpus;
        if (all_failed && done_windows)
            fprintf(stderr, "%s: every watched GPU failed\n", help.prog);
        status = ((gpu_failed && (!done_windows || all_failed)) || record_failed) ? WT_EXIT_ERROR
                                                                                  : WT_EXIT_OK;
        if (!done_windows && !stop_flag && !gpu_failed) {
            /* the input ended before one whole window: nothing was watched */
            fprintf(stderr, "%s: no window: the input ended before %llu samples of a GPU\n",
                    help.prog, window);
            status = WT_EXIT_ERROR;
        }
    }
out:
    (void)writer_started;
    /* an agent that fails before its windows (a port in use, no driver, a
     * damaged log) in the directory it locked: up 0, and no GPU's gauges.
     * The file of one killed before (SIGKILL, a crash) said up 1 and its
     * last classes for as long as restarts failed */
    if (textfile_locked && metrics && !textfile_last) {
        wt_metrics_stop(metrics);
        write_textfile(metrics, textfile, 1);
    }
    atomic_store_explicit(&healthy_flag, 0, memory_order_relaxed);
    wt_exporter_stop(exporter);
    if (metrics)
        wt_metrics_free(metrics);
    free(metrics);
    free(procs);
    free(policy);
    if (w && w->log)
        wt_log_close(w->log);
    if (w)
        wt_log_lock_release(&w->held);
    if (buf)
        for (int g = 0; g < ngpus; g++)
            free(buf[g]);
    free(buf);
    free(nbuf);
    free(bcap);
    if (live_polls)
        for (int g = 0; g <= ngpus; g++)
            wt_polls_free(&live_polls[g]);
    free(live_polls);
    free(info);
    free(wins);
    free(peers);
    for (size_t p = 0; p < nspeers; p++)
        free(speers[p].s);
    free(speers);
    free(at_start);
    free(sel);
    free(alive);
    free(unlisted_said);
    free(w);
    free(model);
    wt_source_close(src);
    if (textfile_lock >= 0)
        close(textfile_lock);
    return status;
}
