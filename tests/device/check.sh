#!/bin/sh
# Checks the nvml backend on a real NVIDIA GPU (run it on a GPU host; CI has
# none).  Builds the project, runs `gpus`, records 60 s idle and 60 s under a
# PyTorch matrix-multiply load on GPU 0, and checks the values are plausible:
# utilization idle vs loaded, power within the enforced limit, the energy
# counter increasing, the achieved sample rate.  It never changes the GPU's
# settings.  Output goes to $OUT (default ./device-check).
#
# usage: tests/device/check.sh [SECONDS]      (default 60 per phase)
set -eu
cd "$(dirname "$0")/../.."
SECS=${1:-60}
OUT=${OUT:-./device-check}
mkdir -p "$OUT"
cmake -S . -B build-device -DWT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-device -j "$(nproc)" >/dev/null
WT=build-device/workloadtruth
nvidia-smi --query-gpu=index,name,driver_version,power.limit --format=csv >"$OUT/nvidia-smi.txt" 2>&1 || true
$WT gpus | tee "$OUT/gpus.txt"
$WT gpus --json >"$OUT/gpus.json"

echo "== idle, $SECS s"
$WT record --backend nvml --out "$OUT/idle.csv" --duration "$SECS" --interval 1 --gpus 0 \
    --label IDLE --workload "idle (device check)" 2>"$OUT/idle.log"
cat "$OUT/idle.log"

echo "== PyTorch matrix multiply on GPU 0, $SECS s"
cat >"$OUT/load.py" <<'PY'
import sys, time, torch
end = time.time() + float(sys.argv[1])
a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
while time.time() < end:
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
PY
python3 "$OUT/load.py" "$((SECS + 5))" &
load=$!
sleep 3
$WT record --backend nvml --out "$OUT/load.csv" --duration "$SECS" --interval 1 --gpus 0 \
    --label TRAINING --workload "PyTorch fp16 8192x8192 matmul loop (device check)" 2>"$OUT/load.log"
cat "$OUT/load.log"
wait $load || true

echo "== checks"
python3 - "$OUT/idle.csv" "$OUT/load.csv" <<'PY' | tee "$OUT/checks.txt"
import sys
def load(p):
    rows = [l.rstrip("\n").split(",") for l in open(p) if not l.startswith("#")]
    return [dict(zip(rows[0], r)) for r in rows[1:]]
def col(rows, c):
    return [float(r[c]) for r in rows if r.get(c, "") not in ("",)]
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and cond
for name in ("idle", "load"):
    rows = load(sys.argv[1] if name == "idle" else sys.argv[2])
    t = col(rows, "t_s"); u = col(rows, "util_gpu_pct"); p = col(rows, "power_w")
    lim = col(rows, "power_limit_w"); e = col(rows, "energy_j")
    rate = (len(t) - 1) / (t[-1] - t[0]) if len(t) > 1 and t[-1] > t[0] else 0
    print("%s: %d samples, %.2f samples/s, util mean %.1f%%, power mean %.1f W (limit %s W), energy +%.0f J"
          % (name, len(t), rate, sum(u) / max(len(u), 1), sum(p) / max(len(p), 1),
             lim[0] if lim else "?", (e[-1] - e[0]) if len(e) > 1 else float("nan")))
    check(len(t) > 10, name + ": samples recorded")
    check(rate >= 0.9, name + ": at least the poll rate achieved")
    check(all(0 <= x <= 100 for x in u), name + ": utilization within 0..100")
    check(not lim or all(x <= lim[0] * 1.1 for x in p), name + ": power within the enforced limit (+10%)")
    check(len(e) < 2 or e[-1] > e[0], name + ": energy counter increasing")
    if name == "idle":
        idle_u = sum(u) / max(len(u), 1)
    else:
        check(sum(u) / max(len(u), 1) > max(50, idle_u + 20), "load: utilization well above idle")
sys.exit(0 if ok else 1)
PY
$WT classify --trace "$OUT/load.csv" --samples 30 | tee "$OUT/classify-load.txt"
