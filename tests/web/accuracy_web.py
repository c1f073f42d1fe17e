#!/usr/bin/env python3
"""The accuracy contract of docs/accuracy.md in WebAssembly: the suites that check it on the desktop, run
against the web build's command line (build-web/gelulab-cli.js) under node.

  1. The mpmath tables (tests/ref/<id>.csv): every registry function, f, f' and f'', in f64 and f32, within
     the registry's own bounds (`list --json`, the ones tests/core/accuracy_test.cpp holds the desktop to):
     f64 and f32 ULPs over the normal-range references at least 0.05 from a sign change, the absolute error
     near one, and the error in subnormal steps.
  2. The exhaustive 16-bit sweeps: every bf16 and every f16 value through `eval` (every registry function and
     order) and through `error --all` (every zoo entry against gelu), compared with the desktop's gelulab:
     the same bits, the same report.

Usage: accuracy_web.py NODE CLI_JS REF_DIR DESKTOP_GELULAB. Exits 1 naming every failure.
"""
import json, math, os, struct, subprocess, sys, tempfile

node, cli, ref_dir, desktop = sys.argv[1:5]
failures = []
DBL_MIN = 2.2250738585072014e-308


def run(cmd, stdin_text=None):
    r = subprocess.run(cmd, input=stdin_text, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"accuracy_web: {' '.join(cmd[:6])}… exited {r.returncode}: {r.stderr[-2000:]}")
    return r.stdout


def web(*args, stdin_text=None):
    return run([node, cli, *args], stdin_text)


def ordered(v, fmt):
    """The float's position on the number line as an integer (+0 and -0 the same point)."""
    if fmt == "d":
        (b,) = struct.unpack("<q", struct.pack("<d", v))
        return b if b >= 0 else -(b & 0x7FFFFFFFFFFFFFFF)
    (b,) = struct.unpack("<i", struct.pack("<f", v))
    return b if b >= 0 else -(b & 0x7FFFFFFF)


def to_f32(v):
    """v rounded to float (to nearest, ties to even; beyond the largest float's rounding range: infinity)."""
    if not math.isfinite(v):
        return v
    if abs(v) >= 3.4028235677973366e38:  # FLT_MAX + half its ULP
        return math.copysign(math.inf, v)
    return struct.unpack("<f", struct.pack("<f", v))[0]


def is_f32_tie(v):
    """v (a double) lies exactly halfway between two floats: the tie rule of the exact value's side applies."""
    f = to_f32(v)
    if f == v or not math.isfinite(f) or not math.isfinite(v):
        return False
    o = ordered(f, "f") + (1 if v > f else -1)
    bits = o if o >= 0 else (-o) | 0x80000000
    nb = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    return (v - f) == (nb - v)


# [1] The mpmath tables
registry = json.loads(web("list", "--json"))
for entry in registry:
    fid = entry["id"]
    rows = []
    with open(os.path.join(ref_dir, fid + ".csv")) as f:
        for line in f:
            if not line.strip() or line[0] in "#x":
                continue
            rows.append([float.fromhex(t) for t in line.strip().split(",")])
    xs_text = "\n".join(r[0].hex() for r in rows) + "\n"
    f32_rows = [r for r in rows if to_f32(r[0]) == r[0]]
    f32_text = "\n".join(r[0].hex() for r in f32_rows) + "\n"
    for order, bounds in enumerate(entry["accuracy"]):
        col = order + 1
        got64 = [float(t) for t in web("eval", "--fn", fid, "--order", str(order), "--dtype", "f64",
                                       stdin_text=xs_text).split()]
        got32 = [float(t) for t in web("eval", "--fn", fid, "--order", str(order), "--dtype", "f32",
                                       stdin_text=f32_text).split()]
        if len(got64) != len(rows) or len(got32) != len(f32_rows):
            failures.append(f"{fid} order {order}: {len(got64)}/{len(rows)} and {len(got32)}/{len(f32_rows)} results")
            continue
        roots = [rows[i][0] for i in range(len(rows) - 1)
                 if rows[i + 1][0] > rows[i][0] and rows[i][col] * rows[i + 1][col] < 0]
        near = lambda x: any(abs(x - r) <= 0.05 for r in roots)
        ulp64 = ulp32 = 0
        near_abs = sub_steps = 0.0
        worst = {}
        for r, g in zip(rows, got64):
            x, want = r[0], r[col]
            if near(x):
                near_abs = max(near_abs, abs(g - want))
            if abs(want) < DBL_MIN:
                sub_steps = max(sub_steps, abs(g - want) / 5e-324)
            elif not near(x):
                d = abs(ordered(g, "d") - ordered(want, "d"))
                if d > ulp64:
                    ulp64, worst["f64"] = d, (x, g, want)
        for r, g in zip(f32_rows, got32):
            x, want = r[0], r[col]
            if abs(want) < DBL_MIN or near(x) or not math.isfinite(want):
                continue
            d = abs(ordered(g, "f") - ordered(to_f32(want), "f"))
            if is_f32_tie(want):
                d = max(0, d - 1)  # either side of a tie in the table's double; the CLI takes the exact one's
            if d > ulp32:
                ulp32, worst["f32"] = d, (x, g, want)
        for name, got, bound in [("f64_ulp", ulp64, bounds["f64_ulp"]), ("f32_ulp", ulp32, bounds["f32_ulp"]),
                                 ("near_root_abs", near_abs, bounds["near_root_abs"]),
                                 ("subnormal_steps", sub_steps, bounds["subnormal_steps"])]:
            if got > bound:
                failures.append(f"{fid} order {order}: {name} {got} > the registry's {bound} "
                                f"(worst {worst.get(name[:3])})")
    print(f"tables: {fid}: {len(rows)} references, orders 0-{len(entry['accuracy']) - 1} within the registry's bounds"
          if not any(s.startswith(fid + " ") for s in failures) else f"tables: {fid}: FAILED")

# [2] The exhaustive 16-bit sweeps, against the desktop
def all_values(fmt):
    out = []
    for b in range(1 << 16):
        if fmt == "bf16":
            v = struct.unpack("<f", struct.pack("<I", b << 16))[0]
        else:
            v = struct.unpack("<e", struct.pack("<H", b))[0]
        out.append("nan" if v != v else ("inf" if v == math.inf else "-inf" if v == -math.inf else float(v).hex()))
    return "\n".join(out) + "\n"


def same(a, b, path, out):
    """Reports of `error` are the same: every count, maximum, place and verdict exactly; a mean (summed in long
    double: x87's 64 bits on the desktop, binary128 in wasm) to 1e-12 relative."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            same(a.get(k), b.get(k), f"{path}/{k}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]", out)
    elif path.endswith("/mean") and isinstance(a, float) and isinstance(b, float):
        if abs(a - b) > 1e-12 * max(abs(a), abs(b)):
            out.append(f"{path}: web {a!r}, desktop {b!r}")
    elif a != b:
        out.append(f"{path}: web {a!r}, desktop {b!r}")


for fmt in ("bf16", "f16"):
    values = all_values(fmt)
    before = len(failures)
    for entry in registry:
        for order in range(len(entry["accuracy"])):
            args = ["eval", "--fn", entry["id"], "--order", str(order), "--dtype", fmt]
            w = web(*args, stdin_text=values).split()
            d = run([desktop, *args], values).split()
            diff = [i for i in range(min(len(w), len(d))) if w[i] != d[i]]
            if len(w) != len(d) or diff:
                i = diff[0] if diff else 0
                failures.append(f"eval {entry['id']} order {order} {fmt}: {len(diff)} of 65536 differ from the "
                                f"desktop (first at bits 0x{i:04x}: web {w[i] if i < len(w) else '-'}, "
                                f"desktop {d[i] if i < len(d) else '-'})")
    print(f"sweep: eval of every {fmt} value, every function and order: "
          f"{'the same as the desktop' if len(failures) == before else 'FAILED'}")
    zoo = [z["id"] for z in json.loads(web("list", "--zoo", "--json"))]
    args = ["error", "--vs", "gelu", "--dtype", fmt, "--all", "--json"]
    for z in zoo:
        args[1:1] = ["--fn", z]
    w, d = json.loads(web(*args)), json.loads(run([desktop, *args]))
    diffs = []
    same(w, d, "", diffs)
    for what in diffs:
        failures.append(f"error --all over every {fmt} value, {len(zoo)} zoo entries: {what}")
    print(f"sweep: error --all --dtype {fmt} of {len(zoo)} zoo entries vs gelu: "
          f"{'the same report as the desktop' if not diffs else 'DIFFERENT'}")

for f in failures:
    print("FAIL:", f)
print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
sys.exit(1 if failures else 0)
