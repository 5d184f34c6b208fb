/* For the fuzz targets that write audit logs (fuzz_report.c, fuzz_logopen.c):
 * one temporary directory per process, under /dev/shm when it exists
 * (fdatasync there costs nothing), emptied before each input and removed at
 * exit.  Test code only.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_FUZZ_LOGDIR_H
#define WT_FUZZ_LOGDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_dir[256];

/* Removes every file in the directory. */
static void fuzz_dir_clean(void)
{
    DIR *d = opendir(fuzz_dir);
    if (!d)
        return;
    struct dirent *de;
    char p[512];
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(p, sizeof(p), "%s/%s", fuzz_dir, de->d_name);
            unlink(p);
        }
    closedir(d);
}

static void fuzz_dir_remove(void)
{
    fuzz_dir_clean();
    rmdir(fuzz_dir);
}

/* Creates the directory wt_fuzz_NAME.PID (aborts when it cannot). */
static void fuzz_dir_make(const char *name)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/wt_fuzz_%s.%ld", base, name, (long)getpid());
    if (mkdir(fuzz_dir, 0700) != 0)
        abort();
    atexit(fuzz_dir_remove);
}

#endif
