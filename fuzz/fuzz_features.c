/* libFuzzer target for the feature extractor and the classifiers: arbitrary
 * bytes as the samples of one window, and of a peer GPU on the same host.
 * The bytes are mapped onto what the trace reader lets through (times finite
 * and non-decreasing per GPU; a value is any finite double or not measured),
 * so every input here is one a trace file could carry.  Every feature must
 * be finite or NaN, and every classifier must give a class with a
 * confidence in 0..1.  Any crash, leak, hang, sanitizer report or broken
 * invariant is a bug.
 *
 * The first byte picks the mode: bit 0 raw doubles (8 bytes per value: 0,
 * subnormal, 1e308, negative) or one byte per value (255 = not measured,
 * which reaches realistic on/off patterns quickly); bit 1 a peer GPU (odd
 * samples); bits 2-3 the power semantics; bit 4 a GPU model the rated-power
 * table knows; bit 5 labels the samples (TRAINING when the time byte is odd,
 * else IDLE) and injects sleeps into the training (`eval --evasion-family`),
 * random ones with bit 6, 95 % asleep with bit 7 (else 50 %): the result must
 * stay time-ordered and finite, within its size limit, and is then
 * classified like any window.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_features -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classifier.h"
#include "features/features.h"
#include "features/sleep_inject.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SAMPLES 1200

static const enum wt_col cols[] = {
    WT_COL_UTIL_GPU,
    WT_COL_UTIL_MEM,
    WT_COL_MEM_USED,
    WT_COL_MEM_TOTAL,
    WT_COL_POWER,
    WT_COL_POWER_LIMIT,
    WT_COL_POWER_DEFAULT_LIMIT,
    WT_COL_ENERGY,
    WT_COL_SM_CLOCK,
    WT_COL_SM_CLOCK_MAX,
    WT_COL_PROCS,
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))
/* one-byte mode: value = byte * scale (util and memory util in %, memory in
 * 320 MiB steps, power in 4 W, energy in 40 J, clocks in 8 MHz) */
static const double scale[NCOLS] = {1, 1, 320, 320, 4, 4, 4, 40, 8, 8, 1};

static double raw_value(const uint8_t *p)
{
    double d;
    memcpy(&d, p, sizeof d);
    return isfinite(d) ? d : NAN;
}

static void check_window(const struct wt_window *w);

/* Sleep injection over both streams (copies); checks its invariants and
 * classifies the first window-sized piece of the result. */
static void check_injected(struct wt_sample s[2][MAX_SAMPLES], const size_t cnt[2], uint8_t mode,
                           const struct wt_window *proto)
{
    struct wt_sample *v[2] = {NULL, NULL};
    size_t n[2] = {cnt[0], cnt[1]};
    for (int g = 0; g < 2; g++) {
        v[g] = malloc((n[g] ? n[g] : 1) * sizeof(**v));
        if (!v[g])
            abort();
        memcpy(v[g], s[g], n[g] * sizeof(**v));
    }
    struct wt_sleep_opts o = {
        .asleep = (mode >> 7) & 1 ? WT_SLEEP_MAX_ASLEEP : 0.5,
        .period_s = 4,
        .random = (mode >> 6) & 1,
        .avg1s = !strcmp(proto->power_semantics, "avg1s"),
        .seed = mode,
        .max_samples = 1 << 18, /* 40 MB: within libFuzzer's memory limit */
    };
    struct wt_err err;
    int rc = wt_sleep_inject(v, n, 2, &o, &err);
    if (rc != WT_OK && rc != WT_ENOMEM)
        abort();
    if (rc == WT_OK) {
        if (n[0] + n[1] > o.max_samples)
            abort();
        for (int g = 0; g < 2; g++)
            for (size_t i = 0; i < n[g]; i++) {
                if (!isfinite(v[g][i].t_s) || (i && v[g][i].t_s < v[g][i - 1].t_s))
                    abort();
                for (int c = 0; c < WT_NCOLS; c++)
                    if (isinf(v[g][i].v[c]))
                        abort();
            }
        struct wt_window w = *proto;
        w.s = v[0];
        w.n = n[0] < MAX_SAMPLES ? n[0] : MAX_SAMPLES;
        w.peers = NULL;
        w.npeers = 0;
        check_window(&w);
    } else if (n[0] != cnt[0] || n[1] != cnt[1] || v[0][0].t_s != s[0][0].t_s) {
        abort(); /* a refusal leaves the streams as they were */
    }
    free(v[0]);
    free(v[1]);
}

static void check_window(const struct wt_window *w)
{
    struct wt_features f;
    wt_features_compute(w, &f);
    for (int i = 0; i < WT_NFEATURES; i++)
        if (isinf(f.v[i]))
            abort();
    for (const struct wt_classifier *const *c = wt_classifier_all(); *c; c++) {
        struct wt_result r;
        struct wt_err err;
        if (wt_classify_window(*c, w, &r, &err) != WT_OK)
            continue; /* too few samples: an error, fine */
        if (!(r.confidence >= 0 && r.confidence <= 1))
            abort();
        if (r.cls != WT_CLASS_TRAINING && r.cls != WT_CLASS_INFERENCE && r.cls != WT_CLASS_IDLE &&
            r.cls != WT_CLASS_UNKNOWN)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wt_sample s[2][MAX_SAMPLES]; /* large: not on the stack */
    static const char *const sem[] = {"instant", "avg1s", "unknown", "instant"};
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    int raw = mode & 1, peer = (mode >> 1) & 1;
    size_t vsize = raw ? 8 : 1, rec = vsize * (1 + NCOLS);
    size_t n = size / rec, cnt[2] = {0, 0};
    double t[2] = {0, 0};
    if (n > MAX_SAMPLES)
        n = MAX_SAMPLES;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = data + i * rec;
        int g = peer ? (int)(i % 2) : 0;
        struct wt_sample *x = &s[g][cnt[g]++];
        wt_sample_clear(x, g);
        /* time steps: non-negative and finite, as the reader guarantees */
        double dt = raw ? fabs(raw_value(p)) : p[0] * 0.01;
        if (!isfinite(t[g] + dt))
            dt = 0;
        t[g] += dt;
        x->t_s = t[g];
        if ((mode >> 5) & 1)
            x->label = (raw ? p[7] : p[0]) & 1 ? WT_CLASS_TRAINING : WT_CLASS_IDLE;
        for (size_t c = 0; c < NCOLS; c++) {
            const uint8_t *q = p + vsize * (1 + c);
            x->v[cols[c]] = raw ? raw_value(q) : (*q == 255 ? NAN : *q * scale[c]);
        }
    }
    const char *model = (mode >> 4) & 1 ? "NVIDIA H100 80GB HBM3" : "Mystery Accelerator";
    const char *ps = sem[(mode >> 2) & 3];
    struct wt_window w[2] = {
        {.s = s[0], .n = cnt[0], .gpu = 0, .power_semantics = ps, .gpu_model = model},
        {.s = s[1], .n = cnt[1], .gpu = 1, .power_semantics = ps, .gpu_model = model},
    };
    if (peer) {
        w[0].peers = &w[1];
        w[0].npeers = 1;
        w[1].peers = &w[0];
        w[1].npeers = 1;
    }
    check_window(&w[0]);
    if (peer)
        check_window(&w[1]);
    if ((mode >> 5) & 1)
        check_injected(s, cnt, mode, &w[0]);
    return 0;
}
