/* Stream transforms (see transform.h). */
#include "features/transform.h"

#include <math.h>
#include <string.h>

size_t wt_resample(struct wt_sample *s, size_t n, double hz)
{
    if (n == 0 || !(hz > 0))
        return n;
    /* each sample belongs to its nearest tick t0 + k / HZ; the first of each
     * tick is kept.  (Keeping the first at or after each tick dropped every
     * other row of a 1 Hz trace with +-2 ms of jitter at --resample 1.) */
    double step = 1.0 / hz, t0 = s[0].t_s, last_k = -1;
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        double k = floor((s[i].t_s - t0) / step + 0.5);
        if (out && !(k > last_k))
            continue;
        s[out++] = s[i];
        last_k = k;
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
