/* Process owner attribution from /proc (see procinfo.h).
 *
 * Container ids: the last cgroup path component that holds 64 hex digits,
 * after a "docker-", "cri-containerd-", "crio-" or "libpod-" prefix and
 * before a ".scope" suffix (cgroup v1 and v2, cgroupfs and systemd drivers).
 * Pod UIDs: "pod<uid>" in the path, with the systemd driver's underscores
 * turned back into dashes.  Slurm: "job_<id>" in the path, else SLURM_JOB_ID
 * (or SLURM_JOBID) in the environment.
 *
 * SPDX-License-Identifier: MIT
 */
#include "telemetry/procinfo.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FILE 65536

const char *wt_proc_root(void)
{
    const char *r = getenv("WT_PROC_ROOT");
    return r && *r ? r : "/";
}

/* Reads at most MAX_FILE bytes of root/path into a malloc'd NUL-terminated
 * buffer; NULL when unreadable. */
static char *slurp(const char *root, const char *path, size_t *len)
{
    char full[512];
    snprintf(full, sizeof(full), "%s%s%s", root, root[strlen(root) - 1] == '/' ? "" : "/",
             path[0] == '/' ? path + 1 : path);
    int fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    char *buf = malloc(MAX_FILE + 1);
    size_t n = 0;
    if (buf) {
        for (;;) {
            ssize_t r = read(fd, buf + n, MAX_FILE - n);
            if (r <= 0)
                break;
            n += (size_t)r;
            if (n == MAX_FILE)
                break;
        }
        buf[n] = '\0';
    }
    close(fd);
    if (len)
        *len = n;
    return buf;
}

static void copy_field(char *dst, size_t cap, const char *src, size_t len)
{
    size_t j = 0;
    for (size_t i = 0; i < len && j + 1 < cap; i++)
        dst[j++] = isprint((unsigned char)src[i]) ? src[i] : '?';
    dst[j] = '\0';
}

static int is_hex64(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!isxdigit((unsigned char)s[i]))
            return 0;
    return !isxdigit((unsigned char)s[64]);
}

/* Parses one cgroup path for a container id, a pod UID and a Slurm job. */
static void parse_cgroup_path(const char *path, struct wt_proc *p)
{
    const char *s = path;
    while (*s) {
        const char *end = strchr(s, '/');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char comp[256];
        copy_field(comp, sizeof(comp), s, len);
        /* container id */
        static const char *const prefixes[] = {"docker-", "cri-containerd-", "crio-", "libpod-",
                                               ""};
        for (int i = 0; i < 5; i++) {
            size_t pl = strlen(prefixes[i]);
            if (!strncmp(comp, prefixes[i], pl) && strlen(comp) >= pl + 64 && is_hex64(comp + pl)) {
                copy_field(p->container_id, sizeof(p->container_id), comp + pl, 64);
                break;
            }
        }
        /* pod UID: "pod<uuid>" (cgroupfs) or "...-pod<uuid_with_underscores>.slice" */
        for (const char *pod = strstr(comp, "pod"); pod; pod = strstr(pod + 3, "pod")) {
            if (strlen(pod + 3) < 36)
                break;
            char uid[37];
            int ok = 1;
            for (int i = 0; i < 36; i++) {
                char c = pod[3 + i];
                if (c == '_')
                    c = '-';
                if (!(isxdigit((unsigned char)c) || c == '-'))
                    ok = 0;
                uid[i] = (char)tolower((unsigned char)c);
            }
            uid[36] = '\0';
            if (ok && uid[8] == '-' && uid[13] == '-' && uid[18] == '-' && uid[23] == '-') {
                memcpy(p->pod_uid, uid, 37);
                break;
            }
        }
        /* Slurm: ".../job_<id>/..." */
        if (!strncmp(comp, "job_", 4) && isdigit((unsigned char)comp[4])) {
            size_t d = strspn(comp + 4, "0123456789");
            copy_field(p->slurm_job_id, sizeof(p->slurm_job_id), comp + 4, d);
        }
        if (!end)
            break;
        s = end + 1;
    }
}

static void parse_cgroup(const char *text, struct wt_proc *p)
{
    const char *line = text;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        /* "hierarchy-ID:controllers:path": the path follows the second colon */
        const char *c1 = memchr(line, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            char path[1024];
            copy_field(path, sizeof(path), c2 + 1, len - (size_t)(c2 + 1 - line));
            parse_cgroup_path(path, p);
        }
        if (!nl)
            break;
        line = nl + 1;
    }
}

static const char *env_get(const char *env, size_t len, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i < len;) {
        const char *e = env + i;
        size_t el = strnlen(e, len - i);
        if (el > kl && !strncmp(e, key, kl) && e[kl] == '=')
            return e + kl + 1;
        i += el + 1;
    }
    return NULL;
}

static void user_name(const char *root, unsigned uid, char *out, size_t cap)
{
    snprintf(out, cap, "%u", uid);
    char *pw = slurp(root, "etc/passwd", NULL);
    if (!pw)
        return;
    const char *line = pw;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        /* name:password:uid:... */
        const char *c1 = memchr(line, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c1 && c2) {
            char *endp;
            unsigned long u = strtoul(c2 + 1, &endp, 10);
            if (endp != c2 + 1 && *endp == ':' && u == uid) {
                copy_field(out, cap, line, (size_t)(c1 - line));
                break;
            }
        }
        if (!nl)
            break;
        line = nl + 1;
    }
    free(pw);
}

void wt_proc_owner(const char *root, struct wt_proc *p)
{
    char path[64];
    size_t len;
    char *t;
    if (!root)
        root = "/";
    p->comm[0] = p->user[0] = p->container_id[0] = p->pod_uid[0] = p->slurm_job_id[0] = '\0';

    snprintf(path, sizeof(path), "proc/%u/comm", p->pid);
    if ((t = slurp(root, path, &len)) != NULL) {
        while (len && (t[len - 1] == '\n'))
            len--;
        copy_field(p->comm, sizeof(p->comm), t, len);
        free(t);
    }
    snprintf(path, sizeof(path), "proc/%u/status", p->pid);
    if ((t = slurp(root, path, &len)) != NULL) {
        const char *u = strstr(t, "\nUid:");
        if (u) {
            unsigned long uid = strtoul(u + 5, NULL, 10);
            user_name(root, (unsigned)uid, p->user, sizeof(p->user));
        }
        free(t);
    }
    snprintf(path, sizeof(path), "proc/%u/cgroup", p->pid);
    if ((t = slurp(root, path, &len)) != NULL) {
        parse_cgroup(t, p);
        free(t);
    }
    snprintf(path, sizeof(path), "proc/%u/environ", p->pid);
    if ((t = slurp(root, path, &len)) != NULL) {
        const char *v;
        if (!p->slurm_job_id[0] && ((v = env_get(t, len, "SLURM_JOB_ID")) != NULL ||
                                    (v = env_get(t, len, "SLURM_JOBID")) != NULL))
            copy_field(p->slurm_job_id, sizeof(p->slurm_job_id), v, strnlen(v, 23));
        if (!p->user[0] && (v = env_get(t, len, "USER")) != NULL)
            copy_field(p->user, sizeof(p->user), v, strnlen(v, 39));
        /* the first that is set and not empty: a downward-API variable whose
         * annotation is missing is empty, and must not hide the next */
        static const char *const declared_vars[] = {"WORKLOADTRUTH_DECLARED", "SPANK_WORKLOAD_TYPE",
                                                    "SLURM_SPANK_WORKLOAD_TYPE", "WORKLOAD_TYPE",
                                                    NULL};
        for (int i = 0; declared_vars[i] && !p->declared[0]; i++)
            if ((v = env_get(t, len, declared_vars[i])) != NULL && *v)
                copy_field(p->declared, sizeof(p->declared), v, strnlen(v, 15));
        if ((v = env_get(t, len, "SLURM_JOB_PARTITION")) != NULL)
            copy_field(p->slurm_partition, sizeof(p->slurm_partition), v, strnlen(v, 39));
        if ((v = env_get(t, len, "POD_NAMESPACE")) != NULL)
            copy_field(p->k8s_namespace, sizeof(p->k8s_namespace), v, strnlen(v, 63));
        if ((v = env_get(t, len, "POD_NAME")) != NULL)
            copy_field(p->pod_name, sizeof(p->pod_name), v, strnlen(v, sizeof(p->pod_name) - 1));
        free(t);
    }
}
