/* The `synthetic` source: the Python tool's documented telemetry profiles,
 * reproduced exactly, with its evasion transform, seeded and deterministic.
 *
 * Per sample i (0, 1, 2, ...): Gaussian draws, in this order, for GPU
 * utilization, memory utilization and power; memory used = base + growth * i
 * up to the ceiling; total memory 40960 MiB; a fixed process count; timestamp
 * i + 1 seconds.  Utilization and memory utilization are clamped to 0..100,
 * memory to 0..total, power to >= 0.  The evasion transform clamps utilization
 * to 0..55, caps memory at 1.1 x base and multiplies utilization by 0.2 on
 * every sample whose index is a multiple of 4.  Other columns are "not
 * measured", as in the Python tool.
 *
 * The random stream is our own (xoshiro256**), so values differ from the
 * Python tool's run to run, but the distributions are the same and a given
 * seed always gives the same samples.  Not a physical simulator.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "telemetry/simulate.h"
#include "telemetry/source.h"
#include "util/rng.h"

static const struct wt_synth_profile prof_training = {
    "training", 88, 4, 70, 6, 18000, 120, 38000, 340, 12, 1,
};
static const struct wt_synth_profile prof_inference = {
    "inference", 35, 28, 22, 5, 9000, 0, 9500, 160, 55, 1,
};
static const struct wt_synth_profile prof_idle = {
    "idle", 1, 1, 0.5, 0.5, 400, 0, 400, 35, 5, 0,
};
static const struct wt_synth_profile *const profiles[] = {
    &prof_training,
    &prof_inference,
    &prof_idle,
    NULL,
};

const struct wt_synth_profile *const *wt_synth_profiles(void)
{
    return profiles;
}

const struct wt_synth_profile *wt_synth_profile_find(const char *name)
{
    for (int i = 0; profiles[i]; i++)
        if (!strcmp(profiles[i]->name, name))
            return profiles[i];
    return NULL;
}

struct synth_gpu {
    struct wt_rng rng;
    size_t index;
};

struct synth {
    struct wt_sim *sim; /* simulator profiles; NULL for the Python tool's */
    const struct wt_synth_profile *p;
    bool evasion;
    unsigned ngpus;
    struct synth_gpu *gpu;
};

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

static void synth_sample(const struct synth *s, struct synth_gpu *g, int gpu, struct wt_sample *out)
{
    const struct wt_synth_profile *p = s->p;
    size_t i = g->index++;
    double util = wt_rng_gauss(&g->rng, p->util_mean, p->util_sd);
    double memutil = wt_rng_gauss(&g->rng, p->memutil_mean, p->memutil_sd);
    double power = wt_rng_gauss(&g->rng, p->power_mean_w, p->power_sd_w);
    double mem = p->mem_base_mib + p->mem_growth_mib * (double)i;
    if (mem > p->mem_ceiling_mib)
        mem = p->mem_ceiling_mib;
    util = clamp(util, 0, 100);
    memutil = clamp(memutil, 0, 100);
    mem = clamp(mem, 0, WT_SYNTH_MEM_TOTAL_MIB);
    if (power < 0)
        power = 0;
    if (s->evasion) {
        util = clamp(util, 0, 55);
        if (mem > 1.1 * p->mem_base_mib)
            mem = 1.1 * p->mem_base_mib;
        if (i % 4 == 0)
            util *= 0.2;
    }
    wt_sample_clear(out, gpu);
    out->t_s = (double)(i + 1);
    out->v[WT_COL_UTIL_GPU] = util;
    out->v[WT_COL_UTIL_MEM] = memutil;
    out->v[WT_COL_MEM_USED] = mem;
    out->v[WT_COL_MEM_TOTAL] = WT_SYNTH_MEM_TOTAL_MIB;
    out->v[WT_COL_POWER] = power;
    out->v[WT_COL_PROCS] = p->procs;
}

static int sim_open(struct wt_source *src, const struct wt_source_config *cfg, const char *name,
                    struct wt_err *err)
{
    if (cfg->evasion)
        return wt_errf(err, WT_EINVAL,
                       "--evasion is the Python tool's transform for its profiles (training, "
                       "inference, idle); simulator profiles take --evasion-family");
    struct wt_sim_config sc = {
        .profile = name,
        .evasion = cfg->evasion_family,
        .strength = cfg->evasion_strength,
        .gpu = cfg->sim_gpu,
        .sample_hz = cfg->sample_hz,
        .power_semantics = cfg->power_semantics,
        .gpus = cfg->gpus,
        .seed = cfg->seed,
    };
    struct synth *s = calloc(1, sizeof(*s));
    if (!s)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    int rc = wt_sim_open(&s->sim, &sc, err);
    if (rc) {
        free(s);
        return rc;
    }
    s->ngpus = wt_sim_gpus(s->sim);
    src->priv = s;
    return WT_OK;
}

static int synth_open(struct wt_source *src, const struct wt_source_config *cfg, struct wt_err *err)
{
    const char *name = cfg->profile ? cfg->profile : "training";
    const struct wt_synth_profile *p = wt_synth_profile_find(name);
    if (!p && wt_sim_profile_find(name))
        return sim_open(src, cfg, name, err);
    if (!p)
        return wt_errf(err, WT_EINVAL,
                       "unknown synthetic profile '%s' (training, inference, idle, or a "
                       "simulator profile: see `workloadtruth benchmark --list`)",
                       name);
    if (cfg->evasion_family && strcmp(cfg->evasion_family, "none"))
        return wt_errf(err, WT_EINVAL,
                       "evasion families apply to simulator profiles (such as dense-training), "
                       "not to the Python tool's '%s'",
                       name);
    unsigned n = cfg->gpus ? cfg->gpus : 1;
    if (n > WT_MAX_GPUS)
        return wt_errf(err, WT_EINVAL, "too many synthetic GPUs: %u", n);
    struct synth *s = calloc(1, sizeof(*s));
    if (!s)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    s->gpu = calloc(n, sizeof(*s->gpu));
    if (!s->gpu) {
        free(s);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    s->p = p;
    s->evasion = cfg->evasion;
    s->ngpus = n;
    for (unsigned i = 0; i < n; i++)
        wt_rng_seed(&s->gpu[i].rng, wt_mix64(cfg->seed) ^ wt_mix64(i + 0x5151u));
    src->priv = s;
    return WT_OK;
}

static int synth_count(struct wt_source *src, int *count, struct wt_err *err)
{
    (void)err;
    *count = (int)((struct synth *)src->priv)->ngpus;
    return WT_OK;
}

static int synth_info(struct wt_source *src, int gpu, struct wt_device_info *info,
                      struct wt_err *err)
{
    struct synth *s = src->priv;
    if (gpu < 0 || (unsigned)gpu >= s->ngpus)
        return wt_errf(err, WT_ENODEV, "synthetic source has no GPU %d", gpu);
    info->index = gpu;
    info->power_limit_w = NAN;
    info->power_default_limit_w = NAN;
    if (s->sim) {
        snprintf(info->name, sizeof(info->name), "%s", wt_sim_gpu_model(s->sim));
        snprintf(info->power_semantics, sizeof(info->power_semantics), "%s",
                 wt_sim_power_semantics(s->sim));
        /* what every sample says (gpus showed none of them) */
        wt_sim_limits(s->sim, &info->mem_total_mib, &info->power_limit_w,
                      &info->power_default_limit_w);
        return WT_OK;
    }
    snprintf(info->name, sizeof(info->name), "synthetic (%s%s)", s->p->name,
             s->evasion ? ", evasion" : "");
    info->mem_total_mib = WT_SYNTH_MEM_TOTAL_MIB;
    snprintf(info->power_semantics, sizeof(info->power_semantics), "unknown");
    return WT_OK;
}

static int synth_read(struct wt_source *src, int gpu, struct wt_sample *buf, size_t cap, size_t *n,
                      struct wt_err *err)
{
    struct synth *s = src->priv;
    if (gpu < 0 || (unsigned)gpu >= s->ngpus)
        return wt_errf(err, WT_ENODEV, "synthetic source has no GPU %d", gpu);
    for (size_t i = 0; i < cap; i++) {
        if (s->sim)
            wt_sim_next(s->sim, (unsigned)gpu, &buf[i]);
        else
            synth_sample(s, &s->gpu[gpu], gpu, &buf[i]);
    }
    *n = cap;
    return WT_OK;
}

static void synth_close(struct wt_source *src)
{
    struct synth *s = src->priv;
    if (s) {
        wt_sim_close(s->sim);
        free(s->gpu);
    }
    free(s);
}

const struct wt_source_ops wt_source_synthetic = {
    .name = "synthetic",
    .description = "the Python tool's synthetic profiles (seeded, deterministic)",
    .open = synth_open,
    .device_count = synth_count,
    .device_info = synth_info,
    .read = synth_read,
    .meta = NULL,
    .close = synth_close,
};
