"""The web build's page in headless Chromium, for the browser tests (browser_test.py: every view;
interaction_test.py: what a user does): a static server for build-web/site on 127.0.0.1, Chromium driven
through the DevTools protocol over a pipe (no driver, no npm package), screenshots decoded here, and the
checks every view of the page must pass (the page's own layout report, gelu_web_report, as `gui --report`
gives it on the desktop)."""
import base64, functools, http.server, json, os, socketserver, struct, subprocess, tempfile, threading, time
import zlib

failures = []
out_dir = "."
base = None
httpd = None


def serve(site, out):
    """Serves `site` on an ephemeral port of 127.0.0.1; screenshots go to `out`."""
    global base, httpd, out_dir
    out_dir = out
    os.makedirs(out_dir, exist_ok=True)
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=site))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/index.html"
    return base


def finish(name):
    """Prints every failure and the CTest-style verdict; the exit status."""
    for f in failures:
        print("FAIL:", f)
    print(f"{name}: {0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


# [SECTION] A static server on 127.0.0.1 (an ephemeral port), as a teacher's host would serve the folder
class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".js": "text/javascript"}

    def log_message(self, *a):
        pass




# [SECTION] Chromium and the DevTools protocol over --remote-debugging-pipe (fds 3 and 4, NUL-terminated JSON)
class Browser:
    def __init__(self, chromium):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="gelulab-chromium-")

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        flags = ["--headless=new", "--no-sandbox", "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
                 "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-quic", "--no-first-run", "--disable-extensions", "--mute-audio", "about:blank"]
        self.proc = subprocess.Popen([chromium, *flags], pass_fds=(3, 4), preexec_fn=fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = self.read(deadline - time.time())
            if m is None:
                break
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)
        raise RuntimeError(f"{method}: no answer within {timeout} s")

    def read(self, timeout):
        import select
        while b"\0" not in self.buf:
            r, _, _ = select.select([self.from_chrome], [], [], max(0.0, timeout))
            if not r:
                return None
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def pump(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            m = self.read(end - time.time())
            if m is None:
                break
            self.events.append(m)

    def open_page(self, width, height, scale):
        # A context of its own per page: no session or storage left by the page before.
        self.context = self.send("Target.createBrowserContext", {}, session=False)["browserContextId"]
        target = self.send("Target.createTarget", {"url": "about:blank", "browserContextId": self.context},
                           session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        self.target = target
        for domain in ("Page", "Runtime", "Log"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False})

    def close_page(self):
        self.send("Target.closeTarget", {"targetId": self.target}, session=False)
        self.send("Target.disposeBrowserContext", {"browserContextId": self.context}, session=False)
        self.session = None

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      timeout=180)  # a frame that runs a whole sweep (no threads) holds the page
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails'].get('text')}")
        return r["result"].get("value")

    def problems(self):
        """JavaScript exceptions, console errors and Chromium's log errors seen so far on this page."""
        out = []
        for m in self.events:
            p = m.get("params", {})
            if m.get("method") == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
            elif m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                       for a in p.get("args", [])))
            elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                e = p["entry"]
                if "favicon.ico" not in e.get("url", ""):
                    out.append("log: " + e.get("text", ""))
        self.events = []
        return out

    def quit(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# [SECTION] Screenshots: decoded here (PNG, zlib) to count what they show
def png_pixels(data):
    """(width, height, rows of RGB(A) bytes) of a non-interlaced 8-bit PNG, as Chromium writes them."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    rows, prev, stride = [], bytearray(w * bpp), w * bpp
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def shot(b, name):
    data = base64.b64decode(b.send("Page.captureScreenshot", {"format": "png"})["data"])
    path = os.path.join(out_dir, name + ".png")
    with open(path, "wb") as f:
        f.write(data)
    return data, path


def colours(data, step=4):
    w, h, rows, bpp = png_pixels(data)
    seen = set()
    for y in range(0, h, step):
        r = rows[y]
        for x in range(0, w, step):
            seen.add(r[x * bpp:x * bpp + 3])
    return w, h, len(seen)


# [SECTION] The checks
def wait_frames(b, n, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        f = b.eval("window.gelulab ? window.gelulab.frames : -1")
        errs = b.eval("window.gelulab ? window.gelulab.errors : []")
        if errs:
            return f"the page reported: {errs}"
        if f is not None and f >= n:
            return None
        time.sleep(0.2)
    return f"fewer than {n} frames within {timeout} s (at {b.eval('window.gelulab && window.gelulab.frames')})"


def report(b):
    return json.loads(b.eval("Module.ccall('gelu_web_report', 'string', [], [])"))


def settled_report(b, timeout=60):
    """The report once the active panel has finished its work (the Precision sweep comes in over frames:
    its plots' legends grow as cells arrive) and three more frames have been laid out from it."""
    end = time.time() + timeout
    rep = report(b)
    while rep.get("panels", {}).get(rep.get("active_panel"), {}).get("running") and time.time() < end:
        time.sleep(0.2)
        rep = report(b)
    wait_frames(b, b.eval("window.gelulab.frames") + 3)
    return report(b)


def check_view(b, rep, name, width, height, scale, expect_panel=None, expect_message=False, slide=False):
    """The checks every view passes; `slide`: a lesson step at a projector size (1024x768 or 1280x800 with 2x
    text) is a slide, as the desktop's layout matrix checks it (plot::slide_problems: each plot wholly on
    screen above the lesson bar, the step's text in the bar, nothing scrolling)."""
    what = f"{name} ({width}x{height} at {scale}x)"
    data, path = shot(b, name)
    w, h, n = colours(data)
    log = b.eval("window.gelulab.log.splice(0)")
    bad = [l for l in log if "GL error" in l or ("error" in l.lower() and "gelulab" in l.lower())]
    for p in b.problems() + bad:
        failures.append(f"{what}: {p}")
    if (w, h) != (width * scale, height * scale):
        failures.append(f"{what}: the screenshot is {w}x{h}, not {width * scale}x{height * scale}")
    if n < 12:
        failures.append(f"{what}: the screenshot has {n} colours: nothing drawn ({path})")
    if expect_panel and rep.get("active_panel") != expect_panel:
        failures.append(f"{what}: the active panel is {rep.get('active_panel')}, not {expect_panel}")
    if expect_message != bool(rep.get("message")):
        failures.append(f"{what}: message {rep.get('message')!r}")
    if rep.get("message") and "\n" in rep["message"]:
        failures.append(f"{what}: the message is more than one line: {rep['message']!r}")
    for o in rep.get("text_overlaps", []):  # the desktop layout matrix's text check (panel.hpp)
        failures.append(f"{what}: {o}")
    if slide:
        for p in rep.get("slide_problems", []):
            failures.append(f"{what}: not a slide: {p}")
        if rep.get("lesson_step") is None:
            failures.append(f"{what}: no lesson is open")
    # The desktop layout matrix's draw checks (ui::draw_cost): no triangle covers almost half the frame (the
    # main window's background is the clear) and the triangles cover at most two frames.
    cost, frame_px = rep.get("draw", {}), width * scale * height * scale
    if cost.get("largest_px", 0) >= 0.45 * frame_px:
        failures.append(f"{what}: one triangle covers {cost['largest_px'] / frame_px:.2f} of the frame")
    if cost.get("filled_px", 0) > 2.0 * frame_px:
        failures.append(f"{what}: the triangles cover {cost['filled_px'] / frame_px:.2f} frames")
    # The matrix's pixel check: a plot with data, wholly on screen, shows some of it in the screenshot (a
    # saturated series colour or a dark mark in its data area; every other pixel on a row and a column).
    sw, sh, rows, bpp = png_pixels(data)
    for pid in rep.get("plot_ids", []):
        p = rep.get("plots", {}).get(pid, {})
        if p.get("data_items", 0) <= 0 or "plot:" + pid not in rep["ui_marks"]:
            continue
        l, t, r, bt = (int(p[k]) for k in ("left", "top", "right", "bottom"))
        if l < 0 or t < 0 or r > sw or bt > sh or r - l < 4 or bt - t < 4:
            continue
        ink = 0
        for y in range(t + 1, bt - 1, 2):
            row = rows[y]
            for x in range(l + 1, r - 1, 2):
                px = row[x * bpp:x * bpp + 3]
                if max(px) - min(px) > 70 or max(px) < 90:
                    ink += 1
        if ink <= 5:
            failures.append(f"{what}: plot {pid} has {p['data_items']} data items and shows none of them")
    for pid in rep.get("plot_ids", []):
        r = rep["ui_marks"].get("plot:" + pid)  # visible ones only: a panel taller than the window scrolls
        # Inside the window across (a panel taller than the window scrolls: a plot may go on below it).
        if r and (r[0] < 0 or r[1] < 0 or r[2] > width * scale + 1 or r[1] >= height * scale or r[2] <= r[0]
                  or r[3] <= r[1]):
            failures.append(f"{what}: plot {pid} at {r} is not inside the {width * scale}x{height * scale} window")
    return data


def visit(b, fragment, name, width, height, scale, expect_panel=None, expect_message=False):
    """A fresh page opened on `fragment`."""
    b.open_page(width, height, scale)
    b.send("Page.navigate", {"url": base + fragment})
    problem = wait_frames(b, 12)
    if problem:
        failures.append(f"{name}: {problem}")
        b.close_page()
        return None
    rep = settled_report(b)
    check_view(b, rep, name, width, height, scale, expect_panel, expect_message)
    b.close_page()
    return rep


