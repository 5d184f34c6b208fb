/* `workloadtruth record`: samples GPUs from a backend into a trace file, with
 * full metadata, flushing after every poll so an interrupted recording is
 * still a valid trace.  Stops after --duration seconds, on SIGINT/SIGTERM, or
 * when every GPU's stream has ended or failed; a GPU that fails (falls off the
 * bus) is reported and the others keep recording.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "util/fileio.h"
#include "telemetry/owners.h"
#include "telemetry/source.h"
#include "telemetry/trace_reader.h" /* WT_TRACE_MAX_META */
#include "telemetry/trace_writer.h"
#include "util/clock.h"
#include "util/text.h"

#define CHUNK 4096
#define OWNER_PROCS 1024 /* processes of a GPU whose owners are read (NVML's list) */
/* --workload, --evasion-note: the longest text taken (one metadata line each) */
#define NOTE_MAX 999
/* metadata carried from a replayed trace: fits a trace line (65536 bytes)
 * under its longest key, `# trace_source: ` */
#define CARRY_MAX 65000

static atomic_int stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* A write to the output failed: said once (standard output's failure is
 * not repeated by main). */
static void writer_failed(const char *out_path, const struct wt_err *err)
{
    fprintf(stderr, "workloadtruth record: %s\n", err->msg);
    if (!strcmp(out_path, "-"))
        wt_cli_stdout_reported = 1;
}

/* The owners cell id of GPU g now, interned in t: 0 (not measured) when its
 * processes cannot be listed or the cell cannot be kept (a trace's limit of
 * distinct cells, reached on a long recording of a busy node: said once, on
 * standard error, as the rows that follow read as "not known"). */
static uint32_t owners_of(struct wt_source *src, int g, struct wt_proc *procs, struct wt_owners *t,
                          int *warned)
{
    size_t n = 0;
    struct wt_err perr = {{0}};
    if (wt_source_processes(src, g, procs, OWNER_PROCS, &n, NULL, &perr) != WT_OK)
        return 0;
    char cell[WT_OWNERS_CELL_MAX + 1], why[160];
    size_t len = wt_owners_cell(procs, n, cell, sizeof(cell));
    uint32_t id = 0;
    if (wt_owners_intern(t, cell, len, &id, why, sizeof(why))) {
        if (!*warned)
            fprintf(stderr,
                    "workloadtruth record: GPU %d: owners '%.80s' not kept (%s): such rows get "
                    "an empty owners cell (not known)\n",
                    g, cell, why);
        *warned = 1;
        return 0;
    }
    return id;
}

int wt_cmd_record(int argc, char **argv)
{
    static const char *const backends[] = {"auto", "nvml", "synthetic", "replay", NULL};
    const char *backend = "auto", *out_path = NULL, *gpus = "all", *trace = NULL;
    const char *nvml_lib = NULL, *profile = "training", *label_s = NULL, *workload = NULL;
    const char *evasion_s = NULL;
    double interval = 1, duration = 0;
    unsigned long long seed = 0, per_tick = 0;
    int no_owners = 0, owners_warned = 0;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--backend", WT_OPT_CHOICE, &backend, "B", "auto (default: nvml when a driver is present), nvml, synthetic, replay", 0, 0, backends, false},
        {"--out", WT_OPT_STRING, &out_path, "FILE", "the trace to write ('-' = standard output)", 0, 0, NULL, false},
        {"--interval", WT_OPT_DOUBLE, &interval, "S", "seconds between polls (default 1); the driver's sample buffers fill in between", 0.01, 3600, NULL, false},
        {"--duration", WT_OPT_DOUBLE, &duration, "S", "stop after S seconds (default: until interrupted, or the end of a replayed trace)", 0.01, 31536000, NULL, false},
        {"--gpus", WT_OPT_STRING, &gpus, "LIST", "GPUs to record: all (default; from standard input: 0) or 0,1,...", 0, 0, NULL, false},
        {"--label", WT_OPT_STRING, &label_s, "CLASS", "ground truth for every row: TRAINING, INFERENCE or IDLE", 0, 0, NULL, false},
        {"--workload", WT_OPT_STRING, &workload, "TEXT", "metadata: what ran", 0, 0, NULL, false},
        {"--evasion-note", WT_OPT_STRING, &evasion_s, "TEXT", "metadata: the evasion technique applied, if any", 0, 0, NULL, false},
        {"--trace", WT_OPT_STRING, &trace, "FILE", "replay: the trace to re-record; implies --backend replay", 0, 0, NULL, false},
        {"--gpus-per-tick", WT_OPT_UINT, &per_tick, "N", "nvidia-smi CSV without an index column: rows per tick (default: detect, reading up to 128 rows ahead)", 1, WT_MAX_GPUS, NULL, false},
        {"--profile", WT_OPT_CHOICE, &profile, "P", "synthetic: the profile (default training)", 0, 0, wt_opts_profile_names(), false},
        {"--seed", WT_OPT_UINT, &seed, "N", "synthetic: random seed (default 0)", 0, 18446744073709551615.0, NULL, false},
        {"--nvml-lib", WT_OPT_STRING, &nvml_lib, "PATH", "NVML library to load (default: $WT_NVML_LIB, else libnvidia-ml.so.1)", 0, 0, NULL, false},
        {"--no-owners", WT_OPT_FLAG, &no_owners, NULL, "write no owners column (the Slurm jobs, pod UIDs and containers of each GPU's processes; a replayed trace's own)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth record",
        "Record GPU telemetry to a trace file (docs/trace-format.md), flushing after every\n"
        "poll, until --duration, Ctrl-C or SIGTERM.",
        "exit status: 0 when something was recorded, 1 when nothing could be read,\n"
        "the file could not be written or standard input had a bad row (the rows\n"
        "before it are written), 2 usage error.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if (!out_path) {
        fprintf(stderr, "workloadtruth record: needs --out FILE (see --help)\n");
        return WT_EXIT_USAGE;
    }
    enum wt_class label = WT_CLASS_NONE;
    if (label_s && (label = wt_class_parse(label_s, false)) == WT_CLASS_NONE) {
        fprintf(stderr,
                "workloadtruth record: --label: invalid choice '%s' (choose from "
                "TRAINING, INFERENCE, IDLE) (see --help)\n",
                WT_SHOWN(label_s));
        return WT_EXIT_USAGE;
    }
    if (trace) {
        if (wt_opts_get(opts, "--backend")->seen && strcmp(backend, "replay")) {
            fprintf(stderr,
                    "workloadtruth record: --trace needs --backend replay, not '%s' "
                    "(see --help)\n",
                    backend);
            return WT_EXIT_USAGE;
        }
        backend = "replay";
        /* the output is emptied when it is opened, while the trace is still
         * being read: the trace would be lost */
        if (strcmp(trace, "-") && strcmp(out_path, "-") && wt_same_path(out_path, trace)) {
            fprintf(stderr,
                    "workloadtruth record: --out %s is the trace being replayed (--trace): "
                    "recording over it would destroy it; write elsewhere (see --help)\n",
                    WT_SHOWN(out_path));
            return WT_EXIT_USAGE;
        }
        /* the same through standard input or output: `--trace - --out F < F`
         * or --out /dev/stdin (it was replaced, and the run exited 0), `--out -
         * >> F` with --trace F or F on standard input (the rows were appended
         * to the trace being read), and one pipe on both sides (record read
         * its own rows back).  A file or a pipe, by device and inode; not a
         * terminal or a socket, which one process may read and write. */
        struct stat si, so;
        int in_ok = !strcmp(trace, "-") ? fstat(STDIN_FILENO, &si) == 0 : stat(trace, &si) == 0;
        int out_ok =
            !strcmp(out_path, "-") ? fstat(STDOUT_FILENO, &so) == 0 : stat(out_path, &so) == 0;
        if (in_ok && out_ok && (S_ISREG(si.st_mode) || S_ISFIFO(si.st_mode)) &&
            si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            fprintf(stderr,
                    "workloadtruth record: --out %s is %s (--trace %s): recording into it "
                    "would %s; write elsewhere (see --help)\n",
                    strcmp(out_path, "-") ? WT_SHOWN(out_path) : "- (standard output)",
                    !strcmp(trace, "-") ? (S_ISFIFO(si.st_mode) ? "the pipe on standard input"
                                                                : "the file on standard input")
                                        : "the trace being replayed",
                    strcmp(trace, "-") ? WT_SHOWN(trace) : "-",
                    S_ISFIFO(si.st_mode) ? "read its own rows back"
                    : !strcmp(out_path, "-") && (fcntl(STDOUT_FILENO, F_GETFL) & O_APPEND)
                        ? "append its rows to it while reading it"
                        : "destroy it");
            return WT_EXIT_USAGE;
        }
    } else if (!strcmp(backend, "replay")) {
        fprintf(stderr, "workloadtruth record: --backend replay needs --trace FILE "
                        "('-' for standard input) (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (nvml_lib && strcmp(backend, "nvml") && strcmp(backend, "auto")) {
        fprintf(stderr, "workloadtruth record: --nvml-lib goes with --backend nvml or auto "
                        "(see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (wt_opts_get(opts, "--gpus-per-tick")->seen && strcmp(backend, "replay")) {
        fprintf(stderr, "workloadtruth record: --gpus-per-tick goes with --trace (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if ((wt_opts_get(opts, "--profile")->seen || wt_opts_get(opts, "--seed")->seen) &&
        strcmp(backend, "synthetic")) {
        fprintf(stderr, "workloadtruth record: --profile and --seed go with --backend synthetic "
                        "(see --help)\n");
        return WT_EXIT_USAGE;
    }
    /* one metadata line each; longer text would be cut */
    if ((workload && strlen(workload) > NOTE_MAX) || (evasion_s && strlen(evasion_s) > NOTE_MAX)) {
        fprintf(stderr, "workloadtruth record: --%s: longer than %d bytes (see --help)\n",
                workload && strlen(workload) > NOTE_MAX ? "workload" : "evasion-note", NOTE_MAX);
        return WT_EXIT_USAGE;
    }
    if (!*gpus || gpus[strlen(gpus) - 1] == ',') {
        fprintf(stderr,
                "workloadtruth record: --gpus: '%s' is not 'all' or a list such as "
                "0,1 (see --help)\n",
                WT_SHOWN(gpus));
        return WT_EXIT_USAGE;
    }
    /* standard input is recorded as its rows arrive (a live nvidia-smi pipe):
     * which GPUs it holds is known only at its end, so they are named */
    int from_stdin = trace && !strcmp(trace, "-");
    if (from_stdin && !strcmp(gpus, "all")) {
        if (wt_opts_get(opts, "--gpus")->seen) {
            fprintf(stderr, "workloadtruth record: --gpus all needs a file: standard input is "
                            "recorded as it arrives; name its GPUs, e.g. --gpus 0,1 (see "
                            "--help)\n");
            return WT_EXIT_USAGE;
        }
        gpus = "0";
    }
    if (!strcmp(backend, "synthetic") && !(duration > 0)) {
        fprintf(stderr, "workloadtruth record: the synthetic backend never ends: give "
                        "--duration (see --help)\n");
        return WT_EXIT_USAGE;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    struct wt_source_config cfg = {0};
    cfg.trace_path = trace;
    cfg.profile = profile;
    cfg.seed = seed;
    cfg.interval_s = interval;
    cfg.trace_opts.interval_s = interval;
    cfg.trace_opts.rows_per_tick = (unsigned)per_tick;
    cfg.nvml_lib = nvml_lib;
    cfg.stop = &stop_flag;
    struct wt_source *src = NULL;
    struct wt_trace_writer *w = NULL;
    struct wt_err err = {{0}};
    struct wt_sample *buf = malloc(CHUNK * sizeof(*buf));
    unsigned char *sel = NULL, *active = NULL;
    double *first_t = NULL;
    char *models = NULL, *sems = NULL, *periods = NULL;
    size_t models_len = 0, sems_len = 0, periods_len = 0;
    FILE *mf = NULL, *sf = NULL, *pf = NULL;
    int status = WT_EXIT_ERROR, ngpus = 0;
    char *cuts[WT_TRACE_MAX_META]; /* carried metadata values cut to fit a line */
    size_t ncuts = 0;
    unsigned long rows = 0;
    /* owners: read from each live GPU's process list (at most once a second
     * per GPU: the /proc reads of a long list), or a replayed trace's own */
    struct wt_owners *live_owners = NULL;
    const struct wt_owners *owners = NULL;
    struct wt_proc *procs = NULL;
    uint32_t *owner_id = NULL;
    double *owner_at = NULL;
    if (!buf) {
        fprintf(stderr, "workloadtruth record: out of memory\n");
        return WT_EXIT_ERROR;
    }
    /* the output is created when the first samples arrive (a run that reads
     * nothing leaves a file there as it was), but whether it can be is
     * known now: a bad --out was said only after a live pipe had been read
     * (its rows lost) or a GPU sampled, a directory too.  A device or FIFO
     * there is the writer's to open. */
    struct stat ost;
    int ostat = strcmp(out_path, "-") ? stat(out_path, &ost) : -1;
    int oe = !strcmp(out_path, "-")               ? 0
             : ostat == 0 && S_ISDIR(ost.st_mode) ? EISDIR
             : ostat != 0 || S_ISREG(ost.st_mode) ? wt_cli_out_writable(out_path, 1)
                                                  : 0;
    if (oe) {
        fprintf(stderr, "workloadtruth record: cannot %s '%s': %s\n",
                ostat == 0 ? "write" : "create", WT_CLEAN(out_path), strerror(oe));
        free(buf);
        return WT_EXIT_ERROR;
    }
    if (wt_source_open(backend, &cfg, &src, &err) != WT_OK ||
        (!from_stdin && wt_source_device_count(src, &ngpus, &err) != WT_OK)) {
        fprintf(stderr, "workloadtruth record: %s\n", err.msg);
        goto out;
    }
    if (from_stdin)
        ngpus = WT_MAX_GPUS; /* until --gpus is read */
    sel = calloc((size_t)ngpus + 1, 1);
    active = calloc((size_t)ngpus + 1, 1);
    first_t = calloc((size_t)ngpus + 1, sizeof(double));
    if (!sel || !active || !first_t) {
        fprintf(stderr, "workloadtruth record: out of memory\n");
        goto out;
    }
    if (!no_owners && src->ops->processes) {
        live_owners = wt_owners_new();
        procs = malloc(OWNER_PROCS * sizeof(*procs));
        owner_id = calloc((size_t)ngpus + 1, sizeof(*owner_id));
        owner_at = calloc((size_t)ngpus + 1, sizeof(*owner_at));
        if (!live_owners || !procs || !owner_id || !owner_at) {
            fprintf(stderr, "workloadtruth record: out of memory\n");
            goto out;
        }
        for (int g = 0; g < ngpus; g++)
            owner_at[g] = -INFINITY;
        owners = live_owners;
    } else if (!no_owners) {
        owners = wt_source_owners(src);
    }
    if (ngpus == 0) { /* a trace with a header and no rows */
        fprintf(stderr, "workloadtruth record: %s: the trace has no data rows\n",
                trace ? trace : backend);
        goto out;
    }
    if (wt_opts_gpu_list(gpus, ngpus, sel) != 0) {
        fprintf(stderr,
                "workloadtruth record: --gpus: '%s' is not 'all' or a list of GPUs "
                "0..%d (see --help)\n",
                WT_SHOWN(gpus), ngpus - 1);
        status = WT_EXIT_USAGE;
        goto out;
    }
    if (from_stdin)
        for (int g = ngpus - 1; g >= 0 && !sel[g]; g--)
            ngpus = g; /* up to the highest GPU named */

    /* metadata */
    char host[128] = "unknown", started[64], sourcev[4096 + 400], intv[32];
    /* per-GPU lists, as long as the GPUs need (the writer refuses, never cuts) */
    mf = open_memstream(&models, &models_len);
    sf = open_memstream(&sems, &sems_len);
    pf = open_memstream(&periods, &periods_len);
    if (!mf || !sf || !pf) {
        fprintf(stderr, "workloadtruth record: out of memory\n");
        goto out;
    }
    gethostname(host, sizeof(host) - 1);
    time_t now = time(NULL);
    struct tm tmv;
    strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tmv));
    const char *model0 = NULL, *sem0 = NULL;
    int mixed_model = 0, mixed_sem = 0, buffered = 0;
    struct wt_device_info info0;
    /* the GPUs not named: their rows are not kept, also while the GPUs
     * named are looked for (a file sorted by GPU queued every row before
     * the first row of the GPU named) */
    for (int g = 0; g < WT_MAX_GPUS; g++)
        if (g >= ngpus || !sel[g])
            wt_source_ignore(src, g);
    for (int g = 0; g < ngpus; g++) {
        if (!sel[g])
            continue;
        struct wt_device_info d;
        int irc = wt_source_device_info(src, g, &d, &err);
        if (irc == WT_ENODEV && !strcmp(src->ops->name, "replay")) {
            /* an index the trace does not have: not recorded; named when asked for */
            if (strcmp(gpus, "all") != 0 && !from_stdin) { /* a file: a wrong --gpus */
                fprintf(stderr, "workloadtruth record: --gpus: %s (see --help)\n", err.msg);
                status = WT_EXIT_USAGE;
                goto out;
            }
            if (strcmp(gpus, "all") != 0) /* a stream that ended before it showed */
                fprintf(stderr, "workloadtruth record: %s\n", err.msg);
            sel[g] = 0;
            continue;
        }
        if (irc != WT_OK) {
            fprintf(stderr, "workloadtruth record: %s\n", err.msg);
            goto out;
        }
        if (d.unusable) { /* nothing to record, nothing to describe */
            fprintf(stderr, "workloadtruth record: %s; not recorded\n", d.notes);
            sel[g] = 0;
            continue;
        }
        if (!model0) {
            info0 = d;
            model0 = info0.name;
            sem0 = info0.power_semantics;
        } else {
            mixed_model |= strcmp(model0, d.name) != 0;
            mixed_sem |= strcmp(sem0, d.power_semantics) != 0;
        }
        if (wt_measured(d.util_buffer_period_s) || wt_measured(d.power_buffer_period_s)) {
            /* a buffer with no readings has no period: "unknown", not "nan s" */
            char u[32] = "unknown", pw[32] = "unknown";
            if (wt_measured(d.util_buffer_period_s))
                snprintf(u, sizeof(u), "%.3g s", d.util_buffer_period_s);
            if (wt_measured(d.power_buffer_period_s))
                snprintf(pw, sizeof(pw), "%.3g s", d.power_buffer_period_s);
            fprintf(pf, "%s%d=util %s, power %s", ftell(pf) > 0 ? "; " : "", g, u, pw);
        }
        buffered |= d.sample_buffers;
        /* ';' separates the list's entries: a name holding one would be cut */
        for (char *c = d.name; *c; c++)
            if (*c == ';')
                *c = ',';
        fprintf(mf, "%s%d=%s", ftell(mf) > 0 ? "; " : "", g, d.name);
        fprintf(sf, "%s%d=%s", ftell(sf) > 0 ? "; " : "", g, d.power_semantics);
        active[g] = 1;
    }
    /* nor those found absent or unusable (of a multi-GPU file, the GPUs not
     * recorded were queued to the end: 76 MB for `--gpus 0` of a 17 MB file) */
    for (int g = 0; g < WT_MAX_GPUS; g++)
        if (g >= ngpus || !active[g])
            wt_source_ignore(src, g);
    if (!model0) { /* every GPU named is unusable */
        fprintf(stderr, "workloadtruth record: no GPU that can be read: nothing recorded\n");
        goto out;
    }
    /* a replayed trace's model name longer than a GPU name holds (NVML's
     * are at most 95 bytes) is cut: said, not silently */
    const char *tm = trace ? wt_source_meta(src, "gpu_model") : NULL;
    if (tm && strlen(tm) >= sizeof(info0.name) && !strncmp(tm, info0.name, strlen(info0.name)))
        fprintf(stderr,
                "workloadtruth record: warning: the trace's gpu_model is %zu bytes: written cut "
                "to its first %zu (a GPU name holds at most %zu)\n",
                strlen(tm), strlen(info0.name), sizeof(info0.name) - 1);
    int lists_bad = ferror(mf) | ferror(sf) | ferror(pf);
    lists_bad |= fclose(mf) | fclose(sf) | fclose(pf);
    mf = sf = pf = NULL;
    if (lists_bad) {
        fprintf(stderr, "workloadtruth record: out of memory\n");
        goto out;
    }
    snprintf(sourcev, sizeof(sourcev), "record on %s by workloadtruth %s, backend %s%s%s", host,
             WT_VERSION, src->ops->name, trace ? ", from " : "", trace ? trace : "");
    snprintf(intv, sizeof(intv), "%.15g", interval); /* as given: %g cut 0.1234567 */
    const char *keys[16 + WT_TRACE_MAX_META], *vals[16 + WT_TRACE_MAX_META];
    size_t nk = 0;
    keys[nk] = "source";
    vals[nk++] = sourcev;
    keys[nk] = "gpu_model";
    vals[nk++] = mixed_model ? "mixed (see gpu_models)" : model0;
    keys[nk] = "power_semantics";
    vals[nk++] = mixed_sem ? "unknown" : sem0;
    keys[nk] = "gpu_models";
    vals[nk++] = models;
    keys[nk] = "power_semantics_per_gpu";
    vals[nk++] = sems;
    keys[nk] = "started";
    vals[nk++] = started;
    if (!strcmp(src->ops->name, "nvml")) {
        keys[nk] = "poll_interval_s";
        vals[nk++] = intv;
        if (periods && periods[0]) {
            keys[nk] = "driver_buffer_period";
            vals[nk++] = periods;
        }
    }
    const char *dv = wt_source_meta(src, "driver_version");
    if (dv) {
        keys[nk] = "driver_version";
        vals[nk++] = dv;
    }
    if (!strcmp(src->ops->name, "nvml")) {
        /* the buffers only where a recorded GPU has them (an old driver has none) */
        keys[nk] = "sampling";
        vals[nk++] = buffered
                         ? "NVML: point values every poll; GPU/memory utilization and power from "
                           "the driver's sample buffers (nvmlDeviceGetSamples) between polls"
                         : "NVML: point values every poll (no driver sample buffers: one sample "
                           "per poll)";
    }
    /* a replayed trace keeps what it says it holds, unless told otherwise:
     * its own source, what ran and any evasion (a recorded evasion trace
     * must not come out looking clean) */
    int replay = !strcmp(src->ops->name, "replay");
    /* whole where a trace line can hold them under their key (trace_source's
     * is longer than source's): cut, and said, only beyond CARRY_MAX bytes */
    static char carried[3][CARRY_MAX + 1];
    static const char *const carried_key[3] = {"trace_source", "workload", "evasion"};
    const char *from[3] = {replay ? wt_source_meta(src, "source") : NULL,
                           !workload && replay ? wt_source_meta(src, "workload") : NULL,
                           !evasion_s && replay ? wt_source_meta(src, "evasion") : NULL};
    for (int k = 0; k < 3; k++)
        if (from[k]) {
            size_t whole = strnlen(from[k], CARRY_MAX + 1);
            size_t l = wt_utf8_cut(from[k], whole > CARRY_MAX ? CARRY_MAX : whole);
            memcpy(carried[k], from[k], l);
            carried[k][l] = '\0';
            if (l < whole)
                fprintf(stderr,
                        "workloadtruth record: the trace's %s is cut to its first %zu bytes "
                        "(a trace line's limit under the key %s)\n",
                        k ? carried_key[k] : "source", l, carried_key[k]);
        }
    if (from[0]) {
        keys[nk] = "trace_source";
        vals[nk++] = carried[0];
    }
    if (from[1])
        workload = carried[1];
    if (from[2])
        evasion_s = carried[2];
    if (workload) {
        keys[nk] = "workload";
        vals[nk++] = workload;
    }
    if (evasion_s) {
        keys[nk] = "evasion";
        vals[nk++] = evasion_s;
    }
    /* --label is every row's truth: a replayed trace's own label line,
     * another class, would contradict it (rows win, but the file said two
     * things) */
    if (label != WT_CLASS_NONE) {
        keys[nk] = "label";
        vals[nk++] = wt_class_name(label);
    }
    /* the rest of a replayed trace's metadata is kept as it was (the trace
     * format: unknown keys are kept): its provenance (source_repo, ...), job
     * label, phases, notes (a key on several lines, on each); not the keys
     * written above for this recording */
    const size_t own = nk;
    const char *mk = NULL, *mv;
    size_t left_out = 0;
    int firsts[3] = {0, 0, 0}; /* lines of carried_key[k] seen (the first is written above) */
    for (size_t i = 0; replay && (mv = wt_source_meta_at(src, i, &mk)) != NULL; i++) {
        /* a key carried above (source as trace_source, workload, evasion)
         * on several lines: the first is written above, the others kept
         * here (they were dropped without a word: a second evasion line);
         * the trace's own start time as trace_started, after this
         * recording's */
        int k = !strcmp(mk, "source")     ? 0
                : !strcmp(mk, "workload") ? 1
                : !strcmp(mk, "evasion")  ? 2
                                          : -1;
        int keep = 0;
        if (k >= 0 && from[k] && firsts[k]++ == 0)
            continue;
        if (k >= 0 && from[k]) {
            keep = 1;
            mk = carried_key[k];
        } else if (!strcmp(mk, "started")) {
            keep = 1;
            mk = "trace_started";
        }
        int dup = !strcmp(mk, "format"); /* the writer's own first line */
        /* a recording's own trace_source lines stay, after the one written
         * above: a record of a record kept only the last hop, and where the
         * data first came from was gone */
        for (size_t j = 0; j < own && !dup && !keep && strcmp(mk, "trace_source"); j++)
            dup = !strcmp(keys[j], mk);
        if (dup)
            continue;
        /* the label in the trace format's spelling (the reader takes any
         * letter case; `# label: training` was copied as it was) */
        if (!strcmp(mk, "label") && wt_class_parse(mv, false) != WT_CLASS_NONE)
            mv = wt_class_name(wt_class_parse(mv, false));
        if (nk + 1 >= WT_TRACE_MAX_META) { /* with "# format": what a reader takes */
            left_out++;
            continue;
        }
        /* written as "# key: value": a line the trace wrote as "#key:value"
         * near the limit no longer fits; cut, and said, as the keys above */
        if (strlen(mk) + strlen(mv) + 4 > WT_TRACE_MAX_LINE) {
            size_t room = WT_TRACE_MAX_LINE - 4 - strlen(mk);
            size_t l = wt_utf8_cut(mv, room);
            char *cut = strndup(mv, l);
            if (!cut) {
                fprintf(stderr, "workloadtruth record: out of memory\n");
                goto out;
            }
            fprintf(stderr,
                    "workloadtruth record: the trace's %s is cut to its first %zu bytes (a "
                    "trace line's limit)\n",
                    mk, l);
            cuts[ncuts++] = cut;
            mv = cut;
        }
        keys[nk] = mk;
        vals[nk++] = mv;
    }
    if (left_out)
        fprintf(stderr,
                "workloadtruth record: %zu metadata line(s) of the trace not kept: a trace holds "
                "at most %d, with this recording's own\n",
                left_out, WT_TRACE_MAX_META);
    /* the file is created when the first samples arrive: a run that reads
     * nothing does not wipe an existing file */
    int live = !strcmp(src->ops->name, "nvml");
    double t_start = wt_mono_s();
    /* a live recording ends at its duration even in the middle of a long
     * --interval's wait: the alarm sets the stop flag, which the source
     * looks at every 0.1 s */
    if (live && duration > 0) {
        struct sigaction al;
        memset(&al, 0, sizeof(al));
        al.sa_handler = on_signal;
        sigemptyset(&al.sa_mask);
        sigaction(SIGALRM, &al, NULL);
        struct itimerval it = {
            {0, 0}, {(time_t)duration, (suseconds_t)((duration - floor(duration)) * 1e6)}};
        if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
            it.it_value.tv_usec = 1;
        setitimer(ITIMER_REAL, &it, NULL);
    }
    int nactive = 0;
    for (int g = 0; g < ngpus; g++) {
        nactive += active[g];
        first_t[g] = NAN;
    }
    /* A stop ends a live or generated recording at once (the synthetic and
     * simulator sources never look at it: a long --duration ran on after
     * SIGINT and SIGTERM); a replay's reader stops reading on it, and what it
     * had already read (rows of a pipe queued while another named GPU was
     * awaited) is still written. */
    int stops_here = strcmp(src->ops->name, "replay") != 0;
    int bad_input = 0; /* a replayed trace's error (a bad row): no GPU failure */
    /* a live recording that is stopped reads what each GPU's source still
     * holds (the driver's readings since the last poll) before it ends */
    int draining = 0;
    while (nactive > 0) {
        if ((stop_flag && stops_here) ||
            (live && duration > 0 && wt_mono_s() - t_start >= duration)) {
            if (!live || draining)
                break;
            draining = 1;
            stop_flag = 1; /* the source's wait ends at once */
        }
        for (int g = 0; g < ngpus && (draining || !(stop_flag && stops_here)); g++) {
            if (!active[g])
                continue;
            size_t n = 0;
            int rc = wt_source_read(src, g, buf, CHUNK, &n, &err);
            if (rc == WT_DONE) {
                active[g] = 0;
                nactive--;
                continue;
            }
            if (rc) {
                active[g] = 0;
                nactive--;
                /* a replayed input's error ends every GPU's stream with the
                 * same message: said once, not once per GPU */
                if (!(bad_input && !stops_here))
                    fprintf(stderr, "workloadtruth record: %s%s\n", err.msg,
                            nactive && stops_here ? "; the other GPUs keep recording" : "");
                bad_input |= !stops_here;
                continue;
            }
            if (live_owners && n) {
                double now_s = wt_mono_s();
                if (now_s - owner_at[g] >= 1) {
                    owner_id[g] = owners_of(src, g, procs, live_owners, &owners_warned);
                    owner_at[g] = now_s;
                }
                for (size_t i = 0; i < n; i++)
                    buf[i].owner = owner_id[g];
            }
            if (!w && n &&
                wt_trace_writer_open(out_path, keys, vals, nk, owners, &w, &err) != WT_OK) {
                writer_failed(out_path, &err);
                goto out;
            }
            for (size_t i = 0; i < n; i++) {
                if (isnan(first_t[g]))
                    first_t[g] = buf[i].t_s;
                /* the endpoint counts whatever the rounding of the times
                 * (0.4 - 0.1 read past 0.3, 0.3 - 0 did not): half the 1 us
                 * a trace holds, and a few units in the last place */
                if (!live && duration > 0 &&
                    buf[i].t_s - first_t[g] >
                        duration + 5e-7 + 4 * DBL_EPSILON * fabs(buf[i].t_s)) {
                    active[g] = 0;
                    nactive--;
                    break;
                }
                if (label != WT_CLASS_NONE)
                    buf[i].label = label;
                if (wt_trace_writer_row(w, &buf[i], &err) != WT_OK) {
                    writer_failed(out_path, &err);
                    goto out;
                }
                rows++;
            }
            if (draining && n)
                g--; /* the same GPU again, until its stream ends */
        }
        if (w && wt_trace_writer_flush(w, &err) != WT_OK) {
            writer_failed(out_path, &err);
            goto out;
        }
    }
    if (w && wt_trace_writer_close(w, &err) != WT_OK) {
        w = NULL;
        writer_failed(out_path, &err);
        goto out;
    }
    w = NULL;
    if (rows) /* else no file was made: "0 samples written to X" named a file that is not there */
        fprintf(stderr, "workloadtruth record: %lu samples written to %s in %.1f s\n", rows,
                strcmp(out_path, "-") ? WT_CLEAN(out_path) : "standard output",
                wt_mono_s() - t_start);
    for (int g = 0; g < ngpus; g++) {
        struct wt_device_info d;
        if (sel[g] && wt_source_device_info(src, g, &d, &err) == WT_OK &&
            wt_measured(d.achieved_hz))
            fprintf(stderr, "  GPU %d: %.2f samples/s achieved%s%s\n", g, d.achieved_hz,
                    d.notes[0] ? "; " : "", d.notes);
    }
    /* standard input's other GPUs, whose rows were dropped as they came
     * (from standard input --gpus is 0 by default): named, not lost unsaid */
    if (from_stdin) {
        /* the first 16 named, the count of the rest; the --gpus list whole
         * (every GPU: 1024 of up to 4 digits and a comma) */
        char list[160] = "", ex[WT_MAX_GPUS * 5 + 1] = "";
        size_t off = 0, exo = 0;
        long dropped = 0;
        int k = 0;
        for (int g = 0; g < WT_MAX_GPUS; g++) {
            long r = wt_source_ignored_rows(src, g);
            int named = g < ngpus && sel[g];
            if (named || r >= 0)
                exo += (size_t)snprintf(ex + exo, sizeof(ex) - exo, "%s%d", exo ? "," : "", g);
            if (r < 0 || named)
                continue;
            dropped += r;
            if (k < 16)
                off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d", k ? ", " : "", g);
            k++;
        }
        if (k > 16)
            snprintf(list + off, sizeof(list) - off, " and %d more", k - 16);
        if (k)
            fprintf(stderr,
                    "workloadtruth record: standard input also held GPU%s %s (%ld rows): not "
                    "recorded (--gpus %s%s; --gpus %s records them)\n",
                    k > 1 ? "s" : "", list, dropped, WT_SHOWN(gpus),
                    wt_opts_get(opts, "--gpus")->seen ? "" : ", the default from standard input",
                    ex);
    }
    /* a bad row of a trace on standard input (a file is read whole before:
     * exit 1, nothing written) ends the recording there: what came before
     * it is kept, but the run failed, as it does for the file */
    status = rows && !bad_input ? WT_EXIT_OK : WT_EXIT_ERROR;
    if (!rows)
        fprintf(stderr, "workloadtruth record: nothing could be read%s%s%s\n",
                strcmp(out_path, "-") ? " (" : "", strcmp(out_path, "-") ? WT_CLEAN(out_path) : "",
                strcmp(out_path, "-") ? " not written)" : "");
out:
    if (w)
        wt_trace_writer_close(w, NULL);
    if (mf)
        fclose(mf);
    if (sf)
        fclose(sf);
    if (pf)
        fclose(pf);
    for (size_t i = 0; i < ncuts; i++)
        free(cuts[i]);
    free(models);
    free(sems);
    free(periods);
    free(buf);
    free(sel);
    free(active);
    free(first_t);
    free(procs);
    free(owner_id);
    free(owner_at);
    wt_source_close(src);
    wt_owners_free(live_owners); /* after the writer, which wrote its cells */
    return status;
}
