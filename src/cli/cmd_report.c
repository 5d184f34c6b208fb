/* `workloadtruth report`: the audit log as one self-contained HTML page
 * (output/report.h does the work).  The page is written to a temporary file
 * beside --out and renamed over it, so a reader never sees half a page.
 *
 * SPDX-License-Identifier: MIT
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/verify.h"
#include "cli/audit_common.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "output/report.h"
#include "util/fileio.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Whether path names, in the directory of log, log's name followed by suffix:
 * a quarantined torn tail (LOG.torn.OFFSET, written by recover: evidence)
 * or a file of init (LOG.init.PID.N, CHECKPOINT.init.HASH), not to be
 * overwritten. */
static int log_copy(const char *path, const char *log, const char *suffix)
{
    char pd[PATH_MAX], ld[PATH_MAX], rp[PATH_MAX], rl[PATH_MAX];
    const char *ps = strrchr(path, '/'), *ls = strrchr(log, '/');
    const char *pb = ps ? ps + 1 : path, *lb = ls ? ls + 1 : log;
    size_t lbl = strlen(lb), sl = strlen(suffix);
    if (strncmp(pb, lb, lbl) || strncmp(pb + lbl, suffix, sl))
        return 0;
    snprintf(pd, sizeof(pd), "%.*s", ps ? (ps == path ? 1 : (int)(ps - path)) : 1, ps ? path : ".");
    snprintf(ld, sizeof(ld), "%.*s", ls ? (ls == log ? 1 : (int)(ls - log)) : 1, ls ? log : ".");
    return realpath(pd, rp) && realpath(ld, rl) && !strcmp(rp, rl);
}

int wt_cmd_report(int argc, char **argv)
{
    const char *dir = NULL, *file = NULL, *vkey_arg = NULL, *out = NULL, *title = NULL;
    unsigned long long max_windows = WT_REPORT_DEFAULT_WINDOWS;
    double stale = 0;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--log-dir", WT_OPT_STRING, &dir, "DIR", "log directory (default: $WT_LOG_DIR, else ./" WT_DEFAULT_LOG_DIR ")", 0, 0, NULL, false},
        {"--log-file", WT_OPT_STRING, &file, "FILE", "log file (its checkpoint is FILE.checkpoint)", 0, 0, NULL, false},
        {"--vkey", WT_OPT_STRING, &vkey_arg, "KEY", "the log's verifier key (text or file), as printed by init: pins the key", 0, 0, NULL, false},
        {"--out", WT_OPT_STRING, &out, "FILE", "the HTML file to write (required; - for standard output)", 0, 0, NULL, false},
        {"--title", WT_OPT_STRING, &title, "TEXT", "the page's title (default: WorkloadTruth audit report)", 0, 0, NULL, false},
        {"--max-windows", WT_OPT_UINT, &max_windows, "N", "the last N windows of each GPU on its timeline (default 10000)", 10, 10000000, NULL, false},
        {"--stale-after", WT_OPT_DOUBLE, &stale, "S", "warn when the last signed line is older than S seconds, as verify-log does (default: never)", 0, 1e9, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth report",
        "Write the audit log as one self-contained HTML page (no script, nothing\n"
        "fetched): the log's verification status, then per GPU a timeline of classes\n"
        "and confidence, the declared-vs-observed mismatches and the tamper indicators.\n"
        "A damaged log is shown up to its first bad line, as far as a verified\n"
        "signature covers it, with the damage at the top; lines of an intact log that\n"
        "no signed checkpoint covers yet are not shown either.",
        "exit status: 0 written (the log verifies, maybe with warnings), 1 written but the\n"
        "log is damaged, or not written (unreadable log, unwritable file), 2 usage error.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if (!out || !*out) {
        fprintf(stderr, "%s: --out is required (see --help)\n", help.prog);
        return WT_EXIT_USAGE;
    }
    struct wt_log_paths p;
    struct wt_note_vkey vk;
    struct wt_report_opts ro = {0};
    struct wt_report_info info;
    struct wt_err err = {{0}};
    struct wt_cli_out o = {0};
    int to_stdout = !strcmp(out, "-"), rc = WT_EXIT_ERROR;
    if ((prc = wt_cli_log_paths(help.prog, dir, file, &p)) != 0)
        return prc;
    if (!to_stdout) {
        /* nor the --vkey file (text keys name no file) */
        const char *const logs[] = {p.log, p.key, p.checkpoint, p.lock, p.state, vkey_arg};
        const char *clash = wt_output_clash(out, logs, 6);
        if (clash) {
            fprintf(stderr, "%s: --out %s: %s%s\n", help.prog, WT_CLEAN(out),
                    strstr(clash, "input") ? "is the audit log, one of its files or --vkey" : clash,
                    strstr(clash, "input") ? ": choose another name" : "");
            return WT_EXIT_USAGE;
        }
        /* by name too: a file of the log that is missing now (a checkpoint
         * `recover --reseal` would make again, the key of an auditor's copy)
         * was created as the page, and the log could no longer be repaired */
        /* the other layout's too: DIR/log.jsonl reads the directory's side
         * files only while FILE.checkpoint and FILE.key are missing, and a
         * page written as either made the healthy log DAMAGED by that name */
        struct wt_log_paths alt;
        struct wt_err aerr;
        const char *names[13] = {p.log, p.key, p.checkpoint, p.lock, p.state};
        size_t nnames = 5;
        if (wt_log_paths_file(&alt, p.log, &aerr) == WT_OK) {
            names[nnames++] = alt.key;
            names[nnames++] = alt.checkpoint;
            names[nnames++] = alt.lock;
            names[nnames++] = alt.state;
        }
        const char *base = strrchr(p.log, '/');
        base = base ? base + 1 : p.log;
        static const char *const dside[] = {"checkpoint", "log.key", "log.lock", "log.verified"};
        char dnames[4][PATH_MAX + 16];
        for (size_t i = 0; i < 4 && !strcmp(base, "log.jsonl"); i++) {
            int k = snprintf(dnames[i], sizeof(dnames[i]), "%s/%s", p.dir, dside[i]);
            if (k > 0 && (size_t)k < sizeof(dnames[i]))
                names[nnames++] = dnames[i];
        }
        for (size_t i = 0; i < nnames; i++)
            if (wt_same_path(out, names[i])) {
                fprintf(stderr,
                        "%s: --out %s: is the audit log or one of its files: choose "
                        "another name\n",
                        help.prog, WT_CLEAN(out));
                return WT_EXIT_USAGE;
            }
        /* init's files (the signed genesis checkpoint a writer takes up after
         * an init killed before its own) */
        if (log_copy(out, p.log, ".init.") || log_copy(out, p.checkpoint, ".init.")) {
            fprintf(stderr,
                    "%s: --out %s: is a file of the log's init (a writer takes it up): choose "
                    "another name\n",
                    help.prog, WT_CLEAN(out));
            return WT_EXIT_USAGE;
        }
        if (log_copy(out, p.log, ".torn.")) {
            fprintf(stderr,
                    "%s: --out %s: is a torn tail the log's recovery kept (evidence): choose "
                    "another name\n",
                    help.prog, WT_CLEAN(out));
            return WT_EXIT_USAGE;
        }
    }
    struct stat so;
    if (to_stdout && fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode)) {
        /* standard output is a file of the log (`--out - >> log.jsonl`):
         * the page appended to the log damaged it for good (exit 0, and
         * neither recover nor watch could take it up again) */
        const char *const names[] = {p.log, p.key, p.checkpoint, p.lock, p.state, vkey_arg};
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            struct stat sf;
            if (names[i] && stat(names[i], &sf) == 0 && sf.st_dev == so.st_dev &&
                sf.st_ino == so.st_ino) {
                fprintf(stderr,
                        "%s: --out - (standard output) is the audit log, one of its files or "
                        "--vkey (%s): send the page elsewhere\n",
                        help.prog, WT_CLEAN(names[i]));
                return WT_EXIT_USAGE;
            }
        }
    }
    if (vkey_arg) {
        if ((prc = wt_cli_read_vkey(help.prog, vkey_arg, &vk)) != 0)
            return prc;
        ro.vkey = &vk;
    }
    ro.title = title;
    ro.side_path = p.checkpoint;
    ro.max_windows = (size_t)max_windows;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ro.now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    ro.stale_ms = (int64_t)ceil(stale * 1000);

    /* written whole or not at all (cli/outfile.c) */
    if (wt_cli_out_open(&o, "report", "--out", out) != 0)
        goto cleanup;
    if (wt_report_write(o.f, p.log, &ro, &info, &err) != WT_OK) {
        if (to_stdout && ferror(stdout)) /* as every command says it (docs/cli.md) */
            wt_cli_stdout_failed("report");
        else
            fprintf(stderr, "%s: %s\n", help.prog, err.msg);
        if (to_stdout)
            wt_cli_stdout_reported = 1;
        goto cleanup;
    }
    if (!to_stdout) {
        if (wt_cli_out_commit(&o, "report", "--out") != 0)
            goto cleanup;
        char state[160];
        if (info.status == WT_VERIFY_DAMAGED && info.line)
            snprintf(state, sizeof(state), "DAMAGED at line %llu (%s)",
                     (unsigned long long)info.line, wt_damage_name(info.damage));
        else if (info.status == WT_VERIFY_DAMAGED)
            snprintf(state, sizeof(state), "DAMAGED (%s)", wt_damage_name(info.damage));
        else if (info.shown < info.entries)
            snprintf(state, sizeof(state),
                     "verified with warnings (%llu entries; lines %llu..%llu, which no signed "
                     "checkpoint covers, not shown)",
                     (unsigned long long)info.entries, (unsigned long long)info.shown + 1,
                     (unsigned long long)info.entries);
        else
            snprintf(state, sizeof(state), "verified%s (%llu entr%s)",
                     info.status == WT_VERIFY_WARN ? " with warnings" : "",
                     (unsigned long long)info.entries, info.entries == 1 ? "y" : "ies");
        printf("wrote %s: log %s, %zu%s GPU%s, %llu window%s, %llu mismatch%s, %llu with tamper "
               "indicators\n",
               WT_CLEAN(out), state, info.gpus, info.more_gpus ? "+" : "",
               info.gpus == 1 && !info.more_gpus ? "" : "s", (unsigned long long)info.windows,
               info.windows == 1 ? "" : "s", (unsigned long long)info.mismatches,
               info.mismatches == 1 ? "" : "es", (unsigned long long)info.tampered);
    }
    if (info.status == WT_VERIFY_DAMAGED) {
        if (info.shown)
            fprintf(stderr, "%s: DAMAGED: %s; the report shows lines 1..%llu only\n", help.prog,
                    info.message, (unsigned long long)info.shown);
        else
            fprintf(stderr, "%s: DAMAGED: %s; the report shows none of its entries\n", help.prog,
                    info.message);
        rc = WT_EXIT_ERROR;
    } else {
        rc = WT_EXIT_OK;
    }
cleanup:
    if (!to_stdout)
        wt_cli_out_abort(&o);
    return rc;
}
