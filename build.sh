#!/bin/sh
# WorkloadTruth set-up on a fresh Debian 12 machine: the README's two commands.
#
#   ./build.sh run    install missing Debian packages, build, run a classification
#   ./build.sh test   install missing Debian packages, build, run every test
#                     (unit, CLI, real traces, benchmark smoke, fuzzing)
#   ./build.sh asan   the whole test suite again under ASan + UBSan (CI's second build)
#
# Environment: WT_FUZZ_SECONDS (default 60) sets the fuzzing time of `test` (2/5
# for the trace reader, the rest shared by the 19 other targets: the MCP
# JSON-RPC layer, the MCP HTTP and stdio transports, the MCP bearer token
# file, the Prometheus exporter, the option parser, the
# five audit-log targets (entry, note, proof, verifier, witness), the model
# file, the policy file, the feature extractor, the process-owner reader, the
# HTML report, the log's open and repair, the simulator windows' cache entries
# and the Slurm plugin's parsers);
# JOBS sets build parallelism.  Packages are installed with apt-get (through
# sudo when not root); `test` also fetches the pinned npm packages of tests/mcp
# and tests/deploy from the npm registry (npm ci); nothing else is downloaded.
set -eu
cd "$(dirname "$0")"
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SHARED_TRACES=${WT_SHARED_TRACES:-$(pwd)/../shared/traces}

need_packages() {
    missing=""
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing="$missing $p"
        fi
    done
    [ -z "$missing" ] && return 0
    echo "installing Debian packages:$missing"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "need root (or sudo) to install:$missing" >&2; exit 1; }
        SUDO=sudo
    fi
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
}

BUILD_PKGS="gcc make cmake pkg-config libc6-dev libjansson-dev libsodium-dev libmicrohttpd-dev"
TEST_PKGS="libcmocka-dev clang libclang-rt-14-dev python3 fiu-utils curl prometheus chromium fonts-dejavu-core
    munge slurmctld slurmd slurm-client libslurm-dev strace clang-format-14"
# npm runs the MCP client and conformance tests (tests/mcp): Debian's, unless
# one is already on the PATH
npm_pkg() { command -v npm >/dev/null 2>&1 || echo npm; }

configure_build() { # DIR [cmake args...]
    dir=$1
    shift
    cmake -S . -B "$dir" -DWT_SHARED_TRACES="$SHARED_TRACES" "$@" >/dev/null
    cmake --build "$dir" -j "$JOBS"
}

fuzz() {
    secs=${WT_FUZZ_SECONDS:-60}
    CC=clang configure_build build-fuzz -DWT_FUZZ=ON -DWT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug
    mkdir -p build-fuzz/corpus
    # the trace reader gets 2/5 of the time; the five audit-log targets, the
    # MCP JSON-RPC layer, the MCP HTTP and stdio transports, the MCP bearer
    # token file, the Prometheus exporter, the option parser, the model file,
    # the policy file, the feature extractor and the process-owner reader,
    # the HTML report, the log's open and repair, the simulator windows' cache
    # entries and the Slurm plugin's parsers (where <slurm/spank.h> is
    # installed) share the rest
    tsecs=$((secs * 2 / 5)); [ "$tsecs" -ge 1 ] || tsecs=1
    asecs=$((secs * 3 / 5 / 19)); [ "$asecs" -ge 1 ] || asecs=1 # the 19 other targets
    run_fuzzer trace "$tsecs" build-fuzz/corpus fuzz/corpus
    for t in mcp mcp_http mcp_stdio token exporter opts model policy features procinfo report logopen \
        simcache spank; do
        if [ "$t" = spank ] && [ ! -x build-fuzz/fuzz_spank ]; then
            echo "fuzz_spank not built (no <slurm/spank.h>): skipped"
            continue
        fi
        mkdir -p "build-fuzz/corpus_$t"
        run_fuzzer "$t" "$asecs" "build-fuzz/corpus_$t" "fuzz/corpus_$t"
    done
    for t in entry note proof verify witness; do
        mkdir -p "build-fuzz/corpus_audit_$t"
        run_fuzzer "$t" "$asecs" "build-fuzz/corpus_audit_$t" "fuzz/corpus_audit_$t"
    done
}

# run_fuzzer NAME SECONDS CORPUS...: fails the build on a crash, keeping the reproducer
run_fuzzer() {
    name=$1
    s=$2
    shift 2
    echo "fuzzing $name for ${s}s"
    if ! "build-fuzz/fuzz_$name" -max_total_time="$s" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix=build-fuzz/ "$@" >"build-fuzz/fuzz_$name.log" 2>&1; then
        tail -n 40 "build-fuzz/fuzz_$name.log"
        echo "fuzz_$name failed; the reproducer is in build-fuzz/ (crash-*, leak-*, timeout-*)" >&2
        exit 1
    fi
    tail -n 12 "build-fuzz/fuzz_$name.log"
}

case "${1:-}" in
run)
    need_packages $BUILD_PKGS
    configure_build build -DWT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release
    echo "== workloadtruth classify --backend synthetic --profile training"
    build/workloadtruth classify --backend synthetic --profile training
    if [ -d "$SHARED_TRACES" ]; then
        t="$SHARED_TRACES/training_profile/h100_8gpu_llama3-8b_ckpt100.csv"
        echo "== workloadtruth classify --trace $t --samples 300 --start 100"
        build/workloadtruth classify --trace "$t" --samples 300 --start 100
    fi
    ;;
test)
    need_packages $BUILD_PKGS $TEST_PKGS $(npm_pkg)
    configure_build build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo
    (cd build-test && ctest --output-on-failure -j "$JOBS")
    fuzz
    ;;
asan)
    need_packages $BUILD_PKGS $TEST_PKGS $(npm_pkg)
    configure_build build-asan -DWT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
    (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j "$JOBS")
    ;;
*)
    echo "usage: ./build.sh run|test|asan" >&2
    exit 2
    ;;
esac
