#!/usr/bin/env python3
"""Runs tests/bench/activations_bench and prints docs/performance.md's tables (ns/element, medians, ratios).

usage: tools/bench_table.py [BUILD_DIR] [--processes N] [--json FILE] [extra benchmark args]
       tools/bench_table.py --from FILE [FILE...]   (tables from saved --benchmark_format=json runs)

BUILD_DIR defaults to build. Every figure in one printout comes from the same run. Medians of
--benchmark_repetitions (default 5), the repetitions of all benchmarks run in random order
(--benchmark_enable_random_interleaving): on a shared host whose speed drifts over minutes, a row and its peer
then see the same spread of moments, where in order they ran minutes apart.

--processes N (default 1) runs the benchmark in N processes, one after another. A process can run every kernel
of one library 1.5-2x slower than the next process does, the same binary on the same arrays (the state follows
the process's address layout; docs/performance.md, "Machines and method"), so one process's ratio can meet or
miss a line by chance. With N > 1 a row is the median over the processes of their medians, and a ratio the
median over the processes of each process's own ratio (both rows of a ratio from the same process), printed
with its range over the processes, "0.88 (0.85-0.92)". Processes whose oneDNN rows fail the peer check are
left out of the tables (named above them) unless every process fails it. --json FILE saves the benchmark's
JSON: FILE itself for one process, FILE with .1, .2, ... before its extension for more; --from reads them back.

Exit status: 0 when the tables are printed; 1 when the benchmark program fails, a --json file cannot be written
(the tables are printed all the same) or standard output is closed or full; 2 for bad arguments, a missing
build and saved runs that cannot be read.
"""
import json, os, re, stat, statistics, subprocess, sys

FILTER = ("^copy/|^paired/|^dnnl_|^gelu/|^gelu_tanh/|^gelu_tanh_accurate/|^gelu_sigmoid|^silu|"
          "^softplus|^mish|^gelu_bf16/|^gelu_tanh_bf16/")
USAGE = __doc__.split("\n\n")[1]


def closed_output(exc_type, exc, tb):
    """Standard output closed or full (a pipe's reader gone, a full disk): say so in one line, exit 1."""
    if not issubclass(exc_type, OSError):
        sys.__excepthook__(exc_type, exc, tb)
        return
    try:  # (Python would try to flush stdout again at exit)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass
    what = "closed" if issubclass(exc_type, BrokenPipeError) else f"not writable ({exc.strerror})"
    print(f"bench_table.py: standard output {what}; the tables were not all written", file=sys.stderr)
    sys.exit(1)


sys.excepthook = closed_output


def fail(message, status=2):
    print(f"bench_table.py: {message}", file=sys.stderr)
    sys.exit(status)


def parse_args(argv):
    """(files to read, or None; build dir; processes; json path; extra benchmark args)."""
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        sys.exit(0)
    if argv[:1] == ["--from"]:
        if len(argv) < 2:
            fail("--from needs at least one saved JSON file\n" + USAGE)
        return argv[1:], None, 1, None, []
    build, processes, save, rest = "build", 1, None, []
    if argv and not argv[0].startswith("-"):
        build, argv = argv[0], argv[1:]
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--json", "--processes"):
            if i + 1 >= len(argv):
                fail(f"{a} needs a value\n" + USAGE)
            v = argv[i + 1]
            if a == "--json":
                save = v
            else:
                try:
                    processes = int(v)
                except ValueError:
                    processes = 0
                if not 1 <= processes <= 100:
                    fail(f"--processes {v}: not a whole number from 1 to 100")
            i += 2
        elif a.startswith("--benchmark_"):
            rest.append(a)
            i += 1
        else:
            fail(f"unknown argument {a!r} (benchmark options start with --benchmark_)\n" + USAGE)
    return None, build, processes, save, rest


def json_paths(save, processes):
    if save is None:
        return [None] * processes
    if processes == 1:
        return [save]
    root, ext = os.path.splitext(save)
    return [f"{root}.{i}{ext or '.json'}" for i in range(1, processes + 1)]


def load(path):
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # (a FIFO would block the open)
            fail(f"{path}: not a regular file")
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read it ({e.strerror})")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        fail(f"{path}: not JSON ({e})")
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        fail(f"{path}: not a Google Benchmark JSON run (no \"benchmarks\" list)")
    return doc


def run_benchmark(build, rest, save, index, processes):
    exe = os.path.join(build, "tests", "bench", "activations_bench")
    if not os.path.isfile(exe) or not os.access(exe, os.X_OK):
        fail(f"{exe}: no benchmark program there; build it first (./tools/dev.sh build, or pass the build "
             "directory as the first argument)")
    args = [exe, f"--benchmark_filter={FILTER}", "--benchmark_repetitions=5",
            "--benchmark_enable_random_interleaving=true", "--benchmark_report_aggregates_only=true",
            "--benchmark_format=json"] + rest
    if processes > 1:
        print(f"bench_table.py: process {index + 1} of {processes} ...", file=sys.stderr, flush=True)
    try:
        p = subprocess.run(args, capture_output=True, text=True)
    except OSError as e:
        fail(f"{exe}: cannot run it ({e.strerror})", 1)
    if p.returncode != 0:
        tail = "\n".join(p.stderr.strip().splitlines()[-5:])
        fail(f"{exe} exited with status {p.returncode}" + (f":\n{tail}" if tail else ""), 1)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        fail(f"{exe} printed no JSON run ({e})", 1)
    saved = True
    if save:
        try:
            with open(save, "w") as f:
                f.write(p.stdout)
        except OSError as e:
            # The run is not lost: its tables still print, and the exit status says the file was not written.
            print(f"bench_table.py: {save}: could not save the run ({e.strerror})", file=sys.stderr)
            saved = False
    return doc, " ".join(args), saved


def parse(doc):
    """(ns, paired) of one process: ns (name, size, threads) -> ns/element (median); paired threads -> (copy
    ns/element, gelu f ns/element, median of the per-pair ratios)."""
    ns, paired = {}, {}
    for b in doc["benchmarks"]:
        if not isinstance(b, dict) or b.get("aggregate_name") != "median" or "run_name" not in b:
            continue
        name = re.sub(r"/(min_time:[^/]+|real_time|repeats:\d+)", "", str(b["run_name"]))
        m = re.match(r"^(.*)/(\d+)(?:/threads:(\d+))?$", name)
        if not m:
            continue
        if m.group(1) == "paired/gelu_f_over_copy":
            if all(isinstance(b.get(k), (int, float)) for k in ("copy_ns", "gelu_ns", "ratio")):
                paired[int(m.group(3) or 1)] = (b["copy_ns"], b["gelu_ns"], b["ratio"])
            continue
        v = b.get("ns_per_elem")
        if not isinstance(v, (int, float)) or not v > 0:
            continue
        ns[(m.group(1), int(m.group(2)), int(m.group(3) or 1))] = v * 1e9 if v < 1e-6 else v
    return ns, paired


save_failed = False
files, build, processes, save, rest = parse_args(sys.argv[1:])
if files is not None:
    docs = [load(f) for f in files]
    command = "(from " + ", ".join(files) + ")"
else:
    docs, command = [], ""
    for i, path in enumerate(json_paths(save, processes)):
        doc, command, saved = run_benchmark(build, rest, path, i, processes)
        docs.append(doc)
        save_failed = save_failed or not saved
runs = [parse(d) for d in docs]
names = files if files is not None else [f"process {i + 1}" for i in range(len(docs))]
for name, (ns_p, paired_p) in zip(names, runs):
    if not ns_p and not paired_p:
        fail(f"{name}: no median rows (the tables need --benchmark_repetitions of 2 or more)")
contexts = [d.get("context") if isinstance(d.get("context"), dict) else {} for d in docs]
ctx = contexts[0]
models = {str(c.get("cpu_model", "CPU model not recorded")) for c in contexts}
if len(models) > 1:
    fail("these runs come from different CPUs (" + "; ".join(sorted(models)) + "): a table takes one machine's")
label = {4096: "4K", 262144: "256K", 67108864: "64M"}


def table(title, rows, heading=None):
    """A table of ns/element rows; nothing (not even `heading`) when the run has none of them."""
    rows = [(text, key) for text, key in rows if any((key, s, 1) in ns for s in sizes)]
    if not rows:
        return
    if heading:
        print(heading)
        print()
    print(f"| {title} | " + " | ".join(label.get(s, str(s)) for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for text, key in rows:
        print(f"| {text} | " + " | ".join(cell(key, s) for s in sizes) + " |")
    print()


def ratios(title, rows):
    rows = [(text, a, b) for text, a, b in rows if any((a, s, 1) in ns and (b, s, 1) in ns for s in sizes)]
    if not rows:
        return
    print(f"| {title} | " + " | ".join(label.get(s, str(s)) for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for text, a, b in rows:
        print(f"| {text} | " + " | ".join(ratio(a, b, s) for s in sizes) + " |")
    print()


print(f"Command: `{command}`")
print(f"Host: {ctx.get('host_name', '?')}, {ctx.get('cpu_model', 'CPU model not recorded')}, "
      f"{ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz; "
      f"kernels: {ctx.get('gelu_simd_isa', '?')}"
      + (f" (tuning {ctx['gelu_tuning']})" if "gelu_tuning" in ctx else "")
      + f", bf16: {ctx.get('gelu_bf16_isa', '?')}"
      + (f" ({ctx['gelu_bf16_kernels']})" if "gelu_bf16_kernels" in ctx else "") + "; "
      f"load average at start: "
      + (f"{ctx.get('load_avg', '?')}" if len(docs) == 1 else ", ".join(
          f"{c.get('load_avg', '?')}" for c in contexts) + " (each process)"))

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


def peer_problems(ns, ctx):
    """oneDNN's rows of one process checked against one another: (problems, worst forward spread, worst
    backward over forward, the CPU's limit, how many comparisons)."""
    problems, worst_spread, worst_bwd, checked = [], 1.0, 0.0, 0
    limit = bwd_limit(str(ctx.get("cpu_model", "")))
    groups = [["dnnl_gelu_erf", "dnnl_gelu_tanh", "dnnl_swish_1702", "dnnl_swish"],
              ["dnnl_gelu_erf_bf16", "dnnl_gelu_tanh_bf16"]]
    for s in sorted({s for _, s, t in ns if t == 1}):
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
    return problems, worst_spread, worst_bwd, limit, checked


checks = [peer_problems(ns_p, ctx) for ns_p, _ in runs]
if len(runs) == 1:
    problems, worst_spread, worst_bwd, limit, checked = checks[0]
    if not checked:
        print("Peer check: no oneDNN rows in this run.")
    elif problems:
        print("Peer check: FAILED, this run's oneDNN figures are not representative (run it again): "
              + "; ".join(problems) + ".")
    else:
        print(f"Peer check: passed (oneDNN's forward rows within {worst_spread:.2f}x of one another, "
              f"each backward at most {worst_bwd:.2f}x its forward, limit {limit:.1f}x on this CPU).")
    kept = [0]
else:
    kept = [i for i, c in enumerate(checks) if not c[0]]
    if not any(c[4] for c in checks):
        print(f"Peer check: no oneDNN rows in these {len(runs)} processes.")
        kept = list(range(len(runs)))
    elif not kept:
        print(f"Peer check: FAILED in every one of the {len(runs)} processes, so all of them are in the tables, "
              "which are not representative (run it again): "
              + " ".join(f"process {i + 1}: " + "; ".join(c[0]) + "." for i, c in enumerate(checks)))
        kept = list(range(len(runs)))
    else:
        left = [i for i in range(len(runs)) if i not in kept]
        print(f"Peer check: passed in {len(kept)} of {len(runs)} processes"
              + (", the tables are theirs; left out: " + " ".join(
                  f"process {i + 1} ({'; '.join(checks[i][0])})." for i in left) if left else ".")
              + f" Forward rows within {max(checks[i][1] for i in kept):.2f}x of one another, each backward at "
              f"most {max(checks[i][2] for i in kept):.2f}x its forward (limit {checks[0][3]:.1f}x on this "
              "CPU).")
    print(f"Processes: {len(runs)}; a row is the median over the {len(kept)} kept processes of their medians, a "
          "ratio the median of each kept process's own ratio with its range over them in brackets.")

ns = {}  # (name, size, threads) -> ns/element: the median over the kept processes
for key in {k for i in kept for k in runs[i][0]}:
    ns[key] = statistics.median(runs[i][0][key] for i in kept if key in runs[i][0])
sizes = sorted({s for _, s, t in ns if t == 1})


def cell(key, s, t=1):
    return f"{ns[(key, s, t)]:.3f}" if (key, s, t) in ns else "–"


def spread(values):
    """The median of `values`, with their range when there are several."""
    m = statistics.median(values)
    if len(values) == 1:
        return f"{m:.2f}"
    return f"{m:.2f} ({min(values):.2f}–{max(values):.2f})"


def ratio(a, b, s, ta=1, tb=1):
    """a / b at size s, each process's rows divided first."""
    vals = [runs[i][0][(a, s, ta)] / runs[i][0][(b, s, tb)] for i in kept
            if (a, s, ta) in runs[i][0] and (b, s, tb) in runs[i][0]]
    return spread(vals) if vals else "–"

print()
table("ns/element (f32, one thread)", heading="Single thread, float32, ns per element (lower is better), medians:",
      rows=[
    ("copy y = 1.0001·x", "copy"),
    ("**GELU Lab gelu f**", "gelu/f"), ("oneDNN gelu_erf f", "dnnl_gelu_erf/f"),
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
    ("gelu_tanh f / oneDNN gelu_tanh f (target ≤ 0.9)", "gelu_tanh/f", "dnnl_gelu_tanh/f"),
    ("gelu_tanh backward / oneDNN (target ≤ 0.9)", "gelu_tanh/backward", "dnnl_gelu_tanh/backward"),
    ("gelu_sigmoid f / oneDNN swish 1.702 f (target ≤ 0.9)", "gelu_sigmoid/f", "dnnl_swish_1702/f"),
    ("gelu_sigmoid backward / oneDNN (target ≤ 0.9)", "gelu_sigmoid/backward", "dnnl_swish_1702/backward"),
    ("silu f / oneDNN swish 1 f (target ≤ 0.9)", "silu/f", "dnnl_swish/f"),
    ("silu backward / oneDNN (target ≤ 0.9)", "silu/backward", "dnnl_swish/backward"),
])
table("ns/element (bf16, one thread)", heading="bf16 arrays, one thread, ns per element:", rows=[
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
paired = {}  # threads -> the kept processes' (copy, gelu f, ratio) triples
for i in kept:
    for t, v in runs[i][1].items():
        paired.setdefault(t, []).append(v)
if paired:
    print("Exact GELU's f against the copy at 64M, timed in pairs (back to back, alternating which goes first; "
          "medians of the pairs), so that both see the same moment of a shared host's memory:")
    print()
    print("| 64M, in pairs | copy ns/element | gelu f ns/element | gelu f / copy |")
    print("|---|---|---|---|")
    for t, target in [(1, "target 3: ≤ 1.3"), (2, "target 4: ≤ 1.2")]:
        if t in paired:
            c = statistics.median(v[0] for v in paired[t])
            g = statistics.median(v[1] for v in paired[t])
            r = spread([v[2] for v in paired[t]])
            print(f"| {'one thread' if t == 1 else 'two threads'} ({target}) | {c:.3f} | {g:.3f} | {r} |")
    print()
sys.stdout.flush()
sys.exit(1 if save_failed else 0)
