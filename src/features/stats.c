/* Column statistics (see stats.h).  Two-pass formulas for accuracy. */
#include "features/stats.h"

#include <math.h>
#include <stdlib.h>

size_t wt_stat_count(const struct wt_sample *s, size_t n, enum wt_col c)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += wt_measured(s[i].v[c]);
    return k;
}

double wt_stat_mean(const struct wt_sample *s, size_t n, enum wt_col c)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (wt_measured(s[i].v[c])) {
            sum += s[i].v[c];
            k++;
        }
    return k ? sum / (double)k : NAN;
}

double wt_stat_stdev(const struct wt_sample *s, size_t n, enum wt_col c)
{
    size_t k = wt_stat_count(s, n, c);
    if (k < 2)
        return NAN;
    double m = wt_stat_mean(s, n, c), ss = 0;
    for (size_t i = 0; i < n; i++)
        if (wt_measured(s[i].v[c])) {
            double d = s[i].v[c] - m;
            ss += d * d;
        }
    return sqrt(ss / (double)(k - 1));
}

double wt_stat_slope_per_sample(const struct wt_sample *s, size_t n, enum wt_col c)
{
    double sx = 0, sy = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (wt_measured(s[i].v[c])) {
            sx += (double)i;
            sy += s[i].v[c];
            k++;
        }
    if (k < 2)
        return NAN;
    double mx = sx / (double)k, my = sy / (double)k, sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++)
        if (wt_measured(s[i].v[c])) {
            double dx = (double)i - mx;
            sxy += dx * (s[i].v[c] - my);
            sxx += dx * dx;
        }
    return sxx > 0 ? sxy / sxx : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double wt_stat_median_period(const struct wt_sample *s, size_t n, double *tmp)
{
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        double d = s[i].t_s - s[i - 1].t_s;
        if (d > 0)
            tmp[k++] = d;
    }
    if (!k)
        return NAN;
    qsort(tmp, k, sizeof(double), cmp_double);
    return tmp[k / 2];
}
