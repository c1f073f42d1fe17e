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
