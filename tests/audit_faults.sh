#!/bin/sh
# The audit log's writer under I/O faults (spec §11.5-6):
#   (a) a full disk: a 16 KiB tmpfs (needs root; skipped otherwise);
#   (b) libfiu's fiu-run making fdatasync, write and fsync fail, always and
#       at random (skipped, exit 77, without fiu-run, or in an ASan build that
#       cannot run under its LD_PRELOAD).
# Each time the writer must report the error (exit 1 and a message), every
# record it acknowledged must be in the log with the right content, and the
# log must verify (after reopening it, which may recover a torn tail).
#
# usage: audit_faults.sh AUDIT_WRITER
# SPDX-License-Identifier: MIT
set -u
W=${1:?usage: audit_faults.sh AUDIT_WRITER}
T=$(mktemp -d "${TMPDIR:-/tmp}/wt_faults_XXXXXX") || exit 1
MNT=""
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# check_acked DIR ACKS RUN: every seq in ACKS (record k of run RUN) is a class
# record carrying the evidence {"run":RUN,"n":k}.
check_acked() {
    k=0
    while read -r s; do
        n=$(grep "^{\"v\":1,\"seq\":$s," "$1/log.jsonl" | grep -cF "\"evidence\":{\"run\":$3,\"n\":$k}")
        [ "$n" = 1 ] || fail "$1: acknowledged seq $s (run $3, record $k) is missing or different"
        k=$((k + 1))
    done <"$2"
    acked=$((acked + k))
}

# verify DIR: the log verifies (0, or 3: ok with warnings such as unsealed entries)
verify() {
    out=$("$W" --verify "$1") && return 0
    rc=$?
    [ $rc = 3 ] && return 0
    echo "$out" >&2
    fail "$1 does not verify (status $rc)"
}

acked=0

# ---- (a) a full disk ---------------------------------------------------------
mkdir "$T/mnt"
if mount -t tmpfs -o size=16k tmpfs "$T/mnt" 2>/dev/null; then
    MNT="$T/mnt"
    d="$MNT/log"
    # seal never: only the log grows, so the disk fills up under an append
    WT_WRITER_RUN=1 "$W" "$d" 0 0 >"$T/acks.full" 2>"$T/err.full"
    rc=$?
    [ $rc = 1 ] || fail "full disk: the writer exited $rc, expected 1"
    grep -q "No space left on device" "$T/err.full" || fail "full disk: no ENOSPC error: $(cat "$T/err.full")"
    [ -s "$T/acks.full" ] || fail "full disk: nothing was acknowledged"
    tail -c 1 "$d/log.jsonl" | od -An -c | grep -q '\\n' || fail "full disk: a partial line was left"
    check_acked "$d" "$T/acks.full" 1
    verify "$d"
    echo "full disk: $(wc -l <"$T/acks.full") records acknowledged, then: $(cat "$T/err.full")"
    # the disk is still full: reopening must fail cleanly or succeed, never damage
    "$W" --recover "$d" 2>"$T/err.full2" || grep -q "audit_writer:" "$T/err.full2" ||
        fail "full disk: reopen failed without a message"
    verify "$d"
    check_acked "$d" "$T/acks.full" 1
    umount "$MNT" || fail "cannot unmount $MNT"
    MNT=""
else
    echo "SKIP full disk: cannot mount a tmpfs here (not root?)"
fi

# ---- (b) fiu-run ----------------------------------------------------------
if ! command -v fiu-run >/dev/null 2>&1; then
    echo "SKIP fault injection: fiu-run is not installed (Debian: fiu-utils)"
    exit 77
fi
# run_fiu CMD ARGS...: the writer under fiu-run, failure point command CMD
ASANLIB=""
run_fiu() {
    cmd=$1
    shift
    if [ -n "$ASANLIB" ]; then
        # ASan's runtime must come first: before fiu-run's preload libraries
        # shellcheck disable=SC2016 # expanded by the inner sh
        fiu-run -x -f "" -c "$cmd" sh -c 'LD_PRELOAD="$0 $LD_PRELOAD" exec "$@"' "$ASANLIB" "$W" "$@"
    else
        fiu-run -x -f "" -c "$cmd" "$W" "$@"
    fi
}
if [ "$("$W" --sanitizer)" = asan ]; then
    # fiu-run preloads its libraries (LD_PRELOAD), which ASan refuses or
    # crashes on unless its own (shared) runtime is preloaded first; libfiu
    # also leaks a string at startup
    ASANLIB=$(ldd "$W" 2>/dev/null | awk '/libasan/ { print $3; exit }')
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
    export ASAN_OPTIONS
    if [ "$(run_fiu "enable name=posix/io/sync/fdatasync" --sanitizer 2>/dev/null)" != asan ]; then
        echo "SKIP fault injection: fiu-run's LD_PRELOAD does not work with this ASan build"
        exit 77
    fi
fi

run=10
# fault NAME MODE COUNT ROUNDS: ROUNDS writer runs of COUNT records each under
# fiu-run (MODE "always" or a probability); checks every run's report and
# acknowledgements, then reopens and verifies without faults.
fault() {
    name=$1 mode=$2 count=$3 rounds=$4
    d="$T/$(echo "$name-$mode" | tr '/.' '__')"
    WT_WRITER_RUN=$run "$W" "$d" 3 >"$T/acks.$run" 2>"$T/err.$run" || fail "cannot create $d: $(cat "$T/err.$run")"
    check_acked "$d" "$T/acks.$run" $run
    if [ "$mode" = always ]; then
        cmd="enable name=$name"
    else
        cmd="enable_random name=$name,probability=$mode"
    fi
    failures=0
    i=0
    while [ $i -lt "$rounds" ]; do
        run=$((run + 1))
        WT_WRITER_RUN=$run run_fiu "$cmd" "$d" "$count" 3 >"$T/acks.$run" 2>"$T/err.$run"
        rc=$?
        case $rc in
        0) ;;
        1)
            failures=$((failures + 1))
            grep -q "^audit_writer: " "$T/err.$run" || fail "$name: exit 1 without an error message"
            ;;
        *) fail "$name ($mode): the writer exited $rc: $(cat "$T/err.$run")" ;;
        esac
        check_acked "$d" "$T/acks.$run" $run
        i=$((i + 1))
    done
    [ $failures -gt 0 ] || fail "$name ($mode): no run saw a fault; is fiu-run working?"
    if [ "$mode" = always ]; then
        [ -s "$T/acks.$run" ] && fail "$name always fails, yet records were acknowledged"
    fi
    "$W" --recover "$d" 2>"$T/err.recover" || fail "$name: reopening failed: $(cat "$T/err.recover")"
    verify "$d"
    # everything acknowledged in every round is still there after recovery
    r=$((run - rounds))
    while [ $r -le $run ]; do
        check_acked "$d" "$T/acks.$r" $r
        r=$((r + 1))
    done
    echo "$name ($mode): $rounds runs, $failures failed with: $(sed -n 1p "$T/err.$run" | cut -c1-160)"
    run=$((run + 10))
}

fault posix/io/sync/fdatasync always 10 2
fault posix/io/sync/fdatasync 0.3 30 6
fault posix/io/rw/write always 10 2
fault posix/io/rw/write 0.3 30 6
fault posix/io/sync/fsync 0.3 30 6
echo "audit_faults: ok ($acked acknowledged records checked)"
exit 0
