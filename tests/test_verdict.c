/* Declared-vs-observed verdicts and job-level results. */
#include "testutil.h"

#include <sys/stat.h>

#include "classify/run.h"
#include "classify/verdict.h"

static void test_verdicts(void **state)
{
    (void)state;
    struct wt_result r = {0};
    r.cls = WT_CLASS_TRAINING;
    assert_int_equal(wt_verdict_for(WT_CLASS_TRAINING, &r), WT_VERDICT_MATCH);
    assert_int_equal(wt_verdict_for(WT_CLASS_INFERENCE, &r), WT_VERDICT_MISMATCH);
    assert_int_equal(wt_verdict_for(WT_CLASS_IDLE, &r), WT_VERDICT_MISMATCH);
    r.cls = WT_CLASS_UNKNOWN;
    assert_int_equal(wt_verdict_for(WT_CLASS_INFERENCE, &r), WT_VERDICT_INCONCLUSIVE);
    assert_string_equal(wt_verdict_name(WT_VERDICT_MATCH), "MATCH");
    assert_string_equal(wt_verdict_name(WT_VERDICT_MISMATCH), "MISMATCH");
    assert_string_equal(wt_verdict_name(WT_VERDICT_INCONCLUSIVE), "INCONCLUSIVE");
    assert_int_equal(WT_EXIT_MISMATCH, 3);
}

static void test_class_names(void **state)
{
    (void)state;
    assert_int_equal(wt_class_parse("training", false), WT_CLASS_TRAINING);
    assert_int_equal(wt_class_parse("Inference", false), WT_CLASS_INFERENCE);
    assert_int_equal(wt_class_parse("IDLE", false), WT_CLASS_IDLE);
    assert_int_equal(wt_class_parse("unknown", false), WT_CLASS_NONE);
    assert_int_equal(wt_class_parse("unknown", true), WT_CLASS_UNKNOWN);
    assert_int_equal(wt_class_parse("", false), WT_CLASS_NONE);
    assert_string_equal(wt_class_name(WT_CLASS_TRAINING), "TRAINING");
    assert_string_equal(wt_class_lname(WT_CLASS_IDLE), "idle");
}

static void test_job(void **state)
{
    (void)state;
    enum wt_class c[5] = {WT_CLASS_TRAINING, WT_CLASS_INFERENCE, WT_CLASS_TRAINING,
                          WT_CLASS_UNKNOWN, WT_CLASS_TRAINING};
    size_t votes;
    assert_int_equal(wt_job_default_k(5), 3);
    assert_int_equal(wt_job_default_k(1), 1);
    assert_int_equal(wt_job_default_k(4), 3);
    assert_int_equal(wt_job_class(c, 5, 3, &votes), WT_CLASS_TRAINING);
    assert_int_equal(votes, 3);
    assert_int_equal(wt_job_verdict(WT_CLASS_INFERENCE, c, 5, 3), WT_VERDICT_MISMATCH);
    assert_int_equal(wt_job_verdict(WT_CLASS_TRAINING, c, 5, 3), WT_VERDICT_MATCH);
    /* one noisy window neither triggers ... */
    enum wt_class d[5] = {WT_CLASS_INFERENCE, WT_CLASS_TRAINING, WT_CLASS_INFERENCE,
                          WT_CLASS_INFERENCE, WT_CLASS_UNKNOWN};
    assert_int_equal(wt_job_verdict(WT_CLASS_INFERENCE, d, 5, 3), WT_VERDICT_MATCH);
    /* ... nor hides a mismatch */
    enum wt_class e[5] = {WT_CLASS_TRAINING, WT_CLASS_TRAINING, WT_CLASS_INFERENCE,
                          WT_CLASS_TRAINING, WT_CLASS_TRAINING};
    assert_int_equal(wt_job_verdict(WT_CLASS_INFERENCE, e, 5, 3), WT_VERDICT_MISMATCH);
    /* no majority */
    enum wt_class f[4] = {WT_CLASS_TRAINING, WT_CLASS_INFERENCE, WT_CLASS_UNKNOWN, WT_CLASS_IDLE};
    assert_int_equal(wt_job_class(f, 4, 3, &votes), WT_CLASS_UNKNOWN);
    assert_int_equal(wt_job_verdict(WT_CLASS_IDLE, f, 4, 3), WT_VERDICT_INCONCLUSIVE);
    /* a job that splits its time between two undeclared classes has no
     * class of its own, but every window says it is not what it declared
     * (it was INCONCLUSIVE: training and idle in turn escaped the check) */
    enum wt_class g[4] = {WT_CLASS_TRAINING, WT_CLASS_IDLE, WT_CLASS_TRAINING, WT_CLASS_IDLE};
    assert_int_equal(wt_job_class(g, 4, 3, &votes), WT_CLASS_UNKNOWN);
    assert_int_equal(wt_job_verdict(WT_CLASS_INFERENCE, g, 4, 3), WT_VERDICT_MISMATCH);
    /* declared training, it trained whenever it ran (INCONCLUSIVE before
     * 2026-12-07, when its idle windows counted against it) */
    assert_int_equal(wt_job_verdict(WT_CLASS_TRAINING, g, 4, 3), WT_VERDICT_MATCH);
    /* UNKNOWN windows count for neither side (nor, declared inference, the
     * IDLE one: one training window is then too few) */
    enum wt_class u[3] = {WT_CLASS_TRAINING, WT_CLASS_UNKNOWN, WT_CLASS_IDLE};
    assert_int_equal(wt_job_verdict(WT_CLASS_INFERENCE, u, 3, 2), WT_VERDICT_INCONCLUSIVE);
    assert_int_equal(wt_job_verdict(WT_CLASS_IDLE, u, 3, 2), WT_VERDICT_INCONCLUSIVE);
    enum wt_class u2[3] = {WT_CLASS_TRAINING, WT_CLASS_UNKNOWN, WT_CLASS_INFERENCE};
    assert_int_equal(wt_job_verdict(WT_CLASS_IDLE, u2, 3, 2), WT_VERDICT_MISMATCH);
    /* IDLE windows (a checkpoint save, start-up) do not count against a
     * declared training or inference job (3 idle of 5 made it a MISMATCH):
     * the windows left decide, K scaled to them and at least 2 */
    enum wt_class ck[5] = {WT_CLASS_IDLE, WT_CLASS_IDLE, WT_CLASS_IDLE, WT_CLASS_TRAINING,
                           WT_CLASS_TRAINING};
    assert_int_equal(wt_job_verdict(WT_CLASS_TRAINING, ck, 5, 3), WT_VERDICT_MATCH);
    assert_int_equal(wt_job_verdict(WT_CLASS_INFERENCE, ck, 5, 3), WT_VERDICT_MISMATCH);
    assert_int_equal(wt_job_verdict(WT_CLASS_IDLE, ck, 5, 3), WT_VERDICT_MATCH);
    enum wt_class one[5] = {WT_CLASS_IDLE, WT_CLASS_IDLE, WT_CLASS_IDLE, WT_CLASS_IDLE,
                            WT_CLASS_TRAINING};
    assert_int_equal(wt_job_verdict(WT_CLASS_INFERENCE, one, 5, 3), WT_VERDICT_INCONCLUSIVE);
    enum wt_class idle[3] = {WT_CLASS_IDLE, WT_CLASS_IDLE, WT_CLASS_IDLE};
    assert_int_equal(wt_job_verdict(WT_CLASS_INFERENCE, idle, 3, 2), WT_VERDICT_INCONCLUSIVE);
    assert_int_equal(wt_job_verdict(WT_CLASS_IDLE, idle, 3, 2), WT_VERDICT_MATCH);
    /* and a job-level result is judged the same way */
    struct wt_result r = {.cls = WT_CLASS_UNKNOWN, .job_windows = 4, .job_k = 3};
    r.job_count[WT_CLASS_TRAINING] = 2;
    r.job_count[WT_CLASS_IDLE] = 2;
    assert_int_equal(wt_verdict_for(WT_CLASS_INFERENCE, &r), WT_VERDICT_MISMATCH);
}

/* The job's features are each feature's median over the windows, not the
 * last window's (a job record showed one window's values as the job's). */
static void test_job_features(void **state)
{
    (void)state;
    struct wt_run_request rq = {
        .backend = "synthetic",
        .cfg = {.profile = "inference", .seed = 7},
        .samples = 30,
        .windows = 4,
        .start = NAN,
        .clf = &wt_classifier_physics,
    };
    struct wt_run_outcome out;
    struct wt_err err;
    memset(&out, 0, sizeof(out));
    assert_int_equal(wt_run_classify(&rq, &out, &err), WT_OK);
    assert_int_equal(out.n, 4);
    for (int f = 0; f < WT_NFEATURES; f++) {
        double v[4];
        size_t m = 0;
        for (size_t i = 0; i < 4; i++)
            if (!isnan(out.w[i].features.v[f]))
                v[m++] = out.w[i].features.v[f];
        if (m == 0) {
            assert_true(isnan(out.job.features.v[f]));
            continue;
        }
        if (f == WT_F_CLOCKS_LOCKED || f == WT_F_SWCAP_FRAC || f == WT_F_PIN_AT_CAP ||
            f == WT_F_LIMIT_RATIO)
            continue;                  /* the worst window: below */
        for (size_t i = 0; i < m; i++) /* insertion sort */
            for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--) {
                double t = v[j];
                v[j] = v[j - 1];
                v[j - 1] = t;
            }
        double want = m % 2 ? v[m / 2] : v[m / 2 - 1] / 2 + v[m / 2] / 2;
        assert_true(out.job.features.v[f] == want);
    }
    /* the inference profile varies: the last window is not the median */
    assert_true(out.job.features.v[WT_F_AVG_POWER] != out.w[3].features.v[WT_F_AVG_POWER]);
    wt_run_free(&out);

    /* the tamper indicators' features take the worst window, as the job's
     * indicators are any window's: a clock lock in one window of three is
     * the job's (a median said 0 beside a "clocks locked" indicator) */
    struct wt_result w3[3];
    memset(w3, 0, sizeof(w3));
    double vals[3];
    for (size_t i = 0; i < 3; i++) {
        for (int f = 0; f < WT_NFEATURES; f++)
            w3[i].features.v[f] = NAN;
        w3[i].features.v[WT_F_CLOCKS_LOCKED] = i == 1;
        w3[i].features.v[WT_F_SWCAP_FRAC] = 0.1 * (double)i;
        w3[i].features.v[WT_F_PIN_AT_CAP] = i == 0 ? 0.9 : 0;
        w3[i].features.v[WT_F_LIMIT_RATIO] = i == 2 ? 0.6 : 1;
        w3[i].features.v[WT_F_DUTY] = 0.2 * (double)(i + 1);
    }
    struct wt_features jf;
    wt_job_features(w3, 3, vals, &jf);
    assert_true(jf.v[WT_F_CLOCKS_LOCKED] == 1);
    assert_true(jf.v[WT_F_SWCAP_FRAC] == 0.2);
    assert_true(jf.v[WT_F_PIN_AT_CAP] == 0.9);
    assert_true(jf.v[WT_F_LIMIT_RATIO] == 0.6);
    assert_true(jf.v[WT_F_DUTY] == 0.4); /* the others: the median */
    assert_true(isnan(jf.v[WT_F_PEER_SYNC]));
}

/* A trace that ends after whole windows: those windows are kept and decided
 * on by the k asked for (the run used to fail at the short window and lose
 * the ones before it). */
static void test_trace_ends_early(void **state)
{
    (void)state;
    char text[4096];
    size_t len = (size_t)snprintf(text, sizeof(text),
                                  "# format: workloadtruth-trace/1\n# gpu_model: NVIDIA H100\n"
                                  "# power_semantics: instant\nt_s,gpu,util_gpu_pct,power_w\n");
    for (int i = 0; i < 25; i++) /* 2 windows of 10, then 5 samples */
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%d,0,0,60\n", i);
    const char *path = tu_temp(text);
    struct wt_run_request rq = {
        .backend = "replay",
        .cfg = {.trace_path = path},
        .samples = 10,
        .windows = 4,
        .start = NAN,
        .clf = &wt_classifier_physics,
    };
    struct wt_run_outcome out;
    struct wt_err err;
    assert_int_equal(wt_run_classify(&rq, &out, &err), WT_OK);
    assert_int_equal(out.n, 2);
    assert_int_equal(out.requested, 4);
    assert_int_equal(out.leftover, 5);
    assert_int_equal(out.k, 3);
    /* 2 IDLE windows are not the 3 of 4 the rule asks for */
    assert_int_equal(out.w[0].cls, WT_CLASS_IDLE);
    assert_int_equal(out.w[1].cls, WT_CLASS_IDLE);
    assert_int_equal(out.job.cls, WT_CLASS_UNKNOWN);
    assert_int_equal(out.job.job_windows, 2);
    assert_int_equal(wt_verdict_for(WT_CLASS_TRAINING, &out.job), WT_VERDICT_INCONCLUSIVE);
    int said = 0;
    for (size_t i = 0; i < out.job.nreasons; i++)
        said |= strstr(out.job.reasons[i].text, "the trace ended after 2 of the 4 windows") != NULL;
    assert_true(said);
    wt_run_free(&out);

    /* --min-agree 2: the two windows decide the class; nothing ran in
     * them, which is no verdict against a training declaration (it was a
     * MISMATCH), and a match for an idle one */
    rq.min_agree = 2;
    assert_int_equal(wt_run_classify(&rq, &out, &err), WT_OK);
    assert_int_equal(out.job.cls, WT_CLASS_IDLE);
    assert_int_equal(wt_verdict_for(WT_CLASS_TRAINING, &out.job), WT_VERDICT_INCONCLUSIVE);
    assert_int_equal(wt_verdict_for(WT_CLASS_IDLE, &out.job), WT_VERDICT_MATCH);
    wt_run_free(&out);

    /* not even one whole window: an error, as before */
    rq.samples = 30;
    rq.min_agree = 0;
    assert_int_equal(wt_run_classify(&rq, &out, &err), WT_EINVAL);
    assert_non_null(strstr(err.msg, "GPU 0 has only 25 samples; --samples asks for 30"));
    wt_run_free(&out);
    unlink(path);
}

/* A stream on standard input without the GPU asked for: the other GPUs'
 * rows, its peers, keep their newest rows at the cap, so the end says the
 * GPU is absent; they were queued, up to the cap (16M rows, 2.3 GB), and
 * the error was the cap's. */
static void test_stream_without_gpu(void **state)
{
    (void)state;
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof(text), "t_s,gpu,util_gpu_pct,power_w\n");
    for (int i = 0; i < 200; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%d,0,0,60\n", i);
    const char *path = tu_temp(text);
    assert_non_null(freopen(path, "r", stdin));
    struct wt_run_request rq = {
        .backend = "replay",
        .cfg = {.trace_path = "-", .max_buffered = 50},
        .gpu = 1,
        .samples = 10,
        .windows = 1,
        .start = NAN,
        .clf = &wt_classifier_physics,
    };
    struct wt_run_outcome out;
    struct wt_err err;
    assert_int_equal(wt_run_classify(&rq, &out, &err), WT_ENODEV);
    if (!strstr(err.msg, "no GPU 1 in this trace (GPUs: 0)"))
        fail_msg("%s", err.msg);
    wt_run_free(&out);
    unlink(path);
}

/* A stream's other GPUs are its peers, as a file's are: the same cross-GPU
 * features from standard input as from the file (a stream had no peers:
 * an nvidia-smi pipe of 8 GPUs in training lost its peer_sync, and with it
 * the MISMATCH the file gave); with --peers none, none. */
static void test_stream_peers(void **state)
{
    (void)state;
    static char text[65536];
    size_t len = (size_t)snprintf(text, sizeof(text),
                                  "# format: workloadtruth-trace/1\n# gpu_model: NVIDIA H100\n"
                                  "# power_semantics: instant\nt_s,gpu,util_gpu_pct,power_w\n");
    for (int i = 0; i < 400; i++) /* 10 Hz, steps of 1 s on both GPUs together */
        for (int g = 0; g < 2; g++)
            len += (size_t)snprintf(text + len, sizeof(text) - len, "%.1f,%d,%d,%d\n", i / 10.0, g,
                                    i % 10 < 7 ? 100 : 10, i % 10 < 7 ? 650 : 200);
    const char *path = tu_temp(text);
    struct wt_run_request rq = {
        .backend = "replay",
        .cfg = {.trace_path = path},
        .gpu = 1,
        .samples = 100,
        .windows = 3,
        .start = NAN,
        .clf = &wt_classifier_physics,
    };
    struct wt_run_outcome file, in;
    struct wt_err err;
    assert_int_equal(wt_run_classify(&rq, &file, &err), WT_OK);
    assert_non_null(freopen(path, "r", stdin));
    rq.cfg.trace_path = "-";
    assert_int_equal(wt_run_classify(&rq, &in, &err), WT_OK);
    assert_int_equal(file.n, 3);
    assert_int_equal(in.n, 3);
    for (size_t w = 0; w < 3; w++) {
        double a = file.w[w].features.v[WT_F_PEER_SYNC], b = in.w[w].features.v[WT_F_PEER_SYNC];
        assert_true(isfinite(a) && a > 0.9);
        assert_true(a == b);
    }
    wt_run_free(&in);
    assert_non_null(freopen(path, "r", stdin));
    rq.alone = 1;
    assert_int_equal(wt_run_classify(&rq, &in, &err), WT_OK);
    assert_true(isnan(in.w[0].features.v[WT_F_PEER_SYNC]));
    wt_run_free(&in);
    wt_run_free(&file);
    unlink(path);
}

/* A record to log, and a stop asked (the MCP call cancelled, the server
 * stopping) while the log is verified: nothing appended, WT_ESTOP; the same
 * record goes in once no stop is asked. */
static void test_log_result_cancelled(void **state)
{
    (void)state;
    struct wt_run_request rq = {
        .backend = "synthetic",
        .cfg = {.profile = "idle", .seed = 3},
        .samples = 10,
        .windows = 1,
        .start = NAN,
        .clf = &wt_classifier_physics,
    };
    struct wt_run_outcome out;
    struct wt_err err = {{0}};
    memset(&out, 0, sizeof(out));
    assert_int_equal(wt_run_classify(&rq, &out, &err), WT_OK);
    char dir[] = "/tmp/wt_test_logcancel_XXXXXX";
    assert_non_null(mkdtemp(dir));
    atomic_int stop = 0;
    struct wt_run_log_opts lo = {"synthetic:idle", NULL, 0, "test_verdict", NULL, &stop};
    json_t *where = NULL;
    /* creates the log (a line on stderr with its verifier key), appends */
    if (wt_run_log_result(&out, dir, &lo, &where, &err) != WT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(json_integer_value(json_object_get(where, "seq")), 1);
    json_decref(where);
    char log[128];
    snprintf(log, sizeof(log), "%s/log.jsonl", dir);
    struct stat before, after;
    assert_int_equal(stat(log, &before), 0);
    stop = 1;
    where = NULL;
    assert_int_equal(wt_run_log_result(&out, dir, &lo, &where, &err), WT_ESTOP);
    assert_null(where);
    assert_contains(err.msg, "a stop was asked");
    assert_int_equal(stat(log, &after), 0);
    assert_int_equal(after.st_size, before.st_size);
    stop = 0;
    if (wt_run_log_result(&out, dir, &lo, &where, &err) != WT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(json_integer_value(json_object_get(where, "seq")), 2);
    json_decref(where);
    wt_run_free(&out);
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_class_names),
        cmocka_unit_test(test_job),
        cmocka_unit_test(test_job_features),
        cmocka_unit_test(test_trace_ends_early),
        cmocka_unit_test(test_stream_without_gpu),
        cmocka_unit_test(test_stream_peers),
        cmocka_unit_test(test_log_result_cancelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
