/* libFuzzer target for the proof exchange texts: arbitrary bytes as a
 * c2sp.org/tlog-proof@v1 bundle and as a tlog-witness add-checkpoint request.
 * What parses must format back to the same bytes and re-parse to the same
 * values; its hashes then go through the Merkle inclusion and consistency
 * verifiers against the checkpoint it carries (which must not crash, whatever
 * the sizes).  Any crash, leak, sanitizer report or broken round trip is a
 * bug; parse errors and failed proofs are fine.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_proof -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit/merkle.h"
#include "audit/note.h"
#include "audit/proof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The checkpoint inside a (well-formed) signed note; 0 if it has one. */
static int note_checkpoint(const char *note, size_t len, struct wt_checkpoint *cp)
{
    struct wt_note n;
    struct wt_err err;
    if (wt_note_parse(note, len, &n, &err) != WT_OK)
        abort(); /* the parsers promise a well-formed note */
    int rc = wt_checkpoint_parse(n.text, n.body_len, cp, &err);
    wt_note_free(&n);
    return rc;
}

static void tlog_proof(const char *text, size_t size)
{
    struct wt_tlog_proof p, q;
    struct wt_err err;
    if (wt_tlog_proof_parse(text, size, &p, &err) != WT_OK)
        return;
    char *out = NULL;
    if (wt_tlog_proof_format(&p, &out, &err) != WT_OK || strlen(out) != size ||
        memcmp(out, text, size) != 0)
        abort();
    if (wt_tlog_proof_parse(out, strlen(out), &q, &err) != WT_OK || q.index != p.index ||
        q.npath != p.npath || memcmp(q.path, p.path, p.npath * 32) != 0 ||
        q.extra_len != p.extra_len || (p.extra_len && memcmp(q.extra, p.extra, p.extra_len)) ||
        q.checkpoint_len != p.checkpoint_len ||
        memcmp(q.checkpoint, p.checkpoint, p.checkpoint_len) != 0)
        abort();
    free(out);
    wt_tlog_proof_free(&q);
    struct wt_checkpoint cp;
    if (note_checkpoint(p.checkpoint, p.checkpoint_len, &cp) == WT_OK) {
        uint8_t leaf[32] = {0};
        if (p.extra)
            wt_merkle_leaf_hash(p.extra, p.extra_len, leaf);
        (void)wt_merkle_verify_inclusion(leaf, p.index, cp.size, (const uint8_t(*)[32])p.path,
                                         p.npath, cp.root);
        if (p.npath > 0)
            (void)wt_merkle_verify_inclusion(p.path[0], p.index, cp.size,
                                             (const uint8_t(*)[32])p.path + 1, p.npath - 1,
                                             cp.root);
    }
    wt_tlog_proof_free(&p);
}

static void witness_req(const char *text, size_t size)
{
    struct wt_witness_req r, q;
    struct wt_err err;
    if (wt_witness_req_parse(text, size, &r, &err) != WT_OK)
        return;
    char *out = NULL;
    if (wt_witness_req_format(&r, &out, &err) != WT_OK || strlen(out) != size ||
        memcmp(out, text, size) != 0)
        abort();
    if (wt_witness_req_parse(out, strlen(out), &q, &err) != WT_OK || q.old_size != r.old_size ||
        q.nproof != r.nproof || memcmp(q.proof, r.proof, r.nproof * 32) != 0 ||
        q.checkpoint_len != r.checkpoint_len ||
        memcmp(q.checkpoint, r.checkpoint, r.checkpoint_len) != 0)
        abort();
    free(out);
    wt_witness_req_free(&q);
    struct wt_checkpoint cp;
    if (note_checkpoint(r.checkpoint, r.checkpoint_len, &cp) == WT_OK) {
        /* the first hash as the old root, the rest as the proof; and the whole
         * list against the new root as the old one */
        if (r.nproof > 0)
            (void)wt_merkle_verify_consistency(r.old_size, cp.size, r.proof[0], cp.root,
                                               (const uint8_t(*)[32])r.proof + 1, r.nproof - 1);
        (void)wt_merkle_verify_consistency(r.old_size, cp.size, cp.root, cp.root,
                                           (const uint8_t(*)[32])r.proof, r.nproof);
    }
    wt_witness_req_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tlog_proof((const char *)data, size);
    witness_req((const char *)data, size);
    return 0;
}
