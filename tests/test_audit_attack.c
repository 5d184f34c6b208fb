/* The audit log under attack and under failure (spec §11.2, §11.4-6).
 *
 * A ~200-line log (class records with varied fields and evidence objects,
 * heartbeats, a checkpoint record every 16 lines and at the end, so the
 * side-file checkpoint covers every line) is built once with the writer.
 * Then, verifying with the pinned vkey and the real side file:
 *   - mutations: every byte flipped (XOR 0x01) plus random XOR masks at random
 *     offsets, every line deleted, duplicated, swapped with the next, and the
 *     log cut at every byte offset: DAMAGED, and the verifier names the line
 *     the mutation is in (a final newline belongs to its line); cuts are
 *     TRUNCATED at (complete lines kept + 1).  Without the side file every cut
 *     verifies as a valid prefix of exactly the complete lines kept;
 *   - a rewrite by someone without the key (class changed, every later `prev`
 *     recomputed, notes kept) and by someone who swapped in his own key
 *     (verified with the original --vkey);
 *   - with the key, below a witnessed checkpoint: truncate-and-regrow and a
 *     fork from the same key; the witness's state file (--against) catches
 *     both, and the witness refuses their next consistency request;
 *   - power loss: a cut inside the next line, NUL blocks: a torn tail that
 *     open() quarantines byte for byte; recover(recover(x)) == recover(x);
 *     a torn line a signed checkpoint covers is a truncation instead; an
 *     empty log or a torn genesis line is refused (init is atomic, so only
 *     tampering leaves one);
 *   - a full disk (RLIMIT_FSIZE): the append fails and leaves nothing behind;
 *   - a second writer is locked out.
 *
 * The every-offset loops fork one worker per CPU, at most 8 (WT_AUDIT_JOBS
 * overrides).  WT_AUDIT_MUTATION_STRIDE=k (default 1: every offset) tests
 * every k-th offset only (from a random phase) plus every line's first byte
 * and newline, for slow sanitizer builds.  WT_AUDIT_SEED fixes the random
 * choices (the seed used is printed).
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE /* mkdtemp, MAP_ANONYMOUS */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sodium.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "audit/entry.h"
#include "audit/log.h"
#include "audit/merkle.h"
#include "audit/note.h"
#include "audit/proof.h"
#include "audit/verify.h"
#include "audit/witness.h"
#include "util/fileio.h"

#define ORIGIN "workloadtruth.attack.invalid/0123456789abcdef"
#define TARGET_LINES 200
#define SEAL_EVERY 16

/* ---- small helpers ------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static uint64_t rnd_below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static int64_t fake_now = 1767225600000;

static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    fake_now += 997 + fake_now % 13;
    return fake_now;
}

static const struct wt_log_opts log_opts = {.clock_ms = fake_clock};

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void write_file(const char *path, const void *buf, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        fail_msg("cannot create %s: %s", path, strerror(errno));
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    assert_int_equal(fchmod(fd, mode), 0);
    close(fd);
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
    size_t n;
    char *buf = read_file(from, &n);
    if (!buf)
        fail_msg("cannot read %s", from);
    write_file(to, buf, n, mode);
    free(buf);
}

/* Temporary directories, removed (flat, plus one level) by the teardown. */
static char tmpdirs[80][64];
static int ntmpdirs;

static const char *new_dir(void)
{
    assert_true(ntmpdirs < (int)(sizeof(tmpdirs) / sizeof(tmpdirs[0])));
    char *d = tmpdirs[ntmpdirs++];
    snprintf(d, 64, "/tmp/wt_attack_XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static int count_files(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, prefix, strlen(prefix)))
            n++;
    closedir(d);
    return n;
}

/* A library behaviour this test requires and did not get (the four bugs it
 * found first are fixed: non-alphabet base64 bytes, a torn genesis line, an
 * empty key file, a log cut to nothing): fails the test with what is wrong. */
static void known_bug(const char *what)
{
    fail_msg("audit-log bug: %s", what);
}

/* ---- the base log ------------------------------------------------------- */

static struct {
    const char *dir;
    struct wt_log_paths p;
    struct wt_note_key key;
    struct wt_note_vkey vk;
    char vkey[512];
    char *log; /* the file's bytes */
    size_t len;
    size_t n;      /* lines */
    size_t *start; /* start[i]: offset of line i (0-based); start[n] = len */
    size_t stride; /* WT_AUDIT_MUTATION_STRIDE */
    int jobs;
} B;

static json_t *class_fields(unsigned i)
{
    static const char *const cls[] = {"training", "inference",     "idle",
                                      "mining",   "finetune_lora", "unknown_0"};
    char gpu[64];
    snprintf(gpu, sizeof(gpu), "GPU-5a1c0f3e-8b2d-4c6e-9f10-%012x", i * 2654435761u);
    json_t *f = json_object();
    json_object_set_new(f, "gpu", json_string(gpu));
    if (i % 3)
        json_object_set_new(f, "gpu_idx", json_integer(i % 8));
    json_object_set_new(f, "class", json_string(cls[i % 6]));
    json_object_set_new(f, "conf_ppm", json_integer((json_int_t)((i * 7919u) % 1000001u)));
    if (i % 4 == 1)
        json_object_set_new(
            f, "model", json_string(i % 8 == 1 ? "physics/v2 \"q\\x\" caf\xc3\xa9" : "rules-1.3"));
    if (i % 5 != 4) {
        json_t *ev = json_object();
        json_object_set_new(ev, "sm_util_pct", json_integer(i % 101));
        json_object_set_new(ev, "mem_used_mib", json_integer(1000 + (json_int_t)i * 37));
        if (i % 2)
            json_object_set_new(ev, "proc",
                                json_string(i % 6 == 1 ? "python3 train.py --lr=3e-4"
                                                       : "tritonserver \xe2\x9c\x93"));
        if (i % 7 == 3)
            json_object_set_new(ev, "delta", json_integer(-(json_int_t)i * 1000003));
        json_object_set_new(f, "evidence", ev);
    }
    if (i % 9 == 2) {
        uint8_t h[32];
        char hex[65];
        crypto_hash_sha256(h, (const unsigned char *)&i, sizeof(i));
        sodium_bin2hex(hex, sizeof(hex), h, 32);
        json_object_set_new(f, "evidence_sha256", json_string(hex));
    }
    return f;
}

static json_t *heartbeat_fields(unsigned i)
{
    return json_pack("{s:I,s:i,s:s}", "uptime_s", (json_int_t)i * 60, "gpus", (int)(i % 9), "state",
                     i % 2 ? "ok" : "degraded");
}

static void must(int rc, const struct wt_err *err, const char *what)
{
    if (rc)
        fail_msg("%s: %s", what, err->msg);
}

static void append_entry(struct wt_log *l, unsigned i)
{
    struct wt_err err = {{0}};
    json_t *f = i % 5 == 2 ? heartbeat_fields(i) : class_fields(i);
    must(wt_log_append(l, i % 5 == 2 ? WT_ENTRY_HEARTBEAT : WT_ENTRY_CLASS, f, NULL, &err), &err,
         "append");
    json_decref(f);
}

static void index_lines(void)
{
    free(B.start);
    B.n = 0;
    for (size_t i = 0; i < B.len; i++)
        B.n += B.log[i] == '\n';
    B.start = malloc((B.n + 1) * sizeof(size_t));
    assert_non_null(B.start);
    size_t k = 0;
    B.start[k++] = 0;
    for (size_t i = 0; i < B.len; i++)
        if (B.log[i] == '\n' && k <= B.n)
            B.start[k++] = i + 1;
    assert_int_equal(B.start[B.n], B.len);
}

/* 1-based line holding byte o (o < len). */
static uint64_t line_of(size_t o)
{
    size_t lo = 0, hi = B.n; /* start[lo] <= o < start[hi] */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (B.start[mid] <= o)
            lo = mid;
        else
            hi = mid;
    }
    return lo + 1;
}

static size_t env_size(const char *name, size_t def)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return def;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    return *end || v == 0 ? def : (size_t)v;
}

static int setup(void **state)
{
    (void)state;
    struct wt_err err = {{0}};
    const char *seed_env = getenv("WT_AUDIT_SEED");
    rng_state = seed_env && *seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL);
    if (!rng_state)
        rng_state = 88172645463325252ull;
    printf("# WT_AUDIT_SEED=%llu\n", (unsigned long long)rng_state);
    B.stride = env_size("WT_AUDIT_MUTATION_STRIDE", 1);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    B.jobs = (int)env_size("WT_AUDIT_JOBS", cpus < 1 ? 1 : cpus > 8 ? 8 : (size_t)cpus);
    if (B.jobs > 64)
        B.jobs = 64;
    if (sodium_init() < 0)
        return -1;

    uint8_t seed[32];
    const char *in = "workloadtruth attack test seed (TEST ONLY)";
    crypto_hash_sha256(seed, (const unsigned char *)in, strlen(in));
    if (wt_note_key_from_seed(&B.key, ORIGIN, WT_KEY_ED25519, seed, &err))
        return -1;
    B.dir = new_dir();
    if (wt_log_paths_dir(&B.p, B.dir, &err) ||
        wt_log_init(&B.p, ORIGIN, &B.key, &log_opts, B.vkey, sizeof(B.vkey), &err) ||
        wt_note_parse_vkey(B.vkey, &B.vk, &err)) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    struct wt_log *l;
    if (wt_log_open(&l, &B.p, &log_opts, NULL, &err)) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    unsigned i = 1;
    int rc = 0;
    while (!rc && wt_log_size(l) < TARGET_LINES - 1) {
        if (wt_log_size(l) % SEAL_EVERY == SEAL_EVERY - 1) {
            rc = wt_log_seal(l, &err);
        } else {
            json_t *f = i % 5 == 2 ? heartbeat_fields(i) : class_fields(i);
            rc = wt_log_append(l, i % 5 == 2 ? WT_ENTRY_HEARTBEAT : WT_ENTRY_CLASS, f, NULL, &err);
            json_decref(f);
            i++;
        }
    }
    if (!rc)
        rc = wt_log_seal(l, &err);
    wt_log_close(l);
    if (rc) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    B.log = read_file(B.p.log, &B.len);
    if (!B.log)
        return -1;
    index_lines();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < ntmpdirs; i++)
        rm_tree(tmpdirs[i]);
    free(B.log);
    free(B.start);
    wt_note_key_wipe(&B.key);
    return 0;
}

static int verify_buf(const char *buf, size_t len, const char *side, const char *against, int pin,
                      struct wt_verify_report *r)
{
    struct wt_verify_opts o = {.vkey = pin ? &B.vk : NULL, .side_path = side};
    if (against) {
        o.against[0] = against;
        o.nagainst = 1;
    }
    return wt_verify_buffer(buf, len, &o, r);
}

static int verify_path(const char *path, const char *side, const char *against,
                       struct wt_verify_report *r)
{
    struct wt_verify_opts o = {.vkey = &B.vk, .side_path = side};
    if (against) {
        o.against[0] = against;
        o.nagainst = 1;
    }
    return wt_verify_file(path, &o, r);
}

static void test_base_log(void **state)
{
    (void)state;
    struct wt_verify_report r;
    int st = verify_buf(B.log, B.len, B.p.checkpoint, NULL, 1, &r);
    if (st != WT_VERIFY_OK)
        fail_msg("the base log does not verify: %s", r.message);
    assert_int_equal(B.n, TARGET_LINES);
    assert_int_equal(r.entries, TARGET_LINES);
    assert_int_equal(r.sealed, TARGET_LINES);
    assert_int_equal(r.side_size, TARGET_LINES);
    assert_true(r.ckpt_records >= TARGET_LINES / SEAL_EVERY);
    /* the last line is a checkpoint record: the log carries its own seal */
    assert_non_null(strstr(B.log + B.start[B.n - 1], "\"type\":\"checkpoint\""));
    printf("# base log: %zu lines, %zu bytes, %llu checkpoint records, %d job(s), stride %zu\n",
           B.n, B.len, (unsigned long long)r.ckpt_records, B.jobs, B.stride);
}

/* ---- mutations, run by forked workers ------------------------------------- */

enum mut { M_FLIP, M_MASK, M_TRUNC_SIDE, M_TRUNC_BARE, M_DELETE, M_DUP, M_SWAP };
static const char *const mut_names[] = {"flip 0x01",
                                        "random xor",
                                        "truncate (side file)",
                                        "truncate (no side file)",
                                        "delete line",
                                        "duplicate line",
                                        "swap lines"};

struct mres {
    uint64_t where; /* offset or 1-based line */
    uint64_t want;  /* line that should be named, or entries for M_TRUNC_BARE */
    uint64_t line;  /* named */
    uint64_t entries;
    int32_t status;
    int32_t damage;
    uint8_t mask;
    uint8_t bad;
    uint8_t known; /* a known library bug (see known_bug) */
    uint8_t done;
};

/* Runs one mutation task (in a worker process: B.log may be changed in
 * place) and records the verifier's verdict and whether it is the expected
 * one. */
static void run_task(enum mut m, size_t t, struct mres *res)
{
    struct wt_verify_report r;
    char *buf = NULL;
    size_t len = 0;
    int side = 1;
    memset(res, 0, sizeof(*res));
    switch (m) {
    case M_FLIP:
    case M_MASK: {
        size_t o = res->where = t & 0xffffffffu;
        uint8_t mask = m == M_FLIP ? 1 : (uint8_t)(t >> 32);
        res->mask = mask;
        B.log[o] ^= (char)mask;
        verify_buf(B.log, B.len, B.p.checkpoint, NULL, 1, &r);
        B.log[o] ^= (char)mask;
        res->want = line_of(o);
        res->bad = r.status != WT_VERIFY_DAMAGED || r.line != res->want;
        /* every line is still there: a damaged first line is not a cut log
         * (it was reported as "truncated" when the side file had a size) */
        if (res->want == 1)
            res->bad |= r.damage == WT_DMG_TRUNCATED;
        break;
    }
    case M_TRUNC_SIDE:
    case M_TRUNC_BARE:
        res->where = t;
        side = m == M_TRUNC_SIDE;
        verify_buf(B.log, t, side ? B.p.checkpoint : NULL, NULL, 1, &r);
        if (side) {
            res->want = line_of(t);
            res->bad = r.status != WT_VERIFY_DAMAGED || r.damage != WT_DMG_TRUNCATED ||
                       r.line != res->want;
            if (t == 0 && res->bad && r.status == WT_VERIFY_DAMAGED &&
                r.damage == WT_DMG_MALFORMED && r.line == 0) {
                /* KNOWN BUG (verify.c finish()): an empty log is reported as
                 * "malformed: empty log (no genesis record)", line 0, before the
                 * side file (signed for 200 lines) is looked at; it should say
                 * TRUNCATED at line 1 like every other cut.  Still DAMAGED. */
                res->known = 1;
                res->bad = 0;
            }
        } else {
            uint64_t kept = line_of(t) - 1; /* complete lines before the cut */
            int partial = t != B.start[kept];
            res->want = kept;
            res->bad = (r.status != WT_VERIFY_OK && r.status != WT_VERIFY_WARN) ||
                       r.entries != kept || r.valid_bytes != B.start[kept] ||
                       r.damage != (partial ? WT_DMG_TORN_TAIL : WT_DMG_NONE);
            if (kept == 0) {
                /* Documented exception: a cut inside the first line leaves no
                 * genesis record, and a log without one is not a log: the
                 * verifier says DAMAGED (malformed: no genesis record) where a
                 * cut elsewhere is a torn tail.  The prefix property (never more
                 * entries than kept) still holds, and is what is checked; a
                 * torn-tail WARN with 0 entries would be accepted too (see
                 * test_torn_genesis for what this means to the writer). */
                res->bad = r.entries != 0 || r.valid_bytes != 0 ||
                           (r.status != WT_VERIFY_DAMAGED && r.status != WT_VERIFY_WARN);
            }
        }
        break;
    case M_DELETE:
    case M_DUP:
    case M_SWAP: {
        size_t k = t; /* 0-based line */
        size_t a = B.start[k], b = B.start[k + 1];
        res->where = k + 1;
        buf = malloc(B.len + (b - a) + 1);
        if (!buf)
            abort();
        if (m == M_DELETE) {
            memcpy(buf, B.log, a);
            memcpy(buf + a, B.log + b, B.len - b);
            len = B.len - (b - a);
            res->want = k + 1;
        } else if (m == M_DUP) {
            memcpy(buf, B.log, b);
            memcpy(buf + b, B.log + a, b - a);
            memcpy(buf + b + (b - a), B.log + b, B.len - b);
            len = B.len + (b - a);
            res->want = k + 2;
        } else {
            size_t c = B.start[k + 2];
            memcpy(buf, B.log, a);
            memcpy(buf + a, B.log + b, c - b);
            memcpy(buf + a + (c - b), B.log + a, b - a);
            memcpy(buf + c, B.log + c, B.len - c);
            len = B.len;
            res->want = k + 1;
        }
        verify_buf(buf, len, B.p.checkpoint, NULL, 1, &r);
        res->bad = r.status != WT_VERIFY_DAMAGED || r.line != res->want;
        if (m == M_DELETE && k + 1 == B.n)
            res->bad |= r.damage != WT_DMG_TRUNCATED; /* the last line: a truncation */
        free(buf);
        break;
    }
    }
    res->line = r.line;
    res->entries = r.entries;
    res->status = r.status;
    res->damage = (int32_t)r.damage;
    res->done = 1;
}

/* Runs tasks[0..n) of kind m over B.jobs forked workers; returns the
 * number of failures, printing the first few. */
static size_t run_mutations(enum mut m, const size_t *tasks, size_t n)
{
    struct mres *res =
        mmap(NULL, n * sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(res != MAP_FAILED);
    fflush(stdout);
    fflush(stderr);
    int jobs = B.jobs;
    pid_t pids[64];
    for (int w = 0; w < jobs; w++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            for (size_t t = (size_t)w; t < n; t += (size_t)jobs)
                run_task(m, tasks[t], &res[t]);
            _exit(0);
        }
        pids[w] = pid;
    }
    int crashed = 0;
    for (int w = 0; w < jobs; w++) {
        int ws;
        assert_int_equal(waitpid(pids[w], &ws, 0), pids[w]);
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            crashed++;
    }
    size_t bad = 0, known = 0;
    for (size_t t = 0; t < n; t++) {
        known += res[t].known;
        if (res[t].done && !res[t].bad)
            continue;
        if (bad++ < 12)
            fprintf(stderr,
                    "  %s at %s %llu (mask 0x%02x): status %d, %s at line %llu, %llu entries; "
                    "expected %s %llu\n",
                    mut_names[m],
                    m <= M_MASK || m == M_TRUNC_SIDE || m == M_TRUNC_BARE ? "offset" : "line",
                    (unsigned long long)res[t].where, res[t].mask, res[t].status,
                    wt_damage_name((enum wt_damage)res[t].damage), (unsigned long long)res[t].line,
                    (unsigned long long)res[t].entries, m == M_TRUNC_BARE ? "entries" : "line",
                    (unsigned long long)res[t].want);
    }
    munmap(res, n * sizeof(*res));
    if (known) {
        char what[200];
        snprintf(what, sizeof(what),
                 "%s: %zu case(s): a log cut to 0 bytes is 'malformed: empty log' at line 0, not "
                 "TRUNCATED at line 1 (the side file covers 200 lines)",
                 mut_names[m], known);
        known_bug(what);
    }
    if (crashed)
        fprintf(stderr, "  %s: %d worker(s) crashed\n", mut_names[m], crashed);
    return bad + (size_t)crashed;
}

/* Every stride-th offset in [0, len), from a random phase; with a stride
 * above 1 also every line's first byte (offset 0 included) and its newline:
 * the offsets where lines meet. */
static size_t *offsets(size_t *n)
{
    size_t phase = B.stride > 1 ? (size_t)rnd_below(B.stride) : 0;
    size_t *t = malloc((B.len / B.stride + 2 * B.n + 3) * sizeof(size_t));
    assert_non_null(t);
    *n = 0;
    for (size_t o = phase; o < B.len; o += B.stride)
        t[(*n)++] = o;
    if (B.stride > 1) {
        for (size_t k = 0; k < B.n; k++) {
            t[(*n)++] = B.start[k];
            t[(*n)++] = B.start[k + 1] - 1;
        }
    }
    return t;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_mutate_bytes(void **state)
{
    (void)state;
    double t0 = now_s();
    size_t n, bad = 0;
    size_t *t = offsets(&n);
    bad += run_mutations(M_FLIP, t, n);
    free(t);
    /* random masks at random offsets */
    size_t nm = 2000 / B.stride + 50;
    t = malloc(nm * sizeof(size_t));
    assert_non_null(t);
    for (size_t i = 0; i < nm; i++)
        t[i] = (size_t)rnd_below(B.len) | (size_t)(1 + rnd_below(255)) << 32;
    bad += run_mutations(M_MASK, t, nm);
    free(t);
    printf("# byte mutations: %zu flips + %zu masks in %.1f s\n", n, nm, now_s() - t0);
    if (bad)
        fail_msg("%zu byte mutation(s) not detected at the right line", bad);
}

static void test_mutate_lines(void **state)
{
    (void)state;
    double t0 = now_s();
    size_t *t = malloc(B.n * sizeof(size_t)), bad = 0;
    assert_non_null(t);
    for (size_t k = 0; k < B.n; k++)
        t[k] = k;
    bad += run_mutations(M_DELETE, t, B.n);
    bad += run_mutations(M_DUP, t, B.n);
    bad += run_mutations(M_SWAP, t, B.n - 1);
    free(t);
    printf("# line mutations: %zu deletions, duplications, swaps in %.1f s\n", B.n, now_s() - t0);
    if (bad)
        fail_msg("%zu line mutation(s) not detected at the right line", bad);
}

static void test_truncate(void **state)
{
    (void)state;
    double t0 = now_s();
    size_t n, bad = 0;
    size_t *t = offsets(&n);
    bad += run_mutations(M_TRUNC_SIDE, t, n);
    free(t);
    t = offsets(&n);
    bad += run_mutations(M_TRUNC_BARE, t, n);
    free(t);
    printf("# truncations: 2 x %zu offsets in %.1f s\n", n, now_s() - t0);
    if (bad)
        fail_msg("%zu truncation(s) misdiagnosed", bad);
}

/* ---- rewrites ------------------------------------------------------------- */

struct lines {
    size_t n;
    char **s;
};

static void split_lines(const char *buf, size_t len, struct lines *L)
{
    L->n = 0;
    L->s = calloc(len + 1, sizeof(char *));
    assert_non_null(L->s);
    size_t a = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n') {
            L->s[L->n] = strndup(buf + a, i - a);
            assert_non_null(L->s[L->n]);
            L->n++;
            a = i + 1;
        }
}

static char *join_lines(const struct lines *L, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < L->n; i++)
        total += strlen(L->s[i]) + 1;
    char *buf = malloc(total + 1), *p = buf;
    assert_non_null(buf);
    for (size_t i = 0; i < L->n; i++) {
        size_t l = strlen(L->s[i]);
        memcpy(p, L->s[i], l);
        p[l] = '\n';
        p += l + 1;
    }
    *p = '\0';
    *len = total;
    return buf;
}

static void free_lines(struct lines *L)
{
    for (size_t i = 0; i < L->n; i++)
        free(L->s[i]);
    free(L->s);
}

static json_t *load_line(const char *s)
{
    json_error_t je;
    json_t *o = json_loads(s, JSON_REJECT_DUPLICATES, &je);
    if (!o)
        fail_msg("cannot parse a log line: %s", je.text);
    return o;
}

static void set_line(struct lines *L, size_t i, json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);
    assert_non_null(s);
    free(L->s[i]);
    L->s[i] = s;
}

/* Signed checkpoint note of (origin, size, root) by k. */
static char *sign_cp_for(const struct wt_note_key *k, const char *origin, uint64_t size,
                         const uint8_t root[32])
{
    struct wt_checkpoint cp = {.size = size};
    char body[512];
    snprintf(cp.origin, sizeof(cp.origin), "%s", origin);
    memcpy(cp.root, root, 32);
    int n = wt_checkpoint_format(&cp, body, sizeof(body));
    assert_true(n > 0);
    char *note = NULL;
    struct wt_err err = {{0}};
    must(wt_note_sign(k, body, (size_t)n, &note, &err), &err, "sign");
    return note;
}

static char *sign_cp(const struct wt_note_key *k, uint64_t size, const uint8_t root[32])
{
    return sign_cp_for(k, ORIGIN, size, root);
}

/* Recomputes every `prev` from line `from` on, the way the writer would;
 * with resign, also the genesis key and every checkpoint note.  Returns the
 * final root in root. */
static void rechain(struct lines *L, size_t from, const struct wt_note_key *resign,
                    uint8_t root[32])
{
    struct wt_merkle_range rg;
    wt_merkle_range_init(&rg);
    for (size_t i = 0; i < L->n; i++) {
        uint8_t cur[32], leaf[32];
        wt_merkle_range_root(&rg, cur);
        if (i >= from) {
            json_t *o = load_line(L->s[i]);
            char b64[45];
            wt_b64_hash(cur, b64);
            json_object_set_new(o, "prev", json_string(b64));
            const char *type = json_string_value(json_object_get(o, "type"));
            if (resign && !strcmp(type, "genesis")) {
                wt_b64_hash(resign->pk, b64);
                json_object_set_new(o, "pk", json_string(b64));
            }
            if (resign && !strcmp(type, "checkpoint")) {
                char *note = sign_cp(resign, i, cur);
                json_object_set_new(o, "note", json_string(note));
                free(note);
            }
            set_line(L, i, o);
            json_decref(o);
        }
        wt_merkle_leaf_hash(L->s[i], strlen(L->s[i]), leaf);
        wt_merkle_range_append(&rg, leaf);
    }
    wt_merkle_range_root(&rg, root);
}

/* The base log's lines in L with its first class record from the middle on
 * changed (class flipped, links left as they were); returns its index. */
static size_t edit_middle_class(struct lines *L)
{
    split_lines(B.log, B.len, L);
    size_t k = L->n / 2;
    while (!strstr(L->s[k], "\"type\":\"class\""))
        k++;
    json_t *o = load_line(L->s[k]);
    const char *was = json_string_value(json_object_get(o, "class"));
    json_object_set_new(o, "class", json_string(strcmp(was, "idle") ? "idle" : "training"));
    set_line(L, k, o);
    json_decref(o);
    return k;
}

static void test_rewrite_without_key(void **state)
{
    (void)state;
    struct lines L;
    size_t k = edit_middle_class(&L);
    uint8_t root[32];
    rechain(&L, k + 1, NULL, root);
    size_t len;
    char *buf = join_lines(&L, &len);
    /* the first checkpoint record after line k+1 no longer matches its note */
    size_t ck = k + 1;
    while (!strstr(L.s[ck], "\"type\":\"checkpoint\""))
        ck++;
    struct wt_verify_report r;
    for (int mode = 0; mode < 3; mode++) {
        /* pinned key + side file; pinned key alone; the log's own key alone */
        int st = verify_buf(buf, len, mode == 0 ? B.p.checkpoint : NULL, NULL, mode < 2, &r);
        if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_BAD_SIGNATURE || r.line != ck + 1)
            fail_msg("rewrite without the key (mode %d): status %d, %s", mode, st, r.message);
    }
    /* the attacker also drops the checkpoint records after the change: the side
     * file (or a witness) still catches it */
    struct lines M = {0, calloc(L.n, sizeof(char *))};
    assert_non_null(M.s);
    for (size_t i = 0; i < L.n; i++)
        if (i <= k || !strstr(L.s[i], "\"type\":\"checkpoint\""))
            M.s[M.n++] = strdup(L.s[i]);
    for (size_t i = k + 1; i < M.n; i++) {
        json_t *x = load_line(M.s[i]);
        json_object_set_new(x, "seq", json_integer((json_int_t)i));
        set_line(&M, i, x);
        json_decref(x);
    }
    rechain(&M, k + 1, NULL, root);
    free(buf);
    buf = join_lines(&M, &len);
    int st = verify_buf(buf, len, B.p.checkpoint, NULL, 1, &r);
    if (st != WT_VERIFY_DAMAGED || (r.damage != WT_DMG_TRUNCATED && r.damage != WT_DMG_REWRITTEN))
        fail_msg("rewrite without seals: status %d, %s", st, r.message);
    free(buf);
    free_lines(&L);
    free_lines(&M);
}

static void test_rewrite_other_key(void **state)
{
    (void)state;
    struct wt_note_key evil;
    struct wt_err err = {{0}};
    must(wt_note_key_generate(&evil, ORIGIN, WT_KEY_ED25519, &err), &err, "key");
    struct lines L;
    split_lines(B.log, B.len, &L);
    size_t k = 40;
    while (!strstr(L.s[k], "\"type\":\"class\""))
        k++;
    json_t *o = load_line(L.s[k]);
    json_object_set_new(o, "conf_ppm", json_integer(1));
    set_line(&L, k, o);
    json_decref(o);
    uint8_t root[32];
    rechain(&L, 0, &evil, root);
    size_t len;
    char *buf = join_lines(&L, &len);
    const char *dir = new_dir();
    char side[128];
    snprintf(side, sizeof(side), "%s/checkpoint", dir);
    char *note = sign_cp(&evil, L.n, root);
    write_file(side, note, strlen(note), 0644);
    free(note);
    struct wt_verify_report r;
    /* internally consistent: without the pinned key it verifies */
    int st = verify_buf(buf, len, side, NULL, 0, &r);
    if (st != WT_VERIFY_OK)
        fail_msg("the re-keyed log should be self-consistent: %s", r.message);
    /* with the original --vkey: the wrong key, at line 1 */
    st = verify_buf(buf, len, side, NULL, 1, &r);
    if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_WRONG_KEY || r.line != 1)
        fail_msg("re-keyed log with --vkey: status %d, %s", st, r.message);
    /* the real side file (signed by the real key) against the forged log */
    st = verify_buf(buf, len, B.p.checkpoint, NULL, 0, &r);
    if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_WRONG_KEY)
        fail_msg("re-keyed log with the real side file: status %d, %s", st, r.message);
    free(buf);
    free_lines(&L);
    wt_note_key_wipe(&evil);
}

/* ---- witness ---------------------------------------------------------------- */

static void copy_log_dir(const char *from, const char *to)
{
    char a[PATH_MAX], b[PATH_MAX];
    static const char *const files[] = {"log.jsonl", "checkpoint", "log.key"};
    for (int i = 0; i < 3; i++) {
        snprintf(a, sizeof(a), "%s/%s", from, files[i]);
        snprintf(b, sizeof(b), "%s/%s", to, files[i]);
        copy_file(a, b, i == 2 ? 0600 : 0640);
    }
}

/* Sends (old -> the checkpoint `note` of the log at logpath) to the witness,
 * naming vk as the log's key. */
static int witness_send_vk(const char *wdir, const struct wt_note_key *wk,
                           const struct wt_note_vkey *vk, const char *logpath, uint64_t old,
                           const char *note, struct wt_witness_result *res)
{
    struct wt_err err = {{0}};
    struct wt_note nt;
    struct wt_checkpoint cp;
    must(wt_note_parse(note, strlen(note), &nt, &err), &err, "note");
    must(wt_checkpoint_parse(nt.text, nt.body_len, &cp, &err), &err, "checkpoint");
    wt_note_free(&nt);
    struct wt_witness_req req;
    memset(&req, 0, sizeof(req));
    req.old_size = old;
    if (old > 0 && old <= cp.size) {
        uint8_t(*leaves)[32] = NULL;
        must(wt_log_read_leaves(logpath, cp.size, &leaves, UINT64_MAX, NULL, NULL, &err), &err,
             "leaves");
        assert_int_equal(wt_merkle_consistency_proof((const uint8_t(*)[32])leaves, cp.size, old,
                                                     req.proof, WT_PROOF_MAX_HASHES, &req.nproof),
                         0);
        free(leaves);
    }
    req.checkpoint = (char *)note;
    req.checkpoint_len = strlen(note);
    char *text = NULL;
    must(wt_witness_req_format(&req, &text, &err), &err, "request");
    int rc = wt_witness_add(wdir, wk, vk, text, strlen(text), 1767300000, res, &err);
    free(text);
    must(rc, &err, "witness");
    return res->code;
}

static int witness_send(const char *wdir, const struct wt_note_key *wk, const char *logpath,
                        uint64_t old, const char *note, struct wt_witness_result *res)
{
    return witness_send_vk(wdir, wk, &B.vk, logpath, old, note, res);
}

static char *side_note(const char *dir)
{
    char path[PATH_MAX];
    size_t n;
    snprintf(path, sizeof(path), "%s/checkpoint", dir);
    char *s = read_file(path, &n);
    assert_non_null(s);
    return s;
}

static void test_witness(void **state)
{
    (void)state;
    struct wt_err err = {{0}};
    const char *wdir = new_dir();
    struct wt_note_key wk;
    int created;
    must(wt_witness_key(wdir, "witness.test.invalid", &wk, &created, &err), &err, "witness key");
    assert_true(created);

    /* the witness first sees size 100 (a checkpoint the key holder signs), then
     * the whole log (size W = 200) with a consistency proof */
    uint8_t(*leaves)[32] = NULL;
    must(wt_log_read_leaves(B.p.log, B.n, &leaves, UINT64_MAX, NULL, NULL, &err), &err, "leaves");
    uint8_t root100[32];
    wt_merkle_root((const uint8_t(*)[32])leaves, 100, root100);
    free(leaves);
    char *note100 = sign_cp(&B.key, 100, root100);
    struct wt_witness_result res;
    /* an old size larger than the checkpoint's can never be valid (C2SP
     * tlog-witness): 400, not the 409 of an old size other than the one
     * held (none here), and nothing stored */
    assert_int_equal(witness_send(wdir, &wk, B.p.log, 101, note100, &res), WT_WITNESS_BAD_REQUEST);
    assert_contains(res.message, "old size 101 is larger than the checkpoint's size 100");
    assert_int_equal(count_files(wdir, "log-"), 0);
    assert_int_equal(witness_send(wdir, &wk, B.p.log, 0, note100, &res), WT_WITNESS_OK);
    free(note100);
    char *note = side_note(B.dir);
    if (witness_send(wdir, &wk, B.p.log, 100, note, &res) != WT_WITNESS_OK)
        fail_msg("the witness refused a good log: %s", res.message);
    free(note);
    const uint64_t W = B.n;
    char state_path[sizeof(res.state_path)];
    snprintf(state_path, sizeof(state_path), "%s", res.state_path);
    /* holding W: old W + 3 with the checkpoint of size W is 400 as well (it
     * is checked before the size held), old W - 1 still a 409 */
    {
        size_t l0, l1;
        char *s0 = read_file(state_path, &l0);
        note = side_note(B.dir);
        assert_int_equal(witness_send(wdir, &wk, B.p.log, W + 3, note, &res),
                         WT_WITNESS_BAD_REQUEST);
        assert_contains(res.message, "is larger than the checkpoint's size");
        assert_int_equal(witness_send(wdir, &wk, B.p.log, W - 1, note, &res), WT_WITNESS_CONFLICT);
        free(note);
        /* the size held with another root: a fork at that size, 409 as C2SP
         * tlog-witness says (it was the 422 of a proof that fails) */
        uint8_t other[32];
        memset(other, 0xab, sizeof(other));
        note = sign_cp(&B.key, W, other);
        assert_int_equal(witness_send(wdir, &wk, B.p.log, W, note, &res), WT_WITNESS_CONFLICT);
        assert_contains(res.message, "another root");
        free(note);
        char *s1 = read_file(state_path, &l1);
        assert_true(l0 == l1 && !memcmp(s0, s1, l0));
        free(s0);
        free(s1);
    }
    struct wt_verify_report r;
    if (verify_path(B.p.log, B.p.checkpoint, state_path, &r) != WT_VERIFY_OK)
        fail_msg("the base log against the witness: %s", r.message);
    /* a checkpoint the log key signed for 0 lines with a root other than the
     * empty log's: damage, said without a range (it said "lines 1..0 were
     * rewritten") */
    {
        uint8_t other[32];
        memset(other, 0xcd, sizeof(other));
        char *zero = sign_cp(&B.key, 0, other);
        char zpath[PATH_MAX];
        snprintf(zpath, sizeof(zpath), "%s/zero.checkpoint", wdir);
        write_file(zpath, zero, strlen(zero), 0644);
        free(zero);
        int zst = verify_path(B.p.log, B.p.checkpoint, zpath, &r);
        if (zst != WT_VERIFY_DAMAGED || r.damage != WT_DMG_REWRITTEN)
            fail_msg("a size-0 checkpoint with another root: status %d, %s", zst, r.message);
        assert_contains(r.message, "for 0 lines with a root other than the empty log's");
        assert_null(strstr(r.message, "1..0"));
    }

    /* (a) truncate below W, re-publish with the real key, grow again */
    const char *da = new_dir();
    copy_log_dir(B.dir, da);
    struct wt_log_paths pa;
    must(wt_log_paths_dir(&pa, da, &err), &err, "paths");
    const uint64_t T = 150;
    assert_int_equal(truncate(pa.log, (off_t)B.start[T]), 0);
    assert_int_equal(unlink(pa.checkpoint), 0);
    struct wt_log *l;
    /* without its checkpoint file a writer refuses the log; the key holder
     * reseals it (recover --reseal) */
    assert_int_equal(wt_log_open(&l, &pa, &log_opts, NULL, &err), WT_EINVAL);
    assert_contains(err.msg, "checkpoint file");
    struct wt_log_opts reseal = log_opts;
    reseal.reseal = 1;
    must(wt_log_open(&l, &pa, &reseal, NULL, &err), &err, "open truncated");
    assert_int_equal(wt_log_published(l), T);
    wt_log_close(l);
    int st = verify_path(pa.log, pa.checkpoint, NULL, &r);
    assert_true(st == WT_VERIFY_OK || st == WT_VERIFY_WARN); /* alone it looks fine */
    st = verify_path(pa.log, pa.checkpoint, state_path, &r);
    if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_TRUNCATED || r.line != T + 1)
        fail_msg("truncated below the witness: status %d, %s", st, r.message);
    note = side_note(da);
    assert_int_equal(witness_send(wdir, &wk, pa.log, T, note, &res), WT_WITNESS_CONFLICT);
    assert_int_not_equal(witness_send(wdir, &wk, pa.log, W, note, &res), WT_WITNESS_OK);
    free(note);
    must(wt_log_open(&l, &pa, &log_opts, NULL, &err), &err, "reopen");
    for (unsigned i = 0; wt_log_size(l) < W + 20; i++)
        append_entry(l, 1000 + i);
    must(wt_log_seal(l, &err), &err, "seal");
    wt_log_close(l);
    st = verify_path(pa.log, pa.checkpoint, state_path, &r);
    if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_REWRITTEN)
        fail_msg("truncated and regrown past the witness: status %d, %s", st, r.message);
    note = side_note(da);
    st = witness_send(wdir, &wk, pa.log, W, note, &res);
    if (st != WT_WITNESS_BAD_PROOF && st != WT_WITNESS_CONFLICT)
        fail_msg("the witness accepted a regrown log: %d %s", st, res.message);
    free(note);

    /* (b) a fork: a new log with the same key and origin */
    const char *db = new_dir();
    struct wt_log_paths pb;
    char vk2[512];
    must(wt_log_paths_dir(&pb, db, &err), &err, "paths");
    fake_now += 3600 * 1000;
    must(wt_log_init(&pb, ORIGIN, &B.key, &log_opts, vk2, sizeof(vk2), &err), &err, "init fork");
    assert_string_equal(vk2, B.vkey);
    must(wt_log_open(&l, &pb, &log_opts, NULL, &err), &err, "open fork");
    for (unsigned i = 0; wt_log_size(l) < W + 5; i++)
        append_entry(l, 5000 + i);
    must(wt_log_seal(l, &err), &err, "seal");
    wt_log_close(l);
    st = verify_path(pb.log, pb.checkpoint, NULL, &r);
    if (st != WT_VERIFY_OK)
        fail_msg("the fork alone verifies: %s", r.message);
    st = verify_path(pb.log, pb.checkpoint, state_path, &r);
    if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_REWRITTEN)
        fail_msg("fork against the witness: status %d, %s", st, r.message);
    note = side_note(db);
    st = witness_send(wdir, &wk, pb.log, W, note, &res);
    if (st != WT_WITNESS_BAD_PROOF && st != WT_WITNESS_CONFLICT)
        fail_msg("the witness accepted a fork: %d %s", st, res.message);
    free(note);

    /* the honest log keeps growing: the witness still cosigns it */
    const char *dc = new_dir();
    copy_log_dir(B.dir, dc);
    struct wt_log_paths pc;
    must(wt_log_paths_dir(&pc, dc, &err), &err, "paths");
    must(wt_log_open(&l, &pc, &log_opts, NULL, &err), &err, "open honest");
    for (unsigned i = 0; i < 7; i++)
        append_entry(l, 9000 + i);
    must(wt_log_seal(l, &err), &err, "seal");
    wt_log_close(l);
    note = side_note(dc);
    if (witness_send(wdir, &wk, pc.log, W, note, &res) != WT_WITNESS_OK)
        fail_msg("the witness refused the honest log: %s", res.message);
    free(note);
    if (verify_path(pc.log, pc.checkpoint, state_path, &r) != WT_VERIFY_OK)
        fail_msg("the honest log against the witness: %s", r.message);

    /* (c) another key of the same name (anyone can init a log with this
     * origin) signs the honest log's own checkpoint: the witness holds the
     * origin for the key it first saw, and leaves its copy as it was */
    struct wt_note_key evil;
    struct wt_note_vkey evil_vk;
    must(wt_note_key_generate(&evil, ORIGIN, WT_KEY_ED25519, &err), &err, "key");
    wt_note_key_public(&evil, &evil_vk);
    size_t before_len, after_len;
    char *before = read_file(state_path, &before_len);
    const uint64_t S = res.new_size; /* the honest size the witness holds */
    uint8_t(*lv)[32] = NULL;
    must(wt_log_read_leaves(pc.log, S, &lv, UINT64_MAX, NULL, NULL, &err), &err, "leaves");
    uint8_t rootS[32];
    wt_merkle_root((const uint8_t(*)[32])lv, S, rootS);
    free(lv);
    char *evil_note = sign_cp(&evil, S, rootS);
    st = witness_send_vk(wdir, &wk, &evil_vk, pc.log, S, evil_note, &res);
    if (st != WT_WITNESS_FORBIDDEN)
        fail_msg("the witness let another key of the origin advance it: %d %s", st, res.message);
    assert_contains(res.message, "another log key");
    free(evil_note);
    char *after = read_file(state_path, &after_len);
    assert_true(before_len == after_len && !memcmp(before, after, before_len));
    free(before);
    free(after);
    wt_note_key_wipe(&evil);

    /* (d) the side file's own signature line repeated (all valid; anyone who
     * can write the file can do it): still cosigned, one copy kept */
    note = side_note(dc);
    size_t nl = strlen(note);
    const char *last = note + nl - 1;
    while (last > note && last[-1] != '\n')
        last--;
    size_t sl = (size_t)(note + nl - last);
    char *dup = malloc(nl + 15 * sl + 1);
    assert_non_null(dup);
    memcpy(dup, note, nl);
    for (int i = 0; i < 15; i++)
        memcpy(dup + nl + (size_t)i * sl, last, sl);
    dup[nl + 15 * sl] = '\0';
    if (witness_send(wdir, &wk, pc.log, S, dup, &res) != WT_WITNESS_OK)
        fail_msg("the witness refused repeated signature lines: %s", res.message);
    after = read_file(state_path, &after_len);
    size_t lines = 0;
    for (size_t i = 0; i < after_len; i++)
        lines += after[i] == '\n';
    assert_int_equal(lines, 6); /* origin, size, root, blank, log signature, cosignature */
    free(after);
    free(dup);
    free(note);
    wt_note_key_wipe(&wk);
}

/* A checkpoint of another origin signed with the log's own key (the key's
 * name, the log's origin, is in the signature line, but the body names
 * another log): not this log's, so it is neither compared with the log
 * (REWRITTEN, TRUNCATED) nor taken to seal it, but is an error of its own,
 * as the side file and as --against, pinned or not. */
static void test_other_origin(void **state)
{
    (void)state;
    static const char other[] = "workloadtruth.attack.invalid/another-log";
    struct wt_err err = {{0}};
    struct wt_note nt;
    struct wt_checkpoint side;
    char *sn = side_note(B.dir);
    must(wt_note_parse(sn, strlen(sn), &nt, &err), &err, "side note");
    must(wt_checkpoint_parse(nt.text, nt.body_len, &side, &err), &err, "side checkpoint");
    wt_note_free(&nt);
    free(sn);
    assert_int_equal(side.size, B.n);
    uint8_t bad_root[32];
    memcpy(bad_root, side.root, 32);
    bad_root[0] ^= 1;
    const char *dw = new_dir();
    copy_log_dir(B.dir, dw);
    char path[128];
    snprintf(path, sizeof(path), "%s/other.checkpoint", dw);
    struct wt_verify_report r;
    /* control: the log's own origin with another root is a rewrite */
    char *note = sign_cp(&B.key, B.n, bad_root);
    write_file(path, note, strlen(note), 0644);
    free(note);
    int st = verify_buf(B.log, B.len, B.p.checkpoint, path, 1, &r);
    if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_REWRITTEN)
        fail_msg("control (same origin, other root): status %d, %s", st, r.message);
    /* the log's own root and size (would seal it), another root (would be
     * REWRITTEN), a larger size (would be TRUNCATED) */
    const struct {
        uint64_t size;
        const uint8_t *root;
    } cases[] = {{B.n, side.root}, {B.n, bad_root}, {B.n + 5, bad_root}, {2, bad_root}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        note = sign_cp_for(&B.key, other, cases[c].size, cases[c].root);
        write_file(path, note, strlen(note), 0644);
        free(note);
        for (int pin = 0; pin <= 1; pin++)
            for (int as_side = 0; as_side <= 1; as_side++) {
                st = as_side ? verify_buf(B.log, B.len, path, NULL, pin, &r)
                             : verify_buf(B.log, B.len, B.p.checkpoint, path, pin, &r);
                if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_WRONG_KEY || r.line != 0)
                    fail_msg("another origin's checkpoint (size %llu, case %zu, pin %d, %s): "
                             "status %d, %s",
                             (unsigned long long)cases[c].size, c, pin,
                             as_side ? "side file" : "--against", st, r.message);
                assert_contains(r.message, "belongs to another log");
                assert_contains(r.message, other);
                assert_contains(r.message, ORIGIN);
                if (as_side) /* not taken as the log's published size */
                    assert_int_equal(r.side_size, 0);
            }
    }
    /* the log cut by its last 5 lines, another log's checkpoint as the side
     * file and the log's own (for all B.n lines) given with --against: the
     * truncation is what is reported, not hidden behind the other log's
     * checkpoint (it was, until 2026-12-04, when that one came first) */
    note = sign_cp_for(&B.key, other, B.n, side.root);
    write_file(path, note, strlen(note), 0644);
    free(note);
    for (int pin = 0; pin <= 1; pin++) {
        st = verify_buf(B.log, B.start[B.n - 5], path, B.p.checkpoint, pin, &r);
        if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_TRUNCATED || r.line != B.n - 4)
            fail_msg("cut log, another origin's side file, its own checkpoint (pin %d): status "
                     "%d, %s",
                     pin, st, r.message);
    }
    /* a writer does not take such a side file up either */
    struct wt_log_paths pw;
    must(wt_log_paths_dir(&pw, dw, &err), &err, "paths");
    note = sign_cp_for(&B.key, other, B.n, side.root);
    write_file(pw.checkpoint, note, strlen(note), 0644);
    free(note);
    struct wt_log *l;
    assert_int_equal(wt_log_open(&l, &pw, &log_opts, NULL, &err), WT_EINVAL);
    assert_contains(err.msg, "belongs to another log");
}

/* ---- power loss --------------------------------------------------------------- */

static void test_power_loss(void **state)
{
    (void)state;
    struct wt_err err = {{0}};
    /* the next line, as the writer would have written it */
    const char *d0 = new_dir();
    copy_log_dir(B.dir, d0);
    struct wt_log_paths p0;
    must(wt_log_paths_dir(&p0, d0, &err), &err, "paths");
    struct wt_log *l;
    must(wt_log_open(&l, &p0, &log_opts, NULL, &err), &err, "open");
    append_entry(l, 777);
    wt_log_close(l);
    size_t flen;
    char *full = read_file(p0.log, &flen);
    assert_non_null(full);
    assert_memory_equal(full, B.log, B.len);
    const size_t next_len = flen - B.len; /* the next line, newline included */

    for (int trial = 0; trial < 16; trial++) {
        int kind = trial % 4; /* cut; NULs; cut + NULs; cut with a covering signature */
        size_t cut = kind == 1 ? 0 : 1 + (size_t)rnd_below(next_len - 1);
        size_t nuls = kind == 1 || kind == 2 ? 512 + (size_t)rnd_below(4096 - 512 + 1) : 0;
        size_t tail = cut + nuls, len = B.len + tail;
        char *buf = malloc(len);
        assert_non_null(buf);
        memcpy(buf, full, B.len + cut);
        memset(buf + B.len + cut, 0, nuls);
        const char *d = new_dir();
        copy_log_dir(B.dir, d);
        struct wt_log_paths p;
        must(wt_log_paths_dir(&p, d, &err), &err, "paths");
        write_file(p.log, buf, len, 0640);
        struct wt_verify_report r;
        if (kind == 3) {
            /* the side file already covers the torn line: not a torn write but a
             * truncation, and the writer refuses to touch it */
            struct wt_verify_report rf;
            assert_int_equal(verify_buf(full, flen, NULL, NULL, 1, &rf), WT_VERIFY_WARN);
            char *note = sign_cp(&B.key, B.n + 1, rf.root);
            write_file(p.checkpoint, note, strlen(note), 0640);
            free(note);
            int st = verify_path(p.log, p.checkpoint, NULL, &r);
            if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_TRUNCATED || r.line != B.n + 1)
                fail_msg("a cut inside a signed line: status %d, %s", st, r.message);
            assert_int_not_equal(wt_log_open(&l, &p, &log_opts, NULL, &err), 0);
            free(buf);
            continue;
        }
        int st = verify_path(p.log, p.checkpoint, NULL, &r);
        if (st != WT_VERIFY_WARN || r.damage != WT_DMG_TORN_TAIL || r.entries != B.n ||
            r.line != B.n + 1 || r.valid_bytes != B.len)
            fail_msg("torn tail (cut %zu, %zu NULs): status %d, %s", cut, nuls, st, r.message);
        struct wt_log_recovery rec;
        must(wt_log_open(&l, &p, &log_opts, &rec, &err), &err, "recover");
        wt_log_close(l);
        assert_true(rec.repaired);
        assert_int_equal(rec.offset, B.len);
        assert_int_equal(rec.dropped, tail);
        size_t qlen;
        char *q = read_file(rec.quarantine, &qlen);
        if (!q)
            fail_msg("no quarantine file %s", rec.quarantine);
        assert_int_equal(qlen, tail);
        assert_memory_equal(q, buf + B.len, tail);
        free(q);
        size_t rlen;
        char *after = read_file(p.log, &rlen);
        assert_memory_equal(after, B.log, B.len);
        struct wt_entry e;
        assert_true(rlen > B.len);
        must(wt_entry_parse(after + B.len, rlen - B.len - 1, &e, &err), &err, "recovery record");
        assert_int_equal(e.type, WT_ENTRY_RECOVERY);
        assert_int_equal(e.seq, B.n);
        assert_int_equal(json_integer_value(json_object_get(e.obj, "dropped_bytes")), tail);
        assert_int_equal(json_integer_value(json_object_get(e.obj, "offset")), B.len);
        wt_entry_free(&e);
        st = verify_path(p.log, p.checkpoint, NULL, &r);
        if (st != WT_VERIFY_OK || r.entries != B.n + 1 || r.recoveries != 1)
            fail_msg("after recovery: status %d, %s", st, r.message);
        /* recover(recover(x)) == recover(x) */
        size_t clen, rlen2, clen2;
        char *ck = read_file(p.checkpoint, &clen);
        must(wt_log_open(&l, &p, &log_opts, &rec, &err), &err, "reopen");
        wt_log_close(l);
        assert_false(rec.repaired);
        char *after2 = read_file(p.log, &rlen2), *ck2 = read_file(p.checkpoint, &clen2);
        assert_int_equal(rlen2, rlen);
        assert_memory_equal(after2, after, rlen);
        assert_int_equal(clen2, clen);
        assert_memory_equal(ck2, ck, clen);
        assert_int_equal(count_files(d, "log.jsonl.torn."), 1);
        free(after);
        free(after2);
        free(ck);
        free(ck2);
        free(buf);
    }
    free(full);
}

/* A log file that is empty, or whose first line is torn (part of a genesis
 * line, NULs), with the key in place and no side file.  init writes the
 * genesis record to a temporary file and renames it into place, so no
 * interrupted init leaves this: it is someone who could write the file (no
 * key needed) emptying or cutting it.  The writer must refuse it and leave it
 * as it is, not start a fresh log that would verify under the same key. */
static void test_torn_genesis(void **state)
{
    (void)state;
    struct wt_err err = {{0}};
    for (int kind = 0; kind < 4; kind++) {
        const char *d = new_dir();
        struct wt_log_paths p;
        must(wt_log_paths_dir(&p, d, &err), &err, "paths");
        copy_file(B.p.key, p.key, 0600);
        char buf[4096];
        size_t len = kind == 0 ? 100 : kind == 1 ? 512 : kind == 3 ? 8 : 0;
        if (kind == 0)
            memcpy(buf, B.log, len); /* a cut inside the genesis line */
        else if (kind == 3)
            memcpy(buf, "garbage\n", len); /* one complete line that is no record */
        else
            memset(buf, 0, len); /* a NUL block where the genesis line should be; or empty */
        write_file(p.log, buf, len, 0640);
        struct wt_verify_report r;
        /* damage, as the writers below say, never "intact with warnings"
         * (a torn tail): the whole history is gone, the key pinned or not */
        for (int pin = 0; pin < 2; pin++) {
            struct wt_verify_opts vo = {.vkey = pin ? &B.vk : NULL, .side_path = p.checkpoint};
            int st = wt_verify_file(p.log, &vo, &r);
            if (st != WT_VERIFY_DAMAGED)
                fail_msg("a log with no genesis record (kind %d) verified with status %d: %s", kind,
                         st, r.message);
            assert_int_equal(r.entries, 0);
        }
        struct wt_log *l = NULL;
        struct wt_log_recovery rec;
        if (wt_log_open(&l, &p, &log_opts, &rec, &err) == WT_OK)
            fail_msg("the writer appended to a log with no genesis record (%s)",
                     kind == 0   ? "100 bytes of the genesis line"
                     : kind == 1 ? "512 NUL bytes"
                     : kind == 3 ? "a line of garbage"
                                 : "empty");
        assert_null(l);
        assert_contains(err.msg, "damaged log");
        struct stat st;
        assert_int_equal(stat(p.log, &st), 0);
        assert_int_equal((size_t)st.st_size, len); /* left as evidence */
        assert_int_not_equal(access(p.checkpoint, F_OK), 0);
    }
    /* init itself writes no partial log: the genesis goes through LOG.init.XXXXXX */
    const char *d = new_dir();
    struct wt_log_paths p;
    must(wt_log_paths_dir(&p, d, &err), &err, "paths");
    char vkey[512];
    must(wt_log_init(&p, ORIGIN, NULL, &log_opts, vkey, sizeof(vkey), &err), &err, "init");
    DIR *dh = opendir(d);
    assert_non_null(dh);
    for (struct dirent *e; (e = readdir(dh)) != NULL;)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "log.jsonl") && strcmp(e->d_name, "log.key") &&
            strcmp(e->d_name, "checkpoint") && strcmp(e->d_name, "log.lock"))
            fail_msg("init left %s behind", e->d_name); /* a temporary file */
    closedir(dh);
    struct wt_verify_report r;
    assert_int_equal(wt_verify_file(p.log, &(struct wt_verify_opts){.side_path = p.checkpoint}, &r),
                     WT_VERIFY_OK);
    /* a second init, as a concurrent classify --log-dir makes one, never
     * replaces the log the first one made; nor an emptied one (left as it is) */
    char vkey2[512];
    assert_int_not_equal(wt_log_init(&p, ORIGIN, NULL, &log_opts, vkey2, sizeof(vkey2), &err),
                         WT_OK);
    write_file(p.log, "", 0, 0640);
    assert_int_not_equal(wt_log_init(&p, ORIGIN, NULL, &log_opts, vkey2, sizeof(vkey2), &err),
                         WT_OK);
    assert_contains(err.msg, "is empty");
    struct stat est;
    assert_int_equal(stat(p.log, &est), 0);
    assert_int_equal(est.st_size, 0);
}

/* Power loss (or kill -9) during init between creating the key file and
 * writing it: an empty log.key and no log yet.  Nothing was ever logged, so
 * init should be able to start over. */
static void test_empty_key(void **state)
{
    (void)state;
    struct wt_err err = {{0}};
    const char *d = new_dir();
    struct wt_log_paths p;
    must(wt_log_paths_dir(&p, d, &err), &err, "paths");
    write_file(p.key, "", 0, 0600);
    char vkey[512];
    if (wt_log_init(&p, ORIGIN, NULL, &log_opts, vkey, sizeof(vkey), &err) != WT_OK) {
        /* KNOWN BUG (log.c wt_log_init): an existing key file is taken as "an
         * init interrupted after the key was written" and read; an empty or
         * partial one makes every later init fail, although no log exists. */
        char what[600];
        snprintf(what, sizeof(what),
                 "an init interrupted before the key file was written (empty log.key, no log) "
                 "cannot be restarted: %.400s",
                 err.msg);
        known_bug(what);
        return;
    }
    /* a log with a fresh key (not B's): verified with its own */
    struct wt_verify_opts o = {.side_path = p.checkpoint};
    struct wt_verify_report r;
    if (wt_verify_file(p.log, &o, &r) != WT_VERIFY_OK)
        fail_msg("after restarting init: %s", r.message);
}

/* Base64 in every format is strict: one spelling per value, so nobody can
 * re-spell a hash, key or signature (in a line, a note, the side file, a
 * witness request) without changing what it says.  Found by fuzz_entry,
 * fuzz_note and fuzz_proof. */
static void test_base64_strict(void **state)
{
    (void)state;
    /* "//AAA...A=" with "//" re-spelled as U+00E9 (0xc3 0xa9), which is
     * valid UTF-8 and so survives JSON and the note parser */
    static const char respelled[] = "\xc3\xa9"
                                    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    uint8_t h[32];
    assert_int_equal(strlen(respelled), 44);
    if (wt_b64_hash_decode(respelled, 44, h) == 0) {
        /* KNOWN BUG: libsodium 1.0.18's sodium_base642bin classifies the
         * character as a signed char, so every byte >= 0x80 decodes as '/';
         * note.c's b64_decode (and proof.c's 'extra' decoder) must reject
         * bytes outside [A-Za-z0-9+/=] before calling it. */
        known_bug("wt_b64_hash_decode accepts bytes >= 0x80 (decoded as '/'): hashes, keys, "
                  "signatures and proof 'extra' can be re-spelled (libsodium 1.0.18 "
                  "sodium_base642bin)");
    }
}

/* ---- full disk (RLIMIT_FSIZE) and the lock ------------------------------------------ */

static void test_full_disk(void **state)
{
    (void)state;
    struct wt_err err = {{0}};
    const char *d = new_dir();
    copy_log_dir(B.dir, d);
    struct wt_log_paths p;
    must(wt_log_paths_dir(&p, d, &err), &err, "paths");
    struct wt_log *l;
    must(wt_log_open(&l, &p, &log_opts, NULL, &err), &err, "open");
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
    for (int room = 0; room <= 40; room += 20) {
        /* room 0: write() fails outright (EFBIG); otherwise a short write */
        struct rlimit lim = old;
        lim.rlim_cur = (rlim_t)B.len + (rlim_t)room;
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        json_t *f = class_fields(4242);
        uint64_t seq = 12345;
        int rc = wt_log_append(l, WT_ENTRY_CLASS, f, &seq, &err);
        json_decref(f);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        if (rc == 0)
            fail_msg("an append past RLIMIT_FSIZE succeeded");
        printf("# full disk (room %d): %s\n", room, err.msg);
        assert_int_equal(seq, 12345);
        assert_int_equal(wt_log_size(l), B.n);
        assert_false(wt_log_failed(l));
        struct stat st;
        assert_int_equal(stat(p.log, &st), 0);
        assert_int_equal(st.st_size, (off_t)B.len);
        struct wt_verify_report r;
        if (verify_path(p.log, p.checkpoint, NULL, &r) != WT_VERIFY_OK)
            fail_msg("after a full disk: %s", r.message);
    }
    signal(SIGXFSZ, oldsig);
    /* room again: the next append gets the seq the failed one would have had */
    json_t *f = class_fields(4243);
    uint64_t seq = 0;
    must(wt_log_append(l, WT_ENTRY_CLASS, f, &seq, &err), &err, "append after");
    json_decref(f);
    assert_int_equal(seq, B.n);
    must(wt_log_seal(l, &err), &err, "seal");
    wt_log_close(l);
    struct wt_verify_report r;
    if (verify_path(p.log, p.checkpoint, NULL, &r) != WT_VERIFY_OK || r.entries != B.n + 2)
        fail_msg("after the disk had room again: %s", r.message);
}

static void test_lock(void **state)
{
    (void)state;
    struct wt_err err = {{0}};
    const char *d = new_dir();
    copy_log_dir(B.dir, d);
    struct wt_log_paths p;
    must(wt_log_paths_dir(&p, d, &err), &err, "paths");
    struct wt_log *l1, *l2 = NULL;
    must(wt_log_open(&l1, &p, &log_opts, NULL, &err), &err, "open");
    assert_int_not_equal(wt_log_open(&l2, &p, &log_opts, NULL, &err), 0);
    assert_null(l2);
    assert_contains(err.msg, "in use");
    /* another process too */
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct wt_log *l3 = NULL;
        struct wt_err e2;
        _exit(wt_log_open(&l3, &p, &log_opts, NULL, &e2) == 0 ? 1 : 0);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    /* the same log named as --log-file DIR/log.jsonl, with its key there too:
     * another lock file's name, the same log, still locked out */
    struct wt_log_paths pf;
    must(wt_log_paths_file(&pf, p.log, &err), &err, "file paths");
    char cmd[2 * sizeof(p.key) + 16];
    snprintf(cmd, sizeof(cmd), "cp -p '%s' '%s'", p.key, pf.key);
    assert_int_equal(system(cmd), 0);
    assert_int_not_equal(wt_log_open(&l2, &pf, &log_opts, NULL, &err), 0);
    assert_null(l2);
    assert_contains(err.msg, "in use: another writer holds it (named another way");
    wt_log_close(l1);
    must(wt_log_open(&l2, &p, &log_opts, NULL, &err), &err, "open after close");
    wt_log_close(l2);
}

/* A new file (the signing key, a quarantine file) appears whole or not at
 * all: written to FILE.PID.N and linked as FILE, which fails if FILE exists;
 * no temporary file is left either way. */
static void test_excl_file(void **state)
{
    (void)state;
    const char *d = new_dir();
    char path[512];
    snprintf(path, sizeof(path), "%s/k", d);
    struct wt_err err = {{0}};
    must(wt_write_file_durable(d, path, "secret\n", 7, 0600, WT_FILE_EXCL, &err), &err, "create");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_size, 7);
    errno = 0;
    assert_int_not_equal(wt_write_file_durable(d, path, "other\n", 6, 0600, WT_FILE_EXCL, &err), 0);
    assert_int_equal(errno, EEXIST);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 7); /* not replaced */
    DIR *dh = opendir(d);
    assert_non_null(dh);
    int n = 0;
    for (struct dirent *e; (e = readdir(dh)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(dh);
    assert_int_equal(n, 1); /* no temporary file left */
    /* the mode is masked by the umask, as open() would */
    mode_t old = umask(077);
    snprintf(path, sizeof(path), "%s/q", d);
    must(wt_write_file_durable(d, path, "x", 1, 0640, WT_FILE_EXCL, &err), &err, "create 0640");
    umask(old);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

/* Many processes create the same log at once and each appends a record, as
 * `classify --log-dir` run by concurrent jobs does: one init wins, the others
 * fail or find the log, and no record any of them was told is written goes
 * missing (a genesis renamed over a log that already had records would drop
 * them, and the log would still verify). */
static void test_concurrent_init(void **state)
{
    (void)state;
    enum { ROUNDS = 30, KIDS = 6 };
    for (int round = 0; round < ROUNDS; round++) {
        const char *d = new_dir();
        struct wt_log_paths p;
        struct wt_err err = {{0}};
        must(wt_log_paths_dir(&p, d, &err), &err, "paths");
        pid_t pid[KIDS];
        fflush(stdout);
        for (int k = 0; k < KIDS; k++) {
            pid[k] = fork();
            assert_true(pid[k] >= 0);
            if (pid[k] == 0) {
                struct wt_err e = {{0}};
                char vkey[512];
                if (wt_log_init(&p, ORIGIN, NULL, &log_opts, vkey, sizeof(vkey), &e) != WT_OK) {
                    /* another process made it, or is making it */
                }
                struct wt_log *l = NULL;
                for (int tries = 0; tries < 400; tries++) {
                    if (wt_log_open(&l, &p, &log_opts, NULL, &e) == WT_OK)
                        break;
                    struct timespec ts = {0, 5000000L};
                    nanosleep(&ts, NULL);
                }
                if (!l)
                    _exit(2);
                json_t *f = json_pack("{s:I,s:i,s:s}", "uptime_s", (json_int_t)(424200 + k), "gpus",
                                      0, "state", "ok");
                int rc = wt_log_append(l, WT_ENTRY_HEARTBEAT, f, NULL, &e);
                json_decref(f);
                wt_log_close(l);
                _exit(rc == WT_OK ? 0 : 1);
            }
        }
        int appended = 0;
        for (int k = 0; k < KIDS; k++) {
            int ws;
            assert_int_equal(waitpid(pid[k], &ws, 0), pid[k]);
            appended += WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
        }
        struct wt_verify_report r;
        int st = wt_verify_file(p.log, &(struct wt_verify_opts){.side_path = p.checkpoint}, &r);
        if (st != WT_VERIFY_OK && st != WT_VERIFY_WARN) /* WARN: no --vkey pinned */
            fail_msg("round %d: the log does not verify: %s", round, r.message);
        size_t len;
        char *text = read_file(p.log, &len);
        int found = 0;
        for (const char *q = text; (q = strstr(q, "\"uptime_s\":4242")) != NULL; q++)
            found++;
        free(text);
        if (found != appended)
            fail_msg("round %d: %d records acknowledged, %d in the log", round, appended, found);
        assert_true(appended > 0);
    }
}

/* An altered line with a spoiled side file (a directory, or junk): the line
 * damage still stands (exit 1, the line named), not "no conclusion". */
static void test_edit_and_spoil_side(void **state)
{
    (void)state;
    struct lines L;
    size_t k = edit_middle_class(&L);
    size_t len;
    char *buf = join_lines(&L, &len);
    const char *d = new_dir();
    char junk[128], dirside[128];
    snprintf(junk, sizeof(junk), "%s/junk", d);
    snprintf(dirside, sizeof(dirside), "%s/adir", d);
    write_file(junk, "garbage\n", 8, 0644);
    assert_int_equal(mkdir(dirside, 0755), 0);
    const char *sides[] = {junk, dirside};
    for (int i = 0; i < 2; i++) {
        struct wt_verify_report r;
        int st = verify_buf(buf, len, sides[i], NULL, 0, &r);
        if (st != WT_VERIFY_DAMAGED || r.damage != WT_DMG_BROKEN_LINK || r.line != k + 1)
            fail_msg("edit + spoiled side file %s: status %d, damage %d, line %llu: %s", sides[i],
                     st, (int)r.damage, (unsigned long long)r.line, r.message);
        assert_contains(r.message, "could not be used");
        assert_contains(r.message, i ? "is a directory" : "note:"); /* and why */
    }
    free(buf);
    free_lines(&L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_log),
        cmocka_unit_test(test_mutate_lines),
        cmocka_unit_test(test_mutate_bytes),
        cmocka_unit_test(test_truncate),
        cmocka_unit_test(test_rewrite_without_key),
        cmocka_unit_test(test_rewrite_other_key),
        cmocka_unit_test(test_edit_and_spoil_side),
        cmocka_unit_test(test_other_origin),
        cmocka_unit_test(test_witness),
        cmocka_unit_test(test_power_loss),
        cmocka_unit_test(test_torn_genesis),
        cmocka_unit_test(test_empty_key),
        cmocka_unit_test(test_base64_strict),
        cmocka_unit_test(test_full_disk),
        cmocka_unit_test(test_lock),
        cmocka_unit_test(test_concurrent_init),
        cmocka_unit_test(test_excl_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
