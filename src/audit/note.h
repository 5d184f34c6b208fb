/* C2SP signed notes with Ed25519 (libsodium): keys, signing, parsing,
 * verification; tlog checkpoints and tlog cosignatures (cosignature/v1).
 *
 * Formats (c2sp.org/signed-note, Go sumdb/note, byte for byte):
 *   note      = BODY "\n" { "— " <name> " " base64(keyid[4] || sig) "\n" }+
 *               BODY is non-empty text ending in "\n"; the signature covers
 *               BODY including its final "\n".
 *   key id    = SHA-256(name || "\n" || type || pk[32])[0:4], big-endian;
 *               type 0x01 = Ed25519 note signature, 0x04 = Ed25519
 *               cosignature (signed message "cosignature/v1\ntime <t>\n" ||
 *               checkpoint body; signature bytes = u64 BE t || sig[64]).
 *   vkey text = <name>+<keyid hex8>+base64(type || pk[32])
 *   skey text = PRIVATE+KEY+<name>+<keyid hex8>+base64(type || seed[32])
 *   checkpoint body (c2sp.org/tlog-checkpoint) =
 *               <origin> "\n" <size, decimal> "\n" base64(root[32]) "\n"
 *               [extension lines]
 * Key names are 1..255 bytes of printable non-space UTF-8 without '+'.
 * This module does not read or write files and knows nothing of logs.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_AUDIT_NOTE_H
#define WT_AUDIT_NOTE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define WT_NOTE_MAX_LEN (64 * 1024) /* a whole note, body and signatures */
#define WT_NOTE_MAX_SIGS 16         /* signature lines kept per note */
#define WT_NOTE_NAME_MAX 255
#define WT_KEY_ED25519 0x01
#define WT_KEY_COSIG 0x04

/* A signing key (secret).  Holders must wt_note_key_wipe() it when done. */
struct wt_note_key {
    char name[WT_NOTE_NAME_MAX + 1];
    uint8_t type; /* WT_KEY_ED25519 or WT_KEY_COSIG */
    uint32_t keyid;
    uint8_t pk[32];
    uint8_t sk[64]; /* libsodium secret key: seed || pk */
};

/* A verifier key (public). */
struct wt_note_vkey {
    char name[WT_NOTE_NAME_MAX + 1];
    uint8_t type;
    uint32_t keyid;
    uint8_t pk[32];
};

/* One signature line of a parsed note. */
struct wt_note_sig {
    char name[WT_NOTE_NAME_MAX + 1];
    uint32_t keyid;
    uint8_t sig[8 + 64]; /* the bytes after the key id */
    size_t sig_len;
};

/* A parsed note: text is a NUL-terminated copy; the body is text[0..body_len). */
struct wt_note {
    char *text;
    size_t len;
    size_t body_len;
    int nsigs;
    struct wt_note_sig sigs[WT_NOTE_MAX_SIGS];
};

struct wt_checkpoint {
    char origin[WT_NOTE_NAME_MAX + 1];
    uint64_t size;
    uint8_t root[32];
};

/* Name rules above; returns 1 if valid. */
int wt_note_name_ok(const char *name);

uint32_t wt_note_keyid(const char *name, uint8_t type, const uint8_t pk[32]);

/* Derives a key from a 32-byte seed (crypto_sign_seed_keypair). */
int wt_note_key_from_seed(struct wt_note_key *k, const char *name, uint8_t type,
                          const uint8_t seed[32], struct wt_err *err) WT_WARN_UNUSED;
/* A fresh random key. */
int wt_note_key_generate(struct wt_note_key *k, const char *name, uint8_t type,
                         struct wt_err *err) WT_WARN_UNUSED;
void wt_note_key_wipe(struct wt_note_key *k);
void wt_note_key_public(const struct wt_note_key *k, struct wt_note_vkey *v);

/* Text forms.  Format functions return the length written (excluding the
 * NUL), or -1 if cap is too small.  Parsers accept trailing whitespace
 * (a key file's newline) and check that the key id matches the key. */
int wt_note_format_skey(const struct wt_note_key *k, char *out, size_t cap);
int wt_note_format_vkey(const struct wt_note_vkey *v, char *out, size_t cap);
int wt_note_parse_skey(const char *text, struct wt_note_key *k, struct wt_err *err) WT_WARN_UNUSED;
int wt_note_parse_vkey(const char *text, struct wt_note_vkey *v, struct wt_err *err) WT_WARN_UNUSED;

/* The signature line ("— name base64\n") of key k over body (which must end
 * in "\n").  For a WT_KEY_COSIG key the body must be a checkpoint body and
 * `timestamp` is the cosignature time; it is ignored otherwise. */
int wt_note_sig_line(const struct wt_note_key *k, const char *body, size_t body_len,
                     uint64_t timestamp, char *out, size_t cap);

/* body + "\n" + the signature line, malloc'd and NUL-terminated. */
int wt_note_sign(const struct wt_note_key *k, const char *body, size_t body_len, char **out,
                 struct wt_err *err) WT_WARN_UNUSED;

/* Parses a signed note: at most WT_NOTE_MAX_LEN bytes, valid UTF-8, no
 * control bytes other than "\n", body ends at the last "\n\n", one or more
 * well-formed signature lines, at most WT_NOTE_MAX_SIGS of them.  On success
 * n owns a copy of the text (wt_note_free). */
int wt_note_parse(const char *text, size_t len, struct wt_note *n,
                  struct wt_err *err) WT_WARN_UNUSED;
void wt_note_free(struct wt_note *n);

/* Looks for v's signature (same name and key id) in n.  Returns 1 if present
 * and valid, 0 if absent, -1 if present and invalid.  For a WT_KEY_COSIG key,
 * *timestamp (if not NULL) receives the cosignature time. */
int wt_note_verify(const struct wt_note *n, const struct wt_note_vkey *v, uint64_t *timestamp);
/* 1 if some signature of v in n is valid, whatever v's others are: what a
 * note wt_note_verify rejects (-1) for one bad line of v still proves of
 * its body (the verifier's diagnosis of an edited checkpoint file). */
int wt_note_signed_by(const struct wt_note *n, const struct wt_note_vkey *v);

/* Checkpoint bodies.  The parser accepts and ignores extension lines; it
 * rejects sizes with leading zeros, roots that are not 32 bytes of padded
 * standard base64, and origins that break the name rules. */
int wt_checkpoint_format(const struct wt_checkpoint *c, char *out, size_t cap);
int wt_checkpoint_parse(const char *body, size_t len, struct wt_checkpoint *c,
                        struct wt_err *err) WT_WARN_UNUSED;

/* Standard padded base64 of exactly 32 bytes ("...=" , 44 chars); the
 * decoder rejects anything else, including unpadded or trailing garbage. */
void wt_b64_hash(const uint8_t h[32], char out[45]);
/* 1 if s holds only the standard base64 alphabet with at most two '=' at
 * the end (libsodium alone lets bytes >= 0x80 through). */
int wt_b64_chars_ok(const char *s, size_t len);
int wt_b64_hash_decode(const char *s, size_t len, uint8_t out[32]);

#endif
