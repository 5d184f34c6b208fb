/* libFuzzer target for the whole audit-log verifier: arbitrary bytes as a
 * log.jsonl, verified in memory.  The first byte picks options: bit 0 pins
 * the spec's TEST vkey (§10.3); bit 1 / bit 2 take the bytes after the last
 * 0xFF (which no log line can contain) as the side-file checkpoint / an
 * --against checkpoint (written to a temporary file).  The report must be
 * self-consistent, and without external checkpoints the valid prefix it
 * names must verify on its own to the same entries and root (the prefix
 * property), and a writer's prescan of a prefix resumed on the whole log
 * must conclude exactly what one scan does, as must a scan that keeps its
 * state at a line boundary (the MCP server's) and one resumed from it.
 * Any crash, leak, sanitizer report or broken property is a bug.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_verify -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/note.h"
#include "audit/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char side_path[64];

static void remove_side(void)
{
    if (side_path[0])
        unlink(side_path);
}

/* Two scans of one log concluded the same. */
static void same_report(const struct wt_verify_report *a, const struct wt_verify_report *b)
{
    if (a->status != b->status || a->damage != b->damage || a->line != b->line ||
        a->offset != b->offset || strcmp(a->message, b->message) || a->entries != b->entries ||
        a->valid_bytes != b->valid_bytes || a->file_bytes != b->file_bytes ||
        a->sealed != b->sealed || a->sealed_through != b->sealed_through ||
        a->ckpt_records != b->ckpt_records || a->recoveries != b->recoveries ||
        memcmp(a->root, b->root, 32) || a->sealed_ts_ms != b->sealed_ts_ms || a->nwarn != b->nwarn)
        abort();
    for (int i = 0; i < a->nwarn; i++)
        if (strcmp(a->warn[i], b->warn[i]))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wt_note_vkey vk;
    static int ready;
    struct wt_err err;
    if (!ready) {
        if (wt_note_parse_vkey("workloadtruth.example.invalid/3f2a9c1e5b7d4a60+c67f557f+"
                               "ARE4HLwhnkjS25Tl21NYG7meC8v6yOZJ2S1LbFljqJcZ",
                               &vk, &err) != WT_OK)
            abort();
        snprintf(side_path, sizeof(side_path), "/tmp/wt_fuzz_verify.%ld.checkpoint",
                 (long)getpid());
        atexit(remove_side);
        ready = 1;
    }
    if (size == 0)
        return 0;
    unsigned flags = data[0];
    const char *log = (const char *)data + 1;
    size_t len = size - 1;
    struct wt_verify_opts o = {0};
    if (flags & 1)
        o.vkey = &vk;
    if (flags & 6) {
        const char *ff = NULL;
        for (size_t i = len; i > 0; i--)
            if ((unsigned char)log[i - 1] == 0xff) {
                ff = log + i - 1;
                break;
            }
        if (ff) {
            FILE *f = fopen(side_path, "wb");
            if (!f)
                return 0;
            size_t n = len - (size_t)(ff + 1 - log);
            if (n && fwrite(ff + 1, 1, n, f) != n) {
                fclose(f);
                return 0;
            }
            fclose(f);
            len = (size_t)(ff - log);
            if (flags & 2)
                o.side_path = side_path;
            if (flags & 4) {
                o.against[0] = side_path;
                o.nagainst = 1;
            }
        }
    }
    struct wt_verify_report r;
    int st = wt_verify_buffer(log, len, &o, &r);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += log[i] == '\n';
    if (st != r.status || st < WT_VERIFY_OK || st > WT_VERIFY_WARN || r.entries > lines ||
        r.valid_bytes > len || (r.valid_bytes > 0 && log[r.valid_bytes - 1] != '\n') ||
        r.nwarn < 0 || r.nwarn > WT_VERIFY_MAX_WARN || !memchr(r.message, '\0', sizeof(r.message)))
        abort();
    if ((st == WT_VERIFY_OK || st == WT_VERIFY_WARN) && !o.side_path && !o.nagainst &&
        r.entries > 0) {
        /* the valid prefix verifies by itself, to the same tree (a torn
         * genesis line leaves an empty prefix: an empty log is damage) */
        struct wt_verify_report p;
        int ps = wt_verify_buffer(log, r.valid_bytes, &o, &p);
        if ((ps != WT_VERIFY_OK && ps != WT_VERIFY_WARN) || p.entries != r.entries ||
            memcmp(p.root, r.root, 32) != 0 || p.damage != WT_DMG_NONE)
            abort();
    }
    /* a writer's prescan of a prefix, resumed on the whole log, concludes
     * what one scan of it does (bits 3-7 of the first byte pick the cut);
     * so does a reader's scan that keeps its state at the cut, and a scan
     * resumed from that state */
    size_t cut = len * (flags >> 3) / 31;
    if (cut > 0 && len > 0) {
        struct wt_verify_resume pre, kept;
        struct wt_verify_report a, b;
        FILE *f = fmemopen((void *)log, cut, "r");
        if (!f)
            return 0;
        int prc = wt_verify_prescan(f, NULL, NULL, &pre);
        fclose(f);
        if (prc != 0 || !(f = fmemopen((void *)log, len, "r")))
            return 0;
        wt_verify_stream(f, "log", &o, &a);
        rewind(f);
        wt_verify_stream_from(f, "log", &o, &pre, &b);
        same_report(&a, &b);
        rewind(f);
        struct wt_verify_tail tail = {.want = 1 + cut % 512};
        wt_verify_stream_keep(f, "log", &o, NULL, cut, &b, &kept, &tail);
        same_report(&a, &b);
        /* the copy of the last lines verified is the file's bytes, whole
         * lines ending where the verified part does */
        if (!tail.failed && b.entries > 0 &&
            (!tail.buf || tail.off + tail.len != b.valid_bytes ||
             memcmp(tail.buf, log + tail.off, tail.len) ||
             (tail.off > 0 && log[tail.off - 1] != '\n')))
            abort();
        free(tail.buf);
        /* kept at or before the cut; no later than a prescan of the lines
         * before the cut got (when a line there is bad, the prescan is not
         * valid and the state is kept before that line) */
        if (kept.valid && (kept.off > cut || (pre.valid && kept.n > pre.n)))
            abort();
        rewind(f);
        wt_verify_stream_from(f, "log", &o, &kept, &b);
        fclose(f);
        same_report(&a, &b);
    }
    return 0;
}
