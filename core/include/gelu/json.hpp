// [SECTION] A small JSON document model, parser and writer (no third-party dependency).
//
// The parser accepts RFC 8259 JSON only (no comments, no trailing commas, no NaN literals) and never
// crashes on hostile input: every failure is a JsonError carrying the byte offset, line and column.
// Nesting deeper than kMaxDepth is rejected instead of recursing without bound.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
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

/// A JSON object that keeps its members in the order they were inserted (parsed files, reports and written
/// files read in the order their authors wrote them) with a sorted index for lookups: find, at and
/// operator[] are O(log n) and parsing an object with many members stays O(n log n). The interface is the
/// part of std::map that the project uses; iteration yields std::pair<std::string, Value> in insertion order.
class Object {
 public:
  using value_type = std::pair<std::string, Value>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  Object() = default;
  Object(std::initializer_list<value_type> members);

  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;
  std::size_t size() const;
  bool empty() const;

  iterator find(std::string_view key);
  const_iterator find(std::string_view key) const;
  std::size_t count(std::string_view key) const;
  bool contains(std::string_view key) const { return count(key) != 0; }
  /// The member, inserted as null at the end when absent.
  Value& operator[](std::string_view key);
  Value& at(std::string_view key);
  const Value& at(std::string_view key) const;
  /// Inserts at the end unless the key exists: (the member, whether it was inserted), as std::map does.
  std::pair<iterator, bool> emplace(std::string key, Value v);
  /// Removes a member (later members keep their order); 1 when it was there.
  std::size_t erase(std::string_view key);

 private:
  std::vector<value_type> items_;
  std::map<std::string, std::size_t, std::less<>> index_;  // key -> position in items_
};

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

inline Object::iterator Object::begin() {
  return items_.begin();
}
inline Object::iterator Object::end() {
  return items_.end();
}
inline Object::const_iterator Object::begin() const {
  return items_.begin();
}
inline Object::const_iterator Object::end() const {
  return items_.end();
}
inline std::size_t Object::size() const {
  return items_.size();
}
inline bool Object::empty() const {
  return items_.empty();
}
inline std::size_t Object::count(std::string_view key) const {
  return index_.find(key) == index_.end() ? 0 : 1;
}

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
/// numbers as `non_finite` says. What every document written is, whoever reads it:
///   - a number with an integer value up to 2^53 in magnitude (every count, size, step, seed) is written as
///     an integer, 10000000 and never 1e+07; other numbers in shortest round-trip form (0.1, 1e+300);
///   - strings are valid UTF-8: valid sequences are copied, control characters escaped (\n, \u0001), and
///     every byte that is not part of valid UTF-8 (a Latin-1 file name, a cut sequence, an overlong form,
///     a surrogate) is replaced by U+FFFD, written as the escape \ufffd so the replacement stays visible.
std::string write(const Value& v, int indent = 0, NonFinite non_finite = NonFinite::Refuse);

/// A document built in the order it is written out, for command output: begin_object().key("a").value(1)
/// … end_object(). It builds a Value and str() writes it with write() — there is no second writer. Output
/// of measurements may hold infinities (an error that is infinite, a diverged loss), so str() writes them as
/// null with the root note (NonFinite::NullWithNote).
class Builder {
 public:
  Builder& begin_object() { return open(Value(Object{})); }
  Builder& begin_array() { return open(Value(Array{})); }
  Builder& end_object() { return close(); }
  Builder& end_array() { return close(); }
  Builder& key(std::string_view k);
  Builder& value(Value v);
  Builder& value(std::string_view s) { return value(Value(std::string(s))); }
  Builder& value(const std::string& s) { return value(Value(s)); }
  Builder& value(const char* s) { return value(Value(std::string(s))); }
  Builder& value(double d) { return value(Value(d)); }
  Builder& value(long long i) { return value(Value(static_cast<double>(i))); }
  Builder& value(long i) { return value(Value(static_cast<double>(i))); }
  Builder& value(int i) { return value(Value(static_cast<double>(i))); }
  Builder& value(unsigned long n) { return value(Value(static_cast<double>(n))); }
  Builder& value(unsigned long long n) { return value(Value(static_cast<double>(n))); }
  Builder& value(unsigned n) { return value(Value(static_cast<double>(n))); }
  Builder& value(bool b) { return value(Value(b)); }
  Builder& null() { return value(Value()); }
  /// The finished document (every object and array closed).
  const Value& document() const { return root_; }
  std::string str(int indent = 0) const { return write(root_, indent, NonFinite::NullWithNote); }

 private:
  Builder& open(Value container);
  Builder& close();
  struct Open {
    Value v;
    std::string key;  // the key it goes under in its parent (objects)
  };
  std::vector<Open> stack_;
  std::string pending_key_;
  bool has_key_ = false;
  Value root_;
};

}  // namespace gelu::json
