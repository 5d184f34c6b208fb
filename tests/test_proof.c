/* Proof texts: c2sp.org/tlog-proof@v1 bundles and tlog-witness requests,
 * round trips, strict rejections, and end-to-end checks that a parsed
 * bundle or request verifies against its signed checkpoint.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include <sodium.h>

#include "audit/merkle.h"
#include "audit/note.h"
#include "audit/proof.h"

#define VEC(name) WT_TEST_DATA "/../vectors/" name
#define H1 "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
#define H2 "LxFLuD2UQY+OTkyA+3UEYhtTHYK/C1WqTSWu9XY8ZvQ="
#define HDR "c2sp.org/tlog-proof@v1\n"

static char *read_vec(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char *buf = malloc(1 << 16);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    assert_true(feof(f));
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* text + the example checkpoint, malloc'd */
static char *with_note(const char *head)
{
    char *note = read_vec(VEC("example_checkpoint.txt"), NULL);
    size_t a = strlen(head), b = strlen(note);
    char *s = malloc(a + b + 1);
    assert_non_null(s);
    memcpy(s, head, a);
    memcpy(s + a, note, b + 1);
    free(note);
    return s;
}

static int proof_rc(const char *head)
{
    char *s = with_note(head);
    struct wt_tlog_proof p;
    struct wt_err err;
    err.msg[0] = '\0';
    int rc = wt_tlog_proof_parse(s, strlen(s), &p, &err);
    if (rc == 0) {
        wt_tlog_proof_free(&p);
    } else {
        assert_true(strlen(err.msg) > 0);
        assert_null(p.extra);
        assert_null(p.checkpoint);
    }
    free(s);
    return rc;
}

static int req_rc(const char *head)
{
    char *s = with_note(head);
    struct wt_witness_req r;
    struct wt_err err;
    err.msg[0] = '\0';
    int rc = wt_witness_req_parse(s, strlen(s), &r, &err);
    if (rc == 0)
        wt_witness_req_free(&r);
    else {
        assert_true(strlen(err.msg) > 0);
        assert_null(r.checkpoint);
    }
    free(s);
    return rc;
}

static void test_tlog_proof_round_trip(void **state)
{
    (void)state;
    size_t nlen;
    char *note = read_vec(VEC("example_checkpoint.txt"), &nlen);
    struct wt_tlog_proof p, q;
    struct wt_err err;
    char *text = NULL;
    memset(&p, 0, sizeof(p));
    p.index = 2;
    p.npath = 2;
    assert_int_equal(wt_b64_hash_decode(H1, 44, p.path[0]), 0);
    assert_int_equal(wt_b64_hash_decode(H2, 44, p.path[1]), 0);
    p.checkpoint = note;
    p.checkpoint_len = nlen;
    assert_int_equal(wt_tlog_proof_format(&p, &text, &err), 0);
    char *want = with_note(HDR "index 2\n" H1 "\n" H2 "\n\n");
    assert_string_equal(text, want);
    assert_int_equal(wt_tlog_proof_parse(text, strlen(text), &q, &err), 0);
    assert_null(q.extra);
    assert_int_equal(q.extra_len, 0);
    assert_int_equal(q.index, 2);
    assert_int_equal(q.npath, 2);
    assert_memory_equal(q.path, p.path, 2 * 32);
    assert_int_equal(q.checkpoint_len, nlen);
    assert_string_equal(q.checkpoint, note);
    wt_tlog_proof_free(&q);
    assert_null(q.checkpoint);
    wt_tlog_proof_free(&q); /* idempotent */
    free(text);
    free(want);

    /* with extra (an entry line), and with an empty path */
    char *log = read_vec(VEC("example_log.jsonl"), NULL);
    size_t l0 = strcspn(log, "\n");
    p.extra = (uint8_t *)log;
    p.extra_len = l0;
    p.npath = 0;
    p.index = 0;
    assert_int_equal(wt_tlog_proof_format(&p, &text, &err), 0);
    assert_true(strncmp(text, HDR "extra eyJ2IjoxLCJzZXEiOjAs", strlen(HDR) + 26) == 0);
    assert_int_equal(wt_tlog_proof_parse(text, strlen(text), &q, &err), 0);
    assert_non_null(q.extra);
    assert_int_equal(q.extra_len, l0);
    assert_memory_equal(q.extra, log, l0);
    assert_int_equal(q.index, 0);
    assert_int_equal(q.npath, 0);
    assert_string_equal(q.checkpoint, note);
    wt_tlog_proof_free(&q);
    free(text);

    /* an empty extra is written as no extra line */
    p.extra_len = 0;
    assert_int_equal(wt_tlog_proof_format(&p, &text, &err), 0);
    assert_true(strncmp(text, HDR "index 0\n\n", strlen(HDR) + 9) == 0);
    free(text);

    /* 63 hashes are the most */
    p.extra = NULL;
    p.npath = WT_PROOF_MAX_HASHES;
    for (int i = 0; i < WT_PROOF_MAX_HASHES; i++)
        memset(p.path[i], i, 32);
    assert_int_equal(wt_tlog_proof_format(&p, &text, &err), 0);
    assert_int_equal(wt_tlog_proof_parse(text, strlen(text), &q, &err), 0);
    assert_int_equal(q.npath, WT_PROOF_MAX_HASHES);
    assert_memory_equal(q.path, p.path, sizeof(p.path));
    wt_tlog_proof_free(&q);
    free(text);
    free(log);
    free(note);
}

static void test_witness_req_round_trip(void **state)
{
    (void)state;
    size_t nlen;
    char *note = read_vec(VEC("example_checkpoint.txt"), &nlen);
    struct wt_witness_req r, q;
    struct wt_err err;
    char *text = NULL;
    memset(&r, 0, sizeof(r));
    r.old_size = 1;
    r.nproof = 1;
    assert_int_equal(wt_b64_hash_decode(H2, 44, r.proof[0]), 0);
    r.checkpoint = note;
    r.checkpoint_len = nlen;
    assert_int_equal(wt_witness_req_format(&r, &text, &err), 0);
    char *want = with_note("old 1\n" H2 "\n\n");
    assert_string_equal(text, want);
    assert_int_equal(wt_witness_req_parse(text, strlen(text), &q, &err), 0);
    assert_int_equal(q.old_size, 1);
    assert_int_equal(q.nproof, 1);
    assert_memory_equal(q.proof[0], r.proof[0], 32);
    assert_string_equal(q.checkpoint, note);
    assert_int_equal(q.checkpoint_len, nlen);
    wt_witness_req_free(&q);
    free(text);
    free(want);
    /* old 0, no proof */
    r.old_size = 0;
    r.nproof = 0;
    assert_int_equal(wt_witness_req_format(&r, &text, &err), 0);
    want = with_note("old 0\n\n");
    assert_string_equal(text, want);
    assert_int_equal(wt_witness_req_parse(text, strlen(text), &q, &err), 0);
    assert_int_equal(q.old_size, 0);
    assert_int_equal(q.nproof, 0);
    wt_witness_req_free(&q);
    free(text);
    free(want);
    free(note);
}

static void test_tlog_proof_rejects(void **state)
{
    (void)state;
    char head[8192];
    assert_int_equal(proof_rc(HDR "index 3\n" H1 "\n\n"), 0);
    assert_int_equal(proof_rc(HDR "index 0\n\n"), 0);
    assert_int_equal(proof_rc(HDR "extra AAAA\nindex 9223372036854775807\n\n"), 0);
    /* header */
    assert_int_equal(proof_rc("index 3\n" H1 "\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc("c2sp.org/tlog-proof@v2\nindex 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc("c2sp.org/tlog-proof@v1 \nindex 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc("c2sp.org/tlog-proof@v1\r\nindex 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc("\n" HDR "index 3\n\n"), WT_EINVAL);
    /* index */
    assert_int_equal(proof_rc(HDR "index 03\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index 00\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index -1\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index \n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index  3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index 3 \n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index 9223372036854775808\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "Index 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR H1 "\n\n"), WT_EINVAL);
    /* extra */
    assert_int_equal(proof_rc(HDR "extra \nindex 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "extra AAA\nindex 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "extra AA==\nindex 3\n\n"), 0);
    assert_int_equal(proof_rc(HDR "extra AB==\nindex 3\n\n"), WT_EINVAL); /* non-canonical */
    assert_int_equal(proof_rc(HDR "extra AA==AAAA\nindex 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "extra AA*A\nindex 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "extra AA AA\nindex 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index 3\nextra AAAA\n\n"), WT_EINVAL); /* order */
    assert_int_equal(proof_rc(HDR "extra AAAA\nextra AAAA\nindex 3\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "extra AAAA\n"), WT_EINVAL);
    /* hash lines */
    assert_int_equal(proof_rc(HDR "index 3\n" H1 "\n" H1 "\n"), WT_EINVAL); /* no blank line */
    assert_int_equal(proof_rc(HDR "index 3\n"
                                  "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU\n\n"),
                     WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index 3\n" H1 "=\n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index 3\n" H1 " \n\n"), WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index 3\n"
                                  "AAAA\n\n"),
                     WT_EINVAL);
    assert_int_equal(proof_rc(HDR "index 3\n"
                                  "47DEQpj8HBSa-_TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n\n"),
                     WT_EINVAL);
    /* 63 hash lines parse, 64 do not */
    size_t n = (size_t)snprintf(head, sizeof(head), HDR "index 3\n");
    for (int i = 0; i < 63; i++)
        n += (size_t)snprintf(head + n, sizeof(head) - n, H1 "\n");
    snprintf(head + n, sizeof(head) - n, "\n");
    assert_int_equal(proof_rc(head), 0);
    n += (size_t)snprintf(head + n, sizeof(head) - n, H1 "\n");
    snprintf(head + n, sizeof(head) - n, "\n");
    assert_int_equal(proof_rc(head), WT_EINVAL);

    /* the checkpoint part: missing, not a signed note, garbage after it */
    struct wt_tlog_proof p;
    struct wt_err err;
    char *s0;
    const char *t = HDR "index 3\n\n";
    assert_int_equal(wt_tlog_proof_parse(t, strlen(t), &p, &err), WT_EINVAL);
    t = HDR "index 3\n\nsome text\n";
    assert_int_equal(wt_tlog_proof_parse(t, strlen(t), &p, &err), WT_EINVAL);
    /* a second blank line starts a note whose body begins with "\n": a
     * well-formed signed note (all this parser checks), not a checkpoint */
    s0 = with_note(HDR "index 3\n\n\n");
    assert_int_equal(wt_tlog_proof_parse(s0, strlen(s0), &p, &err), 0);
    struct wt_note n0;
    struct wt_checkpoint c0;
    assert_int_equal(wt_note_parse(p.checkpoint, p.checkpoint_len, &n0, &err), 0);
    assert_int_equal(wt_checkpoint_parse(n0.text, n0.body_len, &c0, &err), WT_EINVAL);
    wt_note_free(&n0);
    wt_tlog_proof_free(&p);
    free(s0);
    char *s = with_note(HDR "index 3\n\n");
    size_t sl = strlen(s);
    char *g = malloc(sl + 32);
    assert_non_null(g);
    static const char *tails[] = {"garbage", "garbage\n", "\n", "\n\n", "\0", " ", "\r\n"};
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
        size_t tl = i == 4 ? 1 : strlen(tails[i]);
        memcpy(g, s, sl);
        memcpy(g + sl, tails[i], tl);
        if (wt_tlog_proof_parse(g, sl + tl, &p, &err) != WT_EINVAL)
            fail_msg("accepted trailing '%s'", tails[i]);
        assert_contains(err.msg, "tlog-proof: line");
    }
    /* the text without its last newline */
    assert_int_equal(wt_tlog_proof_parse(s, sl - 1, &p, &err), WT_EINVAL);
    free(g);
    free(s);
    assert_int_equal(wt_tlog_proof_parse(NULL, 0, &p, &err), WT_EINVAL);
}

static void test_limits(void **state)
{
    (void)state;
    struct wt_tlog_proof p, q;
    struct wt_err err;
    size_t nlen;
    char *note = read_vec(VEC("example_checkpoint.txt"), &nlen);
    char *text = NULL;
    /* extra: 64 KiB decoded is the most */
    uint8_t *extra = malloc(WT_PROOF_MAX_EXTRA + 3);
    assert_non_null(extra);
    memset(extra, 'x', WT_PROOF_MAX_EXTRA + 3);
    memset(&p, 0, sizeof(p));
    p.extra = extra;
    p.extra_len = WT_PROOF_MAX_EXTRA;
    p.index = 5;
    p.checkpoint = note;
    p.checkpoint_len = nlen;
    assert_int_equal(wt_tlog_proof_format(&p, &text, &err), 0);
    assert_int_equal(wt_tlog_proof_parse(text, strlen(text), &q, &err), 0);
    assert_int_equal(q.extra_len, WT_PROOF_MAX_EXTRA);
    wt_tlog_proof_free(&q);
    free(text);
    p.extra_len = WT_PROOF_MAX_EXTRA + 1;
    assert_int_not_equal(wt_tlog_proof_format(&p, &text, &err), 0);
    assert_null(text);
    /* hand-made oversize extra lines */
    for (size_t len = WT_PROOF_MAX_EXTRA + 1; len <= WT_PROOF_MAX_EXTRA + 3; len++) {
        size_t b = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
        char *big = malloc(strlen(HDR) + 6 + b + 16 + nlen + 1);
        assert_non_null(big);
        size_t o = (size_t)sprintf(big, HDR "extra ");
        sodium_bin2base64(big + o, b, extra, len, sodium_base64_VARIANT_ORIGINAL);
        o += b - 1;
        o += (size_t)sprintf(big + o, "\nindex 5\n\n");
        memcpy(big + o, note, nlen + 1);
        assert_int_equal(wt_tlog_proof_parse(big, o + nlen, &q, &err), WT_EINVAL);
        assert_contains(err.msg, "extra");
        free(big);
    }
    /* the whole text: 256 KiB at most */
    char *huge = malloc(WT_PROOF_MAX_TEXT + 2);
    assert_non_null(huge);
    memset(huge, '\n', WT_PROOF_MAX_TEXT + 1);
    assert_int_equal(wt_tlog_proof_parse(huge, WT_PROOF_MAX_TEXT + 1, &q, &err), WT_ENOMEM);
    struct wt_witness_req r, rq;
    assert_int_equal(wt_witness_req_parse(huge, WT_PROOF_MAX_TEXT + 1, &rq, &err), WT_ENOMEM);
    free(huge);

    /* formatters refuse what the parsers would refuse */
    p.extra = NULL;
    p.npath = WT_PROOF_MAX_HASHES + 1;
    assert_int_equal(wt_tlog_proof_format(&p, &text, &err), WT_EINVAL);
    p.npath = 0;
    p.index = (uint64_t)INT64_MAX + 1;
    assert_int_equal(wt_tlog_proof_format(&p, &text, &err), WT_EINVAL);
    p.index = 0;
    p.checkpoint = NULL;
    assert_int_equal(wt_tlog_proof_format(&p, &text, &err), WT_EINVAL);
    p.checkpoint = "not a note\n";
    p.checkpoint_len = strlen(p.checkpoint);
    assert_int_equal(wt_tlog_proof_format(&p, &text, &err), WT_EINVAL);
    assert_null(text);
    memset(&r, 0, sizeof(r));
    r.checkpoint = note;
    r.checkpoint_len = nlen;
    r.nproof = WT_PROOF_MAX_HASHES + 1;
    assert_int_equal(wt_witness_req_format(&r, &text, &err), WT_EINVAL);
    r.nproof = 0;
    r.old_size = UINT64_MAX;
    assert_int_equal(wt_witness_req_format(&r, &text, &err), WT_EINVAL);
    r.old_size = 0;
    r.checkpoint_len = nlen - 1; /* no final newline */
    assert_int_equal(wt_witness_req_format(&r, &text, &err), WT_EINVAL);
    assert_null(text);
    free(extra);
    free(note);
}

static void test_witness_req_rejects(void **state)
{
    (void)state;
    assert_int_equal(req_rc("old 3\n" H1 "\n\n"), 0);
    assert_int_equal(req_rc("old 0\n\n"), 0);
    assert_int_equal(req_rc("old 03\n\n"), WT_EINVAL);
    assert_int_equal(req_rc("old 00\n\n"), WT_EINVAL);
    assert_int_equal(req_rc("old -3\n\n"), WT_EINVAL);
    assert_int_equal(req_rc("old\n\n"), WT_EINVAL);
    assert_int_equal(req_rc("old 3\n"), WT_EINVAL); /* no blank line */
    assert_int_equal(req_rc("old 3\n" H1 "\n"), WT_EINVAL);
    assert_int_equal(req_rc("old 3\n" H1 "x\n\n"), WT_EINVAL);
    assert_int_equal(req_rc("old 3\nAAAA\n\n"), WT_EINVAL);
    assert_int_equal(req_rc("old 9223372036854775808\n\n"), WT_EINVAL);
    assert_int_equal(req_rc("\nold 3\n\n"), WT_EINVAL);
    assert_int_equal(req_rc(HDR "old 3\n\n"), WT_EINVAL);
    assert_int_equal(req_rc("index 3\n\n"), WT_EINVAL);
    assert_int_equal(req_rc("old 3\r\n\n"), WT_EINVAL);
    char head[8192];
    size_t n = (size_t)snprintf(head, sizeof(head), "old 3\n");
    for (int i = 0; i < 64; i++)
        n += (size_t)snprintf(head + n, sizeof(head) - n, H2 "\n");
    snprintf(head + n, sizeof(head) - n, "\n");
    assert_int_equal(req_rc(head), WT_EINVAL);
    struct wt_witness_req r;
    struct wt_err err;
    const char *t = "old 3\n\n";
    assert_int_equal(wt_witness_req_parse(t, strlen(t), &r, &err), WT_EINVAL);
    char *s = with_note("old 3\n\n");
    size_t sl = strlen(s);
    char *g = malloc(sl + 16);
    assert_non_null(g);
    memcpy(g, s, sl);
    memcpy(g + sl, "junk\n", 5);
    assert_int_equal(wt_witness_req_parse(g, sl + 5, &r, &err), WT_EINVAL);
    free(g);
    free(s);
}

/* Entries -> tree -> proof + signed checkpoint -> bundle text -> parse ->
 * verify, as an auditor would. */
static void test_end_to_end(void **state)
{
    (void)state;
    enum { N = 13 };
    char lines[N][64];
    uint8_t leaves[N][WT_HASH_LEN];
    for (int i = 0; i < N; i++) {
        snprintf(lines[i], sizeof(lines[i]), "{\"v\":1,\"seq\":%d,\"type\":\"heartbeat\"}", i);
        wt_merkle_leaf_hash(lines[i], strlen(lines[i]), leaves[i]);
    }
    const uint8_t(*cl)[WT_HASH_LEN] = (const uint8_t(*)[WT_HASH_LEN])leaves;
    struct wt_err err;
    struct wt_note_key k;
    struct wt_note_vkey v;
    uint8_t seed[32] = {42};
    assert_int_equal(wt_note_key_from_seed(&k, "test.example/e2e", WT_KEY_ED25519, seed, &err), 0);
    wt_note_key_public(&k, &v);
    struct wt_checkpoint c = {0};
    strcpy(c.origin, k.name);
    c.size = N;
    wt_merkle_root(cl, N, c.root);
    char body[256];
    int blen = wt_checkpoint_format(&c, body, sizeof(body));
    assert_true(blen > 0);
    char *note = NULL;
    assert_int_equal(wt_note_sign(&k, body, (size_t)blen, &note, &err), 0);

    for (uint64_t index = 0; index < N; index++) {
        struct wt_tlog_proof p = {0}, q;
        p.index = index;
        assert_int_equal(
            wt_merkle_inclusion_proof(cl, N, index, p.path, WT_PROOF_MAX_HASHES, &p.npath), 0);
        p.extra = (uint8_t *)lines[index];
        p.extra_len = strlen(lines[index]);
        p.checkpoint = note;
        p.checkpoint_len = strlen(note);
        char *text = NULL;
        assert_int_equal(wt_tlog_proof_format(&p, &text, &err), 0);

        /* the auditor's side: only the text and the vkey */
        assert_int_equal(wt_tlog_proof_parse(text, strlen(text), &q, &err), 0);
        struct wt_note n;
        struct wt_checkpoint qc;
        uint8_t lh[WT_HASH_LEN];
        assert_int_equal(wt_note_parse(q.checkpoint, q.checkpoint_len, &n, &err), 0);
        assert_int_equal(wt_note_verify(&n, &v, NULL), 1);
        assert_int_equal(wt_checkpoint_parse(n.text, n.body_len, &qc, &err), 0);
        assert_int_equal(qc.size, N);
        wt_merkle_leaf_hash(q.extra, q.extra_len, lh);
        const uint8_t(*qp)[WT_HASH_LEN] = (const uint8_t(*)[WT_HASH_LEN])q.path;
        assert_int_equal(wt_merkle_verify_inclusion(lh, q.index, qc.size, qp, q.npath, qc.root), 0);
        /* another entry's line does not verify at this index */
        uint8_t other[WT_HASH_LEN];
        wt_merkle_leaf_hash(lines[(index + 1) % N], strlen(lines[(index + 1) % N]), other);
        assert_int_equal(wt_merkle_verify_inclusion(other, q.index, qc.size, qp, q.npath, qc.root),
                         -1);
        wt_note_free(&n);
        wt_tlog_proof_free(&q);
        free(text);
    }

    /* a witness that holds size 5 gets a request for size 13 */
    uint8_t old_root[WT_HASH_LEN];
    wt_merkle_root(cl, 5, old_root);
    struct wt_witness_req r = {0}, rq;
    r.old_size = 5;
    assert_int_equal(wt_merkle_consistency_proof(cl, N, 5, r.proof, WT_PROOF_MAX_HASHES, &r.nproof),
                     0);
    r.checkpoint = note;
    r.checkpoint_len = strlen(note);
    char *text = NULL;
    assert_int_equal(wt_witness_req_format(&r, &text, &err), 0);
    assert_int_equal(wt_witness_req_parse(text, strlen(text), &rq, &err), 0);
    struct wt_note n;
    struct wt_checkpoint qc;
    assert_int_equal(wt_note_parse(rq.checkpoint, rq.checkpoint_len, &n, &err), 0);
    assert_int_equal(wt_note_verify(&n, &v, NULL), 1);
    assert_int_equal(wt_checkpoint_parse(n.text, n.body_len, &qc, &err), 0);
    const uint8_t(*rp)[WT_HASH_LEN] = (const uint8_t(*)[WT_HASH_LEN])rq.proof;
    assert_int_equal(
        wt_merkle_verify_consistency(rq.old_size, qc.size, old_root, qc.root, rp, rq.nproof), 0);
    old_root[0] ^= 1; /* a forked old tree */
    assert_int_equal(
        wt_merkle_verify_consistency(rq.old_size, qc.size, old_root, qc.root, rp, rq.nproof), -1);
    wt_note_free(&n);
    wt_witness_req_free(&rq);
    free(text);
    free(note);
    wt_note_key_wipe(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tlog_proof_round_trip), cmocka_unit_test(test_witness_req_round_trip),
        cmocka_unit_test(test_tlog_proof_rejects),    cmocka_unit_test(test_limits),
        cmocka_unit_test(test_witness_req_rejects),   cmocka_unit_test(test_end_to_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
