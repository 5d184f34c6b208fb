/* The MCP stdio transport: one JSON-RPC message per line on standard input,
 * one per line on standard output (nothing else is written there; messages
 * for people go to standard error).
 *
 * A reader thread reads and parses lines (at most WT_RPC_MAX_MESSAGE bytes
 * each: a longer line is skipped to its end and answered with an error), and
 * handles notifications/cancelled itself: a queued request with that id is
 * dropped, the one in progress has its cancel flag set and its response is
 * not sent, and a batch element not started yet is skipped when its turn
 * comes (the cancels inside a batch act when the batch is read).  An
 * initialize, queued or in progress, is never cancelled (MCP forbids it).  A
 * ping (not in a batch) is answered by the reader as soon as it is read, ahead
 * of what is queued or running (MCP: the receiver must respond promptly; it
 * holds no state).  The main thread runs the other requests in order (a batch,
 * in a session that negotiated 2025-03-26, element by element, answered with
 * one array).  At end of input the requests already read are answered and the
 * server exits (a client that closes stdin follows with SIGTERM, which ends
 * the process at once); once standard output is gone as well (its reader
 * closed it), the request in progress is cancelled and the queue dropped.
 * It does not know any MCP method beyond ping; server.c does.
 *
 * SPDX-License-Identifier: MIT
 */
#include "mcp/stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/text.h"

#define QUEUE_MAX 256 /* parsed messages waiting; the reader waits beyond */
/* ... or beyond this many bytes held by the parsed messages waiting (one
 * message is always let in): memory stays bounded while a long tool runs */
#define QUEUE_WEIGHT_MAX (32u * 1024 * 1024)

struct qitem {
    struct wt_rpc_msg m;
    struct qitem *next;
};

struct stdio_srv {
    struct wt_mcp_server *s;
    int in_fd, out_fd;
    pthread_mutex_t mu; /* queue, current, eof */
    pthread_cond_t cv;
    struct qitem *head, *tail;
    size_t qlen;
    size_t qweight; /* sum of the queued messages' weight */
    int eof;
    json_t *current_id;                /* the request in progress (a copy) */
    int current_init;                  /* ... is an initialize: not cancelled */
    struct wt_mcp_cancelled cancelled; /* cancels that found nothing yet (batches) */
    struct wt_mcp_session expect;      /* the session as it will be when what was read runs */
    atomic_int cancel;
    int busy;               /* the main thread runs a message (under mu) */
    int gone;               /* standard output's reader went with work left (under mu) */
    int wake[2];            /* the main thread writes here when it has finished */
    pthread_mutex_t out_mu; /* one message at a time on stdout */
    int out_failed;
};

/* A descriptor the client left non-blocking (O_NONBLOCK on a pipe it
 * shares): waits until it is ready for `ev` again; 1 then, 0 on a poll
 * error.  EAGAIN read as the end of input (exit 0 with requests unanswered)
 * or as standard output closed (a reply cut in the middle). */
static int wait_fd(int fd, short ev)
{
    struct pollfd p = {.fd = fd, .events = ev};
    for (;;) {
        int r = poll(&p, 1, -1);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return 0;
    }
}

static void write_msg(struct stdio_srv *x, json_t *msg)
{
    char *line = wt_rpc_dump(msg);
    json_decref(msg);
    if (!line)
        return;
    size_t len = strlen(line);
    line[len] = '\n'; /* wt_rpc_dump leaves room: see jsonrpc.c */
    pthread_mutex_lock(&x->out_mu);
    size_t off = 0;
    while (!x->out_failed && off < len + 1) {
        ssize_t k = write(x->out_fd, line + off, len + 1 - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_fd(x->out_fd, POLLOUT))
            continue;
        if (k <= 0) {
            x->out_failed = 1;
            break;
        }
        off += (size_t)k;
    }
    pthread_mutex_unlock(&x->out_mu);
    free(line);
}

static void emit(void *ctx, json_t *notification)
{
    if (notification)
        write_msg(ctx, notification);
}

/* notifications/cancelled: drop a queued request or stop the current one.
 * Called with mu held. */
static void cancel_request(struct stdio_srv *x, const json_t *id)
{
    if (!id)
        return;
    if (x->current_id && json_equal(x->current_id, id)) {
        if (!x->current_init) /* MCP forbids cancelling an initialize */
            x->cancel = 1;
        return;
    }
    for (struct qitem **pp = &x->head; *pp; pp = &(*pp)->next) {
        struct qitem *q = *pp;
        /* not an initialize (MCP forbids cancelling it): the session a
         * batch read meanwhile was judged in (wt_mcp_session_expect) comes
         * from it, and the batch's own cancels acted on that judgement */
        if (q->m.kind == WT_RPC_REQUEST && json_equal(q->m.id, id) &&
            strcmp(q->m.method, "initialize") != 0) {
            *pp = q->next;
            if (x->tail == q) {
                x->tail = NULL;
                for (struct qitem *t = x->head; t; t = t->next)
                    x->tail = t;
            }
            x->qlen--;
            x->qweight -= q->m.weight;
            pthread_cond_broadcast(&x->cv);
            wt_rpc_free(&q->m);
            free(q);
            return;
        }
    }
    /* perhaps an element of a batch not started yet */
    wt_mcp_cancelled_add(&x->cancelled, id);
}

static void enqueue(struct stdio_srv *x, const char *buf, size_t len, int too_long)
{
    struct qitem *q = calloc(1, sizeof(*q));
    if (!q)
        return;
    if (too_long) {
        q->m.kind = WT_RPC_INVALID;
        q->m.error_code = WT_RPC_INVALID_REQUEST;
        snprintf(q->m.error_message, sizeof(q->m.error_message),
                 "Invalid Request: message longer than %d bytes", WT_RPC_MAX_MESSAGE);
    } else {
        wt_rpc_parse(buf, len, &q->m);
    }
    if (q->m.kind == WT_RPC_REQUEST && !q->m.batch && !strcmp(q->m.method, "ping")) {
        /* answered now, whatever runs: a ping touches no session (one of
         * 2026-07-28, where ping is gone, gets its error as promptly) */
        struct wt_mcp_session none;
        memset(&none, 0, sizeof(none));
        json_t *resp = wt_mcp_handle(x->s, &none, &q->m, NULL);
        if (resp)
            write_msg(x, resp);
        wt_rpc_free(&q->m);
        free(q);
        return;
    }
    if (q->m.kind == WT_RPC_INVALID && q->m.notification) {
        /* JSON-RPC: a notification is never answered, not even an invalid one */
        /* one line, whatever the client put in a member name */
        wt_text_clean(q->m.error_message);
        fprintf(stderr, "workloadtruth mcp: ignored a notification: %s\n", q->m.error_message);
        wt_rpc_free(&q->m);
        free(q);
        return;
    }
    pthread_mutex_lock(&x->mu);
    /* the queue runs in order: a batch read now runs in the session that
     * the messages before it leave (an initialize still queued included) */
    wt_mcp_session_expect(&x->expect, &q->m);
    if (q->m.batch && wt_mcp_batch_allowed(&x->expect)) {
        /* its cancels apply now, to what was sent before them, as outside
         * a batch (run later, they would reach requests sent after it) */
        size_t i;
        json_t *v;
        json_array_foreach(q->m.root, i, v)
        {
            struct wt_rpc_msg e;
            wt_rpc_parse_value(v, &e);
            json_t *rid = e.params ? json_object_get(e.params, "requestId") : NULL;
            if (e.kind == WT_RPC_NOTIFICATION && !strcmp(e.method, "notifications/cancelled") &&
                !wt_mcp_batch_names(&q->m, rid))
                cancel_request(x, rid);
            wt_rpc_free(&e);
        }
    }
    if (q->m.kind == WT_RPC_NOTIFICATION && !strcmp(q->m.method, "notifications/cancelled")) {
        cancel_request(x, json_object_get(q->m.params, "requestId"));
        pthread_mutex_unlock(&x->mu);
        wt_rpc_free(&q->m);
        free(q);
        return;
    }
    while ((x->qlen >= QUEUE_MAX || (x->qlen > 0 && x->qweight + q->m.weight > QUEUE_WEIGHT_MAX)) &&
           !x->eof)
        pthread_cond_wait(&x->cv, &x->mu);
    if (x->tail)
        x->tail->next = q;
    else
        x->head = q;
    x->tail = q;
    x->qlen++;
    x->qweight += q->m.weight;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

/* One line read (without its newline): a CR before the newline and leading
 * blanks are dropped, a blank line is ignored, an overlong one refused. */
static void line_done(struct stdio_srv *x, const char *buf, size_t len)
{
    size_t l = len;
    if (l && buf[l - 1] == '\r')
        l--;
    size_t b = 0;
    while (b < l && (buf[b] == ' ' || buf[b] == '\t'))
        b++;
    if (l > WT_RPC_MAX_MESSAGE)
        enqueue(x, NULL, 0, 1);
    else if (b < l) /* blank lines are ignored */
        enqueue(x, buf + b, l - b, 0);
}

/* After end of input: until the main thread finishes, watch standard output
 * for its reader going away (a pipe's read end closed: POLLERR; a socket's
 * peer: POLLHUP).  Then nothing more can be answered: the request in
 * progress is cancelled and the queue dropped, so the server exits now
 * rather than after every queued call has run. */
static void watch_output(struct stdio_srv *x)
{
    for (;;) {
        struct pollfd p[2] = {{x->out_fd, 0, 0}, {x->wake[0], POLLIN, 0}};
        int k = poll(p, 2, -1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 || p[1].revents) /* the main thread has finished */
            return;
        if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
            pthread_mutex_lock(&x->mu);
            if (!x->head && !x->busy) {
                /* every answer written: a client that read them all and
                 * closed its end is no failure (the server exits 0) */
                pthread_mutex_unlock(&x->mu);
                return;
            }
            x->gone = 1; /* a batch's elements not started are skipped */
            x->cancel = 1;
            while (x->head) {
                struct qitem *q = x->head;
                x->head = q->next;
                wt_rpc_free(&q->m);
                free(q);
            }
            x->tail = NULL;
            x->qlen = 0;
            x->qweight = 0;
            pthread_cond_broadcast(&x->cv);
            pthread_mutex_unlock(&x->mu);
            pthread_mutex_lock(&x->out_mu);
            x->out_failed = 1;
            pthread_mutex_unlock(&x->out_mu);
            return;
        }
    }
}

static void *reader(void *arg)
{
    struct stdio_srv *x = arg;
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    int skipping = 0; /* inside a line that is too long */
    char chunk[65536];
    while (buf) {
        ssize_t k = read(x->in_fd, chunk, sizeof(chunk));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_fd(x->in_fd, POLLIN))
            continue;
        if (k <= 0)
            break;
        for (ssize_t i = 0; i < k;) {
            char *nl = memchr(chunk + i, '\n', (size_t)(k - i));
            size_t take = nl ? (size_t)(nl - (chunk + i)) : (size_t)(k - i);
            if (!skipping) {
                /* one byte more: a CRLF line's '\r', removed below */
                if (len + take > WT_RPC_MAX_MESSAGE + 1) {
                    skipping = 1;
                    len = 0;
                } else {
                    if (len + take + 1 > cap) {
                        size_t ncap = cap;
                        while (ncap < len + take + 1)
                            ncap *= 2;
                        char *nb = realloc(buf, ncap);
                        if (!nb) {
                            skipping = 1;
                            len = 0;
                            goto next;
                        }
                        buf = nb;
                        cap = ncap;
                    }
                    memcpy(buf + len, chunk + i, take);
                    len += take;
                }
            }
        next:
            i += (ssize_t)take;
            if (nl) {
                i++; /* the newline */
                if (skipping) {
                    enqueue(x, NULL, 0, 1);
                    skipping = 0;
                } else {
                    line_done(x, buf, len);
                }
                len = 0;
            }
        }
    }
    /* a last line without a newline */
    if (skipping)
        enqueue(x, NULL, 0, 1);
    else if (buf && len)
        line_done(x, buf, len); /* as a line with its newline: a blank one is ignored */
    free(buf);
    pthread_mutex_lock(&x->mu);
    x->eof = 1;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
    watch_output(x);
    return NULL;
}

/* A batch's elements run on the main thread one by one: each is the request
 * in progress while it runs, so notifications/cancelled (read by the reader
 * thread) can stop it, and one cancelled before it started is skipped. */
static int batch_begin(void *ctx, const struct wt_rpc_msg *e)
{
    struct stdio_srv *x = ctx;
    pthread_mutex_lock(&x->mu);
    int skip = e->kind == WT_RPC_REQUEST && wt_mcp_cancelled_has(&x->cancelled, e->id);
    skip |= x->gone; /* nothing can be answered any more */
    x->cancel = x->gone;
    json_decref(x->current_id);
    x->current_id = e->kind == WT_RPC_REQUEST && !skip ? json_deep_copy(e->id) : NULL;
    x->current_init = 0; /* (server.c refuses an initialize in a batch) */
    pthread_mutex_unlock(&x->mu);
    return skip; /* cancelled before it started: not run, not answered */
}

static int batch_end(void *ctx, const struct wt_rpc_msg *e)
{
    (void)e;
    struct stdio_srv *x = ctx;
    pthread_mutex_lock(&x->mu);
    int cancelled = x->cancel;
    json_decref(x->current_id);
    x->current_id = NULL;
    pthread_mutex_unlock(&x->mu);
    return cancelled;
}

int wt_mcp_serve_stdio(struct wt_mcp_server *s, int in_fd, int out_fd)
{
    struct stdio_srv *xp = calloc(1, sizeof(*xp));
    if (!xp) {
        fprintf(stderr, "workloadtruth mcp: out of memory\n");
        return 1;
    }
    xp->s = s;
    xp->in_fd = in_fd;
    xp->out_fd = out_fd;
    pthread_mutex_init(&xp->mu, NULL);
    pthread_cond_init(&xp->cv, NULL);
    pthread_mutex_init(&xp->out_mu, NULL);
    struct wt_mcp_session sess;
    memset(&sess, 0, sizeof(sess));
    pthread_t th;
    if (pipe(xp->wake) != 0) {
        fprintf(stderr, "workloadtruth mcp: cannot make a pipe: %s\n", strerror(errno));
        pthread_mutex_destroy(&xp->mu);
        pthread_cond_destroy(&xp->cv);
        pthread_mutex_destroy(&xp->out_mu);
        free(xp);
        return 1;
    }
    fcntl(xp->wake[0], F_SETFD, FD_CLOEXEC);
    fcntl(xp->wake[1], F_SETFD, FD_CLOEXEC);
    if (pthread_create(&th, NULL, reader, xp) != 0) {
        fprintf(stderr, "workloadtruth mcp: cannot start the reader thread\n");
        close(xp->wake[0]);
        close(xp->wake[1]);
        pthread_mutex_destroy(&xp->mu);
        pthread_cond_destroy(&xp->cv);
        pthread_mutex_destroy(&xp->out_mu);
        free(xp);
        return 1;
    }
    for (;;) {
        pthread_mutex_lock(&xp->mu);
        while (!xp->head && !xp->eof)
            pthread_cond_wait(&xp->cv, &xp->mu);
        struct qitem *q = xp->head;
        if (!q) { /* end of input, queue drained */
            pthread_mutex_unlock(&xp->mu);
            break;
        }
        xp->head = q->next;
        if (!xp->head)
            xp->tail = NULL;
        xp->qlen--;
        xp->qweight -= q->m.weight;
        xp->cancel = 0;
        json_decref(xp->current_id);
        xp->current_id = q->m.kind == WT_RPC_REQUEST ? json_deep_copy(q->m.id) : NULL;
        xp->current_init =
            q->m.kind == WT_RPC_REQUEST && q->m.method && !strcmp(q->m.method, "initialize");
        xp->busy = 1;
        pthread_cond_broadcast(&xp->cv);
        pthread_mutex_unlock(&xp->mu);

        struct wt_mcp_call call = {emit, xp, &xp->cancel};
        json_t *resp = NULL;
        if (q->m.batch) {
            /* its cancels were applied when it was read (enqueue) */
            struct wt_mcp_batch_hooks hooks = {batch_begin, batch_end, NULL, xp};
            resp = wt_mcp_handle_batch(s, &sess, &q->m, &call, &hooks);
        } else {
            resp = wt_mcp_handle(s, &sess, &q->m, &call);
        }

        pthread_mutex_lock(&xp->mu);
        int cancelled = xp->cancel;
        json_decref(xp->current_id);
        xp->current_id = NULL;
        /* not busy before its answer is written: a reader that closes
         * standard output after reading it has left no work undone, and one
         * that closed it before makes the write fail */
        xp->busy = 0;
        pthread_mutex_unlock(&xp->mu);
        if (resp && !(cancelled && q->m.kind == WT_RPC_REQUEST))
            write_msg(xp, resp);
        else
            json_decref(resp);
        wt_rpc_free(&q->m);
        free(q);
        pthread_mutex_lock(&xp->out_mu);
        int failed = xp->out_failed;
        pthread_mutex_unlock(&xp->out_mu);
        if (failed)
            break;
    }
    pthread_mutex_lock(&xp->mu);
    int eof = xp->eof, gone = xp->gone;
    pthread_mutex_unlock(&xp->mu);
    while (write(xp->wake[1], "", 1) < 0 && errno == EINTR)
        ; /* the reader, once at end of input, stops watching standard output */
    pthread_mutex_lock(&xp->out_mu);
    int out_failed = xp->out_failed | gone;
    pthread_mutex_unlock(&xp->out_mu);
    if (out_failed && !eof) {
        /* stdout is gone.  The reader may be blocked in read(): leave it
         * (and xp, which it uses) to the process's exit. */
        fprintf(stderr, "workloadtruth mcp: cannot write to standard output: stopping\n");
        return 1;
    }
    pthread_join(th, NULL);
    close(xp->wake[0]);
    close(xp->wake[1]);
    pthread_mutex_lock(&xp->mu);
    while (xp->head) {
        struct qitem *q = xp->head;
        xp->head = q->next;
        wt_rpc_free(&q->m);
        free(q);
    }
    pthread_mutex_unlock(&xp->mu);
    pthread_mutex_destroy(&xp->mu);
    pthread_cond_destroy(&xp->cv);
    pthread_mutex_destroy(&xp->out_mu);
    free(xp);
    if (out_failed) {
        fprintf(stderr, "workloadtruth mcp: standard output is closed: stopping\n");
        return 1;
    }
    return 0;
}
