/* libFuzzer target for the audit-log record parser: arbitrary bytes as one
 * log line (without its newline).  A line the parser accepts must come back
 * byte for byte when the writer rebuilds it from the parsed values (the
 * format is canonical: one spelling per record); anything else is a bug, as
 * is any crash, leak or sanitizer report.
 *
 * build: cmake -DWT_FUZZ=ON -DCMAKE_C_COMPILER=clang ...; run: fuzz_entry -max_total_time=60
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit/entry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wt_entry e;
    struct wt_err err;
    if (wt_entry_parse((const char *)data, size, &e, &err) != WT_OK)
        return 0;
    /* the type's own keys, in order, as the writer would get them */
    json_t *fields = json_object();
    const char *k;
    json_t *v;
    int i = 0;
    json_object_foreach(e.obj, k, v)
    {
        if (i++ >= 5) /* after "v","seq","ts_ms","type","prev" */
            json_object_set(fields, k, v);
    }
    char *line = NULL;
    size_t len = 0;
    if (wt_entry_build(e.seq, e.ts_ms, e.type, e.prev, fields, &line, &len, &err) != WT_OK)
        abort(); /* a record the parser accepts must be writable */
    if (len != size || memcmp(line, data, size) != 0)
        abort(); /* and must come back byte for byte */
    (void)wt_entry_type_name(e.type);
    free(line);
    json_decref(fields);
    wt_entry_free(&e);
    return 0;
}
