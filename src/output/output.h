/* Output: results, benchmarks and evaluations as JSON (jansson) and as text.
 *
 * The JSON shapes are the Python tool's where it has one (classify,
 * benchmark), so its users can switch; fields we add come after its fields.
 * Numbers are rounded (confidence and features to 4 decimals) and printed in
 * their shortest form, so output is stable across platforms.  The CLI, MCP
 * server and exporters all print through this module.  It prints; it never
 * decides anything.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_OUTPUT_H
#define WT_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "audit/verify.h"
#include "classify/classifier.h"
#include "classify/run.h"
#include "classify/verdict.h"
#include "eval/benchmark.h"
#include "eval/eval.h"
#include "telemetry/source.h"

/* Flags for json_dumps: 2-space indent, shortest round-trip reals. */
#define WT_JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(15))

/* A number rounded to `digits` decimals, or JSON null when not measured. */
json_t *wt_json_number(double v, int digits);
/* A JSON string of text that may come from outside (a file name, a GPU
 * model, a log message): bytes that are not valid UTF-8, and control
 * characters, become '?' instead of failing the whole document.  NULL for
 * NULL (or out of memory). */
json_t *wt_json_text(const char *s);

/* New references; NULL only on allocation failure. */
json_t *wt_json_result(const struct wt_result *r);
json_t *wt_json_benchmark(const struct wt_bench_report *b);
json_t *wt_json_eval(const struct wt_eval_report *e);

/* A classification run (classify --json, the MCP tools): the job-level
 * result, then with several windows "job" {windows, min_agree} and
 * "windows" (each window's result), "processes" when the source knows them,
 * and "declared" and "verdict" when declared is not WT_CLASS_NONE. */
json_t *wt_json_run(const struct wt_run_outcome *run, enum wt_class declared, enum wt_verdict v);

/* Processes with their owners (array); NULL on allocation failure. */
json_t *wt_json_processes(const struct wt_proc *p, size_t n);
/* A device's description for `gpus --json`. */
json_t *wt_json_device(const struct wt_device_info *d, const struct wt_proc *p, size_t n,
                       int have_procs);

/* An audit-log verification for `verify-log --json` and the MCP tool:
 * {valid, message, entries, status, damage, line, ...}. */
json_t *wt_json_verify(const struct wt_verify_report *r, int status, int key_pinned,
                       const char *log);

/* The fields of the audit log's `class` record for n samples whose times
 * run from t_first to t_last (seconds; NaN: not recorded) (class_record.c).
 * source names the telemetry source when the GPU has no UUID; model_id is
 * the model file's short hash ("" for the built-in one). */
json_t *wt_json_class_record(const struct wt_result *r, const struct wt_device_info *info,
                             const char *source, size_t n, double t_first, double t_last,
                             const struct wt_classifier *clf, const char *model_id);

/* Prints j followed by a newline; returns 0 or -1. */
int wt_json_print(FILE *f, const json_t *j);

void wt_text_result(FILE *f, const struct wt_result *r);
void wt_text_benchmark(FILE *f, const struct wt_bench_report *b);
void wt_text_eval(FILE *f, const struct wt_eval_report *e, int per_file);

#endif
