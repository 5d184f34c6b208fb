/* libFuzzer target for the MCP JSON-RPC layer: arbitrary bytes as one
 * message, parsed (jsonrpc.c) and handled by the dual-era server (server.c)
 * with a fresh legacy session and again after an initialize; a batch also
 * element by element in a 2025-03-26 session.  Tool calls
 * reach the cheap tools (list_gpus, verify_audit_log, recent_classifications
 * against a missing log) and unknown tools; calls of the tools that sample or
 * benchmark (classify_workload, check_declaration, run_benchmark) are
 * skipped so that one input cannot take seconds (their argument checks are
 * in tests/test_mcp.c).  Every response must be a JSON-RPC response with the
 * request's id; any crash, leak or sanitizer report is a bug.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_mcp -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/jsonrpc.h"
#include "mcp/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wt_mcp_server server;
static int ready;

static void emit(void *ctx, json_t *n)
{
    (void)ctx;
    json_decref(n);
}

static int slow_tool(const struct wt_rpc_msg *m)
{
    if (m->kind != WT_RPC_REQUEST || strcmp(m->method, "tools/call") != 0)
        return 0;
    const char *name = json_string_value(json_object_get(m->params, "name"));
    return name && (!strcmp(name, "classify_workload") || !strcmp(name, "check_declaration") ||
                    !strcmp(name, "run_benchmark"));
}

/* as a transport: elements cancelled by an earlier element are skipped */
static int skip_slow(void *ctx, const struct wt_rpc_msg *e)
{
    return slow_tool(e) || (e->kind == WT_RPC_REQUEST && wt_mcp_cancelled_has(ctx, e->id));
}

static void record_cancel(void *ctx, const json_t *id)
{
    wt_mcp_cancelled_add(ctx, id);
}

static void check_one(const struct wt_rpc_msg *m, json_t *r)
{
    if (!json_is_object(r) || strcmp(json_string_value(json_object_get(r, "jsonrpc")), "2.0"))
        abort();
    json_t *id = json_object_get(r, "id");
    if (m->kind == WT_RPC_REQUEST && !json_equal(id, m->id))
        abort();
    if (!json_object_get(r, "result") == !json_object_get(r, "error"))
        abort();
}

static void check(const struct wt_rpc_msg *m, json_t *r)
{
    if (!r)
        return;
    if (m->batch && json_is_array(r)) {
        /* the elements' responses: each a response, none for nothing */
        if (json_array_size(r) == 0 || json_array_size(r) > json_array_size(m->root))
            abort();
        size_t i;
        json_t *e;
        json_array_foreach(r, i, e) check_one(m, e);
    } else {
        check_one(m, r);
    }
    char *line = wt_rpc_dump(r);
    if (!line || strchr(line, '\n'))
        abort();
    free(line);
    json_decref(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready) {
        struct wt_mcp_config cfg = {0};
        cfg.backend = "synthetic";
        cfg.log_dir = "/nonexistent/workloadtruth-fuzz";
        if (wt_mcp_server_init(&server, &cfg))
            abort();
        ready = 1;
    }
    struct wt_rpc_msg m;
    wt_rpc_parse((const char *)data, size, &m);
    atomic_int cancel = 0;
    struct wt_mcp_call call = {emit, NULL, &cancel};
    if (!slow_tool(&m)) {
        struct wt_mcp_session fresh = {0};
        check(&m, wt_mcp_handle(&server, &fresh, &m, &call));
        struct wt_mcp_session inited = {1, 1, "2025-11-25"};
        check(&m, wt_mcp_handle(&server, &inited, &m, &call));
    }
    if (m.batch) {
        /* in a 2025-03-26 session, element by element (slow tools skipped) */
        struct wt_mcp_session old = {1, 1, "2025-03-26"};
        struct wt_mcp_cancelled cancelled = {0};
        struct wt_mcp_batch_hooks hooks = {skip_slow, NULL, record_cancel, &cancelled};
        check(&m, wt_mcp_handle_batch(&server, &old, &m, &call, &hooks));
    }
    wt_rpc_free(&m);
    return 0;
}
