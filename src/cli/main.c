/* workloadtruth: the command-line entry point.  Dispatches to one small file
 * per command (cmd_*.c); holds no logic of its own.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "classify/classifier.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "eval/dataset.h"
#include "util/text.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"classify", wt_cmd_classify,
     "classify windows of telemetry (synthetic, trace or live), with job-level verdicts"},
    {"benchmark", wt_cmd_benchmark,
     "score a classifier on synthetic suites (the Python tool's, the simulator, evasion, board "
     "settings)"},
    {"eval", wt_cmd_eval, "score a classifier on labelled real traces"},
    {"train", wt_cmd_train, "derive the physics classifier's model from labelled traces"},
    {"gpus", wt_cmd_gpus, "list the GPUs and the processes on each, with their owners"},
    {"record", wt_cmd_record, "record GPU telemetry to a trace file"},
    {"watch", wt_cmd_watch, "classify continuously into a tamper-evident audit log"},
    {"verify-log", wt_cmd_verify_log, "verify an audit log; name the first bad line"},
    {"init", wt_cmd_init, "create an audit log and its signing key"},
    {"checkpoint", wt_cmd_checkpoint, "print the audit log's latest signed checkpoint"},
    {"prove", wt_cmd_prove, "inclusion proof of one audit-log entry (tlog-proof)"},
    {"verify-proof", wt_cmd_verify_proof, "check an inclusion proof offline"},
    {"consistency", wt_cmd_consistency, "witness request: the log only grew since size N"},
    {"witness", wt_cmd_witness, "a minimal witness: check, store and cosign a checkpoint"},
    {"recover", wt_cmd_recover, "quarantine a torn last line after a crash"},
    {"report", wt_cmd_report,
     "write the audit log as an HTML page (status, timelines, mismatches)"},
    {"mcp", wt_cmd_mcp, "serve the Model Context Protocol (stdio, or HTTP with --http)"},
    {NULL, NULL, NULL},
};

const char *const *wt_cli_classifier_names(void)
{
    static const char *names[16];
    const struct wt_classifier *const *all = wt_classifier_all();
    int i;
    for (i = 0; all[i] && i < 15; i++)
        names[i] = all[i]->name;
    names[i] = NULL;
    return names;
}

const char *const wt_cli_missing_choices[] = {"side", "stop", NULL};

const char *const wt_cli_peer_choices[] = {"job", "all", "none", NULL};

int wt_cli_missing_stop(const char *choice)
{
    return !strcmp(choice, "stop");
}

void wt_cli_say_skipped(const char *cmd, const struct wt_ds_skips *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct wt_ds_skipped *k = &s->v[i];
        if (k->same_as)
            fprintf(stderr, "workloadtruth %s: a copy of %s, read once: %s\n", cmd,
                    WT_CLEAN(k->same_as), WT_CLEAN(k->path));
        else
            fprintf(stderr, "workloadtruth %s: not a trace, skipped: %s\n", cmd, WT_CLEAN(k->path));
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: workloadtruth [--version] [--help] <command> [options]\n\n"
               "Tells whether a GPU runs TRAINING, INFERENCE or is IDLE from telemetry alone.\n\n"
               "commands:\n");
    for (int i = 0; commands[i].name; i++)
        fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'workloadtruth <command> --help' describes each command's options.\n");
}

int wt_cli_stdout_reported;

/* The audit-log commands whose exit status 2 means "I/O error, nothing
 * concluded": for them, output that could not be written is that, never 1
 * ("the log is damaged"), which a hook would read as tampering. */
static bool io_error_is_usage(const char *cmd)
{
    static const char *const cmds[] = {"verify-log",   "checkpoint", "prove", "consistency",
                                       "verify-proof", "witness",    NULL};
    for (int i = 0; cmds[i]; i++)
        if (!strcmp(cmd, cmds[i]))
            return true;
    return false;
}

void wt_cli_stdout_failed(const char *cmd)
{
    int e = errno;
    if (wt_cli_stdout_reported)
        return;
    wt_cli_stdout_reported = 1;
    if (!e) {
        /* the failed write was earlier: the same write fails the same way
         * (a full disk, a closed pipe) and says why */
        clearerr(stdout);
        errno = 0;
        if (fputc('\n', stdout) == EOF || fflush(stdout) != 0)
            e = errno;
    }
    fprintf(stderr, "workloadtruth %s: cannot write to standard output%s%s\n", cmd, e ? ": " : "",
            e ? strerror(e) : "");
}

/* Output that could not be written is an error, reported once, whatever
 * the command (a full disk, a closed pipe, /dev/full). */
static int finish(const char *cmd, int rc)
{
    int bad = ferror(stdout);
    errno = 0;
    if (fflush(stdout) != 0)
        bad = 1;
    if (bad) {
        wt_cli_stdout_failed(cmd);
        if (io_error_is_usage(cmd)) {
            if (rc != WT_EXIT_ERROR) /* 0 intact, 3 warnings: not concluded after all */
                rc = WT_EXIT_USAGE;
        } else if (rc == WT_EXIT_OK) {
            rc = WT_EXIT_ERROR;
        }
    }
    return rc;
}

/* Standard input, output and error are open: one started with them closed
 * would otherwise hand their numbers to the first files it opens (the audit
 * log's lock file took `watch`'s window lines).  A closed one is held by
 * /dev/null opened read-only, so a write to it still fails (EBADF) as it
 * would have, and is reported. */
static void hold_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int got = open("/dev/null", O_RDONLY);
        if (got >= 0 && got != fd) /* not the lowest free number: cannot be */
            close(got);
    }
}

int main(int argc, char **argv)
{
    hold_std_fds();
    /* writing past a file-size limit is an error (EFBIG) to report, not a
     * reason to die: the audit log cuts the short write back */
    signal(SIGXFSZ, SIG_IGN);
    /* a closed pipe is a write error to report (exit 1, one line), not a
     * reason to die: `watch --json | head` still seals its log */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return WT_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    /* as argparse, a prefix of a long option stands for it ("--hel") */
    size_t cmdlen = strlen(cmd);
    if (cmdlen > 2 && !strncmp(cmd, "--version", cmdlen))
        cmd = "--version";
    if (cmdlen > 2 && !strncmp(cmd, "--help", cmdlen))
        cmd = "--help";
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("workloadtruth %s\n", WT_VERSION);
        return finish("--version", WT_EXIT_OK);
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return finish("--help", WT_EXIT_OK);
    }
    for (int i = 0; commands[i].name; i++)
        if (!strcmp(cmd, commands[i].name))
            return finish(cmd, commands[i].run(argc - 2, argv + 2));
    char shown[64];
    snprintf(shown, sizeof(shown), "%s", cmd);
    fprintf(stderr, "workloadtruth: unknown command '%s' (see --help)\n", wt_text_clean(shown));
    return WT_EXIT_USAGE;
}
