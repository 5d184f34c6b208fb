/* Owners cells of a trace (see owners.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "telemetry/owners.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/hash.h"

/* Distinct cells, looked up by an open-addressing hash of their text: ids
 * are 1-based indices into text[]. */
struct wt_owners {
    char **text;
    size_t n, cap;
    uint32_t *slot; /* nslot entries: 0 empty, else an id */
    size_t nslot;
    size_t bytes;
};

struct wt_owners *wt_owners_new(void)
{
    return calloc(1, sizeof(struct wt_owners));
}

void wt_owners_free(struct wt_owners *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->text[i]);
    free(t->text);
    free(t->slot);
    free(t);
}

static uint64_t hash(const char *p, size_t len)
{
    return wt_fnv1a(WT_FNV1A_INIT, p, len);
}

static int name_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_.:@+=-/", c));
}

static int why_f(char *why, size_t cap, const char *fmt, ...) WT_PRINTF(3, 4);
static int why_f(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* A cell's shape: "-", or names joined by ';', each of name_byte()s, not
 * "-" (which means none, and only as the whole cell), and with no empty part
 * between the '/' that join one process's owners. */
static int check_cell(const char *p, size_t len, char *why, size_t cap)
{
    if (len > WT_OWNERS_CELL_MAX)
        return why_f(why, cap, "%zu bytes, more than an owners cell holds (%d)", len,
                     WT_OWNERS_CELL_MAX);
    if (len == 1 && p[0] == '-')
        return 0;
    size_t names = 0;
    for (size_t at = 0; at <= len;) {
        size_t end = at;
        while (end < len && p[end] != ';')
            end++;
        if (++names > WT_OWNERS_MAX_NAMES)
            return why_f(why, cap, "more than %d owners", WT_OWNERS_MAX_NAMES);
        if (end == at)
            return why_f(why, cap, "owner %zu is empty (owners are joined by ';')", names);
        if (end - at == 1 && p[at] == '-')
            return why_f(why, cap, "owner %zu is '-', which means none and stands alone", names);
        for (size_t i = at; i < end; i++) {
            unsigned char c = (unsigned char)p[i];
            if (!name_byte(c))
                return why_f(why, cap,
                             "byte %zu (0x%02x) is not in an owner name (letters, digits, _ . : "
                             "@ + = - /; owners joined by ';'; '-' for none)",
                             i + 1, c);
            if (c == '/' && (i == at || i + 1 == end || p[i + 1] == '/'))
                return why_f(why, cap, "owner %zu has an empty part (parts are joined by '/')",
                             names);
        }
        at = end + 1;
    }
    return 0;
}

static int grow(struct wt_owners *t)
{
    size_t nslot = t->nslot ? t->nslot * 2 : 64;
    uint32_t *slot = calloc(nslot, sizeof(*slot));
    if (!slot)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t k = hash(t->text[i], strlen(t->text[i])) & (nslot - 1);
        while (slot[k])
            k = (k + 1) & (nslot - 1);
        slot[k] = (uint32_t)(i + 1);
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return 0;
}

int wt_owners_intern(struct wt_owners *t, const char *cell, size_t len, uint32_t *id, char *why,
                     size_t cap)
{
    *id = WT_OWNERS_UNKNOWN;
    if (len == 0)
        return 0;
    if (check_cell(cell, len, why, cap))
        return -1;
    size_t k = 0;
    if (t->nslot) {
        k = hash(cell, len) & (t->nslot - 1);
        for (; t->slot[k]; k = (k + 1) & (t->nslot - 1)) {
            const char *s = t->text[t->slot[k] - 1];
            if (strlen(s) == len && !memcmp(s, cell, len)) {
                *id = t->slot[k];
                return 0;
            }
        }
    }
    if (t->n >= WT_OWNERS_MAX_SETS) {
        why_f(why, cap, "more than %d distinct owner sets in one trace", WT_OWNERS_MAX_SETS);
        return -2;
    }
    if (t->bytes + len > WT_OWNERS_MAX_BYTES) {
        why_f(why, cap, "more than %d bytes of distinct owner sets in one trace",
              WT_OWNERS_MAX_BYTES);
        return -2;
    }
    if (t->n == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 16;
        char **nt = realloc(t->text, ncap * sizeof(*nt));
        if (!nt)
            return why_f(why, cap, "out of memory");
        t->text = nt;
        t->cap = ncap;
    }
    char *s = malloc(len + 1);
    if (!s)
        return why_f(why, cap, "out of memory");
    memcpy(s, cell, len);
    s[len] = '\0';
    t->text[t->n++] = s;
    t->bytes += len;
    /* at most half full */
    if (2 * t->n > t->nslot) {
        if (grow(t)) {
            free(t->text[--t->n]);
            t->bytes -= len;
            return why_f(why, cap, "out of memory");
        }
    } else {
        t->slot[k] = (uint32_t)t->n;
    }
    *id = (uint32_t)t->n;
    return 0;
}

const char *wt_owners_text(const struct wt_owners *t, uint32_t id)
{
    return t && id && id <= t->n ? t->text[id - 1] : "";
}

int wt_owners_same_job(const struct wt_owners *t, uint32_t g, uint32_t h)
{
    const char *gs = wt_owners_text(t, g), *hs = wt_owners_text(t, h);
    if (!*gs || !strcmp(gs, "-") || !*hs)
        return 1;
    size_t ml = strcspn(gs, ";"); /* g's main owner */
    for (const char *p = hs;;) {
        size_t l = strcspn(p, ";");
        if (l == ml && !memcmp(p, gs, ml))
            return 1;
        if (!p[l])
            return 0;
        p += l + 1;
    }
}

static size_t put_part(char *buf, size_t cap, size_t at, const char *tag, const char *v)
{
    if (!v[0])
        return at;
    if (at && at + 1 < cap)
        buf[at++] = '/';
    for (const char *p = tag; *p && at + 1 < cap; p++)
        buf[at++] = *p;
    for (const char *p = v; *p && at + 1 < cap; p++)
        buf[at++] = name_byte((unsigned char)*p) && *p != '/' ? *p : '_';
    buf[at] = '\0';
    return at;
}

size_t wt_owners_name(const struct wt_proc *p, char *buf, size_t cap)
{
    size_t at = 0;
    if (!cap)
        return 0;
    buf[0] = '\0';
    if (p->slurm_job_from_cgroup)
        at = put_part(buf, cap, at, "slurm:", p->slurm_job_id);
    at = put_part(buf, cap, at, "pod:", p->pod_uid);
    at = put_part(buf, cap, at, "container:", p->container_id);
    return at;
}

size_t wt_owners_cell(const struct wt_proc *procs, size_t n, char *buf, size_t cap)
{
    /* the main owner: the process using the most GPU memory (the first of
     * equals) among those with a name */
    char name[256];
    size_t main = n;
    double main_mib = -2;
    for (size_t i = 0; i < n; i++) {
        if (!wt_owners_name(&procs[i], name, sizeof(name)))
            continue;
        double mib = isnan(procs[i].used_mib) ? -1 : procs[i].used_mib;
        if (mib > main_mib) {
            main_mib = mib;
            main = i;
        }
    }
    if (main == n) {
        snprintf(buf, cap, "-");
        return strlen(buf);
    }
    size_t at = 0, names = 0;
    buf[0] = '\0';
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n && names < WT_OWNERS_MAX_NAMES; i++) {
            if (pass == 0 ? i != main : i == main)
                continue;
            size_t l = wt_owners_name(&procs[i], name, sizeof(name));
            if (!l)
                continue;
            /* already in the cell? */
            int dup = 0;
            for (const char *p = buf; *p && !dup;) {
                size_t k = strcspn(p, ";");
                dup = k == l && !memcmp(p, name, l);
                p += k + (p[k] == ';');
            }
            if (dup || at + (at ? 1 : 0) + l + 1 > cap)
                continue;
            if (at)
                buf[at++] = ';';
            memcpy(buf + at, name, l);
            at += l;
            buf[at] = '\0';
            names++;
        }
    return at;
}
