/* Verdicts: the owner's declared workload type against the observed class.
 *
 * MATCH when the observed class equals the declared one, MISMATCH when the
 * classifier observed a different class, INCONCLUSIVE when it could not tell
 * (UNKNOWN).  The CLI exits with WT_EXIT_MISMATCH on MISMATCH so a scheduler
 * hook can act on it.  Job-level aggregation over many windows is built on
 * this (see the classifier issue).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_VERDICT_H
#define WT_VERDICT_H

#include "classify/classifier.h"

enum wt_verdict {
    WT_VERDICT_MATCH,
    WT_VERDICT_MISMATCH,
    WT_VERDICT_INCONCLUSIVE,
};

/* Exit codes of `classify --declared` (0 = MATCH or INCONCLUSIVE). */
#define WT_EXIT_MISMATCH 3

const char *wt_verdict_name(enum wt_verdict v);
enum wt_verdict wt_verdict_for(enum wt_class declared, const struct wt_result *r);

#endif
