#include "model/link.hpp"

#include <cctype>
#include <cstdio>
#include <optional>
#include <set>

#include "gelu/numio.hpp"
#include "model/lessons.hpp"

namespace gelu::app::model {
namespace {

constexpr std::size_t kMaxFragment = 8192;  // a link is typed, mailed and chatted: longer is not a link

bool is_name(std::string_view s) {
  if (s.empty() || s.size() > 128 || s.front() == '.') return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string percent_encode(std::string_view text) {
  static const std::string_view keep = "-._~!$'()*,;:@/?[]";
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || keep.find(ch) != std::string_view::npos) {
      out += ch;
    } else {
      static const char* digits = "0123456789ABCDEF";
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int hi = i + 2 < text.size() ? hex(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? hex(text[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      throw LinkError("'%' must be followed by two hex digits (" + quote(text.substr(i, 3)) + ")");
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

Link parse_link(std::string_view fragment) {
  if (!fragment.empty() && fragment.front() == '#') fragment.remove_prefix(1);
  if (fragment.size() > kMaxFragment)
    throw LinkError("the link is " + std::to_string(fragment.size()) + " characters long (at most " +
                    std::to_string(kMaxFragment) + ")");
  Link link;
  std::set<std::string> seen;
  bool have_step = false;
  std::size_t at = 0;
  while (at <= fragment.size()) {
    std::size_t end = fragment.find('&', at);
    if (end == std::string_view::npos) end = fragment.size();
    const std::string_view part = fragment.substr(at, end - at);
    at = end + 1;
    if (part.empty()) continue;
    const std::size_t eq = part.find('=');
    if (eq == std::string_view::npos)
      throw LinkError(quote(percent_decode(part)) + " has no '=' (write key=value, e.g. panel=curves)");
    const std::string key = percent_decode(part.substr(0, eq));
    const std::string value = percent_decode(part.substr(eq + 1));
    if (!seen.insert(key).second) throw LinkError("the key " + quote(key) + " is given twice");
    if (key == "panel") {
      if (!is_name(value)) throw LinkError("panel=" + quote(value) + " is not a panel id");
      link.panel = value;
    } else if (key == "lesson") {
      if (!is_name(value)) throw LinkError("lesson=" + quote(value) + " is not a lesson name");
      link.lesson = value;
    } else if (key == "step") {
      long n = 0;
      bool digits = !value.empty() && value.size() <= 6;
      for (char c : value) {
        digits = digits && c >= '0' && c <= '9';
        if (digits) n = n * 10 + (c - '0');
      }
      if (!digits || n < 1 || n > kMaxLessonSteps)
        throw LinkError("step=" + quote(value) + " is not a step number from 1 to " +
                        std::to_string(kMaxLessonSteps));
      link.step = static_cast<int>(n);
      have_step = true;
    } else if (key == "present") {
      // The text size of presentation mode; whether the app offers that size is the app's to check.
      const std::optional<double> v = parse_f64(value);
      if (!v || !(*v > 0) || *v > 100)
        throw LinkError("present=" + quote(value) + " is not a text size (present=2 is 2x text)");
      link.present = *v;
    } else {
      // A field of the panel's state: its JSON value, or (a bare word) a JSON string.
      json::Value v;
      try {
        v = json::parse(value);
      } catch (const json::JsonError&) {
        v = json::Value(value);
      }
      link.state[key] = std::move(v);
    }
  }
  if (!link.panel.empty() && !link.lesson.empty())
    throw LinkError("a link names a panel or a lesson, not both");
  if (link.panel.empty() && link.lesson.empty())
    throw LinkError(fragment.empty() ? "the link is empty" : "the link names no panel= and no lesson=");
  if (!link.lesson.empty() && !link.state.empty())
    throw LinkError("a lesson link takes step= and present= only, not " + quote(link.state.begin()->first));
  if (!link.panel.empty() && have_step)
    throw LinkError("step= belongs to a lesson link (lesson=NAME&step=N)");
  return link;
}

std::string panel_link(std::string_view panel, const json::Value& state, const json::Value& defaults) {
  std::string out = "panel=";
  out += percent_encode(panel);
  if (!state.is_object()) return out;
  const json::Object* d = defaults.is_object() ? &defaults.as_object() : nullptr;
  for (const auto& [key, value] : state.as_object()) {
    if (d) {
      const auto it = d->find(key);
      if (it != d->end() && json::write(it->second) == json::write(value)) continue;
    }
    out += '&';  // appended piece by piece: GCC 12's -Wrestrict misreads "&" + std::string&& (PR105329)
    out += percent_encode(key);
    out += '=';
    out += percent_encode(json::write(value));
  }
  return out;
}

std::string lesson_link(std::string_view lesson_path, int step) {
  std::string_view name = lesson_path;
  if (const std::size_t slash = name.find_last_of('/'); slash != std::string_view::npos)
    name.remove_prefix(slash + 1);
  if (name.size() > 5 && name.substr(name.size() - 5) == ".json") name.remove_suffix(5);
  std::string out = "lesson=";
  out += percent_encode(name);
  out += "&step=";
  out += std::to_string(step);
  return out;
}

std::string with_presentation(std::string fragment, double scale) {
  if (!(scale > 0)) return fragment;
  char num[32];
  std::snprintf(num, sizeof num, "%g", scale);
  fragment += "&present=";
  fragment += num;
  return fragment;
}

std::string lesson_link_path(const std::string& folder, std::string_view lesson) {
  if (!is_name(lesson)) throw LinkError("lesson=" + quote(lesson) + " is not a lesson name");
  return folder + "/" + std::string(lesson) + ".json";
}

}  // namespace gelu::app::model
