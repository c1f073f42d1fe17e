// Index of this file:
//   [SECTION] Value accessors
//   [SECTION] Parser
//   [SECTION] Writer
//   [SECTION] Builder
#include "gelu/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "float_chars.hpp"
#include "gelu/numio.hpp"

namespace gelu::json {

JsonError::JsonError(const std::string& message, std::size_t offset, int line, int column)
    : std::runtime_error(message + " at line " + std::to_string(line) + ", column " + std::to_string(column)),
      offset_(offset),
      line_(line),
      column_(column) {}

// [SECTION] Value accessors

const char* Value::type_name() const {
  static constexpr const char* names[] = {"null", "boolean", "number", "string", "array", "object"};
  return names[v_.index()];
}

namespace {
[[noreturn]] void type_error(const char* want, const Value& v) {
  throw JsonError(std::string("expected ") + want + ", got " +
                  (v.is_null()
                       ? "null"
                       : std::string("a") + (v.is_array() || v.is_object() ? "n " : " ") + v.type_name()));
}
}  // namespace

bool Value::as_bool() const {
  if (!is_bool()) type_error("a boolean", *this);
  return std::get<bool>(v_);
}
double Value::as_number() const {
  if (!is_number()) type_error("a number", *this);
  return std::get<double>(v_);
}
const std::string& Value::as_string() const {
  if (!is_string()) type_error("a string", *this);
  return std::get<std::string>(v_);
}
const Array& Value::as_array() const {
  if (!is_array()) type_error("an array", *this);
  return std::get<Array>(v_);
}
Object::Object(std::initializer_list<value_type> members) {
  for (const value_type& m : members) (*this)[m.first] = m.second;  // a repeated key: the last one wins
}
Object::iterator Object::find(std::string_view key) {
  auto it = index_.find(key);
  return it == index_.end() ? items_.end() : items_.begin() + static_cast<std::ptrdiff_t>(it->second);
}
Object::const_iterator Object::find(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? items_.end() : items_.begin() + static_cast<std::ptrdiff_t>(it->second);
}
Value& Object::operator[](std::string_view key) {
  return emplace(std::string(key), Value()).first->second;
}
Value& Object::at(std::string_view key) {
  auto it = find(key);
  if (it == end()) throw JsonError("missing key '" + std::string(key) + "'");
  return it->second;
}
const Value& Object::at(std::string_view key) const {
  auto it = find(key);
  if (it == end()) throw JsonError("missing key '" + std::string(key) + "'");
  return it->second;
}
std::pair<Object::iterator, bool> Object::emplace(std::string key, Value v) {
  auto it = index_.find(key);
  if (it != index_.end()) return {items_.begin() + static_cast<std::ptrdiff_t>(it->second), false};
  index_.emplace(key, items_.size());
  items_.emplace_back(std::move(key), std::move(v));
  return {items_.end() - 1, true};
}
std::size_t Object::erase(std::string_view key) {
  auto it = index_.find(key);
  if (it == index_.end()) return 0;
  const std::size_t at = it->second;
  index_.erase(it);
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(at));
  for (auto& [k, i] : index_)
    if (i > at) --i;
  return 1;
}

const Object& Value::as_object() const {
  if (!is_object()) type_error("an object", *this);
  return std::get<Object>(v_);
}
Array& Value::as_array() {
  if (!is_array()) type_error("an array", *this);
  return std::get<Array>(v_);
}
Object& Value::as_object() {
  if (!is_object()) type_error("an object", *this);
  return std::get<Object>(v_);
}
const Value* Value::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  const Object& o = std::get<Object>(v_);
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->second;
}
const Value& Value::at(std::string_view key) const {
  const Value* v = find(key);
  if (!v) {
    if (!is_object()) type_error("an object", *this);
    throw JsonError("missing key '" + std::string(key) + "'");
  }
  return *v;
}

// [SECTION] Parser

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Value document() {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF")
      fail("a UTF-8 byte order mark (BOM) starts the text; save it without one");
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const { fail_at(what, pos_); }
  [[noreturn]] void fail_at(const std::string& what, std::size_t at) const {
    int line = 1, col = 1;
    for (std::size_t i = 0; i < at && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else if ((static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80) {
        ++col;  // count characters, not UTF-8 continuation bytes
      }
    }
    throw JsonError(what, at, line, col);
  }
  bool eof() const { return pos_ >= s_.size(); }
  char peek() const { return eof() ? '\0' : s_[pos_]; }
  void skip_ws() {
    while (!eof() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  void expect(char c) {
    if (eof()) fail(std::string("unexpected end of input, expected '") + c + "'");
    if (s_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    if (eof()) fail("unexpected end of input, expected a value");
    switch (peek()) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"':
        return Value(string());
      case 't':
        return literal("true", Value(true));
      case 'f':
        return literal("false", Value(false));
      case 'n':
        return literal("null", Value());
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return Value(number());
        fail("unexpected character '" + printable(peek()) + "', expected a value");
    }
  }

  static std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) return std::string(1, c);
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", u);
    return buf;
  }

  Value literal(std::string_view word, Value v) {
    if (s_.substr(pos_, word.size()) != word) fail("invalid literal, expected '" + std::string(word) + "'");
    pos_ += word.size();
    return v;
  }

  Value object(int depth) {
    expect('{');
    Object o;
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return Value(std::move(o));
    }
    for (;;) {
      skip_ws();
      if (eof()) fail("unexpected end of input inside an object");
      if (peek() != '"') fail("expected a string key");
      const std::size_t key_pos = pos_;
      std::string k = string();
      skip_ws();
      expect(':');
      skip_ws();
      Value v = value(depth + 1);
      if (!o.emplace(std::move(k), std::move(v)).second) fail_at("duplicate key", key_pos);
      skip_ws();
      if (eof()) fail("unexpected end of input inside an object");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return Value(std::move(o));
      }
      fail("expected ',' or '}'");
    }
  }

  Value array(int depth) {
    expect('[');
    Array a;
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return Value(std::move(a));
    }
    for (;;) {
      skip_ws();
      a.push_back(value(depth + 1));
      skip_ws();
      if (eof()) fail("unexpected end of input inside an array");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return Value(std::move(a));
      }
      fail("expected ',' or ']'");
    }
  }

  unsigned hex4() {
    if (s_.size() - pos_ < 4) fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<unsigned>(c - 'A' + 10);
      else
        fail("invalid hex digit in \\u escape");
    }
    return v;
  }

  static void put_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    const std::size_t start = pos_;
    expect('"');
    std::string out;
    for (;;) {
      if (eof()) fail_at("unterminated string", start);
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (eof()) fail_at("unterminated string", start);
      const char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (s_.substr(pos_, 2) != "\\u") fail("unpaired surrogate in \\u escape");
            pos_ += 2;
            const std::uint32_t lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) fail("invalid low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            fail("unpaired surrogate in \\u escape");
          }
          put_utf8(out, cp);
          break;
        }
        default:
          fail_at("invalid escape '\\" + printable(e) + "'", pos_ - 2);
      }
    }
  }

  double number() {
    const std::size_t start = pos_;
    auto digits = [&] {
      const std::size_t d0 = pos_;
      while (!eof() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - d0;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail("invalid number");
    }
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0) fail("invalid number: digits expected after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) fail("invalid number: digits expected in the exponent");
    }
    double v = 0;
    auto [ptr, ec] = detail::float_from_chars(s_.data() + start, s_.data() + pos_, v);
    if (ec == std::errc::result_out_of_range) {
      // Overflow is an error (no JSON infinity); underflow rounds to zero like every JSON reader.
      const auto tiny = parse_f64(s_.substr(start, pos_ - start));
      if (!tiny || !std::isfinite(*tiny)) fail_at("number out of range", start);
      return *tiny;
    }
    if (ec != std::errc() || ptr != s_.data() + pos_) fail_at("invalid number", start);
    return v;
  }
};

// [SECTION] Writer

/// Integers up to 2^53 are exact in a double and written as integers; larger ones as shortest round-trip.
constexpr double kMaxExactInteger = 9007199254740992.0;

/// The length of the valid UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms, no surrogates,
/// nothing above U+10FFFF), or 0 when the byte there does not start one.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // U+D800..U+DFFF are surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((b(k) & 0xC0) != 0x80) return 0;
  return n;
}

void write_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // Valid UTF-8 is copied; every byte that is not part of it becomes U+FFFD, written as the escape
      // \ufffd so that the replacement is visible in the text (the document stays UTF-8 for every reader).
      // A U+FFFD already in the string is written the same way, so that writing what was read back gives
      // the same text.
      const std::size_t n = utf8_sequence(s, i);
      if (n == 0 || s.substr(i, n) == "\xEF\xBF\xBD") {
        if (n != 0) i += n - 1;
        out += "\\ufffd";
      } else {
        out.append(s.substr(i, n));
        i += n - 1;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

bool is_flat(const Array& a) {
  for (const Value& v : a)
    if (v.is_array() || v.is_object()) return false;
  return true;
}

// Where the writer is in the document (for the key of a non-finite number) and what it replaced.
struct WriteContext {
  NonFinite policy;
  std::string path;                                        // "panels.ffn.nets[0].loss"
  std::vector<std::pair<std::string, std::string>> notes;  // path -> "nan" | "inf" | "-inf"
};

void write_value(std::string& out, const Value& v, int indent, int level, WriteContext& ctx) {
  auto newline = [&](int lvl) {
    if (indent <= 0) return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent * lvl), ' ');
  };
  if (v.is_null()) {
    out += "null";
  } else if (v.is_bool()) {
    out += v.as_bool() ? "true" : "false";
  } else if (v.is_number()) {
    const double d = v.as_number();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) <= kMaxExactInteger) {
      // An integer (a count, a size, a step) is written as one: 10000000, never 1e+07, which typed readers
      // refuse for an integer field. (-0 keeps its sign.)
      char buf[32];
      const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(d));
      if (d == 0 && std::signbit(d)) out += '-';
      out.append(buf, ptr);
    } else if (std::isfinite(d)) {
      append_f64(out, d);
    } else {
      const std::string spelled = format_f64(d);
      const std::string where = ctx.path.empty() ? std::string("the top level") : "'" + ctx.path + "'";
      if (ctx.policy == NonFinite::Refuse)
        throw JsonError("cannot write " + spelled + " to JSON at " + where + " (JSON has no number for it)");
      ctx.notes.emplace_back(ctx.path, spelled);
      out += "null";
    }
  } else if (v.is_string()) {
    write_string(out, v.as_string());
  } else if (v.is_array()) {
    const Array& a = v.as_array();
    const bool flat = is_flat(a);
    const std::size_t mark = ctx.path.size();
    out += '[';
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (i) out += indent > 0 && flat ? ", " : ",";
      if (!flat) newline(level + 1);
      ctx.path.append("[").append(std::to_string(i)).append("]");
      write_value(out, a[i], indent, level + 1, ctx);
      ctx.path.resize(mark);
    }
    if (!flat && !a.empty()) newline(level);
    out += ']';
  } else {
    const Object& o = v.as_object();
    const std::size_t mark = ctx.path.size();
    out += '{';
    bool first = true;
    for (const auto& [k, m] : o) {
      if (level == 0 && ctx.policy == NonFinite::NullWithNote && k == kNonFiniteKey)
        throw JsonError(std::string("the root member '") + kNonFiniteKey +
                        "' is reserved for the non-finite note");
      if (!first) out += ',';
      first = false;
      newline(level + 1);
      write_string(out, k);
      out += indent > 0 ? ": " : ":";
      if (mark) ctx.path += '.';
      ctx.path += printable(k, 80);
      write_value(out, m, indent, level + 1, ctx);
      ctx.path.resize(mark);
    }
    if (level == 0 && !ctx.notes.empty()) {
      Object note;
      for (const auto& [where, spelled] : ctx.notes) note[where] = spelled;
      if (!first) out += ',';
      newline(level + 1);
      write_string(out, kNonFiniteKey);
      out += indent > 0 ? ": " : ":";
      WriteContext plain{NonFinite::Refuse, {}, {}};
      write_value(out, Value(std::move(note)), indent, level + 1, plain);
      first = false;
    }
    if (!first) newline(level);
    out += '}';
  }
}

}  // namespace

Value parse(std::string_view text) {
  return Parser(text).document();
}

std::string write(const Value& v, int indent, NonFinite non_finite) {
  std::string out;
  WriteContext ctx{non_finite, {}, {}};
  write_value(out, v, indent, 0, ctx);
  return out;
}

// [SECTION] Builder

Builder& Builder::key(std::string_view k) {
  pending_key_ = std::string(k);
  has_key_ = true;
  return *this;
}

Builder& Builder::value(Value v) {
  if (stack_.empty()) {
    root_ = std::move(v);
    return *this;
  }
  Value& top = stack_.back().v;
  if (top.is_object()) {
    if (!has_key_) throw JsonError("json::Builder: a value in an object needs a key first");
    top.as_object()[pending_key_] = std::move(v);
    has_key_ = false;
  } else {
    top.as_array().push_back(std::move(v));
  }
  return *this;
}

Builder& Builder::open(Value container) {
  std::string k;
  if (!stack_.empty() && stack_.back().v.is_object()) {
    if (!has_key_) throw JsonError("json::Builder: a value in an object needs a key first");
    k = std::move(pending_key_);
    has_key_ = false;
  }
  stack_.push_back({std::move(container), std::move(k)});
  return *this;
}

Builder& Builder::close() {
  if (stack_.empty()) throw JsonError("json::Builder: nothing to close");
  Open done = std::move(stack_.back());
  stack_.pop_back();
  if (!stack_.empty() && stack_.back().v.is_object()) {
    pending_key_ = std::move(done.key);
    has_key_ = true;
  }
  return value(std::move(done.v));
}

}  // namespace gelu::json
