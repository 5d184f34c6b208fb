/* xoshiro256** (Blackman & Vigna, public domain reference) and Box-Muller. */
#include "util/rng.h"

#include <math.h>

uint64_t wt_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void wt_rng_seed(struct wt_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        x = wt_mix64(x);
        r->s[i] = x;
    }
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1;
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t wt_rng_next(struct wt_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double wt_rng_uniform(struct wt_rng *r)
{
    return (double)(wt_rng_next(r) >> 11) * 0x1.0p-53;
}

double wt_rng_gauss(struct wt_rng *r, double mean, double sd)
{
    double u1 = 1.0 - wt_rng_uniform(r); /* (0, 1]: log() stays finite */
    double u2 = wt_rng_uniform(r);
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925286766559 * u2);
    return mean + sd * z;
}
