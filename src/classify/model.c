/* Boosted-tree model: parse, write, score (see model.h). */
#include "classify/model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "util/fileio.h"
#include "util/num.h"

#define MAX_MODEL_BYTES (4 * 1024 * 1024)
#define MAX_LINE 400

struct parser {
    const char *name;
    unsigned long lineno;
    struct wt_err *err;
    int unterminated;        /* the line is the file's last, without a newline */
    unsigned long tree_line; /* the current tree's 'tree' line */
};

static int perr(struct parser *p, const char *msg, const char *tok)
{
    return wt_errf(p->err, WT_EINVAL, "%s:%lu: %s%s%.40s%s%s", p->name, p->lineno, msg,
                   tok ? " '" : "", tok ? tok : "", tok ? "'" : "",
                   p->unterminated ? " (the last line, with no newline: the file cut short?)" : "");
}

/* Splits line (modified) into at most cap whitespace-separated tokens. */
static int tokens(char *line, char **tok, int cap)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == cap)
            return -1;
        tok[n++] = t;
    }
    return n;
}

static int num(struct parser *p, const char *s, double *out)
{
    if (wt_parse_double(s, strlen(s), out) != 0)
        return perr(p, "not a number:", s);
    return WT_OK;
}

/* base and node values are log-odds: bounded, so that no sum over the trees
 * can overflow to inf or NaN (a trained model's are below 10) */
static int logodds(struct parser *p, const char *s, double *out)
{
    int rc = num(p, s, out);
    if (rc == WT_OK && !(fabs(*out) <= WT_MODEL_MAX_VALUE))
        return perr(p, "value out of range (|log-odds| <= 1000):", s);
    return rc;
}

static int index_tok(struct parser *p, const char *s, int *out)
{
    double d;
    if (wt_parse_double(s, strlen(s), &d) != 0 || d != floor(d) || d < 0 || d >= WT_MODEL_MAX_NODES)
        return perr(p, "not a node id:", s);
    *out = (int)d;
    return WT_OK;
}

/* Every node but the root is the child of exactly one earlier node: no cycles,
 * no node reached twice, none unreachable.  An error names the node's line. */
static int check_tree(struct parser *p, const struct wt_tree *t, const unsigned long *line)
{
    unsigned char parents[WT_MODEL_MAX_NODES] = {0};
    if (t->nnodes == 0) {
        p->lineno = p->tree_line; /* its own line, not the next directive's */
        return perr(p, "a tree without nodes", NULL);
    }
    for (int i = 0; i < t->nnodes; i++) {
        const struct wt_tree_node *n = &t->node[i];
        if (n->feature < 0)
            continue;
        p->lineno = line[i];
        if (n->left <= i || n->right <= i || n->left >= t->nnodes || n->right >= t->nnodes)
            return perr(p,
                        "a tree whose node ids do not form a tree (children are later nodes "
                        "of the same tree)",
                        NULL);
        if (n->left == n->right || parents[n->left]++ || parents[n->right]++)
            return perr(p, "a tree whose node ids do not form a tree (a node reached twice)", NULL);
    }
    for (int i = 1; i < t->nnodes; i++)
        if (!parents[i]) {
            p->lineno = line[i];
            return perr(p, "a tree whose node ids do not form a tree (a node no split reaches)",
                        NULL);
        }
    return WT_OK;
}

int wt_model_parse(struct wt_model *m, const char *text, size_t len, const char *name,
                   struct wt_err *err)
{
    struct parser p = {name, 0, err, 0, 0};
    int rc = WT_OK, have_format = 0, have_base = 0, have_end = 0;
    memset(m, 0, sizeof(*m));
    if (len > MAX_MODEL_BYTES)
        return wt_errf(err, WT_EINVAL, "%s: larger than %d bytes", name, MAX_MODEL_BYTES);
    size_t pos = 0;
    struct wt_tree *cur = NULL;
    unsigned long line_of[WT_MODEL_MAX_NODES] = {0}; /* the current tree's node lines */
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (text + pos)) : len - pos;
        char line[MAX_LINE + 1];
        p.lineno++;
        if (l > MAX_LINE)
            return perr(&p, "line too long", NULL);
        memcpy(line, text + pos, l);
        line[l] = '\0';
        pos += l + (nl ? 1 : 0);
        p.unterminated = !nl;
        if (memchr(line, '\0', l)) {
            p.unterminated = 0; /* a NUL is no sign of a file cut short */
            return perr(&p, "contains a NUL byte", NULL);
        }
        /* a UTF-8 byte-order mark an editor put first: "line 1: the first
         * directive must be 'format ...'" about a line that showed exactly
         * that */
        if (p.lineno == 1 && l >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
            memmove(line, line + 3, l - 2);
            l -= 3;
        }
        /* CRLF line ends, as trace files may have; every trailing CR, or a
         * meta text ending in one would lose it at each write and read */
        while (l && line[l - 1] == '\r')
            line[--l] = '\0';
        /* "meta TEXT", the word and the text apart by a space or a tab */
        int is_meta = !strncmp(line, "meta", 4) && (!line[4] || line[4] == ' ' || line[4] == '\t');
        if (have_end && is_meta)
            return perr(&p, "a directive after 'end':", "meta");
        if (is_meta) {
            /* free text, kept verbatim (up to the field's size) */
            if (!have_format)
                return perr(&p, "the first directive must be 'format workloadtruth-model/1'", NULL);
            if (m->nmeta < WT_MODEL_MAX_META)
                snprintf(m->meta[m->nmeta++], sizeof(m->meta[0]), "%.199s",
                         line[4] ? line + 5 : "");
            continue;
        }
        char *tok[16];
        int n = tokens(line, tok, 16);
        if (n < 0)
            return perr(&p, "too many fields", NULL);
        if (n == 0 || tok[0][0] == '#')
            continue;
        if (have_end)
            return perr(&p, "a directive after 'end':", tok[0]);
        if (!strcmp(tok[0], "format")) {
            if (n != 2 || strcmp(tok[1], "workloadtruth-model/1"))
                return perr(&p, "unsupported format (want workloadtruth-model/1)", NULL);
            have_format = 1;
        } else if (!have_format) {
            return perr(&p, "the first directive must be 'format workloadtruth-model/1'", NULL);
        } else if (!strcmp(tok[0], "base")) {
            if (n != 2 || have_base)
                return perr(&p, "'base' takes one number, once", NULL);
            if ((rc = logodds(&p, tok[1], &m->base)) != WT_OK)
                return rc;
            have_base = 1;
        } else if (!strcmp(tok[0], "end")) {
            /* the last line: a file cut short between two trees is refused */
            double d;
            if (n != 2 || wt_parse_double(tok[1], strlen(tok[1]), &d) != 0 || d != floor(d) ||
                d < 0 || d > WT_MODEL_MAX_TREES)
                return perr(&p, "'end' takes the number of trees", NULL);
            if ((int)d != m->ntrees) {
                char what[96];
                snprintf(what, sizeof(what), "'end %d' after %d tree%s (trees lost?)", (int)d,
                         m->ntrees, m->ntrees == 1 ? "" : "s");
                return perr(&p, what, NULL);
            }
            have_end = 1;
        } else if (!strcmp(tok[0], "tree")) {
            if (n != 1)
                return perr(&p, "'tree' takes no arguments", NULL);
            unsigned long here = p.lineno;
            if (cur && (rc = check_tree(&p, cur, line_of)) != WT_OK)
                return rc;
            p.lineno = here;
            if (m->ntrees == WT_MODEL_MAX_TREES)
                return perr(&p, "too many trees", NULL);
            cur = &m->tree[m->ntrees++];
            p.tree_line = here;
        } else if (!strcmp(tok[0], "node")) {
            if (!cur)
                return perr(&p, "'node' before 'tree'", NULL);
            int id;
            if (n < 4 || (rc = index_tok(&p, tok[1], &id)) != WT_OK)
                return n < 4 ? perr(&p, "'node' needs: ID VALUE leaf|split ...", NULL) : rc;
            if (id != cur->nnodes)
                return perr(&p, "node ids must be 0, 1, 2, ... in order:", tok[1]);
            struct wt_tree_node *nd = &cur->node[cur->nnodes];
            if ((rc = logodds(&p, tok[2], &nd->value)) != WT_OK)
                return rc;
            if (!strcmp(tok[3], "leaf") && n == 4) {
                nd->feature = -1;
            } else if (!strcmp(tok[3], "split") && n == 9) {
                nd->feature = wt_feature_lookup(tok[4]);
                if (nd->feature < 0)
                    return perr(&p, "unknown feature", tok[4]);
                if ((rc = num(&p, tok[5], &nd->threshold)) != WT_OK)
                    return rc;
                if (!strcmp(tok[6], "left"))
                    nd->missing_left = 1;
                else if (!strcmp(tok[6], "stop"))
                    nd->missing_left = WT_MISSING_STOP;
                else if (strcmp(tok[6], "right"))
                    return perr(&p, "missing side must be left, right or stop:", tok[6]);
                if ((rc = index_tok(&p, tok[7], &nd->left)) != WT_OK ||
                    (rc = index_tok(&p, tok[8], &nd->right)) != WT_OK)
                    return rc;
            } else {
                return perr(&p,
                            "'node ID VALUE leaf' or 'node ID VALUE split FEATURE "
                            "THRESHOLD left|right|stop LEFT RIGHT'",
                            NULL);
            }
            line_of[cur->nnodes++] = p.lineno;
        } else {
            return perr(&p, "unknown directive", tok[0]);
        }
    }
    /* a file cut short is said as such, before its last tree is found
     * unfinished ("node ids do not form a tree") */
    p.unterminated = 0;
    if (!have_format || !have_base)
        return wt_errf(err, WT_EINVAL, "%s: not a model (needs 'format' and 'base')", name);
    if (!have_end)
        return wt_errf(err, WT_EINVAL,
                       "%s: ends without its 'end N' line after %d tree%s: cut short? "
                       "(train writes it)",
                       name, m->ntrees, m->ntrees == 1 ? "" : "s");
    if (cur && (rc = check_tree(&p, cur, line_of)) != WT_OK)
        return rc;
    return WT_OK;
}

int wt_model_load(struct wt_model *m, const char *path, struct wt_err *err)
{
    const char *why = "";
    FILE *f = wt_fopen_regular(path, &why); /* a directory is refused, with why */
    if (!f)
        return wt_errf(err, WT_EIO, "cannot open '%s': %s", path, why);
    char *buf = malloc(MAX_MODEL_BYTES + 1);
    if (!buf) {
        fclose(f);
        return wt_errf(err, WT_ENOMEM, "out of memory");
    }
    size_t n = fread(buf, 1, MAX_MODEL_BYTES + 1, f);
    int bad = ferror(f);
    fclose(f);
    int rc;
    if (bad)
        rc = wt_errf(err, WT_EIO, "cannot read '%s'", path);
    else
        rc = wt_model_parse(m, buf, n, path, err);
    if (rc == WT_OK) {
        unsigned char h[crypto_hash_sha256_BYTES];
        crypto_hash_sha256(h, (const unsigned char *)buf, n);
        sodium_bin2hex(m->file_id, sizeof(m->file_id), h, 8);
    }
    free(buf);
    return rc;
}

/* The shortest %g form (at least 6 significant digits) that reads back as v:
 * what train stores is rounded to 6 digits, a threshold may need more. */
static const char *exact(char buf[32], double v)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

int wt_model_write(const struct wt_model *m, FILE *f)
{
    char a[32], b[32];
    fprintf(f, "format workloadtruth-model/1\n");
    for (int i = 0; i < m->nmeta; i++) {
        /* one line each: a control character (a newline in a source folder's
         * name) would make a file that does not read back */
        fputs("meta ", f);
        for (const char *c = m->meta[i]; *c; c++)
            fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, f);
        fputc('\n', f);
    }
    fprintf(f, "base %s\n", exact(a, m->base));
    for (int t = 0; t < m->ntrees; t++) {
        const struct wt_tree *tr = &m->tree[t];
        fprintf(f, "tree\n");
        for (int i = 0; i < tr->nnodes; i++) {
            const struct wt_tree_node *n = &tr->node[i];
            if (n->feature < 0)
                fprintf(f, "node %d %s leaf\n", i, exact(a, n->value));
            else
                fprintf(f, "node %d %s split %s %s %s %d %d\n", i, exact(a, n->value),
                        wt_feature_name(n->feature), exact(b, n->threshold),
                        n->missing_left == WT_MISSING_STOP ? "stop"
                        : n->missing_left                  ? "left"
                                                           : "right",
                        n->left, n->right);
        }
    }
    fprintf(f, "end %d\n", m->ntrees);
    return ferror(f) ? -1 : 0;
}

double wt_model_score(const struct wt_model *m, const struct wt_features *x,
                      double credit[WT_NFEATURES])
{
    double s = m->base;
    if (credit)
        for (int i = 0; i < WT_NFEATURES; i++)
            credit[i] = 0;
    for (int t = 0; t < m->ntrees; t++) {
        const struct wt_tree *tr = &m->tree[t];
        int i = 0;
        s += tr->node[0].value;
        while (tr->node[i].feature >= 0) {
            const struct wt_tree_node *n = &tr->node[i];
            double v = x->v[n->feature];
            if (isnan(v) && n->missing_left == WT_MISSING_STOP)
                break; /* not measured: no evidence either way */
            int left = isnan(v) ? n->missing_left : v <= n->threshold;
            int next = left ? n->left : n->right;
            double delta = tr->node[next].value - n->value;
            s += delta;
            if (credit)
                credit[n->feature] += delta;
            i = next;
        }
    }
    return s;
}
