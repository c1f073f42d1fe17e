// [SECTION] A small JSON document model, parser and writer (no third-party dependency).
//
// The parser accepts RFC 8259 JSON only (no comments, no trailing commas, no NaN literals) and never
// crashes on hostile input: every failure is a JsonError carrying the byte offset, line and column.
// Nesting deeper than kMaxDepth is rejected instead of recursing without bound.
#pragma once

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gelu::json {

inline constexpr int kMaxDepth = 128;

/// A parse or schema error; where() is "line L, column C" (1-based) when the position is known.
class JsonError : public std::runtime_error {
 public:
  JsonError(const std::string& message, std::size_t offset, int line, int column);
  explicit JsonError(const std::string& message) : std::runtime_error(message) {}
  std::size_t offset() const { return offset_; }
  int line() const { return line_; }      // 0 when not a parse error
  int column() const { return column_; }  // 0 when not a parse error

 private:
  std::size_t offset_ = 0;
  int line_ = 0, column_ = 0;
};

class Value;
using Array = std::vector<Value>;
using Object = std::map<std::string, Value, std::less<>>;

/// A JSON value. Numbers are doubles (model files store float/double parameters in shortest round-trip text).
class Value {
 public:
  Value() = default;  // null
  Value(std::nullptr_t) {}
  Value(bool b) : v_(b) {}
  Value(double d) : v_(d) {}
  Value(int i) : v_(static_cast<double>(i)) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(Array a) : v_(std::move(a)) {}
  Value(Object o) : v_(std::move(o)) {}

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_number() const { return std::holds_alternative<double>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_array() const { return std::holds_alternative<Array>(v_); }
  bool is_object() const { return std::holds_alternative<Object>(v_); }
  const char* type_name() const;

  // Checked accessors: throw JsonError("expected a number, got a string") and so on.
  bool as_bool() const;
  double as_number() const;
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& as_object() const;
  Array& as_array();
  Object& as_object();

  /// Object member or nullptr (also nullptr when this is not an object).
  const Value* find(std::string_view key) const;
  /// Object member; throws JsonError("missing key 'key'") when absent.
  const Value& at(std::string_view key) const;

 private:
  std::variant<std::monostate, bool, double, std::string, Array, Object> v_;
};

/// Parses a complete document (whitespace around it allowed, nothing else after it).
Value parse(std::string_view text);

/// What write() does with a NaN or an infinity, which JSON cannot spell. The policy of the project:
/// files the app reads back (sessions, lessons, model files) never hold one, so their writer refuses it
/// (Refuse, the default); reports and metadata (gui --report, shot --meta) record what happened, a diverged
/// network included, so they write it as null and say so (NullWithNote).
enum class NonFinite {
  /// JsonError naming the key: "cannot write nan to JSON at 'panels.ffn.lr' (JSON has no number for it)".
  Refuse,
  /// null in its place; a root object gains the member "non_finite": {"PATH": "nan"|"inf"|"-inf", …}
  /// listing every replaced number by its path (e.g. "panels.ffn.nets[0].loss"), so null is never
  /// mistaken for a missing value.
  NullWithNote,
};
/// The member a NullWithNote document gains at its root (reserved: a root member of that name is an error).
inline constexpr const char* kNonFiniteKey = "non_finite";

/// Compact text; `indent` > 0 pretty-prints objects (arrays of numbers stay on one line). Non-finite
/// numbers as `non_finite` says.
std::string write(const Value& v, int indent = 0, NonFinite non_finite = NonFinite::Refuse);

}  // namespace gelu::json
