/* Window helpers (see window.h). */
#include "features/window.h"

#include <math.h>

double wt_window_seconds(const struct wt_window *w)
{
    if (w->n < 2)
        return 0;
    return w->s[w->n - 1].t_s - w->s[0].t_s;
}

size_t wt_window_tail_start(const struct wt_window *w, double seconds)
{
    size_t from = 0;
    if (w->n < 2)
        return 0;
    double cut = w->s[w->n - 1].t_s - seconds + 1e-9;
    while (from < w->n - 1 && w->s[from].t_s <= cut)
        from++;
    return from;
}

enum wt_class wt_window_truth(const struct wt_window *w)
{
    size_t count[WT_NCLASSES] = {0};
    if (w->n == 0)
        return WT_CLASS_NONE;
    for (size_t i = 0; i < w->n; i++) {
        enum wt_class c = w->s[i].label;
        if (c >= 0 && c < WT_NCLASSES)
            count[c]++;
    }
    for (int c = 0; c < WT_NCLASSES; c++)
        if ((double)count[c] >= WT_WINDOW_LABEL_SHARE * (double)w->n)
            return (enum wt_class)c;
    return WT_CLASS_NONE;
}

void wt_window_iter_init(struct wt_window_iter *it, const struct wt_sample *s, size_t n,
                         double len_s)
{
    it->s = s;
    it->n = n;
    it->pos = 0;
    it->len_s = len_s;
    it->t0 = n ? s[0].t_s : 0;
    it->k = 0;
}

int wt_window_iter_next(struct wt_window_iter *it, size_t *start, size_t *count)
{
    if (it->pos >= it->n)
        return 0;
    /* index of the window the next sample falls in */
    double t = it->s[it->pos].t_s;
    double k = floor((t - it->t0) / it->len_s);
    double end = it->t0 + (k + 1) * it->len_s;
    /* the division and the product round apart: 68.874 - 8.874 = 59.99999..
     * puts the sample in window 1, whose end 8.874 + 60 = 68.874 the
     * previous window already stopped at, and the sample became a window of
     * its own (a spurious 'short' one, and window 2 lost it) */
    for (int again = 0; again < 2 && end <= t; again++) {
        k++;
        end = it->t0 + (k + 1) * it->len_s;
    }
    it->k = k;
    /* the window always holds the sample it starts with: where rounding puts
     * end at or before it (epoch times, huge gaps), the walk still advances */
    size_t i = it->pos + 1;
    while (i < it->n && it->s[i].t_s < end)
        i++;
    *start = it->pos;
    *count = i - it->pos;
    it->pos = i;
    return 1;
}
