// The UI's font, without ImGui: which file it is, which characters the app writes itself, and whether the
// font can draw a given text. The GUI builds its atlas from these (gui/shell/app.cpp); the lesson check
// (model/lessons.cpp, `gelulab lessons`) refuses text with a character the font has no glyph for, which the
// app would show as '?'.
//
// The atlas holds Basic Latin and Latin-1, ui_glyph_text() (the UI's own symbols, the registry's and the
// zoo's texts) and the text of every lesson the app opens; a lesson's characters are added when it opens.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gelu::app {

/// The UI font files: DejaVu Sans from Debian's fonts-dejavu-core, in $GELU_FONT_DIR instead when that is
/// set (a system that keeps them elsewhere; the tests' missing-font case).
const std::string& ui_font_regular();
const std::string& ui_font_bold();
/// Why the app cannot draw its text, naming the missing file ("the UI font
/// /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf is missing: … (apt install fonts-dejavu-core)"), or ""
/// when both files are there. shot and gui refuse to start without them rather than draw '?' for '−' and
/// '4'.
std::string ui_font_problem();
/// The UI's font as a person names it (messages).
inline constexpr const char* kUiFontName = "DejaVu Sans";
/// ImGui 1.86 as Debian packages it stores characters in 16 bits (ImWchar): nothing beyond the Basic
/// Multilingual Plane can be drawn (gui/shell/app.cpp asserts the width).
inline constexpr char32_t kUiMaxCodePoint = 0xFFFF;

/// Symbols the UI writes itself, then every registry function's and zoo entry's name, formula and
/// description: the characters the atlas holds beyond Latin-1 before any lesson opens.
std::string ui_glyph_text();

/// A character the UI cannot draw, and where in the text it is.
struct Undrawable {
  char32_t code_point = 0;
  std::size_t byte_offset = 0;
  std::string why;  // "DejaVu Sans has no glyph for it", "beyond the Basic Multilingual Plane", …
};
/// The first character of `utf8` that the UI font cannot draw (control characters other than '\n' and '\t'
/// count as undrawable), or nothing. Bytes that are not UTF-8 are reported as U+FFFD. Without the font file
/// the app falls back to ImGui's built-in font, which draws Basic Latin and Latin-1 only; this answers for
/// that.
std::optional<Undrawable> first_undrawable(std::string_view utf8);
/// "U+2299 '⊙'" (the character itself only when it is printable).
std::string describe_code_point(char32_t c);

/// Decodes the next UTF-8 character at `i` (advancing it); U+FFFD for a malformed sequence (one byte).
char32_t next_code_point(std::string_view s, std::size_t& i);

}  // namespace gelu::app
