#!/usr/bin/env bash
# Fails (exit 1) when any tracked C++ file differs from what the repository's .clang-format makes of it,
# naming each file; `tools/check-format.sh --fix` rewrites them in place. CI runs it as the CTest test
# `style_clang_format`. Needs clang-format (Debian 12: clang-format 14).
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format}
command -v "$fmt" >/dev/null || { echo "check-format.sh: $fmt is not installed (apt install clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' 2>/dev/null || find core app tests tools -name '*.[ch]pp')
if [ "${1:-}" = "--fix" ]; then
  "$fmt" -i "${files[@]}"
  exit 0
fi
# One clang-format process for every file (1.5 s; a process per file took 35 s of CI's time); only when it
# finds a difference does a second pass, a process per file, name the files that differ.
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
[ ${#existing[@]} -gt 0 ] || { echo "check-format.sh: no C++ files found" >&2; exit 1; }
bad=()
if ! "$fmt" --dry-run -Werror "${existing[@]}" >/dev/null 2>&1; then
  for f in "${existing[@]}"; do
    "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  # clang-format itself failed (not a difference): say so rather than pass.
  if [ ${#bad[@]} -eq 0 ]; then
    echo "check-format.sh: $fmt failed on the whole set but on no single file; run it by hand:" >&2
    "$fmt" --dry-run -Werror "${existing[@]}" >&2 || true
    exit 1
  fi
fi
if [ ${#bad[@]} -ne 0 ]; then
  echo "check-format.sh: ${#bad[@]} file(s) differ from .clang-format (fix: tools/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format.sh: ${#files[@]} files match .clang-format"
