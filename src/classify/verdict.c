/* Declared-vs-observed verdicts (see verdict.h). */
#include "classify/verdict.h"

const char *wt_verdict_name(enum wt_verdict v)
{
    switch (v) {
    case WT_VERDICT_MATCH:
        return "MATCH";
    case WT_VERDICT_MISMATCH:
        return "MISMATCH";
    default:
        return "INCONCLUSIVE";
    }
}

/* The k-of-n verdict from the windows' class counts (verdict.h).  IDLE
 * windows of a job declared TRAINING or INFERENCE count for neither side:
 * nothing ran in them (a checkpoint save, start-up, a server without
 * requests), which is no other workload (counted against, they made 49 of
 * 124 honest traces of ../shared/traces a MISMATCH, a reviewer measured).
 * K is then scaled to the windows left, and at least 2: training in turn
 * with idle, declared inference, stays a MISMATCH; one training window in an
 * idle job does not make one. */
static enum wt_verdict counted_verdict(enum wt_class declared, const size_t *count, size_t k)
{
    size_t same = 0, other = 0, n = 0;
    for (int c = 0; c < WT_NCLASSES; c++)
        n += count[c];
    size_t neutral =
        declared == WT_CLASS_TRAINING || declared == WT_CLASS_INFERENCE ? count[WT_CLASS_IDLE] : 0;
    for (int c = 0; c < WT_NCLASSES; c++) {
        if (c == WT_CLASS_UNKNOWN || (neutral && c == WT_CLASS_IDLE))
            continue;
        if (c == (int)declared)
            same += count[c];
        else
            other += count[c];
    }
    if (neutral) {
        size_t left = n - neutral;
        if (left < 2)
            return WT_VERDICT_INCONCLUSIVE;
        size_t scaled = (k * left + n - 1) / n; /* ceil(k * left / n) */
        k = scaled < 2 ? 2 : scaled;
    }
    if (k > 0 && other >= k)
        return WT_VERDICT_MISMATCH;
    if (k > 0 && same >= k)
        return WT_VERDICT_MATCH;
    return WT_VERDICT_INCONCLUSIVE;
}

enum wt_verdict wt_verdict_for(enum wt_class declared, const struct wt_result *r)
{
    if (r->job_windows > 0)
        return counted_verdict(declared, r->job_count, r->job_k);
    if (r->cls == WT_CLASS_UNKNOWN || r->cls == WT_CLASS_NONE)
        return WT_VERDICT_INCONCLUSIVE;
    return r->cls == declared ? WT_VERDICT_MATCH : WT_VERDICT_MISMATCH;
}

enum wt_class wt_job_class(const enum wt_class *cls, size_t n, size_t k, size_t *votes)
{
    size_t count[WT_NCLASSES] = {0};
    for (size_t i = 0; i < n; i++)
        if (cls[i] >= 0 && cls[i] < WT_NCLASSES)
            count[cls[i]]++;
    for (int c = 0; c < WT_NCLASSES; c++)
        if (k > 0 && count[c] >= k) {
            if (votes)
                *votes = count[c];
            return (enum wt_class)c;
        }
    if (votes)
        *votes = 0;
    return WT_CLASS_UNKNOWN;
}

enum wt_verdict wt_job_verdict(enum wt_class declared, const enum wt_class *cls, size_t n, size_t k)
{
    size_t count[WT_NCLASSES] = {0};
    for (size_t i = 0; i < n; i++)
        if (cls[i] >= 0 && cls[i] < WT_NCLASSES)
            count[cls[i]]++;
    return counted_verdict(declared, count, k);
}

size_t wt_job_default_k(size_t n)
{
    return n / 2 + 1;
}
