/* FNV-1a, the 64-bit hash of bytes the modules use to key tables and to
 * compare names cheaply (owner sets, metric label sets, process owners, an
 * nvidia-smi GPU's model name).
 *
 * Not a cryptographic hash: nothing here resists a chosen collision (the
 * audit log's hashes are SHA-256, from libsodium).  Chain calls to hash
 * several strings: wt_fnv1a(wt_fnv1a(WT_FNV1A_INIT, a, na), b, nb).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_HASH_H
#define WT_HASH_H

#include <stddef.h>
#include <stdint.h>

#define WT_FNV1A_INIT 1469598103934665603ULL

static inline uint64_t wt_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

#endif
