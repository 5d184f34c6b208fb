/* Table-driven command-line parsing for the CLI commands.
 *
 * Accepts `--name value`, `--name=value` and unique prefixes of long names
 * (as Python's argparse does), checks types and ranges, and prints a one-line
 * error ("workloadtruth classify: --samples: not a whole number: 'x'") for
 * anything wrong.  `--help` prints the usage generated from the same table.
 * Only the CLI uses it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_OPTS_H
#define WT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wt_opt_type {
    WT_OPT_FLAG,   /* bool */
    WT_OPT_STRING, /* const char * */
    WT_OPT_CHOICE, /* const char *, one of choices */
    WT_OPT_UINT,   /* unsigned long long within [min, max] */
    WT_OPT_DOUBLE, /* double within [min, max] */
    WT_OPT_LIST,   /* values up to the next --option, appended to a wt_strlist */
};

struct wt_strlist {
    const char **v;
    int n, cap;
};

struct wt_opt {
    const char *name; /* "--samples" */
    enum wt_opt_type type;
    void *target;
    const char *metavar;
    const char *help;
    double min, max;            /* numeric range (inclusive) */
    const char *const *choices; /* NULL-terminated, for WT_OPT_CHOICE */
    bool seen;                  /* set by the parser */
};

struct wt_cmd_help {
    const char *prog;    /* "workloadtruth classify" */
    const char *summary; /* one line */
    const char *details; /* after the options, may be NULL */
    const char *args;    /* positional arguments for the usage line ("INDEX"), may be NULL */
};

/* Returns 0 (parsed), 1 (--help printed: exit 0) or 2 (error printed: exit 2).
 * Arguments that are not options go to positional (may be NULL: then they
 * are an error). */
int wt_opts_parse(const struct wt_cmd_help *h, struct wt_opt *opts, int argc, char **argv,
                  struct wt_strlist *positional);
void wt_opts_usage(const struct wt_cmd_help *h, const struct wt_opt *opts);
const struct wt_opt *wt_opts_get(const struct wt_opt *opts, const char *name);
void wt_strlist_free(struct wt_strlist *l);
/* The items as "'a', 'b'" in buf (cut at cap, shown cleaned); returns buf. */
const char *wt_strlist_join(const struct wt_strlist *l, char *buf, size_t cap);

/* "all" or GPU indices such as "0,2,3" -> sel[0..ngpus) flags; 0, or -1 for
 * anything else (an index out of range, an empty item). */
int wt_opts_gpu_list(const char *list, int ngpus, unsigned char *sel);

/* For commands that read their traces several times (train, eval
 * --holdout): a usage error on standard input ('-') among paths, said as
 * "PROG: WHAT reads its traces several times: ..."; 2, else 0. */
/* s as an error message may echo it: at most cap - 5 bytes, control
 * characters and non-ASCII bytes shown as '?' (a newline in an argument
 * would forge a second line).  Returns dst.  WT_SHOWN(s): the first 60. */
const char *wt_opts_shown(char *dst, size_t cap, const char *s);
#define WT_SHOWN(s) wt_opts_shown((char[65]){0}, 65, (s))
/* s (a path) whole up to cap - 1 bytes, with control characters and invalid
 * UTF-8 as '?' (valid UTF-8 kept).  Returns dst.  WT_CLEAN(s): up to 4 KiB. */
const char *wt_opts_clean(char *dst, size_t cap, const char *s);
#define WT_CLEAN(s) wt_opts_clean((char[4097]){0}, 4097, (s))

int wt_opts_no_stdin(const struct wt_cmd_help *h, const struct wt_strlist *paths, const char *what);
/* A usage error (printed; returns 2) when --profile was given with a source
 * that has none (a trace, or --backend nvml or auto); else 0.  The Python
 * tool's default spelled out, `--profile training` with nvml or auto, is
 * accepted (and has no effect): see wt_opts_python_default_profile. */
int wt_opts_profile_fits(const struct wt_cmd_help *h, const struct wt_opt *opts,
                         const char *backend);
/* True when the option --profile (profile, seen or not) holds "training" and
 * backend is "nvml" or "auto": the Python tool's default, which its command
 * lines may spell out beside its default backend nvml. */
bool wt_opts_python_default_profile(const struct wt_opt *profile, const char *backend);

/* The synthetic and simulator profile names, NULL-terminated: the choices
 * of every command's --profile. */
const char *const *wt_opts_profile_names(void);

#endif
