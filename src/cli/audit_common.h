/* Shared bits of the audit-log commands (cmd_audit.c, cmd_watch.c): where
 * the log is (--log-dir / --log-file / $WT_LOG_DIR) and reading a verifier
 * key given as text or as a file.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_CLI_AUDIT_COMMON_H
#define WT_CLI_AUDIT_COMMON_H

#include "audit/log.h"
#include "audit/note.h"

/* The default log directory when neither option is given. */
#define WT_DEFAULT_LOG_DIR "workloadtruth-log"

/* Fills p from --log-dir / --log-file (at most one may be set); prints a
 * usage error and returns 2 on a conflict, 1 on a bad path, 0 when fine. */
int wt_cli_log_paths(const char *prog, const char *dir, const char *file, struct wt_log_paths *p);

/* A verifier key given as text ("name+hex+base64") or as a file holding it. */
int wt_cli_read_vkey(const char *prog, const char *arg, struct wt_note_vkey *v);

/* Says on stderr which lines opening the log signed that no signed
 * checkpoint covered (rec->unsealed > 0): a writer that stopped before
 * sealing them wrote them, or someone without the key did. */
void wt_cli_report_unsealed(const char *prog, const char *log, const struct wt_log_recovery *rec);

#endif
