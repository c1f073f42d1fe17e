#!/usr/bin/env python3
"""tools/bench_table.py's peer check: a run where oneDNN's rows disagree with one another (one algorithm's
forward much slower than the others, or a backward much slower than its forward) is marked as not
representative, a consistent run passes, and the tables are printed either way. Several processes' runs
(--processes N, or --from with several files): the processes that fail the check are left out and named, rows
are medians over the others, each ratio the median of the processes' own ratios with its range. Bad
arguments and unreadable runs get one line naming what is wrong and a non-zero status, never a traceback.

usage: bench_table_test.py SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

SOURCE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
TOOL = os.path.abspath(os.path.join(SOURCE, "tools", "bench_table.py"))
SIZES = [4096, 262144, 67108864]


def run_json(ns):
    """A Google Benchmark JSON with a median row per (name, size): ns/element as the benchmark reports it."""
    rows = []
    for name, per_size in ns.items():
        for size, v in zip(SIZES, per_size):
            rows.append({"run_name": f"{name}/{size}/min_time:0.300", "aggregate_name": "median",
                         "ns_per_elem": v * 1e-9})
    return {"context": {"host_name": "test", "cpu_model": "Test CPU (family 1, model 2)", "num_cpus": 2,
                        "mhz_per_cpu": 1000, "gelu_simd_isa": "avx512", "gelu_bf16_isa": "avx512bf16",
                        "load_avg": [0, 0, 0]},
            "benchmarks": rows}


def table(ns):
    return tool_on(run_json(ns))


def tool_on(*docs):
    """The tool's printout for saved runs `docs` (one per process)."""
    paths = []
    for doc in docs:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
            paths.append(f.name)
    try:
        out = subprocess.run([sys.executable, TOOL, "--from"] + paths, check=True, capture_output=True,
                             text=True).stdout
    finally:
        for path in paths:
            os.unlink(path)
    return out


def tool_fails(args, **kw):
    """(status, stderr) of the tool run with `args`, expected to fail."""
    p = subprocess.run([sys.executable, TOOL] + args, capture_output=True, text=True, **kw)
    return p.returncode, p.stderr


tmp_files = []


def write_tmp(doc):
    """A temporary file holding `doc` as JSON (or `doc` itself when it is a string)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    tmp_files.append(f.name)
    return f.name


NORMAL = {
    "copy": [0.03, 0.17, 0.62],
    "gelu/f": [0.52, 0.52, 0.79], "dnnl_gelu_erf/f": [0.66, 0.60, 0.86],
    "gelu_tanh/f": [0.51, 0.53, 0.83], "dnnl_gelu_tanh/f": [0.59, 0.52, 0.80],
    "dnnl_gelu_erf/backward": [0.83, 0.76, 1.13], "dnnl_gelu_tanh/backward": [0.74, 0.68, 1.09],
    "dnnl_swish_1702/f": [0.59, 0.53, 0.77], "dnnl_swish_1702/backward": [0.71, 0.63, 1.05],
    "dnnl_swish/f": [0.58, 0.52, 0.78], "dnnl_swish/backward": [0.72, 0.63, 1.05],
    "dnnl_gelu_erf_bf16/f": [0.81, 0.70, 0.74], "dnnl_gelu_tanh_bf16/f": [0.71, 0.62, 0.65],
}
failures = []


def check(cond, what, out):
    if not cond:
        failures.append(what + "\n" + out)


out = table(NORMAL)
check("Peer check: passed" in out, "a consistent run passes", out)
check("Test CPU (family 1, model 2)" in out, "the Host line names the CPU model", out)
check("| gelu_tanh f / oneDNN gelu_tanh f (target ≤ 0.9) | 0.86 | 1.02 | 1.04 |" in out,
      "the ratio table is printed", out)

slow_fwd = dict(NORMAL, **{"dnnl_gelu_tanh/f": [1.20, 1.15, 1.30]})
out = table(slow_fwd)
check("Peer check: FAILED" in out and "gelu_tanh f takes" in out, "a slow oneDNN forward row is named", out)
check("| gelu_tanh f / oneDNN gelu_tanh f (target ≤ 0.9) | 0.43 | 0.46 | 0.64 |" in out,
      "the tables are still printed for a failed check", out)

slow_bwd = dict(NORMAL, **{"dnnl_gelu_erf/backward": [2.64, 0.76, 1.13]})
out = table(slow_bwd)
check("Peer check: FAILED" in out and "4K: oneDNN gelu_erf backward takes 4.00x its forward" in out,
      "a slow oneDNN backward row is named with its size", out)

# On AMD CPUs oneDNN's backward passes cost more over their forward: 2.5x passes there, 4x does not, and the
# same 2.5x fails on an Intel CPU (and where the model is not recorded).
amd_bwd = dict(NORMAL, **{"dnnl_gelu_erf/backward": [1.65, 1.50, 2.15]})
amd = run_json(amd_bwd)
amd["context"]["cpu_model"] = "AMD EPYC (family 25, model 17)"
out = tool_on(amd)
check("Peer check: passed" in out and "limit 3.2x on this CPU" in out, "2.5x backward passes on AMD", out)
amd_slow = run_json(dict(NORMAL, **{"dnnl_gelu_erf/backward": [2.64, 0.76, 1.13]}))
amd_slow["context"]["cpu_model"] = "AMD EPYC (family 26, model 2)"
out = tool_on(amd_slow)
check("Peer check: FAILED" in out and "4K: oneDNN gelu_erf backward takes 4.00x its forward (limit 3.2x" in out,
      "4x backward fails on AMD", out)
out = table(amd_bwd)
check("Peer check: FAILED" in out and "(limit 1.6x on this CPU)" in out, "2.5x backward fails elsewhere", out)
unrecorded = run_json(amd_bwd)
del unrecorded["context"]["cpu_model"]
out = tool_on(unrecorded)
check("Peer check: FAILED" in out, "a run without a CPU model gets Intel's limit", out)

# The 64M pairs (paired/gelu_f_over_copy) carry their own counters and no ns_per_elem: their own table.
doc = run_json(NORMAL)
doc["benchmarks"] += [
    {"run_name": "paired/gelu_f_over_copy/67108864/min_time:2.000/real_time", "aggregate_name": "median",
     "copy_ns": 0.231, "gelu_ns": 0.289, "ratio": 1.2512, "pairs": 61},
    {"run_name": "paired/gelu_f_over_copy/67108864/threads:2/min_time:2.000/real_time",
     "aggregate_name": "median", "copy_ns": 0.121, "gelu_ns": 0.152, "ratio": 1.2561, "pairs": 130}]
out = tool_on(doc)
check("| one thread (target 3: ≤ 1.3) | 0.231 | 0.289 | 1.25 |" in out
      and "| two threads (target 4: ≤ 1.2) | 0.121 | 0.152 | 1.26 |" in out, "the 64M pairs are printed", out)
check("Peer check: passed" in out, "the pairs leave the peer check alone", out)

# A run filtered to a few rows prints their tables and no heading or table for the rows it does not have.
only = {k: v for k, v in NORMAL.items() if k in ("gelu_tanh/f", "dnnl_gelu_tanh/f")}
out = table(only)
check("| gelu_tanh f / oneDNN gelu_tanh f (target ≤ 0.9) | 0.86 | 1.02 | 1.04 |" in out
      and "bf16 arrays" not in out and "ns/element (bf16" not in out and "gelu bf16 f / oneDNN" not in out
      and "| gelu f / oneDNN" not in out, "a filtered run prints only the tables it has rows for", out)

no_peer = {k: v for k, v in NORMAL.items() if not k.startswith("dnnl_")}
out = table(no_peer)
check("Peer check: no oneDNN rows in this run." in out, "a run without oneDNN says so", out)

# Several processes: one whose oneDNN backward rows ran 2x slower is left out and named; the ratios are the
# medians over the others of each process's own ratio, with their range.
def scaled(ns, factor, names):
    return {k: ([x * factor for x in v] if k in names else v) for k, v in ns.items()}


p1 = dict(NORMAL, **{"gelu_tanh/backward": [0.60, 0.60, 0.90]})          # ratios 0.81, 0.88, 0.83
p2 = scaled(p1, 1.1, {"gelu_tanh/backward"})                              # 0.89, 0.97, 0.91
p3 = scaled(p1, 0.9, {"gelu_tanh/backward"})                              # 0.73, 0.79, 0.74
bad = dict(p1, **{"dnnl_gelu_tanh/backward": [2.40, 2.20, 3.30]})       # oneDNN's slow state
out = tool_on(run_json(p1), run_json(bad), run_json(p2), run_json(p3))
check("Peer check: passed in 3 of 4 processes" in out and "left out: process 2 (4K: oneDNN gelu_tanh backward "
      "takes 4.07x its forward" in out, "a process that fails the check is left out and named", out)
check("| gelu_tanh backward / oneDNN (target ≤ 0.9) | 0.81 (0.73–0.89) | 0.88 (0.79–0.97) | 0.83 (0.74–0.91) |"
      in out, "ratios are medians of the kept processes' own ratios, with their range", out)
check("| **GELU Lab gelu_tanh backward** | 0.600 | 0.600 | 0.900 |" in out, "rows are medians over them", out)
check("| gelu_tanh f / oneDNN gelu_tanh f (target ≤ 0.9) | 0.86 (0.86–0.86) |" in out,
      "a ratio that every process agrees on shows a zero range", out)
out = tool_on(run_json(bad), run_json(bad))
check("Peer check: FAILED in every one of the 2 processes" in out and "| gelu_tanh backward / oneDNN" in out,
      "when every process fails, all are kept and the check says FAILED", out)
amd = run_json(p1)
amd["context"]["cpu_model"] = "AMD EPYC (family 25, model 17)"
code, err = tool_fails(["--from", write_tmp(amd), write_tmp(run_json(p1))])
check(code == 2 and "different CPUs" in err and "Traceback" not in err,
      "runs from two CPUs are not merged", err)

# Bad input: one line naming what is wrong, a non-zero status, no traceback.
for args, want in [(["--from", "/nonexistent/run.json"], "/nonexistent/run.json: cannot read it"),
                   (["--from", write_tmp("{")], "not JSON"),
                   (["--from", write_tmp([])], "no \"benchmarks\" list"),
                   (["--from", write_tmp({"benchmarks": []})], "no median rows"),
                   (["--from", tempfile.gettempdir()], "not a regular file"),
                   (["--from"], "--from needs at least one saved JSON file"),
                   (["/nonexistent-build"], "no benchmark program there; build it first"),
                   (["build", "--processes", "0"], "--processes 0: not a whole number from 1 to 100"),
                   (["build", "--processes", "two"], "--processes two"),
                   (["build", "--json"], "--json needs a value"),
                   (["build", "--frobnicate"], "unknown argument '--frobnicate'")]:
    code, err = tool_fails(args, cwd=tempfile.gettempdir())
    check(code == 2 and want in err and "Traceback" not in err, f"{args}: exit 2 and '{want}'", err)
p = subprocess.run([sys.executable, TOOL, "--help"], capture_output=True, text=True)
check(p.returncode == 0 and "usage: tools/bench_table.py" in p.stdout and "--processes N" in p.stdout,
      "--help prints the usage", p.stdout + p.stderr)
with open(os.devnull if not os.path.exists("/dev/full") else "/dev/full", "w") as full:
    p = subprocess.run([sys.executable, TOOL, "--from", write_tmp(run_json(NORMAL))], stdout=full,
                       stderr=subprocess.PIPE, text=True)
check(p.returncode == 1 and "standard output not writable" in p.stderr and "Traceback" not in p.stderr,
      "a full standard output is named, exit 1", p.stderr)
for path in tmp_files:
    os.unlink(path)

for f in failures:
    print("FAILED:", f, file=sys.stderr)
print(f"bench_table peer check: 13 scenarios, {len(failures)} failed checks")
sys.exit(1 if failures else 0)
