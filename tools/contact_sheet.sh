#!/bin/sh
# Renders every panel and every lesson step in presentation mode (headless, `gelulab shot`) and puts them on one
# contact sheet, to look at before a release: what a class sees at the back of the room.
#
#   tools/contact_sheet.sh [GELULAB] [SIZE] [SCALE] [OUT.png]
#     GELULAB  the binary (default build/app/gelulab)
#     SIZE     the window, WxH (default 1024x768: the smallest projector a lesson is a slide at)
#     SCALE    the presentation text scale, 1 to 3 (default 2)
#     OUT.png  the sheet (default assets/screenshots/contact_sheet_SIZE_SCALEx.png)
#
# The single shots are kept in a temporary folder whose name it prints. The sheet needs ImageMagick's montage
# (apt-get install imagemagick; Debian names it montage-im6.q16); without it the script says so and keeps the
# shots. The layout checks themselves are tests/app/layout_matrix_test.cpp (every size and scale, in CI).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
gelulab=${1:-$root/build/app/gelulab}
size=${2:-1024x768}
scale=${3:-2}
out=${4:-$root/assets/screenshots/contact_sheet_${size}_${scale}x.png}
[ -x "$gelulab" ] || { echo "contact_sheet: no gelulab at $gelulab (build first: ./tools/dev.sh build)" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/gelulab-sheet.XXXXXX")
n=0
for panel in curves approx precision designer dropout ffn bench; do
  n=$((n + 1))
  "$gelulab" shot --panel "$panel" --size "$size" --presentation "$scale" \
    --out "$dir/$(printf %02d $n)_panel_$panel.png"
done
for lesson in "$root"/assets/lessons/*.json; do
  # "ok  FILE   5 steps  TITLE": a lesson that does not check stops the sheet
  steps=$("$gelulab" lessons --check "$lesson" | sed -n 's/^ok .* \([0-9][0-9]*\) steps .*/\1/p')
  [ -n "$steps" ] || { echo "contact_sheet: $lesson does not check" >&2; exit 2; }
  name=$(basename "$lesson" .json)
  step=1
  while [ "$step" -le "$steps" ]; do
    n=$((n + 1))
    "$gelulab" shot --lesson "$lesson" --step "$step" --size "$size" --presentation "$scale" \
      --out "$dir/$(printf %02d $n)_${name}_step_$step.png"
    step=$((step + 1))
  done
done
echo "contact_sheet: $n shots in $dir"
montage=$(command -v montage-im6.q16 || command -v montage || true)
if [ -z "$montage" ]; then
  echo "contact_sheet: no ImageMagick montage (apt-get install imagemagick): the shots are in $dir" >&2
  exit 1
fi
# The labels' font by file: ImageMagick's default (Helvetica) needs Ghostscript's fonts, which an install with
# --no-install-recommends lacks, and montage then drops every label and the title with only a warning.
font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf  # fonts-dejavu-core, in dev.sh's run packages
[ -f "$font" ] || { echo "contact_sheet: $font is missing (apt-get install fonts-dejavu-core)" >&2; exit 1; }
"$montage" "$dir"/*.png -tile 6x -geometry 320x+4+4 -font "$font" \
  -title "GELU Lab presentation mode, $size, text ${scale}x" \
  -pointsize 12 -set label "%t" -colors 256 "PNG8:$out"
echo "contact_sheet: wrote $out"
