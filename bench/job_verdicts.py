#!/usr/bin/env python3
"""Job-level verdicts of honest jobs: each labelled trace against its own label.

A probe, not part of the tool: for every trace of ../shared/traces (MANIFEST.csv) with
TRAINING or INFERENCE rows and at least two whole 30-second windows, runs
`workloadtruth classify --trace FILE --samples <30 s of samples> --windows <whole
30-s windows> --declared <its majority label>` on GPU 0 and counts the verdicts.  An
honest job should not be a MISMATCH; before 2026-12-07 its IDLE windows (checkpoint
saves, start-up) counted against the declaration and 49 of 124 were (README, docs/cli.md
"Job level").  In-sample: the shipped model was trained on these traces.

usage: python3 bench/job_verdicts.py WORKLOADTRUTH [TRACES_DIR]
"""
import collections
import csv
import subprocess
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    wt = sys.argv[1]
    traces = sys.argv[2] if len(sys.argv) == 3 else "../shared/traces"
    counts = collections.Counter()
    with open(traces + "/MANIFEST.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        labels = dict(x.split(":") for x in r["label_counts"].split(";") if x)
        tr, inf = int(labels.get("TRAINING", 0)), int(labels.get("INFERENCE", 0))
        if tr == 0 and inf == 0:
            continue
        label = "training" if tr >= inf else "inference"
        samples = max(5, round(30 / float(r["sample_period_s"])))
        windows = int(float(r["duration_s"]) // 30)
        if windows < 2:
            continue
        p = subprocess.run([wt, "classify", "--trace", traces + "/" + r["file"], "--samples",
                            str(samples), "--windows", str(windows), "--declared", label],
                           capture_output=True, text=True)
        verdict = [l.split(":", 1)[1].strip() for l in p.stdout.splitlines()
                   if l.startswith("verdict")]
        counts[(label, verdict[0] if verdict else "exit %d" % p.returncode)] += 1
    for (label, verdict), n in sorted(counts.items()):
        print("declared %-9s %-12s %d" % (label, verdict, n))
    print("traces: %d, MISMATCH: %d" % (sum(counts.values()),
                                         sum(n for (_, v), n in counts.items() if v == "MISMATCH")))


if __name__ == "__main__":
    main()
