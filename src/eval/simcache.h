/* A cache, on disk, of the simulator's training windows (trainset.h,
 * wt_trainset_add_sim): their features, labels and cells, so that the many
 * commands that retrain a model (eval --holdout, benchmark --holdout, train)
 * need not simulate the same windows again.  Opt-in: only where the
 * environment variable WT_SIM_CACHE names a directory.
 *
 * An entry is keyed by the SHA-256 of the running executable itself (read
 * from /proc/self/exe), the C library's version and every setting the
 * windows depend on (windows per cell, window length, --sim-seed,
 * --alone-views), so a rebuilt binary or another setting never reads
 * another's windows: the trainset is the same, bit for bit, with or without
 * the cache (tests/sim_cache.sh checks it).  A file whose content does not
 * match its own SHA-256 or key is not used (and is rewritten).  The key also
 * holds the CPU's FMA, AVX2 and AVX-512 support, which selects libm's code;
 * still, a directory is meant for one machine (native byte order).  Entries
 * are not signed: a directory that is another user's or that others may
 * write is not used (whoever writes there could plant windows).  Not a cache
 * of trace windows (their files can change under the same name).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_SIMCACHE_H
#define WT_SIMCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "eval/trainset.h"
#include "util/err.h"

#define WT_SIMCACHE_ENV "WT_SIM_CACHE"

struct wt_simcache_key {
    unsigned char h[32];
};

/* The windows of one entry: nfiles cells (each a path, group and GPU model),
 * n windows with features x, label y and cell index file (0..nfiles-1). */
struct wt_simcache_data {
    size_t nfiles, n;
    char **path, **group, **gpu_model;
    struct wt_features *x;
    unsigned char *y;
    uint32_t *file;
};

/* The key of the simulator windows c (per_cell windows a cell) makes with
 * alone_views.  0, or -1 when the executable cannot be read (no caching). */
int wt_simcache_key(const struct wt_train_config *c, unsigned per_cell, int alone_views,
                    struct wt_simcache_key *k);

/* Why dir may not be used as the cache (another user's, or writable by
 * group or others), or NULL when it may (also when it does not exist yet). */
const char *wt_simcache_dir_refused(const char *dir);

/* Reads dir's entry for k into d: 1 when found whole, 0 when absent or not
 * usable (then d is empty; a damaged entry is removed). */
int wt_simcache_load(const char *dir, const struct wt_simcache_key *k, struct wt_simcache_data *d);

/* Parses an entry's bytes (buf, len) for key k into d: 0, or -1 when it is
 * not a whole entry for k (d then holds what was read: free it). */
int wt_simcache_parse(const unsigned char *buf, size_t len, const struct wt_simcache_key *k,
                      struct wt_simcache_data *d);

/* Writes, as dir's entry for k, the cells ts->files[file0..] and the windows
 * ts->x[win0..] (their file indices >= file0).  An entry another process
 * wrote first is kept.  WT_OK, or an error saying what failed (the caller
 * may go on without a cache). */
int wt_simcache_save(const char *dir, const struct wt_simcache_key *k, const struct wt_trainset *ts,
                     size_t file0, size_t win0, struct wt_err *err) WT_WARN_UNUSED;

void wt_simcache_data_free(struct wt_simcache_data *d);

#endif
