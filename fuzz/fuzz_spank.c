/* libFuzzer target: the Slurm plugin's parsers, which read text others
 * write: the plugstack.conf arguments (cfg_parse, cfg_warn), the agent's
 * `classify --json` output (json_word) and stderr (last_line), and a
 * --workload-type value from the job's environment (opt_cb, esc).
 *
 * The plugin's C file is included, with stand-ins for the few Slurm calls
 * it makes (it is loaded into slurmd, not linked with the library).  Input:
 * the plugstack.conf words (split at blanks), then a NUL byte, then the
 * agent's output (also written as a recording for trace_scan, and read as
 * a job's SLURM_JOB_GPUS by gpu_resolve).  Checked: every parsed setting
 * within its documented range, spool_dir without a trailing slash or a "." or ".." component, no
 * empty agent argument, a json_word value of [A-Za-z0-9_.-] only and within
 * its buffer, and escaped log text printable.  Not a test of the hooks, which need a cluster
 * (tests/slurm_test.sh).
 *
 * SPDX-License-Identifier: MIT
 */
#include "../plugins/slurm/workloadtruth_spank.c"

#include <stdarg.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            abort();
}

/* opt_cb's messages hold a value from the job's environment, escaped */
static int checking_log;

static void log_line(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static void log_line(const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    if (checking_log)
        check_printable(buf);
}

void slurm_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line(fmt, ap);
    va_end(ap);
}

void slurm_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line(fmt, ap);
    va_end(ap);
}

/* never reached from what is fuzzed: the hooks are not called */
spank_context_t spank_context(void)
{
    return S_CTX_ERROR;
}
spank_err_t spank_get_item(spank_t spank, spank_item_t item, ...)
{
    (void)spank;
    (void)item;
    return ESPANK_ERROR;
}
spank_err_t spank_option_register(spank_t spank, struct spank_option *opt)
{
    (void)spank;
    (void)opt;
    return ESPANK_ERROR;
}
spank_err_t spank_setenv(spank_t spank, const char *var, const char *val, int overwrite)
{
    (void)spank;
    (void)var;
    (void)val;
    (void)overwrite;
    return ESPANK_ERROR;
}
spank_err_t spank_job_control_setenv(spank_t sp, const char *name, const char *value, int overwrite)
{
    (void)sp;
    (void)name;
    (void)value;
    (void)overwrite;
    return ESPANK_ERROR;
}
const char *spank_strerror(spank_err_t err)
{
    (void)err;
    return "error";
}

static void check_word(const char *v, size_t cap)
{
    if (strlen(v) >= cap)
        abort();
    for (; *v; v++)
        if (!isalnum((unsigned char)*v) && *v != '_' && *v != '.' && *v != '-')
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    const uint8_t *nul = memchr(data, '\0', size);
    size_t clen = nul ? (size_t)(nul - data) : size;
    char *conf = malloc(clen + 1);
    size_t olen = nul ? size - clen - 1 : 0;
    char *out = malloc(olen + 1);
    char **av = malloc((clen / 2 + 2) * sizeof(*av));
    if (!conf || !out || !av)
        goto done;
    memcpy(conf, data, clen);
    conf[clen] = '\0';
    if (olen)
        memcpy(out, nul + 1, olen);
    out[olen] = '\0';

    /* plugstack.conf: Slurm splits the line at blanks */
    int ac = 0;
    for (char *tok = strtok(conf, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
        av[ac++] = tok;
    struct cfg c;
    cfg_parse(&c, ac, av);
    cfg_warn(&c);
    if (c.bin[0] != '/' || c.log_dir[0] != '/' || c.spool_dir[0] != '/' || c.scontrol[0] != '/' ||
        c.squeue[0] != '/')
        abort();
    size_t sl = strlen(c.spool_dir);
    if ((sl > 1 && c.spool_dir[sl - 1] == '/') || dot_component(c.spool_dir))
        abort();
    if (c.timeout_s < 1 || c.timeout_s > 3600 || c.windows < 1 || c.windows > 1000 ||
        c.min_samples < 5 || c.min_samples > 100000 || c.gpu > 1023)
        abort();
    if (c.nargs > MAX_AGENT_ARGS || c.nrec_args > MAX_AGENT_ARGS)
        abort();
    for (int i = 0; i < c.nargs; i++)
        if (!c.args[i][0])
            abort();
    for (int i = 0; i < c.nrec_args; i++)
        if (!c.rec_args[i][0])
            abort();
    char *end;
    double iv = strtod(c.interval, &end);
    if (*end || !(iv > 0))
        abort();

    /* the agent's JSON output: the words the plugin logs and acts on */
    char cls[16], verdict[24], seq[24];
    json_word(out, "workload_type", cls, sizeof(cls));
    json_word(out, "verdict", verdict, sizeof(verdict));
    json_word(out, "seq", seq, sizeof(seq));
    check_word(cls, sizeof(cls));
    check_word(verdict, sizeof(verdict));
    check_word(seq, sizeof(seq));
    /* ... its stderr, cut to one printable line */
    char *copy = strdup(out);
    if (copy) {
        const char *l = last_line(copy);
        for (; *l; l++)
            if ((unsigned char)*l < 0x20 || *l == 0x7f)
                abort();
        free(copy);
    }
    /* ... squeue's time left (%L): a whole number of seconds, bounded, or -1 */
    long left = parse_time_left(out);
    if (left < -1 || left > 10000L * 86400 + 1000000L * 3600 + 1000000L * 61)
        abort();
    /* ... a recording (the agent's output as a trace file): whole lines
     * only, the rows among them, the windows its span gives in range */
    {
        char tpath[] = "/tmp/fuzz_spank_traceXXXXXX";
        int fd = mkstemp(tpath);
        if (fd >= 0) {
            int w = olen ? write(fd, out, olen) == (ssize_t)olen : 1;
            close(fd);
            struct trace_info ti;
            trace_scan(tpath, &ti);
            unlink(tpath);
            size_t nl = 0;
            for (size_t i = 0; i < olen; i++)
                nl += out[i] == '\n';
            if (w && (ti.size != (long)olen || ti.whole > ti.size || ti.rows > nl ||
                      (ti.whole > 0 && out[ti.whole - 1] != '\n') ||
                      (ti.whole < ti.size && memchr(out + ti.whole, '\n', olen - ti.whole))))
                abort();
            double span = trace_span(&ti);
            unsigned wn = windows_for(span, c.windows);
            if (wn > 1000 || (!(span >= 5) && wn != 0))
                abort();
        }
    }
    /* ... a job's SLURM_JOB_GPUS: a GPU in range, the one named (gpu=N) or
     * the first listed (auto), or why none, printable */
    checking_log = 1;
    for (int auto_ = 0; auto_ < 2; auto_++) {
        struct cfg g = c;
        g.gpu_auto = auto_;
        gpu_resolve(&g, out);
        check_printable(g.no_gpu);
        if (g.gpu > 1023 || (!auto_ && g.gpu != c.gpu))
            abort();
        if (auto_ && !g.no_gpu[0] &&
            (!isdigit((unsigned char)out[0]) || strtoul(out, NULL, 10) != g.gpu))
            abort();
    }
    /* ... and a --workload-type value from the job's environment */
    (void)opt_cb(0, out, 1);
    (void)opt_cb(0, out, 0);
    checking_log = 0;
    char e[ESC_CAP];
    const char *s = esc(out, ESC_MAX, e, sizeof(e));
    if (strlen(s) >= sizeof(e))
        abort();
    check_printable(s);
done:
    free(conf);
    free(out);
    free(av);
    return 0;
}
