#!/usr/bin/env python3
"""The [SECTION] index at the top of every long source file (the Dear ImGui habit): files of more than
LIMIT lines list their "// [SECTION] Title" banners in an "Index of this file" block right after the opening
comment, so a reader sees the plan before the code.

usage: tools/section_index.py [--check] [FILE...]   (default: every tracked .cpp/.hpp/.glsl file)
  --check  change nothing; exit 1 naming each long file whose index is missing or stale (CTest: style_sections)
"""
import os
import re
import subprocess
import sys

LIMIT = 400
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BANNER = re.compile(r"^\s*//\s*\[SECTION\]\s*(.+?)\s*$")
INDEX_START = "// Index of this file:"


def titles(lines, skip_until):
    out = []
    for ln in lines[skip_until:]:
        m = BANNER.match(ln)
        if m:
            # The banner's title is its text up to the first ':' or '.', or all of it when short.
            t = re.split(r"[:.(]", m.group(1))[0].strip()
            out.append(t)
    return out


def index_block(ts):
    return [INDEX_START] + [f"//   [SECTION] {t}" for t in ts]


def split_header(lines):
    """Returns (end of the opening comment block, start and end of an existing index block or None)."""
    i = 0
    while i < len(lines) and lines[i].startswith("//"):
        i += 1
    idx = None
    for k in range(i):
        if lines[k].startswith(INDEX_START):
            e = k + 1
            while e < i and lines[e].startswith("//   [SECTION]"):
                e += 1
            idx = (k, e)
    return i, idx


def process(path, check):
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    if len(lines) <= LIMIT:
        return None
    head_end, idx = split_header(lines)
    body_start = idx[1] if idx else head_end
    ts = titles(lines, body_start if idx else head_end)
    if not ts:
        return f"{path}: {len(lines)} lines and no // [SECTION] banners"
    want = index_block(ts)
    if idx:
        have = lines[idx[0]:idx[1]]
        if have == want:
            return None
        new = lines[:idx[0]] + want + lines[idx[1]:]
    else:
        sep = ["//"] if head_end > 0 else []
        new = lines[:head_end] + sep + want + lines[head_end:]
    if check:
        return f"{path}: the index of its [SECTION] banners is missing or stale"
    open(path, "w", encoding="utf-8").write("\n".join(new))
    return None


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    if not args:
        try:
            r = subprocess.run(["git", "ls-files", "*.cpp", "*.hpp", "*.glsl"], cwd=ROOT, capture_output=True,
                               text=True)
            out = r.stdout.split() if r.returncode == 0 else None
        except OSError:
            out = None
        if out is None:  # not a git checkout (an unpacked source tarball): the source folders
            out = []
            for top in ("core", "app", "tests", "shaders", "tools"):
                for d, _, files in os.walk(os.path.join(ROOT, top)):
                    out += [os.path.relpath(os.path.join(d, f), ROOT) for f in files
                            if f.endswith((".cpp", ".hpp", ".glsl"))]
        args = [os.path.join(ROOT, p) for p in out if "/corpus/" not in p]
    problems = [p for p in (process(a, check) for a in args) if p]
    for p in problems:
        print("section_index: " + os.path.relpath(p.split(":")[0], ROOT) + ":" + p.split(":", 1)[1],
              file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
