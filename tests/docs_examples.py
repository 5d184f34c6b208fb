#!/usr/bin/env python3
"""Reruns every ```console example in a Markdown file and compares the output.

Each block starts with `$ COMMAND`; the rest is the expected stdout+stderr (a
block whose expected text starts with `...` only has to match the end).  The
command runs from the repository root with the build directory first on PATH;
`smi.csv` means tests/data/smi.csv.  Keeps docs/cli.md true to the binary.

usage: docs_examples.py DOC.md BUILD_DIR     (exit 77 = skipped: no ../shared/traces)
"""
import os
import re
import subprocess
import sys
import textwrap

doc_path, build = sys.argv[1], os.path.abspath(sys.argv[2])
root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
if not os.path.isdir(os.path.join(root, "..", "shared", "traces")):
    print("no ../shared/traces: skipped")
    sys.exit(77)
doc = open(doc_path).read()
blocks = [textwrap.dedent(m.group(2)).rstrip(" ")
          for m in re.finditer(r"^( *)```console\n(.*?)^ *```", doc, re.S | re.M)]
env = dict(os.environ, PATH=build + ":" + os.environ["PATH"])
bad = 0
for b in blocks:
    lines = b.split("\n")
    if not lines[0].startswith("$ "):
        continue
    cmd = lines[0][2:].replace("smi.csv", "tests/data/smi.csv")
    exp = "\n".join(lines[1:])
    p = subprocess.run(cmd, shell=True, cwd=root, env=env, capture_output=True, text=True,
                       timeout=120)
    got = p.stdout + p.stderr
    ok = got.endswith(exp[4:]) if exp.startswith("...\n") else got == exp
    print(("ok   " if ok else "FAIL ") + cmd[:110])
    if not ok:
        bad += 1
        print("--- expected\n" + exp + "--- got\n" + got)
print(f"{len(blocks)} examples, {bad} differ")
sys.exit(1 if bad else 0)
