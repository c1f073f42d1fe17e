#!/usr/bin/env bash
# `cmake --install` into a prefix, the prefix moved elsewhere, and the installed binary run from another
# directory: it must find its lessons and assets relative to itself (BIN/../share/gelulab), never through the
# source path compiled in; with the Python module (PYTHON = its interpreter), `import gelulab` from the
# installed dist-packages. CTest runs it (label install) as: install_test.sh BUILD_DIR SOURCE_DIR HAVE_GUI [PYTHON]
set -euo pipefail
build=$1 src=$2 have_gui=${3:-0} python=${4:-}
work=$(mktemp -d /tmp/gelulab-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/first" >/dev/null
mv "$work/first" "$work/moved"
p=$work/moved
for f in bin/gelulab share/gelulab/lessons share/gelulab/shaders/activations.glsl \
         share/applications/gelulab.desktop share/icons/hicolor/scalable/apps/gelulab.svg; do
  [ -e "$p/$f" ] || fail "$f is not installed"
done
grep -q '^Exec=gelulab' "$p/share/applications/gelulab.desktop" || fail "the desktop entry does not run gelulab"

cd /  # not the source tree, not the build tree
"$p/bin/gelulab" list >/dev/null || fail "gelulab list"
if [ "$have_gui" = 1 ]; then
  out=$(env -u GELULAB_LESSONS "$p/bin/gelulab" lessons) || fail "gelulab lessons exited $?: $out"
  n=$(printf '%s\n' "$out" | grep -c "^ok  $p/share/gelulab/lessons/" || true)
  want=$(ls "$src"/assets/lessons/*.json | wc -l)
  [ "$n" -eq "$want" ] || fail "expected $want lessons from $p/share/gelulab/lessons, got: $out"
  ! printf '%s\n' "$out" | grep -q "$src" || fail "the installed binary read lessons from the source tree: $out"
  "$p/bin/gelulab" shot --panel curves --size 640x400 --out "$work/x.png" >/dev/null || fail "gelulab shot"
  [ -s "$work/x.png" ] || fail "gelulab shot wrote no PNG"
fi
if [ -n "$python" ]; then
  [ -e "$p/lib/python3/dist-packages/gelulab/__init__.py" ] || fail "the Python module is not installed"
  got=$(PYTHONPATH=$p/lib/python3/dist-packages "$python" -c \
    'import gelulab, numpy as np; x = np.array([1.0], np.float32); print(gelulab.__file__, gelulab.check(x, gelulab.eval("gelu", x, "f32").astype(np.float32), dtype="f32", max_ulp=0).n)') \
    || fail "import gelulab from the installed prefix"
  case $got in "$p/lib/python3/dist-packages/gelulab/__init__.py 1") ;; *) fail "gelulab imported from elsewhere: $got" ;; esac
fi
echo "install_test: ok (installed, moved to $p, run from /)"
