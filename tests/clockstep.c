/* LD_PRELOAD shim for tests: steps CLOCK_REALTIME back by WT_CLOCKSTEP_S
 * seconds once WT_CLOCKSTEP_AFTER_S seconds (monotonic) have passed since
 * its first call, as an NTP step or `date -s` would.  Other clocks are left
 * alone.  Test code only.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *ts);

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    static double start = -1;
    if (!real)
        real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int rc = real(id, ts);
    if (rc != 0 || id != CLOCK_REALTIME)
        return rc;
    struct timespec m;
    real(CLOCK_MONOTONIC, &m);
    double now = (double)m.tv_sec + (double)m.tv_nsec * 1e-9;
    if (start < 0)
        start = now;
    const char *after = getenv("WT_CLOCKSTEP_AFTER_S"), *step = getenv("WT_CLOCKSTEP_S");
    if (after && step && now - start >= atof(after))
        ts->tv_sec -= (time_t)atof(step);
    return rc;
}
