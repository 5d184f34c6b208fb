/* Windows: a run of consecutive samples of one GPU, the unit every feature
 * and classifier works on, plus the trace format's window rule for scoring.
 *
 * A window never owns its samples; it points into a caller's buffer.  This
 * module cuts streams into fixed-length windows by time and decides a
 * window's ground truth (>= 80% of its rows carry the same label); it knows
 * nothing of sources or classifiers.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_WINDOW_H
#define WT_WINDOW_H

#include <stddef.h>

#include "telemetry/sample.h"

struct wt_window {
    const struct wt_sample *s;
    size_t n;
    int gpu;
    const char *power_semantics; /* "instant", "avg1s", "unknown" (never NULL) */
    const char *gpu_model;       /* never NULL */
    /* Optional: the same time span on the host's other GPUs, for cross-GPU
     * features (synchronous data-parallel steps, work migrated between GPUs). */
    const struct wt_window *peers;
    size_t npeers;
};

/* Seconds from the first to the last sample (0 for fewer than 2). */
double wt_window_seconds(const struct wt_window *w);

/* The index of the first of w's samples within its last `seconds` (samples
 * after t_last - seconds): the part a classifier with max_seconds scores.
 * The last sample always stays (times so large that subtracting seconds
 * changes nothing would otherwise leave none); 0 for fewer than 2 samples. */
size_t wt_window_tail_start(const struct wt_window *w, double seconds);

/* The trace format's rule: the label carried by at least `share` (0.8) of the
 * rows, or WT_CLASS_NONE when no label reaches it. */
#define WT_WINDOW_LABEL_SHARE 0.8
enum wt_class wt_window_truth(const struct wt_window *w);

/* Cuts n time-ordered samples into windows [t0 + k len, t0 + (k+1) len),
 * t0 = the first sample's time.  Empty windows (gaps) are not returned. */
struct wt_window_iter {
    const struct wt_sample *s;
    size_t n, pos;
    double len_s, t0;
    double k; /* the index of the window last returned: it spans
               * [t0 + k len, t0 + (k+1) len) */
};
void wt_window_iter_init(struct wt_window_iter *it, const struct wt_sample *s, size_t n,
                         double len_s);
/* Returns 1 and sets *start and *count for the next window, or 0 when done. */
int wt_window_iter_next(struct wt_window_iter *it, size_t *start, size_t *count);

#endif
