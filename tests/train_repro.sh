#!/bin/sh
# `workloadtruth train` must reproduce the shipped model byte for byte from
# the documented command, and also from the sources named in another order
# with a copy of a trace under another name added (read once).  The first run
# simulates the simulator's windows (into an empty WT_SIM_CACHE, so the run
# that fills it is checked too); the second reads them back from it, and
# must give the shipped model again.
# usage: train_repro.sh WORKLOADTRUTH SHARED_TRACES_DIR MODEL   (exit 77 = skipped)
set -u
WT=$1
SHARED=$2
MODEL=$3
[ -d "$SHARED" ] || { echo "no $SHARED: skipped"; exit 77; }
tmp=$(mktemp)
d=$(mktemp -d)
trap 'rm -rf "$tmp" "$d"' EXIT
export WT_SIM_CACHE="$d/sim-cache" # empty: the first run simulates (from scratch)
# the documented command, with the path to the traces as the build sees them
"$WT" train --traces "$SHARED" --out "$tmp" || exit 1
if ! cmp "$tmp" "$MODEL"; then
    diff "$tmp" "$MODEL" | head -20
    echo "FAIL: train does not reproduce $MODEL"
    exit 1
fi
echo "train reproduces $MODEL"
[ -n "$(ls "$d/sim-cache" 2>/dev/null)" ] || { echo "FAIL: the simulator's windows were not cached"; exit 1; }
# the same sources, named in reverse order, plus a copy of one trace
set --
for src in "$SHARED"/*/; do set -- "$src" "$@"; done
first=$(find "$SHARED" -name '*.csv' ! -name MANIFEST.csv | sort | head -n 1)
cp "$first" "$d/copy.csv"
"$WT" train --traces "$@" "$d/copy.csv" --out "$tmp" 2>"$d/err" || { cat "$d/err"; exit 1; }
grep -q "a copy of .*, read once: $d/copy.csv" "$d/err" || { cat "$d/err"; echo "FAIL: copy not named"; exit 1; }
if ! cmp "$tmp" "$MODEL"; then
    diff "$tmp" "$MODEL" | head -20
    echo "FAIL: the order of --traces, or a copy, changes the model"
    exit 1
fi
echo "the order of --traces and a copy of a trace do not change it (the simulator's windows read from WT_SIM_CACHE)"
