/* The evaluation harness: window scoring rule (80% label share, short and
 * unlabelled windows skipped), confusion counts, directory walking, a file
 * named twice (or a copy of it) read once, and the JSON report's shape.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include <sys/stat.h>

#include "eval/eval.h"
#include "eval/trainset.h"
#include "output/output.h"

static char dir[64];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* 1 Hz, 2 GPUs, 125 s.  GPU 0: TRAINING 0..59 s (steady, growing memory),
 * IDLE 60..124 s; rows 40..47 unlabelled (window [30,60) keeps 22/30 = 73%:
 * skipped).  GPU 1: never labelled. */
static char *make_trace(void)
{
    size_t cap = 64 * 1024, off = 0;
    char *t = malloc(cap);
    off += (size_t)snprintf(
        t + off, cap - off,
        "# gpu_model: Test GPU\nt_s,gpu,util_gpu_pct,mem_used_mib,power_w,label\n");
    for (int i = 0; i < 125; i++) {
        int train = i < 60;
        const char *label = (i >= 40 && i < 48) ? "" : (train ? "TRAINING" : "IDLE");
        off += (size_t)snprintf(t + off, cap - off, "%d,0,%d,%d,%d,%s\n", i, train ? 88 : 0,
                                train ? 1000 + 120 * i : 500, train ? 340 : 30, label);
        off += (size_t)snprintf(t + off, cap - off, "%d,1,50,500,100,\n", i);
    }
    return t;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/wt_eval_XXXXXX");
    assert_non_null(mkdtemp(dir));
    char *t = make_trace();
    write_file("a.csv", t);
    free(t);
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    mkdir(sub, 0700);
    write_file("sub/b.csv", "# label: INFERENCE\nt_s,util_gpu_pct,power_w\n"
                            "0,10,100\n1,60,200\n2,10,100\n3,60,200\n4,10,100\n5,60,200\n");
    write_file("notes.csv", "name,value\nx,1\n");
    write_file("readme.txt", "not a csv\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_gpu_family(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"NVIDIA H100 80GB HBM3", "H100"},
        {"NVIDIA H100", "H100"},
        {"Tesla V100-SXM2-32GB", "V100"},
        {"NVIDIA TITAN X", "TITAN X"},
        {"NVIDIA A100-SXM4-80GB", "A100"},
        {"NVIDIA GeForce RTX 4090", "RTX 4090"},
        {"NVIDIA GeForce GTX 1080 Ti", "GTX 1080"},
        {"NVIDIA RTX A6000", "RTX A6000"},
        {"Quadro RTX 8000", "QUADRO RTX"},
        /* case and separators as the rated-power table reads them */
        {"NVIDIA-H100-80GB-HBM3", "H100"},
        {"nvidia h100 80gb hbm3", "H100"},
        {"NVIDIA_H100_80GB_HBM3", "H100"},
        {"  Tesla  V100", "V100"},
    };
    char fam[64];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        wt_eval_gpu_family(cases[i][0], fam, sizeof(fam));
        assert_string_equal(fam, cases[i][1]);
    }
}

static void test_scoring(void **state)
{
    (void)state;
    struct wt_eval_opts o = {.window_s = 30, .clf = &wt_classifier_rules};
    struct wt_eval_report rep;
    struct wt_err err;
    char path[256];
    snprintf(path, sizeof(path), "%s/a.csv", dir);
    wt_eval_init(&rep, &o);
    assert_int_equal(wt_eval_add_path(&rep, path, &o, &err), WT_OK);
    assert_int_equal(rep.nfiles, 1);
    const struct wt_eval_counts *c = &rep.files[0].c;
    /* GPU 0: [0,30) TRAINING, [30,60) 73% labelled -> unlabelled, [60,90) IDLE,
     * [90,120) IDLE, [120,125) IDLE but spans 4 s -> short.  GPU 1: 5 unlabelled. */
    assert_int_equal(c->scored, 3);
    assert_int_equal(c->correct, 3);
    assert_int_equal(c->skipped_unlabelled, 6);
    assert_int_equal(c->skipped_short, 1);
    assert_int_equal(c->confusion[WT_CLASS_TRAINING][WT_CLASS_TRAINING], 1);
    assert_int_equal(c->confusion[WT_CLASS_IDLE][WT_CLASS_IDLE], 2);
    assert_string_equal(rep.files[0].gpu_model, "Test GPU");
    assert_true(wt_eval_class_accuracy(c, WT_CLASS_IDLE) == 1.0);
    assert_true(isnan(wt_eval_class_accuracy(c, WT_CLASS_INFERENCE)));
    wt_eval_free(&rep);
}

static void test_directory(void **state)
{
    (void)state;
    struct wt_eval_opts o = {.window_s = 5, .clf = &wt_classifier_rules};
    struct wt_eval_report rep;
    struct wt_err err;
    wt_eval_init(&rep, &o);
    assert_int_equal(wt_eval_add_path(&rep, dir, &o, &err), WT_OK);
    assert_int_equal(rep.nfiles, 2); /* a.csv, sub/b.csv; readme.txt ignored */
    assert_int_equal(rep.skipped_files.n, 1);
    assert_contains(rep.skipped_files.v[0].path, "notes.csv");
    assert_null(rep.skipped_files.v[0].same_as);
    assert_contains(rep.files[1].path, "sub/b.csv");
    assert_string_equal(rep.files[1].group, "sub");
    /* b.csv: metadata label INFERENCE; 6 rows at 1 Hz; window [0,5) -> 5 rows
     * (util 10/60 alternating: inference), [5,10) -> 1 row: short */
    assert_int_equal(rep.files[1].c.scored, 1);
    assert_int_equal(rep.files[1].c.confusion[WT_CLASS_INFERENCE][WT_CLASS_INFERENCE], 1);
    assert_int_equal(rep.files[1].c.skipped_short, 1);

    json_t *j = wt_json_eval(&rep);
    assert_non_null(j);
    const char *keys[] = {"classifier", "window_seconds", "files",      "model",
                          "holdout",    "windows",        "correct",    "accuracy",
                          "skipped",    "per_class",      "confusion",  "false_training_rate",
                          "per_source", "per_file",       "not_traces", "copies"};
    const char *key;
    json_t *v;
    size_t i = 0;
    json_object_foreach(j, key, v)
    {
        assert_true(i < sizeof(keys) / sizeof(keys[0]));
        assert_string_equal(key, keys[i]);
        i++;
    }
    assert_int_equal(json_integer_value(json_object_get(j, "files")), 2);
    assert_true(json_is_null(json_object_get(j, "holdout"))); /* the model as given */
    assert_int_equal(json_array_size(json_object_get(j, "per_file")), 2);
    assert_int_equal(json_array_size(json_object_get(j, "per_source")), 2);
    json_t *conf = json_object_get(json_object_get(j, "confusion"), "IDLE");
    assert_non_null(json_object_get(conf, "UNKNOWN"));
    json_decref(j);
    wt_eval_free(&rep);

    /* errors: a missing path, and a named file that is not a trace */
    wt_eval_init(&rep, &o);
    assert_int_equal(wt_eval_add_path(&rep, "/nonexistent", &o, &err), WT_EIO);
    assert_contains(err.msg, "cannot open '/nonexistent'");
    char path[256];
    snprintf(path, sizeof(path), "%s/notes.csv", dir);
    assert_int_equal(wt_eval_add_path(&rep, path, &o, &err), WT_EFORMAT);
    assert_contains(err.msg, "notes.csv:1: header names no known column");
    wt_eval_free(&rep);
}

/* A file named twice, or a file and its directory, is read once: by eval
 * (scored once) and by the training set (learnt once). */
static void test_named_twice(void **state)
{
    (void)state;
    struct wt_eval_opts o = {.window_s = 5, .clf = &wt_classifier_rules};
    struct wt_eval_report rep;
    struct wt_err err;
    char a[256], a2[256];
    snprintf(a, sizeof(a), "%s/a.csv", dir);
    snprintf(a2, sizeof(a2), "%s/sub/../a.csv", dir);
    wt_eval_init(&rep, &o);
    assert_int_equal(wt_eval_add_path(&rep, a, &o, &err), WT_OK);
    assert_int_equal(wt_eval_add_path(&rep, a2, &o, &err), WT_OK);
    assert_int_equal(wt_eval_add_path(&rep, dir, &o, &err), WT_OK);
    assert_int_equal(rep.nfiles, 2); /* a.csv once, then sub/b.csv */
    assert_contains(rep.files[1].path, "sub/b.csv");
    /* notes.csv, met in the walk as "not a trace", is still an error when named */
    char notes[256];
    snprintf(notes, sizeof(notes), "%s/notes.csv", dir);
    assert_int_equal(wt_eval_add_path(&rep, notes, &o, &err), WT_EFORMAT);
    wt_eval_free(&rep);

    struct wt_train_config c = wt_train_default;
    c.window_s = 5;
    struct wt_trainset once = {0}, twice = {0};
    assert_int_equal(wt_trainset_add(&once, dir, &c, &err), WT_OK);
    assert_int_equal(wt_trainset_add(&twice, dir, &c, &err), WT_OK);
    assert_int_equal(wt_trainset_add(&twice, a, &c, &err), WT_OK);
    assert_int_equal(wt_trainset_add(&twice, dir, &c, &err), WT_OK);
    assert_true(once.n > 0);
    assert_int_equal(twice.n, once.n);
    assert_int_equal(twice.nfiles, once.nfiles);
    /* a copy of a.csv under another name: learnt once, listed once (not per view) */
    char copy[300], cmd[700];
    snprintf(copy, sizeof(copy), "%s/sub/a_copy.csv", dir);
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", a, copy);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(wt_trainset_add(&twice, copy, &c, &err), WT_OK);
    assert_int_equal(twice.n, once.n);
    assert_int_equal(twice.skipped_files.n, 2); /* notes.csv, the copy */
    assert_string_equal(twice.skipped_files.v[1].path, copy);
    assert_string_equal(twice.skipped_files.v[1].same_as, a);
    unlink(copy);
    /* ... and one with a comment line more and CRLF line ends: its data are
     * a.csv's (it was learnt twice, and in the fold holding out a.csv's
     * folder) */
    snprintf(copy, sizeof(copy), "%s/sub/a_note.csv", dir);
    snprintf(cmd, sizeof(cmd), "{ echo '# note: re-exported'; sed 's/$/\r/' '%s'; } > '%s'", a,
             copy);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(wt_trainset_add(&twice, copy, &c, &err), WT_OK);
    assert_int_equal(twice.n, once.n);
    assert_int_equal(twice.skipped_files.n, 3);
    assert_string_equal(twice.skipped_files.v[2].same_as, a);
    unlink(copy);
    /* ... and one with an empty metadata line more, which the reader reads
     * as absent */
    snprintf(copy, sizeof(copy), "%s/sub/a_empty.csv", dir);
    snprintf(cmd, sizeof(cmd), "{ echo '# power_semantics:'; cat '%s'; } > '%s'", a, copy);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(wt_trainset_add(&twice, copy, &c, &err), WT_OK);
    assert_int_equal(twice.n, once.n);
    assert_int_equal(twice.skipped_files.n, 4);
    assert_string_equal(twice.skipped_files.v[3].same_as, a);
    unlink(copy);
    /* ... and one with a blank line more and without its last newline,
     * which the reader reads alike (counted twice until 2026-12-08) */
    snprintf(copy, sizeof(copy), "%s/sub/a_trim.csv", dir);
    snprintf(cmd, sizeof(cmd), "sed '2a\\\\' '%s' | head -c -1 > '%s'", a, copy);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(wt_trainset_add(&twice, copy, &c, &err), WT_OK);
    assert_int_equal(twice.n, once.n);
    assert_int_equal(twice.skipped_files.n, 5);
    assert_string_equal(twice.skipped_files.v[4].same_as, a);
    unlink(copy);
    /* a link to a.csv in another folder stands in that folder too: said as
     * a copy, so --holdout source holds the two folders out together (it
     * was read once, silently, under the folder met first); a.csv named
     * again is not said */
    snprintf(copy, sizeof(copy), "%s/sub/a_link.csv", dir);
    assert_int_equal(symlink("../a.csv", copy), 0);
    assert_int_equal(wt_trainset_add(&twice, copy, &c, &err), WT_OK);
    assert_int_equal(wt_trainset_add(&twice, a, &c, &err), WT_OK);
    assert_int_equal(twice.n, once.n);
    assert_int_equal(twice.skipped_files.n, 6);
    assert_string_equal(twice.skipped_files.v[5].path, copy);
    assert_string_equal(twice.skipped_files.v[5].same_as, a);
    unlink(copy);
    /* a link to a whole folder: its traces are that folder's, read once and
     * not said (each was listed as a copy) */
    snprintf(copy, sizeof(copy), "%s/sublink", dir);
    assert_int_equal(symlink("sub", copy), 0);
    assert_int_equal(wt_trainset_add(&twice, copy, &c, &err), WT_OK);
    assert_int_equal(twice.n, once.n);
    assert_int_equal(twice.skipped_files.n, 6);
    unlink(copy);
    wt_trainset_free(&once);
    wt_trainset_free(&twice);

    /* a header without rows (nvidia-smi killed at once) met in a directory
     * is skipped as an empty file is (it stopped eval and train); named, an
     * error still */
    char hdir[256], hdr[300];
    snprintf(hdir, sizeof(hdir), "%s/hdr", dir);
    assert_int_equal(mkdir(hdir, 0700), 0);
    snprintf(hdr, sizeof(hdr), "%s/killed.csv", hdir);
    FILE *f = fopen(hdr, "w");
    assert_non_null(f);
    fputs("timestamp, index, utilization.gpu [%], power.draw [W]\n", f);
    fclose(f);
    wt_eval_init(&rep, &o);
    assert_int_equal(wt_eval_add_path(&rep, hdir, &o, &err), WT_OK);
    assert_int_equal(rep.skipped_files.n, 1);
    assert_null(rep.skipped_files.v[0].same_as);
    assert_int_equal(wt_eval_add_path(&rep, hdr, &o, &err), WT_EINVAL);
    assert_contains(err.msg, "the trace has no data rows");
    wt_eval_free(&rep);
    unlink(hdr);
    rmdir(hdir);
}

static int same_value(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* train --retime: the same windows, classes and levels; at the native rate the
 * times (so the sample period) moved, at 1 Hz nothing; the same copies
 * whatever path names the traces. */
static void test_retime(void **state)
{
    (void)state;
    struct wt_err err;
    struct wt_train_config c = wt_train_default;
    c.window_s = 5;
    struct wt_trainset plain = {0}, re = {0}, re2 = {0};
    assert_int_equal(wt_trainset_add(&plain, dir, &c, &err), WT_OK);
    c.retime = 1;
    assert_int_equal(wt_trainset_add(&re, dir, &c, &err), WT_OK);
    char other[256];
    snprintf(other, sizeof(other), "%s/sub/..", dir);
    assert_int_equal(wt_trainset_add(&re2, other, &c, &err), WT_OK);
    assert_true(plain.n > 0);
    assert_int_equal(re.n, plain.n);
    assert_int_equal(re2.n, plain.n);
    size_t moved = 0, same = 0;
    for (size_t i = 0; i < plain.n; i++) {
        assert_int_equal(re.y[i], plain.y[i]);
        assert_int_equal(re.file[i], plain.file[i]);
        assert_true(same_value(re.x[i].v[WT_F_AVG_GPU_UTIL], plain.x[i].v[WT_F_AVG_GPU_UTIL]));
        assert_true(same_value(re.x[i].v[WT_F_AVG_POWER], plain.x[i].v[WT_F_AVG_POWER]));
        assert_memory_equal(re2.x[i].v, re.x[i].v, sizeof(re.x[i].v));
        if (!memcmp(re.x[i].v, plain.x[i].v, sizeof(re.x[i].v)))
            same++;
        else if (re.x[i].v[WT_F_SAMPLE_PERIOD] != plain.x[i].v[WT_F_SAMPLE_PERIOD])
            moved++;
    }
    assert_true(moved > 0); /* native-rate views */
    assert_true(same > 0);  /* 1 Hz views */
    assert_int_equal(moved + same, plain.n);
    wt_trainset_free(&plain);
    wt_trainset_free(&re);
    wt_trainset_free(&re2);
}

/* A file's source is its folder's name, however the path spells it: "f.csv"
 * (the current folder), "sub/./f.csv", "sub/x/../f.csv" were all "." or
 * "..", one source for every such file; read as cd does, links kept. */
static void test_group_names(void **state)
{
    (void)state;
    char sub[128], cwd[512], p[300];
    snprintf(sub, sizeof(sub), "%s/mysrc", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(p, sizeof(p), "%s/inner", sub);
    assert_int_equal(mkdir(p, 0700), 0);
    const char *want[][2] = {{"a/b/f.csv", "b"}, {"b//f.csv", "b"}, {"/f.csv", "/"}};
    for (size_t i = 0; i < 3; i++) {
        char *g = wt_ds_group(want[i][0]);
        assert_string_equal(g, want[i][1]);
        free(g);
    }
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(sub), 0);
    const char *here[] = {"f.csv", "./f.csv", "inner/../f.csv", "inner/./../f.csv"};
    for (size_t i = 0; i < 4; i++) {
        char *g = wt_ds_group(here[i]);
        if (strcmp(g, "mysrc"))
            fail_msg("%s: source '%s', wanted 'mysrc'", here[i], g);
        free(g);
    }
    char *g = wt_ds_group("inner/./f.csv");
    assert_string_equal(g, "inner");
    free(g);
    g = wt_ds_group("gone/../f.csv"); /* as cd reads it: no need to exist */
    assert_string_equal(g, "mysrc");
    free(g);
    /* a link is named as written, in every spelling (not its target, which
     * some spellings gave and others did not), and standard input is of
     * "stdin" (not the current folder's name) */
    assert_int_equal(symlink("inner", "alias"), 0);
    const char *linked[] = {"alias/f.csv", "alias/./f.csv", "alias//f.csv", "inner/../alias/f.csv"};
    for (size_t i = 0; i < 4; i++) {
        g = wt_ds_group(linked[i]);
        if (strcmp(g, "alias"))
            fail_msg("%s: source '%s', wanted 'alias'", linked[i], g);
        free(g);
    }
    char inside[300];
    snprintf(inside, sizeof(inside), "%s/alias", sub);
    assert_int_equal(chdir("alias"), 0);
    assert_int_equal(setenv("PWD", inside, 1), 0); /* as a shell's cd alias */
    g = wt_ds_group("f.csv");
    assert_string_equal(g, "alias");
    free(g);
    assert_int_equal(unsetenv("PWD"), 0); /* no $PWD: the folder itself */
    g = wt_ds_group("f.csv");
    assert_string_equal(g, "inner");
    free(g);
    g = wt_ds_group("-");
    assert_string_equal(g, "stdin");
    free(g);
    assert_int_equal(chdir(cwd), 0);
    snprintf(inside, sizeof(inside), "%s/alias", sub);
    unlink(inside);
    rmdir(p);
    rmdir(sub);
}

/* A report of --holdout says how its models were trained as the options of
 * `train`: the shipped settings as train's "made by" line writes them, every
 * other one named, and too small a buffer is an error, not a silent cut. */
static void test_train_args(void **state)
{
    (void)state;
    char buf[512];
    struct wt_train_config c = wt_train_default;
    assert_int_equal(wt_train_config_args(&c, 1, buf, sizeof(buf)), 0);
    assert_string_equal(buf, "--window 30 --rounds 300 --depth 3 --simulate 60 "
                             "--sim-weight 0.4 --python-windows 40 --alone-views 1");
    const enum wt_feature fl[] = {WT_F_SPIN_FRAC, WT_F_ON_LEN};
    c.features = fl;
    c.nfeatures = 2;
    c.retime = 1;
    c.sim_seed = 4294967295u;
    c.sim_weight = 0.125;
    c.missing_stop = 1;
    c.trace_opts.rows_per_tick = 8;
    c.trace_opts.interval_s = 0.5;
    assert_int_equal(wt_train_config_args(&c, 1, buf, sizeof(buf)), 0);
    assert_string_equal(buf, "--window 30 --rounds 300 --depth 3 --simulate 60 "
                             "--sim-weight 0.125 --python-windows 40 --alone-views 1 "
                             "--features spin_frac,on_len_s "
                             "--retime 1 --sim-seed 4294967295 --missing stop --gpus-per-tick 8 "
                             "--interval 0.5");
    assert_int_equal(wt_train_config_args(&c, 0, buf, sizeof(buf)), 0);
    assert_non_null(strstr(buf, "--alone-views 1 --features (listed below) --retime 1"));
    assert_int_equal(wt_train_config_args(&c, 1, buf, 40), -1);
    assert_int_equal(strlen(buf), 39);
    assert_int_equal(wt_train_config_args(&c, 1, buf, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_family),  cmocka_unit_test(test_scoring),
        cmocka_unit_test(test_directory),   cmocka_unit_test(test_named_twice),
        cmocka_unit_test(test_group_names), cmocka_unit_test(test_retime),
        cmocka_unit_test(test_train_args),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
