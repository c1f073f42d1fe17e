#!/usr/bin/env bash
# Runs a README command on a bare Debian 12, the way a newcomer would: a `debootstrap --variant=minbase
# bookworm` root (nothing else installed), the current commit cloned into it, the command run as root in a
# chroot with a clean environment. Prints the command, its exit status and its time.
#
#   tools/fresh-debian.sh './tools/dev.sh test'        the README's test command (what CI runs)
#   tools/fresh-debian.sh './tools/dev.sh run list'    the run command (no display in the chroot: `list`)
#   tools/fresh-debian.sh --deb './tools/dev.sh test'  then also: build the .deb there (cpack), install it
#                                                      with apt-get into a second bare root, and run
#                                                      gelulab list, shot and lessons from the package
# Options: --deb (as above), --keep (leave the roots in place for a look; mounts are still removed),
#          --log FILE (the command's output; default /tmp/gelulab-fresh-DATE.log).
# Environment: GELU_FRESH_CACHE (default /var/cache/gelulab-fresh) keeps the debootstrapped root as a tarball
# between runs (delete it to start from a newer Debian); GELU_FRESH_MIRROR (default http://deb.debian.org/debian).
#
# The root is bind-mounted on itself so that `/` is a mount point inside (as on a real machine), with proc,
# sys and dev mounted. Everything runs in a private mount namespace where the kernel allows one, so no mount
# can outlive the script; the roots are removed at the end, also after Ctrl+C or a failure. Needs root.
# Only committed work is tested: uncommitted changes are not in the clone (a warning says so).
set -euo pipefail

die() {
  echo "fresh-debian: $*" >&2
  exit 2
}

orig_args=("$@")
deb=0 keep=0 log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --deb) deb=1; shift ;;
    --keep) keep=1; shift ;;
    --log) [ $# -ge 2 ] || die "--log needs a file"; log=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
  esac
done
[ $# -le 1 ] || die "give the command as one argument, e.g. './tools/dev.sh test'"
cmd=${1:-}
[ -n "$cmd" ] || [ "$deb" = 1 ] || die "no command given (see --help)"
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, mount and chroot need it)"

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
commit=$(git -C "$repo" rev-parse HEAD)

# A private mount namespace: every mount below disappears with this process, whatever ends it.
if [ -z "${GELU_FRESH_IN_NS:-}" ] && command -v unshare >/dev/null &&
   unshare --mount --propagation private true 2>/dev/null; then
  export GELU_FRESH_IN_NS=1
  exec unshare --mount --propagation private "$0" "${orig_args[@]}"
fi

command -v debootstrap >/dev/null || {
  echo "fresh-debian: installing debootstrap" >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq debootstrap >/dev/null
}

cache=${GELU_FRESH_CACHE:-/var/cache/gelulab-fresh}
mirror=${GELU_FRESH_MIRROR:-http://deb.debian.org/debian}
tarball=$cache/bookworm-minbase.tar.gz
log=${log:-/tmp/gelulab-fresh-$(date +%Y%m%d-%H%M%S).log}
work=$(mktemp -d /tmp/gelulab-fresh.XXXXXX)
roots=()

# [SECTION] Clean-up: kill what still runs in a root, unmount, remove. Never removes a root with something
# still mounted in it (rm also stays on one file system).
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for root in "${roots[@]}"; do
    for p in /proc/[0-9]*; do
      local r
      r=$(readlink "$p/root" 2>/dev/null) || continue
      case "$r" in "$root"|"$root"/*) kill -9 "${p#/proc/}" 2>/dev/null || true ;; esac
    done
    if mountpoint -q "$root" 2>/dev/null || grep -q " $root[/ ]" /proc/self/mounts; then
      umount -R "$root" 2>/dev/null || umount -R -l "$root" 2>/dev/null || true
    fi
  done
  if grep -q " $work/" /proc/self/mounts; then
    echo "fresh-debian: something is still mounted under $work; left in place" >&2
  elif [ "$keep" = 1 ]; then
    echo "fresh-debian: roots kept in $work" >&2
  else
    rm -rf --one-file-system "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'echo "fresh-debian: interrupted" >&2; exit 130' INT
trap 'echo "fresh-debian: terminated" >&2; exit 143' TERM

# [SECTION] The bare Debian 12 root, made once and kept as a tarball.
if [ ! -s "$tarball" ]; then
  echo "fresh-debian: debootstrap --variant=minbase bookworm (once; cached in $tarball)" >&2
  mkdir -p "$cache"
  boot=$work/debootstrap
  roots+=("$boot")
  debootstrap --variant=minbase bookworm "$boot" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed (log above)"; }
  # As a fresh install has them: the release, its updates and the security archive.
  security=${mirror%/debian}/debian-security
  cat >"$boot/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
  tar -C "$boot" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
  rm -rf --one-file-system "$boot"
fi

new_root() {  # new_root NAME: a fresh, mounted root in $work/NAME, its path in $new (no subshell: roots+=
  local root=$work/$1  #   must reach the clean-up)
  new=$root
  mkdir -p "$root"
  tar -C "$root" -xzf "$tarball"
  roots+=("$root")
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  mount --rbind /dev "$root/dev"
  mount --make-rslave "$root/dev"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

in_root() {  # in_root ROOT DIR COMMAND: runs COMMAND in DIR inside ROOT with a clean environment
  chroot "$1" /usr/bin/env -i HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c "cd $2 && $3"
}

report() {  # report COMMAND STATUS SECONDS
  printf 'fresh-debian: command: %s\nfresh-debian: exit status: %s\nfresh-debian: time: %d min %02d s\n' \
    "$1" "$2" $(($3 / 60)) $(($3 % 60))
}

run_step() {  # run_step ROOT DIR COMMAND -> reports, returns the command's status
  local start status
  start=$(date +%s)
  echo "fresh-debian: running '$3' in $2 (bare Debian 12, chroot)" >&2
  set +e
  in_root "$1" "$2" "$3" 2>&1 | tee -a "$log"
  status=${PIPESTATUS[0]}
  set -e
  report "$3" "$status" $(($(date +%s) - start)) | tee -a "$log"
  return "$status"
}

# [SECTION] The README command on a fresh clone.
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] ||
  echo "fresh-debian: warning: uncommitted changes in $repo are not tested (only commit $commit)" >&2
new_root build
root=$new
git clone -q --no-hardlinks "$repo" "$root/root/gelulab"
git -C "$root/root/gelulab" checkout -q "$commit"
echo "fresh-debian: commit $commit, log $log" | tee -a "$log" >&2
overall=0
if [ -n "$cmd" ]; then
  run_step "$root" /root/gelulab "$cmd" || overall=$?
fi

# [SECTION] The Debian package: built in the first root, installed with apt-get into a second bare root.
if [ "$deb" = 1 ]; then
  run_step "$root" /root/gelulab "./tools/dev.sh build && cd build && rm -f gelulab_*.deb && cpack -G DEB" ||
    exit 1
  pkg=$(ls "$root"/root/gelulab/build/gelulab_*.deb | head -1)
  new_root install
  target=$new
  cp "$pkg" "$target/root/"
  name=$(basename "$pkg")
  run_step "$target" /root "apt-get -o DPkg::Lock::Timeout=300 update -qq && \
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./$name" || overall=1
  run_step "$target" /tmp "gelulab list" || overall=1
  run_step "$target" /tmp "gelulab shot --panel curves --out x.png && test -s x.png && ls -l x.png" || overall=1
  run_step "$target" /tmp "gelulab lessons" || overall=1
fi
echo "fresh-debian: done, status $overall (log $log)" >&2
exit "$overall"
