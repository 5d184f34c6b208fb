/* Who owns a GPU, as a trace's `owners` column records it: the owners the
 * kernel names for the GPU's compute processes (the Slurm job of the cgroup
 * Slurm made, the Kubernetes pod UID, the container), so that a recorded
 * multi-GPU host is read the way `watch` reads it live: a GPU's peers (the
 * cross-GPU feature `peer_sync`) are the GPUs of its own job.
 *
 * A cell is empty (not measured: the process list could not be read), "-"
 * (read: no process the kernel names an owner of), or owner names joined by
 * ';', the one using the most GPU memory first ("slurm:501;pod:1f0c...").
 * This module turns a process list into a cell, checks and interns the cells
 * a trace holds (each distinct cell once; a sample keeps its id), and applies
 * the peer rule.  It reads no files and no /proc: see procinfo.h.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_OWNERS_H
#define WT_OWNERS_H

#include <stddef.h>
#include <stdint.h>

#include "telemetry/procinfo.h"

#define WT_OWNERS_CELL_MAX 4096        /* bytes of one cell */
#define WT_OWNERS_MAX_NAMES 32         /* owners named in one cell */
#define WT_OWNERS_MAX_SETS 65536       /* distinct cells in one trace */
#define WT_OWNERS_MAX_BYTES (16 << 20) /* bytes of distinct cells in one trace */

/* Sample ids: 0 is "not measured" (an empty cell, or no owners column). */
#define WT_OWNERS_UNKNOWN 0u

struct wt_owners;

struct wt_owners *wt_owners_new(void);
void wt_owners_free(struct wt_owners *t);

/* Checks cell (len bytes, not NUL-terminated) and sets *id: 0 for an empty
 * cell, the same id for the same text.  -1 when the cell is not an owners
 * cell (or memory ran out), -2 when a table's limit is passed (a valid cell
 * that cannot be kept), with the reason in why (cap bytes); *id is 0 then. */
int wt_owners_intern(struct wt_owners *t, const char *cell, size_t len, uint32_t *id, char *why,
                     size_t cap);

/* The text of id ("" for 0 or an id t does not hold). */
const char *wt_owners_text(const struct wt_owners *t, uint32_t id);

/* Whether GPU h may be read beside GPU g as one job's, g's and h's owners
 * being ids g and h (each at the start of the window): g names no owner
 * (unknown or "-": every GPU is a peer, as without owners), h's are unknown,
 * or h's owners include g's first (its main) owner.  t may be NULL (every
 * GPU is a peer). */
int wt_owners_same_job(const struct wt_owners *t, uint32_t g, uint32_t h);

/* The owner the kernel names for p, written to buf (cap bytes): "slurm:JOB"
 * (only a job id from a cgroup Slurm made, never the environment's), then
 * "pod:UID" and "container:ID", joined by '/'; a byte outside
 * [A-Za-z0-9_.:@+=-] becomes '_'.  Returns its length, 0 when the kernel
 * names no owner (a bare process). */
size_t wt_owners_name(const struct wt_proc *p, char *buf, size_t cap);

/* The cell for a GPU's processes (n of them; the process list was read):
 * "-" when none has an owner the kernel names, else the distinct owners, the
 * one using the most GPU memory first, then in the order listed, as many as
 * fit WT_OWNERS_MAX_NAMES and cap bytes (cap >= 2).  Returns its length. */
size_t wt_owners_cell(const struct wt_proc *procs, size_t n, char *buf, size_t cap);

#endif
