/* C2SP signed notes with Ed25519 (see note.h).
 *
 * Key ids, key generation and the Go sumdb/note key texts; signature lines
 * for note signatures (type 0x01) and tlog cosignatures (type 0x04,
 * cosignature/v1); a strict note parser (size, UTF-8, control bytes, line
 * syntax, signature count) and verification that ignores unknown keys;
 * checkpoint bodies; base64 of 32-byte hashes.  Everything works on memory:
 * this module reads no files and knows nothing of logs or Merkle trees.
 * Secrets (seeds, secret keys) are wiped with sodium_memzero.
 *
 * SPDX-License-Identifier: MIT
 */
#include "audit/note.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "util/text.h"

#define SIG_PREFIX "\xe2\x80\x94 " /* U+2014 EM DASH, space */
#define SIG_PREFIX_LEN 4
#define COSIG_HEADER "cosignature/v1\ntime "
#define SKEY_PREFIX "PRIVATE+KEY+"

static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_status = -1;

static void sodium_setup(void)
{
    sodium_status = sodium_init() < 0 ? -1 : 0;
}

/* libsodium initialised once; 0 or -1. */
static int sodium_ready(void)
{
    if (pthread_once(&sodium_once, sodium_setup) != 0)
        return -1;
    return sodium_status;
}

/* ---- UTF-8 and names ---------------------------------------------------- */

/* Valid UTF-8 with no ASCII control bytes (C0, DEL) other than "\n". */
static int text_ok(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        size_t n = wt_utf8_next(s + i, len - i, &cp);
        if (n == 0)
            return 0;
        if ((cp < 0x20 && cp != '\n') || cp == 0x7f)
            return 0;
        i += n;
    }
    return 1;
}

/* Unicode White_Space and control characters. */
static int bad_name_cp(uint32_t cp)
{
    if (cp <= 0x20 || (cp >= 0x7f && cp <= 0xa0))
        return 1;
    return cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202f || cp == 0x205f || cp == 0x3000 || cp == '+';
}

static int name_ok_len(const char *name, size_t len)
{
    const unsigned char *s = (const unsigned char *)name;
    if (len == 0 || len > WT_NOTE_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = wt_utf8_next(s + i, len - i, &cp);
        if (n == 0 || bad_name_cp(cp))
            return 0;
        i += n;
    }
    return 1;
}

int wt_note_name_ok(const char *name)
{
    if (!name)
        return 0;
    size_t len = strnlen(name, WT_NOTE_NAME_MAX + 1);
    return name_ok_len(name, len);
}

/* ---- small helpers ------------------------------------------------------- */

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

static uint64_t get_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* Strict standard padded base64 of s[0..len) into out (at most cap bytes):
 * no whitespace, no trailing bytes, canonical padding bits.  Returns the
 * decoded length, or -1. */
int wt_b64_chars_ok(const char *s, size_t len)
{
    /* libsodium 1.0.18 decodes any byte >= 0x80 as '/': check the alphabet
     * ourselves so that every value has exactly one spelling */
    size_t pad = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '=') {
            pad++;
            continue;
        }
        if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '+' || c == '/'))
            return 0;
    }
    return pad <= 2;
}

static long b64_decode(const char *s, size_t len, uint8_t *out, size_t cap)
{
    size_t bin_len = 0;
    const char *end = NULL;
    if (len == 0 || len % 4 != 0 || !wt_b64_chars_ok(s, len))
        return -1;
    if (sodium_base642bin(out, cap, s, len, NULL, &bin_len, &end, sodium_base64_VARIANT_ORIGINAL) !=
        0)
        return -1;
    if (end != s + len)
        return -1;
    return (long)bin_len;
}

/* Writes base64(bin) to out (cap bytes, NUL-terminated); returns its length or -1. */
static int b64_encode(const uint8_t *bin, size_t len, char *out, size_t cap)
{
    size_t need = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
    if (cap < need)
        return -1;
    sodium_bin2base64(out, cap, bin, len, sodium_base64_VARIANT_ORIGINAL);
    return (int)(need - 1);
}

static int hex8_parse(const char *s, size_t len, uint32_t *v)
{
    uint32_t x = 0;
    if (len != 8)
        return -1;
    for (size_t i = 0; i < 8; i++) {
        char c = s[i];
        int d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        x = x << 4 | (uint32_t)d;
    }
    *v = x;
    return 0;
}

/* Decimal without sign or leading zeros, at most 2^63-1. */
static int dec_parse(const char *s, size_t len, uint64_t *v)
{
    uint64_t x = 0;
    if (len == 0 || len > 19 || (len > 1 && s[0] == '0'))
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    if (x > (uint64_t)INT64_MAX)
        return -1;
    *v = x;
    return 0;
}

static size_t trim_trailing_space(const char *text)
{
    size_t len = strlen(text);
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ' ||
                       text[len - 1] == '\t'))
        len--;
    return len;
}

/* ---- keys ---------------------------------------------------------------- */

uint32_t wt_note_keyid(const char *name, uint8_t type, const uint8_t pk[32])
{
    uint8_t h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, (const unsigned char *)name, strlen(name));
    crypto_hash_sha256_update(&st, (const unsigned char *)"\n", 1);
    crypto_hash_sha256_update(&st, &type, 1);
    crypto_hash_sha256_update(&st, pk, 32);
    crypto_hash_sha256_final(&st, h);
    return get_be32(h);
}

static int type_ok(uint8_t type)
{
    return type == WT_KEY_ED25519 || type == WT_KEY_COSIG;
}

int wt_note_key_from_seed(struct wt_note_key *k, const char *name, uint8_t type,
                          const uint8_t seed[32], struct wt_err *err)
{
    memset(k, 0, sizeof(*k));
    if (!wt_note_name_ok(name))
        return wt_errf(err, WT_EINVAL,
                       "note key: invalid key name (1..255 bytes of printable UTF-8, no spaces, "
                       "no '+')");
    if (!type_ok(type))
        return wt_errf(err, WT_EINVAL, "note key '%s': unsupported key type 0x%02x", name, type);
    if (sodium_ready() != 0)
        return wt_errf(err, WT_EIO, "note key '%s': libsodium could not be initialised", name);
    if (crypto_sign_seed_keypair(k->pk, k->sk, seed) != 0) {
        wt_note_key_wipe(k);
        return wt_errf(err, WT_EINVAL, "note key '%s': key derivation failed", name);
    }
    strcpy(k->name, name);
    k->type = type;
    k->keyid = wt_note_keyid(name, type, k->pk);
    return WT_OK;
}

int wt_note_key_generate(struct wt_note_key *k, const char *name, uint8_t type, struct wt_err *err)
{
    uint8_t seed[32];
    memset(k, 0, sizeof(*k));
    if (sodium_ready() != 0)
        return wt_errf(err, WT_EIO, "note key: libsodium could not be initialised");
    randombytes_buf(seed, sizeof(seed));
    int rc = wt_note_key_from_seed(k, name, type, seed, err);
    sodium_memzero(seed, sizeof(seed));
    return rc;
}

void wt_note_key_wipe(struct wt_note_key *k)
{
    if (k)
        sodium_memzero(k, sizeof(*k));
}

void wt_note_key_public(const struct wt_note_key *k, struct wt_note_vkey *v)
{
    memset(v, 0, sizeof(*v));
    memcpy(v->name, k->name, sizeof(v->name));
    v->name[WT_NOTE_NAME_MAX] = '\0';
    v->type = k->type;
    v->keyid = k->keyid;
    memcpy(v->pk, k->pk, 32);
}

/* <name>+<keyid hex8>+base64(type || key32) after prefix, into out. */
static int format_key_text(const char *prefix, const char *name, uint32_t keyid, uint8_t type,
                           const uint8_t key[32], char *out, size_t cap)
{
    uint8_t raw[33];
    char b64[sodium_base64_ENCODED_LEN(33, sodium_base64_VARIANT_ORIGINAL)];
    int rc = -1;
    size_t plen = strlen(prefix), nlen = strnlen(name, WT_NOTE_NAME_MAX + 1);
    if (!name_ok_len(name, nlen))
        return -1;
    raw[0] = type;
    memcpy(raw + 1, key, 32);
    int blen = b64_encode(raw, sizeof(raw), b64, sizeof(b64));
    size_t need = plen + nlen + 1 + 8 + 1 + (size_t)blen;
    if (blen > 0 && need < cap) {
        char hex[9];
        snprintf(hex, sizeof(hex), "%08" PRIx32, keyid);
        char *p = out;
        memcpy(p, prefix, plen);
        p += plen;
        memcpy(p, name, nlen);
        p += nlen;
        *p++ = '+';
        memcpy(p, hex, 8);
        p += 8;
        *p++ = '+';
        memcpy(p, b64, (size_t)blen);
        p += blen;
        *p = '\0';
        rc = (int)need;
    }
    sodium_memzero(raw, sizeof(raw));
    sodium_memzero(b64, sizeof(b64));
    return rc;
}

int wt_note_format_skey(const struct wt_note_key *k, char *out, size_t cap)
{
    /* libsodium's secret key is seed || pk */
    return format_key_text(SKEY_PREFIX, k->name, k->keyid, k->type, k->sk, out, cap);
}

int wt_note_format_vkey(const struct wt_note_vkey *v, char *out, size_t cap)
{
    return format_key_text("", v->name, v->keyid, v->type, v->pk, out, cap);
}

/* Splits "<name>+<hex8>+<base64>" (s[0..len)) into its parts; the base64
 * may itself contain '+'.  Decodes the key into raw[33]. */
static int split_key_text(const char *what, const char *s, size_t len, char name[256],
                          uint32_t *keyid, uint8_t raw[33], struct wt_err *err)
{
    const char *p1 = memchr(s, '+', len);
    if (!p1)
        return wt_errf(err, WT_EINVAL, "%s: expected <name>+<key id>+<key>", what);
    size_t nlen = (size_t)(p1 - s);
    const char *h = p1 + 1;
    size_t rest = len - nlen - 1;
    const char *p2 = memchr(h, '+', rest);
    if (!p2)
        return wt_errf(err, WT_EINVAL, "%s: expected <name>+<key id>+<key>", what);
    if (!name_ok_len(s, nlen))
        return wt_errf(err, WT_EINVAL, "%s: invalid key name", what);
    if (hex8_parse(h, (size_t)(p2 - h), keyid))
        return wt_errf(err, WT_EINVAL, "%s: key id is not 8 hex digits", what);
    const char *b = p2 + 1;
    size_t blen = len - (size_t)(b - s);
    if (b64_decode(b, blen, raw, 33) != 33)
        return wt_errf(err, WT_EINVAL, "%s: key is not base64 of 33 bytes", what);
    if (!type_ok(raw[0]))
        return wt_errf(err, WT_EINVAL, "%s: unsupported key type 0x%02x", what, raw[0]);
    memcpy(name, s, nlen);
    name[nlen] = '\0';
    return WT_OK;
}

int wt_note_parse_skey(const char *text, struct wt_note_key *k, struct wt_err *err)
{
    uint8_t raw[33];
    char name[WT_NOTE_NAME_MAX + 1];
    uint32_t keyid;
    memset(k, 0, sizeof(*k));
    size_t len = trim_trailing_space(text);
    size_t plen = strlen(SKEY_PREFIX);
    if (len < plen || memcmp(text, SKEY_PREFIX, plen) != 0)
        return wt_errf(err, WT_EINVAL, "private key: missing 'PRIVATE+KEY+' prefix");
    int rc = split_key_text("private key", text + plen, len - plen, name, &keyid, raw, err);
    if (rc == WT_OK) {
        rc = wt_note_key_from_seed(k, name, raw[0], raw + 1, err);
        if (rc == WT_OK && k->keyid != keyid) {
            wt_note_key_wipe(k);
            rc = wt_errf(err, WT_EINVAL,
                         "private key '%s': key id %08" PRIx32 " does not match the key", name,
                         keyid);
        }
    }
    sodium_memzero(raw, sizeof(raw));
    return rc;
}

int wt_note_parse_vkey(const char *text, struct wt_note_vkey *v, struct wt_err *err)
{
    uint8_t raw[33];
    uint32_t keyid;
    memset(v, 0, sizeof(*v));
    int rc =
        split_key_text("verifier key", text, trim_trailing_space(text), v->name, &keyid, raw, err);
    if (rc)
        return rc;
    v->type = raw[0];
    memcpy(v->pk, raw + 1, 32);
    v->keyid = wt_note_keyid(v->name, v->type, v->pk);
    if (v->keyid != keyid) {
        rc = wt_errf(err, WT_EINVAL,
                     "verifier key '%s': key id %08" PRIx32 " does not match the key", v->name,
                     keyid);
        memset(v, 0, sizeof(*v));
    }
    return rc;
}

/* ---- signing ------------------------------------------------------------- */

static int body_ok(const char *body, size_t body_len)
{
    return body && body_len > 0 && body_len < WT_NOTE_MAX_LEN && body[body_len - 1] == '\n' &&
           text_ok(body, body_len);
}

/* "cosignature/v1\ntime <t>\n" || body, malloc'd. */
static uint8_t *cosig_message(uint64_t t, const char *body, size_t body_len, size_t *mlen)
{
    char head[64];
    int h = snprintf(head, sizeof(head), COSIG_HEADER "%" PRIu64 "\n", t);
    if (h < 0 || (size_t)h >= sizeof(head))
        return NULL;
    uint8_t *m = malloc((size_t)h + body_len);
    if (!m)
        return NULL;
    memcpy(m, head, (size_t)h);
    memcpy(m + h, body, body_len);
    *mlen = (size_t)h + body_len;
    return m;
}

int wt_note_sig_line(const struct wt_note_key *k, const char *body, size_t body_len,
                     uint64_t timestamp, char *out, size_t cap)
{
    uint8_t raw[4 + 8 + 64];
    size_t raw_len;
    char b64[sodium_base64_ENCODED_LEN(sizeof(raw), sodium_base64_VARIANT_ORIGINAL)];
    size_t nlen = strnlen(k->name, WT_NOTE_NAME_MAX + 1);
    if (!name_ok_len(k->name, nlen) || !type_ok(k->type) || !body_ok(body, body_len) ||
        sodium_ready() != 0)
        return -1;
    put_be32(raw, k->keyid);
    if (k->type == WT_KEY_ED25519) {
        if (crypto_sign_detached(raw + 4, NULL, (const unsigned char *)body, body_len, k->sk))
            return -1;
        raw_len = 4 + 64;
    } else {
        struct wt_checkpoint c;
        size_t mlen = 0;
        if (timestamp > (uint64_t)INT64_MAX || wt_checkpoint_parse(body, body_len, &c, NULL))
            return -1;
        uint8_t *msg = cosig_message(timestamp, body, body_len, &mlen);
        if (!msg)
            return -1;
        put_be64(raw + 4, timestamp);
        int rc = crypto_sign_detached(raw + 12, NULL, msg, mlen, k->sk);
        free(msg);
        if (rc)
            return -1;
        raw_len = 4 + 8 + 64;
    }
    int blen = b64_encode(raw, raw_len, b64, sizeof(b64));
    size_t need = SIG_PREFIX_LEN + nlen + 1 + (size_t)blen + 1;
    if (blen < 0 || need >= cap)
        return -1;
    char *p = out;
    memcpy(p, SIG_PREFIX, SIG_PREFIX_LEN);
    p += SIG_PREFIX_LEN;
    memcpy(p, k->name, nlen);
    p += nlen;
    *p++ = ' ';
    memcpy(p, b64, (size_t)blen);
    p += blen;
    *p++ = '\n';
    *p = '\0';
    return (int)need;
}

int wt_note_sign(const struct wt_note_key *k, const char *body, size_t body_len, char **out,
                 struct wt_err *err)
{
    char line[SIG_PREFIX_LEN + WT_NOTE_NAME_MAX + 1 + 128 + 2];
    *out = NULL;
    if (!body_ok(body, body_len))
        return wt_errf(err, WT_EINVAL,
                       "note: body must be non-empty UTF-8 text without control bytes, ending in "
                       "a newline, under %d bytes",
                       WT_NOTE_MAX_LEN);
    /* a cosignature made here carries the current time */
    uint64_t now = k->type == WT_KEY_COSIG ? (uint64_t)time(NULL) : 0;
    int l = wt_note_sig_line(k, body, body_len, now, line, sizeof(line));
    if (l < 0)
        return wt_errf(err, WT_EINVAL, "note: signing with key '%s' failed%s", k->name,
                       k->type == WT_KEY_COSIG ? " (a cosignature needs a checkpoint body)" : "");
    if (body_len + 1 + (size_t)l > WT_NOTE_MAX_LEN)
        return wt_errf(err, WT_ENOMEM, "note: signed note would exceed %d bytes", WT_NOTE_MAX_LEN);
    char *s = malloc(body_len + 1 + (size_t)l + 1);
    if (!s)
        return wt_errf(err, WT_ENOMEM, "note: out of memory");
    memcpy(s, body, body_len);
    s[body_len] = '\n';
    memcpy(s + body_len + 1, line, (size_t)l + 1);
    *out = s;
    return WT_OK;
}

/* ---- parsing and verification --------------------------------------------- */

/* One signature line s[0..len) (without its "\n"). */
static int parse_sig_line(const char *s, size_t len, struct wt_note_sig *sig, int lineno,
                          struct wt_err *err)
{
    if (len < SIG_PREFIX_LEN || memcmp(s, SIG_PREFIX, SIG_PREFIX_LEN) != 0)
        return wt_errf(err, WT_EINVAL,
                       "note: signature line %d: does not start with an em dash and a space",
                       lineno);
    s += SIG_PREFIX_LEN;
    len -= SIG_PREFIX_LEN;
    const char *sp = memchr(s, ' ', len);
    if (!sp)
        return wt_errf(err, WT_EINVAL, "note: signature line %d: expected '<name> <signature>'",
                       lineno);
    size_t nlen = (size_t)(sp - s);
    if (!name_ok_len(s, nlen))
        return wt_errf(err, WT_EINVAL, "note: signature line %d: invalid key name", lineno);
    const char *b = sp + 1;
    size_t blen = len - nlen - 1;
    size_t cap = blen / 4 * 3 + 3;
    uint8_t *raw = malloc(cap);
    if (!raw)
        return wt_errf(err, WT_ENOMEM, "note: out of memory");
    long rlen = b64_decode(b, blen, raw, cap);
    if (rlen < 5) {
        free(raw);
        return wt_errf(err, WT_EINVAL,
                       "note: signature line %d: signature is not base64 of a key id and a "
                       "signature",
                       lineno);
    }
    memset(sig, 0, sizeof(*sig));
    memcpy(sig->name, s, nlen);
    sig->keyid = get_be32(raw);
    /* a signature too long for the struct (another algorithm) is kept with
     * sig_len 0: unknown keys are ignored, and a known key rejects it */
    if ((size_t)rlen - 4 <= sizeof(sig->sig)) {
        sig->sig_len = (size_t)rlen - 4;
        memcpy(sig->sig, raw + 4, sig->sig_len);
    }
    free(raw);
    return WT_OK;
}

int wt_note_parse(const char *text, size_t len, struct wt_note *n, struct wt_err *err)
{
    memset(n, 0, sizeof(*n));
    if (!text)
        return wt_errf(err, WT_EINVAL, "note: no text");
    if (len > WT_NOTE_MAX_LEN)
        return wt_errf(err, WT_ENOMEM, "note: %zu bytes, more than the limit of %d", len,
                       WT_NOTE_MAX_LEN);
    if (!text_ok(text, len))
        return wt_errf(err, WT_EINVAL,
                       "note: not valid UTF-8, or contains control bytes other than newline");
    if (len == 0 || text[len - 1] != '\n')
        return wt_errf(err, WT_EINVAL, "note: does not end in a newline");
    size_t split = 0;
    int found = 0;
    for (size_t i = len - 1; i > 0; i--)
        if (text[i] == '\n' && text[i - 1] == '\n') {
            split = i - 1;
            found = 1;
            break;
        }
    if (!found)
        return wt_errf(err, WT_EINVAL, "note: no blank line between the text and the signatures");
    size_t body_len = split + 1, pos = split + 2;
    if (pos >= len)
        return wt_errf(err, WT_EINVAL, "note: no signature lines");
    int nsigs = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t llen = (size_t)(nl - (text + pos)); /* nl != NULL: text ends in "\n" */
        if (nsigs == WT_NOTE_MAX_SIGS) {
            memset(n, 0, sizeof(*n));
            return wt_errf(err, WT_EINVAL, "note: more than %d signature lines", WT_NOTE_MAX_SIGS);
        }
        int rc = parse_sig_line(text + pos, llen, &n->sigs[nsigs], nsigs + 1, err);
        if (rc) {
            memset(n, 0, sizeof(*n));
            return rc;
        }
        nsigs++;
        pos += llen + 1;
    }
    n->text = malloc(len + 1);
    if (!n->text) {
        memset(n, 0, sizeof(*n));
        return wt_errf(err, WT_ENOMEM, "note: out of memory");
    }
    memcpy(n->text, text, len);
    n->text[len] = '\0';
    n->len = len;
    n->body_len = body_len;
    n->nsigs = nsigs;
    return WT_OK;
}

void wt_note_free(struct wt_note *n)
{
    if (!n)
        return;
    free(n->text);
    memset(n, 0, sizeof(*n));
}

/* 1 valid, -1 invalid; *t receives a cosignature's time. */
static int verify_one(const struct wt_note *n, const struct wt_note_vkey *v,
                      const struct wt_note_sig *s, uint64_t *t)
{
    if (v->type == WT_KEY_ED25519) {
        if (s->sig_len != 64)
            return -1;
        return crypto_sign_verify_detached(s->sig, (const unsigned char *)n->text, n->body_len,
                                           v->pk) == 0
                   ? 1
                   : -1;
    }
    if (v->type == WT_KEY_COSIG) {
        size_t mlen = 0;
        if (s->sig_len != 8 + 64)
            return -1;
        uint64_t ts = get_be64(s->sig);
        uint8_t *msg = cosig_message(ts, n->text, n->body_len, &mlen);
        if (!msg)
            return -1; /* fail closed */
        int ok = crypto_sign_verify_detached(s->sig + 8, msg, mlen, v->pk) == 0;
        free(msg);
        if (!ok)
            return -1;
        *t = ts;
        return 1;
    }
    return -1;
}

int wt_note_verify(const struct wt_note *n, const struct wt_note_vkey *v, uint64_t *timestamp)
{
    int result = 0;
    uint64_t first_t = 0;
    if (!n || !v || !n->text || n->body_len > n->len || n->nsigs < 0 ||
        n->nsigs > WT_NOTE_MAX_SIGS || sodium_ready() != 0)
        return -1;
    for (int i = 0; i < n->nsigs; i++) {
        const struct wt_note_sig *s = &n->sigs[i];
        if (s->keyid != v->keyid || strncmp(s->name, v->name, sizeof(s->name)) != 0)
            continue;
        uint64_t t = 0;
        if (verify_one(n, v, s, &t) < 0)
            return -1; /* any bad signature from a known key fails the note */
        if (result == 0)
            first_t = t;
        result = 1;
    }
    if (result == 1 && timestamp && v->type == WT_KEY_COSIG)
        *timestamp = first_t;
    return result;
}

int wt_note_signed_by(const struct wt_note *n, const struct wt_note_vkey *v)
{
    if (!n || !v || !n->text || n->body_len > n->len || n->nsigs < 0 ||
        n->nsigs > WT_NOTE_MAX_SIGS || sodium_ready() != 0)
        return 0;
    for (int i = 0; i < n->nsigs; i++) {
        const struct wt_note_sig *s = &n->sigs[i];
        uint64_t t = 0;
        if (s->keyid == v->keyid && strncmp(s->name, v->name, sizeof(s->name)) == 0 &&
            verify_one(n, v, s, &t) == 1)
            return 1;
    }
    return 0;
}

/* ---- checkpoints and hashes --------------------------------------------------- */

int wt_checkpoint_format(const struct wt_checkpoint *c, char *out, size_t cap)
{
    char b64[45];
    size_t olen = strnlen(c->origin, WT_NOTE_NAME_MAX + 1);
    if (!name_ok_len(c->origin, olen) || c->size > (uint64_t)INT64_MAX)
        return -1;
    wt_b64_hash(c->root, b64);
    int n = snprintf(out, cap, "%s\n%" PRIu64 "\n%s\n", c->origin, c->size, b64);
    if (n < 0 || (size_t)n >= cap)
        return -1;
    return n;
}

int wt_checkpoint_parse(const char *body, size_t len, struct wt_checkpoint *c, struct wt_err *err)
{
    const char *line[3];
    size_t llen[3];
    size_t pos = 0;
    uint64_t size;
    uint8_t root[32];
    memset(c, 0, sizeof(*c));
    if (!body || len == 0 || body[len - 1] != '\n')
        return wt_errf(err, WT_EINVAL, "checkpoint: body does not end in a newline");
    if (len >= WT_NOTE_MAX_LEN)
        return wt_errf(err, WT_ENOMEM, "checkpoint: body over %d bytes", WT_NOTE_MAX_LEN);
    if (!text_ok(body, len))
        return wt_errf(err, WT_EINVAL,
                       "checkpoint: not valid UTF-8, or contains control bytes other than newline");
    for (int i = 0; i < 3; i++) {
        const char *nl = pos < len ? memchr(body + pos, '\n', len - pos) : NULL;
        if (!nl)
            return wt_errf(err, WT_EINVAL, "checkpoint: line %d missing", i + 1);
        line[i] = body + pos;
        llen[i] = (size_t)(nl - line[i]);
        pos += llen[i] + 1;
    }
    /* extension lines: accepted and ignored, but not empty */
    while (pos < len) {
        const char *nl = memchr(body + pos, '\n', len - pos);
        if (nl == body + pos)
            return wt_errf(err, WT_EINVAL, "checkpoint: empty extension line");
        pos = (size_t)(nl - body) + 1;
    }
    if (!name_ok_len(line[0], llen[0]))
        return wt_errf(err, WT_EINVAL,
                       "checkpoint: line 1: origin must be 1..255 bytes without spaces or '+'");
    if (dec_parse(line[1], llen[1], &size))
        return wt_errf(err, WT_EINVAL,
                       "checkpoint: line 2: tree size must be a decimal without leading zeros "
                       "below 2^63");
    if (wt_b64_hash_decode(line[2], llen[2], root))
        return wt_errf(err, WT_EINVAL, "checkpoint: line 3: root is not base64 of 32 bytes");
    c->size = size;
    memcpy(c->root, root, 32);
    memcpy(c->origin, line[0], llen[0]);
    c->origin[llen[0]] = '\0';
    return WT_OK;
}

void wt_b64_hash(const uint8_t h[32], char out[45])
{
    sodium_bin2base64(out, 45, h, 32, sodium_base64_VARIANT_ORIGINAL);
}

int wt_b64_hash_decode(const char *s, size_t len, uint8_t out[32])
{
    uint8_t tmp[32];
    if (!s || len != 44 || b64_decode(s, len, tmp, sizeof(tmp)) != 32)
        return -1;
    memcpy(out, tmp, 32);
    return 0;
}
