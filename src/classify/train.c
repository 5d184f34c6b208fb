/* Boosted-tree training (see train.h). */
#include "classify/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BINS 64

double wt_model_round(double v)
{
    char buf[64];
    if (fabs(v) < 1e-9)
        return 0; /* summation noise around zero */
    snprintf(buf, sizeof(buf), "%.6g", v);
    return strtod(buf, NULL);
}

/* The shortest decimal (6 to 17 significant digits) near the midpoint of lo < hi
 * that still lies in [lo, hi): it splits the training values exactly as any
 * threshold there would, and the model file writes it without loss (6 digits,
 * as before, whenever they are enough). */
static double between(double lo, double hi)
{
    double mid = 0.5 * (lo + hi), c = wt_model_round(mid);
    for (int digits = 7; digits <= 17 && !(c >= lo && c < hi); digits++) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%.*g", digits, mid);
        c = strtod(buf, NULL);
    }
    return c >= lo && c < hi ? c : lo;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct trainer {
    const struct wt_train_opts *o;
    size_t n;
    int nf;
    /* per used feature: candidate thresholds and each sample's bin */
    double thr[WT_NFEATURES][MAX_BINS];
    int nthr[WT_NFEATURES];
    short *bin; /* n x nf; -1 = not measured; b = number of thresholds below the value */
    double *g, *h;
    int *idx, *tmp;
};

/* Candidate thresholds: distinct values at evenly spaced quantiles. */
static void make_thresholds(struct trainer *t, const struct wt_features *x, int fi, int f)
{
    double *v = malloc(t->n * sizeof(double));
    size_t k = 0;
    t->nthr[fi] = 0;
    if (!v)
        return;
    for (size_t i = 0; i < t->n; i++)
        if (!isnan(x[i].v[f]))
            v[k++] = x[i].v[f];
    qsort(v, k, sizeof(double), cmp_double);
    int want = t->o->nthresholds < MAX_BINS - 1 ? t->o->nthresholds : MAX_BINS - 1;
    for (int q = 1; q <= want && k > 1; q++) {
        size_t pos = (size_t)((double)q / (want + 1) * (double)(k - 1));
        size_t nxt = pos + 1; /* the next distinct value above the quantile */
        while (nxt < k && v[nxt] == v[pos])
            nxt++;
        if (nxt >= k)
            break;
        double c = between(v[pos], v[nxt]);
        if (t->nthr[fi] && c <= t->thr[fi][t->nthr[fi] - 1])
            continue;
        t->thr[fi][t->nthr[fi]++] = c;
    }
    free(v);
}

struct split {
    double gain;
    int fi, j, missing_left;
};

static double score(double g, double h, double lambda)
{
    return g * g / (h + lambda);
}

static struct split best_split(struct trainer *t, const int *idx, size_t m, double G, double H)
{
    struct split best = {0, -1, -1, 0};
    double lambda = t->o->lambda, parent = score(G, H, lambda);
    for (int fi = 0; fi < t->nf; fi++) {
        int nb = t->nthr[fi];
        if (!nb)
            continue;
        double bg[MAX_BINS] = {0}, bh[MAX_BINS] = {0}, mg = 0, mh = 0;
        for (size_t k = 0; k < m; k++) {
            size_t i = (size_t)idx[k];
            int b = t->bin[i * (size_t)t->nf + (size_t)fi];
            if (b < 0) {
                mg += t->g[i];
                mh += t->h[i];
            } else {
                bg[b] += t->g[i];
                bh[b] += t->h[i];
            }
        }
        double lg = 0, lh = 0;
        /* missing_stop: the windows without the feature keep this node's value
         * vp; in score's units (minus twice the loss change) they give */
        double vp = -G / (H + lambda), stay = -2 * mg * vp - mh * vp * vp;
        for (int j = 0; j < nb; j++) { /* left: bins 0..j (value <= thr[j]) */
            lg += bg[j];
            lh += bh[j];
            for (int ml = 1; ml >= (t->o->missing_stop ? 1 : 0); ml--) {
                double gl = lg + (ml && !t->o->missing_stop ? mg : 0);
                double hl = lh + (ml && !t->o->missing_stop ? mh : 0);
                double gr = G - gl - (t->o->missing_stop ? mg : 0);
                double hr = H - hl - (t->o->missing_stop ? mh : 0);
                if (hl < t->o->min_child || hr < t->o->min_child)
                    continue;
                double gain = score(gl, hl, lambda) + score(gr, hr, lambda) - parent +
                              (t->o->missing_stop ? stay : 0);
                if (gain > best.gain + 1e-12) {
                    best.gain = gain;
                    best.fi = fi;
                    best.j = j;
                    best.missing_left = t->o->missing_stop ? WT_MISSING_STOP : ml;
                }
            }
        }
    }
    return best;
}

/* Grows the subtree for samples idx[0..m) at node id; returns the next free id. */
static int grow(struct trainer *t, struct wt_tree *tree, int id, int *idx, size_t m, int depth,
                double *leafval_out)
{
    double G = 0, H = 0;
    for (size_t k = 0; k < m; k++) {
        G += t->g[idx[k]];
        H += t->h[idx[k]];
    }
    struct wt_tree_node *nd = &tree->node[id];
    nd->value = wt_model_round(-t->o->learning_rate * G / (H + t->o->lambda));
    nd->feature = -1;
    int next = id + 1;
    struct split s = {0, -1, -1, 0};
    if (depth < t->o->depth)
        s = best_split(t, idx, m, G, H);
    if (s.fi < 0) {
        for (size_t k = 0; k < m; k++)
            leafval_out[idx[k]] = nd->value;
        return next;
    }
    /* partition idx into left then right (stable) */
    size_t nl = 0, nr = 0;
    for (size_t k = 0; k < m; k++) {
        int b = t->bin[(size_t)idx[k] * (size_t)t->nf + (size_t)s.fi];
        if (b < 0 && s.missing_left == WT_MISSING_STOP) {
            leafval_out[idx[k]] = nd->value; /* stops here, as wt_model_score does */
            continue;
        }
        int left = b < 0 ? s.missing_left : b <= s.j;
        if (left)
            idx[nl++] = idx[k];
        else
            t->tmp[nr++] = idx[k];
    }
    memcpy(idx + nl, t->tmp, nr * sizeof(int));
    nd->feature = (int)t->o->features[s.fi];
    nd->threshold = t->thr[s.fi][s.j];
    nd->missing_left = s.missing_left;
    nd->left = next;
    next = grow(t, tree, next, idx, nl, depth + 1, leafval_out);
    tree->node[id].right = next;
    next = grow(t, tree, next, idx + nl, nr, depth + 1, leafval_out);
    return next;
}

int wt_train_boost(const struct wt_features *x, const unsigned char *y, const double *w, size_t n,
                   const struct wt_train_opts *o, struct wt_model *out, struct wt_err *err)
{
    memset(out, 0, sizeof(*out));
    if (n == 0)
        return wt_errf(err, WT_EINVAL, "no training windows");
    if (o->depth < 1 || o->depth > 3 || o->rounds < 0 || o->rounds > WT_MODEL_MAX_TREES ||
        o->nfeatures == 0 || o->nfeatures > WT_NFEATURES)
        return wt_errf(err, WT_EINVAL, "bad training options");
    struct trainer *t = calloc(1, sizeof(*t));
    double *F = calloc(n, sizeof(double)), *leaf = calloc(n, sizeof(double));
    int rc = WT_OK;
    if (!t || !F || !leaf) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    t->o = o;
    t->n = n;
    t->nf = (int)o->nfeatures;
    t->bin = malloc(n * o->nfeatures * sizeof(short));
    t->g = malloc(n * sizeof(double));
    t->h = malloc(n * sizeof(double));
    t->idx = malloc(n * sizeof(int));
    t->tmp = malloc(n * sizeof(int));
    if (!t->bin || !t->g || !t->h || !t->idx || !t->tmp) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    for (int fi = 0; fi < t->nf; fi++) {
        int f = (int)o->features[fi];
        make_thresholds(t, x, fi, f);
        for (size_t i = 0; i < n; i++) {
            double v = x[i].v[f];
            short b = -1;
            if (!isnan(v)) {
                b = 0;
                while (b < t->nthr[fi] && v > t->thr[fi][b])
                    b++;
            }
            t->bin[i * (size_t)t->nf + (size_t)fi] = b;
        }
    }
    double sw = 0, sy = 0;
    for (size_t i = 0; i < n; i++) {
        sw += w[i];
        sy += w[i] * y[i];
    }
    double p0 = sy / sw;
    if (p0 <= 0 || p0 >= 1) {
        rc = wt_errf(err, WT_EINVAL, "training needs windows of both TRAINING and INFERENCE");
        goto out;
    }
    out->base = wt_model_round(log(p0 / (1 - p0)));
    for (size_t i = 0; i < n; i++)
        F[i] = out->base;
    for (int r = 0; r < o->rounds; r++) {
        for (size_t i = 0; i < n; i++) {
            double p = 1 / (1 + exp(-F[i]));
            t->g[i] = w[i] * (p - y[i]);
            t->h[i] = w[i] * p * (1 - p);
            t->idx[i] = (int)i;
        }
        struct wt_tree *tree = &out->tree[out->ntrees];
        memset(tree, 0, sizeof(*tree));
        tree->nnodes = grow(t, tree, 0, t->idx, n, 0, leaf);
        if (tree->nnodes == 1 && fabs(tree->node[0].value) < 1e-9)
            break; /* nothing left to learn */
        out->ntrees++;
        for (size_t i = 0; i < n; i++)
            F[i] += leaf[i];
    }
out:
    if (t) {
        free(t->bin);
        free(t->g);
        free(t->h);
        free(t->idx);
        free(t->tmp);
    }
    free(t);
    free(F);
    free(leaf);
    return rc;
}
