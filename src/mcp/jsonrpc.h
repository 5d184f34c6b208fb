/* JSON-RPC 2.0 framing for MCP: parse one message (with jansson, duplicate
 * keys rejected, size-limited) into request / notification / response or an
 * error to send back, and build results, errors and notifications.  Knows
 * nothing of MCP methods or transports.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_MCP_JSONRPC_H
#define WT_MCP_JSONRPC_H

#include <jansson.h>
#include <stddef.h>

#define WT_RPC_MAX_MESSAGE (4 * 1024 * 1024) /* bytes of one message */
/* JSON values (objects, arrays, members, elements) of one message: a parsed
 * value costs ~25 times its bytes ("[]," is 3 bytes, its json_t ~80), so the
 * byte limit alone would let a 4 MiB message take 100 MB.  An MCP request
 * has tens of values. */
#define WT_RPC_MAX_VALUES 10000

#define WT_RPC_PARSE_ERROR (-32700)
#define WT_RPC_INVALID_REQUEST (-32600)
#define WT_RPC_METHOD_NOT_FOUND (-32601)
#define WT_RPC_INVALID_PARAMS (-32602)
#define WT_RPC_INTERNAL_ERROR (-32603)
/* MCP 2026-07-28 */
#define WT_RPC_HEADER_MISMATCH (-32020)
#define WT_RPC_MISSING_CAPABILITY (-32021)
#define WT_RPC_UNSUPPORTED_VERSION (-32022)

enum wt_rpc_kind {
    WT_RPC_REQUEST,      /* id + method */
    WT_RPC_NOTIFICATION, /* method, no id */
    WT_RPC_RESPONSE,     /* id + result or error (we send no requests: ignored) */
    WT_RPC_INVALID,      /* answer with error_code / error_message (id may be NULL) */
};

struct wt_rpc_msg {
    enum wt_rpc_kind kind;
    json_t *root;       /* owned */
    json_t *id;         /* borrowed from root: a string or an integer; NULL if none */
    const char *method; /* borrowed */
    json_t *params;     /* borrowed: an object, or NULL */
    int error_code;
    char error_message[240];
    /* A notification (jsonrpc "2.0", a string method, no id) that is invalid
     * for MCP: JSON-RPC forbids any reply over stdio (HTTP answers 400). */
    int notification;
    size_t weight; /* bytes it holds once parsed (about): for queue budgets */
    /* A non-empty JSON array: a batch.  kind is WT_RPC_INVALID with the
     * refusal to send where batches are not accepted; root holds the array
     * for wt_mcp_handle_batch (server.h). */
    int batch;
};

/* Parses len bytes.  Always fills m (kind WT_RPC_INVALID on any problem);
 * free with wt_rpc_free. */
void wt_rpc_parse(const char *buf, size_t len, struct wt_rpc_msg *m);
void wt_rpc_free(struct wt_rpc_msg *m);
/* The same for one element of a batch, already parsed (m takes a reference
 * of v): an array is invalid there. */
void wt_rpc_parse_value(json_t *v, struct wt_rpc_msg *m);

/* {"jsonrpc":"2.0","id":id,"result":result}; steals result, copies id. */
json_t *wt_rpc_result(json_t *id, json_t *result);
/* {"jsonrpc":"2.0","id":id|null,"error":{"code","message","data"?}}; steals data. */
json_t *wt_rpc_error(json_t *id, int code, const char *message, json_t *data);
/* {"jsonrpc":"2.0","method":method,"params":params}; steals params. */
json_t *wt_rpc_notification(const char *method, json_t *params);

/* One line of compact JSON (no newline inside), malloc'd with one spare
 * byte after the terminating NUL (a transport may put a newline there). */
char *wt_rpc_dump(const json_t *msg);

#endif
