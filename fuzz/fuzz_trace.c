/* libFuzzer target for the trace reader: arbitrary bytes as a trace file or
 * nvidia-smi CSV.  The first byte picks reader options (rows per tick,
 * interval) so the grouping paths are exercised too.  Any crash, leak,
 * hang or sanitizer report is a bug; errors are expected and fine.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_trace -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "telemetry/trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wt_trace_opts o = {0};
    if (size > 0) {
        o.rows_per_tick = data[0] % 5;
        o.interval_s = (data[0] >> 4) * 0.1;
        data++;
        size--;
    }
    FILE *f = tmpfile();
    if (!f)
        return 0;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    rewind(f);
    struct wt_trace_reader *r = NULL;
    struct wt_err err;
    if (wt_trace_open_stream(f, 1, "fuzz.csv", &o, &r, &err) != WT_OK)
        return 0;
    struct wt_sample s;
    int rows = 0;
    while (wt_trace_next(r, &s, &err) == WT_OK && rows < 1000000)
        rows++;
    (void)wt_trace_meta_value(r, "label");
    wt_trace_close(r);
    return 0;
}
