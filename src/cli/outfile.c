/* Output files of the CLI's batch commands (train --out, --dump-features):
 * written to a temporary file next to the target and renamed over it only
 * when the command succeeds, so that a failure (a full disk, a file-size
 * limit, a bad input found late) leaves neither a half-written file nor a
 * destroyed old one (a command killed by a signal leaves its temporary
 * file, PATH.PID.N, behind).  "-" is standard output.  Not for files that must be
 * readable while they grow (record --out, the audit log) nor durable across
 * a power cut (util/fileio.h).  A file replaced keeps its permissions.
 *
 * SPDX-License-Identifier: MIT
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "util/fileio.h"

int wt_cli_out_writable(const char *path, int in_place)
{
    if (!strcmp(path, "-"))
        return 0;
    const char *slash = strrchr(path, '/');
    if (strlen(slash ? slash + 1 : path) > NAME_MAX)
        return ENAMETOOLONG;
    /* written in place (record): a file there needs only to be writable
     * by this user, not its directory (a file made for the user in a
     * directory of root's was refused, where `--out - > FILE` worked); a
     * directory is the caller's to refuse, with its own words */
    struct stat st;
    if (in_place && stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return access(path, W_OK) != 0 ? errno : 0;
    /* replaced (train: a temporary file renamed over it), or made: the
     * directory must take a new file, and the file need not be writable */
    char tmp[4096];
    int fd = wt_open_temp(path, 0600, tmp, sizeof(tmp));
    if (fd < 0)
        return errno ? errno : EIO;
    close(fd);
    unlink(tmp);
    return 0;
}

int wt_cli_out_open(struct wt_cli_out *o, const char *cmd, const char *what, const char *path)
{
    memset(o, 0, sizeof(*o));
    o->path = path;
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return 0;
    }
    /* a link to standard output (/dev/stdout, /dev/fd/1, /proc/self/fd/1):
     * the rename would replace the link (as root, /dev/stdout itself) and
     * standard output would get nothing */
    if (wt_is_stdout_link(path)) {
        fprintf(stderr,
                "workloadtruth %s: cannot write %s %s: it is a link to standard output "
                "(write '-' for standard output)\n",
                cmd, what, WT_CLEAN(path));
        return -1;
    }
    /* created private, then given its mode: a file replaced keeps its
     * permissions (a report someone made private stays private, and nobody
     * opens the temporary file in between), a new one gets 0666 less the
     * umask */
    int fd = wt_open_temp(path, 0600, o->tmp, sizeof(o->tmp));
    struct stat st;
    mode_t um = umask(0);
    umask(um);
    if (fd >= 0)
        (void)fchmod(fd,
                     stat(path, &st) == 0 && S_ISREG(st.st_mode) ? st.st_mode & 0777 : 0666 & ~um);
    if (fd >= 0)
        o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        fprintf(stderr, "workloadtruth %s: cannot write %s %s: %s\n", cmd, what, WT_CLEAN(path),
                strerror(e));
        o->tmp[0] = '\0';
        return -1;
    }
    return 0;
}

int wt_cli_out_commit(struct wt_cli_out *o, const char *cmd, const char *what)
{
    if (!o->f)
        return -1;
    if (o->f == stdout) {
        o->f = NULL;
        if (ferror(stdout) || fflush(stdout) != 0) {
            wt_cli_stdout_failed(cmd);
            return -1;
        }
        return 0;
    }
    int bad = ferror(o->f);
    int e = bad ? errno : 0; /* the failed write's reason, as stdio left it */
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        fprintf(stderr, "workloadtruth %s: cannot write %s %s: %s (left unchanged)\n", cmd, what,
                WT_CLEAN(o->path), e ? strerror(e) : "write error");
        unlink(o->tmp);
    }
    o->tmp[0] = '\0';
    return bad ? -1 : 0;
}

void wt_cli_out_abort(struct wt_cli_out *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    if (o->tmp[0])
        unlink(o->tmp);
    o->f = NULL;
    o->tmp[0] = '\0';
}
