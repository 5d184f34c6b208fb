/* `workloadtruth gpus`: the GPUs a backend sees (index, name, UUID, PCI bus
 * id, memory, power limits, MIG mode, driver version, notes) and the compute
 * processes on each, with their owners (user, command, container, Kubernetes
 * pod, Slurm job).
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "output/output.h"
#include "telemetry/source.h"

static void text_proc(const struct wt_proc *p)
{
    printf("    pid %-8u %-16s", p->pid, p->comm[0] ? p->comm : "?");
    if (p->user[0])
        printf(" user %s", p->user);
    if (wt_measured(p->used_mib))
        printf("  %.0f MiB", p->used_mib);
    if (wt_measured(p->sm_util_pct))
        printf("  SM %.0f%%", p->sm_util_pct);
    if (p->slurm_job_id[0])
        printf("  slurm job %s", p->slurm_job_id);
    if (p->pod_uid[0])
        printf("  pod %s", p->pod_uid);
    if (p->container_id[0])
        printf("  container %.12s", p->container_id);
    printf("\n");
}

int wt_cmd_gpus(int argc, char **argv)
{
    static const char *const backends[] = {"auto", "nvml", "synthetic", "replay", NULL};
    const char *backend = "auto", *trace = NULL, *nvml_lib = NULL, *profile = "training";
    bool json = false;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--backend", WT_OPT_CHOICE, &backend, "B", "auto (default: nvml when a driver is present), nvml, synthetic, replay", 0, 0, backends, false},
        {"--trace", WT_OPT_STRING, &trace, "FILE", "replay: the trace whose GPUs to list; implies --backend replay", 0, 0, NULL, false},
        {"--profile", WT_OPT_CHOICE, &profile, "P", "synthetic: profile (default training)", 0, 0, wt_opts_profile_names(), false},
        {"--nvml-lib", WT_OPT_STRING, &nvml_lib, "PATH", "NVML library to load (default: $WT_NVML_LIB, else libnvidia-ml.so.1)", 0, 0, NULL, false},
        {"--json", WT_OPT_FLAG, &json, NULL, "print JSON", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        "workloadtruth gpus",
        "List the GPUs and the compute processes on each (pid, memory, SM utilization, user,\n"
        "command, container, Kubernetes pod, Slurm job).",
        "Process owners come from /proc (set WT_PROC_ROOT to read another tree); in a\n"
        "container, run with the host's PID namespace to see other processes.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if (trace) {
        if (wt_opts_get(opts, "--backend")->seen && strcmp(backend, "replay")) {
            fprintf(stderr,
                    "workloadtruth gpus: --trace needs --backend replay, not '%s' (see "
                    "--help)\n",
                    backend);
            return WT_EXIT_USAGE;
        }
        backend = "replay";
    } else if (!strcmp(backend, "replay")) {
        fprintf(stderr, "workloadtruth gpus: --backend replay needs --trace FILE "
                        "('-' for standard input) (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (wt_opts_profile_fits(&help, opts, backend))
        return WT_EXIT_USAGE;
    if (nvml_lib && strcmp(backend, "nvml") && strcmp(backend, "auto")) {
        fprintf(stderr, "workloadtruth gpus: --nvml-lib goes with --backend nvml or auto (see "
                        "--help)\n");
        return WT_EXIT_USAGE;
    }
    struct wt_source_config cfg = {0};
    cfg.trace_path = trace;
    cfg.nvml_lib = nvml_lib;
    cfg.profile = profile;
    cfg.list_only = true; /* a trace's GPUs and first rows, not every row */
    struct wt_source *src = NULL;
    struct wt_err err = {{0}};
    struct wt_proc *procs = malloc(WT_MAX_PROCS * sizeof(*procs));
    json_t *arr = NULL;
    int status = WT_EXIT_ERROR, ngpus = 0;
    if (!procs) {
        fprintf(stderr, "workloadtruth gpus: out of memory\n");
        return WT_EXIT_ERROR;
    }
    if (wt_source_open(backend, &cfg, &src, &err) != WT_OK ||
        wt_source_device_count(src, &ngpus, &err) != WT_OK) {
        fprintf(stderr, "workloadtruth gpus: %s\n", err.msg);
        goto out;
    }
    if (ngpus == 0 && !strcmp(src->ops->name, "replay")) {
        /* as classify, eval and train say it (an empty list, exit 0, before) */
        fprintf(stderr, "workloadtruth gpus: %s: the trace has no data rows\n",
                strcmp(trace, "-") ? trace : "<stdin>");
        goto out;
    }
    arr = json ? json_array() : NULL;
    for (int g = 0; g < ngpus; g++) {
        struct wt_device_info d;
        size_t n = 0, total = 0;
        int irc = wt_source_device_info(src, g, &d, &err);
        if (irc == WT_ENODEV && !strcmp(src->ops->name, "replay"))
            continue; /* an index the trace does not have */
        if (irc != WT_OK) {
            fprintf(stderr, "workloadtruth gpus: %s\n", err.msg);
            goto out;
        }
        struct wt_err perr = {{0}};
        int prc2 = wt_source_processes(src, g, procs, WT_MAX_PROCS, &n, &total, &perr);
        int have = prc2 == WT_OK;
        /* a GPU lost while its processes were listed: its notes say so now
         * (the JSON had no sign of it, only "processes": null) */
        struct wt_device_info d2;
        struct wt_err ierr;
        if (!have && wt_source_device_info(src, g, &d2, &ierr) == WT_OK && !d.notes[0])
            snprintf(d.notes, sizeof(d.notes), "%s", d2.notes);
        if (json) {
            json_array_append_new(arr, wt_json_device(&d, procs, n, have));
            continue;
        }
        printf("GPU %d: %s%s\n", g, d.name, d.is_mig ? " (MIG device)" : "");
        if (d.uuid[0])
            printf("  uuid            %s\n", d.uuid);
        if (d.pci_bus_id[0])
            printf("  pci bus id      %s\n", d.pci_bus_id);
        if (wt_measured(d.mem_total_mib))
            printf("  memory          %.0f MiB\n", d.mem_total_mib);
        if (wt_measured(d.power_limit_w))
            printf("  power limit     %.0f W", d.power_limit_w);
        if (wt_measured(d.power_limit_w) && wt_measured(d.power_default_limit_w))
            printf(" (default %.0f W)", d.power_default_limit_w);
        if (wt_measured(d.power_limit_w))
            printf("\n");
        printf("  power reading   %s\n", d.power_semantics);
        if (d.mig_mode >= 0)
            printf("  MIG mode        %s\n", d.mig_mode ? "enabled" : "disabled");
        if (d.driver_version[0])
            printf("  driver          %s\n", d.driver_version);
        if (d.notes[0])
            printf("  note            %s\n", d.notes);
        if (!have)
            printf("  processes       not available (%s)\n", perr.msg);
        else {
            if (total > n)
                printf("  processes       %zu (the first %zu listed)\n", total, n);
            else
                printf("  processes       %zu\n", n);
            for (size_t i = 0; i < n; i++)
                text_proc(&procs[i]);
        }
    }
    if (json) {
        json_t *o = json_object();
        const char *dv = wt_source_meta(src, "driver_version");
        json_object_set_new(o, "backend", json_string(src->ops->name));
        json_object_set_new(o, "driver_version", dv ? json_string(dv) : json_null());
        json_object_set_new(o, "gpus", arr);
        arr = NULL;
        int rc = wt_json_print(stdout, o);
        json_decref(o);
        if (rc) {
            fprintf(stderr, "workloadtruth gpus: cannot write JSON output\n");
            goto out;
        }
    }
    status = fflush(stdout) == 0 ? WT_EXIT_OK : WT_EXIT_ERROR;
out:
    json_decref(arr);
    free(procs);
    wt_source_close(src);
    return status;
}
