/* The mini witness (c2sp.org/tlog-witness semantics, offline): it keeps the
 * latest checkpoint it cosigned for one log, and cosigns a newer one only
 * when it is signed by the log's key and a consistency proof shows that it
 * extends the stored one.  Run it on a machine the log's host cannot write.
 *
 * State directory: witness.key (PRIVATE+KEY+<name>+<id>+base64(0x04||seed),
 * mode 0600, made on first use), state.lock, and one file per log,
 * log-<16 hex of SHA-256(origin)>.checkpoint: the last cosigned checkpoint
 * (the log's signed note plus this witness's cosignature line), replaced
 * atomically before the cosignature is returned.  That file is a signed
 * checkpoint `verify-log --against` accepts.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_AUDIT_WITNESS_H
#define WT_AUDIT_WITNESS_H

#include <stddef.h>
#include <stdint.h>

#include "audit/note.h"
#include "util/err.h"

/* HTTP-like result codes of tlog-witness add-checkpoint. */
#define WT_WITNESS_OK 200
#define WT_WITNESS_BAD_REQUEST 400
#define WT_WITNESS_FORBIDDEN 403 /* not signed by the log's key */
#define WT_WITNESS_CONFLICT 409  /* `old` is not the size held, or that size with another root */
#define WT_WITNESS_BAD_PROOF 422 /* the consistency proof does not verify */

struct wt_witness_result {
    int code;
    uint64_t stored_size; /* the witness's size before (and on 409) */
    uint64_t new_size;
    char cosig_line[512];  /* on 200: "— <name> <base64>\n" */
    char state_path[4200]; /* the file holding the cosigned checkpoint */
    char message[600];
};

/* Loads or creates (with `name`, NULL: "witness.<host>") the witness key in
 * dir; writes its verifier key text to vkey. *created says which. */
int wt_witness_key(const char *dir, const char *name, struct wt_note_key *k, int *created,
                   struct wt_err *err) WT_WARN_UNUSED;

/* Handles one add-checkpoint request body.  Returns WT_OK with res->code set
 * (200 or a refusal), or an error for I/O problems with the state. */
int wt_witness_add(const char *dir, const struct wt_note_key *wkey,
                   const struct wt_note_vkey *log_vkey, const char *req, size_t len, uint64_t now_s,
                   struct wt_witness_result *res, struct wt_err *err) WT_WARN_UNUSED;

#endif
