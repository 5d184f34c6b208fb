/* The audit log's process-crash loop (spec §11.3).
 *
 *   audit_crash [AUDIT_WRITER]
 *
 * Runs the writer (tests/audit_writer.c; default: audit_writer next to this
 * program) again and again on one log directory and kill -9s it at a random
 * moment, 0..WT_CRASH_MAX_MS (default 30) ms after the fork: during exec,
 * init, open and recovery as well as while appending and sealing.  The
 * acknowledged seqs come back on a pipe; record k of the run with process id
 * P carries the evidence {"run": P, "n": k}.  Every WT_CRASH_TORN_EVERY-th
 * kill (default 10) the file also gets a torn tail (a cut-off line, or a NUL
 * block, as power loss leaves), which the next writer has to quarantine,
 * possibly while being killed itself.  Every WT_CRASH_PER_DIR kills (default
 * 100) the log is finished and checked, and a new directory is started:
 * opened once more (recovery), verified (must be OK), and every acknowledged
 * seq must be a class record with the right run and counter.
 *
 * Environment: WT_CRASH_ITERATIONS (default 500), WT_CRASH_SEED, TMPDIR.
 * Prints a summary line; exits 0 when everything holds, 1 otherwise.
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/entry.h"
#include "audit/log.h"
#include "audit/verify.h"

struct ack {
    uint64_t seq;
    long long run, n;
};

static struct {
    struct ack *acks;
    size_t nacks, cap;
    unsigned long kills, kills_early, torn_injected, recovered, quarantined, acked_total, logs,
        entries_total;
    int failed;
} S;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static long env_long(const char *name, long def)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return def;
    char *end;
    long v = strtol(s, &end, 10);
    return *end || v < 0 ? def : v;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void failf(const char *fmt, ...) WT_PRINTF(1, 2);
static void failf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "audit_crash: FAIL: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    S.failed = 1;
}

static void add_ack(uint64_t seq, long long run, long long n)
{
    if (S.nacks == S.cap) {
        S.cap = S.cap ? S.cap * 2 : 1024;
        S.acks = realloc(S.acks, S.cap * sizeof(*S.acks));
        if (!S.acks) {
            perror("realloc");
            exit(1);
        }
    }
    S.acks[S.nacks++] = (struct ack){seq, run, n};
    S.acked_total++;
}

/* Parses complete lines in buf[0..*len) as acknowledged seqs of run `run`,
 * keeping an incomplete last line; *k counts this run's records. */
static void take_lines(char *buf, size_t *len, long long run, long long *k)
{
    size_t a = 0;
    for (size_t i = 0; i < *len; i++) {
        if (buf[i] != '\n')
            continue;
        buf[i] = '\0';
        char *end;
        unsigned long long seq = strtoull(buf + a, &end, 10);
        if (end == buf + a || *end)
            failf("writer printed '%s' (run %lld, record %lld)", buf + a, run, *k);
        else
            add_ack(seq, run, (*k)++);
        a = i + 1;
    }
    memmove(buf, buf + a, *len - a);
    *len -= a;
}

/* One writer run, killed after delay_us; returns 0, or -1 if it did not die
 * of the kill (it failed on its own). */
static int one_run(const char *writer, const char *dir, long delay_us, int seal_every)
{
    int pfd[2];
    if (pipe(pfd)) {
        perror("pipe");
        exit(1);
    }
    char seal[16];
    snprintf(seal, sizeof(seal), "%d", seal_every);
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]);
        close(pfd[1]);
        execl(writer, writer, dir, "0", seal, (char *)NULL);
        fprintf(stderr, "audit_crash: cannot run %s: %s\n", writer, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    char buf[4096];
    size_t len = 0;
    long long k = 0;
    int eof = 0, killed = 0;
    for (;;) {
        double left = (double)delay_us / 1000.0 - (now_ms() - t0);
        if (!killed && left <= 0) {
            kill(pid, SIGKILL);
            killed = 1;
        }
        struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
        int timeout = killed ? -1 : (int)(left + 0.999);
        int pr = poll(&pf, 1, timeout);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        ssize_t n = read(pfd[0], buf + len, sizeof(buf) - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            eof = 1;
            break;
        }
        len += (size_t)n;
        take_lines(buf, &len, pid, &k);
    }
    (void)eof;
    close(pfd[0]);
    int ws;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (!(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL)) {
        failf("the writer on %s ended by itself (%s %d) after %lld acknowledged records", dir,
              WIFEXITED(ws) ? "exit status" : "signal",
              WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws), k);
        return -1;
    }
    S.kills++;
    if (k == 0)
        S.kills_early++;
    return 0;
}

/* Appends a torn tail: part of a plausible line, and/or a NUL block. */
static void inject_torn(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/log.jsonl", dir);
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd < 0)
        return; /* no log yet */
    static const char part[] = "{\"v\":1,\"seq\":999999,\"ts_ms\":1767225600000,\"type\":\"class\","
                               "\"prev\":\"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\",\"gpu\":";
    static char zeros[4096];
    size_t cut = 1 + (size_t)(rnd() % (sizeof(part) - 2));
    size_t nul = 512 + (size_t)(rnd() % (4096 - 512 + 1));
    int kind = (int)(rnd() % 3);
    ssize_t w = 0;
    if (kind != 1)
        w += write(fd, part, cut);
    if (kind != 0)
        w += write(fd, zeros, nul);
    (void)w;
    close(fd);
    S.torn_injected++;
}

static int count_quarantine(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += !strncmp(e->d_name, "log.jsonl.torn.", 15);
    if (d)
        closedir(d);
    return n;
}

static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Recovery, verification and the acknowledged records of one log. */
static void finish_dir(const char *dir)
{
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = NULL;
    struct wt_log_recovery rec;
    S.logs++;
    if (wt_log_paths_dir(&p, dir, &err)) {
        failf("%s", err.msg);
        return;
    }
    struct stat st;
    if (stat(p.log, &st) != 0 || st.st_size == 0) {
        if (S.nacks)
            failf("%s: no log, but %zu records were acknowledged", dir, S.nacks);
        return;
    }
    if (wt_log_open(&l, &p, NULL, &rec, &err)) {
        failf("%s: the final open failed: %s", dir, err.msg);
        return;
    }
    wt_log_close(l);
    struct wt_verify_report r;
    int vs = wt_verify_file(p.log, &(struct wt_verify_opts){.side_path = p.checkpoint}, &r);
    if (vs != WT_VERIFY_OK) {
        failf("%s: does not verify after recovery (status %d)", dir, vs);
        fprintf(stderr, "  %s\n", r.message);
        for (int i = 0; i < r.nwarn; i++)
            fprintf(stderr, "  warning: %s\n", r.warn[i]);
        return;
    }
    S.recovered += r.recoveries;
    S.quarantined += (unsigned long)count_quarantine(dir);
    S.entries_total += r.entries;
    /* what each line says */
    FILE *f = fopen(p.log, "rb");
    long long *run = calloc(r.entries + 1, sizeof(long long));
    long long *cnt = calloc(r.entries + 1, sizeof(long long));
    if (!f || !run || !cnt) {
        perror("reading the log");
        exit(1);
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    uint64_t i = 0;
    while ((got = getline(&line, &cap, f)) > 0 && i < r.entries) {
        struct wt_entry e;
        run[i] = cnt[i] = -1;
        if (wt_entry_parse(line, (size_t)got - 1, &e, &err) == WT_OK) {
            json_t *ev = json_object_get(e.obj, "evidence");
            if (e.type == WT_ENTRY_CLASS && ev) {
                run[i] = json_integer_value(json_object_get(ev, "run"));
                cnt[i] = json_integer_value(json_object_get(ev, "n"));
            }
            wt_entry_free(&e);
        }
        i++;
    }
    free(line);
    fclose(f);
    size_t missing = 0;
    for (size_t a = 0; a < S.nacks; a++) {
        const struct ack *k = &S.acks[a];
        if (k->seq >= r.entries || run[k->seq] != k->run || cnt[k->seq] != k->n) {
            if (missing++ < 10)
                failf("%s: acknowledged seq %llu (run %lld, record %lld) is missing or "
                      "different",
                      dir, (unsigned long long)k->seq, k->run, k->n);
        }
        if (a > 0 && k->seq <= S.acks[a - 1].seq)
            failf("%s: seq %llu acknowledged after seq %llu", dir, (unsigned long long)k->seq,
                  (unsigned long long)S.acks[a - 1].seq);
    }
    free(run);
    free(cnt);
}

int main(int argc, char **argv)
{
    char writer[PATH_MAX];
    if (argc > 1) {
        snprintf(writer, sizeof(writer), "%s", argv[1]);
    } else {
        const char *slash = strrchr(argv[0], '/');
        snprintf(writer, sizeof(writer), "%.*saudit_writer", slash ? (int)(slash - argv[0] + 1) : 0,
                 argv[0]);
    }
    if (access(writer, X_OK)) {
        fprintf(stderr, "audit_crash: no writer program %s\n", writer);
        return 1;
    }
    long iterations = env_long("WT_CRASH_ITERATIONS", 500);
    long per_dir = env_long("WT_CRASH_PER_DIR", 100);
    long max_ms = env_long("WT_CRASH_MAX_MS", 30);
    long torn_every = env_long("WT_CRASH_TORN_EVERY", 10);
    long seed = env_long("WT_CRASH_SEED", (long)time(NULL));
    if (per_dir < 1)
        per_dir = 1;
    rng ^= (uint64_t)seed * 0x2545f4914f6cdd1dull;
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX] = "";
    printf("audit_crash: %ld kills, a new log every %ld, seed %ld\n", iterations, per_dir, seed);
    fflush(stdout);
    double t0 = now_ms();
    for (long i = 0; i < iterations && !S.failed; i++) {
        if (i % per_dir == 0) {
            if (dir[0]) {
                finish_dir(dir);
                if (!S.failed)
                    rm_dir(dir);
            }
            S.nacks = 0;
            snprintf(dir, sizeof(dir), "%s/wt_crash_XXXXXX", tmp && *tmp ? tmp : "/tmp");
            if (!mkdtemp(dir)) {
                perror("mkdtemp");
                return 1;
            }
        }
        long delay_us = (long)(rnd() % (uint64_t)(max_ms * 1000 + 1));
        int seal_every = 1 + (int)(rnd() % 8);
        if (one_run(writer, dir, delay_us, seal_every))
            break;
        if (torn_every && i % torn_every == torn_every - 1)
            inject_torn(dir);
    }
    if (dir[0] && !S.failed) {
        finish_dir(dir);
        if (!S.failed)
            rm_dir(dir);
    }
    printf("audit_crash: %lu kills (%lu before the first acknowledgement), %lu torn tails "
           "injected, %lu recovery records (%lu quarantine files), %lu entries acknowledged, "
           "%lu entries in %lu logs, %.1f s: %s\n",
           S.kills, S.kills_early, S.torn_injected, S.recovered, S.quarantined, S.acked_total,
           S.entries_total, S.logs, (now_ms() - t0) / 1000.0,
           S.failed ? "FAILED" : "every acknowledged entry present, every log verifies");
    if (S.failed && dir[0])
        fprintf(stderr, "audit_crash: the failing log is kept in %s\n", dir);
    free(S.acks);
    return S.failed ? 1 : 0;
}
