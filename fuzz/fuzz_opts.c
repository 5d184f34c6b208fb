/* libFuzzer target for the command-line option parser (src/cli/opts.c): the
 * input, split at NUL bytes, is the argument vector of a command whose
 * option table has every kind of option (flag, string, choice, unsigned and
 * floating ranges, list) and takes positional arguments.  A parse that
 * succeeds must leave every value within its declared range or choices; the
 * argument echo helpers (what error messages use) must give printable ASCII
 * (wt_opts_shown) or valid, control-free text (wt_opts_clean) within their
 * buffers; the GPU list parser must accept only in-range indices.  Any
 * crash, leak or sanitizer report is a bug.  (Usage errors are printed on
 * standard error: run it with -close_fd_mask=2 to keep the log short.)
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_opts -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 32

static const char *const colours[] = {"red", "green", "blue", NULL};

static int valid_utf8_no_controls(const unsigned char *s)
{
    while (*s) {
        unsigned char c = *s;
        int n = c < 0x80             ? 0
                : (c & 0xE0) == 0xC0 ? 1
                : (c & 0xF0) == 0xE0 ? 2
                : (c & 0xF8) == 0xF0 ? 3
                                     : -1;
        if (n < 0 || (n == 0 && (c < 0x20 || c == 0x7F)))
            return 0;
        for (int k = 1; k <= n; k++)
            if ((s[k] & 0xC0) != 0x80)
                return 0;
        s += n + 1;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    for (size_t i = 0; i <= size && argc < MAX_ARGS;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;

    bool flag = false;
    const char *str = NULL, *choice = "red";
    unsigned long long count = 10;
    double rate = 1.0;
    struct wt_strlist list = {0}, pos = {0};
    struct wt_opt opts[] = {
        {"--json", WT_OPT_FLAG, &flag, NULL, "a flag", 0, 0, NULL, false},
        {"--name", WT_OPT_STRING, &str, "S", "a string", 0, 0, NULL, false},
        {"--colour", WT_OPT_CHOICE, &choice, "C", "a choice", 0, 0, colours, false},
        {"--count", WT_OPT_UINT, &count, "N", "an unsigned", 2, 1000000, NULL, false},
        {"--count-max", WT_OPT_UINT, &count, "N", "a prefix sibling", 0, 18446744073709551615.0,
         NULL, false},
        {"--rate", WT_OPT_DOUBLE, &rate, "R", "a double", 0.001, 1e9, NULL, false},
        {"--files", WT_OPT_LIST, &list, "F", "a list", 0, 0, NULL, false},
        {NULL, 0, NULL, NULL, NULL, 0, 0, NULL, false},
    };
    const struct wt_cmd_help help = {"fuzz_opts", "the option parser under fuzzing", NULL, "ARGS"};
    int rc = wt_opts_parse(&help, opts, argc, argv, &pos);
    if (rc == 0) {
        if (wt_opts_get(opts, "--count")->seen && !wt_opts_get(opts, "--count-max")->seen &&
            (count < 2 || count > 1000000))
            abort();
        if (!(rate >= 0.001 && rate <= 1e9))
            abort();
        int known = 0;
        for (int i = 0; colours[i]; i++)
            known |= !strcmp(choice, colours[i]);
        if (!known)
            abort();
        for (int i = 0; i < list.n; i++)
            if (!list.v[i])
                abort();
        char joined[128];
        if (strlen(wt_strlist_join(&list, joined, sizeof(joined))) >= sizeof(joined))
            abort();
    }
    wt_strlist_free(&list);
    wt_strlist_free(&pos);

    for (int i = 0; i < argc; i++) {
        char shown[65], clean[257];
        wt_opts_shown(shown, sizeof(shown), argv[i]);
        if (strlen(shown) > sizeof(shown) - 1)
            abort();
        for (const char *c = shown; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7E)
                abort();
        wt_opts_clean(clean, sizeof(clean), argv[i]);
        if (strlen(clean) > sizeof(clean) - 1 || !valid_utf8_no_controls((unsigned char *)clean))
            abort();
        unsigned char sel[8];
        if (wt_opts_gpu_list(argv[i], 8, sel) == 0 && strcmp(argv[i], "all") != 0) {
            /* "0,2": only digits and commas, indices below 8 */
            for (const char *c = argv[i]; *c; c++)
                if (!(*c == ',' || (*c >= '0' && *c <= '9')))
                    abort();
        }
    }
    free(buf);
    return 0;
}
