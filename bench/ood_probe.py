#!/usr/bin/env python3
"""Would "unfamiliar window -> UNKNOWN" catch the held-out errors? (docs/evaluation.md item 24)

A probe, not part of the tool: for each source held out, the distance of each of its
active windows (TRAINING or INFERENCE truth) to the nearest training window of the
fold (the other sources, the simulator's and the Python profiles' windows), in the
shipped model's ten features, each mapped to its quantile among the fold's training
windows (a feature not measured: -1).  If wrong windows were farther than right ones,
a distance threshold could turn confident errors into UNKNOWN.  Prints, per source and
pooled, the median distance of wrong and right windows and the AUROC of the distance
as a detector of wrong windows (0.5: no better than chance).

usage (python3-numpy):
  workloadtruth train --traces ../shared/traces --out /tmp/m --dump-features train.csv
  workloadtruth eval --traces ../shared/traces --holdout source --dump-features loso.csv
  python3 bench/ood_probe.py train.csv loso.csv
"""
import csv
import sys

import numpy as np

FEATURES = ["power_acf_peak", "square_wave", "on_len_s", "peer_sync", "spin_frac",
            "mem_slope_frac_per_min", "energy_per_active_s_norm", "burst_rate_per_min",
            "memutil_ratio", "active_acf_peak"]


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    src = np.array([r["source"] for r in rows])
    truth = np.array([r["truth"] for r in rows])
    pred = np.array([r.get("predicted", "") for r in rows])
    x = np.array([[float(r[c]) if r[c] not in ("", "nan", "NaN") else np.nan for c in FEATURES]
                  for r in rows])
    return src, truth, pred, x


def quantiles(x, ref):
    out = np.empty_like(x)
    for j in range(x.shape[1]):
        r = np.sort(ref[:, j][~np.isnan(ref[:, j])])
        q = np.searchsorted(r, x[:, j]) / max(len(r), 1)
        out[:, j] = np.where(np.isnan(x[:, j]), -1.0, q)
    return out


def nearest(a, b):
    d = np.empty(len(a))
    for i in range(0, len(a), 256):
        chunk = a[i:i + 256]
        d[i:i + 256] = np.sqrt(((chunk[:, None, :] - b[None, :, :]) ** 2).sum(-1)).min(1)
    return d


def auroc(score, positive):
    pos, neg = score[positive], score[~positive]
    if not len(pos) or not len(neg):
        return float("nan")
    allv = np.concatenate([pos, neg])
    ranks = allv.argsort().argsort() + 1.0
    return (ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def main():
    tsrc, _, _, tx = load(sys.argv[1])
    esrc, etruth, epred, ex = load(sys.argv[2])
    all_d, all_wrong = [], []
    for s in sorted(set(esrc)):
        keep = (esrc == s) & (etruth != "IDLE")
        if not keep.any():
            continue
        ref = tx[tsrc != s]
        d = nearest(quantiles(ex[keep], ref), quantiles(ref, ref))
        wrong = epred[keep] != etruth[keep]
        all_d.append(d)
        all_wrong.append(wrong)
        med = lambda v: float(np.median(v)) if len(v) else float("nan")
        print("%-18s windows %4d wrong %4d  median distance wrong %.3f right %.3f  AUROC %.2f"
              % (s, keep.sum(), wrong.sum(), med(d[wrong]), med(d[~wrong]), auroc(d, wrong)))
    d, wrong = np.concatenate(all_d), np.concatenate(all_wrong)
    print("%-18s windows %4d wrong %4d  AUROC %.2f" % ("pooled", len(d), wrong.sum(), auroc(d, wrong)))


if __name__ == "__main__":
    main()
