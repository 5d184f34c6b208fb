/* The telemetry simulator (see simulate.h; every parameter and its source is
 * in docs/simulator.md, and the constants below carry the same names).
 *
 * What it is: per GPU, a workload state machine (training steps made of
 * data-loader gaps, forward/backward, optimizer + all-reduce and checkpoint
 * pauses; request-driven inference with compute-bound prefill and
 * memory-bound, continuously batched decode; idle) advanced in micro-steps of
 * at most 10 ms, exactly through every phase boundary; and a board model that
 * turns each phase's activity into power (idle floor plus a dynamic part,
 * clipped at the enforced limit by lowering the SM clock, with the SW power
 * cap reason bit once the power has reached the limit), SM clock,
 * temperature (first-order lag), energy (integral of power), memory
 * (caching-allocator plateau, KV-cache high-water mark or a serving engine's
 * reservation) and PCIe traffic.  util_gpu_pct is NVML's
 * duty cycle: the share of the last max(1/6 s, sample period) in which a
 * kernel ran; util_mem_pct likewise for memory traffic.  Evasion families
 * change the training state machine (sleeps, throttles, fake passes, burn,
 * random step sizes, hops between GPUs) or the board (power cap, clock lock;
 * these two apply to every profile, as operators set them on serving GPUs
 * too).
 *
 * What it is not: a performance, power or thermal model validated against any
 * board or job; the values are calibrations to the public traces and
 * assumptions listed in docs/simulator.md.  Every GPU has its own copy of the
 * state, so GPUs can be sampled in any order and interleaving; a training job
 * gives every GPU the same random stream, so its GPUs step in lock-step (data
 * parallel).  Memory is allocated once, at open.
 *
 * SPDX-License-Identifier: MIT
 */
#include "telemetry/simulate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"

/* ---- board constants (docs/simulator.md, "Board model") ---- */
#define MICRO_DT_S 0.01         /* longest micro-step */
#define UTIL_WINDOW_S (1.0 / 6) /* NVML utilization sample period (shortest) */
#define AVG_WINDOW_S 1.0        /* "avg1s" power averaging window */
#define CTX_MIB 500.0           /* CUDA context + framework footprint */
#define RESERVED_FRAC 0.0025    /* memory shown with no context, fraction of total */
#define T_AMB_C 27.0            /* inlet temperature */
#define DT_AT_TDP_C 45.0        /* steady-state rise at rated power */
#define TAU_TEMP_S 40.0         /* thermal time constant */
#define TAU_POWER_S 0.05        /* power response to a phase change */
#define TAU_NOISE_S 0.2         /* correlation time of the power noise */
#define NOISE_W 1.5             /* power noise floor (sd) */
#define NOISE_FRAC 0.04         /* power noise, fraction of the dynamic power (sd) */
#define CAP_DITHER 0.004        /* controller dither below a binding limit, fraction */
#define CAP_SETTLE 0.02         /* power within 2 % of a binding limit is held at it */
#define R_MIN 0.2               /* lowest SM clock, fraction of max */
#define CLOCK_STEP_MHZ 15.0     /* SM clock granularity */
#define CLOCK_JITTER_MHZ 8.0    /* boost-clock wander below the target (sd) */
#define UTIL_NOISE 0.7          /* jitter of util and memory util readings (sd, %) */
#define MEM_JUMP_HZ 0.1         /* rate of caching-allocator segment changes */
#define MEM_JUMP_MIB 40.0       /* ... and their size: the plateau is flat within +-40 MiB */
#define EPSILON_S 1e-12         /* time below which a phase or gate has ended */

/* ---- training / inference constants ---- */
#define STEP_JITTER 0.02     /* sd of a step's duration, fraction */
#define MULTI_GPU_COMM 400.0 /* PCIe MiB/s each way in all-reduce with >1 GPU */
#define CKPT_COPY_S 2.0      /* device-to-host copy at the start of a checkpoint */
#define FAKE_GAP_S 0.03      /* gap after each fake inference pass */
#define HOP_S 0.4            /* migration: state transfer between GPUs */
#define MAX_CONC 64          /* request slots of an inference engine */
#define MAX_QUEUE 100000     /* waiting requests beyond which arrivals are dropped */
#define CHUNKED_MIX 0.5      /* decode speed while a prefill is in the batch */
#define TOK_SLOPE 0.015      /* decode iteration time growth per extra request */
#define COMP_SD 0.08         /* batch-composition modulation of decode power (sd) */
#define COMP_TAU_S 2.0       /* ... and its correlation time */
#define CKPT_SD 0.15         /* sd of a checkpoint's length, fraction */
#define T_TOK_LO 0.020       /* decode iteration time for one request, s (drawn per job) */
#define T_TOK_HI 0.030
#define TOKENS_MIN 4.0 /* decode length bounds, tokens */
#define TOKENS_MAX 1024.0

/* duty-fixed / duty-random on+off period (mean), shared with `eval --evasion-family` */
#define DUTY_PERIOD_S WT_SIM_DUTY_PERIOD_S
#define DUTY_MAX_ASLEEP WT_SIM_DUTY_MAX_ASLEEP /* share asleep = min(strength, 0.95) */

/* Decode with n requests in the batch (x = n - 1): util = DEC_BUSY0 + DEC_BUSY_GAIN *
 * (1 - exp(-x / DEC_BUSY_N)), power activity likewise, memory util = DEC_MEMU x util. */
#define DEC_BUSY0 0.55
#define DEC_BUSY_GAIN 0.40
#define DEC_BUSY_N 6.0
#define DEC_DYN0 0.28
#define DEC_DYN_GAIN 0.30
#define DEC_DYN_N 8.0
#define DEC_MEMU 85.0
#define DEC_KAPPA 0.004  /* decode's speed: 1-6 % slower at a 16-fold lower clock */
#define DEC_KAPPA_PW 0.6 /* ... its power: 42 % less energy there [MALIAKEL] */
#define MIX_KAPPA 0.8    /* prefill + decode in one batch */
#define MIX_MEMU 20.0    /* memory util a decode adds to a prefill */

/* ---- evasion constants (strength s in 0..1) ---- */
#define UTIL_CAP_SLOPE 0.6    /* util-cap: util <= 100 (1 - 0.6 s) */
#define UTIL_CAP_MARGIN 0.005 /* ... the throttler's target below it */
#define POWER_CAP_SLOPE 0.6   /* power-cap: limit = default (1 - 0.6 s) */
#define CLOCK_LOCK_SLOPE 0.5  /* clock-lock: clock = max (1 - 0.5 s) */
#define MEMMIN_BATCH 0.85     /* mem-minimal: batch x (1 - 0.85 s) */
#define MEMMIN_TIME_EXP 0.7   /* ... forward/backward time x batch^0.7 */
#define MEMMIN_BUSY 0.3       /* ... util x (1 - 0.3 s) */
#define MEMMIN_DYN 0.35       /* ... power activity x (1 - 0.35 s) */
#define MEMMIN_MEMU 0.3       /* ... memory util x (1 - 0.3 s) */
#define MEMMIN_PLATEAU 0.10   /* ... memory plateau at s = 1, fraction of total */
#define DILUTION_MAX 19       /* dilution: N = round(1 + 19 s) fake passes per step */
#define FAKE_DYN 0.8          /* a fake forward pass: power activity x forward/backward's */
#define FAKE_MEMU 40.0        /* ... its memory util */
#define FAKE_KAPPA 0.9
#define BURN_MEMU 5.0     /* burn: memory util of the dummy GEMMs */
#define BURN_SLOWDOWN 0.2 /* ... optimizer phase x (1 + 0.2 s) while sharing SMs */
#define WORKVAR_MIN 0.05  /* work-variation: bounds of the lognormal factor */
#define WORKVAR_MAX 20.0
#define MIGR_SLOT_MIN_S 1.0 /* migration: slot = 1 + 6 (1 - s) s, +-25 % */
#define MIGR_SLOT_RANGE_S 6.0
#define MIGR_SLOT_JITTER 0.25

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

static double mind(double a, double b)
{
    return a < b ? a : b;
}

/* ---- GPU models ---- */

struct gpu_model {
    const char *key, *name;
    double limit_w, idle_bare_w, idle_ctx_w, mem_mib, sm_max_mhz, sm_idle_mhz, mem_mhz;
};

static const struct gpu_model gpu_models[] = {
    {"h100", "NVIDIA H100 80GB HBM3", 700, 70, 115, 81559, 1980, 345, 2619},
    {"h200", "NVIDIA H200", 700, 75, 120, 143771, 1980, 345, 3201},
    {"a100", "NVIDIA A100-SXM4-40GB", 400, 55, 65, 40960, 1410, 210, 1215},
    {"l40s", "NVIDIA L40S", 350, 35, 80, 46068, 2520, 210, 9001},
    {"v100", "Tesla V100-SXM2-32GB", 300, 40, 55, 32768, 1530, 135, 877},
};

/* ---- activity of a phase ---- */

struct act {
    double busy;   /* share of time a kernel runs, 0..1 (NVML util) */
    double dyn;    /* power above the idle floor, fraction of (default limit - context idle) */
    double memu;   /* share of time memory is read or written, % (NVML memory util) */
    double kappa;  /* clock sensitivity of power and speed: 1 compute-bound (decode's
                    * speed has its own, DEC_KAPPA) */
    double tx, rx; /* PCIe MiB/s */
};

static const struct act act_sleep = {0, 0, 0, 0, 1, 1};
static const struct act act_load = {0.03, 0.03, 3, 0, 5, 2500};
static const struct act act_ckpt_copy = {0.02, 0.02, 15, 0, 6000, 20};
static const struct act act_ckpt_write = {0.01, 0, 1, 0, 2, 2};
static const struct act act_fake_gap = {0.03, 0.05, 3, 0, 10, 50};
static const struct act act_hop_out = {0, 0.04, 20, 0, 3000, 5};
static const struct act act_hop_in = {0, 0.04, 20, 0, 5, 3000};
static const struct act act_prefill = {0.98, 0.64, 25, 1.0, 5, 20};
static const struct act act_spin = {1.0, 0.08, 1, 0, 5, 5}; /* NCCL kernel waiting */

/* ---- profiles ---- */

enum job_kind { JOB_IDLE, JOB_RESIDENT, JOB_TRAIN, JOB_INFER };

struct train_params {
    double t_fb, t_data, t_opt; /* seconds per phase at full clock */
    int micro;                  /* forward/backward micro-steps per optimizer step */
    struct act fb, opt, data;
    double mem_lo, mem_hi; /* memory plateau, fraction of total */
    double ramp_s;         /* time to reach it */
    int ckpt_every;        /* optimizer steps between checkpoints */
    double ckpt_s, load_s;
};

/* clang-format off */
/*   t_fb   t_data t_opt  micro
 *   fb {busy, dyn,  memu, kappa, tx, rx}, opt {...}, data (loader gap before each micro-step) {...}
 *   mem_lo mem_hi ramp_s ckpt_every ckpt_s load_s */
static const struct train_params tp_dense = {
    1.008, 0.048, 0.144, 1,
    {0.99, 0.76, 35, 1.0, 10, 30}, {0.75, 0.40, 60, 0.3, 20, 20}, {0.03, 0.05, 3, 0.0, 10, 1200},
    0.60, 0.85, 20, 200, 20, 4};
static const struct train_params tp_peft = {
    0.55,  0.40,  0.05,  1,
    {0.24, 0.20, 12, 1.0, 5, 20},  {0.30, 0.15, 20, 0.3, 10, 10}, {0.08, 0.12, 5, 0.2, 30, 200},
    0.30, 0.40, 20, 200, 5, 4};
static const struct train_params tp_accum = {
    0.30,  0.03,  0.144, 4,
    {0.99, 0.76, 35, 1.0, 10, 30}, {0.75, 0.40, 60, 0.3, 20, 20}, {0.03, 0.05, 3, 0.0, 10, 1200},
    0.55, 0.80, 20, 100, 20, 4};
/* clang-format on */

enum arrivals { ARR_POISSON, ARR_MMPP, ARR_DIURNAL, ARR_PERIODIC };

struct infer_params {
    enum arrivals arr;
    double rate;                   /* requests/s (MMPP: in a burst; periodic: 1/period) */
    double prefill_lo, prefill_hi; /* s */
    double tokens_mean;            /* exponential mean; 0: always tokens_fixed */
    double tokens_fixed;
    int max_conc; /* engine batch limit */
    double load_s;
    double weights_frac, kv_frac; /* memory: weights, and KV cache per concurrent request */
    int reserve;                  /* vLLM: reserve VLLM_RESERVE of memory at start-up */
};

#define VLLM_RESERVE 0.90
#define MMPP_OFF_RATE 0.2 /* requests/s between bursts */
#define MMPP_ON_S 8.0     /* mean burst length */
#define MMPP_OFF_S 20.0   /* mean gap between bursts */
#define DIURNAL_PERIOD_S 300.0
#define DIURNAL_DEPTH 0.8

/* clang-format off */
/*   arrivals    rate  prefill s   tokens:   max_conc  load_s  memory:
 *                     lo    hi    mean fixed                  weights kv/req reserve */
static const struct infer_params ip_poisson = {
    ARR_POISSON,  2,   0.05, 0.20,  64,  0,  MAX_CONC,  3,      0.20,   0.008, 0};
static const struct infer_params ip_bursty = {
    ARR_MMPP,     4,   0.05, 0.20,  64,  0,  MAX_CONC,  3,      0.20,   0.008, 0};
static const struct infer_params ip_diurnal = {
    ARR_DIURNAL,  2,   0.05, 0.20,  64,  0,  MAX_CONC,  3,      0.20,   0.008, 0};
static const struct infer_params ip_periodic = {
    ARR_PERIODIC, 0.8, 0.10, 0.10,  0,   36, MAX_CONC,  3,      0.20,   0.008, 0};
static const struct infer_params ip_continuous = {
    ARR_POISSON,  6,   0.02, 0.08,  256, 0,  48,        3,      0.35,   0.008, 0};
static const struct infer_params ip_vllm = {
    ARR_POISSON,  2,   0.05, 0.20,  64,  0,  MAX_CONC,  8,      0.20,   0.008, 1};
/* clang-format on */

struct profile_def {
    enum job_kind kind;
    const struct train_params *tp;
    const struct infer_params *ip;
};

static const struct wt_sim_profile_info profiles[] = {
    {"dense-training", WT_CLASS_TRAINING,
     "data-parallel LLM training: 1.2 s steps (forward/backward, optimizer + all-reduce, "
     "data-loader gap), a 20 s checkpoint every 200 steps, memory plateau 60-85 %"},
    {"peft-training", WT_CLASS_TRAINING,
     "LoRA fine-tuning: util 11-22 %, power ~0.3 of the limit, 1 s steps, memory 30-40 %"},
    {"grad-accum-training", WT_CLASS_TRAINING,
     "gradient accumulation: 4 forward/backward micro-steps then one optimizer step"},
    {"inference-poisson", WT_CLASS_INFERENCE,
     "LLM serving, Poisson arrivals (2/s): prefill bursts, memory-bound continuously batched "
     "decode"},
    {"inference-bursty", WT_CLASS_INFERENCE,
     "LLM serving, Markov-modulated Poisson arrivals (bursts of 4/s, 0.2/s between)"},
    {"inference-diurnal", WT_CLASS_INFERENCE,
     "LLM serving, Poisson rate 2/s varying +-80 % sinusoidally over 5 minutes"},
    {"inference-periodic", WT_CLASS_INFERENCE,
     "a strictly periodic request generator (one fixed request every 1.25 s): a hard negative "
     "for cadence detectors"},
    {"inference-continuous", WT_CLASS_INFERENCE,
     "saturated continuous batching (48 concurrent requests): util 90-97 %, power ~0.65 of "
     "the limit"},
    {"inference-vllm", WT_CLASS_INFERENCE,
     "Poisson serving by an engine that reserves 90 % of memory at start-up"},
    {"idle-bare", WT_CLASS_IDLE, "no process: util 0, bare idle power, driver-reserved memory"},
    {"idle-resident", WT_CLASS_IDLE,
     "a model loaded but unused: util 0, context idle power, memory held"},
};

static const struct profile_def profile_defs[] = {
    {JOB_TRAIN, &tp_dense, NULL},    {JOB_TRAIN, &tp_peft, NULL},
    {JOB_TRAIN, &tp_accum, NULL},    {JOB_INFER, NULL, &ip_poisson},
    {JOB_INFER, NULL, &ip_bursty},   {JOB_INFER, NULL, &ip_diurnal},
    {JOB_INFER, NULL, &ip_periodic}, {JOB_INFER, NULL, &ip_continuous},
    {JOB_INFER, NULL, &ip_vllm},     {JOB_IDLE, NULL, NULL},
    {JOB_RESIDENT, NULL, NULL},
};

#define RESIDENT_LO 0.20 /* idle-resident: model weights, fraction of total */
#define RESIDENT_HI 0.60

/* ---- evasion families ---- */

enum evasion {
    EV_NONE = -1,
    EV_DUTY_FIXED,
    EV_DUTY_RANDOM,
    EV_UTIL_CAP,
    EV_POWER_CAP,
    EV_CLOCK_LOCK,
    EV_MEM_MINIMAL,
    EV_DILUTION,
    EV_BURN,
    EV_WORK_VARIATION,
    EV_MIGRATION,
};

static const struct wt_sim_evasion_info evasions[] = {
    {"duty-fixed", 0.5,
     "sleep injection with a fixed 4 s on/off period; strength = fraction of time asleep, at "
     "most 0.95 (0: never, 1: 0.95, the job still runs 0.2 s of every 4 s)",
     0},
    {"duty-random", 0.5,
     "sleeps and runs of exponential length (mean cycle 4 s); strength = mean fraction asleep "
     "(at most 0.95, as duty-fixed)",
     0},
    {"util-cap", 0.5,
     "fine-grained sleeps between kernels keep util below 100*(1-0.6*strength) % (0: none, "
     "1: 40 %)",
     0},
    {"power-cap", 0.5,
     "enforced power limit = default*(1-0.6*strength) (0: default, 1: 40 %); power pinned at "
     "the limit, SW power cap bit, lower SM clock",
     1},
    {"clock-lock", 0.5,
     "SM clock locked at max*(1-0.5*strength) (0: max, 1: half), applications-clocks bit", 1},
    {"mem-minimal", 0.5,
     "smaller micro-batches: batch x (1-0.85*strength), memory plateau towards 10 % of total "
     "at 1, shorter steps, lower util",
     0},
    {"dilution", 0.21,
     "N = round(1+19*strength) fake inference forward passes per training step (0: 1, 1: 20)", 0},
    {"burn", 0.8,
     "dummy GEMMs fill optimizer, data-loader and checkpoint gaps; strength = share of the "
     "util and power gap filled (0: none, 1: flat)",
     0},
    {"work-variation", 0.5,
     "random work per step: forward/backward time x lognormal (mean 1, sigma = strength)", 0},
    {"migration", 0.5,
     "the job hops between the host's GPUs; one GPU works at a time for 1+6*(1-strength) s "
     "(0: 7 s, 1: 1 s); needs >= 2 GPUs (default 4)",
     0},
};

#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))
#define NEVASIONS (sizeof(evasions) / sizeof(evasions[0]))

const struct wt_sim_profile_info *wt_sim_profiles(size_t *n)
{
    if (n)
        *n = NPROFILES;
    return profiles;
}

const struct wt_sim_evasion_info *wt_sim_evasions(size_t *n)
{
    if (n)
        *n = NEVASIONS;
    return evasions;
}

const struct wt_sim_profile_info *wt_sim_profile_find(const char *name)
{
    for (size_t i = 0; name && i < NPROFILES; i++)
        if (!strcmp(profiles[i].name, name))
            return &profiles[i];
    return NULL;
}

const struct wt_sim_evasion_info *wt_sim_evasion_find(const char *name)
{
    for (size_t i = 0; name && i < NEVASIONS; i++)
        if (!strcmp(evasions[i].name, name))
            return &evasions[i];
    return NULL;
}

/* ---- state ---- */

enum tstate { T_LOAD, T_DATA, T_FB, T_OPT, T_FAKE, T_FAKE_GAP, T_CKPT_COPY, T_CKPT_WRITE };

struct train_job {
    enum tstate st;
    double left;   /* work left in the phase, seconds at full speed */
    long steps;    /* optimizer steps completed */
    int micro;     /* micro-steps done in this step */
    int fakes;     /* fake passes left after this step */
    double jit;    /* this step's duration factor */
    double fb_x;   /* forward/backward duration factor (work-variation, mem-minimal) */
    double units;  /* work this step is worth */
    double ckpt_s; /* what is left of the checkpoint after the copy */
    /* evasion gates: duty cycling, or migration between GPUs */
    int gate_on;
    double gate_left;
    unsigned active, prev;
    double hop_left;
};

struct req {
    double prefill; /* prefill seconds left (0: decoding) */
    double tokens;  /* decode tokens left */
};

struct infer_job {
    double now, next_arrival, load_left, t_tok0, comp, diurnal_phase;
    int burst;
    double burst_left;
    long arrivals;
    struct req r[MAX_CONC];
    int n, peak;
    long queued;
};

struct gpu_state {
    struct wt_rng noise, job_rng;
    struct train_job tr;
    struct infer_job in;
    uint64_t k;
    double t, plateau_mib, mem_off, p_lag, p_ar, p_last, energy, temp, t_amb, work, r_last;
    int capped_last;
    double *busy, *memu, *tx, *rx, *pw; /* rings: wu, wu, wu, wu, wp entries */
    size_t pos_u, pos_p;
};

struct wt_sim {
    const struct wt_sim_profile_info *prof;
    const struct profile_def *pd;
    /* this run's parameters: the profile's, or drawn around them (randomize) */
    struct train_params tp;
    struct infer_params ip;
    double util_window_s, step_jitter, noise_frac, dec_busy0, dec_dyn0, dec_memu;
    enum evasion ev;
    double strength;
    double asleep; /* duty-fixed / duty-random: mean share of the time asleep */
    const struct gpu_model *m;
    int avg1s;
    double hz, dt, limit, r_lock, lock_mhz, base_w, util_max;
    /* per-micro-step factors of dt (constant: computed once, not per step) */
    double k_power, rho_noise, c_noise, k_temp, rho_comp, c_comp;
    unsigned n_sub, ngpus;
    size_t wu, wp;
    struct gpu_state *g;
};

/* ---- board model ---- */

/* Power of a phase at the clock the board allows; *r = SM clock / max, *capped
 * = the enforced limit binds. */
static double board_power(const struct wt_sim *s, const struct act *a, double *r, int *capped)
{
    const struct gpu_model *m = s->m;
    double dyn = (m->limit_w - m->idle_ctx_w) * a->dyn;
    double rr = s->r_lock;
    double p = s->base_w + dyn * (1 - a->kappa * (1 - rr * rr));
    *capped = 0;
    if (p > s->limit) {
        *capped = 1;
        if (a->kappa > 0 && dyn > 0) {
            double need = (s->limit - s->base_w) / dyn;
            double r2 = 1 - (1 - need) / a->kappa;
            rr = mind(rr, sqrt(r2 > R_MIN * R_MIN ? r2 : R_MIN * R_MIN));
        }
        p = s->limit;
    }
    *r = rr;
    return p;
}

struct acc {
    double busy, memu, tx, rx, energy, r;
    int capped;
};

/* Adds seg seconds of activity a. */
static void acc_add(const struct wt_sim *s, struct acc *ac, const struct act *a, double seg)
{
    double r;
    int capped;
    double p = board_power(s, a, &r, &capped);
    ac->busy += a->busy * seg;
    ac->memu += a->memu * seg;
    ac->tx += a->tx * seg;
    ac->rx += a->rx * seg;
    ac->energy += p * seg;
    ac->r = r;
    ac->capped = capped;
}

/* Progress of a phase per second at the clock the board allows: work of
 * clock sensitivity kappa takes 1 + kappa * (1/r - 1) times longer. */
static double phase_speed(const struct wt_sim *s, const struct act *a)
{
    double r;
    int capped;
    board_power(s, a, &r, &capped);
    return 1 / (1 + a->kappa * (1 / r - 1));
}

/* ---- training ---- */

static int is_gated(const struct wt_sim *s)
{
    return s->ev == EV_DUTY_FIXED || s->ev == EV_DUTY_RANDOM || s->ev == EV_MIGRATION;
}

static double exp_draw(struct wt_rng *r, double mean)
{
    return -mean * log(1 - wt_rng_uniform(r));
}

static double migration_slot(double st, struct wt_rng *rng)
{
    double mean = MIGR_SLOT_MIN_S + MIGR_SLOT_RANGE_S * (1 - st);
    return mean * (1 + MIGR_SLOT_JITTER * (2 * wt_rng_uniform(rng) - 1));
}

static void gate_next(const struct wt_sim *s, struct train_job *j, struct wt_rng *rng)
{
    double st = s->strength;
    if (s->ev == EV_MIGRATION) {
        j->prev = j->active;
        j->active = (j->active + 1) % s->ngpus;
        j->hop_left = HOP_S;
        j->gate_left = migration_slot(st, rng);
        return;
    }
    j->gate_on = !j->gate_on;
    double mean = DUTY_PERIOD_S * (j->gate_on ? 1 - s->asleep : s->asleep);
    j->gate_left = s->ev == EV_DUTY_FIXED ? mean : exp_draw(rng, mean);
}

static void train_begin_step(const struct wt_sim *s, struct gpu_state *g)
{
    struct train_job *j = &g->tr;
    const struct train_params *p = &s->tp;
    j->jit = 1 + clampd(wt_rng_gauss(&g->job_rng, 0, s->step_jitter), -0.3, 0.3);
    j->fb_x = 1;
    j->units = 1;
    if (s->ev == EV_WORK_VARIATION) {
        double sg = s->strength;
        /* mean 1: the same work on average, spread over random step sizes */
        double x =
            clampd(exp(wt_rng_gauss(&g->job_rng, -sg * sg / 2, sg)), WORKVAR_MIN, WORKVAR_MAX);
        j->fb_x *= x;
        j->units *= x;
    } else if (s->ev == EV_MEM_MINIMAL) {
        double bf = 1 - MEMMIN_BATCH * s->strength;
        j->fb_x *= pow(bf, MEMMIN_TIME_EXP);
        j->units *= bf;
    }
    j->micro = 0;
    j->st = T_DATA;
    j->left = p->t_data * j->jit;
}

/* The phase after the one that just ended; counts a completed step. */
static void train_next(const struct wt_sim *s, struct gpu_state *g, int counted)
{
    struct train_job *j = &g->tr;
    const struct train_params *p = &s->tp;
    switch (j->st) {
    case T_LOAD:
        train_begin_step(s, g);
        return;
    case T_DATA:
        j->st = T_FB;
        j->left = p->t_fb * j->jit * j->fb_x;
        return;
    case T_FB:
        if (++j->micro < p->micro) {
            j->st = T_DATA;
            j->left = p->t_data * j->jit;
        } else {
            j->st = T_OPT;
            j->left = p->t_opt * j->jit;
        }
        return;
    case T_OPT:
        j->steps++;
        if (counted)
            g->work += j->units;
        if (s->ev == EV_DILUTION) {
            j->fakes = (int)lround(1 + DILUTION_MAX * s->strength);
            j->st = T_FAKE;
            j->left = p->t_fb * p->micro / 3;
            return;
        }
        break;
    case T_FAKE:
        j->st = T_FAKE_GAP;
        j->left = FAKE_GAP_S;
        return;
    case T_FAKE_GAP:
        if (--j->fakes > 0) {
            j->st = T_FAKE;
            j->left = p->t_fb * p->micro / 3;
            return;
        }
        break;
    case T_CKPT_COPY:
        j->st = T_CKPT_WRITE;
        j->left = j->ckpt_s; /* the rest of the pause */
        return;
    case T_CKPT_WRITE:
        train_begin_step(s, g);
        return;
    }
    /* after a step (and its fake passes) */
    if (j->steps % p->ckpt_every == 0) {
        double len = clampd(wt_rng_gauss(&g->job_rng, p->ckpt_s, p->ckpt_s * CKPT_SD),
                            p->ckpt_s * 0.5, p->ckpt_s * 2);
        j->st = T_CKPT_COPY;
        j->left = mind(CKPT_COPY_S, len / 2);
        j->ckpt_s = len - j->left;
        return;
    }
    train_begin_step(s, g);
}

/* Activity of the current training phase with the evasion applied; *rate =
 * the share of full speed its kernels get (util-cap). */
static struct act train_act(const struct wt_sim *s, const struct train_job *j, unsigned gi,
                            double *rate)
{
    const struct train_params *p = &s->tp;
    struct act a;
    int gap = 0; /* a low-power phase that burn fills */
    *rate = 1;
    switch (j->st) {
    case T_LOAD:
        a = act_load;
        break;
    case T_DATA:
        a = p->data;
        gap = 1;
        break;
    case T_FB:
        a = p->fb;
        if (s->ev == EV_MEM_MINIMAL) {
            a.busy *= 1 - MEMMIN_BUSY * s->strength;
            a.dyn *= 1 - MEMMIN_DYN * s->strength;
            a.memu *= 1 - MEMMIN_MEMU * s->strength;
        }
        break;
    case T_OPT:
        a = p->opt;
        if (s->ngpus > 1 && s->ev != EV_MIGRATION) {
            a.tx += MULTI_GPU_COMM;
            a.rx += MULTI_GPU_COMM;
        }
        gap = 1;
        if (s->ev == EV_BURN)
            *rate = 1 / (1 + BURN_SLOWDOWN * s->strength); /* burn GEMMs share the SMs */
        break;
    case T_FAKE:
        a = p->fb;
        a.dyn *= FAKE_DYN;
        a.memu = FAKE_MEMU;
        a.kappa = FAKE_KAPPA;
        a.tx = 50;
        a.rx = 100;
        break;
    case T_FAKE_GAP:
        a = act_fake_gap;
        break;
    case T_CKPT_COPY:
        a = act_ckpt_copy;
        gap = 1;
        break;
    default:
        a = act_ckpt_write;
        gap = 1;
        break;
    }
    /* data parallel: while rank 0 saves the checkpoint the other ranks wait in
     * a collective, whose kernel spins (util pinned at 100 %, board near idle) */
    if ((j->st == T_CKPT_COPY || j->st == T_CKPT_WRITE) && gi > 0 && s->ngpus > 1 &&
        s->ev != EV_MIGRATION)
        a = act_spin;
    if (s->ev == EV_BURN && gap) {
        double b = s->strength;
        a.busy += (p->fb.busy - a.busy) * b;
        a.dyn += (p->fb.dyn - a.dyn) * b;
        a.memu = a.memu * (1 - b) + BURN_MEMU * b;
        a.kappa += (1 - a.kappa) * b;
    }
    if (s->ev == EV_UTIL_CAP) {
        double cap = s->util_max / 100 - UTIL_CAP_MARGIN;
        if (a.busy > cap && a.busy > 0) {
            double f = cap > 0 ? cap / a.busy : 0;
            *rate = f;
            a.busy *= f;
            a.dyn *= f;
            a.memu *= f;
        }
    }
    return a;
}

static void train_advance(const struct wt_sim *s, struct gpu_state *g, unsigned gi, double dt,
                          struct acc *ac)
{
    struct train_job *j = &g->tr;
    int gated = is_gated(s), migr = s->ev == EV_MIGRATION;
    double rem = dt;
    for (int guard = 0; rem > EPSILON_S && guard < 100000; guard++) {
        double seg;
        int hop = 0;
        if (gated && !migr && !j->gate_on) { /* asleep: the job makes no progress */
            seg = mind(rem, j->gate_left);
            acc_add(s, ac, &act_sleep, seg);
        } else if (migr && j->hop_left > 0) { /* moving the job's state to the next GPU */
            seg = mind(rem, j->hop_left);
            hop = 1;
            acc_add(s, ac,
                    gi == j->active ? &act_hop_in
                    : gi == j->prev ? &act_hop_out
                                    : &act_sleep,
                    seg);
            j->hop_left -= seg;
            if (j->hop_left <= EPSILON_S)
                j->hop_left = 0;
        } else {
            double rate;
            struct act a = train_act(s, j, gi, &rate);
            int shown = !migr || gi == j->active || j->st == T_LOAD;
            /* the speed comes from the working GPU's board, shown or not, so that
             * every GPU's copy of the job keeps the same timeline: rank 0's
             * (another rank's own activity may differ: its collective spins
             * while rank 0 saves a checkpoint, and a utilization cap slowed
             * that spin, so the ranks drifted apart at every checkpoint) */
            struct act a0 = a;
            if (gi > 0)
                a0 = train_act(s, j, 0, &rate);
            double speed = phase_speed(s, &a0) * rate;
            seg = speed > 0 ? mind(rem, j->left / speed) : rem;
            if (gated)
                seg = mind(seg, j->gate_left);
            acc_add(s, ac, shown ? &a : &act_sleep, seg);
            j->left -= seg * speed;
            if (j->left <= EPSILON_S)
                train_next(s, g, !migr || gi == j->active);
        }
        rem -= seg;
        if (gated && !hop) { /* a migration slot is work time: the hop comes before it */
            j->gate_left -= seg;
            if (j->gate_left <= EPSILON_S)
                gate_next(s, j, &g->job_rng);
        }
    }
}

/* ---- inference ---- */

static double infer_rate(const struct infer_params *p, const struct infer_job *j)
{
    switch (p->arr) {
    case ARR_MMPP:
        return j->burst ? p->rate : MMPP_OFF_RATE;
    case ARR_DIURNAL:
        return p->rate * (1 + DIURNAL_DEPTH);
    default:
        return p->rate;
    }
}

static void infer_schedule(const struct infer_params *p, struct infer_job *j, struct wt_rng *r)
{
    if (p->arr == ARR_PERIODIC) /* exact, no drift */
        j->next_arrival = p->load_s + (double)j->arrivals / p->rate;
    else
        j->next_arrival = j->now + exp_draw(r, 1 / infer_rate(p, j));
}

static void infer_admit(const struct infer_params *p, struct infer_job *j, struct wt_rng *r)
{
    struct req *q = &j->r[j->n++];
    q->prefill = p->prefill_lo + (p->prefill_hi - p->prefill_lo) * wt_rng_uniform(r);
    q->tokens = p->tokens_mean > 0 ? clampd(exp_draw(r, p->tokens_mean), TOKENS_MIN, TOKENS_MAX)
                                   : p->tokens_fixed;
    if (j->n > j->peak)
        j->peak = j->n;
}

/* Activity of the engine: a prefill in the batch (index pf >= 0), nd decoding. */
static struct act infer_act(const struct wt_sim *s, const struct infer_job *j, int pf, int nd)
{
    struct act a = act_sleep;
    if (nd > 0) {
        double x = nd - 1;
        a.busy = clampd(s->dec_busy0 + DEC_BUSY_GAIN * (1 - exp(-x / DEC_BUSY_N)), 0, 1);
        a.dyn = (s->dec_dyn0 + DEC_DYN_GAIN * (1 - exp(-x / DEC_DYN_N))) * j->comp;
        a.memu = clampd(s->dec_memu * a.busy, 0, 100);
        /* the power's sensitivity: decode's speed has its own (DEC_KAPPA,
         * infer_advance), as memory-bound work barely slows at a low clock
         * while its SMs draw less */
        a.kappa = DEC_KAPPA_PW;
        a.tx = 2 + 0.5 * nd; /* tokens in and out: tiny */
        a.rx = 2 + 0.5 * nd;
    }
    if (pf >= 0) {
        struct act d = a;
        a = act_prefill;
        if (nd > 0) {
            a.dyn = d.dyn > a.dyn ? d.dyn : a.dyn;
            a.memu += MIX_MEMU;
            a.kappa = MIX_KAPPA;
        }
    }
    return a;
}

/* One micro-step (s->dt, for which rho_comp and c_comp are computed). */
static void infer_advance(const struct wt_sim *s, struct gpu_state *g, struct acc *ac)
{
    const struct infer_params *p = &s->ip;
    struct infer_job *j = &g->in;
    double dt = s->dt;
    j->comp =
        1 + (j->comp - 1) * s->rho_comp + COMP_SD * s->c_comp * wt_rng_gauss(&g->job_rng, 0, 1);
    j->comp = clampd(j->comp, 0.7, 1.3); /* +-30 % at most */
    double rem = dt;
    for (int guard = 0; rem > EPSILON_S && guard < 100000; guard++) {
        double seg = rem;
        if (j->load_left > 0) {
            seg = mind(rem, j->load_left);
            acc_add(s, ac, &act_load, seg);
            j->load_left -= seg;
            if (j->load_left <= EPSILON_S)
                j->load_left = 0;
            j->now += seg;
            rem -= seg;
            continue;
        }
        int pf = -1, nd = 0;
        double min_tok = INFINITY;
        for (int i = 0; i < j->n; i++) {
            if (j->r[i].prefill > 0) {
                if (pf < 0)
                    pf = i;
            } else {
                nd++;
                min_tok = mind(min_tok, j->r[i].tokens);
            }
        }
        struct act a = infer_act(s, j, pf, nd);
        double r;
        int capped;
        board_power(s, &a, &r, &capped);
        double p_speed = r;                                 /* prefill: compute-bound */
        double d_speed = 1 / (1 + DEC_KAPPA * (1 / r - 1)); /* decode: memory-bound */
        double tok_rate = 0;
        seg = mind(seg, j->next_arrival - j->now);
        if (p->arr == ARR_MMPP)
            seg = mind(seg, j->burst_left);
        if (pf >= 0)
            seg = mind(seg, j->r[pf].prefill / p_speed);
        if (nd > 0) {
            tok_rate =
                (pf >= 0 ? CHUNKED_MIX : 1) * d_speed / (j->t_tok0 * (1 + TOK_SLOPE * (nd - 1)));
            seg = mind(seg, min_tok / tok_rate);
        }
        if (seg < 0)
            seg = 0;
        acc_add(s, ac, &a, seg);
        j->now += seg;
        rem -= seg;
        for (int i = 0; i < j->n; i++)
            if (j->r[i].prefill <= 0)
                j->r[i].tokens -= seg * tok_rate;
        if (pf >= 0) {
            j->r[pf].prefill -= seg * p_speed;
            if (j->r[pf].prefill <= EPSILON_S)
                j->r[pf].prefill = 0;
        }
        for (int i = 0; i < j->n; i++) {
            if (j->r[i].prefill > 0 || j->r[i].tokens > 1e-9)
                continue;
            /* served: free the slot (keeping the order), admit a waiting request */
            memmove(&j->r[i], &j->r[i + 1], (size_t)(j->n - i - 1) * sizeof(j->r[0]));
            j->n--;
            i--;
            g->work += 1;
            if (j->queued > 0) {
                j->queued--;
                infer_admit(p, j, &g->job_rng);
            }
        }
        if (p->arr == ARR_MMPP) {
            j->burst_left -= seg;
            if (j->burst_left <= EPSILON_S) {
                j->burst = !j->burst;
                j->burst_left = exp_draw(&g->job_rng, j->burst ? MMPP_ON_S : MMPP_OFF_S);
                infer_schedule(p, j, &g->job_rng); /* memoryless: redraw at the new rate */
            }
        }
        if (j->now >= j->next_arrival - EPSILON_S) {
            int accept = 1;
            if (p->arr == ARR_DIURNAL) /* thinning */
                accept = wt_rng_uniform(&g->job_rng) * (1 + DIURNAL_DEPTH) <
                         1 + DIURNAL_DEPTH * sin(6.283185307179586 * j->now / DIURNAL_PERIOD_S +
                                                 j->diurnal_phase);
            if (accept) {
                if (j->n < p->max_conc)
                    infer_admit(p, j, &g->job_rng);
                else if (j->queued < MAX_QUEUE)
                    j->queued++;
            }
            j->arrivals++;
            infer_schedule(p, j, &g->job_rng);
        }
    }
}

/* ---- sampling ---- */

static void micro_step(struct wt_sim *s, struct gpu_state *g, unsigned gi)
{
    const struct gpu_model *m = s->m;
    struct acc ac = {0};
    ac.r = 1;
    double dt = s->dt;
    switch (s->pd->kind) {
    case JOB_TRAIN:
        train_advance(s, g, gi, dt, &ac);
        break;
    case JOB_INFER:
        infer_advance(s, g, &ac);
        break;
    default:
        acc_add(s, &ac, &act_sleep, dt);
        break;
    }
    g->t += dt;
    /* power: lagged response to the demand, correlated noise, the limit */
    g->p_lag += (ac.energy / dt - g->p_lag) * s->k_power;
    g->p_ar = g->p_ar * s->rho_noise + s->c_noise * wt_rng_gauss(&g->noise, 0, 1);
    double p = g->p_lag + (NOISE_W + s->noise_frac * (g->p_lag - s->base_w)) * g->p_ar;
    int held = ac.capped && g->p_lag >= (1 - CAP_SETTLE) * s->limit;
    if (held) /* the controller holds it */
        p = s->limit * (1 - fabs(wt_rng_gauss(&g->noise, 0, CAP_DITHER)));
    /* a lowered limit is never exceeded; the default one only by transients */
    double hi = s->limit < m->limit_w ? s->limit : 1.05 * s->limit;
    if (p >= hi && s->limit < m->limit_w) {
        /* noise took the power to a lowered limit that the demand alone is
         * under: it is held there by the controller (SwPowerCap, a clock step
         * down), as when the demand exceeds it; no random draw, so the
         * power and every other reading stay what they were */
        held = 1;
        ac.r = fmin(ac.r, 1 - CLOCK_STEP_MHZ / m->sm_max_mhz);
    }
    /* the controller steps the clock down, and NVML shows SwPowerCap, once the
     * power has reached the limit: while a phase's power still climbs to it
     * (TAU_POWER_S) the readings show the board's own clock and no cap (the
     * phase's progress already runs at the capped clock: a 50 ms shortcut) */
    if (!held)
        ac.r = s->r_lock;
    ac.capped = held;
    p = clampd(p, 0.9 * m->idle_bare_w, hi);
    g->p_last = p;
    g->energy += p * dt;
    double t_ss = g->t_amb + DT_AT_TDP_C * p / m->limit_w;
    g->temp += (t_ss - g->temp) * s->k_temp;
    g->r_last = ac.r;
    g->capped_last = ac.capped;
    g->busy[g->pos_u] = ac.busy / dt;
    g->memu[g->pos_u] = ac.memu / dt;
    g->tx[g->pos_u] = ac.tx / dt;
    g->rx[g->pos_u] = ac.rx / dt;
    g->pos_u = (g->pos_u + 1) % s->wu;
    g->pw[g->pos_p] = p;
    g->pos_p = (g->pos_p + 1) % s->wp;
    /* caching allocator: rare segment changes, within +-40 MiB of the plateau */
    if (wt_rng_uniform(&g->noise) < MEM_JUMP_HZ * dt)
        g->mem_off = (wt_rng_uniform(&g->noise) * 2 - 1) * MEM_JUMP_MIB;
}

static double ring_mean(const double *x, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

static double smoothstep(double x)
{
    x = clampd(x, 0, 1);
    return x * x * (3 - 2 * x);
}

static double memory_mib(const struct wt_sim *s, const struct gpu_state *g)
{
    double total = s->m->mem_mib;
    double base = RESERVED_FRAC * total;
    switch (s->pd->kind) {
    case JOB_IDLE:
        return base;
    case JOB_RESIDENT:
        return g->plateau_mib;
    case JOB_TRAIN: {
        double ramp = smoothstep(g->t / s->tp.ramp_s);
        return base + CTX_MIB + (g->plateau_mib - base - CTX_MIB) * ramp + g->mem_off * ramp;
    }
    default: {
        const struct infer_params *p = &s->ip;
        double loaded = 1 - g->in.load_left / p->load_s;
        if (p->reserve)
            return base + CTX_MIB + (VLLM_RESERVE * total - base - CTX_MIB) * loaded +
                   g->mem_off / 4 * loaded;
        /* the caching allocator keeps the KV cache of the busiest moment so far,
         * never past 90 % of the memory */
        double kv = mind(p->kv_frac * g->in.peak, 0.9 - p->weights_frac);
        return base + CTX_MIB + p->weights_frac * total * loaded + kv * total + g->mem_off * loaded;
    }
    }
}

void wt_sim_next(struct wt_sim *s, unsigned gpu, struct wt_sample *out)
{
    wt_sample_clear(out, (int)gpu);
    if (!s || gpu >= s->ngpus)
        return;
    struct gpu_state *g = &s->g[gpu];
    const struct gpu_model *m = s->m;
    if (g->k > 0)
        for (unsigned i = 0; i < s->n_sub; i++)
            micro_step(s, g, gpu);
    out->t_s = (double)g->k / s->hz;
    g->k++;
    out->label = s->prof->cls;
    double *v = out->v;
    double util = 100 * ring_mean(g->busy, s->wu);
    if (util > 0.5) /* kernel-timing jitter; a throttler keeps util under its target */
        util = mind(util + wt_rng_gauss(&g->noise, 0, UTIL_NOISE), s->util_max);
    util = round(clampd(util, 0, 100));
    if (util > s->util_max) /* a whole percent: 70.6 may read 70, never 71 */
        util = floor(s->util_max);
    v[WT_COL_UTIL_GPU] = util;
    double memu = ring_mean(g->memu, s->wu);
    if (memu > 0.5)
        memu += wt_rng_gauss(&g->noise, 0, UTIL_NOISE);
    v[WT_COL_UTIL_MEM] = round(clampd(memu, 0, 100));
    v[WT_COL_MEM_USED] = round(clampd(memory_mib(s, g), 0, m->mem_mib));
    v[WT_COL_MEM_TOTAL] = m->mem_mib;
    double p = s->avg1s ? ring_mean(g->pw, s->wp) : g->p_last;
    v[WT_COL_POWER] = round(p * 1000) / 1000;
    v[WT_COL_POWER_LIMIT] = s->limit;
    v[WT_COL_POWER_DEFAULT_LIMIT] = m->limit_w;
    v[WT_COL_ENERGY] = round(g->energy * 1000) / 1000;
    double clk;
    if (s->ev == EV_CLOCK_LOCK)
        clk = s->lock_mhz;
    else if (util == 0)
        clk = m->sm_idle_mhz;
    else
        clk =
            CLOCK_STEP_MHZ *
            round((m->sm_max_mhz * g->r_last - fabs(wt_rng_gauss(&g->noise, 0, CLOCK_JITTER_MHZ))) /
                  CLOCK_STEP_MHZ);
    v[WT_COL_SM_CLOCK] = clk;
    v[WT_COL_SM_CLOCK_MAX] = m->sm_max_mhz;
    v[WT_COL_MEM_CLOCK] = m->mem_mhz;
    v[WT_COL_TEMP] = round(g->temp);
    double tx = ring_mean(g->tx, s->wu), rx = ring_mean(g->rx, s->wu);
    /* PCIe counters: +-10 % measurement noise, 0.1 MiB/s resolution */
    v[WT_COL_PCIE_TX] = round(10 * tx * (1 + 0.1 * wt_rng_gauss(&g->noise, 0, 1))) / 10;
    v[WT_COL_PCIE_RX] = round(10 * rx * (1 + 0.1 * wt_rng_gauss(&g->noise, 0, 1))) / 10;
    v[WT_COL_PCIE_TX] = clampd(v[WT_COL_PCIE_TX], 0, 1e6);
    v[WT_COL_PCIE_RX] = clampd(v[WT_COL_PCIE_RX], 0, 1e6);
    v[WT_COL_CLOCK_REASONS] =
        (util == 0 ? 0x1 : 0) | (s->ev == EV_CLOCK_LOCK ? 0x2 : 0) | (g->capped_last ? 0x4 : 0);
    v[WT_COL_PROCS] = s->pd->kind == JOB_IDLE ? 0 : 1;
}

/* ---- open / close ---- */

static const char *or_default(const char *x, const char *d)
{
    return x && *x ? x : d;
}

static double unif(struct wt_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * wt_rng_uniform(r);
}

static double logunif(struct wt_rng *r, double lo, double hi)
{
    return exp(unif(r, log(lo), log(hi)));
}

/* Domain randomization: this run's nuisance parameters drawn from ranges
 * around the profile's (docs/simulator.md, "Randomized runs"), so that a
 * classifier cannot lean on one simulator setting. */
static void randomize(struct wt_sim *s, struct wt_rng *r)
{
    s->util_window_s = logunif(r, 1.0 / 6, 1.0); /* NVML: 1/6 s .. 1 s by product */
    s->noise_frac = unif(r, 0.01, 0.08);
    if (s->pd->kind == JOB_TRAIN) {
        struct train_params *p = &s->tp;
        double k = logunif(r, 0.35, 2.5);
        p->t_fb *= k;
        p->t_data *= k * logunif(r, 0.3, 3);
        p->t_opt *= k * logunif(r, 0.5, 2);
        s->step_jitter = unif(r, 0.01, 0.12);
        if (p->fb.busy >= 0.5)
            p->fb.busy = unif(r, 0.85, 0.995);
        else
            p->fb.busy = unif(r, 0.10, 0.45);
        p->fb.dyn = clampd(p->fb.dyn * unif(r, 0.7, 1.15), 0.05, 0.95);
        p->fb.memu = clampd(p->fb.memu * unif(r, 0.5, 1.4), 1, 95);
        p->opt.memu = clampd(p->opt.memu * unif(r, 0.6, 1.3), 1, 95);
        p->opt.busy = clampd(p->opt.busy * unif(r, 0.6, 1.2), 0.05, 1);
        p->ckpt_every = (int)lround(logunif(r, 20, 1000));
        p->ckpt_s *= unif(r, 0.3, 2);
    } else if (s->pd->kind == JOB_INFER) {
        struct infer_params *p = &s->ip;
        p->rate *= logunif(r, 0.3, 3);
        double pk = unif(r, 0.5, 2);
        p->prefill_lo *= pk;
        p->prefill_hi *= pk;
        p->tokens_mean *= logunif(r, 0.25, 4);
        p->tokens_fixed = round(p->tokens_fixed * logunif(r, 0.3, 3));
        if (p->tokens_fixed < 1)
            p->tokens_fixed = 1;
        s->dec_memu = unif(r, 30, 90);
        s->dec_busy0 = unif(r, 0.35, 0.75);
        s->dec_dyn0 = unif(r, 0.15, 0.40);
    }
}

static void gpu_init(struct wt_sim *s, struct gpu_state *g, unsigned gi, uint64_t seed)
{
    const struct gpu_model *m = s->m;
    wt_rng_seed(&g->noise, wt_mix64(seed ^ (0x6e6f697365ULL + gi)));
    /* a training job's random stream is shared by its GPUs (lock-step data
     * parallelism); inference replicas and idle GPUs each have their own */
    uint64_t js = s->pd->kind == JOB_TRAIN ? wt_mix64(seed ^ 0x6a6f62ULL)
                                           : wt_mix64(seed ^ (0x6a6f62ULL + 0x100 * (gi + 1)));
    wt_rng_seed(&g->job_rng, js);
    double total = m->mem_mib;
    g->r_last = 1;
    if (s->pd->kind == JOB_TRAIN) {
        const struct train_params *p = &s->tp;
        double frac = p->mem_lo + (p->mem_hi - p->mem_lo) * wt_rng_uniform(&g->job_rng);
        if (s->ev == EV_MEM_MINIMAL)
            frac += (MEMMIN_PLATEAU - frac) * s->strength;
        g->plateau_mib = frac * total;
        g->tr.st = T_LOAD;
        g->tr.left = p->load_s;
        g->tr.gate_on = 1;
        if (s->ev == EV_MIGRATION)
            g->tr.gate_left = migration_slot(s->strength, &g->job_rng);
        else {
            /* drawn for duty-fixed too, unused there: its job is then the
             * same as its twin's without evasion (one draw behind, its
             * steps and checkpoints differed and so did its cost) */
            double first = exp_draw(&g->job_rng, DUTY_PERIOD_S * (1 - s->asleep));
            g->tr.gate_left = s->ev == EV_DUTY_FIXED ? DUTY_PERIOD_S * (1 - s->asleep) : first;
        }
    } else if (s->pd->kind == JOB_INFER) {
        const struct infer_params *p = &s->ip;
        struct infer_job *j = &g->in;
        j->load_left = p->load_s;
        j->t_tok0 = T_TOK_LO + (T_TOK_HI - T_TOK_LO) * wt_rng_uniform(&g->job_rng);
        j->comp = 1;
        j->diurnal_phase = 6.283185307179586 * wt_rng_uniform(&g->job_rng);
        j->burst = 1;
        j->burst_left = exp_draw(&g->job_rng, MMPP_ON_S);
        j->now = 0;
        if (p->arr == ARR_PERIODIC) {
            j->arrivals = 0;
            j->next_arrival = p->load_s;
        } else {
            j->next_arrival = p->load_s + exp_draw(&g->job_rng, 1 / infer_rate(p, j));
        }
    } else if (s->pd->kind == JOB_RESIDENT) {
        double frac = RESIDENT_LO + (RESIDENT_HI - RESIDENT_LO) * wt_rng_uniform(&g->job_rng);
        g->plateau_mib = RESERVED_FRAC * total + CTX_MIB + frac * total;
    }
    g->p_lag = s->base_w;
    for (size_t i = 0; i < s->wp; i++)
        g->pw[i] = s->base_w;
    g->p_last = s->base_w;
    g->t_amb = T_AMB_C + 4 * (wt_rng_uniform(&g->noise) - 0.5); /* +-2 C between slots */
    g->temp = g->t_amb + DT_AT_TDP_C * s->base_w / m->limit_w;
}

int wt_sim_open(struct wt_sim **out, const struct wt_sim_config *c, struct wt_err *err)
{
    if (!out)
        return wt_errf(err, WT_EINVAL, "simulator: no output pointer");
    *out = NULL;
    if (!c)
        return wt_errf(err, WT_EINVAL, "simulator: no configuration");
    if (!c->profile || !*c->profile)
        return wt_errf(err, WT_EINVAL, "simulator: no profile given");
    const struct wt_sim_profile_info *prof = wt_sim_profile_find(c->profile);
    if (!prof)
        return wt_errf(err, WT_EINVAL, "unknown simulator profile '%s'", c->profile);
    const struct profile_def *pd = &profile_defs[prof - profiles];
    enum evasion ev = EV_NONE;
    const char *evname = or_default(c->evasion, "none");
    if (strcmp(evname, "none")) {
        const struct wt_sim_evasion_info *e = wt_sim_evasion_find(evname);
        if (!e)
            return wt_errf(err, WT_EINVAL, "unknown evasion family '%s'", evname);
        if (pd->kind != JOB_TRAIN && !e->board)
            return wt_errf(err, WT_EINVAL,
                           "evasion '%s' applies to training profiles, not '%s' (only the board "
                           "settings power-cap and clock-lock apply to any profile)",
                           evname, prof->name);
        ev = (enum evasion)(e - evasions);
    }
    double strength = c->strength;
    if (isnan(strength))
        return wt_errf(err, WT_EINVAL, "strength is not a number");
    if (strength > 1)
        return wt_errf(err, WT_EINVAL,
                       "strength %g is above 1 (use 0..1, or negative for the "
                       "family's default)",
                       strength);
    if (ev == EV_NONE)
        strength = 0;
    else if (strength < 0)
        strength = evasions[ev].default_strength;
    const char *gname = or_default(c->gpu, "h100");
    const struct gpu_model *m = NULL;
    for (size_t i = 0; i < sizeof(gpu_models) / sizeof(gpu_models[0]); i++)
        if (!strcmp(gpu_models[i].key, gname))
            m = &gpu_models[i];
    if (!m)
        return wt_errf(err, WT_EINVAL, "unknown GPU model '%s' (h100, h200, a100, l40s, v100)",
                       gname);
    double hz = c->sample_hz == 0 ? 10 : c->sample_hz;
    if (!(hz >= 0.1 && hz <= 100))
        return wt_errf(err, WT_EINVAL, "sample rate %g Hz is outside 0.1..100", hz);
    const char *sem = or_default(c->power_semantics, "instant");
    if (strcmp(sem, "instant") && strcmp(sem, "avg1s"))
        return wt_errf(err, WT_EINVAL, "unknown power semantics '%s' (instant, avg1s)", sem);
    unsigned ngpus = c->gpus ? c->gpus : (ev == EV_MIGRATION ? 4 : 1);
    if (ngpus > 16)
        return wt_errf(err, WT_EINVAL, "%u GPUs is outside 1..16", ngpus);
    if (ev == EV_MIGRATION && ngpus < 2)
        return wt_errf(err, WT_EINVAL, "evasion 'migration' needs at least 2 GPUs, not %u", ngpus);

    struct wt_sim *s = calloc(1, sizeof(*s));
    if (!s)
        return wt_errf(err, WT_ENOMEM, "simulator: out of memory");
    s->prof = prof;
    s->pd = pd;
    s->ev = ev;
    s->strength = strength;
    s->asleep = ev == EV_DUTY_FIXED || ev == EV_DUTY_RANDOM ? mind(strength, DUTY_MAX_ASLEEP) : 0;
    s->m = m;
    s->avg1s = !strcmp(sem, "avg1s");
    s->hz = hz;
    s->ngpus = ngpus;
    if (pd->tp)
        s->tp = *pd->tp;
    if (pd->ip)
        s->ip = *pd->ip;
    s->util_window_s = UTIL_WINDOW_S;
    s->step_jitter = STEP_JITTER;
    s->noise_frac = NOISE_FRAC;
    s->dec_busy0 = DEC_BUSY0;
    s->dec_dyn0 = DEC_DYN0;
    s->dec_memu = DEC_MEMU;
    if (c->randomize) {
        struct wt_rng dr;
        wt_rng_seed(&dr, wt_mix64(c->seed ^ 0xd0a1a5eedULL));
        randomize(s, &dr);
    }
    s->n_sub = (unsigned)ceil(1 / hz / MICRO_DT_S - 1e-9);
    s->dt = 1 / hz / s->n_sub;
    s->k_power = 1 - exp(-s->dt / TAU_POWER_S);
    s->rho_noise = exp(-s->dt / TAU_NOISE_S);
    s->c_noise = sqrt(1 - s->rho_noise * s->rho_noise);
    s->k_temp = 1 - exp(-s->dt / TAU_TEMP_S);
    s->rho_comp = exp(-s->dt / COMP_TAU_S);
    s->c_comp = sqrt(1 - s->rho_comp * s->rho_comp);
    s->wu = (size_t)ceil(s->util_window_s / s->dt - 1e-9);
    if (s->wu < s->n_sub)
        s->wu = s->n_sub;
    s->wp = (size_t)lround(AVG_WINDOW_S / s->dt);
    /* NVML reports limits in mW; so does this, and rounded power never exceeds it */
    s->limit = ev == EV_POWER_CAP ? m->limit_w * (1 - POWER_CAP_SLOPE * strength) : m->limit_w;
    s->limit = round(s->limit * 1000) / 1000;
    s->r_lock = ev == EV_CLOCK_LOCK ? 1 - CLOCK_LOCK_SLOPE * strength : 1;
    s->util_max = ev == EV_UTIL_CAP ? 100 * (1 - UTIL_CAP_SLOPE * strength) : 100;
    s->lock_mhz = CLOCK_STEP_MHZ * round(m->sm_max_mhz * s->r_lock / CLOCK_STEP_MHZ);
    s->base_w = pd->kind == JOB_IDLE ? m->idle_bare_w : m->idle_ctx_w;
    s->g = calloc(ngpus, sizeof(*s->g));
    double *rings = s->g ? calloc(ngpus * (4 * s->wu + s->wp), sizeof(double)) : NULL;
    if (!rings) {
        free(s->g);
        free(s);
        return wt_errf(err, WT_ENOMEM, "simulator: out of memory");
    }
    for (unsigned i = 0; i < ngpus; i++) {
        struct gpu_state *g = &s->g[i];
        double *r = rings + i * (4 * s->wu + s->wp);
        g->busy = r;
        g->memu = r + s->wu;
        g->tx = r + 2 * s->wu;
        g->rx = r + 3 * s->wu;
        g->pw = r + 4 * s->wu;
        gpu_init(s, g, i, c->seed);
    }
    *out = s;
    return WT_OK;
}

unsigned wt_sim_gpus(const struct wt_sim *s)
{
    return s ? s->ngpus : 0;
}

const char *wt_sim_gpu_model(const struct wt_sim *s)
{
    return s ? s->m->name : "";
}

void wt_sim_limits(const struct wt_sim *s, double *mem_total_mib, double *power_limit_w,
                   double *power_default_limit_w)
{
    *mem_total_mib = s->m->mem_mib;
    *power_limit_w = s->limit;
    *power_default_limit_w = s->m->limit_w;
}

const char *wt_sim_power_semantics(const struct wt_sim *s)
{
    return s && s->avg1s ? "avg1s" : "instant";
}

double wt_sim_work_done(const struct wt_sim *s)
{
    double w = 0;
    for (unsigned i = 0; s && i < s->ngpus; i++)
        w += s->g[i].work;
    return w;
}

void wt_sim_close(struct wt_sim *s)
{
    if (!s)
        return;
    if (s->g)
        free(s->g[0].busy);
    free(s->g);
    free(s);
}
