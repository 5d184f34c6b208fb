/* Trace reader: the trace format's rules, nvidia-smi CSV layouts, and
 * malformed input (bad numbers, missing header, ragged rows, huge lines,
 * binary garbage) giving file:line:column messages, never a crash.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "telemetry/trace_reader.h"
#include "telemetry/trace_writer.h"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void expect_error(const char *text, const char *needle)
{
    struct wt_err err = {{0}};
    int rc = tu_parse(text, &err);
    if (rc >= 0)
        fail_msg("expected an error containing '%s', got rc %d", needle, rc);
    assert_contains(err.msg, needle);
}

static void test_native_basic(void **state)
{
    (void)state;
    const char *t = "# format: workloadtruth-trace/1\n"
                    "# gpu_model: NVIDIA H100 80GB HBM3\n"
                    "# power_semantics: avg1s\n"
                    "# label: TRAINING\n"
                    "t_s,gpu,util_gpu_pct,power_w,clock_reasons,future_col,label\n"
                    "0.000,0,95,400.5,0x4,whatever,\n"
                    "0.5,1,,0,4,,IDLE\n"
                    "1.0,0,0,1e2,,x,inference\n";
    struct wt_trace_reader *r;
    struct wt_err err;
    struct wt_sample s;
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    const struct wt_trace_meta *m = wt_trace_meta(r);
    assert_int_equal(m->kind, WT_TRACE_NATIVE);
    assert_int_equal(m->label, WT_CLASS_TRAINING);
    assert_string_equal(m->power_semantics, "avg1s");
    assert_string_equal(wt_trace_meta_value(r, "gpu_model"), "NVIDIA H100 80GB HBM3");
    assert_null(wt_trace_meta_value(r, "nope"));

    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 0);
    assert_true(s.t_s == 0.0);
    assert_true(s.v[WT_COL_UTIL_GPU] == 95);
    assert_true(s.v[WT_COL_POWER] == 400.5);
    assert_true(s.v[WT_COL_CLOCK_REASONS] == 4);
    assert_true(isnan(s.v[WT_COL_MEM_USED]));     /* column absent: not measured */
    assert_int_equal(s.label, WT_CLASS_TRAINING); /* empty cell: the metadata label */

    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 1);
    assert_true(isnan(s.v[WT_COL_UTIL_GPU])); /* empty cell: not measured ... */
    assert_true(s.v[WT_COL_POWER] == 0.0);    /* ... never zero, and zero stays zero */
    assert_int_equal(s.label, WT_CLASS_IDLE);

    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.label, WT_CLASS_INFERENCE);
    assert_true(s.v[WT_COL_POWER] == 100.0);
    assert_int_equal(wt_trace_lineno(r), 8);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_DONE);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_DONE);
    wt_trace_close(r);
}

static void test_native_details(void **state)
{
    (void)state;
    struct wt_err err;
    /* gpu defaults to 0, CRLF line ends, BOM, blank lines, comments without key */
    const char *t = "\xEF\xBB\xBF# a comment without a key\r\n# note: free text: ok\r\n"
                    "power_w,t_s\r\n\r\n5,1\r\n6,2\r\n";
    struct wt_trace_reader *r;
    struct wt_sample s;
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_string_equal(wt_trace_meta_value(r, "note"), "free text: ok");
    assert_string_equal(wt_trace_meta(r)->power_semantics, "unknown");
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 0);
    assert_true(s.v[WT_COL_POWER] == 5 && s.t_s == 1);
    assert_int_equal(s.label, WT_CLASS_NONE);
    wt_trace_close(r);
    /* a byte-order mark before a header that follows metadata (`cat meta.txt
     * export.csv`): its first column is read (it was dropped: two GPUs' rows
     * merged into GPU 0) */
    t = "# gpu_model: NVIDIA H100 80GB HBM3\n\xEF\xBB\xBFgpu,t_s,power_w\n1,0,650\n";
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.gpu == 1 && s.t_s == 0 && s.v[WT_COL_POWER] == 650);
    wt_trace_close(r);
    /* a native header whose other columns are none the reader knows: said
     * (every window was UNKNOWN, exit 0); t_s, gpu, label alone are taken */
    expect_error("t_s,index,utilization.gpu [%],power.draw [W],label\n0,0,95,650,TRAINING\n",
                 "t.csv:1: header names no reading column (util_gpu_pct, power_w, ...: "
                 "docs/trace-format.md); not read: 'index', 'utilization.gpu [%]', "
                 "'power.draw [W]'");
    assert_int_equal(tu_parse("t_s,gpu,label\n0,0,IDLE\n", &err), WT_DONE);
    /* per-GPU lists: a GPU given twice, or an entry not GPU=VALUE, is an
     * error (the first entry won, the other was ignored, without a word) */
    expect_error("# gpu_models: 0=NVIDIA H100 80GB HBM3; 0=Tesla T4\nt_s,power_w\n0,1\n",
                 "t.csv:1: metadata 'gpu_models': GPU 0 is given twice (entry '0=Tesla T4')");
    expect_error("# power_semantics_per_gpu: 0=avg1s; x=bogus\nt_s,power_w\n0,1\n",
                 "t.csv:1: metadata 'power_semantics_per_gpu': entry 'x=bogus' is not GPU=VALUE");
    expect_error("# gpu_models: 1024=Tesla T4\nt_s,power_w\n0,1\n", "GPU index not below 1024");
    assert_int_equal(tu_parse("# gpu_models: 0=Tesla T4;1=NVIDIA A100; \nt_s,power_w\n0,1\n", &err),
                     WT_DONE);
    /* quoted cells */
    assert_int_equal(tu_parse("t_s,\"power_w\"\n\"1.5\", \"2\"\n", &err), WT_DONE);
    /* clock_reasons: decimal, hex, or a whole number written as a float (pandas) */
    t = "t_s,clock_reasons\n0,4\n1,0x4\n2,4.0\n3,4e0\n";
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
        assert_true(s.v[WT_COL_CLOCK_REASONS] == 4);
    }
    wt_trace_close(r);
    /* gpu: also a whole number written as a float (pandas, with empty cells) */
    t = "t_s,gpu,power_w\n0,1.0,5\n0,2.,5\n0,3.000,5\n0,,5\n";
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
        assert_int_equal(s.gpu, i < 3 ? i + 1 : 0);
        if (i == 2)
            break; /* an empty cell beside GPUs 1 to 3: whose row it is cannot be told */
    }
    assert_int_equal(wt_trace_next(r, &s, &err), WT_EINVAL);
    assert_non_null(strstr(err.msg, "t.csv:5: column 'gpu': empty, but line 2 names GPU 1"));
    wt_trace_close(r);
    /* ... in a file of one GPU it is GPU 0, whichever comes first */
    t = "t_s,gpu,power_w\n0,,5\n1,0.0,5\n2,,5\n";
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
        assert_int_equal(s.gpu, 0);
    }
    assert_int_equal(wt_trace_next(r, &s, &err), WT_DONE);
    wt_trace_close(r);
    expect_error("t_s,gpu,power_w\n0,,5\n0,1,5\n",
                 "t.csv:3: column 'gpu': GPU 1, but line 2 has an empty cell");
    /* native names in any letter case: `GPU` had been an unknown column
     * (two GPUs read as one) */
    t = "T_S,GPU,Power_W,Label\n0,0,5,idle\n0,1,6,TRAINING\n";
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 0);
    assert_true(s.v[WT_COL_POWER] == 5 && s.label == WT_CLASS_IDLE);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 1);
    assert_true(s.v[WT_COL_POWER] == 6 && s.label == WT_CLASS_TRAINING);
    wt_trace_close(r);
    expect_error("t_s,gpu,GPU\n0,0,0\n", "column 'gpu' appears twice");
    expect_error("t_s,power_w,POWER_W\n0,1,1\n", "column 'power_w' appears twice");
    /* a label repeated in another letter case says the same */
    t = "# label: TRAINING\n# label: training\n# power_semantics: avg1s\n"
        "# power_semantics: AVG1S\nt_s,power_w\n0,1\n";
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.label, WT_CLASS_TRAINING);
    wt_trace_close(r);
    expect_error("# label: TRAINING\n# label: IDLE\nt_s\n0\n", "given again with another value");
    t = "# power_semantics_per_gpu: 0=avg1s\n# power_semantics_per_gpu: "
        "0=AVG1S\nt_s,power_w\n0,1\n";
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    wt_trace_close(r);
    /* errors name the column as the header spells it */
    expect_error("t_s,GPU,power_w\n0,,5\n0,1,5\n", "t.csv:3: column 'GPU': GPU 1, but line 2");
    expect_error("t_s,clock_reasons\n0,4.5\n", "column 'clock_reasons': not a bitmask");
    expect_error("t_s,clock_reasons\n0,-4\n", "column 'clock_reasons': not a bitmask");
}

static void test_malformed(void **state)
{
    (void)state;
    expect_error("t_s,power_w\n0,1\n1,abc\n", "t.csv:3: column 'power_w': not a number: 'abc'");
    expect_error("t_s,power_w\n0,nan\n", "t.csv:2: column 'power_w': not a number: 'nan'");
    expect_error("t_s,power_w\n0,inf\n", "not a number: 'inf'");
    /* well formed, too large for a double: said so (it read "not a number") */
    expect_error("t_s,power_w\n0,1e400\n",
                 "t.csv:2: column 'power_w': a number out of range: '1e400'");
    expect_error("t_s,power_w\n-1e999,1\n", "t.csv:2: column 't_s': a number out of range");
    expect_error("t_s,power_w\n0,1e999\n", "a number out of range");
    expect_error("t_s,power_w\n0,0x10\n", "not a number");
    expect_error("t_s,power_w\n0,72.3 W\n", "not a number: '72.3 W'"); /* no units in our format */
    expect_error("t_s,power_w\n,1\n", "t.csv:2: column 't_s': empty");
    /* physically impossible values */
    expect_error("t_s,util_gpu_pct\n0,950\n",
                 "t.csv:2: column 'util_gpu_pct': 950 is impossible (must be 0 to 100)");
    expect_error("t_s,util_mem_pct\n0,-1\n", "column 'util_mem_pct': -1 is impossible");
    expect_error("t_s,power_w\n0,-300\n",
                 "t.csv:2: column 'power_w': -300 is impossible (must be 0 to 100000)");
    /* beyond any GPU: a mean of 1e307 W overflowed to "not measured" */
    expect_error("t_s,power_w\n0,1e307\n",
                 "t.csv:2: column 'power_w': 1e307 is impossible (must be 0 to 100000)");
    expect_error("t_s,mem_used_mib\n0,2e15\n", "column 'mem_used_mib': 2e15 is impossible");
    expect_error("t_s,energy_j\n0,1e300\n", "column 'energy_j': 1e300 is impossible");
    expect_error("t_s,mem_used_mib\n0,-5\n", "column 'mem_used_mib': -5 is impossible");
    expect_error("t_s,procs\n0,-1\n", "column 'procs': -1 is impossible");
    assert_int_equal(tu_parse("t_s,util_gpu_pct,power_w,temp_c,energy_j\n0,100,0,-5,-10\n",
                              &(struct wt_err){{0}}),
                     WT_DONE);
    expect_error("t_s,gpu\n0,-1\n", "column 'gpu': not a GPU index");
    expect_error("t_s,gpu\n0,1.5\n", "not a GPU index");
    expect_error("t_s,gpu\n0,.0\n", "not a GPU index");
    expect_error("t_s,gpu\n0,1e0\n", "not a GPU index");
    expect_error("t_s,gpu\n0,99999\n", "is not below 1024");
    expect_error("t_s,clock_reasons\n0,0xZZ\n", "column 'clock_reasons': not a bitmask");
    expect_error("t_s,clock_reasons\n0,0xFFFFFFFFFFFFFFFF\n", "bits above 52");
    expect_error("t_s,label\n0,TRAINNG\n", "column 'label': 'TRAINNG' is not TRAINING");
    expect_error("# x: y\n# label: BOGUS\nt_s\n0\n", "t.csv:2: metadata 'label'");
    /* missing header */
    expect_error("0.0,0,45,300\n1.0,0,46,301\n", "t.csv:1: missing header");
    /* nvidia-smi --format=csv,noheader: timestamps and values with units are
     * data too (it was "header names no known column") */
    expect_error("2024/04/03 10:47:35.123, NVIDIA H100, 72.36 W, 50 %\n",
                 "t.csv:1: missing header");
    expect_error("2024/04/03 10:47:35.123, NVIDIA H100\n", "t.csv:1: missing header");
    expect_error("foo,bar\n1,2\n", "header names no known column");
    expect_error("gpu,power_w\n0,1\n", "t.csv:1: header lacks the required column 't_s' (it "
                                       "names the trace column 'power_w')");
    expect_error("gpu,label\n0,IDLE\n", "header names no known column");
    /* nvidia-smi fields that measure nothing (--query-compute-apps): said,
     * where its GPUs read as having no readings (UNKNOWN, no hint why) */
    expect_error("timestamp, gpu_uuid, pid, used_gpu_memory [MiB]\n"
                 "2024/04/03 10:00:00.000, GPU-1, 42, 300 MiB\n",
                 "t.csv:1: header names no reading");
    expect_error("", "empty trace");
    expect_error("# format: workloadtruth-trace/1\n\n", "empty trace");
    /* ragged rows */
    expect_error("t_s,gpu,power_w\n0,0,1\n1,0\n", "t.csv:3: 2 cells, but the header has 3 columns");
    expect_error("t_s,gpu,power_w\n0,0,1,5\n", "4 cells, but the header has 3 columns");
    /* old Mac line ends: said so, not "no header line" */
    expect_error("# label: IDLE\rt_s,power_w\r0,1\r", "t.csv:1: carriage return inside a line");
    /* a key the reader acts on may repeat, but not change */
    expect_error("# label: TRAINING\n# note: x\n# label: IDLE\nt_s,power_w\n0,1\n",
                 "t.csv:3: metadata 'label' given again with another value (first on line 1)");
    {
        struct wt_err e3;
        assert_int_equal(
            tu_parse("# label: IDLE\n# label: IDLE\n# note: a\n# note: b\nt_s,power_w\n0,1\n", &e3),
            WT_DONE);
    }
    /* the keys the reader acts on are matched in any letter case (`# GPU_Model:`
     * was an unknown key: the power had no scale), and a case variant that
     * changes the value is the same conflict */
    {
        const char *t = "# FORMAT: workloadtruth-trace/1\n# GPU_Model: NVIDIA H100 80GB HBM3\n"
                        "# Power_Semantics: AVG1S\n# Label: training\n# Note: kept\n"
                        "t_s,power_w\n0,1\n";
        struct wt_trace_reader *r;
        struct wt_err e2;
        assert_int_equal(tu_open(t, strlen(t), NULL, &r, &e2), WT_OK);
        assert_string_equal(wt_trace_meta_value(r, "gpu_model"), "NVIDIA H100 80GB HBM3");
        assert_string_equal(wt_trace_meta(r)->power_semantics, "avg1s");
        assert_int_equal(wt_trace_meta(r)->label, WT_CLASS_TRAINING);
        assert_string_equal(wt_trace_meta_value(r, "Note"), "kept"); /* others as written */
        assert_null(wt_trace_meta_value(r, "note"));
        wt_trace_close(r);
    }
    expect_error("# gpu_model: NVIDIA H100\n# GPU_MODEL: NVIDIA A100\nt_s,power_w\n0,1\n",
                 "t.csv:2: metadata 'gpu_model' given again with another value (first on line 1)");
    /* power_semantics is one of three words (any case); other text reads as unknown */
    {
        static const char *const in[] = {"AVG1S", "Instant", "bogus", "\033[31mRED"};
        static const char *const want[] = {"avg1s", "instant", "unknown", "unknown"};
        for (int i = 0; i < 4; i++) {
            char t[80];
            snprintf(t, sizeof(t), "# power_semantics: %s\nt_s,power_w\n0,1\n", in[i]);
            struct wt_trace_reader *r;
            struct wt_err e2;
            assert_int_equal(tu_open(t, strlen(t), NULL, &r, &e2), WT_OK);
            assert_string_equal(wt_trace_meta(r)->power_semantics, want[i]);
            wt_trace_close(r);
        }
    }
    /* a file that says it is a trace is not read as nvidia-smi CSV */
    expect_error(
        "# format: workloadtruth-trace/1\ntimestamp,gpu,util_gpu_pct,power_w\n0,0,98,300\n",
        "t.csv:2: header lacks the required column 't_s' (the metadata says 'format: "
        "workloadtruth-trace/1')");
    /* ... nor, when no column is known at all, skipped as "not a trace" by a
     * directory walk (WT_EFORMAT): it is a broken trace (WT_EINVAL) */
    {
        static const char t[] = "# format: workloadtruth-trace/1\ntime_s,gpu,power_w\n0,0,100\n";
        struct wt_trace_reader *r = NULL;
        struct wt_err e2 = {{0}};
        assert_int_equal(tu_open(t, strlen(t), NULL, &r, &e2), WT_EINVAL);
        assert_contains(e2.msg, "header lacks the required column 't_s'");
        wt_trace_close(r);
    }
    /* t_s in nanoseconds or milliseconds since 1970; seconds since 1970 pass */
    expect_error("t_s,gpu,power_w\n1712000000000000000,0,1\n",
                 "t.csv:2: column 't_s': 1712000000000000000 is more than 1e+10 seconds");
    expect_error("t_s,gpu,power_w\n-1712000000000,0,1\n", "not milliseconds or nanoseconds");
    struct wt_err ok_err = {{0}};
    assert_true(tu_parse("t_s,gpu,power_w\n1712000000.25,0,1\n", &ok_err) >= 0);
    /* a recording cut off mid-row: the message says so */
    expect_error("t_s,gpu,power_w\n0,0,1\n1,0", "t.csv:3: 2 cells, but the header has 3 columns "
                                                "(the last line, with no newline: a recording "
                                                "cut off mid-row? Delete that line");
    expect_error("t_s,power_w\n\"0,1\n", "t.csv:2: column 't_s': unterminated quoted field");
    /* a quoting error names its column */
    expect_error("t_s,power_w,util_gpu_pct\n0,\"1.5\"x,3\n",
                 "t.csv:2: column 'power_w': text after the closing quote");
    expect_error("t_s,power_w\n0,1,2,\"x\n",
                 "t.csv:2: cell 4 (the header has 2 columns): unterminated quoted field");
    expect_error("t_s,\"power_w\n0,1\n", "t.csv:1: header, column 2: unterminated quoted field");
    /* duplicate columns */
    expect_error("t_s,power_w,power_w\n", "column 'power_w' appears twice");
    expect_error("t_s,t_s\n", "column 't_s' appears twice");
    /* time going backwards within one GPU (other GPUs may interleave) */
    assert_int_equal(tu_parse("t_s,gpu\n1,0\n0.5,1\n2,0\n", &(struct wt_err){{0}}), WT_DONE);
    expect_error("t_s,gpu\n1,0\n0.5,1\n0.9,0\n",
                 "t.csv:4: column 't_s': 0.900 is earlier than the previous");
    expect_error(
        "t_s,gpu\n1.0002,0\n1.0001,0\n",
        "t.csv:3: column 't_s': 1.0001 is earlier than the previous sample of GPU 0 (1.0002)");
    /* metadata after the header */
    expect_error("t_s\n0\n# label: IDLE\n", "t.csv:3: metadata line after the header");
    expect_error("t_s,power_w\n0,1\n# end of run\n", "t.csv:3: metadata line after the header");
    /* a row whose first cell (an unknown text column) starts with '#' is a row */
    const char *hash = "note,t_s,power_w\nwarmup,0,100\n#2 retry,1,100\n";
    struct wt_trace_reader *hr = NULL;
    struct wt_err herr = {{0}};
    size_t hrows = 0;
    assert_int_equal(tu_open(hash, strlen(hash), NULL, &hr, &herr), WT_OK);
    assert_int_equal(tu_drain(hr, &hrows, &herr), WT_DONE);
    assert_int_equal(hrows, 2);
    wt_trace_close(hr);
}

static void test_huge_and_binary(void **state)
{
    (void)state;
    struct wt_err err = {{0}};
    /* a line longer than the limit, in the header and in the data */
    size_t big = WT_TRACE_MAX_LINE + 100;
    char *t = malloc(big + 64);
    assert_non_null(t);
    strcpy(t, "t_s,power_w\n0,");
    size_t off = strlen(t);
    memset(t + off, '1', big);
    t[off + big] = '\n';
    t[off + big + 1] = '\0';
    expect_error(t, "t.csv:2: line longer than 65536 bytes");
    memset(t, 'x', big);
    t[big] = '\0';
    expect_error(t, "t.csv:1: line longer than");
    /* the limit counts a line without its CR and the byte-order mark */
    strcpy(t, "\xEF\xBB\xBF# k: ");
    off = strlen(t);
    memset(t + off, 'v', WT_TRACE_MAX_LINE - (off - 3));
    off += WT_TRACE_MAX_LINE - (off - 3);
    strcpy(t + off, "\r\nt_s,power_w\r\n0,1\r\n");
    assert_int_equal(tu_parse(t, &err), WT_DONE);
    strcpy(t + off, "v\r\nt_s,power_w\r\n0,1\r\n");
    expect_error(t, "t.csv:1: line longer than 65536 bytes");
    free(t);
    /* many columns */
    char *wide = malloc(WT_TRACE_MAX_COLS * 4 + 16);
    strcpy(wide, "t_s");
    for (int i = 0; i < WT_TRACE_MAX_COLS; i++)
        strcat(wide, ",x");
    strcat(wide, "\n");
    expect_error(wide, "more than 128 columns");
    free(wide);
    /* NUL bytes and random binary garbage */
    const char nul[] = "t_s,power_w\n0,1\0\n";
    struct wt_trace_reader *r;
    size_t rows;
    assert_int_equal(tu_open(nul, sizeof(nul) - 1, NULL, &r, &err), WT_OK);
    assert_true(tu_drain(r, &rows, &err) < 0);
    assert_contains(err.msg, "t.csv:2: contains a NUL byte");
    wt_trace_close(r);
    unsigned char garbage[4096];
    uint32_t x = 12345;
    for (int round = 0; round < 50; round++) {
        for (size_t i = 0; i < sizeof(garbage); i++) {
            x = x * 1103515245u + 12345u;
            garbage[i] = (unsigned char)(x >> 16);
        }
        if (round % 2)
            memcpy(garbage, "t_s,power_w,gpu\n", 16);
        int rc = tu_open((const char *)garbage, sizeof(garbage), NULL, &r, &err);
        if (rc == WT_OK) {
            rc = tu_drain(r, &rows, &err);
            wt_trace_close(r);
        }
        assert_true(rc < 0); /* garbage is rejected with a message, not a crash */
        assert_true(strlen(err.msg) > 0);
    }
}

static void test_metadata_limit(void **state)
{
    (void)state;
    size_t cap = (WT_TRACE_MAX_META + 2) * 32 + 64;
    char *t = malloc(cap);
    size_t off = 0;
    for (int i = 0; i < WT_TRACE_MAX_META + 1; i++)
        off += (size_t)snprintf(t + off, cap - off, "# k%d: v\n", i);
    snprintf(t + off, cap - off, "t_s\n0\n");
    expect_error(t, "more than 256 metadata lines");
    free(t);
}

/* The writer writes a long metadata value whole (a newline or any other
 * control character in it, C1 included, becomes a space) and refuses one the reader
 * could not read back, never cutting it. */
static void test_writer_metadata(void **state)
{
    (void)state;
    size_t n = 5000;
    char *v = malloc(70000);
    assert_non_null(v);
    memset(v, 'x', n);
    v[0] = '0'; /* a per-GPU list: GPU=VALUE */
    v[1] = '=';
    v[10] = '\n';
    v[11] = '\x01';
    v[12] = '\x1b';
    v[13] = '\t';
    v[14] = '\x7f';
    v[15] = '\r';
    v[16] = '\xc2'; /* U+009B, a C1 control (CSI): two bytes, both spaces */
    v[17] = '\x9b';
    v[n] = '\0';
    const char *keys[] = {"gpu_models"};
    const char *vals[] = {v};
    const char *path = tu_temp("");
    struct wt_trace_writer *w = NULL;
    struct wt_err err = {{0}};
    assert_int_equal(wt_trace_writer_open(path, keys, vals, 1, NULL, &w, &err), WT_OK);
    struct wt_sample s;
    wt_sample_clear(&s, 0);
    s.v[WT_COL_POWER] = 100;
    assert_int_equal(wt_trace_writer_row(w, &s, &err), WT_OK);
    assert_int_equal(wt_trace_writer_close(w, &err), WT_OK);
    struct wt_trace_reader *r = NULL;
    assert_int_equal(wt_trace_open(path, NULL, &r, &err), WT_OK);
    size_t rows;
    assert_int_equal(tu_drain(r, &rows, &err), WT_DONE);
    assert_int_equal(rows, 1);
    const char *back = wt_trace_meta_value(r, "gpu_models");
    assert_non_null(back);
    assert_int_equal(strlen(back), n);
    assert_memory_equal(back + 9, "x        x", 10);
    assert_true(back[n - 1] == 'x');
    wt_trace_close(r);
    memset(v, 'x', 69999);
    v[69999] = '\0';
    assert_int_equal(wt_trace_writer_open(path, keys, vals, 1, NULL, &w, &err), WT_EINVAL);
    assert_contains(err.msg,
                    "metadata 'gpu_models' is 70013 bytes, more than a trace line holds (65536)");
    assert_null(w);
    assert_int_equal(wt_trace_open(path, NULL, &r, &err), WT_OK); /* not emptied */
    assert_int_equal(tu_drain(r, &rows, &err), WT_DONE);
    assert_int_equal(rows, 1);
    wt_trace_close(r);
    unlink(path);
    free(v);
}

/* Numbers are plain decimals (the spec's rule 5), and read back as written. */
static void test_writer_plain_numbers(void **state)
{
    (void)state;
    const char *path = tu_temp("");
    struct wt_trace_writer *w = NULL;
    struct wt_err err = {{0}};
    assert_int_equal(wt_trace_writer_open(path, NULL, NULL, 0, NULL, &w, &err), WT_OK);
    struct wt_sample s;
    wt_sample_clear(&s, 0);
    s.t_s = 1;
    s.v[WT_COL_UTIL_GPU] = 4.236240093e-06;
    s.v[WT_COL_MEM_USED] = 300.5;
    /* below 1e-10 and from 1e16 on too (they had %g's exponent), and an
     * energy counter from 1e15 J on whole, not cut to ten digits */
    s.v[WT_COL_POWER] = 1.2345e-11;
    s.v[WT_COL_TEMP] = -5e-11;
    s.v[WT_COL_PCIE_TX] = 1e-25;
    s.v[WT_COL_ENERGY] = -123456789012345680.0;
    assert_int_equal(wt_trace_writer_row(w, &s, &err), WT_OK);
    assert_int_equal(wt_trace_writer_close(w, &err), WT_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096], last[4096] = "";
    while (fgets(line, sizeof(line), f))
        if (line[0] != '#')
            snprintf(last, sizeof(last), "%s", line);
    fclose(f);
    assert_null(strchr(last, 'e'));
    assert_contains(last, "0.000004236240093");
    assert_contains(last, ",300.5,");
    assert_contains(last, ",0.000000000012345,");
    assert_contains(last, ",-0.00000000005,");
    assert_contains(last, ",-123456789012345680,");
    struct wt_trace_reader *r = NULL;
    assert_int_equal(wt_trace_open(path, NULL, &r, &err), WT_OK);
    struct wt_sample b;
    assert_int_equal(wt_trace_next(r, &b, &err), WT_OK);
    assert_true(fabs(b.v[WT_COL_UTIL_GPU] - 4.236240093e-06) < 1e-15);
    assert_true(b.v[WT_COL_MEM_USED] == 300.5);
    assert_true(b.v[WT_COL_POWER] == 1.2345e-11);
    assert_true(b.v[WT_COL_TEMP] == -5e-11);
    assert_true(b.v[WT_COL_PCIE_TX] == 0);
    assert_true(b.v[WT_COL_ENERGY] == -123456789012345680.0);
    wt_trace_close(r);
    unlink(path);
}

/* Times that differ below a microsecond keep their rows apart through a
 * write and a read (both were written 1.000 and read back merged, one
 * sample lost); equal times, and other GPUs' rows, keep the short form. */
static void test_writer_close_times(void **state)
{
    (void)state;
    const char *path = tu_temp("");
    struct wt_trace_writer *w = NULL;
    struct wt_err err = {{0}};
    assert_int_equal(wt_trace_writer_open(path, NULL, NULL, 0, NULL, &w, &err), WT_OK);
    static const struct {
        double t;
        int gpu;
        int col;
    } row[] = {{1.0000001, 0, WT_COL_POWER},
               {1.0000001, 1, WT_COL_POWER},
               {1.0000002, 0, WT_COL_UTIL_GPU},
               {1.00000020001, 0, WT_COL_TEMP},
               {2, 0, WT_COL_POWER},
               {2, 0, WT_COL_UTIL_GPU}};
    const size_t nrow = sizeof(row) / sizeof(row[0]);
    for (size_t i = 0; i < nrow; i++) {
        struct wt_sample s;
        wt_sample_clear(&s, row[i].gpu);
        s.t_s = row[i].t;
        s.v[row[i].col] = 5;
        assert_int_equal(wt_trace_writer_row(w, &s, &err), WT_OK);
    }
    assert_int_equal(wt_trace_writer_close(w, &err), WT_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    const char *want[] = {"1.000,0,",       "1.000,1,", "1.0000002,0,",
                          "1.000000200009", "2.000,0,", "2.000,0,"};
    size_t k = 0;
    while (fgets(line, sizeof(line), f))
        if (line[0] != '#' && line[0] != 't') {
            assert_true(k < nrow);
            assert_true(!strncmp(line, want[k], strlen(want[k])));
            k++;
        }
    fclose(f);
    assert_int_equal(k, nrow);
    /* read back: every row, each at a time of its own but for the two at
     * 2 s (which replay merges, as it did before the write) */
    struct wt_trace_reader *r = NULL;
    assert_int_equal(wt_trace_open(path, NULL, &r, &err), WT_OK);
    struct wt_sample b;
    double t0[8];
    int n0 = 0, n = 0;
    while (wt_trace_next(r, &b, &err) == WT_OK && n < 8) {
        n++;
        if (b.gpu == 0)
            t0[n0++] = b.t_s;
    }
    assert_int_equal(n, 6);
    assert_int_equal(n0, 5);
    for (int i = 1; i < 4; i++)
        assert_true(t0[i] > t0[i - 1]);
    assert_true(t0[4] == t0[3]);
    wt_trace_close(r);
    unlink(path);
    /* a time written rounded up past the next one (0.3 us apart): that one
     * gets the same time, never an earlier one, which the reader refuses */
    assert_int_equal(wt_trace_writer_open(path, NULL, NULL, 0, NULL, &w, &err), WT_OK);
    for (int i = 0; i < 6; i++) {
        struct wt_sample s;
        wt_sample_clear(&s, 0);
        s.t_s = 1.0000006 + 3e-7 * i;
        s.v[WT_COL_POWER] = 10 * i;
        assert_int_equal(wt_trace_writer_row(w, &s, &err), WT_OK);
    }
    assert_int_equal(wt_trace_writer_close(w, &err), WT_OK);
    assert_int_equal(wt_trace_open(path, NULL, &r, &err), WT_OK);
    double prev = -1;
    n = 0;
    int rc;
    while ((rc = wt_trace_next(r, &b, &err)) == WT_OK) {
        assert_true(b.t_s >= prev);
        assert_true(b.v[WT_COL_POWER] == 10 * n);
        prev = b.t_s;
        n++;
    }
    assert_int_equal(rc, WT_DONE);
    assert_int_equal(n, 6);
    wt_trace_close(r);
    unlink(path);
    /* a row at its predecessor's time gets its written time (at 6 decimals
     * it fell before it, where that one needed 7) */
    static const double eq[] = {1.0000001, 1.0000002, 1.0000002, 1.0000003};
    assert_int_equal(wt_trace_writer_open(path, NULL, NULL, 0, NULL, &w, &err), WT_OK);
    for (int i = 0; i < 4; i++) {
        struct wt_sample s;
        wt_sample_clear(&s, 0);
        s.t_s = eq[i];
        s.v[WT_COL_POWER] = 10 * i;
        assert_int_equal(wt_trace_writer_row(w, &s, &err), WT_OK);
    }
    assert_int_equal(wt_trace_writer_close(w, &err), WT_OK);
    assert_int_equal(wt_trace_open(path, NULL, &r, &err), WT_OK);
    prev = -1;
    n = 0;
    while ((rc = wt_trace_next(r, &b, &err)) == WT_OK) {
        assert_true(b.t_s >= prev);
        prev = b.t_s;
        n++;
    }
    assert_int_equal(rc, WT_DONE);
    assert_int_equal(n, 4);
    wt_trace_close(r);
    unlink(path);
}

static void test_nvsmi_with_index(void **state)
{
    (void)state;
    const char *t = "timestamp, index, name, utilization.gpu [%], utilization.memory [%], "
                    "memory.used [MiB], memory.total [MiB], power.draw [W], "
                    "clocks_event_reasons.active, temperature.gpu\n"
                    "2024/04/03 10:47:35.100, 0, NVIDIA A100-SXM4-40GB, 45 %, 30 %, 131 MiB, "
                    "40960 MiB, 72.36 W, 0x0000000000000004, 40\n"
                    "2024/04/03 10:47:35.105, 1, NVIDIA A100-SXM4-40GB, 0 %, 0 %, 5 MiB, "
                    "40960 MiB, [N/A], 0x0000000000000001, 33\n"
                    "2024/04/03 10:47:36.100, 0, NVIDIA A100-SXM4-40GB, 50 %, 31 %, 131 MiB, "
                    "40960 MiB, 80.00 W, [Not Supported], 41\n";
    struct wt_trace_reader *r;
    struct wt_err err;
    struct wt_sample s;
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_meta(r)->kind, WT_TRACE_NVSMI);
    assert_string_equal(wt_trace_meta(r)->power_semantics, "unknown");
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 0);
    assert_true(s.t_s == 0);
    assert_true(s.v[WT_COL_UTIL_GPU] == 45 && s.v[WT_COL_UTIL_MEM] == 30);
    assert_true(s.v[WT_COL_MEM_USED] == 131 && s.v[WT_COL_MEM_TOTAL] == 40960);
    assert_true(s.v[WT_COL_POWER] == 72.36);
    assert_true(s.v[WT_COL_CLOCK_REASONS] == 4);
    assert_true(s.v[WT_COL_TEMP] == 40);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 1);
    assert_true(fabs(s.t_s - 0.005) < 1e-6);
    assert_true(isnan(s.v[WT_COL_POWER])); /* [N/A] = not measured */
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(fabs(s.t_s - 1.0) < 1e-6);
    assert_true(isnan(s.v[WT_COL_CLOCK_REASONS]));
    assert_int_equal(wt_trace_next(r, &s, &err), WT_DONE);
    wt_trace_close(r);
}

static void test_nvsmi_instant_nounits(void **state)
{
    (void)state;
    /* --format=csv,nounits; power.draw.instant preferred over power.draw */
    const char *t = "index, power.draw [W], power.draw.instant [W], clocks.current.sm [MHz]\n"
                    "0, 100.0, 250.5, 1980\n"
                    "0, 101.0, 90.25, 1410\n";
    struct wt_trace_reader *r;
    struct wt_err err;
    struct wt_sample s;
    struct wt_trace_opts o = {.interval_s = 0.5};
    assert_int_equal(tu_open(t, strlen(t), &o, &r, &err), WT_OK);
    assert_string_equal(wt_trace_meta(r)->power_semantics, "instant");
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.v[WT_COL_POWER] == 250.5);
    assert_true(s.v[WT_COL_SM_CLOCK] == 1980);
    assert_true(s.t_s == 0);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.v[WT_COL_POWER] == 90.25);
    assert_true(s.t_s == 0.5); /* no timestamp column: ticks of --interval */
    wt_trace_close(r);
}

/* A preferred field nvidia-smi leaves "[N/A]" on this GPU (power.draw.instant
 * or enforced.power.limit where unsupported) beside one with values: the one
 * with values is read, its semantics with it (power and its limit were "not
 * measured", the window UNKNOWN).  The first row with any value fixes the
 * field for the file. */
static void test_nvsmi_power_fallback(void **state)
{
    (void)state;
    const char *t = "index, power.draw.average [W], power.draw.instant [W], "
                    "power.limit [W], enforced.power.limit [W]\n"
                    "0, [N/A], [N/A], [N/A], [N/A]\n"
                    "0, 53.91 W, [N/A], 400.00 W, [N/A]\n"
                    "0, 54.00 W, 70.5 W, 400.00 W, 300.00 W\n";
    struct wt_trace_reader *r;
    struct wt_err err;
    struct wt_sample s;
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_false(wt_measured(s.v[WT_COL_POWER]));
    assert_false(wt_measured(s.v[WT_COL_POWER_LIMIT]));
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.v[WT_COL_POWER] == 53.91);
    assert_true(s.v[WT_COL_POWER_LIMIT] == 400);
    assert_string_equal(wt_trace_meta(r)->power_semantics, "avg1s");
    /* fixed: the averaged field still, though the instant one has a value */
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.v[WT_COL_POWER] == 54);
    assert_true(s.v[WT_COL_POWER_LIMIT] == 400);
    assert_string_equal(wt_trace_meta(r)->power_semantics, "avg1s");
    wt_trace_close(r);
    /* a fallback cell that is no number, before the field is fixed: no value
     * (the column was ignored, and the file read), not an error */
    const char *g = "index, power.draw.average [W], power.draw.instant [W]\n"
                    "0, 5 kW, [N/A]\n"
                    "0, 54.00 W, [N/A]\n";
    assert_int_equal(tu_open(g, strlen(g), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_false(wt_measured(s.v[WT_COL_POWER]));
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.v[WT_COL_POWER] == 54);
    wt_trace_close(r);
    /* a power_semantics metadata line wins over the field's */
    const char *m = "# power_semantics: instant\n"
                    "index, power.draw.average [W], power.draw.instant [W]\n"
                    "0, 54.00 W, [N/A]\n";
    assert_int_equal(tu_open(m, strlen(m), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.v[WT_COL_POWER] == 54);
    assert_string_equal(wt_trace_meta(r)->power_semantics, "instant");
    wt_trace_close(r);
    /* the preferred field with a value in the first row: read, as before */
    const char *u = "index, power.draw.average [W], power.draw.instant [W]\n"
                    "0, 53.91 W, 70.5 W\n"
                    "0, 54.00 W, [N/A]\n";
    assert_int_equal(tu_open(u, strlen(u), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.v[WT_COL_POWER] == 70.5);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_false(wt_measured(s.v[WT_COL_POWER]));
    assert_string_equal(wt_trace_meta(r)->power_semantics, "instant");
    wt_trace_close(r);
}

/* Without an index column and with the rows per tick unknown (one), rows
 * naming two models are several GPUs' rows: an error that says what to do
 * (they were read as one GPU, its class confidently wrong); with
 * --gpus-per-tick 2 they read. */
static void test_nvsmi_names_two_gpus(void **state)
{
    (void)state;
    const char *t = "name, utilization.gpu [%], power.draw [W]\n"
                    "NVIDIA A100-SXM4-40GB, 98 %, 380.00 W\n"
                    "Tesla T4, 0 %, 10.00 W\n"
                    "NVIDIA A100-SXM4-40GB, 97 %, 381.00 W\n"
                    "Tesla T4, 0 %, 10.00 W\n";
    struct wt_trace_reader *r;
    struct wt_err err = {{0}};
    struct wt_sample s;
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_EINVAL);
    assert_contains(err.msg,
                    ":3: column 'name': 'Tesla T4', but GPU 0's earlier rows (from line 2) name");
    assert_contains(err.msg, "--gpus-per-tick");
    wt_trace_close(r);
    struct wt_trace_opts o = {.rows_per_tick = 2};
    assert_int_equal(tu_open(t, strlen(t), &o, &r, &err), WT_OK);
    size_t rows = 0;
    while (wt_trace_next(r, &s, &err) == WT_OK) {
        assert_int_equal(s.gpu, (int)(rows % 2));
        rows++;
    }
    assert_int_equal(rows, 4);
    wt_trace_close(r);
}

/* nvidia-smi -l restarted onto the same file (>>) writes its header again:
 * skipped ("column 'timestamp': not a time" had made the file unreadable);
 * a line that only resembles it is still a row, and an error. */
static void test_nvsmi_header_again(void **state)
{
    (void)state;
    const char *t = "timestamp, index, power.draw [W]\n"
                    "2024/04/03 10:00:00.000, 0, 100.00 W\n"
                    "timestamp, index, power.draw [W]\n"
                    "2024/04/03 10:00:05.000, 0, 101.00 W\n";
    struct wt_trace_reader *r;
    struct wt_err err = {{0}};
    size_t rows;
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(tu_drain(r, &rows, &err), WT_DONE);
    assert_int_equal(rows, 2);
    wt_trace_close(r);
    expect_error("timestamp, index, power.draw [W]\n"
                 "2024/04/03 10:00:00.000, 0, 100.00 W\n"
                 "timestamp, index, power.draw\n",
                 ":3: column 'timestamp': not a time");
}

/* Without an index column, rows come in per-tick groups, one row per GPU. */
static void test_nvsmi_grouped(void **state)
{
    (void)state;
    char t[8192];
    size_t off =
        (size_t)snprintf(t, sizeof(t), "timestamp, power.draw [W], utilization.gpu [%%]\n");
    for (int tick = 0; tick < 20; tick++)
        for (int g = 0; g < 3; g++)
            off += (size_t)snprintf(t + off, sizeof(t) - off,
                                    "2024/04/10 23:59:%02d.%03d, %d.5 W, %d %%\n", 50 + tick / 10,
                                    (tick % 10) * 100 + g * 6, 50 + g, g * 10);
    struct wt_trace_reader *r;
    struct wt_err err;
    struct wt_sample s;
    assert_int_equal(tu_open(t, off, NULL, &r, &err), WT_OK);
    int seen = 0;
    while (wt_trace_next(r, &s, &err) == WT_OK) {
        assert_int_equal(s.gpu, seen % 3);
        assert_true(s.v[WT_COL_POWER] == 50.5 + s.gpu);
        seen++;
    }
    assert_int_equal(seen, 60);
    assert_int_equal(wt_trace_meta(r)->rows_per_tick, 3);
    wt_trace_close(r);

    /* one tick late by 41 ms (as real nvidia-smi logs have): still 2 GPUs (the
     * largest jump among the sorted gaps made it one GPU) */
    off = (size_t)snprintf(t, sizeof(t), "timestamp, power.draw [W]\n");
    for (int tick = 0; tick < 40; tick++)
        for (int g = 0; g < 2; g++)
            off += (size_t)snprintf(t + off, sizeof(t) - off, "2024/04/10 10:00:%02d.%03d, %d W\n",
                                    tick / 10, (tick % 10) * 100 + g * (tick == 7 ? 43 : 2),
                                    g ? 60 : 300);
    assert_int_equal(tu_open(t, off, NULL, &r, &err), WT_OK);
    seen = 0;
    while (wt_trace_next(r, &s, &err) == WT_OK) {
        assert_int_equal(s.gpu, seen % 2);
        assert_true(s.v[WT_COL_POWER] == (s.gpu ? 60 : 300));
        seen++;
    }
    assert_int_equal(seen, 80);
    assert_int_equal(wt_trace_meta(r)->rows_per_tick, 2);
    wt_trace_close(r);

    /* exactly 95% of the gaps on their side (19 of 20: one tick stalls
     * inside) is a fit, as documented: it was read as one GPU */
    off = (size_t)snprintf(t, sizeof(t), "timestamp, power.draw [W]\n");
    for (int i = 0; i < 21; i++) {
        int tick = i / 2, g = i % 2;
        off += (size_t)snprintf(t + off, sizeof(t) - off, "2024/04/10 10:00:%02d.%03d, %d W\n",
                                tick, g ? (tick == 2 ? 600 : 10) : 0, g ? 60 : 300);
    }
    assert_int_equal(tu_open(t, off, NULL, &r, &err), WT_OK);
    seen = 0;
    while (wt_trace_next(r, &s, &err) == WT_OK) {
        assert_int_equal(s.gpu, seen % 2);
        assert_true(s.v[WT_COL_POWER] == (s.gpu ? 60 : 300));
        seen++;
    }
    assert_int_equal(seen, 21);
    assert_int_equal(wt_trace_meta(r)->rows_per_tick, 2);
    wt_trace_close(r);

    /* one GPU with an occasional stall stays one GPU */
    off = (size_t)snprintf(t, sizeof(t), "timestamp, power.draw [W]\n");
    for (int i = 0; i < 30; i++)
        off += (size_t)snprintf(t + off, sizeof(t) - off, "2024/04/10 10:00:%02d.000, 1 W\n",
                                i < 10 ? i : i + 20);
    assert_int_equal(tu_open(t, off, NULL, &r, &err), WT_OK);
    while (wt_trace_next(r, &s, &err) == WT_OK)
        assert_int_equal(s.gpu, 0);
    assert_int_equal(wt_trace_meta(r)->rows_per_tick, 1);
    wt_trace_close(r);

    /* explicit grouping, no timestamps */
    const char *u = "power.draw [W]\n1 W\n2 W\n3 W\n4 W\n";
    struct wt_trace_opts o = {.rows_per_tick = 2, .interval_s = 0.1};
    assert_int_equal(tu_open(u, strlen(u), &o, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.gpu == 0 && s.t_s == 0 && s.v[WT_COL_POWER] == 1);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.gpu == 1 && s.t_s == 0 && s.v[WT_COL_POWER] == 2);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_true(s.gpu == 0 && fabs(s.t_s - 0.1) < 1e-9);
    wt_trace_close(r);
}

/* nvidia-smi without an index: 3 GPUs a tick, 1 s apart, rows 6 ms apart,
 * power 50.5 W + GPU.  From tick `at` on, `drop` (-1: none) is missing
 * (`for_good`: in every later tick), or the rows from `late` on of tick `at`
 * come `late_ms` late; `bad`: GPU 1's row two ticks later is not a number.  Returns the
 * rows read whose power says another GPU than the reader's; *rows gets the
 * rows read, *rc the last code. */
static int grouped_misread(int at, int drop, int for_good, int late, int late_ms, int bad,
                           size_t *rows, int *rc, struct wt_err *err)
{
    static char t[32768];
    size_t off = (size_t)snprintf(t, sizeof(t), "timestamp, power.draw [W]\n");
    for (int tick = 0; tick < 90; tick++)
        for (int g = 0; g < 3; g++) {
            if (g == drop && (tick == at || (for_good && tick > at)))
                continue;
            int ms = g * 6 + (tick == at && g >= late ? late_ms : 0);
            off += (size_t)snprintf(t + off, sizeof(t) - off, "2024/04/10 10:%02d:%02d.%03d, %s\n",
                                    tick / 60, tick % 60, ms,
                                    bad && tick == at + 2 && g == 1 ? "x W"
                                    : g == 0                        ? "50.5 W"
                                    : g == 1                        ? "51.5 W"
                                                                    : "52.5 W");
        }
    struct wt_trace_reader *r;
    struct wt_sample s;
    assert_int_equal(tu_open(t, off, NULL, &r, err), WT_OK);
    int wrong = 0;
    *rows = 0;
    while ((*rc = wt_trace_next(r, &s, err)) == WT_OK) {
        wrong += s.v[WT_COL_POWER] != 50.5 + s.gpu;
        (*rows)++;
    }
    assert_int_equal(wt_trace_meta(r)->rows_per_tick, 3);
    wt_trace_close(r);
    return wrong;
}

/* A row missing later (a GPU that fell off the bus) shifted every row after
 * it to the next GPU for good: the ticks' timing after it puts them back. */
static void test_nvsmi_missing_row(void **state)
{
    (void)state;
    size_t rows;
    int rc;
    struct wt_err err;
    /* the last GPU's row missing once, where the first 128 rows read ahead
     * (for the grouping) end (tick 42), or later; every row keeps its GPU
     * (one missing within the 128 rows can still make the grouping unclear:
     * one GPU, as before) */
    assert_int_equal(grouped_misread(42, 2, 0, 9, 300, 0, &rows, &rc, &err), 0);
    assert_int_equal(rows, 269);
    assert_int_equal(grouped_misread(60, 2, 0, 9, 300, 0, &rows, &rc, &err), 0);
    assert_int_equal(rc, WT_DONE);
    /* gone for good: the other two keep theirs */
    assert_int_equal(grouped_misread(60, 2, 1, 9, 300, 0, &rows, &rc, &err), 0);
    assert_int_equal(rows, 240);
    /* the middle GPU's row missing: only the row after it in that tick is
     * misread (its place is all there is to go by) */
    assert_int_equal(grouped_misread(60, 1, 0, 9, 300, 0, &rows, &rc, &err), 1);
    /* a tick that stalls inside (its last two rows 300 ms late) is no
     * missing row: the rows go on */
    assert_int_equal(grouped_misread(60, -1, 0, 1, 300, 0, &rows, &rc, &err), 0);
    assert_int_equal(grouped_misread(60, -1, 0, 2, 300, 0, &rows, &rc, &err), 0);
    assert_int_equal(rows, 270);
    /* ... also when the tick after it comes on time, so that the gap
     * before it is short (the stalled row started a new tick, a review
     * found) */
    assert_int_equal(grouped_misread(60, -1, 0, 2, 600, 0, &rows, &rc, &err), 0);
    /* a bad row among those read ahead: the rows before it first, then
     * its error */
    assert_int_equal(grouped_misread(60, 2, 0, 9, 300, 1, &rows, &rc, &err), 0);
    assert_int_equal(rc, WT_EINVAL);
    assert_int_equal(rows, 60 * 3 + 2 + 3 + 1);
    assert_non_null(strstr(err.msg, ":188: "));

    /* an error stays: the rows read ahead after it are not handed out (the
     * clock going back on a row: the next call gave the rows after it) */
    char t[4096];
    size_t off = (size_t)snprintf(t, sizeof(t), "timestamp, power.draw [W]\n");
    for (int tick = 0; tick < 30; tick++)
        for (int g = 0; g < 2; g++)
            off += (size_t)snprintf(t + off, sizeof(t) - off, "2024/04/10 10:00:%02d.%03d, %d W\n",
                                    tick == 20 ? 1 : tick, g * 6, 50 + g);
    struct wt_trace_reader *r;
    struct wt_sample s;
    assert_int_equal(tu_open(t, off, NULL, &r, &err), WT_OK);
    rows = 0;
    while ((rc = wt_trace_next(r, &s, &err)) == WT_OK)
        rows++;
    assert_int_equal(rc, WT_EINVAL);
    assert_int_equal(rows, 40);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_EINVAL);
    assert_non_null(strstr(err.msg, "earlier than the previous sample"));
    wt_trace_close(r);

    /* a bad row among the first 128 read ahead for the grouping: also the
     * rows before it first (it came at once, so `record --trace -` wrote
     * nothing of a live pipe whose row 49 was bad) */
    off = (size_t)snprintf(t, sizeof(t), "timestamp, power.draw [W]\n");
    for (int i = 0; i < 60; i++)
        off += (size_t)snprintf(t + off, sizeof(t) - off, "2024/04/10 10:00:%02d.000, %s\n", i,
                                i == 48 ? "1 kW" : "50 W");
    assert_int_equal(tu_open(t, off, NULL, &r, &err), WT_OK);
    rows = 0;
    while ((rc = wt_trace_next(r, &s, &err)) == WT_OK)
        rows++;
    assert_int_equal(rc, WT_EINVAL);
    assert_int_equal(rows, 48);
    assert_non_null(strstr(err.msg, ":50: "));
    assert_int_equal(wt_trace_next(r, &s, &err), WT_EINVAL);
    wt_trace_close(r);
}

static void test_nvsmi_uuid(void **state)
{
    (void)state;
    const char *t = "timestamp, uuid, power.draw [W]\n"
                    "2024/01/01 00:00:00.000, GPU-aaa, 10 W\n"
                    "2024/01/01 00:00:00.001, GPU-bbb, 20 W\n"
                    "2024/01/01 00:00:01.000, GPU-aaa, 11 W\n";
    struct wt_trace_reader *r;
    struct wt_err err;
    struct wt_sample s;
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 0);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 1);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 0);
    wt_trace_close(r);
    /* no identity is no GPU (it had become a GPU of its own) */
    expect_error("timestamp, uuid, power.draw [W]\n2024/01/01 00:00:00.000, GPU-aaa, 10 W\n"
                 "2024/01/01 00:00:01.000, [N/A], 10 W\n",
                 "t.csv:3: column 'uuid': empty");
    expect_error("timestamp, pci.bus_id, power.draw [W]\n2024/01/01 00:00:00.000, , 10 W\n",
                 "t.csv:2: column 'pci.bus_id': empty");
    /* ... unless the index says which GPU */
    t = "timestamp, index, uuid, power.draw [W]\n2024/01/01 00:00:00.000, 0, [N/A], 10 W\n"
        "2024/01/01 00:00:00.000, 1, , 10 W\n";
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.gpu, 1);
    wt_trace_close(r);
}

/* A host with GPUs of different models: each GPU keeps the model of its own
 * rows (gpu_models, as `record` writes), not the first row's. */
static void test_nvsmi_mixed_models(void **state)
{
    (void)state;
    const char *t = "timestamp, index, name, power.draw [W]\n"
                    "2024/04/03 10:00:00.000, 0, NVIDIA A100-SXM4-80GB, 60 W\n"
                    "2024/04/03 10:00:00.000, 1, Tesla T4, 68 W\n"
                    "2024/04/03 10:00:00.000, 2, NVIDIA A100-SXM4-80GB, 61 W\n"
                    "2024/04/03 10:00:00.000, 3, [N/A], 62 W\n"
                    "2024/04/03 10:00:01.000, 0, NVIDIA A100-SXM4-80GB, 60 W\n"
                    "2024/04/03 10:00:01.000, 1, Tesla T4, 69 W\n"
                    "2024/04/03 10:00:01.000, 3, \"Odd; GPU\", 62 W\n";
    struct wt_trace_reader *r;
    struct wt_err err;
    size_t rows;
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(tu_drain(r, &rows, &err), WT_DONE);
    assert_int_equal(rows, 7);
    assert_string_equal(wt_trace_meta_value(r, "gpu_model"), "NVIDIA A100-SXM4-80GB");
    /* GPU 3 from its first row that names one; its ';' would cut the list */
    assert_non_null(wt_trace_meta_value(r, "gpu_models"));
    assert_string_equal(wt_trace_meta_value(r, "gpu_models"),
                        "0=NVIDIA A100-SXM4-80GB; 1=Tesla T4; 2=NVIDIA A100-SXM4-80GB; "
                        "3=Odd, GPU");
    wt_trace_close(r);

    /* no index column: a row's GPU is known once the grouping is */
    char g[4096];
    size_t off = (size_t)snprintf(g, sizeof(g), "timestamp, name, power.draw [W]\n");
    for (int tick = 0; tick < 10; tick++)
        for (int i = 0; i < 2; i++)
            off +=
                (size_t)snprintf(g + off, sizeof(g) - off, "2024/04/03 10:00:%02d.%03d, %s, 9 W\n",
                                 tick, i * 4, i ? "Tesla T4" : "NVIDIA H100 PCIe");
    assert_int_equal(tu_open(g, off, NULL, &r, &err), WT_OK);
    assert_int_equal(tu_drain(r, &rows, &err), WT_DONE);
    assert_int_equal(wt_trace_meta(r)->rows_per_tick, 2);
    assert_non_null(wt_trace_meta_value(r, "gpu_models"));
    assert_string_equal(wt_trace_meta_value(r, "gpu_models"), "0=NVIDIA H100 PCIe; 1=Tesla T4");
    wt_trace_close(r);

    /* GPUs of one model: the gpu_model key alone, as ever */
    const char *u = "timestamp, index, name, power.draw [W]\n"
                    "2024/04/03 10:00:00.000, 0, Tesla T4, 60 W\n"
                    "2024/04/03 10:00:00.000, 1, Tesla T4, 68 W\n";
    assert_int_equal(tu_open(u, strlen(u), NULL, &r, &err), WT_OK);
    assert_int_equal(tu_drain(r, &rows, &err), WT_DONE);
    assert_string_equal(wt_trace_meta_value(r, "gpu_model"), "Tesla T4");
    assert_null(wt_trace_meta_value(r, "gpu_models"));
    wt_trace_close(r);

    /* a model the metadata gives is not overridden by the rows */
    const char *m = "# gpu_model: Given GPU\n"
                    "timestamp, index, name, power.draw [W]\n"
                    "2024/04/03 10:00:00.000, 0, NVIDIA A100-SXM4-80GB, 60 W\n"
                    "2024/04/03 10:00:00.000, 1, Tesla T4, 68 W\n";
    assert_int_equal(tu_open(m, strlen(m), NULL, &r, &err), WT_OK);
    assert_int_equal(tu_drain(r, &rows, &err), WT_DONE);
    assert_string_equal(wt_trace_meta_value(r, "gpu_model"), "Given GPU");
    assert_null(wt_trace_meta_value(r, "gpu_models"));
    wt_trace_close(r);
}

/* nvidia-smi's timestamp is local wall-clock time: set back at the end of
 * daylight saving, it is still an error, but one that says what to do. */
static void test_nvsmi_clock_set_back(void **state)
{
    (void)state;
    expect_error("timestamp, index, power.draw [W]\n"
                 "2024/11/03 01:59:59.000, 0, 300 W\n"
                 "2024/11/03 01:00:00.000, 0, 300 W\n",
                 "t.csv:3: column 'timestamp': -3599.000 s is earlier than the previous sample of "
                 "GPU 0 (0.000 s): "
                 "nvidia-smi prints local time, so a clock set back does this (the end of "
                 "daylight saving: run it with TZ=UTC; an NTP step: have NTP slew the clock)");
    /* the trace format's t_s is not a wall clock: no hint */
    struct wt_err err = {{0}};
    assert_true(tu_parse("t_s,gpu,power_w\n4,0,1\n3,0,1\n", &err) < 0);
    assert_contains(err.msg,
                    "t.csv:3: column 't_s': 3.000 is earlier than the previous sample of GPU 0 "
                    "(4.000)");
    assert_null(strstr(err.msg, "TZ=UTC"));
}

static void test_nvsmi_malformed(void **state)
{
    (void)state;
    expect_error("timestamp, power.draw [W]\nyesterday, 5 W\n",
                 "t.csv:2: column 'timestamp': not a time");
    expect_error("timestamp, power.draw [W]\n2024/13/01 00:00:00.0, 5 W\n", "not a time");
    /* dates that do not exist would collide with real ones (02/29 -> 03/01) */
    expect_error("timestamp, power.draw [W]\n2023/02/29 00:00:00.0, 5 W\n", "not a time");
    expect_error("timestamp, power.draw [W]\n2024/04/31 00:00:00.0, 5 W\n", "not a time");
    expect_error("timestamp, power.draw [W]\n2024/01/01 23:59:60.0, 5 W\n", "not a time");
    /* bounded as a native t_s: year 9999, or 1e300 plain seconds */
    expect_error("timestamp, power.draw [W]\n9999/01/01 00:00:00.0, 5 W\n",
                 "t.csv:2: column 'timestamp': '9999/01/01 00:00:00.0' is out of range");
    expect_error("timestamp, power.draw [W]\n1e300, 5 W\n", "is out of range");
    expect_error("timestamp, power.draw [W]\n9e9, 5 W\n-9e9, 5 W\n",
                 "t.csv:3: column 'timestamp': '-9e9' is out of range");
    expect_error("timestamp, power.draw [W]\n1900/02/29 00:00:00.0, 5 W\n", "not a time");
    /* leap days are real: 2024/02/29 is one day before 2024/03/01 */
    const char *leap = "timestamp, power.draw [W]\n2024/02/29 00:00:00.0, 5 W\n"
                       "2024/03/01 00:00:00.0, 5 W\n";
    struct wt_trace_reader *r;
    struct wt_err err;
    struct wt_sample a, b;
    assert_int_equal(tu_open(leap, strlen(leap), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &a, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &b, &err), WT_OK);
    assert_true(b.t_s - a.t_s == 86400);
    wt_trace_close(r);
    /* a hex mask ending in a letter is not a value with a unit (its C was
     * stripped as if it were one: 0x...0C read as 0, the SW power cap lost) */
    const char *hex = "timestamp, power.draw [W], clocks_event_reasons.active\n"
                      "2024/04/03 10:47:10.000, 300.00 W, 0x000000000000000C\n";
    assert_int_equal(tu_open(hex, strlen(hex), NULL, &r, &err), WT_OK);
    assert_int_equal(wt_trace_next(r, &a, &err), WT_OK);
    assert_true(a.v[WT_COL_CLOCK_REASONS] == 12 && a.v[WT_COL_POWER] == 300);
    wt_trace_close(r);
    expect_error("index, power.draw [W]\n0, lots W\n", "column 'power.draw [W]': not a number");
    expect_error("index, power.draw [W]\n, 5 W\n", "column 'index': empty");
    expect_error("index, power.draw [W], power.draw [W]\n", "appears twice");
    /* two spellings of one reading: both named as the file has them */
    expect_error("timestamp,index,clocks_event_reasons.active,clocks_throttle_reasons.active\n",
                 "columns 'clocks_event_reasons.active' and 'clocks_throttle_reasons.active' "
                 "both give clock_reasons");
    expect_error("index,clocks.sm [MHz],clocks.sm [MHz]\n",
                 "column 'clocks.sm [MHz]' appears twice");
    /* only nvidia-smi's own units are stripped: another is not a number */
    expect_error("index, power.draw [W]\n0, 100 kW\n", "not a number: '100 kW'");
    /* nvidia-smi's units, but each only in its own column */
    expect_error("index, power.draw [W]\n0, 300 MiB\n", "not a number: '300 MiB'");
    expect_error("index, utilization.gpu [%]\n0, 90 W\n", "not a number: '90 W'");
    expect_error("index, clocks.sm [MHz]\n0, 1410 %\n", "not a number: '1410 %'");
    expect_error("index, temperature.gpu\n0, 40 W\n", "not a number: '40 W'");
    expect_error("index, utilization.gpu [%]\n0, 950 %\n",
                 "column 'utilization.gpu [%]': 950 % is impossible (must be 0 to 100)");
    /* a later format version is not read as this one */
    expect_error("# format: workloadtruth-trace/99\nt_s,power_w\n0,1\n",
                 "t.csv:1: metadata 'format': 'workloadtruth-trace/99' is not supported");
}

/* A live pipe that goes quiet: a stop (set by a signal handler in `watch`)
 * ends the input within a poll interval instead of blocking in read(2). */
static atomic_int pipe_stop;

static void *set_stop_later(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    pipe_stop = 1;
    return NULL;
}

static void test_quiet_pipe_stops(void **state)
{
    (void)state;
    for (int with_header = 0; with_header <= 1; with_header++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        if (with_header) {
            const char *t = "t_s,gpu,util_gpu_pct\n0,0,50\n1,0,5"; /* last line partial */
            assert_int_equal(write(fds[1], t, strlen(t)), (ssize_t)strlen(t));
        }
        FILE *f = fdopen(fds[0], "r");
        assert_non_null(f);
        pipe_stop = 0;
        pthread_t th;
        /* with a header, the stop comes once the whole lines are read (a
         * stop also ends a read of lines already there: a reader slower
         * than the 0.3 s lost the header on a loaded machine) */
        if (!with_header)
            assert_int_equal(pthread_create(&th, NULL, set_stop_later, NULL), 0);
        alarm(20); /* a hang fails the test instead of the CI job */
        struct wt_trace_opts o = {0};
        o.stop = &pipe_stop;
        struct wt_trace_reader *r = NULL;
        struct wt_err err = {{0}};
        int rc = wt_trace_open_stream(f, 1, "<pipe>", &o, &r, &err);
        if (!with_header) {
            assert_true(rc < 0);
            assert_contains(err.msg, "<pipe>: stopped before a header line arrived");
        } else {
            assert_int_equal(rc, WT_OK);
            struct wt_sample s;
            assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
            assert_true(s.v[WT_COL_UTIL_GPU] == 50);
            assert_int_equal(pthread_create(&th, NULL, set_stop_later, NULL), 0);
            assert_int_equal(wt_trace_next(r, &s, &err), WT_DONE); /* partial line dropped */
            assert_int_equal(wt_trace_next(r, &s, &err), WT_DONE);
            wt_trace_close(r);
        }
        alarm(0);
        pthread_join(th, NULL);
        close(fds[1]);
    }
}

/* An empty power_semantics or gpu_model line says nothing: the power field
 * read and the rows' model decide, as without the line (the empty line
 * made 1-second averages "instant" and left an H100 "unknown"). */
static void test_empty_metadata_values(void **state)
{
    (void)state;
    const char *t = "# power_semantics:\n# gpu_model:  \n# label:\n"
                    "timestamp, index, name, power.draw.instant [W], power.draw.average [W]\n"
                    "2024/04/03 10:00:00.000, 0, NVIDIA H100 80GB HBM3, [N/A], 300 W\n"
                    "2024/04/03 10:00:01.000, 0, NVIDIA H100 80GB HBM3, [N/A], 301 W\n";
    struct wt_trace_reader *r;
    struct wt_err err;
    size_t rows;
    assert_int_equal(tu_open(t, strlen(t), NULL, &r, &err), WT_OK);
    assert_int_equal(tu_drain(r, &rows, &err), WT_DONE);
    assert_int_equal(rows, 2);
    assert_string_equal(wt_trace_meta(r)->power_semantics, "avg1s");
    assert_string_equal(wt_trace_meta_value(r, "gpu_model"), "NVIDIA H100 80GB HBM3");
    assert_int_equal(wt_trace_meta(r)->label, WT_CLASS_NONE);
    wt_trace_close(r);
    /* an empty format is still not this format */
    expect_error("# format:\nt_s,power_w\n0,1\n", "metadata 'format': '' is not supported");
}

/* regular_only (the MCP server's traces): a FIFO put where the checked
 * file was is refused when opened, without waiting for a writer (a plain
 * open blocked for good, holding the server's tool lock); a regular file
 * still opens. */
static void test_regular_only(void **state)
{
    (void)state;
    char dir[] = "/tmp/wt_regonly_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/t.csv", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    struct wt_trace_opts o = {0};
    o.regular_only = 1;
    struct wt_trace_reader *r = NULL;
    struct wt_err err;
    assert_int_equal(wt_trace_open(path, &o, &r, &err), WT_EIO);
    assert_null(r);
    assert_contains(err.msg, "not a regular file");
    unlink(path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("t_s,gpu,util_gpu_pct\n0,0,50\n", f);
    fclose(f);
    assert_int_equal(wt_trace_open(path, &o, &r, &err), WT_OK);
    struct wt_sample smp;
    assert_int_equal(wt_trace_next(r, &smp, &err), WT_OK);
    wt_trace_close(r);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_native_basic),
        cmocka_unit_test(test_native_details),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_huge_and_binary),
        cmocka_unit_test(test_metadata_limit),
        cmocka_unit_test(test_writer_metadata),
        cmocka_unit_test(test_writer_plain_numbers),
        cmocka_unit_test(test_writer_close_times),
        cmocka_unit_test(test_nvsmi_with_index),
        cmocka_unit_test(test_nvsmi_instant_nounits),
        cmocka_unit_test(test_nvsmi_power_fallback),
        cmocka_unit_test(test_nvsmi_names_two_gpus),
        cmocka_unit_test(test_nvsmi_header_again),
        cmocka_unit_test(test_nvsmi_grouped),
        cmocka_unit_test(test_nvsmi_missing_row),
        cmocka_unit_test(test_nvsmi_uuid),
        cmocka_unit_test(test_nvsmi_mixed_models),
        cmocka_unit_test(test_nvsmi_clock_set_back),
        cmocka_unit_test(test_nvsmi_malformed),
        cmocka_unit_test(test_quiet_pipe_stops),
        cmocka_unit_test(test_regular_only),
        cmocka_unit_test(test_empty_metadata_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
