/* Column names and class names for the sample struct (see sample.h). */
#include "telemetry/sample.h"

#include <strings.h>
#include <string.h>

static const char *const col_names[WT_NCOLS] = {
    [WT_COL_UTIL_GPU] = "util_gpu_pct",
    [WT_COL_UTIL_MEM] = "util_mem_pct",
    [WT_COL_MEM_USED] = "mem_used_mib",
    [WT_COL_MEM_TOTAL] = "mem_total_mib",
    [WT_COL_POWER] = "power_w",
    [WT_COL_POWER_LIMIT] = "power_limit_w",
    [WT_COL_POWER_DEFAULT_LIMIT] = "power_default_limit_w",
    [WT_COL_ENERGY] = "energy_j",
    [WT_COL_SM_CLOCK] = "sm_clock_mhz",
    [WT_COL_SM_CLOCK_MAX] = "sm_clock_max_mhz",
    [WT_COL_MEM_CLOCK] = "mem_clock_mhz",
    [WT_COL_TEMP] = "temp_c",
    [WT_COL_PCIE_TX] = "pcie_tx_mibps",
    [WT_COL_PCIE_RX] = "pcie_rx_mibps",
    [WT_COL_CLOCK_REASONS] = "clock_reasons",
    [WT_COL_PROCS] = "procs",
};

const char *wt_col_name(enum wt_col c)
{
    return (c >= 0 && c < WT_NCOLS) ? col_names[c] : "?";
}

int wt_col_lookup(const char *name, size_t len)
{
    for (int i = 0; i < WT_NCOLS; i++)
        if (strlen(col_names[i]) == len && memcmp(col_names[i], name, len) == 0)
            return i;
    return -1;
}

const char *wt_class_name(enum wt_class c)
{
    switch (c) {
    case WT_CLASS_TRAINING:
        return "TRAINING";
    case WT_CLASS_INFERENCE:
        return "INFERENCE";
    case WT_CLASS_IDLE:
        return "IDLE";
    case WT_CLASS_UNKNOWN:
        return "UNKNOWN";
    default:
        return "";
    }
}

const char *wt_class_lname(enum wt_class c)
{
    switch (c) {
    case WT_CLASS_TRAINING:
        return "training";
    case WT_CLASS_INFERENCE:
        return "inference";
    case WT_CLASS_IDLE:
        return "idle";
    case WT_CLASS_UNKNOWN:
        return "unknown";
    default:
        return "";
    }
}

enum wt_class wt_class_parse(const char *s, bool allow_unknown)
{
    if (!s)
        return WT_CLASS_NONE;
    if (!strcasecmp(s, "TRAINING"))
        return WT_CLASS_TRAINING;
    if (!strcasecmp(s, "INFERENCE"))
        return WT_CLASS_INFERENCE;
    if (!strcasecmp(s, "IDLE"))
        return WT_CLASS_IDLE;
    if (allow_unknown && !strcasecmp(s, "UNKNOWN"))
        return WT_CLASS_UNKNOWN;
    return WT_CLASS_NONE;
}

void wt_sample_clear(struct wt_sample *s, int gpu)
{
    s->t_s = 0;
    s->gpu = gpu;
    s->label = WT_CLASS_NONE;
    s->owner = 0;
    for (int i = 0; i < WT_NCOLS; i++)
        s->v[i] = NAN;
}

void wt_col_range(enum wt_col c, double *lo, double *hi)
{
    *lo = 0;
    *hi = 1e15;
    switch (c) {
    case WT_COL_UTIL_GPU:
    case WT_COL_UTIL_MEM:
        *hi = 100;
        break;
    case WT_COL_POWER:
    case WT_COL_POWER_LIMIT:
    case WT_COL_POWER_DEFAULT_LIMIT:
        *hi = 1e5;
        break;
    case WT_COL_TEMP:
        *lo = -1e15;
        break;
    case WT_COL_ENERGY:
        *lo = -1e18;
        *hi = 1e18;
        break;
    default:
        break;
    }
}
