/* Process owner attribution against a fake /proc tree: Docker, containerd
 * (cgroup v2) and systemd-driver Kubernetes pods, Slurm jobs (cgroup and
 * environment), users from etc/passwd, unreadable processes.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include <sys/stat.h>

#include "telemetry/procinfo.h"

static char root[64];

static void put(const char *rel, const char *data, size_t len)
{
    char path[256], dir[256];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    snprintf(dir, sizeof(dir), "%s", path);
    for (char *p = dir + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite(data, 1, len, f);
    fclose(f);
}

#define PUT(rel, lit) put(rel, lit, sizeof(lit) - 1)

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof(root), "/tmp/wt_proc_XXXXXX");
    assert_non_null(mkdtemp(root));
    PUT("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n");
    /* a Docker container, cgroup v1 */
    PUT("proc/100/comm", "python\n");
    PUT("proc/100/status", "Name:\tpython\nUid:\t1000\t1000\t1000\t1000\n");
    PUT("proc/100/cgroup",
        "12:memory:/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
        "1:name=systemd:/docker/"
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n");
    /* a Kubernetes pod with the systemd driver and containerd, cgroup v2 */
    PUT("proc/200/comm", "vllm\n");
    PUT("proc/200/status", "Name:\tvllm\nUid:\t4242\t4242\t4242\t4242\n");
    PUT("proc/200/cgroup",
        "0::/kubepods.slice/kubepods-besteffort.slice/"
        "kubepods-besteffort-pod1f2e3d4c_5b6a_4788_9a0b_1c2d3e4f5a6b.slice/"
        "cri-containerd-fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210.scope\n");
    /* a Kubernetes pod with the cgroupfs driver */
    PUT("proc/250/cgroup", "0::/kubepods/burstable/pod0a1b2c3d-4e5f-6789-abcd-ef0123456789/"
                           "aaaabbbbccccddddeeeeffff0000111122223333444455556666777788889999\n");
    /* a Slurm job: cgroup path, and one known only from its environment */
    PUT("proc/300/comm", "torchrun\n");
    PUT("proc/300/status", "Name:\ttorchrun\nUid:\t0\t0\t0\t0\n");
    PUT("proc/300/cgroup", "0::/system.slice/slurmstepd.scope/job_98765/step_0/user/task_0\n");
    put("proc/400/environ", "HOME=/home/x\0SLURM_JOB_ID=555\0USER=bob\0", 39);
    PUT("proc/400/cgroup", "0::/user.slice/user-1001.slice/session-3.scope\n");
    /* declarations: an empty variable (a downward-API annotation that is
     * missing) does not hide the next; a long pod name is kept whole */
    static const char env500[] = "WORKLOADTRUTH_DECLARED=\0WORKLOAD_TYPE=inference\0"
                                 "POD_NAME=argo-workflow-very-long-pipeline-name-train-step-"
                                 "preprocessing-2931847562\0";
    put("proc/500/environ", env500, sizeof(env500) - 1);
    static const char env600[] = "SLURM_SPANK_WORKLOAD_TYPE=training\0WORKLOAD_TYPE=idle\0";
    put("proc/600/environ", env600, sizeof(env600) - 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_docker(void **state)
{
    (void)state;
    struct wt_proc p = {.pid = 100};
    wt_proc_owner(root, &p);
    assert_string_equal(p.comm, "python");
    assert_string_equal(p.user, "alice");
    assert_string_equal(p.container_id,
                        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    assert_string_equal(p.pod_uid, "");
    assert_string_equal(p.slurm_job_id, "");
}

static void test_kubernetes(void **state)
{
    (void)state;
    struct wt_proc p = {.pid = 200};
    wt_proc_owner(root, &p);
    assert_string_equal(p.comm, "vllm");
    assert_string_equal(p.user, "4242"); /* not in etc/passwd: the uid */
    assert_string_equal(p.pod_uid, "1f2e3d4c-5b6a-4788-9a0b-1c2d3e4f5a6b");
    assert_string_equal(p.container_id,
                        "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210");
    struct wt_proc q = {.pid = 250};
    wt_proc_owner(root, &q);
    assert_string_equal(q.pod_uid, "0a1b2c3d-4e5f-6789-abcd-ef0123456789");
    assert_string_equal(q.container_id,
                        "aaaabbbbccccddddeeeeffff0000111122223333444455556666777788889999");
    assert_string_equal(q.comm, ""); /* unreadable files leave fields empty */
}

static void test_slurm(void **state)
{
    (void)state;
    struct wt_proc p = {.pid = 300};
    wt_proc_owner(root, &p);
    assert_string_equal(p.slurm_job_id, "98765");
    assert_int_equal(p.slurm_job_from_cgroup, 1);
    assert_string_equal(p.user, "root");
    struct wt_proc q = {.pid = 400};
    wt_proc_owner(root, &q);
    assert_string_equal(q.slurm_job_id, "555");
    assert_int_equal(q.slurm_job_from_cgroup, 0); /* the environment's: a claim */
    assert_string_equal(q.user, "bob");           /* from USER= when status is unreadable */
    struct wt_proc r = {.pid = 999};
    wt_proc_owner(root, &r);
    assert_string_equal(r.comm, "");
    assert_string_equal(r.user, "");
}

static void test_declared(void **state)
{
    (void)state;
    struct wt_proc p = {.pid = 500};
    wt_proc_owner(root, &p);
    assert_string_equal(p.declared, "inference");
    assert_string_equal(
        p.pod_name, "argo-workflow-very-long-pipeline-name-train-step-preprocessing-2931847562");
    struct wt_proc q = {.pid = 600};
    wt_proc_owner(root, &q);
    assert_string_equal(q.declared, "training"); /* what sbatch/salloc give a job's processes */
}

/* Cases from review: an environment past 64 KiB is read whole, and a cut
 * entry never counts; a partition name longer than the field is none; a
 * misspelt or padded declaration; container ids and pod UIDs only where a
 * runtime puts them; a static pod's 32-hex UID. */
static void test_review_cases(void **state)
{
    (void)state;
    size_t cap = 80 * 1024, n = 0;
    char *env = malloc(cap);
    assert_non_null(env);
    for (int i = 0; n + 64 < 72 * 1024; i++)
        n += (size_t)snprintf(env + n, cap - n, "SVC%04d_SERVICE_HOST=10.96.%d.%d", i, i / 256,
                              i % 256) +
             1;
    static const char tail[] = "WORKLOADTRUTH_DECLARED=inference\0SLURM_JOB_ID=1234567\0";
    memcpy(env + n, tail, sizeof(tail) - 1);
    put("proc/700/environ", env, n + sizeof(tail) - 1);
    free(env);
    struct wt_proc p = {.pid = 700};
    wt_proc_owner(root, &p);
    assert_string_equal(p.declared, "inference");
    assert_string_equal(p.slurm_job_id, "1234567");

    static const char env710[] = "WORKLOADTRUTH_DECLARED=trainig\0WORKLOAD_TYPE= Inference \0"
                                 "SLURM_JOB_PARTITION=gpu-inference-a100-80gb-priority-preemptible-"
                                 "x-and-some-more-words-past-63\0"
                                 "POD_NAMESPACE=nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
                                 "nnnnnnnnnnnn-evil\0";
    put("proc/710/environ", env710, sizeof(env710) - 1);
    struct wt_proc q = {.pid = 710};
    wt_proc_owner(root, &q);
    assert_string_equal(q.declared, "Inference"); /* the first that is a type, trimmed */
    assert_string_equal(q.slurm_partition, "");   /* too long: none, rather than cut */
    /* a namespace too (it was cut to 63 bytes: another namespace's rule matched) */
    assert_string_equal(q.k8s_namespace, "");
    /* a value from a file (a ConfigMap, a CRLF-edited env file) keeps its line
     * end: read as the type, not skipped for --declared to stand in */
    static const char env712[] = "WORKLOAD_TYPE=inference\r\n\0";
    put("proc/712/environ", env712, sizeof(env712) - 1);
    struct wt_proc qcr = {.pid = 712};
    wt_proc_owner(root, &qcr);
    assert_string_equal(qcr.declared, "inference");

    /* a value that only begins with a type, past the field's size, is none */
    static const char env715[] = "WORKLOADTRUTH_DECLARED=training        -- not inference\0"
                                 "WORKLOAD_TYPE=inference\0";
    put("proc/715/environ", env715, sizeof(env715) - 1);
    struct wt_proc q2 = {.pid = 715};
    wt_proc_owner(root, &q2);
    assert_string_equal(q2.declared, "inference");

    /* the Slurm plugin's "none" (a job that declared nothing) ends the search:
     * the job's own SLURM_SPANK_WORKLOAD_TYPE is not its declaration */
    static const char env716[] = "WORKLOADTRUTH_DECLARED=none\0"
                                 "SLURM_SPANK_WORKLOAD_TYPE=training\0WORKLOAD_TYPE=training\0";
    put("proc/716/environ", env716, sizeof(env716) - 1);
    struct wt_proc q3 = {.pid = 716};
    wt_proc_owner(root, &q3);
    assert_string_equal(q3.declared, "");

    PUT("proc/720/cgroup",
        "0::/system.slice/build-runner.service/"
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef-job."
        "scope\n1:name=x:/app.slice/"
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.mount\n"
        "2:name=y:/pod------------------------------------\n");
    struct wt_proc r = {.pid = 720};
    wt_proc_owner(root, &r);
    assert_string_equal(r.container_id, "");
    assert_string_equal(r.pod_uid, "");

    PUT("proc/730/cgroup",
        "0::/kubepods.slice/kubepods-burstable.slice/"
        "kubepods-burstable-pod0123456789abcdef0123456789abcdef.slice/"
        "cri-containerd-"
        "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210.scope\n");
    struct wt_proc t = {.pid = 730};
    wt_proc_owner(root, &t);
    assert_string_equal(t.pod_uid, "0123456789abcdef0123456789abcdef");
    assert_string_equal(t.container_id,
                        "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210");
}

/* Components below a job's or a container's own cgroup may be the
 * workload's to name (cgroup v2 delegation): the first match wins, and a
 * long path is not cut in the middle of a job id. */
static void test_nested_cgroups(void **state)
{
    (void)state;
    PUT("proc/800/cgroup",
        "0::/system.slice/slurmstepd.scope/job_123/step_0/user/task_0/job_999\n");
    struct wt_proc a = {.pid = 800};
    wt_proc_owner(root, &a);
    assert_string_equal(a.slurm_job_id, "123");
    /* a user's own systemd subtree, and a unit that only begins like a job */
    PUT("proc/810/cgroup", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/job_4242\n"
                           "1:name=x:/system.slice/job_42.service\n");
    struct wt_proc b = {.pid = 810};
    wt_proc_owner(root, &b);
    assert_string_equal(b.slurm_job_id, "");
    /* cgroup v1 */
    PUT("proc/815/cgroup", "5:memory:/slurm/uid_1000/job_321/step_0/task_0\n"
                           "0::/user.slice/user-1000.slice/user@1000.service/job_7\n");
    struct wt_proc b2 = {.pid = 815};
    wt_proc_owner(root, &b2);
    assert_string_equal(b2.slurm_job_id, "321");
    assert_int_equal(b2.slurm_job_from_cgroup, 1);
    /* a process in no job that makes Slurm's layout in a user's own
     * systemd tree (mkdir, systemd-run --user) or below a container is
     * not that job's (it was read as job 4242's, and so as its GPU's
     * peer); nor is a pod in a user's tree; nor a scope that only ends
     * like Slurm's.  Slurm's own, and a node-named slurmstepd, are read */
    static const char *const forged[] = {
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/system.slice/"
        "slurmstepd.scope/job_4242/step_0\n",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/slurmstepd.scope/job_4242\n",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/slurm/uid_0/job_4242\n",
        "0::/system.slice/notslurmstepd.scope/job_4242\n",
        "0::/system.slice/"
        "docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope/"
        "system.slice/slurmstepd.scope/job_4242\n",
        "0::/uid_0/job_4242\n",
    };
    for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
        put("proc/840/cgroup", forged[i], strlen(forged[i]));
        struct wt_proc f = {.pid = 840};
        wt_proc_owner(root, &f);
        if (f.slurm_job_id[0])
            fail_msg("job %s read from %s", f.slurm_job_id, forged[i]);
    }
    PUT("proc/841/cgroup", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
                           "kubepods-burstable-pod1f2e3d4c_5b6a_4788_9a0b_1c2d3e4f5a6b.slice/x\n");
    struct wt_proc f2 = {.pid = 841};
    wt_proc_owner(root, &f2);
    assert_string_equal(f2.pod_uid, "");
    PUT("proc/842/cgroup", "0::/system.slice/node7_slurmstepd.scope/job_31/step_batch\n");
    struct wt_proc f3 = {.pid = 842};
    wt_proc_owner(root, &f3);
    assert_string_equal(f3.slurm_job_id, "31");
    PUT("proc/843/cgroup", "4:devices:/slurm_node7/uid_1000/job_32/step_0\n");
    struct wt_proc f4 = {.pid = 843};
    wt_proc_owner(root, &f4);
    assert_string_equal(f4.slurm_job_id, "32");
    /* a privileged pod's container that nests another pod and container */
    PUT("proc/820/cgroup",
        "0::/kubepods.slice/kubepods-burstable.slice/"
        "kubepods-burstable-pod1f2e3d4c_5b6a_4788_9a0b_1c2d3e4f5a6b.slice/"
        "cri-containerd-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope/"
        "pod00000000-1111-2222-3333-444444444444/"
        "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210\n");
    struct wt_proc c = {.pid = 820};
    wt_proc_owner(root, &c);
    assert_string_equal(c.pod_uid, "1f2e3d4c-5b6a-4788-9a0b-1c2d3e4f5a6b");
    assert_string_equal(c.container_id,
                        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    /* a Kubernetes node that is a container itself (kind, k3d): the pod's
     * container is the one below the pod, not the node's above it */
    PUT("proc/822/cgroup",
        "0::/system.slice/"
        "docker-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.scope/"
        "kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
        "kubelet-kubepods-besteffort-pod1f2e3d4c_5b6a_4788_9a0b_1c2d3e4f5a6b.slice/"
        "cri-containerd-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n");
    struct wt_proc c2 = {.pid = 822};
    wt_proc_owner(root, &c2);
    assert_string_equal(c2.pod_uid, "1f2e3d4c-5b6a-4788-9a0b-1c2d3e4f5a6b");
    assert_string_equal(c2.container_id,
                        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    /* a Podman pod (cgroupfs manager): the pod's 64-hex directory is no container */
    PUT("proc/824/cgroup",
        "0::/libpod_parent/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/"
        "libpod-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n");
    struct wt_proc c3 = {.pid = 824};
    wt_proc_owner(root, &c3);
    assert_string_equal(c3.container_id,
                        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    /* a path past 1 KiB (it was cut at 1023 bytes: job 12345) */
    char buf[2048];
    int n = snprintf(buf, sizeof(buf), "0::/");
    for (int i = 0; i < 1000; i++)
        buf[n++] = 'a';
    n += snprintf(buf + n, sizeof(buf) - (size_t)n,
                  "/system.slice/slurmstepd.scope/job_1234567/step_0\n");
    put("proc/830/cgroup", buf, (size_t)n);
    struct wt_proc d = {.pid = 830};
    wt_proc_owner(root, &d);
    assert_string_equal(d.slurm_job_id, "1234567");
}

/* SLURM_JOB_ID from the environment is digits: an empty one does not hide
 * SLURM_JOBID (the id was empty), and one that is not a number, or too long
 * to keep whole, is none (it was the label, or cut at 23 characters). */
static void test_env_job_id(void **state)
{
    (void)state;
    static const char e1[] = "SLURM_JOB_ID=\0SLURM_JOBID=777\0";
    put("proc/900/environ", e1, sizeof(e1) - 1);
    struct wt_proc a = {.pid = 900};
    wt_proc_owner(root, &a);
    assert_string_equal(a.slurm_job_id, "777");
    static const char e2[] = "SLURM_JOB_ID=12 (job 34)\0";
    put("proc/901/environ", e2, sizeof(e2) - 1);
    struct wt_proc b = {.pid = 901};
    wt_proc_owner(root, &b);
    assert_string_equal(b.slurm_job_id, "");
    static const char e3[] = "SLURM_JOB_ID=123456789012345678901234567\0";
    put("proc/902/environ", e3, sizeof(e3) - 1);
    struct wt_proc c = {.pid = 902};
    wt_proc_owner(root, &c);
    assert_string_equal(c.slurm_job_id, "");
}

/* A FIFO in place of a file is no file: read, it blocked for ever */
static void test_fifo(void **state)
{
    (void)state;
    char path[256];
    PUT("proc/7777/comm", "python\n");
    snprintf(path, sizeof(path), "%s/proc/7777/cgroup", root);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(path, sizeof(path), "%s/proc/7777/environ", root);
    assert_int_equal(mkfifo(path, 0600), 0);
    struct wt_proc p = {.pid = 7777};
    alarm(10); /* a hang fails the test rather than the run */
    wt_proc_owner(root, &p);
    alarm(0);
    assert_string_equal(p.comm, "python");
    assert_string_equal(p.slurm_job_id, "");
}

/* A `Uid:` line that holds no uid (cut short, not a number, past 32 bits)
 * names no one: it was read as 0, root; the environment's USER is the
 * fallback.  A `Uid:` on the first line of the file is read. */
static void test_bad_uid(void **state)
{
    (void)state;
    static const char *lines[] = {"Name:\tx\nUid:\n", "Name:\tx\nUid:\tabc\t1\t1\t1\n",
                                  "Name:\tx\nUid:\t4294967296\t1\t1\t1\n",
                                  "Name:\tx\nUid:\t-1\t1\t1\t1\n"};
    for (unsigned i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "proc/%u/status", 8100 + i);
        put(rel, lines[i], strlen(lines[i]));
        snprintf(rel, sizeof(rel), "proc/%u/environ", 8100 + i);
        put(rel, "USER=carol", 10);
        struct wt_proc p = {.pid = 8100 + i};
        wt_proc_owner(root, &p);
        assert_string_equal(p.user, "carol");
    }
    PUT("proc/8200/status", "Uid:\t1000\t1000\t1000\t1000\nName:\tx\n");
    struct wt_proc p = {.pid = 8200};
    wt_proc_owner(root, &p);
    assert_string_equal(p.user, "alice");
}

static void test_root_env(void **state)
{
    (void)state;
    setenv("WT_PROC_ROOT", root, 1);
    assert_string_equal(wt_proc_root(), root);
    unsetenv("WT_PROC_ROOT");
    assert_string_equal(wt_proc_root(), "/");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docker),         cmocka_unit_test(test_kubernetes),
        cmocka_unit_test(test_slurm),          cmocka_unit_test(test_declared),
        cmocka_unit_test(test_root_env),       cmocka_unit_test(test_review_cases),
        cmocka_unit_test(test_nested_cgroups), cmocka_unit_test(test_env_job_id),
        cmocka_unit_test(test_fifo),           cmocka_unit_test(test_bad_uid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
