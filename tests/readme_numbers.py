#!/usr/bin/env python3
"""Checks (or prints) every accuracy number in the README's tables.

A table row whose cells contain a command `workloadtruth eval ...` or
`workloadtruth benchmark ...` is rerun with --json, and the numeric cells after
the command must equal what it measures now:

  eval rows:                     overall | TRAINING | INFERENCE | IDLE | non-training called TRAINING
  benchmark (seed suite) rows:   clean | evasion
  benchmark (sim, evasion) rows: accuracy | accuracy at default strength ('-' for sim)

A table preceded by `<!-- evasion-table: ARGS -->` has one row per evasion
family (family | default strength | accuracy at default | throughput given up
at default | accuracy at 0.25 | 0.5 | 0.75 | 1), checked against
`workloadtruth benchmark ARGS --json`.

Numbers in prose are checked by comments

  <!-- check: NAME=eval|benchmark ARGS[; NAME=...] :: EXPRESSION -->

Each command is run with --json (once per document, like the rows'); the
Python EXPRESSION, with each NAME bound to its JSON and the helpers below
(pct, share, src, within, group, words), gives a string or a list of strings, and each must
appear in the document (its whitespace runs read as one space).

The commands are run first, in parallel (WT_NUMBERS_JOBS at a time, default
the CPUs this process may use: a holdout eval is single-threaded and takes
tens of seconds), then the document is checked against their results.  They
share the simulator's training windows through WT_SIM_CACHE (a temporary
directory of this run's, unless the environment names one).

With --update, the table rows (not the prose) that differ are rewritten in
place with the measured numbers, for a maintainer after a model change; the
prose checks still fail until their text is edited by hand.

Several documents are checked in one run, each command run once for all of
them (README.md and docs/evaluation.md share dozens of holdout runs).

usage: readme_numbers.py DOC... BUILD_DIR [--print | --update]   (exit 77: skipped, no ../shared)
"""
import atexit
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

printing = "--print" in sys.argv
updating = "--update" in sys.argv
positional = [a for a in sys.argv[1:] if a not in ("--print", "--update")]
if len(positional) < 2 or any(a.startswith("--") for a in positional):
    raise SystemExit("usage: readme_numbers.py DOC... BUILD_DIR [--print | --update]")
docs, build = positional[:-1], os.path.abspath(positional[-1])
root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
if not os.path.isdir(os.path.join(root, "..", "shared", "traces")):
    print("no ../shared/traces: skipped")
    sys.exit(77)
wt = os.path.join(build, "workloadtruth")
# the commands that retrain (dozens) share the simulator's windows through a
# cache of this run's own (src/eval/simcache.h: keyed by the binary and the
# settings, the same models as without it; tests/sim_cache.sh checks that)
if "WT_SIM_CACHE" not in os.environ:
    os.environ["WT_SIM_CACHE"] = tempfile.mkdtemp(prefix="wt-sim-cache.")
    atexit.register(shutil.rmtree, os.environ["WT_SIM_CACHE"], True)


cache = {}


def run(args):
    key = tuple(args)
    if key not in cache:
        cache[key] = run_once(args)
    return cache[key]


def run_once(args):
    t0 = time.monotonic()
    p = subprocess.run([wt] + args + ["--json"], cwd=root, capture_output=True, text=True,
                       timeout=600)
    # each command's time, for whoever trims the suite (ctest -V shows it)
    print("%6.1f s  workloadtruth %s" % (time.monotonic() - t0, " ".join(args)), flush=True)
    try:
        return json.loads(p.stdout)
    except ValueError:
        raise SystemExit("FAIL: no JSON from workloadtruth %s: %s" % (" ".join(args), p.stderr))


def pct(x):
    return "-" if x is None else "%.1f%%" % (100 * x)


def share(num, den):
    """num / den from the window counts, as `eval` prints it (the JSON's
    accuracies are rounded to 4 decimals, and 0.7205 would print 72.0%)."""
    return None if not den else num / den


def src(d):
    """eval --holdout: a source's accuracy by its name"""
    return {s["source"]: s["accuracy"] for s in d["per_source"]}


def within(d, classes=("TRAINING", "INFERENCE")):
    """(right, windows) among windows of these classes only"""
    right = sum(d["confusion"][c][c] for c in classes)
    return right, sum(d["per_class"][c]["windows"] for c in classes)


def group(d, directory, model):
    """eval: accuracy of the traces of one directory of ../shared/traces on
    GPUs whose name holds model, from per_file's window counts (with
    --holdout gpu_model, per_file's "source" is the GPU family)"""
    files = [f for f in d["per_file"]
             if os.path.basename(os.path.dirname(f["file"])) == directory and model in f["gpu_model"]]
    return share(sum(f["correct"] for f in files), sum(f["windows"] for f in files))


def words(n):
    """a count as the prose writes it"""
    names = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    return names[n] if 0 <= n < len(names) else str(n)


CHECK = re.compile(r"<!-- check: (.*) -->$")
EVASION_TABLE = re.compile(r"<!-- evasion-table: (.*) -->")
CELL = re.compile(r"`workloadtruth (eval|benchmark) ([^`]*)`")


def prose_commands(spec):
    """[(NAME, args)] of a check comment's commands"""
    out = []
    for part in spec.split(" :: ", 1)[0].split(";"):
        name, cmd = part.strip().split("=", 1)
        out.append((name, shlex.split(cmd)))
    return out


def cell_command(cells):
    """(index of the cell, args) of a table row's first command cell, or None"""
    for i, c in enumerate(cells):
        m = CELL.fullmatch(c)
        if m:
            return i, [m.group(1)] + shlex.split(m.group(2))
    return None


def row_cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def all_commands(lines):
    """every command the document's checks run, in order, once each"""
    out = []
    for line in lines:
        m = CHECK.match(line.strip())
        if m:
            out += [args for _, args in prose_commands(m.group(1))]
            continue
        m = EVASION_TABLE.match(line.strip())
        if m:
            out.append(shlex.split(m.group(1)))
            continue
        if line.startswith("|"):
            c = cell_command(row_cells(line))
            if c:
                out.append(c[1])
    seen = set()
    return [a for a in out if not (tuple(a) in seen or seen.add(tuple(a)))]


def prefetch(cmds):
    want = os.environ.get("WT_NUMBERS_JOBS", "")
    if want and not want.isdigit():
        raise SystemExit("WT_NUMBERS_JOBS=%s: not a number" % want)
    jobs = int(want or 0)
    if not jobs:  # the default
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    # the slow ones (each retrains the model per fold) first: none is left
    # running alone at the end
    cmds = sorted(cmds, key=lambda a: "--holdout" not in a)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs or 1)
    try:
        running = {pool.submit(run_once, args): args for args in cmds}
        for done in concurrent.futures.as_completed(running):
            cache[tuple(running[done])] = done.result()
    finally:  # a failure is reported when it happens: the queued commands
        # are dropped, the running ones (at most jobs) awaited
        pool.shutdown(wait=True, cancel_futures=True)


def prose_check(spec, doc_text):
    expr = spec.split(" :: ", 1)[1]
    env = {"pct": pct, "src": src, "within": within, "group": group, "share": share,
           "words": words}
    for name, args in prose_commands(spec):
        env[name] = run(args)
    want = eval(expr, env)
    if isinstance(want, str):
        want = [want]
    missing = [w for w in want if " ".join(w.split()) not in doc_text]
    return want, missing


def eval_cells(d):
    pc = d["per_class"]
    conf = d["confusion"]
    non_training = sum(pc[c]["windows"] for c in ("INFERENCE", "IDLE"))
    called_training = sum(conf[c]["TRAINING"] for c in ("INFERENCE", "IDLE"))
    return [pct(share(d["correct"], d["windows"]))] + \
        [pct(share(pc[c]["correct"], pc[c]["windows"])) for c in ("TRAINING", "INFERENCE", "IDLE")] + \
        [pct(share(called_training, non_training))]


def bench_cells(d):
    if d.get("suite", "seed") == "seed" and "clean_accuracy" in d:
        return [pct(d["clean_accuracy"]), pct(d["evasion_accuracy"])]
    return [pct(d["accuracy"]), pct(d.get("default_strength_accuracy"))]


def family_rows(d):
    rows = {}
    for c in d["cells"]:
        f = c["evasion"]
        r = rows.setdefault(f, {"strengths": {}})
        r["strengths"]["%.2f" % c["strength"]] = pct(c["accuracy"])
    for f in d["per_family"]:
        r = rows[f["family"]]
        r["default"] = "%.2f" % f["default_strength"]
        r["acc"] = pct(f["accuracy"])
        r["cost"] = pct(f["throughput_cost"])
    out = {}
    for name, r in rows.items():
        out[name] = [r["default"], r["acc"], r["cost"]] + [r["strengths"].get(s, "-") for s in
                                                           ("0.25", "0.50", "0.75", "1.00")]
    return out


def check_doc(readme):
    """checks one document against the cache; (rows and prose checked, how many differ)"""
    raw = open(readme).read()
    text = raw.split("\n")
    flat = " ".join(raw.split())
    bad = 0
    checked = 0
    evasion_args = None
    updated = []
    for line in text:
        updated.append(line)
        m = CHECK.match(line.strip())
        if m:
            want, missing = prose_check(m.group(1), flat)
            checked += 1
            if printing:
                print("%s -> %s" % (m.group(1).split(" :: ")[0], " | ".join(want)))
            elif missing:
                bad += 1
                print("FAIL prose %s: measured %s, not in the text" % (m.group(1), missing))
            else:
                print("ok   prose %s" % " | ".join(want))
            continue
        m = EVASION_TABLE.match(line.strip())
        if m:
            evasion_args = shlex.split(m.group(1))
            fam = family_rows(run(evasion_args))
            if printing:
                for name, cells in fam.items():
                    print("| %s | %s |" % (name, " | ".join(cells)))
            continue
        if not line.startswith("|"):
            if line.strip() == "":
                evasion_args = None
            continue
        cells = row_cells(line)
        if evasion_args and cells and cells[0] in fam:
            want = fam[cells[0]]
            got = cells[1:1 + len(want)]
            checked += 1
            if got != want:
                bad += 1
                print("FAIL evasion row %s: %s %s, measured %s" % (cells[0], readme, got, want))
                updated[-1] = "| " + " | ".join(cells[:1] + want + cells[1 + len(want):]) + " |"
            continue
        found = cell_command(cells)
        if not found:
            continue
        i, args = found
        d = run(args)
        want = eval_cells(d) if args[0] == "eval" else bench_cells(d)
        got = cells[i + 1:i + 1 + len(want)]
        checked += 1
        if printing:
            print("%s -> %s" % (cells[i], " | ".join(want)))
        elif got != want:
            bad += 1
            print("FAIL %s: %s %s, measured %s" % (cells[i], readme, got, want))
            updated[-1] = "| " + " | ".join(cells[:i + 1] + want + cells[i + 1 + len(want):]) + " |"
        else:
            print("ok   %s" % cells[i])
    print("%s: %d rows checked, %d differ" % (readme, checked, bad))
    if updating and updated != text:
        with open(readme, "w") as f:
            f.write("\n".join(updated))
        print("rewrote the differing table rows of %s (check the diff; prose is not rewritten)"
              % readme)
    return checked, bad


commands = []
for doc in docs:
    commands += all_commands(open(doc).read().split("\n"))
seen = set()
prefetch([a for a in commands if not (tuple(a) in seen or seen.add(tuple(a)))])
failed = False
for doc in docs:
    checked, bad = check_doc(doc)
    failed = failed or bad or (checked == 0 and not printing)
sys.exit(1 if failed else 0)
