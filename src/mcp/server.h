/* The MCP server's protocol logic, independent of the transport: a
 * dual-era server.  Requests whose params carry
 * _meta["io.modelcontextprotocol/protocolVersion"] are served statelessly
 * per revision 2026-07-28 (server/discover, resultType, ttlMs/cacheScope,
 * -32022 for an unsupported version); others per 2025-11-25 and older
 * (initialize with version negotiation among 2025-11-25, 2025-06-18 and
 * 2025-03-26, notifications/initialized, ping; batches in a 2025-03-26
 * session).  Both eras have tools/list and tools/call (tools.c).  The stdio and HTTP transports
 * (stdio.c, http.c) own framing, sessions, cancellation and headers.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_MCP_SERVER_H
#define WT_MCP_SERVER_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "audit/verify.h"
#include "mcp/jsonrpc.h"

#define WT_MCP_MODERN_VERSION "2026-07-28"
#define WT_MCP_LATEST_LEGACY "2025-11-25"

/* The revisions served through initialize, newest first, NULL-terminated. */
extern const char *const wt_mcp_legacy_versions[];

struct wt_mcp_config {
    const char *backend;   /* default telemetry source of the tools ("auto") */
    const char *log_dir;   /* the audit log's directory */
    const char *trace_dir; /* traces the tools may read (NULL: none) */
    const char *nvml_lib;  /* NULL: $WT_NVML_LIB, else libnvidia-ml.so.1 */
    double max_seconds;    /* longest live sampling a call may ask for */
};

/* Where recent_classifications verified the log last time, to resume there
 * (tools.c).  Used by the tool that runs (tool_busy). */
struct wt_mcp_verify_cache {
    dev_t dev; /* the log file's identity */
    ino_t ino;
    struct wt_verify_resume at;
};

struct wt_mcp_server {
    struct wt_mcp_config cfg;
    pthread_mutex_t tool_lock; /* guards tool_busy */
    pthread_cond_t tool_free;  /* signalled when tool_busy is cleared (CLOCK_MONOTONIC) */
    int tool_busy;             /* one tool runs at a time: a call waits, cancellable */
    json_t *tools;             /* the tool definitions (tools/list) */
    struct wt_mcp_verify_cache vcache;
};

/* Legacy-era state: one per stdio process or HTTP session. */
struct wt_mcp_session {
    int initialized; /* notifications/initialized received */
    int negotiated;  /* initialize answered */
    char version[16];
};

/* A request in progress: how to send notifications (progress) and whether
 * it was cancelled. */
struct wt_mcp_call {
    void (*emit)(void *ctx, json_t *notification); /* steals it; may be NULL */
    void *emit_ctx;
    const atomic_int *cancel;
};

int wt_mcp_server_init(struct wt_mcp_server *s, const struct wt_mcp_config *cfg);
void wt_mcp_server_free(struct wt_mcp_server *s);

/* 1 if m is a 2026-07-28-era request (its params carry the _meta version),
 * with that version in *version (NULL when it is not a string). */
int wt_mcp_is_modern(const struct wt_rpc_msg *m, const char **version);

/* Handles one parsed message.  Returns the response to send (a new
 * reference), or NULL when nothing is sent (notifications, responses, a
 * cancelled request). */
json_t *wt_mcp_handle(struct wt_mcp_server *s, struct wt_mcp_session *sess,
                      const struct wt_rpc_msg *m, const struct wt_mcp_call *call);

/* The error response a request gets before any tool runs (an unsupported
 * or malformed 2026-07-28 version, missing client capabilities, a tools/call
 * without a tool name or with arguments that are not an object, an unknown
 * tool), or NULL when it would run.  HTTP asks before it opens a stream, so
 * such errors keep their status. */
json_t *wt_mcp_precheck(const struct wt_mcp_server *s, const struct wt_rpc_msg *m);

/* JSON-RPC batches: MCP 2025-03-26 requires servers to accept them and
 * 2025-06-18 removed them, so they are served only in a session that
 * negotiated 2025-03-26.  The transport calls these around each element
 * (hooks may be NULL): begin returns nonzero to skip an element (no
 * response), end returns nonzero when the element was cancelled while it ran
 * (its response is dropped); cancel receives the requestId of a
 * notifications/cancelled element. */
struct wt_mcp_batch_hooks {
    int (*begin)(void *ctx, const struct wt_rpc_msg *element);
    int (*end)(void *ctx, const struct wt_rpc_msg *element);
    void (*cancel)(void *ctx, const json_t *request_id);
    void *ctx;
};

/* Ids of cancelled requests that were neither running nor queued when the
 * cancel came: a batch element not started yet may carry one (MCP never
 * reuses a request id within a session, so a match is that request).  The
 * last WT_MCP_CANCELLED_MAX are kept, as 64-bit hashes. */
#define WT_MCP_CANCELLED_MAX 32
struct wt_mcp_cancelled {
    uint64_t h[WT_MCP_CANCELLED_MAX];
    unsigned n, next;
};
void wt_mcp_cancelled_add(struct wt_mcp_cancelled *c, const json_t *id);
int wt_mcp_cancelled_has(const struct wt_mcp_cancelled *c, const json_t *id);

/* 1 if sess accepts batches (it negotiated 2025-03-26). */
int wt_mcp_batch_allowed(const struct wt_mcp_session *sess);
/* 1 if batch m holds a request with this id (a cancel inside a batch acts on
 * what was sent before it, never on the batch's own elements). */
int wt_mcp_batch_names(const struct wt_rpc_msg *m, const json_t *id);
/* What a message will do to the session once it runs (initialize
 * negotiates a version), applied now: a transport that reads ahead of the
 * requests it runs knows whether a batch it reads will be served. */
void wt_mcp_session_expect(struct wt_mcp_session *sess, const struct wt_rpc_msg *m);

/* Handles batch message m (m->batch set) in order, element by element.
 * Returns the array of the elements' responses, a single error when the
 * session does not accept batches, or NULL when there is nothing to send
 * (only notifications and responses, or requests that the hooks skipped or
 * cancelled).  Inside a batch, initialize and 2026-07-28 requests are
 * invalid (-32600). */
json_t *wt_mcp_handle_batch(struct wt_mcp_server *s, struct wt_mcp_session *sess,
                            const struct wt_rpc_msg *m, const struct wt_mcp_call *call,
                            const struct wt_mcp_batch_hooks *hooks);

/* The server's description for .well-known/agent.json. */
json_t *wt_mcp_agent_card(const struct wt_mcp_server *s);

/* Tools (tools.c): definitions and execution.  wt_mcp_tool_call returns
 * the tools/call result ({content, structuredContent?, isError}), or NULL
 * with *code and msg set for a protocol error (unknown tool). */
json_t *wt_mcp_tools_define(void);
int wt_mcp_tool_exists(const struct wt_mcp_server *s, const char *name);
json_t *wt_mcp_tool_call(struct wt_mcp_server *s, const char *name, json_t *args,
                         json_t *progress_token, const struct wt_mcp_call *call, int *code,
                         char *msg, size_t cap);

#endif
