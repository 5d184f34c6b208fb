/* `workloadtruth mcp`: the MCP server, over stdio (the default, what MCP
 * clients launch) or Streamable HTTP (--http HOST:PORT).  Parses the options,
 * reads the bearer token, and hands over to src/mcp; it serves nothing
 * itself.
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/audit_common.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "mcp/http.h"
#include "mcp/server.h"
#include "mcp/stdio.h"
#include "util/fileio.h"
#include "util/text.h"

#define PROG "workloadtruth mcp"
#define MAX_TOKEN 4096

static atomic_int stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* The token: the file's first line, or $WT_MCP_TOKEN. */
static int read_token(const char *path, char *out, size_t cap)
{
    if (!path) {
        const char *e = getenv("WT_MCP_TOKEN");
        if (!e || !*e) {
            out[0] = '\0';
            return 0;
        }
        if (strlen(e) >= cap) {
            fprintf(stderr, PROG ": $WT_MCP_TOKEN is longer than %zu bytes\n", cap - 1);
            return -1;
        }
        snprintf(out, cap, "%s", e);
    } else {
        const char *why = NULL;
        FILE *f = wt_fopen_regular(path, &why);
        struct stat st;
        if (!f) {
            fprintf(stderr, PROG ": --token-file %s: %s\n", path, why);
            return -1;
        }
        if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077)) {
            fprintf(stderr,
                    PROG ": --token-file %s: readable by group or others (mode %03o); "
                         "chmod 600 it\n",
                    path, (unsigned)(st.st_mode & 0777));
            fclose(f);
            return -1;
        }
        /* room for the line's end too: a token of cap - 1 bytes fits */
        char line[4096 + 3];
        size_t got = cap + 2 > sizeof(line) ? 0 : fread(line, 1, cap + 1, f);
        fclose(f);
        size_t len = 0; /* the first line, by bytes: a NUL in it is not its end */
        while (len < got && line[len] != '\r' && line[len] != '\n')
            len++;
        if (memchr(line, '\0', len)) {
            fprintf(stderr,
                    PROG ": --token-file %s: the token must be printable ASCII without "
                         "spaces (it holds a NUL byte)\n",
                    path);
            return -1;
        }
        line[len] = '\0';
        if (len > cap - 1) {
            fprintf(stderr, PROG ": --token-file %s: the token is longer than %zu bytes\n", path,
                    cap - 1);
            return -1;
        }
        memcpy(out, line, strlen(line) + 1);
    }
    size_t n = strlen(out);
    for (size_t i = 0; i < n; i++)
        if (out[i] <= ' ' || out[i] > '~') {
            fprintf(stderr, PROG ": %s%s: the token must be printable ASCII without spaces\n",
                    path ? "--token-file " : "$WT_MCP_TOKEN", path ? path : "");
            return -1;
        }
    if (n < 16) {
        fprintf(stderr, PROG ": %s%s: the token is too short (%zu characters; at least 16)\n",
                path ? "--token-file " : "$WT_MCP_TOKEN", path ? path : "", n);
        return -1;
    }
    return 0;
}

int wt_cmd_mcp(int argc, char **argv)
{
    static const char *const backends[] = {"auto", "nvml", "synthetic", NULL};
    const char *backend = "auto", *log_dir = NULL, *trace_dir = NULL, *http = NULL;
    const char *token_file = NULL, *nvml_lib = NULL, *allow = NULL;
    double max_seconds = 300;
    /* clang-format off */
    struct wt_opt opts[] = {
        {"--backend", WT_OPT_CHOICE, &backend, "B", "the tools' default telemetry source: auto (default: nvml when a driver is present), nvml, synthetic (traces: --trace-dir)", 0, 0, backends, false},
        {"--log-dir", WT_OPT_STRING, &log_dir, "DIR", "audit log directory the tools read and write (default: $WT_LOG_DIR, else ./" WT_DEFAULT_LOG_DIR ")", 0, 0, NULL, false},
        {"--trace-dir", WT_OPT_STRING, &trace_dir, "DIR", "directory of trace files the tools may replay (default: none)", 0, 0, NULL, false},
        {"--max-seconds", WT_OPT_DOUBLE, &max_seconds, "S", "longest live sampling one tool call may ask for (default 300); one still running 4 x interval_seconds + 5 s + 5% later is stopped", 1, 3600, NULL, false},
        {"--nvml-lib", WT_OPT_STRING, &nvml_lib, "PATH", "NVML library to load (default: $WT_NVML_LIB, else libnvidia-ml.so.1)", 0, 0, NULL, false},
        {"--http", WT_OPT_STRING, &http, "HOST:PORT", "serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (e.g. 127.0.0.1:8765)", 0, 0, NULL, false},
        {"--token-file", WT_OPT_STRING, &token_file, "FILE", "HTTP: require this bearer token (default: $WT_MCP_TOKEN, else none)", 0, 0, NULL, false},
        {"--allow-host", WT_OPT_STRING, &allow, "NAMES", "HTTP: host names besides loopback that Host/Origin may carry (comma-separated)", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    /* clang-format on */
    const struct wt_cmd_help help = {
        PROG,
        "Serve the Model Context Protocol (revisions 2026-07-28, 2025-11-25, 2025-06-18 and\n"
        "2025-03-26) over stdio, or over Streamable HTTP with --http.  Tools:\n"
        "classify_workload, check_declaration, list_gpus, run_benchmark, verify_audit_log,\n"
        "recent_classifications.",
        "MCP client configuration: {\"mcpServers\": {\"workloadtruth\": {\"command\":\n"
        "\"workloadtruth\", \"args\": [\"mcp\"]}}}.  HTTP binds loopback addresses only,\n"
        "unless a token is given; requests whose Host or Origin is not loopback (or\n"
        "--allow-host) get 403.  stdout carries only MCP messages; diagnostics go to stderr.",
        NULL,
    };
    int prc = wt_opts_parse(&help, opts, argc, argv, NULL);
    if (prc)
        return prc == 1 ? WT_EXIT_OK : WT_EXIT_USAGE;
    if (!http && (token_file || allow)) {
        fprintf(stderr, PROG ": --token-file and --allow-host go with --http (see --help)\n");
        return WT_EXIT_USAGE;
    }
    if (nvml_lib && strcmp(backend, "nvml") && strcmp(backend, "auto")) {
        fprintf(stderr, PROG ": --nvml-lib goes with --backend nvml or auto (see --help)\n");
        return WT_EXIT_USAGE;
    }
    struct wt_log_paths lp;
    int lrc = wt_cli_log_paths(PROG, log_dir, NULL, &lp);
    if (lrc)
        return lrc == 2 ? WT_EXIT_USAGE : WT_EXIT_ERROR;
    if (trace_dir) {
        struct stat st;
        if (stat(trace_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, PROG ": --trace-dir %s: not a directory\n", WT_CLEAN(trace_dir));
            return WT_EXIT_ERROR;
        }
    }
    static char token[MAX_TOKEN];
    if (http && read_token(token_file, token, sizeof(token)))
        return WT_EXIT_ERROR;
    const char *hosts[32];
    size_t nhosts = 0;
    char *allow_copy = allow ? strdup(allow) : NULL;
    /* strtok skips empty names: "a,,b" and "," said nothing of them */
    if (allow &&
        (!*allow || allow[0] == ',' || allow[strlen(allow) - 1] == ',' || strstr(allow, ",,"))) {
        fprintf(stderr, PROG ": --allow-host: an empty name in the list\n");
        free(allow_copy);
        return WT_EXIT_USAGE;
    }
    if (allow_copy)
        for (char *save = NULL, *t = strtok_r(allow_copy, ",", &save); t;
             t = strtok_r(NULL, ",", &save)) {
            /* a host name, or an IPv6 address in brackets, as Host carries it */
            size_t n = strlen(t);
            int ok = n > 0 && n <= 255 && nhosts < 32;
            for (size_t i = 0; ok && i < n; i++)
                ok = isalnum((unsigned char)t[i]) || strchr(".-_:[]", t[i]) != NULL;
            /* ':' only inside an IPv6 address's brackets: a name with a port
             * ("gpu7:8765") would match no Host (any port is allowed) */
            if (ok && (strchr(t, ':') || strchr(t, '[') || strchr(t, ']')))
                ok = t[0] == '[' && t[n - 1] == ']' && !strchr(t + 1, '[') &&
                     strchr(t, ']') == t + n - 1;
            if (!ok) {
                char shown[64];
                snprintf(shown, sizeof(shown), "%s", t);
                fprintf(stderr,
                        PROG ": --allow-host: '%s' is not a host name (letters, digits, '.', "
                             "'-', a bracketed IPv6 address; no port: any is allowed; at most 32 "
                             "names)\n",
                        wt_text_clean(shown));
                free(allow_copy);
                return WT_EXIT_USAGE;
            }
            hosts[nhosts++] = t;
        }

    struct wt_mcp_config cfg = {0};
    cfg.backend = backend;
    cfg.log_dir = lp.dir;
    cfg.trace_dir = trace_dir;
    cfg.nvml_lib = nvml_lib;
    cfg.max_seconds = max_seconds;
    struct wt_mcp_server s;
    if (wt_mcp_server_init(&s, &cfg)) {
        fprintf(stderr, PROG ": cannot set up the server\n");
        free(allow_copy);
        return WT_EXIT_ERROR;
    }
    signal(SIGPIPE, SIG_IGN);
    int rc;
    if (http) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        struct wt_mcp_http_config hc = {http, token[0] ? token : NULL, hosts, nhosts};
        rc = wt_mcp_serve_http(&s, &hc, &stop_flag);
    } else {
        rc = wt_mcp_serve_stdio(&s, STDIN_FILENO, STDOUT_FILENO);
    }
    wt_mcp_server_free(&s);
    free(allow_copy);
    return rc;
}
