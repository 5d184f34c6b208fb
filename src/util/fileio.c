/* Durable small-file writes (see fileio.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

int wt_fsync_dir(const char *dir, struct wt_err *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return wt_errf(err, WT_EIO, "cannot open directory %s: %s", dir, strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc) {
        errno = e;
        return wt_errf(err, WT_EIO, "fsync of directory %s failed: %s", dir, strerror(e));
    }
    return WT_OK;
}

int wt_write_file_durable(const char *dir, const char *path, const void *buf, size_t len,
                          mode_t mode, int how, struct wt_err *err)
{
    char tmp[PATH_MAX + 8];
    const char *target = path;
    if (how == WT_FILE_REPLACE) {
        if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
            errno = ENAMETOOLONG;
            return wt_errf(err, WT_EINVAL, "path too long: %.80s...", path);
        }
        target = tmp;
    }
    int fd = open(target,
                  O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
                      (how == WT_FILE_REPLACE ? O_TRUNC : O_EXCL),
                  mode);
    if (fd < 0) {
        int e = errno;
        wt_errf(err, WT_EIO, "cannot create %s: %s", target, strerror(e));
        errno = e;
        return WT_EIO;
    }
    const char *p = buf;
    size_t done = 0;
    int e = 0;
    while (done < len) {
        ssize_t n = write(fd, p + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : ENOSPC;
            wt_errf(err, WT_EIO, "cannot write %s: %s", target, strerror(e));
            break;
        }
        done += (size_t)n;
    }
    if (!e && fsync(fd)) {
        e = errno;
        wt_errf(err, WT_EIO, "fsync of %s failed: %s", target, strerror(e));
    }
    if (close(fd) && !e) {
        e = errno;
        wt_errf(err, WT_EIO, "cannot close %s: %s", target, strerror(e));
    }
    if (!e && how == WT_FILE_REPLACE && rename(tmp, path)) {
        e = errno;
        wt_errf(err, WT_EIO, "cannot rename %s to %s: %s", tmp, path, strerror(e));
    }
    if (e) {
        unlink(target);
        errno = e;
        return WT_EIO;
    }
    return wt_fsync_dir(dir, err);
}
