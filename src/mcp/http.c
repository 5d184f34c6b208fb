/* The MCP Streamable HTTP transport (libmicrohttpd): one endpoint, /mcp.
 *
 * Every request is checked first against DNS rebinding (its Host, and its
 * Origin when present, must name a loopback host or one the operator
 * allowed: else 403) and then, when a token is configured, for
 * "Authorization: Bearer <token>" (else 401).  POST carries one JSON-RPC
 * message (at most WT_RPC_MAX_MESSAGE bytes: else 413).
 *
 * Two eras share the endpoint.  A message whose params carry the 2026-07-28
 * _meta protocol version is served statelessly: the MCP-Protocol-Version,
 * Mcp-Method and (for tools/call) Mcp-Name headers must repeat the body
 * (else 400 with -32020), and no session exists.  Other messages follow
 * 2025-11-25 and older: `initialize` opens a session whose id comes back in
 * Mcp-Session-Id; later requests must carry it (400 when missing, 404 when
 * unknown or ended by DELETE) and an MCP-Protocol-Version header, when
 * present, must name a version this server serves (else 400).  A request
 * that announces 2026-07-28 in its header, or a server/discover, without
 * the _meta that revision requires is invalid params (400, -32602).
 * Header values are compared without their surrounding whitespace.
 * Notifications get 202.  A JSON array (a batch) is served in a session
 * that negotiated 2025-03-26, the one revision with batches: answered with
 * an array (202 when it holds no request); elsewhere it is a 400.
 * A tools/call with a progress token, from a client that accepts
 * text/event-stream, is answered as a stream of server-sent events: the
 * progress notifications as they happen, then the response.  GET on the
 * endpoint is 405 (this server never starts a stream of its own).
 * /.well-known/agent.json serves the agent card.
 *
 * SPDX-License-Identifier: MIT
 */
#include "mcp/http.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/text.h"

#define MAX_SESSIONS 256
#define SESSION_IDLE_EVICT_S 60 /* a full table ends a session idle this long */
#define MAX_PER_ADDRESS 16      /* connections from one client address */
#define IDLE_TIMEOUT_S 30       /* a connection that sends nothing this long is closed */
/* an event stream whose tool has nothing to say sends an SSE comment this
 * often: the idle timeout counts the server's silence too (a window sampled
 * for 35 s lost its answer), and so do proxies */
#define KEEPALIVE_S 5
#define MAX_INFLIGHT 64
#define MAX_CONNECTIONS 64

struct session_slot {
    int used;
    char id[65];
    time_t last;
    struct wt_mcp_session sess;
    struct wt_mcp_cancelled cancelled; /* for batch elements not started yet */
};

struct inflight {
    int used;
    char session[65];
    json_t *id;
    atomic_int *cancel;
    int fd; /* the client's socket, watched for a hang-up (-1: not watched) */
};

struct http_srv {
    struct wt_mcp_server *s;
    const struct wt_mcp_http_config *hc;
    pthread_mutex_t mu; /* sessions and in-flight requests */
    struct session_slot sessions[MAX_SESSIONS];
    struct inflight flight[MAX_INFLIGHT];
    int stopping; /* every call from now on starts cancelled */
    /* the address bound, as a Host names it ("127.0.0.2", "[fd00::1]"), or
     * "" for a wildcard: a literal address cannot be rebound by DNS */
    char bind_host[INET6_ADDRSTRLEN + 2];
};

struct conn {
    char *body;
    size_t len, cap;
    int too_big;
    int refused; /* answered on its headers alone */
    int no_body; /* not a POST, declaring no body: answered once its (empty) body is in */
};

/* --- helpers ------------------------------------------------------------ */

/* Rate limit of wt_mhd_log: anyone who can reach the port can make a
 * message a connection (a flood of broken requests wrote a line each to the
 * journal), so each distinct message is written at most once a minute, and
 * the next time it is written it says how many times it came meanwhile; a
 * message that does not fit the table shares one "other" count. */
#define LOG_PERIOD_S 60
#define LOG_KINDS 16
static struct {
    char msg[120]; /* "" for a free slot */
    double since;  /* when it was last written */
    unsigned long held;
} log_kinds[LOG_KINDS];
static unsigned long log_other_held;
static double log_other_since;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

void wt_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[300];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (!strncmp(msg, "Failed to bind", 14))
        return; /* the caller says which address could not be had */
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    const char *who = cls ? (const char *)cls : "workloadtruth";
    double now = wt_mono_s();
    unsigned long held = 0;
    int write_it = 1, other = 0;
    pthread_mutex_lock(&log_mu);
    int slot = -1, free_slot = -1;
    for (int i = 0; i < LOG_KINDS && slot < 0; i++) {
        if (!log_kinds[i].msg[0]) {
            if (free_slot < 0)
                free_slot = i;
        } else if (!strncmp(log_kinds[i].msg, msg, sizeof(log_kinds[i].msg) - 1)) {
            slot = i;
        }
    }
    if (slot < 0 && free_slot >= 0) {
        slot = free_slot;
        snprintf(log_kinds[slot].msg, sizeof(log_kinds[slot].msg), "%.*s",
                 (int)sizeof(log_kinds[slot].msg) - 1, msg);
        log_kinds[slot].since = now;
        log_kinds[slot].held = 0;
    } else if (slot >= 0) {
        if (now - log_kinds[slot].since < LOG_PERIOD_S) {
            log_kinds[slot].held++;
            write_it = 0;
        } else {
            held = log_kinds[slot].held;
            log_kinds[slot].held = 0;
            log_kinds[slot].since = now;
        }
    } else if (log_other_since > 0 && now - log_other_since < LOG_PERIOD_S) {
        log_other_held++;
        write_it = 0;
    } else {
        held = log_other_held;
        log_other_held = 0;
        log_other_since = now;
        other = 1;
    }
    pthread_mutex_unlock(&log_mu);
    if (!write_it)
        return;
    if (held)
        fprintf(stderr, "%s: http: %s (%lu %s since it was last written, not shown)\n", who,
                wt_text_clean(msg), held, other ? "other messages" : "more like it");
    else
        fprintf(stderr, "%s: http: %s\n", who, wt_text_clean(msg));
}

static const char *header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* A header's value without the whitespace around it (RFC 9110 section 5.5:
 * a field value excludes the optional whitespace around it): its start, and
 * its length in *n. */
static const char *ows_trim(const char *value, size_t *n)
{
    while (*value == ' ' || *value == '\t')
        value++;
    *n = strlen(value);
    while (*n > 0 && (value[*n - 1] == ' ' || value[*n - 1] == '\t'))
        (*n)--;
    return value;
}

/* A header's value without the whitespace around it (RFC 9110 section 5.5;
 * libmicrohttpd keeps trailing blanks), in buf; a value too long for buf is
 * returned as it is (it then matches nothing a shorter one would). */
static const char *header_trim(struct MHD_Connection *c, const char *name, char *buf, size_t cap)
{
    const char *v = header(c, name);
    if (!v)
        return NULL;
    size_t n;
    v = ows_trim(v, &n);
    if (n >= cap)
        return v;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return buf;
}

/* The session id a request names, trimmed: valid until this thread asks
 * again (a handler runs on one thread; a stream copies it). */
static const char *session_header(struct MHD_Connection *c)
{
    static _Thread_local char buf[128];
    return header_trim(c, "Mcp-Session-Id", buf, sizeof(buf));
}

struct hcount {
    const char *name;
    unsigned n;
};

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    (void)kind;
    (void)value;
    struct hcount *h = cls;
    if (key && !strcasecmp(key, h->name))
        h->n++;
    return MHD_YES;
}

/* RFC 9110 5.6.2: a token character */
static int tchar(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static enum MHD_Result check_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                   size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    int *bad = cls;
    (void)value;
    (void)value_size; /* a NUL in a value: libmicrohttpd 0.9.75 reports it cut there */
    int ok = key && key_size > 0;
    for (size_t i = 0; ok && i < key_size; i++)
        ok = tchar((unsigned char)key[i]);
    if (!ok) {
        *bad = 1;
        return MHD_NO;
    }
    return MHD_YES;
}

int wt_mhd_fields_bad(struct MHD_Connection *c)
{
    int bad = 0;
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, check_field, &bad);
    return bad;
}

/* How many times the request carries a header (a second Host, Origin or
 * Authorization would let the check and the use read different ones). */
unsigned wt_mhd_header_count(struct MHD_Connection *c, const char *name)
{
    struct hcount h = {name, 0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &h);
    return h.n;
}

/* The path's percent-escapes decoded by libmicrohttpd's own decoder, except in
 * a path that holds "%00": a NUL would end the string the handler compares,
 * so "/metrics%00x" read as "/metrics"; such a path is left as sent, and
 * matches no endpoint (404). */
size_t wt_mhd_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    if (strstr(s, "%00"))
        return strlen(s);
    return MHD_http_unescape(s);
}

/* The media type is application/json (parameters such as charset aside). */
static int is_json_type(const char *ct)
{
    if (!ct)
        return 0;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    if (strncasecmp(ct, "application/json", 16) != 0)
        return 0;
    ct += 16;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    return *ct == '\0' || *ct == ';';
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *type,
                                 const char *body, const char *session_id, const char *allow)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body,
                                                             MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (session_id)
        MHD_add_response_header(r, "Mcp-Session-Id", session_id);
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                "Bearer realm=\"workloadtruth\"");
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static int json_refused(struct MHD_Connection *c);

/* A JSON-RPC message as the response: application/json, or, to a client
 * whose Accept lists text/event-stream and excludes JSON, a stream of that
 * one message (a 200 only: an HTTP error's body stays JSON). */
static enum MHD_Result send_json(struct MHD_Connection *c, unsigned status, json_t *msg,
                                 const char *session_id)
{
    char *text = msg ? wt_rpc_dump(msg) : NULL;
    json_decref(msg);
    if (!text)
        return send_text(c, 500, "text/plain", "out of memory\n", NULL, NULL);
    enum MHD_Result rc;
    if (status == MHD_HTTP_OK && json_refused(c)) {
        size_t n = strlen(text) + 32;
        char *ev = malloc(n);
        if (!ev) {
            free(text);
            return send_text(c, 500, "text/plain", "out of memory\n", NULL, NULL);
        }
        snprintf(ev, n, "event: message\ndata: %s\n\n", text);
        rc = send_text(c, status, "text/event-stream", ev, session_id, NULL);
        free(ev);
    } else {
        rc = send_text(c, status, "application/json", text, session_id, NULL);
    }
    free(text);
    return rc;
}

/* An HTTP error with a JSON-RPC error body. */
static enum MHD_Result send_rpc_error(struct MHD_Connection *c, unsigned status, json_t *id,
                                      int code, const char *message)
{
    return send_json(c, status, wt_rpc_error(id, code, message, NULL), NULL);
}

/* A header's value equals want, leading and trailing whitespace aside. */
static int header_is(const char *value, const char *want)
{
    size_t n;
    if (!value)
        return 0;
    value = ows_trim(value, &n);
    return n == strlen(want) && strncmp(value, want, n) == 0;
}

/* An Mcp-Name header's value equals the name want: as header_is, or, in the
 * form "=?base64?B64?=" that the SDK clients write for a name a header cannot
 * carry as it is (not ASCII, empty, blanks at an end), once B64 is decoded. */
static int name_header_is(const char *value, const char *want)
{
    static const char pre[] = "=?base64?", post[] = "?=";
    size_t n;
    if (!value)
        return 0;
    value = ows_trim(value, &n);
    size_t lp = sizeof(pre) - 1, lq = sizeof(post) - 1;
    if (n < lp + lq || strncmp(value, pre, lp) != 0 || strncmp(value + n - lq, post, lq) != 0)
        return header_is(value, want);
    size_t b64 = n - lp - lq, len = 0;
    unsigned char *bin = malloc(b64 + 1);
    int same = bin &&
               sodium_base642bin(bin, b64 + 1, value + lp, b64, NULL, &len, NULL,
                                 sodium_base64_VARIANT_ORIGINAL) == 0 &&
               len == strlen(want) && memcmp(bin, want, len) == 0;
    free(bin);
    return same;
}

static int ieq(const char *a, const char *b, size_t n)
{
    return strlen(b) == n && strncasecmp(a, b, n) == 0;
}

/* host (without port) is loopback, the address bound, or allowed */
static int host_ok(const struct http_srv *x, const char *h, size_t n)
{
    const struct wt_mcp_http_config *hc = x->hc;
    if (ieq(h, "localhost", n) || ieq(h, "127.0.0.1", n) || ieq(h, "[::1]", n) || ieq(h, "::1", n))
        return 1;
    if (x->bind_host[0] && ieq(h, x->bind_host, n))
        return 1;
    for (size_t i = 0; i < hc->nallow; i++)
        if (ieq(h, hc->allow_hosts[i], n))
            return 1;
    return 0;
}

/* "host", "host:port", "[v6]" or "[v6]:port" */
static int authority_ok(const struct http_srv *x, const char *a)
{
    size_t n;
    if (a[0] == '[') {
        const char *e = strchr(a, ']');
        if (!e)
            return 0;
        n = (size_t)(e - a) + 1;
        if (e[1] && e[1] != ':')
            return 0;
    } else {
        const char *colon = strchr(a, ':');
        n = colon ? (size_t)(colon - a) : strlen(a);
    }
    const char *port = a + n;
    if (*port == ':')
        for (port++; *port; port++)
            if (!isdigit((unsigned char)*port))
                return 0;
    return n > 0 && host_ok(x, a, n);
}

static int origin_ok(const struct http_srv *x, const char *o)
{
    const char *p = strstr(o, "://");
    if (!p || !(ieq(o, "http", (size_t)(p - o)) || ieq(o, "https", (size_t)(p - o))))
        return 0;
    p += 3;
    char auth[300];
    size_t n = strcspn(p, "/");
    if (n == 0 || n >= sizeof(auth) || (p[n] && strcmp(p + n, "/") != 0))
        return 0;
    memcpy(auth, p, n);
    auth[n] = '\0';
    return authority_ok(x, auth);
}

static int token_ok(const struct wt_mcp_http_config *hc, struct MHD_Connection *c)
{
    if (!hc->token)
        return 1;
    char buf[4200];
    const char *a = header_trim(c, MHD_HTTP_HEADER_AUTHORIZATION, buf, sizeof(buf));
    if (!a || strncasecmp(a, "Bearer ", 7) != 0)
        return 0;
    a += 7;
    while (*a == ' ')
        a++;
    size_t n = strlen(a), m = strlen(hc->token);
    return n == m && sodium_memcmp(a, hc->token, n) == 0;
}

/* Does one media range of an Accept header (e.g. "application/json;q=0.5") allow
 * TYPE?  Whole type and subtype are compared (case-insensitively), "*"
 * matches any, and a range with q=0 allows nothing (RFC 9110 12.5.1).
 * exact: only the range that names TYPE itself counts, not a wildcard. */
static int range_allows(const char *r, size_t n, const char *type, int exact)
{
    while (n && (*r == ' ' || *r == '\t'))
        r++, n--;
    size_t mlen = 0;
    while (mlen < n && r[mlen] != ';')
        mlen++;
    size_t end = mlen;
    while (end && (r[end - 1] == ' ' || r[end - 1] == '\t'))
        end--;
    /* parameters: refuse q=0, q=0.0, q=0.000 */
    for (size_t i = mlen; i < n; i++) {
        if (r[i] != ';')
            continue;
        size_t j = i + 1;
        while (j < n && (r[j] == ' ' || r[j] == '\t'))
            j++;
        if (j + 1 < n && (r[j] == 'q' || r[j] == 'Q') && r[j + 1] == '=') {
            j += 2;
            int zero = j < n && r[j] == '0';
            for (j++; zero && j < n && r[j] != ';' && r[j] != ' ' && r[j] != '\t'; j++)
                if (r[j] != '.' && r[j] != '0')
                    zero = 0;
            if (zero)
                return 0;
        }
    }
    const char *slash = strchr(type, '/');
    size_t tl = (size_t)(slash - type), sl = strlen(slash + 1);
    const char *rs = memchr(r, '/', end);
    if (!rs)
        return 0;
    size_t rtl = (size_t)(rs - r), rsl = end - rtl - 1;
    int type_any = rtl == 1 && r[0] == '*', sub_any = rsl == 1 && rs[1] == '*';
    if (exact && (type_any || sub_any))
        return 0;
    int t_ok = type_any || (rtl == tl && !strncasecmp(r, type, tl));
    int s_ok = sub_any || (rsl == sl && !strncasecmp(rs + 1, slash + 1, sl));
    return t_ok && s_ok && !(type_any && !sub_any);
}

static int accept_allows(const char *a, const char *type, int exact)
{
    while (a && *a) {
        const char *comma = strchr(a, ',');
        size_t n = comma ? (size_t)(comma - a) : strlen(a);
        if (range_allows(a, n, type, exact))
            return 1;
        a = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* Every Accept line of a request, as one list (RFC 9110 5.3: a field sent
 * on several lines is the comma-joined list; libmicrohttpd's lookup returns
 * the first line only). */
struct accept_scan {
    const char *type;
    int exact;
    unsigned lines, allowed;
};

static enum MHD_Result accept_line(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    struct accept_scan *s = cls;
    if (key && value && !strcasecmp(key, MHD_HTTP_HEADER_ACCEPT)) {
        s->lines++;
        if (accept_allows(value, s->type, s->exact))
            s->allowed = 1;
    }
    return MHD_YES;
}

static struct accept_scan accept_scan(struct MHD_Connection *c, const char *type, int exact)
{
    struct accept_scan s = {type, exact, 0, 0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, accept_line, &s);
    return s;
}

/* The client lists TYPE itself in its Accept (the streaming answer is only
 * for a client that asked for it by name, as the specification has it). */
static int accepts(struct MHD_Connection *c, const char *type)
{
    return accept_scan(c, type, 1).allowed;
}

/* A POST's Accept, when present, must allow one of the types this server
 * answers with (a missing one allows anything: curl's habit). */
static int accept_ok(struct MHD_Connection *c)
{
    struct accept_scan s = accept_scan(c, "application/json", 0);
    return !s.lines || s.allowed || accept_scan(c, "text/event-stream", 0).allowed;
}

/* The client's Accept rules JSON out and takes an event stream. */
static int json_refused(struct MHD_Connection *c)
{
    struct accept_scan s = accept_scan(c, "application/json", 0);
    return s.lines && !s.allowed && accept_scan(c, "text/event-stream", 0).allowed;
}

/* --- sessions and in-flight requests ---------------------------------------- */

static struct session_slot *session_find(struct http_srv *x, const char *id)
{
    for (int i = 0; i < MAX_SESSIONS; i++)
        if (x->sessions[i].used && !strcmp(x->sessions[i].id, id))
            return &x->sessions[i];
    return NULL;
}

static time_t now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}

/* Has session ID a request running (x->mu held)? */
static int session_busy(const struct http_srv *x, const char *id)
{
    for (int i = 0; i < MAX_INFLIGHT; i++)
        if (x->flight[i].used && !strcmp(x->flight[i].session, id))
            return 1;
    return 0;
}

/* A new session.  When all are taken, the least recently used one is ended
 * if it has been idle for SESSION_IDLE_EVICT_S and has no request running
 * (its last use counts from when its last request ended); else NULL (a
 * flood of initialize requests cannot end sessions in use). */
static struct session_slot *session_new(struct http_srv *x)
{
    struct session_slot *slot = NULL;
    for (int i = 0; i < MAX_SESSIONS && !slot; i++)
        if (!x->sessions[i].used)
            slot = &x->sessions[i];
    if (!slot) {
        for (int i = 0; i < MAX_SESSIONS; i++)
            if (!session_busy(x, x->sessions[i].id) && (!slot || x->sessions[i].last < slot->last))
                slot = &x->sessions[i];
        if (!slot || now_s() - slot->last < SESSION_IDLE_EVICT_S)
            return NULL;
    }
    memset(slot, 0, sizeof(*slot));
    unsigned char rnd[24];
    randombytes_buf(rnd, sizeof(rnd));
    sodium_bin2hex(slot->id, sizeof(slot->id), rnd, sizeof(rnd));
    slot->used = 1;
    slot->last = now_s();
    return slot;
}

/* The socket of connection c, to watch for the client hanging up; -1 when
 * unknown. */
static int conn_fd(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        c ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD) : NULL;
    return ci ? ci->connect_fd : -1;
}

/* Why a call's cancel flag is set: its client sent notifications/cancelled
 * (no answer is due), or the server stops or the client seems gone (the
 * answer, "cancelled", still goes out). */
#define CANCEL_BY_CLIENT 1
#define CANCEL_STOP 2

static struct inflight *flight_add(struct http_srv *x, const char *session, json_t *id,
                                   atomic_int *cancel, int fd)
{
    pthread_mutex_lock(&x->mu);
    struct inflight *f = NULL;
    for (int i = 0; i < MAX_INFLIGHT && !f; i++)
        if (!x->flight[i].used)
            f = &x->flight[i];
    if (f) {
        f->used = 1;
        snprintf(f->session, sizeof(f->session), "%s", session ? session : "");
        f->id = json_deep_copy(id);
        f->cancel = cancel;
        f->fd = fd;
    }
    if (x->stopping && !*cancel) /* a batch's next element, after a stop */
        *cancel = CANCEL_STOP;
    pthread_mutex_unlock(&x->mu);
    return f;
}

/* Whether the client of a call has closed its connection.  (The handler
 * running the call is busy, so nothing else reads the socket; a peek at end
 * of file tells a close from a pipelined request.) */
static int client_gone(int fd)
{
    if (fd < 0)
        return 0;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    if (poll(&pfd, 1, 0) <= 0)
        return 0;
    char b;
    return (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) ||
           ((pfd.revents & POLLIN) && recv(fd, &b, 1, MSG_PEEK) == 0);
}

/* A call whose client has gone is cancelled: nobody would read its answer,
 * and a live sampling holds the tools' lock meanwhile. */
static void flight_watch_clients(struct http_srv *x)
{
    pthread_mutex_lock(&x->mu);
    for (int i = 0; i < MAX_INFLIGHT; i++) {
        struct inflight *f = &x->flight[i];
        if (f->used && !*f->cancel && client_gone(f->fd))
            *f->cancel = CANCEL_STOP;
    }
    pthread_mutex_unlock(&x->mu);
}

static void flight_remove(struct http_srv *x, struct inflight *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&x->mu);
    struct session_slot *slot = f->session[0] ? session_find(x, f->session) : NULL;
    if (slot) /* a long call is use too: idle counts from its end */
        slot->last = now_s();
    json_decref(f->id);
    memset(f, 0, sizeof(*f));
    pthread_mutex_unlock(&x->mu);
}

static void flight_cancel(struct http_srv *x, const char *session, const json_t *id)
{
    if (!id)
        return;
    pthread_mutex_lock(&x->mu);
    for (int i = 0; i < MAX_INFLIGHT; i++) {
        struct inflight *f = &x->flight[i];
        if (f->used && !strcmp(f->session, session ? session : "") && json_equal(f->id, id))
            *f->cancel = CANCEL_BY_CLIENT;
    }
    struct session_slot *slot = session && *session ? session_find(x, session) : NULL;
    if (slot)
        wt_mcp_cancelled_add(&slot->cancelled, id);
    pthread_mutex_unlock(&x->mu);
}

/* --- streamed (SSE) responses ------------------------------------------------ */

struct stream {
    struct http_srv *x;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *buf;
    size_t len, off, cap;
    int done;
    atomic_int cancel;
    struct wt_rpc_msg m;
    struct wt_mcp_session sess;
    char session[65];
    struct inflight *flight;
    pthread_t th;
};

static void stream_push(struct stream *st, json_t *msg)
{
    char *text = msg ? wt_rpc_dump(msg) : NULL;
    json_decref(msg);
    if (!text)
        return;
    size_t n = strlen(text) + 32;
    pthread_mutex_lock(&st->mu);
    if (st->off > 0) { /* what the client has read goes: a long call's
                          notifications are held only until sent */
        memmove(st->buf, st->buf + st->off, st->len - st->off);
        st->len -= st->off;
        st->off = 0;
    }
    if (st->len + n > st->cap) {
        size_t ncap = st->cap ? st->cap : 4096;
        while (ncap < st->len + n)
            ncap *= 2;
        char *nb = realloc(st->buf, ncap);
        if (!nb) {
            pthread_mutex_unlock(&st->mu);
            free(text);
            return;
        }
        st->buf = nb;
        st->cap = ncap;
    }
    st->len += (size_t)snprintf(st->buf + st->len, st->cap - st->len,
                                "event: message\ndata: %s\n\n", text);
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    free(text);
}

static void stream_emit(void *ctx, json_t *notification)
{
    stream_push(ctx, notification);
}

static void *stream_run(void *arg)
{
    struct stream *st = arg;
    struct wt_mcp_call call = {stream_emit, st, &st->cancel};
    json_t *resp = wt_mcp_handle(st->x->s, &st->sess, &st->m, &call);
    /* a call the client cancelled in its session gets no answer; one
     * stopped by the server (or whose client seems gone) does, as over a
     * plain response, and so does a 2026-07-28 one (no session: the cancel
     * may be another client's, which uses the same id) */
    if (resp && (st->cancel != CANCEL_BY_CLIENT || !st->session[0]))
        stream_push(st, resp);
    else
        json_decref(resp);
    pthread_mutex_lock(&st->mu);
    st->done = 1;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct stream *st = cls;
    pthread_mutex_lock(&st->mu);
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += KEEPALIVE_S;
    int waited = 0;
    while (st->off == st->len && !st->done && waited != ETIMEDOUT)
        waited = pthread_cond_timedwait(&st->cv, &st->mu, &until);
    ssize_t n;
    static const char keepalive[] = ":\n\n"; /* a comment: clients skip it */
    if (st->off == st->len && !st->done && max >= sizeof(keepalive) - 1) {
        memcpy(buf, keepalive, sizeof(keepalive) - 1);
        n = (ssize_t)(sizeof(keepalive) - 1);
    } else if (st->off < st->len) {
        size_t k = st->len - st->off < max ? st->len - st->off : max;
        memcpy(buf, st->buf + st->off, k);
        st->off += k;
        n = (ssize_t)k;
    } else {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    }
    pthread_mutex_unlock(&st->mu);
    return n;
}

static void stream_free(void *cls)
{
    struct stream *st = cls;
    /* under x->mu: the main thread's flight_watch_clients and the stop, and
     * flight_cancel on other connections, read and set this flag under it */
    pthread_mutex_lock(&st->x->mu);
    if (!st->cancel) /* the client may have gone (a cancel of its own stays one) */
        st->cancel = CANCEL_STOP;
    pthread_mutex_unlock(&st->x->mu);
    pthread_join(st->th, NULL);
    flight_remove(st->x, st->flight);
    wt_rpc_free(&st->m);
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->cv);
    free(st->buf);
    free(st);
}

/* Takes over m. */
static enum MHD_Result send_stream(struct http_srv *x, struct MHD_Connection *c,
                                   struct wt_rpc_msg *m, const struct wt_mcp_session *sess,
                                   const char *session_id)
{
    struct stream *st = calloc(1, sizeof(*st));
    if (!st) {
        wt_rpc_free(m);
        return send_text(c, 500, "text/plain", "out of memory\n", NULL, NULL);
    }
    st->x = x;
    st->m = *m;
    memset(m, 0, sizeof(*m));
    st->sess = *sess;
    snprintf(st->session, sizeof(st->session), "%s", session_id ? session_id : "");
    pthread_mutex_init(&st->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* a clock step must not stall a stream */
    pthread_cond_init(&st->cv, &ca);
    pthread_condattr_destroy(&ca);
    /* the handler waits in stream_read, so nothing else reads the socket: a
     * client that hangs up is seen as for a plain call */
    st->flight = flight_add(x, st->session, st->m.id, &st->cancel, conn_fd(c));
    if (pthread_create(&st->th, NULL, stream_run, st) != 0) {
        flight_remove(x, st->flight);
        wt_rpc_free(&st->m);
        free(st);
        return send_text(c, 500, "text/plain", "cannot start a thread\n", NULL, NULL);
    }
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, st, stream_free);
    if (!r) {
        stream_free(st);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (session_id)
        MHD_add_response_header(r, "Mcp-Session-Id", session_id);
    enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}

/* --- one POST ------------------------------------------------------------------ */

static unsigned status_for(const json_t *resp)
{
    json_t *e = json_object_get(resp, "error");
    if (!e)
        return MHD_HTTP_OK;
    switch ((int)json_integer_value(json_object_get(e, "code"))) {
    case WT_RPC_METHOD_NOT_FOUND:
        return MHD_HTTP_NOT_FOUND;
    case WT_RPC_INTERNAL_ERROR:
        return MHD_HTTP_INTERNAL_SERVER_ERROR;
    default:
        return MHD_HTTP_BAD_REQUEST;
    }
}

static int has_progress_token(const struct wt_rpc_msg *m)
{
    json_t *meta = m->params ? json_object_get(m->params, "_meta") : NULL;
    return json_is_object(meta) && json_object_get(meta, "progressToken") != NULL;
}

/* Runs a request synchronously (or as a stream) and answers it.  A JSON-RPC
 * error gets the HTTP status of 2026-07-28 (status_for) in that era; in a
 * legacy session it gets 200, as any other response: there an HTTP error
 * means the transport refused the message, and 404 that the session is
 * gone (the client would start a new one). */
static enum MHD_Result run_request(struct http_srv *x, struct MHD_Connection *c,
                                   struct wt_rpc_msg *m, struct wt_mcp_session *sess,
                                   const char *session_id)
{
    if (m->kind == WT_RPC_REQUEST && !strcmp(m->method, "tools/call") && has_progress_token(m) &&
        accepts(c, "text/event-stream")) {
        /* a request refused before any tool runs gets its HTTP status (a
         * client falls back to an older revision on a 4xx), not a stream */
        json_t *refused = wt_mcp_precheck(x->s, m);
        if (refused)
            return send_json(c, session_id ? MHD_HTTP_OK : status_for(refused), refused,
                             session_id);
        return send_stream(x, c, m, sess, session_id);
    }
    atomic_int cancel = 0;
    struct inflight *f = flight_add(x, session_id, m->id, &cancel, conn_fd(c));
    struct wt_mcp_call call = {NULL, NULL, &cancel};
    json_t *resp = wt_mcp_handle(x->s, sess, m, &call);
    flight_remove(x, f);
    if (resp && session_id && atomic_load(&cancel) == CANCEL_BY_CLIENT &&
        accepts(c, "text/event-stream")) {
        /* its client cancelled it (in its session): MCP asks for no answer
         * (the SDK clients report one for a forgotten id as an error), and
         * HTTP needs a response, so it is an event stream that ends without
         * a message, as a streamed call's does. A client that takes JSON
         * only still gets "cancelled", and so does a 2026-07-28 request:
         * without a session, a cancel names an id any client may use, so
         * it may be another client's, which must not be left unanswered */
        json_decref(resp);
        return send_text(c, MHD_HTTP_OK, "text/event-stream", "", session_id, NULL);
    }
    if (!resp)
        return send_text(c, MHD_HTTP_ACCEPTED, "text/plain", "", session_id, NULL);
    return send_json(c, session_id ? MHD_HTTP_OK : status_for(resp), resp, session_id);
}

static enum MHD_Result handle_modern(struct http_srv *x, struct MHD_Connection *c,
                                     struct wt_rpc_msg *m, const char *version)
{
    const char *hv = header(c, "MCP-Protocol-Version");
    const char *hm = header(c, "Mcp-Method");
    char why[200] = "";
    if (!version) /* not a string: invalid params (400), not a header mismatch */
        return send_rpc_error(c, MHD_HTTP_BAD_REQUEST, m->id, WT_RPC_INVALID_PARAMS,
                              "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] "
                              "must be a string");
    if (m->kind == WT_RPC_NOTIFICATION && !hv && !hm) {
        /* the standard headers are required on requests; a notification
         * sent without them is taken (the SDK's clients send them on
         * requests only); one that sends them must send them right */
    } else if (!header_is(hv, version))
        snprintf(why, sizeof(why),
                 "the MCP-Protocol-Version header (%.40s) differs from "
                 "_meta's protocol version",
                 hv ? hv : "missing");
    else if (!header_is(hm, m->method))
        snprintf(why, sizeof(why), "the Mcp-Method header (%.60s) differs from the method",
                 hm ? hm : "missing");
    else if (!strcmp(m->method, "tools/call")) {
        const char *hn = header(c, "Mcp-Name");
        json_t *name = json_object_get(m->params, "name");
        /* without a string name the server's -32602 says what is wrong */
        if (json_is_string(name) && !name_header_is(hn, json_string_value(name)))
            snprintf(why, sizeof(why), "the Mcp-Name header (%.60s) differs from the tool name",
                     hn ? hn : "missing");
    }
    if (why[0]) {
        char msg[260];
        snprintf(msg, sizeof(msg), "Header mismatch: %s", why);
        return send_rpc_error(c, MHD_HTTP_BAD_REQUEST, m->id, WT_RPC_HEADER_MISMATCH, msg);
    }
    if (m->kind == WT_RPC_NOTIFICATION) {
        if (!strcmp(m->method, "notifications/cancelled"))
            flight_cancel(x, "", json_object_get(m->params, "requestId"));
        return send_text(c, MHD_HTTP_ACCEPTED, "text/plain", "", NULL, NULL);
    }
    struct wt_mcp_session none;
    memset(&none, 0, sizeof(none));
    return run_request(x, c, m, &none, NULL);
}

/* The legacy session a request names (Mcp-Session-Id), with its state in
 * *sess and its id in *sid.  Returns 0 when there is none, or its
 * MCP-Protocol-Version header names a version this server does not serve,
 * after answering (*rc). */
static int session_of(struct http_srv *x, struct MHD_Connection *c, const struct wt_rpc_msg *m,
                      const char **sid, struct wt_mcp_session *sess, enum MHD_Result *rc)
{
    *sid = session_header(c);
    if (!*sid) {
        *rc = send_rpc_error(c, MHD_HTTP_BAD_REQUEST, m->id, WT_RPC_INVALID_REQUEST,
                             "Bad Request: no Mcp-Session-Id header (send initialize first, "
                             "or use protocol version 2026-07-28 with _meta)");
        return 0;
    }
    pthread_mutex_lock(&x->mu);
    struct session_slot *slot = session_find(x, *sid);
    if (slot) {
        slot->last = now_s();
        *sess = slot->sess;
    }
    pthread_mutex_unlock(&x->mu);
    if (!slot) {
        *rc = send_rpc_error(c, MHD_HTTP_NOT_FOUND, m->id, WT_RPC_INVALID_REQUEST,
                             "Session not found: initialize again");
        return 0;
    }
    /* the header must name a version this server serves (2025-11-25: "an
     * invalid or unsupported MCP-Protocol-Version" is a 400); the session
     * keeps the negotiated one.  Not necessarily the negotiated one, though
     * the client "MUST" send that: the SDK's reference server accepts any
     * version it supports, and conformance 0.1.16's multiple-streams check
     * sends 2025-03-26 in a session of 2025-11-25 (measured: refused, it
     * failed) */
    const char *hv = header(c, "MCP-Protocol-Version");
    if (hv) {
        int known = 0;
        for (int i = 0; wt_mcp_legacy_versions[i]; i++)
            known |= header_is(hv, wt_mcp_legacy_versions[i]);
        if (!known) {
            char msg[200];
            snprintf(msg, sizeof(msg),
                     "Bad Request: unsupported MCP-Protocol-Version %.40s (this session "
                     "negotiated %s)",
                     hv, sess->version);
            *rc = send_rpc_error(c, MHD_HTTP_BAD_REQUEST, m->id, WT_RPC_INVALID_REQUEST, msg);
            return 0;
        }
    }
    return 1;
}

/* Saves a session's state after a notification changed it (the session may
 * have ended meanwhile). */
static void session_store(struct http_srv *x, const char *sid, const struct wt_mcp_session *sess)
{
    pthread_mutex_lock(&x->mu);
    struct session_slot *slot = session_find(x, sid);
    if (slot)
        slot->sess = *sess;
    pthread_mutex_unlock(&x->mu);
}

static enum MHD_Result handle_legacy(struct http_srv *x, struct MHD_Connection *c,
                                     struct wt_rpc_msg *m)
{
    if (m->kind == WT_RPC_REQUEST && !strcmp(m->method, "initialize")) {
        struct wt_mcp_session sess;
        memset(&sess, 0, sizeof(sess));
        struct wt_mcp_call call = {0};
        json_t *resp = wt_mcp_handle(x->s, &sess, m, &call);
        if (!sess.negotiated)
            return send_json(c, status_for(resp), resp, NULL);
        pthread_mutex_lock(&x->mu);
        struct session_slot *slot = session_new(x);
        if (!slot) {
            pthread_mutex_unlock(&x->mu);
            json_decref(resp);
            return send_rpc_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, m->id, WT_RPC_INVALID_REQUEST,
                                  "Service Unavailable: 256 sessions in use, none idle for 60 s "
                                  "(end yours with DELETE)");
        }
        slot->sess = sess;
        char id[65];
        snprintf(id, sizeof(id), "%s", slot->id);
        pthread_mutex_unlock(&x->mu);
        return send_json(c, MHD_HTTP_OK, resp, id);
    }
    const char *sid;
    struct wt_mcp_session sess;
    enum MHD_Result rc;
    if (!session_of(x, c, m, &sid, &sess, &rc))
        return rc;
    if (m->kind != WT_RPC_REQUEST) {
        if (m->kind == WT_RPC_NOTIFICATION && !strcmp(m->method, "notifications/cancelled"))
            flight_cancel(x, sid, json_object_get(m->params, "requestId"));
        else if (m->kind == WT_RPC_NOTIFICATION) {
            struct wt_mcp_call call = {0};
            json_decref(wt_mcp_handle(x->s, &sess, m, &call));
            session_store(x, sid, &sess);
        }
        return send_text(c, MHD_HTTP_ACCEPTED, "text/plain", "", NULL, NULL);
    }
    return run_request(x, c, m, &sess, sid);
}

/* A batch's elements, each tracked while it runs so that a
 * notifications/cancelled can stop it. */
struct batch_ctx {
    struct http_srv *x;
    const char *sid;
    atomic_int cancel;
    struct inflight *f;
    int fd;
};

static int batch_begin(void *ctx, const struct wt_rpc_msg *e)
{
    struct batch_ctx *b = ctx;
    int cancelled = 0;
    if (e->kind == WT_RPC_REQUEST) {
        pthread_mutex_lock(&b->x->mu);
        struct session_slot *slot = session_find(b->x, b->sid);
        cancelled = slot && wt_mcp_cancelled_has(&slot->cancelled, e->id);
        pthread_mutex_unlock(&b->x->mu);
    }
    /* cancelled before it started: it starts cancelled (a live sampling
     * ends at once), and is answered, as every request over HTTP */
    b->cancel = cancelled            ? CANCEL_BY_CLIENT
                : client_gone(b->fd) ? CANCEL_STOP /* the rest of a batch nobody reads */
                                     : 0;
    b->f = e->kind == WT_RPC_REQUEST ? flight_add(b->x, b->sid, e->id, &b->cancel, b->fd) : NULL;
    return 0;
}

/* Over HTTP a cancelled request is still answered (as run_request does): a
 * POST that carries requests gets a body. */
static int batch_end(void *ctx, const struct wt_rpc_msg *e)
{
    (void)e;
    struct batch_ctx *b = ctx;
    flight_remove(b->x, b->f);
    b->f = NULL;
    return 0;
}

static void batch_cancel(void *ctx, const json_t *id)
{
    struct batch_ctx *b = ctx;
    flight_cancel(b->x, b->sid, id);
}

/* A JSON array: served in a session that negotiated 2025-03-26 (answered
 * with an array, or 202 when it holds no request); elsewhere 400. */
static enum MHD_Result handle_batch(struct http_srv *x, struct MHD_Connection *c,
                                    struct wt_rpc_msg *m)
{
    const char *sid;
    struct wt_mcp_session sess;
    enum MHD_Result rc;
    if (!header(c, "Mcp-Session-Id"))
        return send_rpc_error(c, MHD_HTTP_BAD_REQUEST, NULL, WT_RPC_INVALID_REQUEST,
                              "Invalid Request: no Mcp-Session-Id header (batches are accepted "
                              "only in a session that negotiated protocol version 2025-03-26)");
    if (!session_of(x, c, m, &sid, &sess, &rc))
        return rc;
    if (!wt_mcp_batch_allowed(&sess)) {
        char msg[240];
        snprintf(msg, sizeof(msg),
                 "Invalid Request: batches are accepted only in a session that negotiated "
                 "protocol version 2025-03-26 (this one negotiated %s)",
                 sess.version);
        return send_rpc_error(c, MHD_HTTP_BAD_REQUEST, NULL, WT_RPC_INVALID_REQUEST, msg);
    }
    struct batch_ctx b = {x, sid, 0, NULL, conn_fd(c)};
    struct wt_mcp_call call = {NULL, NULL, &b.cancel};
    struct wt_mcp_batch_hooks hooks = {batch_begin, batch_end, batch_cancel, &b};
    json_t *resp = wt_mcp_handle_batch(x->s, &sess, m, &call, &hooks);
    session_store(x, sid, &sess);
    if (!resp)
        return send_text(c, MHD_HTTP_ACCEPTED, "text/plain", "", NULL, NULL);
    return send_json(c, MHD_HTTP_OK, resp, sid);
}

static enum MHD_Result handle_post(struct http_srv *x, struct MHD_Connection *c, struct conn *k)
{
    if (k->too_big) {
        char msg[120];
        snprintf(msg, sizeof(msg), "Request too large: the limit is %d bytes", WT_RPC_MAX_MESSAGE);
        return send_rpc_error(c, 413, NULL, WT_RPC_INVALID_REQUEST, msg);
    }
    if (!is_json_type(header(c, MHD_HTTP_HEADER_CONTENT_TYPE)))
        return send_rpc_error(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL, WT_RPC_INVALID_REQUEST,
                              "Unsupported Media Type: POST application/json");
    if (!accept_ok(c))
        return send_rpc_error(c, MHD_HTTP_NOT_ACCEPTABLE, NULL, WT_RPC_INVALID_REQUEST,
                              "Not Acceptable: Accept must allow application/json or "
                              "text/event-stream");
    struct wt_rpc_msg m;
    wt_rpc_parse(k->body ? k->body : "", k->len, &m);
    enum MHD_Result rc;
    const char *version = NULL;
    if (m.batch)
        rc = handle_batch(x, c, &m);
    else if (m.kind == WT_RPC_INVALID)
        rc = send_rpc_error(c, MHD_HTTP_BAD_REQUEST, m.id, m.error_code, m.error_message);
    else if (m.kind == WT_RPC_RESPONSE)
        rc = send_text(c, MHD_HTTP_ACCEPTED, "text/plain", "", NULL, NULL);
    else if (wt_mcp_is_modern(&m, &version))
        rc = handle_modern(x, c, &m, version);
    else if (m.kind == WT_RPC_REQUEST && strcmp(m.method, "initialize") != 0 &&
             (header_is(header(c, "MCP-Protocol-Version"), WT_MCP_MODERN_VERSION) ||
              !strcmp(m.method, "server/discover")))
        /* a 2026-07-28 request (by its header, or server/discover, which
         * only that revision has) without the _meta it requires: invalid
         * params, not a legacy request without a session (initialize
         * without _meta always starts a legacy session) */
        rc = send_rpc_error(c, MHD_HTTP_BAD_REQUEST, m.id, WT_RPC_INVALID_PARAMS,
                            "Invalid params: a 2026-07-28 request needs "
                            "_meta[\"io.modelcontextprotocol/protocolVersion\"] and "
                            "_meta[\"io.modelcontextprotocol/clientCapabilities\"]");
    else
        rc = handle_legacy(x, c, &m);
    wt_rpc_free(&m);
    return rc;
}

/* What is checked on the headers alone: where the request comes from (Host,
 * Origin), its path, its token, and a declared body over the limit.  Sets
 * *refused and answers when one fails; otherwise returns MHD_YES. */
static enum MHD_Result refuse(struct http_srv *x, struct MHD_Connection *c, const char *url,
                              const char *method, int *refused)
{
    char hbuf[300], obuf[300];
    *refused = 1;
    /* a name with a blank before its colon (RFC 9112 5.1: 400) is kept by
     * libmicrohttpd as another name ("Transfer-Encoding "), which the once-each
     * and framing checks below did not count */
    if (wt_mhd_fields_bad(c))
        return send_text(c, MHD_HTTP_BAD_REQUEST, "text/plain",
                         "Bad Request: a header name that is not a token (a blank before its "
                         "colon?)\n",
                         NULL, NULL);
    /* the session, version, method and tool name headers too: the lookup
     * reads the first line only, so a second would be ignored unseen (and a
     * gateway that read another would route or authorize another call) */
    if (wt_mhd_header_count(c, MHD_HTTP_HEADER_HOST) > 1 || wt_mhd_header_count(c, "Origin") > 1 ||
        wt_mhd_header_count(c, MHD_HTTP_HEADER_AUTHORIZATION) > 1 ||
        wt_mhd_header_count(c, "Mcp-Session-Id") > 1 ||
        wt_mhd_header_count(c, "MCP-Protocol-Version") > 1 ||
        wt_mhd_header_count(c, "Mcp-Method") > 1 || wt_mhd_header_count(c, "Mcp-Name") > 1)
        return send_text(c, MHD_HTTP_BAD_REQUEST, "text/plain",
                         "Bad Request: Host, Origin, Authorization, Mcp-Session-Id, "
                         "MCP-Protocol-Version, Mcp-Method and Mcp-Name may appear once each\n",
                         NULL, NULL);
    /* a body framed two ways is a framing error (RFC 9112 6.3): a proxy in
     * front that framed it by the other header would see another request
     * (libmicrohttpd took the first Content-Length) */
    if (wt_mhd_header_count(c, MHD_HTTP_HEADER_CONTENT_LENGTH) > 1 ||
        wt_mhd_header_count(c, MHD_HTTP_HEADER_TRANSFER_ENCODING) > 1 ||
        (wt_mhd_header_count(c, MHD_HTTP_HEADER_CONTENT_LENGTH) &&
         wt_mhd_header_count(c, MHD_HTTP_HEADER_TRANSFER_ENCODING)))
        return send_text(c, MHD_HTTP_BAD_REQUEST, "text/plain",
                         "Bad Request: one Content-Length or one Transfer-Encoding, not both or "
                         "two\n",
                         NULL, NULL);
    const char *host = header_trim(c, MHD_HTTP_HEADER_HOST, hbuf, sizeof(hbuf));
    const char *origin = header_trim(c, "Origin", obuf, sizeof(obuf));
    if (!host || !authority_ok(x, host))
        return send_text(c, MHD_HTTP_FORBIDDEN, "text/plain",
                         "Forbidden: Host is not this server's (DNS rebinding protection; see "
                         "--allow-host)\n",
                         NULL, NULL);
    if (origin && !origin_ok(x, origin))
        return send_text(c, MHD_HTTP_FORBIDDEN, "text/plain",
                         "Forbidden: Origin not allowed (see --allow-host)\n", NULL, NULL);
    if (!strcmp(url, "/.well-known/agent.json") && strcmp(method, "GET") &&
        strcmp(method, "HEAD")) /* refused on its headers: its body is not read */
        return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "Method Not Allowed\n", NULL,
                         "GET, HEAD");
    if (strcmp(url, "/.well-known/agent.json") != 0) {
        if (strcmp(url, "/mcp") != 0)
            return send_text(c, MHD_HTTP_NOT_FOUND, "text/plain",
                             "Not Found: the endpoint is /mcp\n", NULL, NULL);
        if (!token_ok(x->hc, c))
            return send_text(c, MHD_HTTP_UNAUTHORIZED, "text/plain",
                             "Unauthorized: send Authorization: Bearer <token>\n", NULL, NULL);
        const char *cl = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && !strcmp(method, "POST")) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(cl, &end, 10);
            if (end != cl && (errno == ERANGE || n > WT_RPC_MAX_MESSAGE)) {
                char msg[120];
                snprintf(msg, sizeof(msg), "Request too large: the limit is %d bytes",
                         WT_RPC_MAX_MESSAGE);
                return send_rpc_error(c, 413, NULL, WT_RPC_INVALID_REQUEST, msg);
            }
        }
    }
    *refused = 0;
    return MHD_YES;
}

/* A request that carries no message (GET or HEAD of the agent card, DELETE,
 * any other method): answered on its headers, so that a body it declares is
 * never read (an unauthenticated client could otherwise make the server read
 * an endless body to /.well-known/agent.json, and hold 4 MiB per connection). */
static enum MHD_Result answer_no_body(struct http_srv *x, struct MHD_Connection *c, const char *url,
                                      const char *method)
{
    if (!strcmp(url, "/.well-known/agent.json")) {
        json_t *card = wt_mcp_agent_card(x->s);
        char *text = card ? json_dumps(card, JSON_INDENT(2)) : NULL;
        json_decref(card);
        enum MHD_Result rc =
            text ? send_text(c, MHD_HTTP_OK, "application/json", text, NULL, NULL) : MHD_NO;
        free(text);
        return rc;
    }
    if (!strcmp(method, "DELETE")) {
        const char *sid = session_header(c);
        if (!sid)
            return send_text(c, MHD_HTTP_BAD_REQUEST, "text/plain",
                             "Bad Request: no Mcp-Session-Id header\n", NULL, NULL);
        pthread_mutex_lock(&x->mu);
        struct session_slot *slot = session_find(x, sid);
        if (slot)
            memset(slot, 0, sizeof(*slot));
        pthread_mutex_unlock(&x->mu);
        return slot ? send_text(c, MHD_HTTP_OK, "text/plain", "", NULL, NULL)
                    : send_text(c, MHD_HTTP_NOT_FOUND, "text/plain", "Session not found\n", NULL,
                                NULL);
    }
    return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
                     "Method Not Allowed: POST messages to /mcp (this server opens no GET "
                     "stream)\n",
                     NULL, "POST, DELETE");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    struct http_srv *x = cls;
    struct conn *k = *con_cls;
    if (!k) {
        k = calloc(1, sizeof(*k));
        if (!k)
            return MHD_NO;
        *con_cls = k;
        /* the headers are in: a request refused for where it comes from, its
         * token or its size is answered now, before its body is read (or
         * "100 Continue" invites one) */
        enum MHD_Result rc = refuse(x, c, url, method, &k->refused);
        if (k->refused || !strcmp(method, "POST"))
            return rc;
        /* a body it declares is never read: answered now (libmicrohttpd
         * then closes the connection).  Without one, answered on the next
         * call, which comes at once: answered on the headers' call,
         * libmicrohttpd closed every connection (no keep-alive) */
        const char *cl = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (header(c, MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
            (cl && strspn(cl, " \t0") != strlen(cl))) {
            k->refused = 1; /* its body is dropped unread */
            return answer_no_body(x, c, url, method);
        }
        k->no_body = 1;
        return MHD_YES;
    }
    if (k->no_body) { /* (no body comes: none was declared) */
        if (*upload_size) {
            *upload_size = 0;
            return MHD_YES;
        }
        return answer_no_body(x, c, url, method);
    }
    if (k->refused) { /* answered already: a body is dropped */
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (k->too_big || k->len + n > WT_RPC_MAX_MESSAGE) {
            /* a body of no declared length (chunked) past the limit: the
             * connection is closed (libmicrohttpd cannot answer in the middle
             * of a body, and reading it to its end let a client send for ever) */
            k->too_big = 1;
            return MHD_NO;
        }
        if (k->len + n + 1 > k->cap) {
            size_t ncap = k->cap ? k->cap : 4096;
            while (ncap < k->len + n + 1)
                ncap *= 2;
            char *nb = realloc(k->body, ncap);
            if (!nb)
                return MHD_NO;
            k->body = nb;
            k->cap = ncap;
        }
        memcpy(k->body + k->len, upload, n);
        k->len += n;
        return MHD_YES;
    }
    /* the whole request is in (refuse() let its headers through) */
    return handle_post(x, c, k);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    struct conn *k = *con_cls;
    if (k) {
        free(k->body);
        free(k);
        *con_cls = NULL;
    }
}

/* --- the daemon ---------------------------------------------------------------- */

static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len, int *loopback,
                      char *msg, size_t cap);

int wt_mcp_http_parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len,
                           int *loopback, char *msg, size_t cap)
{
    int rc = parse_addr(addr, ss, len, loopback, msg, cap);
    /* the address is echoed: a control character in it shows as '?' (a
     * newline forged a line of its own) */
    if (rc)
        for (char *c = msg; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
    return rc;
}

static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len, int *loopback,
                      char *msg, size_t cap)
{
    char host[128];
    const char *port;
    memset(ss, 0, sizeof(*ss));
    if (addr[0] == '[') {
        const char *e = strchr(addr, ']');
        if (!e || e[1] != ':' || (size_t)(e - addr - 1) >= sizeof(host)) {
            snprintf(msg, cap, "'%.80s': expected [IPv6]:PORT", addr);
            return -1;
        }
        memcpy(host, addr + 1, (size_t)(e - addr - 1));
        host[e - addr - 1] = '\0';
        port = e + 2;
    } else {
        const char *colon = strrchr(addr, ':');
        if (!colon || (size_t)(colon - addr) >= sizeof(host)) {
            snprintf(msg, cap, "'%.80s': expected HOST:PORT (for example 127.0.0.1:8765)", addr);
            return -1;
        }
        memcpy(host, addr, (size_t)(colon - addr));
        host[colon - addr] = '\0';
        port = colon + 1;
        if (strchr(host, ':')) {
            /* "::1:8080": is 8080 the port or the address's last group? */
            snprintf(msg, cap, "'%.80s': an IPv6 address goes in brackets: [IPv6]:PORT", addr);
            return -1;
        }
        if (!strcmp(host, "localhost"))
            snprintf(host, sizeof(host), "127.0.0.1");
    }
    char *end;
    errno = 0;
    long p = strtol(port, &end, 10);
    /* digits only: strtol would also take a sign and leading blanks ("+80", " 80") */
    if (*port < '0' || *port > '9' || *end || errno || p < 0 || p > 65535) {
        snprintf(msg, cap, "'%.80s': the port must be a number from 0 to 65535", addr);
        return -1;
    }
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (addr[0] != '[' && inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)p);
        *len = sizeof(*v4);
        *loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    } else if (addr[0] == '[' && inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)p);
        *len = sizeof(*v6);
        *loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
    } else {
        snprintf(msg, cap,
                 addr[0] == '[' ? "'%.80s': the brackets must hold an IPv6 address"
                                : "'%.80s': the host must be an IP address or localhost",
                 addr);
        return -1;
    }
    return 0;
}

int wt_mcp_serve_http(struct wt_mcp_server *s, const struct wt_mcp_http_config *hc,
                      const atomic_int *stop)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    int loopback = 0;
    char msg[300];
    if (wt_mcp_http_parse_addr(hc->addr, &ss, &sl, &loopback, msg, sizeof(msg))) {
        fprintf(stderr, "workloadtruth mcp: --http %s\n", msg);
        return 2;
    }
    if (!loopback && !hc->token) {
        fprintf(stderr,
                "workloadtruth mcp: --http %s is not a loopback address: give a bearer "
                "token (--token-file or $WT_MCP_TOKEN) to listen there\n",
                hc->addr);
        return 2;
    }
    if (sodium_init() < 0) {
        fprintf(stderr, "workloadtruth mcp: cannot initialize libsodium\n");
        return 1;
    }
    struct http_srv *x = calloc(1, sizeof(*x));
    if (!x) {
        fprintf(stderr, "workloadtruth mcp: out of memory\n");
        return 1;
    }
    x->s = s;
    x->hc = hc;
    if (ss.ss_family == AF_INET6) {
        const struct in6_addr *a6 = &((struct sockaddr_in6 *)&ss)->sin6_addr;
        char h[INET6_ADDRSTRLEN];
        if (!IN6_IS_ADDR_UNSPECIFIED(a6) && inet_ntop(AF_INET6, a6, h, sizeof(h)))
            snprintf(x->bind_host, sizeof(x->bind_host), "[%s]", h);
    } else {
        const struct in_addr *a4 = &((struct sockaddr_in *)&ss)->sin_addr;
        if (a4->s_addr != htonl(INADDR_ANY))
            inet_ntop(AF_INET, a4, x->bind_host, sizeof(x->bind_host));
    }
    pthread_mutex_init(&x->mu, NULL);
    unsigned flags =
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, x, MHD_OPTION_EXTERNAL_LOGGER, wt_mhd_log,
        (void *)"workloadtruth mcp", MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, x, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)MAX_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)MAX_PER_ADDRESS,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT_S, MHD_OPTION_UNESCAPE_CALLBACK,
        wt_mhd_unescape, NULL, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "workloadtruth mcp: cannot listen on %s: %s\n", hc->addr,
                strerror(errno ? errno : EADDRINUSE));
        pthread_mutex_destroy(&x->mu);
        free(x);
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = info ? info->port : 0;
    char shown[140];
    if (ss.ss_family == AF_INET6) {
        char h[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, h, sizeof(h));
        snprintf(shown, sizeof(shown), "[%s]:%u", h, port);
    } else {
        char h[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, h, sizeof(h));
        snprintf(shown, sizeof(shown), "%s:%u", h, port);
    }
    fprintf(stderr, "workloadtruth mcp: listening on http://%s/mcp%s\n", shown,
            hc->token ? " (bearer token required)" : "");
    fflush(stderr);
    while (!*stop) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        flight_watch_clients(x);
    }
    pthread_mutex_lock(&x->mu);
    x->stopping = 1;
    pthread_mutex_unlock(&x->mu);
    /* tools that sample stop early instead of holding up the exit */
    for (int tries = 0; tries < 30; tries++) { /* their answers go out first (3 s at most) */
        int busy = 0;
        pthread_mutex_lock(&x->mu);
        for (int i = 0; i < MAX_INFLIGHT; i++)
            if (x->flight[i].used) {
                busy = 1;
                if (x->flight[i].cancel && !*x->flight[i].cancel) /* a client's cancel stays */
                    *x->flight[i].cancel = CANCEL_STOP;
            }
        pthread_mutex_unlock(&x->mu);
        if (!busy)
            break;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(d);
    for (int i = 0; i < MAX_INFLIGHT; i++)
        json_decref(x->flight[i].id);
    pthread_mutex_destroy(&x->mu);
    free(x);
    fprintf(stderr, "workloadtruth mcp: stopped\n");
    return 0;
}
