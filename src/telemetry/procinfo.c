/* Process owner attribution from /proc (see procinfo.h).
 *
 * Container ids: a cgroup path component that is 64 hex digits, alone
 * (cgroupfs) or after a "docker-", "cri-containerd-", "crio-" or "libpod-"
 * prefix, and followed by nothing or ".scope" (cgroup v1 and v2, cgroupfs and
 * systemd drivers).  Pod UIDs: "pod<uid>" ending a component or before
 * ".slice", the UID 36 characters (8-4-4-4-12 hex; the systemd driver's
 * underscores turned back into dashes) or 32 hex digits (a static pod).
 * Slurm: a "job_<id>" component under "slurmstepd.scope" (v2) or "uid_<n>"
 * (v1), else SLURM_JOB_ID (or SLURM_JOBID), when it is a number, in the
 * environment, which is read whole up to 4 MiB (a cut last entry is
 * dropped).  In the cgroup, each is the first match, nearest the root (see
 * parse_cgroup_path).
 *
 * SPDX-License-Identifier: MIT
 */
#include "telemetry/procinfo.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "telemetry/sample.h"

#define MAX_FILE 65536                /* cgroup, comm, status */
#define MAX_ENVIRON (4 * 1024 * 1024) /* above Linux's 2 MiB default for argv + environ */
#define MAX_PASSWD (16 * 1024 * 1024)

const char *wt_proc_root(void)
{
    const char *r = getenv("WT_PROC_ROOT");
    return r && *r ? r : "/";
}

int wt_proc_in_host_pidns(void)
{
    /* the initial PID namespace has a fixed inode (PROC_PID_INIT_INO in the
     * kernel's proc_ns.h); NSpid in /proc/self/status cannot tell, since a
     * container mounts its own /proc */
    char link[64];
    ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
    if (n <= 0)
        return 1; /* no such link: cannot tell, take the PIDs as they are */
    link[n] = '\0';
    return strcmp(link, "pid:[4026531836]") == 0;
}

/* Reads at most max bytes of root/path into a malloc'd NUL-terminated
 * buffer; NULL when unreadable.  *cut says whether the file went on. */
static char *slurp_max(const char *root, const char *path, size_t max, size_t *len, int *cut)
{
    char full[512];
    snprintf(full, sizeof(full), "%s%s%s", root, root[strlen(root) - 1] == '/' ? "" : "/",
             path[0] == '/' ? path + 1 : path);
    /* O_NONBLOCK and regular files only: a FIFO under $WT_PROC_ROOT (a
     * mounted host root, a test tree) hung the writer in open() or read() */
    int fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return NULL;
    }
    size_t cap = 65536 < max ? 65536 : max, n = 0;
    char *buf = malloc(cap + 1);
    int more = 0;
    while (buf) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n == cap) {
            if (cap == max) {
                char probe;
                more = read(fd, &probe, 1) == 1;
                break;
            }
            size_t ncap = cap * 2 < max ? cap * 2 : max;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap = ncap;
        }
    }
    if (buf)
        buf[n] = '\0';
    close(fd);
    if (len)
        *len = n;
    if (cut)
        *cut = more;
    return buf;
}

static char *slurp(const char *root, const char *path, size_t *len)
{
    return slurp_max(root, path, MAX_FILE, len, NULL);
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

/* Parses one cgroup path (len bytes, not NUL-terminated) for a container id,
 * a pod UID and a Slurm job.  The first match, the one nearest the root,
 * wins, here and over the file's lines: the components below a container's
 * or a job's own cgroup may be the workload's to name (cgroup v2
 * delegation: systemd's user@.service, a privileged or rootless container),
 * and a "job_999" or "pod<uid>" it makes under its own must not rename it.
 * A Slurm job is "job_<digits>", a whole component, under Slurm's own
 * "slurmstepd.scope" (cgroup v2) or "uid_<n>" (cgroup v1).  The path is
 * never cut: a cut "job_1234567" was job 12345.  A container inside the
 * pod found is the first one below the pod's component: a Kubernetes node
 * that is itself a container (kind, k3d, minikube's docker driver) comes
 * above the pod and is not the pod's container.  A bare 64-hex component
 * right under "libpod_parent" is a Podman pod (cgroupfs manager), not a
 * container. */
static void parse_cgroup_path(const char *path, size_t plen, struct wt_proc *p)
{
    const char *s = path, *stop = path + plen, *prev = NULL;
    size_t prev_len = 0;
    int had_cid = p->container_id[0] != '\0', had_pod = p->pod_uid[0] != '\0';
    int pod_here = 0; /* this path's pod component has been passed */
    /* below a user's systemd tree (user.slice, user@UID.service: any user
     * may make cgroups there, with mkdir or systemd-run --user) no pod or
     * Slurm job is read, nor a Slurm job below a container: a process in no
     * job made ".../user@1000.service/app.slice/slurmstepd.scope/job_4242"
     * and was read as job 4242's (its GPU that job's peer, its records and
     * metrics that job's) */
    int user_tree = 0, in_container = 0;
    const char *prev2 = NULL; /* the component before prev */
    size_t prev2_len = 0;
    char cid_first[65] = "", cid_pod[65] = "";
    while (s < stop) {
        const char *end = memchr(s, '/', (size_t)(stop - s));
        size_t len = end ? (size_t)(end - s) : (size_t)(stop - s);
        char comp[256];
        if (len < sizeof(comp)) { /* NAME_MAX is 255: longer is not a cgroup name */
            memcpy(comp, s, len);
            comp[len] = '\0';
            if (memchr(comp, '\0', len))
                len = strlen(comp);
            /* container id */
            static const char *const prefixes[] = {"docker-", "cri-containerd-", "crio-", "libpod-",
                                                   ""};
            int podman_pod = prev && prev_len == 13 && !memcmp(prev, "libpod_parent", 13);
            if ((len == 10 && !memcmp(comp, "user.slice", 10)) ||
                (len > 11 && !strncmp(comp, "user-", 5) && !strcmp(comp + len - 6, ".slice")) ||
                (len > 13 && !strncmp(comp, "user@", 5) && !strcmp(comp + len - 8, ".service")))
                user_tree = 1;
            for (int i = 0; i < 5; i++) {
                size_t pl = strlen(prefixes[i]);
                const char *rest = comp + pl + 64; /* nothing or ".scope" */
                if (!strncmp(comp, prefixes[i], pl) && len >= pl + 64 && is_hex64(comp + pl) &&
                    (!*rest || !strcmp(rest, ".scope")) && !(pl == 0 && podman_pod)) {
                    in_container = 1;
                    char *into = pod_here ? cid_pod : cid_first;
                    if (!had_cid && !cid_pod[0] && !into[0])
                        copy_field(into, 65, comp + pl, 64);
                    break;
                }
            }
            /* pod UID: "pod<uuid>" (cgroupfs) or "...-pod<uuid_with_underscores>.slice";
             * a static pod's UID is 32 hex digits (an md5); either ends the
             * component or comes before ".slice" */
            for (const char *pod = p->pod_uid[0] || user_tree ? NULL : strstr(comp, "pod"); pod;
                 pod = strstr(pod + 3, "pod")) {
                const char *u = pod + 3;
                size_t ul = strcspn(u, ".");
                if (u[ul] && strcmp(u + ul, ".slice"))
                    continue;
                char uid[37];
                int ok = ul == 36 || ul == 32;
                for (size_t i = 0; ok && i < ul; i++) {
                    char c = u[i] == '_' ? '-' : u[i];
                    int dash = ul == 36 && (i == 8 || i == 13 || i == 18 || i == 23);
                    ok = dash ? c == '-' : isxdigit((unsigned char)c) != 0;
                    uid[i] = (char)tolower((unsigned char)c);
                }
                if (ok) {
                    uid[ul] = '\0';
                    memcpy(p->pod_uid, uid, ul + 1);
                    pod_here = !had_pod;
                    break;
                }
            }
            /* Slurm: "system.slice/[NODE_]slurmstepd.scope/job_<id>/..." (v2)
             * or "slurm[_NODE]/uid_<n>/job_<id>/..." (v1), outside a user's
             * tree and a container's */
            size_t d = len > 4 ? strspn(comp + 4, "0123456789") : 0;
            int v2 = prev && prev2 && prev2_len == 12 && !memcmp(prev2, "system.slice", 12) &&
                     ((prev_len == 16 && !memcmp(prev, "slurmstepd.scope", 16)) ||
                      (prev_len > 17 && !memcmp(prev + prev_len - 17, "_slurmstepd.scope", 17)));
            int v1 = prev && prev2 && prev_len > 4 && !memcmp(prev, "uid_", 4) &&
                     strspn(prev + 4, "0123456789") >= prev_len - 4 &&
                     ((prev2_len == 5 && !memcmp(prev2, "slurm", 5)) ||
                      (prev2_len > 6 && !memcmp(prev2, "slurm_", 6)));
            if (!p->slurm_job_id[0] && !user_tree && !in_container && !strncmp(comp, "job_", 4) &&
                d && 4 + d == len && d < sizeof(p->slurm_job_id) && (v1 || v2))
                copy_field(p->slurm_job_id, sizeof(p->slurm_job_id), comp + 4, d);
        }
        prev2 = prev;
        prev2_len = prev_len;
        prev = s;
        prev_len = len;
        if (!end)
            break;
        s = end + 1;
    }
    if (!had_cid && (cid_pod[0] || cid_first[0]))
        copy_field(p->container_id, sizeof(p->container_id), cid_pod[0] ? cid_pod : cid_first, 64);
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
        if (c2)
            parse_cgroup_path(c2 + 1, len - (size_t)(c2 + 1 - line), p);
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

/* The real uid on the `Uid:` line of /proc/PID/status (the line's first of
 * four numbers), 0 when there is no such line or it holds no uid (a line
 * cut short, not a number, or (uid_t)-1 or more): a malformed line read as
 * 0 would name root the owner. */
static int status_uid(const char *text, unsigned *uid)
{
    for (const char *line = text; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, "Uid:", 4))
            continue;
        const char *v = line + 4;
        while (*v == ' ' || *v == '\t')
            v++;
        if (!isdigit((unsigned char)*v))
            return 0;
        char *end;
        errno = 0;
        unsigned long long u = strtoull(v, &end, 10);
        if (errno || u >= 0xFFFFFFFFull || (*end && !isspace((unsigned char)*end)))
            return 0;
        *uid = (unsigned)u;
        return 1;
    }
    return 0;
}

static void user_name(const char *root, unsigned uid, char *out, size_t cap)
{
    snprintf(out, cap, "%u", uid);
    char *pw = slurp_max(root, "etc/passwd", MAX_PASSWD, NULL, NULL);
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
    p->declared[0] = p->slurm_partition[0] = p->k8s_namespace[0] = p->pod_name[0] = '\0';

    snprintf(path, sizeof(path), "proc/%u/comm", p->pid);
    if ((t = slurp(root, path, &len)) != NULL) {
        while (len && (t[len - 1] == '\n'))
            len--;
        copy_field(p->comm, sizeof(p->comm), t, len);
        free(t);
    }
    snprintf(path, sizeof(path), "proc/%u/status", p->pid);
    if ((t = slurp(root, path, &len)) != NULL) {
        unsigned uid;
        if (status_uid(t, &uid))
            user_name(root, uid, p->user, sizeof(p->user));
        free(t);
    }
    snprintf(path, sizeof(path), "proc/%u/cgroup", p->pid);
    if ((t = slurp(root, path, &len)) != NULL) {
        parse_cgroup(t, p);
        free(t);
    }
    p->slurm_job_from_cgroup = p->slurm_job_id[0] != '\0';
    snprintf(path, sizeof(path), "proc/%u/environ", p->pid);
    int cut = 0;
    if ((t = slurp_max(root, path, MAX_ENVIRON, &len, &cut)) != NULL) {
        /* cut short: the last entry may be cut too (SLURM_JOB_ID=12 of
         * 1234567); only whole entries count */
        while (cut && len > 0 && t[len - 1] != '\0')
            len--;
        const char *v;
        /* a job id is digits: an empty SLURM_JOB_ID must not hide SLURM_JOBID,
         * and "12 (job 34)" or an id too long to keep whole is none */
        static const char *const job_vars[] = {"SLURM_JOB_ID", "SLURM_JOBID"};
        for (int i = 0; i < 2 && !p->slurm_job_id[0]; i++) {
            size_t d;
            if ((v = env_get(t, len, job_vars[i])) != NULL && (d = strspn(v, "0123456789")) > 0 &&
                !v[d] && d < sizeof(p->slurm_job_id))
                copy_field(p->slurm_job_id, sizeof(p->slurm_job_id), v, d);
        }
        if (!p->user[0] && (v = env_get(t, len, "USER")) != NULL)
            copy_field(p->user, sizeof(p->user), v, strnlen(v, 39));
        /* the first that is a workload type (training, inference or idle, in
         * any letter case, white space around it ignored: a value from a file
         * keeps its "\n" or "\r\n", and unread it let --declared stand in for
         * the job's own declaration): a downward-API variable
         * whose annotation is missing is empty, and a misspelt one must not
         * hide the next either */
        static const char *const declared_vars[] = {"WORKLOADTRUTH_DECLARED", "SPANK_WORKLOAD_TYPE",
                                                    "SLURM_SPANK_WORKLOAD_TYPE", "WORKLOAD_TYPE",
                                                    NULL};
        for (int i = 0; declared_vars[i] && !p->declared[0]; i++) {
            if ((v = env_get(t, len, declared_vars[i])) == NULL)
                continue;
            v += strspn(v, " \t\n\r\v\f");
            /* the whole value, trimmed: a long one cut to the field's size
             * ("training        -- not ...") must not pass for a type */
            size_t vl = strlen(v);
            while (vl && isspace((unsigned char)v[vl - 1]))
                vl--;
            char type[sizeof(p->declared)];
            if (vl < sizeof(type)) {
                memcpy(type, v, vl);
                type[vl] = '\0';
                if (wt_class_parse(type, false) != WT_CLASS_NONE)
                    memcpy(p->declared, type, vl + 1);
                /* the Slurm plugin's word for a job that declared nothing:
                 * the job's own SLURM_SPANK_WORKLOAD_TYPE (which the plugin
                 * ignores) must not stand in for a declaration */
                else if (i == 0 && !strcasecmp(type, "none"))
                    break;
            }
        }
        /* a partition name longer than the field is no partition: cut, it
         * could match another partition's policy rule */
        if ((v = env_get(t, len, "SLURM_JOB_PARTITION")) != NULL &&
            strlen(v) < sizeof(p->slurm_partition))
            copy_field(p->slurm_partition, sizeof(p->slurm_partition), v, strlen(v));
        /* nor a namespace (a Kubernetes name holds 63 bytes) */
        if ((v = env_get(t, len, "POD_NAMESPACE")) != NULL && strlen(v) < sizeof(p->k8s_namespace))
            copy_field(p->k8s_namespace, sizeof(p->k8s_namespace), v, strlen(v));
        if ((v = env_get(t, len, "POD_NAME")) != NULL)
            copy_field(p->pod_name, sizeof(p->pod_name), v, strnlen(v, sizeof(p->pod_name) - 1));
        free(t);
    }
}
