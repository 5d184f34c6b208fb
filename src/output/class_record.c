/* The audit log's `class` record: the fields of one classified window
 * (GPU, class, confidence in ppm, model, evidence: sample span, source,
 * reasons, tamper indicators and the classifier's exposed features as short
 * strings), as `watch` and the MCP server's classify_workload append them.
 * It builds the fields; appending them is audit/log.c's job.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "output/output.h"
#include "util/text.h"

static void ev_num(json_t *ev, const char *key, double v)
{
    if (!isfinite(v) || json_object_size(ev) >= 60)
        return;
    char buf[40];
    snprintf(buf, sizeof(buf), "%.6g", v);
    json_object_set_new(ev, key, json_string(buf));
}

static void ev_str(json_t *ev, const char *key, const char *s)
{
    if (json_object_size(ev) >= 64)
        return;
    /* at most 256 bytes, not cut inside a UTF-8 sequence, no control bytes */
    char buf[257];
    size_t n = strnlen(s, 256);
    n = wt_utf8_cut(s, n);
    memcpy(buf, s, n);
    buf[n] = '\0';
    json_object_set_new(ev, key, json_string(wt_text_clean(buf)));
}

json_t *wt_json_class_record(const struct wt_result *r, const struct wt_device_info *info,
                             const char *source, size_t n, double t_first, double t_last,
                             const struct wt_classifier *clf, const char *model_id)
{
    char gpu[128], cls[16], model[128];
    size_t slen = strlen(source);
    if (info->uuid[0]) {
        snprintf(gpu, sizeof(gpu), "%.120s", info->uuid);
    } else if (slen <= 96) {
        snprintf(gpu, sizeof(gpu), "%s:%d", source, info->index);
    } else {
        /* a long trace name: its first 96 bytes and a hash of the whole, so
         * two names that differ past the cut are two GPUs (cut at 60 bytes,
         * two job traces named alike up to there were read as one GPU); 96 +
         * 1 + 16 + ":-2147483648" fit the log's 128 bytes */
        unsigned char h[crypto_hash_sha256_BYTES];
        char hex[2 * crypto_hash_sha256_BYTES + 1];
        crypto_hash_sha256(h, (const unsigned char *)source, slen);
        sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
        snprintf(gpu, sizeof(gpu), "%.*s~%.16s:%d", (int)wt_utf8_cut(source, 96), source, hex,
                 info->index);
    }
    wt_text_clean(gpu); /* a file name may hold any bytes */
    snprintf(cls, sizeof(cls), "%s", wt_class_lname(r->cls));
    snprintf(model, sizeof(model), "%s/workloadtruth-%s%s%s", clf->name, WT_VERSION,
             model_id[0] ? "/model-sha256:" : "", model_id);
    double c = r->confidence;
    long ppm = isnan(c) ? 0 : lround(c * 1e6);
    if (ppm < 0)
        ppm = 0;
    if (ppm > 1000000)
        ppm = 1000000;
    json_t *ev = json_object();
    json_object_set_new(ev, "samples", json_integer((json_int_t)n));
    if (n && !isnan(t_first) && fabs(t_first) < 9e12)
        json_object_set_new(ev, "t_first_ms", json_integer((json_int_t)llround(t_first * 1e3)));
    if (n && !isnan(t_last) && fabs(t_last) < 9e12)
        json_object_set_new(ev, "t_last_ms", json_integer((json_int_t)llround(t_last * 1e3)));
    ev_str(ev, "source", source);
    if (info->name[0])
        ev_str(ev, "gpu_model", info->name);
    for (size_t i = 0; i < r->nreasons && i < 6; i++) {
        char k[32];
        snprintf(k, sizeof(k), "reason_%zu", i + 1);
        ev_str(ev, k, r->reasons[i].text);
    }
    for (size_t i = 0; i < r->ntamper; i++) {
        char k[32];
        snprintf(k, sizeof(k), "tamper_%zu", i + 1);
        ev_str(ev, k, r->tamper[i]);
    }
    for (size_t i = 0; i < clf->nexposed; i++)
        ev_num(ev, wt_feature_name(clf->exposed[i]), r->features.v[clf->exposed[i]]);
    return json_pack("{s:s,s:i,s:s,s:I,s:s,s:o}", "gpu", gpu, "gpu_idx", info->index, "class", cls,
                     "conf_ppm", (json_int_t)ppm, "model", model, "evidence", ev);
}
