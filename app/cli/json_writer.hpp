// A small streaming JSON writer for CLI output (numbers in shortest round-trip form, non-finite as null).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gelu::cli {

class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double v);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(std::size_t v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  const std::string& str() const { return out_; }

 private:
  JsonWriter& open(char c);
  JsonWriter& close(char c);
  void separator();
  void escaped(std::string_view s);
  std::string out_;
  std::vector<bool> first_{true};
  bool after_key_ = false;
};

}  // namespace gelu::cli
