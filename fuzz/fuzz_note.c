/* libFuzzer target for signed notes, checkpoints and key texts: arbitrary
 * bytes as a signed note (parsed, then verified against a fixed log key and
 * a fixed witness cosignature key), its body as a checkpoint, the raw input
 * as a checkpoint body, and as verifier and private key texts.  Round trips
 * must hold: a parsed checkpoint formats back to the body's first three
 * lines, a parsed key formats back to a text that parses to the same key, and
 * a parsed private key signs notes its public key verifies.  Any crash, leak,
 * sanitizer report or broken round trip is a bug; parse errors are fine.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_note -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit/note.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* spec §10.3's TEST key, and a cosignature key from a fixed seed */
static const char log_vkey_text[] = "workloadtruth.example.invalid/3f2a9c1e5b7d4a60+c67f557f+"
                                    "ARE4HLwhnkjS25Tl21NYG7meC8v6yOZJ2S1LbFljqJcZ";

static void check_checkpoint(const char *body, size_t len)
{
    struct wt_checkpoint cp;
    struct wt_err err;
    if (wt_checkpoint_parse(body, len, &cp, &err) != WT_OK)
        return;
    char out[WT_NOTE_NAME_MAX + 128];
    int n = wt_checkpoint_format(&cp, out, sizeof(out));
    if (n < 0 || (size_t)n > len || memcmp(out, body, (size_t)n) != 0)
        abort(); /* origin, size and root lines come back exactly */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wt_note_vkey log_vk, cosig_vk;
    static struct wt_note_key cosig_k;
    static int ready;
    struct wt_err err;
    if (!ready) {
        uint8_t seed[32] = {4, 2};
        if (wt_note_parse_vkey(log_vkey_text, &log_vk, &err) != WT_OK ||
            wt_note_key_from_seed(&cosig_k, "witness.fuzz.invalid", WT_KEY_COSIG, seed, &err) !=
                WT_OK)
            abort();
        wt_note_key_public(&cosig_k, &cosig_vk);
        ready = 1;
    }
    const char *text = (const char *)data;

    struct wt_note n;
    if (wt_note_parse(text, size, &n, &err) == WT_OK) {
        uint64_t ts = 0;
        int a = wt_note_verify(&n, &log_vk, NULL);
        int b = wt_note_verify(&n, &cosig_vk, &ts);
        if (a < -1 || a > 1 || b < -1 || b > 1 || n.body_len > n.len || n.nsigs < 1 ||
            n.nsigs > WT_NOTE_MAX_SIGS)
            abort();
        check_checkpoint(n.text, n.body_len);
        wt_note_free(&n);
    }
    check_checkpoint(text, size);

    /* key texts want a C string */
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    struct wt_note_vkey v, v2;
    char out[600];
    if (wt_note_parse_vkey(s, &v, &err) == WT_OK) {
        if (wt_note_format_vkey(&v, out, sizeof(out)) < 0 ||
            wt_note_parse_vkey(out, &v2, &err) != WT_OK || memcmp(&v, &v2, sizeof(v)) != 0)
            abort();
    }
    struct wt_note_key k, k2;
    if (wt_note_parse_skey(s, &k, &err) == WT_OK) {
        if (wt_note_format_skey(&k, out, sizeof(out)) < 0 ||
            wt_note_parse_skey(out, &k2, &err) != WT_OK || memcmp(&k, &k2, sizeof(k)) != 0)
            abort();
        /* the key signs what its public half verifies */
        static const char body[] =
            "fuzz.invalid/log\n1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n";
        char *signed_note = NULL;
        if (wt_note_sign(&k, body, sizeof(body) - 1, &signed_note, &err) != WT_OK)
            abort();
        struct wt_note sn;
        wt_note_key_public(&k, &v);
        if (wt_note_parse(signed_note, strlen(signed_note), &sn, &err) != WT_OK ||
            wt_note_verify(&sn, &v, NULL) != 1)
            abort();
        wt_note_free(&sn);
        free(signed_note);
        wt_note_key_wipe(&k);
        wt_note_key_wipe(&k2);
    }
    free(s);
    return 0;
}
