/* Unit tests of the MCP server: JSON-RPC framing (malformed frames, wrong
 * types, oversized messages), both protocol eras (initialize negotiation,
 * server/discover, resultType and caching fields, unsupported versions),
 * the tools (unknown tools, out-of-range and unknown arguments, files
 * confined to the configured directories, results with structuredContent,
 * progress), batches (2025-03-26 sessions only), and the stdio transport
 * (one message per line, an oversized line, cancellation, batches, end of
 * input).
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "audit/log.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "mcp/stdio.h"
#include "util/clock.h"

static char tmpdir[64];

/* Writes text as tmpdir/traces/NAME (the server's --trace-dir). */
static void write_trace(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/traces/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* A tools/call that keeps the server busy for SAMPLES x 0.1 s of live
 * sampling from the NVML test double, whatever the build's speed, and stops
 * within 0.1 s when cancelled: the tests that need the reader thread to read
 * further lines while a request runs.  (The 0.1 s benchmark used before left
 * the reader, kept off the CPU on a loaded machine, a window to miss.) */
#define BUSY(ID, SAMPLES)                                                                          \
    "{\"jsonrpc\":\"2.0\",\"id\":" #ID ",\"method\":\"tools/call\",\"params\":{\"name\":"          \
    "\"classify_workload\",\"arguments\":{\"backend\":\"nvml\",\"samples\":" #SAMPLES              \
    ",\"interval_seconds\":0.1}}}"

/* BUSY's answer is a result, not a tool error: the NVML test double was
 * loaded, so the call did keep the server busy. */
static void assert_busy_done(const json_t *r)
{
    const json_t *res = json_object_get(r, "result");
    assert_non_null(res);
    assert_false(json_is_true(json_object_get(res, "isError")));
}

static struct wt_mcp_server *new_server(const char *trace_dir)
{
    static struct wt_mcp_server s;
    struct wt_mcp_config cfg = {0};
    static char logdir[128];
    snprintf(logdir, sizeof(logdir), "%s/log", tmpdir);
    cfg.backend = "synthetic";
    cfg.log_dir = logdir;
    cfg.trace_dir = trace_dir;
    cfg.max_seconds = 300;
    cfg.nvml_lib = WT_FAKE_NVML; /* (BUSY) */
    setenv("WT_FAKE_NVML_TRACE", WT_TEST_DATA "/fake_gpu.csv", 1);
    assert_int_equal(wt_mcp_server_init(&s, &cfg), 0);
    return &s;
}

/* Handles one message given as text; returns the response (or NULL). */
static json_t *ask_in(struct wt_mcp_server *s, struct wt_mcp_session *sess, const char *text,
                      const struct wt_mcp_call *call)
{
    struct wt_rpc_msg m;
    wt_rpc_parse(text, strlen(text), &m);
    json_t *r = wt_mcp_handle(s, sess, &m, call);
    wt_rpc_free(&m);
    return r;
}

static json_t *ask(struct wt_mcp_server *s, const char *text)
{
    struct wt_mcp_session sess = {1, 1, "2025-11-25"};
    return ask_in(s, &sess, text, NULL);
}

static int error_code(const json_t *r)
{
    json_t *e = json_object_get(r, "error");
    assert_non_null(e);
    return (int)json_integer_value(json_object_get(e, "code"));
}

static const char *error_message(const json_t *r)
{
    return json_string_value(json_object_get(json_object_get(r, "error"), "message"));
}

/* A tools/call of name with arguments (JSON text); returns the result. */
static json_t *call_tool(struct wt_mcp_server *s, const char *name, const char *args, json_t **resp)
{
    char text[4096];
    snprintf(text, sizeof(text),
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s}}",
             name, args);
    *resp = ask(s, text);
    assert_non_null(*resp);
    json_t *res = json_object_get(*resp, "result");
    assert_non_null(res);
    return res;
}

static int is_error(const json_t *res)
{
    return json_is_true(json_object_get(res, "isError"));
}

static const char *result_text(const json_t *res)
{
    return json_string_value(
        json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
}

/* Asserts the call fails as a tool error whose text contains want. */
static void tool_fails(struct wt_mcp_server *s, const char *name, const char *args,
                       const char *want)
{
    json_t *resp;
    json_t *res = call_tool(s, name, args, &resp);
    if (!is_error(res) || !strstr(result_text(res), want)) {
        print_error("%s %s: wanted an error with '%s', got %s\n", name, args, want,
                    result_text(res));
        fail();
    }
    json_decref(resp);
}

/* --- framing ----------------------------------------------------------------- */

static void parse_kinds(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        enum wt_rpc_kind kind;
        int code;
    } cases[] = {
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", WT_RPC_REQUEST, 0},
        {"{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"ping\",\"params\":{}}", WT_RPC_REQUEST, 0},
        {"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", WT_RPC_NOTIFICATION, 0},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", WT_RPC_RESPONSE, 0},
        {"not json", WT_RPC_INVALID, WT_RPC_PARSE_ERROR},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", WT_RPC_INVALID, WT_RPC_PARSE_ERROR},
        {"", WT_RPC_INVALID, WT_RPC_PARSE_ERROR},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", WT_RPC_INVALID,
         WT_RPC_PARSE_ERROR}, /* duplicate keys */
        {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", WT_RPC_INVALID,
         WT_RPC_INVALID_REQUEST}, /* batches were removed */
        {"42", WT_RPC_INVALID, WT_RPC_INVALID_REQUEST},
        {"{\"id\":1,\"method\":\"ping\"}", WT_RPC_INVALID, WT_RPC_INVALID_REQUEST},
        {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", WT_RPC_INVALID,
         WT_RPC_INVALID_REQUEST},
        {"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", WT_RPC_INVALID,
         WT_RPC_INVALID_REQUEST},
        {"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", WT_RPC_INVALID,
         WT_RPC_INVALID_REQUEST},
        {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", WT_RPC_INVALID,
         WT_RPC_INVALID_REQUEST},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", WT_RPC_INVALID, WT_RPC_INVALID_REQUEST},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", WT_RPC_INVALID, WT_RPC_INVALID_REQUEST},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}", WT_RPC_INVALID,
         WT_RPC_INVALID_PARAMS},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":3}", WT_RPC_INVALID,
         WT_RPC_INVALID_REQUEST},
        {"{\"jsonrpc\":\"2.0\",\"id\":1}", WT_RPC_INVALID, WT_RPC_INVALID_REQUEST},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"extra\":1}", WT_RPC_INVALID,
         WT_RPC_INVALID_REQUEST},
        /* an error response about a request without a readable id: ignored */
        {"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}",
         WT_RPC_RESPONSE, 0},
        /* valid JSON, an id beyond 64 bits: not a parse error */
        {"{\"jsonrpc\":\"2.0\",\"id\":9223372036854775808,\"method\":\"ping\"}", WT_RPC_INVALID,
         WT_RPC_INVALID_REQUEST},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wt_rpc_msg m;
        wt_rpc_parse(cases[i].text, strlen(cases[i].text), &m);
        if (m.kind != cases[i].kind || (cases[i].code && m.error_code != cases[i].code)) {
            print_error("case %zu (%s): kind %d code %d\n", i, cases[i].text, m.kind, m.error_code);
            fail();
        }
        wt_rpc_free(&m);
    }
    /* a string method without an id is a notification, invalid or not: an
     * empty or overlong method was answered (id null) */
    char longm[400];
    snprintf(longm, sizeof(longm), "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/%0300d\"}", 0);
    const char *unanswered[] = {"{\"jsonrpc\":\"2.0\",\"method\":\"\"}", longm};
    for (size_t i = 0; i < 2; i++) {
        struct wt_rpc_msg m;
        wt_rpc_parse(unanswered[i], strlen(unanswered[i]), &m);
        assert_int_equal(m.kind, WT_RPC_INVALID);
        assert_true(m.notification);
        wt_rpc_free(&m);
    }
    /* a number beyond a double (a 400-digit integer, 1e400) is no parse
     * error either: the request keeps its id, a tool refuses the value */
    char big[600];
    snprintf(big, sizeof(big),
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"run_benchmark\",\"arguments\":{\"seed\":1%0400d,\"trials\":-1e400}}}",
             0);
    struct wt_rpc_msg m;
    wt_rpc_parse(big, strlen(big), &m);
    assert_int_equal(m.kind, WT_RPC_REQUEST);
    json_t *args = json_object_get(m.params, "arguments");
    assert_true(json_real_value(json_object_get(args, "seed")) == 1e308);
    assert_true(json_real_value(json_object_get(args, "trials")) == -1e308);
    wt_rpc_free(&m);
    /* but only a whole number: "1e400-7" is not JSON (its first part was
     * replaced by 1e308 and the rest dropped, and it parsed) */
    const char *notjson[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":1e400-7}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":-1e400e5}}"};
    for (size_t i = 0; i < 2; i++) {
        wt_rpc_parse(notjson[i], strlen(notjson[i]), &m);
        assert_int_equal(m.kind, WT_RPC_INVALID);
        assert_int_equal(m.error_code, WT_RPC_PARSE_ERROR);
        wt_rpc_free(&m);
    }
}

/* text[0..n) parses as an invalid message with this code and a message
 * that contains needle. */
static void expect_invalid(const char *text, size_t n, int code, const char *needle)
{
    struct wt_rpc_msg m;
    wt_rpc_parse(text, n, &m);
    assert_int_equal(m.kind, WT_RPC_INVALID);
    assert_int_equal(m.error_code, code);
    assert_non_null(strstr(m.error_message, needle));
    wt_rpc_free(&m);
}

/* Notifications that are invalid for MCP are flagged (stdio never answers
 * them); one whose method is not even a string is an invalid request. */
static void invalid_notifications(void **state)
{
    (void)state;
    static const char *const quiet[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":[]}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":null}",
        ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
         "1},\"extra\":true}"),
    };
    for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
        struct wt_rpc_msg m;
        wt_rpc_parse(quiet[i], strlen(quiet[i]), &m);
        assert_int_equal(m.kind, WT_RPC_INVALID);
        assert_true(m.notification);
        wt_rpc_free(&m);
    }
    const char *loud = "{\"jsonrpc\":\"2.0\",\"method\":1,\"params\":\"bar\"}";
    struct wt_rpc_msg m;
    wt_rpc_parse(loud, strlen(loud), &m);
    assert_int_equal(m.kind, WT_RPC_INVALID);
    assert_false(m.notification);
    wt_rpc_free(&m);
    /* an integer beyond 64 bits elsewhere than the id is read as a real (for
     * the tool's bounds to refuse by name); the id and the integers a real
     * holds exactly stay integers (the message had been refused with id null,
     * which a client cannot match: it waited for its time-out) */
    const char *big = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"n\":"
                      "123456789012345678901234567890,\"a\":[3,{\"k\":-4}],\"r\":2.5}}";
    wt_rpc_parse(big, strlen(big), &m);
    assert_int_equal(m.kind, WT_RPC_REQUEST);
    assert_true(json_is_integer(m.id) && json_integer_value(m.id) == 7);
    json_t *params = json_object_get(m.root, "params");
    assert_true(json_is_real(json_object_get(params, "n")));
    assert_true(json_is_real(json_object_get(params, "r")));
    json_t *arr = json_object_get(params, "a");
    assert_true(json_is_integer(json_array_get(arr, 0)));
    assert_true(json_integer_value(json_object_get(json_array_get(arr, 1), "k")) == -4);
    wt_rpc_free(&m);
    /* any 64-bit id stays exact beside such an integer (2^53 + 1 and 2^63 - 1
     * were read through a real: refused, or answered as another id), a real
     * written as 2.0 stays a real (not an id), and an id beyond 64 bits is
     * refused with id null; strings that look like numbers are left alone */
    const char *edge = "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\","
                       "\"params\":{\"n\":123456789012345678901234567890,\"s\":\"-1234567890123"
                       "4567890123\\\"9\",\"e\":-1.5e+3}}";
    wt_rpc_parse(edge, strlen(edge), &m);
    assert_int_equal(m.kind, WT_RPC_REQUEST);
    assert_true(json_integer_value(m.id) == 9007199254740993LL);
    params = json_object_get(m.root, "params");
    assert_string_equal(json_string_value(json_object_get(params, "s")),
                        "-12345678901234567890123\"9");
    assert_true(json_real_value(json_object_get(params, "e")) == -1500.0);
    wt_rpc_free(&m);
    /* a NUL elsewhere than in a tool's arguments: an invalid request that
     * keeps its id (C code would read "ping\\u0000x" as "ping") */
    const char *nul = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\\u0000x\"}";
    wt_rpc_parse(nul, strlen(nul), &m);
    assert_int_equal(m.kind, WT_RPC_INVALID);
    assert_int_equal(m.error_code, WT_RPC_INVALID_REQUEST);
    assert_true(json_is_integer(m.id) && json_integer_value(m.id) == 8);
    wt_rpc_free(&m);
    /* in a member name too (which jansson cannot hold even with ALLOW_NUL) */
    const char *nulkey =
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"k\\u0000\":1}}";
    wt_rpc_parse(nulkey, strlen(nulkey), &m);
    assert_int_equal(m.kind, WT_RPC_INVALID);
    assert_int_equal(m.error_code, WT_RPC_INVALID_REQUEST);
    assert_true(json_is_integer(m.id) && json_integer_value(m.id) == 9);
    wt_rpc_free(&m);
    /* without an id, a NUL makes a notification only of a message with
     * "jsonrpc": "2.0" and a string method; others are invalid requests,
     * answered (they went unanswered, where the same without a NUL was) */
    static const struct {
        const char *msg;
        int notification;
    } nulnote[] = {
        {"{\"a\\u0000\":1}", 0},
        {"{\"params\":{\"s\":\"\\u0000\"}}", 0},
        {"{\"jsonrpc\":\"1.0\",\"method\":\"x\",\"params\":{\"s\":\"\\u0000\"}}", 0},
        {"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"a\\u0000\":1}", 1},
        {"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":\"\\u0000\"}}", 1},
    };
    for (size_t i = 0; i < sizeof(nulnote) / sizeof(nulnote[0]); i++) {
        wt_rpc_parse(nulnote[i].msg, strlen(nulnote[i].msg), &m);
        assert_int_equal(m.kind, WT_RPC_INVALID);
        assert_int_equal(m.error_code, WT_RPC_INVALID_REQUEST);
        assert_int_equal(m.notification, nulnote[i].notification);
        assert_null(m.id);
        wt_rpc_free(&m);
    }
    /* a response is ignored whatever it holds, a NUL in a name too (it was
     * answered with -32600) */
    const char *nulresp = "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"\\u0000\":1}}";
    wt_rpc_parse(nulresp, strlen(nulresp), &m);
    assert_int_equal(m.kind, WT_RPC_RESPONSE);
    wt_rpc_free(&m);
    /* after an escaped backslash, and beside a name it would then duplicate */
    const char *nulkey2 = "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\",\"params\":"
                          "{\"\\\\\\u0000\":1,\"\\\\\\u0001\":2}}";
    wt_rpc_parse(nulkey2, strlen(nulkey2), &m);
    assert_int_equal(m.error_code, WT_RPC_INVALID_REQUEST);
    assert_true(json_is_integer(m.id) && json_integer_value(m.id) == 10);
    wt_rpc_free(&m);
    /* a batch keeps the parse error, answered (it was taken for a
     * notification and dropped: no answer at all) */
    const char *nulbatch =
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"k\\u0000\":1}}]";
    wt_rpc_parse(nulbatch, strlen(nulbatch), &m);
    assert_int_equal(m.kind, WT_RPC_INVALID);
    assert_int_equal(m.error_code, WT_RPC_PARSE_ERROR);
    assert_false(m.notification);
    wt_rpc_free(&m);
    const char *max = "{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775808,\"method\":\"ping\","
                      "\"params\":{\"n\":-9223372036854775809}}";
    wt_rpc_parse(max, strlen(max), &m);
    assert_int_equal(m.kind, WT_RPC_REQUEST);
    assert_true(json_integer_value(m.id) == INT64_MIN);
    assert_true(json_is_real(json_object_get(json_object_get(m.root, "params"), "n")));
    wt_rpc_free(&m);
    const char *two = "{\"jsonrpc\":\"2.0\",\"id\":2.0,\"method\":\"ping\","
                      "\"params\":{\"n\":123456789012345678901234567890}}";
    wt_rpc_parse(two, strlen(two), &m);
    assert_int_equal(m.kind, WT_RPC_INVALID);
    wt_rpc_free(&m);
    const char *over = "{\"jsonrpc\":\"2.0\",\"id\":92233720368547758070,\"method\":\"ping\","
                       "\"params\":{\"n\":123456789012345678901234567890}}";
    wt_rpc_parse(over, strlen(over), &m);
    assert_int_equal(m.kind, WT_RPC_INVALID);
    assert_null(m.id);
    wt_rpc_free(&m);
}

/* Many small values in a message under the byte limit are refused before
 * parsing: parsed, each costs ~25 times its bytes. */
static void too_many_values(void **state)
{
    (void)state;
    size_t k = WT_RPC_MAX_VALUES + 10;
    char *t = malloc(5 * k + 200);
    assert_non_null(t);
    size_t n =
        (size_t)sprintf(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":[");
    for (size_t i = 0; i < k; i++)
        n += (size_t)sprintf(t + n, "%s[]", i ? "," : "");
    n += (size_t)sprintf(t + n, "]}}");
    expect_invalid(t, n, WT_RPC_INVALID_REQUEST, "JSON values");
    /* commas and brackets inside strings are not values */
    n = (size_t)sprintf(t,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"");
    for (size_t i = 0; i < k; i++)
        n += (size_t)sprintf(t + n, "[,\\\"");
    n += (size_t)sprintf(t + n, "\"}}");
    struct wt_rpc_msg m;
    wt_rpc_parse(t, n, &m);
    assert_int_equal(m.kind, WT_RPC_REQUEST);
    wt_rpc_free(&m);
    free(t);
}

static void errors_keep_the_id(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    json_t *r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"ping\",\"params\":[]}");
    assert_int_equal(error_code(r), WT_RPC_INVALID_PARAMS);
    assert_string_equal(json_string_value(json_object_get(r, "id")), "abc");
    json_decref(r);
    r = ask(s, "{bad");
    assert_int_equal(error_code(r), WT_RPC_PARSE_ERROR);
    assert_true(json_is_null(json_object_get(r, "id")));
    json_decref(r);
    /* an id written 1.0 is refused, with that id, so that the client can
     * match the error (it was id null) */
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"ping\"}");
    assert_int_equal(error_code(r), WT_RPC_INVALID_REQUEST);
    assert_true(json_is_real(json_object_get(r, "id")));
    assert_true(json_real_value(json_object_get(r, "id")) == 1.0);
    json_decref(r);
    /* valid JSON nested beyond the parser's depth is a refused request, not
     * a parse error (it was -32700) */
    char deep[7000];
    int n = snprintf(deep, sizeof(deep),
                     "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"x\":");
    for (int i = 0; i < 3000; i++)
        deep[n++] = '[';
    for (int i = 0; i < 3000; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    deep[n++] = '}';
    deep[n] = '\0';
    r = ask(s, deep);
    assert_int_equal(error_code(r), WT_RPC_INVALID_REQUEST);
    json_decref(r);
    /* notifications and responses get no answer */
    assert_null(ask(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}"));
    assert_null(ask(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"));
    wt_mcp_server_free(s);
}

/* --max-seconds bounds the time live sampling takes, not only the time asked
 * for: 200 samples 0.01 s apart are 2 s asked, but a poll between the
 * driver's readings adds no sample, and the test double's readings took 13 s
 * (a real GPU's driver, sampling once a second, would have taken 200 s).
 * Stopped at 2 s + the grace (5.1 s), a tool error; a call within it still
 * succeeds. */
static void live_sampling_deadline(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    s->cfg.max_seconds = 2;
    json_t *resp;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    json_t *res =
        call_tool(s, "classify_workload",
                  "{\"backend\":\"nvml\",\"samples\":200,\"interval_seconds\":0.01}", &resp);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    assert_true(is_error(res));
    if (!strstr(result_text(res), "live sampling stopped after 7.") ||
        !strstr(result_text(res), "ask for fewer samples"))
        fail_msg("wanted the deadline's error, got %s", result_text(res));
    assert_true(took >= 6.5 && took < 10);
    json_decref(resp);
    res = call_tool(s, "classify_workload",
                    "{\"backend\":\"nvml\",\"samples\":10,\"interval_seconds\":0.1}", &resp);
    assert_false(is_error(res));
    json_decref(resp);
    /* a driver call that blocks past the limit (nothing cuts it short): the
     * time it took and that cause, not the limit and "fewer samples" (a 30 s
     * call read "stopped after 6 s ... ask for fewer samples") */
    s->cfg.max_seconds = 1; /* stopped at 1 + 4 x 0.2 + 5.05 s */
    setenv("WT_FAKE_NVML_FAULTS", "slow=0:nvmlDeviceGetName:9000", 1);
    res = call_tool(s, "classify_workload",
                    "{\"backend\":\"nvml\",\"samples\":5,\"interval_seconds\":0.2}", &resp);
    unsetenv("WT_FAKE_NVML_FAULTS");
    assert_true(is_error(res));
    if (!strstr(result_text(res), "a driver call did not return in time") ||
        !strstr(result_text(res), "past the 6.8 s this server allows"))
        fail_msg("wanted the slow driver's error, got %s", result_text(res));
    json_decref(resp);
    wt_mcp_server_free(s);
}

/* A call waiting for the tool in use is cancelled while it waits: it was
 * answered only when the tool in use returned (one stuck in a slow driver
 * call held every waiting call, and the server's stop, for its 30 s). */
static void *cancel_later(void *p)
{
    struct timespec d = {0, 300000000L};
    nanosleep(&d, NULL);
    atomic_store((atomic_int *)p, 1);
    return NULL;
}

static void waiting_call_cancelled(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    s->tool_busy = 1; /* another call's tool runs, and does not return */
    atomic_int cancel = 0;
    struct wt_mcp_call call = {NULL, NULL, &cancel};
    struct wt_mcp_session sess = {1, 1, "2025-11-25"};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, cancel_later, &cancel), 0);
    double t0 = wt_mono_s();
    json_t *r = ask_in(s, &sess,
                       "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                       "\"name\":\"list_gpus\",\"arguments\":{}}}",
                       &call);
    double took = wt_mono_s() - t0;
    pthread_join(t, NULL);
    assert_string_equal(result_text(json_object_get(r, "result")), "cancelled");
    assert_true(took >= 0.25 && took < 2);
    assert_int_equal(s->tool_busy, 1); /* still the other call's */
    json_decref(r);
    /* the turn freed, a call runs */
    s->tool_busy = 0;
    cancel = 0;
    r = ask_in(s, &sess,
               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
               "\"name\":\"run_benchmark\",\"arguments\":{\"trials\":1}}}",
               &call);
    assert_false(is_error(json_object_get(r, "result")));
    assert_int_equal(s->tool_busy, 0);
    json_decref(r);
    wt_mcp_server_free(s);
}

/* Cancels the call (the atomic_int *cancel of w[0]) after 8 s unless w[1] is
 * set first: a call that waits for the turn fails the test, not hangs it. */
static void *watchdog(void *p)
{
    atomic_int *w = p;
    struct timespec d = {0, 10000000L};
    for (int i = 0; i < 800 && !atomic_load(&w[1]); i++)
        nanosleep(&d, NULL);
    atomic_store(&w[0], 1);
    return NULL;
}

/* A call whose arguments are bad is answered at once, also while another
 * call's tool runs: it waited for the turn first (behind live sampling, tens
 * of seconds) to be told its arguments were wrong. */
static void bad_arguments_do_not_wait(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    s->tool_busy = 1; /* another call's tool runs, and does not return */
    /* the calls' cancel flag, and "done": static, as a failed assertion
     * leaves this function with the watchdog still running */
    static atomic_int w[2];
    atomic_store(&w[0], 0);
    atomic_store(&w[1], 0);
    struct wt_mcp_call call = {NULL, NULL, &w[0]};
    struct wt_mcp_session sess = {1, 1, "2025-11-25"};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, watchdog, w), 0);
    static const char *const bad[][3] = {
        {"classify_workload", "{\"samples\":2}", "'samples' must be from 5"},
        {"check_declaration", "{\"backend\":\"synthetic\"}", "'declared' is required"},
        {"classify_workload", "{\"backend\":\"nvml\",\"samples\":3600,\"interval_seconds\":60}",
         "--max-seconds"},
        {"run_benchmark", "{\"suite\":\"nope\"}", "'suite' must be one of"},
        {"recent_classifications", "{\"limit\":0}", "'limit' must be from 1"},
        {"verify_audit_log", "{\"log_file\":7}", "'log_file' must be a non-empty string"},
        {"list_gpus", "{\"backend\":\"replay\"}", "backend replay needs 'trace'"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[400];
        snprintf(text, sizeof(text),
                 "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\",\"params\":{"
                 "\"name\":\"%s\",\"arguments\":%s}}",
                 i, bad[i][0], bad[i][1]);
        double t0 = wt_mono_s();
        json_t *r = ask_in(s, &sess, text, &call);
        double took = wt_mono_s() - t0;
        json_t *res = json_object_get(r, "result");
        assert_true(is_error(res));
        if (!strstr(result_text(res), "Invalid arguments: ") ||
            !strstr(result_text(res), bad[i][2]))
            fail_msg("%s %s: wanted '%s', got %s", bad[i][0], bad[i][1], bad[i][2],
                     result_text(res));
        assert_true(took < 1);
        json_decref(r);
    }
    atomic_store(&w[1], 1);
    pthread_join(t, NULL);
    assert_int_equal(s->tool_busy, 1); /* still the other call's */
    wt_mcp_server_free(s);
}

static void oversized_message(void **state)
{
    (void)state;
    size_t n = WT_RPC_MAX_MESSAGE + 10;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, ' ', n);
    memcpy(big, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 40);
    expect_invalid(big, n, WT_RPC_INVALID_REQUEST, "limit");
    free(big);
}

static void dump_is_one_line(void **state)
{
    (void)state;
    json_t *j = json_pack("{s:s}", "text", "line one\nline two");
    char *s = wt_rpc_dump(j);
    assert_null(strchr(s, '\n'));
    free(s);
    json_decref(j);
}

/* --- eras ---------------------------------------------------------------------- */

static void legacy_initialize(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    static const char *const want[][2] = {{"2025-11-25", "2025-11-25"},
                                          {"2025-06-18", "2025-06-18"},
                                          {"2025-03-26", "2025-03-26"},
                                          {"2024-11-05", "2025-11-25"},
                                          {"2099-01-01", "2025-11-25"}};
    for (size_t i = 0; i < 5; i++) {
        char text[300];
        snprintf(text, sizeof(text),
                 "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                 "\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
                 "\"version\":\"1\"}}}",
                 want[i][0]);
        struct wt_mcp_session sess = {0};
        json_t *r = ask_in(s, &sess, text, NULL);
        json_t *res = json_object_get(r, "result");
        assert_string_equal(json_string_value(json_object_get(res, "protocolVersion")), want[i][1]);
        assert_string_equal(sess.version, want[i][1]);
        assert_non_null(json_object_get(json_object_get(res, "capabilities"), "tools"));
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(res, "serverInfo"), "name")),
            "workloadtruth");
        json_decref(r);
    }
    json_t *r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}");
    assert_int_equal(error_code(r), WT_RPC_INVALID_PARAMS);
    json_decref(r);
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    assert_int_equal(json_object_size(json_object_get(r, "result")), 0);
    json_decref(r);
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}");
    assert_int_equal(error_code(r), WT_RPC_METHOD_NOT_FOUND);
    json_decref(r);
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":"
               "\"x\"}}");
    assert_int_equal(error_code(r), WT_RPC_INVALID_PARAMS);
    json_decref(r);
    wt_mcp_server_free(s);
}

#define MODERN_META                                                                                \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                       \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static json_t *ask_batch(struct wt_mcp_server *s, struct wt_mcp_session *sess, const char *text,
                         const struct wt_mcp_batch_hooks *hooks)
{
    struct wt_rpc_msg m;
    wt_rpc_parse(text, strlen(text), &m);
    assert_true(m.batch);
    json_t *r = wt_mcp_handle_batch(s, sess, &m, NULL, hooks);
    wt_rpc_free(&m);
    return r;
}

static int skip_tools_call(void *ctx, const struct wt_rpc_msg *e)
{
    ++*(int *)ctx;
    return e->kind == WT_RPC_REQUEST && !strcmp(e->method, "tools/call");
}

/* JSON-RPC batches: served in order in a 2025-03-26 session only. */
static void batches(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    struct wt_mcp_session old = {1, 1, "2025-03-26"};
    json_t *r = ask_batch(
        s, &old,
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
        "7,"
        "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/list\"},"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-03-26\"}},"
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{" MODERN_META "}},"
        "[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}],"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":[]},"
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}]",
        NULL);
    assert_true(json_is_array(r));
    /* ping, the invalid 7, tools/list, initialize, the modern request, the nested batch */
    assert_int_equal(json_array_size(r), 6);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 0), "id")), 1);
    assert_non_null(json_object_get(json_array_get(r, 0), "result"));
    assert_true(json_is_null(json_object_get(json_array_get(r, 1), "id")));
    assert_int_equal(error_code(json_array_get(r, 1)), WT_RPC_INVALID_REQUEST);
    assert_string_equal(json_string_value(json_object_get(json_array_get(r, 2), "id")), "b");
    assert_non_null(json_object_get(json_object_get(json_array_get(r, 2), "result"), "tools"));
    for (size_t i = 3; i < 6; i++)
        assert_int_equal(error_code(json_array_get(r, i)), WT_RPC_INVALID_REQUEST);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 3), "id")), 3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 4), "id")), 4);
    assert_true(old.initialized);
    json_decref(r);
    /* only notifications: nothing to send */
    r = ask_batch(s, &old, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]",
                  NULL);
    assert_null(r);
    /* a transport may skip an element (cancelled before it ran) */
    int begun = 0;
    struct wt_mcp_batch_hooks hooks = {skip_tools_call, NULL, NULL, &begun};
    r = ask_batch(s, &old,
                  "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                  "\"name\":\"list_gpus\"}},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]",
                  &hooks);
    assert_int_equal(begun, 2);
    assert_int_equal(json_array_size(r), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 0), "id")), 2);
    json_decref(r);
    /* other revisions, or no initialize yet: one error for the whole batch */
    const char *one = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]";
    struct wt_mcp_session newer = {1, 1, "2025-06-18"}, fresh = {0};
    r = ask_batch(s, &newer, one, NULL);
    assert_true(json_is_object(r));
    assert_int_equal(error_code(r), WT_RPC_INVALID_REQUEST);
    assert_true(json_is_null(json_object_get(r, "id")));
    json_decref(r);
    r = ask_batch(s, &fresh, one, NULL);
    assert_int_equal(error_code(r), WT_RPC_INVALID_REQUEST);
    json_decref(r);
    /* wt_mcp_handle (a transport that takes no batches) refuses it too */
    r = ask_in(s, &old, one, NULL);
    assert_int_equal(error_code(r), WT_RPC_INVALID_REQUEST);
    json_decref(r);
    /* an empty array is not a batch: one error */
    struct wt_rpc_msg m;
    wt_rpc_parse("[]", 2, &m);
    assert_false(m.batch);
    assert_int_equal(m.kind, WT_RPC_INVALID);
    wt_rpc_free(&m);
    wt_mcp_server_free(s);
}

static void modern_requests(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    json_t *r = ask(
        s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" MODERN_META
           "}}");
    json_t *res = json_object_get(r, "result");
    assert_non_null(res);
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(res, "supportedVersions"), 0)),
        "2026-07-28");
    assert_string_equal(json_string_value(json_object_get(res, "resultType")), "complete");
    assert_true(json_is_integer(json_object_get(res, "ttlMs")));
    assert_non_null(json_object_get(res, "cacheScope"));
    assert_non_null(
        json_object_get(json_object_get(res, "_meta"), "io.modelcontextprotocol/serverInfo"));
    json_decref(r);

    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" MODERN_META
               "}}");
    res = json_object_get(r, "result");
    assert_int_equal(json_array_size(json_object_get(res, "tools")), 6);
    assert_string_equal(json_string_value(json_object_get(res, "resultType")), "complete");
    assert_true(json_is_integer(json_object_get(res, "ttlMs")));
    json_decref(r);

    /* removed methods */
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{" MODERN_META "}}");
    assert_int_equal(error_code(r), WT_RPC_METHOD_NOT_FOUND);
    json_decref(r);
    /* an unsupported version names the supported ones */
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
               "\"io.modelcontextprotocol/protocolVersion\":\"2030-01-01\","
               "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    assert_int_equal(error_code(r), WT_RPC_UNSUPPORTED_VERSION);
    json_t *data = json_object_get(json_object_get(r, "error"), "data");
    assert_string_equal(json_string_value(json_object_get(data, "requested")), "2030-01-01");
    assert_true(json_array_size(json_object_get(data, "supported")) >= 1);
    json_decref(r);
    /* echoed up to 64 bytes (a 4 MiB version came back whole) */
    {
        char big[400];
        int k = snprintf(big, sizeof(big),
                         "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{"
                         "\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{},"
                         "\"io.modelcontextprotocol/protocolVersion\":\"");
        memset(big + k, 'v', 200);
        snprintf(big + k + 200, sizeof(big) - (size_t)k - 200, "\"}}}");
        r = ask(s, big);
        assert_int_equal(error_code(r), WT_RPC_UNSUPPORTED_VERSION);
        data = json_object_get(json_object_get(r, "error"), "data");
        assert_int_equal(strlen(json_string_value(json_object_get(data, "requested"))), 64);
        json_decref(r);
    }
    /* a version that is not a string is malformed (-32602), not unsupported */
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
               "\"io.modelcontextprotocol/protocolVersion\":20260728,"
               "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    assert_int_equal(error_code(r), WT_RPC_INVALID_PARAMS);
    assert_contains(json_string_value(json_object_get(json_object_get(r, "error"), "message")),
                    "must be a string");
    json_decref(r);
    /* client capabilities are required */
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
               "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
    assert_int_equal(error_code(r), WT_RPC_INVALID_PARAMS);
    json_decref(r);
    /* a tool call carries resultType */
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"list_gpus\",\"arguments\":{}," MODERN_META "}}");
    res = json_object_get(r, "result");
    assert_string_equal(json_string_value(json_object_get(res, "resultType")), "complete");
    assert_false(is_error(res));
    json_decref(r);
    wt_mcp_server_free(s);
}

static void tools_are_described(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    static const char *const names[] = {"classify_workload", "run_benchmark",
                                        "verify_audit_log",  "list_gpus",
                                        "check_declaration", "recent_classifications"};
    json_t *r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    json_t *tools = json_object_get(json_object_get(r, "result"), "tools");
    assert_int_equal(json_array_size(tools), 6);
    for (size_t i = 0; i < 6; i++) {
        json_t *t = json_array_get(tools, i);
        assert_string_equal(json_string_value(json_object_get(t, "name")), names[i]);
        assert_non_null(json_string_value(json_object_get(t, "description")));
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(t, "inputSchema"), "type")),
            "object");
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(t, "outputSchema"), "type")),
            "object");
        json_t *ann = json_object_get(t, "annotations");
        assert_true(json_is_boolean(json_object_get(ann, "readOnlyHint")));
        assert_true(json_is_boolean(json_object_get(ann, "destructiveHint")));
    }
    /* classify_workload may write the audit log: not read-only */
    assert_true(json_is_false(
        json_object_get(json_object_get(json_array_get(tools, 0), "annotations"), "readOnlyHint")));
    json_decref(r);
    wt_mcp_server_free(s);
}

/* --- tools ------------------------------------------------------------------------- */

static void unknown_tool_is_a_protocol_error(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    json_t *r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                       "\"name\":\"rm_rf\",\"arguments\":{}}}");
    assert_int_equal(error_code(r), WT_RPC_INVALID_PARAMS);
    assert_string_equal(error_message(r), "Unknown tool: rm_rf");
    json_decref(r);
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}");
    assert_int_equal(error_code(r), WT_RPC_INVALID_PARAMS);
    json_decref(r);
    r = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"list_gpus\",\"arguments\":[1]}}");
    assert_int_equal(error_code(r), WT_RPC_INVALID_PARAMS);
    json_decref(r);
    wt_mcp_server_free(s);
}

static void bad_arguments_are_tool_errors(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    tool_fails(s, "classify_workload", "{\"samples\":4}", "'samples' must be from 5 to 3600");
    /* a name cut inside a UTF-8 sequence when echoed: still a reply (once none) */
    tool_fails(s, "classify_workload",
               "{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\xc3\xa9\":1}",
               "unknown argument");
    tool_fails(s, "classify_workload",
               "{\"profile\":\"ppppppppppppppppppppppppppppppppppppppp\xc3\xa9\"}",
               "unknown profile");
    tool_fails(s, "classify_workload", "{\"samples\":100000}", "'samples'");
    /* \u0000 is valid JSON: the tool says what is wrong (it was a parse
     * error with id null, which a client cannot match to its request) */
    tool_fails(s, "classify_workload", "{\"profile\":\"idle\\u0000x\"}", "contains a NUL");
    tool_fails(s, "classify_workload", "{\"samples\":\"10\"}", "'samples' must be an integer");
    tool_fails(s, "classify_workload", "{\"samples\":2.5}", "'samples' must be an integer");
    tool_fails(s, "classify_workload", "{\"gpu_index\":-1}", "'gpu_index'");
    tool_fails(s, "classify_workload", "{\"interval_seconds\":0}", "'interval_seconds'");
    tool_fails(s, "classify_workload", "{\"interval_seconds\":\"1\"}", "'interval_seconds'");
    tool_fails(s, "classify_workload", "{\"write_to_audit_log\":\"yes\"}",
               "'write_to_audit_log' must be true or false");
    tool_fails(s, "classify_workload", "{\"backend\":\"cuda\"}", "'backend' must be one of");
    tool_fails(s, "classify_workload", "{\"declared\":\"mining\"}", "'declared' must be one of");
    tool_fails(s, "classify_workload", "{\"profile\":\"nope\"}", "unknown profile");
    tool_fails(s, "classify_workload", "{\"colour\":\"red\"}", "unknown argument 'colour'");
    tool_fails(s, "classify_workload", "{\"backend\":\"replay\"}", "needs 'trace'");
    tool_fails(s, "classify_workload", "{\"trace\":\"x.csv\"}", "start it with --trace-dir");
    tool_fails(s, "classify_workload",
               "{\"backend\":\"nvml\",\"samples\":3600,"
               "\"interval_seconds\":60}",
               "at most 300 s per call");
    /* the Python tool's default profile spelled out with the GPUs passes
     * (as on the command line: it was "'profile' goes with backend
     * synthetic"); another profile does not */
    tool_fails(s, "classify_workload",
               "{\"backend\":\"nvml\",\"profile\":\"training\",\"samples\":3600,"
               "\"interval_seconds\":60}",
               "at most 300 s per call");
    tool_fails(s, "classify_workload",
               "{\"backend\":\"auto\",\"profile\":\"training\",\"samples\":3600,"
               "\"interval_seconds\":60}",
               "at most 300 s per call");
    tool_fails(s, "classify_workload", "{\"backend\":\"nvml\",\"profile\":\"inference\"}",
               "'profile' goes with backend synthetic");
    tool_fails(s, "check_declaration", "{}", "'declared' is required");
    tool_fails(s, "check_declaration", "{\"declared\":\"training\",\"windows\":21}", "'windows'");
    tool_fails(s, "check_declaration", "{\"declared\":\"training\",\"write_to_audit_log\":true}",
               "unknown argument");
    tool_fails(s, "run_benchmark", "{\"trials\":1001}", "'trials'");
    tool_fails(s, "run_benchmark", "{\"suite\":\"sim\",\"trials\":21}", "'trials'");
    tool_fails(s, "run_benchmark", "{\"suite\":\"sim\",\"window\":10}", "suite seed");
    tool_fails(s, "run_benchmark", "{\"suite\":\"all\"}", "'suite'");
    tool_fails(s, "run_benchmark", "{\"seed\":-1}", "'seed'");
    tool_fails(s, "recent_classifications", "{\"limit\":0}", "'limit'");
    tool_fails(s, "recent_classifications", "{\"limit\":101}", "'limit'");
    tool_fails(s, "verify_audit_log", "{\"log_file\":7}", "'log_file'");
    tool_fails(s, "verify_audit_log", "{}", "no audit log");
    tool_fails(s, "run_benchmark", "{\"window\":4}", "'window'");
    /* null means the default */
    json_t *resp;
    json_t *res =
        call_tool(s, "run_benchmark", "{\"suite\":\"sim\",\"window\":null,\"trials\":1}", &resp);
    assert_false(is_error(res));
    json_decref(resp);
    /* ... and so does the schema's default, which form-filling clients send
     * (it was "'window' (samples) is for suite seed") */
    res =
        call_tool(s, "run_benchmark", "{\"suite\":\"evasion\",\"window\":30,\"trials\":1}", &resp);
    assert_false(is_error(res));
    json_decref(resp);
    /* serving under the board settings: the share called TRAINING */
    res = call_tool(s, "run_benchmark", "{\"suite\":\"board\",\"trials\":1}", &resp);
    assert_false(is_error(res));
    assert_true(json_is_number(
        json_object_get(json_object_get(res, "structuredContent"), "called_training")));
    json_decref(resp);
    res = call_tool(s, "list_gpus", "{\"profile\":null,\"backend\":null}", &resp);
    assert_false(is_error(res));
    /* the keys of gpus --json: driver_version null for a source without one */
    assert_true(
        json_is_null(json_object_get(json_object_get(res, "structuredContent"), "driver_version")));
    json_decref(resp);
    tool_fails(s, "list_gpus", "{\"gpu_index\":0}", "unknown argument");
    wt_mcp_server_free(s);
}

static void files_stay_inside_their_directories(void **state)
{
    (void)state;
    char traces[128], outside[160], cmd[400];
    snprintf(traces, sizeof(traces), "%s/traces", tmpdir);
    snprintf(outside, sizeof(outside), "%s/secret.jsonl", tmpdir);
    assert_int_equal(mkdir(traces, 0700), 0);
    FILE *f = fopen(outside, "w");
    fclose(f);
    snprintf(outside, sizeof(outside), "%s/secret.csv", tmpdir);
    f = fopen(outside, "w");
    assert_non_null(f);
    fputs("t_s,gpu,util_gpu_pct\n0,0,1\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "%s/traces/link.csv", tmpdir);
    assert_int_equal(symlink(outside, cmd), 0);
    struct wt_mcp_server *s = new_server(traces);
    tool_fails(s, "classify_workload", "{\"trace\":\"../secret.csv\"}", "outside the directory");
    tool_fails(s, "classify_workload", "{\"trace\":\"/etc/passwd\"}", "outside the directory");
    tool_fails(s, "classify_workload", "{\"trace\":\"link.csv\"}", "outside the directory");
    tool_fails(s, "classify_workload", "{\"trace\":\"missing.csv\"}", "No such file");
    tool_fails(s, "classify_workload", "{\"trace\":\"-\"}", "No such file");
    snprintf(cmd, sizeof(cmd), "%s/traces/sub", tmpdir);
    assert_int_equal(mkdir(cmd, 0700), 0);
    tool_fails(s, "classify_workload", "{\"trace\":\"sub\"}", "not a regular file");
    tool_fails(s, "classify_workload", "{\"trace\":\".\"}", "not a regular file");
    tool_fails(s, "list_gpus", "{\"trace\":\"../secret.csv\"}", "outside the directory");
    /* a trace without data rows: an error, as classify_workload says it */
    write_trace("hdr.csv", "t_s,gpu,util_gpu_pct\n");
    tool_fails(s, "list_gpus", "{\"trace\":\"hdr.csv\"}", "the trace has no data rows");
    tool_fails(s, "classify_workload", "{\"trace\":\"hdr.csv\"}", "the trace has no data rows");
    /* messages say the tools' arguments, not the CLI's options */
    write_trace("short.csv", "t_s,gpu,util_gpu_pct\n0,0,1\n1,0,1\n2,0,1\n");
    tool_fails(s, "classify_workload", "{\"trace\":\"short.csv\",\"samples\":10}",
               "GPU 0 has only 3 samples; 'samples' asks for 10");
    /* ... and leave a file's name as it is */
    write_trace("--samples asks for.csv", "t_s,gpu,util_gpu_pct\n0,0,1\n1,0,1\n2,0,1\n");
    tool_fails(s, "classify_workload", "{\"trace\":\"--samples asks for.csv\",\"samples\":10}",
               "/--samples asks for.csv: GPU 0 has only 3 samples; 'samples' asks for 10");
    /* nvidia-smi CSV without index: gpus_per_tick, as classify --gpus-per-tick
     * (an agent had no way to read two GPUs' rows as two GPUs) */
    {
        static char smi[8192];
        size_t len = (size_t)snprintf(smi, sizeof(smi), "name, utilization.gpu [%%]\n");
        for (int i = 0; i < 20; i++)
            len += (size_t)snprintf(smi + len, sizeof(smi) - len,
                                    "NVIDIA A100-SXM4-40GB, 98 %%\nTesla T4, 0 %%\n");
        write_trace("smi2.csv", smi);
        tool_fails(s, "classify_workload", "{\"trace\":\"smi2.csv\"}",
                   "GPU 0's earlier rows (from line 2) name another model");
        tool_fails(s, "classify_workload", "{\"trace\":\"smi2.csv\"}",
                   "also take 'gpus_per_tick', the GPUs per poll");
        json_t *resp;
        json_t *res =
            call_tool(s, "classify_workload",
                      "{\"trace\":\"smi2.csv\",\"gpus_per_tick\":2,\"gpu_index\":1}", &resp);
        assert_false(is_error(res));
        json_t *sc = json_object_get(res, "structuredContent");
        assert_int_equal(json_integer_value(json_object_get(sc, "gpu_index")), 1);
        assert_string_equal(json_string_value(json_object_get(sc, "workload_type")), "IDLE");
        json_decref(resp);
        tool_fails(s, "classify_workload", "{\"gpus_per_tick\":2}",
                   "'gpus_per_tick' goes with 'trace'");
        tool_fails(s, "classify_workload", "{\"trace\":\"smi2.csv\",\"gpus_per_tick\":0}",
                   "'gpus_per_tick' must be from 1 to 1024");
    }
    /* start_seconds: a trace's samples before it skipped, as classify
     * --start (an agent had no way past a job's loading minutes) */
    {
        static char st[4096];
        size_t len = (size_t)snprintf(
            st, sizeof(st), "# gpu_model: NVIDIA A100-SXM4-40GB\nt_s,gpu,util_gpu_pct,power_w\n");
        for (int i = 0; i < 40; i++)
            len += (size_t)snprintf(st + len, sizeof(st) - len, "%d,0,%d,%d\n", i, i < 20 ? 0 : 100,
                                    i < 20 ? 50 : 300);
        write_trace("start.csv", st);
        json_t *resp;
        json_t *res = call_tool(s, "classify_workload", "{\"trace\":\"start.csv\"}", &resp);
        assert_false(is_error(res));
        json_t *sc = json_object_get(res, "structuredContent");
        assert_string_equal(json_string_value(json_object_get(sc, "workload_type")), "IDLE");
        json_decref(resp);
        res = call_tool(s, "classify_workload", "{\"trace\":\"start.csv\",\"start_seconds\":20}",
                        &resp);
        assert_false(is_error(res));
        sc = json_object_get(res, "structuredContent");
        assert_string_not_equal(json_string_value(json_object_get(sc, "workload_type")), "IDLE");
        json_decref(resp);
        tool_fails(s, "classify_workload",
                   "{\"trace\":\"start.csv\",\"start_seconds\":35,\"samples\":10}",
                   "has only 5 samples from 'start_seconds'; 'samples' asks for 10");
        tool_fails(s, "classify_workload", "{\"profile\":\"idle\",\"start_seconds\":1e6}",
                   "'start_seconds' 1000000: the synthetic source never ends");
        tool_fails(s, "classify_workload", "{\"backend\":\"nvml\",\"start_seconds\":5}",
                   "'start_seconds' is trace time");
        tool_fails(s, "classify_workload", "{\"trace\":\"start.csv\",\"start_seconds\":-1}",
                   "'start_seconds' must be from 0 to");
    }
    /* peers: a trace's other GPUs read beside the classified one, or not */
    {
        static char two[8192];
        size_t len = (size_t)snprintf(
            two, sizeof(two), "# gpu_model: NVIDIA A100-SXM4-40GB\nt_s,gpu,util_gpu_pct,power_w\n");
        for (int i = 0; i < 120; i++)
            for (int g = 0; g < 2; g++)
                len += (size_t)snprintf(two + len, sizeof(two) - len, "%.1f,%d,%d,%d\n", i / 10.0,
                                        g, i % 20 < 17 ? 99 : 60, i % 20 < 17 ? 370 : 120);
        write_trace("two.csv", two);
        /* the same with an owners column: each GPU another Slurm job's */
        static char jobs[8192];
        len = (size_t)snprintf(jobs, sizeof(jobs),
                               "# gpu_model: NVIDIA A100-SXM4-40GB\nt_s,gpu,util_gpu_pct,power_w,"
                               "owners\n");
        for (int i = 0; i < 120; i++)
            for (int g = 0; g < 2; g++)
                len += (size_t)snprintf(jobs + len, sizeof(jobs) - len, "%.1f,%d,%d,%d,slurm:%d\n",
                                        i / 10.0, g, i % 20 < 17 ? 99 : 60, i % 20 < 17 ? 370 : 120,
                                        501 + g);
        write_trace("jobs.csv", jobs);
        /* peer_sync measured (1) or not (0) */
        static const struct {
            const char *args;
            int measured;
        } cases[] = {
            {"{\"trace\":\"two.csv\",\"samples\":100}", 1},
            {"{\"trace\":\"two.csv\",\"samples\":100,\"peers\":\"none\"}", 0},
            {"{\"trace\":\"jobs.csv\",\"samples\":100}", 0},
            {"{\"trace\":\"jobs.csv\",\"samples\":100,\"peers\":\"job\"}", 0},
            {"{\"trace\":\"jobs.csv\",\"samples\":100,\"peers\":\"all\"}", 1},
        };
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
            json_t *resp;
            json_t *res = call_tool(s, "classify_workload", cases[k].args, &resp);
            assert_false(is_error(res));
            json_t *ps = json_object_get(
                json_object_get(json_object_get(res, "structuredContent"), "features"),
                "peer_sync");
            assert_true(cases[k].measured ? json_is_number(ps) : json_is_null(ps));
            json_decref(resp);
        }
        tool_fails(s, "classify_workload", "{\"trace\":\"two.csv\",\"peers\":\"some\"}",
                   "'peers' must be one of job, all, none");
    }
    tool_fails(s, "verify_audit_log", "{\"log_file\":\"log.jsonl\"}", "the server's directory");
    /* ... the server's setup at fault, not the client's arguments */
    {
        json_t *resp;
        json_t *res = call_tool(s, "verify_audit_log", "{\"log_file\":\"log.jsonl\"}", &resp);
        assert_true(is_error(res));
        assert_null(strstr(result_text(res), "Invalid arguments"));
        json_decref(resp);
    }
    snprintf(cmd, sizeof(cmd), "%s/log", tmpdir);
    assert_int_equal(mkdir(cmd, 0700), 0);
    tool_fails(s, "verify_audit_log", "{\"log_file\":\"../secret.jsonl\"}",
               "outside the directory");
    tool_fails(s, "verify_audit_log", "{\"log_file\":\"log.key\"}", "must name a .jsonl");
    tool_fails(s, "verify_audit_log", "{\"log_file\":\"/etc/passwd\"}", "must name a .jsonl");
    /* outside the root, a missing file and an existing one get the same answer */
    tool_fails(s, "verify_audit_log", "{\"log_file\":\"/tmp/../etc/x.jsonl\"}",
               "outside the directory");
    tool_fails(s, "classify_workload", "{\"trace\":\"/etc/no-such-file\"}",
               "outside the directory");
    tool_fails(s, "classify_workload", "{\"trace\":\"../no-such-file.csv\"}",
               "outside the directory");
    tool_fails(s, "classify_workload", "{\"trace\":\"/no-such-dir/x.csv\"}",
               "outside the directory");
    /* the directory's own log, and a log's side checkpoint, may not lead out
     * either (a parse error would quote the file they point to) */
    char link[400], side[420];
    snprintf(outside, sizeof(outside), "%s/secret.jsonl", tmpdir);
    snprintf(link, sizeof(link), "%s/log/log.jsonl", tmpdir);
    assert_int_equal(symlink(outside, link), 0);
    tool_fails(s, "verify_audit_log", "{}", "leads outside the directory");
    tool_fails(s, "recent_classifications", "{}", "leads outside the directory");
    assert_int_equal(unlink(link), 0);
    snprintf(link, sizeof(link), "%s/log/x.jsonl", tmpdir);
    f = fopen(link, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(side, sizeof(side), "%s.checkpoint", link);
    assert_int_equal(symlink(outside, side), 0);
    tool_fails(s, "verify_audit_log", "{\"log_file\":\"x.jsonl\"}", "leads outside the directory");
    assert_int_equal(unlink(side), 0);
    assert_int_equal(unlink(link), 0);
    wt_mcp_server_free(s);
    /* a --trace-dir gone since the start: the server's fault, not the
     * arguments' (it said "Invalid arguments: ...") */
    snprintf(cmd, sizeof(cmd), "%s/gone", tmpdir);
    s = new_server(cmd);
    const char *tools[] = {"classify_workload", "list_gpus"};
    for (int i = 0; i < 2; i++) {
        json_t *resp;
        json_t *res = call_tool(s, tools[i], "{\"trace\":\"x.csv\"}", &resp);
        assert_true(is_error(res));
        assert_non_null(strstr(result_text(res), "the server's directory"));
        assert_null(strstr(result_text(res), "Invalid arguments"));
        json_decref(resp);
    }
    wt_mcp_server_free(s);
}

/* A simulator profile without 'samples' gets a 30 s window (300 samples at
 * 10 Hz), as `classify` does: 10 samples were 1 s, every answer UNKNOWN.  The
 * Python tool's profiles keep its 10. */
static void simulator_profile_window(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    json_t *resp;
    json_t *res = call_tool(s, "classify_workload", "{\"profile\":\"dense-training\"}", &resp);
    assert_false(is_error(res));
    json_t *sc = json_object_get(res, "structuredContent");
    assert_int_equal(json_integer_value(json_object_get(sc, "sample_count")), 300);
    assert_string_equal(json_string_value(json_object_get(sc, "workload_type")), "TRAINING");
    json_decref(resp);
    res = call_tool(s, "check_declaration",
                    "{\"profile\":\"dense-training\",\"declared\":\"training\",\"windows\":1}",
                    &resp);
    assert_false(is_error(res));
    sc = json_object_get(res, "structuredContent");
    assert_string_equal(json_string_value(json_object_get(sc, "verdict")), "MATCH");
    json_decref(resp);
    res =
        call_tool(s, "classify_workload", "{\"profile\":\"dense-training\",\"samples\":20}", &resp);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(res, "structuredContent"),
                                                        "sample_count")),
                     20);
    json_decref(resp);
    res = call_tool(s, "classify_workload", "{\"profile\":\"training\"}", &resp);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(res, "structuredContent"),
                                                        "sample_count")),
                     10);
    json_decref(resp);
    wt_mcp_server_free(s);
}

/* A --log-dir whose name is not UTF-8: recent_classifications names it with
 * '?' for the bytes, as verify_audit_log does (the pack of the raw name
 * failed, and the call was a JSON-RPC "Internal error: out of memory"). */
static void log_dir_not_utf8(void **state)
{
    (void)state;
    static struct wt_mcp_server srv;
    struct wt_mcp_config cfg = {0};
    char dir[128];
    snprintf(dir, sizeof(dir), "%s/l\xff", tmpdir);
    cfg.backend = "synthetic";
    cfg.log_dir = dir;
    cfg.max_seconds = 300;
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(wt_mcp_server_init(&srv, &cfg), 0);
    json_t *resp;
    json_t *res =
        call_tool(&srv, "classify_workload",
                  "{\"profile\":\"idle\",\"samples\":20,\"write_to_audit_log\":true}", &resp);
    assert_false(is_error(res));
    json_decref(resp);
    res = call_tool(&srv, "recent_classifications", "{}", &resp);
    assert_false(is_error(res));
    json_t *sc = json_object_get(res, "structuredContent");
    assert_int_equal(json_array_size(json_object_get(sc, "classifications")), 1);
    const char *log = json_string_value(json_object_get(sc, "log"));
    assert_non_null(log);
    assert_non_null(strstr(log, "/l?/log.jsonl"));
    json_decref(resp);
    wt_mcp_server_free(&srv);
}

static void classify_then_read_the_log(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    json_t *resp;
    json_t *res = call_tool(s, "classify_workload",
                            "{\"profile\":\"inference\",\"samples\":20,\"write_to_audit_log\":true,"
                            "\"declared\":\"training\"}",
                            &resp);
    assert_false(is_error(res));
    json_t *sc = json_object_get(res, "structuredContent");
    assert_string_equal(json_string_value(json_object_get(sc, "workload_type")), "INFERENCE");
    assert_int_equal(json_integer_value(json_object_get(sc, "sample_count")), 20);
    assert_string_equal(json_string_value(json_object_get(sc, "verdict")), "MISMATCH");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(sc, "audit_log"), "seq")),
                     1);
    assert_int_equal(json_array_size(json_object_get(json_object_get(sc, "audit_log"), "warnings")),
                     0);
    /* the text copy is the same JSON */
    json_t *copy = json_loads(result_text(res), 0, NULL);
    assert_true(json_equal(copy, sc));
    json_decref(copy);
    json_decref(resp);

    res = call_tool(s, "verify_audit_log", "{}", &resp);
    sc = json_object_get(res, "structuredContent");
    assert_true(json_is_true(json_object_get(sc, "valid")));
    assert_int_equal(json_integer_value(json_object_get(sc, "entries")), 2);
    /* the advice is one an agent can follow (it said "pass --vkey to pin
     * it", an option the tool does not have) */
    const char *said = json_string_value(json_object_get(sc, "message"));
    assert_non_null(said);
    assert_non_null(strstr(said, "this tool takes no key: pin it with `workloadtruth verify-log"));
    assert_null(strstr(said, "pass --vkey"));
    json_decref(resp);
    res = call_tool(s, "verify_audit_log", "{\"log_file\":\"log.jsonl\"}", &resp);
    assert_true(json_is_true(json_object_get(json_object_get(res, "structuredContent"), "valid")));
    json_decref(resp);

    res = call_tool(s, "recent_classifications", "{\"limit\":5}", &resp);
    json_t *list = json_object_get(json_object_get(res, "structuredContent"), "classifications");
    assert_int_equal(json_array_size(list), 1);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(list, 0), "workload_type")), "INFERENCE");
    json_decref(resp);
    res = call_tool(s, "recent_classifications", "{\"gpu_index\":3}", &resp);
    list = json_object_get(json_object_get(res, "structuredContent"), "classifications");
    assert_int_equal(json_array_size(list), 0);
    json_decref(resp);
    /* a class record without the optional model and gpu_idx, its evidence a
     * digest (the spec's own example shape): listed, with nulls (it was left out) */
    {
        struct wt_log_paths lp;
        struct wt_log *l = NULL;
        struct wt_log_recovery rec;
        struct wt_err err = {{0}};
        uint64_t seq;
        char dir[160];
        snprintf(dir, sizeof(dir), "%s/log", tmpdir);
        assert_int_equal(wt_log_paths_dir(&lp, dir, &err), WT_OK);
        assert_int_equal(wt_log_open(&l, &lp, NULL, &rec, &err), WT_OK);
        json_t *f = json_pack("{s:s,s:s,s:i,s:s}", "gpu", "GPU-5a1c0f3e", "class", "training",
                              "conf_ppm", 973000, "evidence_sha256",
                              "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
        assert_int_equal(wt_log_append(l, WT_ENTRY_CLASS, f, &seq, &err), WT_OK);
        json_decref(f);
        assert_int_equal(wt_log_publish(l, &err), WT_OK);
        wt_log_close(l);
    }
    res = call_tool(s, "recent_classifications", "{}", &resp);
    list = json_object_get(json_object_get(res, "structuredContent"), "classifications");
    assert_int_equal(json_array_size(list), 2);
    json_t *newest = json_array_get(list, 0);
    assert_string_equal(json_string_value(json_object_get(newest, "workload_type")), "TRAINING");
    assert_true(json_is_null(json_object_get(newest, "model")));
    assert_true(json_is_null(json_object_get(newest, "gpu_index")));
    assert_true(json_is_null(json_object_get(newest, "evidence")));
    assert_non_null(json_string_value(json_object_get(newest, "evidence_sha256")));
    json_decref(resp);
    /* a line no signed checkpoint covers (appended, not published: anyone who
     * can write the file could have written it) is not listed as the log's */
    {
        struct wt_log_paths lp;
        struct wt_log *l = NULL;
        struct wt_err err = {{0}};
        char dir[160];
        snprintf(dir, sizeof(dir), "%s/log", tmpdir);
        assert_int_equal(wt_log_paths_dir(&lp, dir, &err), WT_OK);
        assert_int_equal(wt_log_open(&l, &lp, NULL, NULL, &err), WT_OK);
        json_t *f = json_pack("{s:s,s:i,s:s,s:i}", "gpu", "GPU-forged", "gpu_idx", 0, "class",
                              "idle", "conf_ppm", 990000);
        assert_int_equal(wt_log_append(l, WT_ENTRY_CLASS, f, NULL, &err), WT_OK);
        json_decref(f);
        wt_log_close(l);
    }
    res = call_tool(s, "recent_classifications", "{}", &resp);
    sc = json_object_get(res, "structuredContent");
    list = json_object_get(sc, "classifications");
    assert_int_equal(json_array_size(list), 2);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(list, 0), "workload_type")), "TRAINING");
    assert_int_equal(json_integer_value(json_object_get(sc, "unsigned_skipped")), 1);
    json_decref(resp);
    /* appending signs that line: the result says so (nobody reads the
     * server's stderr), as `watch` would on its stderr */
    res = call_tool(s, "classify_workload",
                    "{\"profile\":\"idle\",\"samples\":20,\"write_to_audit_log\":true}", &resp);
    assert_false(is_error(res));
    json_t *warn = json_object_get(
        json_object_get(json_object_get(res, "structuredContent"), "audit_log"), "warnings");
    assert_int_equal(json_array_size(warn), 1);
    assert_non_null(
        strstr(json_string_value(json_array_get(warn, 0)), "which no signed checkpoint covered"));
    json_decref(resp);

    res = call_tool(s, "check_declaration",
                    "{\"backend\":\"synthetic\",\"profile\":\"training\",\"declared\":"
                    "\"training\",\"windows\":3}",
                    &resp);
    sc = json_object_get(res, "structuredContent");
    assert_string_equal(json_string_value(json_object_get(sc, "verdict")), "MATCH");
    assert_int_equal(json_array_size(json_object_get(sc, "window_types")), 3);
    json_decref(resp);

    res = call_tool(s, "run_benchmark", "{\"trials\":3,\"window\":10,\"seed\":1}", &resp);
    assert_false(is_error(res));
    assert_non_null(json_object_get(json_object_get(res, "structuredContent"), "clean_accuracy"));
    json_decref(resp);

    /* the log deleted, its checkpoint file left: truncated, as verify-log
     * says (it was "no audit log", which a client reads as none started) */
    {
        char logp[200], kept[210];
        snprintf(logp, sizeof(logp), "%s/log/log.jsonl", tmpdir);
        snprintf(kept, sizeof(kept), "%s.kept", logp);
        assert_int_equal(rename(logp, kept), 0);
        res = call_tool(s, "verify_audit_log", "{}", &resp);
        assert_false(is_error(res));
        sc = json_object_get(res, "structuredContent");
        assert_string_equal(json_string_value(json_object_get(sc, "damage")), "truncated");
        json_decref(resp);
        /* a symbolic link to itself in its place: gone too, as verify-log
         * reads it (it was a tool error, "Too many levels of symbolic links") */
        assert_int_equal(symlink("log.jsonl", logp), 0);
        res = call_tool(s, "verify_audit_log", "{}", &resp);
        assert_false(is_error(res));
        sc = json_object_get(res, "structuredContent");
        assert_string_equal(json_string_value(json_object_get(sc, "damage")), "truncated");
        json_decref(resp);
        assert_int_equal(unlink(logp), 0);
        assert_int_equal(rename(kept, logp), 0);
    }
    /* the log replaced by one made with another key (its checkpoint file
     * left): wrong-key damage, and none of its records listed (the other
     * key's signed records were listed as the log's) */
    {
        struct wt_log_paths lp;
        struct wt_log *l = NULL;
        struct wt_err err = {{0}};
        char dir[160], vkey[256], from[200], to[200];
        snprintf(dir, sizeof(dir), "%s/otherkey", tmpdir);
        assert_int_equal(wt_log_paths_dir(&lp, dir, &err), WT_OK);
        assert_int_equal(wt_log_init(&lp, NULL, NULL, NULL, vkey, sizeof(vkey), &err), WT_OK);
        assert_int_equal(wt_log_open(&l, &lp, NULL, NULL, &err), WT_OK);
        json_t *f = json_pack("{s:s,s:i,s:s,s:i}", "gpu", "GPU-other", "gpu_idx", 0, "class",
                              "idle", "conf_ppm", 990000);
        assert_int_equal(wt_log_append(l, WT_ENTRY_CLASS, f, NULL, &err), WT_OK);
        json_decref(f);
        assert_int_equal(wt_log_seal(l, &err), WT_OK); /* a checkpoint record signs it */
        wt_log_close(l);
        snprintf(from, sizeof(from), "%s/otherkey/log.jsonl", tmpdir);
        snprintf(to, sizeof(to), "%s/log/log.jsonl", tmpdir);
        FILE *in = fopen(from, "rb"), *outf = fopen(to, "wb");
        assert_non_null(in);
        assert_non_null(outf);
        char b[4096];
        size_t k;
        while ((k = fread(b, 1, sizeof(b), in)) > 0)
            assert_int_equal(fwrite(b, 1, k, outf), k);
        fclose(in);
        assert_int_equal(fclose(outf), 0);
    }
    res = call_tool(s, "recent_classifications", "{}", &resp);
    assert_false(is_error(res));
    sc = json_object_get(res, "structuredContent");
    assert_true(json_is_false(json_object_get(json_object_get(sc, "verified"), "valid")));
    assert_int_equal(json_array_size(json_object_get(sc, "classifications")), 0);
    json_decref(resp);
    wt_mcp_server_free(s);
}

/* Appends n class records (each with 4 KB of evidence) to the log in dir,
 * sealed every 100, then publishes its checkpoint. */
static void append_big(const char *dir, int n, const char *cls)
{
    struct wt_log_paths lp;
    struct wt_log *l = NULL;
    struct wt_err err = {{0}};
    char pad[251];
    memset(pad, 'x', sizeof(pad) - 1);
    pad[sizeof(pad) - 1] = '\0';
    assert_int_equal(wt_log_paths_dir(&lp, dir, &err), WT_OK);
    if (access(lp.log, F_OK) != 0) {
        char vkey[256];
        assert_int_equal(wt_log_init(&lp, NULL, NULL, NULL, vkey, sizeof(vkey), &err), WT_OK);
    }
    assert_int_equal(wt_log_open(&l, &lp, NULL, NULL, &err), WT_OK);
    for (int i = 0; i < n; i++) {
        json_t *ev = json_object();
        for (int k = 0; k < 16; k++) {
            char key[8];
            snprintf(key, sizeof(key), "p%d", k);
            json_object_set_new(ev, key, json_string(pad));
        }
        json_t *f = json_pack("{s:s,s:i,s:s,s:i,s:o}", "gpu", "GPU-big", "gpu_idx", 0, "class", cls,
                              "conf_ppm", 900000 + i, "evidence", ev);
        if (wt_log_append(l, WT_ENTRY_CLASS, f, NULL, &err) != WT_OK)
            fail_msg("%s", err.msg);
        json_decref(f);
        if (i % 100 == 99) /* a checkpoint record now and then, as watch writes */
            assert_int_equal(wt_log_seal(l, &err), WT_OK);
    }
    assert_int_equal(wt_log_publish(l, &err), WT_OK);
    wt_log_close(l);
}

/* Flips a byte of the log in place at offset off (from its end when < 0). */
static void flip_byte(const char *path, long off)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, off, off < 0 ? SEEK_END : SEEK_SET), 0);
    int c = fgetc(f);
    assert_true(c != EOF);
    assert_int_equal(fseek(f, -1, SEEK_CUR), 0);
    fputc(c == 'x' ? 'y' : c == 'y' ? 'x' : c ^ 1, f);
    assert_int_equal(fclose(f), 0);
}

/* recent_classifications reads a long log whole once, then from 4 MiB
 * before its end: every line it lists is read by that call (an appended
 * record is listed, one changed in place there is damage), and the count
 * of lines verified by an earlier call is in the result; a change in place
 * before that point is for verify_audit_log to find (documented). */
static void recent_resumes_verification(void **state)
{
    (void)state;
    static struct wt_mcp_server srv;
    struct wt_mcp_config cfg = {0};
    char dir[128], log[160], copy[170];
    snprintf(dir, sizeof(dir), "%s/big", tmpdir);
    snprintf(log, sizeof(log), "%s/log.jsonl", dir);
    cfg.backend = "synthetic";
    cfg.log_dir = dir;
    cfg.max_seconds = 300;
    append_big(dir, 1300, "training"); /* ~5.3 MB */
    assert_int_equal(wt_mcp_server_init(&srv, &cfg), 0);
    struct wt_mcp_server *s = &srv;
    json_t *resp, *first = NULL;
    long long earlier = 0;
    for (int call = 0; call < 2; call++) {
        json_t *res = call_tool(s, "recent_classifications", "{\"limit\":100}", &resp);
        json_t *sc = json_object_get(res, "structuredContent");
        assert_true(json_is_true(json_object_get(json_object_get(sc, "verified"), "valid")));
        earlier = json_integer_value(json_object_get(sc, "verified_by_earlier_call"));
        assert_int_equal(json_array_size(json_object_get(sc, "classifications")), 100);
        if (call == 0) {
            assert_int_equal(earlier, 0);
            first = json_deep_copy(sc);
        } else {
            /* the same answer, the first ~4 MiB not read again */
            assert_true(earlier > 200 && earlier < 1300);
            json_object_del(first, "verified_by_earlier_call");
            json_object_del(sc, "verified_by_earlier_call");
            assert_true(json_equal(first, sc));
        }
        json_decref(resp);
    }
    json_decref(first);
    /* records appended since: verified and listed */
    append_big(dir, 2, "inference");
    json_t *res = call_tool(s, "recent_classifications", "{\"limit\":3}", &resp);
    json_t *sc = json_object_get(res, "structuredContent");
    assert_true(json_is_true(json_object_get(json_object_get(sc, "verified"), "valid")));
    assert_true(json_integer_value(json_object_get(sc, "verified_by_earlier_call")) >= earlier);
    json_t *list = json_object_get(sc, "classifications");
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(list, 0), "workload_type")), "INFERENCE");
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(list, 2), "workload_type")), "TRAINING");
    json_decref(resp);
    /* a byte of line 3 changed in place: not read again by this call (it
     * says how many lines were verified earlier); verify_audit_log sees it */
    flip_byte(log, 3000 * 2 + 4000);
    res = call_tool(s, "recent_classifications", "{}", &resp);
    sc = json_object_get(res, "structuredContent");
    assert_true(json_is_true(json_object_get(json_object_get(sc, "verified"), "valid")));
    assert_true(json_integer_value(json_object_get(sc, "verified_by_earlier_call")) > 0);
    json_decref(resp);
    res = call_tool(s, "verify_audit_log", "{}", &resp);
    assert_true(json_is_false(json_object_get(json_object_get(res, "structuredContent"), "valid")));
    json_decref(resp);
    flip_byte(log, 3000 * 2 + 4000); /* put back */
    /* the last record's evidence changed in place: read again, damage, as
     * verify_audit_log finds it */
    flip_byte(log, -300);
    res = call_tool(s, "recent_classifications", "{}", &resp);
    json_t *ver =
        json_incref(json_object_get(json_object_get(res, "structuredContent"), "verified"));
    json_decref(resp);
    assert_true(json_is_false(json_object_get(ver, "valid")));
    res = call_tool(s, "verify_audit_log", "{}", &resp);
    assert_true(json_equal(ver, json_object_get(res, "structuredContent")));
    json_decref(resp);
    json_decref(ver);
    flip_byte(log, -300);
    /* another file put in its place: read whole */
    snprintf(copy, sizeof(copy), "%s/copy", dir);
    {
        FILE *in = fopen(log, "rb"), *o = fopen(copy, "wb");
        assert_non_null(in);
        assert_non_null(o);
        char b[1 << 14];
        size_t k;
        while ((k = fread(b, 1, sizeof(b), in)) > 0)
            assert_int_equal(fwrite(b, 1, k, o), k);
        fclose(in);
        assert_int_equal(fclose(o), 0);
        assert_int_equal(rename(copy, log), 0);
    }
    res = call_tool(s, "recent_classifications", "{}", &resp);
    sc = json_object_get(res, "structuredContent");
    assert_true(json_is_true(json_object_get(json_object_get(sc, "verified"), "valid")));
    assert_int_equal(json_integer_value(json_object_get(sc, "verified_by_earlier_call")), 0);
    json_decref(resp);
    /* the log cut where the kept state is: the call lists what a fresh
     * server lists (it listed nothing: the lines before were not read) */
    res = call_tool(s, "recent_classifications", "{}", &resp);
    earlier = json_integer_value(
        json_object_get(json_object_get(res, "structuredContent"), "verified_by_earlier_call"));
    json_decref(resp);
    assert_true(earlier > 0);
    {
        FILE *f = fopen(log, "rb");
        assert_non_null(f);
        long long nl = 0, off = 0;
        int ch;
        while (nl < earlier && (ch = fgetc(f)) != EOF) {
            off++;
            nl += ch == '\n';
        }
        fclose(f);
        assert_int_equal(truncate(log, (off_t)off), 0);
    }
    static struct wt_mcp_server fresh;
    assert_int_equal(wt_mcp_server_init(&fresh, &cfg), 0);
    json_t *resp2;
    res = call_tool(s, "recent_classifications", "{}", &resp);
    json_t *res2 = call_tool(&fresh, "recent_classifications", "{}", &resp2);
    sc = json_object_get(res, "structuredContent");
    json_t *sc2 = json_object_get(res2, "structuredContent");
    assert_true(json_is_false(json_object_get(json_object_get(sc, "verified"), "valid")));
    assert_true(json_array_size(json_object_get(sc2, "classifications")) > 0);
    json_object_del(sc, "verified_by_earlier_call");
    json_object_del(sc2, "verified_by_earlier_call");
    assert_true(json_equal(sc, sc2));
    json_decref(resp);
    json_decref(resp2);
    wt_mcp_server_free(&fresh);
    wt_mcp_server_free(s);
}

struct collected {
    double progress[16];
    int n;
};

static void collect(void *ctx, json_t *n)
{
    struct collected *c = ctx;
    json_t *p = json_object_get(n, "params");
    assert_string_equal(json_string_value(json_object_get(n, "method")), "notifications/progress");
    assert_string_equal(json_string_value(json_object_get(p, "progressToken")), "tok");
    if (c->n < 16)
        c->progress[c->n++] = json_number_value(json_object_get(p, "progress"));
    json_decref(n);
}

struct cancel_on_first {
    atomic_int cancel;
    int n;
};

static void cancel_on_first(void *ctx, json_t *n)
{
    struct cancel_on_first *c = ctx;
    c->n++;
    c->cancel = 1;
    json_decref(n);
}

static void progress_increases(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    struct collected c = {{0}, 0};
    struct wt_mcp_call call = {collect, &c, NULL};
    struct wt_mcp_session sess = {1, 1, "2025-11-25"};
    json_t *r = ask_in(s, &sess,
                       "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                       "\"name\":\"check_declaration\",\"arguments\":{\"declared\":\"idle\"},"
                       "\"_meta\":{\"progressToken\":\"tok\"}}}",
                       &call);
    assert_false(is_error(json_object_get(r, "result")));
    assert_true(c.n >= 3);
    for (int i = 1; i < c.n; i++)
        assert_true(c.progress[i] > c.progress[i - 1]);
    json_decref(r);
    /* a cancelled call says so (the stdio and HTTP transports then drop it),
     * and sends no progress on its token, no longer active */
    atomic_int cancel = 1;
    struct wt_mcp_call cancelled = {collect, &c, &cancel};
    c.n = 0;
    r = ask_in(s, &sess,
               "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"classify_workload\",\"arguments\":{},\"_meta\":{\"progressToken\":\"tok\"}}}",
               &cancelled);
    assert_true(is_error(json_object_get(r, "result")));
    assert_string_equal(result_text(json_object_get(r, "result")), "cancelled");
    assert_int_equal(c.n, 0);
    json_decref(r);
    /* cancelled after its first progress notification: no more follow */
    struct cancel_on_first cf = {0, 0};
    struct wt_mcp_call cancelled_later = {cancel_on_first, &cf, &cf.cancel};
    r = ask_in(s, &sess,
               "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"run_benchmark\",\"arguments\":{\"suite\":\"evasion\",\"trials\":1},"
               "\"_meta\":{\"progressToken\":\"tok\"}}}",
               &cancelled_later);
    assert_int_equal(cf.n, 1);
    json_decref(r);
    /* no token, no notifications */
    c.n = 0;
    r = ask_in(s, &sess,
               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"classify_workload\",\"arguments\":{}}}",
               &call);
    assert_int_equal(c.n, 0);
    json_decref(r);
    /* each notification repeats the token: a long one is refused, not
     * copied into every one of them (a 4 MiB token: ~90 MB per call) */
    char *req = malloc(600);
    assert_non_null(req);
    for (int len = 256; len <= 257; len++) {
        int off = snprintf(req, 600,
                           "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
                           "\"name\":\"list_gpus\",\"arguments\":{\"backend\":\"synthetic\"},"
                           "\"_meta\":{\"progressToken\":\"");
        memset(req + off, 't', (size_t)len);
        snprintf(req + off + len, 600 - (size_t)(off + len), "\"}}}");
        r = ask_in(s, &sess, req, &call);
        if (len == 256)
            assert_false(is_error(json_object_get(r, "result")));
        else
            assert_int_equal(error_code(r), WT_RPC_INVALID_PARAMS);
        json_decref(r);
    }
    free(req);
    wt_mcp_server_free(s);
}

/* --- stdio ------------------------------------------------------------------------------ */

struct served {
    struct wt_mcp_server *s;
    int in, out;
};

static void *serve(void *arg)
{
    struct served *x = arg;
    wt_mcp_serve_stdio(x->s, x->in, x->out);
    close(x->out);
    return NULL;
}

static void write_all(int fd, const char *buf, size_t n)
{
    while (n) {
        ssize_t k = write(fd, buf, n);
        assert_true(k > 0);
        buf += k;
        n -= (size_t)k;
    }
}

/* Serves s over a pair of pipes on a thread: write requests to to[1], read
 * the answers from the returned stream. */
static FILE *stdio_start(struct wt_mcp_server *s, int to[2], struct served *x, pthread_t *th)
{
    int from[2];
    assert_int_equal(pipe(to), 0);
    assert_int_equal(pipe(from), 0);
    *x = (struct served){s, to[0], from[1]};
    assert_int_equal(pthread_create(th, NULL, serve, x), 0);
    FILE *rd = fdopen(from[0], "r");
    assert_non_null(rd);
    return rd;
}

static void stdio_transport(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    int to[2];
    struct served x;
    pthread_t th;
    FILE *rd = stdio_start(s, to, &x, &th);
    /* one request per line, CRLF and blank lines tolerated */
    const char *a = "\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n  \n";
    write_all(to[1], a, strlen(a));
    char *line = NULL;
    size_t cap = 0;
    assert_true(getline(&line, &cap, rd) > 0);
    assert_string_equal(line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    /* an oversized line is answered with an error, and the next one still works */
    size_t n = WT_RPC_MAX_MESSAGE + 100;
    char *big = malloc(n + 1);
    assert_non_null(big);
    memset(big, 'x', n);
    big[n] = '\n';
    write_all(to[1], big, n + 1);
    free(big);
    assert_true(getline(&line, &cap, rd) > 0);
    json_t *r = json_loads(line, 0, NULL);
    assert_int_equal(error_code(r), WT_RPC_INVALID_REQUEST);
    json_decref(r);
    /* a request cancelled before it runs gets no response; the next one does
     * (tools/list: a ping would be answered at once, ahead of the others) */
    /* clang-format off */
    const char *b =
        BUSY(2, 30) "\n"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"run_benchmark\",\"arguments\":{\"trials\":200}}}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
        "3,\"reason\":\"test\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}\n";
    /* clang-format on */
    write_all(to[1], b, strlen(b));
    int seen2 = 0, seen3 = 0, seen4 = 0;
    while (!seen4 && getline(&line, &cap, rd) > 0) {
        r = json_loads(line, 0, NULL);
        json_int_t id = json_integer_value(json_object_get(r, "id"));
        if (id == 2)
            assert_busy_done(r);
        seen2 |= id == 2;
        seen3 |= id == 3;
        seen4 |= id == 4;
        json_decref(r);
    }
    assert_true(seen2);
    assert_false(seen3);
    assert_true(seen4);
    /* an invalid notification is never answered: the next line's answer comes first */
    const char *c = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":[]}\n"
                    "{\"jsonrpc\":\"2.0\",\"method\":\"\"}\n"
                    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n";
    write_all(to[1], c, strlen(c));
    assert_true(getline(&line, &cap, rd) > 0);
    assert_string_equal(line, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n");
    /* a batch before initialize is refused; after initialize at 2025-03-26
     * it is answered with one array, in order */
    const char *d = "[{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}]\n"
                    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":{"
                    "\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{"
                    "\"name\":\"t\",\"version\":\"1\"}}}\n"
                    "[{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"},"
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
                    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}]\n";
    write_all(to[1], d, strlen(d));
    assert_true(getline(&line, &cap, rd) > 0);
    r = json_loads(line, 0, NULL);
    assert_int_equal(error_code(r), WT_RPC_INVALID_REQUEST);
    json_decref(r);
    assert_true(getline(&line, &cap, rd) > 0);
    r = json_loads(line, 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 7);
    json_decref(r);
    assert_true(getline(&line, &cap, rd) > 0);
    assert_string_equal(line, "[{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}},"
                              "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}]\n");
    /* batch elements cancelled while running (10) or before starting (11)
     * are not answered; a cancel inside a batch does not reach a request sent
     * after it (14).  11's cancel comes first: sent after 10's, the reader
     * could be preempted between the two lines while 10 stopped and 11 ran */
    /* clang-format off */
    const char *e =
        "[" BUSY(10, 600) ","
        "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"},"
        "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"}]\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
        "11}}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
        "10}}\n"
        "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
        "14}},{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}]\n"
        "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/list\"}\n";
    /* clang-format on */
    write_all(to[1], e, strlen(e));
    assert_true(getline(&line, &cap, rd) > 0);
    assert_string_equal(line, "[{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{}}]\n");
    assert_true(getline(&line, &cap, rd) > 0);
    assert_string_equal(line, "[{\"jsonrpc\":\"2.0\",\"id\":13,\"result\":{}}]\n");
    assert_true(getline(&line, &cap, rd) > 0);
    r = json_loads(line, 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 14);
    assert_non_null(json_object_get(json_object_get(r, "result"), "tools"));
    json_decref(r);
    /* an oversized last line without a newline is answered at end of input */
    big = malloc(n);
    assert_non_null(big);
    memset(big, 'x', n);
    write_all(to[1], big, n);
    free(big);
    /* end of input ends the server */
    close(to[1]);
    assert_true(getline(&line, &cap, rd) > 0);
    r = json_loads(line, 0, NULL);
    assert_int_equal(error_code(r), WT_RPC_INVALID_REQUEST);
    json_decref(r);
    assert_int_equal(getline(&line, &cap, rd), -1);
    pthread_join(th, NULL);
    free(line);
    fclose(rd);
    close(to[0]);
    wt_mcp_server_free(s);
}

/* Standard input and output left non-blocking by the client (O_NONBLOCK on
 * the pipes): EAGAIN is waited out.  Reading none yet was taken for the end
 * of input (exit 0, nothing answered), and a full output pipe for a closed
 * one (6 of 20 answers, the last cut in the middle). */
static void stdio_nonblocking(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    int to[2], from[2];
    assert_int_equal(pipe(to), 0);
    assert_int_equal(pipe(from), 0);
    assert_int_equal(fcntl(to[0], F_SETFL, fcntl(to[0], F_GETFL) | O_NONBLOCK), 0);
    assert_int_equal(fcntl(from[1], F_SETFL, fcntl(from[1], F_GETFL) | O_NONBLOCK), 0);
    struct served x = {s, to[0], from[1]};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, serve, &x), 0);
    FILE *rd = fdopen(from[0], "r");
    assert_non_null(rd);
    struct timespec pause = {0, 300000000L};
    nanosleep(&pause, NULL); /* nothing to read yet */
    for (int i = 1; i <= 20; i++) {
        char req[128];
        int k = snprintf(req, sizeof(req),
                         "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}\n", i);
        write_all(to[1], req, (size_t)k);
    }
    nanosleep(&pause, NULL); /* the answers fill the pipe meanwhile */
    char *line = NULL;
    size_t cap = 0;
    for (int i = 1; i <= 20; i++) {
        assert_true(getline(&line, &cap, rd) > 0);
        json_t *r = json_loads(line, 0, NULL);
        assert_non_null(r);
        assert_int_equal(json_integer_value(json_object_get(r, "id")), i);
        assert_non_null(json_object_get(json_object_get(r, "result"), "tools"));
        json_decref(r);
    }
    close(to[1]);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_true(getline(&line, &cap, rd) < 0); /* then the end */
    free(line);
    fclose(rd);
    close(to[0]);
    wt_mcp_server_free(s);
}

/* A ping is answered as soon as it is read, ahead of a tool call that is
 * running (MCP: the receiver must respond promptly); the call's answer
 * follows. */
static void stdio_ping_is_prompt(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    int to[2];
    struct served x;
    pthread_t th;
    FILE *rd = stdio_start(s, to, &x, &th);
    const char *a = BUSY(1, 30) "\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
    write_all(to[1], a, strlen(a));
    char *line = NULL;
    size_t cap = 0;
    assert_true(getline(&line, &cap, rd) > 0);
    assert_string_equal(line, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
    assert_true(getline(&line, &cap, rd) > 0);
    json_t *r = json_loads(line, 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 1);
    assert_busy_done(r);
    json_decref(r);
    close(to[1]);
    assert_int_equal(getline(&line, &cap, rd), -1);
    pthread_join(th, NULL);
    free(line);
    fclose(rd);
    close(to[0]);
    wt_mcp_server_free(s);
}

struct served_rc {
    struct wt_mcp_server *s;
    int in, out, rc;
};

static void *serve_rc(void *arg)
{
    struct served_rc *x = arg;
    x->rc = wt_mcp_serve_stdio(x->s, x->in, x->out);
    close(x->out);
    return NULL;
}

/* Serves `input`, ends the input, and 0.3 s later closes the output's read
 * end; returns the seconds from the input's end to the server's return,
 * with its status in *rc. */
static double stop_when_output_goes(struct wt_mcp_server *s, const char *input, int *rc)
{
    int to[2], from[2];
    assert_int_equal(pipe(to), 0);
    assert_int_equal(pipe(from), 0);
    struct served_rc x = {s, to[0], from[1], -1};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, serve_rc, &x), 0);
    write_all(to[1], input, strlen(input));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    close(to[1]);
    nanosleep(&(struct timespec){0, 300000000L}, NULL); /* the first call is running */
    close(from[0]);
    pthread_join(th, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(to[0]);
    *rc = x.rc;
    return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

/* Input ended and the output's reader gone: nothing can be answered, so the
 * call in progress is cancelled and the queued one dropped (they ran to
 * their end, 60 s and more here, before the write failed), and the server
 * says so (1). */
static void stdio_output_gone(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    int rc;
    double took = stop_when_output_goes(s, BUSY(1, 600) "\n" BUSY(2, 600) "\n", &rc);
    if (took > 20)
        fail_msg("the server took %.1f s to stop", took);
    assert_int_equal(rc, 1);
    /* the same during a batch (2025-03-26): its elements not started are
     * skipped (they ran, 60 s each, after the first was cancelled) */
    /* clang-format off */
    const char *b =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{"
        "\"name\":\"t\",\"version\":\"1\"}}}\n"
        "[" BUSY(2, 600) "," BUSY(3, 600) "," BUSY(4, 600) "]\n";
    /* clang-format on */
    took = stop_when_output_goes(s, b, &rc);
    if (took > 20)
        fail_msg("the server took %.1f s to stop a batch", took);
    assert_int_equal(rc, 1);
    /* every answer read, then standard output closed: no failure (0) */
    int to[2], from[2];
    assert_int_equal(pipe(to), 0);
    assert_int_equal(pipe(from), 0);
    struct served_rc x = {s, to[0], from[1], -1};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, serve_rc, &x), 0);
    const char *c = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}\n";
    write_all(to[1], c, strlen(c));
    FILE *rd = fdopen(from[0], "r");
    assert_non_null(rd);
    char *line = NULL;
    size_t cap = 0;
    assert_true(getline(&line, &cap, rd) > 0);
    free(line);
    fclose(rd);
    close(to[1]);
    pthread_join(th, NULL);
    assert_int_equal(x.rc, 0);
    close(to[0]);
    wt_mcp_server_free(s);
}

/* Messages read ahead of the one running: a batch read before the
 * initialize queued ahead of it has run still has its cancels applied at
 * once (the session it will run in allows batches), and a line of exactly
 * the largest message followed by CRLF is served. */
static void stdio_reads_ahead(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    int to[2];
    struct served x;
    pthread_t th;
    FILE *rd = stdio_start(s, to, &x, &th);
    /* clang-format off */
    const char *a =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{"
        "\"name\":\"t\",\"version\":\"1\"}}}\n"
        BUSY(2, 30) "\n"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n"
        "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
        "\"requestId\":3}}]\n"
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}\n";
    /* clang-format on */
    write_all(to[1], a, strlen(a));
    char *line = NULL;
    size_t cap = 0;
    json_int_t ids[3] = {0};
    for (int i = 0; i < 3; i++) {
        assert_true(getline(&line, &cap, rd) > 0);
        json_t *r = json_loads(line, 0, NULL);
        ids[i] = json_integer_value(json_object_get(r, "id"));
        if (ids[i] == 2)
            assert_busy_done(r);
        json_decref(r);
    }
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], 2);
    assert_int_equal(ids[2], 4); /* 3 was cancelled */
    /* WT_RPC_MAX_MESSAGE bytes, then CRLF */
    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"";
    size_t n = WT_RPC_MAX_MESSAGE;
    char *big = malloc(n + 2);
    assert_non_null(big);
    memset(big, ' ', n);
    memcpy(big, head, strlen(head));
    big[n - 1] = '}';
    big[n] = '\r';
    big[n + 1] = '\n';
    write_all(to[1], big, n + 2);
    free(big);
    assert_true(getline(&line, &cap, rd) > 0);
    assert_string_equal(line, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n");
    /* a cancel inside a batch does not reach the batch's own requests */
    const char *b = "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                    "\"requestId\":6}},{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}]\n";
    write_all(to[1], b, strlen(b));
    assert_true(getline(&line, &cap, rd) > 0);
    assert_string_equal(line, "[{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}]\n");
    close(to[1]);
    assert_int_equal(getline(&line, &cap, rd), -1);
    pthread_join(th, NULL);
    free(line);
    fclose(rd);
    close(to[0]);
    wt_mcp_server_free(s);
}

/* A cancel of an initialize, queued (here) or running, is ignored (MCP
 * forbids it): a batch read after it was judged by the session it opens, and
 * the batch's cancels had acted on that; dropped, the batch was refused after
 * its cancels ran. */
static void stdio_initialize_not_cancelled(void **state)
{
    (void)state;
    struct wt_mcp_server *s = new_server(NULL);
    int to[2];
    struct served x;
    pthread_t th;
    FILE *rd = stdio_start(s, to, &x, &th);
    /* clang-format off */
    const char *a =
        BUSY(0, 30) "\n"
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{"
        "\"name\":\"t\",\"version\":\"1\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
        "\"requestId\":1}}\n"
        "[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]\n";
    /* clang-format on */
    write_all(to[1], a, strlen(a));
    close(to[1]);
    char *line = NULL;
    size_t cap = 0;
    assert_true(getline(&line, &cap, rd) > 0);
    json_t *r = json_loads(line, 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 0);
    assert_busy_done(r);
    json_decref(r);
    assert_true(getline(&line, &cap, rd) > 0);
    r = json_loads(line, 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 1);
    json_decref(r);
    assert_true(getline(&line, &cap, rd) > 0);
    assert_string_equal(line, "[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]\n");
    assert_int_equal(getline(&line, &cap, rd), -1);
    pthread_join(th, NULL);
    free(line);
    fclose(rd);
    close(to[0]);
    wt_mcp_server_free(s);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/wt_mcp_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_kinds),
        cmocka_unit_test(errors_keep_the_id),
        cmocka_unit_test(oversized_message),
        cmocka_unit_test(live_sampling_deadline),
        cmocka_unit_test(waiting_call_cancelled),
        cmocka_unit_test(bad_arguments_do_not_wait),
        cmocka_unit_test(invalid_notifications),
        cmocka_unit_test(too_many_values),
        cmocka_unit_test(dump_is_one_line),
        cmocka_unit_test(legacy_initialize),
        cmocka_unit_test(modern_requests),
        cmocka_unit_test(batches),
        cmocka_unit_test(tools_are_described),
        cmocka_unit_test(unknown_tool_is_a_protocol_error),
        cmocka_unit_test(bad_arguments_are_tool_errors),
        cmocka_unit_test(files_stay_inside_their_directories),
        cmocka_unit_test(simulator_profile_window),
        cmocka_unit_test(classify_then_read_the_log),
        cmocka_unit_test(log_dir_not_utf8),
        cmocka_unit_test(recent_resumes_verification),
        cmocka_unit_test(progress_increases),
        cmocka_unit_test(stdio_transport),
        cmocka_unit_test(stdio_nonblocking),
        cmocka_unit_test(stdio_reads_ahead),
        cmocka_unit_test(stdio_ping_is_prompt),
        cmocka_unit_test(stdio_output_gone),
        cmocka_unit_test(stdio_initialize_not_cancelled),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
