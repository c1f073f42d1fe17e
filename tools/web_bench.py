#!/usr/bin/env python3
"""The web build's figures (issue 55, point 6; docs/performance.md), measured side by side in one run:
  - the site's transfer size: each file of build-web/site gzipped (-9), and their sum;
  - the first frame: ms from navigation to the end of the app's first frame (performance.now() at the end of
    the first frame's draw calls), over fresh pages in headless Chromium (WebGL2 through SwiftShader);
  - the Curves panel's frames: the page's frame-to-frame interval (requestAnimationFrame timestamps: the
    whole frame, SwiftShader's drawing included; the display's 60 Hz makes 16.7 ms the shortest), the app's
    own work per frame and the pixels a frame drew, while the mouse moves over its plot, median and 90th
    percentile: as the page draws (only what changed, gui/kit/damage.hpp), then with every frame drawn whole;
  - float32 GELU throughput in WebAssembly (SIMD128, node, gelulab-cli.js bench) against the native
    single-thread build (gelulab bench --threads 1), the same sizes, the same run.
Usage: tools/web_bench.py [--build build] [--web build-web] [--pages 5] [--seconds 5] [--out FILE.md]
Prints a Markdown table (with the CPU model) and writes it to --out when given."""
import argparse, gzip, json, os, platform, statistics, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests", "web"))
import webpage  # noqa: E402  (the browser tests' page driver)

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--web", default="build-web")
ap.add_argument("--pages", type=int, default=5)
ap.add_argument("--seconds", type=float, default=5)
ap.add_argument("--sizes", default="4096,262144,1048576")
ap.add_argument("--out")
a = ap.parse_args()


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


rows = []
site = os.path.join(a.web, "site")
# [SECTION] Transfer size
total_raw = total_gz = 0
for name in sorted(os.listdir(site)):
    path = os.path.join(site, name)
    if not os.path.isfile(path):
        continue
    data = open(path, "rb").read()
    gz = len(gzip.compress(data, 9))
    total_raw += len(data)
    total_gz += gz
    rows.append((f"site: {name}", f"{len(data):,} B", f"{gz:,} B gzip", ""))
rows.append(("site: all files (transfer size)", f"{total_raw:,} B", f"{total_gz:,} B gzip",
             "target <= 5 MB: " + ("met" if total_gz <= 5_000_000 else "NOT met")))

# [SECTION] The browser: first frame, Curves frames
chromium = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p)), None)
if chromium:
    base = webpage.serve(site, "/tmp/gelulab-web-bench")
    b = webpage.Browser(chromium)
    try:
        firsts = []
        for i in range(a.pages):
            b.open_page(1280, 800, 1)
            b.send("Page.navigate", {"url": base + "#panel=curves"})
            webpage.wait_frames(b, 3, timeout=120)
            firsts.append(b.eval("window.gelulab.first_frame_ms"))
            b.close_page()
        rows.append(("first frame after navigation (Curves, 1280x800)",
                     f"median {statistics.median(firsts):.0f} ms", f"{min(firsts):.0f}-{max(firsts):.0f} ms over "
                     f"{len(firsts)} fresh pages", "target <= 2000 ms: " +
                     ("met" if statistics.median(firsts) <= 2000 else "NOT met")))
        for whole in (False, True):  # as the page draws (what changed), then every frame whole, for comparison
            b.open_page(1280, 800, 1)
            b.send("Page.navigate", {"url": base + "#panel=curves"})
            webpage.wait_frames(b, 60, timeout=120)
            rep = webpage.report(b)
            p = rep["panels"]["curves"]["plots"]
            pid = sorted(p)[0]
            l, t, r, bt = p[pid]["left"], p[pid]["top"], p[pid]["right"], p[pid]["bottom"]
            b.eval("window.gelulab.whole_frames = " + ("true" if whole else "false") + "; window.__iv = []; "
                   "(function f(ts) { if (window.__last) window.__iv.push(ts - window.__last); "
                   "window.__last = ts; if (!window.__stop) requestAnimationFrame(f); })(performance.now()); 0")
            b.eval("window.gelulab.frame_ms = []; window.gelulab.drawn_px = []; 0")
            end, k = time.time() + a.seconds, 0
            while time.time() < end:  # the mouse sweeps over the plot: the readout and the crosshair follow it
                x = l + (r - l) * (0.1 + 0.8 * ((k % 40) / 40))
                b.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": (t + bt) / 2})
                k += 1
                time.sleep(0.03)
            b.eval("window.__stop = true")
            iv = b.eval("window.__iv")[5:]
            work = b.eval("window.gelulab.frame_ms")[5:]
            drawn = [d for d in b.eval("window.gelulab.drawn_px")[5:] if d > 0]
            b.close_page()
            how = "every frame drawn whole" if whole else "drawn where it changed, as the page draws"
            rows.append((f"Curves frame interval (mouse over the plot; {how})", f"median {statistics.median(iv):.1f} ms",
                         f"p90 {quantile(iv, 0.9):.1f} ms, {len(iv)} frames",
                         "" if whole else "target < 16 ms (60 Hz: every 16.7 ms display frame): " +
                         ("met" if statistics.median(iv) < 16.8 else "NOT met")))
            rows.append((f"Curves: the app's frame loop ({how})", f"median {statistics.median(work):.1f} ms",
                         f"p90 {quantile(work, 0.9):.1f} ms", ""))
            if drawn:
                rows.append((f"Curves: pixels drawn by a frame that changed ({how})",
                             f"median {statistics.median(drawn):,.0f}", f"of {1280 * 800:,}; {len(drawn)} frames", ""))
    finally:
        b.quit()
else:
    rows.append(("browser figures", "skipped", "no chromium", ""))

# [SECTION] float32 GELU: WebAssembly (SIMD128) against native, one thread each
sizes = [s for s in a.sizes.split(",") if s]
args = ["bench", "--backend", "cpu", "--fn", "gelu", "--reps", "10", "--json"] + sum((["--size", s] for s in sizes), [])
native = json.loads(subprocess.run([os.path.join(a.build, "app", "gelulab"), *args, "--threads", "1"],
                                   capture_output=True, text=True, check=True).stdout)
wasm = json.loads(subprocess.run(["node", os.path.join(a.web, "gelulab-cli.js"), *args], capture_output=True,
                                 text=True, check=True).stdout)
for n in native["results"]:
    w = next(r for r in wasm["results"] if r["size"] == n["size"] and r["order"] == n["order"])
    gn, gw = n["wall"]["gelem_per_s"], w["wall"]["gelem_per_s"]
    rows.append((f"float32 gelu, {n['size']:,} elements", f"wasm {gw:.3f} Gelem/s", f"native {gn:.3f} Gelem/s",
                 f"wasm/native {gw / gn:.2f} (target >= 0.25: {'met' if gw / gn >= 0.25 else 'NOT met'})"))

node_v = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
chrome_v = subprocess.run([chromium, "--version"], capture_output=True, text=True).stdout.strip() if chromium else "-"
head = (f"Measured {time.strftime('%Y-%m-%d')} on {cpu_model()} ({os.cpu_count()} cores), {chrome_v}, node {node_v}; "
        f"`python3 tools/web_bench.py` (native: {native.get('cpu_model')}).\n\n")
table = "| what | figure | spread / peer | target |\n|---|---|---|---|\n" + "".join(
    f"| {w} | {f} | {s} | {t} |\n" for w, f, s, t in rows)
print(head + table)
if a.out:
    with open(a.out, "w") as f:
        f.write(head + table)
