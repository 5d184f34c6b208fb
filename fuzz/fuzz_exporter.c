/* libFuzzer target for the Prometheus exporter (src/export/exporter.c and
 * metrics.c): the GPU and owner labels (a pod, namespace, container or Slurm
 * job name is the job owner's choice; the node name comes from the
 * environment) go into the metrics store, the exposition is rendered and
 * parsed back, and arbitrary bytes are sent as they are over a TCP
 * connection to the real exporter (libmicrohttpd, started once in this
 * process on a free loopback port), the connection half-closed and the
 * answer read to its end.
 *
 * Input: the first byte picks options: bit 0 dcgm-exporter label names,
 * bit 1 the GPU is classified (else only registered), bit 2 a declaration
 * (a MISMATCH verdict), bit 3 the GPU failed, bit 4 /healthz says unhealthy,
 * bits 5-7 the GPU's slot.  Then up to eleven '\n'-separated label values
 * (hostname, gpu, uuid, pci_bus_id, model, pod, namespace, container,
 * slurm_job_id, GPU_I_PROFILE, GPU_I_ID), ended by a 0xFF byte; the bytes
 * after it are the HTTP request (none: no connection).  Every line of the
 * exposition must be a HELP or TYPE comment or a sample whose label values
 * are valid UTF-8 without control characters, escaped (\\, \", \n only) and
 * closed, and an answer, if any, must be an HTTP/1.x response, begun (or the
 * connection closed) within 5 s.  Any crash, leak or sanitizer report is a bug.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_exporter -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "classify/classifier.h"
#include "export/exporter.h"
#include "export/metrics.h"
#include "util/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wt_metrics fuzz_m;
static struct wt_exporter *fuzz_e;
static struct sockaddr_in fuzz_sa;
static volatile int fuzz_healthy = 1;

static int healthy(void *ctx)
{
    (void)ctx;
    return fuzz_healthy;
}

static void start(void)
{
    struct wt_err err = {{0}};
    unsigned port = 0;
    signal(SIGPIPE, SIG_IGN);
    wt_metrics_init(&fuzz_m);
    if (wt_exporter_start(&fuzz_e, "127.0.0.1:0", &fuzz_m, healthy, NULL, &port, &err) != WT_OK) {
        fprintf(stderr, "fuzz_exporter: %s\n", err.msg);
        abort();
    }
    fuzz_sa.sin_family = AF_INET;
    fuzz_sa.sin_port = htons((uint16_t)port);
    fuzz_sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* A metric or label name: [a-zA-Z_:][a-zA-Z0-9_:]*; the end of it. */
static const char *name_end(const char *p, int colon)
{
    const char *s = p;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
           (colon && *p == ':') || (p > s && *p >= '0' && *p <= '9'))
        p++;
    if (p == s)
        abort();
    return p;
}

/* One label value after its opening quote: escapes only \\ \" \n, valid
 * UTF-8 without control characters; the character after the closing quote. */
static const char *label_value(const char *p, const char *end)
{
    const char *s = p;
    while (p < end && *p != '"') {
        if (*p == '\\') {
            if (p + 1 >= end || (p[1] != '\\' && p[1] != '"' && p[1] != 'n'))
                abort();
            p += 2;
        } else {
            p++;
        }
    }
    if (p >= end)
        abort(); /* not closed on its line */
    for (const char *q = s; q < p;) {
        uint32_t cp;
        size_t n = wt_utf8_next((const unsigned char *)q, (size_t)(p - q), &cp);
        if (n == 0 || cp < 0x20 || cp == 0x7f)
            abort();
        q += n;
    }
    return p + 1;
}

static void check_line(const char *p, const char *end)
{
    if (end - p >= 7 && (!memcmp(p, "# HELP ", 7) || !memcmp(p, "# TYPE ", 7))) {
        name_end(p + 7, 1);
        return;
    }
    p = name_end(p, 1);
    if (*p == '{') {
        p++;
        for (;;) {
            p = name_end(p, 0);
            if (p + 1 >= end || p[0] != '=' || p[1] != '"')
                abort();
            p = label_value(p + 2, end);
            if (*p == '}')
                break;
            if (*p != ',')
                abort();
            p++;
        }
        p++;
    }
    if (p >= end || *p != ' ')
        abort();
    p++;
    char *num_end;
    if (end - p >= 3 && !memcmp(p, "NaN", 3))
        num_end = (char *)p + 3;
    else
        strtod(p, &num_end);
    if (num_end == p || num_end != end)
        abort();
}

static void check_exposition(const char *body, size_t len)
{
    if (strlen(body) != len || len == 0 || body[len - 1] != '\n')
        abort();
    for (const char *p = body; p < body + len;) {
        const char *nl = memchr(p, '\n', (size_t)(body + len - p));
        check_line(p, nl);
        p = nl + 1;
    }
}

/* A connection from the next of 4096 loopback addresses: the exporter allows
 * 8 connections per address, and a keep-alive one stays until its idle
 * timeout. */
static int dial(void)
{
    static unsigned next;
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 200; tries++) {
        /* a long campaign can run short of local ports for a moment */
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            abort();
        struct sockaddr_in me = {.sin_family = AF_INET};
        me.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 0x100 + (next++ % 4096));
        if (bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
            connect(fd, (struct sockaddr *)&fuzz_sa, sizeof(fuzz_sa))) {
            close(fd);
            fd = -1;
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (fd < 0) {
        fprintf(stderr, "fuzz_exporter: cannot connect: %s\n", strerror(errno));
        abort();
    }
    return fd;
}

/* 1 when the answer's headers are complete (a blank line) */
static int headers_in(const char *a, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i++)
        if (!memcmp(a + i, "\r\n\r\n", 4))
            return 1;
    return 0;
}

static void request(const uint8_t *data, size_t size)
{
    static char answer[1 << 16];
    int fd = dial();
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    size_t off = 0;
    while (off < size) {
        ssize_t k = send(fd, data + off, size - off, MSG_NOSIGNAL);
        if (k <= 0)
            break; /* the server may close early (a bad request line) */
        off += (size_t)k;
    }
    shutdown(fd, SHUT_WR);
    /* the exporter polls with poll(), which sees the half-close: an
     * incomplete request is dropped at once (the connection closes), and an
     * answer whose headers are in is taken as complete after 20 ms without
     * more bytes (its body is sent with them; keep-alive holds the
     * connection open).  Neither within 5 s is a hang. */
    size_t got = 0;
    int headers = 0;
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int r = poll(&pfd, 1, headers ? 20 : 5000);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 && !headers)
            abort(); /* neither an answer nor a close in 5 s: a hang */
        if (r <= 0)
            break;
        ssize_t k = recv(fd, answer + got, sizeof(answer) - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
        if (!headers && got >= 4)
            headers = headers_in(answer, got);
        if (got == sizeof(answer))
            got = 16; /* keep the start, drop the rest */
    }
    close(fd);
    if (got > 0 && (got < 8 || memcmp(answer, "HTTP/1.", 7) != 0))
        abort();
}

/* the next '\n'-separated value of [*p, end) into out (cap bytes, cut) */
static void field(const uint8_t **p, const uint8_t *end, char *out, size_t cap)
{
    size_t n = 0;
    while (*p < end && **p != '\n') {
        if (n + 1 < cap)
            out[n++] = (char)**p;
        (*p)++;
    }
    if (*p < end)
        (*p)++;
    out[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_e)
        start();
    if (size < 1)
        return 0;
    unsigned opt = data[0];
    const uint8_t *p = data + 1, *end = data + size;
    const uint8_t *ff = memchr(p, 0xFF, (size_t)(end - p));
    const uint8_t *lend = ff ? ff : end;
    struct wt_gpu_labels l;
    memset(&l, 0, sizeof(l));
    char host[sizeof(fuzz_m.hostname)];
    field(&p, lend, host, sizeof(host));
    field(&p, lend, l.gpu, sizeof(l.gpu));
    field(&p, lend, l.uuid, sizeof(l.uuid));
    field(&p, lend, l.pci_bus_id, sizeof(l.pci_bus_id));
    field(&p, lend, l.model, sizeof(l.model));
    field(&p, lend, l.pod, sizeof(l.pod));
    field(&p, lend, l.k8s_namespace, sizeof(l.k8s_namespace));
    field(&p, lend, l.container, sizeof(l.container));
    field(&p, lend, l.slurm_job_id, sizeof(l.slurm_job_id));
    field(&p, lend, l.gi_profile, sizeof(l.gi_profile));
    field(&p, lend, l.gi_id, sizeof(l.gi_id));

    /* a fresh store (the exporter renders it only while a request is served,
     * and none is now) */
    pthread_mutex_lock(&fuzz_m.mu);
    for (int i = 0; i < WT_METRICS_MAX_GPUS; i++)
        free(fuzz_m.gpu[i].owner_l); /* the labels of owners that left */
    memset(fuzz_m.gpu, 0, sizeof(fuzz_m.gpu));
    snprintf(fuzz_m.hostname, sizeof(fuzz_m.hostname), "%s", host);
    fuzz_m.label_style_dcgm = opt & 1;
    fuzz_m.stopped = 0;
    pthread_mutex_unlock(&fuzz_m.mu);
    fuzz_healthy = !(opt & 16);

    int slot = (int)(opt >> 5);
    struct wt_gpu_labels first = l;
    snprintf(first.pod, sizeof(first.pod), "first");
    wt_metrics_gpu(&fuzz_m, slot, &first);
    wt_metrics_owner(&fuzz_m, slot, &l);
    if (opt & 2) {
        static struct wt_result r;
        memset(&r, 0, sizeof(r));
        r.cls = (enum wt_class)(size % 4);
        r.confidence = (double)(size % 101) / 100.0;
        for (int f = 0; f < WT_NFEATURES; f++)
            r.features.v[f] = NAN;
        r.features.v[WT_F_LIMIT_RATIO] = 0.5;
        wt_metrics_window(&fuzz_m, slot, &r, opt & 4 ? WT_CLASS_INFERENCE : WT_CLASS_NONE,
                          WT_VERDICT_MISMATCH, opt & 4 ? "process" : NULL);
        wt_metrics_samples(&fuzz_m, slot, size, (int)(size & 1));
        wt_metrics_owner_changed(&fuzz_m, slot);
    }
    if (opt & 8)
        wt_metrics_gpu_failed(&fuzz_m, slot);
    wt_metrics_audit(&fuzz_m, size, size / 3, size / 7, (int)(size & 2));

    size_t len = 0;
    char *body = wt_metrics_render(&fuzz_m, &len);
    if (!body)
        abort();
    check_exposition(body, len);
    free(body);

    if (ff && ff + 1 < end)
        request(ff + 1, (size_t)(end - ff - 1));
    return 0;
}
