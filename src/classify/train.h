/* Trains the boosted-tree model (model.h) from labelled feature vectors:
 * Newton boosting of depth-limited trees on the logistic loss, with sample
 * weights, L2-regularized leaf values and split thresholds chosen among
 * quantiles of each feature.  Fully deterministic (no randomness, fixed
 * tie-breaking), and every number is rounded to the precision the model file
 * stores before it is used, so the file written equals the model trained.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_TRAIN_H
#define WT_TRAIN_H

#include <stddef.h>

#include "classify/model.h"

struct wt_train_opts {
    int rounds;           /* trees */
    int depth;            /* 1..3 */
    double learning_rate; /* shrinkage */
    double lambda;        /* L2 on leaf values */
    double min_child;     /* minimum hessian weight in a child */
    int nthresholds;      /* candidate thresholds per feature */
    const enum wt_feature *features;
    size_t nfeatures;
    int missing_stop; /* a window whose split feature is not measured stops at that
                       * node (WT_MISSING_STOP) instead of taking a side */
};

/* y[i] is 1 for TRAINING, 0 for INFERENCE; w[i] > 0. */
int wt_train_boost(const struct wt_features *x, const unsigned char *y, const double *w, size_t n,
                   const struct wt_train_opts *o, struct wt_model *out,
                   struct wt_err *err) WT_WARN_UNUSED;

/* Rounds to the 6 significant digits the model file keeps. */
double wt_model_round(double v);

#endif
