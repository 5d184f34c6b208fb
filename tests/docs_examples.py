#!/usr/bin/env python3
"""Reruns every ```console example in a Markdown file and compares the output.

Each block starts with `$ COMMAND`; the rest is the expected stdout+stderr (a
block whose expected text starts with `...` only has to match the end).  The
command runs from the repository root with the build directory first on PATH;
Keeps docs/cli.md true to the binary.

usage: docs_examples.py DOC.md BUILD_DIR [--update]
  Without ../shared/traces next to the repository, the examples that read it
  are skipped and the others run (exit 77 = skipped: none could run).
  --update rewrites the expected output of every full block that differs
  (after a deliberate change of output; review the diff).
"""
import os
import re
import subprocess
import sys
import textwrap

doc_path, build = sys.argv[1], os.path.abspath(sys.argv[2])
update = "--update" in sys.argv[3:]
root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
have_traces = os.path.isdir(os.path.join(root, "..", "shared", "traces"))
skipped = 0
made_by_skipped = set()
doc = open(doc_path).read()
pattern = re.compile(r"^( *)```console\n(.*?)^ *```", re.S | re.M)
env = dict(os.environ, PATH=build + ":" + os.environ["PATH"])
bad = 0
count = 0
out = []
last = 0
for m in pattern.finditer(doc):
    indent = m.group(1)
    b = textwrap.dedent(m.group(2)).rstrip(" ")
    lines = b.split("\n")
    if not lines[0].startswith("$ "):
        continue
    cmd = lines[0][2:]
    if not have_traces and ("../shared" in cmd or any(p in cmd for p in made_by_skipped)):
        # ... and those that read what a skipped one would have made
        made_by_skipped.update(re.findall(r"/tmp/[\w.-]+", cmd))
        skipped += 1
        print("skip " + cmd[:110] + "  (no ../shared/traces)")
        continue
    count += 1
    exp = "\n".join(lines[1:])
    try:
        p = subprocess.run(cmd, shell=True, cwd=root, env=env, capture_output=True, text=True,
                           timeout=120)
        got = p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        got = "(no answer within 120 s)\n"
    ok = got.endswith(exp[4:]) if exp.startswith("...\n") else got == exp
    print(("ok   " if ok else "FAIL ") + cmd[:110])
    if ok:
        continue
    if update and not exp.startswith("...\n"):
        body = "\n".join(indent + l if l else l for l in ([lines[0]] + got.split("\n")))
        out.append(doc[last:m.start(2)])
        out.append(body if body.endswith("\n") else body + "\n")
        last = m.end(2)
        print("     updated")
        continue
    bad += 1
    print("--- expected\n" + exp + "--- got\n" + got)
if update and out:
    out.append(doc[last:])
    open(doc_path, "w").write("".join(out))
print(f"{count} examples, {bad} differ" + (f"; {skipped} skipped (no ../shared/traces)" if skipped else ""))
if count == 0 and skipped:
    sys.exit(77)
sys.exit(1 if bad else 0)
