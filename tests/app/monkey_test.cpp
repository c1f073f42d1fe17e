// The GUI under random use (issue 51): for every panel, `gelulab gui --headless --monkey SEED` clicks, drags,
// wheels and presses keys at the widgets it draws (gui/testing/monkey.hpp), at random window sizes and text
// scales. A run fails on any signal (a crash, a sanitizer's abort), a sanitizer report, a GL error, a hang
// (no exit within the time limit) or a non-zero exit; its script is then kept as a file that replays it, and
// the failure prints the replay command. Across a panel's scripts every checkbox, radio button, combo and
// combo option that panel drew must have been clicked at least once.
//
// Environment: GELU_MONKEY_SEED (default 5101), GELU_MONKEY_SCRIPTS (scripts per panel, default 2),
// GELU_MONKEY_FRAMES (frames per script, default 900), GELU_MONKEY_COVERAGE=0 (the sanitizer stage, which
// runs one short script per panel: no coverage assertion), GELU_MONKEY_MINUTES (tools/dev.sh soak: scripts
// with fresh seeds until that many minutes have passed, shared by the panels), GELU_MONKEY_KEEP (where
// failing scripts are kept; default monkey-failures in the working directory, i.e. the build's tests/app).
//
// Index of this file:
//   [SECTION] Helpers
//   [SECTION] One run
//   [SECTION] Every panel
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gelu/fileio.hpp"
#include "gelu/json.hpp"
#include "model/panels.hpp"
#include "support/run_gelulab.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
namespace json = gelu::json;

// [SECTION] Helpers

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

/// splitmix64: one seed per (base seed, panel, script), the same on every machine.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
std::uint64_t seed_for(const std::string& panel, std::uint64_t i) {
  std::uint64_t h = mix(env_number("GELU_MONKEY_SEED", 5101));
  for (const char c : panel) h = mix(h ^ static_cast<unsigned char>(c));
  return mix(h ^ i) % 2147483647ULL;
}

fs::path keep_dir() {
  const char* v = std::getenv("GELU_MONKEY_KEEP");
  return v && *v ? fs::path(v) : fs::current_path() / "monkey-failures";
}

/// What a sanitizer prints when it finds something (ASan, UBSan, LSan).
bool sanitizer_report(const std::string& err) {
  for (const char* s : {"ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer", "SUMMARY: "})
    if (err.find(s) != std::string::npos) return true;
  return false;
}

// [SECTION] One run

struct MonkeyRun {
  std::uint64_t seed = 0;
  std::vector<std::string> args;
  gelu::test::ExecResult r;
  std::set<std::string> toggled, untoggled;
  std::string failure;  // empty: the run was clean
  std::string kept;     // where its script was kept (a failure)
};

MonkeyRun run_monkey(const std::string& panel, std::uint64_t i, int frames,
                     const std::set<std::string>& tried) {
  MonkeyRun run;
  run.seed = seed_for(panel, i);
  const fs::path dir = gelu::test::scratch_dir("monkey/" + panel + "-" + std::to_string(run.seed));
  // Window sizes from a small netbook to full HD, and every text scale a classroom uses (none: 1×).
  const int widths[] = {800, 1024, 1280, 1366, 1600, 1920}, heights[] = {600, 768, 800, 720, 900, 1080};
  const char* scales[] = {"", "1", "1.5", "2", "3"};
  const std::uint64_t r = mix(run.seed);
  const std::string size = std::to_string(widths[r % 6]) + "x" + std::to_string(heights[(r >> 8) % 6]);
  // The first script of a panel runs at 1× text: presentation mode hides the controls (F6 shows them).
  const std::string scale = i == 0 ? "" : scales[(r >> 16) % 5];
  run.args = {"gui",
              "--headless",
              "--panel",
              panel,
              "--size",
              size,
              "--monkey",
              std::to_string(run.seed),
              "--monkey-script",
              "monkey.txt",
              "--frames",
              std::to_string(frames),
              "--report",
              "report.json",
              "--session",
              "session.json"};
  // Widgets drawn only in some states start there in every other script: the FFN lab's activation combos of
  // layers 3 and 4 exist only with four hidden layers (the monkey's drags rarely reach that width slider's
  // count and then leave too few frames for their twenty options).
  // Likewise the Designer's breakpoints combo exists only for the piecewise form (and its two options only
  // while the combo is open): every other script starts there, so a run whose fits finish late still reaches
  // both options.
  const char* start = panel == "ffn"        ? R"({"widths": [8, 8, 8, 8]})"
                      : panel == "designer" ? R"({"form": "piecewise", "pieces": 2, "degree": 3})"
                                            : nullptr;
  if (start && i % 2 == 1) {
    gelu::write_file_atomic((dir / "state.json").string(), start);
    run.args.push_back("--state");
    run.args.push_back("state.json");
  }
  // What earlier scripts of this panel clicked: this one goes for the rest first.
  if (!tried.empty()) {
    std::string list;
    for (const std::string& t : tried) list += t + "\n";
    gelu::write_file_atomic((dir / "tried.txt").string(), list);
    run.args.push_back("--monkey-tried");
    run.args.push_back("tried.txt");
  }
  if (!scale.empty()) {
    run.args.push_back("--presentation");
    run.args.push_back(scale);
  }
  // Exports (the panels' Save buttons, F12, Ctrl+E) land in the run's own directory.
  run.r = gelu::test::exec_gelulab(run.args, "", dir.string(), {}, 300, 0, gelu::test::StdoutTo::Captured,
                                   dir.string());
  if (run.r.timed_out)
    run.failure = "hung: still running after 300 s";
  else if (run.r.signal)
    run.failure = "killed by signal " + std::to_string(run.r.signal);
  else if (sanitizer_report(run.r.err))
    run.failure = "a sanitizer report";
  else if (!run.r.exited || run.r.status != 0)
    run.failure = "exit status " + std::to_string(run.r.status);
  json::Value report;
  if (run.failure.empty()) {
    try {
      report = json::parse(gelu::read_file((dir / "report.json").string(), 1 << 26));
      if (report.at("gl_errors").as_number() != 0) run.failure = "GL errors";
      for (const auto& [p, cov] : report.at("monkey").at("panels").as_object()) {
        if (p != panel) continue;  // Ctrl+1..9 visit other panels: their own scripts cover them
        for (const json::Value& n : cov.at("toggled").as_array()) run.toggled.insert(n.as_string());
        for (const json::Value& n : cov.at("untoggled").as_array()) run.untoggled.insert(n.as_string());
      }
    } catch (const std::exception& e) {
      run.failure = std::string("its report: ") + e.what();
    }
  }
  if (!run.failure.empty()) {
    std::error_code ec;
    fs::create_directories(keep_dir(), ec);
    const fs::path kept = keep_dir() / (panel + "-" + std::to_string(run.seed) + ".txt");
    fs::copy_file(dir / "monkey.txt", kept, fs::copy_options::overwrite_existing, ec);
    run.kept = ec ? "(the script could not be kept: " + ec.message() + ")" : kept.string();
  }
  return run;
}

std::string describe(const MonkeyRun& run) {
  std::string cmd = "gelulab";
  for (const std::string& a : run.args) cmd += " " + a;
  std::string tail = run.r.err.size() > 3000 ? run.r.err.substr(run.r.err.size() - 3000) : run.r.err;
  return run.failure + "\n  command: " + cmd + "\n  script kept: " + run.kept +
         "\n  replay: gelulab gui --headless (the options on the script's first lines) --script " + run.kept +
         "\n  stderr (tail):\n" + tail;
}

// [SECTION] Every panel

std::size_t panel_count() {
  return gelu::app::model::panel_kinds().size();
}

class Monkey : public ::testing::TestWithParam<std::string> {};

TEST_P(Monkey, RandomUseOfEveryWidgetNeverCrashesAndTogglesThemAll) {
  const std::string panel = GetParam();
  const int frames = static_cast<int>(env_number("GELU_MONKEY_FRAMES", 900));
  const std::uint64_t scripts = env_number("GELU_MONKEY_SCRIPTS", 2);
  // A soak's minutes are shared by the panels (each runs its share, one after another).
  const char* soak = std::getenv("GELU_MONKEY_MINUTES");
  const double minutes = soak && *soak ? std::strtod(soak, nullptr) / static_cast<double>(panel_count()) : 0;
  const bool coverage = env_number("GELU_MONKEY_COVERAGE", 1) != 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::set<std::string> toggled, seen;
  std::uint64_t i = 0;
  for (;; ++i) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 60;
    // Without a time: GELU_MONKEY_SCRIPTS scripts, and more (up to ten times as many) while some toggle
    // drawn has not been clicked yet (the FFN lab's eight activation combos of ten options each take a few
    // scripts, the Precision panel's 115 toggles twelve; each script skips what the earlier ones clicked,
    // --monkey-tried).
    bool complete = true;
    for (const std::string& t : seen) complete = complete && toggled.count(t);
    if (minutes > 0 ? elapsed >= minutes : i >= (coverage && !complete ? 10 * scripts : scripts)) break;
    const MonkeyRun run = run_monkey(panel, i, frames, toggled);
    ASSERT_TRUE(run.failure.empty()) << panel << ", script " << i << " (seed " << run.seed
                                     << "): " << describe(run);
    std::string args;
    for (const std::string& x : run.args) args += " " + x;
    std::printf("monkey %s, script %llu:%s — %zu toggles clicked, %zu not\n", panel.c_str(),
                static_cast<unsigned long long>(i), args.c_str(), run.toggled.size(), run.untoggled.size());
    toggled.insert(run.toggled.begin(), run.toggled.end());
    seen.insert(run.toggled.begin(), run.toggled.end());
    seen.insert(run.untoggled.begin(), run.untoggled.end());
  }
  std::printf("monkey %s: %llu scripts of %d frames, %zu toggles seen, %zu clicked\n", panel.c_str(),
              static_cast<unsigned long long>(i), frames, seen.size(), toggled.size());
  // Every panel draws toggles (its first script at 1× text shows its controls): none seen means the monkey
  // never reached them.
  EXPECT_FALSE(seen.empty()) << panel << ": the monkey saw no checkbox, radio button or combo";
  if (!coverage) return;
  std::string never;
  for (const std::string& t : seen)
    if (!toggled.count(t)) never += " " + t;
  EXPECT_TRUE(never.empty()) << panel << ": drawn but never clicked in " << i << " scripts:" << never;
}

std::vector<std::string> panel_ids() {
  std::vector<std::string> ids;
  for (const auto& k : gelu::app::model::panel_kinds()) ids.emplace_back(k.id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Every, Monkey, ::testing::ValuesIn(panel_ids()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
