/* Stream transforms (see transform.h). */
#include "features/transform.h"

#include <math.h>
#include <string.h>

/* A sample up to JITTER of a step early still stands for the tick when no
 * other sample comes before the tick after it is due: a stream polled at
 * the rate itself, with the jitter of a real poller's clock. */
#define JITTER 0.1

size_t wt_resample(struct wt_sample *s, size_t n, double hz)
{
    if (n == 0 || !(hz > 0))
        return n;
    /* times in steps from the first sample, and ticks by their index: a
     * tolerance in steps, not seconds (a difference of Unix times carries
     * 2e-7 s of rounding, more than the 1e-9 s once allowed), keeps the
     * choice the same wherever the clock started */
    const double tol = 1e-4;
    double step = 1.0 / hz, t0 = s[0].t_s, k = 0; /* k: the next tick */
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        double x = (s[i].t_s - t0) / step;
        /* the first sample at or after each tick; or one just before it
         * whose successor is a whole step later (keeping only the first at
         * or after each tick dropped every other row of a 1 Hz trace with
         * +-2 ms of jitter at --resample 1).  A faster stream has a sample
         * at the tick soon after: it is unchanged by this. */
        int before = x + tol < k;
        int early =
            before && x >= k - JITTER && i + 1 < n && (s[i + 1].t_s - t0) / step >= k + 1 - JITTER;
        if (before && !early) {
            /* a row within the tick's step fills in what the tick's row left
             * empty: a converter's rows, one per metric group, or every
             * other row empty, kept the tick's row alone (its utilization,
             * or every reading, lost) */
            if (out > 0)
                for (int c = 0; c < WT_NCOLS; c++)
                    if (!wt_measured(s[out - 1].v[c]) && wt_measured(s[i].v[c]))
                        s[out - 1].v[c] = s[i].v[c];
            continue;
        }
        s[out++] = s[i];
        /* the next tick after the one this sample stands for */
        k = early ? k + 1 : floor(x + tol) + 1;
    }
    return out;
}

void wt_keep_columns(struct wt_sample *s, size_t n, uint32_t keep)
{
    for (int c = 0; c < WT_NCOLS; c++) {
        if (keep & (1u << c))
            continue;
        for (size_t i = 0; i < n; i++)
            s[i].v[c] = NAN;
    }
}

int wt_columns_parse(const char *list, uint32_t *keep, struct wt_err *err)
{
    *keep = 0;
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || (comma && !comma[1])) /* ",x", "x,,y", "x,": a name left out */
            return wt_errf(err, WT_EINVAL, "an empty name in the list '%.60s'", list);
        int c = wt_col_lookup(p, len);
        if (c < 0)
            return wt_errf(err, WT_EINVAL,
                           "unknown column '%.*s' (trace column names such as "
                           "util_gpu_pct, power_w, mem_used_mib)",
                           (int)(len > 40 ? 40 : len), p);
        *keep |= 1u << c;
        p += len + (comma ? 1 : 0);
    }
    if (!*keep)
        return wt_errf(err, WT_EINVAL, "no column named");
    return WT_OK;
}
