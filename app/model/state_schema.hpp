// A panel's state as one field table: each field's JSON key, the values it takes, a sentence of help, and
// how it is read from and written to JSON. Reading (`gelulab shot --state`, lessons, sessions), writing
// (sessions, `shot --session-out`, "save view as lesson step"), key checking (typos are errors) and the help
// text of `gelulab shot --help` all come from the table, so a field is declared once. No ImGui: lesson and
// session files are validated headless through the same tables. Each field can also draw a random valid value
// (Field::sample): property tests and fuzzers generate panel states from the tables, so a new field is
// exercised the day it is added.
//
// Messages name the key in quotes, as users see them after "--state FILE: ":
//   'x' must be [min, max] with finite min < max        'samples' must be a number in [1, 100000]
//   'log' must be true or false                          'metric' must be "abs", "rel" or "ulp"
//   unknown key 'funtions' (known: x, y, functions, …)   the panel state must be a JSON object
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "plot/plot_core.hpp"

namespace gelu::app::model {

// [SECTION] Readers shared by the builders and the custom fields (throw json::JsonError).
std::string quoted_key(std::string_view key);  // 'key', escaped like every user text in messages
plot::Range read_range_value(const json::Value& v, std::string_view key);
double read_number_value(const json::Value& v, std::string_view key, double min, double max);
bool read_bool_value(const json::Value& v, std::string_view key);
const std::string& read_string_value(const json::Value& v, std::string_view key);
/// One of `choices`; the message lists them: 'metric' must be "abs", "rel" or "ulp".
const std::string& read_choice_value(const json::Value& v, std::string_view key,
                                     const std::vector<std::string>& choices);
std::string choices_text(const std::vector<std::string>& choices);  // "abs", "rel" or "ulp"
json::Value range_json(const plot::Range& r);

// [SECTION] Random valid values, for property tests and fuzzers
/// A small seeded generator (splitmix64): the same seed draws the same states on every machine and compiler
/// (no std:: distributions, whose results differ between standard libraries).
class SampleRng {
 public:
  explicit SampleRng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next();
  std::uint64_t below(std::uint64_t n);  // [0, n); 0 when n is 0
  bool chance(double p);                 // true with probability p
  double uniform(double lo, double hi);  // [lo, hi)
  /// A number in [lo, hi]: often an edge (lo, hi, their neighbours, 0 and -0 when inside), else uniform or
  /// spread over the binades of the range (so 1e-300 and 1e300 turn up as well as 0.5).
  double number(double lo, double hi);
  /// An integer in [lo, hi] (both within 2^53): the edges often, else uniform or spread over the decades.
  double integer(double lo, double hi);
  /// A valid plot range (finite min < max): ordinary ones, one ULP wide, and ones spanning ±1e300.
  plot::Range range();
  /// A string from `alphabet`'s UTF-8 characters (ASCII letters when empty), `min_len` to `max_len` of them.
  std::string text(std::size_t min_len, std::size_t max_len, std::string_view alphabet = {});
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(below(v.size()))];
  }

 private:
  std::uint64_t s_;
};

// [SECTION] Fields and schemas
template <class S>
struct Field {
  std::string key;
  std::string type;  // what values it takes, for help texts: "[min, max]", "number in [1, 100000]", …
  std::string help;  // one sentence
  std::function<void(const json::Value&, S&)> read;
  std::function<json::Value(const S&)> write;
  /// A random value that `read` accepts, given the keys drawn so far for the same state (in table order:
  /// a field whose range depends on an earlier one looks it up). The builders make it; a custom field must
  /// give one (tests/app/panel_list_test.cpp fails naming a field without).
  std::function<json::Value(SampleRng&, const json::Object& drawn)> sample = {};
};

template <class S>
class Schema {
 public:
  Schema(std::string what, std::vector<Field<S>> fields)
      : what_(std::move(what)), fields_(std::move(fields)) {}

  /// Applies the keys present in `state` to `s`, in the table's order (absent keys leave `s` alone); throws
  /// json::JsonError for a non-object, an unknown key or a bad value. All or nothing: `s` is changed only
  /// when every key is good.
  void read(const json::Value& state, S& s) const {
    if (!state.is_object()) throw json::JsonError("the " + what_ + " must be a JSON object");
    for (const auto& [k, v] : state.as_object()) {
      bool known = false;
      for (const Field<S>& f : fields_) known = known || k == f.key;
      if (!known) throw json::JsonError("unknown key " + quote(k) + " (known: " + keys_text() + ")");
    }
    S next = s;
    for (const Field<S>& f : fields_)
      if (const json::Value* v = state.find(f.key)) read_field(f, *v, next);
    s = std::move(next);
  }
  /// Every field of `s`.
  json::Value write(const S& s) const {
    json::Object o;
    for (const Field<S>& f : fields_) o[f.key] = f.write(s);
    return o;
  }
  /// The keys, their values and help, and the default of each (from a default-constructed S).
  std::string help(const S& defaults = S{}) const {
    std::size_t w = 0;
    for (const Field<S>& f : fields_) w = std::max(w, f.key.size());
    std::string out;
    for (const Field<S>& f : fields_) {
      out += "    " + f.key + std::string(w + 2 - f.key.size(), ' ') + f.type + ": " + f.help;
      const std::string d = json::write(f.write(defaults));
      out += d.size() <= 40 ? " (default " + d + ")\n" : "\n";
    }
    return out;
  }
  /// A random valid state: each field present with probability `p_present` (absent keys are the reader's
  /// "leave it alone" case), its value from the field's sampler. std::logic_error names a field without one.
  json::Value sample(SampleRng& rng, double p_present = 0.75) const {
    json::Object o;
    for (const Field<S>& f : fields_) {
      if (!f.sample) throw std::logic_error("the field '" + f.key + "' has no sampler (Field::sample)");
      if (!rng.chance(p_present)) continue;
      json::Value v = f.sample(rng, o);  // sees only the keys before it
      o[f.key] = std::move(v);
    }
    return o;
  }
  /// `state` read into `from` and written back: what a panel holding `from` writes after reading it.
  json::Value normalized(const json::Value& state, S from = S{}) const {
    read(state, from);
    return write(from);
  }
  /// One field read; a message that does not start with the field's key gets it in front ("'a': 'glu' must
  /// be ..."), so every refusal names the field it came from (reliability class 5).
  static void read_field(const Field<S>& f, const json::Value& v, S& s) {
    try {
      f.read(v, s);
    } catch (const json::JsonError& e) {
      const std::string_view m = e.what();
      const std::string q = "'" + f.key;
      if (m.rfind(q, 0) == 0 && m.size() > q.size() && (m[q.size()] == '\'' || m[q.size()] == '[')) throw;
      throw json::JsonError(quoted_key(f.key) + ": " + std::string(m));
    }
  }
  std::string keys_text() const {
    std::string list;
    for (const Field<S>& f : fields_) list += (list.empty() ? "" : ", ") + f.key;
    return list;
  }
  const std::vector<Field<S>>& fields() const { return fields_; }

 private:
  std::string what_;
  std::vector<Field<S>> fields_;
};

// [SECTION] Builders for the common kinds of field. `ref` names the value in S: a data member pointer
// (&S::lr) or a generic lambda returning a reference into S ([](auto& s) -> auto& { return s.cfg.lr; }).
template <class Ref, class S>
decltype(auto) access(const Ref& ref, S& s) {
  if constexpr (std::is_member_object_pointer_v<Ref>)
    return (s.*ref);
  else
    return ref(s);
}

template <class S, class Ref>
Field<S> range_field(std::string key, Ref ref, std::string help) {
  return {key,
          "[min, max]",
          std::move(help),
          [key, ref](const json::Value& v, S& s) { access(ref, s) = read_range_value(v, key); },
          [ref](const S& s) { return range_json(access(ref, s)); },
          [](SampleRng& rng, const json::Object&) { return range_json(rng.range()); }};
}

template <class S, class Ref>
Field<S> number_field(std::string key, Ref ref, double min, double max, std::string help) {
  const std::string type = "number in [" + format_f64(min) + ", " + format_f64(max) + "]";
  return {key,
          type,
          std::move(help),
          [key, ref, min, max](const json::Value& v, S& s) {
            access(ref, s) = read_number_value(v, key, min, max);
          },
          [ref](const S& s) { return json::Value(static_cast<double>(access(ref, s))); },
          [min, max](SampleRng& rng, const json::Object&) { return json::Value(rng.number(min, max)); }};
}

/// An integer member of any integer type; JSON numbers are doubles, so the range stays within 2^53.
template <class S, class Ref>
Field<S> integer_field(std::string key, Ref ref, double min, double max, std::string help) {
  const std::string type = "integer in [" + format_f64(min) + ", " + format_f64(max) + "]";
  return {key,
          type,
          std::move(help),
          [key, ref, min, max](const json::Value& v, S& s) {
            auto& m = access(ref, s);
            m = static_cast<std::remove_reference_t<decltype(m)>>(read_number_value(v, key, min, max));
          },
          [ref](const S& s) { return json::Value(static_cast<double>(access(ref, s))); },
          [min, max](SampleRng& rng, const json::Object&) { return json::Value(rng.integer(min, max)); }};
}

template <class S, class Ref>
Field<S> bool_field(std::string key, Ref ref, std::string help) {
  return {key,
          "true|false",
          std::move(help),
          [key, ref](const json::Value& v, S& s) { access(ref, s) = read_bool_value(v, key); },
          [ref](const S& s) { return json::Value(static_cast<bool>(access(ref, s))); },
          [](SampleRng& rng, const json::Object&) { return json::Value(rng.chance(0.5)); }};
}

template <class S, class Ref>
Field<S> choice_field(std::string key, Ref ref, std::vector<std::string> choices, std::string help) {
  std::string type;
  for (const std::string& c : choices) type += (type.empty() ? "" : "|") + c;
  return {key,
          type,
          std::move(help),
          [key, ref, choices](const json::Value& v, S& s) {
            access(ref, s) = read_choice_value(v, key, choices);
          },
          [ref](const S& s) { return json::Value(access(ref, s)); },
          [choices](SampleRng& rng, const json::Object&) { return json::Value(rng.pick(choices)); }};
}

}  // namespace gelu::app::model
