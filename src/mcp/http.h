/* The MCP Streamable HTTP transport (see http.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_MCP_HTTP_H
#define WT_MCP_HTTP_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>

#include "mcp/server.h"

struct wt_mcp_http_config {
    const char *addr;               /* HOST:PORT or [V6]:PORT; port 0: any free port */
    const char *token;              /* bearer token required on /mcp (NULL: none) */
    const char *const *allow_hosts; /* more names Host/Origin may carry */
    size_t nallow;
};

/* Parses HOST:PORT (an IP address or localhost). */
/* libmicrohttpd's error log (MHD_OPTION_EXTERNAL_LOGGER): each message on
 * standard error as one line prefixed with cls (a string such as
 * "workloadtruth mcp"), the same message at most once a minute (with how many
 * were held back since); bind failures are left to the caller's message. */
void wt_mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

int wt_mcp_http_parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len,
                           int *loopback, char *msg, size_t cap);

struct MHD_Connection;
/* How many times the request carries a header (names compared without
 * case); for the MCP server and the exporter. */
unsigned wt_mhd_header_count(struct MHD_Connection *c, const char *name);
/* 1 when a header name is not a token (RFC 9110 5.6.2: "Name :" with a blank
 * before the colon, which RFC 9112 5.1 makes a 400, is kept by libmicrohttpd
 * as another name, out of the counts above); else 0.  For both servers. */
int wt_mhd_fields_bad(struct MHD_Connection *c);

/* MHD_OPTION_UNESCAPE_CALLBACK for both servers: libmicrohttpd's decoding,
 * but a path holding "%00" is left as sent (a NUL would cut it short). */
size_t wt_mhd_unescape(void *cls, struct MHD_Connection *c, char *s);

/* Serves until *stop becomes non-zero.  Refuses a non-loopback address
 * without a token.  Prints "listening on http://HOST:PORT/mcp" to stderr.
 * Returns 0, 1 on an error, 2 on a bad address. */
int wt_mcp_serve_http(struct wt_mcp_server *s, const struct wt_mcp_http_config *hc,
                      const atomic_int *stop);

#endif
