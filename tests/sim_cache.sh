#!/bin/sh
# WT_SIM_CACHE (src/eval/simcache.h) changes no result: `train` writes the
# same model without a cache, with an empty one (which it fills) and with a
# full one; the entry it reads is the one it wrote (an entry edited and
# re-hashed changes the model); a damaged or cut entry is not used but
# rewritten; another setting gets another entry; a directory others may
# write is not used; a cache that cannot be written is said on stderr and
# the model is still right.
# usage: sim_cache.sh WORKLOADTRUTH SHARED_TRACES_DIR PYTHON3   (exit 77 = skipped)
set -u
WT=$1
SHARED=$2
PY=$3
t="$SHARED/leo_lora/h200_4gpu_ds7bchat_pt100array_pt019_r1_7536307_11.csv"
[ -f "$t" ] || { echo "no $t: skipped"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
unset WT_SIM_CACHE
fail() { echo "FAIL: $*"; exit 1; }
train() { # OUT [options...]
    out=$1
    shift
    "$WT" train --traces "$t" --simulate 2 --python-windows 0 --out "$out" "$@" 2>"$d/err" ||
        { cat "$d/err"; fail "train $*"; }
}
entries() { ls "$d/c" | wc -l | tr -d ' '; }

train "$d/plain"
WT_SIM_CACHE="$d/c" train "$d/cold"
cmp "$d/plain" "$d/cold" || fail "a model trained while filling the cache differs"
[ "$(entries)" = 1 ] || fail "expected one cache entry, found $(entries)"
e=$(ls "$d/c"/sim-*.bin)
WT_SIM_CACHE="$d/c" train "$d/warm"
cmp "$d/plain" "$d/warm" || fail "a model trained from the cache differs"
echo "the same model without a cache, filling it and reading it"

# the entry is read: flip its first window's label and fix its SHA-256
cp "$e" "$d/good"
"$PY" - "$e" <<'EOF' || fail "cannot edit the entry"
import hashlib, struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
payload = b[80:]
nfiles, n, fsize = struct.unpack_from("=QQQ", payload, 0)
y0 = len(payload) - 4 * n - n  # the labels, then the cell indices
payload[y0] ^= 1
b[80:] = payload
b[48:80] = hashlib.sha256(bytes(payload)).digest()
open(p, "wb").write(bytes(b))
EOF
WT_SIM_CACHE="$d/c" train "$d/edited"
cmp -s "$d/plain" "$d/edited" && fail "an edited entry was not read"
echo "the entry is what train reads"

# damaged (a byte changed, the SHA-256 not fixed) or cut: simulated again, rewritten
for how in flip cut; do
    cp "$d/good" "$e"
    if [ $how = flip ]; then
        printf 'X' | dd of="$e" bs=1 seek=100 conv=notrunc 2>/dev/null
    else
        head -c 5000 "$d/good" >"$e"
    fi
    WT_SIM_CACHE="$d/c" train "$d/again"
    cmp "$d/plain" "$d/again" || fail "$how: a damaged entry changed the model"
    cmp "$e" "$d/good" || fail "$how: the damaged entry was not rewritten"
done
echo "a damaged or cut entry is not used, and is rewritten"

WT_SIM_CACHE="$d/c" train "$d/seed1" --sim-seed 1
[ "$(entries)" = 2 ] || fail "--sim-seed 1 did not get its own entry ($(entries))"
train "$d/seed1plain" --sim-seed 1
cmp "$d/seed1" "$d/seed1plain" || fail "--sim-seed 1: the cache changed the model"
echo "another setting, another entry"

# a directory others may write is not used (entries are not signed: whoever
# writes there could plant windows)
mkdir "$d/open" && chmod 0777 "$d/open"
WT_SIM_CACHE="$d/open" train "$d/open.model"
cmp "$d/plain" "$d/open.model" || fail "a cache others may write changed the model"
grep -q "WT_SIM_CACHE=$d/open not used: the directory can be written by others" "$d/err" ||
    { cat "$d/err"; fail "no refusal of a directory others may write"; }
[ -z "$(ls "$d/open")" ] || fail "an entry was written where others may write"
echo "a directory others may write is not used"

: >"$d/file"
WT_SIM_CACHE="$d/file" train "$d/nocache"
cmp "$d/plain" "$d/nocache" || fail "an unusable cache changed the model"
grep -q "WT_SIM_CACHE: .*not cached" "$d/err" || { cat "$d/err"; fail "no warning"; }
echo "a cache that cannot be written: $(cat "$d/err")"
echo "PASS"
