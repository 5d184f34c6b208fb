#!/bin/sh
# The HTML report rendered by headless Chromium.  Makes an audit log with
# `watch` (two GPUs of a replayed multi-GPU trace; the same GPUs again with GPU
# 0 under an enforced power cap, which the classifier reports as a tamper
# indicator; a synthetic inference GPU; and, where `watch` has --declared,
# declared types that the observations contradict), renders it with
# `workloadtruth report`, takes a screenshot and checks that the PNG is not
# blank: it decodes it (zlib, no PIL) and wants many distinct colours, no
# colour covering nearly everything, and the status badge's and the class
# bands' colours.  Then the same for a copy of the log with one line edited,
# whose page must say DAMAGED (and show the red badge).
#
# usage: report_screenshot.sh WORKLOADTRUTH_BIN OUT_DIR [TRACES_DIR]
#   TRACES_DIR: the shared real traces (default: ../shared/traces beside the
#   repository); without them a small trace of tests/data is replayed.
# Writes OUT_DIR/report.html, OUT_DIR/report.png (the picture in README.md:
# docs/img/report.png), OUT_DIR/damaged.html and OUT_DIR/damaged.png.
# Exit status: 0 passed, 1 failed, 77 skipped (no chromium, or no python3).
set -eu

CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROMIUM" ]; then
    echo "no chromium (Debian: apt-get install chromium): skipped"
    exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "no python3: skipped"
    exit 77
fi

W=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
TRACES=${3:-$HERE/../../shared/traces}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

rm -rf "$OUT"
mkdir -p "$OUT"
LOG=$OUT/log
TRACE=$OUT/node7.csv
SRC=$TRACES/training_profile/titanx_2gpu_2025-12-05-02-37-06.csv
WINDOW=300 # 30 s at 10 Hz: the physics classifier says UNKNOWN under 5 s
if [ ! -f "$SRC" ]; then
    SRC=$HERE/data/fake_gpu.csv
    WINDOW=10
fi

# the trace as is, or with GPU 0 capped to 60 % of its default power limit
# (the power clipped at the cap): the log's GPU names come from the trace's
# file name, so both runs write to the same two GPUs
make_trace() { # CAP(0|1)
    python3 - "$SRC" "$TRACE" "$1" <<'EOF'
import sys
src, dst, cap = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
out, hdr = [], None
for line in open(src):
    if line.startswith("#"):
        out.append(line)
        continue
    f = line.rstrip("\n").split(",")
    if hdr is None:
        hdr = f
        add = [c for c in ("power_limit_w", "power_default_limit_w") if c not in hdr]
        hdr = hdr + add
        out.append(",".join(hdr) + "\n")
        continue
    f += [""] * (len(hdr) - len(f))
    row = dict(zip(hdr, f))
    default = float(row["power_default_limit_w"] or 250)
    row["power_default_limit_w"] = "%g" % default
    row["power_limit_w"] = "%g" % default
    if cap and row["gpu"] == "0":
        limit = 0.6 * default
        row["power_limit_w"] = "%g" % limit
        if row.get("power_w") and float(row["power_w"]) > limit:
            row["power_w"] = "%.2f" % limit
    out.append(",".join(row[c] for c in hdr) + "\n")
open(dst, "w").writelines(out)
EOF
}

D1='' D2='' D3=''
if "$W" watch --help 2>/dev/null | grep -q -- '--declared'; then
    D1="--declared training" D2="--declared inference" D3="--declared training"
fi

make_trace 0
# shellcheck disable=SC2086
"$W" watch --trace "$TRACE" --gpus all --window $WINDOW $D1 --log-dir "$LOG" \
    >"$OUT/watch1.out" 2>&1 || fail "watch (run 1): $(tail -3 "$OUT/watch1.out")"
make_trace 1
# shellcheck disable=SC2086
"$W" watch --trace "$TRACE" --gpus all --window $WINDOW $D2 --log-dir "$LOG" \
    >"$OUT/watch2.out" 2>&1 || fail "watch (run 2): $(tail -3 "$OUT/watch2.out")"
# shellcheck disable=SC2086
"$W" watch --backend synthetic --profile inference --iterations 20 --interval 0 $D3 \
    --log-dir "$LOG" >"$OUT/watch3.out" 2>&1 || fail "watch (run 3): $(tail -3 "$OUT/watch3.out")"

"$W" report --log-dir "$LOG" --out "$OUT/report.html" --title "GPU node7: audit report" \
    >"$OUT/report.out" 2>&1 || fail "report: $(cat "$OUT/report.out")"
grep -q '^wrote .*: log verified' "$OUT/report.out" || fail "report: $(cat "$OUT/report.out")"
grep -q 'Log verified' "$OUT/report.html" || fail "report.html does not say the log is verified"
if grep -q -i -E '<script|https?:|src="' "$OUT/report.html"; then
    fail "report.html is not self-contained"
fi

# a copy of the log with its 5th line edited (a class record's confidence)
cp -r "$LOG" "$OUT/log-damaged"
python3 - "$OUT/log-damaged/log.jsonl" <<'EOF'
import re, sys
p = sys.argv[1]
lines = open(p, encoding="utf-8").read().split("\n")
new = re.sub(r'"conf_ppm":(\d+)',
             lambda m: '"conf_ppm":%d' % (500000 if m.group(1) == "1000000" else 1000000),
             lines[4], count=1)
assert new != lines[4], "line 5 is not a class record"
lines[4] = new
open(p, "w", encoding="utf-8").write("\n".join(lines))
EOF
rc=0
"$W" report --log-dir "$OUT/log-damaged" --out "$OUT/damaged.html" >"$OUT/damaged.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "report of the damaged log: exit $rc, expected 1: $(cat "$OUT/damaged.out")"
grep -q 'Log DAMAGED' "$OUT/damaged.html" || fail "damaged.html does not say DAMAGED"
grep -q 'First bad line: <b>5</b>' "$OUT/damaged.html" || fail "damaged.html does not name line 5"

shot() { # NAME
    rm -rf "$OUT/profile"
    TO=
    if command -v timeout >/dev/null 2>&1; then TO="timeout 120"; fi
    # shellcheck disable=SC2086
    $TO "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --user-data-dir="$OUT/profile" --window-size=1280,1600 \
        --screenshot="$OUT/$1.png" "file://$OUT/$1.html" >"$OUT/$1.chromium.log" 2>&1 ||
        fail "chromium on $1.html: $(tail -5 "$OUT/$1.chromium.log")"
    [ -s "$OUT/$1.png" ] || fail "chromium wrote no $1.png: $(tail -5 "$OUT/$1.chromium.log")"
}

# PNG -> pixels (8-bit RGB/RGBA, non-interlaced, as Chromium writes them),
# then: distinct colours, the most common colour's share, and pixels near
# each wanted colour (#rrggbb=minimum count)
check_png() { # FILE WANT...
    python3 - "$@" <<'EOF'
import struct, sys, zlib
path, wants = sys.argv[1], sys.argv[2:]
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, hdr = 8, [], None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat.append(body)
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = hdr
assert depth == 8 and ctype in (2, 6) and not interlace, "unexpected PNG format %r" % (hdr,)
bpp = 4 if ctype == 6 else 3
raw = zlib.decompress(b"".join(idat))
stride = w * bpp
prev = bytearray(stride)
counts = {}
for y in range(h):
    ft = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if ft == 1:
        for i in range(bpp, stride):
            line[i] = (line[i] + line[i - bpp]) & 255
    elif ft == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif ft == 3:
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
    elif ft == 4:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + pr) & 255
    if y % 2 == 0:  # every other row is plenty for the counts
        for x in range(0, stride, bpp):
            px = bytes(line[x:x + 3])
            counts[px] = counts.get(px, 0) + 1
    prev = line
total = sum(counts.values())
top = max(counts.values())
print("%s: %dx%d, %d distinct colours, the commonest covers %.1f%%"
      % (path, w, h, len(counts), 100.0 * top / total))
bad = []
if len(counts) < 200:
    bad.append("only %d distinct colours" % len(counts))
if top > 0.97 * total:
    bad.append("one colour covers %.1f%% of the page" % (100.0 * top / total))
for want in wants:  # "#rrggbb=N", or "#rrggbb|#rrggbb=N": pixels near any of them
    hexc, need = want.split("=")
    near = 0
    for one in hexc.split("|"):
        r, g, b = (int(one[i:i + 2], 16) for i in (1, 3, 5))
        near += sum(c for px, c in counts.items()
                    if abs(px[0] - r) + abs(px[1] - g) + abs(px[2] - b) <= 12)
    print("  %s: %d pixels (want %s)" % (hexc, near, need))
    if near < int(need):
        bad.append("colour %s: %d pixels, want %s" % (hexc, near, need))
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
EOF
}

shot report
shot damaged
# the green badge, the training and inference bands; the red badge
check_png "$OUT/report.png" '#2b8a3e=300' '#4263eb|#0ca678=2000' || fail "report.png"
check_png "$OUT/damaged.png" '#e03131=300' || fail "damaged.png"
echo "ok: $OUT/report.png, $OUT/damaged.png"
