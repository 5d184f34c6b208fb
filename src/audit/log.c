/* The audit log's writer (see log.h): the only code that writes log files.
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE /* flock, gethostname */
#include "audit/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/merkle.h"
#include "audit/verify.h"
#include "util/fileio.h"
#include "util/text.h"

struct wt_log {
    struct wt_log_paths p;
    struct wt_log_opts o;
    int fd, lockfd;
    int loglockfd; /* the log file itself, locked too: however the log is named */
    int failed;
    struct wt_note_key key;
    struct wt_merkle_range range;
    uint64_t bytes;     /* file size after the last acknowledged line */
    uint64_t published; /* size of the side-file checkpoint */
    char origin[WT_NOTE_NAME_MAX + 1];
    int unsynced; /* the last append wrote its line but fdatasync failed */
    uint64_t unsynced_size;
    uint8_t unsynced_root[32];
    char init_checkpoint[PATH_MAX + 24]; /* an init's CHECKPOINT.init.HASH taken up at the open */
};

static int set_path(char *dst, const char *a, const char *b, struct wt_err *err)
{
    int n = snprintf(dst, PATH_MAX, "%s%s", a, b);
    if (n < 0 || n >= PATH_MAX)
        return wt_errf(err, WT_EINVAL, "path too long: %.80s...", a);
    return WT_OK;
}

int wt_log_paths_dir(struct wt_log_paths *p, const char *dir, struct wt_err *err)
{
    memset(p, 0, sizeof(*p));
    if (!dir || !*dir)
        return wt_errf(err, WT_EINVAL, "empty log directory name");
    int rc;
    if ((rc = set_path(p->dir, dir, "", err)) || (rc = set_path(p->log, dir, "/log.jsonl", err)) ||
        (rc = set_path(p->checkpoint, dir, "/checkpoint", err)) ||
        (rc = set_path(p->key, dir, "/log.key", err)) ||
        (rc = set_path(p->lock, dir, "/log.lock", err)) ||
        (rc = set_path(p->state, dir, "/log.verified", err)))
        return rc;
    /* a log made with --log-file DIR/log.jsonl (side files log.jsonl.key,
     * log.jsonl.checkpoint) named by its directory: its own side files, as
     * the directory's log.jsonl named as a file gets the directory's
     * (wt_cli_log_paths).  It was reported damaged (its checkpoint "deleted")
     * and writers refused it.  Only where the directory has neither side
     * file of its own: which one is held is then not the caller's choice */
    struct stat st;
    struct wt_log_paths f;
    struct wt_err ferr; /* not the caller's: this call succeeds either way */
    if (lstat(p->checkpoint, &st) != 0 && errno == ENOENT && lstat(p->key, &st) != 0 &&
        errno == ENOENT && wt_log_paths_file(&f, p->log, &ferr) == WT_OK &&
        (lstat(f.key, &st) == 0 || lstat(f.checkpoint, &st) == 0))
        *p = f;
    return WT_OK;
}

int wt_log_paths_file(struct wt_log_paths *p, const char *file, struct wt_err *err)
{
    memset(p, 0, sizeof(*p));
    if (!file || !*file || file[strlen(file) - 1] == '/')
        return wt_errf(err, WT_EINVAL, "'%.200s' is not a file name", file ? file : "");
    int rc;
    if ((rc = set_path(p->log, file, "", err)) ||
        (rc = set_path(p->checkpoint, file, ".checkpoint", err)) ||
        (rc = set_path(p->key, file, ".key", err)) ||
        (rc = set_path(p->lock, file, ".lock", err)) ||
        (rc = set_path(p->state, file, ".verified", err)))
        return rc;
    const char *slash = strrchr(file, '/');
    if (!slash)
        strcpy(p->dir, ".");
    else if (slash == file)
        strcpy(p->dir, "/");
    else
        snprintf(p->dir, sizeof(p->dir), "%.*s", (int)(slash - file), file);
    return WT_OK;
}

static int64_t now_ms(const struct wt_log_opts *o)
{
    if (o && o->clock_ms)
        return o->clock_ms(o->clock_ctx);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int wt_log_read_key(const char *path, struct wt_note_key *k, struct wt_err *err)
{
    /* O_NONBLOCK: a FIFO planted as the key must not hang the writer */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return wt_errf(err, errno == ENOENT ? WT_EINVAL : WT_EIO, "cannot open key file %s: %s",
                       path, strerror(errno));
    struct stat st;
    char buf[1024];
    ssize_t n = -1;
    int rc = WT_OK;
    if (fstat(fd, &st)) {
        rc = wt_errf(err, WT_EIO, "cannot stat %s: %s", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = wt_errf(err, WT_EINVAL, "key file %s is not a regular file", path);
        goto out;
    }
    if (st.st_mode & 077) {
        rc = wt_errf(err, WT_EINVAL,
                     "key file %s is readable or writable by others (mode %04o); chmod 600 it",
                     path, (unsigned)(st.st_mode & 07777));
        goto out;
    }
    /* a key another user put there (anyone who can write the directory can
     * replace the file, mode 0600 and all) would sign that user's log: root
     * read such a key and appended to a history it had rewritten */
    if (st.st_uid != geteuid()) {
        rc = wt_errf(err, WT_EINVAL,
                     "key file %s belongs to user %u, not to this user (%u): a key someone else "
                     "put there would sign their log; run as its owner, or chown it if it is "
                     "yours",
                     path, (unsigned)st.st_uid, (unsigned)geteuid());
        goto out;
    }
    /* the whole file: a key followed by a NUL byte and anything, or by
     * blanks to the buffer's end and more, was taken as the key alone */
    size_t got = 0;
    while (got < sizeof(buf) - 1) {
        n = read(fd, buf + got, sizeof(buf) - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (n < 0) {
        rc = wt_errf(err, WT_EIO, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    buf[got] = '\0';
    if (got == sizeof(buf) - 1) {
        rc = wt_errf(err, WT_EINVAL, "key file %s: larger than %zu bytes (not a key file)", path,
                     sizeof(buf) - 2);
        goto out;
    }
    if (memchr(buf, '\0', got)) {
        rc = wt_errf(err, WT_EINVAL, "key file %s: contains a NUL byte (not a key file)", path);
        goto out;
    }
    if (wt_note_parse_skey(buf, k, err) != WT_OK) {
        wt_err_prefix(err, path);
        rc = WT_EINVAL;
    }
out:
    sodium_memzero(buf, sizeof(buf));
    close(fd);
    return rc;
}

/* The log's signing key: an Ed25519 note key.  A witness's cosignature key
 * (type 0x04) put there was taken: init printed it as the verifier key, the
 * checkpoint got a cosignature line, and every verification and writer
 * called the new log damaged. */
static int read_log_key(const char *path, struct wt_note_key *k, struct wt_err *err)
{
    int rc = wt_log_read_key(path, k, err);
    if (rc == WT_OK && k->type != WT_KEY_ED25519) {
        wt_note_key_wipe(k);
        return wt_errf(err, WT_EINVAL,
                       "key file %s holds a witness's cosignature key (type 0x04), not a log's "
                       "signing key: remove it (init makes one), or put the log's key there",
                       path);
    }
    return rc;
}

/* Each directory made is made durable in its parent (wt_mkdir_durable). */
static int mkdir_p(const char *dir, struct wt_err *err)
{
    char tmp[PATH_MAX];
    int rc;
    snprintf(tmp, sizeof(tmp), "%s", dir);
    for (char *s = tmp + 1; *s; s++)
        if (*s == '/' && s[-1] != '/') {
            *s = '\0';
            if ((rc = wt_mkdir_durable(tmp, 0750, err)) != WT_OK)
                return rc;
            *s = '/';
        }
    return wt_mkdir_durable(tmp, 0750, err);
}

static void default_origin(char *out, size_t cap)
{
    char host[128] = "localhost";
    /* in a pod (no hostNetwork) gethostname() is the pod's name, which is
     * gone with the pod: the DaemonSet passes the node's as NODE_NAME, the
     * name the metrics' hostname label takes too */
    const char *node = getenv("NODE_NAME");
    if (node && *node)
        snprintf(host, sizeof(host), "%s", node);
    else if (gethostname(host, sizeof(host) - 1) == 0)
        host[sizeof(host) - 1] = '\0';
    for (char *c = host; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '.'))
            *c = '-';
    if (!host[0])
        strcpy(host, "localhost");
    uint8_t id[8];
    char hex[17];
    randombytes_buf(id, sizeof(id));
    sodium_bin2hex(hex, sizeof(hex), id, sizeof(id));
    snprintf(out, cap, "workloadtruth.%.100s/%s", host, hex);
}

/* Where init leaves the side-file checkpoint of its genesis record before
 * the log appears: CHECKPOINT.init.HASH, HASH the first 8 bytes of the
 * genesis line's leaf hash in hex, so that inits racing to create the log
 * (classify --log-dir in concurrent jobs) each have their own. */
static void init_checkpoint_path(const struct wt_log_paths *p, const char *line, size_t len,
                                 char *out, size_t cap)
{
    uint8_t leaf[32];
    char hex[17];
    wt_merkle_leaf_hash(line, len, leaf);
    sodium_bin2hex(hex, sizeof(hex), leaf, 8);
    snprintf(out, cap, "%s.init.%s", p->checkpoint, hex);
}

static int open_log(struct wt_log **out, const struct wt_log_paths *p, const struct wt_log_opts *o,
                    struct wt_log_recovery *rec, int from_init, struct wt_log_lock *held,
                    struct wt_err *err);

/* The signed checkpoint (a note) of a log holding only this genesis line. */
static int genesis_checkpoint(const struct wt_note_key *k, const char *origin, const char *line,
                              size_t len, char **note, struct wt_err *err)
{
    struct wt_merkle_range r;
    uint8_t leaf[32];
    wt_merkle_range_init(&r);
    wt_merkle_leaf_hash(line, len, leaf);
    wt_merkle_range_append(&r, leaf);
    struct wt_checkpoint cp;
    char body[WT_NOTE_NAME_MAX + 128];
    memset(&cp, 0, sizeof(cp));
    snprintf(cp.origin, sizeof(cp.origin), "%s", origin);
    cp.size = 1;
    wt_merkle_range_root(&r, cp.root);
    int n = wt_checkpoint_format(&cp, body, sizeof(body));
    if (n < 0)
        return wt_errf(err, WT_EINVAL, "checkpoint too long");
    return wt_note_sign(k, body, (size_t)n, note, err);
}

/* 1 when the file at path holds exactly text (at most 64 KiB read). */
static int file_holds(const char *path, const char *text)
{
    const char *why = NULL;
    FILE *f = wt_fopen_regular(path, &why);
    if (!f)
        return 0;
    size_t want = strlen(text);
    char *buf = malloc(want + 2);
    size_t got = buf ? fread(buf, 1, want + 1, f) : 0;
    fclose(f);
    int same = buf && got == want && memcmp(buf, text, want) == 0;
    free(buf);
    return same;
}

/* Removes every CHECKPOINT.init.HASH (and its temporary files): by init,
 * under the lock, before it makes its own (any there is from an init killed
 * before it linked its log), and by every writer that opens the log with its
 * side file.  One left next to the log, with that init's genesis record in
 * LOG.init.PID.N, would let someone without the key put that record in the
 * log's place, delete the side file, and have the next writer take it up as
 * an interrupted init.  Only names CHECKPOINT.init. + 16 hex digits (+ a
 * temporary suffix) of regular files: a --log-file directory holds others. */
static void remove_init_checkpoints(const struct wt_log_paths *p)
{
    const char *base =
        strrchr(p->checkpoint, '/') ? strrchr(p->checkpoint, '/') + 1 : p->checkpoint;
    char prefix[NAME_MAX + 8];
    snprintf(prefix, sizeof(prefix), "%.255s.init.", base);
    size_t plen = strlen(prefix);
    DIR *d = opendir(p->dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        const char *h = e->d_name + plen;
        size_t nh = strspn(h, "0123456789abcdef");
        if (nh != 16 || (h[16] && h[16] != '.'))
            continue;
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof(path), "%s/%s", p->dir, e->d_name) < (int)sizeof(path) &&
            lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            (void)unlink(path);
    }
    closedir(d);
}

/* 1 when the file at path begins with these len bytes. */
static int file_starts_with(const char *path, const char *bytes, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0;
    char *buf = malloc(len ? len : 1);
    int same = buf && pread(fd, buf, len, 0) == (ssize_t)len && memcmp(buf, bytes, len) == 0;
    free(buf);
    close(fd);
    return same;
}

/* Of several inits of one log at once, those that lose the race say so as
 * the log's existence is said (they printed "cannot create KEY: File
 * exists", which reads as an I/O fault). */
static int raced(const struct wt_log_paths *p, struct wt_err *err)
{
    return wt_errf(err, WT_EINVAL,
                   "%s already exists (another init created it at the same time); an audit log "
                   "is never re-created (use another directory or file)",
                   p->log);
}

/* Whether the key file at p->key holds k (the same name and public key). */
static int key_file_is(const struct wt_log_paths *p, const struct wt_note_key *k)
{
    struct wt_note_key cur;
    struct wt_err kerr = {{0}};
    if (wt_log_read_key(p->key, &cur, &kerr) != WT_OK)
        return 0;
    int same = !strcmp(cur.name, k->name) && !memcmp(cur.pk, k->pk, sizeof(cur.pk));
    wt_note_key_wipe(&cur);
    return same;
}

/* Creates the log with its genesis record in one step: the line is written
 * to a new LOG.init.PID.N and made durable, then linked as LOG, and the
 * directory is synced.  So no log file is ever seen empty or with a torn
 * first line after an interrupted init, and the writer can treat both as
 * damage instead of finishing an init.  link() never replaces a file at
 * LOG: not a log another process created meanwhile (classify --log-dir may
 * run as many jobs at once), nor an empty one (evidence of tampering).
 * Before the link, the checkpoint of the genesis record alone is made
 * durable as CHECKPOINT.init: an init killed between the link and its first
 * publish leaves the log with it, and the next writer takes it up (a log
 * without its checkpoint file is otherwise refused, even one that holds only
 * its genesis record: cut back to that, with the checkpoint file deleted, it
 * would be history wiped by someone without the key).
 * made_key: this init made the key file; when the genesis record cannot be
 * made (a full disk), the key is removed again under the lock (*removed),
 * so that no other init, which checks the key under the lock, signs a log
 * with a key that is gone. */
static int write_genesis(const struct wt_log_paths *p, const struct wt_note_key *k,
                         const struct wt_log_opts *o, int made_key, int *removed,
                         struct wt_err *err)
{
    char *note = NULL;
    char ckinit[sizeof(p->checkpoint) + 24];
    /* one init at a time, under the writers' lock: a killed one's
     * CHECKPOINT.init is then never made next to a log (only while there is
     * none), and the next init removes it */
    int lfd = open(p->lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
    if (lfd < 0)
        return wt_errf(err, WT_EIO, "cannot open lock file %s: %s", p->lock, strerror(errno));
    /* another init holding it is done within milliseconds: wait a little
     * for it (then its log exists, said as such), never long (a writer may
     * hold the lock of the log that init made meanwhile) */
    int locked = -1, lerr = 0;
    for (int tries = 0; tries < 200; tries++) {
        if ((locked = flock(lfd, LOCK_EX | LOCK_NB)) == 0 || (lerr = errno) != EWOULDBLOCK)
            break;
        struct stat ls;
        if (lstat(p->log, &ls) == 0) {
            close(lfd);
            return raced(p, err);
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    if (locked) {
        close(lfd);
        return lerr == EWOULDBLOCK
                   ? wt_errf(err, WT_EBUSY,
                             "%s is in use: another process holds %s (creating "
                             "or writing the log)",
                             p->log, p->lock)
                   : wt_errf(err, WT_EIO, "cannot lock %s: %s", p->lock, strerror(lerr));
    }
    struct stat lst;
    if (lstat(p->log, &lst) == 0) { /* another init made it meanwhile */
        close(lfd);
        return raced(p, err);
    }
    if (!key_file_is(p, k)) {
        /* the key this init read (another's, kept from an init that did
         * not finish) was removed, or replaced, while it waited for the
         * lock: an init whose genesis failed removes the key it made */
        close(lfd);
        return wt_errf(err, WT_EIO,
                       "the key file %s changed while this init waited for another one (which "
                       "could not write the log and removed the key it had made); try again",
                       p->key);
    }
    remove_init_checkpoints(p);
    uint8_t empty[32];
    char pkb[45];
    wt_merkle_empty_root(empty);
    wt_b64_hash(k->pk, pkb);
    json_t *f = json_pack("{s:s,s:s,s:s}", "origin", k->name, "alg", "ed25519", "pk", pkb);
    char *line = NULL;
    size_t len = 0;
    int rc = f ? wt_entry_build(0, now_ms(o), WT_ENTRY_GENESIS, empty, f, &line, &len, err)
               : wt_errf(err, WT_ENOMEM, "out of memory");
    json_decref(f);
    if (rc) {
        close(lfd);
        return rc;
    }
    char tmp[sizeof(p->log) + 40], base[sizeof(p->log) + 8];
    snprintf(base, sizeof(base), "%s.init", p->log);
    int fd = wt_open_temp(base, 0640, tmp, sizeof(tmp));
    if (fd < 0) {
        rc = wt_errf(err, WT_EIO, "cannot create a file next to %s: %s", p->log, strerror(errno));
        goto out;
    }
    line[len] = '\n'; /* the NUL becomes the newline: one write */
    ssize_t n = write(fd, line, len + 1);
    if (n != (ssize_t)(len + 1))
        rc = wt_errf(err, WT_EIO, "cannot write the genesis record to %s: %s", tmp,
                     strerror(n < 0 ? errno : ENOSPC));
    else if (fsync(fd))
        rc = wt_errf(err, WT_EIO, "fsync of %s failed: %s", tmp, strerror(errno));
    close(fd);
    init_checkpoint_path(p, line, len, ckinit, sizeof(ckinit));
    if (!rc)
        rc = genesis_checkpoint(k, k->name, line, len, &note, err);
    if (!rc)
        rc = wt_write_file_durable(p->dir, ckinit, note, strlen(note), 0644, WT_FILE_REPLACE, err);
    if (!rc && link(tmp, p->log) != 0) {
        int e = errno;
        rc = e == EEXIST ? raced(p, err)
                         : wt_errf(err, WT_EIO, "cannot create %s: %s", p->log, strerror(e));
        /* ours, for a log that is not: unless another init made the very same
         * genesis line (same key, same millisecond), whose file it is too */
        if (!file_starts_with(p->log, line, len + 1))
            (void)unlink(ckinit);
    }
    (void)unlink(tmp);
    if (!rc)
        rc = wt_fsync_dir(p->dir, err);
out:
    if (rc && made_key && lstat(p->log, &lst) != 0 && errno == ENOENT && key_file_is(p, k) &&
        unlink(p->key) == 0) {
        /* removed under the lock: see above (a CHECKPOINT.init it left is
         * removed by the next init, under the lock) */
        *removed = 1;
    }
    free(note);
    free(line);
    close(lfd); /* releases the lock */
    return rc;
}

/* Whether another process holds the writers' lock: probed with a shared
 * lock, released at once (the lock file is not created here). */
static int lock_held(const struct wt_log_paths *p)
{
    int fd = open(p->lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    int held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

int wt_log_wait_for_init(const struct wt_log_paths *p, double min_s, double max_s,
                         const atomic_int *cancel)
{
    struct stat st;
    for (long t = 0;; t++) {
        if (stat(p->log, &st) == 0)
            return 1;
        if (stat(p->key, &st) != 0 || t >= max_s * 100)
            return 0; /* nothing to wait for (also when a stop was asked) */
        if (cancel && *cancel)
            return -1;
        if (t >= min_s * 100 && !lock_held(p) && time(NULL) - st.st_mtime >= WT_LOG_KEY_YOUNG_S)
            return 0;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
}

int wt_log_init(const struct wt_log_paths *p, const char *origin, const struct wt_note_key *key,
                const struct wt_log_opts *o, char *vkey, size_t cap, struct wt_err *err)
{
    struct wt_note_key k;
    struct stat st;
    int rc, made_key = 0;
    memset(&k, 0, sizeof(k));
    if (sodium_init() < 0)
        return wt_errf(err, WT_EIO, "libsodium failed to initialise");
    if (origin && (!wt_note_name_ok(origin) || strlen(origin) > WT_NOTE_NAME_MAX))
        return wt_errf(err, WT_EINVAL,
                       "origin '%.80s' is not valid (no spaces, '+' or control characters; at "
                       "most 255 bytes)",
                       origin);
    if ((rc = mkdir_p(p->dir, err)) != WT_OK)
        return rc;
    if (lstat(p->log, &st) == 0)
        return wt_errf(err, WT_EINVAL,
                       "%s already exists%s; an audit log is never re-created "
                       "(use another directory or file)",
                       p->log,
                       S_ISREG(st.st_mode) && st.st_size == 0
                           ? " and is empty (init never leaves a log empty: its records were "
                             "removed; keep it as evidence)"
                           : "");
    if (lstat(p->checkpoint, &st) == 0)
        /* the side file is written only once the log exists (write_genesis
         * links the log first), so one without its log is the checkpoint of
         * a log that was deleted or moved: a new genesis next to it never
         * verifies (truncated, or wrong-key under a new key) and was left
         * behind as a damaged log that init then refused to touch */
        return wt_errf(err, WT_EINVAL,
                       "%s is missing but its checkpoint file %s exists: that log was deleted or "
                       "moved; keep the checkpoint as evidence and move it aside (with the key, "
                       "if the new log is to have a new one) before creating a log here",
                       p->log, p->checkpoint);
    if (stat(p->key, &st) == 0 && st.st_size == 0) {
        /* an init interrupted between creating the key file and writing it
         * (no log yet, checked above): nothing to keep */
        if (unlink(p->key) != 0)
            return wt_errf(err, WT_EIO, "cannot remove the empty key file %s: %s", p->key,
                           strerror(errno));
    }
    struct stat kl;
    int kerr = stat(p->key, &st) != 0 ? errno : 0;
    /* (a link: a key file that another init made between the two calls is
     * no link, and is read below as a kept key; it was called "a symbolic
     * link to nothing", a failure in a race of inits that the CI hit) */
    if (kerr && lstat(p->key, &kl) == 0 && S_ISLNK(kl.st_mode))
        /* a link to nothing (or to what cannot be reached): a new key is
         * not written through it, and its name is taken (it read as an init
         * that lost a race to create the log) */
        return wt_errf(err, WT_EINVAL,
                       "%s is a symbolic link to %s: no key can be read or written there; "
                       "remove it (or make it lead to the log's key)",
                       p->key, kerr == ENOENT ? "nothing" : "a path that cannot be reached");
    if (stat(p->key, &st) == 0) {
        /* an init interrupted after the key was written: keep that key */
        if ((rc = read_log_key(p->key, &k, err)) != WT_OK)
            return rc;
        if (origin && strcmp(origin, k.name)) {
            rc = wt_errf(err, WT_EINVAL,
                         "--origin %.80s: the key %s, kept from an earlier init, names the log "
                         "'%.80s'; give that origin (or none), or remove the key to start over "
                         "with a new one",
                         origin, p->key, k.name);
            wt_note_key_wipe(&k);
            return rc;
        }
    } else {
        char name[WT_NOTE_NAME_MAX + 1];
        if (origin) {
            if (!wt_note_name_ok(origin) || strlen(origin) > WT_NOTE_NAME_MAX)
                return wt_errf(err, WT_EINVAL,
                               "origin '%.80s' is not valid (no spaces, '+' or control "
                               "characters; at most 255 bytes)",
                               origin);
            snprintf(name, sizeof(name), "%s", origin);
        } else {
            default_origin(name, sizeof(name));
        }
        if (key) {
            k = *key;
            snprintf(k.name, sizeof(k.name), "%s", name);
            k.type = WT_KEY_ED25519;
            k.keyid = wt_note_keyid(k.name, k.type, k.pk);
        } else if ((rc = wt_note_key_generate(&k, name, WT_KEY_ED25519, err)) != WT_OK) {
            return rc;
        }
        char text[600];
        int n = wt_note_format_skey(&k, text, sizeof(text) - 1);
        if (n < 0) {
            wt_note_key_wipe(&k);
            return wt_errf(err, WT_EINVAL, "key name too long");
        }
        text[n++] = '\n';
        rc = wt_write_file_durable(p->dir, p->key, text, (size_t)n, 0600, WT_FILE_EXCL, err);
        int e = errno;
        sodium_memzero(text, sizeof(text));
        if (rc) {
            wt_note_key_wipe(&k);
            /* another init wrote its key since the check above: its log */
            return e == EEXIST ? raced(p, err) : rc;
        }
        made_key = 1;
    }
    struct wt_log *l = NULL;
    int removed = 0;
    rc = write_genesis(p, &k, o, made_key, &removed, err); /* busy: another init, not done */
    if (removed && err) {
        /* the key this call made, for a log it could not make (a full
         * disk): removed, or every later start would take the key without
         * its log for a deleted log's and refuse, until an init by hand */
        size_t k0 = strlen(err->msg);
        snprintf(err->msg + k0, sizeof(err->msg) - k0,
                 "; the key made for it was removed again, so the next start creates the log");
    }
    if (!rc) {
        rc = open_log(&l, p, o, NULL, 1, NULL, err);
        if (rc == WT_EBUSY)
            rc = WT_OK; /* a writer opened the new log first: it is made, and that
                           writer signs its checkpoints */
    }
    if (!rc) {
        struct wt_note_vkey v;
        wt_note_key_public(&k, &v);
        if (vkey && wt_note_format_vkey(&v, vkey, cap) < 0)
            rc = wt_errf(err, WT_EINVAL, "verifier key too long");
        wt_log_close(l);
    }
    wt_note_key_wipe(&k);
    return rc;
}

/* Moves bytes [off, end) of the log to a quarantine file, cuts the log. */
static int quarantine(const struct wt_log_paths *p, uint64_t off, struct wt_log_recovery *rec,
                      struct wt_err *err)
{
    int fd = open(p->log, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return wt_errf(err, WT_EIO, "cannot open %s: %s", p->log, strerror(errno));
    struct stat st;
    char *buf = NULL;
    int rc = WT_OK;
    if (fstat(fd, &st)) {
        rc = wt_errf(err, WT_EIO, "cannot stat %s: %s", p->log, strerror(errno));
        goto out;
    }
    uint64_t len = (uint64_t)st.st_size > off ? (uint64_t)st.st_size - off : 0;
    if (len > WT_VERIFY_MAX_TORN_BYTES) {
        rc = wt_errf(err, WT_EINVAL,
                     "%s: %llu bytes after the last valid record at offset %llu: too much for a "
                     "torn write; refusing to cut it (move the log aside and investigate)",
                     p->log, (unsigned long long)len, (unsigned long long)off);
        goto out;
    }
    buf = malloc(len ? len : 1);
    if (!buf) {
        rc = wt_errf(err, WT_ENOMEM, "out of memory");
        goto out;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = wt_errf(err, WT_EIO, "cannot read %s: %s", p->log,
                         n < 0 ? strerror(errno) : "file shrank");
            goto out;
        }
        got += (size_t)n;
    }
    for (int k = 0; k < 1000; k++) {
        if (k == 0)
            snprintf(rec->quarantine, sizeof(rec->quarantine), "%s.torn.%llu", p->log,
                     (unsigned long long)off);
        else
            snprintf(rec->quarantine, sizeof(rec->quarantine), "%s.torn.%llu.%d", p->log,
                     (unsigned long long)off, k);
        rc = wt_write_file_durable(p->dir, rec->quarantine, buf, len, 0640, WT_FILE_EXCL, err);
        if (rc == WT_OK || errno != EEXIST)
            break;
    }
    if (rc)
        goto out;
    if (ftruncate(fd, (off_t)off) || fsync(fd)) {
        rc = wt_errf(err, WT_EIO, "cannot cut %s back to %llu bytes: %s", p->log,
                     (unsigned long long)off, strerror(errno));
        goto out;
    }
    rec->repaired = 1;
    rec->offset = off;
    rec->dropped = len;
out:
    free(buf);
    close(fd);
    return rc;
}

/* A log holding only its genesis record, without its checkpoint file, is an
 * init interrupted before its first publish if CHECKPOINT.init is the
 * checkpoint of that record, signed with the log's key (write_genesis). */
static int init_left_it(struct wt_log *l, const struct wt_log_paths *p,
                        const struct wt_verify_report *vr)
{
    if (vr->entries != 1)
        return 0;
    FILE *f = NULL;
    const char *why = NULL;
    char *line = NULL, *note = NULL;
    int ok = 0;
    char ckinit[sizeof(p->checkpoint) + 24];
    size_t len = vr->last_line_len; /* the genesis line, newline included */
    if (len < 2 || len > WT_ENTRY_MAX_LINE + 1 || !(f = wt_fopen_regular(p->log, &why)))
        goto out;
    line = malloc(len);
    if (!line || fread(line, 1, len, f) != len || line[len - 1] != '\n')
        goto out;
    struct wt_err e2 = {{0}};
    if (genesis_checkpoint(&l->key, vr->origin, line, len - 1, &note, &e2) != WT_OK)
        goto out;
    init_checkpoint_path(p, line, len - 1, ckinit, sizeof(ckinit));
    ok = file_holds(ckinit, note);
    if (ok)
        snprintf(l->init_checkpoint, sizeof(l->init_checkpoint), "%s", ckinit);
out:
    if (f)
        fclose(f);
    free(note);
    free(line);
    return ok;
}

int wt_log_repaired_msg(const struct wt_log_recovery *rec, const char *log, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (!rec->repaired)
        return 0;
    snprintf(buf, cap, "recovered %s: %llu bytes of a torn last line moved to %s", log,
             (unsigned long long)rec->dropped, rec->quarantine);
    wt_text_clean(buf); /* one line, whatever the path holds */
    return 1;
}

int wt_log_unsealed_msg(const struct wt_log_recovery *rec, const char *log, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (!rec->unsealed)
        return 0;
    /* the checkpoint file that signs them could not be written yet (a full
     * disk, publish_later): not signed until it is */
    snprintf(
        buf, cap,
        "%s: %slines %llu..%llu, which no signed checkpoint covered (written by a "
        "writer that stopped before sealing them, or by someone without the key: check "
        "them)%s",
        log, rec->publish_error[0] ? "" : "signed ",
        (unsigned long long)(rec->entries - rec->unsealed + 1), (unsigned long long)rec->entries,
        rec->publish_error[0] ? ", will be signed once the checkpoint file can be written" : "");
    wt_text_clean(buf);
    return 1;
}

/* A verifier's message names the log by its file name, as verify-log,
 * given the path, prints it; a writer's refusal names the whole path, as its
 * other messages do ("log.jsonl:3014: truncated" in an epilog's output said
 * not which log). */
static const char *log_named(const char *msg, const char *log, char *buf, size_t cap)
{
    const char *base = strrchr(log, '/') ? strrchr(log, '/') + 1 : log;
    size_t bl = strlen(base);
    if (base == log || strncmp(msg, base, bl) != 0 || msg[bl] != ':')
        return msg;
    snprintf(buf, cap, "%.*s%s", (int)(base - log), log, msg);
    return buf;
}

int wt_log_open(struct wt_log **out, const struct wt_log_paths *p, const struct wt_log_opts *o,
                struct wt_log_recovery *rec, struct wt_err *err)
{
    return open_log(out, p, o, rec, 0, NULL, err);
}

int wt_log_reopen(struct wt_log **out, const struct wt_log_paths *p, const struct wt_log_opts *o,
                  struct wt_log_recovery *rec, struct wt_log_lock *held, struct wt_err *err)
{
    return open_log(out, p, o, rec, 0, held, err);
}

void wt_log_lock_release(struct wt_log_lock *held)
{
    if (held->loglockfd >= 0)
        close(held->loglockfd);
    if (held->lockfd >= 0)
        close(held->lockfd); /* releases the flock */
    held->lockfd = held->loglockfd = -1;
}

void wt_log_close_keep_lock(struct wt_log *l, struct wt_log_lock *held)
{
    if (!l)
        return;
    wt_log_lock_release(held);
    held->lockfd = l->lockfd;
    held->loglockfd = l->loglockfd;
    l->lockfd = l->loglockfd = -1;
    wt_log_close(l);
}

/* Whether fd is the file at path (not one put in its place). */
static int same_file(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* --- the writers' verification state (log.verified) ---------------------------
 *
 * Where the last writer's verification of the log stopped, so that the next
 * one verifies only the lines after it (about 11 us a line here: minutes
 * for a long log, at every start of watch and at every Slurm job end).  The file
 * is a cache: missing, unreadable, for another log file, or not
 * authenticated by this log's key, it is ignored and the whole log is
 * verified.  Authenticated with a key derived from the log's signing key
 * (BLAKE2b, keyed), so someone who can write the log directory but not
 * read the key cannot make a writer skip lines.  The lines before it are
 * not read again by writers: one changed later is caught by every verifier
 * (the writers' checkpoints sign the Merkle root of the lines as they were
 * verified), not by the writer.  The bytes are this build's struct: a file
 * from another build (another size) is ignored. */
static const unsigned char STATE_MAGIC[8] = {'W', 'T', 'V', 'S', 1, 0, 0, 0};
#define STATE_MAC_AT (WT_LOG_STATE_BYTES - 32)

static void state_mac(const struct wt_note_key *k, const unsigned char *blob, uint8_t mac[32])
{
    static const char ctx[] = "workloadtruth log.verified v1";
    uint8_t sub[32];
    /* a key of its own, from the secret seed (sk = seed || pk) */
    crypto_generichash(sub, sizeof(sub), (const unsigned char *)ctx, sizeof(ctx) - 1, k->sk, 32);
    crypto_generichash(mac, 32, blob, STATE_MAC_AT, sub, sizeof(sub));
    sodium_memzero(sub, sizeof(sub));
}

static int state_genuine(const struct wt_note_key *k, const unsigned char *blob)
{
    uint8_t mac[32];
    state_mac(k, blob, mac);
    return sodium_memcmp(mac, blob + STATE_MAC_AT, 32) == 0;
}

/* Reads the state file into blob and its fields (not authenticated: see
 * state_genuine); 0, or -1 when there is none of this build's size. */
static int state_read(const char *path, unsigned char *blob, struct wt_verify_resume *v,
                      uint64_t *dev, uint64_t *ino)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    if (fd < 0)
        return -1;
    ssize_t got = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == (off_t)WT_LOG_STATE_BYTES)
        got = read(fd, blob, WT_LOG_STATE_BYTES);
    close(fd);
    uint32_t size;
    memcpy(&size, blob + 8, 4);
    if (got != (ssize_t)WT_LOG_STATE_BYTES || memcmp(blob, STATE_MAGIC, 8) ||
        size != (uint32_t)sizeof(*v))
        return -1;
    memcpy(dev, blob + 16, 8);
    memcpy(ino, blob + 24, 8);
    memcpy(v, blob + 32, sizeof(*v));
    /* authenticated or not, nothing out of range is taken up */
    if (!v->valid || v->range.top < 0 || v->range.top > 64 || v->n != v->range.size)
        return -1;
    return 0;
}

/* Replaces the state file (a tmp file renamed; not synced: a state lost
 * in a crash costs a whole scan).  Failures are ignored likewise. */
static void state_write(const struct wt_log_paths *p, const struct wt_note_key *k, uint64_t dev,
                        uint64_t ino, const struct wt_verify_resume *v)
{
    unsigned char *blob = calloc(1, WT_LOG_STATE_BYTES);
    char tmp[PATH_MAX + 8];
    uint32_t size = (uint32_t)sizeof(*v);
    if (!blob)
        return;
    memcpy(blob, STATE_MAGIC, 8);
    memcpy(blob + 8, &size, 4);
    memcpy(blob + 16, &dev, 8);
    memcpy(blob + 24, &ino, 8);
    memcpy(blob + 32, v, sizeof(*v));
    state_mac(k, blob, blob + STATE_MAC_AT);
    snprintf(tmp, sizeof(tmp), "%s.tmp", p->state);
    (void)unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
    if (fd >= 0) {
        int ok = write(fd, blob, WT_LOG_STATE_BYTES) == (ssize_t)WT_LOG_STATE_BYTES;
        ok &= close(fd) == 0;
        if (!ok || rename(tmp, p->state) != 0)
            (void)unlink(tmp);
    }
    free(blob);
}

void wt_log_prescan(const struct wt_log_paths *p, const atomic_int *cancel,
                    struct wt_log_prescan *out)
{
    memset(out, 0, sizeof(*out));
    /* as open does before it verifies: what the file holds made durable,
     * then read from the disk, not from a page cache that may hold lines
     * the disk lost after a failed fdatasync */
    int fd = open(p->log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fdatasync(fd) != 0) {
        close(fd);
        return;
    }
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return;
    }
    /* from where the last writer's verification stopped, if it was this file */
    struct wt_verify_resume *base = malloc(sizeof(*base));
    uint64_t sdev, sino;
    out->based = base && state_read(p->state, out->state, base, &sdev, &sino) == 0 &&
                 sdev == (uint64_t)st.st_dev && sino == (uint64_t)st.st_ino &&
                 (uint64_t)st.st_size >= base->off;
    out->based_n = out->based ? base->n : 0;
    if (wt_verify_prescan(f, out->based ? base : NULL, cancel, &out->v) != 0)
        memset(&out->v, 0, sizeof(out->v));
    free(base);
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    fclose(f);
}

/* from_init: called by wt_log_init for the log it has just created (its
 * genesis record has no checkpoint file yet: this publishes it); held: the
 * locks a writer kept since it closed the log (NULL: none) */
static int open_log(struct wt_log **out, const struct wt_log_paths *p, const struct wt_log_opts *o,
                    struct wt_log_recovery *rec, int from_init, struct wt_log_lock *held,
                    struct wt_err *err)
{
    static const struct wt_log_opts defaults = {0};
    struct wt_log_recovery dummy;
    struct wt_verify_report *vr = NULL;
    struct wt_log *l = NULL;
    struct wt_log_prescan *own = NULL; /* the state file, when no prescan is taken */
    struct wt_verify_resume *keep = NULL;
    struct stat vst = {0};                      /* the log file as verified */
    const struct wt_verify_resume *from = NULL; /* where verification started */
    uint64_t state_n = 0;                       /* the lines of the state file it started from */
    int rc = WT_OK, locked = 0, loglocked = 0;
    *out = NULL;
    if (!rec)
        rec = &dummy;
    memset(rec, 0, sizeof(*rec));
    if (sodium_init() < 0)
        return wt_errf(err, WT_EIO, "libsodium failed to initialise");
    l = calloc(1, sizeof(*l));
    vr = malloc(sizeof(*vr));
    if (!l || !vr) {
        free(l);
        free(vr);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    l->fd = l->lockfd = l->loglockfd = -1;
    l->p = *p;
    l->o = o ? *o : defaults;
    (void)sodium_mlock(&l->key, sizeof(l->key));

    struct stat st;
    if (stat(p->log, &st) != 0) {
        rc = wt_errf(err, errno == ENOENT ? WT_EINVAL : WT_EIO, "%s: %s%s", p->log, strerror(errno),
                     errno == ENOENT ? " (create it with `workloadtruth init`)" : "");
        goto fail;
    }
    if (held && held->lockfd >= 0) { /* kept since this writer closed the log */
        l->lockfd = held->lockfd;
        held->lockfd = -1;
        locked = 1;
    } else if ((l->lockfd = open(p->lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640)) < 0) {
        rc = wt_errf(err, WT_EIO, "cannot open lock file %s: %s", p->lock, strerror(errno));
        goto fail;
    }
    if (!locked && flock(l->lockfd, LOCK_EX | LOCK_NB)) {
        rc = errno == EWOULDBLOCK
                 ? wt_errf(err, WT_EBUSY, "%s is in use: another writer holds %s", p->log, p->lock)
                 : wt_errf(err, WT_EIO, "cannot lock %s: %s", p->lock, strerror(errno));
        goto fail;
    }
    locked = 1;
    /* the lock file's name follows how the log was named (DIR/log.lock or
     * FILE.lock); a lock on the log's own inode holds off a writer that named it
     * the other way (a kept one only if the log is still that file) */
    if (held && held->loglockfd >= 0) {
        if (same_file(held->loglockfd, p->log)) {
            l->loglockfd = held->loglockfd;
            loglocked = 1;
        } else {
            close(held->loglockfd);
        }
        held->loglockfd = -1;
    }
    /* O_NONBLOCK: a FIFO planted as the log must not block the open (a
     * writer, or an MCP server's request, would hang until a peer came) */
    if (!loglocked &&
        (l->loglockfd = open(p->log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0) {
        rc = wt_errf(err, WT_EIO, "cannot open %s: %s", p->log, strerror(errno));
        goto fail;
    }
    {
        struct stat lst = {0};
        if (fstat(l->loglockfd, &lst) != 0 || !S_ISREG(lst.st_mode)) {
            rc = wt_errf(err, WT_EIO, "cannot open %s: %s", p->log,
                         S_ISDIR(lst.st_mode) ? "is a directory" : "not a regular file");
            goto fail;
        }
    }
    if (!loglocked && flock(l->loglockfd, LOCK_EX | LOCK_NB)) {
        rc = errno == EWOULDBLOCK
                 ? wt_errf(err, WT_EBUSY,
                           "%s is in use: another writer holds it (named another way: "
                           "--log-dir or --log-file)",
                           p->log)
                 : wt_errf(err, WT_EIO, "cannot lock %s: %s", p->log, strerror(errno));
        goto fail;
    }
    loglocked = 1;
    if ((rc = read_log_key(p->key, &l->key, err)) != WT_OK)
        goto fail;
    /* an empty log, or a torn first line, is damage: init creates the log
     * with its genesis record in one step (write_genesis), so neither is an
     * interrupted init; restarting it would let anyone who can write the
     * file, without the key, replace the history with a fresh log */
    /* Make what is in the file durable, then drop it from the page cache so
     * the verification below reads what is on disk: after a failed
     * fdatasync the cache may hold lines the disk lost ("fsyncgate"). */
    {
        int rfd = open(p->log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (rfd < 0 || fdatasync(rfd) != 0) {
            rc = wt_errf(err, WT_EIO, "%s: cannot %s: %s", p->log, rfd < 0 ? "open" : "sync",
                         strerror(errno));
            if (rfd >= 0)
                close(rfd);
            goto fail;
        }
        (void)posix_fadvise(rfd, 0, 0, POSIX_FADV_DONTNEED);
        close(rfd);
    }

    struct wt_note_vkey vk;
    char named[PATH_MAX + sizeof(((struct wt_verify_report *)0)->message)];
    wt_note_key_public(&l->key, &vk);
    struct wt_verify_opts vo = {
        .vkey = &vk, .side_path = p->checkpoint, .side_optional = 1, .cancel = l->o.cancel};
    int st_v;
    {
        /* The lines after a prescan of this very file (not a log put in its
         * place since, nor one cut shorter), taken only if the state file it
         * started from is genuine; else after the state file; else all. */
        const struct wt_log_prescan *ps = l->o.prescan;
        l->o.prescan = NULL; /* a reopen scans the log as it is then */
        if (ps &&
            (!ps->v.valid || (ps->based && (l->o.whole || !state_genuine(&l->key, ps->state)))))
            ps = NULL;
        if (!ps && !l->o.whole && (own = malloc(sizeof(*own))) &&
            state_read(p->state, own->state, &own->v, &own->dev, &own->ino) == 0 &&
            state_genuine(&l->key, own->state))
            ps = own;
        const char *why = NULL;
        FILE *vf = wt_fopen_regular(p->log, &why);
        if (!vf) {
            rc = wt_errf(err, WT_EIO, "cannot open %s: %s", p->log, why);
            goto fail;
        }
        if (fstat(fileno(vf), &vst) != 0)
            memset(&vst, 0, sizeof(vst)); /* not resumed, no state written */
        int same = ps && vst.st_ino && (uint64_t)vst.st_dev == ps->dev &&
                   (uint64_t)vst.st_ino == ps->ino && (uint64_t)vst.st_size >= ps->v.off;
        from = same ? &ps->v : NULL;
        state_n = !from ? 0 : ps == own ? own->v.n : ps->based ? ps->based_n : 0;
        /* kept: the state before the first external checkpoint is compared
         * (a resumed scan cannot compare one behind it), for the next open */
        keep = malloc(sizeof(*keep));
        st_v = keep ? wt_verify_stream_keep(vf, p->log, &vo, from, UINT64_MAX, vr, keep, NULL)
                    : wt_verify_stream_from(vf, p->log, &vo, from, vr);
        fclose(vf);
        /* not taken up (its last line not in the file as it read it, an
         * older checkpoint file): read from the start, it is no state of
         * this file to save */
        if (from && (vr->resumed_lines != from->n || vr->resumed_off != from->off))
            from = NULL;
    }
    if (st_v == WT_VERIFY_ERROR) {
        /* a stop asked meanwhile (wt_log_opts.cancel) ended the reading */
        int stopped = l->o.cancel && atomic_load(l->o.cancel);
        rc = wt_errf(err, stopped ? WT_ESTOP : WT_EIO, "%s",
                     log_named(vr->message, p->log, named, sizeof(named)));
        goto fail;
    }
    if (st_v == WT_VERIFY_DAMAGED && vr->damage == WT_DMG_WRONG_KEY && vr->line == 1) {
        /* the genesis line is whole and intact as far as the log shows: the
         * key file may be what changed, so the log is not called damaged */
        rc = wt_errf(err, WT_EINVAL,
                     "%s: the log's genesis key (%.80s) is not the key in %s: the key file was "
                     "replaced, or the log re-created with another key; refusing to append "
                     "(`workloadtruth verify-log --vkey` with the verifier key published at init "
                     "tells which: the log verifies against it if the key file was replaced)",
                     p->log, vr->origin, p->key);
        goto fail;
    }
    if (st_v == WT_VERIFY_DAMAGED && vr->damage == WT_DMG_CHECKPOINT && vr->line == 0) {
        /* the side file missing or spoilt: the lines may be whole, and the
         * message says what to do (not "start a new log elsewhere") */
        rc = wt_errf(err, WT_EINVAL, "%s; refusing to append",
                     log_named(vr->message, p->log, named, sizeof(named)));
        goto fail;
    }
    if (st_v == WT_VERIFY_DAMAGED) {
        rec->damaged = 1;
        rc = wt_errf(err, WT_EINVAL,
                     "%s; refusing to append to a damaged log (see `workloadtruth verify-log`; "
                     "keep it as evidence and start a new log elsewhere)",
                     log_named(vr->message, p->log, named, sizeof(named)));
        goto fail;
    }
    /* init writes the side file with the genesis record, and it is only ever
     * replaced (rename): missing, the log may have been cut or extended by
     * someone without the key, which signing it now would launder (cut back
     * to its genesis record too: only an init's own CHECKPOINT.init shows
     * that init was interrupted there) */
    int unpublished_init = vr->side_size == 0 && init_left_it(l, p, vr);
    /* init's own log: its genesis record alone (init lets the writers' lock
     * go between linking the log and opening it, and a line appended there
     * was signed into the first checkpoint without a word) */
    unpublished_init |= vr->side_size == 0 && from_init && vr->entries == 1;
    if (vr->side_size == 0 && vr->entries >= 1 && !l->o.reseal && !unpublished_init) {
        rc = wt_errf(err, WT_EINVAL,
                     "%s: its checkpoint file %s is missing, so nothing shows whether the log "
                     "was cut or extended by someone without the key; refusing to sign it. "
                     "Check it against a copy held elsewhere (verify-log --against), then "
                     "`workloadtruth recover --reseal` signs it as it is",
                     p->log, p->checkpoint);
        goto fail;
    }
    if (vr->damage == WT_DMG_TORN_TAIL) {
        if (l->o.no_recover) {
            rc = wt_errf(err, WT_EINVAL, "%s: torn tail at offset %llu; not repairing it", p->log,
                         (unsigned long long)vr->valid_bytes);
            goto fail;
        }
        if (vr->entries == 0) { /* no genesis record left: see above */
            rec->damaged = 1;
            rc = wt_errf(err, WT_EINVAL,
                         "%s: no complete genesis record; refusing to append to a damaged log",
                         p->log);
            goto fail;
        }
        if ((rc = quarantine(p, vr->valid_bytes, rec, err)) != WT_OK)
            goto fail;
    }
    snprintf(l->origin, sizeof(l->origin), "%s", vr->origin);
    l->range = vr->range;
    l->bytes = vr->valid_bytes;
    l->published = vr->side_size;
    rec->entries = vr->entries;
    rec->resumed = vr->resumed_lines;
    rec->unsealed = vr->entries > vr->sealed ? vr->entries - vr->sealed : 0;
    if (unpublished_init)
        rec->unsealed = 0; /* the genesis record, which CHECKPOINT.init covers */
    l->fd = open(p->log, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (l->fd < 0) {
        rc = wt_errf(err, WT_EIO, "cannot open %s for appending: %s", p->log, strerror(errno));
        goto fail;
    }
    (void)fcntl(l->fd, F_SETFL, fcntl(l->fd, F_GETFL) & ~O_NONBLOCK);
    /* a log without its checkpoint file here has only its genesis record (a
     * writer killed between init and the first publish): sign that first, so
     * that a kill after the recovery record below cannot leave more than one
     * entry without a checkpoint file, which the next writer would refuse */
    if (l->published == 0 && wt_log_size(l) > 0 && rec->repaired &&
        (rc = wt_log_publish(l, err)) != WT_OK)
        goto fail;
    if (rec->repaired) {
        json_t *f = json_pack(
            "{s:I,s:I,s:s,s:s}", "dropped_bytes", (json_int_t)rec->dropped, "offset",
            (json_int_t)rec->offset, "reason", "torn-tail", "quarantine",
            strrchr(rec->quarantine, '/') ? strrchr(rec->quarantine, '/') + 1 : rec->quarantine);
        rc = f ? wt_log_append(l, WT_ENTRY_RECOVERY, f, NULL, err)
               : wt_errf(err, WT_ENOMEM, "out of memory");
        json_decref(f);
        if (rc)
            goto fail;
    }
    if (l->published != wt_log_size(l)) {
        /* only the checkpoint file's write may wait (publish_later): the log
         * itself is verified and whole, and nothing is declared sealed */
        struct wt_err perr = {{0}};
        rc = wt_log_publish(l, &perr);
        if (rc == WT_EIO && l->o.publish_later && l->published > 0) {
            snprintf(rec->publish_error, sizeof(rec->publish_error), "%s", perr.msg);
            rc = WT_OK;
        } else if (rc) {
            if (err)
                *err = perr;
            goto fail;
        }
    }
    if (l->init_checkpoint[0]) /* published now: CHECKPOINT.init.HASH has served */
        (void)unlink(l->init_checkpoint);
    if (l->published > 0)
        remove_init_checkpoints(p);
    {
        /* the state for the next open: where this verification would have
         * stopped keeping, else the prescan it took up (read without the
         * lock, up to the end), if either goes further than the state file */
        const struct wt_verify_resume *save =
            keep && keep->valid && (!from || keep->n > from->n) ? keep : from;
        if (save && save->n > state_n && vst.st_ino && !from_init)
            state_write(p, &l->key, (uint64_t)vst.st_dev, (uint64_t)vst.st_ino, save);
    }
    free(own);
    free(keep);
    free(vr);
    *out = l;
    return WT_OK;
fail:
    free(own);
    free(keep);
    free(vr);
    if (held) { /* the locks stay the writer's */
        if (locked) {
            held->lockfd = l->lockfd;
            l->lockfd = -1;
        }
        if (loglocked) {
            held->loglockfd = l->loglockfd;
            l->loglockfd = -1;
        }
    }
    wt_log_close(l);
    return rc;
}

uint64_t wt_log_size(const struct wt_log *l)
{
    return l->range.size;
}

uint64_t wt_log_published(const struct wt_log *l)
{
    return l->published;
}

int wt_log_failed(const struct wt_log *l)
{
    return l->failed;
}

void wt_log_root(const struct wt_log *l, uint8_t root[32])
{
    wt_merkle_range_root(&l->range, root);
}

int wt_log_unsynced(const struct wt_log *l, uint64_t *size, uint8_t root[32])
{
    if (!l->unsynced)
        return 0;
    *size = l->unsynced_size;
    memcpy(root, l->unsynced_root, 32);
    return 1;
}

const char *wt_log_origin(const struct wt_log *l)
{
    return l->origin;
}

void wt_log_public_key(const struct wt_log *l, struct wt_note_vkey *v)
{
    wt_note_key_public(&l->key, v);
}

int wt_log_vkey(const struct wt_log *l, char *out, size_t cap)
{
    struct wt_note_vkey v;
    wt_note_key_public(&l->key, &v);
    return wt_note_format_vkey(&v, out, cap);
}

int wt_log_append(struct wt_log *l, enum wt_entry_type type, json_t *fields, uint64_t *seq,
                  struct wt_err *err)
{
    if (l->failed)
        return wt_errf(err, WT_EIO,
                       "%s: an earlier write or fdatasync failed; the log must be reopened (and "
                       "re-verified) before more appends",
                       l->p.log);
    /* The open file must still be the log: appends to a deleted (or
     * replaced) log.jsonl would be acknowledged and lost. */
    struct stat fst, pst;
    if (fstat(l->fd, &fst) != 0 || fst.st_nlink == 0 || stat(l->p.log, &pst) != 0 ||
        pst.st_ino != fst.st_ino || pst.st_dev != fst.st_dev)
        return wt_errf(err, WT_EIO,
                       "%s: the log file was deleted or replaced while open; entry not written",
                       l->p.log);
    uint8_t root[32];
    wt_merkle_range_root(&l->range, root);
    uint64_t s = wt_log_size(l);
    char *line = NULL;
    size_t len = 0;
    int rc = wt_entry_build(s, now_ms(&l->o), type, root, fields, &line, &len, err);
    if (rc)
        return rc;
    uint8_t leaf[32];
    wt_merkle_leaf_hash(line, len, leaf);
    line[len] = '\n'; /* the whole line, newline included, in one write */
    ssize_t n;
    int tries = 0;
    do
        n = write(l->fd, line, len + 1);
    while (n < 0 && errno == EINTR && ++tries < 100);
    int werr = n < 0 ? errno : 0;
    struct sigaction xfsz;
    if (n > 0 && n < (ssize_t)(len + 1) && sigaction(SIGXFSZ, NULL, &xfsz) == 0 &&
        xfsz.sa_handler != SIG_DFL) {
        /* a short write: a second one finishes the line or says why not
         * (EFBIG past a file-size limit is not ENOSPC).  Only where SIGXFSZ
         * is ignored (the CLI does) or handled: else that write at the limit
         * would kill a program linking the library, where the short write
         * did not */
        ssize_t m = write(l->fd, line + n, len + 1 - (size_t)n);
        if (m < 0)
            werr = errno;
        else
            n += m;
    }
    if (n != (ssize_t)(len + 1)) {
        int e = werr ? werr : ENOSPC;
        /* a short write: cut the partial line off so the file stays a log */
        if (n > 0 && ftruncate(l->fd, (off_t)l->bytes) != 0) {
            l->failed = 1;
            rc = wt_errf(err, WT_EIO,
                         "%s: write of entry %llu failed after %zd of %zu bytes (%s) and the "
                         "partial line could not be cut back (%s); it will be quarantined on "
                         "reopen; entry not written",
                         l->p.log, (unsigned long long)s, n, len + 1, strerror(e), strerror(errno));
        } else {
            rc = wt_errf(err, WT_EIO, "%s: cannot write entry %llu (%s)%s; entry not written",
                         l->p.log, (unsigned long long)s, strerror(e),
                         n > 0 ? "; the partial line was cut back" : "");
        }
        free(line);
        return rc;
    }
    free(line);
    if (fdatasync(l->fd)) {
        int e = errno;
        l->failed = 1;
        /* the whole line is in the file (at least in the page cache): if a
         * reopen finds it on disk, it is there with this size and root */
        struct wt_merkle_range after = l->range;
        wt_merkle_range_append(&after, leaf);
        l->unsynced = 1;
        l->unsynced_size = after.size;
        wt_merkle_range_root(&after, l->unsynced_root);
        return wt_errf(err, WT_EIO,
                       "%s: fdatasync after entry %llu failed (%s); the entry is not "
                       "acknowledged and the log must be reopened before more appends",
                       l->p.log, (unsigned long long)s, strerror(e));
    }
    wt_merkle_range_append(&l->range, leaf);
    l->bytes += len + 1;
    if (seq)
        *seq = s;
    return WT_OK;
}

static int sign_checkpoint(struct wt_log *l, char **note, struct wt_err *err)
{
    struct wt_checkpoint cp;
    char body[WT_NOTE_NAME_MAX + 128];
    memset(&cp, 0, sizeof(cp));
    snprintf(cp.origin, sizeof(cp.origin), "%s", l->origin);
    cp.size = wt_log_size(l);
    wt_merkle_range_root(&l->range, cp.root);
    int n = wt_checkpoint_format(&cp, body, sizeof(body));
    if (n < 0)
        return wt_errf(err, WT_EINVAL, "checkpoint too long");
    return wt_note_sign(&l->key, body, (size_t)n, note, err);
}

int wt_log_publish(struct wt_log *l, struct wt_err *err)
{
    if (l->failed)
        return wt_errf(err, WT_EIO, "%s: not publishing a checkpoint after a failed write",
                       l->p.log);
    char *note = NULL;
    int rc = sign_checkpoint(l, &note, err);
    if (rc)
        return rc;
    /* checkpoint.tmp, fsync, rename, fsync of the directory: always after
     * the lines it covers were fdatasync'ed */
    rc = wt_write_file_durable(l->p.dir, l->p.checkpoint, note, strlen(note), 0644, WT_FILE_REPLACE,
                               err);
    free(note);
    if (rc)
        return rc;
    l->published = wt_log_size(l);
    return WT_OK;
}

int wt_log_seal(struct wt_log *l, struct wt_err *err)
{
    char *note = NULL;
    int rc = sign_checkpoint(l, &note, err);
    if (rc)
        return rc;
    json_t *f = json_pack("{s:s}", "note", note);
    free(note);
    if (!f)
        return wt_errf(err, WT_ENOMEM, "out of memory");
    rc = wt_log_append(l, WT_ENTRY_CHECKPOINT, f, NULL, err);
    json_decref(f);
    if (rc)
        return rc;
    return wt_log_publish(l, err);
}

void wt_log_close(struct wt_log *l)
{
    if (!l)
        return;
    if (l->fd >= 0)
        close(l->fd);
    if (l->loglockfd >= 0)
        close(l->loglockfd);
    if (l->lockfd >= 0)
        close(l->lockfd); /* releases the flock */
    wt_note_key_wipe(&l->key);
    (void)sodium_munlock(&l->key, sizeof(l->key));
    free(l);
}
