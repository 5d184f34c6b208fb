/* A small, readable model: boosted decision trees (depth at most 3) over named
 * features, giving the log-odds that an active window is TRAINING rather
 * than INFERENCE, with an exact additive explanation per feature.
 *
 * The text format (docs/classifier.md) is one directive per line:
 *
 *   format workloadtruth-model/1
 *   # comments
 *   meta KEY VALUE...            (free text: how it was trained)
 *   base LOGODDS
 *   tree
 *   node ID VALUE split FEATURE THRESHOLD left|right|stop LEFT_ID RIGHT_ID
 *   node ID VALUE leaf
 *   end NTREES                   (the last directive: a file cut short is refused)
 *
 * A node sends a window left when FEATURE <= THRESHOLD, and a window whose
 * FEATURE is not measured to the side named (stop: the path ends there, at
 * that node's value).  VALUE is the node's expected contribution; the score
 * is base + the sum of the values where the paths end (the leaves reached),
 * and the change of VALUE along the path is credited to each split's feature
 * (Saabas attribution), so the per-feature credits add up to the score.
 * Parsing is strict and bounded; this module neither trains nor decides a
 * class (see train.h and physics.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_MODEL_H
#define WT_MODEL_H

#include <stddef.h>
#include <stdio.h>

#include "features/features.h"
#include "util/err.h"

#define WT_MODEL_MAX_TREES 512
#define WT_MODEL_MAX_NODES 15 /* per tree: depth <= 3 */
#define WT_MODEL_MAX_META 32
#define WT_MODEL_MAX_VALUE 1000.0 /* |base| and |node value| */
/* missing_left of a split whose tree stops there when its feature is not
 * measured: the window gets that node's value (file: "stop") */
#define WT_MISSING_STOP (-1)

struct wt_tree_node {
    double value;
    int feature; /* -1 for a leaf */
    double threshold;
    int missing_left; /* 1, 0, or WT_MISSING_STOP */
    int left, right;
};

struct wt_tree {
    int nnodes;
    struct wt_tree_node node[WT_MODEL_MAX_NODES];
};

struct wt_model {
    double base;
    int ntrees;
    struct wt_tree tree[WT_MODEL_MAX_TREES];
    int nmeta;
    char meta[WT_MODEL_MAX_META][200];
    /* wt_model_load: the first 8 bytes of the SHA-256 of the very bytes parsed,
     * in hex (records name the model by it); "" from wt_model_parse */
    char file_id[17];
};

/* Parses text (len bytes); name is used in messages ("model.txt:12: ..."). */
int wt_model_parse(struct wt_model *m, const char *text, size_t len, const char *name,
                   struct wt_err *err) WT_WARN_UNUSED;
/* Reads and parses a file once, and sets m->file_id from the bytes it read (a
 * file replaced between hashing and loading would be named wrongly). */
int wt_model_load(struct wt_model *m, const char *path, struct wt_err *err) WT_WARN_UNUSED;
/* Writes the model in the text format, byte-for-byte reproducible. */
int wt_model_write(const struct wt_model *m, FILE *f);

/* Log-odds of TRAINING; credit[f] receives each feature's share (may be NULL). */
double wt_model_score(const struct wt_model *m, const struct wt_features *x,
                      double credit[WT_NFEATURES]);

/* The model compiled into the binary (models/physics.model). */
const char *wt_model_builtin_text(void);

#endif
