/* JSON-RPC 2.0 framing for MCP (see jsonrpc.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "mcp/jsonrpc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

static void invalid(struct wt_rpc_msg *m, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void invalid(struct wt_rpc_msg *m, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->error_message, sizeof(m->error_message), fmt, ap);
    va_end(ap);
    m->kind = WT_RPC_INVALID;
    m->error_code = code;
    m->method = NULL;
    m->params = NULL;
}

void wt_rpc_free(struct wt_rpc_msg *m)
{
    if (m->root)
        json_decref(m->root);
    memset(m, 0, sizeof(*m));
}

/* Counts the values a message would parse into (an upper bound: '[', '{'
 * and ',' outside strings, plus one), without parsing it. */
static size_t count_values(const char *buf, size_t len)
{
    size_t n = 1;
    int in_str = 0, esc = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = buf[i];
        if (in_str) {
            if (esc)
                esc = 0;
            else if (ch == '\\')
                esc = 1;
            else if (ch == '"')
                in_str = 0;
        } else if (ch == '"')
            in_str = 1;
        else if (ch == '[' || ch == '{' || ch == ',')
            n++;
    }
    return n;
}

static void classify(struct wt_rpc_msg *m);

/* A notification, invalid or not, is never answered: a message with
 * "jsonrpc": "2.0", a string method and no id (mcp.md).  One without them
 * is an invalid request, answered with id null, also when another fault
 * (a NUL) is found first. */
static int is_notification(const json_t *r, const json_t *id)
{
    const json_t *v = json_object_get(r, "jsonrpc");
    return !id && json_is_string(v) && !strcmp(json_string_value(v), "2.0") &&
           json_is_string(json_object_get(r, "method"));
}

/* A copy of buf (len bytes, parsed but for numbers jansson cannot hold) in
 * which, outside strings, each integer beyond 64 bits is written as a real
 * ("e0" appended), and each number beyond a double's range (a 400-digit
 * integer, 1e400) as +-1e308: jansson then reads them as reals and every
 * other number as written (an id of 2^60 stays exact, and 2.0 stays a
 * real), so the message keeps its id and a tool refuses the value by name.
 * NULL when out of memory. */
static char *big_ints_as_reals(const char *buf, size_t len, size_t *out_len)
{
    /* an integer beyond 64 bits has at least 19 digits: at most len / 10
     * insertions of 2 bytes; a number beyond a double is written shorter */
    char *out = malloc(len + len / 5 + 3);
    if (!out)
        return NULL;
    size_t o = 0;
    int in_str = 0, esc = 0;
    for (size_t i = 0; i < len;) {
        char ch = buf[i];
        if (in_str || (ch != '-' && !(ch >= '0' && ch <= '9'))) {
            if (in_str && esc)
                esc = 0;
            else if (in_str && ch == '\\')
                esc = 1;
            else if (ch == '"')
                in_str = !in_str;
            out[o++] = ch;
            i++;
            continue;
        }
        size_t k = i + (ch == '-');
        while (k < len && buf[k] >= '0' && buf[k] <= '9')
            k++;
        size_t end = k; /* the whole number: digits, then a real's fraction and exponent */
        while (end < len &&
               ((buf[end] >= '0' && buf[end] <= '9') || buf[end] == '.' || buf[end] == 'e' ||
                buf[end] == 'E' || buf[end] == '+' || buf[end] == '-'))
            end++;
        char *num = malloc(end - i + 1);
        if (!num) {
            free(out);
            return NULL;
        }
        memcpy(num, buf + i, end - i);
        num[end - i] = '\0';
        errno = 0;
        char *stop = NULL;
        double d = strtod(num, &stop);
        /* only a whole number token: "1e400-7" is not JSON, and replacing
         * its first part would drop the rest and make it parse */
        int huge = errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL) && stop && *stop == '\0';
        int real = end > k;
        int big = 0;
        if (!real && !huge) {
            errno = 0;
            (void)strtoll(num, NULL, 10);
            big = errno == ERANGE;
        }
        free(num);
        if (huge) {
            const char *r = ch == '-' ? "-1e308" : "1e308";
            memcpy(out + o, r, strlen(r));
            o += strlen(r);
        } else {
            memcpy(out + o, buf + i, end - i);
            o += end - i;
            if (big) {
                out[o++] = 'e';
                out[o++] = '0';
            }
        }
        i = end;
    }
    *out_len = o;
    return out;
}

/* Whether a string in v (but in skip) holds a NUL: C code reads such a
 * string only up to it. */
static int nul_string(json_t *v, const json_t *skip)
{
    size_t i;
    const char *k;
    json_t *e;
    if (v == skip)
        return 0;
    if (json_is_string(v))
        return strlen(json_string_value(v)) != json_string_length(v);
    if (json_is_array(v)) {
        json_array_foreach(v, i, e)
        {
            if (nul_string(e, skip))
                return 1;
        }
    }
    if (json_is_object(v)) {
        json_object_foreach(v, k, e)
        {
            if (nul_string(e, skip))
                return 1;
        }
    }
    return 0;
}

/* The same for a message's members but its id (echoed as it is). */
static int nul_member(json_t *r, const json_t *skip)
{
    const char *k;
    json_t *e;
    json_object_foreach(r, k, e)
    {
        if (strcmp(k, "id") && nul_string(e, skip))
            return 1;
    }
    return 0;
}

void wt_rpc_parse(const char *buf, size_t len, struct wt_rpc_msg *m)
{
    memset(m, 0, sizeof(*m));
    m->weight = len;
    if (len > WT_RPC_MAX_MESSAGE) {
        invalid(m, WT_RPC_INVALID_REQUEST, "message of %zu bytes: the limit is %d", len,
                WT_RPC_MAX_MESSAGE);
        return;
    }
    size_t values = count_values(buf, len);
    if (values > WT_RPC_MAX_VALUES) {
        invalid(m, WT_RPC_INVALID_REQUEST,
                "Invalid Request: about %zu JSON values: the limit is %d", values,
                WT_RPC_MAX_VALUES);
        return;
    }
    m->weight = len + values * 96;
    json_error_t je;
    /* \u0000 is valid JSON: a message with one still has a readable id (the
     * strings a request's members hold are checked below, tool arguments by
     * the tools) */
    const size_t flags = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL;
    m->root = json_loadb(buf, len, flags, &je);
    if (!m->root && (strstr(je.text, "too big") || strstr(je.text, "real number overflow"))) {
        /* Valid JSON with an integer beyond 64 bits (a seed, say) is not a
         * parse error: that integer is read as a real, which the tool's
         * bounds then refuse by name; every other number (the id among them)
         * is read as written.  An id beyond 64 bits is then a real: -32600.
         * A number beyond a double (1e400) is read as +-1e308, refused alike. */
        size_t blen;
        char *b = big_ints_as_reals(buf, len, &blen);
        json_error_t je2;
        if (b) {
            m->root = json_loadb(b, blen, flags, &je2);
            if (!m->root) /* another error: say that one */
                je = je2;
        }
        free(b);
    }
    if (!m->root && strstr(je.text, "NUL byte in object key")) {
        /* valid JSON too, which jansson cannot hold: read it with \u0001 for
         * every \u0000 (escapes read in order, so "\\\\u0000" is left alone),
         * without the duplicate check (two names may now be one), for its
         * id, and refuse it with that id (-32700 with id null left the
         * client waiting for its answer).  Only a single message: a batch
         * keeps the parse error (its elements' ids cannot be told apart
         * here); an id that held a NUL is not echoed changed (id null). */
        char *b = malloc(len ? len : 1);
        if (b) {
            memcpy(b, buf, len);
            int in_str = 0;
            for (size_t i = 0; i < len; i++) {
                if (!in_str) {
                    in_str = b[i] == '"';
                } else if (b[i] == '"') {
                    in_str = 0;
                } else if (b[i] == '\\') {
                    if (i + 5 < len && !memcmp(b + i + 1, "u0000", 5))
                        b[i + 5] = '1';
                    i++; /* the escaped character */
                }
            }
            json_error_t je2;
            json_t *r = json_loadb(b, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je2);
            free(b);
            if (json_is_object(r) && !json_object_get(r, "method") &&
                (json_object_get(r, "result") || json_object_get(r, "error"))) {
                /* a response, ignored whatever it holds (as classify does) */
                m->root = r;
                m->kind = WT_RPC_RESPONSE;
                return;
            }
            if (json_is_object(r)) {
                json_t *id = json_object_get(r, "id");
                m->root = r;
                if (json_is_integer(id) || (json_is_string(id) && !memchr(json_string_value(id), 1,
                                                                          json_string_length(id))))
                    m->id = id;
                m->notification = is_notification(r, id);
                invalid(m, WT_RPC_INVALID_REQUEST,
                        "Invalid Request: a member name contains NUL (\\u0000)");
                return;
            }
            json_decref(r);
        }
    }
    if (!m->root && json_error_code(&je) == json_error_stack_overflow) {
        /* JSON nested beyond jansson's limit: refused as the size and
         * value-count limits are (the parser stops there, so text after it
         * that is not JSON is not seen: also -32600) */
        invalid(m, WT_RPC_INVALID_REQUEST,
                "Invalid Request: JSON nested too deeply (line %d, column %d): %s", je.line,
                je.column, je.text);
        return;
    }
    if (!m->root) {
        invalid(m, WT_RPC_PARSE_ERROR, "Parse error: %s (line %d, column %d)", je.text, je.line,
                je.column);
        return;
    }
    if (json_is_array(m->root) && json_array_size(m->root) > 0) {
        /* a batch: refused unless the transport accepts it (see batch) */
        invalid(m, WT_RPC_INVALID_REQUEST,
                "Invalid Request: batches are accepted only in a session that negotiated "
                "protocol version 2025-03-26 (MCP removed them in 2025-06-18)");
        m->batch = 1;
        return;
    }
    classify(m);
}

void wt_rpc_parse_value(json_t *v, struct wt_rpc_msg *m)
{
    memset(m, 0, sizeof(*m));
    m->root = json_incref(v);
    classify(m);
}

/* Sorts the parsed m->root into a request, notification or response, or an
 * error to send back. */
static void classify(struct wt_rpc_msg *m)
{
    json_t *r = m->root;
    if (json_is_array(r)) {
        invalid(m, WT_RPC_INVALID_REQUEST,
                json_array_size(r) ? "Invalid Request: a batch inside a batch"
                                   : "Invalid Request: an empty batch");
        return;
    }
    if (!json_is_object(r)) {
        invalid(m, WT_RPC_INVALID_REQUEST, "Invalid Request: not a JSON object");
        return;
    }
    json_t *method = json_object_get(r, "method");
    /* A response (to a request this server never sent): ignored, whatever
     * its id, even null (an error about a request with no readable id). */
    if (!method && (json_object_get(r, "result") || json_object_get(r, "error"))) {
        m->kind = WT_RPC_RESPONSE;
        return;
    }
    /* the id first, so that errors can carry it */
    json_t *id = json_object_get(r, "id");
    if (id) {
        if (json_is_string(id) || json_is_integer(id))
            m->id = id;
        else {
            /* a number with a fraction or an exponent (1.0, 1e2) is echoed,
             * so that the client can match the error to its request (MCP's
             * ids are strings or integers); not one beyond 64 bits, which
             * was an integer too big to read and would come back changed */
            int real = json_is_real(id) && fabs(json_real_value(id)) < 9223372036854775808.0;
            if (real)
                m->id = id;
            invalid(m, WT_RPC_INVALID_REQUEST,
                    "Invalid Request: 'id' must be a string or an integer (not %s)",
                    json_is_null(id)   ? "null"
                    : json_is_real(id) ? "a number written with a fraction or an exponent, or "
                                         "beyond 64 bits"
                                       : "this type");
            return;
        }
    }
    if (nul_member(r, json_object_get(json_object_get(r, "params"), "arguments"))) {
        invalid(m, WT_RPC_INVALID_REQUEST,
                "Invalid Request: a string contains NUL (\\u0000), which only a tool's "
                "arguments may hold (and a tool refuses)");
        m->notification = is_notification(r, id);
        return;
    }
    json_t *v = json_object_get(r, "jsonrpc");
    if (!json_is_string(v) || strcmp(json_string_value(v), "2.0")) {
        invalid(m, WT_RPC_INVALID_REQUEST, "Invalid Request: 'jsonrpc' must be \"2.0\"");
        return;
    }
    if (!method) {
        invalid(m, WT_RPC_INVALID_REQUEST, "Invalid Request: no 'method'");
        return;
    }
    if (!json_is_string(method) || json_string_length(method) == 0 ||
        json_string_length(method) > 256) {
        invalid(m, WT_RPC_INVALID_REQUEST, "Invalid Request: 'method' must be a short string");
        /* a string method without an id is a notification all the same:
         * never answered, not even an invalid one */
        m->notification = json_is_string(method) && !id;
        return;
    }
    /* from here on, a message without an id is a notification: what makes it
     * invalid for MCP is never answered over stdio */
    int notification = !id;
    json_t *params = json_object_get(r, "params");
    if (params && !json_is_object(params)) {
        /* MCP's params are always objects */
        invalid(m, json_is_array(params) ? WT_RPC_INVALID_PARAMS : WT_RPC_INVALID_REQUEST,
                "Invalid %s: 'params' must be an object",
                json_is_array(params) ? "params" : "Request");
        m->notification = notification;
        return;
    }
    const char *k;
    json_t *val;
    json_object_foreach(r, k, val)
    {
        if (strcmp(k, "jsonrpc") && strcmp(k, "id") && strcmp(k, "method") && strcmp(k, "params")) {
            invalid(m, WT_RPC_INVALID_REQUEST, "Invalid Request: unexpected member '%.40s'", k);
            m->notification = notification;
            return;
        }
    }
    m->method = json_string_value(method);
    m->params = params;
    m->kind = m->id ? WT_RPC_REQUEST : WT_RPC_NOTIFICATION;
}

json_t *wt_rpc_result(json_t *id, json_t *result)
{
    json_t *o = json_object();
    json_object_set_new(o, "jsonrpc", json_string("2.0"));
    json_object_set(o, "id", id ? id : json_null());
    json_object_set_new(o, "result", result ? result : json_object());
    return o;
}

json_t *wt_rpc_error(json_t *id, int code, const char *message, json_t *data)
{
    json_t *e = json_object();
    json_object_set_new(e, "code", json_integer(code));
    /* the message may echo request bytes (a header, a name cut short) */
    char *clean = strdup(message ? message : "");
    json_object_set_new(e, "message", json_string(clean ? wt_text_clean(clean) : "Internal error"));
    free(clean);
    if (data)
        json_object_set_new(e, "data", data);
    json_t *o = json_object();
    json_object_set_new(o, "jsonrpc", json_string("2.0"));
    json_object_set(o, "id", id ? id : json_null());
    json_object_set_new(o, "error", e);
    return o;
}

json_t *wt_rpc_notification(const char *method, json_t *params)
{
    json_t *o = json_object();
    json_object_set_new(o, "jsonrpc", json_string("2.0"));
    json_object_set_new(o, "method", json_string(method));
    if (params)
        json_object_set_new(o, "params", params);
    return o;
}

char *wt_rpc_dump(const json_t *msg)
{
    char *s = json_dumps(msg, JSON_COMPACT | JSON_REAL_PRECISION(15));
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *r = realloc(s, n + 2); /* room for the transport's newline */
    if (!r) {
        free(s);
        return NULL;
    }
    r[n + 1] = '\0';
    return r;
}
