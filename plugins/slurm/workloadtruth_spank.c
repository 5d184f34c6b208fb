/* workloadtruth_spank.so: a Slurm SPANK plugin that lets a job declare what
 * it runs on its GPUs (--workload-type=training|inference|idle on sbatch,
 * srun and salloc) and checks the declaration against what the GPUs show.
 *
 * What it is: the option (validated on the submit host, so a bad value is
 * refused before the job exists), the declaration handed to the node's
 * Prolog/Epilog as SPANK_WORKLOAD_TYPE (the one source the node takes it
 * from: the job prolog writes it to the spool for the batch step), and a
 * job epilog hook that runs the
 * `workloadtruth` agent (fork/exec, never a shell, killed after timeout=
 * seconds).  The agent classifies the job's telemetry and appends a `class`
 * record to the node's audit log (with slurm_job_id, declared and verdict as
 * evidence); the plugin then writes one slurmd log line
 *   workloadtruth: job N declared=X observed=Y verdict=Z
 * and puts the same words in the job's AdminComment (scontrol update).
 * Jobs without the option are classified too (observed only, no verdict).
 * In mode=record (the default) a recorder started at job prolog samples the
 * GPU while the job runs, and the epilog classifies what it recorded; in
 * mode=classify the epilog runs `classify` with the configured agent args.
 * The GPU is gpu=N, or gpu=auto the job's first, judged only where the job's
 * SLURM_JOB_GPUS (slurmd's, in the job prolog) names it or is not set.
 *
 * What it is not: a classifier (that is the agent), an enforcement point (it
 * never fails, holds or kills a job), or a source of node state: every
 * failure on the node is logged and the hook returns success, because a job
 * prolog/epilog that fails drains the node (a job epilog that runs past
 * slurm.conf's PrologEpilogTimeout drains it too: the README says how to set
 * it).  See plugins/slurm/README.md.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef _POSIX_C_SOURCE /* a plain `cc` build (the README's) needs POSIX */
#define _POSIX_C_SOURCE 200809L
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h> /* SLURM_BATCH_SCRIPT */
#include <slurm/spank.h>

SPANK_PLUGIN(workloadtruth, 1);

#define MAX_AGENT_ARGS 32
/* agent stdout kept for parsing: the job-level verdict and audit_log come
 * after the windows (about 3 KB each, windows= is at most 1000); more is an
 * error, never a verdict silently missed */
#define OUT_CAP (8u << 20)
/* agent stderr kept for the log lines: its first half (init's "created the
 * audit log" comes first) and its last (the line that says why it failed,
 * after any number of warnings) */
#define ERR_CAP 4096

extern char **environ;

/* --- configuration (plugstack.conf arguments, parsed in every hook:
 * slurm_spank_init is not called in the job prolog/epilog context) ---- */

enum mode { MODE_RECORD, MODE_CLASSIFY };

struct cfg {
    const char *bin;       /* the agent */
    const char *log_dir;   /* the audit log */
    const char *spool_dir; /* mode=record: traces and pid files of running jobs */
    const char *scontrol;  /* for AdminComment */
    const char *squeue;    /* a batch job's state and time left */
    int admin_comment;     /* set it (batch jobs) */
    enum mode mode;
    unsigned timeout_s;               /* hard limit for the agent's classify run */
    unsigned windows;                 /* --windows */
    unsigned min_samples;             /* mode=record: fewer samples per window: fewer windows */
    unsigned gpu;                     /* GPU index to classify */
    int gpu_auto;                     /* gpu=auto: the job's first GPU (SLURM_JOB_GPUS) */
    char no_gpu[160];                 /* gpu_resolve: why the job has no GPU here to judge */
    char interval[16];                /* mode=record: seconds between samples */
    const char *args[MAX_AGENT_ARGS]; /* arg=: extra classify arguments */
    int nargs;
    const char *rec_args[MAX_AGENT_ARGS]; /* record_arg=: extra record arguments */
    int nrec_args;
    char spool_buf[PATH_MAX]; /* spool_dir without trailing slashes */
};

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || !isdigit((unsigned char)s[0]) || v < lo || v > hi)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* interval=S: a plain decimal in record's --interval range (0.01..3600 s),
 * so a bad value is refused here, where plugstack.conf is read, rather than
 * by every job's recorder. */
static int parse_interval(const char *s, char *out, size_t size)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || strlen(s) >= size || strspn(s, "0123456789.") != strlen(s) ||
        !(v >= 0.01 && v <= 3600))
        return -1;
    snprintf(out, size, "%s", s);
    return 0;
}

/* Unknown or bad arguments are logged and ignored (the defaults stay). */
/* Whether path has a "." or ".." component ("/run/wt/.", "/a/../b"): lstat
 * of "LINK/." follows LINK, so a spool_dir spelt so is refused. */
static int dot_component(const char *path)
{
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 1;
        p += n;
    }
    return 0;
}

static void cfg_parse(struct cfg *c, int ac, char **av)
{
    memset(c, 0, sizeof(*c));
    c->bin = "/usr/local/bin/workloadtruth";
    c->log_dir = "/var/lib/workloadtruth-slurm";
    c->spool_dir = "/run/workloadtruth-slurm";
    c->scontrol = "/usr/bin/scontrol";
    c->squeue = "/usr/bin/squeue";
    c->admin_comment = 1;
    c->mode = MODE_RECORD;
    /* the job's own GPU by default: with gpu=0, the install line's default
     * until 2026-12-07, a CPU job was judged on GPU 0, another job's work,
     * and could be called a MISMATCH for it (a reviewer's cluster) */
    c->gpu_auto = 1;
    c->timeout_s = 60;
    c->windows = 5;
    c->min_samples = 10;
    snprintf(c->interval, sizeof(c->interval), "1");
    for (int i = 0; i < ac; i++) {
        const char *a = av[i], *eq = strchr(a, '=');
        const char *v = eq ? eq + 1 : "";
        size_t kl = eq ? (size_t)(eq - a) : strlen(a);
        int bad = 0;
#define KEY(k) (kl == sizeof(k) - 1 && !strncmp(a, k, kl))
        if (KEY("bin") && v[0] == '/')
            c->bin = v;
        else if (KEY("log_dir") && v[0] == '/')
            c->log_dir = v;
        else if (KEY("spool_dir") && v[0] == '/' && strlen(v) < sizeof(c->spool_buf) &&
                 !dot_component(v)) {
            /* "DIR/": lstat would follow a link named DIR, past the check
             * that refuses one (spool_check); "DIR/." is refused above */
            size_t n = strlen(v);
            while (n > 1 && v[n - 1] == '/')
                n--;
            memcpy(c->spool_buf, v, n);
            c->spool_buf[n] = '\0';
            c->spool_dir = c->spool_buf;
        } else if (KEY("scontrol") && v[0] == '/')
            c->scontrol = v;
        else if (KEY("squeue") && v[0] == '/')
            c->squeue = v;
        else if (KEY("admin_comment") && (!strcmp(v, "0") || !strcmp(v, "1")))
            c->admin_comment = v[0] == '1';
        else if (KEY("mode") && !strcmp(v, "record"))
            c->mode = MODE_RECORD;
        else if (KEY("mode") && !strcmp(v, "classify"))
            c->mode = MODE_CLASSIFY;
        else if (KEY("timeout"))
            bad = parse_uint(v, 1, 3600, &c->timeout_s);
        else if (KEY("windows"))
            bad = parse_uint(v, 1, 1000, &c->windows);
        else if (KEY("min_samples"))
            bad = parse_uint(v, 5, 100000, &c->min_samples);
        else if (KEY("gpu") && !strcmp(v, "auto"))
            c->gpu_auto = 1;
        else if (KEY("gpu") && !(bad = parse_uint(v, 0, 1023, &c->gpu)))
            c->gpu_auto = 0;
        else if (KEY("interval"))
            bad = parse_interval(v, c->interval, sizeof(c->interval));
        /* a bare "arg" or "arg=" would pass an empty word: every job's
         * classify (or record) would fail on it */
        else if (KEY("arg") && v[0] && c->nargs < MAX_AGENT_ARGS)
            c->args[c->nargs++] = v;
        else if (KEY("record_arg") && v[0] && c->nrec_args < MAX_AGENT_ARGS)
            c->rec_args[c->nrec_args++] = v;
        else
            bad = 1;
#undef KEY
        if (bad)
            slurm_error("workloadtruth: plugstack.conf: ignoring argument '%s'", a);
    }
}

/* Arguments that parse but have no effect in the configured mode: said
 * where the plugin starts on the node (slurmd, and each job's prolog). */
static void cfg_warn(const struct cfg *c)
{
    if (c->mode == MODE_RECORD && c->nargs > 0)
        slurm_error("workloadtruth: plugstack.conf: %d arg= argument%s ignored: arg= is for "
                    "mode=classify (mode=record passes record_arg= to the recorder)",
                    c->nargs, c->nargs == 1 ? "" : "s");
}

/* A string someone else controls, made fit for one log line: printable
 * ASCII kept, any other byte as \xHH, at most `max` bytes of it (then
 * "..."), so that a value cannot start a line of its own or flood the log.
 * buf needs 4 * max + 4 bytes. */
static const char *esc(const char *s, size_t max, char *buf, size_t cap)
{
    size_t o = 0, i = 0;
    if (!s)
        s = "";
    for (; i < max && s[i] && o + 5 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\\')
            buf[o++] = (char)ch;
        else
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", ch);
    }
    if (s[i] && o + 4 <= cap) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}
#define ESC_MAX 40 /* bytes of a user's value in a log line */
#define ESC_CAP (4 * ESC_MAX + 4)

/* --- the option ------------------------------------------------------ */

static const char *const types[] = {"training", "inference", "idle", NULL};
/* the submit host's declaration (sbatch, srun, salloc); never read on the
 * node, where the job prolog's SPANK_WORKLOAD_TYPE is the declaration */
static char declared[16];

/* in any letter case, as classify --declared takes it; the lower-case name */
static const char *type_ok(const char *s)
{
    for (int i = 0; s && types[i]; i++)
        if (!strcasecmp(s, types[i]))
            return types[i];
    return NULL;
}

/* Runs on the submit host first (remote == 0): refusing here makes sbatch,
 * srun and salloc reject the value before a job exists.  slurmstepd runs it
 * again (remote == 1) with what it finds in the job's environment
 * (_SLURM_SPANK_OPTION_workloadtruth_workload_type, which the job's owner
 * can set to anything, newlines included): there the value is not used,
 * and a bad one is noted, escaped, never refused (slurmstepd would log a
 * refused value whole). */
static int opt_cb(int val, const char *value, int remote)
{
    (void)val;
    char e[ESC_CAP];
    const char *t = type_ok(value);
    if (remote) {
        if (!t)
            slurm_info("workloadtruth: ignoring a bad --workload-type value from the job's "
                       "environment: '%s'",
                       esc(value, ESC_MAX, e, sizeof(e)));
        return 0;
    }
    if (!t) {
        slurm_error("workloadtruth: --workload-type must be training, inference or idle, not "
                    "'%s'",
                    esc(value, ESC_MAX, e, sizeof(e)));
        return -1;
    }
    snprintf(declared, sizeof(declared), "%s", t);
    return 0;
}

static struct spank_option opt_workload_type = {
    "workload-type",
    "TYPE",
    "Declared GPU workload: training, inference or idle (WorkloadTruth checks it at job end)",
    1,
    0,
    opt_cb};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    if (ctx == S_CTX_SLURMD) { /* once, as slurmd starts: a word on the configuration */
        struct cfg c;
        cfg_parse(&c, ac, av);
        cfg_warn(&c);
        return 0;
    }
    if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
        return 0;
    spank_err_t e = spank_option_register(sp, &opt_workload_type);
    if (e != ESPANK_SUCCESS)
        slurm_error("workloadtruth: cannot register --workload-type: %s", spank_strerror(e));
    return 0;
}

/* On the submit host: hand the declaration to Prolog/Epilog (and to this
 * plugin's node hooks) as SPANK_WORKLOAD_TYPE, "none" when there is none,
 * so that Slurm's value replaces any SLURM_SPANK_WORKLOAD_TYPE the job's
 * owner put in the job's environment (for admins' scripts that read it). */
static int tasks_declared(spank_t sp, int ac, char **av);

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    /* slurmstepd, still as root: user_init runs after it has dropped to
     * the job's user, who cannot read the root-only spool */
    if (ctx == S_CTX_REMOTE)
        return tasks_declared(sp, ac, av);
    if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR)
        return 0;
    spank_err_t e =
        spank_job_control_setenv(sp, "WORKLOAD_TYPE", declared[0] ? declared : "none", 1);
    if (e != ESPANK_SUCCESS)
        slurm_error("workloadtruth: cannot pass --workload-type to the node: %s",
                    spank_strerror(e));
    return 0;
}

/* The job's declaration in the job prolog and epilog (slurmd, as root):
 * SPANK_WORKLOAD_TYPE from the job-control environment that slurmctld hands
 * them, the declaration Prolog/Epilog scripts see too.  Not the option
 * (spank_option_getopt), which there comes from another job-control
 * variable the submitting client sets, nor anything in the job's own
 * environment.  NULL for none. */
static const char *job_declared(uint32_t job)
{
    const char *v = getenv("SPANK_WORKLOAD_TYPE");
    char e[ESC_CAP];
    if (!v || !strcmp(v, "none") || type_ok(v))
        return type_ok(v);
    slurm_error("workloadtruth: job %u: ignoring SPANK_WORKLOAD_TYPE '%s' (not training, "
                "inference, idle or none)",
                (unsigned)job, esc(v, ESC_MAX, e, sizeof(e)));
    return NULL;
}

/* --- running a program with a hard timeout --------------------------- */

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void append(char *buf, size_t cap, size_t *len, const char *src, size_t n)
{
    if (*len + 1 >= cap)
        return;
    if (n > cap - 1 - *len)
        n = cap - 1 - *len;
    memcpy(buf + *len, src, n);
    *len += n;
    buf[*len] = '\0';
}

/* As append(), but once buf is full its first half stays and the rest rolls:
 * the newest bytes replace the oldest after the first half, so the last line
 * is there whatever came before it (the first 511 bytes were kept, and a
 * failure said after some warnings was logged as a warning's first words). */
static void append_ends(char *buf, size_t cap, size_t *len, const char *src, size_t n)
{
    size_t head = cap / 2, room = cap - 1 - head;
    if (*len + n < cap) {
        append(buf, cap, len, src, n);
        return;
    }
    if (*len < head) {
        size_t k = head - *len;
        memcpy(buf + *len, src, k);
        *len = head;
        src += k;
        n -= k;
    }
    if (n >= room) {
        memcpy(buf + head, src + n - room, room);
        *len = head + room;
    } else {
        size_t have = *len - head, keep = room - n;
        if (have > keep) {
            memmove(buf + head, buf + *len - keep, keep);
            have = keep;
        }
        memcpy(buf + head + have, src, n);
        *len = head + have + n;
    }
    buf[*len] = '\0';
}

/* Runs argv[0] (an absolute path) with stdin from /dev/null, its stdout and
 * stderr captured (out may be NULL), in a process group of its own that is
 * killed after timeout_s.  Returns the wait status, or (why in errbuf)
 * RUN_NOT_STARTED when it could not be started, RUN_TIMED_OUT when it was
 * killed for the timeout. */
#define RUN_NOT_STARTED (-1)
#define RUN_TIMED_OUT (-2)
/* How long a killed agent is waited for: one in uninterruptible sleep (a
 * call into a hung NFS mount or GPU driver) does not die of SIGKILL until
 * that call returns, and waiting on it held the hook, and the job
 * COMPLETING or its batch step past its limit, for as long (within the
 * hooks' 5 s margin) */
#define KILL_GRACE_S 3.0
/* In a forked child before execve: closes every descriptor from `lowest` up
 * (async-signal-safe calls only). */
static void close_fds_from(int lowest)
{
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536)
        maxfd = 65536;
    for (int fd = lowest; fd < maxfd; fd++)
        close(fd);
}

/* In a forked child whose execve failed: "cannot run PATH: errno N (what)"
 * on stderr, with async-signal-safe calls only (the caller may be
 * slurmstepd, threaded: strerror may take a lock or allocate). */
static void exec_failed(const char *path, int err)
{
    char num[16];
    size_t i = sizeof(num);
    unsigned v = err > 0 ? (unsigned)err : 0;
    do {
        num[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    const char *what = err == ENOENT    ? " (No such file or directory)"
                       : err == EACCES  ? " (Permission denied)"
                       : err == ENOEXEC ? " (Exec format error)"
                       : err == ENOTDIR ? " (Not a directory)"
                       : err == ENOMEM  ? " (Cannot allocate memory)"
                                        : "";
    if (write(2, "cannot run ", 11) < 0 || write(2, path, strlen(path)) < 0 ||
        write(2, ": errno ", 8) < 0 || write(2, num + i, sizeof(num) - i) < 0 ||
        write(2, what, strlen(what)) < 0 || write(2, "\n", 1) < 0)
        return;
}

static int run_prog(char *const argv[], unsigned timeout_s, char *out, size_t out_cap, char *errbuf,
                    size_t err_cap)
{
    int op[2] = {-1, -1}, ep[2] = {-1, -1}, status = -1;
    size_t olen = 0, elen = 0;
    struct sigaction dfl, old;
    if (out)
        out[0] = '\0';
    errbuf[0] = '\0';
    /* a SIGCHLD left ignored by the caller would reap the child for us */
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &old);
    if (pipe(op) || pipe(ep)) {
        snprintf(errbuf, err_cap, "pipe: %s", strerror(errno));
        goto cleanup;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(errbuf, err_cap, "fork: %s", strerror(errno));
        goto cleanup;
    }
    if (pid == 0) {
        setpgid(0, 0);
        /* killed with the hook: slurmd kills a job epilog that runs past
         * PrologEpilogTimeout by its process group, which this one left, and
         * the agent ran on as root with no one to enforce timeout= (the
         * forking thread waits below, so the parent-death signal, sent when
         * that thread ends, comes only with the hook) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(126);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* above 2 first: the caller may have had 0..2 closed */
        int o = fcntl(op[1], F_DUPFD, 3), e = fcntl(ep[1], F_DUPFD, 3);
        int nul = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(126);
        close_fds_from(3);
        execve(argv[0], argv, environ);
        exec_failed(argv[0], errno);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no race with the kill below */
    close(op[1]);
    close(ep[1]);
    op[1] = ep[1] = -1;
    double deadline = mono() + timeout_s;
    int killed = 0, open_fds = 2;
    while (open_fds > 0) {
        double left = deadline - mono();
        if (left <= 0) {
            killed = 1;
            break;
        }
        struct pollfd pf[2] = {{op[0], POLLIN, 0}, {ep[0], POLLIN, 0}};
        int n = poll(pf, 2, (int)(left * 1000) + 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char chunk[4096];
            ssize_t r = read(pf[i].fd, chunk, sizeof(chunk));
            if (r > 0 && i == 0 && out)
                append(out, out_cap, &olen, chunk, (size_t)r);
            else if (r > 0 && i == 1)
                append_ends(errbuf, err_cap, &elen, chunk, (size_t)r);
            else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
                close(pf[i].fd);
                if (i == 0)
                    op[0] = -1;
                else
                    ep[0] = -1;
                open_fds--;
            }
        }
    }
    /* the pipes are closed (or the time is up): wait for the exit, within the
     * limit, and a killed agent within KILL_GRACE_S more */
    double give_up = deadline + KILL_GRACE_S;
    int left_behind = 0;
    if (killed) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        give_up = mono() + KILL_GRACE_S;
    }
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            status = -1;
            snprintf(errbuf, err_cap, "waitpid: %s", strerror(errno));
            break;
        }
        if (!killed && mono() >= deadline) {
            killed = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            give_up = mono() + KILL_GRACE_S;
            continue;
        }
        if (killed && mono() >= give_up) {
            left_behind = 1; /* reaped by the hook's process when it ends */
            break;
        }
        struct timespec ts = {0, 20000000L};
        nanosleep(&ts, NULL);
    }
    if (killed) {
        kill(-pid, SIGKILL); /* whatever it left behind in its group */
        if (left_behind)
            snprintf(errbuf, err_cap,
                     "killed after the %u s timeout, and not gone %.0f s later (a call that "
                     "cannot be interrupted: a hung file system or GPU driver?); left behind",
                     timeout_s, KILL_GRACE_S);
        else
            snprintf(errbuf, err_cap, "killed after the %u s timeout", timeout_s);
        status = RUN_TIMED_OUT;
    }
cleanup:
    for (int i = 0; i < 2; i++) {
        if (op[i] >= 0)
            close(op[i]);
        if (ep[i] >= 0)
            close(ep[i]);
    }
    sigaction(SIGCHLD, &old, NULL);
    return status;
}

/* The last line of what a program said on stderr, printable, for a log line. */
static const char *last_line(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
    char *nl = strrchr(s, '\n');
    char *l = nl ? nl + 1 : s;
    for (char *p = l; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return l[0] ? l : "(nothing on stderr)";
}

/* The first string value of "key" in the agent's JSON, [A-Za-z0-9_.-] only:
 * the job-level workload_type comes first, verdict and audit_log (seq) after
 * the windows, whose objects have neither key (a key inside a string value
 * is escaped, \"verdict\", and does not match). */
static void json_word(const char *json, const char *key, char *val, size_t cap)
{
    char pat[48];
    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    val[0] = '\0';
    const char *p = strstr(json, pat);
    if (!p)
        return;
    p += strlen(pat);
    if (*p == '"')
        p++;
    size_t n = 0;
    while (n + 1 < cap &&
           (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.' || p[n] == '-'))
        n++;
    memcpy(val, p, n);
    val[n] = '\0';
}

/* --- the spool: the declaration, and mode=record's recording ---------- */

static int spool_path(const struct cfg *c, uint32_t job, const char *ext, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s/job-%u.%s", c->spool_dir, (unsigned)job, ext);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* Root creates, truncates and reads files in spool_dir, so no one else may
 * be able to plant a link or a FIFO there: the directory (created 0700 when
 * `create` and missing) must be a directory, not a symlink, owned by root
 * (or this process's user), and not writable by group or others.  Returns
 * 0 when it is, 1 when it is missing (and not to be created), else -1 with
 * the reason in why. */
static int spool_check(const struct cfg *c, int create, char *why, size_t cap)
{
    struct stat sb;
    why[0] = '\0';
    if (create && mkdir(c->spool_dir, 0700) != 0 && errno != EEXIST) {
        snprintf(why, cap, "cannot create it: %s", strerror(errno));
        return -1;
    }
    if (lstat(c->spool_dir, &sb) != 0) {
        if (errno == ENOENT && !create)
            return 1;
        snprintf(why, cap, "%s", strerror(errno));
        return -1;
    }
    if (S_ISLNK(sb.st_mode))
        snprintf(why, cap, "it is a symbolic link");
    else if (!S_ISDIR(sb.st_mode))
        snprintf(why, cap, "it is not a directory");
    else if (sb.st_uid != 0 && sb.st_uid != geteuid())
        snprintf(why, cap, "it is owned by uid %u, not root", (unsigned)sb.st_uid);
    else if (sb.st_mode & (S_IWGRP | S_IWOTH))
        snprintf(why, cap, "it is writable by group or others (mode %03o)",
                 (unsigned)(sb.st_mode & 07777));
    return why[0] ? -1 : 0;
}

/* The refusal, in one line that says what to do. */
static void spool_refused(const struct cfg *c, uint32_t job, const char *why, const char *then)
{
    slurm_error("workloadtruth: job %u: refusing spool_dir %s: %s (it must be a directory owned "
                "by root and writable by root alone); %s",
                (unsigned)job, c->spool_dir, why, then);
}

/* A file of the spool made anew: whatever is at `path` (a stale file, a
 * link) is removed first, and O_EXCL | O_NOFOLLOW never writes through a
 * link to another file.  A descriptor, or -1 with errno. */
static int create_new(const char *path)
{
    if (unlink(path) != 0 && errno != ENOENT)
        return -1;
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* An existing regular file of the spool, for reading: no link followed,
 * and no waiting on a FIFO (O_NONBLOCK, then it must be a regular file). */
static FILE *open_read(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat sb;
    FILE *f = NULL;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        goto cleanup;
    f = fdopen(fd, "r");
cleanup:
    if (!f)
        close(fd);
    return f;
}

/* The start of a small file (the recorder's log) into buf, NUL-terminated;
 * 0, or -1 and "" when it cannot be read. */
static int read_start(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = open_read(path);
    if (!f)
        return -1;
    size_t k = fread(buf, 1, cap - 1, f);
    buf[k] = '\0';
    fclose(f);
    return 0;
}

/* Appends why the recording failed to the recorder's log (best effort). */
static void note_failure(const char *logp, const char *why)
{
    int fd = open(logp, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0)
        return;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (write(fd, why, strlen(why)) < 0 || write(fd, "\n", 1) < 0))
        slurm_error("workloadtruth: cannot write %s: %s", logp, strerror(errno));
    close(fd);
}

/* The job prolog's record of the job's declaration, for the batch step's
 * slurmstepd, whose own view of it is the job's environment, which the
 * job's owner controls.  Returns 0, or -1 (logged). */
static int decl_write(const struct cfg *c, uint32_t job, const char *decl)
{
    char path[PATH_MAX];
    int rc = -1, fd = -1;
    if (spool_path(c, job, "decl", path, sizeof(path))) {
        slurm_error("workloadtruth: job %u: spool_dir path too long", (unsigned)job);
        goto cleanup;
    }
    fd = create_new(path);
    if (fd < 0) {
        slurm_error("workloadtruth: job %u: cannot create %s: %s", (unsigned)job, path,
                    strerror(errno));
        goto cleanup;
    }
    const char *v = decl ? decl : "none";
    if (write(fd, v, strlen(v)) != (ssize_t)strlen(v) || write(fd, "\n", 1) != 1) {
        slurm_error("workloadtruth: job %u: cannot write %s: %s", (unsigned)job, path,
                    strerror(errno));
        unlink(path);
        goto cleanup;
    }
    rc = 0;
cleanup:
    if (fd >= 0 && close(fd) != 0 && rc == 0) {
        slurm_error("workloadtruth: job %u: cannot write %s: %s", (unsigned)job, path,
                    strerror(errno));
        unlink(path);
        rc = -1;
    }
    return rc;
}

/* What decl_write wrote, on the node after the job prolog (the spool
 * checked by the caller): *decl a type or NULL (none).  Returns 0, or -1
 * with the reason in why when there is no usable record. */
static int decl_read(const struct cfg *c, uint32_t job, const char **decl, char *why, size_t cap)
{
    char path[PATH_MAX], buf[32] = "", e[ESC_CAP];
    FILE *f = NULL;
    int rc = -1;
    *decl = NULL;
    if (spool_path(c, job, "decl", path, sizeof(path))) {
        snprintf(why, cap, "spool_dir path too long");
        goto cleanup;
    }
    errno = 0;
    f = open_read(path);
    if (!f) {
        snprintf(why, cap, "cannot read %s: %s", path,
                 errno ? strerror(errno) : "not a regular file");
        goto cleanup;
    }
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    if (strcmp(buf, "none") != 0 && !type_ok(buf)) {
        snprintf(why, cap, "%s holds '%s'", path, esc(buf, ESC_MAX, e, sizeof(e)));
        goto cleanup;
    }
    *decl = type_ok(buf);
    rc = 0;
cleanup:
    if (f)
        fclose(f);
    return rc;
}

/* The GPU to judge, from the job's SLURM_JOB_GPUS as slurmd gives it to the
 * job prolog and epilog (slurmd's value: the job's owner cannot set it
 * there): gpu=auto takes the first GPU listed; gpu=N is judged when the list
 * names N, or when there is none (a cluster without GPU GRES, where a job is
 * taken to have the node's GPUs).  Sets c->gpu, or c->no_gpu to why the job
 * has no GPU here to judge (a job without GPUs, or on others, was judged on
 * GPU N: another job's work, in this job's record and AdminComment). */
static void gpu_resolve(struct cfg *c, const char *list)
{
    char e[ESC_CAP];
    unsigned first = 0;
    int n = 0, found = 0;
    c->no_gpu[0] = '\0';
    for (const char *p = list ? list : ""; *p && n >= 0;) {
        char *end;
        unsigned long a = 0, b = 0;
        if (isdigit((unsigned char)*p))
            a = b = strtoul(p, &end, 10);
        else
            end = (char *)p;
        if (end != p && *end == '-' && isdigit((unsigned char)end[1]))
            b = strtoul(end + 1, &end, 10);
        if (end == p || a > 1023 || b > 1023 || b < a || (*end && *end != ',')) {
            n = -1; /* not a list of GPU indices: as if there were none, said */
            break;
        }
        if (!n++)
            first = (unsigned)a;
        found |= c->gpu >= a && c->gpu <= b;
        p = *end ? end + 1 : end;
    }
    if (n < 0)
        slurm_error("workloadtruth: ignoring SLURM_JOB_GPUS '%s': not a list of GPU indices",
                    esc(list, ESC_MAX, e, sizeof(e)));
    if (c->gpu_auto && n > 0)
        c->gpu = first;
    else if (c->gpu_auto)
        snprintf(c->no_gpu, sizeof(c->no_gpu), "no GPU of the job on this node: %s",
                 n < 0 ? "SLURM_JOB_GPUS is not a list" : "SLURM_JOB_GPUS is not set");
    else if (n > 0 && !found)
        snprintf(c->no_gpu, sizeof(c->no_gpu),
                 "GPU %u (gpu=) is not one of the job's: SLURM_JOB_GPUS=%s", c->gpu,
                 esc(list, ESC_MAX, e, sizeof(e)));
}

/* The longest SLURM_JOB_GPUS kept (every GPU of 1024 listed: 4009 bytes) */
#define GPUS_MAX 4096

/* The job prolog's SLURM_JOB_GPUS (an empty line when it is not set), for
 * the batch step, whose environment the job's owner controls.  Best effort:
 * without it the batch step leaves the job to the job epilog, which reads
 * slurmd's value itself; a longer list is not written (cut, it would judge
 * otherwise at job end than here). */
static void gpus_write(const struct cfg *c, uint32_t job, const char *list)
{
    char path[PATH_MAX];
    const char *v = list ? list : "";
    size_t n = strlen(v);
    int fd = -1, ok = 0;
    if (spool_path(c, job, "gpus", path, sizeof(path)))
        return;
    if (n > GPUS_MAX) {
        unlink(path); /* not an earlier job's of this id in its place */
        slurm_error("workloadtruth: job %u: SLURM_JOB_GPUS is %zu bytes (at most %d kept): not "
                    "written to the spool; the job epilog reads it",
                    (unsigned)job, n, GPUS_MAX);
        return;
    }
    fd = create_new(path);
    if (fd < 0)
        goto cleanup;
    errno = 0;
    ok = write(fd, v, n) == (ssize_t)n && write(fd, "\n", 1) == 1;
cleanup:
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (!ok) {
        slurm_error("workloadtruth: job %u: cannot write %s: %s", (unsigned)job, path,
                    errno ? strerror(errno) : "short write");
        if (fd >= 0)
            unlink(path);
    }
}

/* What gpus_write wrote, into buf; 0, or -1 when there is no such file. */
static int gpus_read(const struct cfg *c, uint32_t job, char *buf, size_t cap)
{
    char path[PATH_MAX];
    buf[0] = '\0';
    if (spool_path(c, job, "gpus", path, sizeof(path)) || read_start(path, buf, cap))
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* Starts `BIN record` detached (double fork, own session) and writes its
 * pid (spool_dir checked by the caller). */
static void recorder_start(const struct cfg *c, uint32_t job)
{
    char trace[PATH_MAX], pidf[PATH_MAX], gpus[16];
    if (spool_path(c, job, "trace", trace, sizeof(trace)) ||
        spool_path(c, job, "pid", pidf, sizeof(pidf))) {
        slurm_error("workloadtruth: job %u: spool_dir path too long", (unsigned)job);
        return;
    }
    snprintf(gpus, sizeof(gpus), "%u", c->gpu);
    const char *argv[16 + MAX_AGENT_ARGS];
    int n = 0;
    argv[n++] = c->bin;
    argv[n++] = "record";
    argv[n++] = "--out";
    argv[n++] = trace;
    argv[n++] = "--gpus";
    argv[n++] = gpus;
    argv[n++] = "--interval";
    argv[n++] = c->interval;
    argv[n++] = "--duration";
    argv[n++] = "604800"; /* a week: the epilog normally stops it long before; a longer
                             job's rest is not recorded (README, Limits) */
    for (int i = 0; i < c->nrec_args; i++)
        argv[n++] = c->rec_args[i];
    argv[n] = NULL;

    /* the log's path is made before the fork: the child calls only
     * async-signal-safe functions (the caller may be threaded) */
    char logp[PATH_MAX];
    if (spool_path(c, job, "log", logp, sizeof(logp))) {
        slurm_error("workloadtruth: job %u: spool_dir path too long", (unsigned)job);
        return;
    }
    /* no stale trace (or a link where it goes) for the recorder to open */
    if (unlink(trace) != 0 && errno != ENOENT)
        slurm_error("workloadtruth: job %u: cannot remove %s: %s", (unsigned)job, trace,
                    strerror(errno));
    /* the recorder's log exists from here on, whatever fails next: at job
     * end it tells a prolog that failed from one that never ran; the
     * recorder's stdout and stderr go to it */
    int lg = create_new(logp);
    if (lg < 0) {
        slurm_error("workloadtruth: job %u: cannot create %s: %s; not recording", (unsigned)job,
                    logp, strerror(errno));
        return;
    }
    struct sigaction dfl, old;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &old);
    int fds[2];
    if (pipe(fds)) {
        slurm_error("workloadtruth: job %u: pipe: %s", (unsigned)job, strerror(errno));
        note_failure(logp, "pipe failed in the job prolog");
        sigaction(SIGCHLD, &old, NULL);
        close(lg);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        setsid();
        pid_t gc = fork();
        if (gc != 0) {
            /* tell the hook the recorder's pid (or -1), then go */
            long v = gc;
            if (write(fds[1], &v, sizeof(v)) != (ssize_t)sizeof(v))
                _exit(1);
            _exit(0);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* above 2 first: the caller may have had 0..2 closed */
        int l = fcntl(lg, F_DUPFD, 3), nul = open("/dev/null", O_RDONLY);
        if (nul < 0 || l < 0 || dup2(nul, 0) < 0 || dup2(l, 1) < 0 || dup2(l, 2) < 0)
            _exit(126);
        close_fds_from(3);
        execve(argv[0], (char *const *)argv, environ);
        exec_failed(argv[0], errno);
        _exit(127);
    }
    close(fds[1]);
    close(lg);
    long rpid = -1;
    if (pid > 0) {
        ssize_t r;
        do
            r = read(fds[0], &rpid, sizeof(rpid));
        while (r < 0 && errno == EINTR);
        if (r != (ssize_t)sizeof(rpid))
            rpid = -1;
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    close(fds[0]);
    sigaction(SIGCHLD, &old, NULL);
    if (rpid <= 0) {
        slurm_error("workloadtruth: job %u: cannot start the recorder %s", (unsigned)job, c->bin);
        note_failure(logp, "the job prolog could not start the recorder");
        return;
    }
    int pfd = create_new(pidf);
    FILE *f = pfd >= 0 ? fdopen(pfd, "w") : NULL;
    if (!f && pfd >= 0)
        close(pfd);
    int bad = !f || fprintf(f, "%ld\n", rpid) < 0;
    if (f && fclose(f) != 0) /* closed once, whatever it says (a full disk) */
        bad = 1;
    if (bad) {
        unlink(pidf);
        slurm_error("workloadtruth: job %u: cannot write %s; stopping the recorder", (unsigned)job,
                    pidf);
        kill((pid_t)rpid, SIGTERM);
        return;
    }
    slurm_info("workloadtruth: job %u: recording GPU %u to %s (pid %ld)", (unsigned)job, c->gpu,
               trace, rpid);
}

/* 1 while pid exists and is not a zombie. */
static int alive(long pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    return !(rp && rp[1] == ' ' && rp[2] == 'Z');
}

/* Stops the job's recorder (SIGTERM, then SIGKILL after 5 s) if it is still
 * the process we started: its command line must name the job's trace.
 * Returns 1 when it had stopped before (it failed mid-job: a full spool, a
 * GPU lost; the recording ends there), else 0. */
static int recorder_stop(const struct cfg *c, uint32_t job, const char *trace)
{
    char pidf[PATH_MAX], cmd[64], line[PATH_MAX + 64];
    if (spool_path(c, job, "pid", pidf, sizeof(pidf)))
        return 0;
    FILE *f = open_read(pidf);
    long pid = 0;
    if (!f)
        return 0;
    int ok = fscanf(f, "%ld", &pid) == 1 && pid > 1;
    fclose(f);
    unlink(pidf);
    if (!ok)
        return 0;
    snprintf(cmd, sizeof(cmd), "/proc/%ld/cmdline", pid);
    f = fopen(cmd, "r");
    if (!f)
        return 1; /* already gone */
    size_t n = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    int ours = 0;
    for (size_t i = 0; i < n; i += strlen(line + i) + 1) {
        line[n] = '\0';
        if (!strcmp(line + i, trace))
            ours = 1;
    }
    if (!ours)
        return 1; /* gone, and its pid taken by another process */
    kill((pid_t)pid, SIGTERM);
    for (int i = 0; i < 250 && alive(pid); i++) {
        struct timespec ts = {0, 20000000L};
        nanosleep(&ts, NULL);
    }
    if (alive(pid)) {
        slurm_error("workloadtruth: job %u: recorder %ld ignored SIGTERM; killing it",
                    (unsigned)job, pid);
        kill((pid_t)pid, SIGKILL);
    }
    return 0;
}

/* 0 when a file can be created in the spool (one is, and removed), else the
 * errno. */
static int spool_writable(const struct cfg *c, uint32_t job)
{
    char probe[PATH_MAX];
    if (spool_path(c, job, "probe", probe, sizeof(probe)))
        return ENAMETOOLONG;
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno == EEXIST ? 0 : errno;
    close(fd);
    unlink(probe);
    return 0;
}

/* What a recording holds: its data rows (not comments, not the header) and
 * the times (t_s, the first field) of the first and last, NAN when there are
 * none or they are not numbers.  Only whole lines count: a last line cut in
 * its middle (a recorder killed as it wrote, a full spool) is not a row, and
 * *whole gets the length of the file up to it, so that it can be cut off (a
 * trace ending in a fragment is refused by classify: the job was an ERROR). */
struct trace_info {
    unsigned long rows;
    double t_first, t_last;
    long whole, size;
};

static void trace_scan(const char *path, struct trace_info *ti)
{
    ti->rows = 0;
    ti->t_first = ti->t_last = NAN;
    ti->whole = ti->size = 0;
    FILE *f = open_read(path);
    if (!f)
        return;
    int c, bol = 1, skip = 0, header = 1;
    char head[40];
    size_t hn = 0;
    long pos = 0;
    while ((c = getc(f)) != EOF) {
        pos++;
        if (bol) {
            skip = c == '#' || c == '\n';
            if (!skip && header) {
                header = 0;
                skip = 1;
            }
            hn = 0;
            bol = 0;
        }
        if (!skip && c != '\n' && hn < sizeof(head))
            head[hn++] = (char)c;
        if (c == '\n') {
            bol = 1;
            ti->whole = pos;
            if (!skip) {
                /* a first field longer than head (no comma in it) is no time */
                int full = hn == sizeof(head) && !memchr(head, ',', hn);
                head[hn < sizeof(head) ? hn : sizeof(head) - 1] = '\0';
                char *end;
                double t = strtod(head, &end);
                if (full || end == head || (*end != ',' && *end != '\0') || !isfinite(t))
                    t = NAN;
                if (!ti->rows)
                    ti->t_first = t;
                ti->t_last = t;
                ti->rows++;
            }
        }
    }
    ti->size = pos;
    fclose(f);
}

/* The time a recording's samples cover: first to last, and one sample's
 * period; NAN when it is not known (fewer than 2 rows, times not read). */
static double trace_span(const struct trace_info *ti)
{
    return ti->rows >= 2 ? (ti->t_last - ti->t_first) * (double)ti->rows / (double)(ti->rows - 1)
                         : NAN;
}

/* Windows for a recording that spans `span` seconds, asked for `want`: one
 * per 30 s (the physics classifier scores at most a window's last 30 s: five
 * windows of a 1-hour job were judged on 4% of it, and training hidden in
 * the other 96% was a MATCH with idle), at least `want` when they are 15 s or
 * longer, else one per 15 s (shorter windows, which the model did not learn
 * from, called a 40 s training job INFERENCE), at most 1000; 0 when the
 * recording covers under 5 s (classify's shortest window). */
static unsigned windows_for(double span, unsigned want)
{
    if (!(span >= 5))
        return 0;
    if (span >= 30.0 * want)
        return span >= 30000 ? 1000 : (unsigned)(span / 30);
    if (span >= 15.0 * want)
        return want;
    return span >= 15 ? (unsigned)(span / 15) : 1;
}

/* The job prolog (slurmd, as root, before the job's first step on this
 * node): the declaration recorded for the batch step, and in mode=record
 * the recorder started. */
int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
    struct cfg c;
    uint32_t job = 0;
    char why[256];
    cfg_parse(&c, ac, av);
    cfg_warn(&c);
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS) {
        slurm_error("workloadtruth: job prolog: no job id; nothing recorded");
        return 0;
    }
    const char *decl = job_declared(job);
    if (spool_check(&c, 1, why, sizeof(why)) != 0) {
        spool_refused(&c, job, why,
                      c.mode == MODE_RECORD ? "not recording (the job epilog says ERROR)"
                                            : "the job epilog classifies the job instead of its "
                                              "batch step (no AdminComment)");
        return 0;
    }
    /* without it the batch step leaves the job to the job epilog */
    (void)decl_write(&c, job, decl);
    const char *gpus = getenv("SLURM_JOB_GPUS");
    gpus_write(&c, job, gpus);
    gpu_resolve(&c, gpus);
    if (c.no_gpu[0])
        slurm_info("workloadtruth: job %u: nothing to %s on this node: %s", (unsigned)job,
                   c.mode == MODE_RECORD ? "record" : "classify", c.no_gpu);
    else if (c.mode == MODE_RECORD)
        recorder_start(&c, job);
    return 0;
}

/* --- job end --------------------------------------------------------- */

/* The AdminComment goes to `comment_job` (JobId=N, or ARRAY_TASK for an
 * array task: the raw id of an array's first task is the array's id, and
 * scontrol would write the comment onto every task of the array). */
static void set_admin_comment(const struct cfg *c, uint32_t job, const char *comment_job,
                              const char *text)
{
    char jobarg[48], comment[640], err[ERR_CAP];
    if (!c->admin_comment)
        return;
    snprintf(jobarg, sizeof(jobarg), "JobId=%s", comment_job);
    snprintf(comment, sizeof(comment), "AdminComment=%s", text);
    char *const argv[] = {(char *)c->scontrol, "update", jobarg, comment, NULL};
    int st = run_prog(argv, 15, NULL, 0, err, sizeof(err));
    if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        slurm_error("workloadtruth: job %u: cannot set AdminComment with %s: %s", (unsigned)job,
                    c->scontrol, last_line(err));
}

/* The AdminComment of a job whose check failed: the reason is in the slurmd
 * log, where the caller wrote it. */
static void error_comment(const struct cfg *c, uint32_t job, const char *comment_job,
                          const char *decl)
{
    char comment[200];
    snprintf(comment, sizeof(comment),
             "workloadtruth: declared=%s observed=none verdict=ERROR (see the slurmd log)",
             decl ? decl : "none");
    set_admin_comment(c, job, comment_job, comment);
}

/* The job-end work: stop the recorder (mode=record), run the agent, log,
 * and (comment_job not NULL) put the result in that job's AdminComment.
 * Returns -1 when the agent could not run to its end (it could not be
 * started, or was killed: the job's cancellation kills the batch step's
 * children, or, retry 2, its timeout was cut to the job's time limit) and
 * `retry` asks to leave the recording for another try (the job epilog's);
 * else 0. */
static int job_end(const struct cfg *cp, uint32_t job, const char *decl, const char *comment_job,
                   int retry)
{
    struct cfg c = *cp;
    char jobs[16], wins[16], samples[24], gpu[16], trace[PATH_MAX];
    unsigned long unjudged = 0; /* rows past classify's limits */
    double judged_pct = 100;    /* of a recording of windows over 30 s: their last 30 s */
    int recorder_died = 0;      /* the recorder had stopped before the job ended */
    char observed[16] = "", verdict[16] = "", seq[24] = "", comment[512];
    char err[ERR_CAP], *out = NULL;
    const char *argv[24 + MAX_AGENT_ARGS];
    int n = 0, again = 0;
    if (!comment_job)
        c.admin_comment = 0;
    /* no GPU of the job here (gpu_resolve): nothing was recorded, and the
     * GPU holds another job's work or none */
    if (c.no_gpu[0]) {
        char tp[PATH_MAX], why[256];
        /* none was started; should the job prolog have judged otherwise
         * (its list, not this one), it is not left running */
        if (c.mode == MODE_RECORD && spool_check(&c, 0, why, sizeof(why)) == 0 &&
            !spool_path(&c, job, "trace", tp, sizeof(tp))) {
            recorder_stop(&c, job, tp);
            unlink(tp);
            if (!spool_path(&c, job, "log", tp, sizeof(tp)))
                unlink(tp);
        }
        slurm_info("workloadtruth: job %u declared=%s observed=none verdict=none (%s)",
                   (unsigned)job, decl ? decl : "none", c.no_gpu);
        snprintf(comment, sizeof(comment),
                 "workloadtruth: declared=%s observed=none verdict=none (no GPU of the job here)",
                 decl ? decl : "none");
        set_admin_comment(&c, job, comment_job, comment);
        return 0;
    }
    snprintf(jobs, sizeof(jobs), "%u", (unsigned)job);
    snprintf(gpu, sizeof(gpu), "%u", c.gpu);
    unsigned windows = c.windows;
    argv[n++] = c.bin;
    argv[n++] = "classify";
    if (c.mode == MODE_RECORD) {
        char pidf[PATH_MAX], logf[PATH_MAX], declf[PATH_MAX], why[256];
        struct stat sb;
        if (spool_path(&c, job, "trace", trace, sizeof(trace)) ||
            spool_path(&c, job, "pid", pidf, sizeof(pidf)) ||
            spool_path(&c, job, "log", logf, sizeof(logf)) ||
            spool_path(&c, job, "decl", declf, sizeof(declf))) {
            slurm_error("workloadtruth: job %u: spool_dir path too long", (unsigned)job);
            return 0;
        }
        int spool = spool_check(&c, 0, why, sizeof(why));
        /* a missing spool is "no prolog since boot" only if a prolog could
         * have created it: one that cannot be created (a missing parent, a
         * read-only /run) failed the job prolog too, which promised ERROR */
        if (spool == 1 && spool_check(&c, 1, why, sizeof(why)) != 0)
            spool = -1;
        if (spool < 0) { /* the job prolog refused it too: nothing recorded */
            slurm_error("workloadtruth: job %u declared=%s observed=none verdict=ERROR: no "
                        "recording: refusing spool_dir %s: %s (it must be a directory owned by "
                        "root and writable by root alone)",
                        (unsigned)job, decl ? decl : "none", c.spool_dir, why);
            error_comment(&c, job, comment_job, decl);
            return 0;
        }
        /* no spool, or no declaration record, trace, recorder pid or
         * recorder log in it: the job prolog never ran here (an allocation
         * with no step on this node, without PrologFlags=Alloc): nothing of
         * the job ran on this node's GPUs.  (A prolog that ran leaves the
         * log, whatever failed.  The spool is missing until the first job
         * prolog on the node creates it, e.g. after a reboot empties /run;
         * a prolog that could not create it logged that error itself.) */
        int none_there = spool == 1 || (lstat(trace, &sb) != 0 && lstat(pidf, &sb) != 0 &&
                                        lstat(logf, &sb) != 0 && lstat(declf, &sb) != 0);
        /* ... unless nothing can be created in the spool (a read-only or
         * full file system): the job prolog ran and failed to record, an
         * error (it read as "no step ran here") */
        int e = none_there && spool == 0 ? spool_writable(&c, job) : 0;
        if (e) {
            slurm_error("workloadtruth: job %u declared=%s observed=none verdict=ERROR: no "
                        "recording: nothing can be created in spool_dir %s: %s",
                        (unsigned)job, decl ? decl : "none", c.spool_dir, strerror(e));
            error_comment(&c, job, comment_job, decl);
            return 0;
        }
        if (none_there) {
            slurm_info("workloadtruth: job %u declared=%s observed=none verdict=none (no "
                       "recording: the job prolog did not run on this node, so no step ran "
                       "here; PrologFlags=Alloc records from the allocation's start)",
                       (unsigned)job, decl ? decl : "none");
            snprintf(comment, sizeof(comment),
                     "workloadtruth: declared=%s observed=none verdict=none (no step ran)",
                     decl ? decl : "none");
            set_admin_comment(&c, job, comment_job, comment);
            return 0;
        }
        recorder_died = recorder_stop(&c, job, trace) == 1;
        struct trace_info ti;
        trace_scan(trace, &ti);
        if (ti.whole < ti.size && truncate(trace, ti.whole) != 0)
            slurm_error("workloadtruth: job %u: cannot cut the recording's partial last line: %s",
                        (unsigned)job, strerror(errno));
        unsigned long rows = ti.rows;
        if (recorder_died) {
            char rlog[ERR_CAP];
            read_start(logf, rlog, sizeof(rlog));
            slurm_error("workloadtruth: job %u: the recorder had stopped before the job ended: "
                        "%lu samples recorded, covering %.0f s; recorder: %s",
                        (unsigned)job, rows,
                        rows >= 2 && isfinite(ti.t_last - ti.t_first) ? ti.t_last - ti.t_first
                                                                      : 0.0,
                        rlog[0] ? last_line(rlog) : "(its log is empty)");
        }
        double span = trace_span(&ti);
        if (span > 0) {
            windows = windows_for(span, windows);
            if (span > 30000) /* 1000 windows of more than 30 s */
                judged_pct = 100 * 30000 / span;
        }
        unsigned long per = windows ? rows / windows : 0;
        /* a short job: fewer windows (not one its times say is under 5 s,
         * which windows_for made none: too short) */
        if (per < c.min_samples && !(span > 0 && span < 5)) {
            windows = (unsigned)(rows / c.min_samples);
            per = windows ? rows / windows : rows;
        }
        /* classify's limits: 1e6 samples a window, 2e7 in all; a longer
         * recording gets more windows (up to 20 of 1e6) rather than only its
         * first windows x 1e6 rows judged, and the rest is said */
        if (per > 1000000UL) {
            unsigned long w = (rows + 999999UL) / 1000000UL;
            windows = (unsigned)(w < 20 ? w : 20);
            per = rows / windows;
            if (per > 1000000UL)
                per = 1000000UL;
        }
        unsigned long most = 20000000UL / (windows ? windows : 1);
        if (per > most)
            per = most;
        /* said only when a limit cut the recording: the division's
         * remainder (fewer rows than windows) is not a cut */
        if (windows && rows - per * windows >= windows)
            unjudged = rows - per * windows;
        if (windows == 0 || per < 5) {
            char rlog[ERR_CAP];
            read_start(logf, rlog, sizeof(rlog));
            struct stat st;
            if (lstat(trace, &st) != 0 || st.st_size == 0) {
                /* no trace, or not even its header: the recorder did not run (a
                 * missing agent, no driver, a full spool): the job went
                 * unchecked, an error */
                slurm_error("workloadtruth: job %u declared=%s observed=none verdict=ERROR: no "
                            "recording (%s); recorder: %s",
                            (unsigned)job, decl ? decl : "none", trace, last_line(rlog));
                snprintf(comment, sizeof(comment),
                         "workloadtruth: declared=%s observed=none verdict=ERROR (see the "
                         "slurmd log)",
                         decl ? decl : "none");
            } else {
                slurm_info("workloadtruth: job %u declared=%s observed=none verdict=none (%lu "
                           "samples recorded in %s: too short to classify; recorder: %s)",
                           (unsigned)job, decl ? decl : "none", rows, trace, last_line(rlog));
                snprintf(comment, sizeof(comment),
                         "workloadtruth: declared=%s observed=none verdict=none (%lu samples: "
                         "too short)",
                         decl ? decl : "none", rows);
            }
            set_admin_comment(&c, job, comment_job, comment);
            goto done;
        }
        snprintf(samples, sizeof(samples), "%lu", per);
        argv[n++] = "--trace";
        argv[n++] = trace;
        argv[n++] = "--samples";
        argv[n++] = samples;
    }
    argv[n++] = "--gpu-index";
    argv[n++] = gpu;
    snprintf(wins, sizeof(wins), "%u", windows);
    argv[n++] = "--windows";
    argv[n++] = wins;
    argv[n++] = "--log-dir";
    argv[n++] = c.log_dir;
    argv[n++] = "--job-id";
    argv[n++] = jobs;
    argv[n++] = "--json";
    if (decl) {
        argv[n++] = "--declared";
        argv[n++] = decl;
    }
    for (int i = 0; c.mode == MODE_CLASSIFY && i < c.nargs; i++)
        argv[n++] = c.args[i];
    argv[n] = NULL;

    out = malloc(OUT_CAP);
    if (!out) {
        slurm_error("workloadtruth: job %u: out of memory", (unsigned)job);
        goto done;
    }
    int st = run_prog((char *const *)argv, c.timeout_s, out, OUT_CAP, err, sizeof(err));
    /* classify: 0 = ok (MATCH, INCONCLUSIVE or no declaration), 3 = MISMATCH */
    if (st < 0 || !WIFEXITED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 3)) {
        char why[64];
        if (st < 0)
            snprintf(why, sizeof(why), "failed");
        else if (WIFEXITED(st))
            snprintf(why, sizeof(why), "exited with status %d", WEXITSTATUS(st));
        else
            snprintf(why, sizeof(why), "was killed by signal %d", WTERMSIG(st));
        /* killed from outside (the job's cancellation kills the batch
         * step's processes: SIGTERM, then SIGKILL after KillWait), or not
         * started, or out of a timeout cut to the job's time limit: try
         * again in the job epilog; a timeout= or a crash of its own would
         * only repeat */
        again =
            retry &&
            (st == RUN_NOT_STARTED || (retry == 2 && st == RUN_TIMED_OUT) ||
             (st >= 0 && WIFSIGNALED(st) && (WTERMSIG(st) == SIGKILL || WTERMSIG(st) == SIGTERM)));
        slurm_error("workloadtruth: job %u declared=%s observed=none verdict=ERROR: %s %s: %s%s",
                    (unsigned)job, decl ? decl : "none", c.bin, why, last_line(err),
                    again ? " (the job epilog tries again)" : "");
        if (again)
            goto done;
        error_comment(&c, job, comment_job, decl);
        goto done;
    }
    /* a new audit log: its verifier key must not be lost */
    const char *created = strstr(err, "created the audit log");
    if (created) {
        /* not a line that crosses the middle of a full buffer, where the
         * kept first half meets the kept tail (append_ends): a key spliced
         * from two lines would be logged as the log's.  One wholly in
         * either half is whole (classify says it last, after any warnings:
         * in the tail) */
        size_t at = (size_t)(created - err), len = strcspn(created, "\n");
        if (strlen(err) + 1 < ERR_CAP || at >= ERR_CAP / 2 || at + len < ERR_CAP / 2) {
            char line[ERR_CAP];
            snprintf(line, sizeof(line), "%s", created);
            line[strcspn(line, "\n")] = '\0';
            slurm_info("workloadtruth: %s", last_line(line));
        } else {
            slurm_info("workloadtruth: the agent created the audit log, but its line naming the "
                       "verifier key was cut in its long standard error: the key is the log's "
                       "genesis record's (its origin and pk)");
        }
    }
    json_word(out, "workload_type", observed, sizeof(observed));
    json_word(out, "verdict", verdict, sizeof(verdict));
    json_word(out, "seq", seq, sizeof(seq));
    const char *missing = strlen(out) + 1 >= OUT_CAP ? "printed more than 8 MiB"
                          : !observed[0]             ? "printed no workload_type"
                          : decl && !verdict[0]      ? "printed no verdict"
                                                     : NULL;
    if (missing) {
        slurm_error("workloadtruth: job %u declared=%s observed=none verdict=ERROR: %s %s",
                    (unsigned)job, decl ? decl : "none", c.bin, missing);
        error_comment(&c, job, comment_job, decl);
        goto done;
    }
    char part[320] = ""; /* the remarks, at most about 240 bytes */
    size_t pl = 0;
    if (unjudged) /* the recording's end was not judged: said, not hidden */
        pl += (size_t)snprintf(part + pl, sizeof(part) - pl,
                               " (the last %lu samples not classified: over classify's limits)",
                               unjudged);
    if (judged_pct < 99.95 && pl < sizeof(part))
        pl += (size_t)snprintf(part + pl, sizeof(part) - pl,
                               " (judged on the last 30 s of each of 1000 windows: %.0f%% of the "
                               "recording)",
                               judged_pct);
    if (recorder_died && pl < sizeof(part)) /* a recording that ended before the job */
        pl += (size_t)snprintf(part + pl, sizeof(part) - pl,
                               " (the recorder had stopped before the job ended: see the slurmd "
                               "log)");
    slurm_info("workloadtruth: job %u declared=%s observed=%s verdict=%s audit_log=%s/log.jsonl "
               "seq=%s%s",
               (unsigned)job, decl ? decl : "none", observed, verdict[0] ? verdict : "none",
               c.log_dir, seq[0] ? seq : "?", part);
    snprintf(comment, sizeof(comment), "workloadtruth: declared=%s observed=%s verdict=%s%s",
             decl ? decl : "none", observed, verdict[0] ? verdict : "none", part);
    set_admin_comment(&c, job, comment_job, comment);
done:
    if (c.mode == MODE_RECORD && !again) {
        char p[PATH_MAX];
        if (!spool_path(&c, job, "trace", p, sizeof(p)))
            unlink(p);
        if (!spool_path(&c, job, "log", p, sizeof(p)))
            unlink(p);
    }
    free(out);
    return again ? -1 : 0;
}

/* Remote context (slurmstepd, as root: init_post_opt, before slurmstepd
 * drops to the job's user for user_init), before the tasks start: the job's
 * declaration (the job prolog's record of it) goes into the tasks'
 * environment as WORKLOADTRUTH_DECLARED, where a node agent (`watch`) finds
 * it through /proc for its metrics and records.  Not the option nor
 * SLURM_SPANK_WORKLOAD_TYPE: slurmstepd takes both from the job's
 * environment, which the job's owner sets. */
static int tasks_declared(spank_t sp, int ac, char **av)
{
    struct cfg c;
    uint32_t job = 0;
    const char *decl = NULL;
    char why[PATH_MAX + 64];
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS)
        return 0;
    cfg_parse(&c, ac, av);
    /* a refused or missing spool was logged by the job prolog */
    if (spool_check(&c, 0, why, sizeof(why)) != 0 || decl_read(&c, job, &decl, why, sizeof(why)))
        return 0;
    /* "none" when the job declared nothing: the agent then stops there, and
     * does not read the job's own SLURM_SPANK_WORKLOAD_TYPE (or
     * WORKLOADTRUTH_DECLARED) as a declaration the job never made */
    spank_err_t e = spank_setenv(sp, "WORKLOADTRUTH_DECLARED", decl ? decl : "none", 1);
    if (e != ESPANK_SUCCESS)
        slurm_error("workloadtruth: cannot set WORKLOADTRUTH_DECLARED: %s", spank_strerror(e));
    return 0;
}

/* A batch step's hook ends this long before the job's time limit at least;
 * less left than this and MIN_AGENT_S for the agent: the job epilog. */
#define HOOK_MARGIN_S 5L
#define MIN_AGENT_S 5L

/* squeue's %L: [DAYS-][HOURS:]MINUTES:SECONDS, in seconds; -1 for anything
 * else (UNLIMITED, NOT_SET, INVALID). */
static long parse_time_left(const char *s)
{
    long days = 0, part[3];
    int np = 0;
    const char *p = s, *dash = strchr(s, '-');
    char *end;
    if (dash) {
        if (!isdigit((unsigned char)*s))
            return -1;
        days = strtol(s, &end, 10);
        if (end != dash || days > 10000)
            return -1;
        p = dash + 1;
    }
    for (;;) {
        if (!isdigit((unsigned char)*p) || np == 3)
            return -1;
        part[np++] = strtol(p, &end, 10);
        if (part[np - 1] > 1000000)
            return -1;
        if (*end == '\0')
            break;
        if (*end != ':')
            return -1;
        p = end + 1;
    }
    if (np < 2)
        return -1;
    long sec = np == 3 ? part[0] * 3600 + part[1] * 60 + part[2] : part[0] * 60 + part[1];
    return days * 86400 + sec;
}

/* The job's state and the time left of its time limit, from squeue's %T
 * and %L: fields the job's owner cannot set (scontrol's one line also holds
 * JobName, Comment, WorkDir: a job named "x EndTime=2000-01-01T00:00:00"
 * was read as ending then, and left its verdict out of the AdminComment),
 * and a duration (no clock time to read in a time zone).  Returns the
 * seconds left, or -1: no time limit, or it cannot be read (`why` says
 * which).  A job that has ended (cancelled, timed out: its step is being
 * killed) puts its state in `state` and has 0 left. */
static long seconds_left_in(const struct cfg *c, uint32_t job, char *state, size_t cap, char *why,
                            size_t wcap, char *out, size_t ocap)
{
    static const char *const ended[] = {"COMPLETING", "COMPLETED",     "CANCELLED", "TIMEOUT",
                                        "FAILED",     "NODE_FAIL",     "PREEMPTED", "DEADLINE",
                                        "BOOT_FAIL",  "OUT_OF_MEMORY", NULL};
    char id[16], err[ERR_CAP], word[32], left[32];
    state[0] = why[0] = '\0';
    snprintf(id, sizeof(id), "%u", (unsigned)job);
    /* %A, the job's own id: for an array's first task, whose id is the
     * array's, squeue lists every task of the array, and the first line
     * (a sibling COMPLETING) was read as this task's */
    char *const argv[] = {(char *)c->squeue, "-h", "-j", id, "-o", "%A %T %L", NULL};
    int st = run_prog(argv, 5, out, ocap, err, sizeof(err));
    if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(why, wcap, "%s: %s", c->squeue,
                 st == RUN_NOT_STARTED ? "cannot run it" : last_line(err));
        return -1;
    }
    const char *ln = out;
    char jid[32];
    int found = 0;
    for (; ln && *ln; ln = strchr(ln, '\n'), ln = ln ? ln + 1 : NULL)
        if (sscanf(ln, "%31s %31s %31s", jid, word, left) == 3 && !strcmp(jid, id)) {
            found = 1;
            break;
        }
    if (!found) {
        snprintf(why, wcap, "%s printed no state and time left for job %s", c->squeue, id);
        return -1;
    }
    for (int i = 0; ended[i]; i++)
        if (!strcmp(word, ended[i])) {
            snprintf(state, cap, "%s", word);
            return 0;
        }
    long sec = parse_time_left(left);
    if (sec < 0 && strcmp(left, "UNLIMITED") && strcmp(left, "NOT_SET"))
        snprintf(why, wcap, "%s printed time left '%.31s'", c->squeue, left);
    return sec;
}

/* As seconds_left_in, with room for a line per task of a job array (an
 * array of 1001 tasks prints about 30 KB). */
static long job_seconds_left(const struct cfg *c, uint32_t job, char *state, size_t cap, char *why,
                             size_t wcap)
{
    const size_t ocap = 64 * 1024;
    char *out = malloc(ocap);
    if (!out) {
        state[0] = '\0';
        snprintf(why, wcap, "out of memory");
        return -1;
    }
    long sec = seconds_left_in(c, job, state, cap, why, wcap, out, ocap);
    free(out);
    return sec;
}

/* The end of a batch job's script, in its slurmstepd (as root), before the
 * job is complete: the one point where the AdminComment can still be set
 * (slurmctld refuses updates of finished jobs, so the epilog cannot).  A
 * marker file tells the job epilog that the work is done. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    struct cfg c;
    uint32_t job = 0, step = 0;
    char marker[PATH_MAX], why[PATH_MAX + 64];
    const char *decl = NULL;
    if (spank_context() != S_CTX_REMOTE)
        return 0;
    if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS || step != SLURM_BATCH_SCRIPT)
        return 0;
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS)
        return 0;
    cfg_parse(&c, ac, av);
    if (spool_path(&c, job, "done", marker, sizeof(marker))) {
        slurm_error("workloadtruth: job %u: spool_dir path too long", (unsigned)job);
        return 0;
    }
    if (spool_check(&c, 1, why, sizeof(why)) != 0) {
        spool_refused(&c, job, why, "leaving the work to the job epilog");
        return 0;
    }
    /* the declaration as the job prolog had it from slurmctld */
    if (decl_read(&c, job, &decl, why, sizeof(why)) != 0) {
        slurm_error("workloadtruth: job %u: no declaration from the job prolog (%s); leaving the "
                    "work to the job epilog",
                    (unsigned)job, why);
        return 0;
    }
    /* the job's GPUs as the job prolog had them from slurmd; without its
     * record (a full spool, or a prolog of a version before 2026-12-07) the
     * job epilog reads slurmd's value */
    char gl[GPUS_MAX + 2];
    if (gpus_read(&c, job, gl, sizeof(gl)) != 0) {
        slurm_error("workloadtruth: job %u: no record of the job's GPUs from the job prolog; "
                    "leaving the work to the job epilog",
                    (unsigned)job);
        return 0;
    }
    gpu_resolve(&c, gl);
    /* The hook runs inside the job's time limit: a job whose script ended
     * near it was killed at the limit while the agent ran (TIMEOUT, not
     * COMPLETED; its afterok dependants never start).  The agent gets what
     * is left, less what the hook does after it, and the job epilog (after
     * the job is complete) tries again if that was too little; with less
     * than MIN_AGENT_S left, the job epilog does it all. */
    char state[32], twhy[PATH_MAX + 128];
    long left = job_seconds_left(&c, job, state, sizeof(state), twhy, sizeof(twhy));
    /* after the agent: the recorder's stop (up to 5 s), the AdminComment
     * (up to 15 s), and a margin */
    long reserve = HOOK_MARGIN_S + (c.mode == MODE_RECORD ? 5 : 0) + (c.admin_comment ? 15 : 0);
    int capped = 0;
    if (state[0]) {
        slurm_info("workloadtruth: job %u is %s: leaving the work to the job epilog", (unsigned)job,
                   state);
        return 0;
    }
    if (twhy[0])
        slurm_info("workloadtruth: job %u: its time left is not known (%s): the agent gets "
                   "timeout=%u s",
                   (unsigned)job, twhy, c.timeout_s);
    if (left >= 0 && left - reserve < MIN_AGENT_S) {
        slurm_info("workloadtruth: job %u: %ld s left of its time limit: leaving the work to "
                   "the job epilog",
                   (unsigned)job, left);
        return 0;
    }
    if (left >= 0 && left - reserve < (long)c.timeout_s) {
        slurm_info("workloadtruth: job %u: %ld s left of its time limit: the agent gets %ld s "
                   "(timeout=%u; the job epilog tries again if it needs more)",
                   (unsigned)job, left, left - reserve, c.timeout_s);
        c.timeout_s = (unsigned)(left - reserve);
        capped = 1;
    }
    /* the marker first: if the work below hangs or crashes, no second record */
    int fd = create_new(marker);
    if (fd < 0) {
        slurm_error("workloadtruth: job %u: cannot create %s: %s; leaving the work to the job "
                    "epilog",
                    (unsigned)job, marker, strerror(errno));
        return 0;
    }
    close(fd);
    uint32_t array = 0, task = 0;
    char comment_job[48];
    if (spank_get_item(sp, S_JOB_ARRAY_ID, &array) == ESPANK_SUCCESS && array != 0 &&
        spank_get_item(sp, S_JOB_ARRAY_TASK_ID, &task) == ESPANK_SUCCESS)
        snprintf(comment_job, sizeof(comment_job), "%u_%u", (unsigned)array, (unsigned)task);
    else
        snprintf(comment_job, sizeof(comment_job), "%u", (unsigned)job);
    /* the agent killed (the job was cancelled): the job epilog tries again */
    if (job_end(&c, job, decl, comment_job, capped ? 2 : 1) != 0)
        unlink(marker);
    return 0;
}

/* The job epilog (slurmd, as root, after the job is complete): the job-end
 * work for jobs without a batch script (salloc, srun), or whose batch step
 * did not do it; without AdminComment, which can no longer be set. */
int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    struct cfg c;
    uint32_t job = 0;
    char marker[PATH_MAX], declf[PATH_MAX], why[256];
    cfg_parse(&c, ac, av);
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS) {
        slurm_error("workloadtruth: job epilog: no job id; nothing recorded");
        return 0;
    }
    /* a marker counts only in a spool no one else can write to */
    int spool = spool_check(&c, 0, why, sizeof(why));
    if (spool == 0 && !spool_path(&c, job, "done", marker, sizeof(marker)) && unlink(marker) == 0) {
        if (c.mode == MODE_RECORD) { /* normally stopped already; make sure */
            char trace[PATH_MAX];
            if (!spool_path(&c, job, "trace", trace, sizeof(trace))) {
                recorder_stop(&c, job, trace);
                unlink(trace);
            }
        }
    } else {
        /* the job prolog's record of the job's GPUs, else slurmd's, as the
         * job prolog had it */
        char gl[GPUS_MAX + 2];
        gpu_resolve(&c, spool == 0 && gpus_read(&c, job, gl, sizeof(gl)) == 0
                            ? gl
                            : getenv("SLURM_JOB_GPUS"));
        (void)job_end(&c, job, job_declared(job), NULL, 0);
    }
    /* the job prolog's records of the declaration and GPUs, last (job_end
     * asks for them) */
    if (spool == 0 && !spool_path(&c, job, "decl", declf, sizeof(declf)))
        unlink(declf);
    if (spool == 0 && !spool_path(&c, job, "gpus", declf, sizeof(declf)))
        unlink(declf);
    return 0;
}
