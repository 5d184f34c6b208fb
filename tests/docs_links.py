#!/usr/bin/env python3
"""Every relative link in the Markdown documents resolves, both in the
repository and in the tree `cmake --install` writes (which keeps the
repository's layout under share/doc/workloadtruth).

This checks that link targets exist (files, and #anchors against the target's
headings, GitHub style); it does not check links to web addresses.

usage: docs_links.py REPO_DIR BUILD_DIR
"""
import glob
import os
import re
import subprocess
import sys
import tempfile


def anchors(path):
    """GitHub-style heading anchors of a Markdown file."""
    out = set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
                continue
            m = None if in_code else re.match(r"#+\s+(.*)", line)
            if m:
                a = m.group(1).strip().lower()
                a = re.sub(r"[^\w\- ]", "", a).replace(" ", "-")
                out.add(a)
    return out


def check(root, files):
    bad = []
    for f in files:
        text = open(os.path.join(root, f), encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            path, _, frag = target.partition("#")
            full = os.path.normpath(os.path.join(root, os.path.dirname(f), path)) if path \
                else os.path.join(root, f)
            if not os.path.exists(full):
                bad.append(f"{f}: link '{target}': no such file")
            elif frag and full.endswith(".md") and frag not in anchors(full):
                bad.append(f"{f}: link '{target}': no heading '#{frag}'")
    return bad


def main():
    repo, build = sys.argv[1], sys.argv[2]
    docs = ["README.md"] + sorted(os.path.relpath(p, repo) for p in glob.glob(f"{repo}/docs/*.md")) + \
        ["plugins/slurm/README.md", "deploy/kubernetes/README.md"]
    bad = check(repo, docs)
    with tempfile.TemporaryDirectory() as prefix:
        r = subprocess.run(["cmake", "--install", build, "--prefix", prefix],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            print(f"FAIL: cmake --install: {r.stderr.strip()}")
            return 1
        docdir = os.path.join(prefix, "share/doc/workloadtruth")
        installed = sorted(os.path.relpath(p, docdir)
                           for p in glob.glob(f"{docdir}/**/*.md", recursive=True))
        missing = [d for d in docs if d not in installed]
        bad += [f"installed docs: {d} is not installed" for d in missing]
        bad += ["installed " + b for b in check(docdir, installed)]
        for need in ("bin/workloadtruth", "share/man/man1/workloadtruth.1"):
            if not os.path.exists(os.path.join(prefix, need)):
                bad.append(f"install: {need} is missing")
    for b in bad:
        print("FAIL:", b)
    print(f"{len(docs)} documents checked in the repository and installed; {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
