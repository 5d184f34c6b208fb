/* libFuzzer target for the audit log's open and repair (src/audit/log.c):
 * a valid log is written with a fixed key, then damaged with the input's
 * bytes (appended to the log file, and optionally as the side file), and
 * opened again by a writer.  Whoever can write the log's directory controls
 * those bytes; the writer must neither crash nor lose or forge anything.
 *
 * Input: the first byte picks options: bit 0 no_recover, bit 1 reseal,
 * bit 2 publish_later, bit 3: the bytes after the last 0xFF (which no log
 * line can contain) replace the side file (none at all when they are
 * empty), bits 4-6: records the writer appends before the damage (0-7),
 * bit 7: the writer seals them with a checkpoint record.  The other bytes
 * are appended to the log file as they are.
 *
 * Properties: an open that fails leaves the log file byte for byte as it
 * was; an open that repairs moves exactly the bytes after the cut to its
 * quarantine file, and keeps every byte before it; an open that does not
 * repair keeps the whole file as a prefix.  A log the writer opened and
 * appended to verifies against the pinned key and its side file (intact,
 * perhaps with warnings), and opens again.  Any crash, leak, sanitizer
 * report or broken property is a bug.  Logs live in a temporary directory
 * under /dev/shm when it exists.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_logopen -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/log.h"
#include "audit/note.h"
#include "audit/verify.h"
#include "fuzz_logdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ORIGIN "fuzz.example.invalid/logopen"

static struct wt_log_paths paths;
static struct wt_note_key key;
static struct wt_note_vkey vkey;

static int64_t now_ms;

static int64_t fuzz_clock(void *ctx)
{
    (void)ctx;
    return now_ms += 1000;
}

/* The whole file in a malloc'd buffer (NULL and *len 0 when missing). */
static char *slurp(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    for (;;) {
        if (*len == cap) {
            char *nb = realloc(buf, cap = cap ? 2 * cap : 4096);
            if (!nb)
                abort();
            buf = nb;
        }
        size_t n = fread(buf + *len, 1, cap - *len, f);
        *len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    return buf;
}

static void put(const char *path, const char *buf, size_t len, const char *mode)
{
    FILE *f = fopen(path, mode);
    if (!f || (len && fwrite(buf, 1, len, f) != len) || fclose(f) != 0)
        abort();
}

static void fail(const char *what, const char *msg)
{
    fprintf(stderr, "fuzz_logopen: %s: %s\n", what, msg);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wt_err err;
    if (!fuzz_dir[0]) {
        fuzz_dir_make("logopen");
        uint8_t seed[32] = {9};
        if (wt_note_key_from_seed(&key, ORIGIN, WT_KEY_ED25519, seed, &err) != WT_OK ||
            wt_log_paths_dir(&paths, fuzz_dir, &err) != WT_OK)
            abort();
        wt_note_key_public(&key, &vkey);
    }
    if (size == 0)
        return 0;
    unsigned flags = data[0];
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    const char *side = NULL;
    size_t side_len = 0;
    if (flags & 8) {
        for (size_t i = len; i > 0; i--)
            if ((unsigned char)in[i - 1] == 0xff) {
                side = in + i;
                side_len = len - i;
                len = i - 1;
                break;
            }
    }

    /* a valid log, as a writer leaves it */
    fuzz_dir_clean();
    now_ms = 1700000000000;
    struct wt_log_opts wo = {.clock_ms = fuzz_clock};
    char vk[512];
    if (wt_log_init(&paths, ORIGIN, &key, &wo, vk, sizeof(vk), &err) != WT_OK)
        fail("init", err.msg);
    struct wt_log *l = NULL;
    struct wt_log_recovery rec;
    if (wt_log_open(&l, &paths, &wo, &rec, &err) != WT_OK)
        fail("first open", err.msg);
    for (unsigned i = 0; i < ((flags >> 4) & 7); i++) {
        json_t *f =
            json_pack("{s:s, s:s, s:i}", "gpu", "GPU-0", "class", "training", "conf_ppm", 900000);
        if (!f || wt_log_append(l, WT_ENTRY_CLASS, f, NULL, &err) != WT_OK)
            fail("append", err.msg);
        json_decref(f);
    }
    if ((flags & 0x80) && wt_log_seal(l, &err) != WT_OK)
        fail("seal", err.msg);
    if (!(flags & 0x80) && wt_log_publish(l, &err) != WT_OK)
        fail("publish", err.msg);
    wt_log_close(l);
    l = NULL;

    /* the damage */
    if (len)
        put(paths.log, in, len, "ab");
    if (side) {
        if (side_len)
            put(paths.checkpoint, side, side_len, "wb");
        else
            unlink(paths.checkpoint);
    }
    size_t before_len, after_len;
    char *before = slurp(paths.log, &before_len);

    struct wt_log_opts o = wo;
    o.no_recover = flags & 1;
    o.reseal = (flags >> 1) & 1;
    o.publish_later = (flags >> 2) & 1;
    memset(&rec, 0, sizeof(rec));
    int rc = wt_log_open(&l, &paths, &o, &rec, &err);
    char *after = slurp(paths.log, &after_len);
    if (rc != WT_OK) {
        if (after_len != before_len || memcmp(after, before, before_len) != 0)
            fail("a refused open changed the log", err.msg);
        goto done;
    }
    if (rec.repaired) {
        size_t ql;
        char *q = slurp(rec.quarantine, &ql);
        if (rec.offset + rec.dropped != before_len || ql != rec.dropped ||
            memcmp(q, before + rec.offset, ql) != 0 || after_len < rec.offset ||
            memcmp(after, before, rec.offset) != 0)
            fail("repair", "bytes were lost or changed");
        free(q);
    } else if (after_len < before_len || memcmp(after, before, before_len) != 0) {
        fail("open", "the log lost or changed bytes");
    }
    json_t *f = json_pack("{s:s, s:s, s:i}", "gpu", "GPU-1", "class", "idle", "conf_ppm", 1);
    if (!f)
        abort();
    if (wt_log_append(l, WT_ENTRY_CLASS, f, NULL, &err) != WT_OK)
        fail("append after open", err.msg);
    json_decref(f);
    if (wt_log_published(l) != wt_log_size(l) && wt_log_publish(l, &err) != WT_OK)
        fail("publish after open", err.msg);
    wt_log_close(l);
    l = NULL;
    struct wt_verify_opts vo = {.vkey = &vkey, .side_path = paths.checkpoint};
    struct wt_verify_report vr;
    int st = wt_verify_file(paths.log, &vo, &vr);
    if (st != WT_VERIFY_OK && st != WT_VERIFY_WARN)
        fail("a log the writer opened does not verify", vr.message);
    if (wt_log_open(&l, &paths, &wo, &rec, &err) != WT_OK)
        fail("reopen", err.msg);
    wt_log_close(l);
done:
    free(before);
    free(after);
    return 0;
}
