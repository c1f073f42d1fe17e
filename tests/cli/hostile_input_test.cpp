// Hostile input, end to end: every option of every subcommand fed absurd values, and every JSON file the
// app reads (--state, --lesson/lessons --check, --session, train --load, gui --script) broken, of the wrong
// type or out of range. Each row runs the real gelulab and must end within 20 s with exit status exactly 2,
// nothing on stdout, and a few clear lines on stderr that name the option or the file and field — never a
// signal, a hang, "terminate called" or raw binary on the terminal. The "Hostile input" table of
// docs/reliability.md summarizes these rows.
//
// argv cannot carry a NUL byte (execve's strings end at the first one), so NUL bytes are tried where a byte
// stream is read: stdin and --input files of `gelulab eval`, and each JSON file. Nor can one argv string be
// longer than 128 KiB on Linux (MAX_ARG_STRLEN), so the longest tokens on the command line are 131071
// bytes; megabyte tokens go through stdin and the files.
//
// Index of this file:
//   [SECTION] Rows
//   [SECTION] The table
//   [SECTION] The check
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "gelu/ffn/model_file.hpp"
#include "gelu/ffn/network.hpp"
#include "gelu/json.hpp"
#include "support/run_gelulab.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::test::ExecResult;

// [SECTION] Rows

/// One hostile input. In args and needles, "{d}" is the row's scratch directory and "{f}" the file that
/// `make` wrote (make returns its path; it may return another path, e.g. a directory).
struct Row {
  std::string name;
  std::vector<std::string> args;
  std::vector<std::string> needles;  // each must appear in stderr
  std::function<std::string(const fs::path& dir)> make = nullptr;
  std::string input = {};         // stdin
  std::size_t address_space = 0;  // > 0: gelulab runs with this much memory (RLIMIT_AS)
};

// Linux caps one argv string at 128 KiB (MAX_ARG_STRLEN, with its NUL): the longest token argv can carry.
const std::string kArg(131071, '9');                 // the longest number-like argv token
const std::string kArga(131071, 'a');                // the longest argv word
const std::string kMiB(std::size_t{1} << 20, '9');   // a 1 MiB number-like token (stdin, files)
const std::string kMiBa(std::size_t{1} << 20, 'a');  // a 1 MiB word (stdin, files)
const std::string kBadUtf8 = "\xFF\xFE\xC3(\x80";    // bytes that are not UTF-8
const std::string kLesson = std::string(GELU_SOURCE_DIR) + "/assets/lessons/1_what_is_gelu.json";

std::string write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}
std::function<std::string(const fs::path&)> file(std::string bytes, std::string name = "in.json") {
  return [bytes = std::move(bytes), name = std::move(name)](const fs::path& d) {
    return write_file(d / name, bytes);
  };
}
std::function<std::string(const fs::path&)> big_file(std::size_t bytes, std::string head, std::string tail) {
  return [=](const fs::path& d) {
    std::ofstream f(d / "big.json", std::ios::binary);
    f << head;
    const std::string block(1 << 20, 'a');
    for (std::size_t done = 0; done < bytes; done += block.size())
      f.write(block.data(), static_cast<std::streamsize>(std::min(block.size(), bytes - done)));
    f << tail;
    return (d / "big.json").string();
  };
}
/// A file this process cannot read: mode 000, or (as root, who reads anything) /proc/self/mem, whose
/// read at offset 0 fails with EIO.
std::function<std::string(const fs::path&)> unreadable() {
  return [](const fs::path& d) {
    if (geteuid() == 0) return std::string("/proc/self/mem");
    const std::string p = write_file(d / "unreadable.json", "{}");
    chmod(p.c_str(), 0);
    return p;
  };
}
std::function<std::string(const fs::path&)> directory() {
  return [](const fs::path& d) {
    fs::create_directories(d / "adir");
    return (d / "adir").string();
  };
}
std::function<std::string(const fs::path&)> missing() {
  return [](const fs::path& d) { return (d / "no_such_file.json").string(); };
}
/// A FIFO nobody writes (a read must not wait for a writer) or reads (a write must not wait for a reader).
std::function<std::string(const fs::path&)> fifo() {
  return [](const fs::path& d) {
    mkfifo((d / "fifo.json").c_str(), 0644);
    return (d / "fifo.json").string();
  };
}
/// A Unix socket's path (it stays in the directory after the socket is closed).
std::function<std::string(const fs::path&)> socket_file() {
  return [](const fs::path& d) {
    const fs::path p = d / "socket.json";
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", p.c_str());
    ::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::close(s);
    return p.string();
  };
}
/// A link that points at itself through a second one.
std::function<std::string(const fs::path&)> link_loop() {
  return [](const fs::path& d) {
    fs::create_symlink("loop_b", d / "loop_a");
    fs::create_symlink("loop_a", d / "loop_b");
    return (d / "loop_a").string();
  };
}

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
std::vector<std::string> eval_cmd() {
  return {"eval", "--fn", "gelu"};
}

struct Value {
  const char* label;
  std::string text;
};
const std::vector<Value> kHuge = {{"1e308", "1e308"},
                                  {"1e20", "1e20"},
                                  {"2pow63", "9223372036854775808"},
                                  {"2pow64", "18446744073709551616"}};
const std::vector<Value> kJunk = {{"nan", "nan"}, {"inf", "inf"}, {"neginf", "-inf"}, {"1e", "1e"},
                                  {"0x", "0x"},   {"empty", ""},  {"128KiB", kArg},   {"badutf8", kBadUtf8}};

/// An integer option: huge, negative, zero (where meaningless), NaN/Inf, malformed, empty, 1 MiB, not UTF-8.
void int_option(std::vector<Row>& rows, const std::string& tag, const std::vector<std::string>& prefix,
                const std::string& option, bool zero_is_bad, bool full = true) {
  std::vector<Value> values = {{"neg", "-1"}};
  if (zero_is_bad) values.push_back({"zero", "0"});
  for (const Value& v : kHuge)
    if (full || v.label == std::string("1e308") || v.label == std::string("2pow64")) values.push_back(v);
  for (const Value& v : kJunk)
    if (full || v.label == std::string("nan") || v.label == std::string("empty") ||
        v.label == std::string("128KiB"))
      values.push_back(v);
  for (const Value& v : values)
    rows.push_back({tag + "_" + v.label, cat(prefix, {option, v.text}), {option}});
}

/// A floating-point option with an allowed range: out of range both ways, NaN/Inf, malformed, 1 MiB...
void float_option(std::vector<Row>& rows, const std::string& tag, const std::vector<std::string>& prefix,
                  const std::string& option, bool zero_is_bad, bool negative_is_bad = true) {
  std::vector<Value> values = {{"1e308", "1e308"}};
  if (negative_is_bad) values.push_back({"neg1e308", "-1e308"});
  if (zero_is_bad) values.push_back({"zero", "0"});
  values.insert(values.end(), kJunk.begin(), kJunk.end());
  for (const Value& v : values)
    rows.push_back({tag + "_" + v.label, cat(prefix, {option, v.text}), {option}});
}

/// A choice among names: unknown, empty, 128 KiB, not UTF-8.
void enum_option(std::vector<Row>& rows, const std::string& tag, const std::vector<std::string>& prefix,
                 const std::string& option, const std::string& needle = "") {
  const std::vector<Value> values = {
      {"unknown", "nosuch"}, {"empty", ""}, {"128KiB", kArga}, {"badutf8", kBadUtf8}};
  for (const Value& v : values)
    rows.push_back({tag + "_" + v.label, cat(prefix, {option, v.text}), {needle.empty() ? option : needle}});
}

/// Problems every file loader must report with the file's name: missing, a directory, unreadable, empty,
/// truncated, trailing garbage, a BOM, NUL bytes, 100000 levels of nesting, a 50 MB file, a duplicate key,
/// and a top level of the wrong type.
void file_problems(std::vector<Row>& rows, const std::string& tag,
                   const std::vector<std::string>& args_with_f, const std::string& needle,
                   const std::string& valid_object) {
  struct P {
    const char* label;
    std::function<std::string(const fs::path&)> make;
    const char* reason;  // a fragment of the message
  };
  const std::vector<P> problems = {
      {"missing", missing(), "No such file"},
      {"directory", directory(), "directory"},
      {"unreadable", unreadable(), "cannot read"},
      {"empty", file(""), "unexpected end of input"},
      {"truncated", file(valid_object.substr(0, valid_object.size() / 2)), "line 1"},
      {"trailing_garbage", file(valid_object + " x"), "unexpected text after the JSON value"},
      {"bom", file("\xEF\xBB\xBF" + valid_object), "byte order mark"},
      {"nul_inside", file(std::string("{\"a\0\": 1}", 10)), "control character"},
      {"nul_after", file(valid_object + std::string(1, '\0')), "unexpected text after the JSON value"},
      {"nesting_100000", file(std::string(100000, '[') + std::string(100000, ']')), "nesting deeper than"},
      {"nesting_100000_objects",
       [](const fs::path& d) {
         std::string s;
         for (int i = 0; i < 100000; ++i) s += "{\"a\":";
         return write_file(d / "in.json", s + "1" + std::string(100000, '}'));
       },
       "nesting deeper than"},
      {"duplicate_key", file("{\"k\": 1, \"k\": 2}"), "duplicate key"},
      {"top_array", file("[1, 2]"), ""},
      {"top_null", file("null"), ""},
      {"top_string", file("\"x\""), ""},
      // Reads that never block (reliability class 4): refused before a byte is read.
      {"fifo", fifo(), "a FIFO (named pipe), not a regular file"},
      {"socket", socket_file(), "a socket, not a regular file"},
      {"dev_zero", [](const fs::path&) { return std::string("/dev/zero"); }, "a character device"},
  };
  for (const P& p : problems) {
    std::vector<std::string> needles = {needle};
    if (*p.reason) needles.push_back(p.reason);
    rows.push_back({tag + "_" + p.label, args_with_f, needles, p.make});
  }
}

// [SECTION] The table

/// JSON text of a valid 2,3,1 relu model, with `edit` applied to its document first.
std::string model_json(const std::function<void(gelu::json::Value&)>& edit) {
  const int layers[] = {2, 3, 1};
  gelu::ffn::Network<double> net(gelu::ffn::make_spec(layers, "relu"));
  gelu::json::Value v = gelu::json::parse(gelu::ffn::model_to_json(net.spec(), net.parameters()));
  edit(v);
  return gelu::json::write(v, 1);
}
gelu::json::Object& obj(gelu::json::Value& v) {
  return v.as_object();
}
gelu::json::Value& hidden0(gelu::json::Value& v) {
  return obj(v)["spec"].as_object()["hidden"].as_array()[0];
}
gelu::json::Value& tensor0(gelu::json::Value& v) {
  return obj(v)["tensors"].as_array()[0];
}

std::vector<Row> make_rows() {
  std::vector<Row> rows;
  const std::vector<std::string> err = {"error", "--fn", "gelu", "--vs", "gelu_tanh"};
  const std::vector<std::string> shot = {"shot", "--out", "{d}/o.png"};

  // --- argv in general ---
  rows.push_back({"subcommand_unknown", {"frobnicate"}, {"unknown subcommand 'frobnicate'"}});
  rows.push_back({"subcommand_badutf8", {kBadUtf8}, {"unknown subcommand '\\xFF\\xFE"}});
  rows.push_back({"subcommand_128KiB", {kArga}, {"unknown subcommand 'aaaa", "(131071 bytes)"}});
  for (const std::vector<std::string>& cmd :
       std::vector<std::vector<std::string>>{{"list"},
                                             {"eval", "--fn", "gelu"},
                                             err,
                                             {"props", "--fn", "gelu"},
                                             {"bench"},
                                             {"train"},
                                             cat(shot, {"--panel", "curves"}),
                                             {"gui"},
                                             {"lessons"},
                                             {"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", "p.txt"},
                                             {"fit", "--form", "poly", "--degree", "4", "--range", "-4:4"}})
    rows.push_back({cmd[0] + "_unknown_option", cat(cmd, {"--bogus=1"}), {"unknown option '--bogus'"}});
  rows.push_back(
      {"unknown_option_128KiB", {"list", "--" + kArga.substr(2)}, {"unknown option '--aaa", "bytes)"}});
  rows.push_back(
      {"stray_argument_badutf8", {"props", "--fn", "gelu", kBadUtf8}, {"unexpected argument '\\xFF"}});
  rows.push_back({"missing_value_samples", cat(err, {"--samples"}), {"--samples needs a value"}});
  rows.push_back({"missing_value_steps", {"train", "--steps"}, {"--steps needs a value"}});
  rows.push_back({"missing_value_out", {"shot", "--panel", "curves", "--out"}, {"--out needs a value"}});
  rows.push_back({"missing_value_fn", {"eval", "--fn"}, {"--fn needs a value"}});
  rows.push_back({"repeated_option_samples",
                  cat(err, {"--samples", "10", "--samples", "20"}),
                  {"--samples is given 2 times"}});
  rows.push_back({"repeated_option_lr", {"train", "--lr", "0.1", "--lr", "0.2"}, {"--lr is given 2 times"}});
  rows.push_back({"repeated_option_panel",
                  cat(shot, {"--panel", "curves", "--panel", "approx"}),
                  {"--panel is given 2 times"}});
  rows.push_back({"repeated_flag_json", {"list", "--json", "--json"}, {"--json is given twice"}});
  // A function parameter given twice is an error like any option given twice (reliability class 10).
  rows.push_back({"repeated_param_eval",
                  {"eval", "--fn", "gelu_tanh", "--param", "c=0.04", "--param", "c=0.05"},
                  {"--param: c is given twice ('c=0.04', 'c=0.05'); give it once"}});
  rows.push_back({"repeated_param_inline",
                  {"props", "--fn", "gelu_tanh", "--param=c=0.04", "--param", "c=0.04"},
                  {"--param: c is given twice"}});
  rows.push_back({"repeated_param_error",
                  {"error", "--fn", "silu", "--vs", "gelu", "--param", "beta=1", "--param", "beta=2"},
                  {"--param: beta is given twice"}});
  rows.push_back(
      {"repeated_vs_param",
       {"error", "--fn", "gelu", "--vs", "gelu_tanh", "--vs-param", "c=0.04", "--vs-param", "c=0.04"},
       {"--vs-param: c is given twice"}});
  // Text a person cannot see is named (reliability class 9).
  rows.push_back({"fn_zero_width_space",
                  {"eval", "--fn", "gelu\xE2\x80\x8B"},
                  {"--fn: unknown function 'gelu\\u{200B}' (U+200B zero-width space)"}});
  rows.push_back(
      {"fn_no_break_space", {"props", "--fn", "\xC2\xA0gelu"}, {"'\\u{00A0}gelu' (U+00A0 no-break space)"}});
  rows.push_back({"param_name_zero_width_joiner",
                  {"eval", "--fn", "gelu_tanh", "--param", "c\xE2\x80\x8D=0.04"},
                  {"unknown parameter 'c\\u{200D}' (U+200D zero-width joiner)"}});
  rows.push_back({"range_right_to_left_override",
                  {"error", "--fn", "gelu", "--vs", "gelu", "--range",
                   "\xE2\x80\xAE"
                   "1:0"},
                  {"'\\u{202E}1:0' (U+202E right-to-left override)"}});
  rows.push_back({"samples_word_joiner",
                  {"error", "--fn", "gelu", "--vs", "gelu", "--samples", "10\xE2\x81\xA0"},
                  {"'10\\u{2060}' (U+2060 word joiner) is not an integer"}});
  rows.push_back({"eval_stdin_bom_not_first",
                  {"eval", "--fn", "relu"},
                  {"stdin, line 2: '\\u{FEFF}2' (U+FEFF byte order mark) is not a number"},
                  nullptr,
                  "1\n\xEF\xBB\xBF"
                  "2\n"});
  rows.push_back({"eval_stdin_no_break_space",
                  {"eval", "--fn", "relu"},
                  {"stdin, line 1: '1\\u{00A0}2' (U+00A0 no-break space) is not a number"},
                  nullptr,
                  "1\xC2\xA0"
                  "2\n"});
  rows.push_back({"eval_stdin_ideographic_space",
                  {"eval", "--fn", "relu"},
                  {"(U+3000 ideographic space)"},
                  nullptr,
                  "1\xE3\x80\x80"
                  "2\n"});
  rows.push_back({"flag_with_value", {"list", "--json=yes"}, {"--json takes no value"}});

  // --- integer options ---
  int_option(rows, "error_samples", err, "--samples", true);
  int_option(rows, "bench_size", {"bench", "--fn", "relu"}, "--size", true);
  int_option(rows, "bench_reps", {"bench", "--fn", "relu"}, "--reps", true, false);
  int_option(rows, "bench_order", {"bench", "--fn", "relu"}, "--order", false, false);
  int_option(rows, "bench_threads", {"bench", "--fn", "relu"}, "--threads", true, false);
  int_option(rows, "eval_order", {"eval", "--fn", "gelu"}, "--order", false, false);
  int_option(rows, "train_steps", {"train"}, "--steps", false);
  int_option(rows, "train_batch", {"train"}, "--batch", true);
  int_option(rows, "train_samples", {"train"}, "--samples", true, false);
  int_option(rows, "train_every", {"train"}, "--every", true, false);
  int_option(rows, "train_seed", {"train"}, "--seed", false, false);
  int_option(rows, "train_classes", {"train", "--dataset", "gaussians"}, "--classes", true, false);
  int_option(rows, "train_glu_hidden", {"train", "--glu", "geglu"}, "--glu-hidden", true, false);
  int_option(rows, "shot_step", cat(shot, {"--lesson", kLesson}), "--step", true);
  int_option(rows, "gui_frames", {"gui"}, "--frames", true);
  int_option(rows, "gui_rss_baseline", {"gui"}, "--rss-baseline-frame", false, false);
  rows.push_back(
      {"error_samples_over_limit", cat(err, {"--samples", "10000001"}), {"--samples", "[1, 10000000]"}});
  rows.push_back({"bench_size_over_limit", {"bench", "--size", "268435457"}, {"--size", "[1, 268435456]"}});
  rows.push_back(
      {"shot_step_past_the_lesson", cat(shot, {"--lesson", kLesson, "--step", "1000"}), {"--step", "steps"}});
  rows.push_back({"shot_step_without_lesson",
                  cat(shot, {"--panel", "curves", "--step", "2"}),
                  {"--step needs --lesson"}});

  // --- floating-point options ---
  float_option(rows, "train_lr", {"train"}, "--lr", true);
  float_option(rows, "train_momentum", {"train"}, "--momentum", false);
  float_option(rows, "train_weight_decay", {"train"}, "--weight-decay", false);
  float_option(rows, "train_noise", {"train"}, "--noise", false);
  float_option(rows, "shot_scale", cat(shot, {"--panel", "curves"}), "--scale", true);
  float_option(rows, "shot_presentation", cat(shot, {"--panel", "curves"}), "--presentation", true);
  float_option(rows, "gui_presentation", {"gui"}, "--presentation", true);
  float_option(rows, "gui_frame_time_growth", {"gui"}, "--max-frame-time-growth", true);

  // --param NAME=VALUE (eval, error, props), --vs-param
  for (const Value& v : std::vector<Value>{{"nan", "c=nan"},
                                           {"inf", "c=inf"},
                                           {"neginf", "c=-inf"},
                                           {"1e308", "c=1e308"},
                                           {"neg", "c=-1"},
                                           {"empty_value", "c="},
                                           {"1e", "c=1e"},
                                           {"0x", "c=0x"},
                                           {"128KiB", "c=" + kArg.substr(2)},
                                           {"badutf8", "c=" + kBadUtf8},
                                           {"no_name", "=1"},
                                           {"no_equals", "c"},
                                           {"unknown_name", "nosuch=1"},
                                           {"name_128KiB", kArga.substr(2) + "=1"}})
    rows.push_back({"eval_param_" + std::string(v.label),
                    {"eval", "--fn", "gelu_tanh", "--param", v.text},
                    {"--param"}});
  rows.push_back({"error_vs_param_nan",
                  {"error", "--fn", "gelu", "--vs", "elu", "--vs-param", "alpha=nan"},
                  {"--vs-param"}});
  rows.push_back({"props_param_inf", {"props", "--fn", "silu", "--param", "beta=inf"}, {"--param"}});

  // --range A:B (error, props)
  for (const Value& v : std::vector<Value>{{"nan_lo", "nan:1"},
                                           {"nan_hi", "1:nan"},
                                           {"inf", "-inf:inf"},
                                           {"reversed", "1:0"},
                                           {"empty", "1:1"},
                                           {"too_wide", "-1e308:1e308"},
                                           {"colon_only", ":"},
                                           {"empty_text", ""},
                                           {"1e", "1e:2"},
                                           {"0x", "0x:1"},
                                           {"words", "a:b"},
                                           {"three", "1:2:3"},
                                           {"128KiB", kArg.substr(2) + ":1"},
                                           {"badutf8", kBadUtf8}})
    rows.push_back({"error_range_" + std::string(v.label), cat(err, {"--range", v.text}), {"--range"}});
  rows.push_back({"props_range_nan", {"props", "--fn", "gelu", "--range", "nan:nan"}, {"--range"}});
  rows.push_back({"props_range_too_wide",
                  {"props", "--fn", "gelu", "--range", "-1e308:1e308"},
                  {"--range", "too wide"}});

  // --- choices ---
  enum_option(rows, "eval_fn", {"eval"}, "--fn");
  enum_option(rows, "error_vs", {"error", "--fn", "gelu"}, "--vs");
  enum_option(rows, "props_fn", {"props"}, "--fn");
  enum_option(rows, "bench_fn", {"bench"}, "--fn");
  enum_option(rows, "eval_dtype", {"eval", "--fn", "gelu"}, "--dtype");
  enum_option(rows, "error_metric", err, "--metric");
  enum_option(rows, "eval_backend", {"eval", "--fn", "gelu"}, "--backend");
  enum_option(rows, "bench_backend", {"bench"}, "--backend");
  enum_option(rows, "bench_path", {"bench"}, "--path");
  enum_option(rows, "train_backend", {"train"}, "--backend");
  enum_option(rows, "train_dataset", {"train"}, "--dataset");
  enum_option(rows, "train_act", {"train"}, "--act");
  enum_option(rows, "train_glu", {"train"}, "--glu");
  enum_option(rows, "train_init", {"train"}, "--init");
  enum_option(rows, "train_loss", {"train"}, "--loss");
  enum_option(rows, "train_optimizer", {"train"}, "--optimizer");
  enum_option(rows, "train_schedule", {"train"}, "--schedule");
  enum_option(rows, "shot_panel", shot, "--panel");
  enum_option(rows, "gui_panel", {"gui"}, "--panel");

  // --layers IN,H...,OUT and --size WxH
  for (const Value& v : std::vector<Value>{{"neg_width", "2,-1,1"},
                                           {"zero_width", "2,0,1"},
                                           {"1e20_width", "2,1e20,1"},
                                           {"2pow64_width", "2,18446744073709551616,1"},
                                           {"over_512", "2,513,1"},
                                           {"empty_item", "2,,1"},
                                           {"commas", ","},
                                           {"empty", ""},
                                           {"one_number", "2"},
                                           {"two_numbers", "2,1"},
                                           {"nine_hidden", "2,8,8,8,8,8,8,8,8,8,1"},
                                           {"nan_width", "2,nan,1"},
                                           {"128KiB", "2," + kArg.substr(4) + ",1"},
                                           {"badutf8", "2," + kBadUtf8 + ",1"}})
    rows.push_back({"train_layers_" + std::string(v.label), {"train", "--layers", v.text}, {"--layers"}});
  for (const char* cmd : {"shot", "gui"})
    for (const Value& v : std::vector<Value>{{"zero", "0x0"},
                                             {"negative", "-1x-1"},
                                             {"huge", "99999999999x1"},
                                             {"1e308", "1e308x1e308"},
                                             {"nan", "nanxnan"},
                                             {"empty", ""},
                                             {"x_only", "x"},
                                             {"too_wide", "8193x800"},
                                             {"too_low", "320x239"},
                                             {"trailing", "1280x800x"},
                                             {"spaces", "1280 x 800"},
                                             {"128KiB", kArg},
                                             {"badutf8", kBadUtf8}})
      rows.push_back({std::string(cmd) + "_size_" + v.label,
                      std::string(cmd) == "shot" ? cat(shot, {"--panel", "curves", "--size", v.text})
                                                 : std::vector<std::string>{"gui", "--size", v.text},
                      {"--size"}});

  // --- valid but absurd: refused up front with the limit named ---
  rows.push_back({"train_steps_hours",
                  {"train", "--steps", "10000000", "--batch", "512"},
                  {"--steps", "limit of 3e+12"}});
  rows.push_back({"train_memory",
                  {"train", "--layers", "2,512,512,512,512,512,512,512,512,1", "--batch", "1000000",
                   "--samples", "10000000", "--steps", "1"},
                  {"--batch", "GiB"}});
  rows.push_back({"bench_reps_days", {"bench", "--reps", "100000"}, {"--reps", "limit of 1e+11"}});
  rows.push_back({"bench_sizes_many",
                  {"bench", "--fn", "gelu", "--size", "268435456", "--size", "268435455", "--reps", "1000"},
                  {"evaluations", "limit"}});

  // --- output files in a directory that does not exist, or that are directories: refused before any work ---
  rows.push_back({"error_csv_no_dir",
                  cat(err, {"--csv", "{d}/no_dir/x.csv"}),
                  {"--csv: cannot write", "does not exist"}});
  rows.push_back(
      {"error_csv_directory", cat(err, {"--csv", "{d}"}), {"--csv: cannot write", "it is a directory"}});
  rows.push_back({"train_save_no_dir",
                  {"train", "--save", "{d}/no_dir/m.json"},
                  {"--save: cannot write", "does not exist"}});
  rows.push_back(
      {"train_save_directory", {"train", "--save", "{d}"}, {"--save: cannot write", "it is a directory"}});
  rows.push_back({"train_save_empty", {"train", "--save", ""}, {"--save: cannot write", "empty"}});
  // The one output-path policy for every writer option (reliability class 2), and what is at the path
  // (class 1): a socket, a link loop, a FIFO nobody reads.
  rows.push_back(
      {"error_csv_socket", cat(err, {"--csv", "{f}"}), {"--csv: cannot write", "a socket"}, socket_file()});
  rows.push_back({"error_csv_link_loop",
                  cat(err, {"--csv", "{f}"}),
                  {"--csv: cannot write", "Too many levels of symbolic links"},
                  link_loop()});
  rows.push_back({"train_save_fifo_no_reader",
                  {"train", "--steps", "1", "--json", "--save", "{f}"},
                  {"--save", "{f}", "nothing is reading"},
                  fifo()});
  rows.push_back({"shot_out_no_dir",
                  {"shot", "--panel", "curves", "--out", "{d}/no_dir/x.png"},
                  {"--out: cannot write", "does not exist"}});
  rows.push_back({"shot_out_directory",
                  {"shot", "--panel", "curves", "--out", "{d}"},
                  {"--out: cannot write", "it is a directory"}});
  for (const char* opt : {"--csv", "--plot-out", "--meta", "--session-out"})
    rows.push_back({std::string("shot_") + (opt + 2) + "_no_dir",
                    cat(shot, {"--panel", "curves", opt, "{d}/no_dir/x"}),
                    {std::string(opt) + ": cannot write", "does not exist"}});
  rows.push_back({"gui_report_no_dir",
                  {"gui", "--headless", "--frames", "100000000", "--report", "{d}/no_dir/r.json"},
                  {"--report: cannot write", "does not exist"}});
  rows.push_back({"gui_save_png_directory",
                  {"gui", "--headless", "--frames", "100000000", "--save-png", "{d}"},
                  {"--save-png: cannot write", "it is a directory"}});

  // --- a machine with less memory than the request: the allocation fails with a message, not std::bad_alloc
  // ---
  constexpr std::size_t kMiBytes = std::size_t{1} << 20;
  rows.push_back({"bench_size_no_memory",
                  {"bench", "--fn", "relu", "--size", "268435456", "--reps", "1"},
                  {"--size 268435456: not enough host memory"},
                  nullptr,
                  "",
                  1200 * kMiBytes});
  rows.push_back({"train_samples_no_memory",
                  {"train", "--samples", "10000000", "--steps", "1"},
                  {"out of memory: the input asks for more than this machine has"},
                  nullptr,
                  "",
                  400 * kMiBytes});
  rows.push_back({"error_samples_no_memory",
                  cat(err, {"--samples", "10000000"}),
                  {"out of memory: the input asks for more than this machine has"},
                  nullptr,
                  "",
                  400 * kMiBytes});

  // --- the precision lab: formats, int8 quantization, zoo entries, check's options ---
  enum_option(rows, "error_dtype", err, "--dtype");
  enum_option(rows, "error_compute", err, "--compute");
  enum_option(rows, "eval_compute", {"eval", "--fn", "tanh_form"}, "--compute");
  enum_option(rows, "check_dtype", {"check", "--fn", "gelu", "--pairs", "p.txt"}, "--dtype");
  enum_option(rows, "check_fn", {"check", "--dtype", "bf16", "--pairs", "p.txt"}, "--fn");
  enum_option(rows, "error_fn_zoo", {"error", "--vs", "gelu"}, "--fn");
  float_option(rows, "eval_scale", {"eval", "--fn", "gelu", "--dtype", "int8"}, "--scale", true);
  int_option(rows, "check_max_ulp", {"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", "p.txt"},
             "--max-ulp", false);
  for (const Value& v : std::vector<Value>{{"128", "128"},
                                           {"neg129", "-129"},
                                           {"2pow64", "18446744073709551616"},
                                           {"nan", "nan"},
                                           {"half", "0.5"},
                                           {"1e", "1e"},
                                           {"empty", ""},
                                           {"128KiB", kArg},
                                           {"badutf8", kBadUtf8}})
    rows.push_back({"eval_zero_point_" + std::string(v.label),
                    {"eval", "--fn", "gelu", "--dtype", "int8", "--scale", "0.1", "--zero-point", v.text},
                    {"--zero-point"}});
  for (const Value& v : std::vector<Value>{{"nan_lo", "nan:1"},
                                           {"nan_hi", "1:nan"},
                                           {"inf", "-inf:inf"},
                                           {"reversed", "1:0"},
                                           {"empty", "1:1"},
                                           {"huge", "-1e308:1e308"},
                                           {"colon_only", ":"},
                                           {"empty_text", ""},
                                           {"words", "a:b"},
                                           {"128KiB", kArg.substr(2) + ":1"},
                                           {"badutf8", kBadUtf8}})
    rows.push_back({"eval_int8_range_" + std::string(v.label),
                    {"eval", "--fn", "gelu", "--dtype", "int8", "--int8-range", v.text},
                    {"--int8-range"}});
  const std::vector<std::string> tanh_err = {"error", "--fn", "tanh_form", "--vs", "gelu"};
  rows.push_back({"eval_zero_point_without_scale",
                  {"eval", "--fn", "gelu", "--dtype", "int8", "--zero-point", "3"},
                  {"--zero-point: needs --scale"}});
  rows.push_back({"eval_scale_not_int8",
                  {"eval", "--fn", "gelu", "--dtype", "bf16", "--scale", "0.1"},
                  {"--scale", "int8"}});
  rows.push_back(
      {"eval_scale_without_dtype", {"eval", "--fn", "gelu", "--scale", "0.1"}, {"--scale", "int8"}});
  rows.push_back({"eval_scale_and_range",
                  {"eval", "--fn", "gelu", "--dtype", "int8", "--scale", "0.1", "--int8-range", "-1:1"},
                  {"--int8-range", "not both"}});
  rows.push_back({"eval_order2_zoo", {"eval", "--fn", "tanh_form", "--order", "2"}, {"--order 2"}});
  rows.push_back({"eval_order1_lut", {"eval", "--fn", "f16_lut", "--order", "1"}, {"--order 1"}});
  rows.push_back({"eval_param_zoo", {"eval", "--fn", "tanh_form", "--param", "c=0.04"}, {"--param"}});
  rows.push_back({"eval_compute_registry", {"eval", "--fn", "gelu", "--compute", "f16"}, {"--compute"}});
  // A rounding-point chain on eval, error and check (--store, --compute, --accumulator).
  rows.push_back(
      {"eval_store_scale_format", {"eval", "--fn", "gelu", "--store", "ue4m3"}, {"--store 'ue4m3'"}});
  rows.push_back({"eval_store_long_word", {"eval", "--fn", "gelu", "--store", kArga}, {"--store 'aaa"}});
  rows.push_back({"eval_store_bad_utf8", {"eval", "--fn", "gelu", "--store", kBadUtf8}, {"--store"}});
  rows.push_back(
      {"eval_store_chain_text", {"eval", "--fn", "gelu", "--store", "f32:f32:bf16"}, {"not a chain"}});
  rows.push_back({"eval_store_accumulator_block",
                  {"eval", "--fn", "gelu", "--accumulator", "nvfp4", "--store", "bf16"},
                  {"--accumulator 'nvfp4'"}});
  rows.push_back({"eval_store_block_max_nan",
                  {"eval", "--fn", "gelu", "--store", "mxfp4", "--block-max", "nan"},
                  {"--block-max"}});
  rows.push_back({"eval_store_stdin_garbage",
                  {"eval", "--fn", "gelu", "--store", "mxfp4"},
                  {"line 2: 'x'"},
                  nullptr,
                  "1\nx"});
  rows.push_back({"error_store_no_inputs",
                  {"error", "--fn", "gelu", "--vs", "gelu", "--store", "bf16"},
                  {"needs the inputs"}});
  rows.push_back({"error_store_huge_blocks",
                  {"error", "--fn", "gelu", "--vs", "gelu", "--store", "mxfp4", "--block-dist", "normal:0,1",
                   "--num-blocks", kArg},
                  {"--num-blocks"}});
  rows.push_back({"error_store_npy_garbage",
                  {"error", "--fn", "gelu", "--vs", "gelu", "--store", "bf16", "--blocks", "{f}"},
                  {"--blocks"},
                  file("not an npy file", "x.npy")});
  rows.push_back(
      {"check_store_pairs", {"check", "--fn", "gelu", "--store", "bf16", "--pairs", "p.txt"}, {"--pairs"}});
  rows.push_back(
      {"eval_gpu_bf16", {"eval", "--fn", "gelu", "--dtype", "bf16", "--backend", "gpu"}, {"--backend gpu"}});
  rows.push_back(
      {"eval_stdin_bf16_garbage", cat(eval_cmd(), {"--dtype", "bf16"}), {"line 2: 'x'"}, nullptr, "1\nx"});
  rows.push_back(
      {"error_dtype_listed_twice", cat(err, {"--dtype", "bf16,f16,bf16"}), {"--dtype", "listed twice"}});
  rows.push_back({"error_dtype_empty_item", cat(err, {"--dtype", "bf16,"}), {"--dtype: ''"}});
  rows.push_back(
      {"error_all_f32", cat(err, {"--dtype", "f32", "--all"}), {"--all", "f32 has 4278190080 values"}});
  rows.push_back({"error_all_samples", cat(err, {"--dtype", "bf16", "--all", "--samples", "10"}), {"--all"}});
  rows.push_back({"error_compute_int8", cat(tanh_err, {"--compute", "int8"}), {"--compute: int8"}});
  rows.push_back(
      {"error_fn_twice", {"error", "--fn", "gelu", "--fn", "gelu", "--vs", "gelu"}, {"given twice"}});
  rows.push_back({"error_vs_zoo", {"error", "--fn", "gelu", "--vs", "tanh_form"}, {"--vs", "'tanh_form'"}});
  rows.push_back({"error_order2_zoo", cat(tanh_err, {"--order", "2"}), {"--order 2"}});
  rows.push_back(
      {"error_order1_lut", {"error", "--fn", "f16_lut", "--vs", "gelu", "--order", "1"}, {"--order 1"}});
  rows.push_back({"error_param_zoo", cat(tanh_err, {"--param", "c=0.04"}), {"--param"}});
  rows.push_back({"error_param_two_fns",
                  {"error", "--fn", "gelu_tanh", "--fn", "gelu_sigmoid", "--vs", "gelu", "--param", "c=0.04"},
                  {"--param", "single --fn"}});
  rows.push_back({"error_json_markdown", cat(err, {"--json", "--markdown"}), {"--markdown"}});
  rows.push_back({"error_csv_stdout_json", cat(err, {"--csv", "-", "--json"}), {"--csv -"}});
  rows.push_back({"error_range_without_values",
                  cat(err, {"--dtype", "e4m3", "--all", "--range", "0.0001:0.0002"}),
                  {"--range: no value of e4m3"}});
  rows.push_back({"check_missing_dtype", {"check", "--fn", "gelu", "--pairs", "p.txt"}, {"missing --dtype"}});
  rows.push_back({"check_missing_fn", {"check", "--dtype", "bf16", "--pairs", "p.txt"}, {"missing --fn"}});
  rows.push_back({"check_missing_pairs", {"check", "--fn", "gelu", "--dtype", "bf16"}, {"missing --pairs"}});
  rows.push_back({"check_pairs_and_x",
                  {"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", "p", "--x", "x.npy"},
                  {"--pairs", "not both"}});
  rows.push_back({"check_x_without_y",
                  {"check", "--fn", "gelu", "--dtype", "bf16", "--x", "x.npy"},
                  {"--x: needs --y"}});
  rows.push_back({"check_order2",
                  {"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", "p", "--order", "2"},
                  {"--order 2"}});
  rows.push_back({"check_param_zoo",
                  {"check", "--fn", "tanh_form", "--dtype", "bf16", "--pairs", "p", "--param", "c=1"},
                  {"--param"}});

  // --- check: the pairs file (text) ---
  const std::vector<std::string> chk = {"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", "{f}"};
  rows.push_back({"check_pairs_missing", chk, {"--pairs '{f}'", "No such file"}, missing()});
  rows.push_back({"check_pairs_directory", chk, {"--pairs '{f}'", "is a directory"}, directory()});
  rows.push_back({"check_pairs_fifo", chk, {"--pairs '{f}'", "FIFO"}, [](const fs::path& d) {
                    const fs::path p = d / "pairs.fifo";
                    ::mkfifo(p.c_str(), 0600);
                    return p;
                  }});
  rows.push_back({"check_pairs_unreadable", chk, {"--pairs '{f}'", "cannot read"}, unreadable()});
  rows.push_back({"check_pairs_path_128KiB",
                  cat({"check", "--fn", "gelu", "--dtype", "bf16", "--pairs"}, {kArga}),
                  {"--pairs 'aaaa", "bytes)"}});
  const struct {
    const char* label;
    std::string content;
    std::vector<std::string> needles;
  } text_cases[] = {
      {"x_not_a_value",
       "0 0\n0.1234567 0.1\n",
       {"--pairs '{f}', line 2: x = 0.1234567 is not a value of bf16"}},
      {"y_not_a_value", "1 0.1234567\n", {"line 1: y = 0.1234567 is not a value of bf16"}},
      {"empty", "", {"--pairs '{f}': no pairs", "nothing to check"}},
      {"header_only", "x,y\n", {"--pairs '{f}': no pairs"}},
      {"quoted_header_only", "\"x\",\"y\"\n# nothing\n\n", {"--pairs '{f}': no pairs"}},
      {"x_beyond", "1e39 1\n", {"line 1: x = 1e39 is beyond bf16"}},
      {"one_field", "1 0.84\n3\n", {"line 2: expected two numbers x y, got 1 field"}},
      {"three_fields", "1 2 3\n", {"line 1", "got 3 fields"}},
      {"junk", "1,abc\n", {"line 1: y = 'abc' is not a number"}},
      {"trailing_comma", "1,2,\n", {"line 1", "comma"}},
      {"nul", std::string("1 0.84\n2\0 1\n", 12), {"line 2", "NUL byte"}},
      {"badutf8", "1 " + kBadUtf8 + "\n", {"line 1: y = '\\xFF\\xFE"}},
  };
  for (const auto& c : text_cases)
    rows.push_back({std::string("check_text_") + c.label, chk, c.needles, file(c.content, "p.txt")});
  rows.push_back(
      {"check_text_50MB_line", chk, {"line 1", "more than 8192 bytes"}, big_file(50u << 20, "1", "")});

  // --- check: .npy files ---
  const auto npy = [](const std::string& descr, const std::string& shape, const std::string& data) {
    std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    out += static_cast<char>(h.size() & 0xff);
    out += static_cast<char>(h.size() >> 8);
    return out + h + data;
  };
  const auto f32s = [](std::vector<float> v) {
    std::string s(v.size() * 4, '\0');
    std::memcpy(s.data(), v.data(), s.size());
    return s;
  };
  const struct {
    const char* label;
    std::string content;
    std::vector<std::string> needles;
  } npy_cases[] = {
      {"dtype_i4", npy("<i4", "(1, 2)", std::string(8, '\0')), {"--pairs '{f}': dtype '<i4' is not one of"}},
      {"big_endian", npy(">f4", "(1, 2)", std::string(8, '\0')), {"big-endian"}},
      {"shape_1d", npy("<f4", "(2,)", f32s({1, 0.5f})), {"shape (2,) is not (N, 2)"}},
      {"shape_3_columns", npy("<f4", "(1, 3)", f32s({1, 2, 3})), {"shape (1, 3) is not (N, 2)"}},
      {"truncated",
       npy("<f4", "(3, 2)", f32s({1, 0.84f, 2, 1.95f}) + "ab"),
       {"truncated", "the data ends in row 2 (counting from 0) of 3"}},
      {"trailing", npy("<f4", "(1, 2)", f32s({1, 0.84f}) + "xyz"), {"3 bytes after the data"}},
      {"header_garbage", npy("<f4", "(1, 2)", "").substr(0, 10) + std::string(54, '{') + "\n", {"header"}},
      {"magic_only", "\x93NUMPY", {"truncated"}},
      {"empty", npy("<f4", "(0, 2)", ""), {"--pairs '{f}': no pairs"}},
      {"bits_u1_for_bf16", npy("|u1", "(1, 2)", std::string(2, '\0')), {"'|u1' holds 8-bit patterns"}},
      {"x_not_a_value",
       npy("<f4", "(1, 2)", f32s({0.1f, 0})),
       {"row 0: x = 0.10000000149011612 is not a value of bf16"}},
  };
  for (const auto& c : npy_cases)
    rows.push_back({std::string("check_npy_") + c.label, chk, c.needles, file(c.content, "p.npy")});
  const std::vector<std::string> chk_budget = {"check",   "--fn",      "gelu",     "--dtype", "bf16",
                                               "--pairs", "{d}/p.txt", "--budget", "{f}"};
  rows.push_back({"check_budget_unknown_key",
                  chk_budget,
                  {"--budget '{f}': 'max_ulps' is not a budget key"},
                  file(R"({"max_ulps": 1})", "b.json")});
  rows.push_back({"check_budget_no_limit", chk_budget, {"no limit in the budget"}, file("{}", "b.json")});
  rows.push_back({"check_budget_range_shape",
                  chk_budget,
                  {"'ranges[0]': 'range' must be [A, B]"},
                  file(R"({"ranges": [{"range": [1], "max_ulp": 1}]})", "b.json")});
  rows.push_back({"check_budget_range_reversed",
                  chk_budget,
                  {"'ranges[0]': 'range' [4, -4] is empty"},
                  file(R"({"ranges": [{"range": [4, -4], "max_ulp": 1}]})", "b.json")});
  rows.push_back({"check_budget_specials",
                  chk_budget,
                  {"'specials' must be \"exact\" or \"ignore\""},
                  file(R"({"max_ulp": 1, "specials": "some"})", "b.json")});
  rows.push_back({"check_budget_mismatch_percent",
                  chk_budget,
                  {"'max_mismatch'", "is not a percentage"},
                  file(R"({"max_mismatch": "101%"})", "b.json")});
  rows.push_back({"check_budget_json", chk_budget, {"--budget '{f}': "}, file("{\"max_ulp\": ", "b.json")});
  rows.push_back({"check_budget_missing", chk_budget, {"--budget: ", "No such file"}, missing()});
  rows.push_back({"check_max_mismatch_junk", cat(chk, {"--max-mismatch", "ten"}), {"--max-mismatch: 'ten'"}});
  rows.push_back({"check_max_abs_negative", cat(chk, {"--max-abs", "-1"}), {"--max-abs: '-1'"}});
  rows.push_back({"check_range_reversed", cat(chk, {"--range", "4:-4"}), {"--range: '4:-4' is reversed"}});
  rows.push_back({"check_range_outside_all",
                  cat(chk, {"--range", "10:20"}),
                  {"--pairs '{f}': no pair has x in --range [10, 20] (1 pair outside it)"},
                  file("1 0.84\n", "p.txt")});
  rows.push_back({"check_npy_x_fifo",
                  {"check", "--fn", "gelu", "--dtype", "bf16", "--x", "{f}", "--y", "{f}"},
                  {"--x '{f}': is a FIFO (named pipe), not a regular file"},
                  [](const fs::path& d) {
                    const fs::path p = d / "x.fifo";
                    ::mkfifo(p.c_str(), 0600);
                    return p;
                  }});
  rows.push_back({"check_text_inf_e4m3",
                  {"check", "--fn", "gelu", "--dtype", "e4m3", "--pairs", "{f}"},
                  {"line 1: y = inf is not a value of e4m3 (it has no infinity)"},
                  file("1 inf\n", "p.txt")});
  rows.push_back({"check_npy_unequal_lengths",
                  {"check", "--fn", "gelu", "--dtype", "bf16", "--x", "{f}", "--y", "{d}/y.npy"},
                  {"--x '{f}' has 2 values but --y", "has 3"},
                  [=](const fs::path& d) {
                    write_file(d / "y.npy", npy("<f4", "(3,)", f32s({0, 1, 2})));
                    return write_file(d / "x.npy", npy("<f4", "(2,)", f32s({0, 1})));
                  }});
  rows.push_back({"check_npy_column_2d",
                  {"check", "--fn", "gelu", "--dtype", "bf16", "--x", "{f}", "--y", "{f}"},
                  {"shape (1, 2) is not (N,)"},
                  file(npy("<f4", "(1, 2)", f32s({0, 1})), "x.npy")});
  // --- fit (the approximation designer): every option; the fit itself never starts ---
  const std::vector<std::string> fitp = {"fit", "--form", "poly", "--range", "-4:4"};
  const std::vector<std::string> fitd = cat(fitp, {"--degree", "4"});
  rows.push_back({"fit_missing_form", {"fit", "--degree", "4", "--range", "-4:4"}, {"missing --form"}});
  rows.push_back({"fit_missing_degree", fitp, {"missing --degree"}});
  rows.push_back({"fit_missing_range", {"fit", "--form", "poly", "--degree", "4"}, {"missing --range"}});
  rows.push_back({"fit_repeated_degree", cat(fitd, {"--degree", "5"}), {"--degree is given 2 times"}});
  int_option(rows, "fit_degree", fitp, "--degree", false);
  rows.push_back({"fit_degree_31", cat(fitp, {"--degree", "31"}), {"--degree", "above 30"}});
  rows.push_back({"fit_degree_pair_not_rational", cat(fitp, {"--degree", "3,2"}), {"--degree", "M,N"}});
  for (const Value& v : std::vector<Value>{{"single", "4"},
                                           {"three", "1,2,3"},
                                           {"empty_item", "3,"},
                                           {"n_zero", "3,0"},
                                           {"n_31", "3,31"},
                                           {"m_neg", "-1,2"}})
    rows.push_back({"fit_rational_degree_" + std::string(v.label),
                    {"fit", "--form", "rational", "--range", "-4:4", "--degree", v.text},
                    {"degree"}});
  const std::vector<std::string> fitpw = {"fit", "--form", "piecewise", "--degree", "3", "--range", "-4:4"};
  int_option(rows, "fit_pieces", fitpw, "--pieces", true, false);
  rows.push_back({"fit_pieces_65", cat(fitpw, {"--pieces", "65"}), {"--pieces", "[1, 64]"}});
  rows.push_back({"fit_pieces_missing", fitpw, {"--pieces"}});
  rows.push_back(
      {"fit_pieces_not_piecewise", cat(fitd, {"--pieces", "4"}), {"--pieces is for --form piecewise"}});
  enum_option(rows, "fit_breakpoints", cat(fitpw, {"--pieces", "4"}), "--breakpoints");
  for (const Value& v : std::vector<Value>{{"nan_lo", "nan:1"},
                                           {"inf", "-inf:inf"},
                                           {"reversed", "1:0"},
                                           {"empty", "1:1"},
                                           {"too_wide", "-1e308:1e308"},
                                           {"beyond_1e6", "-1e7:1"},
                                           {"narrow", "1:1.0000000001"},
                                           {"words", "a:b"},
                                           {"128KiB", kArg.substr(2) + ":1"},
                                           {"badutf8", kBadUtf8}})
    rows.push_back({"fit_range_" + std::string(v.label),
                    {"fit", "--form", "poly", "--degree", "4", "--range", v.text},
                    {"range"}});
  enum_option(rows, "fit_form", {"fit", "--degree", "4", "--range", "-4:4"}, "--form");
  enum_option(rows, "fit_target", fitd, "--target");
  enum_option(rows, "fit_weight", fitd, "--weight");
  enum_option(rows, "fit_format", fitd, "--format");
  enum_option(rows, "fit_clamp", fitd, "--clamp");
  enum_option(rows, "fit_method", fitd, "--method");
  rows.push_back({"fit_format_e4m3", cat(fitd, {"--format", "e4m3"}), {"--format", "f64, f32, bf16, f16"}});
  rows.push_back(
      {"fit_weight_rel_zero_inside", cat(fitd, {"--weight", "rel"}), {"relative error makes no sense"}});
  rows.push_back({"fit_weight_ulp_zero_inside",
                  cat(fitd, {"--weight", "ulp", "--format", "f32"}),
                  {"ULPs makes no sense for gelu"}});
  rows.push_back({"fit_weight_ulp_f64",
                  {"fit", "--form", "poly", "--degree", "4", "--range", "0.5:4", "--weight", "ulp"},
                  {"choose f32, bf16 or f16"}});
  rows.push_back({"fit_lsq_rational",
                  {"fit", "--form", "rational", "--degree", "3,3", "--range", "-4:4", "--method", "lsq"},
                  {"least squares"}});
  for (const Value& v : std::vector<Value>{{"digit_first", "2gelu"},
                                           {"keyword", "float"},
                                           {"empty", ""},
                                           {"128KiB", kArga},
                                           {"badutf8", kBadUtf8}})
    rows.push_back({"fit_name_" + std::string(v.label), cat(fitd, {"--name", v.text}), {"--name"}});
  for (const char* opt : {"--export-cpp", "--export-glsl", "--export-cuda", "--vectors"}) {
    const std::string tag = std::string("fit_") + (opt + 2);
    rows.push_back({tag + "_no_dir",
                    cat(fitd, {opt, "{d}/no_dir/x"}),
                    {std::string(opt) + ": cannot write", "does not exist"}});
    rows.push_back({tag + "_directory",
                    cat(fitd, {opt, "{d}"}),
                    {std::string(opt) + ": cannot write", "it is a directory"}});
  }
  rows.push_back({"fit_rational_no_convergence",
                  {"fit", "--form", "rational", "--degree", "5,4", "--range", "-4:4"},
                  {"rational fit did not converge", "pole"}});

  // --- eval: bytes on stdin and --input ---
  const std::vector<std::string> eval = {"eval", "--fn", "gelu"};
  rows.push_back({"eval_stdin_nul",
                  eval,
                  {"stdin, line 1: '1\\x00' is not a number"},
                  nullptr,
                  std::string("1\0 2\n", 5)});
  rows.push_back({"eval_stdin_nul_only", eval, {"stdin, line 1", "\\x00"}, nullptr, std::string(3, '\0')});
  rows.push_back(
      {"eval_stdin_badutf8", eval, {"stdin, line 2: '\\xFF\\xFE"}, nullptr, "1\n" + kBadUtf8 + "\n"});
  rows.push_back({"eval_stdin_1e", eval, {"stdin, line 3: '1e'"}, nullptr, "1\n2\n1e\n"});
  rows.push_back({"eval_stdin_0x", eval, {"stdin, line 1: '0x'"}, nullptr, "0x 1"});
  rows.push_back(
      {"eval_stdin_1MiB_token", eval, {"stdin, line 1", "more than 4096 bytes"}, nullptr, kMiB + " 1"});
  rows.push_back(
      {"eval_stdin_1MiB_word", eval, {"stdin, line 2", "more than 4096 bytes"}, nullptr, "1\n" + kMiBa});
  rows.push_back({"eval_stdin_f32_garbage", cat(eval, {"--dtype", "f32"}), {"line 1: 'x'"}, nullptr, "x"});
  rows.push_back(
      {"eval_input_missing", cat(eval, {"--input", "{f}"}), {"--input '{f}'", "No such file"}, missing()});
  rows.push_back({"eval_input_directory",
                  cat(eval, {"--input", "{f}"}),
                  {"--input '{f}'", "is a directory"},
                  directory()});
  rows.push_back({"eval_input_unreadable",
                  cat(eval, {"--input", "{f}"}),
                  {"--input '{f}'", "cannot read"},
                  unreadable()});
  rows.push_back({"eval_input_nul",
                  cat(eval, {"--input", "{f}"}),
                  {"--input '{f}', line 2", "\\x00"},
                  file(std::string("1\n2\0\n", 5), "in.txt")});
  rows.push_back({"eval_input_50MB_token",
                  cat(eval, {"--input", "{f}"}),
                  {"--input '{f}', line 1", "4096 bytes"},
                  big_file(50u << 20, "", "")});
  rows.push_back({"eval_input_path_128KiB", cat(eval, {"--input", kArga}), {"--input 'aaaa", "bytes)"}});

  // --- JSON files: the file as a whole ---
  file_problems(rows, "state", cat(shot, {"--panel", "curves", "--state", "{f}"}), "{f}",
                R"({"x": [-4, 4]})");
  file_problems(rows, "lesson", {"lessons", "--check", "{f}"}, "{f}",
                R"({"title": "t", "steps": [{"title": "a", "text": "b", "panel": "curves"}]})");
  file_problems(rows, "shot_lesson", cat(shot, {"--lesson", "{f}"}), "{f}",
                R"({"title": "t", "steps": [{"title": "a", "text": "b", "panel": "curves"}]})");
  file_problems(rows, "session", cat(shot, {"--session", "{f}"}), "{f}",
                R"({"format": "gelulab-session", "version": 1})");
  file_problems(rows, "model", {"train", "--steps", "1", "--load", "{f}"}, "{f}",
                R"({"format": "gelulab-ffn", "version": 1})");
  file_problems(rows, "gui_state", {"gui", "--state", "{f}"}, "{f}", R"({"x": [-4, 4]})");
  // gui --session FILE: a bad session is reported and the app would start with the defaults (here: no
  // display).
  rows.push_back({"gui_session_bad_json",
                  {"gui", "--session", "{f}"},
                  {"Could not restore the last session", "{f}", "line 1"},
                  file("{\"format\": ")});
  rows.push_back({"gui_session_directory",
                  {"gui", "--session", "{f}"},
                  {"Could not restore the last session", "{f}", "directory"},
                  directory()});
  rows.push_back({"gui_session_fifo",
                  {"gui", "--session", "{f}"},
                  {"Could not restore the last session", "{f}", "a FIFO (named pipe)"},
                  fifo()});
  rows.push_back({"gui_script_fifo", {"gui", "--script", "{f}"}, {"--script", "{f}", "FIFO"}, fifo()});
  rows.push_back({"gui_session_newer",
                  {"gui", "--session", "{f}"},
                  {"Could not restore the last session", "{f}", "newer"},
                  file(R"({"format": "gelulab-session", "version": 99})")});
  rows.push_back({"state_50MB",
                  cat(shot, {"--panel", "curves", "--state", "{f}"}),
                  {"{f}", "too large"},
                  big_file(50u << 20, "{\"functions\": [\"", "\"]}")});
  rows.push_back({"lesson_50MB",
                  {"lessons", "--check", "{f}"},
                  {"{f}", "too large"},
                  big_file(50u << 20, "{\"title\": \"", "\"}")});
  rows.push_back({"session_50MB",
                  cat(shot, {"--session", "{f}"}),
                  {"{f}", "too large"},
                  big_file(50u << 20, "{\"format\": \"", "\"}")});
  rows.push_back({"model_50MB_string",
                  {"train", "--load", "{f}"},
                  {"--load", "{f}", "not a GELU Lab model file"},
                  big_file(50u << 20, "{\"format\": \"", "\"}")});
  rows.push_back(
      {"state_path_128KiB", cat(shot, {"--panel", "curves", "--state", kArga}), {"--state", "bytes)"}});
  rows.push_back(
      {"script_missing", {"gui", "--script", "{f}"}, {"--script", "{f}", "No such file"}, missing()});
  rows.push_back(
      {"script_directory", {"gui", "--script", "{f}"}, {"--script", "{f}", "directory"}, directory()});
  rows.push_back(
      {"script_unreadable", {"gui", "--script", "{f}"}, {"--script", "cannot read"}, unreadable()});
  rows.push_back({"script_nul",
                  {"gui", "--script", "{f}"},
                  {"--script", "script line 1", "\\x00"},
                  file(std::string("wait\0 1\n", 8), "s.txt")});
  rows.push_back({"script_badutf8",
                  {"gui", "--script", "{f}"},
                  {"--script", "script line 1", "\\xFF"},
                  file(kBadUtf8 + "\n", "s.txt")});
  rows.push_back({"script_repeat_2e9",
                  {"gui", "--script", "{f}"},
                  {"--script", "script line 1", "repeat"},
                  file("repeat 2000000000\nwait 1\nend\n", "s.txt")});
  rows.push_back({"script_repeat_expands",
                  {"gui", "--script", "{f}"},
                  {"--script", "more than 1000000 commands"},
                  file("repeat 1000000\nwait 1\nwait 1\nend\n", "s.txt")});
  rows.push_back({"script_wait_1e20",
                  {"gui", "--script", "{f}"},
                  {"--script", "wait needs a frame count"},
                  file("wait 100000000000000000000\n", "s.txt")});
  rows.push_back({"script_drag_huge",
                  {"gui", "--script", "{f}"},
                  {"--script", "drag needs a frame count"},
                  file("drag plot 0 0 1 1 2147483647\n", "s.txt")});
  rows.push_back({"script_command_1MiB",
                  {"gui", "--script", "{f}"},
                  {"--script", "unknown command 'aaaa", "bytes)"},
                  file(kMiBa + "\n", "s.txt")});

  // --- JSON fields: panel states (gelulab shot --state) ---
  struct Field {
    const char* panel;
    const char* label;
    std::string json;
    std::string needle;
  };
  const std::vector<Field> fields = {
      {"curves", "x_string", R"({"x": "wide"})", "'x'"},
      {"curves", "x_null", R"({"x": null})", "'x'"},
      {"curves", "x_object", R"({"x": {"min": 0}})", "'x'"},
      {"curves", "x_one", R"({"x": [1]})", "'x'"},
      {"curves", "x_reversed", R"({"x": [1, -1]})", "'x'"},
      {"curves", "x_empty", R"({"x": [1, 1]})", "'x'"},
      {"curves", "x_string_end", R"({"x": [0, "1"]})", "'x'"},
      {"curves", "x_1e999", R"({"x": [0, 1e999]})", "number out of range"},
      {"curves", "y_three", R"({"y": [0, 1, 2]})", "'y'"},
      {"curves", "functions_string", R"({"functions": "gelu"})", "'functions'"},
      {"curves", "functions_number", R"({"functions": [1]})", "'functions'"},
      {"curves", "functions_unknown", R"({"functions": ["nosuch"]})", "unknown function 'nosuch'"},
      {"curves", "functions_1MiB", "{\"functions\": [\"" + kMiBa + "\"]}", "(1048576 bytes)"},
      {"curves", "functions_nul", R"({"functions": ["gelu\u0000"]})", "'gelu\\x00'"},
      {"curves", "params_array", R"({"params": [1]})", "'params'"},
      {"curves", "params_unknown", R"({"params": {"nosuch.k": 1}})", "unknown parameter 'nosuch.k'"},
      {"curves", "params_range", R"({"params": {"gelu_tanh.c": 1e308}})", "'gelu_tanh.c'"},
      {"curves", "params_string", R"({"params": {"gelu_tanh.c": "0.04"}})", "'gelu_tanh.c'"},
      {"curves", "probe_1e308", R"({"probe": 1e308})", "'probe'"},
      {"curves", "probe_string", R"({"probe": "1"})", "'probe'"},
      {"curves", "derivatives_3", R"({"derivatives": [3]})", "'derivatives'"},
      {"curves", "derivatives_object", R"({"derivatives": {}})", "'derivatives'"},
      {"curves", "shade_dip_number", R"({"shade_dip": 1})", "'shade_dip'"},
      {"curves", "shade_dead_null", R"({"shade_dead": null})", "'shade_dead'"},
      {"curves", "symlog_string", R"({"symlog": "yes"})", "'symlog'"},
      {"curves", "unknown_key", R"({"funtions": []})", "unknown key 'funtions'"},
      {"curves", "unknown_key_1MiB", "{\"" + kMiBa + "\": 1}", "(1048576 bytes)"},
      {"curves", "unknown_key_badutf8", "{\"" + kBadUtf8 + "\": 1}", "unknown key '\\xFF\\xFE"},
      {"curves", "unknown_key_no_break_space", "{\"x\xC2\xA0\": [-1, 1]}",
       "unknown key 'x\\u{00A0}' (U+00A0 no-break space)"},
      {"curves", "function_zero_width_space", "{\"functions\": [\"gelu\\u200b\"]}",
       "'gelu\\u{200B}' (U+200B zero-width space)"},
      {"approx", "error_y_reversed", R"({"error_y": [1, 0]})", "'error_y'"},
      {"approx", "metric_unknown", R"({"metric": "max"})", "'metric'"},
      {"approx", "metric_number", R"({"metric": 1})", "'metric'"},
      {"approx", "log_string", R"({"log": "true"})", "'log'"},
      {"approx", "dtype_f16", R"({"dtype": "f16"})", "'dtype'"},
      {"approx", "tuned_form_array", R"({"tuned_form": ["tanh"]})", "'tuned_form'"},
      {"approx", "tuned_1e308", R"({"tuned": 1e308})", "'tuned'"},
      {"approx", "tuned_negative", R"({"tuned": -1e308})", "'tuned'"},
      {"approx", "gpu_number", R"({"gpu": 0})", "'gpu'"},
      {"dropout", "x0_1e308", R"({"x0": 1e308})", "'x0'"},
      {"dropout", "samples_1e308", R"({"samples": 1e308})", "'samples'"},
      {"dropout", "samples_zero", R"({"samples": 0})", "'samples'"},
      {"dropout", "samples_string", R"({"samples": "100"})", "'samples'"},
      {"dropout", "seed_negative", R"({"seed": -1})", "'seed'"},
      {"dropout", "seed_2pow64", R"({"seed": 18446744073709551616})", "'seed'"},
      {"dropout", "mu_null", R"({"mu": null})", "'mu'"},
      {"dropout", "sigma_zero", R"({"sigma": 0})", "'sigma'"},
      {"dropout", "rate_1e308", R"({"rate": 1e308})", "'rate'"},
      {"dropout", "playing_string", R"({"playing": "no"})", "'playing'"},
      {"ffn", "dataset_regression", R"({"dataset": "sin"})", "'dataset'"},
      {"ffn", "dataset_number", R"({"dataset": 1})", "'dataset'"},
      {"ffn", "dataset_1MiB", "{\"dataset\": \"" + kMiBa + "\"}", "'dataset'"},
      {"ffn", "samples_1e308", R"({"samples": 1e308})", "'samples'"},
      {"ffn", "samples_negative", R"({"samples": -5})", "'samples'"},
      {"ffn", "noise_1e308", R"({"noise": 1e308})", "'noise'"},
      {"ffn", "noise_string", R"({"noise": "0.1"})", "'noise'"},
      {"ffn", "classes_1e308", R"({"classes": 1e308})", "'classes'"},
      {"ffn", "data_seed_negative", R"({"data_seed": -1})", "'data_seed'"},
      {"ffn", "edits_object", R"({"edits": {}})", "'edits'"},
      {"ffn", "edits_number_item", R"({"edits": [1]})", "'edits[0]'"},
      {"ffn", "edits_op_number", R"({"edits": [{"op": 1, "x": 0, "y": 0}]})", "'edits[0]'"},
      {"ffn", "edits_x_1e308", R"({"edits": [{"op": "add", "x": 1e308, "y": 0, "label": 0}]})", "'edits[0]'"},
      {"ffn", "edits_too_many",
       [] {
         std::string s = "{\"edits\": [";
         for (int i = 0; i < 20001; ++i) s += std::string(i ? "," : "") + R"({"op":"remove","x":0,"y":0})";
         return s + "]}";
       }(),
       "'edits'"},
      {"ffn", "widths_empty", R"({"widths": []})", "'widths'"},
      {"ffn", "widths_five", R"({"widths": [8, 8, 8, 8, 8]})", "'widths'"},
      {"ffn", "widths_1e308", R"({"widths": [1e308]})", "'widths'"},
      {"ffn", "widths_negative", R"({"widths": [-16]})", "'widths'"},
      {"ffn", "widths_string", R"({"widths": ["16"]})", "'widths'"},
      {"ffn", "glu_string", R"({"glu": "geglu"})", "'glu'"},
      {"ffn", "a_array", R"({"a": []})", "'a'"},
      {"ffn", "b_string", R"({"b": "gelu"})", "'b'"},
      {"ffn", "a_activations_unknown", R"({"a": {"activations": ["nosuch"]}})", "'activations'"},
      {"ffn", "b_glu_unknown", R"({"b": {"glu": "noglu"}})", "'glu'"},
      {"ffn", "ab_number", R"({"ab": 1})", "'ab'"},
      {"ffn", "optimizer_unknown", R"({"optimizer": "rmsprop"})", "'optimizer'"},
      {"ffn", "lr_1e308", R"({"lr": 1e308})", "'lr'"},
      {"ffn", "lr_zero", R"({"lr": 0})", "'lr'"},
      {"ffn", "batch_1e308", R"({"batch": 1e308})", "'batch'"},
      {"ffn", "init_seed_string", R"({"init_seed": "7"})", "'init_seed'"},
      {"ffn", "backend_tpu", R"({"backend": "tpu"})", "'backend'"},
      {"ffn", "grid_1e308", R"({"grid": 1e308})", "'grid'"},
      {"ffn", "speed_negative", R"({"speed": -1})", "'speed'"},
      {"ffn", "shot_steps_1e308", R"({"shot_steps": 1e308})", "'shot_steps'"},
      {"ffn", "shot_steps_hours",
       R"({"widths": [128, 128, 128, 128], "glu": true, "batch": 4096, "shot_steps": 100000})", "limit"},
      {"ffn", "playing_number", R"({"playing": 1})", "'playing'"},
      {"ffn", "unknown_key", R"({"widht": [8]})", "unknown key 'widht'"},
      {"bench", "functions_unknown", R"({"functions": ["nosuch"]})", "'functions'"},
      {"bench", "sizes_empty", R"({"sizes": []})", "'sizes'"},
      {"bench", "sizes_1e308", R"({"sizes": [1e308]})", "'sizes'"},
      {"bench", "sizes_zero", R"({"sizes": [0]})", "'sizes'"},
      {"bench", "sizes_string", R"({"sizes": ["4096"]})", "'sizes'"},
      {"bench", "backends_unknown", R"({"backends": ["tpu"]})", "'backends'"},
      {"bench", "reps_1e308", R"({"reps": 1e308})", "'reps'"},
      {"bench", "reps_zero", R"({"reps": 0})", "'reps'"},
      {"bench", "shown_size_negative", R"({"shown_size": -1})", "'shown_size'"},
      {"bench", "shown_function_number", R"({"shown_function": 1})", "'shown_function'"},
      {"bench", "export_empty", R"({"export": ""})", "'export'"},
      {"bench", "measure_hours", R"({"sizes": [67108864, 67108863, 67108862], "reps": 1000})", "limit"},
      {"approx", "compare_unknown", R"({"compare": ["nosuch"]})", "'compare': unknown zoo entry 'nosuch'"},
      {"approx", "compare_string", R"({"compare": "tanh_form"})", "'compare'"},
      {"precision", "entries_string", R"({"entries": "tanh_form"})", "'entries'"},
      {"precision", "entries_number", R"({"entries": [1]})", "'entries'"},
      {"precision", "entries_unknown", R"({"entries": ["nosuch"]})", "'entries': unknown zoo entry 'nosuch'"},
      {"precision", "entries_registry_id", R"({"entries": ["gelu"]})", "unknown zoo entry 'gelu'"},
      {"precision", "entries_candidate_badchar", R"({"entries": ["fit_A"]})", "unknown zoo entry 'fit_A'"},
      {"precision", "entries_65",
       [] {
         std::string s = "{\"entries\": [";
         for (int i = 0; i < 65; ++i) s += std::string(i ? "," : "") + "\"fit_" + std::to_string(i) + "\"";
         return s + "]}";
       }(),
       "'entries' must be an array of at most 64"},
      {"precision", "entries_1MiB", "{\"entries\": [\"" + kMiBa + "\"]}", "(1048576 bytes)"},
      {"precision", "formats_empty", R"({"formats": []})", "'formats'"},
      {"precision", "formats_f32", R"({"formats": ["f32"]})", "'formats'"},
      {"precision", "formats_int8", R"({"formats": ["int8"]})", "'formats'"},
      {"precision", "compute_int8", R"({"compute": "int8"})", "'compute'"},
      {"precision", "derivatives_number", R"({"derivatives": 1})", "'derivatives'"},
      {"precision", "int8_scale_zero", R"({"int8_scale": 0})", "'int8_scale'"},
      {"precision", "int8_scale_1e308", R"({"int8_scale": 1e308})", "'int8_scale'"},
      {"precision", "int8_scale_nan_string", R"({"int8_scale": "nan"})", "'int8_scale'"},
      {"precision", "x_reversed", R"({"x": [8, -8]})", "'x'"},
      {"precision", "export_empty", R"({"export": ""})", "'export'"},
      {"precision", "unknown_key", R"({"entry": ["tanh_form"]})", "unknown key 'entry'"},
      {"precision", "sweeps_too_many",
       [] {
         std::string s = "{\"formats\": [\"bf16\", \"f16\"], \"entries\": [";
         for (int i = 0; i < 64; ++i) s += std::string(i ? "," : "") + "\"fit_" + std::to_string(i) + "\"";
         return s + "]}";
       }(),
       "exhaustive 16-bit sweeps"},
      {"designer", "target_unknown", R"({"target": "relu"})", "'target'"},
      {"designer", "form_number", R"({"form": 1})", "'form'"},
      {"designer", "degree_31", R"({"degree": 31})", "'degree'"},
      {"designer", "degree_negative", R"({"degree": -1})", "'degree'"},
      {"designer", "degree_1e308", R"({"degree": 1e308})", "'degree'"},
      {"designer", "denominator_degree_negative", R"({"denominator_degree": -1})", "'denominator_degree'"},
      {"designer", "denominator_degree_31", R"({"denominator_degree": 31})", "'denominator_degree'"},
      {"designer", "pieces_65", R"({"pieces": 65})", "'pieces'"},
      {"designer", "breakpoints_unknown", R"({"breakpoints": "random"})", "'breakpoints'"},
      {"designer", "range_reversed", R"({"range": [4, -4]})", "'range'"},
      {"designer", "range_1e7", R"({"range": [-1e7, 4]})", "'range'"},
      {"designer", "range_narrow", R"({"range": [0, 1e-9]})", "'range'"},
      {"designer", "clamp_unknown", R"({"clamp": "wrap"})", "'clamp'"},
      {"designer", "weight_number", R"({"weight": 2})", "'weight'"},
      {"designer", "method_unknown", R"({"method": "newton"})", "'method'"},
      {"designer", "format_e4m3", R"({"format": "e4m3"})", "'format'"},
      {"designer", "reoptimize_string", R"({"reoptimize": "yes"})", "'reoptimize'"},
      {"designer", "candidates_object", R"({"candidates": {}})", "'candidates'"},
      {"designer", "candidates_33",
       [] {
         std::string s = "{\"candidates\": [";
         for (int i = 0; i < 33; ++i) s += std::string(i ? "," : "") + "{}";
         return s + "]}";
       }(),
       "'candidates' must be an array of at most 32"},
      {"designer", "candidate_number", R"({"candidates": [1]})", "'candidates[0]' must be an object"},
      {"designer", "candidate_no_id", R"({"candidates": [{"spec": {}}]})", "'candidates[0]': 'id'"},
      {"designer", "candidate_builtin_id", R"({"candidates": [{"id": "tanh_form"}]})",
       "'candidates[0]': 'id'"},
      {"designer", "candidate_no_spec", R"({"candidates": [{"id": "fit_x"}]})",
       "'candidates[0]': missing spec"},
      {"designer", "candidate_spec_degree", R"({"candidates": [{"id": "fit_x", "spec": {"degree": 99}}]})",
       "'candidates[0]': spec: 'degree'"},
      {"designer", "candidate_spec_rel_over_zero",
       R"({"candidates": [{"id": "fit_x", "spec": {"weight": "rel"}}]})", "relative error makes no sense"},
      {"designer", "candidate_coefficients_short",
       R"({"candidates": [{"id": "fit_x", "spec": {"degree": 2}, "coefficients": [0, 0]}]})",
       "coefficients must be an array of 3"},
      {"designer", "candidate_coefficients_nan",
       R"({"candidates": [{"id": "fit_x", "spec": {"degree": 0}, "coefficients": [1e999]}]})",
       "number out of range"},
      {"designer", "candidate_coefficient_not_f32",
       R"({"candidates": [{"id": "fit_x", "spec": {"degree": 0, "format": "f32"}, "coefficients": [0.1]}]})",
       "is not a value of f32"},
      {"designer", "candidate_breakpoints_missing",
       R"({"candidates": [{"id": "fit_x", "spec": {"degree": 0, "form": "piecewise", "pieces": 2},
                           "coefficients": [0, 0]}]})",
       "breakpoints must be an array of 3"},
      {"designer", "candidate_breakpoints_decreasing",
       R"({"candidates": [{"id": "fit_x", "spec": {"degree": 0, "form": "piecewise", "pieces": 2},
                           "coefficients": [0, 0], "breakpoints": [-4, 5, 4], "centers": [0, 0]}]})",
       "breakpoints must increase"},
      {"designer", "candidate_max_error_missing",
       R"({"candidates": [{"id": "fit_x", "spec": {"degree": 0}, "coefficients": [0]}]})",
       "missing max_error"},
      {"designer", "candidate_extra_key",
       R"({"candidates": [{"id": "fit_x", "spec": {"degree": 0}, "coefficients": [0], "max_error": 1,
                           "x_at_max": 0, "colour": 1}]})",
       "unknown key 'colour'"},
      {"designer", "candidate_twice",
       R"({"candidates": [{"id": "fit_x", "spec": {"degree": 0}, "coefficients": [0], "max_error": 1, "x_at_max": 0},
                          {"id": "fit_x", "spec": {"degree": 0}, "coefficients": [0], "max_error": 1, "x_at_max": 0}]})",
       "is taken"},
      {"designer", "candidate_prime_compared",
       R"({"candidates": [{"id": "fit_x", "compared": true, "spec": {"degree": 0, "target": "gelu_prime"},
                           "coefficients": [0], "max_error": 1, "x_at_max": 0}]})",
       "cannot be compared"},
      {"designer", "log_error_number", R"({"log_error": 0})", "'log_error'"},
      {"designer", "export_name_space", R"({"export_name": "my gelu"})", "'export_name'"},
      {"designer", "export_name_keyword", R"({"export_name": "float"})", "'export_name'"},
      {"designer", "export_empty", R"({"export": ""})", "'export'"},
      {"designer", "unknown_key", R"({"degre": 6})", "unknown key 'degre'"},
      {"designer", "fit_too_big",
       R"({"form": "piecewise", "pieces": 64, "degree": 30, "breakpoints": "optimized"})",
       "more than a headless shot fits"},
  };
  for (const Field& f : fields)
    rows.push_back({"state_" + std::string(f.panel) + "_" + f.label,
                    cat(shot, {"--panel", f.panel, "--state", "{f}"}),
                    {"--state", "{f}", f.needle},
                    file(f.json)});

  // --- JSON fields: lessons (gelulab lessons --check) ---
  const std::string step = R"({"title": "a", "text": "b", "panel": "curves"})";
  const auto lesson = [&](const std::string& top, const std::string& steps) {
    return "{" + top + (top.empty() ? "" : ", ") + "\"steps\": " + steps + "}";
  };
  const std::vector<Field> lesson_fields = {
      {"", "title_missing", lesson("", "[" + step + "]"), "title: missing"},
      {"", "title_number", lesson(R"("title": 1)", "[" + step + "]"), "title: must be a string"},
      {"", "title_null", lesson(R"("title": null)", "[" + step + "]"), "title: must be a string"},
      {"", "title_blank", lesson(R"("title": " ")", "[" + step + "]"), "title: must not be empty"},
      {"", "title_1MiB", lesson("\"title\": \"" + kMiBa + "\"", "[" + step + "]"), "title: is 1048576 bytes"},
      {"", "version_zero", lesson(R"("title": "t", "version": 0)", "[" + step + "]"),
       "version: must be a positive"},
      {"", "version_fraction", lesson(R"("title": "t", "version": 1.5)", "[" + step + "]"),
       "version: must be a positive"},
      {"", "version_1e308", lesson(R"("title": "t", "version": 1e308)", "[" + step + "]"), "version: is"},
      {"", "version_string", lesson(R"("title": "t", "version": "1")", "[" + step + "]"),
       "version: must be a positive"},
      {"", "version_newer", lesson(R"("title": "t", "version": 3)", "[" + step + "]"), "newer GELU Lab"},
      {"", "steps_missing", R"({"title": "t"})", "steps: missing"},
      {"", "steps_empty", lesson(R"("title": "t")", "[]"), "steps: must be a non-empty array"},
      {"", "steps_object", lesson(R"("title": "t")", "{}"), "steps: must be a non-empty array"},
      {"", "step_number", lesson(R"("title": "t")", "[1]"), "steps[0]: must be an object"},
      {"", "step_text_array",
       lesson(R"("title": "t")", R"([{"title": "a", "text": ["b"], "panel": "curves"}])"),
       "steps[0].text: must be a string"},
      {"", "step_text_1MiB",
       lesson(R"("title": "t")", "[{\"title\": \"a\", \"text\": \"" + kMiBa + "\", \"panel\": \"curves\"}]"),
       "steps[0].text: is 1048576 bytes"},
      {"", "step_panel_unknown",
       lesson(R"("title": "t")", R"([{"title": "a", "text": "b", "panel": "nosuch"}])"),
       "steps[0].panel: unknown panel 'nosuch'"},
      {"", "step_state_string",
       lesson(R"("title": "t")", R"([{"title": "a", "text": "b", "panel": "curves", "state": "x"}])"),
       "steps[0].state: must be an object"},
      {"", "step_state_bad_field",
       lesson(R"("title": "t")",
              R"([{"title": "a", "text": "b", "panel": "dropout", "state": {"samples": 1e308}}])"),
       "steps[0].state: 'samples'"},
      {"", "unknown_key_1MiB", lesson("\"title\": \"t\", \"" + kMiBa + "\": 1", "[" + step + "]"),
       "(1048576 bytes)"},
      {"", "step_text_computed_by_no_panel",
       lesson(R"("title": "t")", R"([{"title": "a", "text": "{verdict:tanh_form}", "panel": "curves"}])"),
       "steps[0].text: {verdict:tanh_form}: the Curves panel computes no text"},
      {"", "step_text_computed_unknown_entry",
       lesson(R"("title": "t")",
              R"([{"title": "a", "text": "{verdict:erf_naive}", "panel": "precision",
                   "state": {"entries": ["tanh_form"]}}])"),
       "steps[0].text: {verdict:erf_naive}: 'erf_naive' is not among the step's entries"},
      {"", "step_text_computed_unknown_key",
       lesson(R"("title": "t")", R"([{"title": "a", "text": "{median:tanh_form}", "panel": "precision"}])"),
       "steps[0].text: {median:tanh_form}: the Precision panel computes"},
  };
  for (const Field& f : lesson_fields)
    rows.push_back(
        {"lesson_" + std::string(f.label), {"lessons", "--check", "{f}"}, {"{f}", f.needle}, file(f.json)});

  // --- JSON fields: sessions (gelulab shot --session) ---
  const auto session = [](const std::string& rest) {
    return R"({"format": "gelulab-session", "version": 1)" + std::string(rest.empty() ? "" : ", ") + rest +
           "}";
  };
  const std::vector<Field> session_fields = {
      {"", "format_missing", R"({"version": 1})", "format: must be \"gelulab-session\""},
      {"", "format_number", R"({"format": 1, "version": 1})", "format: must be"},
      {"", "version_missing", R"({"format": "gelulab-session"})", "version: must be a positive integer"},
      {"", "version_1e308", R"({"format": "gelulab-session", "version": 1e308})",
       "version: this session was written by a newer"},
      {"", "version_negative", R"({"format": "gelulab-session", "version": -1})",
       "version: must be a positive integer"},
      {"", "version_string", R"({"format": "gelulab-session", "version": "1"})",
       "version: must be a positive integer"},
      {"", "active_panel_unknown", session(R"("active_panel": "nosuch")"),
       "active_panel: unknown panel 'nosuch'"},
      {"", "active_panel_number", session(R"("active_panel": 3)"), "active_panel: must be a panel id"},
      {"", "panels_array", session(R"("panels": [])"), "panels: must be an object"},
      {"", "panels_unknown", session(R"("panels": {"nosuch": {}})"), "panels.nosuch: no such panel"},
      {"", "panels_key_1MiB", session("\"panels\": {\"" + kMiBa + "\": {}}"),
       "(1048576 bytes): no such panel"},
      {"", "panels_state_bad", session(R"("panels": {"curves": {"x": "wide"}})"), "panels.curves: 'x'"},
      {"", "panels_state_null", session(R"("panels": {"approx": null})"), "panels.approx"},
      {"", "presentation_scale_1e308", session(R"("presentation": {"on": true, "scale": 1e308})"),
       "presentation.scale"},
      {"", "presentation_on_string", session(R"("presentation": {"on": "yes", "scale": 1})"),
       "presentation.on"},
      {"", "presentation_string", session(R"("presentation": "on")"), "presentation: must be an object"},
      {"", "window_width_1e308",
       session(R"("window": {"x": 0, "y": 0, "width": 1e308, "height": 800, "fullscreen": false})"),
       "window.width"},
      {"", "window_x_negative_huge",
       session(R"("window": {"x": -1e308, "y": 0, "width": 1280, "height": 800, "fullscreen": false})"),
       "window.x"},
      {"", "window_height_string",
       session(R"("window": {"x": 0, "y": 0, "width": 1280, "height": "800", "fullscreen": false})"),
       "window.height"},
      {"", "window_missing_field", session(R"("window": {"x": 0})"), "window.y: missing"},
      {"", "lesson_file_number", session(R"("lesson": {"file": 1, "step": 1})"), "lesson.file"},
      {"", "unknown_key", session(R"("panles": {})"), "panles: unknown key"},
  };
  for (const Field& f : session_fields)
    rows.push_back({"session_" + std::string(f.label),
                    cat(shot, {"--session", "{f}"}),
                    {"--session", "{f}", f.needle},
                    file(f.json)});

  // --- JSON fields: model files (gelulab train --load) ---
  using gelu::json::Array;
  using gelu::json::Value;
  struct ModelField {
    const char* label;
    std::function<void(Value&)> edit;
    std::string needle;
  };
  const std::vector<ModelField> model_fields = {
      {"format_missing", [](Value& v) { obj(v).erase("format"); }, "not a GELU Lab model file"},
      {"format_other", [](Value& v) { obj(v)["format"] = "onnx"; }, "not a GELU Lab model file"},
      {"version_2", [](Value& v) { obj(v)["version"] = 2; }, "version 2 is not supported"},
      {"version_1e308", [](Value& v) { obj(v)["version"] = 1e308; }, "is not supported"},
      {"version_string", [](Value& v) { obj(v)["version"] = "1"; }, "numeric \"version\""},
      {"spec_missing", [](Value& v) { obj(v).erase("spec"); }, "missing key 'spec'"},
      {"spec_array", [](Value& v) { obj(v)["spec"] = Array{}; }, "spec must be an object, not array"},
      {"inputs_string", [](Value& v) { obj(v)["spec"].as_object()["inputs"] = "2"; },
       "spec.inputs must be an integer, not string"},
      {"inputs_1e308", [](Value& v) { obj(v)["spec"].as_object()["inputs"] = 1e308; },
       "spec.inputs must be an integer"},
      {"inputs_fraction", [](Value& v) { obj(v)["spec"].as_object()["inputs"] = 2.5; },
       "spec.inputs must be an integer"},
      {"inputs_zero", [](Value& v) { obj(v)["spec"].as_object()["inputs"] = 0; },
       "input size must be in [1, 512]"},
      {"outputs_negative", [](Value& v) { obj(v)["spec"].as_object()["outputs"] = -1; },
       "output size must be in [1, 512]"},
      {"bias_string", [](Value& v) { obj(v)["spec"].as_object()["bias"] = "true"; },
       "spec.bias must be true or false, not string"},
      {"stochastic_null", [](Value& v) { obj(v)["spec"].as_object()["stochastic"] = Value(); },
       "spec.stochastic must be true or false, not null"},
      {"glu_unknown", [](Value& v) { obj(v)["spec"].as_object()["glu"] = "noglu"; },
       "spec.glu: unknown GLU variant"},
      {"hidden_empty", [](Value& v) { obj(v)["spec"].as_object()["hidden"] = Array{}; },
       "spec.hidden must list 1 to 8"},
      {"hidden_nine",
       [](Value& v) {
         Array h;
         for (int i = 0; i < 9; ++i) h.push_back(hidden0(v));
         obj(v)["spec"].as_object()["hidden"] = h;
       },
       "spec.hidden must list 1 to 8"},
      {"hidden_string", [](Value& v) { obj(v)["spec"].as_object()["hidden"] = "relu"; }, "spec"},
      {"width_1e308", [](Value& v) { hidden0(v).as_object()["width"] = 1e308; },
       "spec.hidden[0].width must be an integer"},
      {"width_zero", [](Value& v) { hidden0(v).as_object()["width"] = 0; }, "width must be in [1, 512]"},
      {"width_513", [](Value& v) { hidden0(v).as_object()["width"] = 513; }, "width must be in [1, 512]"},
      {"width_negative", [](Value& v) { hidden0(v).as_object()["width"] = -3; }, "width must be in [1, 512]"},
      {"activation_unknown", [](Value& v) { hidden0(v).as_object()["activation"] = "tanh"; },
       "unknown activation 'tanh'"},
      {"activation_number", [](Value& v) { hidden0(v).as_object()["activation"] = 1; },
       "spec.hidden[0].activation must be a string"},
      {"params_count", [](Value& v) { hidden0(v).as_object()["params"] = Array{1.0}; },
       "spec.hidden[0].params"},
      {"glu_hidden_1e9",
       [](Value& v) {
         obj(v)["spec"].as_object()["glu"] = "geglu";
         hidden0(v).as_object()["glu_hidden"] = 1e9;
       },
       "GLU hidden width must be in [1, 512]"},
      {"tensors_string", [](Value& v) { obj(v)["tensors"] = "x"; }, "file"},
      {"tensors_missing_one", [](Value& v) { obj(v)["tensors"].as_array().pop_back(); },
       "tensors, the file has"},
      {"tensor_name", [](Value& v) { tensor0(v).as_object()["name"] = "other"; }, "found 'other'"},
      {"tensor_rows", [](Value& v) { tensor0(v).as_object()["rows"] = 1e308; },
       "tensors[0].rows must be an integer"},
      {"tensor_data_short", [](Value& v) { tensor0(v).as_object()["data"].as_array().pop_back(); },
       "tensors[0]"},
      {"tensor_data_string", [](Value& v) { tensor0(v).as_object()["data"].as_array()[0] = "0.5"; },
       "tensors[0] (h0.W): data[0] must be a number, not string"},
      {"tensor_data_1e308", [](Value& v) { tensor0(v).as_object()["data"].as_array()[0] = 1e308; },
       "tensors[0] (h0.W): data[0] = 1e+308 is outside the float range"},
  };
  for (const ModelField& m : model_fields)
    rows.push_back({"model_" + std::string(m.label),
                    {"train", "--steps", "1", "--load", "{f}"},
                    {"--load", "{f}", m.needle},
                    file(model_json(m.edit))});
  return rows;
}

const std::vector<Row>& rows() {
  static const std::vector<Row> r = [] {
    std::vector<Row> all = make_rows();
#if !GELU_TEST_HAVE_GUI
    // Built without the GUI (the sanitizer build): gui, shot and lessons are not subcommands of that binary.
    std::erase_if(all, [](const Row& x) {
      return !x.args.empty() && (x.args[0] == "gui" || x.args[0] == "shot" || x.args[0] == "lessons");
    });
#endif
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer reserves terabytes of shadow address space at start-up, so a gelulab built with it
    // cannot start under RLIMIT_AS at all: the out-of-memory rows are for the release build.
    std::erase_if(all, [](const Row& x) { return x.address_space > 0; });
#endif
    return all;
  }();
  return r;
}

// [SECTION] The check

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

class HostileInput : public testing::TestWithParam<std::size_t> {};

TEST_P(HostileInput, ExitsTwoWithAClearMessage) {
  const Row& row = rows()[GetParam()];
  const fs::path dir = gelu::test::scratch_dir("hostile");
  fs::remove_all(dir);
  fs::create_directories(dir / "config");
  const std::string f = row.make ? row.make(dir) : std::string();
  const auto subst = [&](std::string s) {
    return replace_all(replace_all(std::move(s), "{d}", dir.string()), "{f}", f);
  };
  std::vector<std::string> args;
  for (const std::string& a : row.args) args.push_back(subst(a));
  // No display (gui validates, then says it has none), and a private config directory (no real session).
  const ExecResult r = gelu::test::exec_gelulab(
      args, row.input, dir.string(),
      {"DISPLAY", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME=" + (dir / "config").string(), "HOME=" + dir.string()},
      20, row.address_space);
  if (geteuid() != 0 && fs::exists(dir / "unreadable.json")) chmod((dir / "unreadable.json").c_str(), 0644);
  fs::remove_all(dir);

  const std::string shown = r.err.size() > 2000 ? r.err.substr(0, 2000) + "…" : r.err;
  if (std::getenv(
          "GELU_HOSTILE_PRINT"))  // the messages, for reading them all (and the table in docs/reliability.md)
    std::printf("%s -> %d: %s", row.name.c_str(), r.status, shown.c_str());
  ASSERT_FALSE(r.timed_out) << "hang: still running after 20 s; stderr: " << shown;
  ASSERT_TRUE(r.exited) << "killed by signal " << r.signal << "; stderr: " << shown;
  EXPECT_EQ(r.status, 2) << shown;
  EXPECT_EQ(r.out, "") << "stdout: " << r.out.substr(0, 500);
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < r.err.size();) {
    const std::size_t nl = r.err.find('\n', at);
    lines.push_back(r.err.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    at = nl == std::string::npos ? r.err.size() : nl + 1;
  }
  ASSERT_FALSE(lines.empty()) << "no message on stderr";
  EXPECT_LE(lines.size(), 4u) << shown;
  EXPECT_EQ(lines[0].rfind("gelulab", 0), 0u) << shown;
  for (const std::string& l : lines)
    EXPECT_LE(l.size(), 1000u) << "a line of " << l.size() << " bytes: " << l.substr(0, 300);
  EXPECT_TRUE(valid_utf8(r.err)) << "stderr is not UTF-8: " << shown;
  for (const char c : r.err) {
    if (c != '\n') {
      EXPECT_GE(static_cast<unsigned char>(c), 0x20u) << "control byte in stderr: " << shown;
    }
  }
  for (const char* bad :
       {"terminate called", "Segmentation", "what():", "Aborted", "core dumped", "bad_alloc", "std::"})
    EXPECT_EQ(r.err.find(bad), std::string::npos) << bad << " in: " << shown;
  for (const std::string& n : row.needles) {
    const std::string needle = subst(n);
    EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle.substr(0, 200) << "' not in: " << shown;
  }
}

std::string row_name(const testing::TestParamInfo<std::size_t>& info) {
  std::string n = rows()[info.param].name;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Rows, HostileInput, testing::Range<std::size_t>(0, rows().size()), row_name);

TEST(HostileInputTable, RowNamesAreUnique) {
  std::set<std::string> seen;
  for (const Row& r : rows()) EXPECT_TRUE(seen.insert(r.name).second) << r.name;
}

}  // namespace
