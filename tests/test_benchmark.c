/* The seed benchmark with the rule classifier reproduces the Python tool's
 * published cells at 300 trials / window 30: training-evasion 0%, every other
 * cell 100% (clean 100%, evasion 66.7%), for several seeds, and is
 * deterministic for a seed.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include "eval/benchmark.h"
#include "telemetry/simulate.h"

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

/* Suite board: every serving profile under each board setting, at its
 * default strength and at 1, all INFERENCE; no throughput is compared. */
static void test_board_suite(void **state)
{
    (void)state;
    static struct wt_bench_report r;
    struct wt_err err;
    assert_int_equal(
        wt_benchmark_sim(&wt_classifier_rules, "board", 2, 10, 2, 7, NULL, NULL, &r, &err), WT_OK);
    size_t np, ne, serving = 0, board = 0;
    const struct wt_sim_profile_info *prof = wt_sim_profiles(&np);
    const struct wt_sim_evasion_info *ev = wt_sim_evasions(&ne);
    for (size_t p = 0; p < np; p++)
        serving += prof[p].cls == WT_CLASS_INFERENCE;
    for (size_t f = 0; f < ne; f++)
        board += ev[f].board;
    assert_int_equal(board, 2);
    assert_int_equal(r.ncells, 2 * serving * board);
    unsigned defaults = 0;
    for (unsigned i = 0; i < r.ncells; i++) {
        const struct wt_bench_cell *c = &r.cells[i];
        assert_int_equal(c->truth, WT_CLASS_INFERENCE);
        assert_true(!strcmp(c->family, "power-cap") || !strcmp(c->family, "clock-lock"));
        assert_true(c->is_default ? c->strength == 0.5 : c->strength == 1.0);
        defaults += c->is_default;
        assert_int_equal(c->trials, 2);
        assert_true(c->correct + c->training <= c->trials);
        assert_true(isnan(c->throughput_cost));
    }
    assert_int_equal(defaults, r.ncells / 2);
    assert_int_equal(
        wt_benchmark_sim(&wt_classifier_rules, "mining", 2, 10, 2, 7, NULL, NULL, &r, &err),
        WT_EINVAL);
    assert_contains(err.msg, "(seed, sim, evasion, board)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_cells),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_board_suite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
