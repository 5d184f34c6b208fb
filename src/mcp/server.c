/* The MCP server's protocol logic (see server.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "mcp/server.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/text.h"

const char *const wt_mcp_legacy_versions[] = {WT_MCP_LATEST_LEGACY, "2025-06-18", "2025-03-26",
                                              NULL};

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER "io.modelcontextprotocol/serverInfo"

static const char instructions[] =
    "WorkloadTruth tells whether a GPU runs TRAINING, INFERENCE or is IDLE from telemetry "
    "alone. classify_workload classifies a window of telemetry; check_declaration compares a "
    "job's declared type with what is observed (MATCH / MISMATCH / INCONCLUSIVE); list_gpus "
    "shows the GPUs and who runs on them; recent_classifications and verify_audit_log read "
    "the tamper-evident audit log; run_benchmark scores the classifier on synthetic suites. "
    "A MISMATCH is evidence to look at, not proof.";

int wt_mcp_server_init(struct wt_mcp_server *s, const struct wt_mcp_config *cfg)
{
    memset(s, 0, sizeof(*s));
    s->cfg = *cfg;
    if (!s->cfg.backend)
        s->cfg.backend = "auto";
    if (!(s->cfg.max_seconds > 0))
        s->cfg.max_seconds = 300;
    s->tools = wt_mcp_tools_define();
    if (!s->tools)
        return -1;
    /* a call waiting for the tool in use wakes to see its cancel: on the
     * monotonic clock, which a wall clock stepped back does not stall */
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0) {
        json_decref(s->tools);
        return -1;
    }
    int rc =
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) || pthread_cond_init(&s->tool_free, &ca);
    pthread_condattr_destroy(&ca);
    if (rc) {
        json_decref(s->tools);
        return -1;
    }
    pthread_mutex_init(&s->tool_lock, NULL);
    return 0;
}

void wt_mcp_server_free(struct wt_mcp_server *s)
{
    json_decref(s->tools);
    pthread_mutex_destroy(&s->tool_lock);
    pthread_cond_destroy(&s->tool_free);
}

static json_t *server_info(void)
{
    return json_pack("{s:s,s:s,s:s,s:s}", "name", "workloadtruth", "title", "WorkloadTruth",
                     "version", WT_VERSION, "description",
                     "Tells TRAINING, INFERENCE and IDLE apart from GPU telemetry");
}

int wt_mcp_is_modern(const struct wt_rpc_msg *m, const char **version)
{
    json_t *meta = m->params ? json_object_get(m->params, "_meta") : NULL;
    json_t *v = json_is_object(meta) ? json_object_get(meta, META_VERSION) : NULL;
    if (!v)
        return 0;
    if (version)
        *version = json_is_string(v) ? json_string_value(v) : NULL;
    return 1;
}

static json_t *versions_array(int modern)
{
    json_t *a = json_array();
    if (modern)
        json_array_append_new(a, json_string(WT_MCP_MODERN_VERSION));
    for (int i = 0; wt_mcp_legacy_versions[i]; i++)
        json_array_append_new(a, json_string(wt_mcp_legacy_versions[i]));
    return a;
}

/* The server's capabilities.  The legacy era also declares logging, so that
 * 2025-era clients may send logging/setLevel (this server sends no log
 * messages: it logs to stderr); 2026-07-28 removed logging/setLevel. */
static json_t *capabilities(int legacy)
{
    json_t *c = json_pack("{s:{s:b}}", "tools", "listChanged", 0);
    if (c && legacy)
        json_object_set_new(c, "logging", json_object());
    return c;
}

static const char *const log_levels[] = {"debug",    "info",  "notice",    "warning", "error",
                                         "critical", "alert", "emergency", NULL};

static json_t *set_level(const struct wt_rpc_msg *m)
{
    json_t *level = m->params ? json_object_get(m->params, "level") : NULL;
    for (int i = 0; json_is_string(level) && log_levels[i]; i++)
        if (!strcmp(json_string_value(level), log_levels[i]))
            return wt_rpc_result(m->id, json_object());
    return wt_rpc_error(m->id, WT_RPC_INVALID_PARAMS,
                        "Invalid params: logging/setLevel needs a 'level' of debug, info, notice, "
                        "warning, error, critical, alert or emergency",
                        NULL);
}

/* The per-result fields of 2026-07-28. */
static json_t *modern(json_t *result, int list)
{
    json_object_set_new(result, "resultType", json_string("complete"));
    if (list) {
        json_object_set_new(result, "ttlMs", json_integer(3600000));
        json_object_set_new(result, "cacheScope", json_string("public"));
    }
    json_t *meta = json_object_get(result, "_meta");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(result, "_meta", meta);
    }
    json_object_set_new(meta, META_SERVER, server_info());
    return result;
}

static json_t *tools_list(struct wt_mcp_server *s, const struct wt_rpc_msg *m, int *code,
                          const char **msg)
{
    json_t *cursor = m->params ? json_object_get(m->params, "cursor") : NULL;
    if (cursor) {
        /* one page: no cursor was ever handed out */
        *code = WT_RPC_INVALID_PARAMS;
        *msg = "Invalid params: unknown cursor (tools/list has a single page)";
        return NULL;
    }
    return json_pack("{s:O}", "tools", s->tools);
}

#define WT_MCP_MAX_TOKEN 256 /* bytes of a string progressToken */

/* A tools/call that cannot run: its error code (message in msg), else 0. */
static int call_refusal(const struct wt_mcp_server *s, const struct wt_rpc_msg *m, char *msg,
                        size_t cap)
{
    json_t *name = m->params ? json_object_get(m->params, "name") : NULL;
    json_t *args = m->params ? json_object_get(m->params, "arguments") : NULL;
    json_t *meta = m->params ? json_object_get(m->params, "_meta") : NULL;
    json_t *token = json_is_object(meta) ? json_object_get(meta, "progressToken") : NULL;
    if (json_is_string(token) && json_string_length(token) > WT_MCP_MAX_TOKEN)
        /* each progress notification repeats it: a 4 MiB token made a
         * 20-window call send (and hold) about 90 MB.  Checked here, so
         * that the HTTP transport's precheck refuses it before a stream
         * starts (it was a -32602 inside a 200 event stream) */
        snprintf(msg, cap, "Invalid params: '_meta.progressToken' is longer than %d bytes",
                 WT_MCP_MAX_TOKEN);
    else if (!json_is_string(name))
        snprintf(msg, cap, "Invalid params: tools/call needs a tool 'name'");
    else if (args && !json_is_object(args) && !json_is_null(args))
        snprintf(msg, cap, "Invalid params: 'arguments' must be an object");
    else if (!wt_mcp_tool_exists(s, json_string_value(name)))
        snprintf(msg, cap, "Unknown tool: %.100s", json_string_value(name));
    else
        return 0;
    return WT_RPC_INVALID_PARAMS;
}

static json_t *tools_call(struct wt_mcp_server *s, const struct wt_rpc_msg *m,
                          const struct wt_mcp_call *call, int *code, char *msg, size_t cap)
{
    if ((*code = call_refusal(s, m, msg, cap)) != 0)
        return NULL;
    json_t *name = json_object_get(m->params, "name");
    json_t *args = json_object_get(m->params, "arguments");
    json_t *meta = json_object_get(m->params, "_meta");
    json_t *token = json_is_object(meta) ? json_object_get(meta, "progressToken") : NULL;
    if (token && !json_is_string(token) && !json_is_integer(token))
        token = NULL;
    json_t *empty = NULL;
    if (!json_is_object(args))
        args = empty = json_object();
    json_t *r = wt_mcp_tool_call(s, json_string_value(name), args, token, call, code, msg, cap);
    json_decref(empty);
    return r;
}

static json_t *unsupported_version(const struct wt_rpc_msg *m, const char *requested)
{
    /* only the versions a request with _meta can be served at: the older
     * ones are reached through initialize, not per request */
    /* echoed as far as 64 bytes, as other echoes are bounded (a client's
     * 4 MiB version string came back whole) */
    char shown[65];
    size_t n = requested ? strlen(requested) : 0;
    if (n > sizeof(shown) - 1)
        n = wt_utf8_cut(requested, sizeof(shown) - 1);
    memcpy(shown, requested ? requested : "", n);
    shown[n] = '\0';
    json_t *data = json_pack("{s:[s],s:s}", "supported", WT_MCP_MODERN_VERSION, "requested", shown);
    return wt_rpc_error(m->id, WT_RPC_UNSUPPORTED_VERSION, "Unsupported protocol version", data);
}

/* A 2026-07-28 request's version and capabilities: an error, or NULL. */
static json_t *modern_refusal(const struct wt_rpc_msg *m, const char *version)
{
    if (!version) /* a malformed required field, not an unsupported version */
        return wt_rpc_error(m->id, WT_RPC_INVALID_PARAMS,
                            "Invalid params: _meta[\"" META_VERSION "\"] must be a string", NULL);
    if (strcmp(version, WT_MCP_MODERN_VERSION) != 0)
        return unsupported_version(m, version);
    json_t *meta = json_object_get(m->params, "_meta");
    if (!json_is_object(json_object_get(meta, META_CAPS)))
        return wt_rpc_error(m->id, WT_RPC_INVALID_PARAMS,
                            "Invalid params: _meta[\"" META_CAPS "\"] is required (an object)",
                            NULL);
    return NULL;
}

static json_t *handle_modern(struct wt_mcp_server *s, const struct wt_rpc_msg *m,
                             const char *version, const struct wt_mcp_call *call)
{
    char msg[300] = "";
    int code = 0;
    const char *cmsg = NULL;
    json_t *refused = modern_refusal(m, version);
    if (refused)
        return refused;
    json_t *r = NULL;
    if (!strcmp(m->method, "server/discover")) {
        r = json_pack("{s:[s],s:o,s:s}", "supportedVersions", WT_MCP_MODERN_VERSION, "capabilities",
                      capabilities(0), "instructions", instructions);
        return wt_rpc_result(m->id, modern(r, 1));
    }
    if (!strcmp(m->method, "tools/list")) {
        r = tools_list(s, m, &code, &cmsg);
        if (!r)
            return wt_rpc_error(m->id, code, cmsg, NULL);
        return wt_rpc_result(m->id, modern(r, 1));
    }
    if (!strcmp(m->method, "tools/call")) {
        r = tools_call(s, m, call, &code, msg, sizeof(msg));
        if (!r)
            return code ? wt_rpc_error(m->id, code, msg, NULL) : NULL;
        return wt_rpc_result(m->id, modern(r, 0));
    }
    if (!strcmp(m->method, "initialize") || !strcmp(m->method, "ping") ||
        !strcmp(m->method, "logging/setLevel")) {
        json_t *data = json_pack("{s:o}", "supported", versions_array(1));
        return wt_rpc_error(m->id, WT_RPC_METHOD_NOT_FOUND,
                            "Method not found: removed in 2026-07-28 (send it without _meta "
                            "to use an older revision)",
                            data);
    }
    return wt_rpc_error(m->id, WT_RPC_METHOD_NOT_FOUND, "Method not found", NULL);
}

/* initialize's effect on the session: the version it negotiates.  0 when
 * it has no protocolVersion string (an error; the session is unchanged). */
static int negotiate(struct wt_mcp_session *sess, const struct wt_rpc_msg *m)
{
    json_t *pv = m->params ? json_object_get(m->params, "protocolVersion") : NULL;
    if (!json_is_string(pv))
        return 0;
    const char *want = json_string_value(pv), *use = WT_MCP_LATEST_LEGACY;
    for (int i = 0; wt_mcp_legacy_versions[i]; i++)
        if (!strcmp(want, wt_mcp_legacy_versions[i]))
            use = wt_mcp_legacy_versions[i];
    /* a client asking for a newer revision gets our latest legacy one (the
     * spec's negotiation); 2026-07-28 is served per request, not here */
    snprintf(sess->version, sizeof(sess->version), "%s", use);
    sess->negotiated = 1;
    return 1;
}

void wt_mcp_session_expect(struct wt_mcp_session *sess, const struct wt_rpc_msg *m)
{
    if (m->kind == WT_RPC_REQUEST && !m->batch && !strcmp(m->method, "initialize") &&
        !wt_mcp_is_modern(m, NULL))
        negotiate(sess, m);
}

static json_t *handle_legacy(struct wt_mcp_server *s, struct wt_mcp_session *sess,
                             const struct wt_rpc_msg *m, const struct wt_mcp_call *call)
{
    char msg[300] = "";
    int code = 0;
    const char *cmsg = NULL;
    if (!strcmp(m->method, "initialize")) {
        if (!negotiate(sess, m))
            return wt_rpc_error(m->id, WT_RPC_INVALID_PARAMS,
                                "Invalid params: initialize needs a 'protocolVersion' string",
                                NULL);
        json_t *r =
            json_pack("{s:s,s:o,s:o,s:s}", "protocolVersion", sess->version, "capabilities",
                      capabilities(1), "serverInfo", server_info(), "instructions", instructions);
        return wt_rpc_result(m->id, r);
    }
    if (!strcmp(m->method, "ping"))
        return wt_rpc_result(m->id, json_object());
    if (!strcmp(m->method, "logging/setLevel"))
        return set_level(m);
    if (!strcmp(m->method, "tools/list")) {
        json_t *r = tools_list(s, m, &code, &cmsg);
        return r ? wt_rpc_result(m->id, r) : wt_rpc_error(m->id, code, cmsg, NULL);
    }
    if (!strcmp(m->method, "tools/call")) {
        json_t *r = tools_call(s, m, call, &code, msg, sizeof(msg));
        if (!r)
            return code ? wt_rpc_error(m->id, code, msg, NULL) : NULL;
        return wt_rpc_result(m->id, r);
    }
    if (!strcmp(m->method, "server/discover"))
        return wt_rpc_error(m->id, WT_RPC_INVALID_PARAMS,
                            "Invalid params: server/discover needs _meta[\"" META_VERSION
                            "\"] and _meta[\"" META_CAPS "\"]",
                            NULL);
    return wt_rpc_error(m->id, WT_RPC_METHOD_NOT_FOUND, "Method not found", NULL);
}

json_t *wt_mcp_precheck(const struct wt_mcp_server *s, const struct wt_rpc_msg *m)
{
    if (m->kind != WT_RPC_REQUEST)
        return NULL;
    const char *version = NULL;
    if (wt_mcp_is_modern(m, &version)) {
        json_t *refused = modern_refusal(m, version);
        if (refused)
            return refused;
    }
    if (strcmp(m->method, "tools/call") != 0)
        return NULL;
    char msg[300] = "";
    int code = call_refusal(s, m, msg, sizeof(msg));
    return code ? wt_rpc_error(m->id, code, msg, NULL) : NULL;
}

json_t *wt_mcp_handle(struct wt_mcp_server *s, struct wt_mcp_session *sess,
                      const struct wt_rpc_msg *m, const struct wt_mcp_call *call)
{
    static const struct wt_mcp_call none = {0};
    if (!call)
        call = &none;
    switch (m->kind) {
    case WT_RPC_INVALID:
        return wt_rpc_error(m->id, m->error_code, m->error_message, NULL);
    case WT_RPC_RESPONSE:
        return NULL; /* this server sends no requests */
    case WT_RPC_NOTIFICATION:
        if (!strcmp(m->method, "notifications/initialized"))
            sess->initialized = 1;
        /* notifications/cancelled is the transport's (it owns the calls) */
        return NULL;
    case WT_RPC_REQUEST:
        break;
    }
    const char *version = NULL;
    if (wt_mcp_is_modern(m, &version))
        return handle_modern(s, m, version, call);
    return handle_legacy(s, sess, m, call);
}

/* 64 bits of a BLAKE2b digest (libsodium) of an id's type and value (a
 * string or an integer). */
static uint64_t id_hash(const json_t *id)
{
    char num[32];
    const unsigned char tag = json_is_string(id) ? 's' : 'i';
    const char *p = num;
    size_t n;
    if (json_is_string(id)) {
        p = json_string_value(id);
        n = json_string_length(id);
    } else {
        n = (size_t)snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(id));
    }
    crypto_generichash_state st;
    unsigned char out[crypto_generichash_BYTES_MIN];
    crypto_generichash_init(&st, NULL, 0, sizeof(out));
    crypto_generichash_update(&st, &tag, 1);
    crypto_generichash_update(&st, (const unsigned char *)p, n);
    crypto_generichash_final(&st, out, sizeof(out));
    uint64_t h;
    memcpy(&h, out, sizeof(h));
    return h;
}

void wt_mcp_cancelled_add(struct wt_mcp_cancelled *c, const json_t *id)
{
    if (!json_is_string(id) && !json_is_integer(id))
        return;
    c->h[c->next] = id_hash(id);
    c->next = (c->next + 1) % WT_MCP_CANCELLED_MAX;
    if (c->n < WT_MCP_CANCELLED_MAX)
        c->n++;
}

int wt_mcp_cancelled_has(const struct wt_mcp_cancelled *c, const json_t *id)
{
    if (!json_is_string(id) && !json_is_integer(id))
        return 0;
    uint64_t h = id_hash(id);
    for (unsigned i = 0; i < c->n; i++)
        if (c->h[i] == h)
            return 1;
    return 0;
}

#define BATCH_VERSION "2025-03-26"
/* answers a batch may collect before its other requests are refused unrun */
#define WT_MCP_BATCH_MAX_BYTES ((size_t)4 * WT_RPC_MAX_MESSAGE)

int wt_mcp_batch_names(const struct wt_rpc_msg *m, const json_t *id)
{
    size_t i;
    json_t *v;
    if (!m->batch || !(json_is_string(id) || json_is_integer(id)))
        return 0;
    json_array_foreach(m->root, i, v)
    {
        json_t *eid = json_object_get(v, "id");
        if (json_object_get(v, "method") && eid && json_equal(eid, (json_t *)id))
            return 1;
    }
    return 0;
}

int wt_mcp_batch_allowed(const struct wt_mcp_session *sess)
{
    return sess->negotiated && !strcmp(sess->version, BATCH_VERSION);
}

json_t *wt_mcp_handle_batch(struct wt_mcp_server *s, struct wt_mcp_session *sess,
                            const struct wt_rpc_msg *m, const struct wt_mcp_call *call,
                            const struct wt_mcp_batch_hooks *hooks)
{
    if (!m->batch || !wt_mcp_batch_allowed(sess))
        return wt_rpc_error(m->id, m->error_code ? m->error_code : WT_RPC_INVALID_REQUEST,
                            m->error_message[0] ? m->error_message : "Invalid Request", NULL);
    static const struct wt_mcp_batch_hooks no_hooks = {0};
    if (!hooks)
        hooks = &no_hooks;
    json_t *out = json_array();
    if (!out)
        return wt_rpc_error(NULL, WT_RPC_INTERNAL_ERROR, "Internal error: out of memory", NULL);
    size_t i, out_bytes = 0;
    json_t *v;
    json_array_foreach(m->root, i, v)
    {
        struct wt_rpc_msg e;
        wt_rpc_parse_value(v, &e);
        json_t *r = NULL;
        if (e.kind == WT_RPC_NOTIFICATION && !strcmp(e.method, "notifications/cancelled")) {
            json_t *rid = json_object_get(e.params, "requestId");
            /* it acts on what was sent before the batch, not on the batch's own */
            if (hooks->cancel && !wt_mcp_batch_names(m, rid))
                hooks->cancel(hooks->ctx, rid);
        } else if (e.kind == WT_RPC_INVALID && e.notification) {
            /* never answered, as outside a batch */
        } else if (e.kind == WT_RPC_REQUEST && !strcmp(e.method, "initialize")) {
            r = wt_rpc_error(e.id, WT_RPC_INVALID_REQUEST,
                             "Invalid Request: initialize must not be part of a batch", NULL);
        } else if (e.kind == WT_RPC_REQUEST && wt_mcp_is_modern(&e, NULL)) {
            r = wt_rpc_error(e.id, WT_RPC_INVALID_REQUEST,
                             "Invalid Request: a 2026-07-28 request (with _meta protocol "
                             "version) cannot be part of a batch",
                             NULL);
        } else if (e.kind == WT_RPC_REQUEST && out_bytes > WT_MCP_BATCH_MAX_BYTES) {
            /* the answers so far are already this large: the array (held
             * whole until the end, then one line) must not grow without
             * bound (a 150 KB batch of recent_classifications held 1.8 GB) */
            r = wt_rpc_error(e.id, WT_RPC_INVALID_REQUEST,
                             "Invalid Request: the batch's answers exceed the size limit; "
                             "send this request again on its own",
                             NULL);
        } else if (!hooks->begin || !hooks->begin(hooks->ctx, &e)) {
            r = wt_mcp_handle(s, sess, &e, call);
            if (hooks->end && hooks->end(hooks->ctx, &e) && e.kind == WT_RPC_REQUEST) {
                json_decref(r);
                r = NULL;
            }
        }
        if (r) {
            out_bytes += json_dumpb(r, NULL, 0, JSON_COMPACT);
            json_array_append_new(out, r);
        }
        wt_rpc_free(&e);
    }
    if (json_array_size(out) == 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

json_t *wt_mcp_agent_card(const struct wt_mcp_server *s)
{
    json_t *tools = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(s->tools, i, t)
    {
        json_array_append_new(tools, json_pack("{s:O,s:O}", "name", json_object_get(t, "name"),
                                               "description", json_object_get(t, "description")));
    }
    return json_pack(
        "{s:s,s:s,s:s,s:s,s:{s:s,s:[s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s]},"
        "s:{s:[s,s,s,s],s:{s:s,s:[s]},s:{s:s,s:s,s:s},s:o}}",
        "name", "workloadtruth", "description",
        "Tells whether a GPU runs TRAINING, INFERENCE or is IDLE from telemetry alone, and keeps "
        "a tamper-evident audit log of what it saw.",
        "version", WT_VERSION, "documentation", "README.md", "cli", "command", "workloadtruth",
        "commands", "classify", "benchmark", "eval", "train", "gpus", "record", "watch",
        "verify-log", "init", "checkpoint", "prove", "verify-proof", "consistency", "witness",
        "recover", "report", "mcp", "mcp", "protocolVersions", WT_MCP_MODERN_VERSION, "2025-11-25",
        "2025-06-18", "2025-03-26", "stdio", "command", "workloadtruth", "args", "mcp", "http",
        "command", "workloadtruth mcp --http 127.0.0.1:8765", "endpoint", "/mcp", "auth",
        "optional bearer token (--token-file)", "tools", tools);
}
