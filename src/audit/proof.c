/* Proof exchange texts: c2sp.org/tlog-proof@v1 bundles and tlog-witness
 * add-checkpoint request bodies (see proof.h).
 *
 * Strict line-by-line parsers and the matching formatters.  The checkpoint
 * part is kept as text; it is run through wt_note_parse only to make sure it
 * is a well-formed signed note.  This module verifies no proof and checks no
 * signature: that is merkle.h's and note.h's job, done by the caller.
 *
 * SPDX-License-Identifier: MIT
 */
#include "audit/proof.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "audit/note.h"

#define PROOF_HEADER "c2sp.org/tlog-proof@v1"

/* A cursor over the text, one "\n"-terminated line at a time. */
struct cursor {
    const char *text;
    size_t len;
    size_t pos;
    int lineno;
};

/* The next line (without "\n"); 0, or -1 if no complete line is left. */
static int next_line(struct cursor *c, const char **line, size_t *len)
{
    if (c->pos >= c->len)
        return -1;
    const char *nl = memchr(c->text + c->pos, '\n', c->len - c->pos);
    if (!nl)
        return -1;
    *line = c->text + c->pos;
    *len = (size_t)(nl - *line);
    c->pos += *len + 1;
    c->lineno++;
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

/* "<key> <decimal>" */
static int keyword_number(const char *line, size_t len, const char *key, uint64_t *v)
{
    size_t k = strlen(key);
    if (len <= k + 1 || memcmp(line, key, k) != 0 || line[k] != ' ')
        return -1;
    return dec_parse(line + k + 1, len - k - 1, v);
}

/* Hash lines up to and including the blank line, then the note. */
static int parse_tail(const char *what, struct cursor *c, uint8_t (*hashes)[32], size_t *nhashes,
                      char **note, size_t *note_len, struct wt_err *err)
{
    const char *line;
    size_t len;
    size_t n = 0;
    for (;;) {
        if (next_line(c, &line, &len))
            return wt_errf(err, WT_EINVAL, "%s: line %d: missing blank line before the checkpoint",
                           what, c->lineno + 1);
        if (len == 0)
            break;
        if (n == WT_PROOF_MAX_HASHES)
            return wt_errf(err, WT_EINVAL, "%s: line %d: more than %d proof hashes", what,
                           c->lineno, WT_PROOF_MAX_HASHES);
        if (wt_b64_hash_decode(line, len, hashes[n]))
            return wt_errf(err, WT_EINVAL, "%s: line %d: not a base64 32-byte hash", what,
                           c->lineno);
        n++;
    }
    const char *ntext = c->text + c->pos;
    size_t nlen = c->len - c->pos;
    struct wt_note parsed;
    int rc = wt_note_parse(ntext, nlen, &parsed, err);
    if (rc) {
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "%s: line %d", what, c->lineno + 1);
        wt_err_prefix(err, prefix);
        return rc;
    }
    wt_note_free(&parsed);
    char *copy = malloc(nlen + 1);
    if (!copy)
        return wt_errf(err, WT_ENOMEM, "%s: out of memory", what);
    memcpy(copy, ntext, nlen);
    copy[nlen] = '\0';
    *nhashes = n;
    *note = copy;
    *note_len = nlen;
    return WT_OK;
}

int wt_tlog_proof_parse(const char *text, size_t len, struct wt_tlog_proof *p, struct wt_err *err)
{
    static const char what[] = "tlog-proof";
    struct cursor c = {text, len, 0, 0};
    const char *line;
    size_t llen;
    memset(p, 0, sizeof(*p));
    if (!text)
        return wt_errf(err, WT_EINVAL, "%s: no text", what);
    if (len > WT_PROOF_MAX_TEXT)
        return wt_errf(err, WT_ENOMEM, "%s: %zu bytes, more than the limit of %d", what, len,
                       WT_PROOF_MAX_TEXT);
    if (next_line(&c, &line, &llen) || llen != strlen(PROOF_HEADER) ||
        memcmp(line, PROOF_HEADER, llen) != 0)
        return wt_errf(err, WT_EINVAL, "%s: line 1: expected '%s'", what, PROOF_HEADER);
    if (next_line(&c, &line, &llen))
        return wt_errf(err, WT_EINVAL, "%s: line 2: missing 'index' line", what);
    if (llen >= 6 && memcmp(line, "extra ", 6) == 0) {
        const char *b = line + 6;
        size_t blen = llen - 6;
        size_t cap = blen / 4 * 3;
        size_t got = 0;
        const char *end = NULL;
        if (blen == 0 || blen % 4 != 0 || cap - 2 > WT_PROOF_MAX_EXTRA || !wt_b64_chars_ok(b, blen))
            return wt_errf(err, WT_EINVAL,
                           "%s: line 2: 'extra' is empty, not base64 or over %d bytes", what,
                           WT_PROOF_MAX_EXTRA);
        p->extra = malloc(cap);
        if (!p->extra)
            return wt_errf(err, WT_ENOMEM, "%s: out of memory", what);
        if (sodium_base642bin(p->extra, cap, b, blen, NULL, &got, &end,
                              sodium_base64_VARIANT_ORIGINAL) != 0 ||
            end != b + blen || got == 0 || got > WT_PROOF_MAX_EXTRA) {
            wt_tlog_proof_free(p);
            return wt_errf(err, WT_EINVAL,
                           "%s: line 2: 'extra' is empty, not base64 or over %d bytes", what,
                           WT_PROOF_MAX_EXTRA);
        }
        p->extra_len = got;
        if (next_line(&c, &line, &llen)) {
            wt_tlog_proof_free(p);
            return wt_errf(err, WT_EINVAL, "%s: line 3: missing 'index' line", what);
        }
    }
    if (keyword_number(line, llen, "index", &p->index)) {
        int ln = c.lineno;
        wt_tlog_proof_free(p);
        return wt_errf(err, WT_EINVAL,
                       "%s: line %d: expected 'index <decimal>' (no leading zeros, below 2^63)",
                       what, ln);
    }
    int rc = parse_tail(what, &c, p->path, &p->npath, &p->checkpoint, &p->checkpoint_len, err);
    if (rc)
        wt_tlog_proof_free(p);
    return rc;
}

int wt_witness_req_parse(const char *text, size_t len, struct wt_witness_req *r, struct wt_err *err)
{
    static const char what[] = "witness request";
    struct cursor c = {text, len, 0, 0};
    const char *line;
    size_t llen;
    memset(r, 0, sizeof(*r));
    if (!text)
        return wt_errf(err, WT_EINVAL, "%s: no text", what);
    if (len > WT_PROOF_MAX_TEXT)
        return wt_errf(err, WT_ENOMEM, "%s: %zu bytes, more than the limit of %d", what, len,
                       WT_PROOF_MAX_TEXT);
    if (next_line(&c, &line, &llen) || keyword_number(line, llen, "old", &r->old_size)) {
        r->old_size = 0;
        return wt_errf(err, WT_EINVAL,
                       "%s: line 1: expected 'old <decimal>' (no leading zeros, below 2^63)", what);
    }
    int rc = parse_tail(what, &c, r->proof, &r->nproof, &r->checkpoint, &r->checkpoint_len, err);
    if (rc)
        wt_witness_req_free(r);
    return rc;
}

void wt_tlog_proof_free(struct wt_tlog_proof *p)
{
    if (!p)
        return;
    free(p->extra);
    free(p->checkpoint);
    memset(p, 0, sizeof(*p));
}

void wt_witness_req_free(struct wt_witness_req *r)
{
    if (!r)
        return;
    free(r->checkpoint);
    memset(r, 0, sizeof(*r));
}

/* ---- formatting ------------------------------------------------------------ */

/* Checks what the parsers will check of the shared tail. */
static int check_tail(const char *what, uint64_t number, size_t nhashes, const char *note,
                      size_t note_len, struct wt_err *err)
{
    if (number > (uint64_t)INT64_MAX)
        return wt_errf(err, WT_EINVAL, "%s: %" PRIu64 " does not fit in 63 bits", what, number);
    if (nhashes > WT_PROOF_MAX_HASHES)
        return wt_errf(err, WT_EINVAL, "%s: %zu proof hashes, more than %d", what, nhashes,
                       WT_PROOF_MAX_HASHES);
    if (!note)
        return wt_errf(err, WT_EINVAL, "%s: no checkpoint", what);
    struct wt_note parsed;
    int rc = wt_note_parse(note, note_len, &parsed, err);
    if (rc) {
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "%s: checkpoint", what);
        wt_err_prefix(err, prefix);
        return rc;
    }
    wt_note_free(&parsed);
    return WT_OK;
}

/* Writes the hash lines, the blank line and the note at p; returns the end. */
static char *put_tail(char *p, const uint8_t (*hashes)[32], size_t n, const char *note,
                      size_t note_len)
{
    for (size_t i = 0; i < n; i++) {
        wt_b64_hash(hashes[i], p);
        p += 44;
        *p++ = '\n';
    }
    *p++ = '\n';
    memcpy(p, note, note_len);
    p += note_len;
    *p = '\0';
    return p;
}

int wt_tlog_proof_format(const struct wt_tlog_proof *p, char **out, struct wt_err *err)
{
    static const char what[] = "tlog-proof";
    char head[64];
    *out = NULL;
    int rc = check_tail(what, p->index, p->npath, p->checkpoint, p->checkpoint_len, err);
    if (rc)
        return rc;
    size_t extra = p->extra && p->extra_len ? p->extra_len : 0;
    if (extra > WT_PROOF_MAX_EXTRA)
        return wt_errf(err, WT_EINVAL, "%s: extra data of %zu bytes, more than %d", what, extra,
                       WT_PROOF_MAX_EXTRA);
    size_t elen = extra ? sodium_base64_ENCODED_LEN(extra, sodium_base64_VARIANT_ORIGINAL) : 0;
    int hlen = snprintf(head, sizeof(head), "index %" PRIu64 "\n", p->index);
    size_t total = strlen(PROOF_HEADER) + 1 + (extra ? 6 + elen : 0) + (size_t)hlen +
                   p->npath * 45 + 1 + p->checkpoint_len;
    if (total > WT_PROOF_MAX_TEXT)
        return wt_errf(err, WT_ENOMEM, "%s: %zu bytes, more than the limit of %d", what, total,
                       WT_PROOF_MAX_TEXT);
    char *s = malloc(total + 1);
    if (!s)
        return wt_errf(err, WT_ENOMEM, "%s: out of memory", what);
    char *q = s;
    memcpy(q, PROOF_HEADER "\n", strlen(PROOF_HEADER) + 1);
    q += strlen(PROOF_HEADER) + 1;
    if (extra) {
        memcpy(q, "extra ", 6);
        q += 6;
        sodium_bin2base64(q, elen, p->extra, extra, sodium_base64_VARIANT_ORIGINAL);
        q += elen - 1;
        *q++ = '\n';
    }
    memcpy(q, head, (size_t)hlen);
    q += hlen;
    put_tail(q, p->path, p->npath, p->checkpoint, p->checkpoint_len);
    *out = s;
    return WT_OK;
}

int wt_witness_req_format(const struct wt_witness_req *r, char **out, struct wt_err *err)
{
    static const char what[] = "witness request";
    char head[64];
    *out = NULL;
    int rc = check_tail(what, r->old_size, r->nproof, r->checkpoint, r->checkpoint_len, err);
    if (rc)
        return rc;
    int hlen = snprintf(head, sizeof(head), "old %" PRIu64 "\n", r->old_size);
    size_t total = (size_t)hlen + r->nproof * 45 + 1 + r->checkpoint_len;
    if (total > WT_PROOF_MAX_TEXT)
        return wt_errf(err, WT_ENOMEM, "%s: %zu bytes, more than the limit of %d", what, total,
                       WT_PROOF_MAX_TEXT);
    char *s = malloc(total + 1);
    if (!s)
        return wt_errf(err, WT_ENOMEM, "%s: out of memory", what);
    memcpy(s, head, (size_t)hlen);
    put_tail(s + hlen, r->proof, r->nproof, r->checkpoint, r->checkpoint_len);
    *out = s;
    return WT_OK;
}
