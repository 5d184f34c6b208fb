/* A test double of the NVIDIA driver's libnvidia-ml.so.1, loaded by the nvml
 * source through --nvml-lib / WT_NVML_LIB, so the real loading and decoding
 * code runs in CI without a GPU.  It exports the NVML functions the backend
 * uses and serves values from a trace file in real time: at wall time t after
 * nvmlInit, a GPU shows the trace's last sample at or before first_t + t
 * (times WT_FAKE_NVML_SPEED), and the driver's sample buffers hold the
 * trace's samples up to then, with microsecond timestamps.
 *
 * Environment:
 *   WT_FAKE_NVML_TRACE   the trace to serve (our format, all columns optional)
 *   WT_FAKE_NVML_DRIVER  driver version string (default 550.54.15)
 *   WT_FAKE_NVML_PROCS   processes, "gpu:pid:mib,..." ("gpu:pid:mib*N": N of
 *                        them, pids pid to pid+N-1); the lists answer
 *                        INSUFFICIENT_SIZE, with the count, to a short buffer
 *   WT_FAKE_NVML_PROCS_FILE  a file whose first line is such a list, read
 *                        again at every device call (processes that come
 *                        and go while a tool runs); it replaces PROCS
 *   WT_FAKE_NVML_SPEED   trace seconds per wall second (default 1)
 *   WT_FAKE_NVML_PREROLL trace seconds already past at nvmlInit: the sample
 *                        buffers then hold readings from before the run
 *   WT_FAKE_NVML_FAULTS  comma-separated faults:
 *     lost=G@N        GPU G falls off the bus after N calls on it
 *     lost=G@N:CODE   ... or every call on it returns CODE instead (16: reset
 *                     required, 999: unknown)
 *     notsup=FUNC     FUNC returns NOT_SUPPORTED     noperm=FUNC  ... NO_PERMISSION
 *     init=CODE       nvmlInit returns CODE          nogpus       no GPU
 *     proc535         driver 535.54.03: _v3 process entries of 32 bytes, and no
 *                     working nvmlDeviceGetRunningProcessDetailList
 *     empty_samples   sample buffers always empty (NOT_FOUND)
 *     boottime        sample timestamps count from boot, not from the epoch
 *     samples_fail_once  each sample buffer's first fetch (not size query)
 *                     fails with UNKNOWN
 *     arch_unknown    nvmlDeviceGetArchitecture answers NVML_DEVICE_ARCH_UNKNOWN
 *     samples_gone    every fetch of the utilization buffer finds it empty
 *                     (NOT_FOUND) although the size query counted readings:
 *                     the size query counts the whole ring, the fetch only
 *                     readings newer than the last seen
 *     samples_race    each sample buffer's first size query counts one
 *                     reading fewer than it holds (one arrived between the
 *                     calls);
 *                     a fetch into a buffer too short is INSUFFICIENT_SIZE
 *                     whatever the fault
 *     mig=G           GPU G is in MIG mode with two MIG devices (GPU instances
 *                     7 and 9, compute instance 0 each)
 *     mig_samegi      with mig=G: both MIG devices are compute instances 0 and
 *                     1 of GPU instance 7
 *     procutil_hist   per-process utilization as the driver keeps it: the last
 *                     busy sample, however old (boottime: real CLOCK_BOOTTIME)
 *     procutil_epoch  per-process utilization stamped from the epoch even with
 *                     boottime (the two calls on different clocks)
 *     flaky=G:FUNC:K:EVERY:CODE  on GPU G, FUNC's K-th call (counted per GPU
 *                     and function, size queries included) returns CODE, and
 *                     then every EVERY-th (0: that call only); FUNC
 *                     nvmlDeviceGetSamples#T counts the calls for buffer type
 *                     T only (1: GPU utilization)
 *     slow=G:FUNC:MS  on GPU G, every call of FUNC first sleeps MS ms
 *     ring=N          each sample buffer holds the newest N readings (default
 *                     120)
 *     reserved=MIB    the driver reserves MIB MiB: the v1 memory call counts
 *                     it in "used", the v2 call reports it apart (as real
 *                     drivers: about 900 MiB on an A100)
 * Per-process utilization has a sample only for a process with non-zero
 * utilization, as the driver's ("one ... per process ... that had some
 * non-zero utilization"); none at all is NOT_FOUND.
 * Build variants: -DFAKE_OLD exports only the old, unversioned entry points
 * (a driver before the _v2 symbols, without sample buffers or field values);
 * -DFAKE_BROKEN lacks nvmlDeviceGetCount (a required function).
 *
 * Test code only: it is not a driver and never touches a GPU.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "telemetry/nvml_api.h"

#define EXPORT __attribute__((visibility("default")))
#define MAXG 8
#define MAXS 20000
#define RING 120
#define MAXP 2048 /* processes (more than the backend's first buffer of 1024) */

enum col {
    C_UTIL,
    C_MEMU,
    C_MEM,
    C_MEMTOT,
    C_POW,
    C_LIM,
    C_DEFLIM,
    C_ENERGY,
    C_SM,
    C_SMMAX,
    C_MEMCLK,
    C_TEMP,
    C_TX,
    C_RX,
    C_REASONS,
    C_PROCS,
    NC
};
static const char *const colnames[NC] = {
    "util_gpu_pct",  "util_mem_pct",     "mem_used_mib",          "mem_total_mib",
    "power_w",       "power_limit_w",    "power_default_limit_w", "energy_j",
    "sm_clock_mhz",  "sm_clock_max_mhz", "mem_clock_mhz",         "temp_c",
    "pcie_tx_mibps", "pcie_rx_mibps",    "clock_reasons",         "procs"};

struct fdev {
    int gpu, is_mig, parent;
    unsigned long calls;
    unsigned raced;  /* samples_race: the buffer types whose first size query is past */
    unsigned failed; /* samples_fail_once: the buffer types whose first fetch failed */
};

static struct {
    int inited;
    int ngpus;
    double t[MAXG][MAXS];
    double v[MAXG][MAXS][NC];
    int n[MAXG];
    double first_t;
    struct fdev dev[MAXG];
    struct fdev mig[2];
    double start_mono, start_epoch, start_boot, speed, preroll;
    char driver[32];
    char model[96];
    int instant;
    /* faults */
    int lost_gpu;
    unsigned long lost_after;
    int lost_code;
    char notsup[512], noperm[512];
    struct {
        int gpu, code;
        char fn[64];
        unsigned long k, every, calls;
    } flaky[4];
    struct {
        int gpu, ms;
        char fn[64];
    } slow[4];
    int nflaky, nslow;
    int init_code, nogpus, proc535, empty, boottime, mig_gpu, mig_samegi, procutil_hist,
        procutil_epoch, samples_race, samples_fail_once, samples_gone, arch_unknown;
    int ring; /* readings a sample buffer holds (ring=N; default RING) */
    double reserved_mib;
    /* processes */
    int pgpu[MAXP];
    unsigned ppid[MAXP];
    unsigned long long pmib[MAXP];
    int nproc;
} F;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double epoch(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int load_trace(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[4096];
    int map[64], ncols = 0, tcol = -1, gcol = -1;
    while (fgets(line, sizeof(line), f)) {
        if (line[0] == '#') {
            if (!strncmp(line, "# gpu_model: ", 13)) {
                snprintf(F.model, sizeof(F.model), "%.95s", line + 13);
                F.model[strcspn(F.model, "\r\n")] = '\0';
            }
            if (!strncmp(line, "# power_semantics: instant", 26))
                F.instant = 1;
            continue;
        }
        /* header */
        char *save, *tok = strtok_r(line, ",\r\n", &save);
        for (; tok && ncols < 64; tok = strtok_r(NULL, ",\r\n", &save), ncols++) {
            map[ncols] = -1;
            if (!strcmp(tok, "t_s"))
                tcol = ncols;
            else if (!strcmp(tok, "gpu"))
                gcol = ncols;
            for (int c = 0; c < NC; c++)
                if (!strcmp(tok, colnames[c]))
                    map[ncols] = c;
        }
        break;
    }
    F.first_t = INFINITY;
    while (fgets(line, sizeof(line), f)) {
        double row[NC], t = 0;
        int g = 0;
        for (int c = 0; c < NC; c++)
            row[c] = NAN;
        char *p = line;
        for (int c = 0; c < ncols; c++) {
            char *end = strpbrk(p, ",\r\n");
            size_t len = end ? (size_t)(end - p) : strlen(p);
            char cell[64];
            snprintf(cell, sizeof(cell), "%.*s", (int)(len < 63 ? len : 63), p);
            if (c == tcol)
                t = atof(cell);
            else if (c == gcol)
                g = atoi(cell);
            else if (map[c] >= 0 && len)
                row[map[c]] = strtod(cell, NULL);
            if (!end || *end != ',')
                break;
            p = end + 1;
        }
        if (g < 0 || g >= MAXG || F.n[g] >= MAXS)
            continue;
        F.t[g][F.n[g]] = t;
        memcpy(F.v[g][F.n[g]], row, sizeof(row));
        F.n[g]++;
        if (g + 1 > F.ngpus)
            F.ngpus = g + 1;
        if (t < F.first_t)
            F.first_t = t;
    }
    fclose(f);
    return F.ngpus ? 0 : -1;
}

static void parse_faults(void)
{
    const char *s = getenv("WT_FAKE_NVML_FAULTS");
    F.lost_gpu = -1;
    F.mig_gpu = -1;
    if (!s)
        return;
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", s);
    char *save;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (sscanf(tok, "lost=%d@%lu", &F.lost_gpu, &F.lost_after) == 2) {
            const char *colon = strchr(tok, ':');
            F.lost_code = colon ? atoi(colon + 1) : NVML_ERROR_GPU_IS_LOST;
            continue;
        }
        if (F.nflaky < 4 &&
            sscanf(tok, "flaky=%d:%63[^:]:%lu:%lu:%d", &F.flaky[F.nflaky].gpu, F.flaky[F.nflaky].fn,
                   &F.flaky[F.nflaky].k, &F.flaky[F.nflaky].every, &F.flaky[F.nflaky].code) == 5) {
            F.nflaky++;
            continue;
        }
        if (F.nslow < 4 && sscanf(tok, "slow=%d:%63[^:]:%d", &F.slow[F.nslow].gpu,
                                  F.slow[F.nslow].fn, &F.slow[F.nslow].ms) == 3) {
            F.nslow++;
            continue;
        }
        if (!strncmp(tok, "notsup=", 7)) {
            strncat(F.notsup, tok + 7, sizeof(F.notsup) - strlen(F.notsup) - 2);
            strcat(F.notsup, " ");
        } else if (!strncmp(tok, "noperm=", 7)) {
            strncat(F.noperm, tok + 7, sizeof(F.noperm) - strlen(F.noperm) - 2);
            strcat(F.noperm, " ");
        } else if (!strncmp(tok, "init=", 5)) {
            F.init_code = atoi(tok + 5);
        } else if (!strcmp(tok, "nogpus")) {
            F.nogpus = 1;
        } else if (!strcmp(tok, "proc535")) {
            F.proc535 = 1;
        } else if (!strcmp(tok, "empty_samples")) {
            F.empty = 1;
        } else if (!strcmp(tok, "procutil_hist")) {
            F.procutil_hist = 1;
        } else if (!strcmp(tok, "procutil_epoch")) {
            F.procutil_epoch = 1;
        } else if (!strncmp(tok, "ring=", 5)) {
            F.ring = atoi(tok + 5);
        } else if (!strcmp(tok, "samples_race")) {
            F.samples_race = 1;
        } else if (!strcmp(tok, "samples_fail_once")) {
            F.samples_fail_once = 1;
        } else if (!strcmp(tok, "samples_gone")) {
            F.samples_gone = 1;
        } else if (!strcmp(tok, "arch_unknown")) {
            F.arch_unknown = 1;
        } else if (!strcmp(tok, "boottime")) {
            F.boottime = 1;
        } else if (!strcmp(tok, "mig_samegi")) {
            F.mig_samegi = 1;
        } else if (!strncmp(tok, "mig=", 4)) {
            F.mig_gpu = atoi(tok + 4);
        } else if (!strncmp(tok, "reserved=", 9)) {
            F.reserved_mib = atof(tok + 9);
        }
    }
}

static int listed(const char *list, const char *fn)
{
    const char *p = list;
    size_t n = strlen(fn);
    while ((p = strstr(p, fn)) != NULL) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

/* The processes from a "gpu:pid:mib,..." list; "gpu:pid:mib*N" is N
 * processes, pids pid, pid+1, ... */
static void set_procs(const char *list)
{
    char *buf = strdup(list);
    F.nproc = 0;
    if (!buf)
        return;
    char *save;
    for (char *tok = strtok_r(buf, ",\n", &save); tok && F.nproc < MAXP;
         tok = strtok_r(NULL, ",\n", &save)) {
        int g, times = 1;
        unsigned pid;
        unsigned long long mib;
        int got = sscanf(tok, "%d:%u:%llu*%d", &g, &pid, &mib, &times);
        if (got < 3)
            continue;
        for (int i = 0; i < (got == 4 ? times : 1) && F.nproc < MAXP; i++) {
            F.pgpu[F.nproc] = g;
            F.ppid[F.nproc] = pid + (unsigned)i;
            F.pmib[F.nproc] = mib;
            F.nproc++;
        }
    }
    free(buf);
}

/* WT_FAKE_NVML_PROCS_FILE, when set and readable. */
static void reload_procs(void)
{
    const char *pf = getenv("WT_FAKE_NVML_PROCS_FILE");
    FILE *f = pf ? fopen(pf, "r") : NULL;
    if (!f)
        return;
    char buf[4096];
    if (fgets(buf, sizeof(buf), f))
        set_procs(buf);
    else
        F.nproc = 0;
    fclose(f);
}

/* The slow= and flaky= faults of a call of fn on d. */
static nvmlReturn_t injected(const struct fdev *d, const char *fn)
{
    for (int i = 0; i < F.nslow; i++)
        if (F.slow[i].gpu == d->gpu && !d->is_mig && !strcmp(F.slow[i].fn, fn)) {
            struct timespec ts = {F.slow[i].ms / 1000, (long)(F.slow[i].ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    for (int i = 0; i < F.nflaky; i++)
        if (F.flaky[i].gpu == d->gpu && !d->is_mig && !strcmp(F.flaky[i].fn, fn)) {
            unsigned long k = ++F.flaky[i].calls;
            if (k == F.flaky[i].k || (k > F.flaky[i].k && F.flaky[i].every &&
                                      (k - F.flaky[i].k) % F.flaky[i].every == 0))
                return (nvmlReturn_t)F.flaky[i].code;
        }
    return NVML_SUCCESS;
}

/* Common entry checks for a device call: faults and the lost GPU. */
static nvmlReturn_t enter(nvmlDevice_t h, const char *fn, struct fdev **out)
{
    struct fdev *d = (struct fdev *)h;
    if (!F.inited)
        return NVML_ERROR_UNINITIALIZED;
    if (!d)
        return NVML_ERROR_INVALID_ARGUMENT;
    *out = d;
    reload_procs();
    d->calls++;
    if (d->gpu == F.lost_gpu && d->calls > F.lost_after)
        return (nvmlReturn_t)F.lost_code;
    if (listed(F.notsup, fn))
        return NVML_ERROR_NOT_SUPPORTED;
    if (listed(F.noperm, fn))
        return NVML_ERROR_NO_PERMISSION;
    return injected(d, fn);
}

/* The trace time shown now. */
static double now_t(void)
{
    return F.first_t + F.preroll + (mono() - F.start_mono) * F.speed;
}

/* Index of the last sample of gpu at or before now (0 before the first). */
static int cur(int gpu)
{
    double t = now_t();
    int lo = 0, hi = F.n[gpu] - 1, best = 0;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (F.t[gpu][mid] <= t) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

static nvmlReturn_t val(struct fdev *d, int col, double *out)
{
    if (d->is_mig && (col == C_UTIL || col == C_MEMU))
        return NVML_ERROR_NOT_SUPPORTED;
    int g = d->gpu;
    double x = F.v[g][cur(g)][col];
    if (isnan(x))
        return NVML_ERROR_NOT_SUPPORTED;
    *out = x;
    return NVML_SUCCESS;
}

__attribute__((unused)) static unsigned long long stamp_us(double t)
{
    double wall = (t - F.first_t - F.preroll) / F.speed;
    return F.boottime ? (unsigned long long)((F.start_boot + wall) * 1e6)
                      : (unsigned long long)((F.start_epoch + wall) * 1e6);
}

/* ------------------------------------------------------------- exports */

#ifdef FAKE_OLD
#define INIT_NAME nvmlInit
#define COUNT_NAME nvmlDeviceGetCount
#define HANDLE_NAME nvmlDeviceGetHandleByIndex
#else
#define INIT_NAME nvmlInit_v2
#define COUNT_NAME nvmlDeviceGetCount_v2
#define HANDLE_NAME nvmlDeviceGetHandleByIndex_v2
#endif

EXPORT nvmlReturn_t INIT_NAME(void);
EXPORT nvmlReturn_t INIT_NAME(void)
{
    memset(&F, 0, sizeof(F)); /* a fresh "driver" on every init */
    parse_faults();
    if (F.init_code)
        return F.init_code;
    const char *path = getenv("WT_FAKE_NVML_TRACE");
    if (!path || load_trace(path) != 0)
        return NVML_ERROR_DRIVER_NOT_LOADED;
    const char *sp = getenv("WT_FAKE_NVML_SPEED");
    F.speed = sp ? atof(sp) : 1;
    if (!(F.speed > 0))
        F.speed = 1;
    const char *pre = getenv("WT_FAKE_NVML_PREROLL");
    F.preroll = pre ? atof(pre) : 0;
    const char *dv = getenv("WT_FAKE_NVML_DRIVER");
    snprintf(F.driver, sizeof(F.driver), "%s", F.proc535 ? "535.54.03" : dv ? dv : "550.54.15");
    if (!F.model[0])
        snprintf(F.model, sizeof(F.model), "NVIDIA H100 80GB HBM3");
    for (int g = 0; g < MAXG; g++)
        F.dev[g] = (struct fdev){g, 0, -1, 0, 0, 0};
    for (int k = 0; k < 2; k++)
        F.mig[k] = (struct fdev){F.mig_gpu < 0 ? 0 : F.mig_gpu, 1, F.mig_gpu, 0, 0, 0};
    const char *pr = getenv("WT_FAKE_NVML_PROCS");
    if (pr)
        set_procs(pr);
    reload_procs();
    F.start_mono = mono();
    F.start_epoch = epoch();
    struct timespec bt;
    clock_gettime(CLOCK_BOOTTIME, &bt);
    F.start_boot = (double)bt.tv_sec + (double)bt.tv_nsec * 1e-9;
    F.inited = 1;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void);
EXPORT nvmlReturn_t nvmlShutdown(void)
{
    F.inited = 0;
    return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t r);
EXPORT const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_NOT_SUPPORTED:
        return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
        return "Insufficient Permissions";
    case NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST:
        return "GPU is lost";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        return "RM has detected an NVML/RM version mismatch.";
    default:
        return "Unknown Error";
    }
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int len);
EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int len)
{
    snprintf(v, len, "%s", F.driver);
    return NVML_SUCCESS;
}

#ifndef FAKE_BROKEN
EXPORT nvmlReturn_t COUNT_NAME(unsigned int *n);
EXPORT nvmlReturn_t COUNT_NAME(unsigned int *n)
{
    if (!F.inited)
        return NVML_ERROR_UNINITIALIZED;
    *n = F.nogpus ? 0 : (unsigned)F.ngpus;
    return NVML_SUCCESS;
}
#endif

EXPORT nvmlReturn_t HANDLE_NAME(unsigned int i, nvmlDevice_t *h);
EXPORT nvmlReturn_t HANDLE_NAME(unsigned int i, nvmlDevice_t *h)
{
    if (!F.inited)
        return NVML_ERROR_UNINITIALIZED;
    if (i >= (unsigned)F.ngpus)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (listed(F.noperm, "handle"))
        return NVML_ERROR_NO_PERMISSION;
    *h = (nvmlDevice_t)&F.dev[i];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *name, unsigned int len);
EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *name, unsigned int len)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetName", &d);
    if (r)
        return r;
    if (d->is_mig)
        snprintf(name, len, "%s MIG 3g.40gb", F.model);
    else
        snprintf(name, len, "%s", F.model);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char *uuid, unsigned int len);
EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char *uuid, unsigned int len)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetUUID", &d);
    if (r)
        return r;
    if (d->is_mig)
        snprintf(uuid, len, "MIG-fake-%d-%ld", d->gpu, (long)(d - F.mig));
    else
        snprintf(uuid, len, "GPU-fake-0000-%04d", d->gpu);
    return NVML_SUCCESS;
}

#ifndef FAKE_OLD
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvmlPciInfo_t *p);
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvmlPciInfo_t *p)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetPciInfo_v3", &d);
    if (r)
        return r;
    memset(p, 0, sizeof(*p));
    snprintf(p->busId, sizeof(p->busId), "00000000:%02X:00.0", 0x17 + d->gpu);
    return NVML_SUCCESS;
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t *u);
EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t *u)
{
    struct fdev *d;
    double a, b;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetUtilizationRates", &d);
    if (r)
        return r;
    if ((r = val(d, C_UTIL, &a)) || (r = val(d, C_MEMU, &b)))
        return r;
    u->gpu = (unsigned)a;
    u->memory = (unsigned)b;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m)
{
    struct fdev *d;
    double used, total;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetMemoryInfo", &d);
    if (r)
        return r;
    if ((r = val(d, C_MEM, &used)) || (r = val(d, C_MEMTOT, &total)))
        return r;
    m->total = (unsigned long long)(total * 1048576.0);
    m->used = (unsigned long long)((used + F.reserved_mib) * 1048576.0);
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}

#ifndef FAKE_OLD
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t *m);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t *m)
{
    struct fdev *d;
    double used, total;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetMemoryInfo_v2", &d);
    if (r)
        return r;
    if (m->version != nvmlMemory_v2) /* what a real driver does with version = 2 */
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    if ((r = val(d, C_MEM, &used)) || (r = val(d, C_MEMTOT, &total)))
        return r;
    m->total = (unsigned long long)(total * 1048576.0);
    m->used = (unsigned long long)(used * 1048576.0);
    m->reserved = (unsigned long long)(F.reserved_mib * 1048576.0);
    m->free = m->total - m->used - m->reserved;
    return NVML_SUCCESS;
}
#endif

static nvmlReturn_t uint_col(nvmlDevice_t h, const char *fn, int col, double scale,
                             unsigned int *out)
{
    struct fdev *d;
    double x;
    nvmlReturn_t r = enter(h, fn, &d);
    if (r)
        return r;
    if ((r = val(d, col, &x)))
        return r;
    *out = (unsigned int)llround(x * scale);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned int *p);
EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned int *p)
{
    return uint_col(h, "nvmlDeviceGetPowerUsage", C_POW, 1000, p);
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t h, unsigned int *p);
EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t h, unsigned int *p)
{
    return uint_col(h, "nvmlDeviceGetEnforcedPowerLimit", C_LIM, 1000, p);
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t h, unsigned int *p);
EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t h, unsigned int *p)
{
    return uint_col(h, "nvmlDeviceGetPowerManagementDefaultLimit", C_DEFLIM, 1000, p);
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t h, unsigned long long *e);
EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t h, unsigned long long *e)
{
    struct fdev *d;
    double x;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetTotalEnergyConsumption", &d);
    if (r)
        return r;
    if ((r = val(d, C_ENERGY, &x)))
        return r;
    *e = (unsigned long long)llround(x * 1000);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, int type, unsigned int *c);
EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, int type, unsigned int *c)
{
    return uint_col(h, "nvmlDeviceGetClockInfo", type == NVML_CLOCK_MEM ? C_MEMCLK : C_SM, 1, c);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t h, int type, unsigned int *c);
EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t h, int type, unsigned int *c)
{
    if (type != NVML_CLOCK_SM)
        return NVML_ERROR_NOT_SUPPORTED;
    return uint_col(h, "nvmlDeviceGetMaxClockInfo", C_SMMAX, 1, c);
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, int sensor, unsigned int *t);
EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, int sensor, unsigned int *t)
{
    (void)sensor;
    return uint_col(h, "nvmlDeviceGetTemperature", C_TEMP, 1, t);
}

#ifndef FAKE_OLD
/* the versioned call (12.8 header); a wrong version is refused as the
 * driver refuses it */
typedef struct {
    unsigned int version;
    int sensorType, temperature;
} fake_temperature_t;
EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t h, fake_temperature_t *t);
EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t h, fake_temperature_t *t)
{
    unsigned int u;
    if (!t)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (t->version != 0x0100000Cu)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    nvmlReturn_t r = uint_col(h, "nvmlDeviceGetTemperatureV", C_TEMP, 1, &u);
    if (r)
        return r;
    t->temperature = (int)u;
    return NVML_SUCCESS;
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t h, int counter, unsigned int *v);
EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t h, int counter, unsigned int *v)
{
    return uint_col(h, "nvmlDeviceGetPcieThroughput",
                    counter == NVML_PCIE_UTIL_TX_BYTES ? C_TX : C_RX, 1024, v);
}

static nvmlReturn_t reasons(nvmlDevice_t h, const char *fn, unsigned long long *r)
{
    struct fdev *d;
    double x;
    nvmlReturn_t rc = enter(h, fn, &d);
    if (rc)
        return rc;
    if ((rc = val(d, C_REASONS, &x)))
        return rc;
    *r = (unsigned long long)x;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t h,
                                                              unsigned long long *r);
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t h, unsigned long long *r)
{
    return reasons(h, "nvmlDeviceGetCurrentClocksThrottleReasons", r);
}

#ifndef FAKE_OLD
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t h, unsigned long long *r);
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t h, unsigned long long *r)
{
    return reasons(h, "nvmlDeviceGetCurrentClocksEventReasons", r);
}

EXPORT nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t h, unsigned int *a);
EXPORT nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t h, unsigned int *a)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetArchitecture", &d);
    if (r)
        return r;
    *a = F.arch_unknown            ? NVML_DEVICE_ARCH_UNKNOWN
         : strstr(F.model, "A100") ? NVML_DEVICE_ARCH_AMPERE
                                   : NVML_DEVICE_ARCH_HOPPER;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t h, int n, nvmlFieldValue_t *v);
EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t h, int n, nvmlFieldValue_t *v)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetFieldValues", &d);
    if (r)
        return r;
    for (int i = 0; i < n; i++) {
        double x;
        v[i].timestamp = (long long)(epoch() * 1e6);
        if (v[i].fieldId == NVML_FI_DEV_POWER_INSTANT && F.instant &&
            val(d, C_POW, &x) == NVML_SUCCESS) {
            v[i].valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
            v[i].value.uiVal = (unsigned)llround(x * 1000);
            v[i].nvmlReturn = NVML_SUCCESS;
        } else {
            v[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        }
    }
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t h, int type, unsigned long long last, int *vt,
                                         unsigned int *count, nvmlSample_t *out);
EXPORT nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t h, int type, unsigned long long last, int *vt,
                                         unsigned int *count, nvmlSample_t *out)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetSamples", &d);
    if (r)
        return r;
    char typed[40]; /* flaky=G:nvmlDeviceGetSamples#1:...: the utilization buffer's calls */
    snprintf(typed, sizeof(typed), "nvmlDeviceGetSamples#%d", type);
    if ((r = injected(d, typed)) != NVML_SUCCESS)
        return r;
    if (d->is_mig && type != NVML_TOTAL_POWER_SAMPLES)
        return NVML_ERROR_NOT_SUPPORTED;
    int col = type == NVML_TOTAL_POWER_SAMPLES          ? C_POW
              : type == NVML_GPU_UTILIZATION_SAMPLES    ? C_UTIL
              : type == NVML_MEMORY_UTILIZATION_SAMPLES ? C_MEMU
                                                        : -1;
    if (col < 0)
        return NVML_ERROR_NOT_SUPPORTED;
    int g = d->gpu, hi = cur(g);
    if (F.t[g][hi] > now_t())
        hi = -1; /* nothing released yet */
    int ring = F.ring > 0 ? F.ring : RING;
    int lo = hi - ring + 1 < 0 ? 0 : hi - ring + 1;
    unsigned k = 0;
    *vt = NVML_VALUE_TYPE_UNSIGNED_INT;
    for (int i = lo; i <= hi; i++)
        if (stamp_us(F.t[g][i]) > last && !isnan(F.v[g][i][col]))
            k++;
    if (F.empty || k == 0) {
        *count = 0;
        return NVML_ERROR_NOT_FOUND;
    }
    if (!out) {
        /* samples_race: a reading arrives between a buffer's first size
         * query (the one at start) and the fetch that follows */
        int race = F.samples_race && !(d->raced & (1u << type)) && k > 1;
        d->raced |= 1u << type;
        *count = race ? k - 1 : k;
        return NVML_SUCCESS;
    }
    if (F.samples_gone && type == NVML_GPU_UTILIZATION_SAMPLES) {
        *count = 0;
        return NVML_ERROR_NOT_FOUND;
    }
    if (F.samples_fail_once && !(d->failed & (1u << type))) {
        d->failed |= 1u << type;
        return NVML_ERROR_UNKNOWN;
    }
    unsigned cap = *count, j = 0;
    if (cap < k) {
        *count = k;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (int i = lo; i <= hi && j < cap; i++)
        if (stamp_us(F.t[g][i]) > last && !isnan(F.v[g][i][col])) {
            out[j].timeStamp = stamp_us(F.t[g][i]);
            out[j].sampleValue.uiVal =
                (unsigned)llround(F.v[g][i][col] * (col == C_POW ? 1000 : 1));
            j++;
        }
    *count = j;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t h,
                                                          nvmlProcessDetailList_v1_t *l);
EXPORT nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t h,
                                                          nvmlProcessDetailList_v1_t *l)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetRunningProcessDetailList", &d);
    if (r)
        return r;
    if (F.proc535)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    if (l->version != nvmlProcessDetailList_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    unsigned k = 0;
    for (int i = 0; i < F.nproc; i++)
        if (F.pgpu[i] == d->gpu && !d->is_mig) {
            if (l->procArray && k < l->numProcArrayEntries) {
                memset(&l->procArray[k], 0, sizeof(l->procArray[k]));
                l->procArray[k].pid = F.ppid[i];
                l->procArray[k].usedGpuMemory = F.pmib[i] * 1048576ULL;
                l->procArray[k].gpuInstanceId = l->procArray[k].computeInstanceId = 0xFFFFFFFFu;
            }
            k++;
        }
    int small = l->procArray == NULL || k > l->numProcArrayEntries;
    l->numProcArrayEntries = k;
    return small && k ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned int *n,
                                                            void *infos);
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned int *n,
                                                            void *infos)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetComputeRunningProcesses_v3", &d);
    if (r)
        return r;
    size_t stride = F.proc535 ? sizeof(nvmlProcessDetail_v1_t) : sizeof(nvmlProcessInfo_v2_t);
    unsigned k = 0;
    for (int i = 0; i < F.nproc; i++)
        if (F.pgpu[i] == d->gpu && !d->is_mig) {
            if (infos && k < *n) {
                unsigned char *e = (unsigned char *)infos + k * stride;
                nvmlProcessDetail_v1_t x = {F.ppid[i], F.pmib[i] * 1048576ULL, 0xFFFFFFFFu,
                                            0xFFFFFFFFu, 0};
                memcpy(e, &x, stride);
            }
            k++;
        }
    int small = (!infos || k > *n) && k;
    *n = k;
    return small ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t h, void *p);
EXPORT nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t h, void *p)
{
    (void)h;
    (void)p;
    return NVML_ERROR_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t h,
                                                    nvmlProcessUtilizationSample_t *u,
                                                    unsigned int *n, unsigned long long last);
EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t h,
                                                    nvmlProcessUtilizationSample_t *u,
                                                    unsigned int *n, unsigned long long last)
{
    struct fdev *d;
    double util;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetProcessUtilization", &d);
    if (r)
        return r;
    if (val(d, C_UTIL, &util) != NVML_SUCCESS)
        return NVML_ERROR_NOT_SUPPORTED;
    /* stamped on the sample buffers' clock (boottime: from boot); only
     * samples newer than last, as the driver does */
    unsigned long long ts = stamp_us(now_t());
    if (F.procutil_hist) {
        /* as the driver keeps it: the last sample period in which the
         * process had non-zero utilization, however long ago */
        int g = d->gpu, i = cur(g);
        while (i >= 0 && !(F.v[g][i][C_UTIL] > 0))
            i--;
        if (i < 0)
            return NVML_ERROR_NOT_FOUND;
        util = F.v[g][i][C_UTIL];
        ts = stamp_us(F.t[g][i]);
    }
    if (F.procutil_epoch && F.boottime) /* the same moment on the epoch's clock */
        ts = (unsigned long long)((double)ts + (F.start_epoch - F.start_boot) * 1e6);
    if (ts <= last || !(util > 0))
        return NVML_ERROR_NOT_FOUND;
    unsigned k = 0;
    for (int i = 0; i < F.nproc; i++)
        if (F.pgpu[i] == d->gpu) {
            if (u && k < *n) {
                memset(&u[k], 0, sizeof(u[k]));
                u[k].pid = F.ppid[i];
                u[k].timeStamp = ts;
                u[k].smUtil = (unsigned)util;
            }
            k++;
        }
    if (!k)
        return NVML_ERROR_NOT_FOUND;
    int small = !u || k > *n;
    *n = k;
    return small ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t h, unsigned int *cur_m, unsigned int *pend);
EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t h, unsigned int *cur_m, unsigned int *pend)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetMigMode", &d);
    if (r)
        return r;
    *cur_m = *pend = d->gpu == F.mig_gpu && !d->is_mig;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t h, unsigned int *n);
EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t h, unsigned int *n)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetMaxMigDeviceCount", &d);
    if (r)
        return r;
    *n = d->gpu == F.mig_gpu ? 7 : 0;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t h, unsigned int i,
                                                        nvmlDevice_t *m);
EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t h, unsigned int i,
                                                        nvmlDevice_t *m)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetMigDeviceHandleByIndex", &d);
    if (r)
        return r;
    if (d->gpu != F.mig_gpu || i >= 2)
        return NVML_ERROR_NOT_FOUND; /* empty slots */
    *m = (nvmlDevice_t)&F.mig[i];
    return NVML_SUCCESS;
}

/* MIG device k is GPU instance 7 + 2k (as a 3g profile's ids go), compute
 * instance 0 of it; mig_samegi: compute instance k of GPU instance 7 */
static nvmlReturn_t mig_id(nvmlDevice_t h, const char *fn, int compute, unsigned int *id)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, fn, &d);
    if (r)
        return r;
    if (!d->is_mig)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned k = (unsigned)(d - F.mig);
    *id = compute ? (F.mig_samegi ? k : 0) : (F.mig_samegi ? 7 : 7 + 2 * k);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t h, unsigned int *id);
EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t h, unsigned int *id)
{
    return mig_id(h, "nvmlDeviceGetGpuInstanceId", 0, id);
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t h, unsigned int *id);
EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t h, unsigned int *id)
{
    return mig_id(h, "nvmlDeviceGetComputeInstanceId", 1, id);
}
#endif

/* v1: every driver exports it, the old ones only it */
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t h, unsigned int *n,
                                                         void *infos);
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t h, unsigned int *n,
                                                         void *infos)
{
    struct fdev *d;
    nvmlReturn_t r = enter(h, "nvmlDeviceGetComputeRunningProcesses", &d);
    if (r)
        return r;
    unsigned k = 0;
    for (int i = 0; i < F.nproc; i++)
        if (F.pgpu[i] == d->gpu && !d->is_mig) {
            if (infos && k < *n) {
                nvmlProcessInfo_v1_t x = {F.ppid[i], F.pmib[i] * 1048576ULL};
                memcpy((unsigned char *)infos + k * sizeof(x), &x, sizeof(x));
            }
            k++;
        }
    int small = (!infos || k > *n) && k;
    *n = k;
    return small ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}
