/* Who owns a GPU process: the command, the user, and the container,
 * Kubernetes pod and Slurm job it belongs to, read from /proc/<pid>/cgroup,
 * /proc/<pid>/environ, /proc/<pid>/status and /proc/<pid>/comm, with user
 * names from <root>/etc/passwd.
 *
 * Everything is best effort: an unreadable file (another user's process, a
 * pid from another PID namespace) leaves its fields empty.  Reads are bounded
 * (64 KiB for cgroup, comm and status; 4 MiB for environ; 16 MiB for
 * /etc/passwd).  `root` replaces "/" so tests can use a fake tree
 * (WT_PROC_ROOT).  This module does not talk to the GPU driver.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_PROCINFO_H
#define WT_PROCINFO_H

#include <stddef.h>

struct wt_proc {
    unsigned pid;
    double used_mib;       /* GPU memory, NaN when the driver does not say */
    double sm_util_pct;    /* NaN when not available */
    char comm[32];         /* command name */
    char user[40];         /* user name, or the uid in decimal; "" unknown */
    char container_id[72]; /* docker / containerd / CRI-O container id */
    char pod_uid[40];      /* Kubernetes pod UID */
    char slurm_job_id[24];
    int slurm_job_from_cgroup; /* slurm_job_id is the kernel's (a cgroup Slurm made), not
                                * the environment's, which the process sets */
    /* from the environment, for the declared type (declared.h) */
    char declared[16];        /* WORKLOADTRUTH_DECLARED, else SPANK_WORKLOAD_TYPE,
                               * SLURM_SPANK_WORKLOAD_TYPE, WORKLOAD_TYPE: the first not empty */
    char slurm_partition[64]; /* SLURM_JOB_PARTITION (a policy rule's name holds 63 bytes) */
    char k8s_namespace[64];   /* POD_NAMESPACE (the downward API's usual name) */
    char pod_name[254];       /* POD_NAME (a Kubernetes name: up to 253 bytes) */
};

/* Fills the owner fields of p, clearing what it cannot read (p->pid must be
 * set; GPU fields are left).
 * root may be NULL ("/"). */
void wt_proc_owner(const char *root, struct wt_proc *p);

/* The root to use: WT_PROC_ROOT from the environment, else "/". */
const char *wt_proc_root(void);

/* 1 when this process runs in the host's (initial) PID namespace, or when
 * that cannot be told; 0 in a container's own PID namespace, where the PIDs
 * NVML returns (the host's) name other processes in /proc, or none. */
int wt_proc_in_host_pidns(void);

#endif
