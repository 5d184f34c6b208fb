/* Declared types from process environments, a policy file and the command
 * line (see declared.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "classify/declared.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

#define POLICY_MAX_BYTES (1u << 20)
#define POLICY_MAX_LINE 510

const char *wt_declared_source_name(enum wt_declared_source s)
{
    switch (s) {
    case WT_DECL_PROCESS:
        return "process";
    case WT_DECL_POLICY:
        return "policy";
    case WT_DECL_DEFAULT:
        return "policy-default";
    case WT_DECL_CLI:
        return "command-line";
    case WT_DECL_CONFLICT:
        return "conflict";
    case WT_DECL_UNLISTED:
        return "unlisted";
    case WT_DECL_NONE:
        break;
    }
    return "none";
}

/* A lower-case ASCII letter or a digit (a DNS label's letters). */
static int islower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* One line of a policy (NUL-terminated, comment not yet cut). */
static int policy_line(struct wt_policy *p, char *line, const char *path, unsigned lineno,
                       unsigned *default_line, struct wt_err *err)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *save = NULL, *w[4] = {NULL, NULL, NULL, NULL};
    int nw = 0;
    for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save))
        if (nw < 4)
            w[nw++] = t;
        else
            nw = 5;
    if (nw == 0)
        return WT_OK;
    int is_default = !strcmp(w[0], "default");
    if (is_default ? nw != 2 : nw != 3)
        return wt_errf(err, WT_EINVAL,
                       "%s:%u: expected 'partition NAME TYPE', 'namespace NAME TYPE' or "
                       "'default TYPE'",
                       path, lineno);
    const char *type = w[nw - 1];
    enum wt_class c = wt_class_parse(type, false);
    if (c == WT_CLASS_NONE)
        return wt_errf(err, WT_EINVAL, "%s:%u: '%.40s' is not a type (training, inference or idle)",
                       path, lineno, type);
    if (is_default) {
        /* two would leave one silently unused (the last won) */
        if (*default_line)
            return wt_errf(err, WT_EINVAL, "%s:%u: a second 'default' line (the first is line %u)",
                           path, lineno, *default_line);
        *default_line = lineno;
        p->fallback = c;
        return WT_OK;
    }
    if (strcmp(w[0], "partition") && strcmp(w[0], "namespace"))
        return wt_errf(err, WT_EINVAL,
                       "%s:%u: unknown rule '%.40s' (partition, namespace, default)", path, lineno,
                       w[0]);
    if (strlen(w[1]) >= sizeof(p->rules[0].value))
        return wt_errf(err, WT_EINVAL, "%s:%u: name longer than %zu bytes", path, lineno,
                       sizeof(p->rules[0].value) - 1);
    int ns = !strcmp(w[0], "namespace");
    /* a name that can never match is an error, not a rule that silently
     * does nothing: matching is exact, a namespace is a lower-case DNS label
     * (RFC 1123), and Slurm's partition names hold no ',' (its list
     * separator) */
    if (ns) {
        size_t n = strlen(w[1]);
        int ok = n <= 63 && islower_alnum(w[1][0]) && islower_alnum(w[1][n - 1]);
        for (size_t i = 0; ok && i < n; i++)
            ok = islower_alnum(w[1][i]) || w[1][i] == '-';
        if (!ok)
            return wt_errf(err, WT_EINVAL,
                           "%s:%u: namespace '%.63s' can never match: a namespace is lower-case "
                           "letters, digits and '-' (at most 63), matched exactly",
                           path, lineno, w[1]);
    } else if (strpbrk(w[1], ",*?[")) {
        return wt_errf(err, WT_EINVAL,
                       "%s:%u: partition '%.63s': one name per rule, matched exactly (no lists or "
                       "patterns)",
                       path, lineno, w[1]);
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->rules[i].namespace_rule == ns && !strcmp(p->rules[i].value, w[1]))
            /* the first match wins: a second rule for it would never apply */
            return wt_errf(err, WT_EINVAL, "%s:%u: %s '%.63s' already has a rule (line %u)", path,
                           lineno, w[0], w[1], p->rules[i].line);
    if (p->n >= WT_POLICY_MAX_RULES)
        return wt_errf(err, WT_EINVAL, "%s:%u: more than %d rules", path, lineno,
                       WT_POLICY_MAX_RULES);
    struct wt_policy_rule *r = &p->rules[p->n++];
    r->namespace_rule = ns;
    snprintf(r->value, sizeof(r->value), "%s", w[1]);
    r->cls = c;
    r->line = lineno;
    return WT_OK;
}

int wt_policy_load(struct wt_policy *p, const char *path, struct wt_err *err)
{
    memset(p, 0, sizeof(*p));
    p->fallback = WT_CLASS_NONE;
    const char *why = NULL;
    FILE *f = wt_fopen_regular(path, &why);
    if (!f)
        return wt_errf(err, WT_EIO, "%s: %s", path, why);
    char *buf = malloc(POLICY_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    size_t len = fread(buf, 1, POLICY_MAX_BYTES + 1, f);
    int rc = WT_OK;
    if (ferror(f)) {
        rc = wt_errf(err, WT_EIO, "%s: read error", path);
        goto out;
    }
    if (len > POLICY_MAX_BYTES) {
        rc = wt_errf(err, WT_EINVAL, "%s: larger than %u bytes", path, POLICY_MAX_BYTES);
        goto out;
    }
    unsigned lineno = 0, default_line = 0;
    /* a UTF-8 byte order mark (an editor's): its bytes are invisible in the
     * error they gave ("unknown rule 'partition'") */
    size_t start = len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0;
    for (size_t at = start; at < len && rc == WT_OK;) {
        lineno++;
        char *nl = memchr(buf + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
        if (memchr(buf + at, '\0', n)) {
            rc = wt_errf(err, WT_EINVAL, "%s:%u: contains a NUL byte (binary data?)", path, lineno);
            break;
        }
        if (n > POLICY_MAX_LINE) {
            rc = wt_errf(err, WT_EINVAL, "%s:%u: line longer than %d bytes", path, lineno,
                         POLICY_MAX_LINE);
            break;
        }
        buf[at + n] = '\0';
        rc = policy_line(p, buf + at, path, lineno, &default_line, err);
        at += n + 1;
    }
out:
    free(buf);
    fclose(f);
    return rc;
}

static enum wt_class policy_match(const struct wt_policy *p, const struct wt_proc *q)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct wt_policy_rule *r = &p->rules[i];
        const char *have = r->namespace_rule ? q->k8s_namespace : q->slurm_partition;
        if (have[0] && !strcmp(have, r->value))
            return r->cls;
    }
    return WT_CLASS_NONE;
}

enum wt_class wt_declared_for(const struct wt_policy *policy, enum wt_class cli,
                              const struct wt_proc *procs, size_t n,
                              enum wt_declared_source *source)
{
    /* each process on its own: its environment's claim, else the policy rule
     * its partition or namespace matches; then the processes must agree.  (The
     * claims were taken over every process first: one helper of another job
     * that declared a type silenced the rule for the GPU's main owner, and
     * the record named that owner with the helper's declaration.) */
    enum wt_class c = WT_CLASS_NONE;
    int conflict = 0, from_env = 0;
    for (size_t i = 0; i < n; i++) {
        enum wt_class d = wt_class_parse(procs[i].declared, false);
        int env = d != WT_CLASS_NONE;
        if (!env && policy)
            d = policy_match(policy, &procs[i]);
        if (d == WT_CLASS_NONE)
            continue;
        if (c != WT_CLASS_NONE && c != d)
            conflict = 1;
        c = d;
        from_env |= env;
    }
    if (conflict) {
        *source = WT_DECL_CONFLICT;
        return WT_CLASS_NONE;
    }
    if (c != WT_CLASS_NONE) {
        *source = from_env ? WT_DECL_PROCESS : WT_DECL_POLICY;
        return c;
    }
    if (cli != WT_CLASS_NONE) {
        *source = WT_DECL_CLI;
        return cli;
    }
    if (policy && policy->fallback != WT_CLASS_NONE) {
        *source = WT_DECL_DEFAULT;
        return policy->fallback;
    }
    *source = WT_DECL_NONE;
    return WT_CLASS_NONE;
}
