#!/bin/sh
# Runs `eval` over every real trace in ../shared/traces with the rule
# classifier and checks that (1) every trace file is read (157), (2) windows
# are scored, and (3) the README reports exactly the accuracy this command
# measures, so the documented number cannot drift from the code.
#
# usage: eval_shared.sh WORKLOADTRUTH SHARED_TRACES_DIR   (exit 77 = skipped)
set -u
WT=$1
SHARED=$2
README=$(dirname "$0")/../README.md
[ -d "$SHARED" ] || { echo "no $SHARED: skipped"; exit 77; }
out=$("$WT" eval --traces "$SHARED" --classifier rules --window 30) || { echo "eval failed"; exit 1; }
echo "$out"
echo "$out" | grep -q "30-second windows, 157 trace files" || { echo "FAIL: not all 157 traces read"; exit 1; }
acc=$(echo "$out" | sed -n 's/^accuracy: *\([0-9.]*%\).*/\1/p')
[ -n "$acc" ] || { echo "FAIL: no accuracy line"; exit 1; }
grep -q "rule classifier.*$acc" "$README" || { echo "FAIL: README does not report the measured rule accuracy $acc"; exit 1; }
for cls in TRAINING INFERENCE IDLE; do
    c=$(echo "$out" | sed -n "s/^  $cls *\([0-9.]*%\).*/\1/p")
    grep -q "| $cls | $c |" "$README" || { echo "FAIL: README lacks '| $cls | $c |'"; exit 1; }
done
echo "README matches the measured accuracy ($acc)"
