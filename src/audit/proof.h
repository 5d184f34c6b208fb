/* Text exchange formats for proofs: inclusion-proof bundles
 * (c2sp.org/tlog-proof@v1) and witness requests (the c2sp.org/tlog-witness
 * add-checkpoint body).  Parsing and formatting only: verifying the proofs
 * is merkle.h's job and checking the signatures note.h's.
 *
 *   tlog-proof  = "c2sp.org/tlog-proof@v1\n"
 *                 [ "extra " base64(bytes) "\n" ]
 *                 "index " <decimal> "\n"
 *                 { base64(hash[32]) "\n" }          (0..63 lines)
 *                 "\n"
 *                 <signed checkpoint note>
 *   witness req = "old " <decimal> "\n"
 *                 { base64(hash[32]) "\n" }          (0..63 lines)
 *                 "\n"
 *                 <signed checkpoint note>
 * Decimals have no leading zeros and fit in 63 bits; "extra" is at most
 * 64 KiB decoded; the whole text at most 256 KiB.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_AUDIT_PROOF_H
#define WT_AUDIT_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define WT_PROOF_MAX_HASHES 63
#define WT_PROOF_MAX_TEXT (256 * 1024)
#define WT_PROOF_MAX_EXTRA (64 * 1024)

struct wt_tlog_proof {
    uint8_t *extra; /* malloc'd, or NULL when absent */
    size_t extra_len;
    uint64_t index;
    size_t npath;
    uint8_t path[WT_PROOF_MAX_HASHES][32];
    char *checkpoint; /* malloc'd, NUL-terminated signed note */
    size_t checkpoint_len;
};

struct wt_witness_req {
    uint64_t old_size;
    size_t nproof;
    uint8_t proof[WT_PROOF_MAX_HASHES][32];
    char *checkpoint; /* malloc'd, NUL-terminated signed note */
    size_t checkpoint_len;
};

/* Format into a malloc'd NUL-terminated string. */
int wt_tlog_proof_format(const struct wt_tlog_proof *p, char **out,
                         struct wt_err *err) WT_WARN_UNUSED;
int wt_tlog_proof_parse(const char *text, size_t len, struct wt_tlog_proof *p,
                        struct wt_err *err) WT_WARN_UNUSED;
void wt_tlog_proof_free(struct wt_tlog_proof *p);

int wt_witness_req_format(const struct wt_witness_req *r, char **out,
                          struct wt_err *err) WT_WARN_UNUSED;
int wt_witness_req_parse(const char *text, size_t len, struct wt_witness_req *r,
                         struct wt_err *err) WT_WARN_UNUSED;
void wt_witness_req_free(struct wt_witness_req *r);

#endif
