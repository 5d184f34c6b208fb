/* The Prometheus exporter's HTTP server (libmicrohttpd, one internal polling
 * thread): GET /metrics (text format 0.0.4), GET /healthz and a landing page
 * at /.  Anything else is 404 or 405; malformed requests are libmicrohttpd's
 * to refuse.  Connections are limited and time out, so a slow or hostile
 * client cannot exhaust the agent.  It renders metrics.c's store; it decides
 * nothing.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_EXPORTER_H
#define WT_EXPORTER_H

#include "export/metrics.h"
#include "util/err.h"

struct wt_exporter;

/* Starts serving at HOST:PORT (port 0: any free port).  *port gets the port.
 * healthy(ctx) decides /healthz (NULL: always healthy). */
int wt_exporter_start(struct wt_exporter **out, const char *addr, struct wt_metrics *m,
                      int (*healthy)(void *ctx), void *ctx, unsigned *port,
                      struct wt_err *err) WT_WARN_UNUSED;
void wt_exporter_stop(struct wt_exporter *e);
/* WT_OK when addr is a HOST:PORT (or :PORT) wt_exporter_start takes, else
 * WT_EINVAL with the message: checked before anything is opened. */
int wt_exporter_check_addr(const char *addr, struct wt_err *err) WT_WARN_UNUSED;

#endif
