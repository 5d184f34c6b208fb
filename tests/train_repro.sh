#!/bin/sh
# `workloadtruth train` must reproduce the shipped model byte for byte from
# the documented command.
# usage: train_repro.sh WORKLOADTRUTH SHARED_TRACES_DIR MODEL   (exit 77 = skipped)
set -u
WT=$1
SHARED=$2
MODEL=$3
[ -d "$SHARED" ] || { echo "no $SHARED: skipped"; exit 77; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# the documented command, with the path to the traces as the build sees them
"$WT" train --traces "$SHARED" --out "$tmp" || exit 1
if ! cmp "$tmp" "$MODEL"; then
    diff "$tmp" "$MODEL" | head -20
    echo "FAIL: train does not reproduce $MODEL"
    exit 1
fi
echo "train reproduces $MODEL"
