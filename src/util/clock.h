/* The monotonic clock in seconds, for deadlines, pacing and rates.
 *
 * CLOCK_MONOTONIC, which a wall-clock step (NTP, `date -s`) does not move.
 * Not for time stamps that are shown or logged: those are wall-clock time.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_CLOCK_H
#define WT_CLOCK_H

/* Seconds since an arbitrary fixed point (boot), with nanosecond resolution. */
double wt_mono_s(void);

#endif
