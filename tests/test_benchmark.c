/* The seed benchmark with the rule classifier reproduces the Python tool's
 * published cells at 300 trials / window 30: training-evasion 0%, every other
 * cell 100% (clean 100%, evasion 66.7%), for several seeds, and is
 * deterministic for a seed.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "eval/benchmark.h"

static void test_published_cells(void **state)
{
    (void)state;
    static const uint64_t seeds[] = {0, 1, 12345, 0xdeadbeefULL};
    for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
        struct wt_bench_report r;
        struct wt_err err;
        assert_int_equal(wt_benchmark_seed(&wt_classifier_rules, 300, 30, seeds[k], &r, &err),
                         WT_OK);
        assert_int_equal(r.ncells, 6);
        for (unsigned i = 0; i < r.ncells; i++) {
            const struct wt_bench_cell *c = &r.cells[i];
            assert_int_equal(c->trials, 300);
            unsigned want = (!strcmp(c->profile, "training") && c->evasion) ? 0 : 300;
            if (c->correct != want)
                fail_msg("seed %llu: %s evasion=%d: %u correct, want %u",
                         (unsigned long long)seeds[k], c->profile, c->evasion, c->correct, want);
        }
        assert_true(wt_bench_accuracy(&r, false) == 1.0);
        assert_true(fabs(wt_bench_accuracy(&r, true) - 2.0 / 3.0) < 1e-12);
    }
}

static void test_deterministic(void **state)
{
    (void)state;
    struct wt_bench_report a, b;
    struct wt_err err;
    /* small windows make cells noisy, so equality is a real check */
    assert_int_equal(wt_benchmark_seed(&wt_classifier_rules, 200, 4, 99, &a, &err), WT_OK);
    assert_int_equal(wt_benchmark_seed(&wt_classifier_rules, 200, 4, 99, &b, &err), WT_OK);
    for (unsigned i = 0; i < a.ncells; i++)
        assert_int_equal(a.cells[i].correct, b.cells[i].correct);
    assert_int_equal(wt_benchmark_seed(&wt_classifier_rules, 10, 1, 0, &a, &err), WT_EINVAL);
    assert_contains(err.msg, "window must be");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_cells),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
