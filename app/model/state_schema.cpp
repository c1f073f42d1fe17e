// Readers shared by the panel-state field tables (see state_schema.hpp).
#include "model/state_schema.hpp"

#include <cmath>

namespace gelu::app::model {

std::string quoted_key(std::string_view key) {
  std::string s = "'";  // built with += (GCC 12's -Wrestrict misfires on "'" + std::string(...))
  s += printable(key, 80);
  s += "'";
  return s;
}

plot::Range read_range_value(const json::Value& v, std::string_view key) {
  const std::string msg = quoted_key(key) + " must be [min, max] with finite min < max";
  if (!v.is_array() || v.as_array().size() != 2 || !v.as_array()[0].is_number() ||
      !v.as_array()[1].is_number())
    throw json::JsonError(msg);
  const plot::Range r{v.as_array()[0].as_number(), v.as_array()[1].as_number()};
  if (!r.valid()) throw json::JsonError(msg);
  return r;
}

double read_number_value(const json::Value& v, std::string_view key, double min, double max) {
  if (!v.is_number() || !(v.as_number() >= min && v.as_number() <= max)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " must be a number in [%g, %g]", min, max);
    throw json::JsonError(quoted_key(key) + buf);
  }
  return v.as_number();
}

bool read_bool_value(const json::Value& v, std::string_view key) {
  if (!v.is_bool()) throw json::JsonError(quoted_key(key) + " must be true or false");
  return v.as_bool();
}

const std::string& read_string_value(const json::Value& v, std::string_view key) {
  if (!v.is_string()) throw json::JsonError(quoted_key(key) + " must be a string");
  return v.as_string();
}

std::string choices_text(const std::vector<std::string>& choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i) out += i + 1 == choices.size() ? " or " : ", ";
    out += "\"" + choices[i] + "\"";
  }
  return out;
}

const std::string& read_choice_value(const json::Value& v, std::string_view key,
                                     const std::vector<std::string>& choices) {
  const std::string msg = quoted_key(key) + " must be " + choices_text(choices);
  if (!v.is_string()) throw json::JsonError(msg);
  for (const std::string& c : choices)
    if (v.as_string() == c) return c;
  throw json::JsonError(msg);
}

json::Value range_json(const plot::Range& r) {
  return json::Array{r.min, r.max};
}

}  // namespace gelu::app::model
