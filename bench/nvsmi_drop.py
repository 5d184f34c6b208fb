#!/usr/bin/python3
"""Measures how `record` places the rows of an nvidia-smi CSV without an index
column when rows are missing (docs/trace-format.md, "GPU of each row").

Each multi-GPU trace given is rewritten as such a CSV (timestamp, power.draw,
utilization.gpu; the rows in the trace's order), then 20 rows at random are
dropped (`once`), or the last GPU's rows from halfway on (`lost-last`), or
none (`none`); `workloadtruth record` reads it back, and the rows it puts on
another GPU than the trace's are counted (a row is found again by its time).

usage: bench/nvsmi_drop.py WORKLOADTRUTH TRACE.csv... [--seed N]
"""
import datetime
import os
import random
import subprocess
import sys
import tempfile


def rewrite(src, out, mode, rnd):
    rows = [l.rstrip("\n").split(",") for l in open(src) if not l.startswith("#")]
    hdr, rows = rows[0], rows[1:]
    ti, gi, pi, ui = (hdr.index(c) for c in ("t_s", "gpu", "power_w", "util_gpu_pct"))
    ngpu = max(int(r[gi]) for r in rows) + 1
    tmax = float(rows[-1][ti])
    drop = set(rnd.sample(range(400, len(rows)), 20)) if mode == "once" else set()
    lost = ngpu - 1 if mode == "lost-last" else -1
    base = datetime.datetime(2024, 4, 10, 9, 0, 0)
    truth = {}
    t0 = None
    with open(out, "w") as f:
        f.write("timestamp, power.draw [W], utilization.gpu [%]\n")
        for i, r in enumerate(rows):
            if i in drop or r[pi] == "" or (int(r[gi]) == lost and float(r[ti]) > tmax / 2):
                continue
            ts = base + datetime.timedelta(seconds=float(r[ti]))
            f.write("%s.%03d, %s W, %s %%\n" % (ts.strftime("%Y/%m/%d %H:%M:%S"),
                                              ts.microsecond // 1000, r[pi], r[ui] or "0"))
            t0 = float(r[ti]) if t0 is None else t0
            truth[round(float(r[ti]) - t0, 3)] = int(r[gi])
    return truth


def main():
    args = sys.argv[1:]
    seed = 1
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    wt, traces = args[0], args[1:]
    with tempfile.TemporaryDirectory() as d:
        for tr in traces:
            for mode in ("none", "once", "lost-last"):
                csv, out = os.path.join(d, "in.csv"), os.path.join(d, "out.csv")
                truth = rewrite(tr, csv, mode, random.Random(seed))
                subprocess.run([wt, "record", "--trace", csv, "--out", out], check=True,
                               stderr=subprocess.DEVNULL)
                got = [l.split(",") for l in open(out) if not l.startswith("#")][1:]
                wrong = sum(truth.get(round(float(r[0]), 3), -1) != int(r[1]) for r in got)
                print("%s %-9s rows %6d  on another GPU %6d" % (os.path.basename(tr), mode,
                                                             len(got), wrong))


main()
