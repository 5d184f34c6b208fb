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
/* One window: its class against the declared one.  A job-level result
 * (r->job_windows > 0) is judged on its windows, as wt_job_verdict does. */
enum wt_verdict wt_verdict_for(enum wt_class declared, const struct wt_result *r);

/* Job level: k of n windows.  Over the classes of n windows, the job's class
 * is the class (TRAINING, INFERENCE or IDLE) that at least k windows show,
 * else UNKNOWN; k must be more than n / 2 so at most one class qualifies.
 * The verdict is MISMATCH when at least k windows show a class (not
 * UNKNOWN) other than the declared one, whichever classes they are; MATCH
 * when at least k show the declared one; else INCONCLUSIVE.  So one odd
 * window (with n >= 3) neither triggers nor hides a MISMATCH, and a job
 * that splits its time between two undeclared classes (training, then
 * idle, in turn) is still a MISMATCH though neither class has k windows.
 * For a job declared TRAINING or INFERENCE, IDLE windows count for neither
 * side (nothing ran in them), and k becomes ceil(k * m / n), at least 2,
 * over the m windows left (INCONCLUSIVE when m < 2); without IDLE windows
 * the rule is the one above. */
enum wt_class wt_job_class(const enum wt_class *cls, size_t n, size_t k, size_t *votes);
enum wt_verdict wt_job_verdict(enum wt_class declared, const enum wt_class *cls, size_t n,
                               size_t k);
/* The default k for n windows: a strict majority. */
size_t wt_job_default_k(size_t n);

#endif
