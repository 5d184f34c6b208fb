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

enum wt_verdict wt_verdict_for(enum wt_class declared, const struct wt_result *r)
{
    if (r->cls == WT_CLASS_UNKNOWN || r->cls == WT_CLASS_NONE)
        return WT_VERDICT_INCONCLUSIVE;
    return r->cls == declared ? WT_VERDICT_MATCH : WT_VERDICT_MISMATCH;
}
