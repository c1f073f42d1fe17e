#!/usr/bin/env python3
"""The house rules of docs/architecture.md, checked on the sources: arrows only go down and no include cycle;
software prefetches in core/src only through prefetch_ahead (simd/simd_loop.hpp).

  gui -> model -> gpu -> core;  gui, cli -> command;  never gui -> cli, never model -> gui/cli.
  Inside app/gui: kit <- panels <- shell <- hosts, testing beside hosts (a room includes only rooms below it).
  In app/ only model/backends includes gelu/gpu (the one GPU door).

Every #include "..." of a project file is resolved (from app/, core/include, core/gpu/include, core/src, or
the including file's own folder) and checked against the layer rules below; then the include graph of the
project's own headers must have no cycle. Exits 1 naming each violation. Usage: check_layers.py SOURCE_DIR
"""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)

# (layer, path prefix); the first match names a file's layer.
LAYERS = [
    ("core.gpu", "core/gpu/"), ("core", "core/"),
    ("command", "app/command/"), ("cli", "app/cli/"), ("model", "app/model/"),
    # The plot layer's ImGui-free rooms: ticks and sampling, the slide on rectangles, placement.
    ("plot_core", "app/plot/plot_core."), ("plot_core", "app/plot/slide."), ("plot_core", "app/plot/place."),
    ("plot", "app/plot/"),
    ("gui.kit", "app/gui/kit/"), ("gui.panels", "app/gui/panels/"), ("gui.shell", "app/gui/shell/"),
    ("gui.testing", "app/gui/testing/"), ("gui.hosts", "app/gui/hosts/"), ("main", "app/main.cpp"),
]
# What each layer may include (project layers; system headers are checked by FORBIDDEN_SYSTEM).
ALLOWED = {
    "core": {"core"},
    "core.gpu": {"core", "core.gpu"},
    "command": {"core", "command"},
    "cli": {"core", "command", "cli", "model"},
    "model": {"core", "core.gpu", "model", "plot_core"},
    "plot_core": {"plot_core"},
    "plot": {"plot", "plot_core", "core"},
    # The gui rooms: kit <- panels <- shell <- hosts; testing (scripted input, soak) drives the shell, and
    # only the hosts include it.
    "gui.kit": {"core", "model", "plot", "plot_core", "gui.kit"},
    "gui.panels": {"core", "model", "plot", "plot_core", "gui.kit", "gui.panels"},
    "gui.shell": {"core", "command", "model", "plot", "plot_core", "gui.kit", "gui.panels", "gui.shell"},
    "gui.testing": {"core", "command", "model", "plot", "plot_core", "gui.kit", "gui.panels", "gui.shell",
                    "gui.testing"},
    "gui.hosts": {"core", "command", "model", "plot", "plot_core", "gui.kit", "gui.panels", "gui.shell",
                  "gui.testing", "gui.hosts"},
    "main": {"command"},
}
GUI_SYSTEM = re.compile(r"^(imgui|backends/|GLFW/|epoxy/|EGL/|GL/)")
FORBIDDEN_SYSTEM = {  # layer -> headers it must never include
    "core": GUI_SYSTEM, "command": GUI_SYSTEM, "cli": re.compile(r"^(imgui|backends/|GLFW/)"),
    "model": re.compile(r"^(imgui|backends/|GLFW/)"), "plot_core": GUI_SYSTEM,
    "core.gpu": re.compile(r"^(imgui|backends/|GLFW/)"),
}
# The one GPU door: in app/ only these files include gelu::gpu's headers.
GPU_DOOR = {"app/model/backends.hpp", "app/model/backends.cpp"}
SEARCH = ["app", "core/include", "core/gpu/include", "core/src", "core/gpu/src", "core/gpu"]


def layer_of(rel):
    for name, prefix in LAYERS:
        if rel.startswith(prefix):
            return name
    return None


def resolve(including, inc):
    for base in [os.path.dirname(including)] + SEARCH:
        cand = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


errors, graph = [], {}
for top in ("app", "core"):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            if not f.endswith((".cpp", ".hpp", ".h")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            layer = layer_of(rel)
            text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
            for kind, inc in INCLUDE.findall(text):
                if kind == "<":
                    bad = FORBIDDEN_SYSTEM.get(layer)
                    if bad and bad.match(inc):
                        errors.append(f"{rel}: the {layer} layer includes <{inc}>")
                    continue
                target = resolve(rel, inc)
                if target is None:
                    continue  # generated (embedded shaders) or a system header in quotes
                if not inc.startswith(("gelu/",)) and top == "app" and "/" not in inc and not os.path.isfile(
                        os.path.join(root, os.path.dirname(rel), inc)):
                    errors.append(f'{rel}: #include "{inc}" is not a path from app/ (write "{os.path.relpath(target, "app")}")')
                tl = layer_of(target)
                if top == "app" and tl == "core.gpu" and rel not in GPU_DOOR:
                    errors.append(f'{rel} includes {target}: in app/ only model/backends includes gelu/gpu '
                                  '(the one GPU door)')
                    continue
                if layer and tl and tl not in ALLOWED[layer]:
                    errors.append(f'{rel} ({layer}) includes {target} ({tl}): arrows only go down')
                if target.endswith((".hpp", ".h")):
                    graph.setdefault(rel, set()).add(target)

# Software prefetches in core/src go through simd/simd_loop.hpp's prefetch_ahead (an asm volatile): GCC 12 deleted
# `_mm_prefetch` calls made through a lambda as dead code, and the float kernels ran without them.
PREFETCH = re.compile(r"\b(_mm_prefetch|__builtin_prefetch)\s*\(")
for dirpath, _, files in os.walk(os.path.join(root, "core", "src")):
    for f in files:
        rel = os.path.relpath(os.path.join(dirpath, f), root)
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        for m in PREFETCH.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            errors.append(f"{rel}:{line}: {m.group(1)} can be deleted by the compiler; use prefetch_ahead (simd/simd_loop.hpp)")

# Include cycles among the project's own files (depth-first search, colours).
WHITE, GREY, BLACK = 0, 1, 2
colour = {}


def visit(node, stack):
    colour[node] = GREY
    stack.append(node)
    for nxt in sorted(graph.get(node, ())):
        if colour.get(nxt, WHITE) == GREY:
            errors.append("include cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
        elif colour.get(nxt, WHITE) == WHITE:
            visit(nxt, stack)
    stack.pop()
    colour[node] = BLACK


for n in sorted(graph):
    if colour.get(n, WHITE) == WHITE:
        visit(n, [])

for e in errors:
    print("check_layers: " + e, file=sys.stderr)
print(f"check_layers: {len(graph)} files with project includes, {len(errors)} violation(s)")
sys.exit(1 if errors else 0)
