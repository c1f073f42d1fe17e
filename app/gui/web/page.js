// The page's input and files, inside emscripten's module (--post-js: FS and ccall are in scope), started by
// gui/web/page.cpp (gelulabPage.start()).
//
// - Files from the user's disk: File > Open a lesson or session from this computer… shows the browser's file
//   chooser (gelulabPage.chooseFile); a file dropped on the canvas does the same. The file is copied into the
//   page's file system (/gelulab/opened) and handed to the app (gelu_web_open_file), which opens a lesson or
//   restores a session and says so, or says why not.
// - The wheel: emscripten 3.1.6's GLFW passes the browser's deltaY as it is (downwards positive, 100 a notch),
//   which scrolled up by a hundred lines for one notch down. The page gives the app GLFW's convention instead:
//   one notch is 1, upwards positive (gelu_web_wheel).
// - The clipboard: what the app copies goes to the browser's (gui/web/web_host.cpp); what the user pastes
//   from elsewhere comes in through the page's paste event (gelu_web_paste).
// - Touch: emscripten's GLFW reads touches as mouse buttons without a position. The page turns one finger into
//   the mouse (a tap clicks, a drag drags a slider or pans a plot) and two fingers into the wheel (pinch zooms
//   a plot by the fingers' ratio, a two-finger swipe scrolls).
var gelulabPage = (function () {
  'use strict';
  var LIMIT = 16 * 1024 * 1024;  // the app's limit on a JSON file (model/limits.hpp): it names a bigger one
  var NOTCH_PX = 40;             // CSS pixels of a two-finger swipe that scroll as one wheel notch
  var ZOOM_STEP = Math.log(1 / 0.85);  // one wheel notch zooms a plot by 0.85 (plot/plot.cpp)
  var input = null;

  function record(key, value) {
    if (!window.gelulab) return;
    (window.gelulab[key] = window.gelulab[key] || []).push(value);
  }

  function openFile(file) {
    if (!file) return;
    var name = String(file.name || 'file');
    file.slice(0, LIMIT + 1).arrayBuffer().then(function (buf) {
      var dir = '/gelulab/opened';
      FS.mkdirTree(dir);
      var path = dir + '/' + name.replace(/[\/\\\u0000-\u001f]/g, '_');
      FS.writeFile(path, new Uint8Array(buf));
      Module.ccall('gelu_web_open_file', null, ['string', 'string'], [path, name]);
      try { FS.unlink(path); } catch (e) { /* already gone */ }
      record('opened', name);
    }, function (err) {
      console.warn('gelulab: ' + name + ' could not be read: ' + err);
      Module.ccall('gelu_web_open_failed', null, ['string', 'string'], [name, String(err)]);
    });
  }

  function chooseFile() {
    if (!input) return;
    input.value = '';
    input.click();  // inside the click's user activation (the frame that drew the menu follows it)
  }

  function wheel(dx, dy) {
    if (dx !== 0 || dy !== 0) Module.ccall('gelu_web_wheel', null, ['number', 'number'], [dx, dy]);
  }

  function mouse(type, x, y, buttons) {
    Module['canvas'].dispatchEvent(new MouseEvent(type, {
      clientX: x, clientY: y, screenX: x, screenY: y, button: 0, buttons: buttons,
      bubbles: true, cancelable: true, view: window
    }));
  }

  var touch = { down: false, two: false, x: 0, y: 0, mx: 0, my: 0, dist: 1, away: 0 };

  function onTouch(e) {
    var canvas = Module['canvas'];
    if (e.target !== canvas) return;
    e.preventDefault();            // no emulated mouse events, no page scroll or zoom
    e.stopImmediatePropagation();  // GLFW's own touch handlers would press the button at a stale position
    clearTimeout(touch.away);
    var ts = e.touches;
    if (ts.length === 1 && !touch.two) {
      var t = ts[0];
      touch.x = t.clientX;
      touch.y = t.clientY;
      mouse('mousemove', t.clientX, t.clientY, touch.down ? 1 : 0);
      if (e.type === 'touchstart' && !touch.down) {
        mouse('mousedown', t.clientX, t.clientY, 1);
        touch.down = true;
      }
    } else if (ts.length >= 2) {
      if (touch.down) {  // a second finger: the first one's press ends where it is, and the wheel takes over
        mouse('mouseup', touch.x, touch.y, 0);
        touch.down = false;
      }
      var a = ts[0], b = ts[1];
      var mx = (a.clientX + b.clientX) / 2, my = (a.clientY + b.clientY) / 2;
      var dist = Math.max(1, Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY));
      mouse('mousemove', mx, my, 0);
      if (touch.two && e.type === 'touchmove') {
        var zoom = Math.log(dist / touch.dist) / ZOOM_STEP;  // fingers apart: zoom in, as a wheel up
        var swipe = (my - touch.my) / NOTCH_PX;              // fingers up: the content follows them up
        if (Math.abs(dist - touch.dist) > Math.hypot(mx - touch.mx, my - touch.my))
          wheel(0, zoom);
        else
          wheel((mx - touch.mx) / NOTCH_PX, swipe);
      }
      touch.two = true;
      touch.mx = mx;
      touch.my = my;
      touch.dist = dist;
    }
    if ((e.type === 'touchend' || e.type === 'touchcancel') && ts.length === 0) {
      if (touch.down) mouse('mouseup', touch.x, touch.y, 0);
      touch.down = false;
      touch.two = false;
      // A finger leaves no pointer behind: after the release has been drawn, nothing stays hovered.
      touch.away = setTimeout(function () { mouse('mousemove', -100, -100, 0); }, 150);
    }
    record('touches', e.type + ':' + ts.length);
  }

  function start() {
    var canvas = Module['canvas'];
    input = document.createElement('input');
    input.type = 'file';
    input.id = 'gelulab-open-file';
    input.accept = '.json,application/json';
    input.style.display = 'none';
    input.addEventListener('change', function () {
      if (input.files && input.files.length) openFile(input.files[0]);
    });
    document.body.appendChild(input);
    canvas.addEventListener('dragover', function (e) {
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    });
    canvas.addEventListener('drop', function (e) {
      e.preventDefault();
      if (e.dataTransfer && e.dataTransfer.files.length) openFile(e.dataTransfer.files[0]);
    });
    // On the window, in the capture phase: before emscripten's GLFW listeners on the canvas.
    window.addEventListener('wheel', function (e) {
      if (e.target !== canvas) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      var unit = e.deltaMode === 1 ? 3 : e.deltaMode === 2 ? 1 : 100;  // lines, pages, pixels
      wheel(-e.deltaX / unit, -e.deltaY / unit);
    }, { capture: true, passive: false });
    // Pasting from outside the page: the browser's clipboard text becomes the app's before ImGui reads it
    // (the paste event follows the Ctrl+V keydown, before the next frame).
    window.addEventListener('paste', function (e) {
      var text = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
      if (text) Module.ccall('gelu_web_paste', null, ['string'], [text]);
    });
    ['touchstart', 'touchmove', 'touchend', 'touchcancel'].forEach(function (type) {
      window.addEventListener(type, onTouch, { capture: true, passive: false });
    });
  }

  return { start: start, chooseFile: chooseFile, openFile: openFile };
})();
