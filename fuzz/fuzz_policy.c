/* libFuzzer target for declared-type policy files (--policy): arbitrary
 * bytes as the file.  A policy that loads is then asked for the declared
 * type of GPUs whose processes carry partition and namespace names taken
 * from the input.  Any crash, leak or sanitizer report is a bug; load errors
 * are fine.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_policy -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify/declared.h"
#include "telemetry/procinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64]; /* the policy file: the loader reads a path */

static void remove_file(void)
{
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wt_policy p; /* large: not on the stack */
    if (!path[0]) {
        snprintf(path, sizeof(path), "/tmp/wt_fuzz_policy_%ld", (long)getpid());
        atexit(remove_file);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fclose(f);
    struct wt_err err;
    if (wt_policy_load(&p, path, &err) != WT_OK)
        return 0;
    struct wt_proc procs[2];
    memset(procs, 0, sizeof(procs));
    /* names from the input, so rules can match them */
    size_t k =
        size < sizeof(procs[0].slurm_partition) - 1 ? size : sizeof(procs[0].slurm_partition) - 1;
    memcpy(procs[0].slurm_partition, data, k);
    k = size < sizeof(procs[1].k8s_namespace) - 1 ? size : sizeof(procs[1].k8s_namespace) - 1;
    memcpy(procs[1].k8s_namespace, data, k);
    for (size_t n = 0; n <= 2; n++) {
        enum wt_declared_source src;
        enum wt_class c = wt_declared_for(&p, WT_CLASS_NONE, procs, n, &src);
        if (c < WT_CLASS_NONE || c >= WT_NCLASSES)
            abort();
    }
    return 0;
}
