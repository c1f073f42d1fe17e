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
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -ne 0 ]; then
  echo "check-format.sh: ${#bad[@]} file(s) differ from .clang-format (fix: tools/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format.sh: ${#files[@]} files match .clang-format"
