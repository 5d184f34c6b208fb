/* Durable small-file writes: the two file protocols the audit log and the
 * witness rely on (spec §9): a new file (written as FILE.PID.N, then
 * hard-linked as FILE, which fails if FILE exists: O_EXCL's guarantee
 * without a moment where FILE is empty or half written), or a file replaced
 * atomically through FILE.tmp and rename(); in both cases the data is
 * fsync'ed before, and the directory after, the name appears.  Not for
 * the log itself (log.c appends with one write + fdatasync).  Also the
 * checks that keep reads from blocking on a FIFO and writes from replacing
 * a device or an input.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_FILEIO_H
#define WT_FILEIO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/err.h"

#define WT_FILE_EXCL 0    /* create; fail (errno EEXIST) if it exists; never seen partial */
#define WT_FILE_REPLACE 1 /* write path.tmp, then rename it over path */
/* or'd in: the file gets mode whatever the umask, before it appears at path
 * (read by another user) */
#define WT_FILE_EXACT_MODE 2
/* or'd in: no fsync of the file or the directory (still atomic for readers,
 * not durable): for files rewritten often whose loss in a crash costs
 * nothing, written where a slow disk must not stall the caller */
#define WT_FILE_NO_SYNC 4

/* Creates a new temporary file next to path, PATH.PID.N (O_EXCL, mode as
 * masked by the umask, like open()), writing its name to tmp; returns the
 * descriptor, or -1 with errno set. */
int wt_open_temp(const char *path, mode_t mode, char *tmp, size_t cap);

/* fsync()s the directory dir. */
int wt_fsync_dir(const char *dir, struct wt_err *err) WT_WARN_UNUSED;

/* mkdir(dir, mode); when it made the directory, fsync()s the directory
 * that holds it (not where that directory cannot be read: mode 0733), and
 * removes it again when that fails.  A directory that exists already is
 * WT_OK. */
int wt_mkdir_durable(const char *dir, mode_t mode, struct wt_err *err) WT_WARN_UNUSED;

/* Writes len bytes of buf to path (in directory dir) with mode, as `how`
 * says, then fsyncs the file and dir.  On failure nothing is left at path
 * (or its old content, for WT_FILE_REPLACE) and errno says why. */
int wt_write_file_durable(const char *dir, const char *path, const void *buf, size_t len,
                          mode_t mode, int how, struct wt_err *err) WT_WARN_UNUSED;

/* Opens path for reading if it is a regular file; a FIFO, a device or a
 * directory is refused without blocking, and reads never block (a regular
 * file that would, such as /proc/kmsg, fails them with EAGAIN).  NULL on
 * failure, with *why set (strerror(errno), or "not a regular file"). */
FILE *wt_fopen_regular(const char *path, const char **why);

/* 1 when a and b name the same existing file. */
int wt_same_file(const char *a, const char *b);
/* 1 when a and b name the same file, existing or not: the same existing
 * file, or the same name in the same (resolved) directory ("x", "./x"). */
int wt_same_path(const char *a, const char *b);

/* 1 when path is a symbolic link to what standard output is (/dev/stdout,
 * /dev/fd/1 while standard output is a file). */
int wt_is_stdout_link(const char *path);

/* Why an output file may not be written at path, or NULL when it may: it
 * exists and is not a regular file (a device, a FIFO, a directory), it is
 * a link to standard output, one of the n input paths, or a .csv inside
 * an input directory (which a directory walk would then read). */
const char *wt_output_clash(const char *path, const char *const *inputs, int n);

#endif
