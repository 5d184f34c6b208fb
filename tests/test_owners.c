/* The owners column (telemetry/owners.h): a process list to a cell, cells
 * checked and interned, the peer rule, and the column through the trace
 * writer and reader and back.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "telemetry/owners.h"
#include "telemetry/trace_writer.h"

static uint32_t intern(struct wt_owners *t, const char *cell)
{
    uint32_t id = 99;
    char why[160] = "";
    assert_int_equal(wt_owners_intern(t, cell, strlen(cell), &id, why, sizeof(why)), 0);
    return id;
}

static void refused(struct wt_owners *t, const char *cell, const char *why_has)
{
    uint32_t id = 99;
    char why[160] = "";
    assert_int_equal(wt_owners_intern(t, cell, strlen(cell), &id, why, sizeof(why)), -1);
    assert_int_equal(id, 0);
    if (!strstr(why, why_has))
        fail_msg("'%s': '%s' lacks '%s'", cell, why, why_has);
}

static void test_intern(void **state)
{
    (void)state;
    struct wt_owners *t = wt_owners_new();
    assert_non_null(t);
    assert_int_equal(intern(t, ""), WT_OWNERS_UNKNOWN);
    uint32_t a = intern(t, "slurm:501"), b = intern(t, "slurm:502;pod:u-1"), none = intern(t, "-");
    assert_int_not_equal(a, 0);
    assert_int_not_equal(a, b);
    assert_int_equal(intern(t, "slurm:501"), a); /* the same text, the same id */
    assert_string_equal(wt_owners_text(t, b), "slurm:502;pod:u-1");
    assert_string_equal(wt_owners_text(t, none), "-");
    assert_string_equal(wt_owners_text(t, 0), "");
    assert_string_equal(wt_owners_text(t, 12345), "");
    assert_string_equal(wt_owners_text(NULL, a), "");
    refused(t, "slurm:5 01", "byte 8 (0x20)");
    refused(t, "a,b", "byte 2 (0x2c)");
    refused(t, "a;;b", "owner 2 is empty");
    refused(t, ";a", "owner 1 is empty");
    refused(t, "a;", "owner 2 is empty");
    refused(t, "-;slurm:1", "owner 1 is '-', which means none");
    refused(t, "slurm:1;-", "owner 2 is '-'");
    refused(t, "slurm:1/", "owner 1 has an empty part");
    refused(t, "/slurm:1", "owner 1 has an empty part");
    refused(t, "a;pod:1//container:2", "owner 2 has an empty part");
    refused(t, "/", "owner 1 has an empty part");
    assert_string_equal(wt_owners_text(t, intern(t, "pod:1f0c-aa/container:ab;-x")),
                        "pod:1f0c-aa/container:ab;-x");
    refused(t, "caf\xc3\xa9", "byte 4 (0xc3)");
    char many[WT_OWNERS_CELL_MAX + 2];
    memset(many, 'x', sizeof(many) - 1);
    many[sizeof(many) - 1] = '\0';
    refused(t, many, "more than an owners cell holds");
    char names[200] = "";
    for (int i = 0; i <= WT_OWNERS_MAX_NAMES; i++)
        strcat(names, i ? ";a" : "a");
    refused(t, names, "more than 32 owners");
    /* many distinct cells: each keeps its id as the table grows */
    char cell[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(cell, sizeof(cell), "slurm:%d", 10000 + i);
        uint32_t id = intern(t, cell);
        assert_string_equal(wt_owners_text(t, id), cell);
    }
    assert_int_equal(intern(t, "slurm:501"), a);
    snprintf(cell, sizeof(cell), "slurm:%d", 10000 + 77);
    assert_string_equal(wt_owners_text(t, intern(t, cell)), cell);
    wt_owners_free(t);
}

/* Past the table's limit a valid cell is "not known", not an error: a long
 * stream (`watch --trace -`, every GPU's rows interned) had stopped the
 * watched GPU at the 65,537th distinct owner set. */
static void test_table_full(void **state)
{
    (void)state;
    size_t n = WT_OWNERS_MAX_SETS + 10, cap = 64 + n * 40, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len, "t_s,gpu,power_w,owners\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len, "%zu,0,100,slurm:%zu\n", i, 100000 + i);
    struct wt_trace_reader *r;
    struct wt_err err = {{0}};
    struct wt_trace_opts o = {.quiet = 1};
    assert_int_equal(tu_open(t, len, &o, &r, &err), WT_OK);
    struct wt_sample smp;
    size_t rows = 0, unknown = 0;
    int rc;
    while ((rc = wt_trace_next(r, &smp, &err)) == WT_OK) {
        if (smp.owner == WT_OWNERS_UNKNOWN)
            unknown++;
        rows++;
    }
    assert_int_equal(rc, WT_DONE);
    assert_int_equal(rows, n);
    assert_int_equal(unknown, n - WT_OWNERS_MAX_SETS);
    wt_trace_close(r);
    free(t);
    /* the table itself: -2 for a valid cell past its limit */
    struct wt_owners *tb = wt_owners_new();
    char cell[32], why[160];
    uint32_t id;
    for (int i = 0; i < WT_OWNERS_MAX_SETS; i++) {
        snprintf(cell, sizeof(cell), "slurm:%d", 100000 + i);
        assert_int_equal(wt_owners_intern(tb, cell, strlen(cell), &id, why, sizeof(why)), 0);
    }
    assert_int_equal(wt_owners_intern(tb, "slurm:1", 7, &id, why, sizeof(why)), -2);
    assert_int_equal(id, WT_OWNERS_UNKNOWN);
    assert_int_equal(wt_owners_intern(tb, "slurm:100000", 12, &id, why, sizeof(why)), 0);
    assert_int_equal(wt_owners_intern(tb, "a b", 3, &id, why, sizeof(why)), -1);
    wt_owners_free(tb);
}

static void test_same_job(void **state)
{
    (void)state;
    struct wt_owners *t = wt_owners_new();
    uint32_t a = intern(t, "slurm:501"), b = intern(t, "slurm:502"),
             ab = intern(t, "slurm:501;slurm:502"), ba = intern(t, "slurm:502;slurm:501"),
             none = intern(t, "-"), prefix = intern(t, "slurm:5011");
    assert_true(wt_owners_same_job(t, a, a));
    assert_false(wt_owners_same_job(t, a, b));
    assert_true(wt_owners_same_job(t, a, ab)); /* a's job has a process there */
    assert_true(wt_owners_same_job(t, a, ba));
    assert_true(wt_owners_same_job(t, ab, a));  /* ab's main owner is a */
    assert_false(wt_owners_same_job(t, ba, a)); /* ba's is b */
    assert_false(wt_owners_same_job(t, a, prefix));
    assert_false(wt_owners_same_job(t, prefix, a));
    /* no owner named here, or nothing known there: every GPU is a peer */
    assert_true(wt_owners_same_job(t, none, a));
    assert_true(wt_owners_same_job(t, 0, a));
    assert_true(wt_owners_same_job(t, a, 0));
    assert_false(wt_owners_same_job(t, a, none)); /* a GPU of no named job */
    assert_true(wt_owners_same_job(NULL, a, b));
    wt_owners_free(t);
}

static void test_cell(void **state)
{
    (void)state;
    struct wt_proc p[4];
    memset(p, 0, sizeof(p));
    for (int i = 0; i < 4; i++)
        p[i].used_mib = 100;
    char buf[WT_OWNERS_CELL_MAX + 1];
    /* a bare process, and a Slurm job id only from the environment: none */
    snprintf(p[0].slurm_job_id, sizeof(p[0].slurm_job_id), "77");
    assert_int_equal(wt_owners_cell(p, 1, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "-");
    assert_int_equal(wt_owners_cell(p, 0, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "-");
    /* the cgroup's job, a pod with a container; the one using the most
     * memory first, each owner once */
    p[0].slurm_job_from_cgroup = 1;
    snprintf(p[1].pod_uid, sizeof(p[1].pod_uid), "1f0c-aa");
    snprintf(p[1].container_id, sizeof(p[1].container_id), "abc");
    p[1].used_mib = 500;
    p[2] = p[0];
    p[3].used_mib = NAN; /* bare, memory not known */
    size_t len = wt_owners_cell(p, 4, buf, sizeof(buf));
    assert_string_equal(buf, "pod:1f0c-aa/container:abc;slurm:77");
    assert_int_equal(len, strlen(buf));
    /* what it writes, the reader takes back */
    struct wt_owners *t = wt_owners_new();
    assert_string_equal(wt_owners_text(t, intern(t, buf)), buf);
    /* a byte no name holds becomes '_' */
    snprintf(p[0].slurm_job_id, sizeof(p[0].slurm_job_id), "7;7,7 7");
    assert_int_equal(wt_owners_name(&p[0], buf, sizeof(buf)), strlen("slurm:7_7_7_7"));
    assert_string_equal(buf, "slurm:7_7_7_7");
    /* cut to the room given, whole names only */
    assert_int_equal(wt_owners_cell(p, 4, buf, 30), strlen("pod:1f0c-aa/container:abc"));
    assert_string_equal(buf, "pod:1f0c-aa/container:abc");
    wt_owners_free(t);
}

static void test_round_trip(void **state)
{
    (void)state;
    char path[] = "/tmp/wt_owners_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct wt_owners *t = wt_owners_new();
    uint32_t ids[3] = {intern(t, "slurm:501"), intern(t, "-"), 0};
    struct wt_trace_writer *w = NULL;
    struct wt_err err = {{0}};
    assert_int_equal(wt_trace_writer_open(path, NULL, NULL, 0, t, &w, &err), WT_OK);
    for (int i = 0; i < 3; i++) {
        struct wt_sample s;
        wt_sample_clear(&s, i);
        s.t_s = 1;
        s.owner = ids[i];
        s.v[WT_COL_POWER] = 100;
        assert_int_equal(wt_trace_writer_row(w, &s, &err), WT_OK);
    }
    assert_int_equal(wt_trace_writer_close(w, &err), WT_OK);
    wt_owners_free(t);
    struct wt_trace_reader *r = NULL;
    assert_int_equal(wt_trace_open(path, NULL, &r, &err), WT_OK);
    const char *want[3] = {"slurm:501", "-", ""};
    for (int i = 0; i < 3; i++) {
        struct wt_sample s;
        assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
        assert_int_equal(s.gpu, i);
        assert_string_equal(wt_owners_text(wt_trace_owners(r), s.owner), want[i]);
        assert_true(i == 2 ? s.owner == 0 : s.owner != 0);
    }
    wt_trace_close(r);
    /* a trace without the column: no table, every id 0 */
    const char *plain = tu_temp_file("t_s,gpu,power_w\n0,0,1\n", 22);
    assert_int_equal(wt_trace_open(plain, NULL, &r, &err), WT_OK);
    assert_null(wt_trace_owners(r));
    struct wt_sample s;
    assert_int_equal(wt_trace_next(r, &s, &err), WT_OK);
    assert_int_equal(s.owner, 0);
    wt_trace_close(r);
    unlink(plain);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intern),     cmocka_unit_test(test_table_full),
        cmocka_unit_test(test_same_job),   cmocka_unit_test(test_cell),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
