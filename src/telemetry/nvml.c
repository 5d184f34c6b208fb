/* The `nvml` source: live NVIDIA GPUs through libnvidia-ml.so.1.
 *
 * Not built yet: the NVML backend (dlopen, versioned symbols, sample buffers,
 * per-process attribution) is issue #4.  Until it lands, opening this source
 * fails with a message that says so and points at the sources that work.
 *
 * SPDX-License-Identifier: MIT
 */
#include "telemetry/source.h"

static int nvml_open(struct wt_source *src, const struct wt_source_config *cfg, struct wt_err *err)
{
    (void)src;
    (void)cfg;
    return wt_errf(err, WT_ENOTSUP,
                   "the nvml backend is not built yet; use --backend synthetic, or --trace FILE "
                   "(a trace or nvidia-smi --query-gpu CSV, '-' for standard input)");
}

const struct wt_source_ops wt_source_nvml = {
    .name = "nvml",
    .description = "live NVIDIA GPUs via NVML (not built yet)",
    .open = nvml_open,
};
