// Runs before main(), inside emscripten's module (--pre-js): where the packaged files are (gelulab.data), and
// where the session is kept: $XDG_CONFIG_HOME/gelulab/session.json on an IndexedDB file system (IDBFS), read
// back before main() starts and written by the page as the session changes (gui/web/page.cpp).
Module.preRun = Module.preRun || [];
Module.preRun.push(function () {
  ENV.GELU_FONT_DIR = '/gelulab/fonts';
  ENV.GELULAB_LESSONS = '/gelulab/lessons';
  ENV.XDG_CONFIG_HOME = '/gelulab/config';
  try {
    FS.mkdirTree('/gelulab/config');
    FS.mount(IDBFS, {}, '/gelulab/config');
  } catch (e) {
    console.warn('gelulab: no browser storage for the session: ' + e);
    return;
  }
  addRunDependency('gelulab-session');
  FS.syncfs(true, function (err) {
    if (err) console.warn('gelulab: the saved session could not be read: ' + err);
    removeRunDependency('gelulab-session');
  });
});

// WebGL state the page already knows, answered without asking the GPU process. ImGui's OpenGL3 backend reads
// the viewport, the scissor box and the blend state back (glGetIntegerv) before every frame's drawing, to
// restore them after it; in Chromium each such getParameter is a synchronous round trip that first waits for
// the GPU process to finish all the drawing queued before it, so a frame could not start while the last one
// was still being drawn (docs/performance.md). These values change only through the calls wrapped here,
// which keep a copy per context; a value the wrapper cannot be sure of (an argument the call refuses, a
// viewport the GPU may clamp) is forgotten and read again from the real getParameter.
(function () {
  if (typeof WebGL2RenderingContext === 'undefined') return;
  // The page's canvas keeps its pixels between frames: a frame draws only what changed (gui/kit/damage.hpp).
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, attrs) {
    if (type === 'webgl2' && this.id === 'canvas')
      attrs = Object.assign({}, attrs || {}, {preserveDrawingBuffer: true});
    return getContext.call(this, type, attrs);
  };
  const P = WebGL2RenderingContext.prototype, get = P.getParameter;
  const VIEWPORT = 0x0BA2, SCISSOR_BOX = 0x0C10, SRC_RGB = 0x80C9, DST_RGB = 0x80C8, SRC_ALPHA = 0x80CB,
        DST_ALPHA = 0x80CA, EQ_RGB = 0x8009, EQ_ALPHA = 0x883D;
  const FUNCS = [SRC_RGB, DST_RGB, SRC_ALPHA, DST_ALPHA], EQS = [EQ_RGB, EQ_ALPHA];
  const kept = new Set([VIEWPORT, SCISSOR_BOX].concat(FUNCS, EQS));
  // ZERO, ONE, the colour and alpha factors, SRC_ALPHA_SATURATE (the constant ones, which WebGL refuses in
  // some pairs, are read back); FUNC_ADD, MIN, MAX, FUNC_SUBTRACT, FUNC_REVERSE_SUBTRACT.
  const factors = new Set([0, 1, 0x300, 0x301, 0x302, 0x303, 0x304, 0x305, 0x306, 0x307, 0x308]);
  const equations = new Set([0x8006, 0x8007, 0x8008, 0x800A, 0x800B]);
  const state = function (gl) {
    return gl.__geluState || (gl.__geluState = new Map());
  };
  const copy = function (v) {
    return v instanceof Int32Array ? new Int32Array(v) : v;
  };
  P.getParameter = function (p) {
    if (!kept.has(p) || this.isContextLost()) return get.call(this, p);
    const s = state(this);
    if (!s.has(p)) s.set(p, copy(get.call(this, p)));
    return copy(s.get(p));
  };
  const wrap = function (name, after) {
    const f = P[name];
    P[name] = function () {
      const r = f.apply(this, arguments);
      after(state(this), Array.prototype.slice.call(arguments));
      return r;
    };
  };
  const box = function (s, p, a, limit) {
    const ok = a.length >= 4 && a.every(function (v) { return Number.isInteger(v); }) && a[2] >= 0 &&
               a[3] >= 0 && a[2] <= limit && a[3] <= limit;
    if (ok) s.set(p, new Int32Array(a.slice(0, 4))); else s.delete(p);
  };
  const set = function (s, ps, vs, valid) {
    const ok = vs.length === ps.length && vs.every(function (v) { return valid.has(v); });
    ps.forEach(function (p, i) { if (ok) s.set(p, vs[i]); else s.delete(p); });
  };
  wrap('viewport', function (s, a) { box(s, VIEWPORT, a, 4096); });  // larger ones the GPU may clamp
  wrap('scissor', function (s, a) { box(s, SCISSOR_BOX, a, 1 << 30); });
  wrap('blendFunc', function (s, a) { set(s, FUNCS, [a[0], a[1], a[0], a[1]], factors); });
  wrap('blendFuncSeparate', function (s, a) { set(s, FUNCS, a.slice(0, 4), factors); });
  wrap('blendEquation', function (s, a) { set(s, EQS, [a[0], a[0]], equations); });
  wrap('blendEquationSeparate', function (s, a) { set(s, EQS, a.slice(0, 2), equations); });
})();
