/* The rule classifier: the Python tool's four-threshold rules, reproduced
 * exactly, selectable as `--classifier rules`.
 *
 * IDLE when avg GPU utilization <= 5% and avg power <= 50 W (confidence
 * 1 - avg_util / 5 x 0.3, at most 1).  Otherwise four TRAINING votes (avg util >= 65%,
 * util std-dev <= 15, memory slope >= 5 MiB/sample, power std-dev <= 25 W)
 * against four INFERENCE votes (avg util <= 70%, util std-dev >= 12, slope
 * < 5 MiB/sample, power std-dev >= 20 W); the side with more votes wins with
 * confidence votes / 4; a tie is UNKNOWN with confidence 0.5.
 *
 * Beyond the Python tool (which always had every column): a rule whose
 * feature is not measured abstains and says so; the IDLE rule needs every
 * measured one of its two conditions to hold and at least one measured (its
 * confidence is then 0.7 when utilization is not measured).  These rules are
 * level thresholds fitted to synthetic data: kept for compatibility and as the
 * baseline the robust classifier is compared against, not for decisions.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>

#include "classify/classifier.h"

#define IDLE_UTIL_MAX 5.0
#define IDLE_POWER_MAX 50.0
#define TRAIN_UTIL_MIN 65.0
#define TRAIN_UTIL_SD_MAX 15.0
#define TRAIN_MEM_SLOPE_MIN 5.0
#define TRAIN_POWER_SD_MAX 25.0
#define INFER_UTIL_MAX 70.0
#define INFER_UTIL_SD_MIN 12.0
#define INFER_MEM_SLOPE_MAX 5.0 /* strictly below */
#define INFER_POWER_SD_MIN 20.0

static const enum wt_feature exposed[] = {
    WT_F_AVG_GPU_UTIL, WT_F_STD_GPU_UTIL, WT_F_MEM_GROWTH,
    WT_F_AVG_POWER,    WT_F_STD_POWER,    WT_F_AVG_PROCS,
};

static void note_missing(struct wt_result *out, enum wt_feature f, const char *what)
{
    wt_result_add_reason(out, (int)f, NAN, WT_CLASS_NONE, "%s not measured -- its rules abstain",
                         what);
}

static int rules_classify(const struct wt_classifier *c, const struct wt_window *w,
                          const struct wt_features *f, struct wt_result *out, struct wt_err *err)
{
    (void)c;
    (void)w;
    (void)err;
    double util = f->v[WT_F_AVG_GPU_UTIL];
    double util_sd = f->v[WT_F_STD_GPU_UTIL];
    double slope = f->v[WT_F_MEM_GROWTH];
    double power = f->v[WT_F_AVG_POWER];
    double power_sd = f->v[WT_F_STD_POWER];

    /* IDLE */
    int have_util = wt_measured(util), have_power = wt_measured(power);
    if ((have_util || have_power) && (!have_util || util <= IDLE_UTIL_MAX) &&
        (!have_power || power <= IDLE_POWER_MAX)) {
        out->cls = WT_CLASS_IDLE;
        out->confidence = have_util ? 1.0 - util / IDLE_UTIL_MAX * 0.3 : 0.7;
        if (out->confidence > 1) /* a negative utilization in a trace: still at most 1 */
            out->confidence = 1;
        if (have_util)
            wt_result_add_reason(out, WT_F_AVG_GPU_UTIL, util, WT_CLASS_IDLE,
                                 "avg GPU utilization %.1f%% <= idle threshold %.1f%%", util,
                                 IDLE_UTIL_MAX);
        else
            note_missing(out, WT_F_AVG_GPU_UTIL, "avg GPU utilization");
        if (have_power)
            wt_result_add_reason(out, WT_F_AVG_POWER, power, WT_CLASS_IDLE,
                                 "avg power %.1f W <= idle threshold %.1f W", power,
                                 IDLE_POWER_MAX);
        else
            note_missing(out, WT_F_AVG_POWER, "avg power");
        return WT_OK;
    }

    int train = 0, infer = 0;
    if (wt_measured(util) && util >= TRAIN_UTIL_MIN) {
        train++;
        wt_result_add_reason(out, WT_F_AVG_GPU_UTIL, util, WT_CLASS_TRAINING,
                             "avg GPU utilization %.1f%% >= training threshold %.1f%%", util,
                             TRAIN_UTIL_MIN);
    }
    if (wt_measured(util_sd) && util_sd <= TRAIN_UTIL_SD_MAX) {
        train++;
        wt_result_add_reason(out, WT_F_STD_GPU_UTIL, util_sd, WT_CLASS_TRAINING,
                             "GPU utilization std-dev %.1f%% <= training threshold %.1f%%", util_sd,
                             TRAIN_UTIL_SD_MAX);
    }
    if (wt_measured(slope) && slope >= TRAIN_MEM_SLOPE_MIN) {
        train++;
        wt_result_add_reason(out, WT_F_MEM_GROWTH, slope, WT_CLASS_TRAINING,
                             "memory growth %.1f MiB/sample >= training threshold %.1f MiB/sample",
                             slope, TRAIN_MEM_SLOPE_MIN);
    }
    if (wt_measured(power_sd) && power_sd <= TRAIN_POWER_SD_MAX) {
        train++;
        wt_result_add_reason(out, WT_F_STD_POWER, power_sd, WT_CLASS_TRAINING,
                             "power std-dev %.1f W <= training threshold %.1f W", power_sd,
                             TRAIN_POWER_SD_MAX);
    }
    if (wt_measured(util) && util <= INFER_UTIL_MAX) {
        infer++;
        wt_result_add_reason(out, WT_F_AVG_GPU_UTIL, util, WT_CLASS_INFERENCE,
                             "avg GPU utilization %.1f%% <= inference threshold %.1f%%", util,
                             INFER_UTIL_MAX);
    }
    if (wt_measured(util_sd) && util_sd >= INFER_UTIL_SD_MIN) {
        infer++;
        wt_result_add_reason(out, WT_F_STD_GPU_UTIL, util_sd, WT_CLASS_INFERENCE,
                             "GPU utilization std-dev %.1f%% >= inference threshold %.1f%%",
                             util_sd, INFER_UTIL_SD_MIN);
    }
    if (wt_measured(slope) && slope < INFER_MEM_SLOPE_MAX) {
        infer++;
        wt_result_add_reason(out, WT_F_MEM_GROWTH, slope, WT_CLASS_INFERENCE,
                             "memory growth %.1f MiB/sample < inference threshold %.1f MiB/sample",
                             slope, INFER_MEM_SLOPE_MAX);
    }
    if (wt_measured(power_sd) && power_sd >= INFER_POWER_SD_MIN) {
        infer++;
        wt_result_add_reason(out, WT_F_STD_POWER, power_sd, WT_CLASS_INFERENCE,
                             "power std-dev %.1f W >= inference threshold %.1f W", power_sd,
                             INFER_POWER_SD_MIN);
    }
    if (!wt_measured(util))
        note_missing(out, WT_F_AVG_GPU_UTIL, "GPU utilization");
    else if (!wt_measured(util_sd)) /* measured in one sample only */
        wt_result_add_reason(out, WT_F_STD_GPU_UTIL, NAN, WT_CLASS_NONE,
                             "GPU utilization std-dev needs 2 measured samples -- its rules "
                             "abstain");
    if (!wt_measured(slope))
        note_missing(out, WT_F_MEM_GROWTH, "memory growth");
    if (!wt_measured(f->v[WT_F_AVG_POWER]))
        note_missing(out, WT_F_STD_POWER, "power");
    else if (!wt_measured(power_sd))
        wt_result_add_reason(out, WT_F_STD_POWER, NAN, WT_CLASS_NONE,
                             "power std-dev needs 2 measured samples -- its rules abstain");

    if (train > infer) {
        out->cls = WT_CLASS_TRAINING;
        out->confidence = train / 4.0;
    } else if (infer > train) {
        out->cls = WT_CLASS_INFERENCE;
        out->confidence = infer / 4.0;
    } else {
        out->cls = WT_CLASS_UNKNOWN;
        out->confidence = 0.5;
        wt_result_add_reason(out, -1, NAN, WT_CLASS_NONE,
                             "training and inference signals tied (%d votes each) -- inconclusive",
                             train);
    }
    return WT_OK;
}

const struct wt_classifier wt_classifier_rules = {
    .name = "rules",
    .description = "the Python tool's four threshold rules on mean/variance (baseline)",
    .exposed = exposed,
    .nexposed = sizeof(exposed) / sizeof(exposed[0]),
    .min_samples = 2,
    .basic_features = 1,
    .classify = rules_classify,
};
