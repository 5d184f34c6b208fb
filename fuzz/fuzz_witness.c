/* libFuzzer target for the witness's decision (src/audit/witness.c): a state
 * directory receives a sequence of add-checkpoint requests, built by this
 * harness from the input's bytes over a real Merkle tree of 64 leaves and
 * signed with the log's key (the fuzzer cannot forge Ed25519 signatures, so
 * without this it would never get past the signature check), or taken from
 * the input as they are.
 *
 * Input: the first byte's bit 7 set: one valid checkpoint (size: the next
 * byte mod 65) is cosigned first; then, bit 6 clear, the rest of the input is
 * one request as it is; bit 6 set, the rest replaces the stored checkpoint
 * (damaged state) and an honest-looking request follows (from the size the
 * witness held to that plus bits 0-5, at most 64).  Otherwise each request takes an
 * options byte and a size byte (and more bytes as the options ask): bit 0
 * claims the stored size as `old` (else the next byte mod 65), bit 1 flips
 * one bit of the root (the next byte picks it), bits 2-3 give the proof (0
 * the true one from the claimed size, 1 the true one with one byte flipped, 2
 * the true one with one hash too few or one too many, 3 up to 7 hashes from
 * the input), bit 4 signs with another key of the log's name, bit 5 names
 * another origin, bit 6 adds an extension line, bit 7 adds a second signer's
 * line.
 *
 * Properties: a refused request (or an unreadable stored state, the only
 * error allowed, and only after the harness damaged it) leaves the stored
 * checkpoint byte for byte; a cosigned one is stored, signed by the log's key
 * and the witness's, with the origin, size and root the request asked for,
 * never smaller than the one before; once the witness holds a non-empty
 * checkpoint of the real tree it only ever cosigns roots of the real tree (a
 * fork or a rewrite is never cosigned; every tree extends the empty one, so
 * after size 0 it trusts anew), and once it holds a made-up one it cosigns
 * nothing else (no proof from a made-up root can be found); an honest request
 * (the stored size as `old`, the real root, the true proof, the log's key)
 * is cosigned.  Any crash, leak, sanitizer report (undefined behaviour
 * included) or broken property is a bug.  The state lives in a temporary
 * directory under /dev/shm when it exists.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_witness -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <sodium.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/merkle.h"
#include "audit/note.h"
#include "audit/proof.h"
#include "audit/witness.h"
#include "fuzz_logdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ORIGIN "fuzz.example.invalid/witness"
#define NLEAVES 64
#define MAX_REQUESTS 16

static struct wt_note_key logkey, impostor, other, wkey;
static struct wt_note_vkey logvkey, wvkey;
static uint8_t leaves[NLEAVES][32];
static uint8_t roots[NLEAVES + 1][32];
static char state_path[512];

static void key(struct wt_note_key *k, const char *name, uint8_t type, uint8_t fill)
{
    uint8_t seed[32];
    struct wt_err err;
    memset(seed, fill, sizeof(seed));
    if (wt_note_key_from_seed(k, name, type, seed, &err) != WT_OK)
        abort();
}

static void init(void)
{
    if (sodium_init() < 0)
        abort();
    fuzz_dir_make("witness");
    key(&logkey, ORIGIN, WT_KEY_ED25519, 1);
    key(&impostor, ORIGIN, WT_KEY_ED25519, 2);
    key(&other, "fuzz.example.invalid/other", WT_KEY_ED25519, 3);
    key(&wkey, "fuzz.example.invalid/witness-key", WT_KEY_COSIG, 4);
    wt_note_key_public(&logkey, &logvkey);
    wt_note_key_public(&wkey, &wvkey);
    for (int i = 0; i < NLEAVES; i++) {
        char leaf[16];
        int n = snprintf(leaf, sizeof(leaf), "leaf %d", i);
        wt_merkle_leaf_hash(leaf, (size_t)n, leaves[i]);
    }
    for (int n = 0; n <= NLEAVES; n++)
        wt_merkle_root((const uint8_t(*)[32])leaves, (uint64_t)n, roots[n]);
    uint8_t oh[32];
    char hex[17];
    crypto_hash_sha256(oh, (const unsigned char *)ORIGIN, strlen(ORIGIN));
    sodium_bin2hex(hex, sizeof(hex), oh, 8);
    snprintf(state_path, sizeof(state_path), "%s/log-%s.checkpoint", fuzz_dir, hex);
}

/* The whole file in a malloc'd buffer (NULL and *len 0 when missing). */
static char *slurp(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(WT_NOTE_MAX_LEN + 2);
    if (!buf)
        abort();
    *len = fread(buf, 1, WT_NOTE_MAX_LEN + 1, f);
    fclose(f);
    return buf;
}

/* What the harness knows the witness holds. */
struct model {
    uint64_t size;
    uint8_t root[32];
    int held;     /* a checkpoint is stored (and known to the harness) */
    int real;     /* ... and it is one of the real tree */
    uint64_t now; /* cosignature clock */
};

/* What a request asked for (built by the harness; unknown for raw bytes). */
struct asked {
    int known, honest, may_fail; /* may_fail: the stored state was damaged */
    const char *origin;
    uint64_t size;
    uint8_t root[32];
};

/* Sends one request body; checks the properties. */
static void send(struct model *m, const char *req, size_t len, const struct asked *a)
{
    struct wt_witness_result res;
    struct wt_err err = {{0}};
    size_t before_len, after_len;
    char *before = slurp(state_path, &before_len);
    int rc = wt_witness_add(fuzz_dir, &wkey, &logvkey, req, len, ++m->now, &res, &err);
    char *after = slurp(state_path, &after_len);
    if (rc != WT_OK && !(a->may_fail && strstr(err.msg, "unreadable witness state")))
        abort(); /* the only error: a stored state the harness damaged */
    if (rc != WT_OK || res.code != WT_WITNESS_OK) {
        if (a->honest || before_len != after_len || (before && memcmp(before, after, before_len)))
            abort();
        goto out;
    }
    /* cosigned: stored, signed by both, the origin, size and root asked for */
    struct wt_note n;
    struct wt_checkpoint cp;
    if (!after || wt_note_parse(after, after_len, &n, &err) != WT_OK)
        abort();
    if (wt_note_verify(&n, &logvkey, NULL) != 1 || wt_note_verify(&n, &wvkey, NULL) != 1 ||
        wt_checkpoint_parse(n.text, n.body_len, &cp, &err) != WT_OK || strcmp(cp.origin, ORIGIN))
        abort();
    wt_note_free(&n);
    if (cp.size != res.new_size || (m->held && cp.size < m->size))
        abort();
    if (a->known &&
        (strcmp(a->origin, ORIGIN) || cp.size != a->size || memcmp(cp.root, a->root, 32)))
        abort(); /* stored something else than it was asked to cosign */
    int real = cp.size <= NLEAVES && !memcmp(cp.root, roots[cp.size], 32);
    if (m->held && cp.size == m->size && memcmp(cp.root, m->root, 32))
        abort(); /* a fork at the size held was cosigned (C2SP tlog-witness: 409) */
    if (m->held && m->size > 0 && m->real && !real)
        abort(); /* a fork or a rewrite of the real log was cosigned */
    if (m->held && m->size > 0 && !m->real && (cp.size != m->size || memcmp(cp.root, m->root, 32)))
        abort();                  /* nothing extends a made-up tree: no proof can be found */
    if (!m->held || m->size == 0) /* every tree extends the empty one */
        m->real = real;
    m->held = 1;
    m->size = cp.size;
    memcpy(m->root, cp.root, 32);
out:
    free(before);
    free(after);
}

/* Builds, signs and sends one request from the input; returns the bytes used.
 * may_fail: the stored state was replaced (the model knows nothing of it). */
static size_t request(struct model *m, const uint8_t *d, size_t left, int may_fail)
{
    size_t used = 0;
#define NEXT() (used < left ? d[used++] : 0)
    uint8_t opt = NEXT();
    uint64_t size = NEXT() % (NLEAVES + 1);
    uint64_t old = (opt & 1) ? m->size : NEXT() % (NLEAVES + 1);
    struct wt_checkpoint cp = {.size = size};
    snprintf(cp.origin, sizeof(cp.origin), "%s",
             (opt & 0x20) ? "fuzz.example.invalid/other" : ORIGIN);
    memcpy(cp.root, roots[size], 32);
    if (opt & 2) {
        uint8_t bit = NEXT();
        cp.root[bit / 8 % 32] ^= (uint8_t)(1u << (bit % 8));
    }
    struct wt_witness_req r = {.old_size = old};
    size_t np = 0;
    int proof = (opt >> 2) & 3;
    if (proof == 3) {
        r.nproof = NEXT() % 8;
        for (size_t i = 0; i < r.nproof; i++)
            for (int j = 0; j < 32; j++)
                r.proof[i][j] = NEXT();
    } else {
        if (old > size || wt_merkle_consistency_proof((const uint8_t(*)[32])leaves, size, old,
                                                      r.proof, WT_PROOF_MAX_HASHES, &np) != 0)
            np = 0;
        r.nproof = np;
        if (proof == 1 && np) {
            uint8_t at = NEXT();
            r.proof[at / 32 % np][at % 32] ^= 0x80;
        }
        if (proof == 2) { /* one hash too few, or one too many */
            uint8_t b = NEXT();
            if ((b & 1) && np)
                r.nproof--;
            else if (r.nproof < WT_PROOF_MAX_HASHES)
                memset(r.proof[r.nproof++], b, 32);
        }
    }
    char body[1024];
    int bl = wt_checkpoint_format(&cp, body, sizeof(body) - 40);
    if (bl < 0)
        abort();
    if (opt & 0x40)
        bl += snprintf(body + bl, sizeof(body) - (size_t)bl, "extension line\n");
    char *note = NULL;
    struct wt_err err;
    if (wt_note_sign((opt & 0x10) ? &impostor : &logkey, body, (size_t)bl, &note, &err) != WT_OK)
        abort();
    if (opt & 0x80) {
        char line[512];
        if (wt_note_sig_line(&other, body, (size_t)bl, 0, line, sizeof(line)) < 0)
            abort();
        size_t nl = strlen(note);
        char *two = malloc(nl + strlen(line) + 1);
        if (!two)
            abort();
        memcpy(two, note, nl);
        strcpy(two + nl, line);
        free(note);
        note = two;
    }
    r.checkpoint = note;
    r.checkpoint_len = strlen(note);
    char *req = NULL;
    if (wt_witness_req_format(&r, &req, &err) != WT_OK)
        abort();
    struct asked a = {.known = 1, .may_fail = may_fail, .origin = cp.origin, .size = size};
    memcpy(a.root, cp.root, 32);
    /* (a made-up tree of size 0 held: the real empty one is a fork of it at
     * that size, 409) */
    a.honest = !may_fail && !(opt & (2 | 0x10 | 0x20)) && proof == 0 && old == m->size &&
               size >= m->size && (!m->held || m->size == 0 || m->real) &&
               !(m->held && size == m->size && memcmp(cp.root, m->root, 32));
    send(m, req, strlen(req), &a);
    free(req);
    free(note);
    return used;
#undef NEXT
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_dir[0])
        init();
    fuzz_dir_clean();
    struct model m = {0};
    if (size >= 2 && (data[0] & 0x80)) {
        uint8_t first[2] = {1, data[1]}; /* the stored size claimed, the real root and proof */
        request(&m, first, sizeof(first), 0);
        if (!m.held)
            abort();
        if (!(data[0] & 0x40)) { /* the rest is a request */
            struct asked raw = {0};
            send(&m, (const char *)data + 2, size - 2, &raw);
            return 0;
        }
        /* the rest replaces the stored checkpoint; then a request that
         * would extend the one the witness held */
        FILE *f = fopen(state_path, "wb");
        if (!f || fwrite(data + 2, 1, size - 2, f) != size - 2 || fclose(f))
            abort();
        uint64_t held = m.size;
        m = (struct model){.now = m.now};
        uint64_t to = held + (data[0] & 0x3f) > NLEAVES ? NLEAVES : held + (data[0] & 0x3f);
        uint8_t next[3] = {0, (uint8_t)to, (uint8_t)held};
        request(&m, next, sizeof(next), 1);
        return 0;
    }
    size_t at = 0;
    for (int i = 0; i < MAX_REQUESTS && at < size; i++)
        at += request(&m, data + at, size - at, 0);
    return 0;
}
