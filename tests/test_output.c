/* Output: the Python tool's JSON shape (key order, 4-decimal rounding, 6
 * significant digits for the other features, shortest numbers, null for not
 * measured), text layout, and the text
 * hygiene that keeps hostile names and huge values from breaking JSON,
 * Prometheus and the audit log.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "export/metrics.h"
#include "output/output.h"
#include "util/num.h"
#include "util/text.h"

static void make_result(struct wt_result *r)
{
    memset(r, 0, sizeof(*r));
    r->cls = WT_CLASS_IDLE;
    r->confidence = 1.0 - 0.2 / 5 * 0.3; /* 0.988 with float noise */
    r->gpu_index = 2;
    r->window_seconds = 9.0;
    r->sample_count = 10;
    r->classifier = &wt_classifier_rules;
    for (int i = 0; i < WT_NFEATURES; i++)
        r->features.v[i] = NAN;
    r->features.v[WT_F_AVG_GPU_UTIL] = 0.2;
    r->features.v[WT_F_AVG_POWER] = 35.123456;
    r->features.v[WT_F_MEM_GROWTH] = -0.0;
    wt_result_add_reason(r, WT_F_AVG_GPU_UTIL, 0.2, WT_CLASS_IDLE,
                         "avg GPU utilization %.1f%% <= idle threshold %.1f%%", 0.2, 5.0);
}

static void test_json_result(void **state)
{
    (void)state;
    struct wt_result r;
    make_result(&r);
    json_t *j = wt_json_result(&r);
    assert_non_null(j);
    char *s = json_dumps(j, WT_JSON_FLAGS);
    const char *want = "{\n"
                       "  \"workload_type\": \"IDLE\",\n"
                       "  \"confidence\": 0.988,\n"
                       "  \"gpu_index\": 2,\n"
                       "  \"window_seconds\": 9.0,\n"
                       "  \"sample_count\": 10,\n"
                       "  \"reasons\": [\n"
                       "    \"avg GPU utilization 0.2% <= idle threshold 5.0%\"\n"
                       "  ],\n"
                       "  \"features\": {\n"
                       "    \"avg_gpu_util_pct\": 0.2,\n"
                       "    \"std_gpu_util_pct\": null,\n"
                       "    \"mem_growth_mib_per_sample\": 0.0,\n"
                       "    \"avg_power_watts\": 35.1235,\n"
                       "    \"std_power_watts\": null,\n"
                       "    \"avg_process_count\": null\n"
                       "  },\n"
                       "  \"classifier\": \"rules\",\n"
                       "  \"evidence\": [\n"
                       "    {\n"
                       "      \"feature\": \"avg_gpu_util_pct\",\n"
                       "      \"value\": 0.2,\n"
                       "      \"favours\": \"IDLE\"\n"
                       "    }\n"
                       "  ],\n"
                       "  \"tamper_indicators\": []\n"
                       "}";
    assert_string_equal(s, want);
    free(s);
    json_decref(j);
    /* physics: every evidence object has log_odds, null where the reason
     * has no weight (the IDLE rule's: an IDLE window's objects lacked it) */
    r.classifier = &wt_classifier_physics;
    j = wt_json_result(&r);
    json_t *e = json_array_get(json_object_get(j, "evidence"), 0);
    assert_non_null(json_object_get(e, "log_odds"));
    assert_true(json_is_null(json_object_get(e, "log_odds")));
    json_decref(j);
}

static void test_text_result(void **state)
{
    (void)state;
    struct wt_result r;
    make_result(&r);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    wt_text_result(f, &r);
    fclose(f);
    assert_string_equal(buf, "workload_type : IDLE\n"
                             "confidence    : 0.99\n"
                             "gpu_index     : 2\n"
                             "samples       : 10 over 9.0s\n"
                             "reasons:\n"
                             "  - avg GPU utilization 0.2% <= idle threshold 5.0%\n");
    free(buf);
}

/* A run with --model or --holdout says so (it printed the same header and
 * JSON as the built-in model's). */
static void test_benchmark_says_model(void **state)
{
    (void)state;
    struct wt_bench_report *b = malloc(sizeof(*b));
    struct wt_err err;
    assert_non_null(b);
    assert_int_equal(
        wt_benchmark_sim(&wt_classifier_rules, "sim", 1, 10, 10, 0, NULL, NULL, b, &err), WT_OK);
    json_t *j = wt_json_benchmark(b);
    assert_true(json_is_null(json_object_get(j, "model")));
    assert_true(json_is_null(json_object_get(j, "holdout")));
    json_decref(j);
    b->model = "m.model";
    b->holdout = "family";
    j = wt_json_benchmark(b);
    assert_string_equal(json_string_value(json_object_get(j, "model")), "m.model");
    assert_string_equal(json_string_value(json_object_get(j, "holdout")), "family");
    json_decref(j);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    wt_text_benchmark(f, b);
    fclose(f);
    assert_non_null(strstr(buf, "seed 0, model m.model, each family scored by a model trained "
                                "without it\n"));
    free(buf);

    /* the window and rate as given, so that the run can be repeated from
     * its output (4 decimals said 0.3333 Hz of 0.333333) */
    assert_int_equal(wt_benchmark_sim(&wt_classifier_rules, "sim", 1, 30.123456, 0.333333, 0, NULL,
                                      NULL, b, &err),
                     WT_OK);
    j = wt_json_benchmark(b);
    assert_true(json_real_value(json_object_get(j, "window_seconds")) == 30.123456);
    assert_true(json_real_value(json_object_get(j, "sample_hz")) == 0.333333);
    json_decref(j);
    f = open_memstream(&buf, &len);
    assert_non_null(f);
    wt_text_benchmark(f, b);
    fclose(f);
    assert_non_null(strstr(buf, "30.123456-second windows at 0.333333 Hz"));
    free(buf);
    free(b);
}

static void test_json_benchmark(void **state)
{
    (void)state;
    struct wt_bench_report b;
    struct wt_err err;
    assert_int_equal(wt_benchmark_seed(&wt_classifier_rules, 30, 30, 0, &b, &err), WT_OK);
    json_t *j = wt_json_benchmark(&b);
    const char *keys[] = {"source",         "note",
                          "window_size",    "trials_per_cell",
                          "clean_accuracy", "evasion_accuracy",
                          "cells",          "suite",
                          "classifier",     "seed",
                          "model"};
    const char *key;
    json_t *v;
    size_t i = 0;
    json_object_foreach(j, key, v)
    {
        assert_string_equal(key, keys[i]);
        i++;
    }
    assert_int_equal(i, 11);
    assert_true(json_is_null(json_object_get(j, "model")));
    assert_string_equal(json_string_value(json_object_get(j, "source")), "synthetic");
    assert_true(json_real_value(json_object_get(j, "evasion_accuracy")) == 0.6667);
    json_t *cell = json_array_get(json_object_get(j, "cells"), 1);
    const char *ckeys[] = {"profile", "evasion", "trials", "correct", "accuracy"};
    i = 0;
    json_object_foreach(cell, key, v)
    {
        assert_string_equal(key, ckeys[i]);
        i++;
    }
    assert_true(json_is_true(json_object_get(cell, "evasion")));
    assert_true(json_real_value(json_object_get(cell, "accuracy")) == 0.0);
    json_decref(j);
}

/* Features beyond the Python tool's six keep 6 significant digits (the model
 * file's precision): 4 decimals turned a slope of 3e-05 into 0. */
static void test_feature_precision(void **state)
{
    (void)state;
    struct wt_result r;
    make_result(&r);
    r.classifier = &wt_classifier_physics;
    r.features.v[WT_F_MEM_SLOPE] = 3.14159e-05;
    r.features.v[WT_F_PEER_SYNC] = -0.000186189;
    r.features.v[WT_F_DUTY] = 0.123456789;
    json_t *j = wt_json_result(&r);
    assert_non_null(j);
    json_t *f = json_object_get(j, "features");
    assert_true(json_real_value(json_object_get(f, "mem_slope_frac_per_min")) == 3.14159e-05);
    assert_true(json_real_value(json_object_get(f, "peer_sync")) == -0.000186189);
    assert_true(json_real_value(json_object_get(f, "duty")) == 0.123457);
    assert_true(json_real_value(json_object_get(f, "avg_power_watts")) == 35.1235);
    json_decref(j);
}

/* Numbers near DBL_MAX: rounding used to overflow to inf, and json_real(inf)
 * is NULL, which dropped the whole JSON result. */
static void test_huge_numbers(void **state)
{
    (void)state;
    assert_true(wt_round(1e308, 4) == 1e308);
    assert_true(wt_round(-1.7e308, 2) == -1.7e308);
    assert_true(wt_round(2.71828, 2) == 2.72);
    json_t *v = wt_json_number(1e308, 4);
    assert_non_null(v);
    assert_true(json_real_value(v) == 1e308);
    json_decref(v);
    v = wt_json_number(INFINITY, 4);
    assert_true(json_is_null(v));
    json_decref(v);
    struct wt_result r;
    make_result(&r);
    r.features.v[WT_F_AVG_POWER] = 1e308;
    json_t *o = wt_json_result(&r);
    assert_non_null(o);
    json_decref(o);
}

static void test_text_hygiene(void **state)
{
    (void)state;
    char a[] = "NVIDIA A100\x7f \x1b[31m red \xff\xfe caf\xc3\xa9 \xe2\x82";
    assert_string_equal(wt_text_clean(a), "NVIDIA A100? ?[31m red ?? caf\xc3\xa9 ??");
    json_t *j = json_string(a); /* valid UTF-8 now */
    assert_non_null(j);
    json_decref(j);
    /* C1 controls (U+009B CSI, U+009D OSC, U+009C ST: 8-bit escapes a terminal
     * may act on) went through; U+00A0 and above are text */
    char c1[] = "EVIL\xc2\x9b"
                "2J\xc2\x9d"
                "0;x\xc2\x9c \xc2\xa0\xc2\xbf";
    assert_string_equal(wt_text_clean(c1), "EVIL??2J??0;x?? \xc2\xa0\xc2\xbf");
    /* characters that reorder text (U+202E right-to-left override, U+2066
     * isolate, U+200F mark, U+061C Arabic letter mark): a name showed its
     * end first on a terminal; other text above U+2000 stays */
    char bidi[] = "a\xe2\x80\xae"
                  "b\xe2\x81\xa6"
                  "c\xe2\x80\x8f"
                  "d\xd8\x9c"
                  "e\xe2\x80\xa6\xe2\x82\xac";
    assert_string_equal(wt_text_clean(bidi), "a???b???c???d??e\xe2\x80\xa6\xe2\x82\xac");
    /* invisible ones too (U+200B zero-width space, U+2060 word joiner,
     * U+FEFF, U+00AD soft hyphen): "GPU1" and "GPU1" + U+200B read as one */
    char zw[] = "G\xe2\x80\x8b"
                "P\xe2\x81\xa0"
                "U\xef\xbb\xbf"
                "x\xc2\xad"
                "1";
    assert_string_equal(wt_text_clean(zw), "G???P???U???x??1");
    /* and the rest of Unicode's default-ignorable code points: a tag
     * character (U+E0020), a Hangul filler (U+3164), a variation selector
     * (U+FE0F), U+034F, U+180E; text beside them stays */
    char di[] = "a\xf3\xa0\x80\xa0"
                "b\xe3\x85\xa4"
                "c\xef\xb8\x8f"
                "d\xcd\x8f"
                "e\xe1\xa0\x8e"
                "f\xe3\x85\xa3";
    assert_string_equal(wt_text_clean(di), "a????b???c???d??e???f\xe3\x85\xa3");
    /* cut points: never inside a sequence */
    const char *e = "ab\xc3\xa9\xe2\x82\xac";
    assert_int_equal(wt_utf8_cut(e, 7), 7);
    assert_int_equal(wt_utf8_cut(e, 6), 4);
    assert_int_equal(wt_utf8_cut(e, 5), 4);
    assert_int_equal(wt_utf8_cut(e, 4), 4);
    assert_int_equal(wt_utf8_cut(e, 3), 2);
    /* a Prometheus label value: escaped, valid UTF-8 even when cut */
    char out[32];
    wt_metrics_escape("x\"y\\z\n\xff\r", out, sizeof(out));
    assert_string_equal(out, "x\\\"y\\\\z\\n??");
    wt_metrics_escape("abcdefg\xc3\xa9\xc3\xa9", out, 12);
    assert_string_equal(out, "abcdefg\xc3\xa9");
}

/* A class record's GPU id for a trace without UUIDs: the source label and the
 * index, whole when short; a long label is cut with a hash of the whole, so
 * two traces named alike up to the cut stay two GPUs (cut at 60 bytes, they
 * were one) and the id stays within the log's 128 bytes. */
static void test_class_record_gpu_id(void **state)
{
    (void)state;
    struct wt_result r;
    make_result(&r);
    struct wt_device_info info;
    memset(&info, 0, sizeof(info));
    info.index = 65535;
    char a[220], b[220];
    snprintf(a, sizeof(a),
             "replay:node17_slurm_job_4242_partition_gpu-a100_run_2026-12-07_%s_0.csv",
             "step_with_a_longer_name_than_sixty_bytes_and_more_words_here");
    snprintf(b, sizeof(b), "%s", a);
    b[strlen(b) - 5] = '1'; /* ..._1.csv */
    json_t *ja = wt_json_class_record(&r, &info, a, 10, 0, 9, &wt_classifier_rules, "");
    json_t *jb = wt_json_class_record(&r, &info, b, 10, 0, 9, &wt_classifier_rules, "");
    assert_non_null(ja);
    assert_non_null(jb);
    const char *ga = json_string_value(json_object_get(ja, "gpu"));
    const char *gb = json_string_value(json_object_get(jb, "gpu"));
    assert_non_null(ga);
    assert_non_null(gb);
    assert_true(strlen(a) > 96);
    assert_string_not_equal(ga, gb);
    assert_true(strlen(ga) <= 127);
    assert_int_equal(strncmp(ga, a, 96), 0);
    assert_int_equal(ga[96], '~');
    assert_string_equal(ga + strlen(ga) - 6, ":65535");
    json_decref(ja);
    json_decref(jb);
    /* the largest index still whole (it was cut with a 100-byte prefix) */
    info.index = -2147483647 - 1;
    ja = wt_json_class_record(&r, &info, a, 10, 0, 9, &wt_classifier_rules, "");
    ga = json_string_value(json_object_get(ja, "gpu"));
    assert_string_equal(ga + strlen(ga) - 12, ":-2147483648");
    json_decref(ja);
    info.index = 0;
    json_t *js =
        wt_json_class_record(&r, &info, "replay:job-7.trace", 10, 0, 9, &wt_classifier_rules, "");
    assert_string_equal(json_string_value(json_object_get(js, "gpu")), "replay:job-7.trace:0");
    json_decref(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_result),       cmocka_unit_test(test_text_result),
        cmocka_unit_test(test_json_benchmark),    cmocka_unit_test(test_benchmark_says_model),
        cmocka_unit_test(test_huge_numbers),      cmocka_unit_test(test_text_hygiene),
        cmocka_unit_test(test_feature_precision), cmocka_unit_test(test_class_record_gpu_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
