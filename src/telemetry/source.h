/* Telemetry sources behind one interface (like nvtop's struct gpu_vendor).
 *
 * A source delivers, per GPU, a stream of struct wt_sample in time order.
 * Backends: `synthetic` (the Python tool's profiles, seeded), `replay` (trace
 * files and raw nvidia-smi CSV, file or stdin) and `nvml` (live NVIDIA GPUs).
 * A new backend (AMD, Intel) implements struct wt_source_ops and is added to
 * the table in source.c; nothing else changes.  Sources know nothing of
 * windows, features or classifiers.
 *
 * Ownership: wt_source_open() returns a source the caller frees with
 * wt_source_close(); samples are copied into caller buffers.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_SOURCE_H
#define WT_SOURCE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "telemetry/procinfo.h"
#include "telemetry/sample.h"
#include "telemetry/trace_reader.h"
#include "util/err.h"

struct wt_device_info {
    int index;
    int is_mig; /* a MIG device (its parent's index in parent) */
    int parent;
    int gpu_instance_id;     /* a MIG device's GPU instance id (-1: not known) */
    int compute_instance_id; /* and its compute instance id within it (-1: not known) */
    char mig_profile[32];    /* a MIG device's profile ("3g.40gb", from its name; "" unknown) */
    char parent_uuid[96];    /* a MIG device's parent GPU's UUID ("" unknown) */
    int mig_mode;            /* 1 enabled, 0 disabled, -1 not known */
    int unusable;            /* cannot be read at all (nvml: could not be opened); notes say why */
    int sample_buffers;      /* nvml: the driver keeps sample buffers (nvmlDeviceGetSamples) */
    char driver_version[32]; /* "" when not known */
    char notes[200];         /* what is not available on this device, if anything */
    double achieved_hz;      /* live sources: samples per second so far (NaN: not known) */
    double util_buffer_period_s;  /* nvml: spacing of the driver's utilization readings */
    double power_buffer_period_s; /* ... and power readings, measured at start (NaN: unknown) */
    char name[96];                /* model name as NVML reports it, or "unknown" */
    char uuid[96];                /* "" when not known */
    char pci_bus_id[32];          /* "" when not known */
    double mem_total_mib;         /* NaN = not known */
    double power_limit_w;         /* enforced limit, NaN = not known */
    double power_default_limit_w;
    char power_semantics[16]; /* "instant", "avg1s" or "unknown" */
};

struct wt_source_config {
    /* replay */
    const char *trace_path; /* file, or "-" for standard input */
    struct wt_trace_opts trace_opts;
    size_t max_buffered; /* samples held across GPUs (0 = default 16M) */
    bool stream_peers;   /* standard input: the GPUs not read are peers, taken
                            with read_queued; from the start they keep only
                            their newest rows, as unread GPUs do once one is read */
    bool list_only;      /* only the GPUs and each one's first sample are read
                            (`gpus`): later rows are dropped, not queued */
    /* synthetic: the Python tool's profiles (training, inference, idle) or
     * the simulator's (telemetry/simulate.h) */
    const char *profile;
    bool evasion;                /* the Python tool's evasion transform */
    const char *evasion_family;  /* simulator: an evasion family (NULL: none) */
    double evasion_strength;     /* simulator: 0..1, negative: the family's default */
    double sample_hz;            /* simulator: samples per second (0: 10) */
    const char *sim_gpu;         /* simulator: modelled GPU (NULL: h100) */
    const char *power_semantics; /* simulator: "instant" (NULL) or "avg1s" */
    uint64_t seed;
    unsigned gpus; /* synthetic GPUs (0 = 1; simulator: its default) */
    /* live */
    double interval_s;      /* seconds between readings */
    const char *nvml_lib;   /* NVML library to load (NULL: WT_NVML_LIB, else libnvidia-ml.so.1) */
    const atomic_int *stop; /* live sources: when non-zero, read returns WT_DONE */
};

/* A live source may poll this many times in a row without giving a sample
 * (nvml: a failed utilization drain, whose readings come with the next poll),
 * so time limits on live sampling allow as many intervals more. */
#define WT_LIVE_POLLS_WITHOUT_ROW 3

struct wt_source;

struct wt_source_ops {
    const char *name;
    const char *description;
    int (*open)(struct wt_source *src, const struct wt_source_config *cfg, struct wt_err *err);
    /* Number of GPUs: indices 0..count-1.  For replay this reads the whole
     * input, and count is the highest index in it + 1. */
    int (*device_count)(struct wt_source *src, int *count, struct wt_err *err);
    /* WT_ENODEV for an index below count that the source does not have (a
     * trace of GPU 2 alone has no GPUs 0 and 1): listing loops skip it. */
    int (*device_info)(struct wt_source *src, int gpu, struct wt_device_info *info,
                       struct wt_err *err);
    /* Copies up to cap next samples of GPU gpu into buf and sets *n.  Returns
     * WT_OK (n >= 1), WT_DONE (n == 0: the stream has ended) or an error
     * (WT_ENODEV for a GPU the source does not have).  Live sources block until
     * the next reading is due. */
    int (*read)(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap, size_t *n,
                struct wt_err *err);
    /* Optional: the compute processes on a GPU, with their owners: up to cap
     * of them in out (*n), and how many the GPU runs (*total, never NULL). */
    int (*processes)(struct wt_source *src, int gpu, struct wt_proc *out, size_t cap, size_t *n,
                     size_t *total, struct wt_err *err);
    /* Optional: metadata value (trace `# key: value`), or NULL. */
    const char *(*meta)(struct wt_source *src, const char *key);
    /* Optional: the i-th metadata line in the order read: its value, and
     * *key; NULL past the last. */
    const char *(*meta_at)(struct wt_source *src, size_t i, const char **key);
    /* Optional: the table of owners cells whose ids the samples carry
     * (telemetry/owners.h), NULL when none. */
    const struct wt_owners *(*owners)(struct wt_source *src);
    /* Optional: the caller will not read GPU gpu again; a source that reads
     * every GPU's rows together (replay) stops keeping that GPU's. */
    void (*ignore)(struct wt_source *src, int gpu);
    /* Optional: rows of GPU gpu dropped since it was ignored (and seen at
     * all: -1 when no row of it came); reads nothing. */
    long (*ignored_rows)(struct wt_source *src, int gpu);
    /* Optional: as read, but never waits for input: the samples of gpu
     * already read and complete (a later row came, or the end); *n may be
     * 0.  WT_ENODEV for a GPU no row has named so far (a stream's peers). */
    int (*read_queued)(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap, size_t *n,
                       struct wt_err *err);
    void (*close)(struct wt_source *src);
};

struct wt_source {
    const struct wt_source_ops *ops;
    void *priv;
};

/* The registered backends, in a fixed order. */
extern const struct wt_source_ops wt_source_synthetic;
extern const struct wt_source_ops wt_source_replay;
extern const struct wt_source_ops wt_source_nvml;

const struct wt_source_ops *wt_source_find(const char *name);
/* NULL-terminated list of all backends. */
const struct wt_source_ops *const *wt_source_all(void);

int wt_source_open(const char *backend, const struct wt_source_config *cfg, struct wt_source **out,
                   struct wt_err *err) WT_WARN_UNUSED;
int wt_source_device_count(struct wt_source *src, int *count, struct wt_err *err) WT_WARN_UNUSED;
int wt_source_device_info(struct wt_source *src, int gpu, struct wt_device_info *info,
                          struct wt_err *err) WT_WARN_UNUSED;
int wt_source_read(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap, size_t *n,
                   struct wt_err *err) WT_WARN_UNUSED;
/* Reads exactly want samples of gpu unless the stream ends first: *n is the
 * count read; returns WT_OK or an error (a short stream is not an error). */
int wt_source_read_n(struct wt_source *src, int gpu, struct wt_sample *buf, size_t want, size_t *n,
                     struct wt_err *err) WT_WARN_UNUSED;
/* A live GPU's windows, one after another: the time of the previous
 * window's last sample (NaN before the first) and the readings a poll
 * brought past that window's end, which open the next one. */
struct wt_polls {
    double last_end;
    struct wt_sample *carry;
    size_t ncarry, carry_cap;
};
void wt_polls_init(struct wt_polls *p);
void wt_polls_free(struct wt_polls *p);
/* A live GPU's window of `polls` polls every `interval` seconds, however
 * many buffered readings each poll brings, and at least `polls` samples.
 * After a window (st->last_end set) it is complete at the first sample
 * (polls - 0.1) x interval seconds (a tenth of an interval for timing jitter)
 * after st->last_end; a first window (or st NULL) at the first whose span
 * plus one sample spacing (the mean) covers as much, so a source whose first
 * poll brings one sample and the following polls the driver's buffered
 * readings takes one poll more (polls alone: `polls` samples, as many
 * intervals).  It keeps, past that sample, the readings up to polls x
 * interval after the previous end (a first window: its first sample less one
 * spacing); later ones, which a late poll brings in the same read (a slow
 * process list, a busy host), wait in st->carry for the next window instead
 * of stretching this one.  More than a window of them (a caller back more
 * than a window late) give the newest window of them, the older dropped.
 * st->last_end becomes this window's last sample.  *buf (of *cap samples)
 * grows up to max samples.  Returns WT_OK (*n may be short when the stream
 * ended), WT_DONE when *cancel was set, or an error. */
int wt_source_read_polls(struct wt_source *src, int gpu, struct wt_sample **buf, size_t *cap,
                         size_t max, size_t polls, double interval, struct wt_polls *st,
                         const atomic_int *cancel, size_t *n, struct wt_err *err) WT_WARN_UNUSED;
const char *wt_source_meta(struct wt_source *src, const char *key);
/* The i-th metadata line (trace order): its value and *key, or NULL past the
 * last (and for sources without metadata). */
const char *wt_source_meta_at(struct wt_source *src, size_t i, const char **key);
/* How many processes of one GPU a caller lists: more than a GPU runs (CUDA
 * MPS serves 48 to 60 clients; without it each process holds a context of
 * some hundred MiB). */
#define WT_MAX_PROCS 1024
/* Processes on gpu (WT_ENOTSUP when the source cannot tell): up to cap of
 * them in out (*n); *total, when not NULL, is how many the GPU runs, more
 * than *n when they did not all fit. */
int wt_source_processes(struct wt_source *src, int gpu, struct wt_proc *out, size_t cap, size_t *n,
                        size_t *total, struct wt_err *err) WT_WARN_UNUSED;
/* The owners table of the samples' owner ids (a trace's `owners` column),
 * or NULL: then every id is 0 and every GPU is a peer. */
const struct wt_owners *wt_source_owners(struct wt_source *src);
/* The caller will not read GPU gpu (a no-op for sources that read GPUs one
 * by one): `record --gpus 0` of a multi-GPU file queued every other GPU's
 * rows until the end. */
void wt_source_ignore(struct wt_source *src, int gpu);
/* Rows of an ignored GPU dropped as they came, -1 when none of its rows
 * came (or the source does not say): `record --trace -` names the GPUs of
 * standard input it did not record.  Reads nothing. */
long wt_source_ignored_rows(struct wt_source *src, int gpu);
/* The samples of gpu the source has read already (ops.read_queued): a
 * stream's other GPUs, read beside the one classified without waiting for
 * rows that may never come.  WT_ENODEV where the source cannot say. */
int wt_source_read_queued(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap,
                          size_t *n, struct wt_err *err) WT_WARN_UNUSED;
/* Another GPU of a source over the time span of a window of the GPU
 * classified, as a peer for the cross-GPU features (classify, and watch of
 * standard input).  Each call keeps the first sample past the span for the
 * next; s (which the caller frees) holds the span's samples. */
struct wt_peer {
    int gpu;
    struct wt_sample *s;
    size_t n, cap;
    struct wt_sample carry;
    int have_carry, done;
};
/* Fills p->s with its samples from t0 to t1.  queued: a stream's peer, read
 * with wt_source_read_queued (what has come of it so far, without waiting);
 * else read with wt_source_read up to the first sample past t1. */
int wt_peer_fill(struct wt_source *src, struct wt_peer *p, double t0, double t1, int queued,
                 struct wt_err *err) WT_WARN_UNUSED;
/* The backend `auto` means: nvml when a driver is present. */
#define WT_BACKEND_AUTO "auto"
void wt_source_close(struct wt_source *src);

/* How records name where telemetry came from: "replay:FILE" (the trace's
 * name without its directory; "<stdin>" for "-"), "synthetic:PROFILE", or
 * the live backend's name ("auto" is "nvml"). */
void wt_source_label(const char *backend, const char *trace, const char *profile, char *out,
                     size_t cap);

/* Synthetic profiles (the Python tool's, see synthetic.c). */
struct wt_synth_profile {
    const char *name;
    double util_mean, util_sd;
    double memutil_mean, memutil_sd;
    double mem_base_mib, mem_growth_mib, mem_ceiling_mib;
    double power_mean_w, power_sd_w;
    int procs;
};
#define WT_SYNTH_MEM_TOTAL_MIB 40960.0
const struct wt_synth_profile *wt_synth_profile_find(const char *name);
/* NULL-terminated list. */
const struct wt_synth_profile *const *wt_synth_profiles(void);

#endif
