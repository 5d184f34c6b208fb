/* The MCP server's tools: their definitions (name, title, description,
 * inputSchema, outputSchema, annotations) and their execution.  Each tool
 * checks its arguments against bounds of its own (a request cannot ask for
 * hours of sampling or millions of trials) and reads files only inside the
 * directories the operator configured (--log-dir, --trace-dir).  Results
 * carry structuredContent and a text copy of it; bad arguments and failures
 * are results with isError (SEP-1303), an unknown tool is a protocol error.
 * The classification, benchmark, audit-log and output code is the CLI's;
 * this file only adapts it.  It knows nothing of transports.
 *
 * SPDX-License-Identifier: MIT
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "audit/entry.h"
#include "audit/log.h"
#include "audit/verify.h"
#include "classify/classifier.h"
#include "classify/run.h"
#include "classify/verdict.h"
#include "eval/benchmark.h"
#include "mcp/server.h"
#include "output/output.h"
#include "telemetry/simulate.h"
#include "telemetry/source.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/text.h"

/* Bounds of the tools' arguments. */
#define MIN_SAMPLES 5 /* the physics classifier needs at least 5 */
#define MAX_SAMPLES 3600
#define MAX_WINDOWS 20
#define MAX_SEED_TRIALS 1000
#define MAX_SIM_TRIALS 20
#define MAX_BENCH_WINDOW 600
#define MAX_RECENT 100
#define RECENT_TAIL_BYTES (4u << 20) /* recent_classifications reads at most this much */
/* seconds past --max-seconds before live sampling is stopped: the driver's
 * start and the polls' own cost (5 s, and 5% of --max-seconds) */
#define DEADLINE_GRACE_S(max) (5.0 + 0.05 * (max))

/* --- definitions ------------------------------------------------------- */

static const char classify_input[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"backend\":{\"type\":\"string\",\"enum\":[\"auto\",\"nvml\",\"synthetic\",\"replay\"],"
    "\"description\":\"telemetry source (default: the server's --backend; replay needs "
    "trace)\"},"
    "\"profile\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024,"
    "\"description\":\"synthetic profile: training, "
    "inference, idle or a simulator profile (default training)\"},"
    "\"gpu_index\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1023,\"default\":0},"
    "\"samples\":{\"type\":\"integer\",\"minimum\":5,\"maximum\":3600,"
    "\"description\":\"samples per window (default 10; a simulator profile: 300, 30 s at "
    "10 Hz)\"},"
    "\"interval_seconds\":{\"type\":\"number\",\"minimum\":0.01,\"maximum\":60,\"default\":1,"
    "\"description\":\"seconds between live samples\"},"
    "\"start_seconds\":{\"type\":\"number\",\"minimum\":0,\"maximum\":10000000000,"
    "\"description\":\"a trace or the synthetic source: skip the samples before this time "
    "(the trace's t_s; a job's first minutes load its model)\"},"
    "\"write_to_audit_log\":{\"type\":\"boolean\",\"default\":false,\"description\":\"append "
    "the result to the server's audit log\"},"
    "\"trace\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024,"
    "\"description\":\"a trace file inside the server's --trace-dir (implies backend "
    "replay)\"},"
    "\"gpus_per_tick\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1024,"
    "\"description\":\"with trace, nvidia-smi CSV without an index column: rows (GPUs) per "
    "poll (default: detected from the timestamps)\"},"
    "\"peers\":{\"type\":\"string\",\"enum\":[\"job\",\"all\",\"none\"],\"default\":"
    "\"job\",\"description\":\"a trace's or the simulator's other GPUs read beside this one: "
    "those of its job where the trace's owners column names it, else all (job); all; or none: "
    "they ran unrelated jobs\"},"
    "\"declared\":{\"type\":\"string\",\"enum\":[\"training\",\"inference\",\"idle\"],"
    "\"description\":\"the owner's declared type: adds a verdict\"}}}";

static const char windows_property[] =
    "{\"type\":\"integer\",\"minimum\":1,\"maximum\":20,\"default\":3,"
    "\"description\":\"windows to observe; the verdict needs a majority of them\"}";

static const char result_output[] =
    "{\"type\":\"object\",\"required\":[\"workload_type\",\"confidence\",\"gpu_index\","
    "\"sample_count\",\"reasons\"],\"properties\":{"
    "\"workload_type\":{\"type\":\"string\",\"enum\":[\"TRAINING\",\"INFERENCE\",\"IDLE\","
    "\"UNKNOWN\"]},"
    "\"confidence\":{\"type\":[\"number\",\"null\"]},"
    "\"gpu_index\":{\"type\":\"integer\"},"
    "\"window_seconds\":{\"type\":[\"number\",\"null\"]},"
    "\"sample_count\":{\"type\":\"integer\"},"
    "\"reasons\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"features\":{\"type\":\"object\"},"
    "\"classifier\":{\"type\":\"string\"},"
    "\"evidence\":{\"type\":\"array\"},"
    "\"tamper_indicators\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"declared\":{\"type\":\"string\"},"
    "\"verdict\":{\"type\":\"string\",\"enum\":[\"MATCH\",\"MISMATCH\",\"INCONCLUSIVE\"]},"
    "\"job\":{\"type\":\"object\"},\"windows\":{\"type\":\"array\"},"
    "\"processes\":{\"type\":\"array\"},\"audit_log\":{\"type\":\"object\"}}}";

static const char benchmark_input[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"trials\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"description\":\"windows "
    "per cell (default 50 for suite seed, 5 for sim, evasion and board; at most 20 for "
    "those)\"},"
    "\"window\":{\"type\":\"integer\",\"minimum\":5,\"maximum\":600,\"default\":30,"
    "\"description\":\"suite seed: samples per window\"},"
    "\"suite\":{\"type\":\"string\",\"enum\":[\"seed\",\"sim\",\"evasion\",\"board\"],"
    "\"default\":"
    "\"seed\"},"
    "\"seed\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":4294967295,\"default\":0}},"
    /* the simulator's suites: at most 20 trials, and their 30 s windows */
    "\"if\":{\"required\":[\"suite\"],\"properties\":{\"suite\":{\"enum\":[\"sim\","
    "\"evasion\",\"board\"]}}},"
    "\"then\":{\"properties\":{\"trials\":{\"maximum\":20},\"window\":{\"const\":30}}}}";

static const char benchmark_output[] = "{\"type\":\"object\"}";

static const char verify_input[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"log_file\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024,"
    "\"description\":\"a log file inside the server's log "
    "directory (default: its log.jsonl)\"}}}";

static const char verify_output[] =
    "{\"type\":\"object\",\"required\":[\"valid\",\"message\",\"entries\"],\"properties\":{"
    "\"valid\":{\"type\":\"boolean\"},\"message\":{\"type\":\"string\"},"
    "\"entries\":{\"type\":\"integer\"},\"status\":{\"type\":\"string\"},"
    "\"damage\":{\"type\":[\"string\",\"null\"]},\"line\":{\"type\":[\"integer\",\"null\"]}}}";

static const char gpus_input[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"backend\":{\"type\":\"string\",\"enum\":[\"auto\",\"nvml\",\"synthetic\",\"replay\"]},"
    "\"profile\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024},"
    "\"trace\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024,"
    "\"description\":\"a trace file inside the server's --trace-dir\"}}}";

static const char gpus_output[] =
    "{\"type\":\"object\",\"required\":[\"gpus\"],\"properties\":{\"gpus\":{\"type\":"
    "\"array\",\"items\":{\"type\":\"object\"}}}}";

static const char declaration_output[] =
    "{\"type\":\"object\",\"required\":[\"declared\",\"observed\",\"verdict\"],\"properties\":{"
    "\"declared\":{\"type\":\"string\"},"
    "\"observed\":{\"type\":\"string\",\"enum\":[\"TRAINING\",\"INFERENCE\",\"IDLE\","
    "\"UNKNOWN\"]},"
    "\"verdict\":{\"type\":\"string\",\"enum\":[\"MATCH\",\"MISMATCH\",\"INCONCLUSIVE\"]},"
    "\"confidence\":{\"type\":[\"number\",\"null\"]},"
    "\"windows\":{\"type\":\"integer\"},\"min_agree\":{\"type\":\"integer\"},"
    "\"window_types\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"reasons\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"evidence\":{\"type\":\"array\"},"
    "\"tamper_indicators\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"result\":{\"type\":\"object\"}}}";

static const char recent_input[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":20},"
    "\"gpu_index\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1023,\"description\":"
    "\"only this GPU (default: all)\"}}}";

static const char recent_output[] =
    "{\"type\":\"object\",\"required\":[\"classifications\"],\"properties\":{"
    "\"log\":{\"type\":\"string\"},\"verified\":{\"type\":\"object\"},"
    "\"classifications\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
    "\"unsigned_skipped\":{\"type\":\"integer\"}}}";

struct tool_def {
    const char *name, *title, *description;
    const char *input; /* JSON */
    const char *output;
    int read_only, destructive, idempotent, open_world;
};

static const struct tool_def defs[] = {
    {"classify_workload", "Classify a GPU's workload",
     "Classify one window of GPU telemetry as TRAINING, INFERENCE or IDLE (UNKNOWN when the "
     "evidence is weak), with the reasons, features and tamper indicators. With declared, "
     "also a verdict MATCH / MISMATCH / INCONCLUSIVE. With write_to_audit_log, the result is "
     "appended to the tamper-evident audit log.",
     classify_input, result_output, 0, 0, 0, 1},
    {"run_benchmark", "Benchmark the classifier",
     "Score the classifier on synthetic telemetry: suite seed (the Python tool's 3 profiles x "
     "clean/evasion), sim (every simulator profile), evasion (every evasion family at "
     "several strengths) or board (serving under a power cap or locked clocks: how often it "
     "is called TRAINING). Deterministic for a given seed.",
     benchmark_input, benchmark_output, 1, 0, 1, 0},
    {"verify_audit_log", "Verify the audit log",
     "Verify the tamper-evident audit log: every record, the hash links, the signed "
     "checkpoints; names the first bad line and the kind of damage.",
     verify_input, verify_output, 1, 0, 1, 0},
    {"list_gpus", "List GPUs",
     "List the GPUs (name, UUID, PCI bus id, memory, power limits, MIG, driver) and the "
     "compute processes on each, with their owners (user, container, Kubernetes pod, Slurm "
     "job) where known.",
     gpus_input, gpus_output, 1, 0, 1, 1},
    {"check_declaration", "Check a declared workload type",
     "Compare a job's declared type (training, inference or idle) with what the GPU shows "
     "over several windows: MATCH, MISMATCH or INCONCLUSIVE, with the evidence. A MISMATCH "
     "is evidence to look at, not proof.",
     classify_input, declaration_output, 1, 0, 0, 1},
    {"recent_classifications", "Recent classifications",
     "The most recent classifications recorded in the audit log (newest first), after "
     "verifying the log.",
     recent_input, recent_output, 1, 0, 1, 0},
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))

json_t *wt_mcp_tools_define(void)
{
    json_t *tools = json_array();
    if (!tools)
        return NULL;
    for (size_t i = 0; i < NDEFS; i++) {
        const struct tool_def *d = &defs[i];
        int decl = !strcmp(d->name, "check_declaration");
        json_error_t je;
        json_t *is = json_loads(d->input, JSON_REJECT_DUPLICATES, &je);
        json_t *os = json_loads(d->output, JSON_REJECT_DUPLICATES, &je);
        if (!is || !os) {
            fprintf(stderr, "workloadtruth mcp: tool %s: bad schema: %s\n", d->name, je.text);
            json_decref(is);
            json_decref(os);
            json_decref(tools);
            return NULL;
        }
        if (decl) { /* declared is required there, and it writes nothing */
            json_object_set_new(is, "required", json_pack("[s]", "declared"));
            json_object_del(json_object_get(is, "properties"), "write_to_audit_log");
            json_object_set_new(json_object_get(is, "properties"), "windows",
                                json_loads(windows_property, 0, NULL));
        }
        json_t *t = json_pack("{s:s,s:s,s:s,s:o,s:o,s:{s:s,s:b,s:b,s:b,s:b}}", "name", d->name,
                              "title", d->title, "description", d->description, "inputSchema", is,
                              "outputSchema", os, "annotations", "title", d->title, "readOnlyHint",
                              d->read_only, "destructiveHint", d->destructive, "idempotentHint",
                              d->idempotent, "openWorldHint", d->open_world);
        if (!t || json_array_append_new(tools, t)) {
            json_decref(tools);
            return NULL;
        }
    }
    return tools;
}

/* --- results ----------------------------------------------------------- */

static json_t *tool_ok(json_t *structured)
{
    if (!structured)
        return NULL;
    char *text = json_dumps(structured, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
    json_t *r = json_pack("{s:[{s:s,s:s}],s:o,s:b}", "content", "type", "text", "text",
                          text ? text : "{}", "structuredContent", structured, "isError", 0);
    free(text);
    return r;
}

static json_t *tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *tool_error(const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* arguments echoed in the message may be cut inside a UTF-8 sequence, and
     * jansson refuses invalid UTF-8: mark such bytes rather than lose the reply */
    wt_text_clean(msg);
    return json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text", msg, "isError", 1);
}

/* The source and run code's messages name the CLI's options; a client of
 * these tools passes arguments: "--samples asks for 3600" is said as
 * "'samples' asks for 3600". */
static void mcp_words(char *msg, size_t cap)
{
    static const char *const map[][2] = {
        {"use --backend synthetic, or --trace FILE", "use backend 'synthetic', or a 'trace'"},
        {"--samples asks for", "'samples' asks for"},
        {"classify, record and eval also take --gpus-per-tick N",
         "classify_workload and check_declaration also take 'gpus_per_tick'"},
        {"from --start", "from 'start_seconds'"},
        {"--start ", "'start_seconds' "},
        {"(pass --vkey to pin it)",
         "(this tool takes no key: pin it with `workloadtruth verify-log --vkey KEY`)"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        /* the last one: a path earlier in the message may hold the words */
        char *at = NULL;
        for (char *p = strstr(msg, map[i][0]); p; p = strstr(p + 1, map[i][0]))
            at = p;
        if (!at)
            continue;
        char rest[1024]; /* the longest message mapped: a verify report's */
        snprintf(rest, sizeof(rest), "%s", at + strlen(map[i][0]));
        snprintf(at, cap - (size_t)(at - msg), "%s%s", map[i][1], rest);
    }
}

/* --- arguments --------------------------------------------------------- */

/* Argument problems: the first one is kept. */
struct args {
    json_t *obj;
    char err[400];
    int not_args; /* the problem is not in the arguments (no log yet) */
};

#define ARGS_ERROR(a) tool_error("%s%s", (a)->not_args ? "" : "Invalid arguments: ", (a)->err)

static int arg_fail(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int arg_fail(struct args *a, const char *fmt, ...)
{
    if (a->err[0])
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->err, sizeof(a->err), fmt, ap);
    va_end(ap);
    return -1;
}

/* An argument given with a value (null means "the default"). */
static int given(const struct args *a, const char *name)
{
    json_t *v = json_object_get(a->obj, name);
    return v && !json_is_null(v);
}

/* Every key of the arguments must be one of the tool's properties. */
static int args_known(struct args *a, const json_t *schema)
{
    json_t *props = json_object_get(json_object_get(schema, "inputSchema"), "properties");
    const char *k;
    json_t *v;
    json_object_foreach(a->obj, k, v)
    {
        (void)v;
        if (!json_object_get(props, k))
            return arg_fail(a, "unknown argument '%.64s'", k);
    }
    return 0;
}

static int arg_int(struct args *a, const char *name, long long def, long long lo, long long hi,
                   long long *out)
{
    json_t *v = json_object_get(a->obj, name);
    *out = def;
    if (!v || json_is_null(v))
        return 0;
    double d;
    if (json_is_integer(v))
        d = (double)json_integer_value(v);
    else if (json_is_real(v) && floor(json_real_value(v)) == json_real_value(v))
        d = json_real_value(v); /* 10.0 is an integer in JSON Schema */
    else
        return arg_fail(a, "'%s' must be an integer from %lld to %lld", name, lo, hi);
    if (!(d >= (double)lo && d <= (double)hi))
        return arg_fail(a, "'%s' must be from %lld to %lld (got %.17g)", name, lo, hi, d);
    *out = (long long)d;
    return 0;
}

static int arg_num(struct args *a, const char *name, double def, double lo, double hi, double *out)
{
    json_t *v = json_object_get(a->obj, name);
    *out = def;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return arg_fail(a, "'%s' must be a number from %g to %g", name, lo, hi);
    double d = json_number_value(v);
    if (!(d >= lo && d <= hi))
        return arg_fail(a, "'%s' must be from %g to %g (got %.17g)", name, lo, hi, d);
    *out = d;
    return 0;
}

static int arg_bool(struct args *a, const char *name, int def, int *out)
{
    json_t *v = json_object_get(a->obj, name);
    *out = def;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_boolean(v))
        return arg_fail(a, "'%s' must be true or false", name);
    *out = json_is_true(v);
    return 0;
}

/* A string argument; with choices, one of them. */
static int arg_str(struct args *a, const char *name, const char *def, const char *const *choices,
                   const char **out)
{
    json_t *v = json_object_get(a->obj, name);
    *out = def;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > 1024)
        return arg_fail(a, "'%s' must be a non-empty string of at most 1024 bytes", name);
    const char *s = json_string_value(v);
    if (strlen(s) != json_string_length(v))
        return arg_fail(a, "'%s' contains a NUL character", name);
    if (choices) {
        char list[200] = "";
        for (size_t i = 0; choices[i]; i++) {
            if (!strcmp(s, choices[i])) {
                *out = choices[i];
                return 0;
            }
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                     choices[i]);
        }
        return arg_fail(a, "'%s' must be one of %s (got '%.40s')", name, list, s);
    }
    *out = s;
    return 0;
}

/* A file named by a tool argument, confined to dir: the resolved path must be
 * a regular file under realpath(dir).  Fills out (cap >= PATH_MAX). */
/* path (resolved) is root or below it */
static int within(const char *path, const char *root)
{
    size_t n = strlen(root);
    return !strncmp(path, root, n) &&
           (path[n] == '/' || path[n] == '\0' || (n == 1 && root[0] == '/'));
}

static int confined_file(struct args *a, const char *what, const char *dir, const char *name,
                         char *out)
{
    char root[PATH_MAX], joined[2 * PATH_MAX + 2];
    if (!dir)
        return arg_fail(a, "'%s': this server reads no such files (start it with %s)", what,
                        !strcmp(what, "trace") ? "--trace-dir DIR" : "--log-dir DIR");
    if (!realpath(dir, root)) { /* the server's setup is at fault, not the arguments */
        a->not_args = 1;
        return arg_fail(a, "'%s': the server's directory %s: %s", what, dir, strerror(errno));
    }
    if (name[0] == '/')
        snprintf(joined, sizeof(joined), "%s", name);
    else
        snprintf(joined, sizeof(joined), "%s/%s", root, name);
    if (!realpath(joined, out)) {
        /* say whether it is missing only inside the root: outside it, the
         * answer would tell a client which files exist there */
        int e = errno;
        char parent[sizeof(joined)], *slash;
        snprintf(parent, sizeof(parent), "%s", joined);
        if ((slash = strrchr(parent, '/')) != NULL)
            slash[slash == parent] = '\0';
        if (!realpath(parent, out) || !within(out, root))
            return arg_fail(a, "'%s': %.200s is outside the directory the server may read (%s)",
                            what, name, root);
        return arg_fail(a, "'%s': %.200s: %s", what, name, strerror(e));
    }
    if (!within(out, root))
        return arg_fail(a, "'%s': %.200s is outside the directory the server may read (%s)", what,
                        name, root);
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISREG(st.st_mode))
        return arg_fail(a, "'%s': %.200s is not a regular file", what, name);
    return 0;
}

/* --- progress ------------------------------------------------------------ */

struct progress {
    const struct wt_mcp_call *call;
    json_t *token;
    double last;
};

static void progress_send(struct progress *p, double done, double total, const char *message)
{
    /* a cancelled request's token is no longer active: nothing more on it */
    if (!p->token || !p->call->emit || !(done > p->last) || (p->call->cancel && *p->call->cancel))
        return;
    p->last = done;
    json_t *params =
        json_pack("{s:O,s:f,s:f}", "progressToken", p->token, "progress", done, "total", total);
    if (!params)
        return;
    if (message)
        json_object_set_new(params, "message", json_string(message));
    p->call->emit(p->call->emit_ctx, wt_rpc_notification("notifications/progress", params));
}

static void run_progress(void *ctx, size_t done, size_t total)
{
    char m[64];
    snprintf(m, sizeof(m), "window %zu of %zu classified", done, total);
    /* 0.5 was sent when sampling started */
    progress_send(ctx, 0.5 + (double)done, 0.5 + (double)total + 0.5, m);
}

/* --- classify_workload and check_declaration ------------------------------ */

static const char *const backends[] = {"auto", "nvml", "synthetic", "replay", NULL};
static const char *const classes[] = {"training", "inference", "idle", NULL};
static const char *const peer_modes[] = {"job", "all", "none", NULL};

struct source_args {
    const char *backend, *profile, *trace;
    char trace_path[PATH_MAX];
    int live;
};

static int source_args(struct wt_mcp_server *s, struct args *a, struct source_args *sa)
{
    arg_str(a, "backend", s->cfg.backend, backends, &sa->backend);
    arg_str(a, "profile", "training", NULL, &sa->profile);
    arg_str(a, "trace", NULL, NULL, &sa->trace);
    if (a->err[0])
        return -1;
    /* a profile without a backend means the synthetic source (the Python
     * tool's classify_workload takes a profile and no driver) */
    if (given(a, "profile") && !given(a, "backend"))
        sa->backend = "synthetic";
    if (sa->trace) {
        if (given(a, "backend") && strcmp(sa->backend, "replay"))
            return arg_fail(a, "'trace' needs backend replay, not '%s'", sa->backend);
        sa->backend = "replay";
        if (confined_file(a, "trace", s->cfg.trace_dir, sa->trace, sa->trace_path))
            return -1;
    } else if (!strcmp(sa->backend, "replay")) {
        return arg_fail(a, "backend replay needs 'trace' (a file inside the server's "
                           "--trace-dir)");
    }
    /* the Python tool's default spelled out with the GPUs ("backend": "nvml",
     * "profile": "training", as a client filling in its defaults sends) is
     * accepted and has no effect, as on the command line */
    if (given(a, "profile") && strcmp(sa->backend, "synthetic") &&
        !((!strcmp(sa->backend, "nvml") || !strcmp(sa->backend, "auto")) &&
          !strcmp(sa->profile, "training")))
        return arg_fail(a, "'profile' goes with backend synthetic");
    if (!strcmp(sa->backend, "synthetic") && !wt_synth_profile_find(sa->profile) &&
        !wt_sim_profile_find(sa->profile))
        return arg_fail(a,
                        "'profile': unknown profile '%.40s' (training, inference, idle or a "
                        "simulator profile; see `workloadtruth benchmark --list`)",
                        sa->profile);
    sa->live = !strcmp(sa->backend, "nvml") || !strcmp(sa->backend, "auto");
    return 0;
}

static int confined_path(struct args *a, const char *dir, const char *path, int optional);

/* --max-seconds as a wall-clock limit on live sampling: the bound on the
 * arguments (samples x windows x interval_seconds) is the time asked for, and
 * a poll that finds no new driver reading adds no sample, so a short
 * interval_seconds on a GPU whose driver samples once a second took many
 * times that (one call held every other for hours).  A thread stops the run
 * at the deadline, or when the call is cancelled: the run reads one flag. */
struct deadline {
    atomic_int stop; /* the run's stop flag: the cancel or the deadline */
    atomic_int done, expired;
    const atomic_int *cancel; /* the transport's */
    double until;             /* wt_mono_s() */
    pthread_t thread;
    int started;
};

static void *deadline_watch(void *p)
{
    struct deadline *d = p;
    while (!atomic_load(&d->done)) {
        if (d->cancel && atomic_load(d->cancel)) {
            atomic_store(&d->stop, 1);
            break;
        }
        if (wt_mono_s() >= d->until) {
            atomic_store(&d->expired, 1);
            atomic_store(&d->stop, 1);
            break;
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* The arguments of every tool, read before the call waits for its turn: a
 * call with bad arguments is answered at once, not after the tool in use
 * (tens of seconds of live sampling) returns. */
struct tool_args {
    struct source_args sa; /* classify_workload, check_declaration, list_gpus */
    long long gpu, samples, windows, per_tick;
    double interval, start;
    int write_log;
    const char *declared_s, *peers;
    const char *suite; /* run_benchmark */
    long long trials, window, seed;
    int is_seed;
    long long limit;      /* recent_classifications (and gpu) */
    const char *log_file; /* verify_audit_log: its type here, the file in its turn */
};

static int classify_args(struct wt_mcp_server *s, struct args *a, int declaration,
                         struct tool_args *t)
{
    struct source_args *sa = &t->sa;
    t->windows = 1;
    source_args(s, a, sa);
    arg_int(a, "gpu_index", 0, 0, WT_MAX_GPUS - 1, &t->gpu);
    /* a simulator profile samples at 10 Hz: 10 samples would be a window of
     * 1 s, too short to judge (UNKNOWN), so 30 s of them, as `classify` */
    int sim =
        !a->err[0] && !strcmp(sa->backend, "synthetic") && !wt_synth_profile_find(sa->profile);
    arg_int(a, "samples", sim ? 300 : 10, MIN_SAMPLES, MAX_SAMPLES, &t->samples);
    arg_num(a, "interval_seconds", 1.0, 0.01, 60, &t->interval);
    arg_num(a, "start_seconds", NAN, 0, 1e10, &t->start);
    if (!a->err[0] && !isnan(t->start) && sa->live)
        arg_fail(a, "'start_seconds' is trace time: it goes with a trace or the synthetic "
                    "source, not a live GPU");
    arg_int(a, "gpus_per_tick", 0, 1, WT_MAX_GPUS, &t->per_tick);
    if (!a->err[0] && t->per_tick && !sa->trace)
        arg_fail(a, "'gpus_per_tick' goes with 'trace'");
    arg_str(a, "declared", NULL, classes, &t->declared_s);
    arg_str(a, "peers", "job", peer_modes, &t->peers);
    if (declaration)
        arg_int(a, "windows", 3, 1, MAX_WINDOWS, &t->windows);
    else
        arg_bool(a, "write_to_audit_log", 0, &t->write_log);
    if (!a->err[0] && declaration && !t->declared_s)
        arg_fail(a, "'declared' is required (training, inference or idle)");
    double asked = (double)t->samples * (double)t->windows * t->interval;
    if (!a->err[0] && sa->live && asked > s->cfg.max_seconds)
        arg_fail(a,
                 "samples x windows x interval_seconds is %.10g s of live sampling; this "
                 "server allows at most %g s per call (--max-seconds)",
                 asked, s->cfg.max_seconds);
    return a->err[0] ? -1 : 0;
}

static json_t *classify_tool(struct wt_mcp_server *s, struct args *a, const struct tool_args *t,
                             int declaration, struct progress *pg, const struct wt_mcp_call *call)
{
    const struct source_args sa = t->sa;
    const long long gpu = t->gpu, samples = t->samples, windows = t->windows,
                    per_tick = t->per_tick;
    const double interval = t->interval;
    const int write_log = t->write_log;
    const char *const declared_s = t->declared_s, *const peers = t->peers;
    if (write_log && access(s->cfg.log_dir, F_OK) == 0) {
        /* the log, its side checkpoint and its key resolve inside the
         * directory, as the tools that read the log require: a symbolic link
         * planted there led the writer out (it read, then renamed over, a
         * checkpoint elsewhere) */
        struct wt_log_paths lp;
        struct wt_err perr = {{0}};
        if (wt_log_paths_dir(&lp, s->cfg.log_dir, &perr) != WT_OK)
            return tool_error("%s", perr.msg);
        if (confined_path(a, s->cfg.log_dir, lp.log, 1) ||
            confined_path(a, s->cfg.log_dir, lp.checkpoint, 1) ||
            confined_path(a, s->cfg.log_dir, lp.key, 1))
            return ARGS_ERROR(a);
    }

    struct wt_run_request rq = {0};
    struct wt_run_outcome run = {0};
    struct wt_err err = {{0}};
    rq.backend = sa.backend;
    rq.cfg.trace_path = sa.trace ? sa.trace_path : NULL;
    rq.cfg.trace_opts.interval_s = interval;
    rq.cfg.trace_opts.rows_per_tick = (unsigned)per_tick;
    rq.cfg.trace_opts.regular_only = 1; /* swapped for a FIFO after the check: refused */
    rq.cfg.profile = sa.profile;
    rq.cfg.evasion_strength = -1;
    rq.cfg.interval_s = interval;
    rq.cfg.nvml_lib = s->cfg.nvml_lib;
    /* live: stopped at the deadline too (with a grace for the driver's
     * start, and intervals for polls without a sample: a first window takes
     * one poll more on a driver with sample buffers, and a failed
     * utilization drain leaves up to WT_LIVE_POLLS_WITHOUT_ROW polls
     * without a row, which a call within --max-seconds was stopped for),
     * through a flag that also follows the cancel */
    const double extra_polls = 1 + WT_LIVE_POLLS_WITHOUT_ROW;
    const double t0 = wt_mono_s(), limit = s->cfg.max_seconds +
                                           (sa.live ? extra_polls * interval : 0) +
                                           DEADLINE_GRACE_S(s->cfg.max_seconds);
    struct deadline dl = {.cancel = call->cancel, .until = t0 + limit};
    if (sa.live) {
        dl.started = pthread_create(&dl.thread, NULL, deadline_watch, &dl) == 0;
        if (!dl.started) /* no limit could be kept: not sampled */
            return tool_error("cannot start live sampling: no thread for its time limit "
                              "(--max-seconds)");
    }
    const atomic_int *stop = dl.started ? &dl.stop : call->cancel;
    rq.cfg.stop = stop;
    rq.gpu = (int)gpu;
    rq.samples = (size_t)samples;
    rq.windows = (size_t)windows;
    rq.start = t->start;
    rq.clf = wt_classifier_default();
    rq.alone = peers && !strcmp(peers, "none");
    rq.all_peers = peers && !strcmp(peers, "all");
    rq.progress = run_progress;
    rq.progress_ctx = pg;
    rq.cancel = stop;
    progress_send(pg, 0.5, (double)windows + 1, "sampling");
    int rc = wt_run_classify(&rq, &run, &err);
    json_t *out = NULL;
    if (dl.started) {
        atomic_store(&dl.done, 1);
        pthread_join(dl.thread, NULL);
    }
    if (atomic_load(&dl.expired) && !(call->cancel && *call->cancel)) {
        double took = wt_mono_s() - t0;
        wt_run_free(&run);
        /* the time it took, not the limit: a driver call that blocks is not
         * cut short (a 30 s call read "stopped after 6 s", and was blamed on
         * too few samples) */
        if (took > limit + 1)
            return tool_error("live sampling stopped after %.1f s, past the %.1f s this server "
                              "allows per call (--max-seconds %g, %g interval_seconds for polls "
                              "without a sample, and %.1f s for the driver to start): a driver "
                              "call did not return in time (one that blocks is not cut short); "
                              "the driver or the GPU may be stuck",
                              took, limit, s->cfg.max_seconds, extra_polls,
                              DEADLINE_GRACE_S(s->cfg.max_seconds));
        return tool_error("live sampling stopped after %.1f s, the most this server allows per "
                          "call (--max-seconds %g, %g interval_seconds for polls without a "
                          "sample, and %.1f s for the driver to start): the driver gave fewer "
                          "samples than samples x interval_seconds asked for (a poll between its "
                          "readings adds none); ask for fewer samples",
                          took, s->cfg.max_seconds, extra_polls,
                          DEADLINE_GRACE_S(s->cfg.max_seconds));
    }
    if (call->cancel && *call->cancel) {
        /* a cancelled live source ends early: whatever rc says, it was the cancel */
        wt_run_free(&run);
        return tool_error("cancelled");
    }
    if (rc != WT_OK) {
        mcp_words(err.msg, sizeof(err.msg));
        out = tool_error("%s failed: %s", declaration ? "check_declaration" : "classify_workload",
                         err.msg);
        wt_run_free(&run);
        return out;
    }
    enum wt_class declared = declared_s ? wt_class_parse(declared_s, false) : WT_CLASS_NONE;
    enum wt_verdict v =
        declared != WT_CLASS_NONE ? wt_verdict_for(declared, &run.job) : WT_VERDICT_INCONCLUSIVE;
    json_t *res = wt_json_run(&run, declared, v);
    if (!res)
        goto oom;
    if (write_log) {
        char source[256];
        json_t *where = NULL;
        wt_source_label(sa.backend, sa.trace ? sa.trace_path : NULL, sa.profile, source,
                        sizeof(source));
        struct wt_run_log_opts lo = {source, NULL, 0, "workloadtruth mcp", NULL, call->cancel};
        int lrc = wt_run_log_result(&run, s->cfg.log_dir, &lo, &where, &err);
        if (lrc == WT_ESTOP && !where) {
            /* cancelled (or the server stopping) while the log was verified:
             * nothing appended, as for a cancel while sampling */
            json_decref(res);
            wt_run_free(&run);
            return tool_error("cancelled");
        }
        if (lrc != WT_OK) {
            int appended = where != NULL; /* appended, but not sealed */
            json_decref(where);
            json_decref(res);
            wt_run_free(&run);
            return appended ? tool_error("classified %s: %s", wt_class_name(run.job.cls), err.msg)
                            : tool_error("classified %s, but could not append to the audit log: %s",
                                         wt_class_name(run.job.cls), err.msg);
        }
        json_object_set_new(res, "audit_log", where);
    }
    if (declaration) {
        json_t *types = json_array();
        for (size_t i = 0; i < run.n; i++)
            json_array_append_new(types, json_string(wt_class_name(run.w[i].cls)));
        out = json_pack("{s:s,s:s,s:s,s:O,s:I,s:I,s:o,s:O,s:O,s:O,s:o}", "declared",
                        wt_class_lname(declared), "observed", wt_class_name(run.job.cls), "verdict",
                        wt_verdict_name(v), "confidence", json_object_get(res, "confidence"),
                        "windows", (json_int_t)run.n, "min_agree", (json_int_t)run.k,
                        "window_types", types, "reasons", json_object_get(res, "reasons"),
                        "evidence", json_object_get(res, "evidence"), "tamper_indicators",
                        json_object_get(res, "tamper_indicators"), "result", res);
    } else {
        out = res;
    }
    wt_run_free(&run);
    progress_send(pg, (double)windows + 1, (double)windows + 1, "done");
    return tool_ok(out);
oom:
    wt_run_free(&run);
    return tool_error("out of memory");
}

/* --- run_benchmark ---------------------------------------------------------- */

static int benchmark_args(struct args *a, struct tool_args *t)
{
    static const char *const suites[] = {"seed", "sim", "evasion", "board", NULL};
    arg_str(a, "suite", "seed", suites, &t->suite);
    t->is_seed = !a->err[0] && !strcmp(t->suite, "seed");
    arg_int(a, "trials", t->is_seed ? 50 : 5, 1, t->is_seed ? MAX_SEED_TRIALS : MAX_SIM_TRIALS,
            &t->trials);
    arg_int(a, "window", 30, MIN_SAMPLES, MAX_BENCH_WINDOW, &t->window);
    arg_int(a, "seed", 0, 0, 4294967295LL, &t->seed);
    /* 30, the schema's default (which form-filling clients send), is what
     * sim and evasion use anyway: accepted */
    if (!a->err[0] && !t->is_seed && given(a, "window") && t->window != 30)
        arg_fail(a, "'window' (samples) is for suite seed; sim, evasion and board use 30 s "
                    "windows");
    return a->err[0] ? -1 : 0;
}

static json_t *benchmark_tool(const struct tool_args *t, struct progress *pg)
{
    const char *const suite = t->suite;
    const long long trials = t->trials, window = t->window, seed = t->seed;
    const int is_seed = t->is_seed;
    struct wt_bench_report *rep = malloc(sizeof(*rep));
    struct wt_err err = {{0}};
    if (!rep)
        return tool_error("out of memory");
    progress_send(pg, 0.5, 1, "running");
    int rc = is_seed ? wt_benchmark_seed(wt_classifier_default(), (unsigned)trials,
                                         (unsigned)window, (uint64_t)seed, rep, &err)
                     : wt_benchmark_sim(wt_classifier_default(), suite, (unsigned)trials, 30, 10,
                                        (uint64_t)seed, NULL, NULL, rep, &err);
    json_t *out;
    if (rc != WT_OK)
        out = tool_error("run_benchmark failed: %s", err.msg);
    else {
        progress_send(pg, 1, 1, "done");
        out = tool_ok(wt_json_benchmark(rep));
    }
    free(rep);
    return out;
}

/* --- verify_audit_log ------------------------------------------------------- */

/* The log to read: log_file inside the log directory, or its log.jsonl. */
static int log_target_paths(struct wt_mcp_server *s, struct args *a, struct wt_log_paths *p,
                            int gone_ok)
{
    const char *file;
    char path[PATH_MAX];
    struct wt_err err = {{0}};
    if (arg_str(a, "log_file", NULL, NULL, &file))
        return -1;
    if (wt_log_paths_dir(p, s->cfg.log_dir, &err) != WT_OK)
        return arg_fail(a, "%s", err.msg);
    if (!file) {
        /* gone_ok: a directory whose log is gone but whose checkpoint is
         * there is a log to verify (a checkpoint of lines it no longer has
         * shows it cut, as verify-log says), not "no audit log" */
        if (access(p->log, F_OK) != 0 && !(gone_ok && access(p->checkpoint, F_OK) == 0)) {
            a->not_args = 1;
            return arg_fail(a,
                            "no audit log at %s (start `workloadtruth watch --log-dir %s`, "
                            "or classify_workload with write_to_audit_log)",
                            p->log, s->cfg.log_dir);
        }
        return 0;
    }
    size_t fl = strlen(file);
    if (fl < 6 || strcmp(file + fl - 6, ".jsonl") != 0)
        return arg_fail(a, "'log_file' must name a .jsonl audit log in the server's log directory");
    if (confined_file(a, "log_file", s->cfg.log_dir, file, path))
        return -1;
    char dirlog[PATH_MAX];
    if (realpath(p->log, dirlog) && !strcmp(dirlog, path))
        return 0; /* the directory's log, with its side files */
    if (wt_log_paths_file(p, path, &err) != WT_OK)
        return arg_fail(a, "%s", err.msg);
    return 0;
}

/* path (the log, or its side checkpoint: optional) resolves inside dir: a
 * symbolic link planted in the directory must not lead the server out. */
static int confined_path(struct args *a, const char *dir, const char *path, int optional)
{
    char root[PATH_MAX], real[PATH_MAX];
    a->not_args = 1; /* the files are at fault, not what the client asked */
    if (!realpath(dir, root))
        return arg_fail(a, "the server's directory %s: %s", dir, strerror(errno));
    if (!realpath(path, real))
        /* a loop of symbolic links leads nowhere, so not out either: the
         * verifier reads it as a file that is gone, as verify-log does */
        return optional && (errno == ENOENT || errno == ELOOP)
                   ? 0
                   : arg_fail(a, "%.200s: %s", path, strerror(errno));
    if (!within(real, root))
        return arg_fail(a, "%.200s leads outside the directory the server may read (%s)", path,
                        root);
    a->not_args = 0;
    return 0;
}

/* log_target_paths, and the log and its side checkpoint both resolve inside
 * the directory (whichever way the log was named). */
static int log_target(struct wt_mcp_server *s, struct args *a, struct wt_log_paths *p, int gone_ok)
{
    if (log_target_paths(s, a, p, gone_ok))
        return -1;
    if (confined_path(a, s->cfg.log_dir, p->log, gone_ok) ||
        confined_path(a, s->cfg.log_dir, p->checkpoint, 1))
        return -1;
    return 0;
}

static json_t *verify_tool(struct wt_mcp_server *s, struct args *a, const struct wt_mcp_call *call)
{
    struct wt_log_paths p;
    if (log_target(s, a, &p, 1))
        return ARGS_ERROR(a);
    struct wt_verify_report *r = calloc(1, sizeof(*r));
    if (!r)
        return tool_error("out of memory");
    struct wt_verify_opts vo = {0};
    vo.side_path = p.checkpoint;
    vo.cancel = call ? call->cancel : NULL; /* a long log: a cancel ends the reading */
    int status = wt_verify_file(p.log, &vo, r);
    mcp_words(r->message, sizeof(r->message));
    json_t *out;
    if (vo.cancel && *vo.cancel)
        out = tool_error("cancelled");
    else if (status == WT_VERIFY_ERROR)
        out = tool_error("verify_audit_log: %s", r->message);
    else
        out = tool_ok(wt_json_verify(r, status, 0, p.log));
    free(r);
    return out;
}

/* --- recent_classifications ------------------------------------------------- */

/* The state kept for this log file: *hit 1 when it holds one to resume at
 * (the same file as last time); else emptied for it. */
static struct wt_mcp_verify_cache *vcache_slot(struct wt_mcp_server *s, const struct stat *st,
                                               int *hit)
{
    struct wt_mcp_verify_cache *c = &s->vcache;
    *hit = c->at.valid && c->dev == st->st_dev && c->ino == st->st_ino;
    if (!*hit) {
        memset(c, 0, sizeof(*c));
        c->dev = st->st_dev;
        c->ino = st->st_ino;
    }
    return c;
}

static int recent_args(struct args *a, struct tool_args *t)
{
    arg_int(a, "limit", 20, 1, MAX_RECENT, &t->limit);
    arg_int(a, "gpu_index", -1, 0, WT_MAX_GPUS - 1, &t->gpu);
    return a->err[0] ? -1 : 0;
}

static json_t *recent_tool(struct wt_mcp_server *s, struct args *a, const struct tool_args *t,
                           const struct wt_mcp_call *call)
{
    struct wt_log_paths p;
    const long long limit = t->limit, gpu = t->gpu;
    if (log_target(s, a, &p, 0))
        return ARGS_ERROR(a);
    struct wt_verify_report *r = calloc(1, sizeof(*r));
    struct wt_verify_resume *keep = NULL;
    struct wt_verify_tail tail = {.want = RECENT_TAIL_BYTES};
    json_t *list = NULL, *out = NULL;
    FILE *lf = NULL;
    if (!r)
        return tool_error("out of memory");
    struct wt_verify_opts vo = {0};
    vo.side_path = p.checkpoint;
    vo.cancel = call ? call->cancel : NULL;
    /* one open file: a log replaced (or a FIFO planted) meanwhile is not
     * taken for the one whose state was kept */
    const char *why = NULL;
    lf = wt_fopen_regular(p.log, &why);
    if (!lf) {
        out = tool_error("recent_classifications: cannot open %s: %s", p.log, why);
        goto done;
    }
    /* verify from where the last call's scan was RECENT_TAIL_BYTES before
     * the end (lines before it, read then, are not read again), keeping the
     * state there for the next call; the lines listed are the verifier's
     * copy of the lines it checked (read again from the file, a line
     * rewritten in place meanwhile with its seq kept was listed, unsigned,
     * under a verified status) */
    struct stat st;
    int hit = 0;
    struct wt_mcp_verify_cache *vc = NULL;
    if (fstat(fileno(lf), &st) != 0) {
        out = tool_error("recent_classifications: cannot read %s: %s", p.log, strerror(errno));
        goto done;
    }
    vc = vcache_slot(s, &st, &hit);
    keep = malloc(sizeof(*keep));
    if (!keep) {
        out = tool_error("recent_classifications: out of memory");
        goto done;
    }
    uint64_t size = (uint64_t)st.st_size;
    uint64_t mark = size > RECENT_TAIL_BYTES ? size - RECENT_TAIL_BYTES : 0;
    int status = wt_verify_stream_keep(lf, p.log, &vo, hit ? &vc->at : NULL, mark, r, keep, &tail);
    /* a resumed scan whose verified part ends within 4 MiB of where it began
     * (the log damaged or cut there) read fewer lines than a whole scan would
     * list: read it whole, as a fresh server does */
    if (status != WT_VERIFY_ERROR && r->resumed_lines &&
        r->valid_bytes < r->resumed_off + RECENT_TAIL_BYTES) {
        if (fseeko(lf, 0, SEEK_SET) != 0) {
            out = tool_error("recent_classifications: cannot read %s: %s", p.log, strerror(errno));
            goto done;
        }
        status = wt_verify_stream_keep(lf, p.log, &vo, NULL, mark, r, keep, &tail);
    }
    vc->at = *keep; /* not valid: the next call reads the whole log */
    if (vo.cancel && *vo.cancel) {
        memset(&vc->at, 0, sizeof(vc->at)); /* a scan cut short: nothing kept */
        out = tool_error("cancelled");
        goto done;
    }
    if (status == WT_VERIFY_ERROR) {
        out = tool_error("recent_classifications: %s", r->message);
        goto done;
    }
    if (tail.failed) {
        out = tool_error("recent_classifications: out of memory");
        goto done;
    }
    /* the lines a verified signature covers, as `report` shows them: none
     * of a log re-created with another key, none from a damaged line on */
    uint64_t shown = r->entries;
    if (status == WT_VERIFY_DAMAGED) {
        if (r->line >= 1)
            shown = r->line - 1 < r->entries ? r->line - 1 : r->entries;
        else if (r->damage == WT_DMG_WRONG_KEY)
            shown = 0;
    }
    if (shown > r->sealed_through)
        shown = r->sealed_through;
    /* the lines of the verified part's last 4 MiB (whole lines that start
     * there), as the verifier read them */
    const char *buf = tail.buf ? tail.buf : "";
    size_t got = tail.len;
    uint64_t end = tail.off + tail.len;
    uint64_t from = end > RECENT_TAIL_BYTES ? end - RECENT_TAIL_BYTES : 0;
    list = json_array();
    unsigned long long unsigned_skipped = 0;
    /* newest first: walk the lines backwards */
    size_t e = got;
    uint64_t want_seq = r->entries; /* the seq the next line back must have, plus 1 */
    while (e > 0 && want_seq > 0 && json_array_size(list) < (size_t)limit) {
        if (buf[e - 1] == '\n')
            e--;
        size_t b = e;
        while (b > 0 && buf[b - 1] != '\n')
            b--;
        if (tail.off + b < from)
            break;
        struct wt_entry ent;
        struct wt_err err = {{0}};
        want_seq--;
        if (e > b && wt_entry_parse(buf + b, e - b, &ent, &err) == WT_OK) {
            json_t *o = ent.obj;
            if (ent.seq != want_seq) { /* the verifier's copy: cannot happen */
                wt_entry_free(&ent);
                out = tool_error("recent_classifications: %s: the lines kept are not the ones "
                                 "verified (a bug)",
                                 p.log);
                goto done;
            }
            json_t *gi = json_object_get(o, "gpu_idx");
            /* only lines a verified signature covers: the ones after the last
             * signed checkpoint link to the others, but anyone able to write
             * the file could have written them */
            if (ent.seq >= shown)
                unsigned_skipped++;
            else if (ent.type == WT_ENTRY_CLASS &&
                     (gpu < 0 || (json_is_integer(gi) && json_integer_value(gi) == gpu))) {
                /* a member the record lacks (model and gpu_idx are optional;
                 * evidence may be a blob's digest instead) is null, the
                 * record still listed */
                json_t *c = json_pack(
                    "{s:I,s:O?,s:O?,s:O?,s:s,s:f,s:O?,s:O?}", "seq", (json_int_t)ent.seq, "ts_ms",
                    json_object_get(o, "ts_ms"), "gpu", json_object_get(o, "gpu"), "gpu_index", gi,
                    "workload_type", ent.cls ? ent.cls : "", "confidence",
                    (double)ent.conf_ppm / 1e6, "model", json_object_get(o, "model"), "evidence",
                    json_object_get(o, "evidence"));
                json_t *digest = json_object_get(o, "evidence_sha256");
                if (c && digest)
                    json_object_set(c, "evidence_sha256", digest);
                if (c) {
                    /* the Python tool's upper-case names */
                    char up[16];
                    size_t i = 0;
                    for (; ent.cls && ent.cls[i] && i < sizeof(up) - 1; i++)
                        up[i] = (char)(ent.cls[i] >= 'a' && ent.cls[i] <= 'z' ? ent.cls[i] - 32
                                                                              : ent.cls[i]);
                    up[i] = '\0';
                    json_object_set_new(c, "workload_type", json_string(up));
                    json_array_append_new(list, c);
                }
            }
            wt_entry_free(&ent);
        }
        e = b;
    }
    json_t *ver = wt_json_verify(r, status, 0, p.log);
    out =
        tool_ok(json_pack("{s:o,s:o,s:O,s:I,s:I}", "log", wt_json_text(p.log), "verified", ver,
                          "classifications", list, "unsigned_skipped", (json_int_t)unsigned_skipped,
                          "verified_by_earlier_call", (json_int_t)r->resumed_lines));
done:
    if (lf)
        fclose(lf);
    json_decref(list);
    free(tail.buf);
    free(keep);
    free(r);
    return out;
}

/* --- list_gpus -------------------------------------------------------------- */

static json_t *gpus_tool(struct wt_mcp_server *s, const struct tool_args *t)
{
    const struct source_args sa = t->sa;
    struct wt_source_config cfg = {0};
    cfg.trace_path = sa.trace ? sa.trace_path : NULL;
    cfg.profile = sa.profile;
    cfg.evasion_strength = -1;
    cfg.nvml_lib = s->cfg.nvml_lib;
    cfg.list_only = true; /* a trace's GPUs and first rows, not every row */
    cfg.trace_opts.regular_only = 1;
    struct wt_source *src = NULL;
    struct wt_err err = {{0}};
    struct wt_proc *procs = malloc(WT_MAX_PROCS * sizeof(*procs));
    json_t *arr = json_array(), *out = NULL;
    int n = 0;
    if (!procs || !arr) {
        out = tool_error("out of memory");
        goto done;
    }
    if (wt_source_open(sa.backend, &cfg, &src, &err) != WT_OK ||
        wt_source_device_count(src, &n, &err) != WT_OK) {
        mcp_words(err.msg, sizeof(err.msg));
        out = tool_error("list_gpus failed: %s", err.msg);
        goto done;
    }
    if (n == 0 && !strcmp(src->ops->name, "replay")) {
        out = tool_error("list_gpus failed: %s: the trace has no data rows", sa.trace_path);
        goto done;
    }
    for (int g = 0; g < n && g < WT_MAX_GPUS; g++) {
        struct wt_device_info d;
        size_t np = 0;
        struct wt_err perr = {{0}};
        int irc = wt_source_device_info(src, g, &d, &err);
        if (irc == WT_ENODEV && !strcmp(src->ops->name, "replay"))
            continue; /* an index the trace does not have */
        if (irc != WT_OK) {
            out = tool_error("list_gpus failed: %s", err.msg);
            goto done;
        }
        int have = wt_source_processes(src, g, procs, WT_MAX_PROCS, &np, NULL, &perr) == WT_OK;
        json_array_append_new(arr, wt_json_device(&d, procs, np, have));
    }
    const char *dv = wt_source_meta(src, "driver_version"); /* as gpus --json */
    out = tool_ok(json_pack("{s:s,s:o,s:O}", "backend", src->ops->name, "driver_version",
                            dv ? wt_json_text(dv) : json_null(), "gpus", arr));
done:
    wt_source_close(src);
    json_decref(arr);
    free(procs);
    return out;
}

/* --- dispatch --------------------------------------------------------------- */

static const json_t *tool_def(const struct wt_mcp_server *s, const char *name)
{
    const json_t *def = NULL;
    size_t i;
    json_t *t;
    json_array_foreach(s->tools, i, t)
    {
        if (!strcmp(json_string_value(json_object_get(t, "name")), name))
            def = t;
    }
    return def;
}

int wt_mcp_tool_exists(const struct wt_mcp_server *s, const char *name)
{
    return tool_def(s, name) != NULL;
}

/* Waits until no tool runs and takes the turn: 0, or -1 when the call was
 * cancelled (or the server is stopping) meanwhile.  Its cancel is looked at
 * every 100 ms: a call waiting behind one stuck in a slow driver call (which
 * nothing cuts short) was answered only when that one returned, and the
 * server's stop waited for it. */
static int tool_acquire(struct wt_mcp_server *s, const struct wt_mcp_call *call)
{
    int cancelled = 0;
    pthread_mutex_lock(&s->tool_lock);
    while (s->tool_busy && !(cancelled = call && call->cancel && *call->cancel)) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += 100000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->tool_free, &s->tool_lock, &ts);
    }
    /* cancelled while it waited: nothing runs (the transport drops or
     * answers it, as any cancel) */
    if (!cancelled)
        cancelled = call && call->cancel && *call->cancel;
    if (!cancelled)
        s->tool_busy = 1;
    pthread_mutex_unlock(&s->tool_lock);
    return cancelled ? -1 : 0;
}

static void tool_release(struct wt_mcp_server *s)
{
    pthread_mutex_lock(&s->tool_lock);
    s->tool_busy = 0;
    pthread_cond_broadcast(&s->tool_free);
    pthread_mutex_unlock(&s->tool_lock);
}

json_t *wt_mcp_tool_call(struct wt_mcp_server *s, const char *name, json_t *args,
                         json_t *progress_token, const struct wt_mcp_call *call, int *code,
                         char *msg, size_t cap)
{
    const json_t *def = tool_def(s, name);
    if (!def) {
        *code = WT_RPC_INVALID_PARAMS;
        snprintf(msg, cap, "Unknown tool: %.100s", name);
        return NULL;
    }
    struct args a = {.obj = args, .err = ""};
    struct progress pg = {.call = call, .token = progress_token, .last = 0};
    struct tool_args *t = calloc(1, sizeof(*t));
    if (!t)
        return tool_error("out of memory");
    int classify = !strcmp(name, "classify_workload"),
        declaration = !strcmp(name, "check_declaration");
    /* the arguments first: an answer to bad ones does not wait for the turn */
    int bad = args_known(&a, def);
    if (!bad && (classify || declaration))
        bad = classify_args(s, &a, declaration, t);
    else if (!bad && !strcmp(name, "run_benchmark"))
        bad = benchmark_args(&a, t);
    else if (!bad && !strcmp(name, "recent_classifications"))
        bad = recent_args(&a, t);
    else if (!bad && !strcmp(name, "verify_audit_log"))
        bad = arg_str(&a, "log_file", NULL, NULL, &t->log_file);
    else if (!bad && !strcmp(name, "list_gpus"))
        bad = source_args(s, &a, &t->sa);
    if (bad) {
        free(t);
        return ARGS_ERROR(&a);
    }
    if (tool_acquire(s, call) != 0) {
        free(t);
        return tool_error("cancelled");
    }
    json_t *r;
    if (classify || declaration)
        r = classify_tool(s, &a, t, declaration, &pg, call);
    else if (!strcmp(name, "run_benchmark"))
        r = benchmark_tool(t, &pg);
    else if (!strcmp(name, "verify_audit_log"))
        r = verify_tool(s, &a, call);
    else if (!strcmp(name, "recent_classifications"))
        r = recent_tool(s, &a, t, call);
    else
        r = gpus_tool(s, t);
    free(t);
    tool_release(s);
    if (!r) {
        *code = WT_RPC_INTERNAL_ERROR;
        snprintf(msg, cap, "Internal error: out of memory");
    }
    return r;
}
