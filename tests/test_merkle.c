/* RFC 6962 / RFC 9162 Merkle trees: known-answer roots (spec §10.1, §10.3),
 * incremental == recursive roots, and every inclusion and consistency proof
 * of trees up to 70 leaves, with bit flips, wrong sizes and hostile inputs.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include <sodium.h>

#include "audit/merkle.h"
#include "audit/note.h"

#define VEC(name) WT_TEST_DATA "/../vectors/" name
#define MAXN 70

/* Reads a whole vector file (NUL-terminated, malloc'd). */
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

static void hex_decode(const char *hex, uint8_t *out, size_t *len)
{
    size_t bin_len = 0;
    assert_int_equal(sodium_hex2bin(out, 64, hex, strlen(hex), NULL, &bin_len, NULL), 0);
    *len = bin_len;
}

static void test_rfc6962_roots(void **state)
{
    (void)state;
    char *text = read_vec(VEC("rfc6962_roots.txt"), NULL);
    uint8_t leaves[16][WT_HASH_LEN];
    int nleaves = 0, nroots = 0;
    struct wt_merkle_range r;
    wt_merkle_range_init(&r);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        if (strncmp(line, "leaf", 4) == 0) {
            uint8_t data[64];
            size_t len = 0;
            if (line[4] == ' ')
                hex_decode(line + 5, data, &len);
            else
                assert_int_equal(line[4], '\0');
            assert_true(nleaves < 16);
            wt_merkle_leaf_hash(data, len, leaves[nleaves++]);
        } else {
            int n;
            char hex[65];
            uint8_t want[32], got[32];
            size_t len;
            assert_int_equal(sscanf(line, "root %d %64s", &n, hex), 2);
            hex_decode(hex, want, &len);
            assert_int_equal(len, 32);
            assert_true(n <= nleaves);
            wt_merkle_root((const uint8_t(*)[WT_HASH_LEN])leaves, (uint64_t)n, got);
            assert_memory_equal(got, want, 32);
            /* the compact range gives the same root */
            assert_int_equal(r.size, (uint64_t)n);
            wt_merkle_range_root(&r, got);
            assert_memory_equal(got, want, 32);
            if (n < nleaves)
                wt_merkle_range_append(&r, leaves[n]);
            nroots++;
        }
    }
    assert_int_equal(nleaves, 8);
    assert_int_equal(nroots, 9);
    free(text);
}

static void test_empty_root(void **state)
{
    (void)state;
    static const uint8_t zero[32];
    uint8_t e[32], want[32], got[32];
    struct wt_merkle_range r;
    crypto_hash_sha256(want, (const unsigned char *)"", 0);
    wt_merkle_empty_root(e);
    assert_memory_equal(e, want, 32);
    assert_memory_not_equal(e, zero, 32); /* not Go tlog's TreeHash(0) */
    wt_merkle_root(NULL, 0, got);
    assert_memory_equal(got, want, 32);
    wt_merkle_range_init(&r);
    wt_merkle_range_root(&r, got);
    assert_memory_equal(got, want, 32);
    char b64[45];
    wt_b64_hash(e, b64);
    assert_string_equal(b64, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
}

/* The example log of spec §10.3: leaf hashes over the line bytes without
 * "\n"; roots after each entry. */
static void test_example_log_roots(void **state)
{
    (void)state;
    char *log = read_vec(VEC("example_log.jsonl"), NULL);
    char *roots = read_vec(VEC("example_roots.txt"), NULL);
    uint8_t leaves[4][WT_HASH_LEN];
    int n = 0;
    for (char *p = log; *p; n++) {
        char *nl = strchr(p, '\n');
        assert_non_null(nl);
        assert_true(n < 4);
        wt_merkle_leaf_hash(p, (size_t)(nl - p), leaves[n]);
        p = nl + 1;
    }
    assert_int_equal(n, 4);
    int seen = 0;
    struct wt_merkle_range r;
    wt_merkle_range_init(&r);
    for (char *line = strtok(roots, "\n"); line; line = strtok(NULL, "\n")) {
        int k;
        char b64[64];
        uint8_t want[32], got[32];
        if (line[0] == '#')
            continue;
        assert_int_equal(sscanf(line, "root %d %63s", &k, b64), 2);
        assert_int_equal(k, seen);
        assert_int_equal(wt_b64_hash_decode(b64, strlen(b64), want), 0);
        wt_merkle_root((const uint8_t(*)[WT_HASH_LEN])leaves, (uint64_t)k, got);
        assert_memory_equal(got, want, 32);
        wt_merkle_range_root(&r, got);
        assert_memory_equal(got, want, 32);
        if (k < 4)
            wt_merkle_range_append(&r, leaves[k]);
        seen++;
    }
    assert_int_equal(seen, 5);
    free(log);
    free(roots);
}

/* Leaf hashes of "leaf 0", "leaf 1", ... */
static uint8_t (*make_leaves(size_t n))[WT_HASH_LEN]
{
    uint8_t(*l)[WT_HASH_LEN] = malloc((n ? n : 1) * WT_HASH_LEN);
    assert_non_null(l);
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        int len = snprintf(buf, sizeof(buf), "leaf %zu", i);
        wt_merkle_leaf_hash(buf, (size_t)len, l[i]);
    }
    return l;
}

static void test_incremental_equals_recursive(void **state)
{
    (void)state;
    const size_t N = 200;
    uint8_t(*l)[WT_HASH_LEN] = make_leaves(N);
    struct wt_merkle_range r;
    wt_merkle_range_init(&r);
    for (size_t n = 0; n <= N; n++) {
        uint8_t a[32], b[32];
        assert_int_equal(r.size, n);
        assert_int_equal(r.top, __builtin_popcountll(n));
        wt_merkle_range_root(&r, a);
        wt_merkle_root((const uint8_t(*)[WT_HASH_LEN])l, n, b);
        assert_memory_equal(a, b, 32);
        if (n < N)
            wt_merkle_range_append(&r, l[n]);
    }
    free(l);
}

/* Which bits of a proof hash to flip: all 256 for trees of up to 24 leaves;
 * for larger ones 32 (one in each byte, at a position that rotates with the
 * case, so that over all cases every bit position is hit), which keeps the
 * suite fast under valgrind.  WT_MERKLE_EXHAUSTIVE=1 flips all 256 always. */
static int flip_step(uint64_t n)
{
    static int exhaustive = -1;
    if (exhaustive < 0) {
        const char *e = getenv("WT_MERKLE_EXHAUSTIVE");
        exhaustive = e && strcmp(e, "1") == 0;
    }
    return exhaustive || n <= 24 ? 1 : 8;
}

static void test_inclusion_all(void **state)
{
    (void)state;
    uint8_t(*l)[WT_HASH_LEN] = make_leaves(MAXN + 1);
    uint8_t roots[MAXN + 2][WT_HASH_LEN];
    for (uint64_t n = 0; n <= MAXN + 1; n++)
        wt_merkle_root((const uint8_t(*)[WT_HASH_LEN])l, n, roots[n]);
    long cases = 0, flips = 0;
    for (uint64_t n = 1; n <= MAXN; n++) {
        for (uint64_t i = 0; i < n; i++) {
            uint8_t proof[WT_MERKLE_MAX_PROOF + 1][WT_HASH_LEN];
            size_t len = 99;
            assert_int_equal(wt_merkle_inclusion_proof((const uint8_t(*)[WT_HASH_LEN])l, n, i,
                                                       proof, WT_MERKLE_MAX_PROOF, &len),
                             0);
            /* ceil(log2 n) hashes at most */
            assert_true(len <= 7);
            assert_true(n == 1 || len >= 1);
            const uint8_t(*cp)[WT_HASH_LEN] = (const uint8_t(*)[WT_HASH_LEN])proof;
            assert_int_equal(wt_merkle_verify_inclusion(l[i], i, n, cp, len, roots[n]), 0);
            cases++;
            /* every bit of every proof hash matters */
            int step = flip_step(n);
            for (size_t h = 0; h < len; h++)
                for (int bit = (int)((i + h) % (unsigned)step); bit < 256; bit += step) {
                    proof[h][bit / 8] ^= (uint8_t)(1u << (bit % 8));
                    assert_int_equal(wt_merkle_verify_inclusion(l[i], i, n, cp, len, roots[n]), -1);
                    proof[h][bit / 8] ^= (uint8_t)(1u << (bit % 8));
                    flips++;
                }
            /* a wrong leaf or root */
            uint8_t bad[32];
            memcpy(bad, l[i], 32);
            bad[i % 32] ^= 0x80;
            assert_int_equal(wt_merkle_verify_inclusion(bad, i, n, cp, len, roots[n]), -1);
            memcpy(bad, roots[n], 32);
            bad[(i * 7) % 32] ^= 0x01;
            assert_int_equal(wt_merkle_verify_inclusion(l[i], i, n, cp, len, bad), -1);
            /* any other index */
            for (uint64_t j = 0; j < n + 2; j++)
                if (j != i)
                    assert_int_equal(wt_merkle_verify_inclusion(l[i], j, n, cp, len, roots[n]), -1);
            /* another tree size (with that tree's root) */
            assert_int_equal(wt_merkle_verify_inclusion(l[i], i, n + 1, cp, len, roots[n + 1]), -1);
            if (i < n - 1)
                assert_int_equal(wt_merkle_verify_inclusion(l[i], i, n - 1, cp, len, roots[n - 1]),
                                 -1);
            assert_int_equal(wt_merkle_verify_inclusion(l[i], i, 0, cp, len, roots[0]), -1);
            /* one hash too many or too few */
            memcpy(proof[len], roots[n], 32);
            assert_int_equal(wt_merkle_verify_inclusion(l[i], i, n, cp, len + 1, roots[n]), -1);
            if (len > 0)
                assert_int_equal(wt_merkle_verify_inclusion(l[i], i, n, cp, len - 1, roots[n]), -1);
            /* a capacity too small fails cleanly */
            if (len > 0) {
                size_t got = 99;
                assert_int_equal(wt_merkle_inclusion_proof((const uint8_t(*)[WT_HASH_LEN])l, n, i,
                                                           proof, len - 1, &got),
                                 -1);
                assert_int_equal(got, 0);
            }
        }
    }
    assert_int_equal(cases, MAXN * (MAXN + 1) / 2);
    print_message("inclusion: %ld proofs, %ld bit flips\n", cases, flips);
    free(l);
}

static void test_consistency_all(void **state)
{
    (void)state;
    uint8_t(*l)[WT_HASH_LEN] = make_leaves(MAXN + 1);
    uint8_t roots[MAXN + 2][WT_HASH_LEN];
    for (uint64_t n = 0; n <= MAXN + 1; n++)
        wt_merkle_root((const uint8_t(*)[WT_HASH_LEN])l, n, roots[n]);
    long cases = 0, flips = 0;
    for (uint64_t n = 0; n <= MAXN; n++) {
        for (uint64_t m = 0; m <= n; m++) {
            uint8_t proof[WT_MERKLE_MAX_PROOF + 1][WT_HASH_LEN];
            size_t len = 99;
            assert_int_equal(wt_merkle_consistency_proof((const uint8_t(*)[WT_HASH_LEN])l, n, m,
                                                         proof, WT_MERKLE_MAX_PROOF, &len),
                             0);
            const uint8_t(*cp)[WT_HASH_LEN] = (const uint8_t(*)[WT_HASH_LEN])proof;
            assert_int_equal(wt_merkle_verify_consistency(m, n, roots[m], roots[n], cp, len), 0);
            cases++;
            if (m == 0 || m == n) {
                assert_int_equal(len, 0);
            } else {
                assert_true(len >= 1 && len <= 2 * 7);
            }
            if (len == 0)
                continue;
            int step = flip_step(n);
            for (size_t h = 0; h < len; h++)
                for (int bit = (int)((m + n + h) % (unsigned)step); bit < 256; bit += step) {
                    proof[h][bit / 8] ^= (uint8_t)(1u << (bit % 8));
                    assert_int_equal(
                        wt_merkle_verify_consistency(m, n, roots[m], roots[n], cp, len), -1);
                    proof[h][bit / 8] ^= (uint8_t)(1u << (bit % 8));
                    flips++;
                }
            /* wrong roots */
            uint8_t bad[32];
            memcpy(bad, roots[m], 32);
            bad[(m + n) % 32] ^= 0x04;
            assert_int_equal(wt_merkle_verify_consistency(m, n, bad, roots[n], cp, len), -1);
            memcpy(bad, roots[n], 32);
            bad[(m * 3 + n) % 32] ^= 0x10;
            assert_int_equal(wt_merkle_verify_consistency(m, n, roots[m], bad, cp, len), -1);
            /* wrong sizes (with the roots of those sizes) */
            for (uint64_t m2 = 0; m2 <= n + 1; m2++)
                if (m2 != m)
                    assert_int_equal(
                        wt_merkle_verify_consistency(m2, n, roots[m2], roots[n], cp, len), -1);
            assert_int_equal(
                wt_merkle_verify_consistency(m, n + 1, roots[m], roots[n + 1], cp, len), -1);
            if (n - 1 > m)
                assert_int_equal(
                    wt_merkle_verify_consistency(m, n - 1, roots[m], roots[n - 1], cp, len), -1);
            /* swapped trees */
            assert_int_equal(wt_merkle_verify_consistency(n, m, roots[n], roots[m], cp, len), -1);
            /* one hash too many or too few */
            memcpy(proof[len], roots[m], 32);
            assert_int_equal(wt_merkle_verify_consistency(m, n, roots[m], roots[n], cp, len + 1),
                             -1);
            assert_int_equal(wt_merkle_verify_consistency(m, n, roots[m], roots[n], cp, len - 1),
                             -1);
            /* a capacity too small fails cleanly */
            size_t got = 99;
            assert_int_equal(wt_merkle_consistency_proof((const uint8_t(*)[WT_HASH_LEN])l, n, m,
                                                         proof, len - 1, &got),
                             -1);
            assert_int_equal(got, 0);
        }
    }
    assert_int_equal(cases, (MAXN + 1) * (MAXN + 2) / 2);
    print_message("consistency: %ld proofs, %ld bit flips\n", cases, flips);
    free(l);
}

/* Empty proofs: m == 0 against any tree, m == n only with equal roots. */
static void test_consistency_edges(void **state)
{
    (void)state;
    uint8_t(*l)[WT_HASH_LEN] = make_leaves(8);
    uint8_t r5[32], r8[32], e[32];
    uint8_t junk[1][WT_HASH_LEN] = {{1}};
    const uint8_t(*cj)[WT_HASH_LEN] = (const uint8_t(*)[WT_HASH_LEN])junk;
    wt_merkle_root((const uint8_t(*)[WT_HASH_LEN])l, 5, r5);
    wt_merkle_root((const uint8_t(*)[WT_HASH_LEN])l, 8, r8);
    wt_merkle_empty_root(e);
    assert_int_equal(wt_merkle_verify_consistency(0, 8, e, r8, NULL, 0), 0);
    assert_int_equal(wt_merkle_verify_consistency(0, 0, e, e, NULL, 0), 0);
    assert_int_equal(wt_merkle_verify_consistency(0, 8, e, r8, cj, 1), -1);
    assert_int_equal(wt_merkle_verify_consistency(8, 8, r8, r8, NULL, 0), 0);
    assert_int_equal(wt_merkle_verify_consistency(8, 8, r5, r8, NULL, 0), -1);
    assert_int_equal(wt_merkle_verify_consistency(8, 8, r8, r8, cj, 1), -1);
    assert_int_equal(wt_merkle_verify_consistency(5, 8, r5, r8, NULL, 0), -1);
    free(l);
}

static void test_hostile(void **state)
{
    (void)state;
    uint8_t(*l)[WT_HASH_LEN] = make_leaves(8);
    const uint8_t(*cl)[WT_HASH_LEN] = (const uint8_t(*)[WT_HASH_LEN])l;
    uint8_t proof[WT_MERKLE_MAX_PROOF + 1][WT_HASH_LEN];
    const uint8_t(*cp)[WT_HASH_LEN] = (const uint8_t(*)[WT_HASH_LEN])proof;
    uint8_t root[32];
    size_t len = 99;
    memset(proof, 0xa5, sizeof(proof));
    wt_merkle_root(cl, 8, root);

    /* generation */
    assert_int_equal(wt_merkle_inclusion_proof(cl, 8, 8, proof, 64, &len), -1);
    assert_int_equal(len, 0);
    assert_int_equal(wt_merkle_inclusion_proof(cl, 8, UINT64_MAX, proof, 64, &len), -1);
    assert_int_equal(wt_merkle_inclusion_proof(cl, 0, 0, proof, 64, &len), -1);
    assert_int_equal(wt_merkle_inclusion_proof(NULL, 8, 0, proof, 64, &len), -1);
    assert_int_equal(wt_merkle_inclusion_proof(cl, 8, 0, NULL, 64, &len), -1);
    assert_int_equal(wt_merkle_inclusion_proof(cl, 8, 0, proof, 64, NULL), -1);
    assert_int_equal(wt_merkle_inclusion_proof(cl, 8, 0, proof, 0, &len), -1);
    assert_int_equal(wt_merkle_inclusion_proof(cl, 1, 0, proof, 0, &len), 0); /* empty path */
    assert_int_equal(len, 0);
    assert_int_equal(wt_merkle_consistency_proof(cl, 4, 5, proof, 64, &len), -1);
    assert_int_equal(wt_merkle_consistency_proof(cl, 4, UINT64_MAX, proof, 64, &len), -1);
    assert_int_equal(wt_merkle_consistency_proof(cl, 8, 3, proof, 1, &len), -1);
    assert_int_equal(len, 0);

    /* verification: sizes and indices at the edges of uint64_t */
    assert_int_equal(wt_merkle_verify_inclusion(l[0], 0, 0, NULL, 0, root), -1);
    assert_int_equal(wt_merkle_verify_inclusion(l[0], UINT64_MAX, 8, cp, 3, root), -1);
    assert_int_equal(wt_merkle_verify_inclusion(l[0], UINT64_MAX, UINT64_MAX, cp, 64, root), -1);
    assert_int_equal(wt_merkle_verify_inclusion(l[0], UINT64_MAX - 1, UINT64_MAX, cp, 64, root),
                     -1);
    assert_int_equal(wt_merkle_verify_inclusion(l[0], 0, UINT64_MAX, cp, 64, root), -1);
    assert_int_equal(wt_merkle_verify_inclusion(l[0], 0, UINT64_MAX, cp, 63, root), -1);
    /* too long a proof is refused without being read */
    assert_int_equal(wt_merkle_verify_inclusion(l[0], 0, 8, cp, 65, root), -1);
    assert_int_equal(wt_merkle_verify_inclusion(l[0], 0, 8, cp, SIZE_MAX, root), -1);
    assert_int_equal(wt_merkle_verify_inclusion(l[0], 0, 8, NULL, 3, root), -1);
    assert_int_equal(wt_merkle_verify_inclusion(l[0], 0, 8, cp, 64, root), -1);
    assert_int_equal(wt_merkle_verify_consistency(5, 4, root, root, cp, 1), -1);
    assert_int_equal(wt_merkle_verify_consistency(UINT64_MAX, 4, root, root, cp, 1), -1);
    assert_int_equal(wt_merkle_verify_consistency(1, UINT64_MAX, root, root, cp, 64), -1);
    assert_int_equal(wt_merkle_verify_consistency(UINT64_MAX - 1, UINT64_MAX, root, root, cp, 64),
                     -1);
    assert_int_equal(wt_merkle_verify_consistency(3, 8, root, root, cp, 65), -1);
    assert_int_equal(wt_merkle_verify_consistency(3, 8, root, root, cp, SIZE_MAX), -1);
    assert_int_equal(wt_merkle_verify_consistency(3, 8, root, root, NULL, 2), -1);
    assert_int_equal(wt_merkle_verify_consistency(3, 8, root, root, cp, 64), -1);
    assert_int_equal(wt_merkle_verify_consistency(4, 8, root, root, cp, 64), -1);
    free(l);
}

/* The compact range at sizes with long carry chains. */
static void test_range_large(void **state)
{
    (void)state;
    struct wt_merkle_range r;
    uint8_t leaf[32] = {7}, a[32], b[32];
    wt_merkle_range_init(&r);
    for (int i = 0; i < 1025; i++)
        wt_merkle_range_append(&r, leaf);
    assert_int_equal(r.size, 1025);
    assert_int_equal(r.top, 2);
    uint8_t(*same)[WT_HASH_LEN] = malloc(1025 * WT_HASH_LEN);
    assert_non_null(same);
    for (int i = 0; i < 1025; i++)
        memcpy(same[i], leaf, 32);
    wt_merkle_range_root(&r, a);
    wt_merkle_root((const uint8_t(*)[WT_HASH_LEN])same, 1025, b);
    assert_memory_equal(a, b, 32);
    free(same);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc6962_roots),
        cmocka_unit_test(test_empty_root),
        cmocka_unit_test(test_example_log_roots),
        cmocka_unit_test(test_incremental_equals_recursive),
        cmocka_unit_test(test_inclusion_all),
        cmocka_unit_test(test_consistency_all),
        cmocka_unit_test(test_consistency_edges),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_range_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
