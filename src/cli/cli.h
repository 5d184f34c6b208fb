/* The CLI's commands.  Each returns the process exit status:
 * 0 success, 1 runtime error (message on stderr), 2 usage error,
 * 3 (WT_EXIT_MISMATCH) classify --declared observed a different class.
 * The CLI is the only place that wires modules together.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_CLI_H
#define WT_CLI_H

#include <stdatomic.h>
#include <stdio.h>

/* The commands' signal handlers set atomic_int stop flags that other
 * threads read: that is async-signal-safe only when the type is lock-free. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");

#define WT_EXIT_OK 0
#define WT_EXIT_ERROR 1
#define WT_EXIT_USAGE 2

/* Set by a command that has already said it could not write standard
 * output, so that main does not say it twice. */
extern int wt_cli_stdout_reported;
/* Says once, on standard error, `workloadtruth CMD: cannot write to standard
 * output: REASON` (the reason from errno, else from writing again) and sets
 * wt_cli_stdout_reported. */
void wt_cli_stdout_failed(const char *cmd);

/* A batch command's output file (cli/outfile.c): "-" is standard output;
 * any other path is written as a temporary file next to it (PATH.PID.N)
 * that commit renames over PATH, so a failed command leaves PATH as it was.
 * open and commit return 0, or -1 after a one-line message naming what
 * ("--out") and the path; abort removes the temporary file (safe after
 * commit, or on a struct that open failed or never touched, if zeroed). */
struct wt_cli_out {
    FILE *f;
    const char *path;
    char tmp[4200];
};
int wt_cli_out_open(struct wt_cli_out *o, const char *cmd, const char *what, const char *path);
/* Whether a file at path may be written, checked before a long run writes
 * it: its name fits, a temporary file can be made beside it (made and removed
 * now: a directory that access() calls writable may still refuse it, /proc as
 * root), and, written in place (in_place), a file already there is writable.
 * 0 ("-" too), or an errno. */
int wt_cli_out_writable(const char *path, int in_place);
int wt_cli_out_commit(struct wt_cli_out *o, const char *cmd, const char *what);
void wt_cli_out_abort(struct wt_cli_out *o);

int wt_cmd_classify(int argc, char **argv);
int wt_cmd_benchmark(int argc, char **argv);
int wt_cmd_eval(int argc, char **argv);
int wt_cmd_train(int argc, char **argv);
int wt_cmd_gpus(int argc, char **argv);
int wt_cmd_record(int argc, char **argv);
int wt_cmd_watch(int argc, char **argv);
int wt_cmd_init(int argc, char **argv);
int wt_cmd_verify_log(int argc, char **argv);
int wt_cmd_checkpoint(int argc, char **argv);
int wt_cmd_prove(int argc, char **argv);
int wt_cmd_verify_proof(int argc, char **argv);
int wt_cmd_consistency(int argc, char **argv);
int wt_cmd_witness(int argc, char **argv);
int wt_cmd_recover(int argc, char **argv);
int wt_cmd_mcp(int argc, char **argv);
int wt_cmd_report(int argc, char **argv);

/* Names of the classifiers, NULL-terminated, for option choices. */
const char *const *wt_cli_classifier_names(void);

/* --missing (train, eval and benchmark with --holdout): the choices, and
 * whether a value means wt_train_opts.missing_stop. */
extern const char *const wt_cli_missing_choices[];
int wt_cli_missing_stop(const char *choice);

struct wt_ds_skips;
/* Names on standard error, as "CMD: not a trace, skipped: PATH" or "CMD: a
 * copy of FIRST, read once: PATH", the files train and benchmark --holdout
 * family passed over while reading their traces. */
void wt_cli_say_skipped(const char *cmd, const struct wt_ds_skips *s);

/* --peers of classify, eval and watch: job (the default: the GPUs of the
 * same job where a trace's owners column or the kernel names it, else all),
 * all or none (docs/cli.md). */
extern const char *const wt_cli_peer_choices[];

#endif
