#include "cli/json_writer.hpp"

#include <cmath>
#include <cstdio>

#include "gelu/numio.hpp"

namespace gelu::cli {

void JsonWriter::separator() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.back()) out_ += ',';
  first_.back() = false;
}
JsonWriter& JsonWriter::open(char c) {
  separator();
  out_ += c;
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::close(char c) {
  first_.pop_back();
  out_ += c;
  return *this;
}
void JsonWriter::escaped(std::string_view s) {
  out_ += '"';
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out_ += '\\';
      out_ += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out_ += buf;
    } else {
      out_ += ch;
    }
  }
  out_ += '"';
}
JsonWriter& JsonWriter::key(std::string_view k) {
  separator();
  escaped(k);
  out_ += ':';
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view s) {
  separator();
  escaped(s);
  return *this;
}
JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) return null();
  separator();
  append_f64(out_, v);
  return *this;
}
JsonWriter& JsonWriter::value(std::int64_t v) {
  separator();
  out_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::value(bool b) {
  separator();
  out_ += b ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::null() {
  separator();
  out_ += "null";
  return *this;
}

}  // namespace gelu::cli
