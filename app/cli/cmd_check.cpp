// gelulab check: bring your own implementation. (x, y) pairs of a number format — from a text file (two
// numbers per line, whitespace or comma between them) or NumPy .npy files — are compared with a function
// (gelu::check, shared with the Python module): for a registry function its correctly rounded value, for a
// zoo entry the entry as shipped in its compute format. Maximum and mean ULP error, where, mismatches, the
// maximum absolute error, the special pairs (±inf inputs, NaN/inf outputs), a histogram by ULP bucket and
// the ten worst inputs; budgets (--max-ulp, --max-mismatch, --max-abs, --budget FILE) make it a CI gate:
// exit 1 naming the budget broken and its worst input.
//
// Streaming: memory stays that of the histogram however many pairs there are. Every malformed input — no
// pair at all included — is one line naming the file and the line or row, exit status 2.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/block_dtype.hpp"
#include "cli/chain_options.hpp"
#include "cli/cli.hpp"
#include "cli/fn_options.hpp"
#include "gelu/check.hpp"
#include "gelu/fileio.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"

namespace gelu::cli {
namespace {

/// --range A:B for check: A <= B, ends may be -inf/inf (a tail).
void parse_check_range(const std::string& text, check::Setup& s) {
  const std::string what = "--range: " + quote(text);
  const auto colon = text.find(':', text.empty() ? 0 : 1);
  if (colon == std::string::npos) throw UsageError(what + " is not A:B");
  const auto a = parse_f64(text.substr(0, colon)), b = parse_f64(text.substr(colon + 1));
  if (!a || !b) throw UsageError(what + " is not A:B with numbers A and B (or -inf, inf)");
  if (std::isnan(*a) || std::isnan(*b)) throw UsageError(what + ": NaN is not a range end");
  if (*a > *b) throw UsageError(what + " is reversed (A must not be above B)");
  s.have_range = true;
  s.lo = *a;
  s.hi = *b;
}

/// A range end: a number, or "-inf"/"inf" (JSON has no infinity).
void json_end(json::Builder& w, double v) {
  if (std::isfinite(v))
    w.value(v);
  else
    w.value(format_f64(v));
}

void json_stats(json::Builder& w, const check::Stats& st, const Format& f) {
  w.key("n").value(st.n).key("mismatch").value(st.mismatch);
  w.key("max_ulp").value(static_cast<unsigned long long>(st.max_ulp));
  w.key("x_at_max").value(st.x_at_max);
  w.key("max_abs").value(st.max_abs).key("x_at_max_abs").value(st.x_at_max_abs);
  w.key("specials").value(st.specials).key("specials_mismatch").value(st.specials_mismatch);
  (void)f;
}

int run_check(Args& args) {
  if (has_store(args)) return run_check_chain(args);        // cmd_blocks.cpp
  if (is_block_dtype(args)) return run_check_blocks(args);  // cmd_blocks.cpp
  const auto id = args.option("fn");
  if (!id) throw UsageError("missing --fn ID (" + function_choices() + ")");
  const Subject s = subject(*id, "fn");
  const std::vector<std::string> param_text = args.options("param");
  const int order = parse_order(args);
  const std::optional<Format> fmt_opt = parse_dtype(args);
  const std::optional<Format> compute = parse_compute(args);
  const auto pairs = args.option("pairs"), xfile = args.option("x"), yfile = args.option("y");
  const auto max_ulp_text = args.option("max-ulp");
  const auto max_mismatch_text = args.option("max-mismatch");
  const auto max_abs_text = args.option("max-abs");
  const auto budget_file = args.option("budget");
  const auto range_text = args.option("range");
  const bool json = args.flag("json");
  args.finish();

  if (!fmt_opt) throw UsageError("missing --dtype FMT (one of " + number_format_names() + ")");
  const Format fmt = *fmt_opt;
  const Params p = s.fn ? parse_params(*s.fn, param_text, "param") : Params{};
  if (!s.fn && !param_text.empty())
    throw UsageError("--param: the zoo entry " + s.id() + " has no parameters");
  if (s.fn && compute)
    throw UsageError("--compute: " + s.id() +
                     " is a registry function, checked against its correctly rounded value; --compute is for "
                     "zoo entries");
  if (order == 2) throw UsageError("--order 2: check compares f (0) or f' (1)");
  if (order == 1 && !s.fn && !s.entry->has_d1())
    throw UsageError("--order 1: the zoo entry " + s.id() + " has no meaningful derivative");
  if (pairs && (xfile || yfile))
    throw UsageError("--pairs: give --pairs FILE or --x X.npy --y Y.npy, not both");
  if (!pairs && !xfile && !yfile) throw UsageError("missing --pairs FILE (or --x X.npy --y Y.npy)");
  if (!pairs && (!xfile || !yfile)) throw UsageError(xfile ? "--x: needs --y Y.npy" : "--y: needs --x X.npy");

  check::Setup setup;
  setup.registry = s.fn != nullptr;
  setup.fn = s.id();
  setup.format = fmt;
  setup.order = order;
  setup.compute = compute;
  if (range_text) parse_check_range(*range_text, setup);
  check::Scope flags;
  flags.options = true;
  if (max_ulp_text) {
    flags.limits.max_ulp = static_cast<std::uint64_t>(
        Args::to_int("max-ulp", *max_ulp_text, 0, std::numeric_limits<std::int64_t>::max()));
    flags.name += " --max-ulp " + *max_ulp_text;
  }
  try {
    if (max_mismatch_text) {
      check::parse_mismatch(*max_mismatch_text, "--max-mismatch", flags.limits);
      flags.name += " --max-mismatch " + printable(*max_mismatch_text);
    }
    if (max_abs_text) {
      const auto e = parse_f64(*max_abs_text);
      if (!e || !(*e >= 0) || std::isinf(*e))
        throw UsageError("--max-abs: " + quote(*max_abs_text) + " is not a finite number, 0 or more");
      flags.limits.max_abs = *e;
      flags.name += " --max-abs " + printable(*max_abs_text);
    }
    if (budget_file) setup.budget = check::read_budget(*budget_file);
  } catch (const check::InputError& e) {
    throw UsageError(e.what());
  }
  if (flags.limits.any()) {
    flags.name.erase(0, 1);
    setup.budget.scopes.insert(setup.budget.scopes.begin(), flags);
  }
  if (dry_run()) return 0;

  setup.reference = s.fn ? zoo::from_registry(*s.fn, p) : *s.entry;
  check::Result r;
  std::string source;
  try {
    check::Checker checker(setup);
    if (pairs) {
      source = "--pairs " + quote(*pairs, 200);
      check::read_pairs(*pairs, source, checker);
    } else {
      source = "--x " + quote(*xfile, 200) + ", --y " + quote(*yfile, 200);
      check::read_columns(*xfile, "--x " + quote(*xfile, 200), *yfile, "--y " + quote(*yfile, 200), checker);
    }
    r = checker.result(source);
  } catch (const check::InputError& e) {
    throw UsageError(e.what());
  } catch (const gelu::FileError& e) {
    // The one reader's refusal ("PATH: is a FIFO (named pipe), not a regular file"), under the option's name.
    std::string why = e.what();
    for (const auto* path : {&pairs, &xfile, &yfile})
      if (*path && why.rfind(**path + ": ", 0) == 0) {
        const char* opt = path == &pairs ? "--pairs " : path == &xfile ? "--x " : "--y ";
        why = opt + quote(**path, 200) + ": " + why.substr((*path)->size() + 2);
        break;
      }
    throw UsageError(why);
  }
  const std::string from =
      pairs ? printable(*pairs, 200) : printable(*xfile, 200) + ", " + printable(*yfile, 200);

  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("fn").value(r.fn);
    w.key("dtype").value(r.format);
    w.key("semantics").value(r.semantics);
    w.key("n").value(r.n);
    if (setup.have_range) {
      w.key("range").begin_array();
      json_end(w, setup.lo);
      json_end(w, setup.hi);
      w.end_array();
      w.key("outside").value(r.outside);
    }
    w.key("max_ulp").value(static_cast<unsigned long long>(r.finite.max_ulp));
    w.key("x_at_max").value(r.finite.x_at_max);
    w.key("mean_ulp").value(r.finite.mean_ulp);
    w.key("mismatch").value(r.mismatch);
    w.key("max_abs").value(r.max_abs);
    w.key("x_at_max_abs").value(r.x_at_max_abs);
    w.key("specials").begin_object();
    w.key("n").value(r.specials).key("mismatch").value(r.specials_mismatch);
    w.key("policy").value(r.specials_policy == check::Specials::Exact ? "exact" : "ignore");
    w.key("differ").begin_array();
    for (const check::Special& sp : r.special_mismatches) {
      w.begin_object();
      w.key("row").value(sp.row).key("x").value(format_in(sp.x, fmt)).key("y").value(format_in(sp.y, fmt));
      w.key("expected").value(format_in(sp.expected, fmt));
      w.end_object();
    }
    w.end_array();
    w.end_object();
    w.key("histogram").begin_array();
    for (const auto& b : r.finite.histogram) {
      w.begin_object();
      w.key("min").value(static_cast<unsigned long long>(b.lo));
      w.key("max").value(static_cast<unsigned long long>(b.hi));
      w.key("count").value(b.count);
      w.end_object();
    }
    w.end_array();
    w.key("worst").begin_array();
    for (const auto& b : r.finite.worst) {
      w.begin_object();
      w.key("row").value(b.row).key("x").value(b.x).key("y").value(b.y).key("expected").value(b.expected);
      w.key("ulp").value(static_cast<unsigned long long>(b.ulp));
      w.end_object();
    }
    w.end_array();
    w.key("budgets").begin_array();
    for (std::size_t i = 0; i < r.scopes.size(); ++i) {
      w.begin_object();
      w.key("name").value(r.scopes[i].name);
      if (!r.scopes[i].all) {
        w.key("range").begin_array();
        json_end(w, r.scopes[i].lo);
        json_end(w, r.scopes[i].hi);
        w.end_array();
      }
      json_stats(w, r.scope_stats[i], fmt);
      w.end_object();
    }
    w.end_array();
    w.key("verdict").value(r.scopes.empty() ? "no budget" : (r.passed() ? "pass" : "fail"));
    w.key("broken").begin_array();
    for (const check::Broken& b : r.broken) {
      w.begin_object();
      w.key("budget").value(b.budget).key("message").value(b.message).key("x").value(format_in(b.x, fmt));
      w.end_object();
    }
    w.end_array();
    w.end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("%s in %s against %s: %zu pairs from %s\n", r.fn.c_str(), r.format.c_str(),
                r.semantics.c_str(), r.n, from.c_str());
    if (setup.have_range)
      std::printf("range [%s, %s]: %zu pairs outside it skipped\n", format_f64(setup.lo).c_str(),
                  format_f64(setup.hi).c_str(), r.outside);
    std::printf("max ULP error %llu at x = %s; mean %.4g ULP; %zu of %zu differ (%.3g%%)\n",
                static_cast<unsigned long long>(r.finite.max_ulp), format_in(r.finite.x_at_max, fmt).c_str(),
                r.finite.mean_ulp, r.mismatch, r.n,
                100.0 * static_cast<double>(r.mismatch) / static_cast<double>(r.n));
    std::printf("max abs error %s at x = %s\n", format_f64(r.max_abs).c_str(),
                format_in(r.x_at_max_abs, fmt).c_str());
    std::printf("specials (x = ±inf/NaN, or NaN/inf y or expected): %zu pairs, %zu differ\n", r.specials,
                r.specials_mismatch);
    for (const check::Special& sp : r.special_mismatches)
      std::printf("  %zu: x = %s: y = %s, expected %s\n", sp.row, format_in(sp.x, fmt).c_str(),
                  format_in(sp.y, fmt).c_str(), format_in(sp.expected, fmt).c_str());
    if (!r.finite.histogram.empty()) std::printf("histogram (ULP: pairs):\n");
    for (const auto& b : r.finite.histogram) {
      const std::string range =
          b.lo == b.hi ? std::to_string(b.lo) : std::to_string(b.lo) + "-" + std::to_string(b.hi);
      std::printf("  %-14s %zu\n", range.c_str(), b.count);
    }
    if (!r.finite.worst.empty()) std::printf("worst (row: x, y, expected, ULP):\n");
    for (const auto& b : r.finite.worst)
      std::printf("  %zu: %s, %s, %s, %llu\n", b.row, format_in(b.x, fmt).c_str(),
                  format_in(b.y, fmt).c_str(), format_in(b.expected, fmt).c_str(),
                  static_cast<unsigned long long>(b.ulp));
    for (std::size_t i = 0; i < r.scopes.size(); ++i) {
      const check::Stats& st = r.scope_stats[i];
      std::printf("budget %s: %zu pairs, max ULP %llu at x = %s, max abs %s, %zu differ\n",
                  r.scopes[i].name.c_str(), st.n, static_cast<unsigned long long>(st.max_ulp),
                  format_in(st.x_at_max, fmt).c_str(), format_f64(st.max_abs).c_str(), st.mismatch);
    }
    if (!r.scopes.empty())
      std::printf("verdict: %s\n", r.passed()
                                       ? "pass (every budget holds)"
                                       : ("FAIL (" + std::to_string(r.broken.size()) + " broken)").c_str());
  }
  if (std::fflush(stdout) != 0) return 1;
  for (const check::Broken& b : r.broken) std::fprintf(stderr, "gelulab check: %s\n", b.message.c_str());
  return r.passed() ? 0 : 1;
}

}  // namespace

GELU_COMMAND(
    check, "check", "check (x, y) pairs of your implementation against the correctly rounded function",
    "usage: gelulab check --fn ID --dtype FMT (--pairs FILE | --x X.npy --y Y.npy) [--range A:B]\n"
    "                     [--max-ulp N] [--max-mismatch N|P%] [--max-abs E] [--budget FILE] [--json]\n"
    "                     [--order 0|1] [--compute FMT] [--param NAME=VALUE]... [--scale S [--zero-point Z] "
    "|\n"
    "                     --int8-range A:B]\n\n"
    "Compares every y with the value of --fn at x in the format FMT and reports the maximum and mean error\n"
    "in ULPs of FMT (the number of values of FMT between y and the expected value), where the maximum is,\n"
    "how many pairs differ, the maximum absolute error, the special pairs, a histogram by ULP bucket (0, 1,\n"
    "2, 3-4, 5-8, …) and the ten worst inputs. The first line names what y is compared with: a registry\n"
    "function's correctly rounded value (its double evaluation rounded once), or a zoo entry as shipped,\n"
    "computed in its compute format (--compute, default that of the precision lab) and rounded.\n\n"
    "  --fn ID            the function (a registry function or a zoo entry)\n"
    "  --dtype FMT        f64, f32, bf16, f16, e4m3, e5m2, int8: x and y must be values of it\n"
    "  --pairs FILE       text, one pair per line: 'x y' or 'x,y' (blank lines, # comments and a\n"
    "                     header line such as x,y or \"x\",\"y\" are skipped); or a NumPy .npy array of\n"
    "                     shape (N, 2)\n"
    "  --x X.npy --y Y.npy   two 1-D .npy arrays of the same length\n"
    "                     .npy dtypes: <f2 (float16), <f4, <f8; raw bits with --dtype naming the format:\n"
    "                     <u2/<i2 (bf16 or f16 bit patterns), |u1/|i1 (e4m3 or e5m2); C order\n"
    "  --range A:B        compare only the pairs with x in [A, B] (ends may be -inf, inf); the others are\n"
    "                     counted as outside\n"
    "  --max-ulp N        budget: the maximum ULP error over the finite pairs is at most N\n"
    "  --max-mismatch N|P%   budget: at most N pairs (or P% of them) differ, specials included\n"
    "  --max-abs E        budget: the maximum |y - expected| over the finite pairs is at most E\n"
    "  --budget FILE      budgets in JSON: {\"max_ulp\": 1, \"specials\": \"exact\"|\"ignore\",\n"
    "                     \"ranges\": [{\"range\": [-8, 8], \"max_ulp\": 1}, {\"range\": [\"-inf\", -8],\n"
    "                     \"max_abs\": 1e-30, \"max_mismatch\": \"5%\"}]}; each range has its own limits\n"
    "  --json             everything the text says: n, max_ulp, x_at_max, mean_ulp, mismatch, max_abs,\n"
    "                     specials, histogram, worst, budgets, verdict, broken (counts are integers)\n"
    "  --order N          0 = f (default), 1 = f'\n"
    "  --compute FMT      a zoo entry's compute format\n"
    "  --param NAME=VALUE, --scale S, --zero-point Z, --int8-range A:B   as for gelulab error\n\n"
    "Special pairs — x = ±inf or NaN, y or the expected value NaN or infinite — are compared too: they\n"
    "match when y is the expected value (NaN where -0 is right is a mismatch); they are listed on their own\n"
    "lines, not folded into the ULP figures. Under any budget a special pair that differs breaks it unless\n"
    "the budget file says \"specials\": \"ignore\". Exit status 1 when a budget is broken: one line per\n"
    "broken budget on stderr, naming it and its worst input.\n\n"
    "Text numbers: for f32 and f64 any decimal that reads (rounded once) to a value of the format is that\n"
    "value (%.9g / max_digits10 prints included); for the narrow formats the value itself, within 1/16 of\n"
    "the format's spacing of it (e.g. printed with float32 digits) or its shortest decimal in the format.\n"
    "No pair at all (an empty file, a header only, an empty .npy, nothing in --range), an x or y that is\n"
    "not a value of the format, a line without exactly two numbers, unequal lengths, a .npy file of another\n"
    "dtype or shape, a truncated file, or a FIFO or device in place of a file stops the check with one line\n"
    "naming the file and the line (text) or row (.npy, counted from 0): exit status 2. Memory does not grow\n"
    "with the number of pairs.\n\n"
    "Block formats (--dtype mxfp4 etc., --x X.npy --y Y.npy [--block-size N]): y are a kernel's stored\n"
    "outputs, blocks in array order; see docs/precision.md, \"Block formats\".\n\n"
    "A rounding-point chain (--store FMT [--compute FMT] [--accumulator FMT] [--order 0|1] --x X.npy\n"
    "--y Y.npy [--max-ulp N] [--json]): y are a kernel's stored outputs, expected to be exactly what the\n"
    "chain stores (x rounded to the accumulator format, default f32; --fn computed in the compute format,\n"
    "default f32; stored in FMT, a block format in blocks of its size along the arrays), counted in ULPs of\n"
    "FMT (or of the block's lattice); see docs/precision.md, \"Rounding-point chains\".\n\n"
    "Example: gelulab check --fn gelu --dtype bf16 --pairs torch_gelu_bf16.npy --max-ulp 1\n",
    run_check);

}  // namespace gelu::cli
