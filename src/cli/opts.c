/* Command-line parsing (see opts.h). */
#include "cli/opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/simulate.h"
#include "telemetry/source.h"
#include "util/err.h"
#include "util/num.h"
#include "util/text.h"

static int list_add(struct wt_strlist *l, const char *s)
{
    if (l->n == l->cap) {
        int ncap = l->cap ? l->cap * 2 : 8;
        const char **nv = realloc(l->v, (size_t)ncap * sizeof(*nv));
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = s;
    return 0;
}

void wt_strlist_free(struct wt_strlist *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

const struct wt_opt *wt_opts_get(const struct wt_opt *opts, const char *name)
{
    for (int i = 0; opts[i].name; i++)
        if (!strcmp(opts[i].name, name))
            return &opts[i];
    return NULL;
}

static void shown(char *dst, size_t cap, const char *s)
{
    size_t j = 0;
    for (size_t i = 0; s[i] && j + 4 < cap; i++)
        dst[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    dst[j] = '\0';
}

const char *wt_opts_shown(char *dst, size_t cap, const char *s)
{
    shown(dst, cap, s);
    return dst;
}

const char *wt_opts_clean(char *dst, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (n >= cap)
        n = wt_utf8_cut(s, cap - 1);
    memcpy(dst, s, n);
    dst[n] = '\0';
    return wt_text_clean(dst);
}

const char *wt_strlist_join(const struct wt_strlist *l, char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->n && off + 1 < cap; i++) {
        char item[256];
        shown(item, sizeof(item), l->v[i]);
        int k = snprintf(buf + off, cap - off, "%s'%s'", i ? ", " : "", item);
        if (k < 0)
            break;
        off += (size_t)k < cap - off ? (size_t)k : cap - off - 1;
    }
    return buf;
}

static int bad(const struct wt_cmd_help *h, const char *fmt, ...) WT_PRINTF(2, 3);

static int bad(const struct wt_cmd_help *h, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s (see --help)\n", h->prog, msg);
    return 2;
}

/* A value spelt as a decimal number (digits, sign, point, exponent) that
 * did not parse: too big to hold, so out of range rather than malformed. */
static int decimal_overflow(const char *val, int integer)
{
    if (!*val || strspn(val, integer ? "0123456789" : "0123456789+-.eE") != strlen(val))
        return 0;
    if (integer)
        return 1;
    char *end;
    errno = 0;
    double d = strtod(val, &end);
    return *end == '\0' && errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL);
}

/* What an option naming a file or directory calls its value ("file name"),
 * by its metavar; NULL for an option whose value is not a path.  (--nvml-lib
 * PATH is not one: empty, it means the default library, as $WT_NVML_LIB.) */
static const char *path_kind(const struct wt_opt *o)
{
    static const struct {
        const char *metavar, *kind;
    } kinds[] = {{"FILE", "file name"},
                 {"CHECKPOINT", "file name"},
                 {"DIR", "directory name"},
                 {"DIR|FILE", "path"}};
    if ((o->type != WT_OPT_STRING && o->type != WT_OPT_LIST) || !o->metavar)
        return NULL;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(o->metavar, kinds[i].metavar))
            return kinds[i].kind;
    return NULL;
}

static int set_value(const struct wt_cmd_help *h, struct wt_opt *o, const char *val)
{
    char buf[600], sv[80];
    shown(sv, sizeof(sv), val);
    /* an empty path is a usage error (2) for every option, said before any
     * command tries to open "" (which was exit 1 from some of them) */
    if (!*val && path_kind(o))
        return bad(h, "%s: empty %s", o->name, path_kind(o));
    switch (o->type) {
    case WT_OPT_STRING:
        *(const char **)o->target = val;
        return 0;
    case WT_OPT_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (!strcmp(o->choices[i], val)) {
                *(const char **)o->target = o->choices[i];
                return 0;
            }
        buf[0] = '\0';
        for (int i = 0; o->choices[i]; i++) {
            strncat(buf, i ? ", " : "", sizeof(buf) - strlen(buf) - 1);
            strncat(buf, o->choices[i], sizeof(buf) - strlen(buf) - 1);
        }
        return bad(h, "%s: invalid choice '%s' (choose from %s)", o->name, sv, buf);
    case WT_OPT_UINT: {
        uint64_t u;
        /* compared as integers: above 2^53 a double rounds u onto the bound */
        uint64_t lo = o->min <= 0 ? 0 : (uint64_t)o->min;
        uint64_t hi = o->max >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)o->max;
        if (val[0] == '0' && (val[1] == 'x' || val[1] == 'X'))
            return bad(h, "%s: not a whole number: '%s'", o->name, sv);
        int parsed = wt_parse_u64(val, strlen(val), &u) == 0;
        if (!parsed && !decimal_overflow(val, 1))
            return bad(h, "%s: not a whole number: '%s'", o->name, sv);
        if (!parsed || u < lo || u > hi)
            return bad(h, "%s: %s is out of range (%llu..%llu)", o->name, sv,
                       (unsigned long long)lo, (unsigned long long)hi);
        *(unsigned long long *)o->target = (unsigned long long)u;
        return 0;
    }
    case WT_OPT_DOUBLE: {
        double d;
        if (wt_parse_double(val, strlen(val), &d) != 0)
            return decimal_overflow(val, 0)
                       ? bad(h, "%s: %s is out of range (%g..%g)", o->name, sv, o->min, o->max)
                       : bad(h, "%s: not a number: '%s'", o->name, sv);
        if (d < o->min || d > o->max)
            return bad(h, "%s: %s is out of range (%g..%g)", o->name, sv, o->min, o->max);
        *(double *)o->target = d;
        return 0;
    }
    case WT_OPT_LIST:
        if (list_add((struct wt_strlist *)o->target, val) != 0) {
            fprintf(stderr, "%s: out of memory\n", h->prog);
            return 2;
        }
        return 0;
    case WT_OPT_FLAG:
        break;
    }
    return 2;
}

/* --help is one of every command's options, for prefixes too ("--hel"), as
 * with argparse; not in the tables, so that usage lists it last. */
static struct wt_opt help_opt = {.name = "--help", .type = WT_OPT_FLAG};

/* The table's options, then --help: the first with o NULL; NULL after --help. */
static struct wt_opt *next_opt(struct wt_opt *opts, struct wt_opt *o)
{
    if (o == &help_opt)
        return NULL;
    o = o ? o + 1 : opts;
    return o->name ? o : &help_opt;
}

static struct wt_opt *find(const struct wt_cmd_help *h, struct wt_opt *opts, const char *arg,
                           size_t len, int *err)
{
    struct wt_opt *hit = NULL;
    int nhits = 0;
    *err = 0;
    for (struct wt_opt *o = next_opt(opts, NULL); o; o = next_opt(opts, o)) {
        if (strlen(o->name) == len && !strncmp(o->name, arg, len))
            return o;
        if (strlen(o->name) > len && !strncmp(o->name, arg, len)) {
            hit = o;
            nhits++;
        }
    }
    if (nhits == 1 && len > 2)
        return hit;
    char name[80], sn[80];
    size_t nlen = len > 2 ? len : strlen(arg); /* "--=x": the whole argument, not "--" */
    snprintf(name, sizeof(name), "%.*s", (int)(nlen < 70 ? nlen : 70), arg);
    shown(sn, sizeof(sn), name);
    if (nhits > 1 && len > 2) {
        /* name the candidates, as argparse does: "could match --log-dir, --log-file" */
        char cands[300] = "";
        size_t used = 0;
        for (struct wt_opt *o = next_opt(opts, NULL); o && used < sizeof(cands) - 1;
             o = next_opt(opts, o))
            if (strlen(o->name) > len && !strncmp(o->name, arg, len)) {
                int n =
                    snprintf(cands + used, sizeof(cands) - used, "%s%s", used ? ", " : "", o->name);
                used = n < 0 ? used : used + (size_t)n;
            }
        *err = bad(h, "ambiguous option '%s' (could match %s)", sn, cands);
    } else
        *err = bad(h, "unknown option '%s'", sn);
    return NULL;
}

/* Whether an argument is an option, so not the previous option's value: as
 * argparse, "--x", and "-x" unless it reads as a negative number ("-5",
 * "-.5"); "-" alone is a value (standard input or output). */
static bool looks_like_option(const char *a)
{
    if (a[0] != '-' || a[1] == '\0')
        return false;
    if (a[1] == '-')
        return true;
    return !(isdigit((unsigned char)a[1]) || (a[1] == '.' && isdigit((unsigned char)a[2])));
}

int wt_opts_parse(const struct wt_cmd_help *h, struct wt_opt *opts, int argc, char **argv,
                  struct wt_strlist *positional)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            wt_opts_usage(h, opts);
            return 1;
        }
        if (!strcmp(a, "--")) {
            for (i++; i < argc; i++) {
                if (!positional)
                    return bad(h, "unexpected argument '%s'", WT_SHOWN(argv[i]));
                if (!*argv[i])
                    return bad(h, "an empty argument ('')");
                if (list_add(positional, argv[i]) != 0)
                    return 2;
            }
            break;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            if (a[0] == '-' && a[1] != '\0')
                return bad(h, "unknown option '%s'", WT_SHOWN(a));
            if (!positional)
                return bad(h, "unexpected argument '%s'", WT_SHOWN(a));
            if (!*a) /* the commands' arguments are paths and indices */
                return bad(h, "an empty argument ('')");
            if (list_add(positional, a) != 0)
                return 2;
            continue;
        }
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        int err;
        struct wt_opt *o = find(h, opts, a, len, &err);
        if (!o)
            return err;
        if (o == &help_opt) {
            if (eq)
                return bad(h, "--help takes no value");
            wt_opts_usage(h, opts);
            return 1;
        }
        o->seen = true;
        if (o->type == WT_OPT_FLAG) {
            if (eq)
                return bad(h, "%s takes no value", o->name);
            *(bool *)o->target = true;
            continue;
        }
        if (o->type == WT_OPT_LIST) {
            int got = 0;
            if (eq) {
                if (set_value(h, o, eq + 1))
                    return 2;
                got++;
            }
            while (i + 1 < argc && !looks_like_option(argv[i + 1])) {
                if (set_value(h, o, argv[++i]))
                    return 2;
                got++;
            }
            if (!got)
                return bad(h, "%s needs at least one %s", o->name, o->metavar);
            continue;
        }
        const char *val;
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc && !looks_like_option(argv[i + 1]))
            val = argv[++i];
        else if (i + 1 < argc) { /* as argparse: the next option is not this one's value */
            char next[80];
            shown(next, sizeof(next), argv[i + 1]);
            return bad(h,
                       "%s needs a value (%s), not the option '%s' (write %s=VALUE for a value "
                       "that starts with '-')",
                       o->name, o->metavar, next, o->name);
        } else
            return bad(h, "%s needs a value (%s)", o->name, o->metavar);
        if (set_value(h, o, val))
            return 2;
    }
    return 0;
}

void wt_opts_usage(const struct wt_cmd_help *h, const struct wt_opt *opts)
{
    printf("usage: %s [options]%s%s\n\n%s\n\noptions:\n", h->prog, h->args ? " " : "",
           h->args ? h->args : "", h->summary);
    for (int i = 0; opts[i].name; i++) {
        char left[64];
        if (opts[i].type == WT_OPT_FLAG)
            snprintf(left, sizeof(left), "%s", opts[i].name);
        else if (opts[i].type == WT_OPT_LIST)
            snprintf(left, sizeof(left), "%s %s...", opts[i].name, opts[i].metavar);
        else
            snprintf(left, sizeof(left), "%s %s", opts[i].name, opts[i].metavar);
        printf("  %-26s %s\n", left, opts[i].help);
    }
    printf("  %-26s %s\n", "--help", "show this help and exit");
    if (h->details)
        printf("\n%s\n", h->details);
}

int wt_opts_gpu_list(const char *list, int ngpus, unsigned char *sel)
{
    if (!strcmp(list, "all")) {
        memset(sel, 1, (size_t)ngpus);
        return 0;
    }
    memset(sel, 0, (size_t)ngpus);
    const char *p = list;
    if (!*p)
        return -1;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9') /* strtol would take " 1", "+1" and "-0" */
            return -1;
        long g = strtol(p, &end, 10);
        if (end == p || g < 0 || g >= ngpus || (*end && *end != ',') || (*end && !end[1]))
            return -1;
        sel[g] = 1;
        p = *end ? end + 1 : end;
    }
    return 0;
}

bool wt_opts_python_default_profile(const struct wt_opt *profile, const char *backend)
{
    const char *v = *(const char *const *)profile->target;
    return (!strcmp(backend, "nvml") || !strcmp(backend, "auto")) && v && !strcmp(v, "training");
}

int wt_opts_profile_fits(const struct wt_cmd_help *h, const struct wt_opt *opts,
                         const char *backend)
{
    /* auto reads the GPUs (or fails without a driver): a profile there would
     * be silently ignored, as with nvml.  Except the Python tool's default,
     * `--profile training`, spelled out: its command lines name it beside
     * `--backend nvml`, and it asks for nothing the GPUs do not give. */
    const struct wt_opt *seed = wt_opts_get(opts, "--seed");
    const struct wt_opt *prof = wt_opts_get(opts, "--profile");
    const char *what = prof->seen && !wt_opts_python_default_profile(prof, backend) ? "--profile"
                       : seed && seed->seen                                         ? "--seed"
                                                                                    : NULL;
    if (what && strcmp(backend, "synthetic"))
        return bad(h, "%s goes with --backend synthetic, not %s", what,
                   !strcmp(backend, "replay") ? "--trace"
                   : !strcmp(backend, "nvml") ? "--backend nvml"
                                              : "the default backend auto (the GPUs)");
    return 0;
}

int wt_opts_no_stdin(const struct wt_cmd_help *h, const struct wt_strlist *paths, const char *what)
{
    for (int i = 0; i < paths->n; i++)
        if (!strcmp(paths->v[i], "-"))
            return bad(h, "%s reads its traces several times: give files, not standard input ('-')",
                       what);
    return 0;
}

const char *const *wt_opts_profile_names(void)
{
    static const char *names[64];
    const struct wt_synth_profile *const *all = wt_synth_profiles();
    int i = 0;
    for (; all[i] && i < 63; i++)
        names[i] = all[i]->name;
    size_t n;
    const struct wt_sim_profile_info *sim = wt_sim_profiles(&n);
    for (size_t j = 0; j < n && i < 63; j++)
        names[i++] = sim[j].name;
    names[i] = NULL;
    return names;
}
