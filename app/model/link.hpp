// A link to a view: the URL fragment of the web build (`#panel=approx&metric="ulp"`, `#lesson=NAME&step=3`).
// A panel link names the panel and the fields of its state (from the panel's field table, model/panel_states)
// that differ from a fresh panel's, each as its JSON value, percent-encoded; `#panel=approx` alone is the
// panel with its defaults. A lesson link names a lesson of the lessons folder by its file name without
// ".json" and a 1-based step. Either may add `present=2`: presentation mode at that text size (a projector's
// link). No ImGui and no browser here: the page (gui/web/page.cpp) reads and writes the
// fragment, tests/app/link_test.cpp checks both directions.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "gelu/json.hpp"

namespace gelu::app::model {

/// A fragment that is not a link; what() is one line naming the part that is wrong.
class LinkError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Link {
  std::string panel;   // a panel link's panel id ("" for a lesson link)
  json::Object state;  // its fields, as JSON values (empty: the defaults)
  std::string lesson;  // a lesson link's lesson name ("" for a panel link)
  int step = 1;        // 1-based
  double present = 0;  // present=SCALE: presentation mode at that text scale (0: the link does not say)
};

/// Reads a fragment, with or without its '#'. Throws LinkError. Whether the panel, its keys and the lesson
/// exist is the app's to check (App::select, Panel::load_state, lesson_link_path).
Link parse_link(std::string_view fragment);

/// The fragment (without '#') of a panel whose state is `state`, leaving out the fields equal to `defaults`'.
std::string panel_link(std::string_view panel, const json::Value& state, const json::Value& defaults);
/// The fragment of a lesson's step (1-based); `lesson_path` is the lesson's file.
std::string lesson_link(std::string_view lesson_path, int step);
/// `fragment` with `&present=SCALE` when `scale` > 0 (presentation mode at that text size), else as it is.
std::string with_presentation(std::string fragment, double scale);
/// The file of a lesson link's lesson in `folder`; LinkError when the name could leave the folder.
std::string lesson_link_path(const std::string& folder, std::string_view lesson);

/// Percent-encoding of a fragment's values: every byte but letters, digits and -._~!$'()*,;:@/?[] .
std::string percent_encode(std::string_view text);
/// Its inverse; LinkError for a '%' not followed by two hex digits.
std::string percent_decode(std::string_view text);

}  // namespace gelu::app::model
