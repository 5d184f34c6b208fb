/* Error message formatting (see err.h). */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/text.h"

int wt_errf(struct wt_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
        wt_text_clean(err->msg); /* one line, whatever the input echoed in it */
    }
    return code;
}

void wt_err_prefix(struct wt_err *err, const char *prefix)
{
    char tmp[sizeof(err->msg)];
    if (!err || !prefix)
        return;
    size_t p = strlen(prefix);
    if (p + 2 >= sizeof(tmp))
        return;
    memcpy(tmp, prefix, p);
    tmp[p] = ':';
    tmp[p + 1] = ' ';
    size_t rest = sizeof(tmp) - p - 3;
    size_t m = strnlen(err->msg, rest);
    memcpy(tmp + p + 2, err->msg, m);
    tmp[p + 2 + m] = '\0';
    memcpy(err->msg, tmp, sizeof(tmp));
    wt_text_clean(err->msg);
}
