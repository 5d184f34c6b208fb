/* The audit log end to end: the writer reproduces the spec's example log
 * byte for byte, the verifier accepts it, a torn tail is quarantined.
 * (Mutation, crash and full-disk tests are in test_audit_attack.c and the
 * shell tests.)
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE /* fopencookie */
#include "testutil.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/entry.h"
#include "audit/log.h"
#include "audit/note.h"
#include "audit/verify.h"

#define VEC WT_TEST_DATA "/../vectors/"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static void test_key(struct wt_note_key *k)
{
    uint8_t seed[32];
    const char *in = "workloadtruth example seed v1 (TEST ONLY)";
    crypto_hash_sha256(seed, (const unsigned char *)in, strlen(in));
    struct wt_err err;
    assert_int_equal(wt_note_key_from_seed(k, "workloadtruth.example.invalid/3f2a9c1e5b7d4a60",
                                           WT_KEY_ED25519, seed, &err),
                     0);
}

static int64_t fixed_clock(void *ctx)
{
    static const int64_t ts[] = {1767225600000, 1767225601234, 1767225660000, 1767225660001};
    int *i = ctx;
    return ts[(*i)++ % 4];
}

static void mktempdir(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/wt_audit_XXXXXX");
    assert_non_null(mkdtemp(dir));
}

/* A new log with a fresh key in a new temporary directory, open for writing. */
static struct wt_log *new_log(char *dir, size_t cap, struct wt_log_paths *p, const char *origin,
                              char *vkey, size_t vcap)
{
    struct wt_err err = {{0}};
    struct wt_log *l;
    mktempdir(dir, cap);
    assert_int_equal(wt_log_paths_dir(p, dir, &err), 0);
    if (wt_log_init(p, origin, NULL, NULL, vkey, vcap, &err) ||
        wt_log_open(&l, p, NULL, NULL, &err))
        fail_msg("%s", err.msg);
    return l;
}

static void append_class(struct wt_log *l, const char *cls, int conf_ppm)
{
    struct wt_err err = {{0}};
    json_t *f = json_pack("{s:s,s:s,s:i}", "gpu", "GPU-0", "class", cls, "conf_ppm", conf_ppm);
    if (wt_log_append(l, WT_ENTRY_CLASS, f, NULL, &err))
        fail_msg("%s", err.msg);
    json_decref(f);
}

static void remove_dir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_example_log(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    mktempdir(dir, sizeof(dir));
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_note_key k;
    test_key(&k);
    int tick = 0;
    struct wt_log_opts o = {.clock_ms = fixed_clock, .clock_ctx = &tick};
    assert_int_equal(wt_log_paths_dir(&p, dir, &err), 0);
    int rc = wt_log_init(&p, "workloadtruth.example.invalid/3f2a9c1e5b7d4a60", &k, &o, vkey,
                         sizeof(vkey), &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_string_equal(vkey, "workloadtruth.example.invalid/3f2a9c1e5b7d4a60+c67f557f+"
                              "ARE4HLwhnkjS25Tl21NYG7meC8v6yOZJ2S1LbFljqJcZ");
    struct wt_log *l;
    rc = wt_log_open(&l, &p, &o, NULL, &err);
    if (rc)
        fail_msg("%s", err.msg);
    json_t *f =
        json_pack("{s:s,s:s,s:i,s:{s:i,s:i,s:s}}", "gpu",
                  "GPU-5a1c0f3e-8b2d-4c6e-9f10-2b3c4d5e6f70", "class", "training", "conf_ppm",
                  973000, "evidence", "sm_util_pct", 97, "mem_used_mib", 71234, "proc", "python3");
    uint64_t seq = 99;
    assert_int_equal(wt_log_append(l, WT_ENTRY_CLASS, f, &seq, &err), 0);
    assert_int_equal(seq, 1);
    json_decref(f);
    assert_int_equal(wt_log_append(l, WT_ENTRY_HEARTBEAT, NULL, &seq, &err), 0);
    assert_int_equal(wt_log_seal(l, &err), 0);
    assert_int_equal(wt_log_size(l), 4);
    wt_log_close(l);

    size_t n1, n2;
    char *got = slurp(p.log, &n1), *want = slurp(VEC "example_log.jsonl", &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(got, want, n1);

    /* the checkpoint record's note is the spec's signed checkpoint for size 3 */
    char *ck = slurp(VEC "example_checkpoint.txt", &n2);
    const char *last = strstr(got, "\"seq\":3");
    assert_non_null(last);
    struct wt_entry e;
    const char *ls = strrchr(got, '{');
    (void)last;
    assert_int_equal(wt_entry_parse(ls, strlen(ls) - 1, &e, &err), 0);
    assert_int_equal(e.note_len, n2);
    assert_memory_equal(e.note, ck, n2);
    wt_entry_free(&e);

    /* the side file covers all 4 entries; the log verifies with the pinned key */
    struct wt_note_vkey vk;
    assert_int_equal(wt_note_parse_vkey(vkey, &vk, &err), 0);
    struct wt_verify_opts vo = {.vkey = &vk, .side_path = p.checkpoint};
    struct wt_verify_report r;
    int st = wt_verify_file(p.log, &vo, &r);
    if (st != WT_VERIFY_OK)
        fail_msg("%s / %s", r.message, r.nwarn ? r.warn[0] : "");
    assert_int_equal(r.entries, 4);
    assert_int_equal(r.sealed, 4);
    assert_int_equal(r.ckpt_records, 1);
    free(got);
    free(want);
    free(ck);
    wt_note_key_wipe(&k);
}

/* A log deleted (or replaced) while open takes no more appends: they
 * would be acknowledged and lost. */
static void test_deleted_log(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(
        dir, sizeof(dir), &p, "workloadtruth.example.invalid/0000000000000001", vkey, sizeof(vkey));
    assert_int_equal(wt_log_append(l, WT_ENTRY_HEARTBEAT, NULL, NULL, &err), 0);
    assert_int_equal(unlink(p.log), 0);
    assert_int_equal(wt_log_append(l, WT_ENTRY_HEARTBEAT, NULL, NULL, &err), WT_EIO);
    assert_non_null(strstr(err.msg, "deleted or replaced while open"));
    /* another file in its place */
    FILE *f = fopen(p.log, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(wt_log_append(l, WT_ENTRY_HEARTBEAT, NULL, NULL, &err), WT_EIO);
    wt_log_close(l);
    remove_dir(dir);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A key without its log is waited for while an init may be making it: the
 * key young, or the writers' lock held; not for an old key nobody holds. */
static void test_wait_for_init(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_log *l = new_log(dir, sizeof(dir), &p, NULL, vkey, sizeof(vkey));
    wt_log_close(l);
    assert_int_equal(wt_log_wait_for_init(&p, 2, 30, NULL), 1); /* the log exists */
    assert_int_equal(unlink(p.log), 0);
    double t0 = now_s();
    assert_int_equal(wt_log_wait_for_init(&p, 0, 0.3, NULL), 0); /* young key: up to max_s */
    assert_true(now_s() - t0 >= 0.25);
    struct timespec old[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
    assert_int_equal(utimensat(AT_FDCWD, p.key, old, 0), 0);
    t0 = now_s();
    assert_int_equal(wt_log_wait_for_init(&p, 0.2, 30, NULL), 0); /* old key: min_s only */
    double took = now_s() - t0;
    assert_true(took >= 0.15 && took < 20);
    int fd = open(p.lock, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX), 0); /* an init holding the lock */
    t0 = now_s();
    assert_int_equal(wt_log_wait_for_init(&p, 0, 0.3, NULL), 0);
    assert_true(now_s() - t0 >= 0.25);
    atomic_int stop = 1; /* a stop asked: the wait ends at once */
    t0 = now_s();
    assert_int_equal(wt_log_wait_for_init(&p, 2, 30, &stop), -1);
    assert_true(now_s() - t0 < 1);
    close(fd);
    assert_int_equal(unlink(p.key), 0);
    assert_int_equal(wt_log_wait_for_init(&p, 2, 30, NULL), 0);  /* no key: nothing to wait for */
    assert_int_equal(wt_log_wait_for_init(&p, 2, 30, &stop), 0); /* ... stop or not */
    remove_dir(dir);
}

static void same_report(const struct wt_verify_report *a, const struct wt_verify_report *b,
                        const char *what)
{
    if (a->status != b->status || a->damage != b->damage || a->line != b->line ||
        a->offset != b->offset || strcmp(a->message, b->message) || a->entries != b->entries ||
        a->valid_bytes != b->valid_bytes || a->file_bytes != b->file_bytes ||
        a->sealed != b->sealed || a->sealed_through != b->sealed_through ||
        a->side_size != b->side_size || a->ckpt_records != b->ckpt_records ||
        a->recoveries != b->recoveries || a->have_genesis != b->have_genesis ||
        memcmp(a->root, b->root, 32) || a->last_ts_ms != b->last_ts_ms ||
        a->sealed_ts_ms != b->sealed_ts_ms || a->nwarn != b->nwarn)
        fail_msg("%s: whole scan %d '%s' / resumed %d '%s'", what, a->status, a->message, b->status,
                 b->message);
    for (int i = 0; i < a->nwarn; i++)
        if (strcmp(a->warn[i], b->warn[i]))
            fail_msg("%s: warning '%s' / '%s'", what, a->warn[i], b->warn[i]);
}

static void same_resume(const struct wt_verify_resume *a, const struct wt_verify_resume *b,
                        const char *what)
{
    if (a->valid != b->valid)
        fail_msg("%s: prescan valid %d, kept valid %d", what, a->valid, b->valid);
    if (a->valid && (a->n != b->n || a->off != b->off || a->last_seal != b->last_seal ||
                     a->seal_before != b->seal_before || strcmp(a->key.name, b->key.name) ||
                     memcmp(a->key.pk, b->key.pk, 32) || a->sealed != b->sealed ||
                     a->sealed_through != b->sealed_through || a->ckpt_records != b->ckpt_records ||
                     a->recoveries != b->recoveries || a->last_line_len != b->last_line_len ||
                     memcmp(a->last_leaf, b->last_leaf, 32) || strcmp(a->origin, b->origin) ||
                     memcmp(a->pk, b->pk, 32) || memcmp(&a->range, &b->range, sizeof(a->range)) ||
                     a->last_ts_ms != b->last_ts_ms || a->sealed_ts_ms != b->sealed_ts_ms))
        fail_msg("%s: the state kept is not the prescan's (%llu / %llu lines)", what,
                 (unsigned long long)a->n, (unsigned long long)b->n);
}

/* The message a writer gives for lines it found unsealed: "signed" only when
 * the checkpoint file that signs them was written (a writer reopening a log
 * on a full disk said "signed", then that the file could not be written). */
static void test_unsealed_msg(void **state)
{
    (void)state;
    struct wt_log_recovery rec;
    char buf[1024];
    memset(&rec, 0, sizeof(rec));
    assert_int_equal(wt_log_unsealed_msg(&rec, "L", buf, sizeof(buf)), 0);
    rec.entries = 10;
    rec.unsealed = 2;
    assert_int_equal(wt_log_unsealed_msg(&rec, "L", buf, sizeof(buf)), 1);
    assert_non_null(strstr(buf, "L: signed lines 9..10, which no signed checkpoint covered"));
    snprintf(rec.publish_error, sizeof(rec.publish_error), "cannot write L.tmp: No space");
    assert_int_equal(wt_log_unsealed_msg(&rec, "L", buf, sizeof(buf)), 1);
    assert_null(strstr(buf, "signed lines"));
    assert_non_null(strstr(buf, "L: lines 9..10, which no signed checkpoint covered"));
    assert_non_null(strstr(buf, "will be signed once the checkpoint file can be written"));
}

/* Verifying from a prescan (a writer's scan of the log before it took the
 * lock) concludes exactly what a whole scan does: for a log whose prescan
 * saw any prefix of it (cut at a line's end or inside a line, as while
 * another writer appended), intact or with a line after the cut altered,
 * removed, repeated or torn, with the side file covering all of it, part
 * of it (an older checkpoint: the whole log is scanned) or missing, the
 * key pinned or not. */
static void test_prescan_resume(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(
        dir, sizeof(dir), &p, "workloadtruth.example.invalid/0000000000000002", vkey, sizeof(vkey));
    char old_side[128];
    snprintf(old_side, sizeof(old_side), "%s/old_checkpoint", dir);
    for (int i = 0; i < 14; i++) {
        append_class(l, i % 3 ? "training" : "inference", 900000 + i);
        if (i % 5 == 4)
            assert_int_equal(wt_log_seal(l, &err), 0);
        if (i == 6) { /* keep a checkpoint of part of the log */
            assert_int_equal(wt_log_publish(l, &err), 0);
            size_t n;
            char *ck = slurp(p.checkpoint, &n);
            FILE *o = fopen(old_side, "wb");
            assert_non_null(o);
            assert_int_equal(fwrite(ck, 1, n, o), n);
            fclose(o);
            free(ck);
        }
    }
    assert_int_equal(wt_log_publish(l, &err), 0);
    wt_log_close(l);
    size_t len;
    char *log = slurp(p.log, &len);
    struct wt_note_vkey vk;
    assert_int_equal(wt_note_parse_vkey(vkey, &vk, &err), 0);

    /* line starts */
    size_t starts[64], nl = 0;
    for (size_t i = 0; i < len && nl < 64; i++)
        if (i == 0 || log[i - 1] == '\n')
            starts[nl++] = i;
    char *v = malloc(2 * len + 64);
    assert_non_null(v);
    struct wt_verify_report *full = malloc(sizeof(*full)), *res = malloc(sizeof(*res));
    assert_non_null(full);
    assert_non_null(res);
    int resumed = 0;
    for (int variant = 0; variant < 7; variant++) {
        for (size_t target = 1; target < nl; target++) {
            /* the log as the writer finds it under the lock */
            size_t vl = 0, ts = starts[target], te = target + 1 < nl ? starts[target + 1] : len;
            switch (variant) {
            case 0: /* intact */
                memcpy(v, log, vl = len);
                break;
            case 1: /* a byte of line `target` altered */
                memcpy(v, log, vl = len);
                v[ts + (te - ts) / 2] ^= 0x01;
                break;
            case 2: /* line `target` removed */
                memcpy(v, log, ts);
                memcpy(v + ts, log + te, len - te);
                vl = len - (te - ts);
                break;
            case 3: /* line `target` repeated */
                memcpy(v, log, te);
                memcpy(v + te, log + ts, len - ts);
                vl = len + (te - ts);
                break;
            case 4: /* cut inside line `target` (a torn write) */
                memcpy(v, log, vl = ts + (te - ts) / 2);
                break;
            case 5: /* cut after line `target` */
                memcpy(v, log, vl = te);
                break;
            case 6: /* NUL bytes after line `target` */
                memcpy(v, log, te);
                memset(v + te, 0, 40);
                vl = te + 40;
                break;
            }
            for (int side = 0; side < 3; side++) {
                struct wt_verify_opts vo = {.vkey = side == 2 ? NULL : &vk,
                                            .side_path = side == 0   ? p.checkpoint
                                                         : side == 1 ? old_side
                                                                     : NULL};
                FILE *f = fmemopen(v, vl, "r");
                assert_non_null(f);
                wt_verify_stream(f, "log.jsonl", &vo, full);
                fclose(f);
                /* prescans of every prefix up to the changed line: at a line's
                 * end, and inside the line after it */
                for (size_t c = 1; c <= target; c++) {
                    for (int mid = 0; mid < 2; mid++) {
                        size_t cut = c < nl ? starts[c] : len;
                        if (mid && c < nl)
                            cut += 7;
                        if (cut > vl || cut > ts + (mid ? 7 : 0))
                            continue;
                        struct wt_verify_resume pre;
                        f = fmemopen(v, cut, "r");
                        assert_non_null(f);
                        assert_int_equal(wt_verify_prescan(f, NULL, NULL, &pre), 0);
                        fclose(f);
                        resumed += pre.valid;
                        f = fmemopen(v, vl, "r");
                        assert_non_null(f);
                        wt_verify_stream_from(f, "log.jsonl", &vo, &pre, res);
                        fclose(f);
                        char what[96];
                        snprintf(what, sizeof(what), "variant %d, line %zu, side %d, cut %zu",
                                 variant, target, side, cut);
                        same_report(full, res, what);
                        /* a reader's scan that keeps its state at the cut (the
                         * MCP server's): concludes the same, keeps what a prescan
                         * of the lines before the cut has, and resuming there
                         * again concludes the same */
                        struct wt_verify_resume kept, again;
                        f = fmemopen(v, vl, "r");
                        assert_non_null(f);
                        struct wt_verify_tail tail = {.want = 700};
                        wt_verify_stream_keep(f, "log.jsonl", &vo, NULL, cut, res, &kept, &tail);
                        fclose(f);
                        same_report(full, res, what);
                        /* its copy of the last lines verified: whole lines of the
                         * file, ending where the verified part does, those that
                         * start in its last 700 bytes */
                        assert_false(tail.failed);
                        if (res->entries) {
                            assert_non_null(tail.buf);
                            assert_int_equal(tail.off + tail.len, res->valid_bytes);
                            assert_memory_equal(tail.buf, v + tail.off, tail.len);
                            assert_true(tail.off == 0 || v[tail.off - 1] == '\n');
                            /* every line that starts in the last 700 bytes is there */
                            size_t x = res->valid_bytes > 700 ? res->valid_bytes - 700 : 0;
                            while (x > 0 && v[x - 1] != '\n')
                                x++;
                            assert_true(tail.off <= x);
                        }
                        free(tail.buf);
                        /* kept up to the old side file's size at most (the state
                         * before any external checkpoint counted) */
                        if (side != 1)
                            same_resume(&pre, &kept, what);
                        if (kept.valid) {
                            struct wt_verify_resume upto;
                            assert_true(kept.n <= pre.n);
                            f = fmemopen(v, kept.off, "r");
                            assert_non_null(f);
                            assert_int_equal(wt_verify_prescan(f, NULL, NULL, &upto), 0);
                            fclose(f);
                            same_resume(&upto, &kept, what);
                        }
                        f = fmemopen(v, vl, "r");
                        assert_non_null(f);
                        wt_verify_stream_keep(f, "log.jsonl", &vo, &kept, vl, res, &again, NULL);
                        fclose(f);
                        same_report(full, res, what);
                        if (kept.valid && res->resumed_lines != kept.n)
                            fail_msg("%s: resumed at %llu lines, kept %llu", what,
                                     (unsigned long long)res->resumed_lines,
                                     (unsigned long long)kept.n);
                    }
                }
            }
        }
    }
    assert_true(resumed > 100);
    free(full);
    free(res);
    free(v);
    free(log);
    remove_dir(dir);
}

/* The spec's example log as given, with its size-3 checkpoint. */
static void test_verify_vector(void **state)
{
    (void)state;
    struct wt_note_vkey vk;
    struct wt_err err;
    assert_int_equal(wt_note_parse_vkey("workloadtruth.example.invalid/3f2a9c1e5b7d4a60+c67f557f+"
                                        "ARE4HLwhnkjS25Tl21NYG7meC8v6yOZJ2S1LbFljqJcZ",
                                        &vk, &err),
                     0);
    size_t n;
    char *buf = slurp(VEC "example_log.jsonl", &n);
    struct wt_verify_opts vo = {.vkey = &vk, .side_path = VEC "example_checkpoint.txt"};
    struct wt_verify_report r;
    int st = wt_verify_buffer(buf, n, &vo, &r);
    /* line 4 (the checkpoint record) is past the size-3 checkpoint: a warning */
    assert_int_equal(st, WT_VERIFY_WARN);
    assert_int_equal(r.entries, 4);
    assert_int_equal(r.sealed, 3);
    char root[45];
    wt_b64_hash(r.root, root);
    assert_string_equal(root, "Q0m6Af69Q8DWTDxiEZr7KXo19y1OmUA9LsB7XlmymRw=");
    /* the wrong key */
    struct wt_note_key other;
    assert_int_equal(wt_note_key_generate(&other, "workloadtruth.example.invalid/3f2a9c1e5b7d4a60",
                                          WT_KEY_ED25519, &err),
                     0);
    wt_note_key_public(&other, &vk);
    st = wt_verify_buffer(buf, n, &vo, &r);
    assert_int_equal(st, WT_VERIFY_DAMAGED);
    assert_int_equal(r.damage, WT_DMG_WRONG_KEY);
    assert_int_equal(r.line, 1);
    free(buf);
}

/* Heartbeat status keys are flat as evidence is (docs/audit-log.md): at
 * most 64 keys, strings of at most 256 printable bytes; the free-form
 * heartbeat branch had no key limit and refused the empty strings evidence
 * takes.  Neither kind takes a NUL inside a string (jansson refuses it). */
static void test_flat_limits(void **state)
{
    (void)state;
    const char *head = "{\"v\":1,\"seq\":2,\"ts_ms\":1767225660000,\"type\":\"heartbeat\","
                       "\"prev\":\"3uymI7Exm4u7R1JkAG8ZyaB/42goLmrAK5s2/lLHB7E=\"";
    char line[4096];
    struct wt_entry e;
    struct wt_err err;
    for (int nkeys = 64; nkeys <= 65; nkeys++) {
        size_t off = (size_t)snprintf(line, sizeof(line), "%s", head);
        for (int i = 0; i < nkeys; i++)
            off += (size_t)snprintf(line + off, sizeof(line) - off, ",\"k%d\":%d", i, i);
        snprintf(line + off, sizeof(line) - off, "}");
        int rc = wt_entry_parse(line, strlen(line), &e, &err);
        if (nkeys == 64) {
            assert_int_equal(rc, WT_OK);
            wt_entry_free(&e);
        } else {
            assert_int_not_equal(rc, WT_OK);
            assert_non_null(strstr(err.msg, "more than 64 status keys"));
        }
    }
    snprintf(line, sizeof(line), "%s,\"status\":\"\"}", head);
    assert_int_equal(wt_entry_parse(line, strlen(line), &e, &err), WT_OK);
    wt_entry_free(&e);
    snprintf(line, sizeof(line), "%s,\"status\":\"a\\u0000b\"}", head);
    assert_int_not_equal(wt_entry_parse(line, strlen(line), &e, &err), WT_OK);
    snprintf(line, sizeof(line),
             "{\"v\":1,\"seq\":2,\"ts_ms\":1767225660000,\"type\":\"class\","
             "\"prev\":\"3uymI7Exm4u7R1JkAG8ZyaB/42goLmrAK5s2/lLHB7E=\",\"gpu\":\"GPU-1\","
             "\"class\":\"idle\",\"conf_ppm\":1,\"evidence\":{\"a\":\"x\\u0000y\"}}");
    assert_int_not_equal(wt_entry_parse(line, strlen(line), &e, &err), WT_OK); /* jansson */
}

/* The reader's string rules and the unsupported keyroll record, as
 * docs/audit-log.md states them: both are stricter than spec §5 (which lets
 * jansson escape control characters and bounds neither gpu nor model) and
 * §7 (FS mode), and were untested; a spec-conforming record outside them is
 * "malformed", so the docs must say so. */
static int class_rec(const char *fields)
{
    char line[1024];
    struct wt_entry e;
    struct wt_err err;
    snprintf(line, sizeof(line),
             "{\"v\":1,\"seq\":2,\"ts_ms\":1767225660000,\"type\":\"class\","
             "\"prev\":\"3uymI7Exm4u7R1JkAG8ZyaB/42goLmrAK5s2/lLHB7E=\",%s}",
             fields);
    int rc = wt_entry_parse(line, strlen(line), &e, &err);
    wt_entry_free(&e);
    return rc;
}

static void test_string_rules(void **state)
{
    (void)state;
    char f[600], s128[129], s129[130];
    memset(s128, 'g', 128);
    s128[128] = '\0';
    memset(s129, 'g', 129);
    s129[129] = '\0';
    const char *tail = "\"class\":\"idle\",\"conf_ppm\":1";
    snprintf(f, sizeof(f), "\"gpu\":\"%s\",%s", s128, tail);
    assert_int_equal(class_rec(f), WT_OK);
    snprintf(f, sizeof(f), "\"gpu\":\"%s\",%s", s129, tail);
    assert_int_not_equal(class_rec(f), WT_OK);
    snprintf(f, sizeof(f), "\"gpu\":\"G\",%s,\"model\":\"%s\"", tail, s128);
    assert_int_equal(class_rec(f), WT_OK);
    snprintf(f, sizeof(f), "\"gpu\":\"G\",%s,\"model\":\"%s\"", tail, s129);
    assert_int_not_equal(class_rec(f), WT_OK);
    snprintf(f, sizeof(f), "\"gpu\":\"G\",\"gpu_idx\":65535,%s", tail);
    assert_int_equal(class_rec(f), WT_OK);
    snprintf(f, sizeof(f), "\"gpu\":\"G\",\"gpu_idx\":65536,%s", tail);
    assert_int_not_equal(class_rec(f), WT_OK);
    /* control characters, escaped as jansson writes them: refused */
    snprintf(f, sizeof(f), "\"gpu\":\"G\",%s,\"model\":\"a\\tb\"", tail);
    assert_int_not_equal(class_rec(f), WT_OK);
    snprintf(f, sizeof(f), "\"gpu\":\"G\",%s,\"evidence\":{\"proc\":\"a\\u001bb\"}", tail);
    assert_int_not_equal(class_rec(f), WT_OK);
    snprintf(f, sizeof(f), "\"gpu\":\"G\",%s,\"evidence\":{\"proc\":\"caf\xc3\xa9\"}", tail);
    assert_int_equal(class_rec(f), WT_OK); /* UTF-8 is fine */

    /* a keyroll record, well formed and linked (seq 3 of the example log):
     * reported as malformed, "not supported", not taken as a torn tail */
    size_t n;
    char *ex = slurp(VEC "example_log.jsonl", &n);
    char *l4 = ex;
    for (int i = 0; i < 3; i++)
        l4 = strchr(l4, '\n') + 1;
    *l4 = '\0';
    char *buf = NULL;
    assert_true(
        asprintf(&buf,
                 "%s{\"v\":1,\"seq\":3,\"ts_ms\":1767225660001,\"type\":\"keyroll\","
                 "\"prev\":\"LxFLuD2UQY+OTkyA+3UEYhtTHYK/C1WqTSWu9XY8ZvQ=\",\"epoch\":1,"
                 "\"pk\":\"ETgcvCGeSNLblOXbU1gbuZ4Ly/rI5knZLUtsWWOolxk=\",\"note\":\"x\"}\n",
                 ex) > 0);
    struct wt_verify_report r;
    assert_int_equal(wt_verify_buffer(buf, strlen(buf), NULL, &r), WT_VERIFY_DAMAGED);
    assert_int_equal(r.damage, WT_DMG_MALFORMED);
    assert_int_equal(r.line, 4);
    assert_non_null(strstr(r.message, "not supported"));
    free(buf);
    free(ex);
}

/* A prescan whose reads straddle a cut-and-regrow of the log's tail (a torn
 * last line quarantined by another writer, which then appends its recovery
 * record; or a short write cut back and the next writer's line): the read
 * before the cut ended inside the torn line, the one after it went on in
 * the new line, and the two halves made one valid record that was never in
 * the file.  The writer holding the lock then resumed from it: the log, which
 * a whole scan verifies, was called damaged and the record was refused. */
struct racer {
    int fd, fired;
    const struct wt_log_paths *p;
};

static ssize_t racer_read(void *c, char *buf, size_t size)
{
    struct racer *r = c;
    ssize_t n = read(r->fd, buf, size);
    if (n == 0 && !r->fired) { /* the prescan is at the end of the torn line */
        r->fired = 1;
        /* another writer: quarantines the torn line, appends its recovery
         * record (seq as the torn line's, another ts_ms) and publishes */
        int tick = 0;
        struct wt_log_opts o = {.clock_ms = fixed_clock, .clock_ctx = &tick};
        struct wt_log *l;
        struct wt_log_recovery rec;
        struct wt_err err = {{0}};
        if (wt_log_open(&l, r->p, &o, &rec, &err))
            fail_msg("%s", err.msg);
        assert_true(rec.repaired);
        wt_log_close(l);
        n = read(r->fd, buf, size);
    }
    return n;
}

static void test_prescan_torn_recovery_race(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(
        dir, sizeof(dir), &p, "workloadtruth.example.invalid/0000000000000003", vkey, sizeof(vkey));
    append_class(l, "training", 1);
    assert_int_equal(wt_log_publish(l, &err), 0);
    uint64_t n = wt_log_size(l);
    wt_log_close(l);
    /* a writer killed inside its line: up to the middle of its ts_ms (the
     * recovery record's is 1767225600000) */
    FILE *o = fopen(p.log, "ab");
    assert_non_null(o);
    fprintf(o, "{\"v\":1,\"seq\":%llu,\"ts_ms\":1767225699", (unsigned long long)n);
    fclose(o);

    struct racer r = {.fd = open(p.log, O_RDONLY), .p = &p};
    assert_true(r.fd >= 0);
    cookie_io_functions_t io = {.read = racer_read};
    FILE *pf = fopencookie(&r, "r", io);
    assert_non_null(pf);
    struct wt_log_prescan ps;
    memset(&ps, 0, sizeof(ps));
    assert_int_equal(wt_verify_prescan(pf, NULL, NULL, &ps.v), 0);
    struct stat st;
    assert_int_equal(fstat(r.fd, &st), 0);
    ps.dev = (uint64_t)st.st_dev;
    ps.ino = (uint64_t)st.st_ino;
    fclose(pf);
    close(r.fd);
    assert_true(r.fired);

    /* the log is whole */
    struct wt_note_vkey vk;
    assert_int_equal(wt_note_parse_vkey(vkey, &vk, &err), 0);
    struct wt_verify_opts vo = {.vkey = &vk, .side_path = p.checkpoint};
    struct wt_verify_report *vr = malloc(sizeof(*vr));
    assert_non_null(vr);
    int st_v = wt_verify_file(p.log, &vo, vr);
    assert_true(st_v == WT_VERIFY_OK || st_v == WT_VERIFY_WARN);
    /* and the writer holding the lock finds it so */
    struct wt_log_opts lo = {.prescan = &ps};
    if (wt_log_open(&l, &p, &lo, NULL, &err))
        fail_msg("a whole log refused after a prescan across a quarantine: %s", err.msg);
    append_class(l, "idle", 2);
    assert_int_equal(wt_log_publish(l, &err), 0);
    wt_log_close(l);
    st_v = wt_verify_file(p.log, &vo, vr);
    assert_true(st_v == WT_VERIFY_OK || st_v == WT_VERIFY_WARN);
    free(vr);
    remove_dir(dir);
}

/* A reader takes no lock: a writer repairs a torn tail that crosses the
 * reader's 64 KiB read (cuts it back, appends in its place) between two of
 * its reads.  The halves of two lines then read as one malformed line
 * followed by another: the log was called damaged (exit 1) though no one
 * tampered.  A file that changed while read is read again. */
struct repairer {
    const struct wt_log_paths *p;
    int calls, fired;
};

static void repair_between_reads(void *ctx)
{
    struct repairer *rp = ctx;
    if (rp->calls++ != 0 || rp->fired)
        return; /* after the first read only, in the first scan */
    rp->fired = 1;
    struct wt_log *l;
    struct wt_log_recovery rec;
    struct wt_err err = {{0}};
    if (wt_log_open(&l, rp->p, NULL, &rec, &err))
        fail_msg("%s", err.msg);
    assert_true(rec.repaired);
    append_class(l, "inference", 7);
    append_class(l, "inference", 8);
    assert_int_equal(wt_log_publish(l, &err), 0);
    wt_log_close(l);
}

static void test_reader_torn_repair_race(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(
        dir, sizeof(dir), &p, "workloadtruth.example.invalid/0000000000000006", vkey, sizeof(vkey));
    struct stat st;
    do {
        append_class(l, "training", 1);
        assert_int_equal(stat(p.log, &st), 0);
    } while (st.st_size < 65536 - 400);
    assert_int_equal(wt_log_publish(l, &err), 0);
    uint64_t n = wt_log_size(l);
    wt_log_close(l);
    /* a writer killed inside its line, which crosses offset 65536 */
    assert_int_equal(stat(p.log, &st), 0);
    FILE *o = fopen(p.log, "ab");
    assert_non_null(o);
    fprintf(o, "{\"v\":1,\"seq\":%llu,\"ts_ms\":1767225699000,\"type\":\"class\",\"x\":\"",
            (unsigned long long)n);
    for (long k = st.st_size; k < 65536 + 300; k++)
        fputc('a', o);
    fclose(o);

    struct wt_note_vkey vk;
    assert_int_equal(wt_note_parse_vkey(vkey, &vk, &err), 0);
    struct repairer rp = {.p = &p};
    struct wt_verify_opts vo = {.vkey = &vk,
                                .side_path = p.checkpoint,
                                .after_read = repair_between_reads,
                                .after_read_ctx = &rp};
    struct wt_verify_report *vr = malloc(sizeof(*vr));
    assert_non_null(vr);
    int st_v = wt_verify_file(p.log, &vo, vr);
    assert_true(rp.fired);
    if (st_v != WT_VERIFY_OK && st_v != WT_VERIFY_WARN)
        fail_msg("a log repaired while read was called damaged: %s", vr->message);
    assert_int_not_equal(vr->damage, WT_DMG_TORN_TAIL); /* nor a tail torn that is not */
    assert_int_equal(vr->entries, n + 3); /* the recovery record and the two appended */
    free(vr);
    remove_dir(dir);
}

/* The accepted limit (verify.h): a line changed in place between the prescan
 * and the lock, here by cutting the file to nothing and writing it back
 * with one byte of a middle line altered (same inode, same size: not seen
 * as replaced or cut), is not seen by the writer, which appends and signs.
 * What it signs is the root of the lines as the prescan read them, so every
 * later verifier (and a writer that reads every line) finds the alteration. */
static void test_prescan_inplace_change_seen_later(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(
        dir, sizeof(dir), &p, "workloadtruth.example.invalid/0000000000000004", vkey, sizeof(vkey));
    for (int i = 0; i < 4; i++) {
        append_class(l, "training", 500000 + i);
    }
    assert_int_equal(wt_log_publish(l, &err), 0);
    wt_log_close(l);
    struct wt_log_prescan ps;
    wt_log_prescan(&p, NULL, &ps);
    assert_true(ps.v.valid);
    assert_int_equal(ps.v.n, 5);
    size_t len;
    char *log = slurp(p.log, &len);
    char *at = strstr(log, "\"conf_ppm\":500001"); /* line 3 of 5 */
    assert_non_null(at);
    at[strlen("\"conf_ppm\":50000")] = '9';
    int fd = open(p.log, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, log, len), (ssize_t)len);
    close(fd);
    struct wt_note_vkey vk;
    assert_int_equal(wt_note_parse_vkey(vkey, &vk, &err), 0);
    struct wt_verify_opts vo = {.vkey = &vk, .side_path = p.checkpoint};
    struct wt_verify_report *vr = malloc(sizeof(*vr));
    assert_non_null(vr);
    assert_int_equal(wt_verify_file(p.log, &vo, vr), WT_VERIFY_DAMAGED);
    struct wt_log_opts lo = {.prescan = &ps};
    /* the limit: this writer does not see it, and signs */
    if (wt_log_open(&l, &p, &lo, NULL, &err))
        fail_msg("%s", err.msg);
    {
        append_class(l, "idle", 7);
        assert_int_equal(wt_log_publish(l, &err), 0);
        wt_log_close(l);
    }
    /* not laundered: a whole scan sees the alteration; so do a writer that
     * reads every line (recover) and one without the state file; one with
     * the state its predecessor left (the lines it read, as the prescan read
     * them) does not read line 3 again, the same limit */
    assert_int_equal(wt_verify_file(p.log, &vo, vr), WT_VERIFY_DAMAGED);
    assert_int_equal(vr->damage, WT_DMG_BROKEN_LINK);
    assert_int_equal(vr->line, 3);
    struct wt_log_opts whole = {.whole = 1};
    wt_log_prescan(&p, NULL, &ps);
    whole.prescan = &ps;
    assert_int_not_equal(wt_log_open(&l, &p, &whole, NULL, &err), WT_OK);
    wt_log_prescan(&p, NULL, &ps);
    if (wt_log_open(&l, &p, &lo, NULL, &err))
        fail_msg("%s", err.msg);
    wt_log_close(l);
    assert_int_equal(unlink(p.state), 0);
    wt_log_prescan(&p, NULL, &ps);
    assert_int_not_equal(wt_log_open(&l, &p, &lo, NULL, &err), WT_OK);
    free(vr);
    free(log);
    remove_dir(dir);
}

/* A stop asked (watch's SIGTERM sets the flag) ends the verification and
 * the open it is part of, with WT_ESTOP, and leaves the log as it was; the
 * same log opens when no stop is asked. */
static void test_open_cancelled(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(
        dir, sizeof(dir), &p, "workloadtruth.example.invalid/0000000000000005", vkey, sizeof(vkey));
    append_class(l, "training", 500000);
    assert_int_equal(wt_log_publish(l, &err), 0);
    wt_log_close(l);
    size_t before_len;
    char *before = slurp(p.log, &before_len);
    atomic_int stop = 1;
    struct wt_verify_opts vo = {.side_path = p.checkpoint, .cancel = &stop};
    struct wt_verify_report *vr = malloc(sizeof(*vr));
    assert_non_null(vr);
    assert_int_equal(wt_verify_file(p.log, &vo, vr), WT_VERIFY_ERROR);
    assert_non_null(strstr(vr->message, "interrupted"));
    /* the writers' scan before the lock: nothing to resume from */
    struct wt_log_prescan ps;
    wt_log_prescan(&p, &stop, &ps);
    assert_false(ps.v.valid);
    stop = 0;
    wt_log_prescan(&p, &stop, &ps);
    assert_true(ps.v.valid);
    stop = 1;
    struct wt_log_opts lo = {.cancel = &stop};
    l = NULL;
    assert_int_equal(wt_log_open(&l, &p, &lo, NULL, &err), WT_ESTOP);
    assert_null(l);
    assert_non_null(strstr(err.msg, "a stop was asked"));
    size_t after_len;
    char *after = slurp(p.log, &after_len);
    assert_int_equal(after_len, before_len);
    assert_memory_equal(after, before, before_len);
    stop = 0;
    if (wt_log_open(&l, &p, &lo, NULL, &err))
        fail_msg("%s", err.msg);
    wt_log_close(l);
    free(after);
    free(before);
    free(vr);
    remove_dir(dir);
}

/* Opens the log (no prescan) and returns the lines it did not read again. */
static uint64_t open_resumed(const struct wt_log_paths *p, const struct wt_log_opts *lo)
{
    struct wt_err err = {{0}};
    struct wt_log *l = NULL;
    struct wt_log_recovery rec;
    if (wt_log_open(&l, p, lo, &rec, &err))
        fail_msg("%s", err.msg);
    wt_log_close(l);
    return rec.resumed;
}

static void flip_byte(const char *path, long at)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, at, at < 0 ? SEEK_END : SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, -1, SEEK_CUR), 0);
    fputc(c ^ 1, f);
    fclose(f);
}

/* The writers' verification state (log.verified): an open reads only the
 * lines after it; one not authenticated by the log's key, for another
 * file, or cut short is not taken up (a whole scan); a line changed after
 * it is found by the writer, one before it by every verifier. */
static void test_state_file(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(
        dir, sizeof(dir), &p, "workloadtruth.example.invalid/0000000000000006", vkey, sizeof(vkey));
    for (int i = 0; i < 40; i++)
        append_class(l, "training", 500000 + i);
    assert_int_equal(wt_log_publish(l, &err), 0);
    wt_log_close(l);
    (void)unlink(p.state); /* left by new_log's open (of 1 line) */
    struct wt_log_opts lo = {0};
    /* an open without a state reads it all and leaves the state: the lines
     * before the checkpoint file's last one */
    assert_int_equal(open_resumed(&p, &lo), 0);
    assert_int_equal(access(p.state, F_OK), 0);
    uint64_t n = open_resumed(&p, &lo);
    assert_true(n >= 40);
    /* a writer's prescan starts there too, and open takes it up */
    struct wt_log_prescan *ps = malloc(sizeof(*ps));
    assert_non_null(ps);
    wt_log_prescan(&p, NULL, ps);
    assert_true(ps->based && ps->v.valid);
    lo.prescan = ps;
    assert_true(open_resumed(&p, &lo) >= n);
    lo.prescan = NULL;

    /* a state not authenticated by this key (a byte of its Merkle range,
     * of its MAC): a whole scan, by open and by open after a prescan that
     * started from it, which writes it anew */
    long in_range = 32 + (long)offsetof(struct wt_verify_resume, range.stack) + 5;
    for (int k = 0; k < 2; k++) {
        flip_byte(p.state, k ? -1 : in_range);
        wt_log_prescan(&p, NULL, ps);
        lo.prescan = ps;
        assert_int_equal(open_resumed(&p, &lo), 0);
        assert_true(ps->based);
        lo.prescan = NULL;
        flip_byte(p.state, k ? -1 : in_range);
        assert_int_equal(open_resumed(&p, &lo), 0); /* the same byte of the new state */
        assert_true(open_resumed(&p, &lo) >= n);
    }
    /* another log's state (a log of another key), for this same file: a whole scan */
    char dir2[64], vkey2[512];
    struct wt_log_paths p2;
    struct wt_log *l2 =
        new_log(dir2, sizeof(dir2), &p2, "workloadtruth.example.invalid/0000000000000007", vkey2,
                sizeof(vkey2));
    wt_log_close(l2);
    size_t slen, llen;
    char *mine = slurp(p.state, &slen);
    char *logb = slurp(p.log, &llen);
    FILE *o = fopen(p2.log, "wb"); /* this log's lines in the other's place: its own key */
    assert_non_null(o);
    assert_int_equal(fwrite(logb, 1, llen, o), llen);
    fclose(o);
    assert_int_equal(rename(p.checkpoint, p2.checkpoint), 0);
    assert_int_equal(rename(p.key, p2.key), 0);
    assert_int_equal(open_resumed(&p2, &lo), 0); /* p2's state was none: read all */
    struct stat st2;
    assert_int_equal(stat(p2.log, &st2), 0);
    char *theirs = slurp(p2.state, &slen);
    assert_int_equal(rename(p2.checkpoint, p.checkpoint), 0);
    assert_int_equal(rename(p2.key, p.key), 0);
    /* the other file's state (its device and inode) for this file: not taken up */
    o = fopen(p.state, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(theirs, 1, slen, o), slen);
    fclose(o);
    assert_int_equal(open_resumed(&p, &lo), 0);
    assert_true(open_resumed(&p, &lo) >= n);
    /* a state of another size (another build, a cut file): not taken up */
    assert_int_equal(truncate(p.state, (off_t)slen - 1), 0);
    assert_int_equal(open_resumed(&p, &lo), 0);

    /* a line after the state changed: the writer finds it */
    l = NULL;
    if (wt_log_open(&l, &p, &lo, NULL, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < 5; i++)
        append_class(l, "idle", 100 + i);
    assert_int_equal(wt_log_publish(l, &err), 0);
    wt_log_close(l);
    char *now = slurp(p.log, &llen);
    char *last = now + llen - 1;
    while (last > now && last[-1] != '\n')
        last--; /* the last line: after the state, which stops before it */
    char *cls = strstr(last, "\"idle\"");
    assert_non_null(cls);
    flip_byte(p.log, (long)(cls + 2 - now));
    l = NULL;
    assert_int_not_equal(wt_log_open(&l, &p, &lo, NULL, &err), WT_OK);
    assert_null(l);
    assert_contains(err.msg, "damaged log");
    flip_byte(p.log, (long)(cls + 2 - now));
    assert_true(open_resumed(&p, &lo) >= n);
    /* a line before it changed: not read again by the writer (the accepted
     * cost of the state, as for a prescan), but every verifier finds it */
    char *mid = strstr(now + llen / 2, "\"training\"");
    assert_non_null(mid);
    flip_byte(p.log, (long)(mid + 2 - now));
    assert_true(open_resumed(&p, &lo) >= n);
    struct wt_note_vkey vk;
    assert_int_equal(wt_note_parse_vkey(vkey, &vk, &err), 0);
    struct wt_verify_opts vo = {.vkey = &vk, .side_path = p.checkpoint};
    struct wt_verify_report *vr = malloc(sizeof(*vr));
    assert_non_null(vr);
    assert_int_equal(wt_verify_file(p.log, &vo, vr), WT_VERIFY_DAMAGED);
    free(vr);
    free(now);
    free(theirs);
    free(logb);
    free(mine);
    free(ps);
    remove_dir(dir2);
    remove_dir(dir);
}

/* --- differential: an open with the state file (log.verified) against the
 * same open with it deleted, for damage after the state's point ---------- */

struct open_out {
    int rc;
    char msg[1024];
    struct wt_log_recovery rec;
    uint64_t size, published;
    int vst; /* verify-log after the open (and an append if it opened) */
    enum wt_damage vdmg;
    uint64_t vline;
    int rc2; /* a second open after it */
    uint64_t entries2, unsealed2;
};

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *b = slurp(from, &n);
    FILE *o = fopen(to, "wb"); /* an existing file keeps its inode */
    assert_non_null(o);
    assert_int_equal(fwrite(b, 1, n, o), n);
    fclose(o);
    free(b);
}

static void write_bytes(const char *path, const char *b, size_t n)
{
    FILE *o = fopen(path, "wb"); /* in place: the same inode */
    assert_non_null(o);
    if (n)
        assert_int_equal(fwrite(b, 1, n, o), n);
    fclose(o);
}

/* s with every occurrence of dir replaced by "D" */
static void strip_dir(char *s, const char *dir)
{
    size_t dl = strlen(dir);
    char *at;
    while ((at = strstr(s, dir)) != NULL) {
        *at = 'D';
        memmove(at + 1, at + dl, strlen(at + dl) + 1);
    }
}

static void diff_open(const char *dir, const struct wt_note_vkey *vk, int prescan, int twice,
                      struct open_out *o)
{
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    assert_int_equal(wt_log_paths_dir(&p, dir, &err), 0);
    memset(o, 0, sizeof(*o));
    struct wt_log_prescan *ps = malloc(sizeof(*ps));
    assert_non_null(ps);
    struct wt_log_opts lo = {0};
    for (int k = 0; k <= twice; k++) {
        if (prescan) {
            wt_log_prescan(&p, NULL, ps);
            lo.prescan = ps;
        }
        struct wt_log *l = NULL;
        struct wt_log_recovery rec2;
        memset(&err, 0, sizeof(err));
        if (k) {
            o->rc2 = wt_log_open(&l, &p, &lo, &rec2, &err);
            o->entries2 = rec2.entries;
            o->unsealed2 = rec2.unsealed;
        } else {
            o->rc = wt_log_open(&l, &p, &lo, &o->rec, &err);
            snprintf(o->msg, sizeof(o->msg), "%s", err.msg);
            strip_dir(o->msg, dir);
            strip_dir(o->rec.quarantine, dir);
            o->rec.resumed = 0;
        }
        if (l) {
            if (!k) {
                o->size = wt_log_size(l);
                o->published = wt_log_published(l);
            }
            if (k == 0)
                append_class(l, "idle", 1);
            assert_int_equal(wt_log_publish(l, &err), 0);
            wt_log_close(l);
        }
    }
    struct wt_verify_opts vo = {.vkey = vk, .side_path = p.checkpoint};
    struct wt_verify_report *vr = malloc(sizeof(*vr));
    assert_non_null(vr);
    o->vst = wt_verify_file(p.log, &vo, vr);
    o->vdmg = vr->damage;
    o->vline = vr->line;
    free(vr);
    free(ps);
}

static int same_out(const struct open_out *a, const struct open_out *b)
{
    return a->rc == b->rc && !strcmp(a->msg, b->msg) && a->rec.repaired == b->rec.repaired &&
           a->rec.offset == b->rec.offset && a->rec.dropped == b->rec.dropped &&
           !strcmp(a->rec.quarantine, b->rec.quarantine) && a->rec.entries == b->rec.entries &&
           a->rec.unsealed == b->rec.unsealed && a->size == b->size &&
           a->published == b->published && a->vst == b->vst && a->vdmg == b->vdmg &&
           a->vline == b->vline && a->rc2 == b->rc2 && a->entries2 == b->entries2 &&
           a->unsealed2 == b->unsealed2;
}

/* cfg 1: a torn tail repaired (a recovery record) before the point, whose
 * last line is a checkpoint record; full: every line and every side file
 * with every damage (WT_TEST_FULL set; minutes) */
static void state_diff(int cfg, int full)
{
    char d0[64], vkey[512], cmd[512];
    struct wt_log_paths p0;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(
        d0, sizeof(d0), &p0, "workloadtruth.example.invalid/00000000000000d1", vkey, sizeof(vkey));
    char side[5][128]; /* old (before the point), at the point, mid, other key, garbage */
    for (int i = 0; i < 5; i++)
        snprintf(side[i], sizeof(side[i]), "%s/side%d", d0, i);
    for (int i = 0; i < 5; i++)
        append_class(l, "training", 1000 + i);
    assert_int_equal(wt_log_publish(l, &err), 0);
    copy_file(p0.checkpoint, side[0]);
    if (cfg) {
        wt_log_close(l);
        FILE *t = fopen(p0.log, "ab");
        assert_non_null(t);
        fputs("{\"seq\":6,", t);
        fclose(t);
        struct wt_log_recovery rec;
        if (wt_log_open(&l, &p0, NULL, &rec, &err))
            fail_msg("%s", err.msg);
        assert_true(rec.repaired);
    }
    for (int i = 0; i < 10; i++) {
        append_class(l, "training", 2000 + i);
        if (i == (cfg ? 9 : 4))
            assert_int_equal(wt_log_seal(l, &err), 0);
    }
    assert_int_equal(wt_log_publish(l, &err), 0);
    copy_file(p0.checkpoint, side[1]);
    uint64_t point = wt_log_size(l);
    for (int i = 0; i < 6; i++)
        append_class(l, "inference", 3000 + i);
    assert_int_equal(wt_log_publish(l, &err), 0);
    copy_file(p0.checkpoint, side[2]);
    for (int i = 0; i < 7; i++) {
        append_class(l, "idle", 4000 + i);
        if (i == 3)
            assert_int_equal(wt_log_seal(l, &err), 0);
    }
    assert_int_equal(wt_log_publish(l, &err), 0);
    wt_log_close(l);
    {
        char dx[64], vx[512];
        struct wt_log_paths px;
        struct wt_log *lx = new_log(
            dx, sizeof(dx), &px, "workloadtruth.example.invalid/00000000000000d1", vx, sizeof(vx));
        for (int i = 0; i < 40; i++)
            append_class(lx, "training", 1000 + i);
        assert_int_equal(wt_log_publish(lx, &err), 0);
        wt_log_close(lx);
        copy_file(px.checkpoint, side[3]);
        remove_dir(dx);
        write_bytes(side[4], "junk\n", 5);
    }
    struct wt_note_vkey vk;
    assert_int_equal(wt_note_parse_vkey(vkey, &vk, &err), 0);
    size_t len;
    char *log = slurp(p0.log, &len);
    size_t starts[64], nl = 0;
    for (size_t i = 0; i < len && nl < 63; i++)
        if (i == 0 || log[i - 1] == '\n')
            starts[nl++] = i;
    starts[nl] = len;
    char *v = malloc(2 * len + 256);
    assert_non_null(v);
    int mismatches = 0, cases = 0;
    const char *only = getenv("WT_DIFF_ONLY");
    for (int sv = 0; sv < 8; sv++)
        for (int kind = 0; kind < 11; kind++)
            for (size_t t = 1; t < nl; t++) {
                if (kind == 0 && t > 1)
                    continue;
                if ((kind == 9 || kind == 10) && t > 1)
                    continue;
                if (sv > 0 && t + 2 < point && kind != 0)
                    continue;
                if (!full && (sv == 3 || sv == 4 || sv == 5 || sv == 7))
                    continue;
                if (!full && t + 3 < point && t != 3)
                    continue;
                if (!full && sv > 0 && (kind == 3 || kind == 4 || kind == 7 || kind == 8))
                    continue;
                size_t ts = starts[t], te = starts[t + 1], vl = 0;
                switch (kind) {
                case 0:
                    memcpy(v, log, vl = len);
                    break;
                case 1:
                    memcpy(v, log, vl = len);
                    v[ts + (te - ts) / 2] ^= 1;
                    break;
                case 2:
                    memcpy(v, log, ts);
                    memcpy(v + ts, log + te, len - te);
                    vl = len - (te - ts);
                    break;
                case 3:
                    memcpy(v, log, te);
                    memcpy(v + te, log + ts, len - ts);
                    vl = len + (te - ts);
                    break;
                case 4:
                    if (t + 1 >= nl)
                        continue;
                    memcpy(v, log, ts);
                    memcpy(v + ts, log + te, starts[t + 2] - te);
                    memcpy(v + ts + (starts[t + 2] - te), log + ts, te - ts);
                    memcpy(v + starts[t + 2], log + starts[t + 2], len - starts[t + 2]);
                    vl = len;
                    break;
                case 5:
                    memcpy(v, log, vl = ts + (te - ts) / 2);
                    break;
                case 6:
                    memcpy(v, log, vl = ts);
                    break;
                case 7:
                    memcpy(v, log, ts);
                    memcpy(v + ts, "{\"x\":1}\n", 8);
                    memcpy(v + ts + 8, log + te, len - te);
                    vl = ts + 8 + len - te;
                    break;
                case 8: { /* the prev field */
                    memcpy(v, log, vl = len);
                    char *pv = memmem(v + ts, te - ts, "\"prev\":\"", 8);
                    assert_non_null(pv);
                    pv[10] ^= 1;
                    break;
                }
                case 9:
                    memcpy(v, log, len);
                    memcpy(v + len, "{\"seq\":", 7);
                    vl = len + 7;
                    break;
                case 10:
                    memcpy(v, log, len);
                    memcpy(v + len, "junk\n", 5);
                    vl = len + 5;
                    break;
                }
                for (int prescan = 0; prescan < (full || sv == 0 ? 2 : 1); prescan++) {
                    if (only && atoi(only) != cases) {
                        cases++;
                        continue;
                    }
                    char a[64], b[64];
                    mktempdir(a, sizeof(a));
                    mktempdir(b, sizeof(b));
                    snprintf(
                        cmd, sizeof(cmd),
                        "cp -a '%s'/. '%s'/ && rm -f '%s'/log.verified && cp '%s' '%s'/checkpoint",
                        d0, a, a, side[1], a);
                    assert_int_equal(system(cmd), 0);
                    struct wt_log_paths pa;
                    assert_int_equal(wt_log_paths_dir(&pa, a, &err), 0);
                    struct wt_log *la = NULL;
                    struct wt_log_recovery rec;
                    if (wt_log_open(&la, &pa, NULL, &rec, &err))
                        fail_msg("%s", err.msg);
                    wt_log_close(la);
                    assert_int_equal(access(pa.state, F_OK), 0);
                    snprintf(cmd, sizeof(cmd), "cp -a '%s'/. '%s'/ && rm -f '%s'/log.verified", a,
                             b, b);
                    assert_int_equal(system(cmd), 0);
                    char pb[128];
                    snprintf(pb, sizeof(pb), "%s/log.jsonl", b);
                    write_bytes(pa.log, v, vl);
                    write_bytes(pb, v, vl);
                    if (sv > 0) {
                        char cb[128];
                        snprintf(cb, sizeof(cb), "%s/checkpoint", b);
                        if (sv == 6) {
                            assert_int_equal(unlink(pa.checkpoint), 0);
                            assert_int_equal(unlink(cb), 0);
                        } else if (sv == 7) {
                            /* newer: a checkpoint of the whole log before the damage, i.e. as it is
                             */
                        } else {
                            copy_file(side[sv - 1], pa.checkpoint);
                            copy_file(side[sv - 1], cb);
                        }
                    }
                    struct open_out oa, ob;
                    diff_open(a, &vk, prescan, 1, &oa);
                    diff_open(b, &vk, prescan, 1, &ob);
                    int after = t + 1 >= point; /* line t (0-based): the point's last or after */
                    if (kind == 0 || kind >= 9)
                        after = 1;
                    if (!same_out(&oa, &ob)) {
                        if (after) {
                            mismatches++;
                            print_message(
                                "MISMATCH case %d sv=%d kind=%d t=%zu prescan=%d\n  with : rc=%d "
                                "unsealed=%llu entries=%llu repaired=%d pub=%llu size=%llu "
                                "v=%d/%d/%llu %s\n  w/out: rc=%d unsealed=%llu entries=%llu "
                                "repaired=%d pub=%llu size=%llu v=%d/%d/%llu %s\n",
                                cases, sv, kind, t, prescan, oa.rc,
                                (unsigned long long)oa.rec.unsealed,
                                (unsigned long long)oa.rec.entries, oa.rec.repaired,
                                (unsigned long long)oa.published, (unsigned long long)oa.size,
                                oa.vst, oa.vdmg, (unsigned long long)oa.vline, oa.msg, ob.rc,
                                (unsigned long long)ob.rec.unsealed,
                                (unsigned long long)ob.rec.entries, ob.rec.repaired,
                                (unsigned long long)ob.published, (unsigned long long)ob.size,
                                ob.vst, ob.vdmg, (unsigned long long)ob.vline, ob.msg);
                        }
                    }
                    if (!after && oa.rc == WT_OK && ob.rc != WT_OK)
                        assert_int_equal(oa.vst, WT_VERIFY_DAMAGED); /* the accepted limit */
                    remove_dir(a);
                    remove_dir(b);
                    cases++;
                }
            }
    print_message("%d cases, %d mismatches (point %llu of %zu lines)\n", cases, mismatches,
                  (unsigned long long)point, nl);
    assert_int_equal(mismatches, 0);
    free(v);
    free(log);
    remove_dir(d0);
}

/* An open with the writers' state file (log.verified) reaches what the
 * same open reaches with it deleted (accepted or refused, the message, what
 * it repaired, counted and published, and what verify-log says after it and
 * a second open), for damage from the state's last line on: a line changed,
 * removed, repeated, swapped or replaced, the log cut (inside a line or
 * between two), a torn or junk tail, and the checkpoint file older than the
 * state, between it and the log's end, of another key, junk or missing.  A
 * line before the point changed is the documented limit: opened, and
 * verify-log finds it. */
static void test_state_differential(void **state)
{
    (void)state;
    int full = getenv("WT_TEST_FULL") != NULL;
    state_diff(0, full);
    state_diff(1, full);
}

/* An open that could not take up its prescan (the last line it read is not
 * in the file as it read it: the lines were rewritten in place meanwhile)
 * scans the whole file; the state it leaves is that scan's, not the
 * prescan's (a state of lines never in the file, which the next writers
 * could not take up either, made them all read the whole log). */
static void test_state_not_from_unused_prescan(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(
        dir, sizeof(dir), &p, "workloadtruth.example.invalid/00000000000000d2", vkey, sizeof(vkey));
    for (int i = 0; i < 29; i++)
        append_class(l, "training", 500000 + i);
    assert_int_equal(wt_log_publish(l, &err), 0);
    wt_log_close(l);
    char side30[128];
    snprintf(side30, sizeof(side30), "%s/side30", dir);
    size_t n30, nck, na = 0, nb = 0;
    char *f30 = slurp(p.log, &n30), *ck30 = slurp(p.checkpoint, &nck);
    write_bytes(side30, ck30, nck);
    /* two logs of 31 lines, the same 30 and a last one of each its own */
    char *fa = NULL, *fb = NULL;
    for (int k = 0; k < 2; k++) {
        write_bytes(p.log, f30, n30);
        write_bytes(p.checkpoint, ck30, nck);
        if (wt_log_open(&l, &p, NULL, NULL, &err))
            fail_msg("%s", err.msg);
        append_class(l, "idle", k ? 600000 : 700000);
        wt_log_close(l);
        if (k)
            fb = slurp(p.log, &nb);
        else
            fa = slurp(p.log, &na);
    }
    assert_int_equal(na, nb);
    /* a prescan reads one, the writer's open finds the other */
    write_bytes(p.log, fa, na);
    write_bytes(p.checkpoint, ck30, nck);
    assert_int_equal(unlink(p.state), 0);
    struct wt_log_prescan *ps = malloc(sizeof(*ps));
    assert_non_null(ps);
    wt_log_prescan(&p, NULL, ps);
    assert_true(ps->v.valid && ps->v.n == 31);
    write_bytes(p.log, fb, nb);
    struct wt_log_opts lo = {.prescan = ps};
    struct wt_log_recovery rec;
    if (wt_log_open(&l, &p, &lo, &rec, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rec.resumed, 0);
    assert_int_equal(rec.entries, 31);
    wt_log_close(l);
    /* the next writer resumes from that scan's state (the checkpoint
     * file's 30 lines, as read under the lock) */
    lo.prescan = NULL;
    assert_int_equal(open_resumed(&p, &lo), 30);
    free(ps);
    free(fa);
    free(fb);
    free(ck30);
    free(f30);
    remove_dir(dir);
}

/* A witness's cosignature key (type 0x04) in the log's key file is refused:
 * init took it, printed it as the verifier key and wrote a cosignature line
 * into the checkpoint, and every verification called the new log damaged. */
static void test_cosig_key_refused(void **state)
{
    (void)state;
    char dir[64], vkey[512], text[512];
    mktempdir(dir, sizeof(dir));
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_note_key w;
    assert_int_equal(wt_log_paths_dir(&p, dir, &err), 0);
    assert_int_equal(wt_note_key_generate(&w, "witness.example.invalid", WT_KEY_COSIG, &err), 0);
    assert_true(wt_note_format_skey(&w, text, sizeof(text)) > 0);
    FILE *f = fopen(p.key, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", text);
    fclose(f);
    assert_int_equal(chmod(p.key, 0600), 0);
    assert_int_not_equal(wt_log_init(&p, NULL, NULL, NULL, vkey, sizeof(vkey), &err), 0);
    assert_non_null(strstr(err.msg, "a witness's cosignature key (type 0x04)"));
    assert_int_not_equal(access(p.log, F_OK), 0); /* no log made */
    wt_note_key_wipe(&w);
    remove_dir(dir);
}

/* A log read while its writer appends and signs the side file anew: the
 * scan re-reads the side file once past the checkpoint it held (and at the
 * end), so the lines appended meanwhile are covered, not "not covered by any
 * signed checkpoint yet" (exit 3 on nearly every verification of a live
 * log).  The stream below stands for that writer: when half the log has been
 * read, it puts the newer checkpoint in place. */
struct swap_stream {
    FILE *f;
    size_t read, at;
    const char *side, *newer;
    size_t newer_len;
    int swapped;
};

static ssize_t swap_read(void *c, char *buf, size_t size)
{
    struct swap_stream *w = c;
    if (size > 256)
        size = 256; /* small reads: the swap comes mid-scan */
    size_t n = fread(buf, 1, size, w->f);
    w->read += n;
    if (!w->swapped && w->read >= w->at) {
        FILE *o = fopen(w->side, "w");
        assert_non_null(o);
        assert_int_equal(fwrite(w->newer, 1, w->newer_len, o), w->newer_len);
        fclose(o);
        w->swapped = 1;
    }
    return (ssize_t)n;
}

static int swap_close(void *c)
{
    return fclose(((struct swap_stream *)c)->f);
}

static int verify_while_swapped(const char *log, const char *side, const char *newer,
                                size_t newer_len, size_t at, struct wt_verify_report *r)
{
    struct swap_stream w = {fopen(log, "r"), 0, at, side, newer, newer_len, 0};
    assert_non_null(w.f);
    cookie_io_functions_t io = {.read = swap_read, .close = swap_close};
    FILE *f = fopencookie(&w, "r", io);
    assert_non_null(f);
    struct wt_verify_opts vo = {.side_path = side};
    int st = wt_verify_stream(f, log, &vo, r);
    fclose(f);
    assert_true(w.swapped);
    return st;
}

static void test_side_file_signed_during_scan(void **state)
{
    (void)state;
    char dir[64], vkey[512];
    struct wt_log_paths p;
    struct wt_err err = {{0}};
    struct wt_log *l = new_log(dir, sizeof(dir), &p, NULL, vkey, sizeof(vkey));
    for (int i = 0; i < 10; i++)
        append_class(l, "training", 900000);
    assert_int_equal(wt_log_publish(l, &err), 0); /* 11 lines */
    size_t n1, n2, n3, nlog;
    char *cp11 = slurp(p.checkpoint, &n1);
    for (int i = 0; i < 10; i++)
        append_class(l, "inference", 800000);
    assert_int_equal(wt_log_publish(l, &err), 0); /* 21 lines */
    char *cp21 = slurp(p.checkpoint, &n2);
    char *log21 = slurp(p.log, &nlog);
    for (int i = 0; i < 10; i++)
        append_class(l, "idle", 700000);
    assert_int_equal(wt_log_publish(l, &err), 0); /* 31 lines */
    char *cp31 = slurp(p.checkpoint, &n3);
    wt_log_close(l);
    /* the log as the scan found it: 21 lines, the side file at 11 */
    char path21[128];
    snprintf(path21, sizeof(path21), "%s/log21.jsonl", dir);
    FILE *o = fopen(path21, "w");
    assert_non_null(o);
    assert_int_equal(fwrite(log21, 1, nlog, o), nlog);
    fclose(o);
    struct wt_verify_report *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    /* signed for the 21 lines mid-scan: all covered */
    o = fopen(p.checkpoint, "w");
    assert_int_equal(fwrite(cp11, 1, n1, o), n1);
    fclose(o);
    int st = verify_while_swapped(path21, p.checkpoint, cp21, n2, nlog / 2, r);
    if (st != WT_VERIFY_OK || r->sealed != 21)
        fail_msg("status %d, %llu sealed: %s", st, (unsigned long long)r->sealed, r->message);
    /* ... and at the very end (the swap after the last byte was read) */
    o = fopen(p.checkpoint, "w");
    assert_int_equal(fwrite(cp11, 1, n1, o), n1);
    fclose(o);
    st = verify_while_swapped(path21, p.checkpoint, cp21, n2, nlog, r);
    if (st != WT_VERIFY_OK || r->sealed != 21)
        fail_msg("at the end: status %d, %llu sealed: %s", st, (unsigned long long)r->sealed,
                 r->message);
    /* signed for lines the scan never read (appended after it): not a
     * truncation, only what was there before: lines 12..21 not covered */
    o = fopen(p.checkpoint, "w");
    assert_int_equal(fwrite(cp11, 1, n1, o), n1);
    fclose(o);
    st = verify_while_swapped(path21, p.checkpoint, cp31, n3, nlog / 2, r);
    if (st != WT_VERIFY_WARN || r->sealed != 11 || r->damage != WT_DMG_NONE || r->side_size != 11)
        fail_msg("newer than the lines read: status %d, %llu sealed, side file %llu: %s", st,
                 (unsigned long long)r->sealed, (unsigned long long)r->side_size, r->message);
    /* ... also when the side file covered exactly the lines read, compared at
     * the end, and the newer one came after the last read (a re-read there
     * took it for a truncation) */
    o = fopen(p.checkpoint, "w");
    assert_int_equal(fwrite(cp21, 1, n2, o), n2);
    fclose(o);
    st = verify_while_swapped(path21, p.checkpoint, cp31, n3, nlog, r);
    if (st != WT_VERIFY_OK || r->sealed != 21 || r->side_size != 21)
        fail_msg("newer after the last read: status %d, %llu sealed, side file %llu: %s", st,
                 (unsigned long long)r->sealed, (unsigned long long)r->side_size, r->message);
    /* an older one put back mid-scan is not taken (the one read at the
     * start was compared) */
    o = fopen(p.checkpoint, "w");
    assert_int_equal(fwrite(cp21, 1, n2, o), n2);
    fclose(o);
    st = verify_while_swapped(path21, p.checkpoint, cp11, n1, nlog - 10, r);
    if (st != WT_VERIFY_OK || r->sealed != 21)
        fail_msg("older put back: status %d, %llu sealed: %s", st, (unsigned long long)r->sealed,
                 r->message);
    free(r);
    free(cp11);
    free(cp21);
    free(cp31);
    free(log21);
    remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_log),
        cmocka_unit_test(test_deleted_log),
        cmocka_unit_test(test_wait_for_init),
        cmocka_unit_test(test_prescan_resume),
        cmocka_unit_test(test_unsealed_msg),
        cmocka_unit_test(test_verify_vector),
        cmocka_unit_test(test_flat_limits),
        cmocka_unit_test(test_string_rules),
        cmocka_unit_test(test_prescan_torn_recovery_race),
        cmocka_unit_test(test_reader_torn_repair_race),
        cmocka_unit_test(test_prescan_inplace_change_seen_later),
        cmocka_unit_test(test_open_cancelled),
        cmocka_unit_test(test_state_file),
        cmocka_unit_test(test_state_differential),
        cmocka_unit_test(test_state_not_from_unused_prescan),
        cmocka_unit_test(test_cosig_key_refused),
        cmocka_unit_test(test_side_file_signed_during_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
