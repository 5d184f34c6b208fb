/* libFuzzer target for the process-owner reader (telemetry/procinfo.c): the
 * files of a GPU process are in the hands of the job's owner (its
 * environment above all; the cgroup path in part), and the agent reading
 * them runs as root.  The input is split at "\n--\n" into a process's
 * cgroup, environ, status and comm files and /etc/passwd, written into a
 * fake root; then every owner field must be a NUL-terminated, printable
 * string within its array, and a declared type must be one.  Any crash,
 * leak or sanitizer report is a bug.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_procinfo -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "telemetry/procinfo.h"
#include "telemetry/sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];
static const char *const files[] = {"proc/7/cgroup", "proc/7/environ", "proc/7/status",
                                    "proc/7/comm", "etc/passwd"};
#define NFILES (sizeof(files) / sizeof(files[0]))

static void remove_tree(void)
{
    char p[128];
    for (size_t i = 0; i < NFILES; i++) {
        snprintf(p, sizeof(p), "%s/%s", root, files[i]);
        unlink(p);
    }
    snprintf(p, sizeof(p), "%s/proc/7", root);
    rmdir(p);
    snprintf(p, sizeof(p), "%s/proc", root);
    rmdir(p);
    snprintf(p, sizeof(p), "%s/etc", root);
    rmdir(p);
    rmdir(root);
}

static void check(const char *field, size_t cap)
{
    size_t n = strnlen(field, cap);
    if (n == cap)
        abort(); /* not terminated */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)field[i] < 0x20 || (unsigned char)field[i] > 0x7e)
            abort(); /* not printable: it goes into labels, logs and HTML */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char p[128];
    if (!root[0]) {
        snprintf(root, sizeof(root), "/tmp/wt_fuzz_proc_%ld", (long)getpid());
        mkdir(root, 0700);
        snprintf(p, sizeof(p), "%s/proc", root);
        mkdir(p, 0700);
        snprintf(p, sizeof(p), "%s/proc/7", root);
        mkdir(p, 0700);
        snprintf(p, sizeof(p), "%s/etc", root);
        mkdir(p, 0700);
        atexit(remove_tree);
    }
    const uint8_t *at = data, *end = data + size;
    for (size_t i = 0; i < NFILES; i++) {
        const uint8_t *cut = NULL;
        for (const uint8_t *q = at; q + 4 <= end; q++)
            if (!memcmp(q, "\n--\n", 4)) {
                cut = q;
                break;
            }
        const uint8_t *stop = cut ? cut : end;
        snprintf(p, sizeof(p), "%s/%s", root, files[i]);
        FILE *f = fopen(p, "wb");
        if (!f)
            return 0;
        if (stop > at && fwrite(at, 1, (size_t)(stop - at), f) != (size_t)(stop - at)) {
            fclose(f);
            return 0;
        }
        fclose(f);
        at = cut ? cut + 4 : end;
    }
    struct wt_proc proc;
    memset(&proc, 'x', sizeof(proc)); /* stale contents must not survive */
    proc.pid = 7;
    proc.used_mib = NAN;
    proc.sm_util_pct = NAN;
    wt_proc_owner(root, &proc);
    check(proc.comm, sizeof(proc.comm));
    check(proc.user, sizeof(proc.user));
    check(proc.container_id, sizeof(proc.container_id));
    check(proc.pod_uid, sizeof(proc.pod_uid));
    check(proc.slurm_job_id, sizeof(proc.slurm_job_id));
    check(proc.declared, sizeof(proc.declared));
    check(proc.slurm_partition, sizeof(proc.slurm_partition));
    check(proc.k8s_namespace, sizeof(proc.k8s_namespace));
    check(proc.pod_name, sizeof(proc.pod_name));
    if (proc.declared[0] && wt_class_parse(proc.declared, false) == WT_CLASS_NONE)
        abort();
    return 0;
}
