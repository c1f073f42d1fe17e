#!/usr/bin/env bash
# GELU Lab developer entry point for a Debian 12 machine.
#   tools/dev.sh run   [gelulab args]  install what is missing (apt, as root), build, start the app
#   tools/dev.sh test  [ctest args]    install what is missing, build with warnings as errors, run every test
#   tools/dev.sh build                 install what is missing and build
# Environment: BUILD_DIR (default build), JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libeigen3-dev libgtest-dev libbenchmark-dev
  libimgui-dev libstb-dev libglfw3-dev libepoxy-dev libegl-dev
  libegl-mesa0 libgl1-mesa-dri
  xvfb xauth fonts-dejavu-core python3-mpmath libdnnl-dev
)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
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
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}"
}

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

build() {
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGELU_WERROR=ON
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

cmd=${1:-run}
shift || true
case "$cmd" in
  run)
    install_missing
    build
    exec "$BUILD_DIR/app/gelulab" "$@"
    ;;
  build)
    install_missing
    build
    ;;
  test)
    install_missing
    build
    # GPU tests use EGL's surfaceless platform (no X); app tests start their own Xvfb through xvfb-run.
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@"
    ;;
  *)
    echo "usage: tools/dev.sh run|test|build" >&2
    exit 2
    ;;
esac
