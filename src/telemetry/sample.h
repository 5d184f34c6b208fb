/* One telemetry sample: every column of the trace format for one GPU at one
 * instant, as used by every source, feature and sink in the project.
 *
 * "Not measured" is NaN in a value slot and is never confused with zero
 * (use wt_measured()).  Columns are addressed by enum wt_col so that readers,
 * writers and features share one table of names and units.  This module knows
 * nothing of files, devices or classifiers.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_SAMPLE_H
#define WT_SAMPLE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The workload classes.  WT_CLASS_NONE is "no label" (unscored rows). */
enum wt_class {
    WT_CLASS_NONE = -1,
    WT_CLASS_TRAINING = 0,
    WT_CLASS_INFERENCE = 1,
    WT_CLASS_IDLE = 2,
    WT_CLASS_UNKNOWN = 3, /* a classifier's "cannot tell" */
};
#define WT_NCLASSES 3 /* TRAINING, INFERENCE, IDLE: the classes a label can name */

/* "TRAINING", "INFERENCE", "IDLE", "UNKNOWN" ("" for NONE). */
const char *wt_class_name(enum wt_class c);
/* Lower-case name for CLI/JSON fields where the Python tool uses lower case. */
const char *wt_class_lname(enum wt_class c);
/* Case-insensitive; returns WT_CLASS_NONE if s names no class (UNKNOWN is
 * accepted only when allow_unknown). */
enum wt_class wt_class_parse(const char *s, bool allow_unknown);

/* Numeric columns of the trace format, after t_s and gpu. */
enum wt_col {
    WT_COL_UTIL_GPU,
    WT_COL_UTIL_MEM,
    WT_COL_MEM_USED,
    WT_COL_MEM_TOTAL,
    WT_COL_POWER,
    WT_COL_POWER_LIMIT,
    WT_COL_POWER_DEFAULT_LIMIT,
    WT_COL_ENERGY,
    WT_COL_SM_CLOCK,
    WT_COL_SM_CLOCK_MAX,
    WT_COL_MEM_CLOCK,
    WT_COL_TEMP,
    WT_COL_PCIE_TX,
    WT_COL_PCIE_RX,
    WT_COL_CLOCK_REASONS, /* bitmask stored exactly as a double (bits < 2^53) */
    WT_COL_PROCS,
    WT_NCOLS
};

/* Trace-format column name of c ("util_gpu_pct", ...). */
const char *wt_col_name(enum wt_col c);
/* Returns the column named name (exact, case-sensitive), or -1. */
int wt_col_lookup(const char *name, size_t len);

#define WT_MAX_GPUS 1024

struct wt_sample {
    double t_s;          /* seconds since the start of the stream */
    int gpu;             /* GPU index within the host */
    enum wt_class label; /* ground truth, WT_CLASS_NONE if unlabelled */
    uint32_t owner;      /* the GPU's owners: an id of the source's table
                          * (telemetry/owners.h), 0 = not measured */
    double v[WT_NCOLS];  /* NaN = not measured */
};

/* Sets t_s = 0, gpu, label NONE, owner and every column to "not measured". */
void wt_sample_clear(struct wt_sample *s, int gpu);

/* The values column c can take ([*lo, *hi]): utilization 0..100 %, power and
 * limits 0..100 kW, temperature and the energy counter (which may start
 * anywhere) signed, every other column 0..1e15.  A trace is refused outside
 * it; a live reading outside it is a driver's bogus value, not measured. */
void wt_col_range(enum wt_col c, double *lo, double *hi);

static inline bool wt_measured(double x)
{
    return !isnan(x);
}

#endif
