/* RFC 6962 / RFC 9162 Merkle tree hashing over SHA-256 (libsodium).
 *
 * Leaf hash = SHA-256(0x00 || data), node hash = SHA-256(0x01 || L || R),
 * the empty tree's root = SHA-256("") (not Go tlog's all-zero hash).  The
 * compact range (a stack of at most 64 perfect-subtree roots) gives the root
 * incrementally in O(log n) memory; proofs are computed from an array of leaf
 * hashes.  This module knows nothing about log files, JSON or signatures.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_AUDIT_MERKLE_H
#define WT_AUDIT_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#define WT_HASH_LEN 32
#define WT_MERKLE_MAX_PROOF 64 /* hashes in any proof of a tree of < 2^64 leaves */

void wt_merkle_leaf_hash(const void *data, size_t len, uint8_t out[WT_HASH_LEN]);
void wt_merkle_node_hash(const uint8_t left[WT_HASH_LEN], const uint8_t right[WT_HASH_LEN],
                         uint8_t out[WT_HASH_LEN]);
void wt_merkle_empty_root(uint8_t out[WT_HASH_LEN]);

/* The compact range of a tree: roots of its perfect subtrees, left to right. */
struct wt_merkle_range {
    uint64_t size;
    int top;
    uint8_t stack[64][WT_HASH_LEN];
};

void wt_merkle_range_init(struct wt_merkle_range *r);
void wt_merkle_range_append(struct wt_merkle_range *r, const uint8_t leaf[WT_HASH_LEN]);
void wt_merkle_range_root(const struct wt_merkle_range *r, uint8_t out[WT_HASH_LEN]);

/* MTH(leaves[0..n)) by the recursive definition (n may be 0). */
void wt_merkle_root(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint8_t out[WT_HASH_LEN]);

/* Inclusion proof (RFC 6962 §2.1.1 audit path) of leaf `index` in the tree of
 * the first n leaves.  Writes at most cap hashes to proof and their count to
 * *len.  Returns 0, or -1 if index >= n or cap is too small. */
int wt_merkle_inclusion_proof(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint64_t index,
                              uint8_t (*proof)[WT_HASH_LEN], size_t cap, size_t *len);

/* RFC 9162 §2.1.3.2.  Returns 0 when the proof shows that leaf_hash is leaf
 * `index` of the tree of size n with the given root, -1 otherwise. */
int wt_merkle_verify_inclusion(const uint8_t leaf_hash[WT_HASH_LEN], uint64_t index, uint64_t n,
                               const uint8_t (*proof)[WT_HASH_LEN], size_t len,
                               const uint8_t root[WT_HASH_LEN]);

/* Consistency proof (RFC 6962 §2.1.2 SUBPROOF) from the tree of the first m
 * leaves to the tree of the first n leaves, 0 <= m <= n.  An empty proof for
 * m == 0 or m == n.  Returns 0, or -1 if m > n or cap is too small. */
int wt_merkle_consistency_proof(const uint8_t (*leaves)[WT_HASH_LEN], uint64_t n, uint64_t m,
                                uint8_t (*proof)[WT_HASH_LEN], size_t cap, size_t *len);

/* RFC 9162 §2.1.4.2.  Returns 0 when the proof shows that the tree (m,
 * old_root) is a prefix of the tree (n, new_root), -1 otherwise.  m == 0
 * verifies with an empty proof; m == n needs old_root == new_root and an
 * empty proof. */
int wt_merkle_verify_consistency(uint64_t m, uint64_t n, const uint8_t old_root[WT_HASH_LEN],
                                 const uint8_t new_root[WT_HASH_LEN],
                                 const uint8_t (*proof)[WT_HASH_LEN], size_t len);

#endif
