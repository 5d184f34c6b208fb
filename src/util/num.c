/* Strict number parsing (see num.h). */
#include "util/num.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int wt_parse_double(const char *s, size_t len, double *out)
{
    char small[64];
    size_t i = 0;
    int digits = 0;
    if (len == 0)
        return -1;
    /* Validate the shape ourselves: strtod also takes nan, inf, hex floats
     * and leading spaces, none of which belong in a trace cell. */
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (i < len && isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && isdigit((unsigned char)s[i])) {
            i++;
            digits++;
        }
    }
    if (!digits)
        return -1;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        int edigits = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        while (i < len && isdigit((unsigned char)s[i])) {
            i++;
            edigits++;
        }
        if (!edigits)
            return -1;
    }
    if (i != len)
        return -1;
    /* A long but well-formed decimal (many leading zeros or digits) is still
     * a number: the callers bound its length (a trace line, an argument). */
    char *buf = len < sizeof(small) ? small : malloc(len + 1);
    if (!buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    if (!isfinite(v))
        return -2; /* well formed, too large for a double */
    *out = v;
    return 0;
}

int wt_parse_u64(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    int base = 10;
    if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    }
    if (i == len)
        return -1;
    for (; i < len; i++) {
        int d;
        char c = s[i];
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return -1;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *out = v;
    return 0;
}

double wt_round(double x, int digits)
{
    if (!isfinite(x))
        return x;
    double p = pow(10.0, digits);
    double r = round(x * p) / p;
    if (!isfinite(r))
        return x; /* |x| near DBL_MAX: x * p overflowed, and x has no decimals to round */
    return r == 0.0 ? 0.0 : r; /* no "-0.0" in output */
}

double wt_nan(void)
{
    return NAN;
}
