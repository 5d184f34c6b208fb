/* RFC 6962 / RFC 9162 Merkle tree hashing over SHA-256 (see merkle.h).
 *
 * Leaf and node hashes, the compact range (the incremental root of spec §3),
 * the recursive MTH, and inclusion and consistency proofs: generation by the
 * RFC 6962 §2.1.1 PATH and §2.1.2 SUBPROOF recursions over an array of leaf
 * hashes, verification by the RFC 9162 §2.1.3.2 and §2.1.4.2 algorithms.
 * Verifiers take hostile sizes, indices and proof lengths and answer -1;
 * they never read past the proof they are given.  No I/O, no allocation.
 *
 * SPDX-License-Identifier: MIT
 */
#include "audit/merkle.h"

#include <string.h>

#include <sodium.h>

void wt_merkle_leaf_hash(const void *data, size_t len, uint8_t out[WT_HASH_LEN])
{
    static const uint8_t prefix = 0x00;
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, &prefix, 1);
    if (len)
        crypto_hash_sha256_update(&st, data, len);
    crypto_hash_sha256_final(&st, out);
}

/* out may alias left or right: both are read before out is written. */
void wt_merkle_node_hash(const uint8_t left[WT_HASH_LEN], const uint8_t right[WT_HASH_LEN],
                         uint8_t out[WT_HASH_LEN])
{
    static const uint8_t prefix = 0x01;
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, &prefix, 1);
    crypto_hash_sha256_update(&st, left, WT_HASH_LEN);
    crypto_hash_sha256_update(&st, right, WT_HASH_LEN);
    crypto_hash_sha256_final(&st, out);
}

void wt_merkle_empty_root(uint8_t out[WT_HASH_LEN])
{
    crypto_hash_sha256(out, (const unsigned char *)"", 0);
}

void wt_merkle_range_init(struct wt_merkle_range *r)
{
    memset(r, 0, sizeof(*r));
}

void wt_merkle_range_append(struct wt_merkle_range *r, const uint8_t leaf[WT_HASH_LEN])
{
    uint8_t cur[WT_HASH_LEN];
    if (r->size == UINT64_MAX)
        return; /* the stack would need a 65th entry */
    memcpy(cur, leaf, WT_HASH_LEN);
    /* each trailing 1 bit of the old size completes a perfect subtree */
    for (uint64_t s = r->size; (s & 1) && r->top > 0; s >>= 1)
        wt_merkle_node_hash(r->stack[--r->top], cur, cur);
    if (r->top < 0 || r->top >= 64)
        return; /* corrupt range: refuse to write out of bounds */
    memcpy(r->stack[r->top++], cur, WT_HASH_LEN);
    r->size++;
}

void wt_merkle_range_root(const struct wt_merkle_range *r, uint8_t out[WT_HASH_LEN])
{
    uint8_t cur[WT_HASH_LEN];
    int top = r->top > 64 ? 64 : r->top;
    if (r->size == 0 || top <= 0) {
        wt_merkle_empty_root(out);
        return;
    }
    /* fold right to left: node(stack[0], node(stack[1], ... stack[top-1])) */
    memcpy(cur, r->stack[top - 1], WT_HASH_LEN);
    for (int i = top - 2; i >= 0; i--)
        wt_merkle_node_hash(r->stack[i], cur, cur);
    memcpy(out, cur, WT_HASH_LEN);
}

/* The largest power of two smaller than n (n >= 2), without overflowing. */
static uint64_t split_point(uint64_t n)
{
    uint64_t k = 1;
    while (k < n - k)
        k <<= 1;
    return k;
}

static void mth(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint8_t out[WT_HASH_LEN])
{
    uint8_t l[WT_HASH_LEN], r[WT_HASH_LEN];
    if (n == 0) {
        wt_merkle_empty_root(out);
        return;
    }
    if (n == 1) {
        memcpy(out, leaves[0], WT_HASH_LEN);
        return;
    }
    uint64_t k = split_point(n);
    mth(leaves, k, l);
    mth(leaves + k, n - k, r);
    wt_merkle_node_hash(l, r, out);
}

void wt_merkle_root(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint8_t out[WT_HASH_LEN])
{
    if (!leaves)
        n = 0;
    mth(leaves, n, out);
}

/* Appends MTH(leaves[0..n)) to the proof being built. */
static int push_mth(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint8_t (*proof)[WT_HASH_LEN],
                    size_t cap, size_t *len)
{
    if (*len >= cap)
        return -1;
    mth(leaves, n, proof[*len]);
    (*len)++;
    return 0;
}

/* RFC 6962 §2.1.1: PATH(m, D[n]), deepest hash first. */
static int path(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint64_t m,
                uint8_t (*proof)[WT_HASH_LEN], size_t cap, size_t *len)
{
    if (n <= 1)
        return 0;
    uint64_t k = split_point(n);
    if (m < k) {
        if (path(leaves, k, m, proof, cap, len))
            return -1;
        return push_mth(leaves + k, n - k, proof, cap, len);
    }
    if (path(leaves + k, n - k, m - k, proof, cap, len))
        return -1;
    return push_mth(leaves, k, proof, cap, len);
}

int wt_merkle_inclusion_proof(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint64_t index,
                              uint8_t (*proof)[WT_HASH_LEN], size_t cap, size_t *len)
{
    if (!len)
        return -1;
    *len = 0;
    if (!leaves || index >= n || (!proof && cap))
        return -1;
    if (path(leaves, n, index, proof, cap, len)) {
        *len = 0;
        return -1;
    }
    return 0;
}

/* RFC 6962 §2.1.2: SUBPROOF(m, D[n], b), deepest hash first. */
static int subproof(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint64_t m, int b,
                    uint8_t (*proof)[WT_HASH_LEN], size_t cap, size_t *len)
{
    if (m == n)
        return b ? 0 : push_mth(leaves, m, proof, cap, len);
    uint64_t k = split_point(n);
    if (m <= k) {
        if (subproof(leaves, k, m, b, proof, cap, len))
            return -1;
        return push_mth(leaves + k, n - k, proof, cap, len);
    }
    if (subproof(leaves + k, n - k, m - k, 0, proof, cap, len))
        return -1;
    return push_mth(leaves, k, proof, cap, len);
}

int wt_merkle_consistency_proof(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint64_t m,
                                uint8_t (*proof)[WT_HASH_LEN], size_t cap, size_t *len)
{
    if (!len)
        return -1;
    *len = 0;
    if (m > n || (!proof && cap))
        return -1;
    if (m == 0 || m == n)
        return 0;
    if (!leaves)
        return -1;
    if (subproof(leaves, n, m, 1, proof, cap, len)) {
        *len = 0;
        return -1;
    }
    return 0;
}

int wt_merkle_verify_inclusion(const uint8_t leaf_hash[WT_HASH_LEN], uint64_t index, uint64_t n,
                               const uint8_t (*proof)[WT_HASH_LEN], size_t len,
                               const uint8_t root[WT_HASH_LEN])
{
    uint8_t r[WT_HASH_LEN];
    if (!leaf_hash || !root || index >= n || len > WT_MERKLE_MAX_PROOF || (len && !proof))
        return -1;
    uint64_t fn = index, sn = n - 1;
    memcpy(r, leaf_hash, WT_HASH_LEN);
    for (size_t i = 0; i < len; i++) {
        if (sn == 0)
            return -1; /* proof too long */
        if ((fn & 1) || fn == sn) {
            wt_merkle_node_hash(proof[i], r, r);
            while (!(fn & 1) && fn != 0) {
                fn >>= 1;
                sn >>= 1;
            }
        } else {
            wt_merkle_node_hash(r, proof[i], r);
        }
        fn >>= 1;
        sn >>= 1;
    }
    if (sn != 0) /* proof too short */
        return -1;
    return memcmp(r, root, WT_HASH_LEN) == 0 ? 0 : -1;
}

int wt_merkle_verify_consistency(uint64_t m, uint64_t n, const uint8_t old_root[WT_HASH_LEN],
                                 const uint8_t new_root[WT_HASH_LEN],
                                 const uint8_t (*proof)[WT_HASH_LEN], size_t len)
{
    uint8_t fr[WT_HASH_LEN], sr[WT_HASH_LEN];
    if (!old_root || !new_root || m > n || len > WT_MERKLE_MAX_PROOF || (len && !proof))
        return -1;
    if (m == 0) /* the empty tree is a prefix of every tree */
        return len == 0 ? 0 : -1;
    if (m == n)
        return len == 0 && memcmp(old_root, new_root, WT_HASH_LEN) == 0 ? 0 : -1;
    if (len == 0)
        return -1;
    /* step 1: if m is a power of two, old_root is the (virtual) first element */
    int pow2 = (m & (m - 1)) == 0;
    size_t count = len + (size_t)pow2;
#define ELEM(i) (pow2 ? ((i) == 0 ? old_root : proof[(i)-1]) : proof[(i)])
    uint64_t fn = m - 1, sn = n - 1;
    while (fn & 1) {
        fn >>= 1;
        sn >>= 1;
    }
    memcpy(fr, ELEM(0), WT_HASH_LEN);
    memcpy(sr, ELEM(0), WT_HASH_LEN);
    for (size_t i = 1; i < count; i++) {
        const uint8_t *c = ELEM(i);
        if (sn == 0)
            return -1; /* proof too long */
        if ((fn & 1) || fn == sn) {
            wt_merkle_node_hash(c, fr, fr);
            wt_merkle_node_hash(c, sr, sr);
            while (!(fn & 1) && fn != 0) {
                fn >>= 1;
                sn >>= 1;
            }
        } else {
            wt_merkle_node_hash(sr, c, sr);
        }
        fn >>= 1;
        sn >>= 1;
    }
#undef ELEM
    if (sn != 0)
        return -1;
    if (memcmp(fr, old_root, WT_HASH_LEN) != 0 || memcmp(sr, new_root, WT_HASH_LEN) != 0)
        return -1;
    return 0;
}
