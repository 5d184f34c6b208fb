#!/bin/sh
# Runs `eval` over every real trace in ../shared/traces with both classifiers
# and checks that every trace file is read (157) and windows are scored.  The
# README's numbers are checked by tests/readme_numbers.py.
#
# usage: eval_shared.sh WORKLOADTRUTH SHARED_TRACES_DIR   (exit 77 = skipped)
set -u
WT=$1
SHARED=$2
[ -d "$SHARED" ] || { echo "no $SHARED: skipped"; exit 77; }
for c in physics rules; do
    out=$("$WT" eval --traces "$SHARED" --classifier $c --window 30) || { echo "eval failed"; exit 1; }
    echo "$out" | head -4
    echo "$out" | grep -q "30-second windows, 157 trace files" || { echo "FAIL: not all 157 traces read"; exit 1; }
    echo "$out" | grep -q "^windows scored: 2156 " || { echo "FAIL: expected 2156 scored windows"; exit 1; }
done
