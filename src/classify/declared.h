/* The type a GPU's owner declared, from the sources operators already have,
 * in this order of precedence:
 *   1. the environment of the processes on the GPU: the first non-empty of
 *      WORKLOADTRUTH_DECLARED (set by the Slurm plugin), SPANK_WORKLOAD_TYPE,
 *      SLURM_SPANK_WORKLOAD_TYPE, WORKLOAD_TYPE (e.g. set by a pod spec from
 *      an annotation through the downward API);
 *   2. a policy file mapping Slurm partitions and Kubernetes namespaces (the
 *      processes' SLURM_JOB_PARTITION / POD_NAMESPACE) to types, first match
 *      wins;
 *   3. the command line's --declared;
 *   4. the policy file's `default` line.
 * Processes on one GPU that declare different types give no declaration (a
 * conflict, reported as such).  This module decides nothing about what the
 * GPU runs; verdict.h compares the two.
 *
 * Policy file: one rule per line, `#` starts a comment:
 *   partition gpu-inference inference
 *   namespace serving inference
 *   default training
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_DECLARED_H
#define WT_DECLARED_H

#include <stddef.h>

#include "classify/classifier.h"
#include "telemetry/procinfo.h"
#include "util/err.h"

#define WT_POLICY_MAX_RULES 1024

struct wt_policy_rule {
    int namespace_rule; /* 0: partition, 1: namespace */
    char value[64];
    enum wt_class cls;
    unsigned line; /* where the policy file gave it */
};

struct wt_policy {
    struct wt_policy_rule rules[WT_POLICY_MAX_RULES];
    size_t n;
    enum wt_class fallback; /* the `default` line, or WT_CLASS_NONE */
};

/* Reads a policy file (at most 1 MiB); errors name the file and line. */
int wt_policy_load(struct wt_policy *p, const char *path, struct wt_err *err) WT_WARN_UNUSED;

/* Where a declaration came from. */
enum wt_declared_source {
    WT_DECL_NONE,
    WT_DECL_PROCESS,  /* a process's environment */
    WT_DECL_POLICY,   /* a policy rule */
    WT_DECL_DEFAULT,  /* the policy's default line */
    WT_DECL_CLI,      /* --declared */
    WT_DECL_CONFLICT, /* processes disagree: none */
    WT_DECL_UNLISTED, /* watch: the processes could not be listed: not known, none */
};
const char *wt_declared_source_name(enum wt_declared_source s);

/* The declared type for a GPU with these processes (may be none). */
enum wt_class wt_declared_for(const struct wt_policy *policy, enum wt_class cli,
                              const struct wt_proc *procs, size_t n,
                              enum wt_declared_source *source);

#endif
