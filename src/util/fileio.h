/* Durable small-file writes: the two file protocols the audit log and the
 * witness rely on (spec §9): a new file created with O_EXCL, or a file
 * replaced atomically through FILE.tmp and rename(); in both cases the data
 * is fsync'ed before, and the directory after, the name appears.  Not for
 * the log itself (log.c appends with one write + fdatasync).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_FILEIO_H
#define WT_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

#define WT_FILE_EXCL 0    /* create; fail (errno EEXIST) if it exists */
#define WT_FILE_REPLACE 1 /* write path.tmp, then rename it over path */

/* fsync()s the directory dir. */
int wt_fsync_dir(const char *dir, struct wt_err *err) WT_WARN_UNUSED;

/* Writes len bytes of buf to path (in directory dir) with mode, as `how`
 * says, then fsyncs the file and dir.  On failure nothing is left at path
 * (or its old content, for WT_FILE_REPLACE) and errno says why. */
int wt_write_file_durable(const char *dir, const char *path, const void *buf, size_t len,
                          mode_t mode, int how, struct wt_err *err) WT_WARN_UNUSED;

#endif
