#!/usr/bin/env python3
"""Runs tests/bench/activations_bench and prints the README's speed table (ns/element, medians, ratios).

usage: tools/bench_table.py BUILD_DIR [extra benchmark args]
"""
import json, subprocess, sys

build = sys.argv[1] if len(sys.argv) > 1 else "build"
args = [f"{build}/tests/bench/activations_bench", "--benchmark_filter=copy|dnnl_gelu_erf|^gelu/",
        "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true", "--benchmark_format=json"] + sys.argv[2:]
out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
ns = {}
for b in out["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name, size = b["run_name"].split("/min_time")[0].rsplit("/", 1)
    ns[(name, int(size))] = b["ns_per_elem"] * 1e9 if b["ns_per_elem"] < 1e-6 else b["ns_per_elem"]
sizes = sorted({s for _, s in ns})
label = {4096: "4K", 262144: "256K", 67108864: "64M"}
rows = [("copy (y = 1.0001·x)", "copy"), ("oneDNN gelu_erf forward", "dnnl_gelu_erf/f"),
        ("**GELU Lab gelu forward**", "gelu/f"), ("oneDNN gelu_erf backward (dy·f′)", "dnnl_gelu_erf/backward"),
        ("**GELU Lab gelu backward (dy·f′)**", "gelu/backward"), ("GELU Lab gelu f′", "gelu/df")]
print("| ns/element | " + " | ".join(label.get(s, str(s)) for s in sizes) + " |")
print("|---|" + "---|" * len(sizes))
for title, key in rows:
    if (key, sizes[0]) in ns:
        print(f"| {title} | " + " | ".join(f"{ns[(key, s)]:.3f}" for s in sizes) + " |")
def ratio(a, b, s):
    return ns[(a, s)] / ns[(b, s)] if (a, s) in ns and (b, s) in ns else float("nan")
print()
print("| ratio (time, lower is better) | " + " | ".join(label.get(s, str(s)) for s in sizes) + " |")
print("|---|" + "---|" * len(sizes))
print("| forward: GELU Lab / oneDNN | " + " | ".join(f"{ratio('gelu/f', 'dnnl_gelu_erf/f', s):.2f}" for s in sizes) + " |")
print("| backward: GELU Lab / oneDNN | " + " | ".join(f"{ratio('gelu/backward', 'dnnl_gelu_erf/backward', s):.2f}" for s in sizes) + " |")
print("| forward: GELU Lab / copy | " + " | ".join(f"{ratio('gelu/f', 'copy', s):.2f}" for s in sizes) + " |")
