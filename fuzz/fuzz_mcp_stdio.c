/* libFuzzer target for the MCP stdio transport (src/mcp/stdio.c): arbitrary
 * bytes as the whole of standard input (lines, CRLF, blank lines, a last
 * line without a newline, batches, notifications/cancelled for queued or
 * running requests), served by the real transport with its reader thread
 * and the real server; the tools that sample or benchmark answer at once
 * (fuzz/mcp_fast.h).  Every line written to standard output must be one
 * JSON-RPC 2.0 message (an object, or a non-empty array of them), there are
 * no more answers than input lines could ask for, and the server must
 * return 0 at end of input; any crash, leak, hang or sanitizer report is a
 * bug.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_mcp_stdio -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE /* memfd_create */
#include "mcp_fast.h"

#include "../src/mcp/stdio.c"

#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const json_t *v)
{
    if (!json_is_object(v))
        abort();
    const char *ver = json_string_value(json_object_get(v, "jsonrpc"));
    if (!ver || strcmp(ver, "2.0") != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wt_mcp_server server;
    static int ready;
    if (!ready) {
        struct wt_mcp_config cfg = {0};
        cfg.backend = "synthetic";
        cfg.log_dir = "/nonexistent/workloadtruth-fuzz";
        if (wt_mcp_server_init(&server, &cfg))
            abort();
        ready = 1;
    }
    int in = memfd_create("fuzz-in", 0), out = memfd_create("fuzz-out", 0);
    if (in < 0 || out < 0)
        abort();
    size_t off = 0;
    while (off < size) {
        ssize_t k = write(in, data + off, size - off);
        if (k <= 0)
            abort();
        off += (size_t)k;
    }
    if (lseek(in, 0, SEEK_SET) != 0)
        abort();
    if (wt_mcp_serve_stdio(&server, in, out) != 0)
        abort();
    off_t n = lseek(out, 0, SEEK_END);
    char *text = malloc((size_t)n + 1);
    if (!text || n < 0 || pread(out, text, (size_t)n, 0) != n)
        abort();
    text[n] = '\0';
    close(in);
    close(out);
    /* lines the input could ask answers for: each input line, plus the
     * progress notification each might make */
    size_t lines_in = 1;
    for (size_t i = 0; i < size; i++)
        lines_in += data[i] == '\n';
    size_t lines_out = 0;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (!nl)
            abort(); /* every message ends with a newline */
        json_error_t err;
        json_t *v = json_loadb(p, (size_t)(nl - p), JSON_REJECT_DUPLICATES, &err);
        if (!v)
            abort();
        if (json_is_array(v)) {
            if (json_array_size(v) == 0)
                abort();
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) check_message(e);
        } else {
            check_message(v);
        }
        json_decref(v);
        lines_out++;
        p = nl + 1;
    }
    if (lines_out > 2 * lines_in)
        abort();
    free(text);
    return 0;
}
