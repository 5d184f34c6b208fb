/* The MCP stdio transport (see stdio.c): newline-delimited JSON-RPC on two
 * file descriptors.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_MCP_STDIO_H
#define WT_MCP_STDIO_H

#include "mcp/server.h"

/* Serves until end of input.  Returns 0, or 1 when the output failed (or
 * its reader went away with work left).  When the output failed before the
 * end of input, the reader thread, its state and a pipe are left behind for
 * the process's exit (the thread may be blocked reading in_fd). */
int wt_mcp_serve_stdio(struct wt_mcp_server *s, int in_fd, int out_fd);

#endif
