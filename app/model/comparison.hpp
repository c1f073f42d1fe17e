// The comparison: zoo entries the user adds at run time — the Designer's candidates ("Add to comparison") —
// which the Approximations and Precision panels show beside their own picks. The zoo holds the entries
// (zoo::add is thread-safe and global); this records the order they came in, so that a panel notices a new
// one by comparing one number each frame and appends it to its own list (which its state then saves).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/json.hpp"
#include "gelu/zoo.hpp"

namespace gelu::app {

/// zoo::add (replacing an added entry of the same id), then announces the id to the panels. Throws
/// std::invalid_argument as zoo::add does.
void add_to_comparison(zoo::Entry e);
/// zoo::add without the announcement: the entry's id resolves again, but no panel appends it to its list. A
/// restored state (session, lesson step) uses this: the other panels' restored lists already say where it is
/// shown, so a session saves what it loaded. Throws std::invalid_argument as zoo::add does.
void restore_to_comparison(zoo::Entry e);
/// zoo::remove; false when no added entry has that id.
bool remove_from_comparison(std::string_view id);
/// Increases with every add_to_comparison and remove_from_comparison.
std::uint64_t comparison_generation();
/// The ids announced after `generation`, oldest first (each once), and the current generation in *now.
std::vector<std::string> compared_since(std::uint64_t generation, std::uint64_t* now);

/// "fit_" then [a-z0-9_]: the ids the Designer gives its candidates. Panel states accept them before the
/// Designer's own state (read later in a session) has put the candidate back into the zoo.
bool is_candidate_id(std::string_view id);
/// A zoo entry now (zoo::find) or a candidate id (is_candidate_id).
bool is_comparable_id(std::string_view id);

/// Reads a JSON array of entry ids for the field `key` of a panel state: each a zoo entry or a candidate id,
/// each once, at most 64. Throws json::JsonError naming the key and the unknown id (with the zoo's ids).
std::vector<std::string> read_entry_ids(const json::Value& v, std::string_view key);
json::Value entry_ids_json(const std::vector<std::string>& ids);

}  // namespace gelu::app
