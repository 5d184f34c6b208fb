/* The simulator windows' cache (see simcache.h).
 *
 * An entry is one file, DIR/sim-HEX.bin (HEX: the key's first 16 bytes):
 *
 *   "WTSIMC1\n", the key (32 bytes), the payload's length (uint64) and its
 *   SHA-256 (32 bytes), then the payload: nfiles, n and sizeof(struct
 *   wt_features) (uint64 each); per cell its path, group and GPU model
 *   (uint32 length, bytes); the n feature vectors, n labels (a byte each) and
 *   n cell indices (uint32).  Native byte order.
 *
 * SPDX-License-Identifier: MIT
 */
#include "eval/simcache.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "util/fileio.h"

#define MAGIC "WTSIMC1\n"
#define HEADER (8 + 32 + 8 + 32)
#define MAX_FILE (1ULL << 30) /* bytes: the shipped settings' entry is ~8 MiB */
#define MAX_CELLS (1u << 20)
#define MAX_NAME 4096

static void put(crypto_hash_sha256_state *st, const void *p, size_t n)
{
    crypto_hash_sha256_update(st, p, n);
}

int wt_simcache_key(const struct wt_train_config *c, unsigned per_cell, int alone_views,
                    struct wt_simcache_key *k)
{
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    put(&st, MAGIC, 8);
    FILE *f = fopen("/proc/self/exe", "rb");
    if (!f)
        return -1;
    unsigned char buf[65536];
    size_t got, total = 0;
    while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
        put(&st, buf, got);
        total += got;
    }
    int bad = ferror(f) || total == 0;
    fclose(f);
    if (bad)
        return -1;
#ifdef __GLIBC__
    const char *libc = gnu_get_libc_version(); /* libm's cos, log, exp */
    put(&st, libc, strlen(libc) + 1);
#endif
#if defined(__x86_64__) || defined(__i386__)
    /* libm picks its code for the CPU (FMA, AVX2): not correctly rounded,
     * the variants may differ in the last bit */
    __builtin_cpu_init();
    unsigned char cpu[3] = {(unsigned char)!!__builtin_cpu_supports("fma"),
                            (unsigned char)!!__builtin_cpu_supports("avx2"),
                            (unsigned char)!!__builtin_cpu_supports("avx512f")};
    put(&st, cpu, sizeof(cpu));
#endif
    uint64_t v[] = {per_cell,     (uint64_t)(alone_views != 0),
                    c->sim_seed,  sizeof(struct wt_features),
                    WT_NFEATURES, WT_TRAINSET_VIEWS};
    put(&st, v, sizeof(v));
    put(&st, &c->window_s, sizeof(c->window_s));
    crypto_hash_sha256_final(&st, k->h);
    return 0;
}

const char *wt_simcache_dir_refused(const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return NULL; /* made by the first save, mode 0700 */
    if (!S_ISDIR(sb.st_mode))
        return NULL; /* the save says why it cannot write there */
    if (sb.st_uid != geteuid())
        return "the directory is another user's: whoever can write there could plant windows "
               "that change the model";
    if (sb.st_mode & (S_IWGRP | S_IWOTH))
        return "the directory can be written by others (group or world): whoever can write "
               "there could plant windows that change the model";
    return NULL;
}

static void entry_path(const char *dir, const struct wt_simcache_key *k, char *out, size_t cap)
{
    char hex[33];
    sodium_bin2hex(hex, sizeof(hex), k->h, 16);
    snprintf(out, cap, "%s/sim-%s.bin", dir, hex);
}

void wt_simcache_data_free(struct wt_simcache_data *d)
{
    for (size_t i = 0; i < d->nfiles; i++) {
        free(d->path ? d->path[i] : NULL);
        free(d->group ? d->group[i] : NULL);
        free(d->gpu_model ? d->gpu_model[i] : NULL);
    }
    free(d->path);
    free(d->group);
    free(d->gpu_model);
    free(d->x);
    free(d->y);
    free(d->file);
    memset(d, 0, sizeof(*d));
}

/* A reader over the payload that never passes its end. */
struct rd {
    const unsigned char *p;
    size_t left;
};

static int take(struct rd *r, void *out, size_t n)
{
    if (n > r->left)
        return -1;
    memcpy(out, r->p, n);
    r->p += n;
    r->left -= n;
    return 0;
}

static char *take_name(struct rd *r)
{
    uint32_t len;
    if (take(r, &len, sizeof(len)) || len > MAX_NAME || len > r->left)
        return NULL;
    char *s = malloc((size_t)len + 1);
    if (!s)
        return NULL;
    memcpy(s, r->p, len);
    s[len] = 0;
    r->p += len;
    r->left -= len;
    if (strlen(s) != len) { /* a NUL inside */
        free(s);
        return NULL;
    }
    return s;
}

int wt_simcache_parse(const unsigned char *buf, size_t len, const struct wt_simcache_key *k,
                      struct wt_simcache_data *d)
{
    uint64_t plen;
    unsigned char sum[32];
    if (len < HEADER || memcmp(buf, MAGIC, 8) || memcmp(buf + 8, k->h, 32))
        return -1;
    memcpy(&plen, buf + 40, 8);
    if (plen != len - HEADER)
        return -1;
    crypto_hash_sha256(sum, buf + HEADER, plen);
    if (memcmp(sum, buf + 48, 32))
        return -1;
    struct rd r = {buf + HEADER, (size_t)plen};
    uint64_t nfiles, n, fsize;
    if (take(&r, &nfiles, 8) || take(&r, &n, 8) || take(&r, &fsize, 8) ||
        fsize != sizeof(struct wt_features) || nfiles == 0 || nfiles > MAX_CELLS)
        return -1;
    /* every window takes sizeof(x) + 1 + 4 bytes: n cannot exceed what is left */
    if (n > r.left / (sizeof(struct wt_features) + 5))
        return -1;
    d->path = calloc((size_t)nfiles, sizeof(char *));
    d->group = calloc((size_t)nfiles, sizeof(char *));
    d->gpu_model = calloc((size_t)nfiles, sizeof(char *));
    if (!d->path || !d->group || !d->gpu_model)
        return -1;
    d->nfiles = (size_t)nfiles;
    for (size_t i = 0; i < d->nfiles; i++)
        if (!(d->path[i] = take_name(&r)) || !(d->group[i] = take_name(&r)) ||
            !(d->gpu_model[i] = take_name(&r)))
            return -1;
    if (r.left != n * (sizeof(struct wt_features) + 5))
        return -1;
    d->n = (size_t)n;
    d->x = malloc(d->n ? d->n * sizeof(*d->x) : 1);
    d->y = malloc(d->n ? d->n : 1);
    d->file = malloc(d->n ? d->n * sizeof(*d->file) : 1);
    if (!d->x || !d->y || !d->file || take(&r, d->x, d->n * sizeof(*d->x)) ||
        take(&r, d->y, d->n) || take(&r, d->file, d->n * sizeof(*d->file)))
        return -1;
    for (size_t i = 0; i < d->n; i++)
        if (d->y[i] > 1 || d->file[i] >= d->nfiles)
            return -1;
    return 0;
}

int wt_simcache_load(const char *dir, const struct wt_simcache_key *k, struct wt_simcache_data *d)
{
    memset(d, 0, sizeof(*d));
    char path[4200];
    entry_path(dir, k, path, sizeof(path));
    const char *why;
    FILE *f = wt_fopen_regular(path, &why);
    if (!f)
        return 0;
    struct stat sb;
    unsigned char *buf = NULL;
    int ok = 0;
    if (fstat(fileno(f), &sb) == 0 && sb.st_size >= HEADER && (uint64_t)sb.st_size <= MAX_FILE &&
        (buf = malloc((size_t)sb.st_size)) != NULL &&
        fread(buf, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size && fgetc(f) == EOF)
        ok = wt_simcache_parse(buf, (size_t)sb.st_size, k, d) == 0;
    fclose(f);
    free(buf);
    if (!ok) {
        wt_simcache_data_free(d);
        unlink(path); /* damaged or cut: simulate again and rewrite it */
    }
    return ok;
}

/* Writes a name as the entry holds it: its length (uint32), its bytes. */
static void put_name(FILE *f, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    fwrite(&n, sizeof(n), 1, f);
    fwrite(s, 1, n, f);
}

int wt_simcache_save(const char *dir, const struct wt_simcache_key *k, const struct wt_trainset *ts,
                     size_t file0, size_t win0, struct wt_err *err)
{
    if (file0 > ts->nfiles || win0 > ts->n)
        return wt_errf(err, WT_EINVAL, "%s: nothing to cache", WT_SIMCACHE_ENV);
    uint64_t nfiles = ts->nfiles - file0, n = ts->n - win0, fsize = sizeof(struct wt_features);
    if (nfiles == 0 || nfiles > MAX_CELLS)
        return wt_errf(err, WT_EINVAL, "%s: %llu cells cannot be cached", WT_SIMCACHE_ENV,
                       (unsigned long long)nfiles);
    for (size_t i = win0; i < ts->n; i++)
        if (ts->file[i] < 0 || (size_t)ts->file[i] < file0)
            return wt_errf(err, WT_EINVAL, "%s: a window outside the cached cells",
                           WT_SIMCACHE_ENV);
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    if (!f)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    unsigned char zero[HEADER] = {0}; /* the header, filled in below */
    fwrite(zero, 1, HEADER, f);
    fwrite(&nfiles, 8, 1, f);
    fwrite(&n, 8, 1, f);
    fwrite(&fsize, 8, 1, f);
    for (size_t i = file0; i < ts->nfiles; i++) {
        put_name(f, ts->files[i].path);
        put_name(f, ts->files[i].group);
        put_name(f, ts->files[i].gpu_model);
    }
    fwrite(ts->x + win0, sizeof(*ts->x), (size_t)n, f);
    fwrite(ts->y + win0, 1, (size_t)n, f);
    for (size_t i = win0; i < ts->n; i++) {
        uint32_t rel = (uint32_t)((size_t)ts->file[i] - file0);
        fwrite(&rel, sizeof(rel), 1, f);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || len < HEADER) {
        free(mem);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    unsigned char *buf = (unsigned char *)mem;
    uint64_t plen = len - HEADER;
    memcpy(buf, MAGIC, 8);
    memcpy(buf + 8, k->h, 32);
    memcpy(buf + 40, &plen, 8);
    crypto_hash_sha256(buf + 48, buf + HEADER, plen);
    char path[4200];
    entry_path(dir, k, path, sizeof(path));
    int rc = wt_mkdir_durable(dir, 0700, err);
    if (rc == WT_OK) {
        /* a new file, seen whole or not at all; another process's equal
         * entry, written first, stays */
        rc = wt_write_file_durable(dir, path, buf, len, 0644, WT_FILE_EXCL | WT_FILE_NO_SYNC, err);
        if (rc != WT_OK && errno == EEXIST)
            rc = WT_OK;
    }
    free(buf);
    return rc;
}
