/* Durable small-file writes (see fileio.h).
 *
 * SPDX-License-Identifier: MIT
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/text.h"

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

int wt_mkdir_durable(const char *dir, mode_t mode, struct wt_err *err)
{
    if (mkdir(dir, mode) != 0) {
        if (errno == EEXIST)
            return WT_OK;
        return wt_errf(err, WT_EIO, "cannot create directory %s: %s", dir, strerror(errno));
    }
    /* the new entry is in its parent: made durable there, or a crash could
     * take the directory, and all that is written into it, away */
    char parent[PATH_MAX];
    if (snprintf(parent, sizeof(parent), "%s", dir) >= (int)sizeof(parent))
        return wt_errf(err, WT_EINVAL, "path too long: %.80s", dir);
    size_t n = strlen(parent);
    while (n > 1 && parent[n - 1] == '/') /* "a/b/": the parent of "a/b" */
        parent[--n] = '\0';
    char *slash = strrchr(parent, '/');
    if (!slash)
        snprintf(parent, sizeof(parent), ".");
    else {
        while (slash > parent && slash[-1] == '/')
            slash--;
        slash[slash == parent] = '\0'; /* "/a": "/" */
    }
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM))
        return WT_OK; /* a parent we may write but not read (mode 0733): as durable
                       * as mkdir alone makes it; nothing better can be done */
    int e = fd < 0 ? errno : (fsync(fd) != 0 ? errno : 0);
    if (fd >= 0)
        close(fd);
    if (!e)
        return WT_OK;
    /* not made durable: removed (it is empty), so the next try makes it
     * again and syncs, rather than finding it and taking it as durable */
    (void)rmdir(dir);
    return wt_errf(err, WT_EIO, "cannot sync directory %s after creating %s in it: %s", parent, dir,
                   strerror(e));
}

int wt_open_temp(const char *path, mode_t mode, char *tmp, size_t cap)
{
    static unsigned counter; /* a name taken (a crash's leftover) moves on */
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash + 1 - path) : 0, blen = strlen(path) - dirlen;
    for (int tries = 0; tries < 100; tries++) {
        char suffix[48];
        int sl = snprintf(suffix, sizeof(suffix), ".%ld.%u", (long)getpid(), counter++);
        /* a name of up to NAME_MAX bytes is valid, its temporary name longer
         * (ENAMETOOLONG after all the work, a 251-byte model name): the name
         * is cut to fit (the PID and counter keep it unique) */
        size_t keep = blen + (size_t)sl > NAME_MAX
                          ? wt_utf8_cut(path + dirlen, NAME_MAX - (size_t)sl) /* whole chars */
                          : blen;
        if (snprintf(tmp, cap, "%.*s%.*s%s", (int)dirlen, path, (int)keep, path + dirlen, suffix) >=
            (int)cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

int wt_write_file_durable(const char *dir, const char *path, const void *buf, size_t len,
                          mode_t mode, int how, struct wt_err *err)
{
    /* both ways write a temporary file first, so no reader ever sees the
     * file empty or half written: FILE.tmp renamed over FILE (REPLACE), or a
     * new FILE.PID.N linked as FILE, which fails if FILE exists (EXCL) */
    char tmp[PATH_MAX + 32];
    int fd;
    int exact = how & WT_FILE_EXACT_MODE, sync = !(how & WT_FILE_NO_SYNC);
    how &= ~(WT_FILE_EXACT_MODE | WT_FILE_NO_SYNC);
    if (how == WT_FILE_REPLACE) {
        if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
            errno = ENAMETOOLONG;
            return wt_errf(err, WT_EINVAL, "path too long: %.80s...", path);
        }
        /* O_NONBLOCK: a FIFO planted at FILE.tmp (a directory shared with
         * another group, as a textfile collector's is) would block this open
         * until someone read it, and then be renamed over FILE; only a
         * regular file is written (ENXIO: a FIFO nobody reads) */
        fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode);
        struct stat st;
        if ((fd < 0 && (errno == ENXIO || errno == ELOOP)) ||
            (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)))) {
            /* a FIFO or a symbolic link planted there: removed and a new
             * file of ours made (it stopped every later write, and the last
             * file said the agent was up until it went stale); one that
             * cannot be removed (another's, in a sticky directory) or a
             * directory is refused */
            if (fd >= 0)
                close(fd);
            fd = unlink(tmp) == 0
                     ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
                     : -1;
            if (fd < 0) {
                errno = EINVAL;
                return wt_errf(err, WT_EIO, "cannot create %s: not a regular file", tmp);
            }
            if (fstat(fd, &st) != 0) {
                int e = errno;
                close(fd);
                errno = e;
                return wt_errf(err, WT_EIO, "cannot create %s: %s", tmp, strerror(e));
            }
        }
        /* a regular file someone else planted there (a sticky shared
         * directory): written and renamed, FILE would be theirs, and they
         * could then replace it with a FIFO; and a second link would be
         * written through.  Only a file of ours, with one link, is reused. */
        if (fd >= 0 && (st.st_uid != geteuid() || st.st_nlink != 1)) {
            close(fd);
            /* removed, a new one of ours; kept (a sticky directory), refused */
            fd = unlink(tmp) == 0
                     ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
                     : -1;
            if (fd < 0) {
                errno = EPERM;
                return wt_errf(err, WT_EIO,
                               "cannot create %s: it exists and is not this user's own file", tmp);
            }
        }
        if (fd >= 0 && ftruncate(fd, 0) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            return wt_errf(err, WT_EIO, "cannot truncate %s: %s", tmp, strerror(e));
        }
    } else {
        fd = wt_open_temp(path, mode, tmp, sizeof(tmp));
    }
    if (fd >= 0 && exact && fchmod(fd, mode) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
        return wt_errf(err, WT_EIO, "chmod %o %s: %s", (unsigned)mode, tmp, strerror(e));
    }
    if (fd < 0) {
        int e = errno;
        wt_errf(err, WT_EIO, "cannot create %s: %s", how == WT_FILE_REPLACE ? tmp : path,
                strerror(e));
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
            wt_errf(err, WT_EIO, "cannot write %s: %s", tmp, strerror(e));
            break;
        }
        done += (size_t)n;
    }
    if (!e && sync && fsync(fd)) {
        e = errno;
        wt_errf(err, WT_EIO, "fsync of %s failed: %s", tmp, strerror(e));
    }
    if (close(fd) && !e) {
        e = errno;
        wt_errf(err, WT_EIO, "cannot close %s: %s", tmp, strerror(e));
    }
    if (!e && how == WT_FILE_REPLACE && rename(tmp, path)) {
        e = errno;
        wt_errf(err, WT_EIO, "cannot rename %s to %s: %s", tmp, path, strerror(e));
    }
    if (!e && how != WT_FILE_REPLACE && link(tmp, path)) {
        e = errno;
        wt_errf(err, WT_EIO, "cannot create %s: %s", path, strerror(e));
    }
    if (e || how != WT_FILE_REPLACE)
        unlink(tmp);
    if (e) {
        errno = e;
        return WT_EIO;
    }
    return sync ? wt_fsync_dir(dir, err) : WT_OK;
}

FILE *wt_fopen_regular(const char *path, const char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        *why = strerror(errno);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *why = strerror(errno);
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        *why = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
        close(fd);
        return NULL;
    }
    /* O_NONBLOCK stays: a regular file of a disk reads as without it, and
     * one that would block (/proc/kmsg, a FUSE file) fails with EAGAIN
     * instead (a checkpoint file linked to /proc/kmsg hung verify-log and
     * every writer of the log, holding its lock) */
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        *why = strerror(errno);
        close(fd);
    }
    return f;
}

int wt_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The resolved directory of path (".", "/" or what precedes the last '/')
 * into out, and where its last component starts; 0, or -1 when the
 * directory does not resolve. */
static int resolved_dir(const char *path, char *out, const char **base)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == path)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    *base = slash ? slash + 1 : path;
    return realpath(dir, out) ? 0 : -1;
}

int wt_same_path(const char *a, const char *b)
{
    if (!strcmp(a, b) || wt_same_file(a, b))
        return 1;
    char da[PATH_MAX], db[PATH_MAX];
    const char *ba, *bb;
    if (resolved_dir(a, da, &ba) || resolved_dir(b, db, &bb))
        return 0;
    return !strcmp(da, db) && !strcmp(ba, bb);
}

int wt_is_stdout_link(const char *path)
{
    struct stat sl, st, so;
    return lstat(path, &sl) == 0 && S_ISLNK(sl.st_mode) && stat(path, &st) == 0 &&
           fstat(STDOUT_FILENO, &so) == 0 && st.st_dev == so.st_dev && st.st_ino == so.st_ino;
}

const char *wt_output_clash(const char *path, const char *const *inputs, int n)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return S_ISDIR(st.st_mode) ? "is a directory" : "exists and is not a regular file";
    /* /dev/stdout (or /dev/fd/1) while standard output is a file: the
     * rename of the temporary file would replace the link (exit 1 then,
     * where a pipe was exit 2) */
    if (wt_is_stdout_link(path))
        return "is a link to standard output"; /* '-' is the caller's to offer */
    size_t len = strlen(path);
    int csv = len >= 4 && !strcasecmp(path + len - 4, ".csv");
    /* the directory the output would be in, resolved */
    char rdir[PATH_MAX];
    const char *base;
    int have_dir = resolved_dir(path, rdir, &base) == 0;
    for (int i = 0; i < n; i++) {
        struct stat si;
        if (!inputs[i] || stat(inputs[i], &si) != 0)
            continue;
        if (S_ISREG(si.st_mode) && wt_same_file(path, inputs[i]))
            return "is one of the input files";
        char rin[PATH_MAX];
        if (S_ISDIR(si.st_mode) && csv && have_dir && realpath(inputs[i], rin)) {
            size_t k = strlen(rin);
            if (!strncmp(rdir, rin, k) && (rdir[k] == '\0' || rdir[k] == '/' || k == 1))
                return "is a .csv inside an input directory (it would be read as a trace)";
        }
    }
    return NULL;
}
