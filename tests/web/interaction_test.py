#!/usr/bin/env python3
"""The web build in a real browser, what a user does (tests/web/webpage.py drives headless Chromium):
  - the mouse: a checkbox ticked on Curves changes the picture and the link;
  - drawing only what changed: idle frames draw nothing, the mouse moving over a plot redraws under a fifth
    of the screen a frame, and the screen is the same as the same frame drawn whole;
  - the wheel: one notch up over a plot zooms it in by the app's step (0.85 of its x range), as on the desktop;
  - touch, as on a tablet: a tap ticks a checkbox, two fingers spread apart zoom a plot in;
  - the keyboard: the Right key steps a lesson and the link follows;
  - files: File > Open a lesson or session from this computer… opens the browser's file chooser; a lesson
    file picked there opens at its first step, a session file restores its panel, a broken file gives a
    one-line message naming it and changes nothing; a file dropped on the page opens the same way;
  - the clipboard: File > Copy link puts the page's address on it;
  - links: present=2 opens presentation mode at 2x text and the link keeps it;
  - storage: the session outlives the page (opened again without a link, it shows the last panel);
  - no threads: the Precision panel's sweep runs in slices, the page drawing frames while its cells come in;
  - the Benchmarks panel runs the CPU path and says why there is no GPU compute.
Any JavaScript error, page error or WebGL error fails the test.
Usage: interaction_test.py CHROMIUM SITE_DIR LESSONS_DIR OUT_DIR. Exits 1 naming every failure."""
import json, math, os, sys, tempfile, time

from webpage import Browser, failures, finish, report, serve, shot, wait_frames

chromium, site, lessons_dir, out_dir = sys.argv[1:5]
base = serve(site, out_dir)


def frames(b):
    return b.eval("window.gelulab.frames")


def settle(b, n=6):
    wait_frames(b, frames(b) + n)


def centre(r):
    return (r[0] + r[2]) / 2, (r[1] + r[3]) / 2


def click(b, x, y):
    for t in ("mouseMoved", "mousePressed", "mouseReleased"):
        b.send("Input.dispatchMouseEvent", {"type": t, "x": x, "y": y, "button": "left", "clickCount": 1})
        settle(b, 3)


def mark(b, name, what):
    r = report(b)["ui_marks"].get(name)
    if not r:
        failures.append(f"{what}: the page shows no {name}")
    return r


def start(b, fragment, n=20, width=1280, height=800):
    b.open_page(width, height, 1)
    b.send("Page.navigate", {"url": base + fragment})
    problem = wait_frames(b, n, timeout=120)
    if problem:
        failures.append(f"{fragment}: {problem}")
    return problem is None


def done(b, what):
    for p in b.problems():
        failures.append(f"{what}: {p}")
    log = b.eval("window.gelulab.log.splice(0)")
    for line in log:
        if "GL error" in line:
            failures.append(f"{what}: {line}")
    b.close_page()


def curves_box(b):
    marks = report(b)["ui_marks"]
    boxes = sorted(k for k in marks if k.startswith("check:") or k.startswith("checkbox:"))
    if not boxes:
        failures.append(f"the Curves panel marks no checkbox (marks: {sorted(marks)[:20]})")
        return None, None
    return boxes[0], marks[boxes[0]]


def lesson_opened(b, how, name):
    """After a lesson file reached the page: it shows the lesson's first step (the dropout panel)."""
    settle(b, 20)
    rep = report(b)
    print(f"interaction: {how} {name}: panel {rep['active_panel']}, step {rep['lesson_step']}, "
          f"message {rep['message']!r}")
    if rep["active_panel"] != "dropout" or rep["lesson_step"] != 1:
        failures.append(f"files: the lesson {how} did not open at its first step (panel {rep['active_panel']}, "
                        f"step {rep['lesson_step']}, {rep['message']!r})")
    return rep


def first_plot(rep, panel):
    plots = rep["panels"][panel]["plots"]
    pid = sorted(plots)[0] if plots else None
    return pid, plots.get(pid)


b = Browser(chromium)
try:
    # [SECTION] The mouse: a checkbox
    if start(b, "#panel=curves"):
        before, _ = shot(b, "curves_before_click")
        frag0 = b.eval("window.location.hash")
        name, r = curves_box(b)
        if r:
            click(b, *centre(r))
            settle(b, 15)
            after, _ = shot(b, "curves_after_click")
            frag = b.eval("window.location.hash")
            if after == before:
                failures.append(f"mouse: clicking {name} changed nothing on the screen")
            if frag == frag0:
                failures.append(f"mouse: clicking {name} left the link as it was ({frag})")
            print(f"interaction: clicked {name}: the picture changed: {after != before}; the link is now {frag}")
    done(b, "mouse")

    # [SECTION] Drawing only what changed: idle frames draw nothing, the mouse over a plot redraws a little of
    # the screen, and what the page shows is what a whole frame draws (gui/kit/damage.hpp)
    if start(b, "#panel=curves"):
        pid, p = first_plot(report(b), "curves")
        if not p:
            failures.append("damage: the Curves panel reports no plot")
        else:
            whole_px = b.eval("GLctx.drawingBufferWidth * GLctx.drawingBufferHeight")
            settle(b, 10)
            b.eval("window.gelulab.drawn_px = []; 0")
            settle(b, 12)
            idle = b.eval("window.gelulab.drawn_px")
            b.eval("window.gelulab.drawn_px = []; 0")
            for k in range(24):
                x = p["left"] + (p["right"] - p["left"]) * (0.1 + 0.8 * k / 24)
                b.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": (p["top"] + p["bottom"]) / 2})
                settle(b, 1)
            moving = sorted(d for d in b.eval("window.gelulab.drawn_px") if d > 0)  # the frames that changed
            settle(b, 3)
            tracked, _ = shot(b, "curves_drawn_where_changed")
            b.eval("window.gelulab.whole_frames = true; 0")
            settle(b, 3)
            whole, _ = shot(b, "curves_drawn_whole")
            b.eval("window.gelulab.whole_frames = false; 0")
            still = sum(1 for d in idle if d == 0)
            median = moving[len(moving) // 2] if moving else None
            print(f"interaction: idle frames drawing nothing {still}/{len(idle)}; the mouse over the plot: "
                  f"{len(moving)} frames drew, median {median} of {whole_px} pixels; tracked and whole frames look "
                  f"the same: {tracked == whole}")
            if not idle or still < 0.8 * len(idle):
                failures.append(f"damage: idle frames drew pixels: {idle}")
            if len(moving) < 5 or not median < whole_px / 5:
                failures.append(f"damage: moving the mouse over the plot 24 times redrew {len(moving)} frames, "
                                f"median {median} of {whole_px} pixels (expected at least 5, under a fifth)")
            if tracked != whole:
                failures.append("damage: the page drawn where it changed differs from the same frame drawn whole "
                                "(curves_drawn_where_changed.png, curves_drawn_whole.png)")
    done(b, "damage")

    # [SECTION] The wheel: one notch up zooms a plot in by 0.85, where the mouse is
    if start(b, "#panel=curves"):
        pid, p = first_plot(report(b), "curves")
        if not p:
            failures.append("wheel: the Curves panel reports no plot")
        else:
            x, y = (p["left"] + p["right"]) / 2, (p["top"] + p["bottom"]) / 2
            b.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
            settle(b, 3)
            w0 = p["x_max"] - p["x_min"]
            b.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": -100})
            settle(b, 8)
            p1 = report(b)["panels"]["curves"]["plots"][pid]
            ratio = (p1["x_max"] - p1["x_min"]) / w0
            print(f"interaction: one wheel notch up over plot {pid}: its x range x{ratio:.4f}")
            if not abs(ratio - 0.85) < 0.01:
                failures.append(f"wheel: one notch up changed plot {pid}'s x range by x{ratio:.4f}, not x0.85 "
                                f"(the desktop's zoom step)")
            b.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": 200})
            settle(b, 8)
            p2 = report(b)["panels"]["curves"]["plots"][pid]
            back = (p2["x_max"] - p2["x_min"]) / w0
            if not abs(back - 0.85 / 0.85 ** 2) < 0.02:
                failures.append(f"wheel: two notches down left the x range at x{back:.4f} of the start, "
                                f"not x{1 / 0.85:.4f}")
    done(b, "wheel")

    # [SECTION] Touch: a tap ticks a checkbox; two fingers spread apart zoom a plot in
    if start(b, "#panel=curves"):
        b.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        settle(b, 3)
        frag0 = b.eval("window.location.hash")
        before, _ = shot(b, "touch_before_tap")
        name, r = curves_box(b)
        if r:
            x, y = centre(r)
            b.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
            settle(b, 2)
            b.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            settle(b, 15)
            after, _ = shot(b, "touch_after_tap")
            frag = b.eval("window.location.hash")
            print(f"interaction: tapped {name}: the link is now {frag}")
            if frag == frag0 or after == before:
                failures.append(f"touch: a tap on {name} changed nothing (link {frag0} -> {frag})")
        rep = report(b)
        pid, p = first_plot(rep, "curves")
        if p:
            cx, cy = (p["left"] + p["right"]) / 2, (p["top"] + p["bottom"]) / 2
            w0 = p["x_max"] - p["x_min"]
            gap = 40
            b.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [
                {"x": cx - gap / 2, "y": cy, "id": 1}, {"x": cx + gap / 2, "y": cy, "id": 2}]})
            settle(b, 2)
            for k in range(1, 5):  # the fingers end twice as far apart
                d = gap / 2 * (1 + k / 4)
                b.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
                    {"x": cx - d, "y": cy, "id": 1}, {"x": cx + d, "y": cy, "id": 2}]})
                settle(b, 2)
            b.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            settle(b, 8)
            p1 = report(b)["panels"]["curves"]["plots"][pid]
            ratio = (p1["x_max"] - p1["x_min"]) / w0
            print(f"interaction: two fingers spread to twice their distance over plot {pid}: x range x{ratio:.3f}")
            if not 0.4 < ratio < 0.6:
                failures.append(f"touch: spreading two fingers to twice their distance changed plot {pid}'s "
                                f"x range by x{ratio:.3f}, not about x0.5")
        touches = b.eval("window.gelulab.touches || []")
        if not touches:
            failures.append("touch: the page saw no touch event")
    done(b, "touch")

    # [SECTION] The keyboard: the Right key steps a lesson
    first = sorted(f[:-5] for f in os.listdir(lessons_dir) if f.endswith(".json"))[0]
    if start(b, f"#lesson={first}&step=1"):
        s1, _ = shot(b, "lesson_before_step")
        b.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "ArrowRight", "code": "ArrowRight",
                                          "windowsVirtualKeyCode": 39})
        settle(b, 3)  # held for a few frames, as a finger does
        b.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "ArrowRight", "code": "ArrowRight",
                                          "windowsVirtualKeyCode": 39})
        settle(b, 20)
        s2, _ = shot(b, "lesson_after_step")
        frag = b.eval("window.location.hash")
        if not frag.endswith("step=2"):
            failures.append(f"keyboard: after Right the link is {frag}, not step 2")
        if s1 == s2:
            failures.append("keyboard: stepping the lesson changed nothing on the screen")
        print(f"interaction: Right stepped {first} to {frag}")
    done(b, "keyboard")

    # [SECTION] Files from the user's disk: the menu's file chooser, and a file dropped on the page
    tmp = tempfile.mkdtemp(prefix="gelulab-files-")
    lesson_file = os.path.join(tmp, "my_own_lesson.json")
    with open(lesson_file, "w") as f:
        json.dump({"title": "My own lesson", "steps": [
            {"title": "Dropout first", "panel": "dropout", "text": "A lesson from the teacher's disk."},
            {"title": "Then curves", "panel": "curves", "text": "Step two."}]}, f)
    session_file = os.path.join(tmp, "saved_session.json")
    broken_file = os.path.join(tmp, "broken.json")
    with open(broken_file, "w") as f:
        f.write('{"steps": [')
    if start(b, "#panel=curves"):
        b.send("Page.setInterceptFileChooserDialog", {"enabled": True})
        r = mark(b, "menu:file", "files")
        if r:
            click(b, *centre(r))
            settle(b, 4)
            item = mark(b, "menu:open_file", "files")
            if item:
                b.events = [m for m in b.events if m.get("method") != "Page.fileChooserOpened"]
                click(b, *centre(item))
                b.pump(1.0)
                chooser = [m for m in b.events if m.get("method") == "Page.fileChooserOpened"]
                if not chooser:
                    failures.append("files: File > Open a lesson or session… showed no file chooser")
                else:
                    node = chooser[0]["params"]["backendNodeId"]
                    b.send("DOM.enable")
                    b.send("DOM.setFileInputFiles", {"files": [lesson_file], "backendNodeId": node})
                    rep = lesson_opened(b, "picked", os.path.basename(lesson_file))
                    if "my_own_lesson.json" not in rep["message"]:
                        failures.append(f"files: the message does not name the lesson: {rep['message']!r}")
                    frag = b.eval("window.location.hash")
                    if "lesson=" in frag:
                        failures.append(f"files: a lesson from the user's disk is not on the site, but the "
                                        f"link is {frag}")
        # The session as the app saves it, picked through the same input: its panel comes back.
        b.eval("window.location.hash = '#panel=approx'")
        saved = ""
        for _ in range(100):  # the page stores the session every other second when it changed
            settle(b, 10)
            saved = b.eval("(function () { try { return FS.readFile(ENV.XDG_CONFIG_HOME + "
                           "'/gelulab/session.json', {encoding: 'utf8'}); } catch (e) { return ''; } })()")
            if saved and json.loads(saved).get("active_panel") == "approx":
                break
        with open(session_file, "w") as f:
            f.write(saved)
        b.eval("window.location.hash = '#panel=dropout'")
        settle(b, 15)
        doc = b.send("DOM.getDocument", {"depth": 1})
        node = b.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": "#gelulab-open-file"})
        if not node.get("nodeId"):
            failures.append("files: the page has no file input (#gelulab-open-file)")
        else:
            b.send("DOM.setFileInputFiles", {"files": [session_file], "nodeId": node["nodeId"]})
            settle(b, 20)
            rep = report(b)
            print(f"interaction: picked a saved session: panel {rep['active_panel']}, message {rep['message']!r}")
            if rep["active_panel"] != "approx" or "saved_session.json" not in rep["message"]:
                failures.append(f"files: the saved session did not restore its panel (approx): "
                                f"{rep['active_panel']}, {rep['message']!r}")
            b.send("DOM.setFileInputFiles", {"files": [broken_file], "nodeId": node["nodeId"]})
            settle(b, 20)
            rep = report(b)
            print(f"interaction: picked a broken file: {rep['message']!r}")
            if "broken.json" not in rep["message"] or "\n" in rep["message"] or rep["active_panel"] != "approx":
                failures.append(f"files: a broken file should give one line naming it and change nothing: "
                                f"{rep['active_panel']}, {rep['message']!r}")
        # Dropped on the page.
        for kind in ("dragEnter", "dragOver", "drop"):
            b.send("Input.dispatchDragEvent", {"type": kind, "x": 600, "y": 400, "data": {
                "items": [], "files": [lesson_file], "dragOperationsMask": 1}})
        lesson_opened(b, "dropped", os.path.basename(lesson_file))
    done(b, "files")

    # [SECTION] The clipboard: File > Copy link
    if start(b, "#panel=approx"):
        r = mark(b, "menu:file", "copy link")
        if r:
            click(b, *centre(r))
            settle(b, 4)
            item = mark(b, "menu:copy_link", "copy link")
            if item:
                click(b, *centre(item))
                settle(b, 6)
                copied = b.eval("window.gelulab.copied || ''")
                href = b.eval("window.location.href")
                print(f"interaction: Copy link put {copied!r} on the clipboard")
                if copied != href or "#panel=approx" not in copied:
                    failures.append(f"copy link: the clipboard has {copied!r}, the page is at {href}")
    done(b, "copy link")

    # [SECTION] A projector's link: present=2
    if start(b, f"#lesson={first}&step=2&present=2", width=1024, height=768):
        rep = report(b)
        shot(b, "present_2x_1024x768")
        pres = rep.get("presentation", {})
        frag = b.eval("window.location.hash")
        print(f"interaction: present=2 gives presentation {pres}, the link is {frag}")
        if not pres.get("on") or pres.get("scale") != 2:
            failures.append(f"present=2: presentation mode is {pres}")
        if "present=2" not in frag:
            failures.append(f"present=2: the link dropped it: {frag}")
        if rep.get("slide_problems"):
            failures.append(f"present=2: {first} step 2 is not a slide at 1024x768: {rep['slide_problems']}")
        b.eval(f"window.location.hash = '#lesson={first}&step=2&present=7'")
        settle(b, 10)
        msg = report(b)["message"]
        if "present=7" not in msg:
            failures.append(f"present=7: no message naming it: {msg!r}")
    done(b, "present")

    # [SECTION] The browser's storage keeps the session
    if start(b, "#panel=dropout", n=200):
        b.send("Page.navigate", {"url": base + "?again"})
        wait_frames(b, 20)
        again = report(b).get("active_panel")
        if again != "dropout":
            failures.append(f"session: opened again, the page shows {again}, not the dropout panel it showed last")
        print(f"interaction: opened again without a link, the page shows the last panel: {again}")
    done(b, "session")

    # [SECTION] No threads: the Precision sweep in slices, the page drawing on
    # The sweep (8 cells, the int8 view, the zoo's yardstick of 20 entries) runs in slices between frames: it
    # takes several frames, none of them long (a frame that computed it whole took over a second before
    # slices, 0.5 s when the zoo's yardstick was one piece), and it gives the cells.
    if start(b, "#panel=precision", n=1):
        b.eval("window.gelulab.frame_ms = []")
        f0, t0, rep = frames(b), time.time(), {}
        while time.time() - t0 < 240:
            rep = report(b)
            p = rep["panels"]["precision"]
            if not p.get("running") and p.get("cells"):
                break
            time.sleep(0.05)
        f1, took = frames(b), time.time() - t0
        cells = len(rep["panels"]["precision"].get("cells", []))
        work = b.eval("window.gelulab.frame_ms") or [0]
        print(f"interaction: Precision's sweep gave {cells} cells over frames {f0}..{f1} ({took:.1f} s), "
              f"the longest frame {max(work):.0f} ms")
        if cells == 0:
            failures.append("precision: the sweep gave no cell")
        elif f1 - f0 < 3:
            failures.append(f"precision: the sweep took {f1 - f0} frames: not in slices")
        elif max(work) > 300:
            failures.append(f"precision: a frame of the sweep took {max(work):.0f} ms (the page stops drawing)")
    done(b, "precision")

    # [SECTION] Benchmarks: the CPU path, and why there is no GPU compute
    if start(b, "#panel=bench&sizes=%5B4096%5D&reps=1", n=30):
        text = ""
        for _ in range(60):
            text = json.dumps(report(b)["panels"]["bench"])
            if "compute shaders" in text:
                break
            time.sleep(0.5)
        shot(b, "bench")
        if "WebGL2 has no compute shaders" not in text:
            failures.append("bench: the Benchmarks panel does not say why there is no GPU compute")
        else:
            print("interaction: Benchmarks says: in the browser there is no GPU compute (WebGL2 has no compute "
                  "shaders)")
    done(b, "bench")
finally:
    b.quit()

sys.exit(finish("interaction"))
