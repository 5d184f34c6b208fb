/* libFuzzer target for the MCP Streamable HTTP transport (src/mcp/http.c):
 * arbitrary bytes sent as they are over a TCP connection to the real server
 * (libmicrohttpd, started once in this process on a free loopback port, with
 * a bearer token and one --allow-host name), the connection half-closed, and
 * the answer read to its end.  So the request line, the headers the server
 * checks (Host, Origin, Authorization, Content-Type, Accept,
 * Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method), bodies (also chunked),
 * sessions, batches and SSE streams all see fuzzed input.  Sessions live on
 * from one input to the next, as they would on a server.  The tools that
 * sample or benchmark answer at once (fuzz/mcp_fast.h).  An answer, if any,
 * must be an HTTP/1.x response; any crash, leak or sanitizer report is a
 * bug, and an answer that takes over 10 s is a hang (libFuzzer's -timeout).
 * With WT_FUZZ_SHOW set, each answer's status line goes to standard error.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_mcp_http -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include "mcp_fast.h"

#include "../src/mcp/http.c"

#include <signal.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wt_mcp_server fuzz_server;
static atomic_int fuzz_stop;
static char fuzz_addr[64];
static const char *const fuzz_allow[] = {"mcp.example.org"};
static struct wt_mcp_http_config fuzz_hc = {fuzz_addr, "fuzz-token", fuzz_allow, 1};
static struct sockaddr_in fuzz_sa;

static void *fuzz_serve(void *arg)
{
    (void)arg;
    if (wt_mcp_serve_http(&fuzz_server, &fuzz_hc, &fuzz_stop) != 0)
        abort();
    return NULL;
}

/* a free loopback port (bound and closed again: the server takes it next) */
static unsigned free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, n) || getsockname(fd, (struct sockaddr *)&a, &n))
        abort();
    close(fd);
    return ntohs(a.sin_port);
}

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        abort();
    if (connect(fd, (struct sockaddr *)&fuzz_sa, sizeof(fuzz_sa))) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static void start(void)
{
    struct wt_mcp_config cfg = {0};
    cfg.backend = "synthetic";
    cfg.log_dir = "/nonexistent/workloadtruth-fuzz";
    if (wt_mcp_server_init(&fuzz_server, &cfg))
        abort();
    unsigned port = free_port();
    snprintf(fuzz_addr, sizeof(fuzz_addr), "127.0.0.1:%u", port);
    fuzz_sa.sin_family = AF_INET;
    fuzz_sa.sin_port = htons((uint16_t)port);
    fuzz_sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    pthread_t th;
    if (pthread_create(&th, NULL, fuzz_serve, NULL))
        abort();
    pthread_detach(th);
    for (int i = 0; i < 500; i++) { /* up to 5 s for the daemon to listen */
        int fd = dial();
        if (fd >= 0) {
            close(fd);
            return;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    static char answer[1 << 16];
    if (!ready) {
        signal(SIGPIPE, SIG_IGN);
        start();
        ready = 1;
    }
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 200; tries++) {
        /* a long campaign can run short of local ports for a moment (each
         * input is a connection): wait, then say why if it lasts */
        if ((fd = dial()) < 0) {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (fd < 0) {
        fprintf(stderr, "fuzz_mcp_http: cannot connect to %s: %s\n", fuzz_addr, strerror(errno));
        abort();
    }
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    size_t off = 0;
    while (off < size) {
        ssize_t k = send(fd, data + off, size - off, MSG_NOSIGNAL);
        if (k <= 0)
            break; /* the server may close early (a bad request line) */
        off += (size_t)k;
    }
    shutdown(fd, SHUT_WR);
    size_t got = 0;
    for (;;) {
        ssize_t k = recv(fd, answer + got, got < sizeof(answer) ? sizeof(answer) - got : 0, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            abort(); /* no end of the answer in 10 s */
        if (k <= 0)
            break;
        got += (size_t)k;
        if (got == sizeof(answer))
            got = 16; /* keep the start, drop the rest */
    }
    close(fd);
    if (got > 0 && (got < 8 || memcmp(answer, "HTTP/1.", 7) != 0))
        abort();
    if (getenv("WT_FUZZ_SHOW")) { /* to look at what a corpus gets */
        size_t n = 0;
        while (n < got && answer[n] != '\r' && answer[n] != '\n')
            n++;
        fprintf(stderr, "answer: %.*s\n", (int)n, answer);
    }
    return 0;
}
