#!/usr/bin/env python3
"""Every option of every command's --help is in docs/cli.md's option table of that
command (same metavar) and in the man page's section of that command, and no table
lists an option the binary lacks; every numeric range a table gives (LO..HI) is the
one the parser enforces: LO and HI are accepted, LO-1 and HI+1 (integers) or values
just outside (reals) refused with exit 2.  Values are checked with `CMD --opt=V --help`,
which parses V and prints the usage without running anything.

usage: docs_options.py REPO_DIR WORKLOADTRUTH
"""
import re
import subprocess
import sys

repo, exe = sys.argv[1], sys.argv[2]
top = subprocess.run([exe, "--help"], capture_output=True, text=True).stdout
cmds = re.findall(r"^  ([a-z][a-z-]+)  ", top, re.M)
bad = []


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True)


tables = {c: {} for c in cmds}
sec = None
for line in open(f"{repo}/docs/cli.md", encoding="utf-8"):
    m = re.match(r"^## (\S+)", line)
    if m:
        sec = m.group(1) if m.group(1) in cmds else None
    elif sec and line.startswith("| `--"):
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        m = re.match(r"`(--[a-z0-9-]+)(?: ([^`]+))?`", cells[0])
        tables[sec][m.group(1)] = ((m.group(2) or "").replace("\\|", "|"), cells[2] if len(cells) > 2 else "")

man = subprocess.run(["groff", "-man", "-Tutf8", "-rLL=300n", f"{repo}/docs/workloadtruth.1"],
                     capture_output=True, text=True).stdout if subprocess.run(
                         ["sh", "-c", "command -v groff"], capture_output=True).returncode == 0 else ""
man = re.sub(r".\x08", "", man).replace("\u2010", "-").replace("\u2212", "-")
man = re.sub(r"-\n\s*", "-", man)
mansec = {}
if man:
    body = man[man.index("\nCOMMANDS"):man.index("\nTRACE INPUT")]
    cur = None
    for line in body.splitlines():
        m = re.match(r"^   (?:Options for )?(\S+)\s*$", line)
        if m and m.group(1) in cmds:
            cur = m.group(1)
            mansec.setdefault(cur, "")
        elif cur:
            mansec[cur] += line + "\n"

for c in cmds:
    helptext = run(c, "--help").stdout
    hopts = {m.group(1): (m.group(2) or "").rstrip(".") for m in
             re.finditer(r"^  (--[a-z0-9-]+)(?: (\S+))?  ", helptext, re.M)}
    hopts.pop("--help", None)
    for o, mv in hopts.items():
        if o not in tables[c]:
            bad.append(f"{c}: {o} is not in docs/cli.md's table")
        elif tables[c][o][0].rstrip(".") != mv and not (run(c, f"{o}=x", "--help").stderr.find("choose from") >= 0):
            bad.append(f"{c}: {o}: metavar {mv!r} in --help, {tables[c][o][0]!r} in docs/cli.md")
        if man and o not in re.findall(r"--[a-z0-9-]+", mansec.get(c, "")):
            bad.append(f"{c}: {o} is not in the man page's section")
    for o, (mv, rng) in tables[c].items():
        if o not in hopts:
            bad.append(f"{c}: docs/cli.md lists {o}, which --help does not")
            continue
        m = re.match(r"`?(-?[0-9][0-9.e]*)`?\s*\.\.\s*`?(-?[0-9][0-9.e]*)`?(?![0-9a-z ]*bytes)", rng)
        if not m:
            continue
        lo, hi = m.group(1), m.group(2)
        if re.fullmatch(r"\d+", lo) and re.fullmatch(r"\d+", hi):
            cases = [(lo, 0), (hi, 0), (str(int(hi) + 1), 2)] + ([(str(int(lo) - 1), 2)] if int(lo) else [])
        else:
            flo, fhi = float(lo), float(hi)
            cases = [(lo, 0), (hi, 0), (repr(flo - max(abs(flo) * 1e-6, 1e-9)), 2),
                     (repr(fhi + max(abs(fhi) * 1e-6, 1e-9)), 2)]
        for v, want in cases:
            r = run(c, f"{o}={v}", "--help")
            if r.returncode != want:
                bad.append(f"{c}: {o}={v} (docs/cli.md: {rng[:40]}): exit {r.returncode}, "
                           f"expected {want}: {r.stderr.strip()}")
for b in bad:
    print("FAIL:", b)
print(f"{len(cmds)} commands checked; {len(bad)} problems")
sys.exit(1 if bad else 0)
