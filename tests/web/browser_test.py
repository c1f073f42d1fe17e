#!/usr/bin/env python3
"""The web build in a real browser: serves build-web/site on 127.0.0.1, opens it in headless Chromium
(WebGL2 through SwiftShader) and drives it through the DevTools protocol over a pipe (no driver, no npm
package). For every panel (#panel=ID) and every lesson step (#lesson=NAME&step=N) at 1280x800, and every
panel at 1024x768 with 2x text (devicePixelRatio 2): the page draws frames, takes a screenshot that is not
blank, and reports its layout (the page's gelu_web_report, what `gui --report` gives on the desktop): the
active panel and the lesson are the link's, every plot lies inside the window. A malformed link shows the
defaults with a one-line message. The session outlives the page (IndexedDB). A scripted interaction (a click on the Curves panel's derivative checkbox
and a lesson stepped with the Right key) changes what is drawn. Any JavaScript error, page error, WebGL error
or app error message fails the test.

The views are visited on one page per size by editing the fragment (the page's hashchange path), and a page
opened on a lesson link checks the first frame's path. Usage: browser_test.py CHROMIUM SITE_DIR LESSONS_DIR
OUT_DIR [--quick: first lesson steps only, no 2x tour]. Exits 1 naming every failure.
"""
import base64, functools, http.server, json, os, socketserver, struct, subprocess, sys, tempfile, threading, time
import zlib

chromium, site, lessons_dir, out_dir = sys.argv[1:5]
quick = "--quick" in sys.argv
os.makedirs(out_dir, exist_ok=True)
failures = []


# [SECTION] A static server on 127.0.0.1 (an ephemeral port), as a teacher's host would serve the folder
class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".js": "text/javascript"}

    def log_message(self, *a):
        pass


httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=site))
httpd.daemon_threads = True
port = httpd.server_address[1]
threading.Thread(target=httpd.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{port}/index.html"


# [SECTION] Chromium and the DevTools protocol over --remote-debugging-pipe (fds 3 and 4, NUL-terminated JSON)
class Browser:
    def __init__(self):
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


def check_view(b, rep, name, width, height, scale, expect_panel=None, expect_message=False):
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
    rep = report(b)
    check_view(b, rep, name, width, height, scale, expect_panel, expect_message)
    b.close_page()
    return rep


def tour(b, views, width, height, scale):
    """One page, the views one after the other by editing the fragment (as a user pastes a link)."""
    b.open_page(width, height, scale)
    b.send("Page.navigate", {"url": base})
    problem = wait_frames(b, 5)
    if problem:
        failures.append(f"tour at {width}x{height}: {problem}")
        b.close_page()
        return 0
    n = 0
    for fragment, name, panel in views:
        b.eval(f"window.location.hash = {json.dumps(fragment)}")
        problem = wait_frames(b, b.eval("window.gelulab.frames") + 6)
        if problem:
            failures.append(f"{name}: {problem}")
            break
        rep = report(b)
        check_view(b, rep, name, width, height, scale, panel)
        n += 1
    b.close_page()
    return n


b = Browser()
try:
    b.open_page(1280, 800, 1)
    b.close_page()
    b.open_page(1280, 800, 1)
    b.send("Page.navigate", {"url": base})
    problem = wait_frames(b, 5, timeout=90)
    b.close_page()
    if problem:
        raise SystemExit(f"browser_test: the site does not start: {problem}")
    panels = report_panels = None
    b.open_page(1280, 800, 1)
    b.send("Page.navigate", {"url": base})
    wait_frames(b, 5)
    panels = list(report(b)["panels"].keys())
    b.close_page()
    print(f"browser: {len(panels)} panels: {', '.join(panels)}")
    lessons = sorted(f[:-5] for f in os.listdir(lessons_dir) if f.endswith(".json"))
    views = [(f"#panel={pid}", f"panel_{pid}_1280x800", pid) for pid in panels]
    for name in lessons:
        with open(os.path.join(lessons_dir, name + ".json")) as f:
            steps = json.load(f)["steps"]
        for i, step in enumerate(steps):
            if quick and i > 0:
                break
            views.append((f"#lesson={name}&step={i + 1}", f"lesson_{name}_{i + 1}", step["panel"]))
    visited = tour(b, views, 1280, 800, 1)
    if not quick:
        visited += tour(b, [(f"#panel={pid}", f"panel_{pid}_1024x768_2x", pid) for pid in panels], 1024, 768, 2)
    # A page opened on a link (not reached by editing the fragment): the link's view from the first frame.
    visit(b, "#lesson=4_gelu_vs_relu_training&step=3", "opened_on_lesson_4_step_3", 1280, 800, 1,
          expect_panel="ffn")
    print(f"browser: {visited} views opened, screenshots in {out_dir}")
    # A malformed link: the defaults and a one-line message.
    rep = visit(b, "#panel=nope&x=", "malformed_link", 1280, 800, 1, expect_panel=panels[0], expect_message=True)
    if rep:
        print(f"browser: #panel=nope&x= shows the defaults with: {rep['message']}")
    # Interaction: a checkbox ticked on Curves changes what is drawn; a lesson stepped with the Right key.
    b.open_page(1280, 800, 1)
    b.send("Page.navigate", {"url": base + "#panel=curves"})
    wait_frames(b, 20)
    before, _ = shot(b, "curves_before_click")
    marks = report(b)["ui_marks"]
    boxes = sorted(k for k in marks if k.startswith("check:") or k.startswith("checkbox:"))
    if not boxes:
        failures.append(f"interaction: the Curves panel marks no checkbox (marks: {sorted(marks)[:20]})")
    else:
        r = marks[boxes[0]]
        x, y = (r[0] + r[2]) / 2, (r[1] + r[3]) / 2
        frames = b.eval("window.gelulab.frames")
        for t in ("mouseMoved", "mousePressed", "mouseReleased"):
            b.send("Input.dispatchMouseEvent", {"type": t, "x": x, "y": y, "button": "left", "clickCount": 1})
            wait_frames(b, b.eval("window.gelulab.frames") + 3)
        wait_frames(b, frames + 15)
        after, _ = shot(b, "curves_after_click")
        frag = b.eval("window.location.hash")
        if after == before:
            failures.append(f"interaction: clicking {boxes[0]} changed nothing on the screen")
        print(f"browser: clicked {boxes[0]}: the picture changed: {after != before}; the link is now {frag}")
    for p in b.problems():
        failures.append("interaction: " + p)
    b.close_page()
    # The session is kept in the browser's storage: the page opened again without a link shows the last view.
    b.open_page(1280, 800, 1)
    b.send("Page.navigate", {"url": base + "#panel=dropout"})
    wait_frames(b, 200, timeout=120)
    b.send("Page.navigate", {"url": base + "?again"})
    wait_frames(b, 20)
    again = report(b).get("active_panel")
    if again != "dropout":
        failures.append(f"session: opened again, the page shows {again}, not the dropout panel it showed last")
    print(f"browser: opened again without a link, the page shows the last panel: {again}")
    for p in b.problems():
        failures.append("session: " + p)
    b.close_page()
    first = lessons[0]
    b.open_page(1280, 800, 1)
    b.send("Page.navigate", {"url": base + f"#lesson={first}&step=1"})
    wait_frames(b, 20)
    s1, _ = shot(b, "lesson_before_step")
    b.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "ArrowRight", "code": "ArrowRight",
                                      "windowsVirtualKeyCode": 39})
    wait_frames(b, b.eval("window.gelulab.frames") + 3)  # held for a few frames, as a finger does
    b.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "ArrowRight", "code": "ArrowRight",
                                      "windowsVirtualKeyCode": 39})
    wait_frames(b, b.eval("window.gelulab.frames") + 20)
    s2, _ = shot(b, "lesson_after_step")
    frag = b.eval("window.location.hash")
    if not frag.endswith("step=2"):
        failures.append(f"interaction: after Right the link is {frag}, not step 2")
    if s1 == s2:
        failures.append("interaction: stepping the lesson changed nothing on the screen")
    print(f"browser: Right stepped {first} to {frag}")
    for p in b.problems():
        failures.append("lesson step: " + p)
    b.close_page()
finally:
    b.quit()
    httpd.shutdown()

for f in failures:
    print("FAIL:", f)
print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
sys.exit(1 if failures else 0)
