#!/bin/sh
# End-to-end tests of the workloadtruth command line: exit codes, one-line
# errors for bad flags and inputs, text/JSON output, --declared verdicts,
# replay from files and standard input, and eval.
#
# usage: cli_test.sh WORKLOADTRUTH TESTDATA_DIR [SHARED_TRACES_DIR]
set -u
. "$(dirname "$0")/wait.sh"
WT=$1
DATA=$2
SHARED=${3:-}
REPO=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
n=0

# run NAME WANT_RC CMD... : runs CMD, keeps stdout/stderr in $TMP/out, $TMP/err
run() {
    name=$1; want=$2; shift 2
    n=$((n + 1))
    "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL [$name]: exit $rc, wanted $want: $*"
        sed 's/^/    stderr: /' "$TMP/err" | head -5
        fails=$((fails + 1))
        return 1
    fi
    return 0
}
# has FILE TEXT : FILE contains TEXT (fixed string)
has() {
    if ! grep -qF -- "$2" "$TMP/$1"; then
        echo "FAIL [$name]: $1 lacks '$2'"
        sed 's/^/    got: /' "$TMP/$1" | head -8
        fails=$((fails + 1))
    fi
}
check() { # NAME CONDITION-COMMAND...: a check that runs no command of its own
    name=$1
    shift
    if ! "$@"; then
        echo "FAIL [$name]: $*"
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

# ---- version and help
run version 0 "$WT" --version && has out "workloadtruth "
run help 0 "$WT" --help && has out "classify"
for c in classify benchmark eval; do
    run "help-$c" 0 "$WT" "$c" --help && has out "usage: workloadtruth $c"
done
# --help takes prefixes as every long option does (argparse): "--hel" was
# "unknown option"; a prefix that is also another option's is ambiguous
run help-prefix 0 "$WT" classify --hel && has out "usage: workloadtruth classify"
run help-prefix-top 0 "$WT" --hel && has out "classify"
run help-prefix-ambiguous 2 "$WT" eval --h && has err "could match --holdout, --help" && oneline
run help-value 2 "$WT" classify --help=x && has err "--help takes no value" && oneline
# a list option stops at any option, '-h' included (it read '-h' and '-json'
# as paths, exit 1); a value that starts with '-' is an option, not the value,
# unless it is a number or '-' alone
run list-stops-at-h 0 "$WT" eval --traces "$TMP" -h && has out "usage: workloadtruth eval"
run list-stops-at-dash 2 "$WT" eval --traces "$TMP" -json && has err "unknown option '-json'" && oneline
run value-not-dash-option 2 "$WT" record --backend synthetic --duration 1 --out -x && has err "not the option '-x'" && oneline
check value-not-dash-option-nofile test ! -e ./-x
run value-negative-number 2 "$WT" classify --backend synthetic --samples -5 && has err "not a whole number: '-5'" && oneline
run equals-no-name 2 "$WT" classify --=x && has err "unknown option '--=x'" && oneline
# checked before the features are read ("unknown feature 'x'" before)
run features-without-holdout 2 "$WT" eval "$TMP" --features x && has err "--features goes with --holdout" && oneline
# metric labels with no metrics: refused (silently ignored before)
run label-style-no-metrics 2 "$WT" watch --backend synthetic --label-style dcgm --iterations 1 --interval 0 && has err "--label-style goes with --listen or --textfile" && oneline
# an agent that fails at start in its --textfile directory says up 0 there,
# without a GPU's gauges (a killed agent's file said up 1 through failed restarts)
mkdir -p "$TMP/stale"
printf 'workloadtruth_up 1\nworkloadtruth_gpu_workload_class{gpu="0",class="training"} 1\n' >"$TMP/stale/workloadtruth.prom"
run watch-fails-textfile 1 "$WT" watch --backend nvml --nvml-lib "$TMP/no-such-lib.so" --textfile "$TMP/stale" --iterations 1 --log-dir "$TMP/stalelog" &&
    has err "cannot load the NVIDIA management library"
check watch-fails-textfile-up0 grep -qx 'workloadtruth_up 0' "$TMP/stale/workloadtruth.prom"
check watch-fails-textfile-no-class test "$(grep -c '^workloadtruth_gpu_workload_class' "$TMP/stale/workloadtruth.prom")" = 0
# --columns keeping nothing the classifier reads: all UNKNOWN, said (a bare
# "0.0%" with exit 0 before)
if [ -n "$SHARED" ] && [ -d "$SHARED" ]; then
    run columns-nothing-to-read 0 "$WT" eval --columns energy_j "$SHARED/hap" && has err "every scored window is UNKNOWN" && has out "0.0%"
fi
run no-command 2 "$WT"
run unknown-command 2 "$WT" frobnicate && has err "unknown command 'frobnicate'" && oneline
run mcp-help 0 "$WT" mcp --help && has out "usage: workloadtruth mcp"
# a last line of blanks without its newline is a blank line: ignored (it was
# answered with a parse error)
run mcp-blank-last-line 0 sh -c "printf '   ' | \"\$1\" mcp" sh "$WT"
check mcp-blank-last-line-silent test ! -s "$TMP/out"
# an invalid notification is noted on standard error on one line, whatever a
# member name holds (a newline in it forged a second line)
printf '%s\n' '{"jsonrpc":"2.0","method":"x","\n[FORGED] line":1}' >"$TMP/mcpnl.jsonl"
run mcp-notification-one-line 0 sh -c '"$0" mcp <"$1"' "$WT" "$TMP/mcpnl.jsonl" && has err "ignored a notification" && oneline
run mcp-token-without-http 2 "$WT" mcp --token-file /nonexistent && has err "go with --http" && oneline
# a NUL in the token file's first line cut the token there (the server then took
# its first 16 bytes as the whole token)
printf '0123456789abcdef\000the-rest-of-a-long-secret\n' >"$TMP/nultoken"
chmod 600 "$TMP/nultoken"
run mcp-token-with-nul 1 timeout 10 "$WT" mcp --http 127.0.0.1:0 --token-file "$TMP/nultoken" && has err "holds a NUL byte" && oneline
run mcp-bad-addr 2 "$WT" mcp --http nonsense && has err "expected HOST:PORT" && oneline
# a batch's answers are collected whole, then written as one line: bounded
# (16 MiB), the requests past it refused unrun (1000 check_declaration calls
# were a 21 MB line; a batch of recent_classifications held 1.8 GB)
python3 - >"$TMP/batch.jsonl" <<'PY'
import json
print(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
print(json.dumps([{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "check_declaration", "arguments": {"declared": "training"}}} for i in range(1000)]))
PY
run mcp-batch-bounded 0 sh -c '"$0" mcp --backend synthetic --log-dir "$1" <"$2"' "$WT" "$TMP/mcpbatch" "$TMP/batch.jsonl" && has out "exceed the size limit"
check mcp-batch-bounded-line test "$(tail -1 "$TMP/out" | wc -c)" -lt 18000000
# the MCP writer holds its log's side files inside --log-dir, as the tools
# reading the log do: a checkpoint linked out was read, then renamed over
"$WT" classify --backend synthetic --samples 10 --interval 0.001 --log-dir "$TMP/mcpln" >/dev/null 2>&1
mv "$TMP/mcpln/checkpoint" "$TMP/outside.checkpoint"
ln -s "$TMP/outside.checkpoint" "$TMP/mcpln/checkpoint"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"classify_workload","arguments":{"profile":"idle","write_to_audit_log":true}}}' >"$TMP/mcpln.jsonl"
run mcp-log-link-out 0 sh -c '"$0" mcp --backend synthetic --log-dir "$1" <"$2"' "$WT" "$TMP/mcpln" "$TMP/mcpln.jsonl" && has out "leads outside the directory the server may read" && has out '"isError":true'
check mcp-log-link-out-kept test -L "$TMP/mcpln/checkpoint"
# a newline in the address is echoed as '?' (it forged a line of its own)
run mcp-bad-addr-newline 2 "$WT" mcp --http "zz
FORGED" && has err "'zz?FORGED': expected HOST:PORT" && oneline
run mcp-public-without-token 2 env -u WT_MCP_TOKEN "$WT" mcp --http 0.0.0.0:0 && has err "not a loopback address" && oneline
run mcp-allow-host-bad 2 "$WT" mcp --http 127.0.0.1:0 --allow-host "ok.example,a b" && has err "'a b' is not a host name" && oneline
run mcp-allow-host-port 2 "$WT" mcp --http 127.0.0.1:0 --allow-host "gpu7:8765" && has err "'gpu7:8765' is not a host name" && has err "no port" && oneline
# a token that is not one names where it came from
printf 'abc def ghijklmnopqrstu\n' >"$TMP/tok" && chmod 600 "$TMP/tok"
run mcp-token-space 1 timeout 5 "$WT" mcp --http 127.0.0.1:0 --token-file "$TMP/tok" && has err "--token-file $TMP/tok: the token must be printable ASCII without spaces" && oneline
run mcp-token-short 1 env WT_MCP_TOKEN=short timeout 5 "$WT" mcp --http 127.0.0.1:0 && has err '$WT_MCP_TOKEN: the token is too short (5 characters' && oneline
# an empty name is refused, not skipped (as in --columns and --features)
for a in ',' 'a,,b' 'gpu7,' ''; do
    run "mcp-allow-host-empty[$a]" 2 timeout 5 "$WT" mcp --http 127.0.0.1:0 --allow-host "$a" && has err "an empty name in the list" && oneline
done

# ---- bad flags and values: one line, exit 2
run unknown-flag 2 "$WT" classify --bogus && has err "unknown option '--bogus'" && oneline
run bad-int 2 "$WT" classify --samples ten && has err "--samples: not a whole number: 'ten'" && oneline
run neg-int 2 "$WT" classify --samples -3 && oneline
run range 2 "$WT" classify --samples 1 && has err "out of range" && oneline
# a decimal too big to hold is out of range, not malformed (and the bound
# printed is the integer, not a double rounded up past it)
run range-u64-overflow 2 "$WT" classify --backend synthetic --seed 18446744073709551616 && has err "--seed: 18446744073709551616 is out of range (0..18446744073709551615)" && oneline
run range-double-overflow 2 "$WT" classify --backend synthetic --interval 1e400 && has err "--interval: 1e400 is out of range (0.001..3600)" && oneline
run range-junk-still-malformed 2 "$WT" classify --backend synthetic --interval 1e4x && has err "not a number: '1e4x'" && oneline
run bad-float 2 "$WT" classify --interval fast && has err "--interval: not a number" && oneline
# a well-formed decimal of 64 or more characters is a number (it was "not a number")
z70=0000000000000000000000000000000000000000000000000000000000000000000000
run long-decimal-out-of-range 2 "$WT" classify --backend synthetic --interval "0.${z70}1" && has err "is out of range (0.001..3600)" && oneline
run long-decimal-in-range 0 "$WT" classify --backend synthetic --samples 5 --interval "1.${z70}" --json && has out '"sample_count": 5'
run bad-choice 2 "$WT" classify --backend amd && has err "invalid choice 'amd'" && oneline
run bad-profile 2 "$WT" classify --backend synthetic --profile mining && oneline
run bad-declared 2 "$WT" classify --backend synthetic --declared gaming && has err "--declared" && oneline
run missing-value 2 "$WT" classify --samples && has err "needs a value" && oneline
run next-option-not-a-value 2 "$WT" classify --trace --json && has err "not the option '--json'" && oneline
# power with nothing to scale it by (no power_limit_w, a GPU model the table
# does not know) is said, not left to guess; a known model is not named
run eval-no-power-scale 0 "$WT" eval --traces "$DATA/labelled.csv" --window 5 && has err "labelled.csv: no power scale (no power_limit_w column, and GPU model 'Test GPU' is not in the rated-power table)"
run eval-no-power-scale-columns 0 "$WT" eval --traces "$DATA/labelled.csv" --window 5 --columns util_gpu_pct,power_w && has err "labelled.csv: no power scale (power_limit_w not among --columns, and GPU model 'Test GPU'"
run eval-no-power-scale-json 0 "$WT" eval --traces "$DATA/labelled.csv" --window 5 --json && has out '"power_scale": false'
sed 's/^# gpu_model: .*/# gpu_model: NVIDIA H100 80GB HBM3/' "$DATA/labelled.csv" >"$TMP/h100.csv"
run eval-power-scale-known 0 "$WT" eval --traces "$TMP/h100.csv" --window 5 && check eval-power-scale-known-quiet sh -c "! grep -q 'power scale' \"\$0\"" "$TMP/err"
# --label over a replayed trace whose own label line said another class: the
# file said both (rows INFERENCE, "# label: TRAINING")
printf '# label: TRAINING\nt_s,power_w,util_gpu_pct\n0,100,50\n1,100,50\n' >"$TMP/flabel.csv"
# a note that is not UTF-8 is written with '?' for its bad bytes, and read back
run record-note-not-utf8 0 "$WT" record --backend synthetic --duration 0.5 --out "$TMP/note8.csv" --evasion-note "$(printf 'x\377y')" &&
    check record-note-not-utf8-written grep -q "^# evasion: x?y\$" "$TMP/note8.csv"
run record-note-not-utf8-read 0 "$WT" record --trace "$TMP/note8.csv" --out - && has out "# evasion: x?y" &&
    check record-note-not-utf8-not-cut sh -c "! grep -q 'is cut' \"\$0\"" "$TMP/err"
run record-label-replaces-trace-label 0 "$WT" record --trace "$TMP/flabel.csv" --label INFERENCE --out - && has out "# label: INFERENCE"
# a replayed trace's own label in the format's spelling (it was copied as
# "# label: training")
printf '# label: training\nt_s,power_w,util_gpu_pct\n0,100,50\n1,100,50\n' >"$TMP/flabel-lc.csv"
run record-label-canonical 0 "$WT" record --trace "$TMP/flabel-lc.csv" --out - && has out "# label: TRAINING"
# a last line with no newline is read, with a warning, once (the replay
# source's counting pass is quiet): a recorder killed mid-row leaves 300.5 as 3
printf 't_s,gpu,util_gpu_pct,power_w\n0,0,50,300.5\n1,0,50,300.5\n2,0,50,3' >"$TMP/cut.csv"
run record-cut-last-line 0 "$WT" record --trace "$TMP/cut.csv" --out - && has out "2.000,0,50" &&
    has err "cut.csv:4: the last line has no newline" &&
    check record-cut-last-line-once test "$(grep -c 'no newline' "$TMP/err")" = 1
# ... once, though train reads the file once per view
mkdir -p "$TMP/cutdir" && awk 'BEGIN { print "# label: TRAINING"; print "# gpu_model: NVIDIA H100 80GB HBM3";
    print "t_s,gpu,util_gpu_pct,power_w"; for (i = 0; i < 40; i++) printf "%d,0,90,%d\n", i, (i % 3 ? 600 : 300);
    printf "40,0,90,60" }' >"$TMP/cutdir/cut.csv"
run train-cut-last-line 0 "$WT" train --traces "$TMP/cutdir" --out "$TMP/cut.model" --simulate 1 --python-windows 1 &&
    check train-cut-last-line-once test "$(grep -c 'no newline' "$TMP/err")" = 1
# rows of two GPUs under a misnamed GPU column (gpu_index) merge into GPU 0:
# said once (a training GPU and an idle one were read as one, exit 0)
awk 'BEGIN { print "t_s,gpu_index,util_gpu_pct,power_w"; for (i = 0; i < 40; i++) printf "%d,0,95,650\n%d,1,0,70\n", i, i }' >"$TMP/gpuidx.csv"
run misnamed-gpu-column 0 "$WT" classify --trace "$TMP/gpuidx.csv" --samples 30 &&
    has err "gpuidx.csv:7: GPU 0 has a second row at the same t_s (2) measuring the same columns" &&
    check misnamed-gpu-column-once test "$(grep -c 'second row' "$TMP/err")" = 1
# nvidia-smi on a host of mixed GPUs: one power field is read for the file,
# and a GPU that leaves it [N/A] while another field has a value is said
{ echo 'timestamp, index, name, utilization.gpu [%], power.draw.instant [W], power.draw [W]'
  for i in 10 11 12; do echo "2024/04/03 10:47:$i.100, 1, NVIDIA H100 80GB HBM3, 95 %, 600.00 W, 590.00 W"
      echo "2024/04/03 10:47:$i.120, 0, NVIDIA A100-SXM4-80GB, 95 %, [N/A], 350.00 W"; done; } >"$TMP/mixedpower.csv"
run nvsmi-mixed-power 0 "$WT" record --trace "$TMP/mixedpower.csv" --out - &&
    has err "mixedpower.csv:3: column 'power.draw.instant [W]' is empty on this row (GPU 0) while 'power.draw [W]' has a value"
# header names in any letter case: `GPU` had been dropped, two GPUs read as one
printf 'T_S,GPU,util_gpu_pct,Power_W\n0,0,50,100\n0,1,0,50\n' >"$TMP/case.csv"
run record-header-any-case 0 "$WT" record --trace "$TMP/case.csv" --out - && has out "0.000,1,0,"
check record-label-no-old-label-line sh -c "! grep -q '^# label: TRAINING' \"\$0\"" "$TMP/out"
# recording a trace over itself emptied it while it was read (exit 0, the trace lost)
cp "$DATA/labelled.csv" "$TMP/inplace.csv"
run record-over-its-trace 2 "$WT" record --trace "$TMP/inplace.csv" --out "$TMP/./inplace.csv" && has err "is the trace being replayed" && oneline
check record-over-its-trace-kept cmp -s "$DATA/labelled.csv" "$TMP/inplace.csv"
# ... also when the trace comes on standard input (it was replaced, exit 0)
run record-over-stdin 2 sh -c "\"\$0\" record --trace - --out \"\$1\" <\"\$1\"" "$WT" "$TMP/inplace.csv" && has err "is the file on standard input" && oneline
run record-over-dev-stdin 2 sh -c "\"\$0\" record --trace - --out /dev/stdin <\"\$1\"" "$WT" "$TMP/inplace.csv" && has err "is the file on standard input" && oneline
check record-over-stdin-kept cmp -s "$DATA/labelled.csv" "$TMP/inplace.csv"
# a bad row on standard input fails the run, as in a file (it exited 0); the
# rows before it are kept
printf 't_s,power_w\n0,1\n1,2\n2,3\n3,x\n4,5\n' >"$TMP/badrow.csv"
run record-stdin-bad-row 1 sh -c "\"\$0\" record --trace - --out \"\$1\" <\"\$2\"" "$WT" "$TMP/badrow.out.csv" "$TMP/badrow.csv" && has err "<stdin>:5: column 'power_w': not a number: 'x'"
check record-stdin-bad-row-kept test "$(grep -c '^[0-9]' "$TMP/badrow.out.csv")" = 3
# ... said once, not once per GPU replayed (it was said by each)
printf 't_s,gpu,power_w\n0,0,1\n0,1,1\n1,0,2\n1,1,2\n2,0,x\n' >"$TMP/badrow2.csv"
run record-stdin-bad-row-once 1 sh -c "\"\$0\" record --trace - --gpus 0,1 --out \"\$1\" <\"\$2\"" "$WT" "$TMP/badrow2.out.csv" "$TMP/badrow2.csv" && has err "<stdin>:6: column 'power_w': not a number: 'x'"
check record-stdin-bad-row-once-said-once test "$(grep -c 'not a number' "$TMP/err")" = 1
# the GPUs of standard input not named are said, with their rows (dropped unsaid)
printf 't_s,gpu,power_w\n0,0,1\n0,1,1\n0,2,1\n1,0,2\n1,1,2\n1,2,2\n' >"$TMP/three.csv"
run record-stdin-other-gpus 0 sh -c "\"\$0\" record --trace - --out \"\$1\" <\"\$2\"" "$WT" "$TMP/three.out.csv" "$TMP/three.csv" &&
    has err "standard input also held GPUs 1, 2 (4 rows): not recorded (--gpus 0, the default from standard input; --gpus 0,1,2 records them)"
run record-stdin-named-gpus 0 sh -c "\"\$0\" record --trace - --gpus 0,1,2 --out \"\$1\" <\"\$2\"" "$WT" "$TMP/three.out.csv" "$TMP/three.csv" &&
    check record-stdin-named-gpus-unsaid test "$(grep -c 'also held' "$TMP/err")" = 0
# a metadata line near the line limit, re-written as "# key: value", is cut
# to fit and said (the trace was refused: "metadata 'k' is 65538 bytes")
python3 -c "import sys; open(sys.argv[1],'w').write('#k:'+'x'*65533+'\nt_s,power_w\n0,1\n1,1\n')" "$TMP/longmeta.csv"
run record-long-meta 0 "$WT" record --trace "$TMP/longmeta.csv" --out "$TMP/longmeta.out.csv" && has err "the trace's k is cut to its first"
run record-long-meta-reads 0 "$WT" gpus --trace "$TMP/longmeta.out.csv"
# a model name longer than a GPU name holds is cut on re-record: said
python3 -c "import sys; open(sys.argv[1],'w').write('# gpu_model: NVIDIA H100 '+'x'*120+'\nt_s,power_w\n0,1\n1,2\n')" "$TMP/longname.csv"
run record-long-model 0 "$WT" record --trace "$TMP/longname.csv" --out "$TMP/longname.out.csv" && has err "the trace's gpu_model is 132 bytes: written cut to its first 95"
# the trace being replayed is not standard output's file, nor is standard
# input's file or pipe the output (the rows were appended to the trace, or
# replaced it, exit 0; on one pipe record read its own rows back)
cp "$DATA/fake_gpu.csv" "$TMP/self.csv"
run record-out-stdout-is-trace 2 sh -c '"$0" record --trace "$1" --out - >>"$1"' "$WT" "$TMP/self.csv" && has err "is the trace being replayed"
check record-out-stdout-is-trace-intact cmp "$TMP/self.csv" "$DATA/fake_gpu.csv"
run record-out-stdout-is-stdin 2 sh -c '"$0" record --trace - --out - <"$1" 1<>"$1"' "$WT" "$TMP/self.csv" && has err "(standard output) is the file on standard input"
check record-out-stdout-is-stdin-intact cmp "$TMP/self.csv" "$DATA/fake_gpu.csv"
run record-out-stdin-pipe 2 sh -c 'cat "$1" | "$0" record --trace - --out /dev/stdin' "$WT" "$TMP/self.csv" && has err "is the pipe on standard input (--trace -): recording into it would read its own rows back"
run record-stdin-pipe-to-pipe 0 sh -c 'cat "$1" | "$0" record --trace - --out - | cat >/dev/null' "$WT" "$TMP/self.csv"
# --out a directory is refused before standard input is read (a live pipe's
# rows were read, then lost to "Is a directory"): a FIFO no one writes, so
# a read would wait for ever
mkfifo "$TMP/never.fifo"
run record-out-dir 1 timeout 20 sh -c '"$0" record --trace - --out "$1" <>"$2"' "$WT" "$TMP" "$TMP/never.fifo" && has err "Is a directory" && oneline
# an existing --out is written in place: it needs to be writable, not its
# directory (as root, run as nobody; skipped where nobody cannot run the binary)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
    setpriv --reuid=65534 --regid=65534 --clear-groups "$WT" --version >/dev/null 2>&1; then
    chmod 711 "$TMP"
    mkdir -m 0755 "$TMP/rootdir"
    : >"$TMP/rootdir/mine.csv"
    chown 65534 "$TMP/rootdir/mine.csv"
    run record-out-in-others-dir 0 setpriv --reuid=65534 --regid=65534 --clear-groups "$WT" record --backend synthetic --duration 0.5 --out "$TMP/rootdir/mine.csv"
    check record-out-in-others-dir-written grep -q '^# format: workloadtruth-trace/1' "$TMP/rootdir/mine.csv"
    run record-out-not-writable 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$WT" record --backend synthetic --duration 0.5 --out "$TMP/rootdir/other.csv" && has err "cannot create" && oneline
    chmod 700 "$TMP"
fi
# standard output redirected to a file on a full disk (a 64 KiB tmpfs: needs
# root, else skipped) is cut back to its last whole row, as --out FILE is (it
# ended on half a row, which the reader refuses)
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2>/dev/null; then
    python3 -c "print('t_s,util_gpu_pct,power_w'); [print('%d,%d,%d.5' % (i, i % 100, 100 + i % 300)) for i in range(6000)]" >"$TMP/big.csv"
    run record-stdout-full 1 sh -c '"$0" record --trace "$1" --out - >"$2"' "$WT" "$TMP/big.csv" "$TMP/small/b.csv" && has err "No space left on device"
    check record-stdout-full-whole-rows test "$(tail -c 1 "$TMP/small/b.csv" | od -An -tx1 | tr -d ' ')" = 0a
    run record-stdout-full-reads 0 "$WT" gpus --trace "$TMP/small/b.csv"
    rm -f "$TMP/small/b.csv"
    # the rows of a failed write that reached the disk are kept up to the last
    # whole one: a synthetic recording is one write of up to 1 MiB, and the
    # file was cut back to its header (0 rows where about 900 fit)
    run record-full-keeps-rows 1 "$WT" record --backend synthetic --duration 1000 --out "$TMP/small/s.csv" && has err "No space left on device"
    check record-full-keeps-rows-count test "$(grep -c '^[0-9]' "$TMP/small/s.csv")" -gt 500
    run record-full-keeps-rows-reads 0 "$WT" gpus --trace "$TMP/small/s.csv"
    # a disk too full for the header: a file made by record is removed (an
    # empty file had stayed, which is no trace); one that was there stays
    : >"$TMP/small/was.csv"
    dd if=/dev/zero of="$TMP/small/fill" bs=1k count=64 2>/dev/null
    run record-full-no-header 1 "$WT" record --backend synthetic --duration 5 --out "$TMP/small/new.csv" && has err "No space left on device"
    check record-full-no-header-no-file test ! -e "$TMP/small/new.csv"
    run record-full-no-header-old 1 "$WT" record --backend synthetic --duration 5 --out "$TMP/small/was.csv" && has err "No space left on device"
    check record-full-no-header-old-kept test -f "$TMP/small/was.csv"
    # ... made through a dangling link too (the link stays, its target goes)
    ln -s target.csv "$TMP/small/link.csv"
    run record-full-no-header-link 1 "$WT" record --backend synthetic --duration 5 --out "$TMP/small/link.csv" && has err "No space left on device"
    check record-full-no-header-link-target test ! -e "$TMP/small/target.csv" -a -L "$TMP/small/link.csv"
    umount "$TMP/small"
fi
# --duration's endpoint counts from any start (0.1 + 0.3 read past 0.4 - 0.1:
# 3 rows from t = 0.1, 4 from t = 0)
{ echo t_s,power_w; for i in 1 2 3 4 5 6 7 8; do echo "0.$i,100"; done; } >"$TMP/dt.csv"
run record-duration-endpoint 0 "$WT" record --trace "$TMP/dt.csv" --duration 0.3 --out - &&
    check record-duration-endpoint-rows test "$(grep -c '^0\.' "$TMP/out")" = 4
# times closer than 1 ns are written in plain decimals (%.17g wrote 1e-10,
# an exponent the trace format does not allow)
printf 't_s,gpu,power_w\n0,0,100\n0.0000000001,0,101\n' >"$TMP/tiny-dt.csv"
run record-time-no-exponent 0 "$WT" record --trace "$TMP/tiny-dt.csv" --out - && has out "0.0000000001,0," &&
    check record-time-no-exponent-none test "$(grep -c '^[0-9.]*e' "$TMP/out")" = 0
# a tiny negative energy reading was written "-0.000"
printf 't_s,energy_j\n0,-0.0004\n' >"$TMP/negz.csv"
run record-no-negative-zero 0 "$WT" record --trace "$TMP/negz.csv" --out - && has out "0.000,0,,,,,,,,0.000," &&
    check record-no-negative-zero-cell sh -c "! grep -q -- '-0.000' \"\$0\"" "$TMP/out"
# a pipe whose other end set O_NONBLOCK: EAGAIN was an error, half a row sent
python3 - "$WT" >"$TMP/nb.out" <<'PY'
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen([sys.argv[1], "record", "--backend", "synthetic", "--duration", "3000", "--out", "-"], stdout=w, stderr=subprocess.DEVNULL)
os.close(w)
time.sleep(0.5)  # the pipe fills: the writer meets EAGAIN
data = b""
while True:
    b = os.read(r, 65536)
    if not b:
        break
    data += b
print("rc", p.wait(), "rows", data.count(b"\n"), "whole", data.endswith(b"\n"))
PY
check record-nonblocking-pipe grep -q "^rc 0 rows 30[0-9][0-9] whole True\$" "$TMP/nb.out"
# a valid output name of 247 bytes: its temporary name (NAME.PID.N) was too
# long, the work lost at the end (ENAMETOOLONG)
long=$(printf 'd%.0s' $(seq 247)).csv
{ printf '# gpu_model: NVIDIA H100 80GB HBM3\n# label: TRAINING\nt_s,util_gpu_pct,power_w\n'; for i in $(seq 0 59); do echo "$i,95,600"; done; } >"$TMP/lt.csv"
run dump-long-name 0 "$WT" eval "$TMP/lt.csv" --dump-features "$TMP/$long" &&
    check dump-long-name-written test -s "$TMP/$long"
run record-bad-profile 2 "$WT" record --backend synthetic --profile bogus --duration 1 --out "$TMP/bp.csv" && has err "invalid choice 'bogus'" && oneline
# SIGINT and SIGTERM end a generated recording too (the synthetic and
# simulator sources never looked at the stop: only kill -9 ended a long
# --duration), with a valid trace up to the last sample
for sig in INT TERM; do
    for prof in training dense-training; do
        "$WT" record --backend synthetic --profile "$prof" --duration 31536000 --out "$TMP/long.csv" 2>"$TMP/long.err" &
        rp=$!
        # once its handlers are in (a signal before would kill it, or be
        # ignored: SIGINT in a background job)
        until_true 20 catches $rp
        sleep 0.2
        kill -"$sig" $rp
        i=0
        while kill -0 $rp 2>/dev/null && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
        check "record $prof: SIG$sig stops it" sh -c '! kill -0 "$1" 2>/dev/null' sh $rp
        kill -9 $rp 2>/dev/null
        wait $rp
        check "record $prof: SIG$sig: exit 0" test $? = 0
        run "record $prof: SIG$sig: a valid trace" 0 "$WT" classify --trace "$TMP/long.csv" --samples 10
        rm -f "$TMP/long.csv"
    done
done
# a signal while a write waits on a full pipe (a slow reader): the write was
# not resumed (exit 1, "Interrupted system call"; after a second signal the
# output ended in half a row); now the rows are written and it stops cleanly
# (the reader starts once both signals are sent, at most 60 s on)
sh -c 'echo $$ >"$1"; exec "$2" record --backend synthetic --duration 31536000 --out - 2>"$3"' \
    sh "$TMP/slow.pid" "$WT" "$TMP/slow.err" |
    (until_true 60 test -e "$TMP/slow.go"; cat >"$TMP/slow.csv") &
until_true 20 test -s "$TMP/slow.pid"
rp=$(cat "$TMP/slow.pid")
until_true 20 catches "$rp"
sleep 0.5 # the pipe fills in milliseconds
kill -TERM $rp
sleep 0.5
kill -TERM $rp 2>/dev/null
: >"$TMP/slow.go"
wait
n=$((n + 1))
grep -q "samples written to standard output" "$TMP/slow.err" ||
    { echo "FAIL [record-slow-reader-signals]: $(cat "$TMP/slow.err")"; fails=$((fails + 1)); }
run "record-slow-reader-signals: a valid trace" 0 "$WT" classify --trace "$TMP/slow.csv" --samples 10
# a model name longer than the 95 bytes kept is cut on a character: it was cut
# inside the last one, shown (and re-recorded) as '?'
E=$(printf '\303\251')
M="NVIDIA x$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E"
printf '# workloadtruth-trace/1\n# gpu_model: %s\nt_s,gpu,power_w\n0,0,200\n1,0,200\n' "$M" >"$TMP/longname.csv"
printf '# workloadtruth-trace/1\n# gpu_models: 0=%s; 1=Tesla T4\nt_s,gpu,power_w\n0,0,200\n0,1,70\n' "$M" >"$TMP/longname2.csv"
for f in longname longname2; do
    run "gpus-$f-cut-on-a-character" 0 "$WT" gpus --trace "$TMP/$f.csv" &&
        has out "GPU 0: NVIDIA x$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E$E" &&
        check "gpus-$f: no '?'" sh -c '! grep -q "?" "$1"' sh "$TMP/out"
done
run value-with-dashes-after-eq 1 "$WT" classify --trace=--json && has err "--json"
run flag-value 2 "$WT" classify --json=yes && oneline
run positional 2 "$WT" classify stray && has err "unexpected argument 'stray'" && oneline
run bench-bad 2 "$WT" benchmark --trials 0 && oneline
run bench-window 2 "$WT" benchmark --window 1 && oneline
run bench-window-min 2 "$WT" benchmark --window 4 && has err "needs at least 5" && oneline
run bench-window-rules 0 "$WT" benchmark --window 2 --trials 2 --classifier rules
run eval-none 2 "$WT" eval && has err "no traces given" && oneline
run eval-window 2 "$WT" eval --window 0 "$DATA" && oneline
# power only, no limit, no GPU model: when the GPU is busy cannot be told
{ echo "t_s,power_w"; i=0; while [ $i -lt 30 ]; do echo "$i,300"; i=$((i + 1)); done; } >"$TMP/ponly.csv"
run power-only-unrated 0 "$WT" classify --trace "$TMP/ponly.csv" --samples 30 && has out "UNKNOWN" &&
    has out "cannot tell when the GPU is active"
# a power limit of 0 is no limit: no "0% of the default limit" tamper indicator
{ echo "t_s,util_gpu_pct,power_w,power_limit_w,power_default_limit_w"; i=0
  while [ $i -lt 30 ]; do echo "$i,90,300,0,700"; i=$((i + 1)); done; } >"$TMP/limit0.csv"
run limit-zero 0 "$WT" classify --trace "$TMP/limit0.csv" --samples 30 --json && has out '"limit_ratio": null'
mkdir "$TMP/empty"
run eval-empty-dir 1 "$WT" eval "$TMP/empty" && has err "no trace files (*.csv) found in '$TMP/empty'" && oneline
# Unix-epoch times 224 million seconds apart: cutting windows used to loop forever
printf 't_s,power_w,label\n1000000000.1,100,TRAINING\n1224170740.1,100,TRAINING\n' >"$TMP/epoch.csv"
run eval-epoch-gap 1 timeout 20 "$WT" eval "$TMP/epoch.csv" && has err "2 short"
run trace-backend 2 "$WT" classify --backend synthetic --trace "$DATA/labelled.csv" && oneline
run replay-notrace 2 "$WT" classify --backend replay && oneline
run prefix 0 "$WT" classify --back synthetic --prof idle --classif rules && has out "workload_type : IDLE"
run ambiguous 2 "$WT" classify --samp 5 && has err "ambiguous option '--samp' (could match --sample-hz, --samples)" && oneline

# ---- classify, synthetic
run cls-text 0 "$WT" classify --backend synthetic --classifier rules
has out "workload_type : TRAINING"
has out "confidence    : 1.00"
has out "gpu_index     : 0"
has out "samples       : 10 over 9.0s"
has out "reasons:"
has out "  - avg GPU utilization"
run cls-json 0 "$WT" classify --backend synthetic --profile inference --samples 30 --json
has out '"workload_type": "INFERENCE"'
has out '"sample_count": 30'
has out '"window_seconds": 29.0'
has out '"avg_process_count": 1.0'
run cls-idle 0 "$WT" classify --backend synthetic --profile idle && has out "workload_type : IDLE"
run cls-seed 0 "$WT" classify --backend synthetic --seed 7 --json
cp "$TMP/out" "$TMP/seed7"
run cls-seed2 0 "$WT" classify --backend synthetic --seed 7 --json
cmp -s "$TMP/out" "$TMP/seed7" || { echo "FAIL [cls-seed]: same seed, different output"; fails=$((fails + 1)); }
run cls-evasion 0 "$WT" classify --backend synthetic --evasion --samples 30 --classifier rules && has out "workload_type : UNKNOWN"
run cls-nodriver 1 env WT_NVML_LIB=/nonexistent/libnvidia-ml.so.1 "$WT" classify && has err "no NVIDIA GPU to read" && has err "use --backend synthetic, or --trace FILE" && oneline
# a malformed --listen is a usage error before the source is opened (on a host
# without a driver it was "no NVIDIA GPU", exit 1, and systemd's
# RestartPreventExitStatus=2 never stopped the restarts)
run watch-bad-listen-nodriver 2 env WT_NVML_LIB=/nonexistent/libnvidia-ml.so.1 "$WT" watch --listen foo --log-dir "$TMP/nolog" && has err "--listen 'foo': expected HOST:PORT" && oneline
check watch-bad-listen-no-log test ! -e "$TMP/nolog"

# ---- --declared verdicts and exit codes
run decl-match 0 "$WT" classify --backend synthetic --declared training && has out "verdict       : MATCH"
run decl-mismatch 3 "$WT" classify --backend synthetic --profile training --declared inference
has out "declared      : inference"
has out "verdict       : MISMATCH"
run decl-json 3 "$WT" classify --backend synthetic --declared idle --json
has out '"declared": "idle"'
has out '"verdict": "MISMATCH"'
run decl-inconclusive 0 "$WT" classify --backend synthetic --evasion --samples 30 --declared training --classifier rules
has out "verdict       : INCONCLUSIVE"
run decl-upper 0 "$WT" classify --backend synthetic --declared TRAINING

# ---- replay: trace files, nvidia-smi CSV, standard input
run replay-trace 0 "$WT" classify --trace "$DATA/labelled.csv" --samples 5 && has out "workload_type : IDLE"
run replay-start 0 "$WT" classify --trace "$DATA/labelled.csv" --samples 5 --start 5 --classifier rules && has out "workload_type : TRAINING"
run replay-short 1 "$WT" classify --trace "$DATA/labelled.csv" --samples 11
has err "has only 10 samples; --samples asks for 11" && oneline
run replay-gpu 1 "$WT" classify --trace "$DATA/labelled.csv" --gpu-index 3 && has err "no GPU 3 in this trace (GPUs: 0)"
# a FIFO (`<(...)`) is read as standard input is, as its rows come: counting
# its GPUs first read it to its end and queued every row (1M rows of 2 GPUs:
# 300 MB; 16.8M: 2.5 GB and then an error).  Streamed, the first window is
# judged and the writer, still writing, finds the pipe closed.
mkfifo "$TMP/bigfifo"
(awk 'BEGIN { print "t_s,gpu,util_gpu_pct,power_w"; for (i = 0; i < 200000; i++) printf "%.1f,0,%d,300\n%.1f,1,%d,300\n", i / 10, 50 + i % 40, i / 10, 50 + i % 40 }' >"$TMP/bigfifo" && touch "$TMP/bigfifo.all") 2>/dev/null &
run replay-fifo-streamed 0 "$WT" classify --trace "$TMP/bigfifo" --samples 50 && has out "gpu_index     : 0"
wait
check replay-fifo-streamed-not-all test ! -e "$TMP/bigfifo.all"
# the repeated-row warning names the row's line, not the line the reader has
# read ahead to (nvidia-smi CSV without a GPU column reads up to 128 rows
# ahead: it said line 8 of 8)
{ echo "timestamp, utilization.gpu [%]"; for i in 1 2 3 4 5 6 7; do echo "2024/04/03 10:47:35.000, 50 %"; done; } >"$TMP/tw.csv"
run nvsmi-repeat-line 0 "$WT" record --trace "$TMP/tw.csv" --out "$TMP/tw.out.csv" && has err "tw.csv:5: GPU 0 has a second row at the same t_s"
# a path over 255 bytes in an error: its last 200 bytes, then the line and
# what failed (it was cut at 255, naming no file; the line and reason were
# lost past the message's 512 bytes)
LONGD="$TMP/$(printf 'd%.0s' $(seq 1 150))/$(printf 'e%.0s' $(seq 1 150))/$(printf 'f%.0s' $(seq 1 200))"
mkdir -p "$LONGD" && printf 't_s,power_w\n0,abc\n' >"$LONGD/run.csv"
run long-path-named 1 "$WT" classify --trace "$LONGD/run.csv" && has err ": ...$(printf 'f%.0s' $(seq 1 192))/run.csv:2: column 'power_w': not a number: 'abc'" && oneline
run replay-profile 2 "$WT" classify --trace "$DATA/labelled.csv" --profile idle && has err "--profile goes with --backend synthetic, not --trace" && oneline
# the default backend reads the GPUs: a profile or seed there would be ignored
run auto-profile 2 "$WT" classify --profile idle && has err "--profile goes with --backend synthetic, not the default backend auto" && oneline
# the Python tool's default profile spelled out reads the GPUs, as auto does
run auto-python-default 1 env WT_NVML_LIB=/nonexistent/libnvidia-ml.so.1 "$WT" classify --profile training && has err "no NVIDIA GPU to read" && oneline
run auto-seed 2 "$WT" classify --seed 3 && has err "--seed goes with --backend synthetic" && oneline
run gpus-profile 2 "$WT" gpus --trace "$DATA/labelled.csv" --profile idle && has err "--profile goes with" && oneline
# record from standard input: rows are written as they arrive (SIGINT while the
# pipe is still open keeps them), GPU 0 unless --gpus names others.
# record_sigint NAME ROWS OUT ARGS...: feeds ROWS (t_s,gpu,power_w lines) and
# keeps the pipe open until record has ended (its pid in rs.pid; `wait` waits
# for the whole pipeline), interrupts record a second after its handlers are
# in; sets rc
record_sigint() {
    name=$1; rows=$2; out=$3; shift 3
    rm -f "$TMP/rs.pid"
    (printf 't_s,gpu,power_w\n%s' "$rows"
        until_true 60 sh -c '[ -s "$1" ] && ! kill -0 "$(cat "$1")" 2>/dev/null' sh "$TMP/rs.pid") |
        sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$TMP/rs.pid" "$WT" record --trace - --out "$out" "$@" \
            2>"$TMP/err" &
    rpid=$!
    until_true 20 catches "$rpid"
    sleep 1 # the rows, already in the pipe, are read in milliseconds
    kill -INT "$rpid" 2>/dev/null
    wait "$rpid"
    rc=$?
    n=$((n + 1))
}
both=$(for i in 0 1 2 3 4; do printf '%s,0,100\n%s,1,90\n' "$i" "$i"; done)
record_sigint record-stdin-sigint "$both
" "$TMP/live.csv"
if [ "$rc" != 0 ] || [ "$(grep -c '^[0-9.]*,0,' "$TMP/live.csv" 2>/dev/null)" != 5 ] || grep -q '^[0-9.]*,1,' "$TMP/live.csv"; then
    echo "FAIL [$name]: exit $rc"; sed 's/^/    /' "$TMP/err" | head -3; fails=$((fails + 1))
fi
# the same with --gpus 0,1 and no GPU 1 yet: GPU 0's rows are kept on SIGINT
gpu0=$(for i in 0 1 2 3 4; do printf '%s,0,100\n' "$i"; done)
record_sigint record-stdin-awaited-gpu "$gpu0
" "$TMP/live1.csv" --gpus 0,1
if [ "$rc" != 0 ] || [ "$(grep -c '^[0-9.]*,0,' "$TMP/live1.csv" 2>/dev/null)" != 5 ]; then
    echo "FAIL [$name]: exit $rc"; sed 's/^/    /' "$TMP/err" | head -3; fails=$((fails + 1))
fi
printf 't_s,gpu,power_w\n0,0,100\n0,1,90\n1,0,100\n1,1,90\n' >"$TMP/two.csv"
run record-stdin-gpus 0 sh -c '"$1" record --trace - --out "$2" --gpus 0,1 <"$3"' sh "$WT" "$TMP/live2.csv" "$TMP/two.csv"
[ "$(grep -c '^[0-9.]*,1,' "$TMP/live2.csv")" = 2 ] || { echo "FAIL [record-stdin-gpus]: GPU 1 rows missing"; fails=$((fails + 1)); }
run record-stdin-all 2 "$WT" record --trace - --out "$TMP/x.csv" --gpus all && has err "--gpus all needs a file" && oneline
# times finer than a millisecond are kept (not repeated as 0.000, 0.000, ...)
printf 't_s,gpu,power_w\n0,0,1\n0.0004,0,1\n1.5,0,2\n' >"$TMP/sub.csv"
run record-replay-no-trace 2 "$WT" record --backend replay --out "$TMP/nt.csv" && has err "--backend replay needs --trace" && oneline
run gpus-replay-no-trace 2 "$WT" gpus --backend replay && has err "--backend replay needs --trace" && oneline
printf 't_s,gpu\n' >"$TMP/hdr_only.csv"
run record-no-rows 1 "$WT" record --trace "$TMP/hdr_only.csv" --out "$TMP/hr.csv" && has err "the trace has no data rows" && oneline
printf 't_s,gpu,util_gpu_pct\n0,0,5\n0,3,5\n1,0,5\n1,3,6\n' >"$TMP/gpus03.csv"
run record-absent-gpu 2 "$WT" record --trace "$TMP/gpus03.csv" --gpus 1 --out "$TMP/g1.csv" && has err "no GPU 1 in this trace (GPUs: 0, 3)" && oneline
check "record-absent-gpu: no file" test ! -e "$TMP/g1.csv"
# one GPU of a multi-GPU file: its rows alone (the others are not kept)
run record-one-gpu 0 "$WT" record --trace "$TMP/gpus03.csv" --gpus 3 --out "$TMP/g3.csv"
check "record-one-gpu: GPU 3's two rows" test "$(grep -c '^[0-9.]*,3,' "$TMP/g3.csv")" = 2
check "record-one-gpu: no GPU 0" test "$(grep -c '^[0-9.]*,0,' "$TMP/g3.csv")" = 0
run record-sub-ms 0 "$WT" record --trace "$TMP/sub.csv" --out "$TMP/sub_r.csv"
[ "$(grep -v '^#' "$TMP/sub_r.csv" | cut -d, -f1 | tr '\n' ' ')" = "t_s 0.000 0.0004 1.500 " ] ||
    { echo "FAIL [record-sub-ms]: $(grep -v '^#' "$TMP/sub_r.csv" | cut -d, -f1 | tr '\n' ' ')"; fails=$((fails + 1)); }
# a replayed trace keeps its own source, workload and evasion (an evasion trace
# re-recorded must not come out looking clean); the options still win
printf '# source: lab run 7\n# workload: llama finetune\n# evasion: duty cycling\nt_s,gpu,util_gpu_pct\n0,0,5\n1,0,6\n' >"$TMP/ev.csv"
run record-keeps-meta 0 "$WT" record --trace "$TMP/ev.csv" --out "$TMP/ev_r.csv"
check "record-keeps-meta: kept" grep -qx '# trace_source: lab run 7' "$TMP/ev_r.csv"
check "record-keeps-meta: workload" grep -qx '# workload: llama finetune' "$TMP/ev_r.csv"
check "record-keeps-meta: evasion" grep -qx '# evasion: duty cycling' "$TMP/ev_r.csv"
# ... and a record of that record still says where the data first came from
# (the trace_source it had was dropped as a key record writes itself)
run record-of-record 0 "$WT" record --trace "$TMP/ev_r.csv" --out "$TMP/ev_rr.csv"
check "record-of-record: first source kept" grep -qx '# trace_source: lab run 7' "$TMP/ev_rr.csv"
check "record-of-record: last hop" grep -q "^# trace_source: record on .* from $TMP/ev.csv\$" "$TMP/ev_rr.csv"
run record-meta-option 0 "$WT" record --trace "$TMP/ev.csv" --out "$TMP/ev_o.csv" --workload other
check "record-meta-option: the option wins" grep -qx '# workload: other' "$TMP/ev_o.csv"
# the rest of a replayed trace's metadata is kept (the trace format: unknown keys
# are kept): provenance, phases, a key on two lines; it was dropped
printf '# format: workloadtruth-trace/1\n# source: lab run 8\n# source_commit: abc123\n# phases: 0-1 warmup\n# note: one\n# note: two\n# started: 2020-01-01T00:00:00Z\nt_s,gpu,util_gpu_pct\n0,0,5\n1,0,6\n' >"$TMP/prov.csv"
run record-keeps-other-meta 0 "$WT" record --trace "$TMP/prov.csv" --out "$TMP/prov_r.csv"
check "record-keeps-other-meta: provenance" grep -qx '# source_commit: abc123' "$TMP/prov_r.csv"
check "record-keeps-other-meta: phases" grep -qx '# phases: 0-1 warmup' "$TMP/prov_r.csv"
check "record-keeps-other-meta: both notes" test "$(grep -c '^# note: ' "$TMP/prov_r.csv")" = 2
check "record-keeps-other-meta: one format, source, started" test "$(grep -c '^# \(format\|source\|started\): ' "$TMP/prov_r.csv")" = 3
check "record-keeps-other-meta: its own start" sh -c "! grep -q '^# started: 2020' '$TMP/prov_r.csv'"
# ... and the trace's start, as trace_started (when its data was taken: gone)
check "record-keeps-other-meta: the trace's start" grep -qx '# trace_started: 2020-01-01T00:00:00Z' "$TMP/prov_r.csv"
# a carried key on several lines keeps each (a second evasion line was dropped
# without a word)
printf '# source: a\n# source: b\n# evasion: duty cycling\n# evasion: clock lock\nt_s,gpu,power_w\n0,0,1\n' >"$TMP/ev2.csv"
run record-meta-twice 0 "$WT" record --trace "$TMP/ev2.csv" --out "$TMP/ev2_r.csv"
check "record-meta-twice: both evasions" test "$(grep -c '^# evasion: ' "$TMP/ev2_r.csv")" = 2
check "record-meta-twice: both sources" test "$(grep -c '^# trace_source: [ab]$' "$TMP/ev2_r.csv")" = 2
# an --out that cannot be created is said before anything is read (a live
# pipe's rows were read, and lost, first)
printf 't_s,gpu,power_w\n0,0,1\n' >"$TMP/one_row.csv"
run classify-trace-directory 1 "$WT" classify --trace "$TMP" && has err "is a directory (a trace is one file" && oneline
run record-out-checked-first 1 "$WT" record --trace - --out "$TMP/no/such/dir/x.csv" <"$TMP/one_row.csv" &&
    has err "cannot create" && oneline
# a trace of 255 metadata lines: as many kept as a trace can hold with the
# recording's own, said so, and the trace written reads back
{ i=0; while [ $i -lt 255 ]; do printf '# k%d: v\n' $i; i=$((i + 1)); done; printf 't_s,gpu,power_w\n0,0,1\n1,0,2\n'; } >"$TMP/m255.csv"
run record-meta-full 0 "$WT" record --trace "$TMP/m255.csv" --out "$TMP/m255_r.csv" && has err "metadata line(s) of the trace not kept: a trace holds at most 256"
run record-meta-full-reads-back 0 "$WT" gpus --trace "$TMP/m255_r.csv"
# a source line as long as a trace line allows: carried, cut where the longer
# key trace_source needs it, and said so (the line had become too long)
{ printf '# source: '; head -c 65524 /dev/zero | tr '\0' x; printf '\nt_s,gpu,util_gpu_pct\n0,0,5\n1,0,6\n'; } >"$TMP/longsrc.csv"
run record-long-source 0 "$WT" record --trace "$TMP/longsrc.csv" --out "$TMP/longsrc_r.csv" && has err "the trace's source is cut to its first 65000 bytes"
check "record-long-source: cut" sh -c "[ \$(grep '^# trace_source: ' '$TMP/longsrc_r.csv' | wc -c) = 65017 ]"
# 255 metadata lines and GPUs of two models (nvidia-smi): the gpu_models key the
# reader adds does not count against the file's 256
{
    i=0
    while [ $i -lt 255 ]; do printf '# k%d: v\n' $i; i=$((i + 1)); done
    printf 'timestamp, index, name, utilization.gpu [%%]\n'
    for t in 10 11 12; do printf '2024/04/03 10:00:%s.000, 0, NVIDIA A100-SXM4-80GB, 5 %%\n2024/04/03 10:00:%s.000, 1, Tesla T4, 5 %%\n' $t $t; done
} >"$TMP/meta255.csv"
run meta255-two-models 0 "$WT" gpus --trace "$TMP/meta255.csv" && has out "GPU 1: Tesla T4"
run record-long-note 2 "$WT" record --trace "$TMP/sub.csv" --out "$TMP/sub_n.csv" --workload "$(head -c 1000 /dev/zero | tr '\0' x)" && has err "--workload: longer than 999 bytes" && oneline
# a host of 40 GPUs that differ (MIG names): record's per-GPU lists are written
# whole (they were cut at 600 bytes, leaving the last GPUs 'unknown')
{
    printf '# gpu_models: '
    for g in $(seq 0 39); do
        if [ $((g % 2)) = 1 ]; then m='NVIDIA A100-SXM4-80GB MIG 1g.10gb'; else m='NVIDIA H100 80GB HBM3'; fi
        printf '%s%s=%s' "$([ "$g" = 0 ] || echo '; ')" "$g" "$m"
    done
    printf '\n# power_semantics_per_gpu: '
    for g in $(seq 0 39); do printf '%s%s=%s' "$([ "$g" = 0 ] || echo '; ')" "$g" "$([ $((g % 2)) = 1 ] && echo instant || echo avg1s)"; done
    printf '\nt_s,gpu,power_w\n'
    for t in 0 1; do for g in $(seq 0 39); do printf '%s,%s,100\n' "$t" "$g"; done; done
} >"$TMP/many.csv"
run record-many-gpus 0 "$WT" record --trace "$TMP/many.csv" --out "$TMP/many_rr.csv"
run record-many-gpus-read 0 "$WT" gpus --trace "$TMP/many_rr.csv"
has out "GPU 39: NVIDIA A100-SXM4-80GB MIG 1g.10gb" && has out "GPU 38: NVIDIA H100 80GB HBM3"
[ "$(grep -c 'power reading   instant' "$TMP/out")" = 20 ] || { echo "FAIL [record-many-gpus-read]: power semantics lost"; fails=$((fails + 1)); }
# JSON stays valid with text that is not: a file name that is not UTF-8, a GPU
# model whose multi-byte character a reason's width cuts
mkdir -p "$TMP/lat"
{ printf '# label: IDLE\nt_s,gpu,util_gpu_pct,power_w\n'; for i in $(seq 0 59); do printf '%s,0,0,50\n' "$i"; done; } >"$TMP/lat/$(printf 'caf\351').csv"
run json-file-name 0 "$WT" eval --traces "$TMP/lat" --json && has out 'caf?.csv"'
run train-stdin 2 "$WT" train --traces - --out "$TMP/m_stdin" && has err "not standard input" && oneline
run holdout-stdin 2 "$WT" eval --holdout source - && has err "not standard input" && oneline
run bench-too-few-samples 2 "$WT" benchmark --suite sim --seconds 1 --sample-hz 0.1 --trials 2 --classifier rules && has err "samples per window" && oneline
run bench-physics-unknown 2 "$WT" benchmark --suite sim --seconds 60 --sample-hz 0.1 --trials 2 && has err "the physics classifier calls a window UNKNOWN" && oneline
run bench-physics-short 2 "$WT" benchmark --suite sim --seconds 4 --trials 2 && has err "--seconds 5 or more" && oneline
run bench-physics-periods 2 "$WT" benchmark --suite sim --seconds 5 --sample-hz 1.1 --trials 2 && has err "can give 5 samples" && oneline
run bench-sim-seconds 2 "$WT" benchmark --suite evasion --trials 100000 --seconds 5 --sample-hz 1 && has err "360000 simulated seconds per cell" && oneline
run bench-training-seed 2 "$WT" benchmark --seed 33992347316 && has err "draws its Python-profile windows with" && oneline
run bench-seed-range 2 "$WT" benchmark --seed 18446744073709551615 --trials 2 && has err "out of range" && oneline
run bench-seed-2p53 2 "$WT" benchmark --seed 9007199254740993 --trials 2 && has err "9007199254740993 is out of range" && oneline
run train-window-long 2 "$WT" train --traces "$DATA" --out "$TMP/w.model" --window 31 && has err "out of range (5..30)" && oneline
run train-window-short 2 "$WT" train --traces "$DATA" --out "$TMP/w.model" --window 4 && has err "out of range (5..30)" && oneline
run eval-holdout-window-long 2 "$WT" eval --traces "$DATA" --holdout source --window 60 && has err "with --holdout at most 30 s" && oneline
run source-double-slash 0 "$WT" eval --traces "$TMP/lat//" && has out "  lat  "
{ printf '# gpu_model: %s\302\251 GPU\nt_s,gpu,power_w\n' "$(printf 'X%.0s' $(seq 59))"; for i in $(seq 0 39); do printf '%s,0,100\n' "$i"; done; } >"$TMP/u8.csv"
run json-reason-utf8 0 "$WT" classify --trace "$TMP/u8.csv" --samples 30 --json && has out '"workload_type": "UNKNOWN"'
# a trace polled every 10 s is too sparse to judge, not a verdict
{ printf '# gpu_model: NVIDIA H100 80GB HBM3\nt_s,gpu,util_gpu_pct,power_w\n'; for i in $(seq 0 59); do printf '%s,0,95,600\n' "$((i * 10))"; done; } >"$TMP/p10.csv"
run too-sparse 0 "$WT" classify --trace "$TMP/p10.csv" --samples 10 --declared training && has out "too sparse" && has out "INCONCLUSIVE"
# polled every second but with a hole: the reason names the gap, not the polling
{ printf 't_s,gpu,util_gpu_pct,power_w\n'; for i in 0 1 2 3 4 5 6 7 8 100; do printf '%s,0,90,300\n' "$i"; done; } >"$TMP/gap.csv"
run too-sparse-gap 0 "$WT" classify --trace "$TMP/gap.csv" --samples 10 && has out "the recording has a gap (samples every 1 s, then none for 92 s)"
# rules: a column measured in one sample only says why its std-dev rules abstain
printf 't_s,gpu,util_gpu_pct,power_w,mem_used_mib\n0,0,90,300,1000\n1,0,91,,1100\n2,0,92,,1200\n3,0,90,,1300\n4,0,91,,1400\n' >"$TMP/p1.csv"
run rules-one-power 0 "$WT" classify --trace "$TMP/p1.csv" --samples 5 --classifier rules && has out "power std-dev needs 2 measured samples -- its rules abstain"
# an impossible power (a mean of 1e307 W overflowed and read as idle)
printf 't_s,gpu,util_gpu_pct,power_w\n0,0,0,1e307\n' >"$TMP/huge.csv"
run power-huge 1 "$WT" classify --trace "$TMP/huge.csv" && has err "column 'power_w': 1e307 is impossible (must be 0 to 100000)" && oneline
# an energy counter stuck at 0 (a recorder's "not supported") does not outweigh
# the measured power: the same class and energy feature as without the column
{ printf '# gpu_model: NVIDIA H100 80GB HBM3\nt_s,gpu,util_gpu_pct,power_w,energy_j\n'; for i in $(seq 0 29); do if [ $(((i / 3) % 2)) = 0 ]; then printf '%s,0,95,620,0\n' "$i"; else printf '%s,0,40,350,0\n' "$i"; fi; done; } >"$TMP/e0.csv"
run energy-stuck 0 "$WT" classify --trace "$TMP/e0.csv" --samples 30 --json && has out '"workload_type": "TRAINING"' && has out '"energy_per_active_s_norm": 0.692857'
# a trace of GPU 2 alone: GPUs 0 and 1 are not invented
printf 't_s,gpu,power_w\n0,2,100\n1,2,101\n' >"$TMP/g2.csv"
run gpus-absent 0 "$WT" gpus --trace "$TMP/g2.csv" && has out "GPU 2:"
# a simulator profile's GPU: its memory and power limits, as its samples say
# (they were null)
run gpus-sim-limits 0 "$WT" gpus --backend synthetic --profile dense-training --json && has out '"memory_total_mib": 81559.0' && has out '"power_limit_w": 700.0' && has out '"power_default_limit_w": 700.0'
if grep -q "GPU [01]:" "$TMP/out" || [ -s "$TMP/err" ]; then echo "FAIL [gpus-absent]: GPUs 0/1 listed or an error"; fails=$((fails + 1)); fi
# a trace without data rows is an error, as for classify (an empty list, exit 0)
printf 't_s,gpu,util_gpu_pct,power_w\n' >"$TMP/hdronly.csv"
run gpus-no-rows 1 "$WT" gpus --trace "$TMP/hdronly.csv" --json && has err "hdronly.csv: the trace has no data rows" && oneline
run gpus-no-rows-stdin 1 sh -c '"$1" gpus --trace - <"$2"' sh "$WT" "$TMP/hdronly.csv" && has err "<stdin>: the trace has no data rows" && oneline
run record-absent 0 "$WT" record --trace "$TMP/g2.csv" --out "$TMP/g2r.csv"
grep -q "^# gpu_models: 2=unknown$" "$TMP/g2r.csv" || { echo "FAIL [record-absent]: $(grep gpu_models "$TMP/g2r.csv")"; fails=$((fails + 1)); }
# GPU 0's rows, not GPU 1's (the class of 5 samples is the model's business)
run nvsmi-index 0 "$WT" classify --trace "$DATA/nvsmi_index.csv" --samples 5 --json
has out '"avg_gpu_util_pct": 88.4' && has out '"gpu_index": 0'
run nvsmi-index-gpu1 0 "$WT" classify --trace "$DATA/nvsmi_index.csv" --samples 5 --gpu-index 1 && has out "workload_type : IDLE"
# a timestamp whose seconds have many digits (64 or more characters in all) is
# a time (it was "not a time")
{ printf 'timestamp, power.draw [W]\n'; for s in 1 2 3 4 5 6; do printf '2024/04/03 10:47:3%s.12000000000000000000000000000000000000000000000000000000, 50 W\n' "$s"; done; } >"$TMP/longstamp.csv"
run nvsmi-long-timestamp 0 "$WT" classify --trace "$TMP/longstamp.csv" --samples 6 --classifier rules && has out "samples       : 6 over 5.0s"
run nvsmi-noindex 0 "$WT" classify --trace "$DATA/nvsmi_noindex.csv" --gpu-index 2 --samples 50 && has out "samples       : 50 over 4.9s"
run nvsmi-noindex-gpu1 0 "$WT" classify --trace "$DATA/nvsmi_noindex.csv" --gpu-index 1 --samples 50 --json
has out '"avg_power_watts": 52.6'
has out '"avg_gpu_util_pct": 0.0'
run nvsmi-forced 0 "$WT" classify --trace "$DATA/nvsmi_noindex.csv" --gpus-per-tick 1 --samples 50 && has out "samples       : 50 over 1.6s"
run stdin 0 sh -c "cat '$DATA/nvsmi_index.csv' | '$WT' classify --trace - --samples 5 --gpu-index 1"
has out "workload_type : IDLE"
run stdin-replay 0 sh -c "'$WT' classify --backend replay --trace - --samples 5 < '$DATA/labelled.csv'"
has out "workload_type : IDLE"

# a live pipe is read as rows arrive, not when 64 KiB or end of input arrive
run stdin-live 0 sh -c "(cat '$DATA/labelled.csv'; sleep 10) | timeout 8 '$WT' classify --trace - --samples 5"
has out "workload_type : IDLE"
# nvidia-smi CSV with --gpus-per-tick, or without timestamps, is not read ahead
# 128 rows to detect the GPUs per tick (a 1 s poll waited two minutes)
run stdin-live-nvsmi-g 0 sh -c "(head -8 '$DATA/nvsmi_noindex.csv'; sleep 10) | timeout 8 '$WT' classify --trace - --samples 5 --gpus-per-tick 1"
has out "samples       : 5 over"
run stdin-live-nvsmi-nostamp 0 sh -c "(head -8 '$DATA/nvsmi_noindex.csv' | cut -d, -f2-; sleep 10) | timeout 8 '$WT' classify --trace - --samples 5"
has out "samples       : 5 over 4.0s"

# ---- bad input files: clear message, non-zero exit, no crash
run missing-file 1 "$WT" classify --trace "$TMP/nope.csv"
has err "cannot open '$TMP/nope.csv': No such file or directory" && oneline
: >"$TMP/empty.csv"
run empty-file 1 "$WT" classify --trace "$TMP/empty.csv" && has err "empty trace" && oneline
printf 't_s,power_w\n0,1\n1,abc\n' >"$TMP/bad.csv"
run bad-number 1 "$WT" classify --trace "$TMP/bad.csv" --samples 5
has err "bad.csv:3: column 'power_w': not a number: 'abc'" && oneline
# a long but well-formed number in a trace cell is read (was "not a number")
{ echo 't_s,power_w'; for i in 0 1 2 3 4 5; do echo "$i,${z70}150.5${z70}"; done; } >"$TMP/longnum.csv"
run long-number-cell 0 "$WT" classify --trace "$TMP/longnum.csv" --samples 6 --json --classifier rules && has out "\"avg_power_watts\": 150.5"
printf '0,1,2\n1,2,3\n' >"$TMP/nohdr.csv"
run no-header 1 "$WT" classify --trace "$TMP/nohdr.csv" && has err "nohdr.csv:1: missing header" && oneline
printf 't_s,gpu,power_w\n0,0,1\n1,0\n' >"$TMP/ragged.csv"
# too few samples for the physics classifier: known before reading, a usage
# error as in watch (was exit 1 after reading)
run samples-below-physics 2 "$WT" classify --backend synthetic --samples 4 && has err "needs at least 5 samples" && oneline
run samples-below-physics-rules 0 "$WT" classify --backend synthetic --samples 4 --classifier rules
run ragged 1 "$WT" classify --trace "$TMP/ragged.csv" --samples 5 && has err "ragged.csv:3: 2 cells, but the header has 3 columns"
head -c 20000 /dev/urandom >"$TMP/garbage.csv" 2>/dev/null || dd if=/dev/urandom of="$TMP/garbage.csv" bs=1000 count=20 2>/dev/null
run garbage 1 "$WT" classify --trace "$TMP/garbage.csv" && oneline
awk 'BEGIN { printf "t_s,power_w\n0,"; for (i = 0; i < 70000; i++) printf "9"; printf "\n" }' >"$TMP/huge.csv"
run huge-line 1 "$WT" classify --trace "$TMP/huge.csv" && has err "huge.csv:2: line longer than 65536 bytes"
run dir-as-trace 1 "$WT" classify --trace "$TMP"

# ---- benchmark
run bench 0 "$WT" benchmark --trials 20 --window 30 --classifier rules
has out "training     yes           20        0      0.0%"
has out "clean accuracy   :  100.0%"
run bench-json 0 "$WT" benchmark --trials 20 --json --classifier rules
has out '"source": "synthetic"'
has out '"window_size": 30'
has out '"trials_per_cell": 20'
has out '"evasion_accuracy": 0.6667'
run bench-seed 0 "$WT" benchmark --trials 50 --window 3 --seed 5 --json --classifier rules
cp "$TMP/out" "$TMP/b5"
run bench-seed2 0 "$WT" benchmark --trials 50 --window 3 --seed 5 --json --classifier rules
cmp -s "$TMP/out" "$TMP/b5" || { echo "FAIL [bench-seed]: same seed, different output"; fails=$((fails + 1)); }

# ---- eval over fixtures
run eval-file 0 "$WT" eval --traces "$DATA/labelled.csv" --window 5 --classifier rules
has out "windows scored: 2"
has out "accuracy:  100.0% (2 of 2 windows)"
run eval-json 0 "$WT" eval "$DATA/labelled.csv" --window 5 --json --classifier rules
has out '"windows": 2'
has out '"per_file"'
run eval-dir 0 "$WT" eval --traces "$DATA" --window 5 --per-file && has out "per file:"
# a trace reached twice (named twice, or also on standard input) is scored once
run eval-twice 0 sh -c '"$1" eval "$2" "$2" - --window 5 --classifier rules <"$2"' sh "$WT" "$DATA/labelled.csv" &&
    has out "windows scored: 2" && has out "1 trace file"
run eval-missing 1 "$WT" eval --traces "$TMP/none" && has err "cannot open" && oneline
run eval-bad 1 "$WT" eval --traces "$TMP/bad.csv" && has err "bad.csv:3:" && oneline
printf 't_s,power_w\n0,1\n1,2\n' >"$TMP/nolabel.csv"
run eval-unscored 1 "$WT" eval --traces "$TMP/nolabel.csv" && has err "no window could be scored" && has err "no row carries a label"
# labelled on half of the rows: the labels cover too little
printf 't_s,power_w,label\n0,1,training\n1,2,training\n2,2,training\n3,2,\n4,2,\n5,2,\n' >"$TMP/halflabel.csv"
run eval-unscored-half 1 "$WT" eval --traces "$TMP/halflabel.csv" --window 6 --classifier rules && has err "labels cover too little"
# labelled, but every window short: the message names that, not the labels
printf 't_s,power_w,label\n0,1,training\n1,2,training\n2,2,training\n3,2,training\n4,2,training\n5,2,training\n' >"$TMP/onelabel.csv"
run eval-unscored-short 1 "$WT" eval --traces "$TMP/onelabel.csv" --window 86400 && has err "(0 unlabelled or mixed," && has err "too few samples for the classifier or spanned less than half"
run eval-frac 0 "$WT" eval --traces "$DATA/labelled.csv" --window 2.5 --classifier rules && has out "2.5-second windows"
# idle_then_training SECONDS: 60 s at 10 Hz, IDLE up to SECONDS, then TRAINING
idle_then_training() {
    python3 -c "
print('# gpu_model: NVIDIA H100 80GB HBM3'); print('t_s,gpu,util_gpu_pct,power_w,label')
for i in range(600):
    t = i / 10
    print('%.1f,0,0,70,IDLE' % t if t < $1 else '%.1f,0,%d,%d,TRAINING' % (t, 100 if i % 4 < 3 else 0, 600 if i % 4 < 3 else 150))
"
}
# a window longer than 30 s: physics scores its last 30 s, and the truth is
# that part's (IDLE 0-48 s, TRAINING 48-60 s: the whole is 80% IDLE, the last
# 30 s mixed 60/40, so not scored; it was scored IDLE against a TRAINING call)
idle_then_training 48 >"$TMP/w60.csv"
run eval-long-window-truth 1 "$WT" eval --traces "$TMP/w60.csv" --window 60 && has err "(1 unlabelled or mixed, 0 short)" && has err "or of its last 30 s"
# ... and the whole window's label too, as the trace format says (IDLE for
# 30 s then TRAINING for 30 s: 50/50, not scored; it was scored TRAINING by
# its last 30 s)
idle_then_training 30 >"$TMP/w60b.csv"
run eval-long-window-whole-truth 1 "$WT" eval --traces "$TMP/w60b.csv" --window 60 && has err "(1 unlabelled or mixed, 0 short)"
# ... and a window whose scored last 30 s hold too few samples is short (it
# was scored, UNKNOWN: rows at 0..30 s and 59 s, 1 Hz)
python3 -c "
print('# gpu_model: NVIDIA H100 80GB HBM3'); print('t_s,gpu,util_gpu_pct,power_w,label')
for t in list(range(31)) + [59]: print('%d,0,95,600,TRAINING' % t)
" >"$TMP/gap60.csv"
run eval-long-window-short-tail 1 "$WT" eval --traces "$TMP/gap60.csv" --window 60 && has out "1 short"
# the checks a review found: usage errors come before the --dump-features
# file is opened (exit 2, not 1), --holdout takes train's --window range
run eval-usage-before-dump 2 "$WT" eval --traces "$DATA" --simulate 5 --dump-features "$TMP/nodir/x.csv" && has err "--simulate goes with --holdout" && oneline
run eval-holdout-window-short 2 "$WT" eval --traces "$DATA" --holdout source --window 0.5 && has err "needs windows of 5 s or more" && oneline
# under 5 s the physics classifier says UNKNOWN for every window (each fold
# of --holdout was trained for nothing, and scored 0%); rules take them
run eval-window-under-5 2 "$WT" eval --traces "$DATA/labelled.csv" --window 4.9 && has err "needs windows of 5 s or more" && oneline
run eval-window-under-5-rules 0 "$WT" eval --traces "$DATA/labelled.csv" --window 2 --classifier rules
# a missing --model is read after the usage checks (it was exit 1, "cannot
# open", for what is a usage error)
run eval-model-usage-first 2 "$WT" eval --traces "$DATA" --holdout source --model "$TMP/no.model" && has err "--model cannot go with it" && oneline
run classify-model-usage-first 2 "$WT" classify --backend synthetic --samples 2 --model "$TMP/no.model" && has err "needs at least 5" && oneline
run eval-names-model 0 "$WT" eval --traces "$DATA/labelled.csv" --window 5 --model "$REPO/models/physics.model" && has out ", model $REPO/models/physics.model"
# train: the command that rebuilds a model, whole over several 'made by'
# lines, numbers as given (--sim-weight 0.1234567 was 0.123457, and a long
# command lost its last options); no model of no tree
run train-made-by-whole 0 "$WT" train --traces "$TMP/cutdir" --out "$TMP/long.model" --simulate 1 --python-windows 1 --rounds 3 --retime 1 --sim-seed 4294967295 --missing stop --interval 0.5 --sim-weight 0.1234567 --features power_acf_peak,on_len_s &&
    check train-made-by-whole-lines grep -q "^meta made by (continued): .*--interval 0.5" "$TMP/long.model" &&
    check train-made-by-sim-weight grep -q -- "--sim-weight 0.1234567 " "$TMP/long.model"
# (a trace of 60 s TRAINING then 60 s INFERENCE on an H100, 1 Hz: both
# classes, power with a scale; also --holdout family's traces below)
mkdir -p "$TMP/twoclass"
awk 'BEGIN { print "# gpu_model: NVIDIA H100 80GB HBM3"; print "t_s,gpu,util_gpu_pct,power_w,label";
    for (i = 0; i < 120; i++) printf "%d,0,%d,%d,%s\n", i, i < 60 ? 95 : 40, i < 60 ? (i % 3 ? 650 : 300) : 250 + (i % 7) * 20, i < 60 ? "TRAINING" : "INFERENCE" }' >"$TMP/twoclass/t.csv"
run train-no-tree 1 "$WT" train --traces "$TMP/twoclass" --out "$TMP/notree.model" --simulate 0 --python-windows 0 --features avg_gpu_util_pct && has err "no tree could be grown"
check train-no-tree-no-file test ! -e "$TMP/notree.model"
# benchmark --holdout family refuses traces train refuses, and names what it skipped
mkdir -p "$TMP/nolab"
printf 't_s,gpu,util_gpu_pct,power_w\n0,0,50,100\n1,0,50,100\n' >"$TMP/nolab/a.csv"
echo "a,b" >"$TMP/nolab/x.csv"
run bench-holdout-no-labels 1 "$WT" benchmark --suite evasion --holdout family --traces "$TMP/nolab" --trials 1 && has err "not a trace, skipped:" && has err "hold no labelled TRAINING or INFERENCE window"
cp "$REPO/models/physics.model" "$TMP/m
x.model"
run bench-model-newline 0 "$WT" benchmark --trials 1 --model "$TMP/m
x.model" && has out "model $TMP/m?x.model"

# ---- the physics classifier (the default), job-level verdicts, the simulator
run phys-default 0 "$WT" classify --backend synthetic --json
has out '"classifier": "physics"'
has out '"evidence": ['
has out '"tamper_indicators": []'
has out '"util_acf_peak":'
run phys-idle 0 "$WT" classify --backend synthetic --profile idle --samples 30 && has out "workload_type : IDLE"
run phys-rules-same 0 "$WT" classify --backend synthetic --classifier rules --json && has out '"classifier": "rules"'
run sim-profile 0 "$WT" classify --backend synthetic --profile inference-vllm --samples 300 --start 60 --json
has out '"sample_count": 300'
grep -q '"mem_frac": 0\.9[0-9]*,' "$TMP/out" || { echo "FAIL [sim-profile]: vLLM memory reservation not ~90%"; fails=$((fails + 1)); }
run sim-evasion-none-strength 2 "$WT" classify --backend synthetic --profile dense-training --evasion-family none --evasion-strength 0.3 && has err "--evasion-strength needs --evasion-family (not none)" && oneline
run sim-evasion 0 "$WT" classify --backend synthetic --profile dense-training --evasion-family power-cap --evasion-strength 1 --samples 300 --json
has out "software power cap asserted"
has out "enforced power limit is"
run sim-bad-family 2 "$WT" classify --backend synthetic --profile training --evasion-family duty-fixed && has err "go with --backend synthetic and a simulator profile" && oneline
run replay-family 2 "$WT" classify --trace "$DATA/labelled.csv" --evasion-family duty-fixed && has err "use \`eval --evasion-family\`" && oneline
run sim-py-evasion 2 "$WT" classify --backend synthetic --profile dense-training --evasion && has err "simulator profiles take --evasion-family" && oneline
run trace-family 2 "$WT" classify --trace "$DATA/labelled.csv" --evasion-family burn && oneline
run eval-train-only 2 "$WT" eval --traces "$DATA" --features duty && has err "--features goes with --holdout" && oneline
run bench-window-sim 2 "$WT" benchmark --suite sim --window 10 && has err "take --seconds" && oneline
run sim-family-none 0 "$WT" classify --backend synthetic --profile dense-training --evasion-family none --samples 50 --json
run sim-family-unknown 2 "$WT" classify --backend synthetic --profile dense-training --evasion-family nope && has err "unknown family 'nope'" && oneline
run sim-bad-target 1 "$WT" classify --backend synthetic --profile idle-bare --evasion-family burn && has err "applies to training profiles" && oneline
run sim-unknown 2 "$WT" classify --backend synthetic --profile dense-training --evasion-family teleport && has err "unknown family 'teleport'" && oneline
run job 0 "$WT" classify --backend synthetic --profile idle --samples 30 --windows 5 --declared idle
has out "window 5      : IDLE"
has out "5 of 5 windows IDLE (rule: at least 3 of 5)"
has out "verdict       : MATCH"
run job-json 3 "$WT" classify --backend synthetic --profile inference --samples 30 --windows 3 --min-agree 2 --declared training --json
has out '"min_agree": 2'
has out '"verdict": "MISMATCH"'
# an idle job declared training: nothing ran, no verdict against it (it was
# a MISMATCH, exit 3, as for hidden training)
run job-idle-declared-training 0 "$WT" classify --backend synthetic --profile idle --samples 30 --windows 3 --min-agree 2 --declared training && has out "verdict       : INCONCLUSIVE"
run job-k 2 "$WT" classify --backend synthetic --windows 4 --min-agree 2 && has err "--min-agree must be more than half" && oneline
# training and idle in turn, declared inference: no class has 3 of the 4
# windows, but every window says "not inference": MISMATCH (it was
# INCONCLUSIVE, exit 0: alternating hid the check)
"$WT" record --backend synthetic --profile training --duration 9 --out "$TMP/alt_t.csv" 2>/dev/null
"$WT" record --backend synthetic --profile idle --duration 9 --out "$TMP/alt_i.csv" 2>/dev/null
awk -F, -v OFS=, 'FNR == 1 { f++ } /^#/ || $1 == "t_s" { if (f == 1) print; next }
    { rows[f, ++n[f]] = $0 }
    END { t = 0; for (k = 0; k < 4; k++) { g = k % 2 + 1
        for (i = 1; i <= n[g]; i++) { split(rows[g, i], c, ","); c[1] = t++; line = c[1]
            for (j = 2; j <= length(c); j++) line = line "," c[j]; print line } } }' \
    "$TMP/alt_t.csv" "$TMP/alt_i.csv" >"$TMP/alt.csv"
run job-split-mismatch 3 "$WT" classify --trace "$TMP/alt.csv" --samples 10 --windows 4 --declared inference && has out "verdict       : MISMATCH" && has out "the job's class is UNKNOWN"
# ... and declared training it trained whenever it ran: its idle windows count
# for neither side (it was INCONCLUSIVE)
run job-split-training 0 "$WT" classify --trace "$TMP/alt.csv" --samples 10 --windows 4 --declared training && has out "verdict       : MATCH"
# a trace that ends after whole windows: they are shown and decided on (the
# run used to fail at the short window, losing the ones before it), with a
# warning; the rule still needs the k asked for (here an IDLE and an
# INFERENCE window, declared training: the IDLE one counts for neither side,
# and one window left decides nothing: INCONCLUSIVE; it was a MISMATCH, exit 3)
run job-short 0 "$WT" classify --trace "$DATA/labelled.csv" --samples 5 --windows 3 --declared training
has err "warning: $DATA/labelled.csv ended after 2 of 3 windows; the job is decided on those, still needing 2 to agree"
has out "window 2      : INFERENCE" && has out "the trace ended after 2 of the 3 windows asked for"
has out "verdict       : INCONCLUSIVE" && check job-short-lines [ "$(grep -c "^window" "$TMP/out")" = 2 ]
run job-short-json 0 "$WT" classify --trace "$DATA/labelled.csv" --samples 6 --windows 5 --json
has out '"windows_requested": 5' && has out '"min_agree": 3' && has out '1 of the 5 windows asked for classified, fewer than the 3 that must agree' && has err "(and 4 samples, too few for another)"
run job-short-stdin 0 sh -c "\"\$0\" classify --trace - --samples 5 --windows 3 <\"\$1\"" "$WT" "$DATA/labelled.csv"
has err "standard input ended after 2 of 3 windows"
run job-too-short 1 "$WT" classify --trace "$DATA/labelled.csv" --samples 11 --windows 3 && has err "GPU 0 has only 10 samples; --samples asks for 11" && oneline
run model-missing 1 "$WT" classify --backend synthetic --model "$TMP/none.model" && has err "cannot open" && oneline
run model-dir 1 "$WT" classify --backend synthetic --model "$TMP" && has err "cannot open '$TMP': is a directory" && oneline
# a window under 5 s is UNKNOWN before the IDLE rule: a second's lull in a
# training job is no MISMATCH (it was IDLE 1.00 and exit 3)
run short-window-lull 0 "$WT" classify --backend synthetic --profile dense-training --samples 10 --declared training
has out "workload_type : UNKNOWN" && has out "too short to judge"
# the span it says is rounded down with the same microsecond of slack: four
# steps of 0.2499999999 s read "1.249 s" where the same window recorded at
# 0.25 s read "1.25 s"
printf 't_s,gpu,util_gpu_pct\n0,0,50\n0.2499999999,0,50\n0.4999999998,0,50\n0.7499999997,0,50\n0.9999999996,0,50\n' >"$TMP/cov.csv"
run short-window-span 0 "$WT" classify --trace "$TMP/cov.csv" --samples 5 && has out "the window covers 1.25 s"
# power without a scale beside one utilization reading: no evidence, not IDLE
# by that reading (a GPU drawing 400 W was IDLE 1.00, a MISMATCH for training)
python3 -c "print('t_s,gpu,util_gpu_pct,power_w'); [print('%.1f,0,%s,%d' % (i * 0.1, '0' if i == 0 else '', 300 + (i % 12) * 10)) for i in range(300)]" >"$TMP/once0.csv"
run unscaled-one-util 0 "$WT" classify --trace "$TMP/once0.csv" --samples 300 --declared training && has out "verdict       : INCONCLUSIVE" && has out "utilization is in 1 of 300 samples"
# exactly 5 s (50 samples at 10 Hz) is judged whatever the start time: t_s
# rounding made 4.9 + 0.1 read below 5 at some starts (UNKNOWN), not at others
run five-second-window 0 "$WT" classify --backend synthetic --profile idle-bare --samples 50 --start 200.3
has out "workload_type : IDLE"
# a simulator profile's default window is 30 s of samples (10 samples at 10 Hz
# were 1 s: always UNKNOWN), in classify and in watch
# a GPU list is digits and commas (strtol took ' 0', '+0' and '-0'; found by fuzz_opts)
run gpus-list-space 2 "$WT" record --backend synthetic --gpus ' 0' --duration 1 --out "$TMP/gl.csv" && has err "is not 'all' or a list of GPUs"
run gpus-list-sign 2 "$WT" watch --backend synthetic --gpus '-0' --iterations 1 --interval 0 --log-dir "$TMP/gl" && has err "is not 'all' or a list of GPUs"
run gpus-per-tick-no-trace 2 "$WT" classify --backend synthetic --gpus-per-tick 2 && has err "--gpus-per-tick goes with --trace" && oneline
run sim-default-window 0 "$WT" classify --backend synthetic --profile dense-training
has out "samples       : 300 over 29.9s" && has out "workload_type : TRAINING"
run sim-default-window-hz 0 "$WT" classify --backend synthetic --profile dense-training --sample-hz 2 --json
has out '"sample_count": 60'
# an audit log that cannot be appended to: the message says the verdict too
# (exit 1; a job-level MISMATCH said only "classified UNKNOWN")
: >"$TMP/notadir"
run append-fails-verdict 1 "$WT" classify --backend synthetic --profile dense-training --declared inference --log-dir "$TMP/notadir" && has err "classified TRAINING (declared inference: MISMATCH), but could not append to the audit log" && oneline
# the record appended (written and fdatasync'ed) but its checkpoint file not
# written (a full disk; here a directory in the way of checkpoint.tmp): exit 1,
# saying the record is in the log, unsealed, not that it could not be appended
"$WT" init --log-dir "$TMP/unsealed" >/dev/null 2>&1
mkdir "$TMP/unsealed/checkpoint.tmp"
run append-unsealed 1 "$WT" classify --backend synthetic --profile dense-training --log-dir "$TMP/unsealed" && has err "classified TRAINING: record 1 was appended to $TMP/unsealed/log.jsonl, but the checkpoint that seals it could not be written" && oneline
check append-unsealed-not-lost test "$(grep -c '"type":"class"' "$TMP/unsealed/log.jsonl")" = 1
check append-unsealed-no-claim sh -c '! grep -q "could not append" "$0"' "$TMP/err"
run sim-default-window-watch 0 "$WT" watch --backend synthetic --profile dense-training --interval 0 --iterations 1 --log-dir "$TMP/simwin"
has out "TRAINING"
# ... paced at its 10 Hz: two rounds of 30 simulated seconds, not 300 s each
t0=$(date +%s)
run sim-default-pacing 0 timeout 100 "$WT" watch --backend synthetic --profile dense-training --iterations 2 --log-dir "$TMP/simpace"
check "sim-default-pacing: about 30 s ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -le 60
run model-rules 2 "$WT" classify --backend synthetic --classifier rules --model x && has err "--model goes with the physics classifier" && oneline
printf 'format workloadtruth-model/1\nbase 3\nend 0\n' >"$TMP/always.model"
# a model of constants weighs no evidence: UNKNOWN, said (it said TRAINING
# at 0.99 for every window)
run model-file 0 "$WT" classify --backend synthetic --profile inference --samples 30 --model "$TMP/always.model" && has out "workload_type : UNKNOWN" && has out "the model splits on no feature"
printf 'format workloadtruth-model/1\nbase 3\ntree\nnode 0 0 split duty 2 right 1 2\nnode 1 0 leaf\nnode 2 0 leaf\nend 1\n' >"$TMP/always.model"
run model-file-used 0 "$WT" classify --backend synthetic --profile inference --samples 30 --model "$TMP/always.model" && has out "workload_type : TRAINING"
run bench-list 0 "$WT" benchmark --list
has out "dense-training"
has out "migration"
run bench-list-json 0 sh -c '"$1" benchmark --list --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert len(d[\"evasion_families\"]) == 10 and d[\"python_profiles\"] == [\"training\", \"inference\", \"idle\"]"' sh "$WT"
run bench-list-other 2 "$WT" benchmark --list --trials 3 && has err "--list takes no other option than --json, not --trials" && oneline
run bench-evasion 0 "$WT" benchmark --suite evasion --trials 2 --json
has out '"suite": "evasion"'
has out '"per_family": ['
has out '"throughput_cost":'
! grep -q '"training":' "$TMP/out" || { echo "FAIL [bench-evasion]: a training object without --holdout"; fails=$((fails + 1)); }
run bench-sim 0 "$WT" benchmark --suite sim --trials 2 && has out "inference-periodic"
run eval-resample 0 "$WT" eval --traces "$DATA/labelled.csv" --resample 0.5 --window 5 --classifier rules --json
has out '"windows": 1'
run eval-columns 2 "$WT" eval --traces "$DATA" --columns power_w,bogus && has err "unknown column 'bogus'" && oneline
# a name left out of a list, or a feature named twice (the model held it twice)
run eval-columns-trailing 2 "$WT" eval --traces "$DATA" --columns power_w, && has err "an empty name in the list 'power_w,'" && oneline
run eval-columns-empty 2 "$WT" eval --traces "$DATA" --columns ,power_w && has err "an empty name" && oneline
run train-features-twice 2 "$WT" train --traces "$DATA" --features duty,power_cv,duty --out "$TMP/twice.model" && has err "feature 'duty' named twice" && oneline
check train-features-twice-no-model test ! -e "$TMP/twice.model"
# sleep injection into recorded training: 10 s IDLE then 60 s TRAINING at 10 Hz;
# half the time asleep doubles the training to 120 s (12 windows of 10 s, not 6)
awk 'BEGIN { print "# gpu_model: NVIDIA H100 80GB HBM3"; print "t_s,gpu,util_gpu_pct,power_w,label";
    for (i = 0; i < 700; i++) { t = i < 100; printf "%.1f,0,%d,%d,%s\n", i / 10, t ? 0 : 95, t ? 70 : 650, t ? "IDLE" : "TRAINING" } }' >"$TMP/dense.csv"
run eval-evade-none 0 "$WT" eval --traces "$TMP/dense.csv" --window 10 --classifier rules --json
has out '"windows": 7'
run eval-evade 0 "$WT" eval --traces "$TMP/dense.csv" --window 10 --classifier rules --json --evasion-family duty-fixed
has out '"windows": 13'
has out '"family": "duty-fixed"'
has out '"strength": 0.5'
run eval-evade-text 0 "$WT" eval --traces "$TMP/dense.csv" --window 10 --evasion-family duty-random --evasion-strength 0.25
has out "evasion: duty-random at strength 0.25 injected into the recorded training"
# the strength as given, not rounded (0.12; 4e-05 read 0)
run eval-evade-strength-given 0 "$WT" eval --traces "$TMP/dense.csv" --window 10 --evasion-family duty-random --evasion-strength 0.125
has out "evasion: duty-random at strength 0.125 injected"
run eval-evade-strength-json 0 "$WT" eval --traces "$TMP/dense.csv" --window 10 --evasion-family duty-random --evasion-strength 0.00004 --json
has out '"strength": 4e-5'
run eval-evade-family 2 "$WT" eval --traces "$TMP/dense.csv" --evasion-family power-cap && has err "--evasion-family" && oneline
run eval-evade-strength 2 "$WT" eval --traces "$TMP/dense.csv" --evasion-family duty-fixed --evasion-strength 0.99 && has err "--evasion-strength" && oneline
run eval-evade-alone 2 "$WT" eval --traces "$TMP/dense.csv" --evasion-strength 0.5 && has err "--evasion-strength goes with --evasion-family" && oneline
run eval-dump 0 "$WT" eval --traces "$DATA/labelled.csv" --window 5 --classifier rules --dump-features "$TMP/f.csv"
grep -q "^file,source,gpu_model,gpu,t_start,truth,predicted,confidence,score,avg_gpu_util_pct" "$TMP/f.csv" || { echo "FAIL [eval-dump]: no header"; fails=$((fails + 1)); }
# --peers none: each GPU of a file read without the others (a host whose GPUs
# ran unrelated jobs); peer_sync is then not measured, and the report says so
awk 'BEGIN { print "# gpu_model: NVIDIA A100-SXM4-40GB"; print "t_s,gpu,util_gpu_pct,power_w,label";
    for (i = 0; i < 600; i++) for (g = 0; g < 2; g++) { p = i % 20
        printf "%.1f,%d,%d,%d,TRAINING\n", i / 10, g, p < 17 ? 99 : 60, p < 17 ? 370 : 120 } }' >"$TMP/two.csv"
# peer_sync_cells FILE: the dump's peer_sync cells, one per line
peer_sync_cells() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "peer_sync") c = i; next } { print $c }' "$1"; }
run eval-peers-all 0 "$WT" eval --traces "$TMP/two.csv" --dump-features "$TMP/pa.csv"
check eval-peers-all [ "$(peer_sync_cells "$TMP/pa.csv" | grep -c .)" = 4 ]
run eval-peers-none 0 "$WT" eval --traces "$TMP/two.csv" --peers none --dump-features "$TMP/pn.csv" && has out "peers: none"
check eval-peers-none [ "$(peer_sync_cells "$TMP/pn.csv" | grep -c .)" = 0 ] && [ "$(wc -l <"$TMP/pn.csv")" = 5 ]
run eval-peers-none-json 0 "$WT" eval --traces "$TMP/two.csv" --peers none --json && has out '"peers": "none"'
run eval-peers-bad 2 "$WT" eval --traces "$TMP/two.csv" --peers some && has err "--peers" && oneline
run classify-peers-none 0 "$WT" classify --trace "$TMP/two.csv" --samples 300 --peers none --json && has out '"peer_sync": null'
run classify-peers-all 0 "$WT" classify --trace "$TMP/two.csv" --samples 300 --json && has out '"peer_sync": 1'
# an owners column (what record writes from each GPU's processes): a GPU's
# peers are the GPUs of its job (its first owner among theirs); a GPU whose
# cell names no owner ("-") or is empty (not known) reads every GPU beside it,
# and an empty cell is every GPU's peer, as without the column
owners_trace() { # FILE CELL0 CELL1: two.csv with those owners cells
    awk -v a="$2" -v b="$3" 'NR == 2 { print $0 ",owners"; next } NR == 1 { print; next }
        { split($0, f, ","); print $0 "," (f[2] == 0 ? a : b) }' "$TMP/two.csv" >"$1"
}
# (cells "CELL0 CELL1 WINDOWS-WITH-PEERS" of 4; "." for an empty cell)
for oc in "slurm:501 slurm:502 0" "slurm:501 slurm:501 4" "slurm:501 pod:u1;slurm:501 2" \
    "slurm:501;pod:u1 pod:u1 2" "- slurm:502 2" "slurm:501 - 2" "slurm:501 . 4"; do
    set -- $oc
    owners_trace "$TMP/own.csv" "$1" "$(echo "$2" | sed 's/^\.$//')"
    n=$((n + 1))
    "$WT" eval --traces "$TMP/own.csv" --dump-features "$TMP/po.csv" >/dev/null 2>&1
    got=$(peer_sync_cells "$TMP/po.csv" | grep -c .)
    [ "$got" = "$3" ] || { echo "FAIL [eval-peers-owners]: owners '$1' '$2': $got windows read peers, wanted $3"; fails=$((fails + 1)); }
done
owners_trace "$TMP/own.csv" slurm:501 slurm:502
run eval-peers-owners-all 0 "$WT" eval --traces "$TMP/own.csv" --peers all --dump-features "$TMP/pall.csv" && has out "peers: all"
check eval-peers-owners-all [ "$(peer_sync_cells "$TMP/pall.csv" | grep -c .)" = 4 ]
run eval-peers-owners-all-json 0 "$WT" eval --traces "$TMP/own.csv" --peers all --json && has out '"peers": "all"'
run classify-peers-owners 0 "$WT" classify --trace "$TMP/own.csv" --samples 300 --json && has out '"peer_sync": null' &&
    has out "the other GPUs of the trace ran no process of this GPU's job"
run classify-peers-owners-job 0 "$WT" classify --trace "$TMP/own.csv" --samples 300 --peers job --json && has out '"peer_sync": null'
run classify-peers-owners-all 0 "$WT" classify --trace "$TMP/own.csv" --samples 300 --peers all --json && has out '"peer_sync": 1'
# watch replaying the trace applies the same rule (its class records count
# the GPUs of other jobs, as live)
run watch-replay-owners 0 "$WT" watch --trace "$TMP/own.csv" --gpus all --window 300 --iterations 1 --log-dir "$TMP/wown"
check "watch-replay-owners: the other GPU is another job's" [ "$(grep -c '"peers_other_jobs":1' "$TMP/wown/log.jsonl")" = 2 ]
run watch-replay-owners-all 0 "$WT" watch --trace "$TMP/own.csv" --gpus all --window 300 --iterations 1 --log-dir "$TMP/wown2" --peers all
check "watch-replay-owners-all: peers read" sh -c "! grep -q peers_other_jobs '$TMP/wown2/log.jsonl' && grep -q '\"peer_sync\":' '$TMP/wown2/log.jsonl'"
# watch of standard input: the stream's other GPUs are the watched GPU's
# peers, read as they came, less another job's (it was read alone until
# 2026-12-07: an 8-GPU training pipe lost its cross-GPU synchrony)
run watch-stdin-peers 0 sh -c '"$1" watch --trace - --gpu-index 1 --window 300 --iterations 2 --json --log-dir "$2" <"$3"' sh "$WT" "$TMP/wsp" "$TMP/two.csv"
check "watch-stdin-peers: peer_sync in both windows" [ "$(grep -c '"peer_sync":1.0' "$TMP/out")" = 2 ]
run watch-stdin-peers-none 0 sh -c '"$1" watch --trace - --gpu-index 1 --window 300 --iterations 2 --json --peers none --log-dir "$2" <"$3"' sh "$WT" "$TMP/wsp2" "$TMP/two.csv"
check "watch-stdin-peers-none: read alone" [ "$(grep -c '"peer_sync":null' "$TMP/out")" = 2 ]
run watch-stdin-peers-owners 0 sh -c '"$1" watch --trace - --gpu-index 0 --window 300 --iterations 1 --log-dir "$2" <"$3"' sh "$WT" "$TMP/wsp3" "$TMP/own.csv"
check "watch-stdin-peers-owners: the other GPU is another job's" [ "$(grep -c '"peers_other_jobs":1' "$TMP/wsp3/log.jsonl")" = 1 ]
# re-recorded, a trace keeps its owners column; --no-owners leaves it out
run record-owners-kept 0 "$WT" record --trace "$TMP/own.csv" --out "$TMP/own.rec.csv"
check "record-owners-kept: the same cells" [ "$(grep -v '^#' "$TMP/own.rec.csv" | awk -F, 'NR > 1 { print $2, $NF }' | sort -u | tr '\n' ' ')" = "0 slurm:501 1 slurm:502 " ]
run record-no-owners 0 "$WT" record --trace "$TMP/own.csv" --out "$TMP/own.rec2.csv" --no-owners
check "record-no-owners: no column" sh -c "! grep -q -e owners -e slurm: '$TMP/own.rec2.csv'"
# a bad owners cell names its line and column
sed '3s/slurm:501$/slurm:5 01/' "$TMP/own.csv" >"$TMP/ownbad.csv"
run eval-owners-bad-cell 1 "$WT" eval --traces "$TMP/ownbad.csv" && has err "ownbad.csv:3: column 'owners': byte 8 (0x20) is not in an owner name" && oneline
sed '3s/slurm:501$/a;;b/' "$TMP/own.csv" >"$TMP/ownbad.csv"
run eval-owners-empty-name 1 "$WT" eval --traces "$TMP/ownbad.csv" && has err "ownbad.csv:3: column 'owners': owner 2 is empty" && oneline
# a copy of a trace under another name (another source's folder) is read once,
# named, and neither trained on nor scored twice; --holdout lists non-traces too
mkdir -p "$TMP/ho/a" "$TMP/ho/b" "$TMP/ho/c"
awk 'BEGIN { print "# gpu_model: NVIDIA H100 80GB HBM3"; print "t_s,gpu,util_gpu_pct,power_w,label";
    for (i = 0; i < 600; i++) printf "%.1f,0,%d,%d,TRAINING\n", i / 10, (i % 20 < 17) ? 97 : 20, (i % 20 < 17) ? 650 : 300 }' >"$TMP/ho/a/train.csv"
awk 'BEGIN { print "# gpu_model: NVIDIA H100 80GB HBM3"; print "t_s,gpu,util_gpu_pct,power_w,label";
    for (i = 0; i < 600; i++) printf "%.1f,0,%d,%d,INFERENCE\n", i / 10, (i % 37 < 5) ? 60 : 0, (i % 37 < 5) ? 300 : 90 }' >"$TMP/ho/b/inf.csv"
cp "$TMP/ho/a/train.csv" "$TMP/ho/c/copy.csv"
printf 'name,value\nx,1\n' >"$TMP/ho/notes.csv"
run eval-copy 0 "$WT" eval --traces "$TMP/ho" --window 10 && has out "a copy of $TMP/ho/a/train.csv, read once: $TMP/ho/c/copy.csv"
has out "2 trace files"
run eval-holdout-copy 0 "$WT" eval --traces "$TMP/ho" --holdout source --simulate 2 --python-windows 2 --window 10 --json
has out "\"$TMP/ho/notes.csv\""
has out '"same_as": "'"$TMP/ho/a/train.csv"'"'
[ "$(grep -c 'copy.csv' "$TMP/out")" = 1 ] || { echo "FAIL [eval-holdout-copy]: copy.csv scored"; fails=$((fails + 1)); }
# each fold here has no real window of a class (b's windows are IDLE by the
# rule): said, as the fold learns it from the generated windows alone
has err "warning: holding out source 'a': the other traces hold no TRAINING window; this fold learns it from the generated windows alone"
has err "warning: holding out source 'b': the other traces hold no INFERENCE window"
# the report says how the folds' models were trained, as train's options
# (JSON: each setting, the features resolved), so two runs differing only
# there are told apart
has out '"options": "--window 10 --rounds 300 --depth 3 --simulate 2 --sim-weight 0.4 --python-windows 2 --alone-views 1"'
has out '"missing": "side"'
has out '"active_acf_peak"'
run eval-holdout-trained 0 "$WT" eval --traces "$TMP/ho" --holdout source --simulate 2 --python-windows 2 --window 10 --sim-seed 3 --missing stop --features spin_frac,on_len_s
has out "models trained as: workloadtruth train --window 10 --rounds 300 --depth 3 --simulate 2 --sim-weight 0.4 --python-windows 2 --alone-views 1 --features spin_frac,on_len_s --sim-seed 3 --missing stop"
run eval-plain-untrained 0 "$WT" eval --traces "$TMP/ho" --window 10 --json
! grep -q '"training":' "$TMP/out" || { echo "FAIL [eval-plain-untrained]: a training object without --holdout"; fails=$((fails + 1)); }
# a copy in a folder with traces of its own: the two sources are held out
# together (the trace, scored under the folder named first, was scored by a
# model that had learnt from the rest of its other folder)
awk 'BEGIN { print "# gpu_model: NVIDIA H100 80GB HBM3"; print "t_s,gpu,util_gpu_pct,power_w,label";
    for (i = 0; i < 600; i++) printf "%.1f,0,%d,%d,INFERENCE\n", i / 10, (i % 23 < 4) ? 55 : 0, (i % 23 < 4) ? 280 : 85 }' >"$TMP/ho/c/inf2.csv"
run eval-holdout-copy-fold 0 "$WT" eval --traces "$TMP/ho" --holdout source --simulate 2 --python-windows 2 --window 10
has err "warning: holding out source 'a+c': the other traces hold no TRAINING window"
rm "$TMP/ho/c/inf2.csv"
run eval-holdout-rules 2 "$WT" eval --traces "$DATA" --holdout source --classifier rules && has err "has nothing to train"
# a fold whose model grows no tree (utilization alone, not read where power has
# a scale) is an error, not a report of UNKNOWN windows with exit 0
mkdir -p "$TMP/h3/a" "$TMP/h3/c" "$TMP/h3/d"
cp "$TMP/ho/a/train.csv" "$TMP/h3/a/"
awk 'BEGIN { print "# gpu_model: NVIDIA H100 80GB HBM3"; print "t_s,gpu,util_gpu_pct,power_w,label";
    for (i = 0; i < 600; i++) printf "%.1f,0,%d,%d,INFERENCE\n", i / 10, (i % 7 < 5) ? 60 : 10, (i % 7 < 5) ? 300 : 120 }' >"$TMP/h3/c/inf.csv"
awk 'BEGIN { print "# gpu_model: NVIDIA H100 80GB HBM3"; print "t_s,gpu,util_gpu_pct,power_w,label";
    for (i = 0; i < 600; i++) printf "%.1f,0,%d,%d,%s\n", i / 10, (i % 7 < 5) ? 70 : 15, (i % 7 < 5) ? 400 : 130, i < 300 ? "TRAINING" : "INFERENCE" }' >"$TMP/h3/d/mix.csv"
run eval-holdout-no-tree 1 "$WT" eval --traces "$TMP/h3" --holdout source --simulate 0 --python-windows 0 --window 10 --features util_active_pct && has err "holding out source 'a': no tree could be grown" && oneline
run eval-holdout-two-class 0 "$WT" eval --traces "$TMP/h3" --holdout source --simulate 0 --python-windows 0 --window 10
check eval-holdout-two-class-quiet test ! -s "$TMP/err"
# no trace: said before any window is simulated (an empty cache stays empty)
mkdir -p "$TMP/hempty" "$TMP/hcache" && chmod 700 "$TMP/hcache"
run eval-holdout-empty 1 env WT_SIM_CACHE="$TMP/hcache" "$WT" eval --traces "$TMP/hempty" --holdout source && has err "no trace files (*.csv) found" && oneline
check eval-holdout-empty-nothing-simulated test -z "$(ls -A "$TMP/hcache")"
# traces in directories named like the generated windows' pseudo-sources are
# held out and scored like any other (they were taken for the built-in windows:
# never scored, and weighted as one source with them)
mkdir -p "$TMP/hsim/simulator" "$TMP/hsim/python-synthetic"
cp "$TMP/ho/a/train.csv" "$TMP/hsim/simulator/"
cp "$TMP/ho/b/inf.csv" "$TMP/hsim/python-synthetic/"
run eval-holdout-sim-named 0 "$WT" eval --traces "$TMP/hsim" --holdout source --simulate 2 --python-windows 2 --window 10 --json
has out "\"file\": \"$TMP/hsim/simulator/train.csv\""
has out "\"file\": \"$TMP/hsim/python-synthetic/inf.csv\""
has out '"windows": 12,'
run eval-depth-alone 2 "$WT" eval --traces "$DATA" --depth 2 && has err "--depth goes with --holdout" && oneline
run train-usage 2 "$WT" train --traces "$DATA" && has err "needs --traces" && oneline
run train-one-class 1 "$WT" train --traces "$DATA/labelled.csv" --window 5 --out "$TMP/m" --python-windows 0 --simulate 0 && has err "both TRAINING and INFERENCE"
run train-dump 0 "$WT" train --traces "$DATA/labelled.csv" --window 5 --out "$TMP/m" --simulate 1 --python-windows 5 --dump-features "$TMP/t.csv"
grep -q "^file,source,gpu_model,truth,avg_gpu_util_pct" "$TMP/t.csv" || { echo "FAIL [train-dump]: no header"; fails=$((fails + 1)); }
grep -q '^"simulator:dense-training+burn@0.25","simulator","simulated",TRAINING,' "$TMP/t.csv" || { echo "FAIL [train-dump]: no simulator window"; fails=$((fails + 1)); }
run train-dump-dir 1 "$WT" train --traces "$DATA/labelled.csv" --window 5 --out "$TMP/m" --simulate 1 --dump-features "$TMP/nodir/t.csv" && has err "cannot write --dump-features $TMP/nodir/t.csv: No such file or directory" && oneline
# a name too long is found before the training, not after it
LONG=$(printf 'm%.0s' $(seq 256))
run train-out-name-long 1 "$WT" train --traces "$DATA/labelled.csv" --window 5 --out "$TMP/$LONG" --simulate 1 && has err "File name too long" && oneline
check train-out-name-long-nothing-left test -z "$(ls "$TMP" | grep mmmmmmmm)"
# traces of one class: learnt, with a warning
run train-one-class-warned 0 "$WT" train --traces "$TMP/ho/a" --window 10 --simulate 2 --python-windows 2 --rounds 5 --out "$TMP/oneclass.model"
has err "warning: the traces hold no INFERENCE window; the model learns it from the generated windows alone"
# outputs are written whole or not at all: a write that fails (here a file-size
# limit) leaves the old file and no temporary file; a model cut short is refused
echo "old model" >"$TMP/keep.model"
run train-out-fails 1 sh -c "ulimit -f 4; exec \"\$@\"" sh "$WT" train --traces "$DATA/labelled.csv" --window 5 --out "$TMP/keep.model" --simulate 1 --python-windows 5 --rounds 20 && has err "cannot write --out $TMP/keep.model: File too large (left unchanged)"
[ "$(cat "$TMP/keep.model")" = "old model" ] && ! ls "$TMP"/keep.model.* >/dev/null 2>&1 || { echo "FAIL [train-out-fails]: the old model was replaced or a temporary file left"; fails=$((fails + 1)); }
run train-out-ok 0 "$WT" train --traces "$DATA/labelled.csv" --window 5 --out "$TMP/keep.model" --simulate 1 --python-windows 5 --rounds 20
tail -1 "$TMP/keep.model" | grep -qx 'end [0-9]*' || { echo "FAIL [train-out-ok]: no 'end' line"; fails=$((fails + 1)); }
last=$(grep -n '^tree$' "$TMP/keep.model" | tail -1 | cut -d: -f1)
head -n $((last - 1)) "$TMP/keep.model" >"$TMP/cut.model" # cut between two trees
run model-cut 1 "$WT" eval --model "$TMP/cut.model" "$DATA/labelled.csv" && has err "cut.model: ends without its 'end N' line after" && oneline
run train-dump-stdout 0 "$WT" train --traces "$DATA/labelled.csv" --window 5 --out "$TMP/m" --simulate 1 --python-windows 5 --rounds 5 --dump-features - && has out "file,source,gpu_model,truth,"
run start-synthetic-far 1 "$WT" classify --backend synthetic --start 1e12 && has err "at most 604800 s (a week)" && oneline
# job-level tamper indicators: one per kind, from the worst window (four
# windows of lowered limits, each a different percentage, once filled every
# slot and dropped the fifth window's locked clocks)
python3 - "$TMP/tamper.csv" <<'PY'
import math, sys
with open(sys.argv[1], "w") as f:
    f.write("# format: workloadtruth-trace/1\n# gpu_model: NVIDIA H100 80GB HBM3\n"
            "# power_semantics: instant\n"
            "t_s,gpu,util_gpu_pct,mem_used_mib,mem_total_mib,power_w,power_limit_w,"
            "power_default_limit_w,sm_clock_mhz,sm_clock_max_mhz\n")
    for i in range(1500):
        w = i // 300
        limit = 490 + 7 * w if w < 4 else 700
        clock = 1200 if w == 4 else 1700 + (i * 37) % 280
        f.write("%.1f,0,95,40000,81559,%.1f,%d,700,%d,1980\n"
                % (i / 10, 350 + 50 * math.sin(i / 3), limit, clock))
PY
run tamper-kinds 0 "$WT" classify --trace "$TMP/tamper.csv" --samples 300 --windows 5 --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["tamper_indicators"]
ok = len(t) == 2 and t[0] == "enforced power limit is 70% of the default limit" and t[1].startswith("SM clocks look locked")
sys.exit(0 if ok else 1)' "$TMP/out" || { echo "FAIL [tamper-kinds]: $(grep -o '"tamper_indicators": \[[^]]*\]' "$TMP/out" | head -1)"; fails=$((fails + 1)); }
# a simulator profile sampled so sparsely that physics's last 30 s hold too
# few samples: a usage error (every window was UNKNOWN, whatever --samples)
run classify-sample-hz-sparse 2 "$WT" classify --backend synthetic --profile dense-training --sample-hz 0.1 && has err "hold 3 samples at that rate; it needs 5" && oneline
run classify-sample-hz-rules 0 "$WT" classify --backend synthetic --profile dense-training --sample-hz 0.1 --classifier rules
# ... "power pinned at the limit" beside the power cap only from a window that
# showed both (window 1: the cap bit, power far below the limit; windows 2
# and 3: pinned, no bit: the job claimed "asserted ..., power pinned")
for pinned in 0 1; do
    python3 - "$TMP/tpin.csv" "$pinned" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("# gpu_model: NVIDIA H100 80GB HBM3\n# power_semantics: instant\n"
            "t_s,gpu,util_gpu_pct,power_w,power_limit_w,power_default_limit_w,clock_reasons,"
            "mem_used_mib,mem_total_mib\n")
    for i in range(60):
        on, w0 = i % 4 != 0, i < 20
        p = (700 if sys.argv[2] == "1" or not w0 else 300) if on else 100
        f.write("%d,0,%d,%d,700,700,%d,40000,81559\n" % (i, 95 if on else 0, p, 4 if w0 else 0))
PY
    run "tamper-pin-window-$pinned" 0 "$WT" classify --trace "$TMP/tpin.csv" --samples 20 --windows 3 --json
    want="software power cap asserted in 100% of samples"
    [ $pinned = 1 ] && want="$want, power pinned at the limit"
    python3 -c 'import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["tamper_indicators"] == [sys.argv[2]] else 1)' "$TMP/out" "$want" ||
        { echo "FAIL [tamper-pin-window-$pinned]: the job's tamper_indicators are not ['$want']"; fails=$((fails + 1)); }
done

# nvidia-smi CSV without timestamps: --interval sets its time axis in train,
# and in eval --holdout's folds as in its scoring (10 s windows: 100 ticks of
# 1 s are 10 windows, of 0.1 s one)
{
    echo '# label: TRAINING'
    echo 'name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W]'
    i=0
    while [ $i -lt 100 ]; do
        echo "NVIDIA A100-SXM4-40GB, $((90 + i % 7)) %, 30210 MiB, 40960 MiB, $((300 + (i * 37) % 40)).5 W"
        i=$((i + 1))
    done
} >"$TMP/nots.csv"
run train-interval-1 0 "$WT" train --traces "$TMP/nots.csv" --window 10 --out "$TMP/m" --simulate 1 --python-windows 5 --rounds 2 --dump-features "$TMP/i1.csv"
run train-interval-01 0 "$WT" train --traces "$TMP/nots.csv" --window 10 --out "$TMP/m" --simulate 1 --python-windows 5 --rounds 2 --interval 0.1 --dump-features "$TMP/i01.csv"
[ "$(grep -c nots.csv "$TMP/i1.csv")" = 60 ] && [ "$(grep -c nots.csv "$TMP/i01.csv")" = 6 ] &&
    grep -q -- '--interval 0.1$' "$TMP/m" ||
    { echo "FAIL [train-interval]: $(grep -c nots.csv "$TMP/i1.csv") and $(grep -c nots.csv "$TMP/i01.csv") windows (6 views), wanted 60 and 6; $(grep 'made by' "$TMP/m")"; fails=$((fails + 1)); }
# --retime and --sim-seed: named in the model's "made by" line (not when 0,
# so the shipped model's line is as before); eval takes them with --holdout
run train-retime-seed 0 "$WT" train --traces "$TMP/nots.csv" --window 10 --out "$TMP/m" --simulate 1 --python-windows 5 --rounds 2 --retime 1 --sim-seed 7
grep -q -- '--alone-views 1 --retime 1 --sim-seed 7$' "$TMP/m" || { echo "FAIL [train-retime-seed]: $(grep 'made by' "$TMP/m")"; fails=$((fails + 1)); }
run train-retime-0 0 "$WT" train --traces "$TMP/nots.csv" --window 10 --out "$TMP/m" --simulate 1 --python-windows 5 --rounds 2 --retime 0 --sim-seed 0
grep -q -- '--alone-views 1$' "$TMP/m" || { echo "FAIL [train-retime-0]: $(grep 'made by' "$TMP/m")"; fails=$((fails + 1)); }
# --sim-weight: the simulator windows' weight factor, named in the "made by"
# line; another weight, other trees (the same options as just above)
run train-sim-weight 0 "$WT" train --traces "$TMP/nots.csv" --window 10 --out "$TMP/mw" --simulate 1 --python-windows 5 --rounds 2 --sim-weight 3
grep -v '^meta' "$TMP/m" > "$TMP/m.trees" && grep -v '^meta' "$TMP/mw" > "$TMP/mw.trees" &&
    grep -q -- '--simulate 1 --sim-weight 3 --python-windows 5' "$TMP/mw" && ! cmp -s "$TMP/m.trees" "$TMP/mw.trees" ||
    { echo "FAIL [train-sim-weight]: $(grep 'made by' "$TMP/mw"), or the same trees as weight 0.4"; fails=$((fails + 1)); }
run train-sim-weight-0 2 "$WT" train --traces "$TMP/nots.csv" --out "$TMP/mw" --sim-weight 0 && has err "--sim-weight" && oneline
run eval-sim-weight-alone 2 "$WT" eval --traces "$DATA" --sim-weight 1 && has err "--sim-weight goes with --holdout" && oneline
run bench-sim-weight-alone 2 "$WT" benchmark --suite evasion --sim-weight 1 && has err "--sim-weight and --missing go with --holdout" && oneline
run train-retime-2 2 "$WT" train --traces "$TMP/nots.csv" --out "$TMP/m" --retime 2 && has err "--retime" && oneline
# --missing stop: splits on a feature a window lacks stop there ("stop" in
# the file), named in the "made by" line; the default writes left/right only
run train-missing-stop 0 "$WT" train --traces "$TMP/nots.csv" --window 10 --out "$TMP/m" --simulate 1 --python-windows 5 --rounds 5 --missing stop
grep -q -- '--alone-views 1 --missing stop$' "$TMP/m" && grep -q ' stop [0-9]* [0-9]*$' "$TMP/m" && ! grep -q ' \(left\|right\) [0-9]* [0-9]*$' "$TMP/m" ||
    { echo "FAIL [train-missing-stop]: $(grep 'made by' "$TMP/m"), $(grep -c ' stop ' "$TMP/m") stop splits"; fails=$((fails + 1)); }
run train-missing-bad 2 "$WT" train --traces "$TMP/nots.csv" --out "$TMP/m" --missing both && has err "--missing" && oneline
run eval-missing-alone 2 "$WT" eval --traces "$DATA" --missing stop && has err "--missing goes with --holdout" && oneline
run bench-missing-alone 2 "$WT" benchmark --suite evasion --missing stop && has err "--sim-seed, --sim-weight and --missing go with --holdout" && oneline
run eval-sim-seed-alone 2 "$WT" eval --traces "$DATA" --sim-seed 3 && has err "--sim-seed goes with --holdout" && oneline
run eval-retime-alone 2 "$WT" eval --traces "$DATA" --retime 1 && has err "--retime goes with --holdout" && oneline
run train-both-stdout 2 "$WT" train --traces "$DATA/labelled.csv" --out - --dump-features - && has err "would both write to standard output" && oneline
# one file for both: the model replaced the features, and exit 0 said nothing
# arguments with control characters are echoed with '?': a newline in one
# forged a second line of the error (docs/cli.md: errors are one line)
NL='
'
run ctl-unknown-option 2 "$WT" classify "-a${NL}verdict: MATCH" && has err "'-a?verdict: MATCH'" && oneline
run ctl-positional 2 "$WT" init -- "x${NL}y" && oneline
run ctl-declared 2 "$WT" classify --backend synthetic --declared "x${NL}y" && has err "'x?y'" && oneline
run ctl-record-gpus 2 "$WT" record --backend synthetic --gpus "0${NL}1" && oneline
run ctl-watch-declared 2 "$WT" watch --backend synthetic --declared "x${NL}y" --log-dir "$TMP/ctl" && oneline
run ctl-verify-log-dir 2 "$WT" verify-log --log-dir "$TMP/x${NL}y" && has err "x?y" && oneline
# a power limit of 1e-310 W (a broken file) is no limit: 620 W on an H100 at 0%
# utilization was IDLE (its power ratio overflowed to "not measured")
awk 'BEGIN { print "# format: workloadtruth-trace/1"; print "# gpu_model: NVIDIA H100 80GB HBM3";
    print "t_s,gpu,util_gpu_pct,power_w,power_limit_w"; for (i = 0; i < 30; i++) printf "%d,0,0,620,1e-310\n", i }' >"$TMP/sublimit.csv"
run subnormal-power-limit 0 "$WT" classify --trace "$TMP/sublimit.csv" --samples 30 --json && has out '"power_ref_w": 700.0'
check subnormal-power-limit-not-idle test -z "$(grep '"workload_type": *"IDLE"' "$TMP/out")"
# utilization without power: the model never trained on such a window, and
# its reasons say so (a confident TRAINING rested on "not measured" features)
awk 'BEGIN { print "t_s,gpu,util_gpu_pct"; for (i = 0; i < 30; i++) printf "%d,0,%d\n", i, (i % 3 ? 95 : 20) }' >"$TMP/utilonly.csv"
run util-only-caveat 0 "$WT" classify --trace "$TMP/utilonly.csv" --samples 30 && has out "power not measured"
# ... and a job's text output, which shows the job's reasons only
awk 'BEGIN { print "t_s,gpu,util_gpu_pct"; for (i = 0; i < 90; i++) printf "%d,0,%d\n", i, (i % 3 ? 95 : 20) }' >"$TMP/utilonly3.csv"
run util-only-caveat-job 0 "$WT" classify --trace "$TMP/utilonly3.csv" --samples 30 --windows 3 && has out "power not measured"
# ... whole: reasons were cut at 199 bytes, which lost this one's advice
has out "record power_w"
# a model name near its 60-byte limit keeps the "no scale" advice whole
awk 'BEGIN { print "# gpu_model: Acme Accelerator Model Z9 Ultra Extreme Edition 96GB HBM3e";
    print "t_s,gpu,util_gpu_pct,power_w"; for (i = 0; i < 30; i++) printf "%d,0,95,%d\n", i, (i % 3 ? 600 : 100) }' >"$TMP/longname.csv"
run no-scale-advice-whole 0 "$WT" classify --trace "$TMP/longname.csv" --samples 30 && has out "or the GPU name"
# JSON evidence values are the ones the model read (its view without
# utilization), as the reasons' are: they had come from the full features
awk 'BEGIN { print "# gpu_model: NVIDIA H100 80GB HBM3"; print "t_s,gpu,util_gpu_pct,power_w";
    for (i = 0; i < 30; i++) printf "%d,0,95,%d\n", i, (int(i / 3) % 2 ? 100 : 600) }' >"$TMP/view.csv"
run evidence-view-values 0 "$WT" classify --trace "$TMP/view.csv" --samples 30 --json
check evidence-view-values-match python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0] if "results" in d else d
texts = [t for t in r["reasons"] if " -> " in t and " = " in t]
ev = r["evidence"]
assert len(ev) == len(texts) and ev, (ev, texts)
for t, e in zip(texts, ev):
    name, val = re.match(r"(\S+) = (\S+)", t).groups()
    assert name == e["feature"], (t, e)
    # a feature not measured is null in JSON, "not measured" in the text
    assert (val == "not" if e["value"] is None else ("%.3g" % e["value"]) == val), (t, e)
' "$TMP/out"
# no maximum SM clock: the clock-lock test is not judged (it read 0, "judged
# and not locked")
awk 'BEGIN { print "# gpu_model: NVIDIA H100 80GB HBM3"; print "t_s,gpu,util_gpu_pct,power_w,sm_clock_mhz";
    for (i = 0; i < 30; i++) printf "%d,0,90,600,1200\n", i }' >"$TMP/clknomax.csv"
run clocks-locked-no-max 0 "$WT" classify --trace "$TMP/clknomax.csv" --samples 30 --json && has out '"clocks_locked": null'
# --nvml-lib with a source that never loads it: refused (it was ignored), as
# gpus and record refuse it
run classify-nvml-lib-synthetic 2 "$WT" classify --backend synthetic --nvml-lib /x.so && has err "--nvml-lib goes with" && oneline
run watch-nvml-lib-trace 2 "$WT" watch --trace "$DATA/labelled.csv" --nvml-lib /x.so --log-dir "$TMP/nl" && has err "--nvml-lib goes with" && oneline
# the simulator steps in 10 ms whatever the rate: 2e7 samples at 0.1 Hz had
# been allowed (half an hour)
run classify-sim-seconds-limit 2 "$WT" classify --backend synthetic --profile dense-training --sample-hz 0.1 --samples 100001 && has err "1000000 simulated seconds" && oneline
run benchmark-holdout-stdin 2 "$WT" benchmark --suite evasion --holdout family --trials 1 --traces - <"$DATA/labelled.csv" && has err "several times" && oneline
run train-same-file 2 "$WT" train --traces "$DATA/labelled.csv" --out "$TMP/same" --dump-features "$TMP/same" && has err "name the same file" && oneline
run train-same-file-spelt-twice 2 "$WT" train --traces "$DATA/labelled.csv" --out "$TMP/same" --dump-features "$TMP/./same" && has err "name the same file" && oneline
# paths are echoed on one line too
run ctl-train-out 1 "$WT" train --traces "$DATA/labelled.csv" --out "$TMP/a${NL}b/c" && has err "a?b/c" && oneline
run ctl-eval-dump 1 "$WT" eval --dump-features "$TMP/a${NL}b/c" "$DATA/labelled.csv" && has err "a?b/c" && oneline
run train-empty-out 2 "$WT" train --traces "$DATA/labelled.csv" --out '' && has err "--out: empty file name" && oneline
run eval-empty-dump 2 "$WT" eval --dump-features '' "$DATA/labelled.csv" && has err "empty file name" && oneline
# the directory walk: a broken link that is not a *.csv is not the walk's
# business (it stopped eval: "cannot stat"); a link back up is named as a
# loop (it was "directories nested deeper than 16"); with no trace found,
# the CSV files that are not traces are named, as by train
mkdir -p "$TMP/walk/ok" "$TMP/walk/loop/sub" "$TMP/walk/notrace"
cp "$DATA/labelled.csv" "$TMP/walk/ok/" && ln -s "$TMP/nonexistent" "$TMP/walk/ok/notes.txt"
ln -s .. "$TMP/walk/loop/sub/up"
printf 'a,b\n1,2\n' >"$TMP/walk/notrace/table.csv"
# an empty CSV, or one of comments alone, is skipped as no trace (it stopped
# the whole run: "empty trace: no header line"); named, it is still an error
: >"$TMP/walk/ok/empty.csv" && printf '# note: killed at once\n' >"$TMP/walk/ok/comments.csv"
run walk-broken-link-ignored 0 "$WT" eval --traces "$TMP/walk/ok" --window 5 --json && has out '"files": 1' &&
    has out "$TMP/walk/ok/empty.csv" && has out "$TMP/walk/ok/comments.csv"
run walk-empty-named 1 "$WT" eval --traces "$TMP/walk/ok/empty.csv" && has err "empty.csv: empty trace: no header line"
run walk-loop 1 "$WT" eval --traces "$TMP/walk/loop" && has err "is a link back to a directory above it (a loop)" && oneline
run walk-no-trace-named 1 "$WT" eval --traces "$TMP/walk/notrace" && has err "not a trace, skipped: $TMP/walk/notrace/table.csv" && has err "no trace files"
# ... by train too, cleaned as eval's are (a name could forge a line, or carry escapes)
mkdir -p "$TMP/walk/ctl" && printf 'a,b\n1,2\n' >"$TMP/walk/ctl/a${NL}verdict: MATCH.csv"
# ... and in eval's report on standard output: sources, files, skipped names
ESC=$(printf '\033')
mkdir -p "$TMP/walk/ctl2/s${ESC}[2J" && cp "$DATA/labelled.csv" "$TMP/walk/ctl2/s${ESC}[2J/" &&
    printf 'a,b\n1,2\n' >"$TMP/walk/ctl2/s${ESC}[2J/b${NL}x.csv"
run walk-eval-report-clean 0 "$WT" eval --traces "$TMP/walk/ctl2" --window 5 --per-file && has out "  s?[2J " &&
    has out "/s?[2J/labelled.csv" && has out "not a trace, skipped: $TMP/walk/ctl2/s?[2J/b?x.csv"
check "walk-eval-report-clean: no escape" sh -c '! grep -q "$(printf "\033")" "$1"' sh "$TMP/out"
run walk-no-trace-train-clean 1 "$WT" train --traces "$TMP/walk/ctl" --out "$TMP/walk/ctl.model" && has err "not a trace, skipped: $TMP/walk/ctl/a?verdict: MATCH.csv"
# classify's short-trace warning, its log-creation notice and its text
# output's audit log line show a path with control characters as '?' (each
# printed it raw: a newline forged a second line, an escape reached the terminal)
awk 'BEGIN { print "t_s,gpu,util_gpu_pct,power_w"; for (i = 0; i < 20; i++) printf "%d,0,95,300\n", i }' >"$TMP/a${NL}x${ESC}.csv"
run ctl-short-trace-warning 0 "$WT" classify --trace "$TMP/a${NL}x${ESC}.csv" --classifier rules --samples 10 --windows 3 &&
    has err "$TMP/a?x?.csv ended after 2 of 3 windows"
check "ctl-short-trace-warning: one line" test "$(wc -l <"$TMP/err")" = 1
run ctl-log-dir-notice 0 "$WT" classify --trace "$TMP/a${NL}x${ESC}.csv" --classifier rules --samples 10 --log-dir "$TMP/lg${NL}${ESC}" &&
    has err "created the audit log in $TMP/lg??;" && has out "audit log     : $TMP/lg??/log.jsonl (record 1)"
check "ctl-log-dir-notice: one line each" sh -c 'test "$(wc -l <"$1/err")" = 1 && ! grep -q "$(printf "\033")" "$1/out" "$1/err"' sh "$TMP"
# ... and so does the message of a torn tail repaired (all writers share it)
printf '{"v":1,"seq":99,"x":"aaa' >>"$TMP/lg${NL}${ESC}/log.jsonl"
run ctl-log-dir-repaired 0 "$WT" classify --trace "$TMP/a${NL}x${ESC}.csv" --classifier rules --samples 10 --log-dir "$TMP/lg${NL}${ESC}" &&
    has err "recovered $TMP/lg??/log.jsonl: 24 bytes of a torn last line moved to $TMP/lg??/log.jsonl.torn."
check "ctl-log-dir-repaired: one line" sh -c 'test "$(wc -l <"$1/err")" = 1 && ! grep -q "$(printf "\033")" "$1/err"' sh "$TMP"
# an empty path is a usage error (2) from every option that takes one: these
# were exit 1, "cannot open ''", while --log-dir '' was 2
run empty-trace 2 "$WT" classify --trace= && has err "--trace: empty file name" && oneline
run empty-traces 2 "$WT" eval --traces '' && has err "--traces: empty path" && oneline
run empty-positional 2 "$WT" eval '' && has err "an empty argument" && oneline
run empty-model 2 "$WT" classify --trace "$DATA/labelled.csv" --model '' && has err "--model: empty file name" && oneline
run empty-record-out 2 "$WT" record --trace "$DATA/labelled.csv" --out '' && has err "--out: empty file name" && oneline
run empty-gpus-trace 2 "$WT" gpus --trace '' && has err "--trace: empty file name" && oneline
"$WT" train --traces "$DATA/labelled.csv" --window 5 --out "$TMP/keep.model" --simulate 1 --python-windows 5 --rounds 2 2>/dev/null
cp "$TMP/keep.model" "$TMP/keep.copy"
run eval-dump-over-model 2 "$WT" eval --model "$TMP/keep.model" --dump-features "$TMP/keep.model" "$DATA/labelled.csv" && has err "is the --model file" && oneline
check eval-dump-over-model-kept cmp -s "$TMP/keep.model" "$TMP/keep.copy"
# a trace reached through a link inside an input directory: the check made
# before the walk does not see it; the dump (or train's --out) renamed over it
# lost the trace (exit 0)
mkdir -p "$TMP/lk/D" "$TMP/lk/E"
cp "$DATA/labelled.csv" "$TMP/lk/D/t1.csv"
# not a copy of t1.csv (copies are skipped): a reading changed (a blank line
# more reads alike, and is a copy since 2026-12-08)
sed 's/^0,0,0,400,30,IDLE$/0,0,0,400,32,IDLE/' "$DATA/labelled.csv" >"$TMP/lk/E/keep.csv"
check lk-keep-differs sh -c '! cmp -s "$1" "$2"' sh "$DATA/labelled.csv" "$TMP/lk/E/keep.csv"
cp "$TMP/lk/E/keep.csv" "$TMP/lk/keep.orig"
ln -s ../E "$TMP/lk/D/L"
run eval-dump-over-linked-trace 2 "$WT" eval --window 5 --classifier rules --dump-features "$TMP/lk/E/keep.csv" "$TMP/lk/D" && has err "is a trace it read (as $TMP/lk/D/L/keep.csv); not written"
check eval-dump-over-linked-trace-kept cmp -s "$TMP/lk/E/keep.csv" "$TMP/lk/keep.orig"
run train-out-over-linked-trace 2 "$WT" train --traces "$TMP/lk/D" --window 5 --simulate 1 --python-windows 5 --rounds 2 --out "$TMP/lk/E/keep.csv" && has err "is a trace it read" && oneline
check train-out-over-linked-trace-kept cmp -s "$TMP/lk/E/keep.csv" "$TMP/lk/keep.orig"
run train-dump-over-linked-trace 2 "$WT" train --traces "$TMP/lk/D" --window 5 --simulate 1 --python-windows 5 --rounds 2 --out "$TMP/lk/m" --dump-features "$TMP/lk/E/keep.csv" && has err "is a trace it read" && oneline
check train-dump-over-linked-trace-kept cmp -s "$TMP/lk/E/keep.csv" "$TMP/lk/keep.orig"
sed '/^t_s/,$ s/,[^,]*$//' "$DATA/labelled.csv" >"$TMP/nolab.csv"
run train-no-labels 1 "$WT" train --traces "$TMP/nolab.csv" --out "$TMP/m" && has err "hold no labelled TRAINING or INFERENCE window" && oneline
echo "old dump" >"$TMP/dump.csv"
run eval-dump-bad 1 "$WT" eval --traces "$DATA/labelled.csv" "$TMP/nope.csv" --dump-features "$TMP/dump.csv" --window 5
[ "$(cat "$TMP/dump.csv")" = "old dump" ] && ! ls "$TMP"/dump.csv.* >/dev/null 2>&1 || { echo "FAIL [eval-dump-bad]: the old dump was replaced or a temporary file left"; fails=$((fails + 1)); }
run eval-dump-stdout 2 "$WT" eval --traces "$DATA/labelled.csv" --dump-features - && has err "standard output carries the report" && oneline
run bench-sim-cap 2 "$WT" benchmark --suite evasion --trials 100000 --seconds 3600 --sample-hz 100 && has err "limited to 10000000 samples per cell" && oneline
run bench-holdout-suite 2 "$WT" benchmark --suite sim --holdout family --traces "$DATA" && has err "--holdout family goes with --suite evasion" && oneline
run bench-holdout-notraces 2 "$WT" benchmark --suite evasion --holdout family && has err "--traces DIR" && oneline
run bench-traces-alone 2 "$WT" benchmark --suite evasion --traces "$DATA" && has err "--traces, --features, --retime, --sim-seed, --sim-weight and --missing go with --holdout" && oneline
run bench-features-alone 2 "$WT" benchmark --suite evasion --features duty && has err "--traces, --features, --retime, --sim-seed, --sim-weight and --missing go with --holdout" && oneline
run bench-sim-seed-alone 2 "$WT" benchmark --suite evasion --sim-seed 1 && has err "--sim-seed, --sim-weight and --missing go with --holdout" && oneline
run bench-retime-alone 2 "$WT" benchmark --suite evasion --retime 1 && has err "--sim-seed, --sim-weight and --missing go with --holdout" && oneline
run bench-retime-2 2 "$WT" benchmark --suite evasion --holdout family --traces "$DATA" --retime 2 && has err "--retime" && oneline
# --holdout family trains each fold's model as train does: another --sim-seed
# draws other simulator windows, so the held-out families score otherwise.
# Ten trainings a run, over a minute each under the sanitizers (the ctest
# build with WT_SANITIZE sets WT_TEST_SANITIZED=1): there the run below
# (bench-holdout-trained) is the one that takes the path, and these two
# compare outputs only
if [ "${WT_TEST_SANITIZED:-0}" != 1 ]; then
    run bench-holdout-seed0 0 "$WT" benchmark --suite evasion --holdout family --traces "$TMP/twoclass/t.csv" --trials 2 --json && cp "$TMP/out" "$TMP/hf0.json" && has out '"holdout": "family"'
    run bench-holdout-seed1 0 "$WT" benchmark --suite evasion --holdout family --traces "$TMP/twoclass/t.csv" --trials 2 --sim-seed 1 --json
    ! cmp -s "$TMP/out" "$TMP/hf0.json" || { echo "FAIL [bench-holdout-seed1]: the same report as --sim-seed 0"; fails=$((fails + 1)); }
    has out '"options": "--window 30 --rounds 300 --depth 3 --simulate 60 --sim-weight 0.4 --python-windows 40 --alone-views 1 --sim-seed 1"'
    has out '"sim_seed": 1,'
    grep -q '"sim_seed": 0,' "$TMP/hf0.json" || { echo "FAIL [bench-holdout-seed0]: no sim_seed 0 in its training object"; fails=$((fails + 1)); }
fi
run bench-holdout-trained 0 "$WT" benchmark --suite evasion --holdout family --traces "$TMP/twoclass/t.csv" --trials 1 --missing stop --retime 1
has out "models trained as: workloadtruth train --window 30 --rounds 300 --depth 3 --simulate 60 --sim-weight 0.4 --python-windows 40 --alone-views 1 --retime 1 --missing stop"
run bench-features-bad 2 "$WT" benchmark --suite evasion --holdout family --traces "$DATA" --features duty,bogus && has err "--features: unknown feature 'bogus'" && oneline

# ---- outputs never replace inputs or devices; input is never lost
cp "$DATA/labelled.csv" "$TMP/in.csv"
run eval-dump-is-input 2 "$WT" eval --traces "$TMP/in.csv" --dump-features "$TMP/in.csv" && has err "is one of the input files" && oneline
cmp -s "$DATA/labelled.csv" "$TMP/in.csv" || { echo "FAIL [eval-dump-is-input]: the input changed"; fails=$((fails + 1)); }
run train-out-is-input 2 "$WT" train --traces "$TMP/in.csv" --out "$TMP/in.csv" && has err "is one of the input files" && oneline
mkdir -p "$TMP/tr" && cp "$DATA/labelled.csv" "$TMP/tr/a.csv"
run train-dump-in-input-dir 2 "$WT" train --traces "$TMP/tr" --out "$TMP/m" --dump-features "$TMP/tr/d.csv" && has err "inside an input directory" && oneline
run train-out-dir 2 "$WT" train --traces "$TMP/in.csv" --out "$TMP" && has err "is a directory" && oneline
mkdir -p "$TMP/empty"
run train-no-traces 1 "$WT" train --traces "$TMP/empty" --out "$TMP/m" && has err "no trace files (*.csv) found in" && oneline
run bench-holdout-no-traces 1 "$WT" benchmark --suite evasion --holdout family --traces "$TMP/empty" --trials 1 && has err "no trace files (*.csv) found in"
printf '# format: workloadtruth-trace/2\nt_s,power_w\n0,1\n' >"$TMP/v2.csv"
run format-version 1 "$WT" classify --trace "$TMP/v2.csv" && has err "is not supported" && oneline

# ---- output that cannot be written is an error, said once
if [ -w /dev/full ]; then
    for c in "--version" "gpus --backend synthetic" "eval --traces $DATA/labelled.csv --window 5 --classifier rules" "benchmark --trials 1" \
        "classify --backend synthetic" "classify --backend synthetic --json" "eval --traces $DATA/labelled.csv --window 5 --json" \
        "record --backend synthetic --duration 2 --out -"; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        "$WT" $c >/dev/full 2>"$TMP/err"
        rc=$?
        if [ "$rc" != 1 ] || [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -q "cannot write to standard output: No space left on device" "$TMP/err"; then
            echo "FAIL [stdout-full: $c]: exit $rc, stderr:"
            sed 's/^/    /' "$TMP/err" | head -3
            fails=$((fails + 1))
        fi
    done
fi
# a closed standard output is a write error too, and its number is not handed
# to the audit log's lock file (window lines went into log.lock, exit 0)
# record from a live nvidia-smi pipe without an index column: with
# --gpus-per-tick the rows are written as they arrive (without it, the
# detection reads 128 rows ahead, and a killed recorder left no file)
(
    (echo "timestamp, name, utilization.gpu [%], power.draw [W]"
        for i in 10 11 12 13 14; do echo "2024/04/03 10:47:$i.000, NVIDIA A100-SXM4-40GB, 97 %, 300 W"; done
        sleep 8
        : >"$TMP/pt.eof") | "$WT" record --trace - --gpus-per-tick 1 --out "$TMP/pt.csv" 2>/dev/null
) &
ptp=$!
# (all but the last: a row is held until the next shows it is not the rest
# of the same sample); seen while the pipe is still open (pt.eof is made
# just before it closes)
before_eof() { lines_at_least 4 '^[0-9]' "$TMP/pt.csv" && [ ! -e "$TMP/pt.eof" ]; }
check "record --gpus-per-tick: rows written as they arrive" until_true 10 before_eof
wait $ptp
run record-per-tick-needs-trace 2 "$WT" record --backend synthetic --duration 1 --gpus-per-tick 1 --out "$TMP/x.csv" && has err "--gpus-per-tick goes with --trace"
# a MISMATCH keeps its 3 when the output cannot be written (it was 1)
run mismatch-stdout-full 3 sh -c 'exec "$@" >/dev/full' sh "$WT" classify --backend synthetic --profile training --declared inference && has err "cannot write to standard output"
run stdout-closed 1 sh -c 'exec "$@" >&-' sh "$WT" watch --backend synthetic --interval 0 --window 5 --iterations 3 --log-dir "$TMP/closed" && has err "cannot write to standard output: Bad file descriptor"
check stdout-closed-lock test ! -s "$TMP/closed/log.lock"
run stdout-closed-log 0 sh -c 'exec "$@" <&-' sh "$WT" verify-log --log-dir "$TMP/closed"
run unknown-command-newline 2 "$WT" "$(printf 'x\ny')" && has err "unknown command 'x?y'" && oneline

if [ -n "$SHARED" ] && [ -d "$SHARED" ]; then
    f="$SHARED/hap/ep000_ordinary_finetune_qwen2.5-0.5b.csv"
    run shared-classify 0 "$WT" classify --trace "$f" --samples 30 --json && has out '"sample_count": 30'
    # --holdout gpu_model with traces of the synthetic source, whose GPU is
    # named like the built-in Python-profile windows: those were held out too,
    # then opened as files ("cannot open 'python-synthetic:training'")
    mkdir -p "$TMP/hsyn"
    "$WT" record --backend synthetic --profile training --label TRAINING --duration 60 --out "$TMP/hsyn/tr.csv" 2>/dev/null
    "$WT" record --backend synthetic --profile inference --seed 3 --label INFERENCE --duration 60 --out "$TMP/hsyn/inf.csv" 2>/dev/null
    cp "$SHARED/energy_inference/falcon-7b_argonne-swing_2024-04-02_07-36-20.csv" \
        "$SHARED/training_profile/titanx_2gpu_2025-12-05-02-37-06.csv" "$TMP/hsyn/"
    run holdout-synthetic-family 0 "$WT" eval --traces "$TMP/hsyn" --holdout gpu_model --simulate 0 && has out "SYNTHETIC"
fi

echo "$n checks, $fails failures"
[ "$fails" = 0 ]
