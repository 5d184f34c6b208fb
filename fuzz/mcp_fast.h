/* For the MCP transport fuzz targets (fuzz_mcp_http.c, fuzz_mcp_stdio.c),
 * included before the transport's C file: its calls of wt_mcp_handle and
 * wt_mcp_handle_batch go to these wrappers, which answer a call of the tools
 * that sample or benchmark (classify_workload, check_declaration,
 * run_benchmark) at once with a made-up result and one progress
 * notification, so that one input cannot take seconds; everything else is
 * the real server.  It is a test double for the tools only; the transport's
 * own code (framing, headers, sessions, streams, cancellation) is what the
 * targets fuzz.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_FUZZ_MCP_FAST_H
#define WT_FUZZ_MCP_FAST_H

#include <string.h>

#include "mcp/jsonrpc.h"
#include "mcp/server.h"

static int fuzz_slow_tool(const struct wt_rpc_msg *m)
{
    if (m->kind != WT_RPC_REQUEST || strcmp(m->method, "tools/call") != 0)
        return 0;
    const char *name = json_string_value(json_object_get(m->params, "name"));
    return name && (!strcmp(name, "classify_workload") || !strcmp(name, "check_declaration") ||
                    !strcmp(name, "run_benchmark"));
}

static json_t *fuzz_handle(struct wt_mcp_server *s, struct wt_mcp_session *sess,
                           const struct wt_rpc_msg *m, const struct wt_mcp_call *call)
{
    if (!fuzz_slow_tool(m))
        return wt_mcp_handle(s, sess, m, call);
    if (call && call->emit)
        call->emit(call->emit_ctx, wt_rpc_notification("notifications/progress",
                                                       json_pack("{s:s,s:i}", "progressToken",
                                                                 "fuzz", "progress", 1)));
    if (call && call->cancel && *call->cancel)
        return NULL;
    return wt_rpc_result(m->id, json_pack("{s:[{s:s,s:s}]}", "content", "type", "text", "text",
                                          "stand-in for a slow tool"));
}

struct fuzz_batch_hooks {
    const struct wt_mcp_batch_hooks *inner;
};

static int fuzz_batch_begin(void *ctx, const struct wt_rpc_msg *e)
{
    const struct wt_mcp_batch_hooks *in = ((struct fuzz_batch_hooks *)ctx)->inner;
    if (fuzz_slow_tool(e))
        return 1;
    return in && in->begin ? in->begin(in->ctx, e) : 0;
}

static int fuzz_batch_end(void *ctx, const struct wt_rpc_msg *e)
{
    const struct wt_mcp_batch_hooks *in = ((struct fuzz_batch_hooks *)ctx)->inner;
    return in && in->end ? in->end(in->ctx, e) : 0;
}

static void fuzz_batch_cancel(void *ctx, const json_t *id)
{
    const struct wt_mcp_batch_hooks *in = ((struct fuzz_batch_hooks *)ctx)->inner;
    if (in && in->cancel)
        in->cancel(in->ctx, id);
}

/* batch elements that would run a slow tool are skipped (as if cancelled) */
static json_t *fuzz_handle_batch(struct wt_mcp_server *s, struct wt_mcp_session *sess,
                                 const struct wt_rpc_msg *m, const struct wt_mcp_call *call,
                                 const struct wt_mcp_batch_hooks *hooks)
{
    struct fuzz_batch_hooks w = {hooks};
    struct wt_mcp_batch_hooks h = {fuzz_batch_begin, fuzz_batch_end, fuzz_batch_cancel, &w};
    return wt_mcp_handle_batch(s, sess, m, call, &h);
}

#define wt_mcp_handle fuzz_handle
#define wt_mcp_handle_batch fuzz_handle_batch

#endif
