/* libFuzzer target for the model file parser: arbitrary bytes as a model
 * text.  A model that parses must score any feature vector to a finite
 * log-odds (its values are bounded), and must round-trip: what
 * wt_model_write writes parses again to the same numbers (no digit lost) and
 * the same tree (each split's missing side, left, right or stop, and its
 * children), and is written again byte for byte.
 * Any crash, leak, sanitizer report, non-finite score or broken round trip
 * is a bug; parse errors are fine.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_model -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* three probes: nothing measured, all zeros, values from the input */
static void probes(struct wt_features x[3], const uint8_t *data, size_t size)
{
    for (int f = 0; f < WT_NFEATURES; f++) {
        x[0].v[f] = NAN;
        x[1].v[f] = 0;
        x[2].v[f] = size ? (double)data[(size_t)f % size] / 17.0 - 3.0 : 1.0;
    }
}

static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* the numbers read back from what was written are the numbers parsed */
static int same_model(const struct wt_model *a, const struct wt_model *b)
{
    if (!same(a->base, b->base) || a->ntrees != b->ntrees)
        return 0;
    for (int t = 0; t < a->ntrees; t++) {
        if (a->tree[t].nnodes != b->tree[t].nnodes)
            return 0;
        for (int i = 0; i < a->tree[t].nnodes; i++) {
            const struct wt_tree_node *p = &a->tree[t].node[i], *q = &b->tree[t].node[i];
            if (!same(p->value, q->value) || p->feature != q->feature ||
                (p->feature >= 0 &&
                 (!same(p->threshold, q->threshold) || p->missing_left != q->missing_left ||
                  p->left != q->left || p->right != q->right)))
                return 0;
        }
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wt_model m, m2; /* large: not on the stack */
    struct wt_err err;
    if (wt_model_parse(&m, (const char *)data, size, "fuzz.model", &err) != WT_OK)
        return 0;
    struct wt_features x[3];
    probes(x, data, size);
    for (int i = 0; i < 3; i++) {
        double credit[WT_NFEATURES];
        if (!isfinite(wt_model_score(&m, &x[i], credit)))
            abort();
    }
    /* what we write, we read back, and write again byte for byte */
    char *buf = NULL, *buf2 = NULL;
    size_t len = 0, len2 = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return 0;
    int wrc = wt_model_write(&m, f);
    fclose(f);
    if (wrc != 0 || wt_model_parse(&m2, buf, len, "fuzz.model (written)", &err) != WT_OK ||
        !same_model(&m, &m2))
        abort();
    f = open_memstream(&buf2, &len2);
    if (!f) {
        free(buf);
        return 0;
    }
    wrc = wt_model_write(&m2, f);
    fclose(f);
    if (wrc != 0 || len != len2 || memcmp(buf, buf2, len) != 0)
        abort();
    free(buf2);
    free(buf);
    return 0;
}
