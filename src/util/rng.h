/* Deterministic pseudo-random numbers for the synthetic source and benchmarks.
 *
 * xoshiro256** seeded through splitmix64, plus Gaussian draws (Box-Muller,
 * one value per call so the stream is easy to reason about).  The same seed
 * gives the same stream on every platform.  Not for cryptography.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_RNG_H
#define WT_RNG_H

#include <stdint.h>

struct wt_rng {
    uint64_t s[4];
};

/* Mixes a 64-bit value (splitmix64 finalizer); used to derive sub-seeds. */
uint64_t wt_mix64(uint64_t x);
void wt_rng_seed(struct wt_rng *r, uint64_t seed);
uint64_t wt_rng_next(struct wt_rng *r);
/* Uniform in [0, 1). */
double wt_rng_uniform(struct wt_rng *r);
/* Normal with the given mean and standard deviation. */
double wt_rng_gauss(struct wt_rng *r, double mean, double sd);

#endif
