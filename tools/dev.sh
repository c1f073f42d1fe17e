#!/usr/bin/env bash
# GELU Lab developer entry point for a Debian 12 machine.
#   tools/dev.sh run   [gelulab args]  install what is missing (apt, as root), build, start the app
#   tools/dev.sh test  [ctest args]    install what is missing, build the web build and the desktop one with
#                                      warnings as errors, run every test (the web tests in Chromium and node
#                                      among them); then the sanitizer build's tests and 30 s of each fuzz
#                                      target (CI)
#   tools/dev.sh build                 install what is missing and build
#   tools/dev.sh sanitize [ctest args] the ASan + UBSan build (build-asan) and its tests
#   tools/dev.sh fuzz [SECONDS]        the libFuzzer targets (clang, build-fuzz), SECONDS each (default 60)
#   tools/dev.sh web                   the browser build (docs/web.md): emscripten, Debian's imgui 1.86 source,
#                                      build-web/site/ (the static site) and build-web/gelulab-cli.js (node)
#   tools/dev.sh soak MINUTES          the monkey (random clicks, drags, wheels, keys at every widget of every
#                                      panel) with fresh seeds for MINUTES; failing scripts are kept to replay
# Environment: BUILD_DIR (default build), JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."

# What a bare Debian 12 (debootstrap --variant=minbase) needs, installed with --no-install-recommends, so
# every run-time piece a library loads without linking it is named here: Mesa's EGL/GL drivers (headless
# rendering, llvmpipe), GLX for the window, the DejaVu fonts. tools/fresh-debian.sh proves the lists on a
# bare root. Optional peers (oneDNN, PyTorch) and tools (clang/libFuzzer, clang-format) are in the test list:
# CMake turns each off with one status line when it is missing, but CI runs with all of them.
RUN_PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libeigen3-dev libgtest-dev libbenchmark-dev
  libimgui-dev libstb-dev libglfw3-dev libepoxy-dev libegl-dev
  libegl-mesa0 libgl1-mesa-dri libgl1 libglx-mesa0 fonts-dejavu-core
  file  # cpack -G DEB computes Depends with dpkg-shlibdeps, which CPack refuses to run without `file`
)
TEST_PACKAGES=(
  xvfb xauth python3 python3-mpmath python3-numpy python3-torch libdnnl-dev
  python3-dev pybind11-dev  # the Python module gelulab (python/)
  libglpk-dev libmpfr-dev  # correctly rounded fits (gelu::fit_cr)
  clang libclang-rt-14-dev clang-format
  chromium  # the browser tests (tests/web: web_browser, web_interaction) open the web build's site in it
)

install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "dev.sh: run as root to install: ${missing[*]}" >&2; exit 2; }
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    --no-install-recommends "${missing[@]}"
}

# The web build (cmake/emscripten-web.cmake): Debian's emscripten and node-acorn (its JavaScript passes), the
# fonts and stb that the site packages, and chromium for the browser test (tests/web).
WEB_PACKAGES=(emscripten node-acorn libeigen3-dev libstb-dev fonts-dejavu-core cmake ninja-build dpkg-dev)
WEB_DIR=${WEB_DIR:-build-web}
IMGUI_VERSION=1.86+ds-1

# The first archive URI of the system's apt sources that serves suite $1 with component main (deb822 .sources
# files and the one-line sources.list format).
debian_mirror() {
  local suite=$1
  {
    cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v suite="$suite" '
      /^[[:space:]]*$/ { if (u != "" && s && m) print u; u = ""; s = 0; m = 0; next }
      /^URIs:/ { u = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) s = 1 }
      /^Components:/ { for (i = 2; i <= NF; i++) if ($i == "main") m = 1 }
      END { if (u != "" && s && m) print u }'
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      sed -n -E "s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+$suite[[:space:]].*main.*/\2/p"
  } | head -n 1
}

# Dear ImGui's source, as Debian packages it (libimgui-dev is a desktop build, not emscripten's): the source
# package imgui through an apt configuration of our own in $WEB_DIR/deps (its own sources list with a deb-src
# line, lists and cache), so the system's apt sources are never edited. Prints the unpacked folder.
fetch_imgui_source() {
  local deps=$PWD/$WEB_DIR/deps
  local src=$deps/imgui-$IMGUI_VERSION
  if [ -f "$src/imgui.cpp" ]; then echo "$src"; return 0; fi
  local apt=$deps/apt
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/etc"
  # The archive this machine already installs from (its main suite, from the system's sources, read only).
  local codename mirror
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  mirror=$(debian_mirror "$codename")
  [ -n "$mirror" ] || { echo "dev.sh web: no Debian archive for $codename in /etc/apt's sources" >&2; return 1; }
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  echo "deb-src [signed-by=$keyring] $mirror $codename main" >"$apt/etc/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$apt/etc/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1)
  echo "dev.sh web: fetching Debian's source package imgui $IMGUI_VERSION (private apt configuration in $apt)" >&2
  apt-get "${opts[@]}" -qq update >&2
  (cd "$deps" && apt-get "${opts[@]}" -qq source --download-only "imgui=$IMGUI_VERSION" >&2 &&
    dpkg-source -x "imgui_$IMGUI_VERSION.dsc" "$src" >&2)
  [ -f "$src/imgui.cpp" ] || { echo "dev.sh web: imgui's source did not unpack into $src" >&2; return 1; }
  echo "$src"
}

web() {
  install_missing "${WEB_PACKAGES[@]}"
  local imgui
  imgui=$(fetch_imgui_source)
  cmake -S . -B "$WEB_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=cmake/emscripten-web.cmake \
    -DGELU_IMGUI_SOURCE_DIR="$imgui" -DGELU_WERROR=ON
  cmake --build "$WEB_DIR" -j "$JOBS" --target gelulab gelulab-site
  echo "dev.sh web: the site is $WEB_DIR/site (python3 -m http.server -d $WEB_DIR/site 8000), the command line" \
    "node $WEB_DIR/gelulab-cli.js" >&2
}

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

configure() {
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGELU_WERROR=ON
}
build() {
  configure
  cmake --build "$BUILD_DIR" -j "$JOBS" "$@"
}

# AddressSanitizer + UndefinedBehaviorSanitizer over the unit tests (core, CLI, FFN, GPU; the GUI's loaders are
# fuzzed under the same sanitizers by tools/fuzz.sh), with -O1 (the tests' own sources -O0: tests/CMakeLists.txt)
# so the build and the tests fit in CI's time; the
# exhaustive sweep runs every 997th float instead of every 97th. Any report is fatal (-fno-sanitize-recover=all,
# halt_on_error), so a test that trips a sanitizer fails.
# Each test executable runs as 4 CTest shards (GELU_TEST_SHARDS): an ASan process costs ~0.7 s to start and to
# check for leaks at exit, which with one process per test (866 of them) was most of the stage's 9 minutes.
# A failing shard prints its GoogleTest output; GTEST_FILTER=... picks tests (`-R` matches shard names).
# Time bounds (FitSpeed: the Designer's live refit under 100 ms of CPU) are the release build's promise, checked
# by the first stage; at -O1 with ASan the same fits take 3 to 6 times longer (degree 12: 16-33 ms release,
# 96-138 ms here, on a loaded 2-core EPYC), so this stage leaves them out. The GUI runs here through the monkey
# alone (tests/app/CMakeLists.txt): one script per panel of 450 frames at a random size and text scale, every
# widget within reach (its coverage of every toggle is the release stage's assertion, with more scripts).
SANITIZE_FILTER='-FitSpeed.*:Every/LayoutMatrix.*/lesson_*'
sanitize() {
  local dir=build-asan
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DGELU_WERROR=ON -DGELU_BUILD_BENCH=OFF -DGELU_SANITIZE=address,undefined \
    -DGELU_TEST_SHARDS=4 || return
  # `set -e` does not reach into a function called as `sanitize || …`: a failed build returns here, before
  # ctest would report its missing executables as the failure.
  cmake --build "$dir" -j "$JOBS" || return
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0 \
  GELU_EXHAUSTIVE_STRIDE=997 GTEST_FILTER=${GTEST_FILTER:-$SANITIZE_FILTER} \
  GELU_MONKEY_SCRIPTS=1 GELU_MONKEY_FRAMES=${GELU_MONKEY_FRAMES:-450} GELU_MONKEY_COVERAGE=0 \
    ctest --test-dir "$dir" --output-on-failure -j "$JOBS" -LE web "$@"  # not the web tests: they run build-web, not this build
}

cmd=${1:-run}
shift || true
case "$cmd" in
  run)
    install_missing "${RUN_PACKAGES[@]}"
    build --target gelulab  # the app first; the tests build with `tools/dev.sh test`
    exec "$BUILD_DIR/app/gelulab" "$@"
    ;;
  build)
    install_missing "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    build
    ;;
  test)
    install_missing "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${WEB_PACKAGES[@]}"
    # The browser build first (docs/web.md): the desktop's configure registers the web tests (label web:
    # the accuracy suites under node, every panel and lesson step in Chromium) when build-web is there.
    web
    build
    # GPU tests use EGL's surfaceless platform (no X); app tests start their own Xvfb through xvfb-run.
    # Every stage runs; the status is the first failure's.
    status=0
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@" || status=$?
    echo "dev.sh: sanitizer build (ASan + UBSan)" >&2
    sanitize "$@" || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
    echo "dev.sh: fuzzing, 30 s per target (the committed corpus first)" >&2
    ./tools/fuzz.sh 30 || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
    exit "$status"
    ;;
  sanitize)
    install_missing "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    sanitize "$@"
    ;;
  soak)
    # The monkey for a long run: new seeds every time (the date's seconds), the minutes shared by the panels.
    # A failing script is kept under $BUILD_DIR/tests/app/monkey-failures with the command that replays it.
    install_missing "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    build --target gelulab app_monkey_tests
    minutes=${1:-10}
    case "$minutes" in '' | *[!0-9.]*) echo "dev.sh soak: MINUTES must be a number, not '$minutes'" >&2; exit 2 ;; esac
    cd "$BUILD_DIR/tests/app"
    exec env GELU_MONKEY_MINUTES="$minutes" GELU_MONKEY_SEED="${GELU_MONKEY_SEED:-$(date +%s)}" \
      ./app_monkey_tests
    ;;
  web)
    web
    ;;
  fuzz)
    install_missing "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    exec ./tools/fuzz.sh "${1:-60}"
    ;;
  *)
    echo "usage: tools/dev.sh run|test|build|sanitize|fuzz|soak|web" >&2
    exit 2
    ;;
esac
