#!/bin/sh
# End-to-end tests of the audit-log commands: init, watch (synthetic and
# replay, --log-dir and --log-file, --json, SIGTERM and SIGKILL mid-run, a
# second writer), verify-log (text, JSON, exit codes, --vkey, --against),
# prove / verify-proof, consistency / witness (including a fork below the
# witnessed size), recover.
#
# usage: audit_cli_test.sh WORKLOADTRUTH TESTDATA_DIR [asan|plain [AUDIT_WRITER]]
# (AUDIT_WRITER, tests/audit_writer.c, forges proofs a key holder could sign)
set -u
. "$(dirname "$0")/wait.sh"
WT=$1
DATA=$2
AW=${4:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
n=0

run() {
    name=$1; want=$2; shift 2
    n=$((n + 1))
    "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL [$name]: exit $rc, wanted $want: $*"
        sed 's/^/    stdout: /' "$TMP/out" | head -5
        sed 's/^/    stderr: /' "$TMP/err" | head -5
        fails=$((fails + 1))
        return 1
    fi
    return 0
}
has() {
    if ! grep -qF -- "$2" "$TMP/$1"; then
        echo "FAIL [$name]: $1 lacks '$2'"
        sed 's/^/    got: /' "$TMP/$1" | head -8
        fails=$((fails + 1))
    fi
}
# oneline : stderr is exactly one line and stdout is empty
oneline() {
    lines=$(wc -l <"$TMP/err")
    if [ "$lines" != 1 ] || [ -s "$TMP/out" ]; then
        echo "FAIL [$name]: wanted a one-line error, got $lines lines"
        fails=$((fails + 1))
    fi
}
check() { # NAME CONDITION-COMMAND...
    name=$1; shift
    n=$((n + 1))
    if ! "$@"; then
        echo "FAIL [$name]: $*"
        fails=$((fails + 1))
    fi
}

L=$TMP/log
# --- init -------------------------------------------------------------
run init 0 "$WT" init --log-dir "$L" --origin test.example/log1 && has out "verifier key"
VKEY=$(tail -1 "$TMP/out")
check "key mode 0600" test "$(stat -c %a "$L/log.key")" = 600
run "init twice" 1 "$WT" init --log-dir "$L" && has err "already exists"
# a verifier key that cannot be printed goes to standard error: the log exists
# now and init never makes it again
if [ -w /dev/full ]; then
    run "init to /dev/full" 1 sh -c 'exec "$@" >/dev/full' sh "$WT" init --log-dir "$TMP/initfull" &&
        has err "but cannot write to standard output" && has err "its verifier key" &&
        check "init to /dev/full: the key on standard error" grep -q "+[0-9a-f]\{8\}+" "$TMP/err"
fi
run "init both" 2 "$WT" init --log-dir "$L" --log-file "$TMP/x.jsonl"
# the default origin names the node the DaemonSet passes as NODE_NAME (the
# host name in a pod is the pod's, gone with it), else the host name
run "origin from NODE_NAME" 0 env NODE_NAME=gpu-node-7 "$WT" init --log-dir "$TMP/nodename" && has out "workloadtruth.gpu-node-7/"
run "origin without NODE_NAME" 0 env -u NODE_NAME "$WT" init --log-dir "$TMP/hostname" && has out "workloadtruth.$(hostname | tr -c 'A-Za-z0-9.\n-' '-' | cut -c1-60)"
# several inits of one log at once: one makes it, the others say it exists
# (they also said "cannot create log.key: File exists", like an I/O fault,
# or "in use"); ten rounds of four
n=$((n + 1))
bad=
for round in 1 2 3 4 5 6 7 8 9 10; do
    rm -rf "$TMP/race"
    for j in 1 2 3 4; do
        ("$WT" init --log-dir "$TMP/race" --origin race.example/x >/dev/null 2>"$TMP/race$j.err"
            echo $? >"$TMP/race$j.rc") &
    done
    wait
    wins=$(cat "$TMP"/race?.rc | grep -c '^0$')
    other=$(cat "$TMP"/race?.err | grep -v 'already exists' | grep -cv 'note: kept the existing key')
    [ "$wins" = 1 ] && [ "$other" = 0 ] || bad="round $round: $wins made it; $(cat "$TMP"/race?.err | grep -v 'already exists' | head -1)"
done
if [ -n "$bad" ]; then
    echo "FAIL [init race]: $bad"
    fails=$((fails + 1))
fi

# --- watch (synthetic) -> verify-log ----------------------------------
run "watch synthetic" 0 "$WT" watch --backend synthetic --interval 0 --iterations 5 --log-dir "$L"
has out "GPU 0: TRAINING"
run "verify" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" && has out "OK: log.jsonl: 8 entries"
run "verify json" 0 "$WT" verify-log --log-dir "$L" --json
has out '"valid": true'
has out '"entries": 8'
has out '"status": "ok"'
check "class records" test "$(grep -c '"type":"class"' "$L/log.jsonl")" = 5
check "ends sealed" sh -c "tail -1 '$L/log.jsonl' | grep -q '\"type\":\"checkpoint\"'"
run "watch json" 0 "$WT" watch --backend synthetic --profile inference --interval 0 --iterations 2 --json --log-dir "$L"
check "watch json lines" test "$(grep -c '^{"workload_type":"INFERENCE"' "$TMP/out")" = 2
run "verify again" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY"

# --- replay, all GPUs, --log-file -------------------------------------
F=$TMP/audit.jsonl
run "watch replay" 0 "$WT" watch --trace "$DATA/fake_gpu.csv" --gpus all --window 20 --log-file "$F"
has err "created audit log"
check "replay: 2 GPUs x 6 windows" test "$(grep -c '"type":"class"' "$F")" = 12
check "side files" test -f "$F.key" -a -f "$F.checkpoint"
run "verify replay" 0 "$WT" verify-log --log-file "$F" --json && has out '"valid": true'
run "watch gpu-index" 0 "$WT" watch --trace "$DATA/fake_gpu.csv" --gpu-index 1 --window 20 --iterations 2 --log-file "$F"

# standard input is watched as it arrives (it was read to the end first, so a
# live pipe logged nothing): windows are logged before the input closes.
# timeout --foreground where it stops the program: without it, timeout follows
# its signal with SIGCONT to the process group, which can cancel the SIGSTOP of
# LeakSanitizer's exit-time scan (the ASan build) and leave it spinning forever
run "watch stdin live" 124 sh -c "(cat '$DATA/fake_gpu.csv'; sleep 10) | timeout --foreground 8 '$WT' watch --trace - --window 20 --log-dir '$TMP/lstdin'"
check "stdin: windows logged while the pipe is open" test "$(grep -c '"type":"class"' "$TMP/lstdin/log.jsonl")" -ge 1
run "watch stdin --gpus" 2 "$WT" watch --trace - --gpus all --log-dir "$TMP/lstdin2"
# the rows of a GPU not watched are not kept while the watched one is
# awaited: a stream of GPU 0 only, --gpu-index 1, held 1.1 GB after 6 s
cat >"$TMP/gen.sh" <<'GEN'
printf '# format: workloadtruth-trace/1\n# gpu_model: NVIDIA A100-SXM4-40GB\n# power_semantics: instant\nt_s,gpu,util_gpu_pct,power_w\n'
exec awk 'BEGIN { for (i = 0; ; i++) printf "%.1f,0,50,200\n", i / 10 }'
GEN
run "watch stdin, GPU never sent" 1 sh -c "sh '$TMP/gen.sh' | /usr/bin/time -f 'maxrss %M' -o '$TMP/rss' timeout --foreground --preserve-status -s TERM 4 '$WT' watch --trace - --gpu-index 1 --window 20 --log-dir '$TMP/lstdin3'" &&
    has err "<stdin>: stopped before a row of GPU 1 arrived (GPUs so far: 0)"
check "GPU never sent: memory bounded (under 100 MB)" test "$(awk '/^maxrss/ { print $2 }' "$TMP/rss")" -lt 100000
# a stop before the first row: said as such (it said "the trace has no data rows")
run "watch stdin, stopped before a row" 1 sh -c "(head -5 '$DATA/fake_gpu.csv'; sleep 6) | timeout --foreground --preserve-status -s TERM 3 '$WT' watch --trace - --window 20 --log-dir '$TMP/lstdin4'" &&
    has err "<stdin>: stopped before a data row arrived"
# a named pipe is read to its end to count its GPUs: a stop during that read
# cut the count short and was reported as a usage error (exit 2, "--gpu-index
# 0: the source has 0 GPUs"), which a service does not restart after
mkfifo "$TMP/wfifo1"
(head -5 "$DATA/fake_gpu.csv"; sleep 6) >"$TMP/wfifo1" &
run "watch fifo, stopped while counting" 1 timeout --foreground --preserve-status -s TERM 3 "$WT" watch --trace "$TMP/wfifo1" --window 20 --log-dir "$TMP/lfifo1" &&
    has err "stopped while it was read to count its GPUs, before any window: nothing logged"
check "fifo stopped while counting: no log made" test ! -e "$TMP/lfifo1/log.jsonl"
wait
# a stop while another agent's init is awaited (its key, young, without its
# log yet) ends the wait: it had been ignored for up to a minute, then exit 1
"$WT" init --log-dir "$TMP/lwait" >/dev/null 2>&1 && rm "$TMP/lwait/log.jsonl" "$TMP/lwait/log.jsonl.checkpoint" 2>/dev/null
touch "$TMP/lwait/log.key"
t0=$(date +%s)
run "watch, stopped while an init is awaited" 0 timeout --foreground --preserve-status -s TERM 1 "$WT" watch --backend synthetic --interval 0 --log-dir "$TMP/lwait" &&
    has err "stopped while waiting for $TMP/lwait/log.jsonl to be created: nothing logged"
check "stopped while an init is awaited: within seconds ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -le 5
# --pace and the synthetic pacing are both floors: --pace 1 had cut a round
# of 10 x 0.5 s to 1 s
t0=$(date +%s)
run "watch --pace below the synthetic round" 0 "$WT" watch --backend synthetic --interval 0.5 --window 10 --pace 1 --iterations 2 --log-dir "$TMP/lpace"
check "--pace below the round: the round's 5 s ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -ge 4
# a replayed trace's pace is kept between its windows, not after the last:
# 2 windows at --pace 2 take 2 s (the round that found the trace ended
# waited 2 s more first)
t0=$(date +%s)
run "watch --pace: 2 windows of a trace" 0 "$WT" watch --trace "$DATA/labelled.csv" --window 5 --pace 2 --log-dir "$TMP/lpace2"
has err "2 windows logged"
check "--pace: no wait after the last window ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -le 3

# sustained load: the writer's queue never empties, yet a heartbeat and a
# checkpoint still follow every --seal-every windows (none came before the end)
run "watch under load" 0 "$WT" watch --backend synthetic --interval 0 --iterations 2000 --seal-every 100 --log-dir "$TMP/load"
check "under load: heartbeats every 100 windows" test "$(grep -c '"type":"heartbeat"' "$TMP/load/log.jsonl")" -ge 20

# a hostile device name (DEL, ESC, invalid UTF-8) in a file whose name is not
# UTF-8: every window is still logged, the metrics stay parseable
H="$TMP/host$(printf '\377')ile.csv"
sed "s/^# gpu_model: .*/# gpu_model: NVIDIA A100$(printf '\177\033')[31m$(printf '\377\376')/" \
    "$DATA/fake_gpu.csv" >"$H"
mkdir "$TMP/prom"
run "watch hostile name" 0 "$WT" watch --trace "$H" --gpus all --window 20 --log-dir "$TMP/lh" --textfile "$TMP/prom"
check "hostile name: 2 GPUs x 6 windows" test "$(grep -c '"type":"class"' "$TMP/lh/log.jsonl")" = 12
check "hostile name: cleaned in the log" grep -q 'NVIDIA A100??\[31m??' "$TMP/lh/log.jsonl"
check "hostile name: cleaned in the metrics" grep -q 'model_name="NVIDIA A100??\[31m??"' "$TMP/prom/workloadtruth.prom"
if command -v promtool >/dev/null 2>&1; then
    check "hostile name: promtool accepts the metrics" sh -c "promtool check metrics <'$TMP/prom/workloadtruth.prom'"
fi
run "verify hostile name" 0 "$WT" verify-log --log-dir "$TMP/lh"
# a FIFO planted at the textfile's temporary name (the directory is shared
# with node_exporter's group): it blocked watch in open() until someone read
# it, then was renamed over workloadtruth.prom; then it was refused at every
# window, and the last file said the agent was up until it went stale; now
# it is removed and the file written (a symbolic link there likewise)
mkdir "$TMP/promfifo" && mkfifo "$TMP/promfifo/workloadtruth.prom.tmp"
run "watch textfile tmp is a FIFO" 0 timeout -s KILL 30 "$WT" watch --backend synthetic --interval 0 \
    --window 5 --iterations 3 --log-dir "$TMP/lfifo" --textfile "$TMP/promfifo"
check "textfile FIFO: 3 windows logged" test "$(grep -c '"type":"class"' "$TMP/lfifo/log.jsonl")" = 3
check "textfile FIFO: replaced, the metrics written" sh -c '! test -e "$1/workloadtruth.prom.tmp" && test -f "$1/workloadtruth.prom" && grep -q "^workloadtruth_up 0" "$1/workloadtruth.prom"' sh "$TMP/promfifo"
mkdir "$TMP/promsym" && : >"$TMP/promsym/target" && ln -s "$TMP/promsym/target" "$TMP/promsym/workloadtruth.prom.tmp"
run "watch textfile tmp is a symbolic link" 0 "$WT" watch --backend synthetic --interval 0 \
    --window 5 --iterations 1 --log-dir "$TMP/lsym" --textfile "$TMP/promsym"
check "textfile symbolic link: not followed, replaced" sh -c 'test ! -s "$1/target" && test -f "$1/workloadtruth.prom" && test ! -L "$1/workloadtruth.prom"' sh "$TMP/promsym"
# a directory there cannot be replaced: said once a minute, not once a round
# (1,256 lines in 25 s at a short round), and by the last write at stop,
# with the count held back
mkdir -p "$TMP/promisdir/workloadtruth.prom.tmp"
run "watch textfile tmp is a directory" 0 timeout -s KILL 30 "$WT" watch --backend synthetic --interval 0 \
    --window 5 --iterations 3 --log-dir "$TMP/ldir" --textfile "$TMP/promisdir" &&
    has err "workloadtruth.prom.tmp: Is a directory"
check "textfile directory: said once a minute" test "$(grep -c 'Is a directory' "$TMP/err")" = 2
check "textfile directory: the last word counts the rest" grep -q 'Is a directory (and 2 more like it in ' "$TMP/err"
check "textfile directory: nothing renamed into place" test -d "$TMP/promisdir/workloadtruth.prom.tmp" -a ! -e "$TMP/promisdir/workloadtruth.prom"
# a regular file planted at the temporary name with another link to it (or
# of another user): it was written through and renamed, so the other name
# showed the metrics (and a file of another user made the .prom theirs, to
# swap a FIFO in); now such a file is replaced by a new one of watch's own
mkdir "$TMP/promlink" && : >"$TMP/promlink/planted" && ln "$TMP/promlink/planted" "$TMP/promlink/workloadtruth.prom.tmp"
run "watch textfile tmp with another link" 0 "$WT" watch --backend synthetic --interval 0 \
    --window 5 --iterations 1 --log-dir "$TMP/llink" --textfile "$TMP/promlink"
check "textfile tmp with another link: not written through" test ! -s "$TMP/promlink/planted"
check "textfile tmp with another link: the metrics written" test -s "$TMP/promlink/workloadtruth.prom"
check "gpu_idx 1" test "$(grep -c '"gpu_idx":1' "$F")" = 8

# --- usage errors -----------------------------------------------------
run "watch both gpu opts" 2 "$WT" watch --backend synthetic --gpus all --gpu-index 0 --log-dir "$L"
run "watch bad gpus" 2 "$WT" watch --trace "$DATA/fake_gpu.csv" --gpus 0,7 --log-dir "$TMP/l2"
# a GPU below the file's highest that has no rows is as much a usage error
# (it exited 1, or with --gpus 0,2 watched GPU 2 alone and exited 0)
awk -F, -v OFS=, '/^#/ || $1 == "t_s" { print; next } $2 == 0 { $2 = 2; print }' "$DATA/fake_gpu.csv" >"$TMP/g2.csv"
run "watch gpu absent below" 2 "$WT" watch --trace "$TMP/g2.csv" --window 20 --log-dir "$TMP/l2" &&
    has err "--gpu-index: $TMP/g2.csv: no GPU 0 in this trace (GPUs: 2)"
run "watch gpus absent below" 2 "$WT" watch --trace "$TMP/g2.csv" --gpus 0,2 --window 20 --log-dir "$TMP/l2" &&
    has err "--gpus: $TMP/g2.csv: no GPU 0 in this trace (GPUs: 2)"
check "gpu absent: nothing logged" test ! -e "$TMP/l2/log.jsonl"
run "watch gpus all, one absent" 0 "$WT" watch --trace "$TMP/g2.csv" --gpus all --window 20 --iterations 1 --log-dir "$TMP/lg2"
run "watch window below minimum" 2 "$WT" watch --backend synthetic --interval 0 --window 4 --iterations 1 --log-dir "$TMP/l2" &&
    has err "needs at least 5"
run "watch textfile missing" 2 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$TMP/l2" --textfile "$TMP/nope" &&
    has err "--textfile"
run "watch textfile not a dir" 2 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$TMP/l2" --textfile "$DATA/fake_gpu.csv" &&
    has err "not a directory"
# output that cannot be written: exit 2 (nothing concluded), never 1 ("damaged")
if [ -w /dev/full ]; then
    n=$((n + 1))
    "$WT" verify-log --log-dir "$L" --vkey "$VKEY" >/dev/full 2>"$TMP/err"
    rc=$?
    if [ "$rc" != 2 ] || ! grep -q "cannot write to standard output" "$TMP/err"; then
        echo "FAIL [verify to /dev/full]: exit $rc"
        fails=$((fails + 1))
    fi
    # checkpoint, prove, consistency likewise (they exited 1: a cron job
    # copying a checkpoint to a full disk raised a tampering alarm)
    for c in "checkpoint" "prove 1" "consistency --old 1"; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        "$WT" $c --log-dir "$L" >/dev/full 2>"$TMP/err"
        rc=$?
        if [ "$rc" != 2 ] || [ "$(grep -c . "$TMP/err")" != 1 ]; then
            echo "FAIL [$c to /dev/full]: exit $rc, wanted 2 and one line:"
            sed 's/^/    stderr: /' "$TMP/err" | head -3
            fails=$((fails + 1))
        fi
    done
    # report says it as every command does (it said "writing the report: ...")
    n=$((n + 1))
    "$WT" report --log-dir "$L" --out - >/dev/full 2>"$TMP/err"
    rc=$?
    if [ "$rc" != 1 ] || [ "$(grep -c . "$TMP/err")" != 1 ] ||
        ! grep -q "^workloadtruth report: cannot write to standard output: " "$TMP/err"; then
        echo "FAIL [report to /dev/full]: exit $rc, wanted 1 and one line:"
        sed 's/^/    stderr: /' "$TMP/err" | head -3
        fails=$((fails + 1))
    fi
fi
run "checkpoint: log file name ends in /" 2 "$WT" checkpoint --log-file "$TMP/nope/" && has err "is not a file name"
run "prove: --checkpoint missing" 2 "$WT" prove --log-dir "$L" --checkpoint "$TMP/no/such" 1 && has err "prove: --checkpoint: cannot open"
# a newline in a path is echoed as '?' (it forged a line of its own)
NL='
'
run "prove: --checkpoint path with a newline" 2 "$WT" prove --log-dir "$L" --checkpoint "$TMP/c${NL}d" 1 && has err "c?d" && oneline
mkdir -p "$TMP/x${NL}y" && cp "$L/log.jsonl" "$TMP/x${NL}y/"
# (its checkpoint file not copied: damage, since a log has one from init on)
run "verify: a log dir with a newline" 1 "$WT" verify-log --log-dir "$TMP/x${NL}y" && has out "x?y/checkpoint"
check "verify: warnings one line each" test -z "$(grep '^y/' "$TMP/out")"
run "verify missing" 2 "$WT" verify-log --log-dir "$TMP/nope"
# --stale-after: a last record older than S warns (exit 3); below a
# millisecond too (0.0004 s was 0 ms, which means never)
run "verify not stale" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --stale-after 1000000
run "verify stale" 3 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --stale-after 0.0004 && has out "the writer may have stopped"
run "verify bad vkey" 2 "$WT" verify-log --log-dir "$L" --vkey "not-a-key"
run "verify vkey: no such file" 2 "$WT" verify-log --log-dir "$L" --vkey "$TMP/no/key" && has err "nor is it a readable file"
run "verify vkey: a directory" 2 "$WT" verify-log --log-dir "$L" --vkey "$TMP" && has err "is a directory"
# a verifier key file is the key alone: not its first line, nor what a NUL
# byte or blanks past 1 KiB hid, followed by anything
printf '%s\ngarbage\n' "$VKEY" >"$TMP/vk2"
run "verify vkey file: a second line" 2 "$WT" verify-log --log-dir "$L" --vkey "$TMP/vk2" && has err "vk2:2: more than one line"
printf '%s\000garbage' "$VKEY" >"$TMP/vk2"
run "verify vkey file: a NUL byte" 2 "$WT" verify-log --log-dir "$L" --vkey "$TMP/vk2" && has err "contains a NUL byte"
{ printf '%s' "$VKEY"; printf '%2000s' ''; echo garbage; } >"$TMP/vk2"
run "verify vkey file: too large" 2 "$WT" verify-log --log-dir "$L" --vkey "$TMP/vk2" && has err "larger than 1 KiB"
printf 'garbage\n' >"$TMP/vk2"
run "verify vkey file: not a key" 2 "$WT" verify-log --log-dir "$L" --vkey "$TMP/vk2" && has err "--vkey: $TMP/vk2: verifier key:"
printf '%s\r\n' "$VKEY" >"$TMP/vk2"
run "verify vkey file: CRLF" 0 "$WT" verify-log --log-dir "$L" --vkey "$TMP/vk2"
# key text is the key, whatever a file of that name holds: the text is also a
# relative path, and a file planted there (in the directory the verifier runs
# in) with the key of another log of the same origin made that log verify as
# "pinned by --vkey" in place of this one
cp -a "$L" "$TMP/plant"
"$WT" init --log-dir "$TMP/evil" --origin "${VKEY%%+*}" >"$TMP/evil.out" 2>/dev/null
EVKEY=$(tail -1 "$TMP/evil.out")
"$WT" classify --backend synthetic --samples 10 --log-dir "$TMP/evil" >/dev/null 2>&1
cp "$TMP/evil/log.jsonl" "$TMP/evil/checkpoint" "$TMP/plant/"
mkdir -p "$TMP/plant/$(dirname "$VKEY")"
printf '%s\n' "$EVKEY" >"$TMP/plant/$VKEY"
run "verify vkey: the text, not a file of that name" 1 sh -c 'cd "$1" && exec "$2" verify-log --log-dir . --vkey "$3"' \
    sh "$TMP/plant" "$WT" "$VKEY" && has out "wrong-key"
# a log whose checkpoint file was deleted is damaged, not "intact with
# warnings" (exit 3): init writes it with the genesis record and writers only
# replace it, and without it signed lines rewritten or cut without the key
# passed a check that alerted on exit 1
cp -a "$L" "$TMP/noside" && rm "$TMP/noside/checkpoint"
run "verify: no checkpoint file" 1 "$WT" verify-log --log-dir "$TMP/noside" --vkey "$VKEY" \
    && has out "bad-checkpoint" && has out "is missing"
run "verify: no checkpoint file, json" 1 "$WT" verify-log --log-dir "$TMP/noside" --json && has out '"valid": false'
# ... and so is one replaced by a directory, a FIFO or a loop of symbolic
# links (exit 2, "nothing concluded", hid the rewrite a deleted one shows)
for kind in dir fifo loop; do
    rm -rf "$TMP/noside/checkpoint"
    case $kind in
    dir) mkdir "$TMP/noside/checkpoint" ;;
    fifo) mkfifo "$TMP/noside/checkpoint" ;;
    loop) ln -s checkpoint "$TMP/noside/checkpoint" ;;
    esac
    run "verify: checkpoint file replaced ($kind)" 1 "$WT" verify-log --log-dir "$TMP/noside" --vkey "$VKEY" --json \
        && has out '"damage": "bad-checkpoint"'
done
# ... or by a regular file that fails reads (/proc/self/mem: EIO), cut lines
# or not (exit 2 hid the cut; /proc/kmsg, read without blocking, fails with
# EAGAIN the same way: it hung the readers and the writers)
rm -rf "$TMP/noside/checkpoint" && ln -s /proc/self/mem "$TMP/noside/checkpoint"
run "verify: checkpoint file fails reads" 1 "$WT" verify-log --log-dir "$TMP/noside" --vkey "$VKEY" --json \
    && has out '"damage": "bad-checkpoint"' && has out "cannot be read (Input/output error)"
rm -rf "$TMP/noside/checkpoint"
# a checkpoint file with a second signature line of the log key, damaged:
# an edit, said as such, and the cut its valid signature shows stays visible
# (it was "another key's checkpoint", the truncation hidden)
cp -a "$L" "$TMP/sig2"
python3 - "$TMP/sig2/checkpoint" <<'PY'
import sys
p = sys.argv[1]
ls = open(p, encoding="utf-8").read().split("\n")
s = next(l for l in ls if l.startswith("\u2014 "))
c = s[-5]
open(p, "a", encoding="utf-8").write(s[:-5] + ("B" if c != "B" else "C") + s[-4:] + "\n")
PY
run "verify: a bad second signature in the checkpoint file" 1 "$WT" verify-log --log-dir "$TMP/sig2" --vkey "$VKEY" --json \
    && has out '"damage": "bad-checkpoint"' && has out "that does not verify, beside one that does"
head -n 2 "$L/log.jsonl" >"$TMP/sig2/log.jsonl"
run "verify: a bad second signature, the log cut" 1 "$WT" verify-log --log-dir "$TMP/sig2" --vkey "$VKEY" --json \
    && has out '"damage": "truncated"'
# a deleted log (or one replaced by a directory) with a checkpoint of its
# lines still there, or given with --against: cut (exit 1), not "cannot open"
# (exit 2), as the same log emptied is; with no checkpoint at all it stays an
# error (a mistyped path is not tampering)
cp -a "$L" "$TMP/nolog" && rm "$TMP/nolog/log.jsonl"
run "verify: deleted log, its checkpoint file left" 1 "$WT" verify-log --log-dir "$TMP/nolog" --vkey "$VKEY" \
    && has out "truncated" && has out "cannot open $TMP/nolog/log.jsonl"
# ... and so is one linked to a file that fails reads (it was "cannot read",
# exit 2, which hid the cut)
ln -s /proc/self/mem "$TMP/nolog/log.jsonl"
run "verify: log that fails reads, its checkpoint file left" 1 "$WT" verify-log --log-dir "$TMP/nolog" --vkey "$VKEY" \
    && has out "truncated" && has out "read as ending there"
rm "$TMP/nolog/log.jsonl"
mv "$TMP/nolog/checkpoint" "$TMP/nolog.cp" && mkdir "$TMP/nolog/log.jsonl"
run "verify: log replaced by a directory, --against" 1 "$WT" verify-log --log-dir "$TMP/nolog" --vkey "$VKEY" --against "$TMP/nolog.cp" \
    && has out "truncated"
run "verify: a directory without a log" 2 "$WT" verify-log --log-dir "$TMP/nolog" --vkey "$VKEY" && has err "cannot open"
# but an init killed before writing it is told apart, as the writers tell it:
# the genesis record alone, and the signed checkpoint.init.HASH of that line
# (HASH: the first 8 bytes of its leaf hash, SHA-256 of 0x00 and the line)
"$WT" init --log-dir "$TMP/killedinit" >/dev/null 2>&1
H=$(head -n 1 "$TMP/killedinit/log.jsonl" | tr -d '\n' | { printf '\000'; cat; } | sha256sum | cut -c1-16)
mv "$TMP/killedinit/checkpoint" "$TMP/killedinit/checkpoint.init.$H"
run "verify: an init killed before its checkpoint file" 3 "$WT" verify-log --log-dir "$TMP/killedinit" \
    && has out "an init was killed before writing it"
mv "$TMP/killedinit/checkpoint.init.$H" "$TMP/killedinit/checkpoint.init.0123456789abcdef"
run "verify: a checkpoint.init of another line" 1 "$WT" verify-log --log-dir "$TMP/killedinit" && has out "bad-checkpoint"
# a --log-dir log named as a file (DIR/log.jsonl) has the directory's side
# files (it was read without its checkpoint: damaged)
run "verify: the directory's log named with --log-file" 0 "$WT" verify-log --log-file "$L/log.jsonl" --vkey "$VKEY"
# ... and a --log-file log (DIR/log.jsonl.key, DIR/log.jsonl.checkpoint) named
# by its directory has its own side files (it was reported damaged, its
# checkpoint "deleted", and writers refused it)
mkdir -p "$TMP/lfdir" && "$WT" init --log-file "$TMP/lfdir/log.jsonl" >/dev/null 2>&1
run "verify: a --log-file log named with --log-dir" 0 "$WT" verify-log --log-dir "$TMP/lfdir"
run "classify: a --log-file log named with --log-dir" 0 "$WT" classify --backend synthetic --samples 10 --log-dir "$TMP/lfdir"
check "classify: no side files of the directory layout" test ! -e "$TMP/lfdir/log.lock" -a ! -e "$TMP/lfdir/checkpoint"
run "verify: the --log-file log after the append" 0 "$WT" verify-log --log-file "$TMP/lfdir/log.jsonl"
run "verify: --log-dir naming the log file" 2 "$WT" verify-log --log-dir "$TMP/lfdir/log.jsonl" && has err "is a file (use --log-file)"
# ... and is held to both checkpoint files where both are there: a cut log
# with an older checkpoint planted as log.jsonl.checkpoint read as intact
# with --log-file and as cut with --log-dir
cp -a "$L" "$TMP/planted" && rm -f "$TMP/planted/log.verified"
ncut=$(grep -n '"type":"checkpoint"' "$L/log.jsonl" | head -n 1 | cut -d: -f1)
head -n "$ncut" "$L/log.jsonl" >"$TMP/planted/log.jsonl"
sed -n "${ncut}p" "$L/log.jsonl" | python3 -c 'import json, sys; sys.stdout.write(json.loads(sys.stdin.read())["note"])' >"$TMP/planted/log.jsonl.checkpoint"
run "verify: a planted log.jsonl.checkpoint, --log-file" 1 "$WT" verify-log --log-file "$TMP/planted/log.jsonl" --vkey "$VKEY" && has out "truncated"
# ... also beside the 16 --against checkpoints a user may give (the other
# side file was then left out without a word)
AG16=$(for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do printf ' --against %s' "$TMP/planted/log.jsonl.checkpoint"; done)
# shellcheck disable=SC2086 # AG16: 16 options, split on purpose ($TMP has no spaces)
run "verify: a planted log.jsonl.checkpoint, --log-file, 16 --against" 1 "$WT" verify-log --log-file "$TMP/planted/log.jsonl" --vkey "$VKEY" $AG16 && has out "truncated"
run "verify: a planted log.jsonl.checkpoint, --log-dir" 1 "$WT" verify-log --log-dir "$TMP/planted" --vkey "$VKEY" && has out "truncated"
# a signing key another user put in place is not used (root signed the
# history of whoever could write the directory)
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    cp -a "$L" "$TMP/keyown"
    chown nobody "$TMP/keyown/log.key"
    run "key file: another user's" 1 "$WT" classify --backend synthetic --samples 10 --log-dir "$TMP/keyown" \
        && has err "belongs to user"
fi
# nor is the log's key file a key followed by a NUL byte and anything
cp -a "$L" "$TMP/keynul"
printf '\000garbage' >>"$TMP/keynul/log.key"
run "key file: a NUL byte" 1 "$WT" classify --backend synthetic --log-dir "$TMP/keynul" && has err "contains a NUL byte"
rm -rf "$TMP/keynul"
run "prove no index" 2 "$WT" prove --log-dir "$L"
run "prove bad index" 2 "$WT" prove --log-dir "$L" x1
run "prove signed index" 2 "$WT" prove --log-dir "$L" +2 && has err "not an entry index"
run "consistency no old" 2 "$WT" consistency --log-dir "$L"

# --- a second writer fails fast ---------------------------------------
# wait_more FILE COUNT: until FILE has more than COUNT class records (at most 20 s)
wait_more() {
    i=0
    while [ "$(grep -c '"type":"class"' "$1")" -le "$2" ] && [ $i -lt 200 ]; do
        sleep 0.1
        i=$((i + 1))
    done
}
before=$(grep -c '"type":"class"' "$L/log.jsonl")
"$WT" watch --backend synthetic --interval 0.02 --log-dir "$L" >/dev/null 2>"$TMP/w1.err" &
pid=$!
wait_more "$L/log.jsonl" "$before"
run "second writer" 1 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$L"
has err "in use"
# the same log named with --log-file (its key copied there): still one writer
cp -p "$L/log.key" "$L/log.jsonl.key"
run "second writer, other name" 1 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-file "$L/log.jsonl"
has err "in use: another writer holds it (named another way"
rm -f "$L/log.jsonl.key" "$L/log.jsonl.lock"
# --- a log re-created with another key under a running watch (its directory
# moved away, init run again; rkpid: $pid is the watch on $L, running still): not written to (its records were signed into
# the new log, while the watch's own verifier called it damaged), a failed
# write each try, so the exit status is 1
RK=$TMP/recreated
"$WT" init --log-dir "$RK" >/dev/null 2>&1
"$WT" watch --backend synthetic --interval 0.05 --window 10 --log-dir "$RK" >/dev/null 2>"$TMP/rk.err" &
rkpid=$!
until_true 20 lines_at_least 2 '"type":"class"' "$RK/log.jsonl"
# init once the watch has said the log is missing (which it says to fix by
# running init): the refusal of the new log is said all the same (it was not)
mv "$RK" "$RK.old"
until_true 20 grep -q "will retry" "$TMP/rk.err"
"$WT" init --log-dir "$RK" >/dev/null 2>&1
until_true 20 grep -q "is now another log" "$TMP/rk.err"
kill -TERM $rkpid
wait $rkpid
rc=$?
n=$((n + 1))
if [ "$rc" != 1 ] || ! grep -q "is now another log" "$TMP/rk.err" || [ "$(grep -c . "$RK/log.jsonl")" != 1 ]; then
    echo "FAIL [re-created log under watch]: exit $rc, $(grep -c . "$RK/log.jsonl") lines in the new log"
    sed 's/^/    stderr: /' "$TMP/rk.err" | head -5
    fails=$((fails + 1))
fi
# --- a log emptied or deleted (side file too) is not started again -----
E=$TMP/lemptied
run "emptied init" 0 "$WT" init --log-dir "$E"
run "emptied watch" 0 "$WT" watch --backend synthetic --interval 0 --iterations 2 --log-dir "$E"
: >"$E/log.jsonl"
rm -f "$E/checkpoint"
mkdir -p "$TMP/emptiedprom"
run "emptied log refused" 1 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$E" --textfile "$TMP/emptiedprom"
has err "refusing to append to a damaged log"
# ... and its textfile says so (up 0 and damaged NaN raised no alert)
check "emptied log: textfile says damaged" grep -qx 'workloadtruth_audit_log_damaged 1' "$TMP/emptiedprom/workloadtruth.prom"
check "emptied log left empty" test ! -s "$E/log.jsonl"
run "emptied log, init refused" 1 "$WT" init --log-dir "$E" && has err "already exists and is empty"
check "emptied log still empty" test ! -s "$E/log.jsonl"
rm -f "$E/log.jsonl"
# classify --log-dir does not start it again either (a key older than 10 s:
# not one an init is still writing)
touch -d '1 hour ago' "$E/log.key"
run "deleted log refused by classify" 1 "$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$E" && has err "is missing but its key"
check "deleted log not created by classify" test ! -e "$E/log.jsonl"
run "deleted log refused" 1 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$E"
has err "is missing but its key"
check "deleted log not created" test ! -e "$E/log.jsonl"
# an --origin the kept key does not have is refused, not dropped in silence
run "deleted log, init with another origin" 1 "$WT" init --log-dir "$E" --origin other.example/2 && has err "names the log" && oneline
check "another origin: no log" test ! -e "$E/log.jsonl"
run "deleted log, init again" 0 "$WT" init --log-dir "$E" && has err "kept the existing key"
run "deleted log, watch after init" 0 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$E"
# the log deleted but its checkpoint file kept: init (the fix the refusal
# suggests) refuses before creating anything (it wrote a new genesis beside the
# old checkpoint: a log DAMAGED for ever, which init then refused to touch)
K=$TMP/lcpleft
run "cp left: watch" 0 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 3 --log-dir "$K"
rm "$K/log.jsonl"
run "cp left: init refused" 1 "$WT" init --log-dir "$K" && has err "is missing but its checkpoint file"
check "cp left: no log created" test ! -e "$K/log.jsonl"
mv "$K/checkpoint" "$TMP/lcpleft.saved"
run "cp moved aside: init" 0 "$WT" init --log-dir "$K" && has err "kept the existing key"
run "cp moved aside: intact" 0 "$WT" verify-log --log-dir "$K"
# --- a symbolic link as --log-file: refused by every command, with a message
# that says so (writers said "Too many levels of symbolic links" and left a
# lock file, or "already exists" for a dangling one; verify-log read through)
S=$TMP/lsym
run "symlink: init" 0 "$WT" init --log-file "$S/real.jsonl"
ln -s real.jsonl "$S/link.jsonl"
ln -s nowhere.jsonl "$S/dangling.jsonl"
for c in verify-log recover watch; do
    run "symlink: $c" 2 "$WT" $c --log-file "$S/link.jsonl" && has err "is a symbolic link"
done
run "symlink: init, dangling" 2 "$WT" init --log-file "$S/dangling.jsonl" && has err "is a symbolic link"
check "symlink: no lock file left" test ! -e "$S/link.jsonl.lock"
# --- a damaged checkpoint file: no line, so no offset either (it said 0)
C=$TMP/lbadcp
run "bad checkpoint: watch" 0 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 1 --log-dir "$C"
echo garbage >"$C/checkpoint"
run "bad checkpoint: verify-log --json" 1 "$WT" verify-log --log-dir "$C" --json &&
    has out '"line": null' && has out '"offset": null'
# --- a tail over 64 MiB is no torn write (one record is at most 64 KiB):
# damage, as recover and the writers take it, and not read to its end: a
# sparse hole of a terabyte, which costs no disk, made the verifier and
# every writer opening the log read for hours (found in review, 2026-12-04)
T=$TMP/lbigtail
run "big tail: watch" 0 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 2 --log-dir "$T"
truncate -s +65M "$T/log.jsonl"
run "big tail: verify-log" 1 "$WT" verify-log --log-dir "$T" && has out "too much for a torn write"
run "big tail: recover refuses" 1 "$WT" recover --log-dir "$T" && has err "too much for a torn write"
truncate -s +1T "$T/log.jsonl"
run "sparse tail: verify-log" 1 timeout 60 "$WT" verify-log --log-dir "$T" --json && has out '"status": "damaged"'
run "sparse tail: watch refuses" 1 timeout 60 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 1 --log-dir "$T" && has err "refusing to append to a damaged log"
# a junk first line, then a line over 64 MiB, then the log's other lines: the
# verdict a whole read gives (the first line malformed), not "lines 1..N are
# missing" on an unchecked side file, as when the junk line were the last
# (found in review, 2026-12-04)
run "big line after junk: watch" 0 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 2 --log-dir "$T.2"
tail -n +2 "$T.2/log.jsonl" >"$TMP/rest"
echo junk >"$T.2/log.jsonl"
truncate -s +65M "$T.2/log.jsonl"
{ echo; cat "$TMP/rest"; } >>"$T.2/log.jsonl"
run "big line after junk: verify-log" 1 "$WT" verify-log --log-dir "$T.2" --json &&
    has out '"damage": "malformed"' && has out '"line": 1,'
rm -rf "$T.2"
# a cut log with a hole after it: still "truncated" by the side file, as a
# whole read of the hole says
run "cut then hole: watch" 0 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 4 --log-dir "$T.3"
head -n 3 "$T.3/log.jsonl" >"$TMP/head3"
cat "$TMP/head3" >"$T.3/log.jsonl"
truncate -s +65M "$T.3/log.jsonl"
run "cut then hole: verify-log" 1 "$WT" verify-log --log-dir "$T.3" --json && has out '"damage": "truncated"'
rm -rf "$T.3"
# --- a key file swapped for another log's: the writer refuses, and says the
# key file may be what changed (it called the intact log damaged)
"$WT" init --log-dir "$TMP/kx1" >/dev/null 2>&1
"$WT" init --log-dir "$TMP/kx2" >/dev/null 2>&1
cp "$TMP/kx2/log.key" "$TMP/kx1/log.key"
run "swapped key file: watch refuses" 1 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 1 --log-dir "$TMP/kx1" && has err "the key file was replaced, or the log re-created with another key"
run "swapped key file: log intact" 0 "$WT" verify-log --log-dir "$TMP/kx1"
rm -rf "$T"
# --- a file-size limit is said as such (a short write was reported as "No
# space left on device"), and the log stays intact
FB=$TMP/lfsize
"$WT" init --log-dir "$FB" >/dev/null 2>&1
run "file-size limit" 1 sh -c 'ulimit -f 80; exec "$@"' sh "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 100 --log-dir "$FB" && has err "(File too large); the partial line was cut back"
run "file-size limit: log intact" 0 "$WT" verify-log --log-dir "$FB"

# --- a log cut back to its genesis record, side file deleted: refused, not
# taken for an interrupted init (it was signed and verified clean, history gone)
G=$TMP/lgenesis
run "genesis-cut init" 0 "$WT" init --log-dir "$G"
run "genesis-cut watch" 0 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 3 --log-dir "$G"
head -n 1 "$G/log.jsonl" >"$TMP/g1" && cat "$TMP/g1" >"$G/log.jsonl" && rm -f "$G/checkpoint"
run "genesis-cut refused by watch" 1 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 3 --log-dir "$G" && has err "checkpoint file $G/checkpoint is missing"
run "genesis-cut refused by recover" 1 "$WT" recover --log-dir "$G" && has err "is missing"
check "genesis-cut left as it was" cmp -s "$TMP/g1" "$G/log.jsonl"
run "genesis-cut resealed" 0 "$WT" recover --log-dir "$G" --reseal
# an init killed between linking the log and its first checkpoint file: its
# checkpoint.init.HASH (the genesis record's own checkpoint) is taken up
I=$TMP/linitkill
run "init-kill init" 0 "$WT" init --log-dir "$I"
h=$({ printf '\000'; head -n 1 "$I/log.jsonl" | tr -d '\n'; } | sha256sum | cut -c1-16)
mv "$I/checkpoint" "$I/checkpoint.init.$h"
run "init-kill: the next writer takes it up" 0 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 2 --log-dir "$I"
check "init-kill: no unsealed-lines warning" sh -c '! grep -q "no signed checkpoint covered" "$1"' sh "$TMP/err"
check "init-kill: checkpoint.init removed" test ! -e "$I/checkpoint.init.$h" -a -s "$I/checkpoint"
run "init-kill: verifies" 0 "$WT" verify-log --log-dir "$I"
# ... but another log's genesis checkpoint is not that
J=$TMP/linitkill2
"$WT" init --log-dir "$J" >/dev/null 2>&1
mv "$J/checkpoint" "$J/checkpoint.init.$h"
run "init-kill: another log's checkpoint.init refused" 1 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 2 --log-dir "$J" && has err "is missing"
cp "$I/checkpoint" "$J/checkpoint.init.$({ printf '\000'; head -n 1 "$J/log.jsonl" | tr -d '\n'; } | sha256sum | cut -c1-16)"
run "init-kill: another log's checkpoint under the right name refused" 1 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 2 --log-dir "$J" && has err "is missing"
# an init killed before it linked its log leaves its genesis record
# (log.jsonl.init.PID.N) and checkpoint.init.HASH; a later init makes the log.
# The leftover checkpoint goes once the log has its side file: else someone
# without the key could put the old genesis record in the log's place, delete
# the side file, and have it taken up as an interrupted init (history gone)
K=$TMP/lkilled
"$WT" init --log-dir "$TMP/lkilled0" >/dev/null 2>&1
mkdir -p "$K" && cp "$TMP/lkilled0/log.key" "$K/log.key"
cp "$TMP/lkilled0/log.jsonl" "$K/log.jsonl.init.4242.1"
hk=$({ printf '\000'; head -n 1 "$K/log.jsonl.init.4242.1" | tr -d '\n'; } | sha256sum | cut -c1-16)
cp "$TMP/lkilled0/checkpoint" "$K/checkpoint.init.$hk"
run "killed init, then init" 0 "$WT" init --log-dir "$K" && has err "kept the existing key"
run "killed init: log grows" 0 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 2 --log-dir "$K"
check "killed init: its checkpoint.init removed" test ! -e "$K/checkpoint.init.$hk"
rm -f "$K/log.jsonl" "$K/checkpoint" && mv "$K/log.jsonl.init.4242.1" "$K/log.jsonl"
run "killed init: its genesis put back is refused" 1 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 1 --log-dir "$K" && has err "is missing"
# an init races another and is killed between its checkpoint.init and its
# link: under the writers' lock it finds the log made and leaves nothing (it
# left checkpoint.init + its genesis next to the log: the swap above again)
if command -v strace >/dev/null 2>&1 && [ "${3:-}" != asan ]; then
    KR=$TMP/lrace
    "$WT" init --log-dir "$KR" >/dev/null 2>&1
    "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 2 --log-dir "$KR" >/dev/null 2>&1
    strace -qq -o /dev/null -P "$KR/log.jsonl" -e trace=newfstatat,link -e inject=newfstatat:error=ENOENT:when=1 \
        -e inject=link:signal=SIGKILL "$WT" init --log-dir "$KR" >/dev/null 2>&1
    check "racing init leaves no checkpoint.init" sh -c '! ls "$1"/checkpoint.init.* >/dev/null 2>&1' sh "$KR"
fi
# init signs its genesis record alone: a line linked onto the new log while
# init has let the writers' lock go (between linking the log and opening it;
# strace holds the second lock 2 s) is refused, not signed into the first
# checkpoint without a word (verify-log then passed the forged record)
if command -v strace >/dev/null 2>&1 && [ "${3:-}" != asan ]; then
    KI=$TMP/irace
    (i=0
     while [ ! -s "$KI/log.jsonl" ] && [ $i -lt 200 ]; do sleep 0.02; i=$((i + 1)); done
     python3 -c '
import base64, hashlib, sys
p = sys.argv[1]
g = open(p, "rb").read().split(b"\n")[0]
prev = base64.b64encode(hashlib.sha256(b"\0" + g).digest()).decode()
open(p, "a").write("{\"v\":1,\"seq\":1,\"ts_ms\":1,\"type\":\"class\",\"prev\":\"%s\",\"gpu\":\"GPU-forged\",\"class\":\"idle\",\"conf_ppm\":999999}\n" % prev)
' "$KI/log.jsonl") &
    apid=$!
    run "init: a line appended while it let the lock go is refused" 1 strace -f -qq -o /dev/null -e trace=flock \
        -e inject=flock:delay_enter=2000000:when=2 "$WT" init --log-dir "$KI" --origin race.example/1
    has err "its checkpoint file"
    wait "$apid"
    run "init: the forged line is not signed" 1 "$WT" verify-log --log-dir "$KI"
fi
# the --textfile is not fsync'ed (renamed into place: atomic for its
# readers): watch writes it on its sampling thread, and a disk whose fsync
# took 3 s stretched 3 windows of 1 s to 24 s; the audit log still is
if command -v strace >/dev/null 2>&1 && [ "${3:-}" != asan ]; then
    mkdir -p "$TMP/promdir"
    strace -f -qq -y -o "$TMP/syncs" -e trace=fsync,fdatasync "$WT" watch --backend synthetic \
        --interval 0 --window 5 --iterations 2 --log-dir "$TMP/lsync" --textfile "$TMP/promdir" >/dev/null 2>&1
    check "textfile written" test -s "$TMP/promdir/workloadtruth.prom"
    check "textfile: no fsync" sh -c '! grep -q "promdir" "$1"' sh "$TMP/syncs"
    check "audit log: fdatasync'ed" grep -q "lsync/log.jsonl" "$TMP/syncs"
fi
# init waits for no one long (2 s, for another init to finish): while the
# lock is held, it is busy (exit 1), not done
if command -v flock >/dev/null 2>&1; then
    KB=$TMP/lbusy
    mkdir -p "$KB"
    # (the sleep holds the lock itself, so killing it frees the lock)
    (exec 9>"$KB/log.lock" && flock 9 && exec sleep 60) &
    holder=$!
    until_true 20 sh -c "! flock -n '$KB/log.lock' true"
    run "init while the lock is held: busy" 1 "$WT" init --log-dir "$KB" && has err "is in use"
    check "init while the lock is held: no log" test ! -e "$KB/log.jsonl"
    kill $holder
    wait $holder
fi
# writers remove only init's own checkpoint.init.HASH: in a --log-file
# directory, a log named like one is another log, kept
"$WT" init --log-file "$TMP/lf2/gpu.jsonl" >/dev/null 2>&1
"$WT" init --log-file "$TMP/lf2/gpu.jsonl.checkpoint.init.node2" >/dev/null 2>&1
run "log-file: a log named like a checkpoint.init" 0 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 1 --log-file "$TMP/lf2/gpu.jsonl"
check "log-file: that other log kept" test -s "$TMP/lf2/gpu.jsonl.checkpoint.init.node2" -a -s "$TMP/lf2/gpu.jsonl.checkpoint.init.node2.key"
check "init: no checkpoint.init left" sh -c '! ls "$1"/checkpoint.init.* "$2"/checkpoint.init.* >/dev/null 2>&1' sh "$E" "$G"

# --- jobs logging at once into a log none of them has created yet ------
for round in 1 2 3; do
    C=$TMP/conc$round
    pids=
    for i in 1 2 3 4 5 6; do
        "$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$C" >"$TMP/conc.$i" 2>&1 &
        pids="$pids $!"
    done
    wait $pids # not the watch running in the background
    check "concurrent classify round $round: every job logged" test "$(cat "$TMP"/conc.* | grep -c '^audit log')" = 6
    check "concurrent classify round $round: one job printed the verifier key" test "$(cat "$TMP"/conc.* | grep -c 'created the audit log')" = 1
    check "concurrent classify round $round: one log, 6 records" test "$(grep -c '"type":"class"' "$C/log.jsonl")" = 6
    run "concurrent classify round $round: verifies" 0 "$WT" verify-log --log-dir "$C"
    rm -f "$TMP"/conc.*
done
# two watch agents started at once on a new log: each logs, or one is told
# the log is in use (the other said "cannot create log.key: File exists", or
# that the log was deleted and to run init)
n=$((n + 1))
bad=
for round in 1 2 3 4 5 6 7 8; do
    rm -rf "$TMP/ww"
    "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$TMP/ww" >/dev/null 2>"$TMP/ww1.err" &
    p1=$!
    "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$TMP/ww" >/dev/null 2>"$TMP/ww2.err" &
    p2=$!
    wait $p1 $p2
    other=$(cat "$TMP/ww1.err" "$TMP/ww2.err" | grep -v 'created audit log\|window logged\|is in use: another writer holds' | grep -cv '^[^ ]*+[0-9a-f]*+')
    [ "$other" = 0 ] || bad="round $round: $(cat "$TMP/ww1.err" "$TMP/ww2.err" | grep -v 'created audit log\|window logged\|is in use' | grep -v '^[^ ]*+[0-9a-f]*+' | head -1)"
done
if [ -n "$bad" ]; then
    echo "FAIL [two watch agents on a new log]: $bad"
    fails=$((fails + 1))
fi
# classify's record says which span of the trace it classified and, with
# --model, which model file (by hash, as watch names it)
cp "$DATA/../../models/physics.model" "$TMP/my.model"
run "classify record: span and model" 0 "$WT" classify --backend synthetic --samples 10 --start 5 --windows 3 --model "$TMP/my.model" --log-dir "$TMP/span"
check "classify record: t_first_ms, t_last_ms" sh -c "grep '\"type\":\"class\"' '$TMP/span/log.jsonl' | tail -1 | grep -q '\"t_first_ms\":[0-9]*,\"t_last_ms\":[0-9]*'"
check "classify record: the model's hash" sh -c "grep -q '\"model\":\"physics/workloadtruth-[^\"]*/model-sha256:[0-9a-f]\{16\}\"' '$TMP/span/log.jsonl'"
# --- SIGTERM mid-run: clean stop, final checkpoint, verifiable --------
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM exit 0" test $rc = 0
run "verify after SIGTERM" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY"
check "SIGTERM sealed" sh -c "tail -1 '$L/log.jsonl' | grep -q '\"type\":\"checkpoint\"'"
# SIGHUP (a closed terminal) stops as cleanly
"$WT" watch --backend synthetic --interval 0.01 --log-dir "$TMP/hup" >/dev/null 2>"$TMP/hup.err" &
pid=$!
i=0
while [ ! -s "$TMP/hup/log.jsonl" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -HUP $pid
wait $pid
rc=$?
check "SIGHUP exit 0" test $rc = 0
check "SIGHUP sealed" sh -c "tail -1 '$TMP/hup/log.jsonl' | grep -q '\"type\":\"checkpoint\"'"
# ... unless SIGHUP was ignored when it started (nohup): it keeps running
(trap '' HUP; exec "$WT" watch --backend synthetic --interval 0.01 --log-dir "$TMP/hup2" >/dev/null 2>&1) &
pid=$!
i=0
while [ ! -s "$TMP/hup2/log.jsonl" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -HUP $pid
sleep 0.5
check "nohup: SIGHUP ignored" kill -0 $pid
kill -TERM $pid
wait $pid

# term_within_5s NAME PID: SIGTERM, then PID must exit within 5 s (else a
# failed check and SIGKILL); its exit status in rc
term_within_5s() {
    kill -TERM "$2"
    i=0
    while kill -0 "$2" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$2" 2>/dev/null; then
        check "$1: watch stops on SIGTERM within 5 s" false
        kill -KILL "$2"
    fi
    wait "$2"
    rc=$?
}

# --- SIGTERM while a `--trace -` pipe is quiet: stops at once, sealed --
mkfifo "$TMP/fifo"
(cat "$DATA/fake_gpu.csv"; exec sleep 60) >"$TMP/fifo" &
feeder=$!
"$WT" watch --trace - --log-dir "$TMP/lq" <"$TMP/fifo" >/dev/null 2>"$TMP/wq.err" &
pid=$!
# the rows read and logged (fake_gpu.csv's 12 windows of GPU 0), the pipe
# quiet (the new log's creation is slow under the sanitizers)
until_true 20 lines_at_least 12 '"type":"class"' "$TMP/lq/log.jsonl"
sleep 0.5
term_within_5s "quiet pipe" $pid
kill $feeder 2>/dev/null
wait $feeder 2>/dev/null
check "quiet pipe: SIGTERM exit 0" test $rc = 0
run "quiet pipe: verify" 0 "$WT" verify-log --log-dir "$TMP/lq"
check "quiet pipe: sealed" sh -c "tail -1 '$TMP/lq/log.jsonl' | grep -q '\"type\":\"checkpoint\"'"

# --- SIGTERM while a slow reader holds standard output back: the stop, not
# an output error (it exited 1, "cannot write to standard output") ------
mkfifo "$TMP/outfifo"
# (the reader starts once watch has ended, at most 60 s on)
(until_true 60 test -e "$TMP/slow.go"; cat >/dev/null) <"$TMP/outfifo" &
reader=$!
"$WT" watch --backend synthetic --interval 0 --iterations 100000 --json --log-dir "$TMP/slow" >"$TMP/outfifo" 2>"$TMP/slow.err" &
pid=$!
# once windows are logged, the pipe fills in a few ms
until_true 20 grep -qs '"type":"class"' "$TMP/slow/log.jsonl"
sleep 1
kill -TERM $pid
wait $pid
rc=$?
: >"$TMP/slow.go"
wait $reader
check "slow reader: SIGTERM exit 0" test $rc = 0
check "slow reader: says the line was cut" grep -q "stopped while writing a window line to standard output" "$TMP/slow.err"
check "slow reader: no output error" sh -c "! grep -q 'cannot write' '$TMP/slow.err'"
run "slow reader: verify" 0 "$WT" verify-log --log-dir "$TMP/slow"
# ... with several GPUs: the next GPU's line waited on the reader, with no
# signal left to cut it (it hung until the reader read)
awk 'BEGIN { print "t_s,gpu,util_gpu_pct,power_w"; for (i = 0; i < 3000; i++) for (g = 0; g < 2; g++) printf "%.1f,%d,50,200\n", i / 10, g }' >"$TMP/two.csv"
mkfifo "$TMP/outfifo2"
(sleep 30; cat >/dev/null) <"$TMP/outfifo2" &
reader=$!
"$WT" watch --trace "$TMP/two.csv" --gpus all --window 10 --json --log-dir "$TMP/slow2" >"$TMP/outfifo2" 2>"$TMP/slow2.err" &
pid=$!
sleep 2
term_within_5s "slow reader, 2 GPUs" $pid
kill $reader 2>/dev/null
wait $reader 2>/dev/null
check "slow reader, 2 GPUs: SIGTERM exit 0" test $rc = 0
run "slow reader, 2 GPUs: verify" 0 "$WT" verify-log --log-dir "$TMP/slow2"

# --- files that are not what they should be: refused, never replaced ----
# a key that is a link to nothing: said so (it read as an init that lost a
# race: "log.jsonl already exists", with no log there)
mkdir -p "$TMP/dangkey"
ln -s "$TMP/nonexistent.key" "$TMP/dangkey/log.key"
run "init: the key a link to nothing" 1 "$WT" init --log-dir "$TMP/dangkey" && has err "log.key is a symbolic link to nothing" && oneline
check "init: the key a link to nothing: no log, the link kept" sh -c 'test ! -e "$1/log.jsonl" && test -L "$1/log.key" && test ! -e "$2"' sh "$TMP/dangkey" "$TMP/nonexistent.key"
run "report over its own log" 2 "$WT" report --log-dir "$L" --out "$L/log.jsonl" && has err "is the audit log"
printf '%s\n' "$VKEY" >"$TMP/vkey.txt"
run "report over its --vkey file" 2 "$WT" report --log-dir "$L" --vkey "$TMP/vkey.txt" --out "$TMP/vkey.txt" && has err "or --vkey"
check "report kept the vkey file" grep -q . "$TMP/vkey.txt"
# the page sent to standard output appended to the log (`--out - >> LOG`):
# it damaged the log for good (exit 0; recover and watch refused it)
run "report to standard output appended to its log" 2 sh -c '"$1" report --log-dir "$2" --out - >>"$2/log.jsonl"' sh "$WT" "$L" &&
    has err "--out - (standard output) is the audit log, one of its files or --vkey"
run "report to standard output appended to its checkpoint" 2 sh -c '"$1" report --log-dir "$2" --out - >>"$2/checkpoint"' sh "$WT" "$L" &&
    has err "--out - (standard output) is the audit log"
run "verify after report refusal" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY"
# a file of the log that is missing now is refused by its name (the page
# became the checkpoint `recover --reseal` would have made again, and the
# log could no longer be repaired), and so are the writers' state and init's
# files, which were replaced
cp -a "$L" "$TMP/nocp"
rm "$TMP/nocp/checkpoint"
run "report over a missing checkpoint" 2 "$WT" report --log-dir "$TMP/nocp" --out "$TMP/nocp/checkpoint" && has err "is the audit log or one of its files" && oneline
check "report over a missing checkpoint: not created" test ! -e "$TMP/nocp/checkpoint"
for f in log.verified checkpoint.init.0123456789abcdef log.jsonl.init.1.2; do
    run "report over $f" 2 "$WT" report --log-dir "$TMP/nocp" --out "$TMP/nocp/$f" && oneline
    check "report over $f: no page written there" sh -c '! grep -qs "<html" "$1"' sh "$TMP/nocp/$f"
done
# the writers' state file as it is (not only missing): the page had replaced
# it, and the next writer re-read the whole log
check "log.verified present" test -s "$L/log.verified"
run "report over an existing log.verified" 2 "$WT" report --log-dir "$L" --out "$L/log.verified" && has err "one of its files" && oneline
check "report over log.verified: no page written there" sh -c '! grep -qs "<html" "$1"' sh "$L/log.verified"
mkdir -p "$TMP/nokey"
cp "$L/log.jsonl" "$TMP/nokey/a.jsonl"
cp "$L/checkpoint" "$TMP/nokey/a.jsonl.checkpoint"
run "report over a missing key (--log-file)" 2 "$WT" report --log-file "$TMP/nokey/a.jsonl" --vkey "$VKEY" --out "$TMP/nokey/a.jsonl.key" && has err "one of its files"
run "report beside a --log-file" 0 "$WT" report --log-file "$TMP/nokey/a.jsonl" --vkey "$VKEY" --out "$TMP/nokey/a.jsonl.html"
# a --log-dir log named as DIR/log.jsonl reads the directory's side files
# only while DIR/log.jsonl.checkpoint and .key are missing: a page written
# there made the healthy log DAMAGED when named as a file
for f in log.jsonl.checkpoint log.jsonl.key; do
    for how in "--log-dir $L" "--log-file $L/log.jsonl"; do
        # shellcheck disable=SC2086
        run "report over the other layout's $f ($how)" 2 "$WT" report $how --out "$L/$f" && has err "one of its files" && oneline
        check "report over $f: not created" test ! -e "$L/$f"
    done
done
# the summary line shows control characters in --out as '?', as the errors do
run "report --out with an escape" 0 "$WT" report --log-dir "$L" --out "$TMP/esc$(printf '\033')[31m.html" && has out "esc?[31m.html"
check "report --out with an escape: one line out" test "$(wc -l <"$TMP/out")" = 1
mkfifo "$TMP/notreg"
run "report over a FIFO" 2 "$WT" report --log-dir "$L" --out "$TMP/notreg" && has err "not a regular file"
check "the FIFO is still one" test -p "$TMP/notreg"
# a report that cannot be written whole (a file-size limit) leaves the old page
echo "old page" >"$TMP/page.html"
run "report write fails" 1 sh -c "ulimit -f 1; exec \"\$@\"" sh "$WT" report --log-dir "$L" --out "$TMP/page.html" && has err "File too large"
check "report: the old page kept, no temporary file" sh -c "[ \"\$(cat '$TMP/page.html')\" = 'old page' ] && ! ls '$TMP'/page.html.* >/dev/null 2>&1"
# --out a link to standard output, itself a file: the page went into the
# link's place (as root, --out /dev/stdout replaced the system's link) and
# standard output got nothing; refused now
ln -s /proc/self/fd/1 "$TMP/so"
run "report --out a link to standard output" 2 sh -c '"$0" report --log-dir "$1" --out "$2" >"$3"' "$WT" "$L" "$TMP/so" "$TMP/cap.html" && has err "is a link to standard output"
check "report --out a link to standard output: the link kept" test -L "$TMP/so"
# a newline in an --out path is echoed as '?' (it forged a line of its own)
mkdir -p "$TMP/o${NL}FORGED"
run "report --out a directory with a newline" 2 "$WT" report --log-dir "$L" --out "$TMP/o${NL}FORGED" && has err "o?FORGED" && oneline
chmod 600 "$TMP/page.html"
run "report over a private page" 0 "$WT" report --log-dir "$L" --out "$TMP/page.html"
# a log whose writer stopped: --stale-after warns, as verify-log does (spec 7)
run "report --stale-after" 0 "$WT" report --log-dir "$L" --out "$TMP/stale.html" --stale-after 0.001 && has out "verified with warnings"
check "report --stale-after: said on the page" grep -q "the writer may have stopped" "$TMP/stale.html"
check "report: the replaced page stays private" sh -c "[ \"\$(stat -c %a '$TMP/page.html')\" = 600 ]"
mkdir -p "$TMP/lf"
cp "$L/log.jsonl" "$TMP/lf/a.jsonl"
mkfifo "$TMP/lf/a.jsonl.checkpoint"
# (and is damage, as a deleted side file is: exit 2 hid it)
run "verify: a FIFO side file does not block" 1 timeout 20 "$WT" verify-log --log-file "$TMP/lf/a.jsonl" && has out "not a regular file"
run "verify: a FIFO log does not block" 2 timeout 20 "$WT" verify-log --log-file "$TMP/notreg" && has err "not a regular file"
run "empty --log-dir" 2 "$WT" verify-log --log-dir "" && has err "empty directory name"
# an empty --log-file is a usage error in every command (recover, report, init
# and watch exited 1: "refused or failed"), and classify refuses an empty
# --log-dir before classifying (it classified, then exited 1 at the append: a
# MISMATCH lost its exit status 3)
for c in recover init watch verify-log; do
    run "empty --log-file: $c" 2 "$WT" $c --log-file "" && has err "empty file name"
done
run "empty --log-file: report" 2 "$WT" report --log-file "" --out "$TMP/r.html" && has err "empty file name"
run "classify: empty --log-dir" 2 "$WT" classify --backend synthetic --declared inference --log-dir "" &&
    has err "empty directory name"
has_not_out() { ! grep -q "$1" "$TMP/out" || { echo "FAIL [classify: empty --log-dir]: printed $1"; fails=$((fails + 1)); }; }
has_not_out "TRAINING"
# a port is digits only ("+80" and " 80" were taken)
run "mcp --http port with a sign" 2 timeout 10 "$WT" mcp --http "127.0.0.1:+80" && has err "the port must be a number"
run "watch --listen port with a blank" 2 timeout 10 "$WT" watch --backend synthetic --listen "127.0.0.1: 80" --iterations 1 --log-dir "$TMP/lport" &&
    has err "the port must be a number"
# an IPv6 address without brackets is ambiguous ("::1:8080": the port or the
# address's last group?) and was taken; brackets hold IPv6 only
run "mcp --http unbracketed IPv6" 2 timeout 10 "$WT" mcp --http "::1:8080" && has err "an IPv6 address goes in brackets"
run "watch --listen unbracketed IPv6" 2 timeout 10 "$WT" watch --backend synthetic --listen "fe80::1:9400" --iterations 1 --log-dir "$TMP/lport" &&
    has err "an IPv6 address goes in brackets"
run "mcp --http IPv4 in brackets" 2 timeout 10 "$WT" mcp --http "[127.0.0.1]:8080" && has err "the brackets must hold an IPv6 address"
run "--log-file a directory" 2 "$WT" watch --backend synthetic --iterations 1 --log-file "$TMP" && has err "is a directory"
run "watch: no whole window" 1 "$WT" watch --trace "$DATA/fake_gpu.csv" --window 100000 --log-dir "$TMP/lnw" && has err "no window"
run "watch: a port it cannot have" 1 "$WT" watch --backend synthetic --iterations 1 --interval 0 --log-dir "$TMP/lport" --listen 192.0.2.1:9400 && has err "cannot listen there"
check "watch: no log left by a failed --listen" test ! -e "$TMP/lport"
# a port another process holds (dcgm-exporter's default 9400 is the same as the
# examples'): the message says so, not only "Address already in use"
python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(120)' >"$TMP/heldport" 2>/dev/null &
HOLDER=$!
i=0
until [ -s "$TMP/heldport" ] || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
run "watch: a port another process holds" 1 "$WT" watch --backend synthetic --iterations 1 --interval 0 --log-dir "$TMP/lport" --listen "127.0.0.1:$(cat "$TMP/heldport")" &&
    has err "another process holds the port (dcgm-exporter listens on :9400 by default)"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
# --listen '' is no listener (the systemd unit passes --listen ${WT_LISTEN}, and
# WT_LISTEN= empty is how a host without a new port is set up)
run "watch: --listen ''" 0 "$WT" watch --backend synthetic --iterations 1 --interval 0 --log-dir "$TMP/lnone" --listen '' && check "watch: --listen '': nothing listened" sh -c "! grep -q 'metrics at' '$TMP/err'"
check "watch: no raw library line" sh -c "! grep -q 'Failed to bind' '$TMP/err'"

# --- the writers' verification state (log.verified) --------------------
# writers leave it and take it up; one not authenticated by the log's key is
# ignored and written anew; a line changed before its point is found by
# verify-log and by recover (which read every line), not by a writer that
# takes the state up (the documented limit), and by one without the state
V=$TMP/lv
run "state: init" 0 "$WT" init --log-dir "$V" --origin test.example/state
for i in 1 2 3; do
    run "state: classify $i" 0 "$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$V"
done
check "state: left by the writers" test -s "$V/log.verified"
printf 'X' | dd of="$V/log.verified" bs=1 seek=100 conv=notrunc 2>/dev/null
cp "$V/log.verified" "$TMP/forged.state"
run "state: forged state ignored" 0 "$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$V"
check "state: written anew" sh -c "! cmp -s '$V/log.verified' '$TMP/forged.state'"
off=$(grep -bo '"type":"class"' "$V/log.jsonl" | head -1 | cut -d: -f1)
printf 'z' | dd of="$V/log.jsonl" bs=1 seek=$((off + 12)) conv=notrunc 2>/dev/null # line 2, in place
run "state: a line before the point: verify-log finds it" 1 "$WT" verify-log --log-dir "$V" && has out "log.jsonl:2: malformed"
run "state: recover reads every line" 1 "$WT" recover --log-dir "$V" && has err "damaged log"
run "state: a writer taking the state up does not" 0 "$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$V"
rm "$V/log.verified"
run "state: one without it does" 1 "$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$V" && has err "damaged log"

# watch verifies the whole log every --verify-every seconds (a writer's open
# reads only past the state's point): a line changed while it runs is
# reported on stderr and by workloadtruth_audit_log_damaged (0 before)
B=$TMP/lbg
mkdir -p "$TMP/bgprom"
"$WT" watch --backend synthetic --interval 0.01 --window 5 --heartbeat 3600 --verify-every 0.2 \
    --log-dir "$B" --textfile "$TMP/bgprom" >/dev/null 2>"$TMP/bg.err" &
pid=$!
wait_prom() {
    i=0
    while ! grep -q "^workloadtruth_audit_log_damaged $1\$" "$TMP/bgprom/workloadtruth.prom" 2>/dev/null &&
        [ $i -lt 200 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    grep -q "^workloadtruth_audit_log_damaged $1\$" "$TMP/bgprom/workloadtruth.prom"
}
check "background verification: intact" wait_prom 0
off=$(grep -bo '"type":"class"' "$B/log.jsonl" | head -1 | cut -d: -f1)
printf 'z' | dd of="$B/log.jsonl" bs=1 seek=$((off + 12)) conv=notrunc 2>/dev/null
check "background verification: the change found" wait_prom 1
kill -TERM $pid
wait $pid
check "background verification: watch went on (exit 0)" test $? = 0
cp "$TMP/bg.err" "$TMP/err"
name="background verification: stderr"
has err "verification of the whole audit log $B/log.jsonl: intact,"
has err "verification of the whole audit log $B/log.jsonl: DAMAGED: log.jsonl:2: malformed"
check "background verification: the last textfile says so" grep -q '^workloadtruth_audit_log_damaged 1$' "$TMP/bgprom/workloadtruth.prom"
run "background verification: --verify-every range" 2 "$WT" watch --backend synthetic --verify-every -1 --log-dir "$B"

# --- SIGKILL mid-run: verifiable (perhaps unsealed), then recovered ----
before=$(grep -c '"type":"class"' "$L/log.jsonl")
"$WT" watch --backend synthetic --interval 0.005 --heartbeat 0.05 --log-dir "$L" >/dev/null 2>&1 &
pid=$!
wait_more "$L/log.jsonl" "$((before + 3))"
kill -KILL $pid
wait $pid 2>/dev/null
"$WT" verify-log --log-dir "$L" --vkey "$VKEY" >"$TMP/out" 2>&1
rc=$?
check "verify after SIGKILL (0 or 3)" test $rc = 0 -o $rc = 3
run "recover" 0 "$WT" recover --log-dir "$L"
run "verify after recover" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY"

# --- torn tail --------------------------------------------------------
printf '{"v":1,"seq":' >>"$L/log.jsonl"
run "torn tail warns" 3 "$WT" verify-log --log-dir "$L" && has out "torn tail"
run "recover torn" 0 "$WT" recover --log-dir "$L" && has out "repaired"
check "quarantine file" sh -c "ls '$L' | grep -q 'log.jsonl.torn.'"
TORN=$(ls "$L"/log.jsonl.torn.* | head -1)
run "report over the quarantined tail" 2 "$WT" report --log-dir "$L" --out "$TORN" && has err "torn tail the log's recovery kept" && oneline
check "the quarantined tail kept" grep -q '"seq":' "$TORN"
run "verify after torn recover" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --json
has out '"recoveries": 1'
# a quarantine file named for the log's end, planted (no key needed): no
# signed recovery record for a repair that never happened
R=$TMP/lplanted
cp -r "$L" "$R"
printf 'attacker junk\n' >"$R/log.jsonl.torn.$(stat -c %s "$R/log.jsonl")"
run "planted torn file: nothing to repair" 0 "$WT" recover --log-dir "$R" && has out "nothing to repair"
run "planted torn file: no record" 0 "$WT" verify-log --log-dir "$R" --vkey "$VKEY" --json
has out '"recoveries": 1'

# classify --log-dir (and the MCP tools) signs what it finds past the last
# signed checkpoint as watch does, and says so: a line appended by someone
# without the key (prev needs no secret: the RFC 6962 hash of the lines
# before) was signed in silence, and a later verify passed clean
F=$TMP/lforged
"$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$F" >/dev/null 2>&1
python3 - "$F/log.jsonl" <<'PY'
import base64, hashlib, sys
def th(ls):
    if len(ls) == 1:
        return ls[0]
    k = 1
    while 2 * k < len(ls):
        k *= 2
    return hashlib.sha256(b'\x01' + th(ls[:k]) + th(ls[k:])).digest()
lines = open(sys.argv[1], 'rb').read().split(b'\n')[:-1]
prev = base64.b64encode(th([hashlib.sha256(b'\x00' + l).digest() for l in lines])).decode()
with open(sys.argv[1], 'ab') as f:
    f.write(('{"v":1,"seq":%d,"ts_ms":1796250999999,"type":"class","prev":"%s","gpu":"GPU-forged",'
             '"class":"idle","conf_ppm":999000}\n' % (len(lines), prev)).encode())
PY
N=$(wc -l <"$F/log.jsonl")
run "forged append: unsealed" 3 "$WT" verify-log --log-dir "$F" && has out "not covered"
# --stale-after is judged on the last signed line, as report does: an
# unsigned line with a later time (anyone can append one) hid a stopped
# writer (it judged the last line, here re-dated 2100: its prev, the root
# of the lines before it, is unchanged)
cp -r "$F" "$TMP/lfuture"
sed -i '$ s/"ts_ms":1796250999999/"ts_ms":4102444800000/' "$TMP/lfuture/log.jsonl"
NS=$(($(wc -l <"$TMP/lfuture/log.jsonl") - 1))
run "stale: judged on the last signed line" 3 "$WT" verify-log --log-dir "$TMP/lfuture" --stale-after 0.0004 && has out "not covered" && has out "the last signed entry (line $NS) is" && has out "the writer may have stopped"
run "classify signs the forged line and says so" 0 "$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$F" --json && has err "workloadtruth classify: $F/log.jsonl: signed lines $N..$N, which no signed checkpoint covered"
has out "which no signed checkpoint covered"
printf '{"v":1,"seq":' >>"$F/log.jsonl"
run "classify repairs a torn tail and says so" 0 "$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$F" && has err "workloadtruth classify: recovered $F/log.jsonl:" && has err "bytes of a torn last line moved to"
run "classify: nothing to say, says nothing" 0 "$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$F" --json && has out '"warnings": []'
check "classify: silent stderr" test ! -s "$TMP/err"

# --- prove / verify-proof ---------------------------------------------
run "prove" 0 "$WT" prove --log-dir "$L" 2
cp "$TMP/out" "$TMP/proof"
has proof "c2sp.org/tlog-proof@v1"
run "verify-proof" 0 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/proof" && has out "OK: entry 2"
sed 's/^index 2$/index 3/' "$TMP/proof" >"$TMP/proof2"
# input over the 256 KiB limit is no proof nor request: 1 and 400 (it was
# exit 2, "nothing concluded", which a hook may retry)
head -c 300000 /dev/zero | tr '\0' A >"$TMP/bigproof"
run "verify-proof: too large" 1 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/bigproof" && has err "input too large (over 262144 bytes)" && oneline
run "witness: too large" 1 "$WT" witness --state "$TMP/wtoobig" --vkey "$VKEY" --request "$TMP/bigproof" && has err ": 400: bad request: $TMP/bigproof: input too large"
run "verify-proof wrong index" 1 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/proof2"
run "verify-proof invalid --json" 1 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/proof2" --json && has out '"valid": false' && has out '"reason": "the audit path does not lead'
# an index at or past the checkpoint's size is said as such (it read as a
# path that does not lead to the root)
sed 's/^index 2$/index 9223372036854775807/' "$TMP/proof" >"$TMP/proof3"
run "verify-proof: index past the tree" 1 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/proof3" &&
    has out "INVALID: the entry's index 9223372036854775807 is not below the checkpoint's tree size"
# no proof at all: with --json an object on standard output too (a JSON
# reader got nothing)
: >"$TMP/emptyproof"
run "verify-proof --json: not a proof" 1 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/emptyproof" --json &&
    has out '"reason": "not a proof: tlog-proof: line 1' && has err "tlog-proof: line 1"
run "verify-proof --json: too large" 1 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/bigproof" --json &&
    has out '"reason": "not a proof: input too large"'
# a log origin with a bidi override: printed with '?' for its bytes (it showed
# its end first on a terminal)
run "init: bidi origin" 0 "$WT" init --log-dir "$TMP/bidi" --origin "$(printf 'gpu7.example.com/\342\200\256TIDUA')"
BVKEY=$(tail -1 "$TMP/out")
"$WT" prove --log-dir "$TMP/bidi" 0 >"$TMP/bproof" 2>/dev/null
run "verify-proof: bidi origin shown cleaned" 0 "$WT" verify-proof --vkey "$BVKEY" --proof "$TMP/bproof" &&
    has out "OK: entry 0 is in gpu7.example.com/???TIDUA at size 1"
# a holder of the log's key can sign any lines into a tree: what verify-proof
# prints as the log's record at INDEX is one, with that seq
if [ -n "$AW" ]; then
    sed -n 1,2p "$L/log.jsonl" >"$TMP/two.lines"
    { sed -n 2p "$L/log.jsonl"; sed -n 1p "$L/log.jsonl"; } >"$TMP/swapped.lines"
    printf 'not a record\nx\n' >"$TMP/junk.lines"
    "$AW" --forge-proof "$L/log.key" 1 <"$TMP/two.lines" >"$TMP/fp_ok" &&
        "$AW" --forge-proof "$L/log.key" 0 <"$TMP/swapped.lines" >"$TMP/fp_seq" &&
        "$AW" --forge-proof "$L/log.key" 0 <"$TMP/junk.lines" >"$TMP/fp_junk" ||
        { echo "FAIL [forge-proof]: audit_writer --forge-proof failed"; fails=$((fails + 1)); }
    run "verify-proof: a signed tree of the log's first lines" 0 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/fp_ok" && has out "OK: entry 1"
    run "verify-proof: seq 1 signed at index 0" 1 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/fp_seq" && has out "INVALID: the entry's seq is not its index in the log"
    run "verify-proof: a signed line that is no record" 1 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/fp_junk" --json && has out '"reason": "the entry is not a log record"'
    check "verify-proof: the forged line not printed" test "$(grep -c 'not a record' "$TMP/out")" = 0
fi
run "prove beyond" 1 "$WT" prove --log-dir "$L" 100000
# a directory made for a log or a witness's state is made durable in its
# parent (fsync of the directory holding it): a crash could take a new
# witness's whole state away, and it would cosign a rollback
if command -v strace >/dev/null 2>&1 && [ "${3:-}" != asan ]; then
    "$WT" consistency --log-dir "$L" --old 0 >"$TMP/req0" 2>/dev/null
    mkdir -p "$TMP/wdur"
    strace -f -qq -y -o "$TMP/dsyncs" -e trace=fsync "$WT" witness --state "$TMP/wdur/state" --vkey "$VKEY" --request "$TMP/req0" >/dev/null 2>&1
    check "witness state: its parent synced" grep -q "<$TMP/wdur>)" "$TMP/dsyncs"
    strace -f -qq -y -o "$TMP/dsyncs" -e trace=fsync "$WT" init --log-dir "$TMP/ldur/a/b/" >/dev/null 2>&1
    check "new log directories: their parents synced" sh -c 'grep -q "<$1/ldur/a>)" "$2" && grep -q "<$1/ldur>)" "$2" && grep -q "<$1>)" "$2"' sh "$TMP" "$TMP/dsyncs"
fi
# ... and a parent that may be written but not read (mode 0733) is no error:
# the sync needs it opened, and the new log directory was refused, then taken
# as durable on the next try (as root, run as nobody)
# (skipped where nobody cannot run the binary: a build under a private directory)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
    setpriv --reuid=65534 --regid=65534 --clear-groups "$WT" --version >/dev/null 2>&1; then
    chmod 711 "$TMP"
    mkdir -m 0733 "$TMP/wxp"
    run "init under a write-only parent" 0 setpriv --reuid=65534 --regid=65534 --clear-groups "$WT" init --log-dir "$TMP/wxp/log"
    check "init under a write-only parent: the log" test -f "$TMP/wxp/log/log.jsonl"
    chmod 700 "$TMP"
fi

# --- witness: cosign, grow, cosign again; a fork below it is caught ----
W=$TMP/witness
"$WT" consistency --log-dir "$L" --old 0 >"$TMP/req" 2>"$TMP/err"
run "witness first" 0 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req"
has out "— "
WVKEY=$(sed -n 's/.*created witness key; its verifier key: *//p' "$TMP/err")
# witnesses started at once on a new state directory: one key, taken by all
# (the losers of the key's creation failed: "cannot create .../witness.key:
# File exists", exit 2); one cosigns, the others see its size (409)
for r in 1 2 3 4 5 6 7 8; do
    for k in 1 2 3 4; do
        "$WT" witness --state "$TMP/wrace$r" --vkey "$VKEY" --request "$TMP/req" >/dev/null 2>"$TMP/wrace$r.$k.err" &
    done
    wait
done
check "concurrent new witnesses: no key creation failure" sh -c '! grep -l "File exists\|cannot create" "$@"' sh "$TMP"/wrace*.err
check "concurrent new witnesses: one key each" sh -c 'for d in "$@"; do test "$(ls "$d" | grep -c "^witness.key$")" = 1 || exit 1; done' sh "$TMP"/wrace1 "$TMP"/wrace8
run "witness key is not a log key" 2 "$WT" verify-log --log-dir "$L" --vkey "$WVKEY" && has err "not a log's verifier key (key type 0x04, a witness's cosignature key" && oneline
WCK=$(ls "$W"/log-*.checkpoint)
OLD=$(sed -n 2p "$WCK")
cp "$L/checkpoint" "$TMP/ck_small" # smaller than what follows
SMALL=$(sed -n 2p "$TMP/ck_small")
run "watch more" 0 "$WT" watch --backend synthetic --interval 0 --iterations 3 --log-dir "$L"
"$WT" consistency --log-dir "$L" --old "$OLD" >"$TMP/req" 2>"$TMP/err"
run "witness grow" 0 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req"
run "witness conflict" 1 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req" && has err "409"
# the checkpoint held, sent from its own size with a proof line: an extra
# proof, refused (422) but not called a fork
NOW=$(sed -n 2p "$L/checkpoint")
"$WT" consistency --log-dir "$L" --old "$NOW" >"$TMP/req_same" 2>/dev/null
awk 'NR == 1 { print; print "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="; next } 1' "$TMP/req_same" >"$TMP/req_extra"
run "witness: a proof at the size held" 1 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req_extra" &&
    has err "422: a checkpoint of the size this witness holds ($NOW) takes an empty proof; this one has 1 hash"
check "witness: a proof at the size held is not called a fork" sh -c '! grep -q forked "$1"' sh "$TMP/err"
# another witness process holding the state lock: wait, then exit 2 (it
# waited forever, silently)
if command -v flock >/dev/null; then
    flock "$W/state.lock" sleep 8 &
    FL=$!
    sleep 0.5
    run "witness: state lock held" 2 timeout 20 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req_same" &&
        has err "$W/state.lock is in use: another witness process has held it for 5 s"
    kill "$FL" 2>/dev/null
    wait "$FL" 2>/dev/null
fi
# a bad --name: said as such, before any state directory is made
run "witness: bad --name" 2 "$WT" witness --state "$TMP/wname" --vkey "$VKEY" --name 'a+b' --request "$TMP/req_same" &&
    has err "--name 'a+b': not a key name" && oneline
check "witness: bad --name, no state directory" test ! -e "$TMP/wname"
# a request that cannot be read: no state directory nor key made either
run "witness: request unreadable" 2 "$WT" witness --state "$TMP/wnoreq" --vkey "$VKEY" --request "$TMP/no/such/request" &&
    has err "cannot open $TMP/no/such/request"
check "witness: request unreadable, no state directory" test ! -e "$TMP/wnoreq"
# an old size larger than the checkpoint's own can never be valid (C2SP
# tlog-witness): 400 before the 409 comparison with the size held, whether the
# witness holds this log or nothing yet; nothing stored
cp "$WCK" "$TMP/wck_before"
sed 's/^old .*/old 99999/' "$TMP/req" >"$TMP/req_big"
run "witness: old larger than the checkpoint" 1 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req_big" &&
    has err "400: bad request: old size 99999 is larger than the checkpoint's size"
check "witness: old larger than the checkpoint, not stored" cmp -s "$WCK" "$TMP/wck_before"
run "witness (new): old larger than the checkpoint" 1 "$WT" witness --state "$TMP/wbig" --vkey "$VKEY" --request "$TMP/req_big" &&
    has err "400: bad request: old size 99999 is larger than the checkpoint's size"
check "witness (new): old larger than the checkpoint, nothing stored" sh -c '! ls "$1"/log-*.checkpoint 2>/dev/null' sh "$TMP/wbig"
# a cosignature that could not be printed (stdout full) after the checkpoint was
# stored: the message says how to get it again, and a request from the size
# held gets the same checkpoint cosigned again
run "watch more (lost cosignature)" 0 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$L"
OLD=$(sed -n 2p "$WCK")
"$WT" consistency --log-dir "$L" --old "$OLD" >"$TMP/req" 2>"$TMP/err"
NEW=$(sed -n 2p "$L/checkpoint")
run "witness: cosignature not written" 2 sh -c '"$1" witness --state "$2" --vkey "$3" --request "$4" >/dev/full' sh "$WT" "$W" "$VKEY" "$TMP/req" &&
    has err "the checkpoint is stored: a request from size $NEW (consistency --old $NEW) gets it cosigned again"
"$WT" consistency --log-dir "$L" --old "$NEW" >"$TMP/req" 2>"$TMP/err"
run "witness: the stored checkpoint cosigned again" 0 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req" &&
    has out "— " && has err "at size $NEW (was $NEW)"
# a validly signed checkpoint smaller than the one held, sent from the size
# held: 400 (docs/audit-log.md; the log shrank), nothing stored
cp "$WCK" "$TMP/wck_before"
{ printf 'old %s\n\n' "$NEW"; cat "$TMP/ck_small"; } >"$TMP/req_small"
run "witness: smaller checkpoint" 1 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req_small" &&
    has err "400: the checkpoint (size $SMALL) is smaller than the one this witness holds ($NEW)"
check "witness: smaller checkpoint not stored" cmp -s "$WCK" "$TMP/wck_before"
run "verify against witness" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --against "$WCK"
# its stored copy damaged (a character of the log key's signature changed):
# said as damaged state (exit 2), not as "another log key" (403, exit 1)
rm -rf "$TMP/wdmg" && cp -r "$W" "$TMP/wdmg"
python3 - "$TMP/wdmg/$(basename "$WCK")" <<'PY'
import sys
p = sys.argv[1]
ls = open(p, encoding="utf-8").read().split("\n")
i = next(k for k, l in enumerate(ls) if l.startswith("\u2014 "))
c = ls[i][-5]
ls[i] = ls[i][:-5] + ("B" if c != "B" else "C") + ls[i][-4:]
open(p, "w", encoding="utf-8").write("\n".join(ls))
PY
run "witness: damaged stored copy" 2 "$WT" witness --state "$TMP/wdmg" --vkey "$VKEY" --request "$TMP/req" && has err "the witness state is damaged"
# a FIFO planted as the stored copy: refused at once (the witness hung in
# open(), holding its state lock, until a writer came)
rm -rf "$TMP/wfifo" && cp -r "$W" "$TMP/wfifo" && rm "$TMP/wfifo/$(basename "$WCK")" && mkfifo "$TMP/wfifo/$(basename "$WCK")"
run "witness: FIFO as the stored copy" 2 timeout 10 "$WT" witness --state "$TMP/wfifo" --vkey "$VKEY" --request "$TMP/req" && has err "unreadable witness state: not a regular file"
# a FIFO planted as the log: the writers refuse it at once (they hung in
# open(), holding log.lock), as the readers did
"$WT" init --log-dir "$TMP/logfifo" >/dev/null 2>&1 && rm "$TMP/logfifo/log.jsonl" && mkfifo "$TMP/logfifo/log.jsonl"
run "FIFO log: recover" 1 timeout 10 "$WT" recover --log-dir "$TMP/logfifo" && has err "log.jsonl: not a regular file"
run "FIFO log: classify --log-dir" 1 timeout 10 "$WT" classify --backend synthetic --samples 20 --log-dir "$TMP/logfifo" && has err "log.jsonl: not a regular file"
run "FIFO log: watch" 1 timeout 10 "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 1 --log-dir "$TMP/logfifo" && has err "log.jsonl: not a regular file"
# an --against file that is not a checkpoint: nothing concluded (exit 2), the
# JSON says so without naming a damage, and stderr has the message
printf 'not a checkpoint\n' >"$TMP/notckpt"
run "verify against garbage --json" 2 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --against "$TMP/notckpt" --json && has out '"status": "error"' && has out '"damage": null' && has err "verify-log: "
check "verify against garbage --json: the key read is pinned" grep -qF '"key_pinned": true' "$TMP/out"
# a key that cannot be read: also a JSON answer (stdout had been empty)
run "verify bad vkey --json" 2 "$WT" verify-log --log-dir "$L" --vkey a+b+c --json && has out '"status": "error"' && has out '"valid": false' && has err "--vkey"
# ... naming the log file, as every verify-log --json does (it named the
# --log-dir, or "" for $WT_LOG_DIR)
check "verify bad vkey --json: the log file" grep -qF "\"log\": \"$L/log.jsonl\"" "$TMP/out"
# ... and a key that could not be read pins nothing (it said key_pinned true)
check "verify bad vkey --json: not pinned" grep -qF '"key_pinned": false' "$TMP/out"
run "verify bad vkey --json, WT_LOG_DIR" 2 env WT_LOG_DIR="$L" "$WT" verify-log --vkey a+b+c --json && has out "\"log\": \"$L/log.jsonl\""
# a request that resends the held checkpoint with extra signature lines is
# cosigned without them: the witness stays readable
SIZE=$(sed -n 2p "$WCK")
{ printf 'old %s\n\n' "$SIZE"; cat "$L/checkpoint"; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do printf '\342\200\224 junk%s AAAAAAAA\n' "$i"; done; } >"$TMP/req_junk"
run "witness junk lines" 0 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req_junk"
check "witness state without junk" sh -c "! grep -q junk '$WCK'"
"$WT" consistency --log-dir "$L" --old "$SIZE" >"$TMP/req" 2>"$TMP/err"
run "witness after junk" 0 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req"
run "verify against witness after junk" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --against "$WCK"
# an auditor can require the witness's cosignature on the copy: a checkpoint
# the log key alone signed (the log owner's own) is refused then
run "verify-log: --against the witness's copy, cosignature required" 0 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --against "$WCK" --witness-vkey "$WVKEY"
cp "$L/checkpoint" "$TMP/ck_own"
run "verify-log: --against the log's own checkpoint, cosignature required" 2 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --against "$TMP/ck_own" --witness-vkey "$WVKEY" --json &&
    has out "$TMP/ck_own carries no valid cosignature by the witness" && has out '"status": "error"'
run "verify-log: the log's own checkpoint and the witness's copy" 2 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --against "$WCK" "$TMP/ck_own" --witness-vkey "$WVKEY" &&
    has err "$TMP/ck_own carries no valid cosignature by the witness"
# DIR/log.jsonl named as a file is also held to its other side file, which
# the log key alone signs: not required to be cosigned
cp -r "$L" "$TMP/lboth"
cp "$TMP/lboth/checkpoint" "$TMP/lboth/log.jsonl.checkpoint"
run "verify-log --log-file DIR/log.jsonl: both side files, cosignature required" 0 "$WT" verify-log --log-file "$TMP/lboth/log.jsonl" --vkey "$VKEY" --against "$WCK" --witness-vkey "$WVKEY"
printf 'no note\n' >"$TMP/ck_junk"
run "verify-log: --against junk, cosignature required" 2 "$WT" verify-log --log-dir "$L" --vkey "$VKEY" --against "$TMP/ck_junk" --witness-vkey "$WVKEY" &&
    has err "$TMP/ck_junk: note: "
run "verify-log: --witness-vkey without --against" 2 "$WT" verify-log --log-dir "$L" --witness-vkey "$WVKEY" && has err "--witness-vkey goes with --against" && oneline
run "verify-log: a log key as --witness-vkey" 2 "$WT" verify-log --log-dir "$L" --against "$WCK" --witness-vkey "$VKEY" && has err "not a witness's cosignature key"
# a proof against the witness's cosigned copy carries the cosignature: an
# auditor can require it (a proof the log key alone signed is refused then)
run "prove with the witness's copy" 0 "$WT" prove --log-dir "$L" --checkpoint "$WCK" 2
cp "$TMP/out" "$TMP/wproof"
run "verify-proof: cosigned" 0 "$WT" verify-proof --vkey "$VKEY" --witness-vkey "$WVKEY" --proof "$TMP/wproof" && has out "OK: entry 2"
"$WT" prove --log-dir "$L" 2 >"$TMP/lproof"
run "verify-proof: log key only, witness required" 1 "$WT" verify-proof --vkey "$VKEY" --witness-vkey "$WVKEY" --proof "$TMP/lproof" && has out "no valid cosignature by this witness"
run "verify-proof: log key only" 0 "$WT" verify-proof --vkey "$VKEY" --proof "$TMP/lproof"
run "verify-proof: a log key as the witness" 2 "$WT" verify-proof --vkey "$VKEY" --witness-vkey "$VKEY" --proof "$TMP/wproof" && has err "not a witness's cosignature key" && oneline
run "prove: a checkpoint of another log" 1 "$WT" prove --log-dir "$L" --checkpoint "$TMP/notckpt" 2 && has err "--checkpoint $TMP/notckpt"
# the key holder truncates and rewrites: the witness copy exposes it
cp -r "$L" "$TMP/forged"
head -5 "$TMP/forged/log.jsonl" >"$TMP/forged/x" && mv "$TMP/forged/x" "$TMP/forged/log.jsonl"
rm -f "$TMP/forged/checkpoint"
run "forged, no checkpoint file: refused" 1 "$WT" recover --log-dir "$TMP/forged" && has err "checkpoint file $TMP/forged/checkpoint is missing"
run "forged recover" 0 "$WT" recover --log-dir "$TMP/forged" --reseal && has err "which no signed checkpoint covered"
run "forged alone verifies" 0 "$WT" verify-log --log-dir "$TMP/forged" --vkey "$VKEY"
run "forged vs witness: truncated" 1 "$WT" verify-log --log-dir "$TMP/forged" --vkey "$VKEY" --against "$WCK"
has out "truncated"
# ... and spoiling the side file as well does not turn that into "nothing
# concluded" (exit 2): the witness copy still shows the cut
mv "$TMP/forged/checkpoint" "$TMP/forged/checkpoint.kept" && mkdir "$TMP/forged/checkpoint"
run "forged vs witness, side file a directory: truncated" 1 "$WT" verify-log --log-dir "$TMP/forged" --vkey "$VKEY" --against "$WCK" --json
has out '"damage": "truncated"'
has out "besides, a checkpoint could not be used"
# alone it is damage too, as a deleted side file is (it was "nothing
# concluded", exit 2)
run "side file a directory, nothing else: bad-checkpoint" 1 "$WT" verify-log --log-dir "$TMP/forged" --vkey "$VKEY" --json \
    && has out '"damage": "bad-checkpoint"' && has out "is a directory"
rmdir "$TMP/forged/checkpoint" && mv "$TMP/forged/checkpoint.kept" "$TMP/forged/checkpoint"
# past the witnessed size, whatever it is: the background watches above log for
# as long as the checks take, so it varies with the machine's speed (68..126
# under ASan; a fixed 60 left the forged log shorter: "truncated", then 400)
run "forged grows" 0 "$WT" watch --backend synthetic --interval 0 --iterations "$(($(sed -n 2p "$WCK") + 10))" --seal-every 0 --log-dir "$TMP/forged"
run "forged vs witness: rewritten" 1 "$WT" verify-log --log-dir "$TMP/forged" --vkey "$VKEY" --against "$WCK"
has out "rewritten"
N2=$(sed -n 2p "$WCK")
"$WT" consistency --log-dir "$TMP/forged" --old "$N2" >"$TMP/req" 2>"$TMP/err"
run "witness refuses fork" 1 "$WT" witness --state "$W" --vkey "$VKEY" --request "$TMP/req" && has err "422"

# --- tampering is named ------------------------------------------------
cp -r "$L" "$TMP/t1"
sed -i '4s/"conf_ppm":[0-9]*/"conf_ppm":1/' "$TMP/t1/log.jsonl"
run "edited line named" 1 "$WT" verify-log --log-dir "$TMP/t1" --json
has out '"line": 4'
cp -r "$L" "$TMP/t2"
sed -i '6d' "$TMP/t2/log.jsonl"
run "deleted line named" 1 "$WT" verify-log --log-dir "$TMP/t2"
has out "log.jsonl:6: sequence"
# a forged line appended after the last signed one (a copy of line 2 with
# the next seq): the forged line is named, not the signed line before it
cp -r "$L" "$TMP/t2b"
nl2=$(wc -l <"$TMP/t2b/log.jsonl")
sed -n 2p "$TMP/t2b/log.jsonl" | sed "s/\"seq\":1,/\"seq\":$nl2,/" >>"$TMP/t2b/log.jsonl"
run "appended forgery named" 1 "$WT" verify-log --log-dir "$TMP/t2b" --json
has out "\"line\": $((nl2 + 1))"
has out "covers as it is (signed)"
has out "\"sealed\": $nl2"
run "appended forgery: the report shows the signed lines" 1 "$WT" report --log-dir "$TMP/t2b" --out "$TMP/t2b.html" && has err "the report shows lines 1..$nl2 only"
# the prev of a last line that is a checkpoint record, edited in a log
# without its side file: that line is named (its own signed note has the
# root of the lines before it), not the intact line before it
"$WT" init --log-dir "$TMP/t2c" >/dev/null 2>&1
"$WT" watch --backend synthetic --interval 0 --window 5 --iterations 2 --seal-every 1 --heartbeat 3600 --log-dir "$TMP/t2c" >/dev/null 2>&1
rm "$TMP/t2c/checkpoint"
nl3=$(wc -l <"$TMP/t2c/log.jsonl")
check "last-line prev: the last line is a checkpoint record" sh -c "tail -1 '$TMP/t2c/log.jsonl' | grep -q '\"type\":\"checkpoint\"'"
sed -i '$s/"prev":"[^"]*"/"prev":"ERERERERERERERERERERERERERERERERERERERERERE="/' "$TMP/t2c/log.jsonl"
run "last-line prev named" 1 "$WT" verify-log --log-dir "$TMP/t2c" && has out "log.jsonl:$nl3: broken-link: the 'prev' field of this line was altered (its own checkpoint"
cp -r "$L" "$TMP/t3"
head -n -2 "$L/log.jsonl" >"$TMP/t3/log.jsonl"
run "truncation named" 1 "$WT" verify-log --log-dir "$TMP/t3"
has out "truncated"
run "refuse to append to damaged" 1 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$TMP/t1"
has err "refusing to append"
# the refusal names the log by its path, as the writers' other messages do
# (an epilog's "log.jsonl:3: ..." said not which log)
has err "$TMP/t1/log.jsonl:"
"$WT" init --log-dir "$TMP/other" --origin test.example/log1 >"$TMP/out" 2>&1
run "wrong vkey (same origin, another key)" 1 "$WT" verify-log --log-dir "$L" --vkey "$(tail -1 "$TMP/out")"
has out "wrong-key"

# --- fdatasync failing at random under watch (libfiu): nothing is lost or
# logged twice; skipped without fiu-run and under ASan (LD_PRELOAD) ------
if command -v fiu-run >/dev/null 2>&1 && [ "${3:-}" != asan ]; then
    for i in 1 2 3 4 5; do
        FL=$TMP/fiu$i
        "$WT" init --log-dir "$FL" >/dev/null 2>&1
        fiu-run -x -c "enable_random name=posix/io/sync/fdatasync,probability=0.1" \
            "$WT" watch --backend synthetic --interval 0 --iterations 40 --log-dir "$FL" \
            >/dev/null 2>"$TMP/fiu.err"
        rc=$?
        classes=$(grep -c '"type":"class"' "$FL/log.jsonl")
        dups=$(grep -o '"t_first_ms":[0-9]*' "$FL/log.jsonl" | sort | uniq -d | wc -l)
        check "fiu $i: exit 0 or 1 ($rc)" test $rc = 0 -o $rc = 1
        check "fiu $i: no window logged twice" test "$dups" = 0
        # a line whose fdatasync failed is the writer's own: not reported at
        # the reopen as lines "written ... by someone without the key"
        check "fiu $i: its own lines are not news" sh -c '! grep -q "no signed checkpoint covered" "$1"' sh "$TMP/fiu.err"
        if [ $rc = 0 ]; then
            check "fiu $i: all 40 windows logged ($classes)" test "$classes" = 40
        else
            check "fiu $i: the error is reported" grep -q "fdatasync\|cannot sync\|could not" "$TMP/fiu.err"
        fi
        "$WT" verify-log --log-dir "$FL" >/dev/null 2>&1
        rc=$?
        check "fiu $i: verifies (0 or 3: $rc)" test $rc = 0 -o $rc = 3
    done
else
    echo "skipped: fault injection under watch (no fiu-run, or an ASan build)"
fi

# ---- standard output closed (`watch --json | head`): no death by SIGPIPE; the
# log is sealed (a final checkpoint record) and watch exits 1 with one line
n=$((n + 1))
{ "$WT" watch --backend synthetic --interval 0.01 --json --heartbeat 60 --seal-every 1000 \
    --log-dir "$TMP/pipe" 2>"$TMP/pipe.err"; echo $? >"$TMP/pipe.rc"; } | head -n 3 >/dev/null
if [ "$(cat "$TMP/pipe.rc")" != 1 ] || ! grep -q 'cannot write to standard output: Broken pipe' "$TMP/pipe.err" ||
    ! tail -n 1 "$TMP/pipe/log.jsonl" | grep -q '"type":"checkpoint"' ||
    ! "$WT" verify-log --log-dir "$TMP/pipe" >/dev/null; then
    echo "FAIL [watch-closed-pipe]: exit $(cat "$TMP/pipe.rc")"; sed 's/^/    /' "$TMP/pipe.err" | tail -3
    fails=$((fails + 1))
fi

# ---- a full disk while nothing is queued (a heartbeat due): the writer retries
# after half a second, then 1, 2, 4 s..., not in a busy loop (a 64 KiB tmpfs:
# needs root, else skipped)
mkdir -p "$TMP/full"
if mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2>/dev/null; then
    n=$((n + 1))
    { printf 't_s,gpu,util_gpu_pct,power_w\n'; for i in $(seq 0 19); do printf '%s,0,90,300\n' "$i"; done; sleep 6; } |
        "$WT" watch --trace - --window 10 --heartbeat 1 --log-dir "$TMP/full/log" >/dev/null 2>"$TMP/full.err" &
    wpid=$!
    sleep 1.5
    dd if=/dev/zero of="$TMP/full/fill" bs=4k count=256 2>/dev/null # 1 MiB: more than the tmpfs holds (bounded, should a mount have failed)
    sleep 3
    errs=$(grep -c 'No space left' "$TMP/full.err")
    kill "$wpid" 2>/dev/null
    wait "$wpid" 2>/dev/null
    if [ "$errs" -lt 1 ] || [ "$errs" -gt 20 ]; then
        echo "FAIL [full-disk-idle]: $errs write errors in 3 s (retries after 0.5, 1, 2 s give about 3)"
        fails=$((fails + 1))
    fi
    umount "$TMP/full"
    # a log that cannot even be reopened (the disk filled between two runs): the
    # error counter keeps rising while it stays full (it stayed at its first value)
    mount -t tmpfs -o size=400k tmpfs "$TMP/full"
    n=$((n + 1))
    "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 1 --log-dir "$TMP/full/log" >/dev/null 2>&1
    dd if=/dev/zero of="$TMP/full/fill" bs=4k count=256 2>/dev/null # 1 MiB: more than the tmpfs holds (bounded, should a mount have failed)
    mkdir -p "$TMP/tf"
    "$WT" watch --backend synthetic --interval 0 --window 5 --log-dir "$TMP/full/log" --textfile "$TMP/tf" >/dev/null 2>"$TMP/full.err" &
    wpid=$!
    errs() { sed -n 's/^workloadtruth_audit_append_errors_total //p' "$TMP/tf/workloadtruth.prom" 2>/dev/null; }
    sleep 2
    e1=$(errs)
    sleep 2.5
    e2=$(errs)
    t0=$(date +%s%N)
    kill "$wpid" 2>/dev/null
    wait "$wpid" 2>/dev/null
    t1=$(date +%s%N)
    if [ -z "$e1" ] || [ -z "$e2" ] || [ "$e2" -le "$e1" ] || ! grep -q 'could not be written' "$TMP/full.err"; then
        echo "FAIL [full-disk-reopen]: append errors $e1 then $e2 (they should rise)"; sed 's/^/    /' "$TMP/full.err" | tail -3
        fails=$((fails + 1))
    fi
    # after the stop, its last three tries are half a second apart (a passing
    # error gets its chance to clear); they had come milliseconds apart
    n=$((n + 1))
    if [ $(((t1 - t0) / 1000000)) -lt 900 ]; then
        echo "FAIL [full-disk-stop-tries]: gave up $(((t1 - t0) / 1000000)) ms after SIGTERM (3 tries 0.5 s apart take 1 s)"
        fails=$((fails + 1))
    fi
    umount "$TMP/full"
    # started on a full disk after a run that could not seal (its checkpoint file
    # is behind the log, so opening must sign a new one, which cannot be written):
    # watch runs, /healthz says 503, records queue, and once the disk has room they
    # are all written and sealed (it exited 1 at once, and restarted in a loop)
    mount -t tmpfs -o size=400k tmpfs "$TMP/full"
    n=$((n + 1))
    FD=$TMP/full/log
    "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 1 --log-dir "$FD" >/dev/null 2>&1
    cp "$FD/checkpoint" "$TMP/cp.old"
    "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 1 --log-dir "$FD" >/dev/null 2>&1
    cp "$TMP/cp.old" "$FD/checkpoint" # as if the last publish and seal had failed
    before=$(grep -c '"type":"class"' "$FD/log.jsonl")
    dd if=/dev/zero of="$TMP/full/fill" bs=4k count=256 2>/dev/null # 1 MiB: more than the tmpfs holds (bounded, should a mount have failed)
    "$WT" watch --backend synthetic --interval 0.1 --window 5 --log-dir "$FD" --listen 127.0.0.1:0 \
        >"$TMP/fs.out" 2>"$TMP/fs.err" &
    wpid=$!
    until_true 20 grep -q 'checkpoint.tmp: No space left on device; will retry' "$TMP/fs.err"
    port=$(sed -n 's/.*http:\/\/127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' "$TMP/fs.err")
    why=""
    if ! kill -0 "$wpid" 2>/dev/null; then
        why="exited at the start"
    elif ! grep -q 'checkpoint.tmp: No space left on device; will retry' "$TMP/fs.err"; then
        why="no 'will retry'"
    elif command -v curl >/dev/null && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")" != 503 ]; then
        why="/healthz is not 503 on a full disk"
    else
        rm -f "$TMP/full/fill"
        # the writer's pause has grown to 2 or 4 s by now: healthy within 15 s
        i=0
        while command -v curl >/dev/null && [ $i -lt 150 ] &&
            [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")" != 200 ]; do
            i=$((i + 1))
            sleep 0.1
        done
        [ $i -lt 150 ] || why="/healthz still not 200 15 s after the disk had room"
    fi
    kill "$wpid" 2>/dev/null
    wait "$wpid"
    rc=$?
    after=$(grep -c '"type":"class"' "$FD/log.jsonl")
    windows=$(grep -c 'GPU 0:' "$TMP/fs.out")
    if [ -z "$why" ] && [ $rc != 0 ]; then
        why="exit $rc after the disk had room"
    elif [ -z "$why" ] && [ $((after - before)) != "$windows" ]; then
        why="$windows windows, $((after - before)) logged"
    elif [ -z "$why" ] && ! "$WT" verify-log --log-dir "$FD" >/dev/null 2>&1; then
        why="verify-log: not every line sealed"
    # the lines it found unsealed are not "signed" before the checkpoint file
    # that signs them is written; and the journal says when writes came back
    elif [ -z "$why" ] && { grep -q 'signed lines' "$TMP/fs.err" ||
        ! grep -q 'which no signed checkpoint covered .*will be signed once the checkpoint file can be written' "$TMP/fs.err"; }; then
        why="the unsealed lines were called signed before the checkpoint file was written"
    elif [ -z "$why" ] && ! grep -q 'log.jsonl: records written again' "$TMP/fs.err"; then
        why="nothing said that records were written again"
    fi
    if [ -n "$why" ]; then
        echo "FAIL [full-disk-start]: $why"; sed 's/^/    /' "$TMP/fs.err" | tail -4
        fails=$((fails + 1))
    fi
    umount "$TMP/full"
    # a stop signal on a disk that filled just before: the final heartbeat's
    # three tries are half a second apart too (the signal ended each pause at
    # once: three tries in milliseconds)
    mount -t tmpfs -o size=400k tmpfs "$TMP/full"
    n=$((n + 1))
    "$WT" watch --backend synthetic --interval 0.1 --window 10 --heartbeat 60 --seal-every 0 \
        --log-dir "$TMP/full/log" >/dev/null 2>"$TMP/st.err" &
    wpid=$!
    # the log open and written to before the disk fills
    until_true 20 grep -qs '"type":"class"' "$TMP/full/log/log.jsonl"
    sleep 0.5
    dd if=/dev/zero of="$TMP/full/fill" bs=4k count=256 2>/dev/null # 1 MiB: more than the tmpfs holds (bounded, should a mount have failed)
    t0=$(date +%s%N)
    kill -TERM "$wpid" 2>/dev/null
    wait "$wpid" 2>/dev/null
    t1=$(date +%s%N)
    if [ $(((t1 - t0) / 1000000)) -lt 900 ]; then
        echo "FAIL [full-disk-signal-tries]: gave up $(((t1 - t0) / 1000000)) ms after SIGTERM (3 tries 0.5 s apart take 1 s)"
        sed 's/^/    /' "$TMP/st.err" | tail -2
        fails=$((fails + 1))
    fi
    umount "$TMP/full"
    # a writer keeps the log's locks while it waits to retry after a failed
    # write: closing the log released them, and a second watch took the log
    # during the pause (it wrote its records among the first one's)
    mount -t tmpfs -o size=400k tmpfs "$TMP/full"
    n=$((n + 1))
    "$WT" watch --backend synthetic --interval 0.02 --window 10 --heartbeat 5 --log-dir "$TMP/full/log" \
        >/dev/null 2>"$TMP/w1.err" &
    wpid=$!
    until_true 20 grep -qs '"type":"class"' "$TMP/full/log/log.jsonl"
    dd if=/dev/zero of="$TMP/full/fill" bs=4k count=256 2>/dev/null # 1 MiB: more than the tmpfs holds (bounded, should a mount have failed)
    sleep 2
    timeout 20 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$TMP/full/log" \
        >/dev/null 2>"$TMP/w2.err"
    rc=$?
    kill "$wpid" 2>/dev/null
    wait "$wpid" 2>/dev/null
    if [ $rc != 1 ] || ! grep -q 'is in use: another writer holds' "$TMP/w2.err"; then
        echo "FAIL [full-disk-one-writer]: a second watch during the first one's retry pause: exit $rc"
        sed 's/^/    /' "$TMP/w2.err" | tail -2
        fails=$((fails + 1))
    fi
    umount "$TMP/full"
    # a disk too full for the new log's genesis record: said at once (it waited
    # about 10 s for an init, then called the log deleted, its key being
    # there), and the key made for it removed, so that a start after space is
    # freed creates the log (every later start refused, until an init by hand)
    mount -t tmpfs -o size=64k tmpfs "$TMP/full"
    dd if=/dev/zero of="$TMP/full/fill" bs=1k count=60 2>/dev/null
    run "full disk at the first start: said" 1 timeout 8 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$TMP/full/log" \
        && has err "cannot create the audit log: cannot write the genesis record" && has err "No space left on device"
    check "full disk at the first start: no key left" test ! -e "$TMP/full/log/log.key"
    rm -f "$TMP/full/fill"
    run "full disk at the first start: created once there is room" 0 "$WT" watch --backend synthetic --interval 0 --iterations 1 --log-dir "$TMP/full/log"
    umount "$TMP/full"
else
    echo "skipped: full disk under watch (mounting a tmpfs needs root)"
fi

echo "$n checks, $fails failed"
[ "$fails" = 0 ]
