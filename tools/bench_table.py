#!/usr/bin/env python3
"""Runs tests/bench/activations_bench once and prints docs/performance.md's tables (ns/element, medians, ratios).

usage: tools/bench_table.py BUILD_DIR [--json FILE] [extra benchmark args]
       tools/bench_table.py --from FILE        (tables from a saved --benchmark_format=json run)

Every figure in one printout comes from the same run. Medians of --benchmark_repetitions (default 5), the
repetitions of all benchmarks run in random order (--benchmark_enable_random_interleaving): on a shared host
whose speed drifts over minutes, a row and its peer then see the same spread of moments, where in order they
ran minutes apart.
"""
import json, re, subprocess, sys

FILTER = ("^copy/|^paired/|^dnnl_|^gelu/|^gelu_nt/|^gelu_tanh/|^gelu_tanh_accurate/|^gelu_sigmoid|^silu|"
          "^softplus|^mish|^gelu_bf16/|^gelu_tanh_bf16/")


def run(argv):
    if argv and argv[0] == "--from":
        with open(argv[1]) as f:
            return json.load(f), f"(from {argv[1]})"
    build = argv[0] if argv else "build"
    save = None
    rest = argv[1:]
    if rest[:1] == ["--json"]:
        save, rest = rest[1], rest[2:]
    args = [f"{build}/tests/bench/activations_bench", f"--benchmark_filter={FILTER}",
            "--benchmark_repetitions=5", "--benchmark_enable_random_interleaving=true",
            "--benchmark_report_aggregates_only=true",
            "--benchmark_format=json"] + rest
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    if save:
        with open(save, "w") as f:
            f.write(out)
    return json.loads(out), " ".join(args)


data, command = run(sys.argv[1:])
ns = {}  # (name, size, threads) -> ns/element (median)
paired = {}  # threads -> (copy ns/element, gelu f ns/element, median of the per-pair ratios)
for b in data["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = re.sub(r"/(min_time:[^/]+|real_time|repeats:\d+)", "", b["run_name"])
    m = re.match(r"^(.*)/(\d+)(?:/threads:(\d+))?$", name)
    if not m:
        continue
    if m.group(1) == "paired/gelu_f_over_copy":
        if all(k in b for k in ("copy_ns", "gelu_ns", "ratio")):
            paired[int(m.group(3) or 1)] = (b["copy_ns"], b["gelu_ns"], b["ratio"])
        continue
    if "ns_per_elem" not in b:
        continue
    v = b["ns_per_elem"]
    ns[(m.group(1), int(m.group(2)), int(m.group(3) or 1))] = v * 1e9 if v < 1e-6 else v

label = {4096: "4K", 262144: "256K", 67108864: "64M"}
sizes = sorted({s for _, s, t in ns if t == 1})


def cell(key, s, t=1):
    return f"{ns[(key, s, t)]:.3f}" if (key, s, t) in ns else "–"


def ratio(a, b, s, ta=1, tb=1):
    if (a, s, ta) in ns and (b, s, tb) in ns:
        return f"{ns[(a, s, ta)] / ns[(b, s, tb)]:.2f}"
    return "–"


def table(title, rows):
    print(f"| {title} | " + " | ".join(label.get(s, str(s)) for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for text, key in rows:
        if any((key, s, 1) in ns for s in sizes):
            print(f"| {text} | " + " | ".join(cell(key, s) for s in sizes) + " |")
    print()


def ratios(title, rows):
    print(f"| {title} | " + " | ".join(label.get(s, str(s)) for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for text, a, b in rows:
        if any((a, s, 1) in ns and (b, s, 1) in ns for s in sizes):
            print(f"| {text} | " + " | ".join(ratio(a, b, s) for s in sizes) + " |")
    print()


ctx = data.get("context", {})
print(f"Command: `{command}`")
print(f"Host: {ctx.get('host_name', '?')}, {ctx.get('cpu_model', 'CPU model not recorded')}, "
      f"{ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz; "
      f"kernels: {ctx.get('gelu_simd_isa', '?')}"
      + (f" (tuning {ctx['gelu_tuning']})" if "gelu_tuning" in ctx else "")
      + f", bf16: {ctx.get('gelu_bf16_isa', '?')}"
      + (f" ({ctx['gelu_bf16_kernels']})" if "gelu_bf16_kernels" in ctx else "") + "; "
      f"load average at start: {ctx.get('load_avg', '?')}")

# oneDNN is the peer every ratio divides by, so a process where it runs slowly would make GELU Lab look fast.
# It has happened on the Xeon VM: in some processes oneDNN's gelu_tanh and swish rows and every backward row
# ran ~2x slower than in all others (its gelu_erf forward rows normal), with the same JIT implementation.
# Within one normal run its eltwise algorithms agree: forward rows within 1.2x of one another, each backward
# at most 1.4x its forward (every run of 2026-11-24/26). Larger gaps mark the run as not representative.
# How much a backward pass costs over its forward depends on the CPU: on AMD's Zen 5 and Zen 4 every run has
# some of oneDNN's backward rows above 1.6x their forward, up to 2.13x at 4K and 256K and 2.6x at 64M on Zen 5
# (ten runs), 2.86x on Zen 4 (two runs; docs/performance.md). There the limit is 3.2x, where Intel's 1.6x
# failed every normal run: a backward slowed 2x, as in the Xeon's bad processes, still fails it wherever its
# normal ratio is 1.6x or more (gelu_erf's on both, most of the others on Zen 4).
FWD_SPREAD = 1.5
BWD_OVER_FWD = {"intel": 1.6, "amd": 3.2}


def bwd_limit(cpu_model):
    """The backward-over-forward limit for the run's CPU (Intel's where the model is not recorded)."""
    return BWD_OVER_FWD["amd"] if cpu_model.upper().startswith("AMD") else BWD_OVER_FWD["intel"]


def peer_check():
    problems, worst_spread, worst_bwd, checked = [], 1.0, 0.0, 0
    limit = bwd_limit(ctx.get("cpu_model", ""))
    groups = [["dnnl_gelu_erf", "dnnl_gelu_tanh", "dnnl_swish_1702", "dnnl_swish"],
              ["dnnl_gelu_erf_bf16", "dnnl_gelu_tanh_bf16"]]
    for s in sizes:
        for g in groups:
            fwd = {a: ns[(a + "/f", s, 1)] for a in g if (a + "/f", s, 1) in ns}
            if len(fwd) >= 2:
                checked += 1
                hi, lo = max(fwd, key=fwd.get), min(fwd, key=fwd.get)
                spread = fwd[hi] / fwd[lo]
                worst_spread = max(worst_spread, spread)
                if spread > FWD_SPREAD:
                    problems.append(f"{label.get(s, s)}: oneDNN {hi[5:]} f takes {spread:.2f}x {lo[5:]} f "
                                    f"({fwd[hi]:.3f} against {fwd[lo]:.3f} ns/element)")
            for a in g:
                f, b = (a + "/f", s, 1), (a + "/backward", s, 1)
                if f in ns and b in ns:
                    checked += 1
                    r = ns[b] / ns[f]
                    worst_bwd = max(worst_bwd, r)
                    if r > limit:
                        problems.append(f"{label.get(s, s)}: oneDNN {a[5:]} backward takes {r:.2f}x its forward "
                                        f"(limit {limit:.1f}x on this CPU)")
    if not checked:
        print("Peer check: no oneDNN rows in this run.")
    elif problems:
        print("Peer check: FAILED, this run's oneDNN figures are not representative (run it again): "
              + "; ".join(problems) + ".")
    else:
        print(f"Peer check: passed (oneDNN's forward rows within {worst_spread:.2f}x of one another, "
              f"each backward at most {worst_bwd:.2f}x its forward, limit {limit:.1f}x on this CPU).")


peer_check()
print()
print("Single thread, float32, ns per element (lower is better), medians:")
print()
table("ns/element (f32, one thread)", [
    ("copy y = 1.0001·x", "copy"),
    ("**GELU Lab gelu f**", "gelu/f"), ("oneDNN gelu_erf f", "dnnl_gelu_erf/f"),
    ("GELU Lab gelu f, streaming stores (before)", "gelu_nt/f"),
    ("**GELU Lab gelu backward**", "gelu/backward"), ("oneDNN gelu_erf backward", "dnnl_gelu_erf/backward"),
    ("GELU Lab gelu f′", "gelu/df"),
    ("**GELU Lab gelu_tanh f**", "gelu_tanh/f"), ("oneDNN gelu_tanh f", "dnnl_gelu_tanh/f"),
    ("**GELU Lab gelu_tanh backward**", "gelu_tanh/backward"),
    ("oneDNN gelu_tanh backward", "dnnl_gelu_tanh/backward"),
    ("GELU Lab gelu_tanh f′", "gelu_tanh/df"),
    ("GELU Lab gelu_tanh f, accurate path", "gelu_tanh_accurate/f"),
    ("GELU Lab gelu_tanh f′, accurate path", "gelu_tanh_accurate/df"),
    ("**GELU Lab gelu_sigmoid f**", "gelu_sigmoid/f"), ("oneDNN swish α=1.702 f", "dnnl_swish_1702/f"),
    ("**GELU Lab gelu_sigmoid backward**", "gelu_sigmoid/backward"),
    ("oneDNN swish α=1.702 backward", "dnnl_swish_1702/backward"),
    ("GELU Lab gelu_sigmoid f′", "gelu_sigmoid/df"),
    ("GELU Lab gelu_sigmoid f, accurate path", "gelu_sigmoid_accurate/f"),
    ("**GELU Lab silu f**", "silu/f"), ("oneDNN swish α=1 f", "dnnl_swish/f"),
    ("**GELU Lab silu backward**", "silu/backward"), ("oneDNN swish α=1 backward", "dnnl_swish/backward"),
    ("GELU Lab silu f′", "silu/df"),
    ("GELU Lab silu f, accurate path", "silu_accurate/f"),
    ("GELU Lab softplus f / f′", "softplus/f"), ("GELU Lab softplus f′", "softplus/df"),
    ("GELU Lab softplus f, accurate path", "softplus_accurate/f"),
    ("GELU Lab mish f", "mish/f"), ("GELU Lab mish f′", "mish/df"),
    ("GELU Lab mish f, accurate path", "mish_accurate/f"),
])
ratios("ratio (time, lower is better)", [
    ("gelu f / oneDNN gelu_erf f (target ≤ 0.85 at 4K, 256K)", "gelu/f", "dnnl_gelu_erf/f"),
    ("gelu backward / oneDNN gelu_erf backward", "gelu/backward", "dnnl_gelu_erf/backward"),
    ("gelu f / copy (target ≤ 1.3 at 64M)", "gelu/f", "copy"),
    ("gelu f with streaming stores / copy", "gelu_nt/f", "copy"),
    ("gelu_tanh f / oneDNN gelu_tanh f (target ≤ 0.9)", "gelu_tanh/f", "dnnl_gelu_tanh/f"),
    ("gelu_tanh backward / oneDNN (target ≤ 0.9)", "gelu_tanh/backward", "dnnl_gelu_tanh/backward"),
    ("gelu_sigmoid f / oneDNN swish 1.702 f (target ≤ 0.9)", "gelu_sigmoid/f", "dnnl_swish_1702/f"),
    ("gelu_sigmoid backward / oneDNN (target ≤ 0.9)", "gelu_sigmoid/backward", "dnnl_swish_1702/backward"),
    ("silu f / oneDNN swish 1 f (target ≤ 0.9)", "silu/f", "dnnl_swish/f"),
    ("silu backward / oneDNN (target ≤ 0.9)", "silu/backward", "dnnl_swish/backward"),
])
print("bf16 arrays, one thread, ns per element:")
print()
table("ns/element (bf16, one thread)", [
    ("**GELU Lab gelu bf16 f**", "gelu_bf16/f"), ("oneDNN gelu_erf bf16 f", "dnnl_gelu_erf_bf16/f"),
    ("GELU Lab gelu bf16 backward", "gelu_bf16/backward"),
    ("oneDNN gelu_erf bf16 backward", "dnnl_gelu_erf_bf16/backward"),
    ("**GELU Lab gelu_tanh bf16 f**", "gelu_tanh_bf16/f"), ("oneDNN gelu_tanh bf16 f", "dnnl_gelu_tanh_bf16/f"),
    ("GELU Lab gelu_tanh bf16 backward", "gelu_tanh_bf16/backward"),
    ("oneDNN gelu_tanh bf16 backward", "dnnl_gelu_tanh_bf16/backward"),
])
ratios("ratio (time, lower is better)", [
    ("gelu bf16 f / oneDNN (target ≤ 0.8 at 256K, 64M)", "gelu_bf16/f", "dnnl_gelu_erf_bf16/f"),
    ("gelu bf16 backward / oneDNN", "gelu_bf16/backward", "dnnl_gelu_erf_bf16/backward"),
    ("gelu_tanh bf16 f / oneDNN (target ≤ 0.8 at 256K, 64M)", "gelu_tanh_bf16/f", "dnnl_gelu_tanh_bf16/f"),
    ("gelu_tanh bf16 backward / oneDNN", "gelu_tanh_bf16/backward", "dnnl_gelu_tanh_bf16/backward"),
])
tsizes = sorted({s for _, s, t in ns if t == 2})
if tsizes:
    print("Two threads (wall time), ns per element, with the one-thread figure of the same run:")
    print()
    print("| ns/element | " + " | ".join(f"{label.get(s, s)} ×2 | {label.get(s, s)} ×1" for s in tsizes) + " |")
    print("|---|" + "---|---|" * len(tsizes))
    for text, key in [("copy", "copy"), ("GELU Lab gelu f", "gelu/f"), ("oneDNN gelu_erf f", "dnnl_gelu_erf/f"),
                      ("GELU Lab gelu backward", "gelu/backward"), ("GELU Lab gelu_tanh f", "gelu_tanh/f"),
                      ("oneDNN gelu_tanh f", "dnnl_gelu_tanh/f"), ("GELU Lab gelu_tanh backward",
                                                                   "gelu_tanh/backward"),
                      ("GELU Lab gelu bf16 f", "gelu_bf16/f"), ("oneDNN gelu_erf bf16 f", "dnnl_gelu_erf_bf16/f"),
                      ("GELU Lab gelu_tanh bf16 f", "gelu_tanh_bf16/f"),
                      ("oneDNN gelu_tanh bf16 f", "dnnl_gelu_tanh_bf16/f")]:
        if any((key, s, 2) in ns for s in tsizes):
            print(f"| {text} | " + " | ".join(f"{cell(key, s, 2)} | {cell(key, s)}" for s in tsizes) + " |")
    print()
    print("| ratio, two threads | " + " | ".join(label.get(s, str(s)) for s in tsizes) + " |")
    print("|---|" + "---|" * len(tsizes))
    for text, a, b in [("gelu f / two-thread copy (target ≤ 1.2 at 64M)", "gelu/f", "copy"),
                       ("gelu_tanh f / two-thread copy", "gelu_tanh/f", "copy"),
                       ("gelu f / oneDNN gelu_erf f, both two threads", "gelu/f", "dnnl_gelu_erf/f"),
                       ("gelu_tanh f / oneDNN gelu_tanh f, both two threads", "gelu_tanh/f", "dnnl_gelu_tanh/f")]:
        print(f"| {text} | " + " | ".join(ratio(a, b, s, 2, 2) for s in tsizes) + " |")
    print()
if paired:
    print("Exact GELU's f against the copy at 64M, timed in pairs (back to back, alternating which goes first; "
          "medians of the pairs), so that both see the same moment of a shared host's memory:")
    print()
    print("| 64M, in pairs | copy ns/element | gelu f ns/element | gelu f / copy |")
    print("|---|---|---|---|")
    for t, target in [(1, "target 3: ≤ 1.3"), (2, "target 4: ≤ 1.2")]:
        if t in paired:
            c, g, r = paired[t]
            print(f"| {'one thread' if t == 1 else 'two threads'} ({target}) | {c:.3f} | {g:.3f} | {r:.2f} |")
    print()
