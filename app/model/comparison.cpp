// The comparison (see comparison.hpp).
#include "model/comparison.hpp"

#include <algorithm>
#include <mutex>

#include "gelu/numio.hpp"
#include "model/state_schema.hpp"

namespace gelu::app {

namespace {

struct Announcements {
  std::mutex mu;
  std::uint64_t generation = 0;
  std::vector<std::pair<std::uint64_t, std::string>> added;  // (generation, id), in order
};
Announcements& announcements() {
  static Announcements a;
  return a;
}

constexpr std::size_t kMaxEntryIds = 64;

}  // namespace

void add_to_comparison(zoo::Entry e) {
  const std::string id = e.id;
  zoo::add(std::move(e));
  Announcements& a = announcements();
  std::lock_guard lk(a.mu);
  a.added.emplace_back(++a.generation, id);
}

void restore_to_comparison(zoo::Entry e) {
  zoo::add(std::move(e));
}

bool remove_from_comparison(std::string_view id) {
  const bool removed = zoo::remove(id);
  Announcements& a = announcements();
  std::lock_guard lk(a.mu);
  ++a.generation;
  return removed;
}

std::uint64_t comparison_generation() {
  Announcements& a = announcements();
  std::lock_guard lk(a.mu);
  return a.generation;
}

std::vector<std::string> compared_since(std::uint64_t generation, std::uint64_t* now) {
  Announcements& a = announcements();
  std::lock_guard lk(a.mu);
  std::vector<std::string> ids;
  for (const auto& [g, id] : a.added)
    if (g > generation && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  if (now) *now = a.generation;
  return ids;
}

bool is_candidate_id(std::string_view id) {
  if (!id.starts_with("fit_") || id.size() == 4 || id.size() > 64) return false;
  return std::all_of(id.begin(), id.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

bool is_comparable_id(std::string_view id) {
  return is_candidate_id(id) || zoo::find(id).has_value();
}

std::vector<std::string> read_entry_ids(const json::Value& v, std::string_view key) {
  const std::string k = model::quoted_key(key);
  if (!v.is_array() || v.as_array().size() > kMaxEntryIds)
    throw json::JsonError(k + " must be an array of at most " + std::to_string(kMaxEntryIds) +
                          " zoo entry ids (gelulab list --zoo)");
  std::vector<std::string> ids;
  for (const json::Value& x : v.as_array()) {
    if (!x.is_string()) throw json::JsonError(k + " must hold zoo entry ids (strings)");
    const std::string& id = x.as_string();
    if (!is_comparable_id(id))
      throw json::JsonError(k + ": unknown zoo entry " + quote(id) + " (known: " + zoo::ids() +
                            "; or a Designer candidate fit_…)");
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

json::Value entry_ids_json(const std::vector<std::string>& ids) {
  json::Array a;
  for (const std::string& id : ids) a.emplace_back(id);
  return a;
}

}  // namespace gelu::app
