/* libFuzzer target for the simulator windows' cache entry parser
 * (src/eval/simcache.c): the input is an entry's payload, which the harness
 * wraps in a valid header (magic, a fixed key, the payload's length and its
 * SHA-256), so that what a writer of the cache directory could put there
 * reaches the payload's parser.  An entry that parses must hold only cells
 * with terminated names, labels 0 or 1 and cell indices within its cells; a
 * refused one must leave nothing allocated once freed.  Any crash, leak or
 * sanitizer report is a bug; refusals are fine.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_simcache -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <sodium.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/simcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wt_simcache_key k;
    memset(k.h, 0x5a, sizeof(k.h));
    unsigned char *buf = malloc(80 + size);
    if (!buf)
        return 0;
    uint64_t len = size;
    memcpy(buf, "WTSIMC1\n", 8);
    memcpy(buf + 8, k.h, 32);
    memcpy(buf + 40, &len, 8);
    crypto_hash_sha256(buf + 48, data, size);
    if (size)
        memcpy(buf + 80, data, size);
    struct wt_simcache_data d;
    memset(&d, 0, sizeof(d));
    if (wt_simcache_parse(buf, 80 + size, &k, &d) == 0) {
        for (size_t i = 0; i < d.nfiles; i++)
            if (strlen(d.path[i]) > 4096 || strlen(d.group[i]) > 4096 ||
                strlen(d.gpu_model[i]) > 4096)
                abort();
        for (size_t i = 0; i < d.n; i++)
            if (d.y[i] > 1 || d.file[i] >= d.nfiles)
                abort();
    }
    wt_simcache_data_free(&d);
    free(buf);
    return 0;
}
