/* Small statistics over one column of a window, skipping "not measured"
 * (NaN) values.  Each returns NaN when there are too few measured values
 * (mean: 1, sample standard deviation and slope: 2), and the median spacing of
 * a stream's samples.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_STATS_H
#define WT_STATS_H

#include <stddef.h>

#include "telemetry/sample.h"

size_t wt_stat_count(const struct wt_sample *s, size_t n, enum wt_col c);
double wt_stat_mean(const struct wt_sample *s, size_t n, enum wt_col c);
/* Sample standard deviation (divides by n - 1), like Python's statistics.stdev. */
double wt_stat_stdev(const struct wt_sample *s, size_t n, enum wt_col c);
/* Least-squares slope of the column against the sample index (0, 1, ...). */
double wt_stat_slope_per_sample(const struct wt_sample *s, size_t n, enum wt_col c);
/* Median of the positive gaps between consecutive samples' times (NaN when
 * there is none); tmp has room for n values. */
double wt_stat_median_period(const struct wt_sample *s, size_t n, double *tmp);

#endif
