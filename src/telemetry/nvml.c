/* The `nvml` source: live NVIDIA GPUs through the driver's
 * libnvidia-ml.so.1, loaded with dlopen at run time (no nvml.h or CUDA needed
 * to build; declarations in nvml_api.h).
 *
 * Loading: --nvml-lib PATH, else $WT_NVML_LIB, else "libnvidia-ml.so.1"
 * (never a CUDA toolkit `stubs/` copy, which fails at init).  Versioned
 * symbols are resolved newest first with fallbacks; a small set is required
 * (init, shutdown, device count, device handle), everything else is optional
 * and a missing function, NOT_SUPPORTED or NO_PERMISSION leaves its column
 * "not measured".
 *
 * Sampling: every --interval the source reads each GPU's point values
 * (memory, power, limits, energy, clocks, throttle reasons, temperature,
 * PCIe, process count) and drains the driver's sample buffers
 * (nvmlDeviceGetSamples) for GPU utilization, memory utilization and power,
 * which hold readings at the driver's own, sub-second period.  Each buffered
 * utilization reading becomes one sample (with the nearest buffered memory
 * utilization and power, and the poll's point values); with empty or
 * unsupported buffers, the poll itself is one sample.  Buffer timestamps are
 * microseconds on a CPU clock that may be the epoch or time since boot: they
 * are anchored to CLOCK_MONOTONIC once (offset = now - newest timestamp) and
 * again only when the two clocks drift apart by more than 2 s (a wall clock
 * stepped under an epoch-based buffer), and poll times are monotonic too, so
 * a stepped wall clock does not move t_s.  Power prefers
 * the instantaneous field (NVML_FI_DEV_POWER_INSTANT); without it,
 * nvmlDeviceGetPowerUsage is a 1-second average on Ampere (except A100) and
 * newer, instantaneous before, and `power_semantics` says which.
 *
 * MIG: GPUs in MIG mode also list their MIG devices (after the physical
 * GPUs); utilization, sample buffers and per-process utilization are not
 * available on MIG devices and their notes say so.  Faults: a GPU that falls
 * off the bus (GPU_IS_LOST) stops only that GPU's stream; version mismatch,
 * missing driver, permission errors and missing functions give one-line
 * messages.  Processes: nvmlDeviceGetRunningProcessDetailList when it works,
 * else the _v3/_v2/v1 process list, reading the 32-byte entries that drivers
 * 535.43 to 535.85 wrote into _v3; owners from /proc (procinfo.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "telemetry/nvml_api.h"
#include "telemetry/source.h"
#include "util/clock.h"
#include "util/text.h"

/* the sample buffers' first size, and the most they grow to (4 MiB a type):
 * no source gives the driver buffers' capacity, so a drain that finds more
 * readings than fit grows its buffer to the count the driver gives */
#define MAX_BUF_SAMPLES 1024
#define BUF_SAMPLES_LIMIT 262144u
#define MAX_QUEUE 200000
#define UNREAD_QUEUE 4096 /* rows kept for a GPU not read yet */
#define REANCHOR_S 2.0
/* the longest refresh period of the utilization and power buffers (NVML: 1/6 s
 * to 1 s): a longer spacing between readings is a gap */
#define MAX_BUF_PERIOD_S 1.0
/* polls in a row without a row for a failed utilization drain */
#define MAX_DRAINS_FAILED WT_LIVE_POLLS_WITHOUT_ROW
#define SILENT_POLLS 3 /* a GPU whose polls measure nothing for this many polls */
#define SILENT_S 10.0  /* ... and this many seconds is not read further */
#define NEAREST_S 0.5
#define MAX_PROCS 1024
#define MAX_PROCS_ALL 65536 /* a list is never asked with more (2 MiB of entries) */

struct fns {
    nvml_void_fn init, shutdown;
    nvml_error_string_fn error_string;
    nvml_driver_version_fn driver_version;
    nvml_count_fn count;
    nvml_handle_fn handle;
    nvml_dev_string_fn name, uuid;
    nvml_dev_pci_fn pci;
    nvml_dev_util_fn util;
    nvml_dev_mem_fn mem;
    nvml_dev_mem2_fn mem2;
    nvml_dev_uint_fn power_usage, enforced_limit, default_limit, arch;
    nvml_dev_ull_fn energy, reasons;
    nvml_dev_int_uint_fn clock, max_clock, temp, pcie;
    nvml_dev_temp_v_fn temp_v;
    nvml_dev_samples_fn samples;
    nvml_dev_fields_fn fields;
    nvml_dev_procs_fn procs_v3, procs_v2, procs_v1;
    nvml_dev_detail_fn proc_detail;
    nvml_dev_procutil_fn proc_util;
    nvml_dev_mig_mode_fn mig_mode;
    nvml_dev_uint_fn max_mig;
    nvml_dev_mig_handle_fn mig_handle;
    nvml_dev_uint_fn gi_id, ci_id;
    void *conf_compute; /* nvmlDeviceGetConfComputeMemSizeInfo: only probed */
};

struct sym {
    const char *names[3]; /* newest first */
    size_t off;
    int required;
};

#define F(m) offsetof(struct fns, m)
static const struct sym syms[] = {
    {{"nvmlInit_v2", "nvmlInit", NULL}, F(init), 1},
    {{"nvmlShutdown", NULL, NULL}, F(shutdown), 1},
    {{"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", NULL}, F(count), 1},
    {{"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", NULL}, F(handle), 1},
    {{"nvmlErrorString", NULL, NULL}, F(error_string), 0},
    {{"nvmlSystemGetDriverVersion", NULL, NULL}, F(driver_version), 0},
    {{"nvmlDeviceGetName", NULL, NULL}, F(name), 0},
    {{"nvmlDeviceGetUUID", NULL, NULL}, F(uuid), 0},
    {{"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", NULL}, F(pci), 0},
    {{"nvmlDeviceGetUtilizationRates", NULL, NULL}, F(util), 0},
    {{"nvmlDeviceGetMemoryInfo", NULL, NULL}, F(mem), 0},
    {{"nvmlDeviceGetMemoryInfo_v2", NULL, NULL}, F(mem2), 0},
    {{"nvmlDeviceGetPowerUsage", NULL, NULL}, F(power_usage), 0},
    {{"nvmlDeviceGetEnforcedPowerLimit", NULL, NULL}, F(enforced_limit), 0},
    {{"nvmlDeviceGetPowerManagementDefaultLimit", NULL, NULL}, F(default_limit), 0},
    {{"nvmlDeviceGetArchitecture", NULL, NULL}, F(arch), 0},
    {{"nvmlDeviceGetTotalEnergyConsumption", NULL, NULL}, F(energy), 0},
    {{"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons", NULL},
     F(reasons),
     0},
    {{"nvmlDeviceGetClockInfo", NULL, NULL}, F(clock), 0},
    {{"nvmlDeviceGetMaxClockInfo", NULL, NULL}, F(max_clock), 0},
    {{"nvmlDeviceGetTemperature", NULL, NULL}, F(temp), 0},
    {{"nvmlDeviceGetTemperatureV", NULL, NULL}, F(temp_v), 0},
    {{"nvmlDeviceGetPcieThroughput", NULL, NULL}, F(pcie), 0},
    {{"nvmlDeviceGetSamples", NULL, NULL}, F(samples), 0},
    {{"nvmlDeviceGetFieldValues", NULL, NULL}, F(fields), 0},
    {{"nvmlDeviceGetComputeRunningProcesses_v3", NULL, NULL}, F(procs_v3), 0},
    {{"nvmlDeviceGetComputeRunningProcesses_v2", NULL, NULL}, F(procs_v2), 0},
    {{"nvmlDeviceGetComputeRunningProcesses", NULL, NULL}, F(procs_v1), 0},
    {{"nvmlDeviceGetRunningProcessDetailList", NULL, NULL}, F(proc_detail), 0},
    {{"nvmlDeviceGetProcessUtilization", NULL, NULL}, F(proc_util), 0},
    {{"nvmlDeviceGetMigMode", NULL, NULL}, F(mig_mode), 0},
    {{"nvmlDeviceGetMaxMigDeviceCount", NULL, NULL}, F(max_mig), 0},
    {{"nvmlDeviceGetMigDeviceHandleByIndex", NULL, NULL}, F(mig_handle), 0},
    {{"nvmlDeviceGetGpuInstanceId", NULL, NULL}, F(gi_id), 0},
    {{"nvmlDeviceGetComputeInstanceId", NULL, NULL}, F(ci_id), 0},
    {{"nvmlDeviceGetConfComputeMemSizeInfo", NULL, NULL}, F(conf_compute), 0},
};
#undef F

struct dev {
    nvmlDevice_t h;
    int index, is_mig, parent, mig_mode;
    int gi_id; /* a MIG device's GPU instance id (-1: not known) */
    int ci_id; /* and its compute instance id (-1: not known) */
    int lost, unusable;
    int ignored;       /* the caller will not read it: not polled */
    char why[200];     /* why it is lost or unusable */
    char mig_why[100]; /* in MIG mode: why its MIG devices could not be listed */
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    char bus[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    double mem_total_mib, limit_w, default_limit_w, sm_max_mhz;
    int instant_ok, power_avg1s;
    /* the memory call its readings come from: 2 nvmlDeviceGetMemoryInfo_v2, 1
     * the v1 call, 0 not decided yet (neither answered).  Fixed once answered:
     * v1's "used" counts the driver's reserved memory (~900 MiB on an A100),
     * and a poll whose v2 call failed wrote v1's into the trace, a step the
     * memory-growth features read as training's */
    int mem_api;
    int power_unprobed; /* lost before its power was probed: semantics unknown */
    int power_unnamed;  /* no architecture, a name of no family known here: unknown */
    int buf_ok[3];      /* sample buffer per type: 1 works, 0 not supported */
    unsigned long long seen[3];
    double period[3];      /* median spacing of each buffer's readings at start (NaN unknown) */
    double offset;         /* add to buffer seconds to get monotonic seconds */
    double last_poll;      /* monotonic seconds of the last poll of the buffers (NaN: none) */
    int read;              /* its rows or its info have been asked for */
    unsigned drain_failed; /* this poll: the buffer types whose drain failed (bit 1 << type) */
    int drains_failed;     /* polls in a row whose utilization drain failed */
    double silent_since;   /* monotonic seconds since when every poll measured nothing (NaN) */
    int silent_polls;      /* how many polls in a row measured nothing */
    int have_offset;
    int buf_epoch; /* the buffers' time stamps count from the epoch (>= 1e15 us), not boot */
    double last_t;
    double last_buf_t; /* t_s of the newest row from the utilization buffer (NaN: none yet) */
    double buf_step;   /* the spacing of its last two rows (NaN: not seen) */
    /* queue of samples not read yet */
    struct wt_sample *q;
    size_t qhead, qlen, qcap;
    size_t rows;
    double first_t;
};

struct nvml {
    void *lib;
    struct fns f;
    char path[256];
    char driver[32];
    int trap535; /* _v3 process entries are 32 bytes on this driver */
    struct dev *dev;
    int ndev;
    double interval, t0, next_tick;
    nvmlSample_t *buf[3];
    unsigned bufcap[3]; /* readings each buffer holds */
    const atomic_int *stop;
    int pidns;   /* 0 not checked yet, 1 the host's PID namespace, -1 another one */
    int drained; /* asked to stop: the buffers were drained one last time */
};

static const char *nvml_str(const struct nvml *s, nvmlReturn_t rc)
{
    const char *m = s->f.error_string ? s->f.error_string(rc) : NULL;
    return m ? m : "unknown error";
}

/* Records a call's result on a device: 1 = value valid, 0 = not measured.
 * A code that says the GPU or the driver is gone for good (lost, needs a
 * reset, the driver unloaded or replaced) marks the device lost: it would
 * otherwise go on giving rows with nothing measured. */
static int ok(struct nvml *s, struct dev *d, nvmlReturn_t rc, const char *what)
{
    if (rc == NVML_SUCCESS)
        return 1;
    if (d->lost)
        return 0;
    /* its name and bus id as far as they were read ("GPU 1 (unknown, )"
     * when lost before either) */
    char who[80];
    snprintf(who, sizeof(who), "%.48s%s%.16s", d->name[0] ? d->name : "name not read",
             d->bus[0] ? ", " : "", d->bus);
    if (rc == NVML_ERROR_GPU_IS_LOST) {
        d->lost = 1;
        snprintf(d->why, sizeof(d->why), "GPU %d (%s) fell off the bus during %.40s: %.40s",
                 d->index, who, what, nvml_str(s, rc));
    } else if (rc == NVML_ERROR_RESET_REQUIRED || rc == NVML_ERROR_UNINITIALIZED ||
               rc == NVML_ERROR_DRIVER_NOT_LOADED || rc == NVML_ERROR_LIB_RM_VERSION_MISMATCH) {
        d->lost = 1;
        snprintf(d->why, sizeof(d->why), "GPU %d (%s) failed during %.40s: %.40s", d->index, who,
                 what, nvml_str(s, rc));
    }
    return 0;
}

static double value_of(int vtype, nvmlValue_t v)
{
    switch (vtype) {
    case NVML_VALUE_TYPE_DOUBLE:
        return v.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT:
        return v.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
        return (double)v.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
        return (double)v.ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        return (double)v.sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT:
        return v.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
        return v.usVal;
    default:
        return NAN;
    }
}

/* ------------------------------------------------------------- loading */

static int load(struct nvml *s, const char *path, struct wt_err *err)
{
    if (strstr(path, "/stubs/"))
        return wt_errf(err, WT_EINVAL,
                       "refusing '%s': a CUDA toolkit stub, not the driver's library "
                       "(point --nvml-lib at the driver's libnvidia-ml.so.1)",
                       path);
    /* a path (not a name the loader searches for) must be a regular file:
     * dlopen of a FIFO waits for a writer for ever */
    struct stat st;
    if (strchr(path, '/') && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return wt_errf(err, WT_ENODEV,
                       "cannot load the NVIDIA management library: %s: not a regular file", path);
    snprintf(s->path, sizeof(s->path), "%s", path);
    s->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!s->lib) {
        const char *e = dlerror();
        return wt_errf(err, WT_ENODEV, "cannot load the NVIDIA management library: %s",
                       e ? e : path);
    }
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
        void *p = NULL;
        for (int k = 0; k < 3 && syms[i].names[k] && !p; k++)
            p = dlsym(s->lib, syms[i].names[k]);
        if (!p && syms[i].required)
            return wt_errf(err, WT_EIO,
                           "'%s' lacks the NVML function %s%s%s%s: an unsupported or damaged "
                           "driver library",
                           path, syms[i].names[0], syms[i].names[1] ? " (or " : "",
                           syms[i].names[1] ? syms[i].names[1] : "", syms[i].names[1] ? ")" : "");
        /* POSIX guarantees void* <-> function pointer conversion for dlsym */
        memcpy((char *)&s->f + syms[i].off, &p, sizeof(p));
    }
    return WT_OK;
}

static void parse_driver(struct nvml *s)
{
    char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
    if (s->f.driver_version && s->f.driver_version(v, sizeof(v)) == NVML_SUCCESS) {
        snprintf(s->driver, sizeof(s->driver), "%.31s", v);
        wt_text_clean(s->driver); /* printed, and put in JSON, as the name is */
        unsigned major = 0, minor = 0;
        if (sscanf(v, "%u.%u", &major, &minor) == 2 && major == 535 && minor >= 43 && minor < 86)
            s->trap535 = 1;
    }
}

/* ------------------------------------------------------------- devices */

static int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

/* Median spacing of a buffer's timestamps, in seconds (NaN for fewer than 3). */
static double buffer_period(const nvmlSample_t *b, unsigned n)
{
    if (n < 3)
        return NAN;
    unsigned long long *ts = malloc(n * sizeof(*ts));
    if (!ts)
        return NAN;
    for (unsigned i = 0; i < n; i++)
        ts[i] = b[i].timeStamp;
    qsort(ts, n, sizeof(*ts), cmp_ull);
    unsigned k = 0;
    for (unsigned i = 1; i < n; i++)
        if (ts[i] > ts[i - 1])
            ts[k++] = ts[i] - ts[i - 1];
    double p = NAN;
    if (k) {
        qsort(ts, k, sizeof(*ts), cmp_ull);
        p = (double)ts[k / 2] * 1e-6;
    }
    free(ts);
    return p;
}

/* word occurs in name as a model number of its own: "NVIDIA A100-SXM4" and
 * "A30X" have A100 and A30, "RTX A1000" and "RTX A3000" (not GA100) have not. */
static int model_word(const char *name, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(name, word); p; p = strstr(p + 1, word)) {
        int before = p == name || !isalnum((unsigned char)p[-1]);
        int after = !isdigit((unsigned char)p[n]);
        if (before && after)
            return 1;
    }
    return 0;
}

/* Grows sample buffer t to hold want readings and a quarter more (up to
 * BUF_SAMPLES_LIMIT); 0 when it cannot grow (at the limit, out of memory). */
static int grow_buf(struct nvml *s, int t, unsigned want)
{
    if (want <= s->bufcap[t])
        return 1;
    if (s->bufcap[t] >= BUF_SAMPLES_LIMIT)
        return 0;
    /* any count a driver gives, a junk one too, ends at the limit */
    unsigned cap = want >= BUF_SAMPLES_LIMIT / 2 ? BUF_SAMPLES_LIMIT : want + want / 4 + 64;
    nvmlSample_t *nb = realloc(s->buf[t], (size_t)cap * sizeof(*nb));
    if (!nb)
        return 0;
    s->buf[t] = nb;
    s->bufcap[t] = cap;
    return 1;
}

/* Fetches buffer type t's readings newer than `last` into s->buf[t], whose
 * count *n was just given by a size query: the whole buffer is offered, not
 * that count (a reading that arrives between the two calls would make an
 * exact-size fetch fail), grown first where the count does not fit, and once
 * more where the driver says it still does not (readings that arrived in
 * between).  *n is the count fetched. */
static nvmlReturn_t fetch(struct nvml *s, nvmlDevice_t h, int t, unsigned long long last,
                          int *vtype, unsigned *n)
{
    nvmlReturn_t rc = NVML_ERROR_INSUFFICIENT_SIZE;
    unsigned want = *n;
    for (int tries = 0; tries < 2 && rc == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
        grow_buf(s, t, want); /* not grown: the fetch fails as too short */
        *n = s->bufcap[t];
        rc = s->f.samples(h, t, last, vtype, n, s->buf[t]);
        if (rc == NVML_ERROR_INSUFFICIENT_SIZE && *n <= s->bufcap[t])
            break; /* a count that would have fitted: not a size to grow to */
        want = *n;
    }
    if (rc != NVML_SUCCESS)
        *n = 0;
    else if (*n > s->bufcap[t])
        *n = s->bufcap[t];
    return rc;
}

/* A probe decides how a GPU is read for the whole run (which memory call,
 * whether power is instantaneous, the architecture): a call that fails once
 * with UNKNOWN or TIMEOUT, which a busy driver answers now and then, is
 * asked again, up to 3 times in all, as the UUID is (one failed call made a
 * GPU read the v1 memory call, reserved memory counted as used, or 1-second
 * power averages, for the run). */
static int transient(nvmlReturn_t rc)
{
    return rc == NVML_ERROR_UNKNOWN || rc == NVML_ERROR_TIMEOUT;
}
#define PROBE_TRIES 3

static void probe_device(struct nvml *s, struct dev *d)
{
    nvmlReturn_t rc;
    d->mem_total_mib = d->limit_w = d->default_limit_w = d->sm_max_mhz = NAN;
    d->last_t = -INFINITY;
    d->last_buf_t = NAN;
    d->last_poll = NAN;
    d->buf_step = NAN;
    d->first_t = NAN;
    snprintf(d->name, sizeof(d->name), "unknown");
    nvmlPciInfo_t pci;
    if (s->f.pci && ok(s, d, s->f.pci(d->h, &pci), "nvmlDeviceGetPciInfo"))
        snprintf(d->bus, sizeof(d->bus), "%.31s", pci.busId);
    nvmlReturn_t name_rc = s->f.name ? s->f.name(d->h, d->name, sizeof(d->name)) : NVML_SUCCESS;
    if (!ok(s, d, name_rc, "nvmlDeviceGetName"))
        snprintf(d->name, sizeof(d->name), "unknown");
    if (s->f.uuid) {
        /* the GPU's identity in the log, metrics and job matching for the
         * whole run: a call that failed once (UNKNOWN, TIMEOUT) left it
         * without one */
        nvmlReturn_t r = NVML_ERROR_UNKNOWN;
        for (int k = 0; k < PROBE_TRIES && transient(r); k++)
            r = s->f.uuid(d->h, d->uuid, sizeof(d->uuid));
        if (!ok(s, d, r, "nvmlDeviceGetUUID"))
            d->uuid[0] = '\0';
    }
    /* the driver's bytes reach JSON, metrics, the log and the terminal */
    d->name[sizeof(d->name) - 1] = d->uuid[sizeof(d->uuid) - 1] = d->bus[sizeof(d->bus) - 1] = '\0';
    wt_text_clean(d->name);
    wt_text_clean(d->uuid);
    wt_text_clean(d->bus);
    nvmlMemory_v2_t m2 = {.version = nvmlMemory_v2};
    nvmlMemory_t m1;
    nvmlReturn_t r2 = NVML_ERROR_UNKNOWN;
    for (int k = 0; s->f.mem2 && k < PROBE_TRIES && transient(r2); k++)
        r2 = s->f.mem2(d->h, &m2);
    /* through ok(): a GPU lost here is named with the call that found it */
    if (s->f.mem2 && ok(s, d, r2, "nvmlDeviceGetMemoryInfo_v2")) {
        d->mem_total_mib = (double)m2.total / 1048576.0;
        d->mem_api = 2;
    } else if (s->f.mem && ok(s, d, s->f.mem(d->h, &m1), "nvmlDeviceGetMemoryInfo")) {
        d->mem_total_mib = (double)m1.total / 1048576.0;
        d->mem_api = 1;
    }
    if (d->mem_total_mib == 0) /* unified memory (e.g. DGX Spark): no device memory to report */
        d->mem_total_mib = NAN;
    unsigned int u;
    if (s->f.enforced_limit &&
        ok(s, d, s->f.enforced_limit(d->h, &u), "nvmlDeviceGetEnforcedPowerLimit"))
        d->limit_w = u / 1000.0;
    if (s->f.default_limit &&
        ok(s, d, s->f.default_limit(d->h, &u), "nvmlDeviceGetPowerManagementDefaultLimit"))
        d->default_limit_w = u / 1000.0;
    if (s->f.max_clock &&
        ok(s, d, s->f.max_clock(d->h, NVML_CLOCK_SM, &u), "nvmlDeviceGetMaxClockInfo"))
        d->sm_max_mhz = u;
    /* a driver's bogus reading (a limit of 4294967 W) is not measured, as
     * for every sample (push): gpus listed it */
    const struct {
        double *v;
        enum wt_col c;
    } info[] = {{&d->mem_total_mib, WT_COL_MEM_TOTAL},
                {&d->limit_w, WT_COL_POWER_LIMIT},
                {&d->default_limit_w, WT_COL_POWER_DEFAULT_LIMIT},
                {&d->sm_max_mhz, WT_COL_SM_CLOCK_MAX}};
    for (size_t k = 0; k < sizeof(info) / sizeof(info[0]); k++) {
        double lo, hi;
        wt_col_range(info[k].c, &lo, &hi);
        if (*info[k].v < lo || *info[k].v > hi)
            *info[k].v = NAN;
    }
    /* power: the instantaneous field where the driver has it */
    if (s->f.fields) {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof(fv));
        nvmlReturn_t rf = NVML_ERROR_UNKNOWN;
        for (int k = 0; k < PROBE_TRIES && (transient(rf) || transient(fv.nvmlReturn)); k++) {
            memset(&fv, 0, sizeof(fv));
            fv.fieldId = NVML_FI_DEV_POWER_INSTANT;
            rf = s->f.fields(d->h, 1, &fv);
        }
        if (ok(s, d, rf, "nvmlDeviceGetFieldValues") && fv.nvmlReturn == NVML_SUCCESS)
            d->instant_ok = 1;
    }
    unsigned arch = 0;
    /* NVML_DEVICE_ARCH_UNKNOWN (0xffffffff), or a value below Kepler, is not
     * an architecture: it read as "from Ampere on", so 1-second averages */
    nvmlReturn_t ra = NVML_ERROR_UNKNOWN;
    for (int k = 0; s->f.arch && k < PROBE_TRIES && transient(ra); k++)
        ra = s->f.arch(d->h, &arch);
    int arch_ok = s->f.arch && ok(s, d, ra, "nvmlDeviceGetArchitecture") &&
                  arch >= NVML_DEVICE_ARCH_KEPLER && arch != NVML_DEVICE_ARCH_UNKNOWN;
    if (arch_ok)
        d->power_avg1s = /* GA100 (A100, A800, A30) reads instantaneous power */
            arch >= NVML_DEVICE_ARCH_AMPERE && !model_word(d->name, "A100") &&
            !model_word(d->name, "A800") && !model_word(d->name, "A30");
    else { /* unknown architecture: the families this code knows by name
            * (an A10, an L4 or an RTX 4090 was said to read "instant") */
        d->power_avg1s = strstr(d->name, "H100") || strstr(d->name, "H200") ||
                         strstr(d->name, "L40") || strstr(d->name, "B200");
        static const char *const instant_names[] = {"A100", "A800",  "A30", "V100", "P100",
                                                    "P40",  "P4",    "T4",  "K80",  "M60",
                                                    "M40",  "TITAN", "GTX", NULL};
        int instant = 0;
        for (int k = 0; instant_names[k]; k++)
            instant |= model_word(d->name, instant_names[k]);
        d->power_unnamed = !d->power_avg1s && !instant;
    }
    /* lost before or during those probes, the instantaneous field not
     * found: how its power reads is not known (it said "instant", never
     * measured) */
    d->power_unprobed = d->lost && !d->instant_ok;
    /* a GPU that answers none of these with a code ok() does not know
     * (NVML_ERROR_UNKNOWN on every call) gives nothing but empty rows, whose
     * power would be said to read "instant": not used, with why */
    if (!d->lost && name_rc != NVML_SUCCESS && !d->bus[0] && isnan(d->mem_total_mib) &&
        isnan(d->limit_w) && isnan(d->default_limit_w) && isnan(d->sm_max_mhz) && !d->instant_ok &&
        !arch_ok) {
        d->unusable = 1;
        snprintf(d->why, sizeof(d->why), "GPU %d answers no query (nvmlDeviceGetName: %.60s)",
                 d->index, nvml_str(s, name_rc));
        return;
    }
    for (int t = 0; t < 3; t++) {
        d->buf_ok[t] = 0;
        d->period[t] = NAN; /* no buffer (an old driver): no period either */
        /* a MIG device has no utilization buffer, and its power buffer is the
         * whole GPU's (siblings' load included): not read, as the power
         * field is not (poll_dev) */
        if (!s->f.samples || d->is_mig)
            continue;
        int vt;
        unsigned n = 0;
        rc = s->f.samples(d->h, t, 0, &vt, &n, NULL);
        /* off where the driver says it has no such buffer for us; any other
         * failure (UNKNOWN, TIMEOUT: one call) keeps it, as a failed fetch
         * below does (turned off, one failed size query cost the run its
         * sub-second series) */
        d->buf_ok[t] = rc != NVML_ERROR_NOT_SUPPORTED && rc != NVML_ERROR_NO_PERMISSION &&
                       rc != NVML_ERROR_FUNCTION_NOT_FOUND && rc != NVML_ERROR_INVALID_ARGUMENT;
        if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE)
            n = 0;
        ok(s, d, rc == NVML_ERROR_NOT_FOUND ? NVML_SUCCESS : rc, "nvmlDeviceGetSamples");
        /* start after what the buffer already holds: history from before
         * this run is not part of it */
        d->period[t] = NAN;
        if (d->buf_ok[t] && n > 0) {
            /* the whole buffer, not the count just reported, as drain()
             * does: a reading that arrives between the two calls fails an
             * exact-size fetch.  Should the fetch fail all the same, the
             * buffer stays in use: its first drain is then its history,
             * whose readings from before the run poll_dev() drops (turned
             * off, one failed call cost the run its sub-second series) */
            if (fetch(s, d->h, t, 0, &vt, &n) == NVML_SUCCESS) {
                for (unsigned i = 0; i < n; i++)
                    if (s->buf[t][i].timeStamp > d->seen[t])
                        d->seen[t] = s->buf[t][i].timeStamp;
                d->period[t] = buffer_period(s->buf[t], n);
            }
        }
    }
    if (s->f.mig_mode) {
        unsigned cur, pend;
        /* through ok(): a GPU lost here is lost (it was shown as working) */
        if (ok(s, d, s->f.mig_mode(d->h, &cur, &pend), "nvmlDeviceGetMigMode"))
            d->mig_mode = cur == NVML_DEVICE_MIG_ENABLE;
    }
}

static int add_dev(struct nvml *s, int *cap, struct dev **out)
{
    if (s->ndev == *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        struct dev *nd = realloc(s->dev, (size_t)ncap * sizeof(*nd));
        if (!nd)
            return -1;
        s->dev = nd;
        *cap = ncap;
    }
    *out = &s->dev[s->ndev];
    memset(*out, 0, sizeof(**out));
    (*out)->index = s->ndev++;
    (*out)->parent = -1;
    (*out)->gi_id = (*out)->ci_id = -1;
    (*out)->mig_mode = -1;
    return 0;
}

static int enumerate(struct nvml *s, struct wt_err *err)
{
    unsigned count = 0;
    nvmlReturn_t rc = s->f.count(&count);
    if (rc != NVML_SUCCESS)
        return wt_errf(err, WT_EIO, "cannot count NVIDIA GPUs: %s", nvml_str(s, rc));
    if (count == 0)
        return wt_errf(err, WT_ENODEV, "the NVIDIA driver reports no GPU");
    if (count > WT_MAX_GPUS)
        count = WT_MAX_GPUS;
    int cap = 0, usable = 0;
    for (unsigned i = 0; i < count; i++) {
        struct dev *d;
        if (add_dev(s, &cap, &d))
            return wt_errf(err, WT_ENOMEM, "out of memory");
        rc = s->f.handle(i, &d->h);
        if (rc != NVML_SUCCESS) {
            d->unusable = 1;
            /* nothing of it is known: not zeros */
            d->mem_total_mib = d->limit_w = d->default_limit_w = d->sm_max_mhz = NAN;
            for (int t = 0; t < 3; t++)
                d->period[t] = NAN;
            snprintf(d->name, sizeof(d->name), "unknown");
            snprintf(d->why, sizeof(d->why), "GPU %u cannot be opened: %s", i, nvml_str(s, rc));
            continue;
        }
        probe_device(s, d);
        usable += !d->unusable;
    }
    /* MIG devices of GPUs in MIG mode, after the physical GPUs */
    for (unsigned i = 0; i < count && s->f.max_mig && s->f.mig_handle; i++) {
        if (s->dev[i].unusable || s->dev[i].mig_mode != 1)
            continue;
        unsigned nmig = 0;
        /* a failure other than an empty slot is said (the GPU's notes):
         * its MIG devices were missing without a word */
        nvmlReturn_t mrc = s->f.max_mig(s->dev[i].h, &nmig);
        if (mrc != NVML_SUCCESS) {
            snprintf(s->dev[i].mig_why, sizeof(s->dev[i].mig_why),
                     "nvmlDeviceGetMaxMigDeviceCount: %.60s", nvml_str(s, mrc));
            continue;
        }
        for (unsigned k = 0; k < nmig && s->ndev < WT_MAX_GPUS; k++) {
            nvmlDevice_t mh;
            mrc = s->f.mig_handle(s->dev[i].h, k, &mh);
            if (mrc != NVML_SUCCESS) {
                if (mrc != NVML_ERROR_NOT_FOUND && !s->dev[i].mig_why[0]) /* not an empty slot */
                    snprintf(s->dev[i].mig_why, sizeof(s->dev[i].mig_why),
                             "nvmlDeviceGetMigDeviceHandleByIndex: %.60s", nvml_str(s, mrc));
                continue;
            }
            struct dev *d;
            if (add_dev(s, &cap, &d))
                return wt_errf(err, WT_ENOMEM, "out of memory");
            d->h = mh;
            d->is_mig = 1;
            d->parent = (int)i;
            unsigned gi = 0;
            d->gi_id = s->f.gi_id && s->f.gi_id(mh, &gi) == NVML_SUCCESS ? (int)gi : -1;
            /* a GPU instance may hold several compute instances, each
             * enumerated as a MIG device */
            d->ci_id = s->f.ci_id && s->f.ci_id(mh, &gi) == NVML_SUCCESS ? (int)gi : -1;
            probe_device(s, d);
            d->mig_mode = -1;
            usable += !d->unusable;
        }
    }
    if (!usable)
        return wt_errf(err, WT_EIO, "no NVIDIA GPU could be opened: %s", s->dev[0].why);
    return WT_OK;
}

/* ------------------------------------------------------------- sampling */

/* Queues a row: 1 taken, 0 dropped (not after the GPU's last row, or a queue
 * nobody reads is full), -1 out of memory. */
static int push(struct dev *d, const struct wt_sample *in)
{
    if (in->t_s <= d->last_t)
        return 0; /* keep each GPU's time strictly increasing */
    /* a driver's bogus reading (a buffered utilization of 4294967295 %, say)
     * is not measured: kept, it would move the features, and the trace
     * recorded from it could not be read back */
    struct wt_sample clean = *in;
    const struct wt_sample *smp = &clean;
    for (int c = 0; c < WT_NCOLS; c++) {
        double lo, hi;
        wt_col_range((enum wt_col)c, &lo, &hi);
        if (clean.v[c] < lo || clean.v[c] > hi)
            clean.v[c] = NAN;
    }
    if (d->qhead > 0 && d->qhead >= d->qlen / 2) {
        memmove(d->q, d->q + d->qhead, (d->qlen - d->qhead) * sizeof(*d->q));
        d->qlen -= d->qhead;
        d->qhead = 0;
    }
    if (!d->read && d->qlen - d->qhead >= UNREAD_QUEUE)
        d->qhead++; /* a GPU nobody has asked about (record --gpus 0 on a host
                     * of 8): its newest rows only, not 30 MB of them */
    if (d->qlen - d->qhead >= MAX_QUEUE)
        return 0; /* its reader has stopped reading: drop rather than grow */
    if (d->qlen == d->qcap) {
        size_t ncap = d->qcap ? d->qcap * 2 : 64;
        struct wt_sample *nq = realloc(d->q, ncap * sizeof(*nq));
        if (!nq)
            return -1;
        d->q = nq;
        d->qcap = ncap;
    }
    d->q[d->qlen++] = *smp;
    d->last_t = smp->t_s;
    if (!d->rows++)
        d->first_t = smp->t_s;
    return 1;
}

/* Drains one sample buffer into s->buf[type]; returns the count (0 if empty
 * or unsupported). */
static unsigned drain(struct nvml *s, struct dev *d, int type, int *vtype)
{
    if (!s->f.samples || !d->buf_ok[type])
        return 0;
    unsigned n = 0;
    nvmlReturn_t rc = s->f.samples(d->h, type, d->seen[type], vtype, &n, NULL);
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE) {
        /* the codes that turn a buffer off at the probe turn it off here
         * too (NO_PERMISSION held rows back 3 polls at every poll) */
        if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_NO_PERMISSION ||
            rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_INVALID_ARGUMENT)
            d->buf_ok[type] = 0;
        else if (rc != NVML_ERROR_NOT_FOUND)
            d->drain_failed |= 1u << type; /* its readings are still there */
        ok(s, d, rc, "nvmlDeviceGetSamples");
        return 0;
    }
    if (n == 0)
        return 0;
    rc = fetch(s, d->h, type, d->seen[type], vtype, &n);
    /* empty by the fetch ("no entries"), as by the size query: a size query
     * that counts the whole ring, not the readings after seen[], answers
     * before a fetch that finds none new; a failed drain there held an idle
     * GPU's rows back 3 polls at each turn from busy to idle */
    if (rc == NVML_ERROR_NOT_FOUND)
        return 0;
    if (!ok(s, d, rc, "nvmlDeviceGetSamples")) {
        d->drain_failed |= 1u << type;
        return 0;
    }
    const nvmlSample_t *out = s->buf[type];
    for (unsigned i = 0; i < n; i++)
        if (out[i].timeStamp > d->seen[type])
            d->seen[type] = out[i].timeStamp;
    return n;
}

/* Sorts n readings oldest first, keeping the order of equal time stamps (a
 * driver's ring that wrapped gives two sorted runs).  A drain can now hold
 * up to BUF_SAMPLES_LIMIT readings: the insertion sort and a scan of the
 * buffer per reading made a poll quadratic (20,000 readings: 1.6 s of CPU). */
static void sort_readings(nvmlSample_t *b, unsigned n)
{
    unsigned i = 1;
    while (i < n && b[i - 1].timeStamp <= b[i].timeStamp)
        i++;
    if (i >= n)
        return; /* the usual case: in order already */
    nvmlSample_t *tmp = malloc((size_t)n * sizeof(*tmp));
    if (!tmp) { /* out of memory: slow, still right */
        for (i = 1; i < n; i++)
            for (unsigned j = i; j > 0 && b[j - 1].timeStamp > b[j].timeStamp; j--) {
                nvmlSample_t t = b[j];
                b[j] = b[j - 1];
                b[j - 1] = t;
            }
        return;
    }
    /* bottom-up merge sort: stable */
    for (unsigned w = 1; w < n; w *= 2) {
        for (unsigned lo = 0; lo < n; lo += 2 * w) {
            unsigned mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            unsigned a = lo, c = mid, k = lo;
            while (a < mid && c < hi)
                tmp[k++] = b[c].timeStamp < b[a].timeStamp ? b[c++] : b[a++];
            while (a < mid)
                tmp[k++] = b[a++];
            while (c < hi)
                tmp[k++] = b[c++];
        }
        memcpy(b, tmp, (size_t)n * sizeof(*b));
        if (w > n / 2)
            break;
    }
    free(tmp);
}

/* Value of the buffered sample nearest to time t (buffer seconds), NaN if
 * none within NEAREST_S; b is sorted oldest first (sort_readings).  Of two
 * as near, the later one, as a scan of the whole buffer took it. */
static double nearest(const nvmlSample_t *b, unsigned n, int vtype, double t, double scale)
{
    unsigned lo = 0, hi = n; /* the first reading after t */
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if ((double)b[mid].timeStamp * 1e-6 > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    double best = NAN, bd = NEAREST_S;
    if (lo > 0) { /* the last reading at or before t */
        double dt = fabs((double)b[lo - 1].timeStamp * 1e-6 - t);
        if (dt <= bd) {
            bd = dt;
            best = value_of(vtype, b[lo - 1].sampleValue) * scale;
        }
    }
    if (lo < n) { /* after t: the last of the readings at that time stamp */
        unsigned j = lo, k = n;
        while (j + 1 < k) { /* the first after that time stamp is k */
            unsigned mid = j + (k - j) / 2;
            if (b[mid].timeStamp > b[lo].timeStamp)
                k = mid;
            else
                j = mid;
        }
        double dt = fabs((double)b[j].timeStamp * 1e-6 - t);
        if (dt <= bd)
            best = value_of(vtype, b[j].sampleValue) * scale;
    }
    return best;
}

/* A GPU that stops answering (NVML_ERROR_UNKNOWN, or another code ok() does
 * not know, on every call) gave rows measuring nothing but the settings
 * carried from earlier reads, for the rest of the run, and looked alive to
 * watch and record.  Once its polls have measured nothing for SILENT_POLLS
 * polls in a row and SILENT_S seconds it is taken as lost (its reader is told
 * why), as one that answers no query at start is not used.  1 when it just
 * was. */
static int silent(struct dev *d, const struct wt_sample *pt, const unsigned n[3])
{
    int nothing = !n[0] && !n[1] && !n[2];
    for (int c = 0; c < WT_NCOLS && nothing; c++)
        if (c != WT_COL_POWER_DEFAULT_LIMIT && c != WT_COL_SM_CLOCK_MAX && wt_measured(pt->v[c]))
            nothing = 0;
    if (!nothing) {
        d->silent_polls = 0;
        return 0;
    }
    double now = wt_mono_s();
    if (!d->silent_polls++)
        d->silent_since = now;
    if (d->silent_polls < SILENT_POLLS || now - d->silent_since < SILENT_S)
        return 0;
    d->lost = 1;
    snprintf(d->why, sizeof(d->why),
             "GPU %d (%.48s%s%.16s) has answered no query for %.0f s (%d polls): not read further",
             d->index, d->name[0] ? d->name : "name not read", d->bus[0] ? ", " : "", d->bus,
             now - d->silent_since, d->silent_polls);
    return 1;
}

static void poll_dev(struct nvml *s, struct dev *d, double now)
{
    struct wt_sample pt;
    nvmlReturn_t rc;
    unsigned int u;
    unsigned long long ull;
    wt_sample_clear(&pt, d->index);
    pt.t_s = now - s->t0;
    nvmlUtilization_t ut;
    if (s->f.util && ok(s, d, s->f.util(d->h, &ut), "nvmlDeviceGetUtilizationRates")) {
        pt.v[WT_COL_UTIL_GPU] = ut.gpu;
        pt.v[WT_COL_UTIL_MEM] = ut.memory;
    }
    nvmlMemory_v2_t m2 = {.version = nvmlMemory_v2};
    nvmlMemory_t m1;
    /* the call the device answered first, only: a failed read is not
     * measured (mem_api) */
    if (d->mem_api != 1 && s->f.mem2 &&
        ok(s, d, s->f.mem2(d->h, &m2), "nvmlDeviceGetMemoryInfo_v2")) {
        pt.v[WT_COL_MEM_USED] = (double)m2.used / 1048576.0;
        pt.v[WT_COL_MEM_TOTAL] = (double)m2.total / 1048576.0;
        d->mem_api = 2;
    } else if (d->mem_api != 2 && !d->lost && s->f.mem &&
               ok(s, d, s->f.mem(d->h, &m1), "nvmlDeviceGetMemoryInfo")) {
        pt.v[WT_COL_MEM_USED] = (double)m1.used / 1048576.0;
        pt.v[WT_COL_MEM_TOTAL] = (double)m1.total / 1048576.0;
        d->mem_api = 1;
    }
    /* a total of 0 is unified memory (the driver's answer on DGX Spark-class
     * boards): its "used" is no device memory either, so neither is measured */
    if (pt.v[WT_COL_MEM_TOTAL] == 0)
        pt.v[WT_COL_MEM_USED] = pt.v[WT_COL_MEM_TOTAL] = NAN;
    /* a MIG device: what the driver answers for power, energy, clocks,
     * temperature, reasons and PCIe is the whole GPU's, not recorded (below),
     * so not asked either (PCIe throughput alone takes 20 ms a call) */
    const int whole_gpu = !d->is_mig;
    if (!whole_gpu) {
        /* nothing: the settings below only */
    } else if (d->instant_ok) {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof(fv));
        fv.fieldId = NVML_FI_DEV_POWER_INSTANT;
        rc = s->f.fields(d->h, 1, &fv);
        if (ok(s, d, rc, "nvmlDeviceGetFieldValues") && fv.nvmlReturn == NVML_SUCCESS)
            pt.v[WT_COL_POWER] = value_of(fv.valueType, fv.value) / 1000.0;
    } else if (s->f.power_usage &&
               ok(s, d, s->f.power_usage(d->h, &u), "nvmlDeviceGetPowerUsage")) {
        pt.v[WT_COL_POWER] = u / 1000.0;
    }
    if (s->f.enforced_limit &&
        ok(s, d, s->f.enforced_limit(d->h, &u), "nvmlDeviceGetEnforcedPowerLimit"))
        pt.v[WT_COL_POWER_LIMIT] = u / 1000.0;
    /* the default limit and the maximum SM clock are settings: read at every
     * poll, the last value read stands for a failed read (probed only at
     * start, one failed call there left a GPU without its tamper indicators
     * and limit ratio for the whole run) */
    double lo, hi;
    if (s->f.default_limit &&
        ok(s, d, s->f.default_limit(d->h, &u), "nvmlDeviceGetPowerManagementDefaultLimit")) {
        wt_col_range(WT_COL_POWER_DEFAULT_LIMIT, &lo, &hi);
        if (u / 1000.0 >= lo && u / 1000.0 <= hi)
            d->default_limit_w = u / 1000.0;
    }
    pt.v[WT_COL_POWER_DEFAULT_LIMIT] = d->default_limit_w;
    if (whole_gpu && s->f.energy &&
        ok(s, d, s->f.energy(d->h, &ull), "nvmlDeviceGetTotalEnergyConsumption"))
        pt.v[WT_COL_ENERGY] = (double)ull / 1000.0;
    if (whole_gpu && s->f.clock &&
        ok(s, d, s->f.clock(d->h, NVML_CLOCK_SM, &u), "nvmlDeviceGetClockInfo"))
        pt.v[WT_COL_SM_CLOCK] = u;
    if (whole_gpu && s->f.clock &&
        ok(s, d, s->f.clock(d->h, NVML_CLOCK_MEM, &u), "nvmlDeviceGetClockInfo"))
        pt.v[WT_COL_MEM_CLOCK] = u;
    if (s->f.max_clock &&
        ok(s, d, s->f.max_clock(d->h, NVML_CLOCK_SM, &u), "nvmlDeviceGetMaxClockInfo")) {
        wt_col_range(WT_COL_SM_CLOCK_MAX, &lo, &hi);
        if (u >= lo && u <= hi)
            d->sm_max_mhz = u;
    }
    pt.v[WT_COL_SM_CLOCK_MAX] = d->sm_max_mhz;
    if (whole_gpu && s->f.reasons &&
        ok(s, d, s->f.reasons(d->h, &ull), "nvmlDeviceGetCurrentClocksEventReasons"))
        pt.v[WT_COL_CLOCK_REASONS] = (double)(ull & ((1ULL << 53) - 1));
    /* the versioned call first (the old one is deprecated from NVML 13);
     * the old one where the new one does not answer */
    nvmlTemperature_v1_t tv = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
    nvmlReturn_t trc = !whole_gpu    ? NVML_ERROR_NOT_SUPPORTED
                       : s->f.temp_v ? s->f.temp_v(d->h, &tv)
                                     : NVML_ERROR_FUNCTION_NOT_FOUND;
    if (trc == NVML_SUCCESS)
        pt.v[WT_COL_TEMP] = tv.temperature;
    else if (!ok(s, d, trc, "nvmlDeviceGetTemperatureV") && !d->lost && whole_gpu && s->f.temp &&
             ok(s, d, s->f.temp(d->h, NVML_TEMPERATURE_GPU, &u), "nvmlDeviceGetTemperature"))
        pt.v[WT_COL_TEMP] = u;
    if (whole_gpu && s->f.pcie &&
        ok(s, d, s->f.pcie(d->h, NVML_PCIE_UTIL_TX_BYTES, &u), "nvmlDeviceGetPcieThroughput"))
        pt.v[WT_COL_PCIE_TX] = u / 1024.0;
    if (whole_gpu && s->f.pcie &&
        ok(s, d, s->f.pcie(d->h, NVML_PCIE_UTIL_RX_BYTES, &u), "nvmlDeviceGetPcieThroughput"))
        pt.v[WT_COL_PCIE_RX] = u / 1024.0;
    /* the process count: a size query */
    if (s->f.proc_detail || s->f.procs_v3 || s->f.procs_v2 || s->f.procs_v1) {
        unsigned n = 0;
        rc = NVML_ERROR_NOT_SUPPORTED;
        if (s->f.proc_detail) {
            nvmlProcessDetailList_v1_t l = {nvmlProcessDetailList_v1, NVML_PROCESS_MODE_COMPUTE, 0,
                                            NULL};
            rc = s->f.proc_detail(d->h, &l);
            n = l.numProcArrayEntries;
        }
        /* the older calls in turn when the detail list is missing (drivers
         * before the 12.2-era 535 ones) or fails, as the process listing
         * does */
        nvml_dev_procs_fn older[] = {s->f.procs_v3, s->f.procs_v2, s->f.procs_v1};
        for (int k = 0; k < 3; k++)
            if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE &&
                rc != NVML_ERROR_GPU_IS_LOST && older[k]) {
                n = 0;
                rc = older[k](d->h, &n, NULL);
            }
        if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE)
            pt.v[WT_COL_PROCS] = n;
        else
            ok(s, d, rc, "the process list");
    }
    if (d->lost)
        return;
    if (d->is_mig) {
        /* what the driver answers on a MIG device for these is the whole
         * GPU's, load of the sibling instances included: a slice with no
         * process of its own was classified from its neighbour's power.
         * Not measured; the limits and the maximum clock (settings of the
         * whole GPU, which the tamper indicators read) stay. */
        static const enum wt_col whole[] = {WT_COL_POWER,     WT_COL_ENERGY,       WT_COL_SM_CLOCK,
                                            WT_COL_MEM_CLOCK, WT_COL_TEMP,         WT_COL_PCIE_TX,
                                            WT_COL_PCIE_RX,   WT_COL_CLOCK_REASONS};
        for (size_t k = 0; k < sizeof(whole) / sizeof(whole[0]); k++)
            pt.v[whole[k]] = NAN;
    }

    /* the driver's sample buffers */
    int vt[3] = {NVML_VALUE_TYPE_UNSIGNED_INT, NVML_VALUE_TYPE_UNSIGNED_INT,
                 NVML_VALUE_TYPE_UNSIGNED_INT};
    unsigned n[3];
    d->drain_failed = 0;
    /* utilization first: a failed drain of a buffer that works leaves this
     * poll without a row (below), and the power and memory buffers undrained,
     * so that their readings come with the utilization readings they go with
     * (drained now, they were gone, and the delayed rows took the power of
     * a poll 1.8 s later) */
    const int U = NVML_GPU_UTILIZATION_SAMPLES;
    n[U] = drain(s, d, U, &vt[U]);
    int failed = (d->drain_failed >> U) & 1;
    int defer = n[U] == 0 && failed && d->drains_failed < MAX_DRAINS_FAILED;
    for (int t = 0; t < 3; t++)
        if (t != U)
            n[t] = defer ? 0 : drain(s, d, t, &vt[t]);
    if (d->lost)
        return;
    if (silent(d, &pt, n))
        return;
    /* a failed drain of a utilization buffer that works: its readings come
     * with the next one; a row for this poll now would be later than them,
     * and they would all be dropped (an --interval of readings lost to one
     * failed call).  A buffer that keeps failing gives poll rows again. */
    d->drains_failed = failed ? d->drains_failed + 1 : 0;
    if (defer)
        return;
    /* the buffers were read now: their newest reading is at most this old
     * (with the time the poll began, the calls on this GPU, and on the GPUs
     * polled before it, made every reading look older than it was) */
    now = wt_mono_s();
    unsigned long long newest = 0;
    for (int t = 0; t < 3; t++)
        for (unsigned i = 0; i < n[t]; i++)
            if (s->buf[t][i].timeStamp > newest)
                newest = s->buf[t][i].timeStamp;
    if (newest) {
        /* a new reading is at most as old as the previous poll: a larger
         * lag is a stale newest reading (the buffers stopped between polls,
         * slower than REANCHOR_S), not a clock step; a reading from the
         * future is always one */
        double cand = now - (double)newest * 1e-6;
        double stale = wt_measured(d->last_poll) ? now - d->last_poll + 0.5 : 0;
        if (!d->have_offset || cand < d->offset - REANCHOR_S ||
            cand > d->offset + (stale > REANCHOR_S ? stale : REANCHOR_S)) {
            d->offset = cand;
            d->have_offset = 1;
            d->buf_epoch = (double)newest >= 1e15;
        }
    }
    d->last_poll = now;
    unsigned nu = n[NVML_GPU_UTILIZATION_SAMPLES];
    nvmlSample_t *ub = s->buf[NVML_GPU_UTILIZATION_SAMPLES];
    if (nu == 0) {
        /* no new reading yet while the buffer still runs (a poll faster than
         * the driver's period): no row, rather than a copy of the last one */
        double per = d->period[NVML_GPU_UTILIZATION_SAMPLES];
        if (!wt_measured(per))
            per = d->buf_step; /* not known at start: as seen since */
        if (wt_measured(per) && per > MAX_BUF_PERIOD_S)
            per = MAX_BUF_PERIOD_S; /* a longer spacing is a gap, not the period */
        if (wt_measured(per) && wt_measured(d->last_buf_t) &&
            pt.t_s - d->last_buf_t < 2 * per + 0.05)
            return;
        /* the stop's last poll collects buffered readings; without any it
         * is no sample of its own so soon after the last (a copy of it, a
         * millisecond later, that also raised the achieved rate) */
        if (s->drained && wt_measured(d->last_t) && pt.t_s - d->last_t < 0.5 * s->interval)
            return;
        /* no sub-second series this time: the poll is the sample */
        sort_readings(s->buf[0], n[0]);
        if (n[NVML_TOTAL_POWER_SAMPLES]) {
            double p = nearest(s->buf[0], n[0], vt[0], (double)newest * 1e-6, 1e-3);
            if (wt_measured(p) && !d->instant_ok && !wt_measured(pt.v[WT_COL_POWER]))
                pt.v[WT_COL_POWER] = p;
        }
        push(d, &pt);
        return;
    }
    /* oldest first */
    sort_readings(ub, nu);
    sort_readings(s->buf[0], n[0]);
    sort_readings(s->buf[2], n[2]);
    for (unsigned i = 0; i < nu; i++) {
        struct wt_sample row = pt;
        double tb = (double)ub[i].timeStamp * 1e-6;
        row.t_s = tb + d->offset - s->t0;
        if (row.t_s < 0)
            continue; /* a reading from before the run */
        row.v[WT_COL_UTIL_GPU] = value_of(vt[1], ub[i].sampleValue);
        double mu = nearest(s->buf[2], n[2], vt[2], tb, 1);
        if (wt_measured(mu))
            row.v[WT_COL_UTIL_MEM] = mu;
        double p = nearest(s->buf[0], n[0], vt[0], tb, 1e-3);
        if (wt_measured(p))
            row.v[WT_COL_POWER] = p;
        /* the energy counter was read at the poll: on the newest row only,
         * not on rows of readings taken up to a poll earlier */
        if (i + 1 < nu)
            row.v[WT_COL_ENERGY] = NAN;
        if (push(d, &row) <= 0)
            continue; /* not taken (not after the last row, or a full queue) */
        /* the spacing of readings, as the period when it was not known at
         * start: a gap (an idle GPU whose buffer stops) is not one */
        double step = row.t_s - d->last_buf_t;
        if (wt_measured(step) && step > 0 && step <= MAX_BUF_PERIOD_S)
            d->buf_step = step;
        d->last_buf_t = row.t_s;
    }
}

static void poll_all(struct nvml *s)
{
    /* each GPU's own time (a wall clock stepped back must not move t_s):
     * after slow calls on the GPUs before it, one time for all put its
     * poll's row earlier than it was read */
    for (int i = 0; i < s->ndev; i++)
        if (!s->dev[i].lost && !s->dev[i].unusable && !s->dev[i].ignored)
            poll_dev(s, &s->dev[i], wt_mono_s());
}

/* Sleeps until the next poll is due; returns -1 when asked to stop.  The
 * stop flag is looked at every 0.1 s: another thread (an MCP cancel) sets it
 * without a signal to cut the sleep short. */
static int wait_tick(struct nvml *s)
{
    for (;;) {
        if (s->stop && *s->stop)
            return -1;
        double now = wt_mono_s(), left = s->next_tick - now;
        if (left <= 0)
            break;
        if (left > 0.1)
            left = 0.1;
        struct timespec ts = {(time_t)left, (long)((left - floor(left)) * 1e9)};
        if (nanosleep(&ts, NULL) != 0 && errno != EINTR)
            break;
    }
    double now = wt_mono_s();
    s->next_tick += s->interval;
    if (s->next_tick < now) /* fell behind: do not try to catch up */
        s->next_tick = now + s->interval;
    return 0;
}

/* ------------------------------------------------------------- vtable */

static void nvml_free(struct nvml *s)
{
    if (!s)
        return;
    if (s->lib && s->f.shutdown)
        s->f.shutdown();
    if (s->dev)
        for (int i = 0; i < s->ndev; i++)
            free(s->dev[i].q);
    free(s->dev);
    for (int t = 0; t < 3; t++)
        free(s->buf[t]);
    if (s->lib)
        dlclose(s->lib);
    free(s);
}

static int nvml_open(struct wt_source *src, const struct wt_source_config *cfg, struct wt_err *err)
{
    struct nvml *s = calloc(1, sizeof(*s));
    int rc;
    if (!s)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    s->t0 = wt_mono_s(); /* t_s counts from here, on the monotonic clock */
    const char *path = cfg->nvml_lib;
    if (!path || !*path)
        path = getenv("WT_NVML_LIB");
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    if ((rc = load(s, path, err)) != WT_OK) {
        s->f.shutdown = NULL; /* never initialized: nothing to shut down */
        goto fail;
    }
    nvmlReturn_t r = s->f.init();
    if (r != NVML_SUCCESS) {
        s->f.shutdown = NULL; /* nothing to shut down */
        if (r == NVML_ERROR_DRIVER_NOT_LOADED)
            rc = wt_errf(err, WT_ENODEV, "the NVIDIA kernel driver is not loaded (%s)",
                         nvml_str(s, r));
        else if (r == NVML_ERROR_LIB_RM_VERSION_MISMATCH)
            rc = wt_errf(err, WT_EIO,
                         "the NVML library '%s' and the loaded kernel driver are different "
                         "versions (%s): reboot, or reload the nvidia kernel module",
                         path, nvml_str(s, r));
        else if (r == NVML_ERROR_NO_PERMISSION)
            rc =
                wt_errf(err, WT_EIO, "no permission to use the NVIDIA driver (%s)", nvml_str(s, r));
        else
            rc = wt_errf(err, WT_EIO, "NVML initialization failed: %s", nvml_str(s, r));
        goto fail;
    }
    parse_driver(s);
    for (int t = 0; t < 3; t++)
        if (!(s->buf[t] = calloc((s->bufcap[t] = MAX_BUF_SAMPLES), sizeof(nvmlSample_t)))) {
            rc = wt_errf(err, WT_ENOMEM, "out of memory");
            goto fail;
        }
    if ((rc = enumerate(s, err)) != WT_OK)
        goto fail;
    s->interval = cfg->interval_s > 0 ? cfg->interval_s : 1.0;
    s->next_tick = wt_mono_s();
    s->stop = cfg->stop;
    src->priv = s;
    return WT_OK;
fail:
    nvml_free(s);
    return rc;
}

static int nvml_count(struct wt_source *src, int *count, struct wt_err *err)
{
    (void)err;
    *count = ((struct nvml *)src->priv)->ndev;
    return WT_OK;
}

static struct dev *get_dev(struct nvml *s, int gpu, struct wt_err *err)
{
    if (gpu < 0 || gpu >= s->ndev) {
        wt_errf(err, WT_ENODEV, "no GPU %d (this host has %d)", gpu, s->ndev);
        return NULL;
    }
    return &s->dev[gpu];
}

static int nvml_info(struct wt_source *src, int gpu, struct wt_device_info *info,
                     struct wt_err *err)
{
    struct nvml *s = src->priv;
    struct dev *d = get_dev(s, gpu, err);
    if (!d)
        return WT_ENODEV;
    d->read = 1; /* asked about: its rows will be read (watch reads its GPUs in turn) */
    info->index = gpu;
    info->is_mig = d->is_mig;
    info->parent = d->parent;
    info->gpu_instance_id = d->is_mig ? d->gi_id : -1;
    info->compute_instance_id = d->is_mig ? d->ci_id : -1;
    if (d->is_mig) {
        /* NVML names a MIG device "<parent's name> MIG <profile>" */
        const char *p = strstr(d->name, " MIG ");
        snprintf(info->mig_profile, sizeof(info->mig_profile), "%s", p ? p + 5 : "");
        if (d->parent >= 0 && d->parent < s->ndev)
            snprintf(info->parent_uuid, sizeof(info->parent_uuid), "%s", s->dev[d->parent].uuid);
    }
    info->mig_mode = d->mig_mode;
    snprintf(info->name, sizeof(info->name), "%s", d->name);
    snprintf(info->uuid, sizeof(info->uuid), "%s", d->uuid);
    snprintf(info->pci_bus_id, sizeof(info->pci_bus_id), "%s", d->bus);
    snprintf(info->driver_version, sizeof(info->driver_version), "%s", s->driver);
    info->mem_total_mib = d->mem_total_mib;
    double span = d->last_t - d->first_t;
    info->achieved_hz = d->rows > 1 && span > 0 ? (double)(d->rows - 1) / span : NAN;
    info->util_buffer_period_s = d->period[NVML_GPU_UTILIZATION_SAMPLES];
    info->power_buffer_period_s = d->period[NVML_TOTAL_POWER_SAMPLES];
    info->power_limit_w = d->limit_w;
    info->power_default_limit_w = d->default_limit_w;
    snprintf(info->power_semantics, sizeof(info->power_semantics), "%s",
             d->unusable || d->power_unprobed || d->is_mig ? "unknown" /* MIG: no power */
             : d->instant_ok                               ? "instant"
             : d->power_unnamed                            ? "unknown"
             : d->power_avg1s                              ? "avg1s"
                                                           : "instant");
    info->unusable = d->unusable || (d->lost && d->rows == 0); /* lost before any reading */
    info->sample_buffers =
        d->buf_ok[NVML_GPU_UTILIZATION_SAMPLES] || d->buf_ok[NVML_TOTAL_POWER_SAMPLES];
    if (d->unusable || d->lost)
        snprintf(info->notes, sizeof(info->notes), "%s", d->why);
    else if (d->is_mig)
        snprintf(info->notes, sizeof(info->notes),
                 "MIG device of GPU %d: no utilization, sample buffers or per-process "
                 "utilization on MIG; power, energy, clocks, temperature, PCIe: the whole "
                 "GPU's, not recorded",
                 d->parent);
    else if (d->mig_mode == 1)
        /* NVML refuses utilization on a GPU in MIG mode */
        snprintf(info->notes, sizeof(info->notes),
                 "MIG mode: power, energy and processes are its instances' together%s%s",
                 d->mig_why[0] ? "; MIG devices not listed: " : "", d->mig_why);
    else if (!d->buf_ok[NVML_GPU_UTILIZATION_SAMPLES])
        snprintf(info->notes, sizeof(info->notes),
                 "no utilization sample buffer: one sample per poll");
    return WT_OK;
}

static int nvml_read(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap, size_t *n,
                     struct wt_err *err)
{
    struct nvml *s = src->priv;
    struct dev *d = get_dev(s, gpu, err);
    if (!d)
        return WT_ENODEV;
    d->read = 1;
    for (;;) {
        if (d->qlen > d->qhead) {
            size_t k = d->qlen - d->qhead;
            if (k > cap)
                k = cap;
            memcpy(buf, d->q + d->qhead, k * sizeof(*buf));
            d->qhead += k;
            *n = k;
            return WT_OK;
        }
        if (d->unusable || d->lost)
            return wt_errf(err, WT_ENODEV, "%s", d->why);
        if (wait_tick(s) != 0) {
            /* asked to stop: the readings the driver buffered since the last
             * poll (up to an --interval of them) are drained once, not
             * dropped; then the queues empty and the stream ends */
            if (s->drained)
                return WT_DONE;
            s->drained = 1;
            poll_all(s);
            continue;
        }
        poll_all(s);
    }
}

/* Without an anchor (no poll yet: `gpus`, the first window of `watch`), a
 * per-process sample asked for with lastSeenTimeStamp 0 may be from any time
 * the driver still holds (the last period the process was busy, minutes
 * ago): it counts as "the last second" only when it is within 2 s of now on
 * the clock its size says it is on (epoch microseconds from 1e15 on, about
 * 2001; else time since boot). */
static int fresh(unsigned long long ts)
{
    struct timespec t;
    if (clock_gettime((double)ts >= 1e15 ? CLOCK_REALTIME : CLOCK_BOOTTIME, &t) != 0)
        return 1;
    double now = (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
    return (double)ts >= now - 2e6;
}

/* Whether a per-process sample stamped ts (us) is from the last second:
 * on the sample buffers' clock (since_s, the driver's seconds a second ago)
 * when ts counts from the same origin as theirs, else fresh(). */
static int in_last_second(const struct dev *d, unsigned long long ts, double since_s)
{
    if (d->have_offset && ((double)ts >= 1e15) == d->buf_epoch && !isnan(since_s))
        return (double)ts * 1e-6 >= since_s;
    return fresh(ts);
}

/* The entries to ask for next when `have` were too few and the driver said
 * it needs `said`: said + said/2 + 8 (headroom for the processes that start
 * meanwhile, as nvitop's count * 2 + 5), else twice as many; at most
 * MAX_PROCS_ALL. */
static unsigned grown(unsigned have, unsigned said)
{
    unsigned long long want = (unsigned long long)said + said / 2 + 8;
    if (want <= have)
        want = (unsigned long long)have * 2;
    return want > MAX_PROCS_ALL ? MAX_PROCS_ALL : (unsigned)want;
}

static int nvml_processes(struct wt_source *src, int gpu, struct wt_proc *out, size_t cap,
                          size_t *n, size_t *total, struct wt_err *err)
{
    struct nvml *s = src->priv;
    struct dev *d = get_dev(s, gpu, err);
    nvmlReturn_t rc = NVML_ERROR_NOT_SUPPORTED;
    unsigned count = 0;
    *n = 0;
    if (!d)
        return WT_ENODEV;
    if (d->unusable || d->lost)
        return wt_errf(err, WT_ENODEV, "%s", d->why);
    /* raw entries, up to 32 bytes each: MAX_PROCS first, and, when the
     * driver answers that they do not fit, as many as it says (a few tries:
     * processes may start between them) */
    unsigned rawcap = MAX_PROCS;
    unsigned char *raw = NULL;
    size_t stride = 0;
    for (int attempt = 0;; attempt++) {
        unsigned char *nr = realloc(raw, (size_t)rawcap * 32);
        if (!nr) {
            free(raw);
            return wt_errf(err, WT_ENOMEM, "out of memory");
        }
        raw = nr;
        unsigned said = 0; /* entries a call that found the buffer short asked for */
        rc = NVML_ERROR_NOT_SUPPORTED;
        stride = 0;
        if (s->f.proc_detail) {
            nvmlProcessDetailList_v1_t l = {nvmlProcessDetailList_v1, NVML_PROCESS_MODE_COMPUTE,
                                            rawcap, (nvmlProcessDetail_v1_t *)raw};
            rc = s->f.proc_detail(d->h, &l);
            if (rc == NVML_SUCCESS) {
                count = l.numProcArrayEntries;
                stride = sizeof(nvmlProcessDetail_v1_t);
            } else if (rc == NVML_ERROR_INSUFFICIENT_SIZE && l.numProcArrayEntries > said) {
                said = l.numProcArrayEntries;
            }
        }
        if (!stride && s->f.procs_v3) {
            count = rawcap;
            rc = s->f.procs_v3(d->h, &count, raw);
            if (rc == NVML_ERROR_INSUFFICIENT_SIZE && count > said)
                said = count;
            /* 535.43-535.85 wrote 32-byte entries into _v3; nvitop's symbol
             * test catches the drivers whose version string we could not read */
            stride = (s->trap535 || (!s->driver[0] && s->f.conf_compute && !s->f.proc_detail))
                         ? sizeof(nvmlProcessDetail_v1_t)
                         : sizeof(nvmlProcessInfo_v2_t);
        }
        /* the older lists, in turn, while none has answered */
        const nvml_dev_procs_fn older[2] = {s->f.procs_v2, s->f.procs_v1};
        const size_t older_stride[2] = {sizeof(nvmlProcessInfo_v2_t), sizeof(nvmlProcessInfo_v1_t)};
        for (int k = 0; k < 2; k++) {
            if (rc == NVML_SUCCESS || !older[k])
                continue;
            count = rawcap;
            rc = older[k](d->h, &count, raw);
            if (rc == NVML_ERROR_INSUFFICIENT_SIZE && count > said)
                said = count;
            stride = older_stride[k];
        }
        if (rc != NVML_ERROR_INSUFFICIENT_SIZE || attempt == 3 || rawcap == MAX_PROCS_ALL)
            break;
        rawcap = grown(rawcap, said);
    }
    if (rc != NVML_SUCCESS) {
        free(raw);
        ok(s, d, rc, "the process list");
        return wt_errf(err, rc == NVML_ERROR_NO_PERMISSION ? WT_EIO : WT_ENOTSUP,
                       "GPU %d: cannot list processes: %s", gpu, nvml_str(s, rc));
    }
    if (count > rawcap)
        count = rawcap;
    *total = count;
    /* per-process SM utilization over the last second, where available.
     * The whole buffer is read (since 0) and each sample judged on its own
     * clock: the sample buffers' offset (d->offset) where its time stamp
     * counts from the same origin as theirs (epoch or boot), else the clock
     * its size points to (fresh()); the two calls need not share a clock,
     * and the driver keeps a process's last busy sample however old. */
    nvmlProcessUtilizationSample_t *pu = NULL;
    unsigned npu = 0;
    int pu_known = 0; /* the call works: a listed process without a sample ran no kernel */
    double since_s = d->have_offset ? wt_mono_s() - 1.0 - d->offset : NAN;
    /* not on a MIG device, nor on a GPU in MIG mode (utilization is not
     * supported there: a driver's NOT_FOUND would show each process at SM 0%) */
    if (s->f.proc_util && !d->is_mig && d->mig_mode != 1) {
        rc = s->f.proc_util(d->h, NULL, &npu, 0);
        /* a GPU lost (or a driver gone) is said here, not at the next call
         * that checks */
        if (rc != NVML_ERROR_NOT_FOUND && rc != NVML_ERROR_INSUFFICIENT_SIZE)
            ok(s, d, rc, "nvmlDeviceGetProcessUtilization");
        if (rc == NVML_ERROR_NOT_FOUND) {
            pu_known = 1;
            npu = 0;
        } else if ((rc == NVML_ERROR_INSUFFICIENT_SIZE || rc == NVML_SUCCESS) && npu > 0) {
            /* more than the count just reported (headroom for a process
             * that starts between the two calls) */
            unsigned pucap = npu < MAX_PROCS - 8 ? MAX_PROCS : grown(npu, npu);
            npu = pucap;
            pu = calloc(npu, sizeof(*pu));
            rc = pu ? s->f.proc_util(d->h, pu, &npu, 0) : NVML_ERROR_UNKNOWN;
            if (rc != NVML_ERROR_NOT_FOUND)
                ok(s, d, rc, "nvmlDeviceGetProcessUtilization");
            if (rc == NVML_SUCCESS) {
                pu_known = 1;
                if (npu > pucap)
                    npu = pucap;
            } else {
                pu_known = rc == NVML_ERROR_NOT_FOUND;
                npu = 0;
            }
        } else {
            pu_known = rc == NVML_SUCCESS; /* no sample at all */
            npu = 0;
        }
    }
    const char *root = wt_proc_root();
    int real_proc = !strcmp(root, "/");
    if (real_proc && !s->pidns) {
        s->pidns = wt_proc_in_host_pidns() ? 1 : -1;
        if (s->pidns < 0)
            fprintf(stderr, "workloadtruth: this process is not in the host's PID namespace: the "
                            "GPU processes' PIDs (the host's) name other processes here, so "
                            "their owners are not read (run with the host's PID namespace, "
                            "e.g. Kubernetes hostPID: true, or docker --pid=host)\n");
    }
    for (unsigned i = 0; i < count && *n < cap; i++) {
        const unsigned char *e = raw + (size_t)i * stride;
        unsigned pid;
        unsigned long long mem;
        memcpy(&pid, e, sizeof(pid));
        memcpy(&mem, e + 8, sizeof(mem));
        struct wt_proc *p = &out[(*n)++];
        memset(p, 0, sizeof(*p));
        p->pid = pid;
        p->used_mib = mem == NVML_VALUE_NOT_AVAILABLE_ULL ? NAN : (double)mem / 1048576.0;
        p->sm_util_pct = pu_known ? 0 : NAN;
        unsigned long long newest = 0;
        for (unsigned k = 0; pu && k < npu; k++)
            if (pu[k].pid == pid && pu[k].smUtil <= 100 && pu[k].timeStamp >= newest &&
                in_last_second(d, pu[k].timeStamp, since_s)) {
                newest = pu[k].timeStamp;
                p->sm_util_pct = pu[k].smUtil;
            }
        if (!(real_proc && s->pidns < 0))
            wt_proc_owner(root, p);
    }
    free(pu);
    free(raw);
    return WT_OK;
}

static const char *nvml_meta(struct wt_source *src, const char *key)
{
    struct nvml *s = src->priv;
    if (!strcmp(key, "driver_version"))
        return s->driver[0] ? s->driver : NULL;
    if (!strcmp(key, "nvml_library"))
        return s->path;
    return NULL;
}

static void nvml_close(struct wt_source *src)
{
    nvml_free(src->priv);
}

/* A GPU the caller will not read (record --gpus, watch --gpus: not named)
 * is not polled: a slow or dying GPU nobody asked for slowed the polls of
 * the one recorded (1.5 samples/s for 5 with 0.7 s calls on the other). */
static void nvml_ignore(struct wt_source *src, int gpu)
{
    struct nvml *s = src->priv;
    if (gpu >= 0 && gpu < s->ndev) {
        s->dev[gpu].ignored = 1;
        s->dev[gpu].qhead = s->dev[gpu].qlen = 0; /* nor is what it queued */
    }
}

const struct wt_source_ops wt_source_nvml = {
    .name = "nvml",
    .description = "live NVIDIA GPUs via the driver's libnvidia-ml.so.1",
    .open = nvml_open,
    .device_count = nvml_count,
    .device_info = nvml_info,
    .read = nvml_read,
    .processes = nvml_processes,
    .meta = nvml_meta,
    .ignore = nvml_ignore,
    .close = nvml_close,
};
