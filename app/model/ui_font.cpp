// The UI font's character coverage, read from the font file's cmap table (TrueType, formats 4 and 12), and
// the text the atlas holds. No ImGui: `gelulab lessons` checks lessons with it.
//
// Index of this file:
//   [SECTION] The cmap reader
//   [SECTION] Coverage and checks
#include "model/ui_font.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/fileio.hpp"
#include "gelu/zoo.hpp"

namespace gelu::app {
namespace {

// Symbols the UI writes itself (the registry's and the zoo's texts are added on top of these).
constexpr const char* kUiSymbols = "ΦφσπαβμΣΔ√∞≈−′″·²³ˣ⁻⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂±×≤≥∈→←½–—…●○▶◀❚∂∫⟨⟩⊙⌊⌋✓✗";

// [SECTION] The cmap reader

/// Big-endian reads that stay inside the file: out of range reads as 0 and sets `bad`.
struct Bytes {
  const std::vector<unsigned char>& d;
  bool bad = false;
  std::uint32_t u16(std::size_t at) {
    if (at + 2 > d.size()) return bad = true, 0;
    return static_cast<std::uint32_t>(d[at]) << 8 | d[at + 1];
  }
  std::uint32_t u32(std::size_t at) {
    if (at + 4 > d.size()) return bad = true, 0;
    return static_cast<std::uint32_t>(d[at]) << 24 | static_cast<std::uint32_t>(d[at + 1]) << 16 |
           static_cast<std::uint32_t>(d[at + 2]) << 8 | d[at + 3];
  }
};

/// Marks every BMP code point that has a glyph (index != 0) in the font's Unicode cmap subtable. Returns
/// false when the file is not a TrueType/OpenType font with one.
bool read_cmap(const std::vector<unsigned char>& file, std::vector<bool>& has) {
  Bytes b{file};
  const std::uint32_t tables = b.u16(4);
  std::size_t cmap = 0;
  for (std::uint32_t t = 0; t < tables && !b.bad; ++t) {
    const std::size_t rec = 12 + 16 * static_cast<std::size_t>(t);
    if (b.u32(rec) == 0x636D6170u) cmap = b.u32(rec + 8);  // 'cmap'
  }
  if (!cmap || b.bad) return false;
  // The best Unicode subtable: format 12 (full repertoire) over format 4 (BMP).
  std::size_t best = 0;
  std::uint32_t best_format = 0;
  const std::uint32_t subtables = b.u16(cmap + 2);
  for (std::uint32_t i = 0; i < subtables && !b.bad; ++i) {
    const std::size_t rec = cmap + 4 + 8 * static_cast<std::size_t>(i);
    const std::uint32_t platform = b.u16(rec), encoding = b.u16(rec + 2);
    const bool unicode = platform == 0 || (platform == 3 && (encoding == 1 || encoding == 10));
    if (!unicode) continue;
    const std::size_t at = cmap + b.u32(rec + 4);
    const std::uint32_t format = b.u16(at);
    if ((format == 12 || format == 4) && format > best_format) best = at, best_format = format;
  }
  if (!best || b.bad) return false;
  if (best_format == 12) {
    const std::uint32_t groups = b.u32(best + 12);
    for (std::uint32_t g = 0; g < groups && !b.bad; ++g) {
      const std::size_t rec = best + 16 + 12 * static_cast<std::size_t>(g);
      const std::uint32_t lo = b.u32(rec), hi = b.u32(rec + 4), glyph = b.u32(rec + 8);
      for (std::uint32_t c = lo; c <= hi && c <= kUiMaxCodePoint; ++c)
        if (glyph + (c - lo) != 0) has[c] = true;
    }
    return !b.bad;
  }
  const std::uint32_t segs = b.u16(best + 6) / 2;
  const std::size_t ends = best + 14, starts = ends + 2 * segs + 2, deltas = starts + 2 * segs,
                    offsets = deltas + 2 * segs;
  for (std::uint32_t s = 0; s < segs && !b.bad; ++s) {
    const std::uint32_t end = b.u16(ends + 2 * s), start = b.u16(starts + 2 * s),
                        delta = b.u16(deltas + 2 * s), range = b.u16(offsets + 2 * s);
    for (std::uint32_t c = start; c <= end && c <= kUiMaxCodePoint && !b.bad; ++c) {
      std::uint32_t glyph;
      if (range == 0) {
        glyph = (c + delta) & 0xFFFF;
      } else {
        glyph = b.u16(offsets + 2 * s + range + 2 * (c - start));
        if (glyph) glyph = (glyph + delta) & 0xFFFF;
      }
      if (glyph) has[c] = true;
    }
  }
  return !b.bad;
}

// [SECTION] Coverage and checks

struct Coverage {
  std::vector<bool> has = std::vector<bool>(kUiMaxCodePoint + 1, false);
  std::string font;  // what draws: "DejaVu Sans" or ImGui's built-in font
};

/// What the UI font draws: the characters both DejaVu Sans files have (titles are bold), or, without the
/// regular file, ImGui's built-in font (Basic Latin and Latin-1). Read once.
const Coverage& coverage() {
  static const Coverage c = [] {
    Coverage out;
    std::vector<bool> bold(kUiMaxCodePoint + 1, false);
    auto load = [](const char* path, std::vector<bool>& has) {
      std::string text;
      try {
        text = read_file(path, std::size_t{64} << 20);  // the one reader: never blocks
      } catch (const FileError&) {
        return false;
      }
      const std::vector<unsigned char> bytes(text.begin(), text.end());
      return read_cmap(bytes, has);
    };
    if (load(ui_font_regular().c_str(), out.has)) {
      out.font = kUiFontName;
      if (load(ui_font_bold().c_str(), bold))
        for (std::size_t i = 0; i < bold.size(); ++i) out.has[i] = out.has[i] && bold[i];
    } else {
      out.has.assign(out.has.size(), false);
      for (char32_t ch = 0x20; ch <= 0xFF; ++ch) out.has[ch] = ch < 0x7F || ch >= 0xA0;
      out.font = std::string("ImGui's built-in font (") + ui_font_regular() + " is missing)";
    }
    out.has['\n'] = true;  // a line break
    out.has['\t'] = true;  // ImGui draws a tab as the width of 4 spaces
    return out;
  }();
  return c;
}

}  // namespace

namespace {
std::string font_dir() {
  const char* d = std::getenv("GELU_FONT_DIR");
  return d && *d ? std::string(d) : std::string("/usr/share/fonts/truetype/dejavu");
}
}  // namespace

const std::string& ui_font_regular() {
  static const std::string p = font_dir() + "/DejaVuSans.ttf";
  return p;
}
const std::string& ui_font_bold() {
  static const std::string p = font_dir() + "/DejaVuSans-Bold.ttf";
  return p;
}

std::string ui_font_problem() {
  for (const std::string* p : {&ui_font_regular(), &ui_font_bold()}) {
    try {
      (void)read_file(*p, std::size_t{64} << 20);  // the one reader: a regular file, readable
    } catch (const FileError& e) {
      std::string why = std::string("the UI font ") + kUiFontName + " cannot be read: " + e.what();
      why += std::getenv("GELU_FONT_DIR") && *std::getenv("GELU_FONT_DIR")
                 ? " (the directory comes from GELU_FONT_DIR)"
                 : " (apt install fonts-dejavu-core, or set GELU_FONT_DIR to the directory holding it)";
      return why;
    }
  }
  return "";
}

char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return ++i, 0xFFFD;
  char32_t cp = n == 1 ? c : c & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return ++i, 0xFFFD;
    cp = cp << 6 | (b & 0x3F);
  }
  i += n;
  return cp;
}

std::string ui_glyph_text() {
  std::string t = kUiSymbols;
  for (const Activation& a : registry()) {
    t += a.name;
    t += a.formula;
    t += a.description;
    for (const ParamSpec& p : a.params) t += p.description;
  }
  for (const zoo::Entry& e : zoo::entries()) {
    t += e.name;
    t += e.formula;
    t += e.used_in;
  }
  return t;
}

std::string describe_code_point(char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  std::string s = buf;
  const bool printable = c >= 0x20 && c != 0x7F && !(c >= 0x80 && c < 0xA0) && c != 0xFFFD && c <= 0x10FFFF &&
                         !(c >= 0xD800 && c < 0xE000);
  if (!printable) return s;
  std::string ch;
  if (c < 0x80) {
    ch += static_cast<char>(c);
  } else if (c < 0x800) {
    ch += static_cast<char>(0xC0 | (c >> 6));
    ch += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    ch += static_cast<char>(0xE0 | (c >> 12));
    ch += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    ch += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    ch += static_cast<char>(0xF0 | (c >> 18));
    ch += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    ch += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    ch += static_cast<char>(0x80 | (c & 0x3F));
  }
  return s + " '" + ch + "'";
}

std::optional<Undrawable> first_undrawable(std::string_view utf8) {
  const Coverage& cov = coverage();
  for (std::size_t i = 0; i < utf8.size();) {
    const std::size_t at = i;
    const char32_t c = next_code_point(utf8, i);
    if (c == 0xFFFD && utf8.substr(at, 3) != "\xEF\xBF\xBD")
      return Undrawable{c, at, "the bytes there are not UTF-8"};
    if (c > kUiMaxCodePoint)
      return Undrawable{c, at, "the UI draws only the Basic Multilingual Plane (up to U+FFFF)"};
    if (!cov.has[c]) return Undrawable{c, at, cov.font + " has no glyph for it; the app would show '?'"};
  }
  return std::nullopt;
}

}  // namespace gelu::app
