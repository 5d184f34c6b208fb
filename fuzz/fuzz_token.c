/* libFuzzer target for the MCP server's bearer token reader (read_token in
 * src/cli/cmd_mcp.c): the --token-file of `workloadtruth mcp --http`, or
 * $WT_MCP_TOKEN.  Whoever wrote the file (or the unit that sets the
 * variable) controls its bytes, and the token then guards every tool call.
 *
 * The command's C file is included (read_token is static), with a stand-in
 * for the one CLI helper it needs from outside (wt_cli_log_paths, which is
 * never reached here).  Input: the first byte's bit 0 clear: the rest is the
 * token file (mode 0600, so the mode check passes); set: the rest, up to a
 * NUL, is $WT_MCP_TOKEN.  A token that is accepted must be 16 to 4095
 * printable ASCII characters without spaces, and be the file's whole first
 * line (up to its CR or LF: a file whose first line holds a NUL byte must be
 * refused, not cut there) or the variable's value; a rejected one leaves
 * nothing for the server to use.  Any crash, leak or
 * sanitizer report is a bug.  (Errors are printed on standard error: run it
 * with -close_fd_mask=2 to keep the log short.)
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_token -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#define _XOPEN_SOURCE 700 /* putenv */

#include "../src/cli/cmd_mcp.c"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* cmd_audit.c's, for wt_cmd_mcp (not called here) */
int wt_cli_log_paths(const char *prog, const char *dir, const char *file, struct wt_log_paths *p)
{
    (void)prog;
    (void)dir;
    (void)file;
    (void)p;
    abort();
}

static char fuzz_path[64];

static void fuzz_cleanup(void)
{
    if (fuzz_path[0])
        unlink(fuzz_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char token[MAX_TOKEN];
    if (!fuzz_path[0]) {
        snprintf(fuzz_path, sizeof(fuzz_path), "/tmp/wt-fuzz-token-%ld", (long)getpid());
        atexit(fuzz_cleanup);
    }
    if (size < 1)
        return 0;
    int env = data[0] & 1;
    const char *body = (const char *)data + 1;
    size_t n = size - 1;
    /* what the token must be, if accepted: the variable up to its NUL; the
     * file's first line, which must not hold a NUL */
    size_t want = 0;
    int nul = 0;
    if (env)
        while (want < n && body[want])
            want++;
    else
        for (; want < n && body[want] != '\r' && body[want] != '\n'; want++)
            nul |= body[want] == '\0';
    int rc;
    memset(token, 0x55, sizeof(token));
    if (env) {
        /* putenv with one buffer: setenv keeps every value it was ever given */
        static char var[8192 + sizeof("WT_MCP_TOKEN=")];
        int k = snprintf(var, sizeof(var), "WT_MCP_TOKEN=");
        if (want > sizeof(var) - (size_t)k - 1)
            want = sizeof(var) - (size_t)k - 1;
        memcpy(var + k, body, want);
        var[(size_t)k + want] = '\0';
        if (putenv(var))
            abort();
        rc = read_token(NULL, token, sizeof(token));
        unsetenv("WT_MCP_TOKEN");
        if (rc == 0 && want == 0) {
            /* no variable: no token, and no error */
            if (token[0])
                abort();
            return 0;
        }
    } else {
        int fd = open(fuzz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || fchmod(fd, 0600))
            abort();
        size_t off = 0;
        while (off < n) {
            ssize_t k = write(fd, body + off, n - off);
            if (k <= 0)
                abort();
            off += (size_t)k;
        }
        close(fd);
        rc = read_token(fuzz_path, token, sizeof(token));
    }
    if (rc != 0)
        return 0;
    if (nul)
        abort(); /* a token cut at a NUL byte was accepted */
    size_t len = strnlen(token, sizeof(token));
    if (len == sizeof(token) || len < 16 || len != want || memcmp(token, body, len) != 0)
        abort();
    for (size_t i = 0; i < len; i++)
        if (token[i] <= ' ' || token[i] > '~')
            abort();
    return 0;
}
