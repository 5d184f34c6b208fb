/* Signed notes, keys, cosignatures and checkpoints: the Go sumdb/note
 * vector (spec §10.2) and the WorkloadTruth example key and checkpoint
 * (§10.3) byte for byte, verification results, and parser rejections.
 *
 * SPDX-License-Identifier: MIT
 */
#include "testutil.h"

#include <jansson.h>
#include <sodium.h>
#include <time.h>

#include "audit/note.h"

#define VEC(name) WT_TEST_DATA "/../vectors/" name
#define DASH "\xe2\x80\x94 "

static char *read_vec(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char *buf = malloc(1 << 16);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    assert_true(feof(f));
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* The value of "<key> <value>" in a vector file (static buffer). */
static const char *vec_field(const char *text, const char *key)
{
    static char val[512];
    size_t k = strlen(key);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > k && strncmp(p, key, k) == 0 && p[k] == ' ') {
            assert_true(len - k - 1 < sizeof(val));
            memcpy(val, p + k + 1, len - k - 1);
            val[len - k - 1] = '\0';
            return val;
        }
        p += len + (nl ? 1 : 0);
    }
    fail_msg("no '%s' in vector file", key);
    return NULL;
}

/* Length of the body of a signed note (up to the first "\n" of the last "\n\n"). */
static size_t body_len_of(const char *note)
{
    size_t len = strlen(note), b = 0;
    for (size_t i = 0; i + 1 < len; i++)
        if (note[i] == '\n' && note[i + 1] == '\n')
            b = i + 1;
    assert_true(b > 0);
    return b;
}

/* A note with a hand-made signature line "— name base64(raw)\n". */
static char *note_with_sig(const char *body, const char *name, const uint8_t *raw, size_t rawlen)
{
    char b64[512];
    sodium_bin2base64(b64, sizeof(b64), raw, rawlen, sodium_base64_VARIANT_ORIGINAL);
    size_t need = strlen(body) + 1 + 4 + strlen(name) + 1 + strlen(b64) + 2;
    char *s = malloc(need);
    assert_non_null(s);
    snprintf(s, need, "%s\n" DASH "%s %s\n", body, name, b64);
    return s;
}

static void test_peterneumann(void **state)
{
    (void)state;
    char *vec = read_vec(VEC("note_peterneumann.txt"), NULL);
    size_t note_len;
    char *note = read_vec(VEC("note_peterneumann.note"), &note_len);
    char skey[256], vkey[256], out[512];
    struct wt_note_key k;
    struct wt_note_vkey v, v2;
    struct wt_err err;
    snprintf(skey, sizeof(skey), "%s", vec_field(vec, "skey"));
    snprintf(vkey, sizeof(vkey), "%s", vec_field(vec, "vkey"));
    assert_string_equal(vec_field(vec, "keyid"), "c74f20a3");

    assert_int_equal(wt_note_parse_skey(skey, &k, &err), 0);
    assert_string_equal(k.name, "PeterNeumann");
    assert_int_equal(k.type, WT_KEY_ED25519);
    assert_int_equal(k.keyid, 0xc74f20a3u);
    assert_int_equal(wt_note_keyid("PeterNeumann", WT_KEY_ED25519, k.pk), 0xc74f20a3u);
    wt_note_key_public(&k, &v);
    int n = wt_note_format_vkey(&v, out, sizeof(out));
    assert_int_equal(n, (int)strlen(vkey));
    assert_string_equal(out, vkey);
    n = wt_note_format_skey(&k, out, sizeof(out));
    assert_int_equal(n, (int)strlen(skey));
    assert_string_equal(out, skey);
    assert_int_equal(wt_note_parse_vkey(vkey, &v2, &err), 0);
    assert_memory_equal(&v, &v2, sizeof(v));

    /* signing reproduces the documented note byte for byte */
    size_t blen = body_len_of(note);
    char *signed_note = NULL;
    assert_int_equal(wt_note_sign(&k, note, blen, &signed_note, &err), 0);
    assert_string_equal(signed_note, note);
    free(signed_note);
    n = wt_note_sig_line(&k, note, blen, 0, out, sizeof(out));
    assert_int_equal(n, (int)(note_len - blen - 1));
    assert_string_equal(out, note + blen + 1);

    struct wt_note parsed;
    assert_int_equal(wt_note_parse(note, note_len, &parsed, &err), 0);
    assert_int_equal(parsed.body_len, blen);
    assert_int_equal(parsed.len, note_len);
    assert_int_equal(parsed.nsigs, 1);
    assert_string_equal(parsed.sigs[0].name, "PeterNeumann");
    assert_int_equal(parsed.sigs[0].keyid, 0xc74f20a3u);
    assert_int_equal(parsed.sigs[0].sig_len, 64);
    assert_int_equal(wt_note_verify(&parsed, &v, NULL), 1);
    wt_note_free(&parsed);
    assert_null(parsed.text);
    wt_note_key_wipe(&k);
    free(vec);
    free(note);
}

/* The §10.3 test key: derived from the seed, key id and texts. */
static void example_key(const char *vec, struct wt_note_key *k)
{
    uint8_t seed[32], want_seed[32];
    size_t len;
    struct wt_err err;
    const char *in = vec_field(vec, "seed_input");
    crypto_hash_sha256(seed, (const unsigned char *)in, strlen(in));
    assert_int_equal(sodium_hex2bin(want_seed, 32, vec_field(vec, "seed"), 64, NULL, &len, NULL),
                     0);
    assert_memory_equal(seed, want_seed, 32);
    char origin[256];
    snprintf(origin, sizeof(origin), "%s", vec_field(vec, "origin"));
    assert_int_equal(wt_note_key_from_seed(k, origin, WT_KEY_ED25519, seed, &err), 0);
    sodium_memzero(seed, sizeof(seed));
}

static void test_example_key(void **state)
{
    (void)state;
    char *vec = read_vec(VEC("example_key.txt"), NULL);
    struct wt_note_key k, k2;
    struct wt_note_vkey v, v2;
    struct wt_err err;
    char out[512], b64[45];
    example_key(vec, &k);
    wt_b64_hash(k.pk, b64);
    assert_string_equal(b64, vec_field(vec, "public_key"));
    snprintf(out, sizeof(out), "%08x", (unsigned)k.keyid);
    assert_string_equal(out, vec_field(vec, "key_id"));
    assert_int_equal(k.keyid, 0xc67f557fu);
    wt_note_key_public(&k, &v);
    assert_true(wt_note_format_vkey(&v, out, sizeof(out)) > 0);
    assert_string_equal(out, vec_field(vec, "vkey"));
    assert_true(wt_note_format_skey(&k, out, sizeof(out)) > 0);
    assert_string_equal(out, vec_field(vec, "skey"));
    /* the skey's base64 contains '+': the parser splits on the first '+'s only;
     * a key file's trailing newline is accepted */
    char skey_nl[512];
    snprintf(skey_nl, sizeof(skey_nl), "%s\n", vec_field(vec, "skey"));
    assert_int_equal(wt_note_parse_skey(skey_nl, &k2, &err), 0);
    assert_memory_equal(&k, &k2, sizeof(k));
    assert_int_equal(wt_note_parse_vkey(vec_field(vec, "vkey"), &v2, &err), 0);
    assert_memory_equal(&v, &v2, sizeof(v));
    /* cap too small */
    assert_int_equal(wt_note_format_vkey(&v, out, 10), -1);
    int n = wt_note_format_vkey(&v, out, sizeof(out));
    assert_int_equal(wt_note_format_vkey(&v, out, (size_t)n), -1);
    assert_int_equal(wt_note_format_vkey(&v, out, (size_t)n + 1), n);
    wt_note_key_wipe(&k);
    wt_note_key_wipe(&k2);
    static const struct wt_note_key zero;
    assert_memory_equal(&k, &zero, sizeof(zero));
    free(vec);
}

static void test_example_checkpoint(void **state)
{
    (void)state;
    char *vec = read_vec(VEC("example_key.txt"), NULL);
    size_t note_len;
    char *note = read_vec(VEC("example_checkpoint.txt"), &note_len);
    struct wt_note_key k;
    struct wt_note_vkey v;
    struct wt_err err;
    struct wt_checkpoint c;
    char body[512];
    example_key(vec, &k);
    wt_note_key_public(&k, &v);

    memset(&c, 0, sizeof(c));
    snprintf(c.origin, sizeof(c.origin), "%s", vec_field(vec, "origin"));
    c.size = 3;
    const char *root = "LxFLuD2UQY+OTkyA+3UEYhtTHYK/C1WqTSWu9XY8ZvQ=";
    assert_int_equal(wt_b64_hash_decode(root, strlen(root), c.root), 0);
    int blen = wt_checkpoint_format(&c, body, sizeof(body));
    assert_true(blen > 0);
    assert_int_equal((size_t)blen, body_len_of(note));
    assert_memory_equal(body, note, (size_t)blen);

    char *signed_note = NULL;
    assert_int_equal(wt_note_sign(&k, body, (size_t)blen, &signed_note, &err), 0);
    assert_string_equal(signed_note, note);
    free(signed_note);

    /* the same note sits in line 4 of the example log */
    char *log = read_vec(VEC("example_log.jsonl"), NULL);
    char *l4 = log;
    for (int i = 0; i < 3; i++)
        l4 = strchr(l4, '\n') + 1;
    json_error_t jerr;
    json_t *o = json_loadb(l4, strcspn(l4, "\n"), JSON_REJECT_DUPLICATES, &jerr);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "note")), note);
    json_decref(o);
    free(log);

    struct wt_note n;
    struct wt_checkpoint c2;
    assert_int_equal(wt_note_parse(note, note_len, &n, &err), 0);
    assert_int_equal(wt_checkpoint_parse(n.text, n.body_len, &c2, &err), 0);
    assert_memory_equal(&c, &c2, sizeof(c));
    /* right key = 1 */
    assert_int_equal(wt_note_verify(&n, &v, NULL), 1);
    /* unknown keys = 0: another name, or the same name with another key */
    struct wt_note_key other;
    uint8_t seed[32] = {1, 2, 3};
    struct wt_note_vkey ov;
    assert_int_equal(wt_note_key_from_seed(&other, "someone.else", WT_KEY_ED25519, seed, &err), 0);
    wt_note_key_public(&other, &ov);
    assert_int_equal(wt_note_verify(&n, &ov, NULL), 0);
    assert_int_equal(wt_note_key_from_seed(&other, c.origin, WT_KEY_ED25519, seed, &err), 0);
    wt_note_key_public(&other, &ov);
    assert_int_equal(wt_note_verify(&n, &ov, NULL), 0);
    wt_note_key_wipe(&other);
    wt_note_free(&n);

    /* a corrupted signature = -1 */
    uint8_t raw[68];
    const char *b64 = strrchr(note, ' ') + 1;
    size_t rlen = 0;
    assert_int_equal(sodium_base642bin(raw, sizeof(raw), b64, strcspn(b64, "\n"), NULL, &rlen, NULL,
                                       sodium_base64_VARIANT_ORIGINAL),
                     0);
    assert_int_equal(rlen, 68);
    for (size_t byte = 4; byte < 68; byte += 9) {
        raw[byte] ^= 0x20;
        char *bad = note_with_sig(body, c.origin, raw, sizeof(raw));
        raw[byte] ^= 0x20;
        assert_int_equal(wt_note_parse(bad, strlen(bad), &n, &err), 0);
        assert_int_equal(wt_note_verify(&n, &v, NULL), -1);
        wt_note_free(&n);
        free(bad);
    }
    /* ... and so is a changed body */
    char *bad = strdup(note);
    bad[strlen(c.origin) + 1] = '4';
    assert_int_equal(wt_note_parse(bad, note_len, &n, &err), 0);
    assert_int_equal(wt_note_verify(&n, &v, NULL), -1);
    wt_note_free(&n);
    free(bad);
    /* a good and a bad signature from the same key: the note fails */
    raw[10] ^= 1;
    char *two = note_with_sig(note, c.origin, raw, sizeof(raw));
    /* drop the "\n" note_with_sig put after the note */
    memmove(two + note_len, two + note_len + 1, strlen(two + note_len + 1) + 1);
    assert_int_equal(wt_note_parse(two, strlen(two), &n, &err), 0);
    assert_int_equal(n.nsigs, 2);
    assert_int_equal(wt_note_verify(&n, &v, NULL), -1);
    /* ... though its good line still proves the body (the verifier's
     * diagnosis of an edited file); a note of bad lines alone does not */
    assert_int_equal(wt_note_signed_by(&n, &v), 1);
    n.sigs[0] = n.sigs[1];
    assert_int_equal(wt_note_signed_by(&n, &v), 0);
    assert_int_equal(wt_note_signed_by(&n, &ov), 0); /* another key of that name */
    wt_note_free(&n);
    free(two);
    wt_note_key_wipe(&k);
    free(vec);
    free(note);
}

static void test_cosignature(void **state)
{
    (void)state;
    char *vec = read_vec(VEC("example_key.txt"), NULL);
    char *note = read_vec(VEC("example_checkpoint.txt"), NULL);
    struct wt_note_key logk, wk;
    struct wt_note_vkey logv, wv, wv_as_ed;
    struct wt_err err;
    uint8_t seed[32];
    example_key(vec, &logk);
    wt_note_key_public(&logk, &logv);
    crypto_hash_sha256(seed, (const unsigned char *)"witness", 7);
    assert_int_equal(wt_note_key_from_seed(&wk, "witness.example/w1", WT_KEY_COSIG, seed, &err), 0);
    wt_note_key_public(&wk, &wv);
    /* the key id depends on the type */
    assert_int_equal(wk.keyid, wt_note_keyid("witness.example/w1", WT_KEY_COSIG, wk.pk));
    assert_int_not_equal(wk.keyid, wt_note_keyid("witness.example/w1", WT_KEY_ED25519, wk.pk));
    wv_as_ed = wv;
    wv_as_ed.type = WT_KEY_ED25519;
    wv_as_ed.keyid = wt_note_keyid(wv.name, WT_KEY_ED25519, wv.pk);

    size_t blen = body_len_of(note);
    const uint64_t t = 1767225600;
    char line[512];
    int n = wt_note_sig_line(&wk, note, blen, t, line, sizeof(line));
    assert_true(n > 0);
    /* 4 key id bytes + 8 time bytes + 64 = 76 bytes: 104 base64 characters */
    assert_int_equal((size_t)n, 4 + strlen(wk.name) + 1 + 104 + 1);
    /* the log's note plus the cosignature line */
    size_t len = strlen(note) + (size_t)n;
    char *cosigned = malloc(len + 1);
    assert_non_null(cosigned);
    memcpy(cosigned, note, strlen(note));
    memcpy(cosigned + strlen(note), line, (size_t)n + 1);

    struct wt_note parsed;
    uint64_t got = 0;
    assert_int_equal(wt_note_parse(cosigned, len, &parsed, &err), 0);
    assert_int_equal(parsed.nsigs, 2);
    assert_int_equal(parsed.sigs[1].sig_len, 72);
    assert_int_equal(wt_note_verify(&parsed, &wv, &got), 1);
    assert_int_equal(got, t);
    assert_int_equal(wt_note_verify(&parsed, &wv, NULL), 1);
    assert_int_equal(wt_note_verify(&parsed, &logv, NULL), 1);
    assert_int_equal(wt_note_verify(&parsed, &wv_as_ed, NULL), 0);
    wt_note_free(&parsed);

    /* the signed message is "cosignature/v1\ntime <t>\n" || body */
    uint8_t raw[76];
    size_t rlen = 0;
    const char *b64 = strrchr(line, ' ') + 1;
    assert_int_equal(sodium_base642bin(raw, sizeof(raw), b64, strcspn(b64, "\n"), NULL, &rlen, NULL,
                                       sodium_base64_VARIANT_ORIGINAL),
                     0);
    assert_int_equal(rlen, 76);
    for (int i = 0; i < 8; i++)
        assert_int_equal(raw[4 + i], (uint8_t)(t >> (56 - 8 * i)));
    char msg[512];
    int mlen = snprintf(msg, sizeof(msg), "cosignature/v1\ntime %llu\n%.*s", (unsigned long long)t,
                        (int)blen, note);
    assert_int_equal(crypto_sign_verify_detached(raw + 12, (const unsigned char *)msg,
                                                 (unsigned long long)mlen, wk.pk),
                     0);

    /* a changed timestamp fails */
    char body[512];
    memcpy(body, note, blen);
    body[blen] = '\0'; /* note_with_sig adds the blank line */
    raw[11] ^= 1;
    char *bad = note_with_sig(body, wk.name, raw, sizeof(raw));
    raw[11] ^= 1;
    assert_int_equal(wt_note_parse(bad, strlen(bad), &parsed, &err), 0);
    assert_int_equal(wt_note_verify(&parsed, &wv, &got), -1);
    wt_note_free(&parsed);
    free(bad);
    /* a changed body fails */
    bad = strdup(cosigned);
    bad[strlen(logk.name) + 1] = '4'; /* size 3 -> 4 */
    assert_int_equal(wt_note_parse(bad, len, &parsed, &err), 0);
    assert_int_equal(wt_note_verify(&parsed, &wv, &got), -1);
    wt_note_free(&parsed);
    free(bad);
    /* a cosignature with a 64-byte signature (no time) fails */
    bad = note_with_sig(body, wk.name, raw, 68);
    assert_int_equal(wt_note_parse(bad, strlen(bad), &parsed, &err), 0);
    assert_int_equal(wt_note_verify(&parsed, &wv, &got), -1);
    wt_note_free(&parsed);
    free(bad);

    /* cosignatures are over checkpoint bodies only */
    assert_int_equal(wt_note_sig_line(&wk, "hello\n", 6, t, line, sizeof(line)), -1);
    /* wt_note_sign with a cosignature key uses the current time */
    char *s = NULL;
    uint64_t before = (uint64_t)time(NULL);
    assert_int_equal(wt_note_sign(&wk, note, blen, &s, &err), 0);
    assert_int_equal(wt_note_parse(s, strlen(s), &parsed, &err), 0);
    assert_int_equal(wt_note_verify(&parsed, &wv, &got), 1);
    assert_true(got >= before && got <= (uint64_t)time(NULL));
    wt_note_free(&parsed);
    free(s);
    assert_int_not_equal(wt_note_sign(&wk, "hello\n", 6, &s, &err), 0);
    assert_null(s);

    free(cosigned);
    wt_note_key_wipe(&logk);
    wt_note_key_wipe(&wk);
    free(vec);
    free(note);
}

static int parse_rc(const char *text, size_t len)
{
    struct wt_note n;
    struct wt_err err;
    int rc = wt_note_parse(text, len, &n, &err);
    if (rc == 0)
        wt_note_free(&n);
    else
        assert_true(strlen(err.msg) > 0);
    return rc;
}

#define SIG                                                                                        \
    "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM="
#define SIGLINE DASH "PeterNeumann " SIG "\n"
#define PARSES(lit) parse_rc(lit, sizeof(lit) - 1)

static void test_parse_rejects(void **state)
{
    (void)state;
    assert_int_equal(PARSES("hello\n\n" SIGLINE), 0);
    assert_int_equal(PARSES("\n\n" SIGLINE), 0); /* the body "\n" */
    /* a blank line inside the body: the body ends at the last blank line */
    assert_int_equal(PARSES("a\n\nb\n\n" SIGLINE), 0);
    struct wt_note n;
    struct wt_err err;
    assert_int_equal(wt_note_parse("a\n\nb\n\n" SIGLINE, strlen("a\n\nb\n\n" SIGLINE), &n, &err),
                     0);
    assert_int_equal(n.body_len, 5);
    wt_note_free(&n);
    wt_note_free(&n); /* idempotent */

    assert_int_equal(PARSES("hello\n" SIGLINE), WT_EINVAL);                    /* no blank line */
    assert_int_equal(PARSES("hello\n\n"), WT_EINVAL);                          /* no signature */
    assert_int_equal(PARSES("hello\n\n\n"), WT_EINVAL);                        /* no signature */
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann " SIG), WT_EINVAL); /* no final \n */
    assert_int_equal(PARSES("hello\n\n" SIGLINE "\n"), WT_EINVAL);
    assert_int_equal(PARSES(""), WT_EINVAL);
    assert_int_equal(PARSES("hel\xfflo\n\n" SIGLINE), WT_EINVAL);             /* bad UTF-8 */
    assert_int_equal(PARSES("hel\xc0\xafo\n\n" SIGLINE), WT_EINVAL);          /* overlong */
    assert_int_equal(PARSES("hel\xed\xa0\x80o\n\n" SIGLINE), WT_EINVAL);      /* surrogate */
    assert_int_equal(PARSES("hel\xe2\x80o\n\n" SIGLINE), WT_EINVAL);          /* truncated */
    assert_int_equal(PARSES("hello\xf4\x90\x80\x80\n\n" SIGLINE), WT_EINVAL); /* > U+10FFFF */
    assert_int_equal(PARSES("h\xc3\xa9llo \xe2\x9c\x93\n\n" SIGLINE), 0);     /* é ✓ */
    assert_int_equal(PARSES("hel\0lo\n\n" SIGLINE), WT_EINVAL);               /* NUL */
    assert_int_equal(PARSES("hello\r\n\n" SIGLINE), WT_EINVAL);               /* CR */
    assert_int_equal(PARSES("hel\tlo\n\n" SIGLINE), WT_EINVAL);               /* tab */
    assert_int_equal(PARSES("hel\x7flo\n\n" SIGLINE), WT_EINVAL);             /* DEL */
    assert_int_equal(PARSES("hello\n\n" DASH "Peter+Neumann " SIG "\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH "Peter Neumann " SIG "\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH " " SIG "\n"), WT_EINVAL); /* empty name */
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann \n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann  " SIG "\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann " SIG " \n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n- PeterNeumann " SIG "\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n\xe2\x80\x94PeterNeumann " SIG "\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" SIGLINE "garbage\n"), WT_EINVAL);
    /* base64: unpadded, bad characters, trailing garbage, too short */
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann x08go/ZJ\n"), 0);
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann x08go/Z\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann x08go/ZJ=\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann x08go/Z*\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann x08g\n"), WT_EINVAL); /* 3 bytes */
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann " SIG "AAAA\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann " SIG "A\n"), WT_EINVAL);
    assert_int_equal(PARSES("hello\n\n" DASH "PeterNeumann x08go_ZJ\n"), WT_EINVAL); /* URL b64 */
    /* NULL text */
    assert_int_equal(wt_note_parse(NULL, 0, &n, &err), WT_EINVAL);
}

static void test_parse_limits(void **state)
{
    (void)state;
    /* 16 signature lines are fine, 17 are not */
    char text[4096];
    size_t len = 0;
    len += (size_t)snprintf(text + len, sizeof(text) - len, "hello\n\n");
    for (int i = 0; i < 16; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, DASH "k%d " SIG "\n", i);
    struct wt_note n;
    struct wt_err err;
    assert_int_equal(wt_note_parse(text, len, &n, &err), 0);
    assert_int_equal(n.nsigs, 16);
    wt_note_free(&n);
    len += (size_t)snprintf(text + len, sizeof(text) - len, DASH "k16 " SIG "\n");
    assert_int_equal(wt_note_parse(text, len, &n, &err), WT_EINVAL);
    assert_contains(err.msg, "16");
    assert_null(n.text);

    /* exactly WT_NOTE_MAX_LEN bytes parse; one more does not */
    size_t sl = strlen(SIGLINE);
    char *big = malloc(WT_NOTE_MAX_LEN + 2);
    assert_non_null(big);
    size_t body = WT_NOTE_MAX_LEN - 1 - sl;
    memset(big, 'a', body - 1);
    big[body - 1] = '\n';
    big[body] = '\n';
    memcpy(big + body + 1, SIGLINE, sl);
    assert_int_equal(wt_note_parse(big, WT_NOTE_MAX_LEN, &n, &err), 0);
    wt_note_free(&n);
    memset(big, 'a', body);
    big[body] = '\n';
    big[body + 1] = '\n';
    memcpy(big + body + 2, SIGLINE, sl);
    assert_int_equal(wt_note_parse(big, WT_NOTE_MAX_LEN + 1, &n, &err), WT_ENOMEM);

    /* a body too big to sign */
    struct wt_note_key k;
    uint8_t seed[32] = {9};
    char *out = NULL;
    assert_int_equal(wt_note_key_from_seed(&k, "k", WT_KEY_ED25519, seed, &err), 0);
    memset(big, 'a', WT_NOTE_MAX_LEN);
    big[WT_NOTE_MAX_LEN - 1] = '\n';
    assert_int_not_equal(wt_note_sign(&k, big, WT_NOTE_MAX_LEN, &out, &err), 0);
    assert_null(out);
    assert_int_not_equal(wt_note_sign(&k, "no newline", 10, &out, &err), 0);
    assert_int_not_equal(wt_note_sign(&k, "", 0, &out, &err), 0);
    assert_int_not_equal(wt_note_sign(&k, "a\rb\n", 4, &out, &err), 0);
    char line[512];
    assert_int_equal(wt_note_sig_line(&k, "a\n", 2, 0, line, 20), -1);
    wt_note_key_wipe(&k);
    free(big);
}

/* Signatures from other algorithms (longer than Ed25519's) are kept as
 * unknown and ignored; a known key never accepts them. */
static void test_unknown_signatures(void **state)
{
    (void)state;
    struct wt_note_key k;
    struct wt_note_vkey v;
    struct wt_err err;
    uint8_t seed[32] = {5}, raw[4 + 200];
    assert_int_equal(wt_note_key_from_seed(&k, "log.example/a", WT_KEY_ED25519, seed, &err), 0);
    wt_note_key_public(&k, &v);
    char *signed_note = NULL;
    assert_int_equal(wt_note_sign(&k, "body\n", 5, &signed_note, &err), 0);
    memset(raw, 0x33, sizeof(raw));
    char *text = note_with_sig(signed_note, "pq.example/b", raw, sizeof(raw));
    /* note_with_sig added "\n" after the note: remove it */
    size_t sl = strlen(signed_note);
    memmove(text + sl, text + sl + 1, strlen(text + sl + 1) + 1);
    struct wt_note n;
    assert_int_equal(wt_note_parse(text, strlen(text), &n, &err), 0);
    assert_int_equal(n.nsigs, 2);
    assert_int_equal(n.sigs[1].sig_len, 0);
    assert_int_equal(wt_note_verify(&n, &v, NULL), 1);
    wt_note_free(&n);
    free(text);
    /* the same long signature claimed by the known key: invalid */
    raw[0] = (uint8_t)(k.keyid >> 24);
    raw[1] = (uint8_t)(k.keyid >> 16);
    raw[2] = (uint8_t)(k.keyid >> 8);
    raw[3] = (uint8_t)k.keyid;
    text = note_with_sig("body\n", "log.example/a", raw, sizeof(raw));
    assert_int_equal(wt_note_parse(text, strlen(text), &n, &err), 0);
    assert_int_equal(wt_note_verify(&n, &v, NULL), -1);
    wt_note_free(&n);
    free(text);
    free(signed_note);
    wt_note_key_wipe(&k);
}

static void test_names(void **state)
{
    (void)state;
    char name[300];
    assert_int_equal(wt_note_name_ok("a"), 1);
    assert_int_equal(wt_note_name_ok("workloadtruth.example.invalid/3f2a9c1e5b7d4a60"), 1);
    assert_int_equal(wt_note_name_ok("caf\xc3\xa9"), 1);
    assert_int_equal(wt_note_name_ok(""), 0);
    assert_int_equal(wt_note_name_ok(NULL), 0);
    assert_int_equal(wt_note_name_ok("a b"), 0);
    assert_int_equal(wt_note_name_ok("a+b"), 0);
    assert_int_equal(wt_note_name_ok("a\tb"), 0);
    assert_int_equal(wt_note_name_ok("a\nb"), 0);
    assert_int_equal(wt_note_name_ok("a\x7f"), 0);
    assert_int_equal(wt_note_name_ok("a\xc2\xa0"), 0);     /* NBSP */
    assert_int_equal(wt_note_name_ok("a\xe3\x80\x80"), 0); /* ideographic space */
    assert_int_equal(wt_note_name_ok("a\xc2\x85"), 0);     /* NEL */
    assert_int_equal(wt_note_name_ok("a\xff"), 0);
    memset(name, 'n', 255);
    name[255] = '\0';
    assert_int_equal(wt_note_name_ok(name), 1);
    name[255] = 'n';
    name[256] = '\0';
    assert_int_equal(wt_note_name_ok(name), 0);
}

static void test_key_texts_reject(void **state)
{
    (void)state;
    struct wt_note_vkey v;
    struct wt_note_key k;
    struct wt_err err;
    static const char *bad_vkeys[] = {
        "",
        "PeterNeumann",
        "PeterNeumann+c74f20a3",
        "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", /* wrong id */
        "PeterNeumann+c74f20a+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20ag+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeuman+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", /* other name */
        "+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T",
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW=",
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWAAAA",
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW x",
        "PeterNeumann+c74f20a3+ Rpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20a3+Apc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", /* type 0x02 */
    };
    for (size_t i = 0; i < sizeof(bad_vkeys) / sizeof(bad_vkeys[0]); i++) {
        err.msg[0] = '\0';
        if (wt_note_parse_vkey(bad_vkeys[i], &v, &err) != WT_EINVAL)
            fail_msg("accepted vkey %zu: %s", i, bad_vkeys[i]);
        assert_true(strlen(err.msg) > 0);
    }
    /* trailing whitespace is accepted */
    assert_int_equal(
        wt_note_parse_vkey(
            "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW \r\n", &v, &err),
        0);
    /* upper-case hex key ids are accepted (as Go does) */
    assert_int_equal(
        wt_note_parse_vkey("PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", &v,
                           &err),
        0);
    static const char *bad_skeys[] = {
        "",
        "PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
        "PRIVATE+KEY+PeterNeumann+c74f20a4+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
        "PRIVATE+KEY+PeterNeumanm+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
        "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDF",
        "PRIVATE+KEY+PeterNeumann+c74f20a3+AyEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
        "private+key+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
    };
    for (size_t i = 0; i < sizeof(bad_skeys) / sizeof(bad_skeys[0]); i++)
        if (wt_note_parse_skey(bad_skeys[i], &k, &err) != WT_EINVAL)
            fail_msg("accepted skey %zu: %s", i, bad_skeys[i]);
    static const struct wt_note_key zero;
    assert_memory_equal(&k, &zero, sizeof(zero)); /* nothing left behind */

    /* key derivation refuses bad names and types */
    uint8_t seed[32] = {0};
    assert_int_equal(wt_note_key_from_seed(&k, "a b", WT_KEY_ED25519, seed, &err), WT_EINVAL);
    assert_int_equal(wt_note_key_from_seed(&k, "a+b", WT_KEY_ED25519, seed, &err), WT_EINVAL);
    assert_int_equal(wt_note_key_from_seed(&k, "ab", 0x02, seed, &err), WT_EINVAL);
}

static void test_generate(void **state)
{
    (void)state;
    struct wt_note_key a, b;
    struct wt_note_vkey va, vb;
    struct wt_err err;
    assert_int_equal(wt_note_key_generate(&a, "gen.example/a", WT_KEY_ED25519, &err), 0);
    assert_int_equal(wt_note_key_generate(&b, "gen.example/a", WT_KEY_ED25519, &err), 0);
    assert_memory_not_equal(a.pk, b.pk, 32);
    assert_int_equal(a.keyid, wt_note_keyid(a.name, a.type, a.pk));
    wt_note_key_public(&a, &va);
    wt_note_key_public(&b, &vb);
    char *s = NULL;
    struct wt_note n;
    assert_int_equal(wt_note_sign(&a, "x\n", 2, &s, &err), 0);
    assert_int_equal(wt_note_parse(s, strlen(s), &n, &err), 0);
    assert_int_equal(wt_note_verify(&n, &va, NULL), 1);
    assert_int_equal(wt_note_verify(&n, &vb, NULL), 0);
    wt_note_free(&n);
    free(s);
    /* skey text round trip of a random key */
    char text[512];
    struct wt_note_key c;
    assert_true(wt_note_format_skey(&a, text, sizeof(text)) > 0);
    assert_int_equal(wt_note_parse_skey(text, &c, &err), 0);
    assert_memory_equal(&a, &c, sizeof(a));
    sodium_memzero(text, sizeof(text));
    assert_int_equal(wt_note_key_generate(&c, "bad name", WT_KEY_ED25519, &err), WT_EINVAL);
    wt_note_key_wipe(&a);
    wt_note_key_wipe(&b);
    wt_note_key_wipe(&c);
}

static int cp_rc(const char *body)
{
    struct wt_checkpoint c;
    struct wt_err err;
    return wt_checkpoint_parse(body, strlen(body), &c, &err);
}

#define ROOT "LxFLuD2UQY+OTkyA+3UEYhtTHYK/C1WqTSWu9XY8ZvQ="

static void test_checkpoint(void **state)
{
    (void)state;
    struct wt_checkpoint c, c2;
    struct wt_err err;
    char body[512];
    memset(&c, 0, sizeof(c));
    strcpy(c.origin, "example.com/log");
    for (int i = 0; i < 32; i++)
        c.root[i] = (uint8_t)(i * 7);
    static const uint64_t sizes[] = {0, 1, 3, 10, 1000000, (uint64_t)INT64_MAX};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        c.size = sizes[i];
        int n = wt_checkpoint_format(&c, body, sizeof(body));
        assert_true(n > 0);
        assert_int_equal(wt_checkpoint_parse(body, (size_t)n, &c2, &err), 0);
        assert_memory_equal(&c, &c2, sizeof(c));
    }
    c.size = (uint64_t)INT64_MAX + 1;
    assert_int_equal(wt_checkpoint_format(&c, body, sizeof(body)), -1);
    c.size = 3;
    assert_int_equal(wt_checkpoint_format(&c, body, 10), -1);
    strcpy(c.origin, "bad origin");
    assert_int_equal(wt_checkpoint_format(&c, body, sizeof(body)), -1);

    assert_int_equal(cp_rc("o\n3\n" ROOT "\n"), 0);
    assert_int_equal(cp_rc("o\n0\n" ROOT "\n"), 0);
    assert_int_equal(cp_rc("o\n3\n" ROOT "\next one\next two\n"), 0); /* extensions */
    assert_int_equal(cp_rc("o\n9223372036854775807\n" ROOT "\n"), 0);
    assert_int_equal(cp_rc("o\n9223372036854775808\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n18446744073709551616\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n03\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n00\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n-3\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n+3\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3a\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n 3\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3\nLxFLuD2UQY+OTkyA+3UEYhtTHYK/C1WqTSWu9XY8ZvQ\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3\nLxFLuD2UQY+OTkyA+3UEYhtTHYK/C1WqTSWu9XY8ZvR=\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3\n" ROOT "=\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3\n" ROOT " \n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3\nAAAA\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3\n\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3\n" ROOT), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3"), WT_EINVAL);
    assert_int_equal(cp_rc(""), WT_EINVAL);
    assert_int_equal(cp_rc("\n3\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("a b\n3\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("a+b\n3\n" ROOT "\n"), WT_EINVAL);
    assert_int_equal(cp_rc("o\n3\n" ROOT "\n\n"), WT_EINVAL); /* empty extension line */
    assert_int_equal(cp_rc("o\n3\n" ROOT "\nx\ry\n"), WT_EINVAL);
    assert_int_equal(wt_checkpoint_parse(NULL, 0, &c, &err), WT_EINVAL);
}

static void test_b64_hash(void **state)
{
    (void)state;
    uint8_t h[32], g[32];
    char s[45];
    for (int i = 0; i < 32; i++)
        h[i] = (uint8_t)(255 - i);
    wt_b64_hash(h, s);
    assert_int_equal(strlen(s), 44);
    assert_int_equal(s[43], '=');
    assert_int_equal(wt_b64_hash_decode(s, 44, g), 0);
    assert_memory_equal(h, g, 32);
    assert_int_equal(wt_b64_hash_decode(ROOT, 44, g), 0);
    assert_int_equal(wt_b64_hash_decode(ROOT, 43, g), -1);
    assert_int_equal(wt_b64_hash_decode(ROOT "=", 45, g), -1);
    assert_int_equal(wt_b64_hash_decode(ROOT "\n", 45, g), -1);
    assert_int_equal(wt_b64_hash_decode("LxFLuD2UQY+OTkyA+3UEYhtTHYK/C1WqTSWu9XY8ZvQA", 44, g), -1);
    assert_int_equal(wt_b64_hash_decode("LxFLuD2UQY+OTkyA+3UEYhtTHYK/C1WqTSWu9XY8Zv==", 44, g), -1);
    assert_int_equal(wt_b64_hash_decode("LxFLuD2UQY+OTkyA+3UEYhtTHYK/C1WqTSWu9XY8ZvR=", 44, g), -1);
    assert_int_equal(wt_b64_hash_decode("LxFLuD2UQY+OTkyA 3UEYhtTHYK/C1WqTSWu9XY8ZvQ=", 44, g), -1);
    assert_int_equal(wt_b64_hash_decode("LxFLuD2UQY-OTkyA_3UEYhtTHYK/C1WqTSWu9XY8ZvQ=", 44, g), -1);
    assert_int_equal(wt_b64_hash_decode(NULL, 44, g), -1);
    assert_int_equal(wt_b64_hash_decode("", 0, g), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peterneumann),       cmocka_unit_test(test_example_key),
        cmocka_unit_test(test_example_checkpoint), cmocka_unit_test(test_cosignature),
        cmocka_unit_test(test_parse_rejects),      cmocka_unit_test(test_parse_limits),
        cmocka_unit_test(test_unknown_signatures), cmocka_unit_test(test_names),
        cmocka_unit_test(test_key_texts_reject),   cmocka_unit_test(test_generate),
        cmocka_unit_test(test_checkpoint),         cmocka_unit_test(test_b64_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
