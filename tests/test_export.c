/* Unit tests of the exporter's pieces: label escaping, the exposition's
 * shape (HELP/TYPE before samples, one line per series, the label styles),
 * the textfile, and the declared-type sources (policy file parsing with
 * file:line errors, and the documented precedence).
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify/declared.h"
#include "export/metrics.h"

static void escaping(void **state)
{
    (void)state;
    char out[64];
    wt_metrics_escape("a\"b\\c\nd", out, sizeof(out));
    assert_string_equal(out, "a\\\"b\\\\c\\nd");
    wt_metrics_escape("0123456789", out, 6);
    assert_true(strlen(out) < 6);
}

static struct wt_result result(enum wt_class c, double conf, double limit_ratio)
{
    struct wt_result r;
    memset(&r, 0, sizeof(r));
    for (int i = 0; i < WT_NFEATURES; i++)
        r.features.v[i] = NAN;
    r.cls = c;
    r.confidence = conf;
    r.features.v[WT_F_LIMIT_RATIO] = limit_ratio;
    return r;
}

/* Waits out the exposition test's counter hold (0.3 s). */
static void hold(void)
{
    struct timespec ts = {0, 350000000L};
    nanosleep(&ts, NULL);
}

/* A window whose processes could not be listed: no declared type, no verdict
 * gauge; the source gauge says why (source="unlisted"). */
static void unlisted_source(void **state)
{
    (void)state;
    struct wt_metrics m;
    wt_metrics_init(&m);
    struct wt_gpu_labels l;
    memset(&l, 0, sizeof(l));
    snprintf(l.gpu, sizeof(l.gpu), "0");
    wt_metrics_gpu(&m, 0, &l);
    struct wt_result r = result(WT_CLASS_TRAINING, 0.9, 0.5);
    wt_metrics_window(&m, 0, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, "unlisted");
    size_t len;
    char *t = wt_metrics_render(&m, &len);
    assert_non_null(t);
    assert_non_null(strstr(t, ",source=\"unlisted\"} 1\n"));
    assert_non_null(strstr(t, ",source=\"command-line\"} 0\n"));
    assert_null(strstr(t, "workloadtruth_gpu_declaration_verdict{"));
    assert_null(strstr(t, "workloadtruth_gpu_declared_workload_class{"));
    free(t);
    wt_metrics_free(&m);
}

static void exposition(void **state)
{
    (void)state;
    struct wt_metrics m;
    /* a node name of 253 bytes (Kubernetes' limit) is kept whole: cut, it
     * would no longer join with the node's other metrics */
    char node[254];
    memset(node, 'n', 253);
    node[253] = '\0';
    setenv("NODE_NAME", node, 1);
    wt_metrics_init(&m);
    unsetenv("NODE_NAME");
    struct wt_gpu_labels l;
    memset(&l, 0, sizeof(l));
    snprintf(l.gpu, sizeof(l.gpu), "0");
    snprintf(l.uuid, sizeof(l.uuid), "GPU-1234");
    snprintf(l.model, sizeof(l.model), "H100 \"SXM\"");
    m.counter_hold_s = 0.3; /* the default is two minutes */
    wt_metrics_gpu(&m, 0, &l);
    struct wt_result r = result(WT_CLASS_TRAINING, 0.9, 0.5);
    wt_metrics_window(&m, 0, &r, WT_CLASS_INFERENCE, WT_VERDICT_MISMATCH, "process");
    wt_metrics_window(&m, 0, &r, WT_CLASS_INFERENCE, WT_VERDICT_MISMATCH, "process");
    wt_metrics_samples(&m, 0, 30, 0);
    wt_metrics_audit(&m, 5, 1, 2, 1);
    size_t len;
    char *t = wt_metrics_render(&m, &len);
    assert_non_null(t);
    assert_int_equal(strlen(t), len);
    assert_true(len > 0 && t[len - 1] == '\n');
    assert_null(strstr(t, "modelName"));
    char host[300];
    snprintf(host, sizeof(host), "hostname=\"%s\"", node);
    assert_non_null(strstr(t, host));
    assert_non_null(strstr(t, "model_name=\"H100 \\\"SXM\\\"\""));
    assert_non_null(strstr(t, ",class=\"training\"} 1\n"));
    assert_non_null(strstr(t, ",class=\"inference\"} 0\n"));
    assert_non_null(strstr(t, "workloadtruth_gpu_declaration_mismatch{gpu=\"0\""));
    assert_non_null(strstr(t, ",verdict=\"mismatch\"} 1\n"));
    assert_non_null(strstr(t, ",verdict=\"inconclusive\"} 0\n"));
    /* where the declaration came from: the job's own environment */
    assert_non_null(strstr(t, "workloadtruth_gpu_declaration_source{gpu=\"0\""));
    assert_non_null(strstr(t, ",source=\"process\"} 1\n"));
    assert_non_null(strstr(t, ",source=\"command-line\"} 0\n"));
    assert_non_null(strstr(t, ",source=\"unlisted\"} 0\n"));
    assert_non_null(strstr(t, "indicator=\"power_limit_below_default\"} 1\n"));
    assert_non_null(strstr(t, "indicator=\"clocks_locked\"} 0\n"));
    assert_non_null(strstr(t, "workloadtruth_samples_read_total{gpu=\"0\"} 30\n"));
    assert_non_null(strstr(t, "workloadtruth_audit_appends_total 5\n"));
    /* times to the millisecond, not rounded to 6 digits (1.7e9 s) */
    const char *lw = strstr(t, "\nworkloadtruth_gpu_last_window_timestamp_seconds{gpu=\"0\"");
    assert_non_null(lw);
    lw = strstr(lw, "} ");
    assert_true(lw && strtod(lw + 2, NULL) > 1.7e9 && strchr(lw, '.') &&
                strchr(lw, '.') < strchr(lw, '\n'));
    /* the age runs on the monotonic clock (a wall clock stepped back an hour
     * made it -3593 s) */
    const char *agename = "\nworkloadtruth_audit_last_checkpoint_age_seconds ";
    const char *age = strstr(t, agename);
    assert_non_null(age);
    double a = strtod(age + strlen(agename), NULL);
    assert_true(a >= 0 && a < 60);
    const char *ckname = "\nworkloadtruth_audit_last_checkpoint_timestamp_seconds ";
    const char *ck = strstr(t, ckname);
    assert_true(ck && strtod(ck + strlen(ckname), NULL) > 1.7e9);
    assert_non_null(strstr(t, "workloadtruth_audit_dropped_records_total 2\n"));
    /* no verification of the whole log yet: NaN, not "intact" */
    assert_non_null(strstr(t, "\nworkloadtruth_audit_log_damaged NaN\n"));
    assert_non_null(
        strstr(t, "\nworkloadtruth_audit_log_last_verification_timestamp_seconds NaN\n"));
    assert_non_null(strstr(t, "workloadtruth_up 1\n"));
    assert_non_null(strstr(t, "workloadtruth_scrapes_total 0\n")); /* rendering is not a scrape */
    /* the counter's series shows 0 for counter_hold_s after it appeared
     * (first seen at 2, increase() would never count those two windows),
     * however often it is read, then both windows */
    char *c = strstr(t, "workloadtruth_gpu_classifications_total{gpu=\"0\"");
    assert_non_null(c);
    assert_non_null(strstr(c, "class=\"training\"} 0\n"));
    char *t2 = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t2, ",class=\"training\"} 0\n"));
    free(t2);
    hold();
    t2 = wt_metrics_render(&m, &len);
    c = strstr(t2, "workloadtruth_gpu_classifications_total{gpu=\"0\"");
    assert_non_null(c);
    assert_non_null(strstr(c, "class=\"training\"} 2\n"));
    free(t2);
    /* every sample's family was announced before it */
    for (char *line = t; *line;) {
        char *nl = strchr(line, '\n');
        assert_non_null(nl);
        if (line[0] != '#') {
            char name[128];
            size_t n = strcspn(line, "{ ");
            assert_true(n < sizeof(name));
            memcpy(name, line, n);
            name[n] = '\0';
            char want[200];
            snprintf(want, sizeof(want), "# TYPE %s ", name);
            char *type = strstr(t, want);
            assert_non_null(type);
            assert_true(type < line);
        }
        line = nl + 1;
    }
    free(t);
    wt_metrics_audit_verified(&m, 0);
    t = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t, "\nworkloadtruth_audit_log_damaged 0\n"));
    const char *vname = "\nworkloadtruth_audit_log_last_verification_timestamp_seconds ";
    const char *vt = strstr(t, vname);
    assert_true(vt && strtod(vt + strlen(vname), NULL) > 1.7e9);
    free(t);
    wt_metrics_audit_verified(&m, 1);
    t = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t, "\nworkloadtruth_audit_log_damaged 1\n"));
    free(t);
    m.label_style_dcgm = 1;
    t = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t, "UUID=\"GPU-1234\",pci_bus_id=\"\",modelName="));
    assert_non_null(strstr(t, "Hostname=\""));
    free(t);
    /* a new owner is a new series: its counts start from zero, shown at 0
     * for counter_hold_s (a new job's first window was lost to increase():
     * its series was first seen at 1); the same owner again keeps counting */
    m.label_style_dcgm = 0;
    snprintf(l.slurm_job_id, sizeof(l.slurm_job_id), "888");
    wt_metrics_owner(&m, 0, &l);
    wt_metrics_window(&m, 0, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL);
    wt_metrics_owner(&m, 0, &l);
    t = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t, "slurm_job_id=\"888\",class=\"training\"} 0\n"));
    assert_non_null(strstr(t, "workloadtruth_gpu_workload_class{gpu=\"0\"")); /* the gauges are */
    free(t);
    hold();
    t = wt_metrics_render(&m, &len);
    c = strstr(t, "workloadtruth_gpu_classifications_total{gpu=\"0\"");
    assert_non_null(c);
    assert_non_null(strstr(c, "slurm_job_id=\"888\",class=\"training\"} 1\n"));
    assert_null(strstr(t, "workloadtruth_gpu_declaration_source{")); /* nothing declared */
    free(t);
    /* an owner that comes back continues its series (restarted at 1, an
     * increase() over owners taking turns counted nothing) */
    struct wt_gpu_labels l2 = l;
    snprintf(l2.slurm_job_id, sizeof(l2.slurm_job_id), "999");
    for (int k = 0; k < 3; k++) {
        wt_metrics_owner(&m, 0, &l2);
        wt_metrics_window(&m, 0, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL);
        wt_metrics_owner(&m, 0, &l);
        wt_metrics_window(&m, 0, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL);
    }
    wt_metrics_owner_changed(&m, 0);
    t = wt_metrics_render(&m, &len);
    /* 888's series appeared before its hold: it goes on at its count; so
     * does 999's, once its own hold (from when it first appeared) is over */
    assert_non_null(strstr(t, "slurm_job_id=\"888\",class=\"training\"} 4\n"));
    assert_non_null(strstr(t, "workloadtruth_gpu_owner_changed_windows_total{gpu=\"0\"} 1\n"));
    free(t);
    wt_metrics_owner(&m, 0, &l2);
    t = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t, "slurm_job_id=\"999\",class=\"training\"} 0\n"));
    free(t);
    hold();
    t = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t, "slurm_job_id=\"999\",class=\"training\"} 3\n"));
    free(t);
    /* a new series in a stopped agent's last exposition: the count */
    struct wt_gpu_labels l3 = l;
    snprintf(l3.slurm_job_id, sizeof(l3.slurm_job_id), "777");
    wt_metrics_owner(&m, 0, &l3);
    wt_metrics_window(&m, 0, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL);
    t = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t, "slurm_job_id=\"777\",class=\"training\"} 0\n"));
    free(t);
    wt_metrics_owner(&m, 0, &l2);
    /* a stopped agent's last textfile asserts no class nor mismatch (it
     * outlives the agent); its counters stay */
    wt_metrics_stop(&m);
    t = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t, "workloadtruth_up 0\n"));
    assert_null(strstr(t, "workloadtruth_gpu_declaration_mismatch{"));
    assert_null(strstr(t, "workloadtruth_gpu_workload_class{"));
    assert_non_null(strstr(t, "slurm_job_id=\"999\",class=\"training\"} 3\n"));
    free(t);
    wt_metrics_owner(&m, 0, &l3);
    t = wt_metrics_render(&m, &len);
    assert_non_null(strstr(t, "slurm_job_id=\"777\",class=\"training\"} 1\n"));
    free(t);
    wt_metrics_free(&m);
}

static void textfile(void **state)
{
    (void)state;
    char dir[] = "/tmp/wt_export_XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct wt_metrics m;
    wt_metrics_init(&m);
    struct wt_err err = {{0}};
    mode_t old = umask(0027); /* systemd's UMask=0027 */
    assert_int_equal(wt_metrics_write_textfile(&m, dir, &err), WT_OK);
    umask(old);
    char path[128];
    snprintf(path, sizeof(path), "%s/workloadtruth.prom", dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* node_exporter, another user, reads it */
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[200];
    assert_non_null(fgets(line, sizeof(line), f));
    assert_non_null(strstr(line, "# HELP workloadtruth_build_info"));
    fclose(f);
    unlink(path);
    rmdir(dir);
    assert_int_not_equal(wt_metrics_write_textfile(&m, "/nonexistent/dir", &err), WT_OK);
    wt_metrics_free(&m);
}

static void policy_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"partition gpu\n", ":1: expected"},
        {"# ok\nnamespace serving mining\n", ":2: 'mining' is not a type"},
        {"cluster x training\n", ":1: unknown rule 'cluster'"},
        {"default training extra\n", ":1: expected"},
        {"default idle\npartition gpu training\ndefault training\n",
         ":3: a second 'default' line (the first is line 1)"},
        {"partition gpu training\nnamespace gpu idle\npartition gpu inference\n",
         ":3: partition 'gpu' already has a rule (line 1)"},
        /* names that can never match (exact matching; lower-case namespaces):
         * silently unused rules until 2026-12-08 */
        {"namespace Serving inference\n", ":1: namespace 'Serving' can never match"},
        {"namespace -x inference\n", ":1: namespace '-x' can never match"},
        {"namespace a_b inference\n", ":1: namespace 'a_b' can never match"},
        {"partition a,b inference\n", ":1: partition 'a,b': one name per rule"},
        {"partition gpu* inference\n", ":1: partition 'gpu*': one name per rule"},
        {"namespace serving-2 inference\n", NULL},
        {"# ok\n\npartition gpu training\n\n", NULL},   /* fine: shows the loop runs */
        {"\xEF\xBB\xBFpartition gpu training\n", NULL}, /* a UTF-8 byte order mark */
    };
    struct wt_policy *p = malloc(sizeof(*p));
    struct wt_err err = {{0}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *path = tu_temp(bad[i].text);
        if (!bad[i].want) {
            assert_int_equal(wt_policy_load(p, path, &err), WT_OK);
            assert_int_equal(p->n, 1);
            unlink(path);
            continue;
        }
        assert_int_not_equal(wt_policy_load(p, path, &err), WT_OK);
        if (!strstr(err.msg, bad[i].want)) {
            print_error("%s: got '%s', wanted '%s'\n", bad[i].text, err.msg, bad[i].want);
            fail();
        }
        unlink(path);
    }
    assert_int_not_equal(wt_policy_load(p, "/nonexistent/policy", &err), WT_OK);
    /* a NUL byte is named as such (it was "line longer than 510 bytes") */
    const char *path = tu_temp_file("default idle\npartition g\0pu training\n", 37);
    assert_int_not_equal(wt_policy_load(p, path, &err), WT_OK);
    assert_contains(err.msg, ":2: contains a NUL byte");
    unlink(path);
    /* a line over 510 bytes */
    char longline[600];
    memset(longline, 'x', sizeof(longline) - 2);
    longline[sizeof(longline) - 2] = '\n';
    longline[sizeof(longline) - 1] = '\0';
    path = tu_temp(longline);
    assert_int_not_equal(wt_policy_load(p, path, &err), WT_OK);
    assert_contains(err.msg, ":1: line longer than 510 bytes");
    unlink(path);
    /* the limits, which the fuzzer's 8 KiB inputs never reach: 1024 rules
     * load, the 1025th is named; a file over 1 MiB is refused */
    {
        size_t cap = (WT_POLICY_MAX_RULES + 1) * 32 + 1, at = 0;
        char *many = malloc(cap);
        assert_non_null(many);
        for (int i = 0; i <= WT_POLICY_MAX_RULES; i++)
            at += (size_t)snprintf(many + at, cap - at, "partition p%d training\n", i);
        char *cut = many + at - strlen("partition p1024 training\n");
        char keep = *cut;
        *cut = '\0';
        path = tu_temp(many);
        assert_int_equal(wt_policy_load(p, path, &err), WT_OK);
        assert_int_equal(p->n, WT_POLICY_MAX_RULES);
        unlink(path);
        *cut = keep;
        path = tu_temp(many);
        assert_int_not_equal(wt_policy_load(p, path, &err), WT_OK);
        assert_contains(err.msg, ":1025: more than 1024 rules");
        unlink(path);
        free(many);
        size_t big = (1u << 20) + 1;
        char *huge = malloc(big + 1);
        assert_non_null(huge);
        memset(huge, '\n', big);
        huge[big] = '\0';
        path = tu_temp(huge);
        assert_int_not_equal(wt_policy_load(p, path, &err), WT_OK);
        assert_contains(err.msg, "larger than 1048576 bytes");
        unlink(path);
        free(huge);
    }
    /* a FIFO is refused without blocking */
    char fifo[64];
    snprintf(fifo, sizeof(fifo), "/tmp/wt_policy_fifo_%d", (int)getpid());
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_not_equal(wt_policy_load(p, fifo, &err), WT_OK);
    assert_contains(err.msg, "not a regular file");
    unlink(fifo);
    free(p);
}

static void precedence(void **state)
{
    (void)state;
    struct wt_policy *p = malloc(sizeof(*p));
    struct wt_err err = {{0}};
    const char *path = tu_temp("partition infer inference  # a comment\n"
                               "namespace train-ns training\n"
                               "default idle\n");
    assert_int_equal(wt_policy_load(p, path, &err), WT_OK);
    unlink(path);
    assert_int_equal(p->n, 2);
    struct wt_proc procs[2];
    memset(procs, 0, sizeof(procs));
    enum wt_declared_source src;
    /* nothing known: --declared, then the policy's default */
    assert_int_equal(wt_declared_for(p, WT_CLASS_TRAINING, procs, 0, &src), WT_CLASS_TRAINING);
    assert_int_equal(src, WT_DECL_CLI);
    assert_int_equal(wt_declared_for(p, WT_CLASS_NONE, procs, 0, &src), WT_CLASS_IDLE);
    assert_int_equal(src, WT_DECL_DEFAULT);
    assert_int_equal(wt_declared_for(NULL, WT_CLASS_NONE, procs, 0, &src), WT_CLASS_NONE);
    assert_int_equal(src, WT_DECL_NONE);
    /* a policy rule beats --declared */
    snprintf(procs[0].slurm_partition, sizeof(procs[0].slurm_partition), "infer");
    assert_int_equal(wt_declared_for(p, WT_CLASS_TRAINING, procs, 1, &src), WT_CLASS_INFERENCE);
    assert_int_equal(src, WT_DECL_POLICY);
    /* the process's own declaration beats the policy */
    snprintf(procs[0].declared, sizeof(procs[0].declared), "idle");
    assert_int_equal(wt_declared_for(p, WT_CLASS_TRAINING, procs, 1, &src), WT_CLASS_IDLE);
    assert_int_equal(src, WT_DECL_PROCESS);
    /* two processes that disagree: no declaration */
    snprintf(procs[1].declared, sizeof(procs[1].declared), "training");
    assert_int_equal(wt_declared_for(p, WT_CLASS_TRAINING, procs, 2, &src), WT_CLASS_NONE);
    assert_int_equal(src, WT_DECL_CONFLICT);
    /* each process is resolved on its own: one whose partition's rule says
     * inference beside another job's helper that declares training is a
     * conflict (the helper's claim was taken for the GPU's, a MATCH) */
    procs[0].declared[0] = '\0';
    assert_int_equal(wt_declared_for(p, WT_CLASS_NONE, procs, 2, &src), WT_CLASS_NONE);
    assert_int_equal(src, WT_DECL_CONFLICT);
    /* ... and they agree when the claim is the rule's type */
    snprintf(procs[1].declared, sizeof(procs[1].declared), "inference");
    assert_int_equal(wt_declared_for(p, WT_CLASS_NONE, procs, 2, &src), WT_CLASS_INFERENCE);
    assert_int_equal(src, WT_DECL_PROCESS);
    /* a process that neither declares nor matches a rule does not count */
    memset(&procs[1], 0, sizeof(procs[1]));
    assert_int_equal(wt_declared_for(p, WT_CLASS_TRAINING, procs, 2, &src), WT_CLASS_INFERENCE);
    assert_int_equal(src, WT_DECL_POLICY);
    free(p);
}

/* Every GPU watch can watch is exported: a host's 65th GPU (or MIG device)
 * was watched and logged but had no series. */
static void many_gpus(void **state)
{
    (void)state;
    struct wt_metrics *m = calloc(1, sizeof(*m));
    assert_non_null(m);
    wt_metrics_init(m);
    int idx[] = {0, 64, 70, WT_MAX_GPUS - 1};
    for (size_t k = 0; k < sizeof(idx) / sizeof(idx[0]); k++) {
        struct wt_gpu_labels l;
        memset(&l, 0, sizeof(l));
        snprintf(l.gpu, sizeof(l.gpu), "%d", idx[k]);
        wt_metrics_gpu(m, idx[k], &l);
        wt_metrics_samples(m, idx[k], 7, 0);
    }
    size_t len;
    char *t = wt_metrics_render(m, &len);
    assert_non_null(t);
    for (size_t k = 0; k < sizeof(idx) / sizeof(idx[0]); k++) {
        char want[96];
        snprintf(want, sizeof(want), "workloadtruth_samples_read_total{gpu=\"%d\"} 7\n", idx[k]);
        assert_non_null(strstr(t, want));
    }
    free(t);
    wt_metrics_free(m);
    free(m);
}

/* Owners A (job 111, training) and B (job 222, inference) take GPU 0 in
 * turns while another thread renders: no exposition may show one owner's
 * labels with the other's class (the owner and its window were two updates,
 * and a scrape between them saw the new job with the old job's class). */
struct owner_race {
    struct wt_metrics *m;
    atomic_int stop;
    int bad, renders;
};

static void *owner_race_scraper(void *arg)
{
    struct owner_race *o = arg;
    while (!atomic_load(&o->stop)) {
        size_t len;
        char *t = wt_metrics_render(o->m, &len);
        if (t && (strstr(t, "slurm_job_id=\"111\",class=\"inference\"} 1\n") ||
                  strstr(t, "slurm_job_id=\"222\",class=\"training\"} 1\n")))
            o->bad++;
        o->renders++;
        free(t);
    }
    return NULL;
}

static void owner_and_window_together(void **state)
{
    (void)state;
    struct wt_metrics m;
    wt_metrics_init(&m);
    struct wt_gpu_labels a, b;
    memset(&a, 0, sizeof(a));
    snprintf(a.gpu, sizeof(a.gpu), "0");
    wt_metrics_gpu(&m, 0, &a);
    b = a;
    snprintf(a.slurm_job_id, sizeof(a.slurm_job_id), "111");
    snprintf(b.slurm_job_id, sizeof(b.slurm_job_id), "222");
    struct wt_result ra = result(WT_CLASS_TRAINING, 0.9, NAN);
    struct wt_result rb = result(WT_CLASS_INFERENCE, 0.9, NAN);
    wt_metrics_owned_window(&m, 0, &a, &ra, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL, 0);
    struct owner_race o = {.m = &m};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, owner_race_scraper, &o), 0);
    for (int k = 0; k < 200000 && (k < 2000 || o.renders < 2000); k++) {
        int even = k % 2 == 0;
        wt_metrics_owned_window(&m, 0, even ? &b : &a, even ? &rb : &ra, WT_CLASS_NONE,
                                WT_VERDICT_INCONCLUSIVE, NULL, 0);
    }
    atomic_store(&o.stop, 1);
    pthread_join(th, NULL);
    print_message("%d renders, %d mixed\n", o.renders, o.bad);
    assert_int_equal(o.bad, 0);
    wt_metrics_free(&m);
}

/* count_of: the value of the classifications_total series of job JOB and
 * class training in t, or -1 when it is not there */
static long count_of(const char *t, const char *job)
{
    char key[96];
    snprintf(key, sizeof(key), "slurm_job_id=\"%s\",class=\"training\"} ", job);
    const char *fam = "\nworkloadtruth_gpu_classifications_total{";
    for (const char *p = strstr(t, fam); p; p = strstr(p + 1, fam)) {
        const char *eol = strchr(p + 1, '\n'), *k = strstr(p, key);
        if (k && eol && k < eol)
            return strtol(k + strlen(key), NULL, 10);
    }
    return -1;
}

/* An owner that leaves the GPU within the hold: its series showed 0 until
 * the next owner's replaced it, so increase() never counted it (a 100-s
 * job, 19 windows, never above 0); it now stays, at its count from the end
 * of its hold, for a hold after that, then goes.  A failed GPU's last job
 * leaves it the same way (its labels stayed on the GPU until a restart). */
static void short_owner_counted(void **state)
{
    (void)state;
    struct wt_metrics m;
    wt_metrics_init(&m);
    m.counter_hold_s = 0.3;
    struct wt_gpu_labels l;
    memset(&l, 0, sizeof(l));
    snprintf(l.gpu, sizeof(l.gpu), "0");
    wt_metrics_gpu(&m, 0, &l);
    struct wt_gpu_labels a = l, b = l;
    snprintf(a.slurm_job_id, sizeof(a.slurm_job_id), "101");
    snprintf(b.slurm_job_id, sizeof(b.slurm_job_id), "102");
    struct wt_result r = result(WT_CLASS_TRAINING, 0.9, 0.5);
    for (int k = 0; k < 3; k++)
        wt_metrics_owned_window(&m, 0, &a, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL, 0);
    wt_metrics_owned_window(&m, 0, &b, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL, 0);
    size_t len;
    char *t = wt_metrics_render(&m, &len);
    assert_int_equal(count_of(t, "101"), 0); /* within its hold: 0, but there */
    assert_int_equal(count_of(t, "102"), 0);
    free(t);
    hold(); /* 101's and 102's holds are over: their counts */
    t = wt_metrics_render(&m, &len);
    assert_int_equal(count_of(t, "101"), 3);
    assert_int_equal(count_of(t, "102"), 1);
    free(t);
    hold(); /* a hold after 101's own: gone */
    t = wt_metrics_render(&m, &len);
    assert_int_equal(count_of(t, "101"), -1);
    assert_int_equal(count_of(t, "102"), 1);
    free(t);
    /* the GPU fails: 102 leaves it; its series stays a hold, at its count */
    wt_metrics_gpu_failed(&m, 0);
    t = wt_metrics_render(&m, &len);
    assert_int_equal(count_of(t, "102"), 1);
    assert_non_null(strstr(t, "slurm_job_id=\"\",class=\"training\"} 0\n"));
    free(t);
    hold();
    t = wt_metrics_render(&m, &len);
    assert_int_equal(count_of(t, "102"), -1);
    assert_non_null(strstr(t, "workloadtruth_gpu_failed{gpu=\"0\"} 1\n"));
    free(t);
    wt_metrics_free(&m);
}

/* An owner that comes back when the GPU's 16 owner slots are full, its
 * own the least recently used: the leaving owner's slot was taken from it,
 * and its count started again from 0. */
static void returning_owner_kept(void **state)
{
    (void)state;
    struct wt_metrics m;
    wt_metrics_init(&m);
    m.counter_hold_s = 0.3;
    struct wt_gpu_labels l;
    memset(&l, 0, sizeof(l));
    snprintf(l.gpu, sizeof(l.gpu), "0");
    wt_metrics_gpu(&m, 0, &l);
    struct wt_result r = result(WT_CLASS_TRAINING, 0.9, 0.5);
    struct wt_gpu_labels a = l, x = l;
    snprintf(a.slurm_job_id, sizeof(a.slurm_job_id), "500");
    for (int k = 0; k < 3; k++)
        wt_metrics_owned_window(&m, 0, &a, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL, 0);
    for (int j = 1; j <= WT_METRICS_OWNERS; j++) {
        snprintf(x.slurm_job_id, sizeof(x.slurm_job_id), "%d", 600 + j);
        wt_metrics_owned_window(&m, 0, &x, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL, 0);
    }
    wt_metrics_owned_window(&m, 0, &a, &r, WT_CLASS_NONE, WT_VERDICT_INCONCLUSIVE, NULL, 0);
    hold();
    size_t len;
    char *t = wt_metrics_render(&m, &len);
    assert_int_equal(count_of(t, "500"), 4);
    free(t);
    wt_metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escaping),
        cmocka_unit_test(exposition),
        cmocka_unit_test(unlisted_source),
        cmocka_unit_test(textfile),
        cmocka_unit_test(many_gpus),
        cmocka_unit_test(policy_errors),
        cmocka_unit_test(precedence),
        cmocka_unit_test(owner_and_window_together),
        cmocka_unit_test(short_owner_counted),
        cmocka_unit_test(returning_owner_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
