/* The Prometheus exporter's HTTP server (see exporter.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "export/exporter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "mcp/http.h" /* wt_mcp_http_parse_addr: the same HOST:PORT syntax */
#include "util/clock.h"

/* A slow drip keeps a connection alive past the idle timeout (libmicrohttpd
 * has no deadline for a whole request; the sweeper below adds one for the
 * headers and any body), so clients that hold connections are bounded per
 * address and in all.  A new connection past either bound makes room by
 * shutting the oldest idle one down (of its address, or of all), not by
 * being refused: a client that kept its address's 8 slots full, opening a
 * new connection as each was shut, kept every scrape from that address out
 * (127.0.0.1 is every local user's), and a missed scrape reset a pending
 * alert.  A scrape's request comes at once, so it is answered before the
 * connections opened after it reach it.  One polling thread serves them
 * all; a connection's memory pool is only touched as far as its request
 * goes. */
#define MAX_CONNECTIONS 512 /* libmicrohttpd's own limit: never reached */
#define MAX_LIVE 448        /* more live connections: the oldest idle one goes */
#define CONNECTION_TIMEOUT_S 10
#define MAX_CONNECTIONS_PER_IP 8
/* A request's headers (and any body) must all arrive within this time of the connection
 * (or of the last response on it): a client that trickles a byte now and
 * then keeps a connection past the idle timeout, and 8 of them from one
 * address (every local user's is 127.0.0.1) kept every scrape out for as
 * long as they liked.  A sweeper thread shuts such connections down. */
#define REQUEST_DEADLINE_S 10.0

struct conn { /* a connection waiting for a request's headers, or serving one */
    int fd;
    double since;  /* when it began to wait (monotonic seconds); INFINITY: shut down */
    int busy;      /* its request is whole (headers and body): being answered */
    double opened; /* when it was accepted (monotonic seconds) */
    int family;    /* its client's address (family 0: not known, never evicted for it) */
    unsigned char addr[16];
    struct conn *prev, *next;
};

static int same_client(const struct conn *a, const struct conn *b)
{
    return a->family && a->family == b->family && !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* Under e->mu, k just added: past MAX_CONNECTIONS_PER_IP live connections of
 * its address, or MAX_LIVE in all, the oldest idle one (of that address, or
 * of all) is shut down; with none idle, the one open longest if that is
 * over BUSY_EVICT_S (being answered: a client that pipelines requests and
 * reads the answers slowly kept 8 connections busy, and every scrape of its
 * address out); else k itself. */
#define BUSY_EVICT_S 1.0
static void make_room(struct conn *head, struct conn *k)
{
    double now = k->opened;
    for (int all = 0; all < 2; all++) {
        size_t live = 0;
        struct conn *oldest = NULL, *longest = NULL;
        for (struct conn *o = head; o; o = o->next) {
            if (!isfinite(o->since) || (!all && !same_client(o, k)))
                continue;
            live++;
            if (o == k)
                continue;
            if (!o->busy && (!oldest || o->since < oldest->since))
                oldest = o;
            if (o->busy && now - o->opened > BUSY_EVICT_S &&
                (!longest || o->opened < longest->opened))
                longest = o;
        }
        if (live <= (all ? (size_t)MAX_LIVE : (size_t)MAX_CONNECTIONS_PER_IP))
            continue;
        struct conn *gone = oldest ? oldest : longest ? longest : k;
        shutdown(gone->fd, SHUT_RDWR); /* libmicrohttpd then closes it */
        gone->since = INFINITY;
        if (gone == k)
            return;
    }
}

struct wt_exporter {
    struct MHD_Daemon *d;
    struct wt_metrics *m;
    int (*healthy)(void *ctx);
    void *ctx;
    volatile int quiet; /* while trying IPv6 that may be missing: its failure is no news */
    pthread_mutex_t mu; /* conns, stop */
    pthread_cond_t wake;
    struct conn *conns;
    pthread_t sweeper;
    int sweeping, stop;
};

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct wt_exporter *e = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct conn *k = ci ? calloc(1, sizeof(*k)) : NULL;
        *socket_context = k;
        if (!k)
            return; /* not swept: the idle timeout still applies */
        k->fd = ci->connect_fd;
        k->since = k->opened = wt_mono_s();
        const union MHD_ConnectionInfo *ai =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const struct sockaddr *sa = ai ? ai->client_addr : NULL;
        if (sa && sa->sa_family == AF_INET) {
            k->family = AF_INET;
            memcpy(k->addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
        } else if (sa && sa->sa_family == AF_INET6) {
            k->family = AF_INET6;
            memcpy(k->addr, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
        }
        pthread_mutex_lock(&e->mu);
        k->next = e->conns;
        if (e->conns)
            e->conns->prev = k;
        e->conns = k;
        make_room(e->conns, k);
        pthread_mutex_unlock(&e->mu);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        /* before libmicrohttpd closes the descriptor: the sweeper never
         * shuts down a number that another file has taken since */
        struct conn *k = *socket_context;
        pthread_mutex_lock(&e->mu);
        if (k->prev)
            k->prev->next = k->next;
        else
            e->conns = k->next;
        if (k->next)
            k->next->prev = k->prev;
        pthread_mutex_unlock(&e->mu);
        free(k);
        *socket_context = NULL;
    }
}

/* busy: the request's headers are in (answered now); else it was answered
 * and the connection waits for the next one */
static void conn_mark(struct wt_exporter *e, struct MHD_Connection *c, int busy)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn *k = ci ? ci->socket_context : NULL;
    if (!k)
        return;
    pthread_mutex_lock(&e->mu);
    k->busy = busy;
    if (!busy && isfinite(k->since))
        k->since = wt_mono_s();
    pthread_mutex_unlock(&e->mu);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)con_cls;
    (void)code;
    conn_mark(cls, c, 0);
}

static void *sweep(void *arg)
{
    struct wt_exporter *e = arg;
    pthread_mutex_lock(&e->mu);
    while (!e->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until); /* a step of the wall clock must not stall it */
        until.tv_sec += 1;
        pthread_cond_timedwait(&e->wake, &e->mu, &until);
        double now = wt_mono_s();
        for (struct conn *k = e->conns; k && !e->stop; k = k->next)
            if (!k->busy && now - k->since > REQUEST_DEADLINE_S) {
                shutdown(k->fd, SHUT_RDWR); /* libmicrohttpd then closes it */
                k->since = INFINITY;
            }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static void exporter_log(void *cls, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static void exporter_log(void *cls, const char *fmt, va_list ap)
{
    const struct wt_exporter *e = cls;
    if (!e->quiet)
        wt_mhd_log((void *)"workloadtruth watch", fmt, ap);
}

static const char landing[] =
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>workloadtruth exporter</title>"
    "</head><body><h1>workloadtruth</h1><p>Tells whether each GPU runs training, inference or "
    "is idle, from telemetry alone.</p><ul><li><a href=\"/metrics\">/metrics</a> (Prometheus "
    "text format 0.0.4)</li><li><a href=\"/healthz\">/healthz</a></li></ul></body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             void *body, size_t len, enum MHD_ResponseMemoryMode mode,
                             const char *allow)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
    if (!r) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status, const char *s,
                            const char *allow)
{
    return reply(c, status, "text/plain; charset=utf-8", (void *)(uintptr_t)s, strlen(s),
                 MHD_RESPMEM_PERSISTENT, allow);
}

/* The path of a request target in absolute-form ("http://host:9400/metrics"),
 * which a server must accept (RFC 9112 3.2.2): what follows the authority, "/"
 * when nothing does.  Origin-form ("/metrics") is returned as it is. */
static const char *origin_path(const char *url)
{
    const char *p;
    if (!strncasecmp(url, "http://", 7))
        p = url + 7;
    else if (!strncasecmp(url, "https://", 8))
        p = url + 8;
    else
        return url;
    p += strcspn(p, "/");
    return *p ? p : "/";
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    (void)upload;
    struct wt_exporter *e = cls;
    if (!*con_cls) { /* first call: headers only */
        *con_cls = e;
        /* a body framed two ways is a framing error (RFC 9112 6.3): a proxy
         * in front that framed it by the other header would see another
         * request (libmicrohttpd takes the first Content-Length); answered
         * on the headers, so the body is not read and the connection closes */
        unsigned cl = wt_mhd_header_count(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
        unsigned te = wt_mhd_header_count(c, MHD_HTTP_HEADER_TRANSFER_ENCODING);
        /* "Transfer-Encoding :" is not counted as one: any name that is
         * not a token is refused (RFC 9112 5.1) */
        if (cl > 1 || te > 1 || (cl && te) || wt_mhd_fields_bad(c)) {
            conn_mark(e, c, 1);
            return text(c, MHD_HTTP_BAD_REQUEST,
                        "bad request: one Content-Length or one Transfer-Encoding, not both or "
                        "two, and header names without blanks\n",
                        NULL);
        }
        /* a path or method refused is refused on the headers too: no
         * "100 Continue", and no body read to be dropped (200 MB were read
         * before a 405 or a 404) */
        const char *path = origin_path(url);
        if (strcmp(path, "/metrics") && strcmp(path, "/healthz") && strcmp(path, "/")) {
            conn_mark(e, c, 1);
            return text(c, MHD_HTTP_NOT_FOUND, "not found: see /metrics\n", NULL);
        }
        if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
            conn_mark(e, c, 1);
            return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n", "GET, HEAD");
        }
        return MHD_YES;
    }
    if (*upload_size) { /* a body is not wanted: read and drop it (still under the
                         * request's deadline: a body trickled a byte at a time
                         * held the connection as long as its client liked) */
        *upload_size = 0;
        return MHD_YES;
    }
    conn_mark(e, c, 1);               /* the request is whole: being answered */
    int get = !strcmp(method, "GET"); /* else HEAD: the rest was refused above */
    url = origin_path(url);
    if (!strcmp(url, "/healthz")) {
        int ok = !e->healthy || e->healthy(e->ctx);
        return text(c, ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
                    ok ? "ok\n"
                       : "unhealthy: the audit log is not open yet (verifying) or cannot be "
                         "written\n",
                    NULL);
    }
    if (!strcmp(url, "/"))
        return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)(uintptr_t)landing,
                     sizeof(landing) - 1, MHD_RESPMEM_PERSISTENT, NULL);
    size_t len = 0;
    if (get) /* a HEAD asks for the headers: not a scrape */
        wt_metrics_scraped(e->m);
    char *body = wt_metrics_render(e->m, &len);
    if (!body)
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", NULL);
    return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", body, len,
                 MHD_RESPMEM_MUST_FREE, NULL);
}

/* addr parsed into ss/sl (WT_EINVAL with the message when malformed) */
static int parse_listen(const char *addr, struct sockaddr_storage *ss, socklen_t *sl,
                        struct wt_err *err)
{
    int loopback;
    char msg[200], any[80];
    /* ':PORT', as node_exporter's --web.listen-address takes it: every
     * interface, IPv6 and IPv4 on one socket where the kernel has IPv6, IPv4
     * alone where it has not */
    /* not "::1:9400", an unbracketed IPv6 address (refused by the parser) */
    int all = addr[0] == ':' && addr[1] >= '0' && addr[1] <= '9';
    if (all && (snprintf(any, sizeof(any), "[::]%s", addr) >= (int)sizeof(any) ||
                wt_mcp_http_parse_addr(any, ss, sl, &loopback, msg, sizeof(msg))))
        return wt_errf(err, WT_EINVAL,
                       "--listen '%.80s': the port must be a number from 0 to 65535", addr);
    if (!all && wt_mcp_http_parse_addr(addr, ss, sl, &loopback, msg, sizeof(msg)))
        return wt_errf(err, WT_EINVAL, "--listen %s", msg);
    return WT_OK;
}

int wt_exporter_check_addr(const char *addr, struct wt_err *err)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    return parse_listen(addr, &ss, &sl, err);
}

int wt_exporter_start(struct wt_exporter **out, const char *addr, struct wt_metrics *m,
                      int (*healthy)(void *ctx), void *ctx, unsigned *port, struct wt_err *err)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    *out = NULL;
    int prc = parse_listen(addr, &ss, &sl, err);
    if (prc != WT_OK)
        return prc;
    int all = addr[0] == ':' && addr[1] >= '0' && addr[1] <= '9'; /* as parse_listen */
    struct wt_exporter *e = calloc(1, sizeof(*e));
    if (!e)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    e->m = m;
    e->healthy = healthy;
    e->ctx = ctx;
    pthread_mutex_init(&e->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->wake, &ca);
    pthread_condattr_destroy(&ca);
    /* poll(), not MHD_USE_AUTO's epoll: with epoll, libmicrohttpd 0.9.75 did
     * not see a client close a connection whose request was not whole, which
     * then held one of its address's slots until CONNECTION_TIMEOUT_S (nine
     * timed-out scrapes refused the next one); the exporter has few
     * connections, so poll's cost per connection does not matter */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG;
    if (ss.ss_family == AF_INET6)
        flags |= all ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    e->quiet = all && ss.ss_family == AF_INET6;
again:
    e->d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, e, MHD_OPTION_EXTERNAL_LOGGER, exporter_log, (void *)e,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)65536, MHD_OPTION_NOTIFY_CONNECTION,
        on_connection, (void *)e, MHD_OPTION_NOTIFY_COMPLETED, on_completed, (void *)e,
        MHD_OPTION_UNESCAPE_CALLBACK, wt_mhd_unescape, NULL, MHD_OPTION_END);
    if (!e->d && all && ss.ss_family == AF_INET6 && errno != EADDRINUSE && errno != EACCES) {
        /* no IPv6 here (ipv6.disable=1, a container without it): IPv4 only */
        struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
        uint16_t p = ((struct sockaddr_in6 *)&ss)->sin6_port;
        memset(&ss, 0, sizeof(ss));
        v4->sin_family = AF_INET;
        v4->sin_port = p;
        v4->sin_addr.s_addr = htonl(INADDR_ANY);
        flags &= ~(unsigned)MHD_USE_DUAL_STACK;
        e->quiet = 0;
        goto again;
    }
    e->quiet = 0;
    if (!e->d) {
        int saved = errno;
        pthread_cond_destroy(&e->wake);
        pthread_mutex_destroy(&e->mu);
        free(e);
        if (!saved || saved == EADDRINUSE) /* dcgm-exporter's default is 9400 too */
            return wt_errf(err, WT_EIO,
                           "--listen %s: cannot listen there: another process holds the port "
                           "(dcgm-exporter listens on :9400 by default); choose another port",
                           addr);
        return wt_errf(err, WT_EIO, "--listen %s: cannot listen there (%s)", addr, strerror(saved));
    }
    /* without the sweeper (no thread to be had) the idle timeout still holds */
    e->sweeping = pthread_create(&e->sweeper, NULL, sweep, e) == 0;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(e->d, MHD_DAEMON_INFO_BIND_PORT);
    if (port)
        *port = info ? info->port : 0;
    *out = e;
    return WT_OK;
}

void wt_exporter_stop(struct wt_exporter *e)
{
    if (!e)
        return;
    if (e->sweeping) {
        pthread_mutex_lock(&e->mu);
        e->stop = 1;
        pthread_cond_signal(&e->wake);
        pthread_mutex_unlock(&e->mu);
        pthread_join(e->sweeper, NULL);
    }
    MHD_stop_daemon(e->d);
    pthread_cond_destroy(&e->wake);
    pthread_mutex_destroy(&e->mu);
    free(e);
}
