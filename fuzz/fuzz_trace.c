/* libFuzzer target for the trace reader: arbitrary bytes as a trace file or
 * nvidia-smi CSV.  The first byte picks reader options (rows per tick,
 * interval) so the grouping paths are exercised too.  The same bytes are then
 * replayed through the replay source (its per-GPU queues, rows of one sample
 * merged, GPUs a trace does not name), read as files are and, every third
 * round, as a stream's peers are (read_queued): every sample it hands out
 * must keep time order per GPU, and an owners id must name a cell of the source's table.  Any
 * crash, leak, hang or sanitizer report is a bug; errors are expected and fine.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_trace -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "telemetry/owners.h"
#include "telemetry/source.h"
#include "telemetry/trace_reader.h"

/* The replay source over the file at path: each GPU's info, then its
 * samples, GPUs read in turn a few samples at a time. */
static void replay(const char *path, const struct wt_trace_opts *o)
{
    struct wt_source_config cfg = {0};
    cfg.trace_path = path;
    cfg.trace_opts = *o;
    cfg.max_buffered = 100000;
    struct wt_source *src = NULL;
    struct wt_err err;
    int n = 0;
    if (wt_source_open("replay", &cfg, &src, &err) != WT_OK)
        return;
    if (wt_source_device_count(src, &n, &err) == WT_OK && n > 0) {
        if (n > 16)
            n = 16;
        struct wt_device_info info;
        double last[16];
        int live[16];
        for (int g = 0; g < n; g++) {
            (void)wt_source_device_info(src, g, &info, &err);
            last[g] = -1e300;
            live[g] = 1;
        }
        struct wt_sample buf[4];
        for (int any = 1, rounds = 0; any && rounds < 1000000; rounds++) {
            any = 0;
            for (int g = 0; g < n; g++) {
                size_t got = 0;
                if (!live[g])
                    continue;
                /* every third round a GPU's samples are taken as a stream's
                 * peers are (read_queued: what is queued, never waiting),
                 * in the same order as read would hand them out */
                if (rounds % 3 == 2) {
                    int qrc = wt_source_read_queued(src, g, buf, 4, &got, &err);
                    if (qrc != WT_OK && qrc != WT_ENODEV)
                        abort(); /* it reads no input: nothing to fail on */
                } else if (wt_source_read(src, g, buf, 4, &got, &err) != WT_OK) {
                    live[g] = 0;
                    continue;
                }
                any = 1;
                const struct wt_owners *ow = wt_source_owners(src);
                for (size_t i = 0; i < got; i++) {
                    if (buf[i].gpu != g || buf[i].t_s < last[g])
                        abort(); /* out of order, or another GPU's sample */
                    if (buf[i].owner && !*wt_owners_text(ow, buf[i].owner))
                        abort(); /* an id of no cell */
                    (void)wt_owners_same_job(ow, buf[i].owner, buf[0].owner);
                    last[g] = buf[i].t_s;
                }
            }
        }
    }
    wt_source_close(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wt_trace_opts o = {0};
    o.quiet = 1; /* the unterminated-last-line warning would flood the log */
    if (size > 0) {
        o.rows_per_tick = data[0] % 5;
        o.interval_s = (data[0] >> 4) * 0.1;
        data++;
        size--;
    }
    char path[] = "/tmp/wt_fuzz_trace_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    FILE *f = fdopen(fd, "w+");
    if (!f) {
        close(fd);
        unlink(path);
        return 0;
    }
    if ((size && fwrite(data, 1, size, f) != size) || fflush(f) != 0) {
        fclose(f);
        unlink(path);
        return 0;
    }
    rewind(f);
    replay(path, &o);
    unlink(path);
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
