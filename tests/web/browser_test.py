#!/usr/bin/env python3
"""The web build in a real browser, every view: serves build-web/site on 127.0.0.1 and opens it in headless
Chromium (WebGL2 through SwiftShader; tests/web/webpage.py). For every panel (#panel=ID) and every lesson step
(#lesson=NAME&step=N) at 1280x800, and every panel at 1024x768 with 2x text (devicePixelRatio 2): the page
draws frames, takes a screenshot that is not blank, and reports its layout (the page's gelu_web_report, what
`gui --report` gives on the desktop): the active panel and the lesson are the link's, every plot lies inside
the window. A page opened on a lesson link shows the link's view from its first frame; a malformed link shows
the defaults with a one-line message. Any JavaScript error, page error, WebGL error or app error message
fails the test. What a user does on the page (clicks, keys, touch, the wheel, files, the clipboard) is
interaction_test.py.

The views are visited on one page per size by editing the fragment (the page's hashchange path). Usage:
browser_test.py CHROMIUM SITE_DIR LESSONS_DIR OUT_DIR [--quick: first lesson steps only, no 2x tour]. Exits 1
naming every failure.
"""
import json, os, sys

from webpage import Browser, check_view, failures, finish, report, serve, settled_report, visit, wait_frames

chromium, site, lessons_dir, out_dir = sys.argv[1:5]
quick = "--quick" in sys.argv
base = serve(site, out_dir)


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
        rep = settled_report(b)
        check_view(b, rep, name, width, height, scale, panel, slide="lesson=" in fragment and "present=2" in fragment)
        n += 1
    b.close_page()
    return n


b = Browser(chromium)
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
    steps_of = []
    for name in lessons:
        with open(os.path.join(lessons_dir, name + ".json")) as f:
            steps = json.load(f)["steps"]
        for i, step in enumerate(steps):
            if quick and i > 0:
                break
            steps_of.append((name, i + 1, step["panel"]))
    # 1280x800: every panel, and every lesson step as a slide (2x text, presentation mode).
    views = [(f"#panel={pid}", f"panel_{pid}_1280x800", pid) for pid in panels]
    views += [(f"#lesson={n}&step={k}&present=2", f"lesson_{n}_{k}_1280x800_2x", p) for n, k, p in steps_of]
    visited = tour(b, views, 1280, 800, 1)
    # 1024x768 with 2x text: every panel and every lesson step.
    views = [(f"#panel={pid}&present=2", f"panel_{pid}_1024x768_2x", pid) for pid in panels]
    views += [(f"#lesson={n}&step={k}&present=2", f"lesson_{n}_{k}_1024x768_2x", p) for n, k, p in steps_of]
    visited += tour(b, views, 1024, 768, 1)
    if not quick:
        # A HiDPI screen (devicePixelRatio 2): the drawing buffer at device pixels, the text crisp.
        visited += tour(b, [(f"#panel={pid}", f"panel_{pid}_1280x800_dpr2", pid) for pid in panels], 1280, 800, 2)
    # A page opened on a link (not reached by editing the fragment): the link's view from the first frame.
    visit(b, "#lesson=4_gelu_vs_relu_training&step=3", "opened_on_lesson_4_step_3", 1280, 800, 1,
          expect_panel="ffn")
    print(f"browser: {visited} views opened, screenshots in {out_dir}")
    # A malformed link: the defaults and a one-line message.
    rep = visit(b, "#panel=nope&x=", "malformed_link", 1280, 800, 1, expect_panel=panels[0], expect_message=True)
    if rep:
        print(f"browser: #panel=nope&x= shows the defaults with: {rep['message']}")
finally:
    b.quit()

sys.exit(finish("browser"))
