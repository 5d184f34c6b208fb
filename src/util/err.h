/* Error reporting shared by every module.
 *
 * Functions that can fail return 0 (WT_OK) on success, WT_DONE (1) where a
 * stream has ended, or a negative WT_E* code, and fill a caller-provided
 * struct wt_err with a one-line, human-readable message that says what failed
 * and where ("trace.csv:42: column 'power_w': not a number").  This module
 * only formats messages; it never prints or exits.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_ERR_H
#define WT_ERR_H

#include <stddef.h>

#define WT_OK 0
#define WT_DONE 1       /* end of stream: not an error */
#define WT_EINVAL (-1)  /* bad input (file contents, arguments) */
#define WT_EIO (-2)     /* the operating system refused (open, read) */
#define WT_ENOMEM (-3)  /* out of memory or over a size limit */
#define WT_ENOTSUP (-4) /* not available in this build or on this device */
#define WT_ENODEV (-5)  /* no such device */
#define WT_EFORMAT (-6) /* input is not of the expected kind (e.g. a CSV that is not a trace) */
#define WT_EBUSY (-7)   /* held by another process (a writer's lock) */
#define WT_ESTOP (-8)   /* ended early because a stop was asked (a signal) */

#if defined(__GNUC__)
#define WT_WARN_UNUSED __attribute__((warn_unused_result))
#define WT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define WT_WARN_UNUSED
#define WT_PRINTF(a, b)
#endif

struct wt_err {
    char msg[512];
};

/* Formats the message into err (if err is not NULL) and returns code. */
int wt_errf(struct wt_err *err, int code, const char *fmt, ...) WT_PRINTF(3, 4);

/* Prepends "prefix: " to the message already in err. */
void wt_err_prefix(struct wt_err *err, const char *prefix);

#endif
