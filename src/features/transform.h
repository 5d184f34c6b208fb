/* Transforms of a sample stream that model how a deployment would have seen
 * the same GPU: polling at a lower rate (`--resample HZ`) and recording fewer
 * signals (`--columns LIST`, e.g. power only).
 *
 * Resampling keeps, for each tick t0 + k / HZ, the first sample at or after
 * it: what a slower poll of the same NVML counters returns (each counter
 * keeps its own averaging, e.g. 1-second-averaged power stays averaged).  A
 * sample up to a tenth of a step before a tick stands for it when the next
 * sample is a whole step (less a tenth) after the tick, so a stream polled
 * at HZ with a real clock's jitter, or already slower than HZ, is unchanged
 * (but for a last sample before its tick: the stream ended there).
 * Works in place; allocates nothing.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_TRANSFORM_H
#define WT_TRANSFORM_H

#include <stddef.h>
#include <stdint.h>

#include "telemetry/sample.h"
#include "util/err.h"

#define WT_COLS_ALL ((uint32_t)((1u << WT_NCOLS) - 1))

/* Returns the new count. */
size_t wt_resample(struct wt_sample *s, size_t n, double hz);
/* Sets every column not in keep (bit 1 << enum wt_col) to "not measured". */
void wt_keep_columns(struct wt_sample *s, size_t n, uint32_t keep);
/* Parses "power_w,util_gpu_pct" (trace column names) into a mask. */
int wt_columns_parse(const char *list, uint32_t *keep, struct wt_err *err) WT_WARN_UNUSED;

#endif
