#!/bin/sh
# The Slurm SPANK plugin on a real single-host Slurm cluster: munged,
# slurmctld and slurmd on loopback, all state, sockets, keys and logs in a
# private temporary directory, started here and stopped on exit.
#
# usage: slurm_test.sh WORKLOADTRUTH_BIN PLUGIN_SO SHARED_TRACES_DIR
#
# Cases: (a) --workload-type=inference, the node agent replays a training
# trace -> a MISMATCH class record in the audit log, the AdminComment and the
# slurmd log; (b) --workload-type=Training on the same trace -> MATCH;
# (c) plugin errors (no agent binary; an agent that hangs past the timeout)
# -> the job COMPLETED with exit code 0 and the node neither DRAIN nor DOWN;
# (d) a bad --workload-type value is refused by sbatch; (e) an undeclared
# job is still observed (a record without a verdict); (f) mode=record: the
# recorder started at job prolog, its recording classified at job end (an
# salloc that runs no step: no recording, no verdict, no error);
# (h) mode=record without an agent -> verdict=ERROR; (i) a full spool file
# system -> the job and node unharmed; (j) windows=40: the verdict, which
# follows the windows in the agent's JSON, is still read; (k) sbatch
# --export=NONE keeps the declaration; (l) a job array's AdminComments go to
# each task alone; (m) a cancelled job whose agent is killed: the job epilog
# tries again; (n) the job's owner cannot change the declaration through the
# job's environment; (o) a newline in the option's variable forges no log
# line; (p) no "not classified" remark for a recording's remainder, and arg=
# with mode=record is logged; (q) spool_dir: one others can write to, or a
# link (also given as DIR/), is refused, and links and FIFOs in it are
# neither followed nor waited on; a bare arg is ignored, and logged; (r) a
# job of another user than root gets WORKLOADTRUTH_DECLARED too; (s) a job
# that ends near its time limit is not killed at it while the agent runs, and
# its name cannot pose as its state or end time.
#
# Installs nothing: exits 77 (skip) when it is not root or munge/Slurm are
# missing (Debian: munge slurmctld slurmd slurm-client).  KEEP=1 keeps the
# directory for a look afterwards.
set -u
WT=$1
SO=$2
SHARED=$3
PATH=$PATH:/usr/sbin:/sbin
export PATH

skip() {
    echo "SKIP: $*"
    exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (slurmd runs as root and starts jobs as their users)"
for p in munged mungekey slurmctld slurmd sbatch scontrol squeue sinfo; do
    command -v "$p" >/dev/null 2>&1 ||
        skip "$p not found (Debian packages: munge slurmctld slurmd slurm-client)"
done
TRACE=$SHARED/training_profile/h100_8gpu_llama3-8b_ckpt100.csv
[ -f "$TRACE" ] || skip "no shared trace $TRACE"
[ -x "$WT" ] || { echo "FAIL: no workloadtruth binary at $WT"; exit 1; }
[ -f "$SO" ] || { echo "FAIL: no plugin at $SO"; exit 1; }
# the plugin and the agent are run by root from anywhere: absolute paths
case $WT in /*) ;; *) WT=$(pwd)/$WT ;; esac
case $SO in /*) ;; *) SO=$(pwd)/$SO ;; esac
case $TRACE in /*) ;; *) TRACE=$(pwd)/$TRACE ;; esac

D=$(mktemp -d /tmp/wt-slurm.XXXXXX) || exit 1
chmod 0755 "$D" # slurmd's spool and the job's output live below
# a copy of the plugin that sbatch run as another user (case r) can load: the
# build directory may sit below a directory only root can enter (mktemp -d)
cp "$SO" "$D/workloadtruth_spank.so" && chmod 0755 "$D/workloadtruth_spank.so" &&
    SO=$D/workloadtruth_spank.so
T0=$(date +%s)
PASS=0
FAILN=0
MUNGED_PID= CTLD_PID= SLURMD_PID=

cleanup() {
    for pid in $SLURMD_PID $CTLD_PID; do
        kill "$pid" 2>/dev/null
    done
    for pid in $SLURMD_PID $CTLD_PID; do
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -9 "$pid" 2>/dev/null
    done
    # recorders the plugin started and the epilog did not stop (on failure)
    for f in "$D"/*spool/job-*.pid; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    if [ -n "$MUNGED_PID" ] && kill "$MUNGED_PID" 2>/dev/null; then
        i=0 # it writes its seed file as it exits: wait, or rm -rf races it
        while kill -0 "$MUNGED_PID" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    fi
    if [ "${KEEP:-0}" = 1 ]; then
        echo "kept $D"
    else
        rm -rf "$D"
    fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

dump_logs() {
    for f in "$D"/slurmctld.log "$D"/slurmd.log "$D"/munged.log "$D"/daemons.err; do
        [ -f "$f" ] || continue
        echo "---- last lines of $f"
        tail -n 40 "$f"
    done
}
die() {
    echo "FAIL: $*"
    dump_logs
    exit 1
}
ok() {
    PASS=$((PASS + 1))
    echo "ok - $*"
}
bad() {
    FAILN=$((FAILN + 1))
    echo "not ok - $*"
}

# ---- munge: a private key and socket --------------------------------------
mungekey -c -f -k "$D/munge.key" >"$D/daemons.err" 2>&1 || die "mungekey"
chmod 0600 "$D/munge.key"
munged -f --socket="$D/munge.sock" --key-file="$D/munge.key" --pid-file="$D/munged.pid" \
    --log-file="$D/munged.log" --seed-file="$D/munge.seed" >>"$D/daemons.err" 2>&1 ||
    die "munged did not start"
MUNGED_PID=$(cat "$D/munged.pid" 2>/dev/null)
[ -n "$MUNGED_PID" ] || die "munged wrote no pid file"

# ---- slurm.conf -----------------------------------------------------------
PORT=$((17000 + ($$ % 2000) * 2)) # two ports: slurmctld, slurmd
mkdir -p "$D/state" "$D/spool" "$D/audit" "$D/jobs"
cat >"$D/slurm.conf" <<EOF
ClusterName=wtci
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge.sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
SlurmdDebug=info
SlurmctldDebug=info
PlugStackConfig=$D/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MinJobAge=3600
KillWait=5
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=1 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
# two GPUs for GRES, device files standing in (slurmd drops a GPU without
# one); slurmd reads gres.conf beside slurm.conf
printf 'Name=gpu File=/dev/null\nName=gpu File=/dev/zero\n' >"$D/gres.conf"
SLURM_CONF=$D/slurm.conf
export SLURM_CONF

# plugstack.conf is read again for every job (by sbatch and by the node), so
# each case writes its own before it submits
AGENT=$WT
plugstack() {
    printf 'optional %s bin=%s log_dir=%s spool_dir=%s gpu=0 %s\n' "$SO" "$AGENT" "$D/audit" \
        "$D/wtspool" "$*" >"$D/plugstack.conf"
}
AGENT_REPLAY="mode=classify timeout=30 windows=5 arg=--trace arg=$TRACE arg=--samples arg=300 arg=--start arg=300"
plugstack "$AGENT_REPLAY"

# ---- the daemons ------------------------------------------------------------
slurmctld -D -i -f "$D/slurm.conf" >>"$D/daemons.err" 2>&1 &
CTLD_PID=$!
slurmd -D -f "$D/slurm.conf" -N localhost >>"$D/daemons.err" 2>&1 &
SLURMD_PID=$!

node_state() {
    scontrol show node localhost 2>/dev/null | sed -n 's/.*State=\([^ ]*\).*/\1/p' | head -n 1
}
i=0
while :; do
    st=$(node_state)
    case $st in IDLE) break ;; esac
    kill -0 "$CTLD_PID" 2>/dev/null || die "slurmctld exited"
    kill -0 "$SLURMD_PID" 2>/dev/null || die "slurmd exited"
    i=$((i + 1))
    [ $i -lt 300 ] || die "the node did not become idle in 30 s (state: ${st:-none})"
    sleep 0.1
done
echo "# cluster up in $(($(date +%s) - T0)) s: slurmctld $CTLD_PID, slurmd $SLURMD_PID, munged $MUNGED_PID"

# ---- helpers ----------------------------------------------------------------
JOB=
SUBMIT_ENV= # VAR=VALUE words (no blanks) for sbatch's environment
submit() { # submit ARGS...: sbatch a trivial job; JOB gets its id
    # shellcheck disable=SC2086 # SUBMIT_ENV is words
    JOB=$(env $SUBMIT_ENV sbatch --parsable --chdir="$D/jobs" --output="$D/jobs/job-%j.out" "$@" \
        --wrap 'echo hello from the job; echo "declared=${WORKLOADTRUTH_DECLARED:-}"; sleep 1' \
        2>"$D/sbatch.err")
    rc=$?
    JOB=${JOB%%;*}
    [ $rc -eq 0 ] && [ -n "$JOB" ] || die "sbatch $*: exit $rc: $(cat "$D/sbatch.err")"
}
job_field() { # job_field NAME: from scontrol show job $JOB
    # past its first line, JobId= and JobName=, which the job's owner sets
    # (case (s) names a job "x JobState=COMPLETED ...")
    scontrol show job "$JOB" 2>/dev/null | sed 1d | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}
job_line() { # the AdminComment, which has spaces: the rest of its line
    scontrol show job "$JOB" 2>/dev/null | sed -n 's/^ *AdminComment=//p' | head -n 1
}
wait_done() { # waits for a final state (COMPLETED: the epilog is done too) and the plugin's log line
    i=0
    while :; do
        st=$(job_field JobState)
        case $st in
        COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
            # the epilog ran once the job is no longer COMPLETING; its line follows
            if grep -q "workloadtruth: job $JOB declared=" "$D/slurmd.log" 2>/dev/null; then
                return 0
            fi
            ;;
        esac
        i=$((i + 1))
        [ $i -lt 600 ] || {
            echo "# job $JOB: state ${st:-none} after 60 s"
            return 1
        }
        sleep 0.1
    done
}
last_class() { # the last class record for job $JOB in the audit log
    grep "\"slurm_job_id\":\"$JOB\"" "$D/audit/log.jsonl" 2>/dev/null | tail -n 1
}
node_ok() {
    st=$(node_state)
    case $st in *DRAIN* | *DOWN* | *FAIL* | "") return 1 ;; esac
    return 0
}

# ---- the option is listed ----------------------------------------------------------
sbatch --help 2>&1 | grep -q -- "--workload-type=TYPE" && ok "sbatch --help lists --workload-type" ||
    bad "sbatch --help does not list --workload-type"

# ---- (a) declared inference, training telemetry -> MISMATCH -----------------
submit --workload-type=inference
wait_done || bad "(a) job $JOB did not finish with a workloadtruth log line"
rec=$(last_class)
ac=$(job_line)
if echo "$rec" | grep -q '"class":"training"' && echo "$rec" | grep -q '"verdict":"MISMATCH"' &&
    echo "$rec" | grep -q '"declared":"inference"'; then
    ok "(a) job $JOB: audit log class record training, declared inference, verdict MISMATCH"
else
    bad "(a) job $JOB: audit log record: ${rec:-none}"
fi
case $ac in
*"declared=inference observed=TRAINING verdict=MISMATCH"*) ok "(a) AdminComment: $ac" ;;
*) bad "(a) AdminComment: '$ac'" ;;
esac
grep -q "workloadtruth: job $JOB declared=inference observed=TRAINING verdict=MISMATCH" \
    "$D/slurmd.log" && ok "(a) slurmd log line" || bad "(a) no MISMATCH line in slurmd.log"
[ "$(job_field JobState)" = COMPLETED ] && [ "$(job_field ExitCode)" = 0:0 ] ||
    bad "(a) job state $(job_field JobState) exit $(job_field ExitCode)"
# the job's processes carry the declaration, for a node agent (watch) reading /proc
grep -q '^declared=inference$' "$D/jobs/job-$JOB.out" &&
    ok "(a) the job's environment has WORKLOADTRUTH_DECLARED=inference" ||
    bad "(a) WORKLOADTRUTH_DECLARED not in the job's environment: $(cat "$D/jobs/job-$JOB.out")"

# ---- (r) a job of another user: slurmstepd calls user_init after it has
# dropped to the job's user, who cannot read the root-only spool; the
# declaration is read (as root) before that, and the tasks get it
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
    mkdir -p "$D/userjobs"
    chmod 1777 "$D/userjobs"
    JOB=$(runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable \
        --workload-type=inference --chdir="$D/userjobs" --output="$D/userjobs/job-%j.out" \
        --wrap 'echo "declared=${WORKLOADTRUTH_DECLARED:-}"' 2>"$D/sbatch.err")
    JOB=${JOB%%;*}
    [ -n "$JOB" ] || die "sbatch as nobody: $(cat "$D/sbatch.err")"
    wait_done || bad "(r) job $JOB did not finish with a workloadtruth log line"
    grep -q '^declared=inference$' "$D/userjobs/job-$JOB.out" &&
        ok "(r) a job of user nobody: WORKLOADTRUTH_DECLARED=inference" ||
        bad "(r) a job of user nobody: $(cat "$D/userjobs/job-$JOB.out")"
else
    echo "# (r) skipped: no user nobody or no runuser"
fi

# ---- (b) declared training, same telemetry -> MATCH ---------------------------
# (in another letter case, as classify --declared takes it: recorded lower case)
submit --workload-type=Training
wait_done || bad "(b) job $JOB did not finish with a workloadtruth log line"
rec=$(last_class)
ac=$(job_line)
if echo "$rec" | grep -q '"verdict":"MATCH"' && echo "$rec" | grep -q '"declared":"training"'; then
    ok "(b) job $JOB: audit log verdict MATCH"
else
    bad "(b) job $JOB: audit log record: ${rec:-none}"
fi
case $ac in
*"declared=training observed=TRAINING verdict=MATCH"*) ok "(b) AdminComment: $ac" ;;
*) bad "(b) AdminComment: '$ac'" ;;
esac

# ---- (e) no declaration: still observed, no verdict ---------------------------
submit
wait_done || bad "(e) job $JOB did not finish with a workloadtruth log line"
rec=$(last_class)
ac=$(job_line)
if echo "$rec" | grep -q '"class":"training"' && ! echo "$rec" | grep -q '"verdict"'; then
    ok "(e) job $JOB (undeclared): class record training without a verdict"
else
    bad "(e) job $JOB: audit log record: ${rec:-none}"
fi
case $ac in
*"declared=none observed=TRAINING verdict=none"*) ok "(e) AdminComment: $ac" ;;
*) bad "(e) AdminComment: '$ac'" ;;
esac

# ---- (g) srun without a batch script: the job epilog does it ----------------------
JOB=$(srun --workload-type=inference --chdir="$D/jobs" sh -c 'echo $SLURM_JOB_ID' 2>"$D/srun.err")
[ -n "$JOB" ] || die "srun --workload-type=inference: $(cat "$D/srun.err")"
wait_done || bad "(g) job $JOB did not finish with a workloadtruth log line"
rec=$(last_class)
if echo "$rec" | grep -q '"class":"training"' && echo "$rec" | grep -q '"verdict":"MISMATCH"'; then
    ok "(g) srun job $JOB: audit log verdict MISMATCH (from the job epilog)"
else
    bad "(g) srun job $JOB: audit log record: ${rec:-none}"
fi
grep -q "workloadtruth: job $JOB declared=inference observed=TRAINING verdict=MISMATCH" \
    "$D/slurmd.log" && ok "(g) slurmd log line" || bad "(g) no MISMATCH line in slurmd.log"
if srun --workload-type=bogus true >"$D/bogus.out" 2>&1; then
    bad "(g) srun accepted --workload-type=bogus"
else
    grep -q "workload-type must be" "$D/bogus.out" && ok "(g) srun refused --workload-type=bogus" ||
        bad "(g) srun failed without the plugin's message: $(cat "$D/bogus.out")"
fi

# ---- the audit log verifies --------------------------------------------------
if out=$("$WT" verify-log --log-dir "$D/audit" 2>&1); then
    ok "verify-log: $out"
else
    bad "verify-log: $out"
fi
grep -q "workloadtruth: created the audit log in $D/audit; verifier key: " \
    "$D/slurmd.log" && ok "the new log's verifier key is in the slurmd log" ||
    bad "no verifier key line in slurmd.log"
n=$(grep -c '"type":"class"' "$D/audit/log.jsonl")
[ "$n" = 5 ] && ok "5 class records, one per job" || bad "$n class records, expected 5"

# ---- (k) sbatch --export=NONE: the declaration still reaches the batch step ------
submit --workload-type=inference --export=NONE
wait_done || bad "(k) job $JOB did not finish with a workloadtruth log line"
case $(job_line) in
*"declared=inference observed=TRAINING verdict=MISMATCH"*) ok "(k) --export=NONE: AdminComment $(job_line)" ;;
*) bad "(k) --export=NONE: AdminComment '$(job_line)'" ;;
esac
grep -q '^declared=inference$' "$D/jobs/job-$JOB.out" &&
    ok "(k) --export=NONE: the job's environment has WORKLOADTRUTH_DECLARED=inference" ||
    bad "(k) --export=NONE: WORKLOADTRUTH_DECLARED not in the job's environment"

# ---- (l) a job array: each task's AdminComment goes to that task alone ------------
# (the task whose raw id is the array's id would otherwise update every task)
A=$(sbatch --parsable --array=1-2 --chdir="$D/jobs" --output="$D/jobs/array-%A_%a.out" \
    --workload-type=training --wrap 'sleep 1' 2>"$D/sbatch.err")
A=${A%%;*}
[ -n "$A" ] || die "sbatch --array: $(cat "$D/sbatch.err")"
for t in 1 2; do
    JOB=${A}_$t
    i=0
    while [ $i -lt 600 ]; do
        case $(job_field JobState) in COMPLETED | FAILED | CANCELLED) break ;; esac
        i=$((i + 1))
        sleep 0.1
    done
    case $(job_line) in
    *"declared=training observed=TRAINING verdict=MATCH"*) ok "(l) array task $JOB: AdminComment $(job_line)" ;;
    *) bad "(l) array task $JOB: AdminComment '$(job_line)'" ;;
    esac
done
sleep 1
if grep "cannot set AdminComment" "$D/slurmd.log" | grep -q "job $A:"; then
    bad "(l) array: $(grep "cannot set AdminComment" "$D/slurmd.log" | grep "job $A:" | head -1)"
else
    ok "(l) array: every AdminComment update went through"
fi

# ---- (n) the job's owner cannot change the declaration the job is checked
# against: slurmstepd runs the option's callback again for an
# _SLURM_SPANK_OPTION_ variable in the job's environment, and the job's
# environment can hold SLURM_SPANK_WORKLOAD_TYPE; the node takes the job's
# declaration only from the job-control environment (SPANK_WORKLOAD_TYPE, as
# the job prolog has it), which Prolog/Epilog scripts see too
declared_case() { # TAG WHAT DECLARED VERDICT(grep pattern for the line's end)
    wait_done || bad "($1) job $JOB did not finish with a workloadtruth log line"
    line=$(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1)
    case $line in
    *"declared=$3 observed=TRAINING verdict=$4"*) ok "($1) $2: slurmd log declared=$3 verdict=$4" ;;
    *) bad "($1) $2: slurmd log: ${line:-no line}" ;;
    esac
    case $(job_line) in
    *"declared=$3 observed=TRAINING verdict=$4"*) ok "($1) $2: AdminComment $(job_line)" ;;
    *) bad "($1) $2: AdminComment '$(job_line)'" ;;
    esac
    rec=$(last_class)
    if [ "$3" = none ]; then
        echo "$rec" | grep -q '"declared"' && bad "($1) $2: audit record has a declaration: $rec" ||
            ok "($1) $2: audit record without a declaration"
    else
        echo "$rec" | grep -q "\"declared\":\"$3\"" && ok "($1) $2: audit record declared $3" ||
            bad "($1) $2: audit record: ${rec:-none}"
    fi
    # "none" for a job without a declaration: the agent then does not read
    # the job's own SLURM_SPANK_WORKLOAD_TYPE as one
    want=$3
    grep -q "^declared=$want\$" "$D/jobs/job-$JOB.out" &&
        ok "($1) $2: the job's WORKLOADTRUTH_DECLARED is '$want'" ||
        bad "($1) $2: the job's WORKLOADTRUTH_DECLARED: $(grep '^declared=' "$D/jobs/job-$JOB.out")"
}
submit --workload-type=inference --export=ALL,_SLURM_SPANK_OPTION_workloadtruth_workload_type=training
declared_case n "--workload-type=inference, the option's variable exported as training" inference MISMATCH
SUBMIT_ENV=SLURM_SPANK_WORKLOAD_TYPE=training
submit
declared_case n "no option, SLURM_SPANK_WORKLOAD_TYPE=training in the environment" none none
# a client of the job's owner that does not load the plugin (its own
# slurm.conf and plugstack.conf): nothing in the job-control environment
sed "s|^PlugStackConfig=.*|PlugStackConfig=$D/user-plugstack.conf|" "$D/slurm.conf" >"$D/user-slurm.conf"
: >"$D/user-plugstack.conf"
SUBMIT_ENV="SLURM_CONF=$D/user-slurm.conf SLURM_SPANK_WORKLOAD_TYPE=training _SLURM_SPANK_OPTION_workloadtruth_workload_type=training"
submit
declared_case n "sbatch without the plugin, both variables set to training" none none
SUBMIT_ENV=

# ---- (o) a newline in the option's variable forges no slurmd log line: the
# node ignores a bad value, logs it escaped and cut short, and never refuses
# it (slurmstepd would log a refused value whole)
FORGED="x
[2026-01-01T00:00:00.000] [99999.batch] workloadtruth: job 99999 declared=inference observed=INFERENCE verdict=MATCH audit_log=/forged/log.jsonl seq=1"
JOB=$(_SLURM_SPANK_OPTION_workloadtruth_workload_type="$FORGED" sbatch --parsable --chdir="$D/jobs" \
    --output="$D/jobs/job-%j.out" --wrap 'echo hello from the job' 2>"$D/sbatch.err")
JOB=${JOB%%;*}
[ -n "$JOB" ] || die "sbatch (o): $(cat "$D/sbatch.err")"
wait_done || bad "(o) job $JOB did not finish with a workloadtruth log line"
if grep -q "job 99999" "$D/slurmd.log"; then
    bad "(o) a forged line is in the slurmd log: $(grep "job 99999" "$D/slurmd.log" | head -n 1 | cut -c1-200)"
else
    ok "(o) no forged line in the slurmd log"
fi
grep -q "ignoring a bad --workload-type value from the job's environment: 'x\\\\x0a\[2026-01-01T00:00:00.000\] \[99999\.batch\.\.\.'" \
    "$D/slurmd.log" && ok "(o) the bad value is logged escaped and cut short" ||
    bad "(o) no escaped line: $(grep "job's environment" "$D/slurmd.log" | tail -n 1 | cut -c1-200)"
grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | grep -q "declared=none observed=TRAINING verdict=none" &&
    [ "$(job_field JobState)" = COMPLETED ] && [ "$(job_field ExitCode)" = 0:0 ] &&
    ok "(o) job $JOB COMPLETED 0:0, classified as undeclared" ||
    bad "(o) job $JOB: $(job_field JobState) $(job_field ExitCode): $(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | cut -c1-200)"

# ---- (m) a batch job cancelled while its agent runs (its script done): the
# cancellation kills the agent, and the job epilog runs it again (the agent
# sleeps on its first run only)
printf '#!/bin/sh\nif [ ! -e "%s/slow.once" ]; then : >"%s/slow.once"; sleep 60; fi\nexec "%s" "$@"\n' \
    "$D" "$D" "$WT" >"$D/slowonce.sh"
chmod 0755 "$D/slowonce.sh"
AGENT=$D/slowonce.sh
plugstack "$AGENT_REPLAY"
JOB=$(sbatch --parsable --chdir="$D/jobs" --output="$D/jobs/job-%j.out" --workload-type=inference \
    --wrap 'sleep 1' 2>"$D/sbatch.err")
JOB=${JOB%%;*}
[ -n "$JOB" ] || die "sbatch (m): $(cat "$D/sbatch.err")"
# the agent's first run, in the batch step's hook, has begun
i=0
while [ ! -e "$D/slow.once" ] && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.1; done
sleep 1
scancel "$JOB"
i=0
while ! grep -q "workloadtruth: job $JOB declared=inference observed=TRAINING verdict=MISMATCH" \
    "$D/slurmd.log" && [ $i -lt 600 ]; do
    i=$((i + 1))
    sleep 0.1
done
if grep -q "workloadtruth: job $JOB declared=inference observed=TRAINING verdict=MISMATCH" "$D/slurmd.log"; then
    ok "(m) cancelled job $JOB: the job epilog ran the killed agent again: MISMATCH"
else
    bad "(m) cancelled job $JOB: no MISMATCH line: $(grep "workloadtruth: job $JOB " "$D/slurmd.log" | tail -n 2 | cut -c1-250)"
fi
grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | grep -q "killed by signal.*the job epilog tries again" &&
    ok "(m) the killed first run is logged" || bad "(m) no 'the job epilog tries again' line"
# ... and one cancelled while its script runs: its batch step, being killed,
# leaves the work to the job epilog (it had started the agent, killed after
# KillWait)
AGENT=$WT
plugstack "$AGENT_REPLAY"
JOB=$(sbatch --parsable --chdir="$D/jobs" --output="$D/jobs/job-%j.out" --workload-type=inference \
    --wrap 'sleep 300' 2>"$D/sbatch.err")
JOB=${JOB%%;*}
[ -n "$JOB" ] || die "sbatch (m): $(cat "$D/sbatch.err")"
i=0
while [ ! -e "$D/jobs/job-$JOB.out" ] && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.1; done
sleep 1
scancel "$JOB"
i=0
while ! grep -q "workloadtruth: job $JOB declared=" "$D/slurmd.log" && [ $i -lt 600 ]; do
    i=$((i + 1))
    sleep 0.1
done
grep -q "workloadtruth: job $JOB is [A-Z_]*: leaving the work to the job epilog" "$D/slurmd.log" &&
    grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | grep -q "observed=TRAINING verdict=MISMATCH" &&
    ok "(m) job $JOB cancelled in its script: the job epilog classified it" ||
    bad "(m) job $JOB cancelled in its script: $(grep "workloadtruth: job $JOB" "$D/slurmd.log" | cut -c1-200)"

# ---- (d) a bad value is refused at submit time --------------------------------
# (a job id not queued before: an earlier case's job may leave the queue
# meanwhile, which made a count of the queue fail this check)
squeue -h -o %i 2>/dev/null | sort >"$D/queue.before"
if sbatch --workload-type=bogus --wrap true >"$D/bogus.out" 2>&1; then
    bad "(d) sbatch accepted --workload-type=bogus: $(cat "$D/bogus.out")"
elif grep -q "workload-type must be training, inference or idle" "$D/bogus.out"; then
    ok "(d) sbatch refused --workload-type=bogus: $(tr '\n' ' ' <"$D/bogus.out")"
else
    bad "(d) sbatch failed without the plugin's message: $(cat "$D/bogus.out")"
fi
squeue -h -o %i 2>/dev/null | sort >"$D/queue.after"
new=$(comm -13 "$D/queue.before" "$D/queue.after" | tr '\n' ' ')
[ -z "$new" ] || bad "(d) a job was queued anyway: $new"

# ---- (c) plugin errors leave the node and the job alone ------------------------
plugin_error_case() { # NAME: after the job's submission
    if wait_done && [ "$(job_field JobState)" = COMPLETED ] && [ "$(job_field ExitCode)" = 0:0 ] &&
        grep -q "hello from the job" "$D/jobs/job-$JOB.out"; then
        ok "(c) $1: job $JOB COMPLETED, exit code 0:0"
    else
        bad "(c) $1: job $JOB state $(job_field JobState) exit $(job_field ExitCode)"
    fi
    if node_ok; then
        ok "(c) $1: node state $(node_state)"
    else
        bad "(c) $1: node state $(node_state) ($(scontrol show node localhost | grep -i reason))"
    fi
    grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | grep -q "verdict=ERROR" &&
        ok "(c) $1: logged: $(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1 | cut -c1-200)" ||
        bad "(c) $1: no verdict=ERROR line in slurmd.log"
}
no_agent_case() { # TAG MODE: a batch job with the agent missing -> verdict=ERROR
    AGENT=$D/no-such-agent
    plugstack "mode=$2"
    submit --workload-type=training
    plugin_error_case "mode=$2, no agent binary"
    # the forked child says why execve failed with async-signal-safe calls only
    grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" |
        grep -q "cannot run $D/no-such-agent: errno 2 (No such file or directory)" &&
        ok "($1) the failed execve is logged with its errno" ||
        bad "($1) no 'cannot run ... errno 2' in: $(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1 | cut -c1-250)"
    case $(job_line) in
    *"declared=training observed=none verdict=ERROR"*) ok "($1) AdminComment: $(job_line)" ;;
    *) bad "($1) AdminComment: '$(job_line)'" ;;
    esac
}
no_agent_case c classify

# the same through the job epilog (a job without a batch script): an
# epilog that failed would drain the node
JOB=$(srun --workload-type=idle --chdir="$D/jobs" sh -c 'echo $SLURM_JOB_ID; echo hello from the job >job-$SLURM_JOB_ID.out' 2>"$D/srun.err")
[ -n "$JOB" ] || die "srun --workload-type=idle: $(cat "$D/srun.err")"
plugin_error_case "no agent binary, srun job (job epilog)"

printf '#!/bin/sh\necho $$ >"%s/hang.pid"\nexec sleep 600\n' "$D" >"$D/hang.sh"
chmod 0755 "$D/hang.sh"
AGENT=$D/hang.sh
plugstack "mode=classify timeout=2"
t=$(date +%s)
submit --workload-type=inference
plugin_error_case "agent hangs (timeout=2)"
echo "# the hanging agent's job took $(($(date +%s) - t)) s"
sleep 0.5
hang=$(cat "$D/hang.pid" 2>/dev/null)
if [ -z "$hang" ]; then
    bad "(c) the hanging agent never ran"
elif kill -0 "$hang" 2>/dev/null; then
    bad "(c) the hanging agent $hang is still running after its timeout"
    kill -9 "$hang"
else
    ok "(c) the hanging agent was killed"
fi
# a timeout is not a cancellation: not tried again, and the batch job's
# AdminComment says ERROR
case $(job_line) in
*"declared=inference observed=none verdict=ERROR"*) ok "(c) hanging agent: AdminComment $(job_line)" ;;
*) bad "(c) hanging agent: AdminComment '$(job_line)'" ;;
esac
[ "$(grep -c "workloadtruth: job $JOB declared=" "$D/slurmd.log")" = 1 ] &&
    ok "(c) hanging agent: run once, not retried" ||
    bad "(c) hanging agent: $(grep -c "workloadtruth: job $JOB declared=" "$D/slurmd.log") runs"

# an agent that does not go when killed (a call that cannot be interrupted: a
# hung NFS mount or GPU driver): a tracer outside its process group keeps the
# killed agent from being reaped for 30 s; the hook gives up on it 3 s after
# the kill and says so (it waited for as long as the call took: for ever on
# a mount that never recovers, the batch step past its limit)
cat >"$D/hold.py" <<'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
if libc.ptrace(0x4206, int(sys.argv[1]), None, None) != 0:  # PTRACE_SEIZE
    sys.exit("ptrace: errno %d" % ctypes.get_errno())
open(sys.argv[3], "w").write("%d\n" % os.getpid())
time.sleep(float(sys.argv[2]))
EOF
printf '#!/bin/sh\nsetsid python3 "%s/hold.py" $$ 30 "%s/held" </dev/null >/dev/null 2>&1 &\ni=0\nwhile [ ! -s "%s/held" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done\nexec sleep 600\n' "$D" "$D" "$D" >"$D/stuck.sh"
chmod 0755 "$D/stuck.sh"
rm -f "$D/held"
AGENT=$D/stuck.sh
plugstack "mode=classify timeout=2"
t=$(date +%s)
submit --workload-type=inference
plugin_error_case "agent not gone after its kill (timeout=2)"
took=$(($(date +%s) - t))
if [ ! -s "$D/held" ]; then
    bad "(c) the unreaped agent was not held (no ptrace here?)"
elif [ $took -lt 20 ]; then
    ok "(c) an agent not gone after its kill: the job ended in $took s"
else
    bad "(c) an agent not gone after its kill: the job took $took s (its tracer let it go after 30 s)"
fi
grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | grep -q "left behind" &&
    ok "(c) an agent not gone after its kill: said 'left behind'" ||
    bad "(c) no 'left behind' in: $(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1 | cut -c1-250)"
kill "$(cat "$D/held" 2>/dev/null)" 2>/dev/null
AGENT=$D/hang.sh

# the hook killed, as slurmd kills a job epilog that runs past
# PrologEpilogTimeout (by its process group, which the agent has left): the
# agent dies with it (it ran on as root, with no one to enforce timeout=)
rm -f "$D/hang.pid"
plugstack "mode=classify timeout=60"
srun --workload-type=idle --chdir="$D/jobs" true 2>"$D/srun.err" || die "srun: $(cat "$D/srun.err")"
i=0
while [ ! -s "$D/hang.pid" ] && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
done
hang=$(cat "$D/hang.pid" 2>/dev/null)
hook=$(awk '{print $4}' "/proc/$hang/stat" 2>/dev/null)
if [ -z "$hang" ] || [ -z "$hook" ] || [ "$hook" -le 1 ]; then
    bad "(c) the job epilog's agent never ran (pid '$hang', parent '$hook')"
elif [ "$hook" = "$SLURMD_PID" ]; then
    bad "(c) the job epilog's agent is slurmd's own child: not killing slurmd"
    kill -9 "$hang"
else
    kill -9 "$hook"
    i=0
    while kill -0 "$hang" 2>/dev/null && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if kill -0 "$hang" 2>/dev/null; then
        bad "(c) the agent $hang runs on after its hook $hook was killed"
        kill -9 "$hang"
    else
        ok "(c) the agent died with its killed hook"
    fi
fi
# slurmd drains a node whose epilog failed: the next cases need it back,
# once the job has gone
i=0
while [ -n "$(squeue -h 2>/dev/null)" ] && [ $i -lt 200 ]; do
    sleep 0.1
    i=$((i + 1))
done
sleep 0.5
i=0
while ! node_ok && [ $i -lt 100 ]; do
    scontrol update NodeName=localhost State=RESUME >/dev/null 2>&1
    sleep 0.2
    i=$((i + 1))
done
node_ok || die "the node stays $(node_state) after the killed job epilog"

# an agent that fails after pages of warnings (more than the 4 KiB kept): its
# last stderr line (why it failed) is logged, not the first 511 bytes (a
# warning's first words)
{
    printf '#!/bin/sh\ni=0\nwhile [ $i -lt 100 ]; do\n'
    printf '    echo "workloadtruth classify: warning: line $i of the warnings before the failure" >&2\n'
    printf '    i=$((i + 1))\ndone\n'
    printf 'echo "workloadtruth classify: could not append to the audit log: THE CAUSE" >&2\nexit 1\n'
} >"$D/noisy.sh"
chmod 0755 "$D/noisy.sh"
AGENT=$D/noisy.sh
plugstack "mode=classify timeout=30"
submit --workload-type=inference
plugin_error_case "agent fails after 100 warnings"
grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" |
    grep -q "exited with status 1: workloadtruth classify: could not append to the audit log: THE CAUSE" &&
    ok "(c) the failing agent's last stderr line is logged" ||
    bad "(c) not the last stderr line: $(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1 | cut -c1-250)"

# ---- (f) mode=record: recorded at job prolog, classified at job end -------------
# (the synthetic source stands in for the GPU; it stops after 30 samples)
AGENT=$WT
# (interval=0 is refused where plugstack.conf is read; the next interval= applies)
plugstack "mode=record interval=0 interval=1 windows=5 min_samples=10 record_arg=--backend" \
    "record_arg=synthetic record_arg=--profile record_arg=training record_arg=--duration record_arg=30"
submit --workload-type=inference
wait_done || bad "(f) job $JOB did not finish with a workloadtruth log line"
grep -q "ignoring argument 'interval=0'" "$D/sbatch.err" "$D/slurmd.log" &&
    ok "(f) interval=0 in plugstack.conf: logged and ignored" ||
    bad "(f) interval=0 in plugstack.conf was not refused"
rec=$(last_class)
ac=$(job_line)
if echo "$rec" | grep -q '"class":"training"' && echo "$rec" | grep -q '"verdict":"MISMATCH"'; then
    ok "(f) job $JOB (mode=record): recorded training, verdict MISMATCH"
else
    bad "(f) job $JOB: audit log record: ${rec:-none} ($(grep "job $JOB" "$D/slurmd.log" | tail -n 3))"
fi
[ ! -e "$D/wtspool/job-$JOB.trace" ] && ok "(f) the recording was removed" ||
    bad "(f) $D/wtspool/job-$JOB.trace is left behind"
# an salloc allocation that runs no step on the node: no job prolog, nothing
# recorded and nothing of the job on the GPU: no verdict, not an error
salloc_no_step() { # NAME [EXPECTED: by default no verdict, no error]
    want=${2:-"declared=idle observed=none verdict=none (no recording: the job prolog did not run"}
    JOB=$(salloc --workload-type=idle sh -c 'echo $SLURM_JOB_ID' 2>"$D/salloc.err")
    [ -n "$JOB" ] || die "salloc --workload-type=idle: $(cat "$D/salloc.err")"
    i=0
    while ! grep -q "workloadtruth: job $JOB declared=" "$D/slurmd.log" && [ $i -lt 300 ]; do
        i=$((i + 1))
        sleep 0.1
    done
    grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | grep -qF "$want" &&
        ok "(f) $1" ||
        bad "(f) $1: $(grep "workloadtruth: job $JOB" "$D/slurmd.log" | tail -n 1 | cut -c1-250)"
}
salloc_no_step "salloc without a step: no recording, no verdict, no error"
# the same where no job prolog has created the spool yet (a fresh /run after
# a reboot): still no error
plugstack "mode=record windows=5 spool_dir=$D/fresh-spool"
salloc_no_step "salloc without a step, no spool yet: no recording, no verdict, no error"
# ... but a spool that cannot be created (its parent is missing: the job
# prolog failed on it too) is an error, not "no step ran here"
plugstack "mode=record windows=5 spool_dir=$D/no-parent/spool"
salloc_no_step "salloc without a step, spool cannot be created: verdict=ERROR" \
    "observed=none verdict=ERROR: no recording: refusing spool_dir $D/no-parent/spool"

# ---- (p) mode=record, 41 samples over 40 s with windows=5: windows of 15 s
# or more (2 of 20 and one sample over, which is no limit's doing: no "not
# classified" remark); and
# arg= (mode=classify's) with mode=record is said, not silently ignored
plugstack "mode=record windows=5 min_samples=10 arg=--start arg=300 record_arg=--backend" \
    "record_arg=synthetic record_arg=--profile record_arg=training record_arg=--duration record_arg=40"
submit --workload-type=training
wait_done || bad "(p) job $JOB did not finish with a workloadtruth log line"
line=$(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1)
case $line in
*"not classified"*) bad "(p) 41 samples: $(echo "$line" | sed 's/.*workloadtruth: //')" ;;
*"verdict=MATCH"*) ok "(p) 41 samples, windows=5: no 'not classified' remark: $(echo "$line" | sed 's/.*workloadtruth: //' | cut -c1-80)" ;;
*) bad "(p) 41 samples: ${line:-no line}" ;;
esac
case $(job_line) in
*"not classified"*) bad "(p) AdminComment: $(job_line)" ;;
*) ok "(p) AdminComment without a remark: $(job_line)" ;;
esac
# a recording of 300 s: a window per 30 s (10 with windows=5), each wholly
# judged (5 windows of 60 s were judged on their last 30 s: half the job)
plugstack "mode=record windows=5 min_samples=10 record_arg=--backend" \
    "record_arg=synthetic record_arg=--profile record_arg=training record_arg=--duration record_arg=300"
submit --workload-type=training
wait_done || bad "(p) job $JOB did not finish with a workloadtruth log line"
last_class | grep -q "of 10 windows TRAINING" && ok "(p) 300 s recorded: 10 windows of 30 s" ||
    bad "(p) 300 s recorded: $(last_class | cut -c1-300)"
grep -q "plugstack.conf: 2 arg= arguments ignored: arg= is for mode=classify" "$D/slurmd.log" &&
    ok "(p) arg= with mode=record: logged as ignored" ||
    bad "(p) arg= with mode=record: no line in slurmd.log"

# ---- (u) the job's GPUs (SLURM_JOB_GPUS, as slurmd gives the job prolog):
# a job without GPUs, or on other GPUs, is not judged on gpu=N's work
GPU_REC="mode=record windows=5 min_samples=10 record_arg=--backend record_arg=synthetic record_arg=--profile record_arg=training record_arg=--duration record_arg=30"
gpu_case() { # NAME EXPECTED [sbatch args]: the job's log line holds EXPECTED
    name=$1
    want=$2
    shift 2
    submit --workload-type=inference "$@"
    wait_done || bad "(u) $name: job $JOB did not finish with a workloadtruth log line"
    line=$(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1)
    case $line in
    *"$want"*) ok "(u) $name: $(echo "$line" | sed 's/.*workloadtruth: //' | cut -c1-160)" ;;
    *) bad "(u) $name: ${line:-no line}" ;;
    esac
}
# no gpu= at all: the default is auto (it was gpu=0, and the README's install
# line set none: a CPU job was judged on another job's GPU 0)
printf 'optional %s bin=%s log_dir=%s spool_dir=%s %s\n' "$SO" "$AGENT" "$D/audit" \
    "$D/wtspool" "$GPU_REC" >"$D/plugstack.conf"
gpu_case "no gpu= (auto), a job without GPUs" "observed=none verdict=none (no GPU of the job on this node: SLURM_JOB_GPUS is not set)"
grep -q "job $JOB: recording GPU" "$D/slurmd.log" && bad "(u) a job without GPUs was recorded" ||
    ok "(u) a job without GPUs: nothing recorded"
grep "job $JOB" "$D/slurmd.log" | grep -q "error:" && bad "(u) a job without GPUs: an error line" ||
    ok "(u) a job without GPUs: no error line"
case $(job_line) in
*"declared=inference observed=none verdict=none (no GPU of the job here)"*) ok "(u) AdminComment: $(job_line)" ;;
*) bad "(u) AdminComment: '$(job_line)'" ;;
esac
gpu_case "no gpu= (auto), --gres=gpu:1" "observed=TRAINING verdict=MISMATCH" --gres=gpu:1
grep -q "job $JOB: recording GPU 0 " "$D/slurmd.log" && ok "(u) gpu=auto: the job's GPU 0 recorded" ||
    bad "(u) gpu=auto: $(grep "job $JOB: recording" "$D/slurmd.log" | tail -n 1)"
# shellcheck disable=SC2086
plugstack $GPU_REC gpu=1
gpu_case "gpu=1, --gres=gpu:1 (GPU 0)" "verdict=none (GPU 1 (gpu=) is not one of the job's: SLURM_JOB_GPUS=0)" --gres=gpu:1
# (the synthetic source has one GPU: its recorder refuses GPU 1, which shows
# that GPU 1 was the one asked for)
gpu_case "gpu=1, --gres=gpu:2" "recorder: workloadtruth record: --gpus: '1'" --gres=gpu:2
grep -q "job $JOB: recording GPU 1 " "$D/slurmd.log" && ok "(u) gpu=1: GPU 1 of the job's 0,1 recorded" ||
    bad "(u) gpu=1: $(grep "job $JOB: recording" "$D/slurmd.log" | tail -n 1)"
# through the job epilog (no batch script), which reads the job prolog's record
# shellcheck disable=SC2086
plugstack $GPU_REC gpu=auto
JOB=$(srun --workload-type=idle --chdir="$D/jobs" sh -c 'echo $SLURM_JOB_ID' 2>"$D/srun.err")
[ -n "$JOB" ] || die "srun --workload-type=idle: $(cat "$D/srun.err")"
wait_done || bad "(u) srun job $JOB did not finish with a workloadtruth log line"
grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | grep -qF "verdict=none (no GPU of the job on this node" &&
    ok "(u) gpu=auto, srun without GPUs: no verdict (job epilog)" ||
    bad "(u) gpu=auto, srun: $(grep "workloadtruth: job $JOB" "$D/slurmd.log" | tail -n 1 | cut -c1-250)"
[ ! -e "$D/wtspool/job-$JOB.gpus" ] && [ ! -e "$D/wtspool/job-$JOB.decl" ] &&
    ok "(u) the job's spool records were removed" || bad "(u) job-$JOB.gpus or .decl left behind"

# ---- (h) mode=record without an agent: no recording, an error, and it says so
no_agent_case h record

# ---- (i) mode=record with a full spool file system: the prolog fails softly
# (a double fclose here once crashed the prolog and drained the node)
mkdir -p "$D/fullspool"
if mount -t tmpfs -o size=16k tmpfs "$D/fullspool" 2>/dev/null; then
    mkdir -p "$D/fullspool/spool"
    dd if=/dev/zero of="$D/fullspool/fill" bs=4k 2>/dev/null
    AGENT=$WT
    printf 'optional %s gpu=0 bin=%s log_dir=%s spool_dir=%s mode=record\n' "$SO" "$AGENT" "$D/audit" \
        "$D/fullspool/spool" >"$D/plugstack.conf"
    submit --workload-type=training
    plugin_error_case "mode=record, spool file system full"
    pgrep -f "record --out $D/fullspool" >/dev/null && bad "(i) a recorder is left running" ||
        ok "(i) no recorder left running"
    scontrol update nodename=localhost state=resume >/dev/null 2>&1 # if it drained, go on
    umount "$D/fullspool"
else
    echo "# (i) skipped: cannot mount a tmpfs"
fi

# ---- (i2) a read-only spool: the prolog could create nothing, and the job end
# says ERROR, not "the job prolog did not run on this node"
mkdir -p "$D/rospool"
if mount -t tmpfs -o size=64k,mode=0700 tmpfs "$D/rospool" 2>/dev/null; then
    mkdir -m 0700 "$D/rospool/spool"
    mount -o remount,ro "$D/rospool"
    AGENT=$WT
    printf 'optional %s gpu=0 bin=%s log_dir=%s spool_dir=%s mode=record\n' "$SO" "$AGENT" "$D/audit" \
        "$D/rospool/spool" >"$D/plugstack.conf"
    submit --workload-type=inference
    wait_done || bad "(i2) job $JOB did not finish with a workloadtruth log line"
    grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1 |
        grep -qF "declared=inference observed=none verdict=ERROR: no recording: nothing can be created in spool_dir $D/rospool/spool" &&
        ok "(i2) read-only spool: verdict=ERROR" ||
        bad "(i2) read-only spool: $(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1 | cut -c1-250)"
    node_ok && ok "(i2) node still usable" || bad "(i2) node state $(node_state)"
    umount "$D/rospool"
else
    echo "# (i2) skipped: cannot mount a tmpfs"
fi

# ---- (j) many windows: the job-level verdict comes after them in the JSON
AGENT=$WT
plugstack "mode=classify timeout=60 windows=40 arg=--trace arg=$TRACE arg=--samples arg=50 arg=--start arg=300"
submit --workload-type=inference
wait_done || bad "(j) job $JOB did not finish with a workloadtruth log line"
line=$(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | tail -n 1)
case $line in
*"verdict=MISMATCH"*"seq="[0-9]*) ok "(j) windows=40: $(echo "$line" | sed 's/.*workloadtruth: //' | cut -c1-160)" ;;
*) bad "(j) windows=40: ${line:-no line}" ;;
esac
# (6.5 s windows of this trace: as many idle as training, so the job-level
# class varies; what matters is that a verdict is read, not "none")
case $(job_line) in
*"declared=inference observed="*" verdict=MISMATCH"*) ok "(j) AdminComment: $(job_line)" ;;
*) bad "(j) AdminComment: '$(job_line)'" ;;
esac

# ---- (q) spool_dir: root creates and reads files there, so it must be
# root's alone; links and FIFOs planted in it are not followed or waited on
held_job() { # held_job ARGS...: sbatch a trivial job, held; JOB gets its id
    JOB=$(sbatch --parsable --hold --chdir="$D/jobs" --output="$D/jobs/job-%j.out" "$@" \
        --wrap 'echo hello from the job; sleep 1' 2>"$D/sbatch.err")
    JOB=${JOB%%;*}
    [ -n "$JOB" ] || die "sbatch --hold $*: $(cat "$D/sbatch.err")"
}
victim_ok() { # TAG FILE
    [ "$(cat "$2" 2>/dev/null)" = precious ] && ok "($1) $2 untouched" ||
        bad "($1) $2 now holds '$(head -c 80 "$2" 2>/dev/null)'"
}
RECORD_SYN="mode=record windows=5 min_samples=10 record_arg=--backend record_arg=synthetic record_arg=--profile record_arg=training record_arg=--duration record_arg=40"
# a spool that others can write to (mode 1777): refused, the job unharmed
mkdir -p "$D/openspool"
chmod 1777 "$D/openspool"
echo precious >"$D/victim1"
printf 'optional %s gpu=0 bin=%s log_dir=%s spool_dir=%s %s\n' "$SO" "$WT" "$D/audit" "$D/openspool" \
    "$RECORD_SYN" >"$D/plugstack.conf"
held_job --workload-type=training
# a user's links, made before the job starts
for ext in log pid 'done' decl trace; do
    ln -s "$D/victim1" "$D/openspool/job-$JOB.$ext"
done
scontrol release "$JOB"
plugin_error_case "mode=record, spool_dir writable by others"
victim_ok q "$D/victim1"
grep -q "workloadtruth: job $JOB: refusing spool_dir $D/openspool: it is writable by group or others (mode 1777)" \
    "$D/slurmd.log" && ok "(q) the spool is refused with its reason" ||
    bad "(q) no 'refusing spool_dir' line: $(grep "workloadtruth: job $JOB" "$D/slurmd.log" | head -n 1 | cut -c1-250)"
# a link to a directory of root's, given with a trailing slash ("DIR/"): lstat
# follows it there, so it passed the link check and root wrote through it;
# and a bare "arg" (an empty word: every classify failed) is ignored, and said
mkdir -p "$D/linktarget"
chmod 0700 "$D/linktarget"
ln -sfn "$D/linktarget" "$D/linkspool"
printf 'optional %s gpu=0 bin=%s log_dir=%s spool_dir=%s %s arg\n' "$SO" "$WT" "$D/audit" "$D/linkspool//" \
    "$RECORD_SYN" >"$D/plugstack.conf"
held_job --workload-type=training
scontrol release "$JOB"
plugin_error_case "mode=record, spool_dir a link given as DIR//"
grep -q "workloadtruth: job $JOB: refusing spool_dir $D/linkspool: it is a symbolic link" \
    "$D/slurmd.log" && ok "(q) a link given as DIR// is refused" ||
    bad "(q) no 'refusing spool_dir $D/linkspool: it is a symbolic link': $(grep "workloadtruth: job $JOB" "$D/slurmd.log" | head -n 1 | cut -c1-250)"
[ -z "$(ls -A "$D/linktarget")" ] && ok "(q) nothing written through the link" ||
    bad "(q) written through the link: $(ls -A "$D/linktarget" | head -3)"
grep -q "plugstack.conf: ignoring argument 'arg'" "$D/slurmd.log" &&
    ok "(q) a bare arg is ignored, and said" || bad "(q) no 'ignoring argument 'arg'' line"
# ... and "LINK/." (lstat follows LINK there too): a spool_dir with a "." or
# ".." component is an invalid argument, ignored and said (the one before it
# stays)
printf 'optional %s gpu=0 bin=%s log_dir=%s spool_dir=%s spool_dir=%s %s\n' "$SO" "$WT" "$D/audit" \
    "$D/dotspool" "$D/linkspool/." "$RECORD_SYN" >"$D/plugstack.conf"
held_job --workload-type=training
scontrol release "$JOB"
wait_done || bad "(q) job $JOB did not finish with a workloadtruth log line"
grep -q "plugstack.conf: ignoring argument 'spool_dir=$D/linkspool/.'" "$D/slurmd.log" &&
    ok "(q) spool_dir LINK/. is ignored, and said" || bad "(q) no 'ignoring argument 'spool_dir=$D/linkspool/.'' line"
[ -z "$(ls -A "$D/linktarget")" ] && ok "(q) LINK/.: nothing written through the link" ||
    bad "(q) LINK/.: written through the link: $(ls -A "$D/linktarget" | head -3)"
# root's own spool with a stale link and a FIFO in it (left by anything):
# replaced, not followed or waited on; the job is recorded and classified
mkdir -p "$D/safespool"
chmod 0700 "$D/safespool"
echo precious >"$D/victim2"
printf 'optional %s gpu=0 bin=%s log_dir=%s spool_dir=%s %s\n' "$SO" "$WT" "$D/audit" "$D/safespool" \
    "$RECORD_SYN" >"$D/plugstack.conf"
held_job --workload-type=inference
ln -s "$D/victim2" "$D/safespool/job-$JOB.log"
ln -s "$D/victim2" "$D/safespool/job-$JOB.decl"
mkfifo "$D/safespool/job-$JOB.pid"
scontrol release "$JOB"
wait_done || bad "(q) job $JOB did not finish with a workloadtruth log line"
# (a prolog blocked on opening the FIFO is let go, so that the rest runs)
[ -p "$D/safespool/job-$JOB.pid" ] && timeout 2 cat "$D/safespool/job-$JOB.pid" >/dev/null 2>&1
victim_ok q "$D/victim2"
case $(job_line) in
*"declared=inference observed=TRAINING verdict=MISMATCH"*) ok "(q) planted link and FIFO: AdminComment $(job_line)" ;;
*) bad "(q) planted link and FIFO: AdminComment '$(job_line)'" ;;
esac
scontrol update nodename=localhost state=resume >/dev/null 2>&1 # if it drained, go on

# ---- (s) the batch step's work within the job's time limit -------------------------
# A job that ends its script 1 s into a 1-minute limit, whose agent takes 70 s
# (its timeout= 120): the hook ran inside the limit, and the job was killed
# at it, TIMEOUT instead of COMPLETED. The agent now gets what is left (less
# 25 s for the rest of the hook), and the job epilog tries again (the agent
# is slow only its first time).
printf '#!/bin/sh\nif [ ! -e "%s/limit.once" ]; then : >"%s/limit.once"; sleep 70; fi\nexec "%s" "$@"\n' \
    "$D" "$D" "$WT" >"$D/slow.sh"
chmod 0755 "$D/slow.sh"
AGENT=$D/slow.sh
plugstack "mode=classify timeout=120 windows=5 arg=--trace arg=$TRACE arg=--samples arg=300 arg=--start arg=300"
submit --workload-type=inference --time=1
wait_done || bad "(s) job $JOB did not finish with a workloadtruth log line"
i=0
while [ "$(grep -c "workloadtruth: job $JOB declared=" "$D/slurmd.log")" -lt 2 ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
[ "$(job_field JobState)" = COMPLETED ] && ok "(s) job near its time limit: COMPLETED" ||
    bad "(s) job near its time limit: $(job_field JobState) ($(job_field Reason))"
grep "workloadtruth: job $JOB: " "$D/slurmd.log" | grep -q "s left of its time limit: the agent gets" &&
    ok "(s) the agent's timeout was cut to the time limit, and said" ||
    bad "(s) no 'left of its time limit' line for job $JOB"
grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | grep -q "killed after the .* s timeout (the job epilog tries again)" &&
    ok "(s) the cut agent was tried again in the job epilog" ||
    bad "(s) not tried again: $(grep "workloadtruth: job $JOB declared=" "$D/slurmd.log" | head -n 1 | cut -c1-250)"
echo "$(last_class)" | grep -q '"verdict":"MISMATCH"' &&
    ok "(s) the job epilog's run recorded the verdict" ||
    bad "(s) no MISMATCH record for job $JOB: $(last_class | cut -c1-200)"
AGENT=$WT
scontrol update nodename=localhost state=resume >/dev/null 2>&1 # if it drained, go on
# ... read from fields the job's owner cannot set: a job named like the
# fields of `scontrol -o show job` ("x JobState=COMPLETED EndTime=...") was
# read as ended, and its verdict left out of the AdminComment
plugstack "$AGENT_REPLAY"
submit --workload-type=inference --job-name='x JobState=COMPLETED EndTime=2000-01-01T00:00:00'
wait_done || bad "(s) job $JOB did not finish with a workloadtruth log line"
case $(job_line) in
*"declared=inference observed=TRAINING verdict=MISMATCH"*) ok "(s) a job named like scontrol's fields: AdminComment $(job_line)" ;;
*) bad "(s) a job named like scontrol's fields: AdminComment '$(job_line)' ($(grep "workloadtruth: job $JOB" "$D/slurmd.log" | head -n 2 | cut -c1-200))" ;;
esac

node_ok && ok "node state at the end: $(node_state)" || bad "node state at the end: $(node_state)"

echo "# $(($(date +%s) - T0)) s in all"
[ $FAILN -eq 0 ] || dump_logs
echo "$PASS passed, $FAILN failed"
[ $FAILN -eq 0 ]
