// Number text I/O shared by the CLI, the GUI and the file loaders.
// Parsing accepts decimal, hex floats (0x1.8p-3), nan, inf, -inf (any case, optional sign).
// Formatting writes the shortest text that round-trips for the given type.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gelu/format.hpp"

namespace gelu {

std::optional<double> parse_f64(std::string_view token);
std::optional<float> parse_f32(std::string_view token);
/// Shortest round-trip text; "nan", "inf", "-inf" for the special values.
std::string format_f64(double v);
std::string format_f32(float v);

/// Appends the shortest round-trip text to out (no allocation when out has capacity).
void append_f64(std::string& out, double v);
void append_f32(std::string& out, float v);

/// The value of `f` that the text reads to: the decimal (or hex) number rounded once, directly to the format,
/// to nearest with ties to even (no double rounding through double: a decimal just above a midpoint of the
/// format rounds up even when its nearest double is the midpoint). nan/inf as for parse_f64, then f.round
/// (e4m3 and int8 saturate; int8 keeps NaN as "not a value"). nullopt when the text is not a number.
std::optional<double> parse_in_format(std::string_view token, const Format& f);
/// The shortest decimal text that parse_in_format reads back to the value of `f` nearest v (v is rounded to f
/// first): f64 and f32 as format_f64/format_f32, "nan", "inf", "-inf", "-0" where the format has them.
std::string format_in(double v, const Format& f);

/// User text (a token, a file name, a JSON key) made safe for a one-line message: printable ASCII and
/// valid UTF-8 are kept, every other byte (NUL, control characters, broken UTF-8) is written as \xNN, and
/// text longer than max_chars characters is cut there with "…" and its length in bytes appended, so a
/// megabyte-long token or binary garbage cannot flood or corrupt the terminal. Characters a person cannot
/// see or cannot tell from a space (the byte order mark U+FEFF, no-break and other Unicode spaces,
/// zero-width characters, bidirectional controls, C1 controls) are written as \u{XXXX} and named after
/// the text: "\u{FEFF}1 (U+FEFF byte order mark)". So are characters that look like the ASCII a number,
/// an option or a range is typed with (the minus sign U+2212 the app draws, dashes, fullwidth digits and
/// signs, a Cyrillic e), named with what to type: "\u{2212}1 (U+2212 minus sign: use '-')".
std::string printable(std::string_view text, std::size_t max_chars = 40);
/// printable(text) in single quotes: 'text', 'tex…' (1048576 bytes), '\u{00A0}2' (U+00A0 no-break space).
std::string quote(std::string_view text, std::size_t max_chars = 40);

}  // namespace gelu
