// The block formats' versions of eval, error and check (see cli/block_dtype.hpp and docs/precision.md,
// "Block formats"): results stored block by block with the OCP MX v1.0 or NVFP4 rules, errors in ULPs of
// each block's own lattice, and the share of negative outputs a block stores as 0.
//
// Index of this file:
//   [SECTION] eval --dtype BLOCK
//   [SECTION] error --dtype BLOCK
//   [SECTION] check --dtype BLOCK
//   [SECTION] error --store FMT, check --store FMT
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/block_dtype.hpp"
#include "cli/chain_options.hpp"
#include "cli/cli.hpp"
#include "cli/fn_options.hpp"
#include "gelu/block_format.hpp"
#include "gelu/bounded_reference.hpp"
#include "gelu/chain.hpp"
#include "gelu/fileio.hpp"
#include "gelu/json.hpp"
#include "gelu/npy.hpp"
#include "gelu/numio.hpp"
#include "gelu/precision.hpp"
#include "gelu/stochastic.hpp"

namespace gelu::cli {
namespace {

// 4·10^7 elements (10^6 blocks of 32 and some) hold ~1 GB of doubles across x, y, the reference and the
// stored values.
constexpr std::size_t kMaxElements = 40'000'000;

/// --dtype BLOCK [--block-size N].
BlockFormat parse_block_dtype(Args& args) {
  const std::string name = *args.option("dtype");
  const auto bs = args.option("block-size");
  const int size = bs ? static_cast<int>(Args::to_int("block-size", *bs, 1, 4096)) : 0;
  return *BlockFormat::parse(name, size);
}

std::string describe(const BlockFormat& f) {
  return std::string(f.name()) + " (" + std::string(f.element().name()) + " elements, " +
         std::to_string(f.block_size()) + " per block, " + std::string(f.scale_format().name()) + " scale" +
         (f.row().rule == ScaleRule::NvTwoLevel ? " under a float32 tensor scale)" : ")");
}

/// The function's outputs in double: a registry function as the registry evaluates it in double, a zoo entry
/// as shipped with its intermediates in `compute`.
void evaluate(const Subject& s, const Params& p, const Format& compute, std::span<const double> x,
              std::span<double> y) {
  constexpr std::size_t kBatch = std::size_t{1} << 16;
  for (std::size_t i = 0; i < x.size(); i += kBatch) {
    const std::size_t n = std::min(kBatch, x.size() - i);
    if (s.fn)
      s.fn->eval(x.subspan(i, n), y.subspan(i, n), 0, &p);
    else
      s.entry->eval(x.subspan(i, n), y.subspan(i, n), 0, compute);
  }
}

/// The reference vs(x) for block_error: its double-only values (eval_bounded) and, where
/// those do not settle a rounding, vs.eval's.
BoundedReference bounded_reference(const Activation& vs, const Params& p, const std::vector<double>& x) {
  return bounded_values(vs, x, &p);
}

/// The function under test's outputs for block_error: a registry function's as eval_bounded's double-only
/// values (its accurate ones where those do not settle a rounding), a zoo entry's as evaluate computes them.
BoundedReference bounded_outputs(const Subject& s, const Params& p, const Format& compute,
                                 const std::vector<double>& x, std::vector<double>& y) {
  if (s.fn) return bounded_values(*s.fn, x, &p);
  y.resize(x.size());
  evaluate(s, p, compute, x, y);
  return {y, 0, [&y](std::size_t i) { return y[i]; }};
}

Format parse_block_compute(Args& args, const Subject& s) {
  const std::optional<Format> c = parse_compute(args);
  if (c && s.fn)
    throw UsageError("--compute: applies to zoo entries; the registry function " + s.id() +
                     " is evaluated in double");
  return c.value_or(Format(FormatId::F32));
}

void no_order(Args& args) {
  if (const auto o = args.option("order"); o && *o != "0")
    throw UsageError("--order " + printable(*o) +
                     ": block formats store a function's outputs (f); derivatives are not stored in blocks");
}

/// All the values of a .npy file, with the length of its last axis (blocks run along it).
std::vector<double> read_npy(const std::string& path, const std::string& name, std::uint64_t* row_length) {
  try {
    NpyReader r(path, name);
    if (r.header().count > kMaxElements)
      throw UsageError(name + ": " + std::to_string(r.header().count) + " values; at most " +
                       std::to_string(kMaxElements) + " in one run");
    std::vector<double> v(static_cast<std::size_t>(r.header().count));
    std::size_t got = 0;
    while (got < v.size()) {
      const std::size_t n = r.read(v.data() + got, v.size() - got);
      if (n == 0) break;
      got += n;
    }
    v.resize(got);
    *row_length = r.header().shape.empty() ? v.size() : r.header().shape.back();
    return v;
  } catch (const NpyError& e) {
    throw UsageError(e.what());
  }
}

/// normal:MU,SIGMA.
std::pair<double, double> parse_dist(const std::string& text) {
  const std::string what = "--block-dist: " + quote(text);
  if (text.rfind("normal:", 0) != 0) throw UsageError(what + " is not normal:MU,SIGMA");
  const std::string rest = text.substr(7);
  const auto comma = rest.find(',');
  if (comma == std::string::npos) throw UsageError(what + " is not normal:MU,SIGMA");
  const auto mu = parse_f64(rest.substr(0, comma)), sigma = parse_f64(rest.substr(comma + 1));
  if (!mu || !sigma) throw UsageError(what + " is not normal:MU,SIGMA with numbers MU and SIGMA");
  if (!std::isfinite(*mu) || std::fabs(*mu) > 1e6)
    throw UsageError(what + ": MU must be a number in [-1e6, 1e6]");
  if (!(*sigma > 0) || *sigma > 1e6) throw UsageError(what + ": SIGMA must be a number in (0, 1e6]");
  return {*mu, *sigma};
}

void check_finite_inputs(const std::vector<double>& x, const std::string& name) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw UsageError(name + ", value " + std::to_string(i) + ": " + format_f64(x[i]) +
                       " is not finite (pre-activations must be numbers)");
}

/// check's --x X.npy --y Y.npy: the same number of values, at least one, every x finite.
std::pair<std::vector<double>, std::vector<double>> read_pairs(const std::string& xf, const std::string& yf) {
  std::uint64_t rx = 0, ry = 0;
  const std::string xname = "--x " + quote(xf, 200), yname = "--y " + quote(yf, 200);
  std::vector<double> x = read_npy(xf, xname, &rx), y = read_npy(yf, yname, &ry);
  if (x.size() != y.size())
    throw UsageError(yname + ": " + std::to_string(y.size()) + " values, --x has " +
                     std::to_string(x.size()));
  if (x.empty()) throw UsageError(xname + ": no values");
  check_finite_inputs(x, xname);
  return {std::move(x), std::move(y)};
}

/// The pre-activations of error: --blocks FILE.npy (checked: finite, the last axis a multiple of block_size
/// unless it is the whole file or check_axis is false) or `nblocks` blocks of block_size drawn from N(dist).
struct Inputs {
  std::vector<double> x;
  std::string source;  // for people
};
Inputs load_inputs(const std::optional<std::string>& blocks_file, std::pair<double, double> dist,
                   std::int64_t nblocks, std::uint64_t seed, int block_size, bool check_axis = true) {
  Inputs in;
  if (blocks_file) {
    const std::string name = "--blocks " + quote(*blocks_file, 200);
    std::uint64_t row = 0;
    in.x = read_npy(*blocks_file, name, &row);
    if (in.x.empty()) throw UsageError(name + ": no values");
    if (check_axis && row != in.x.size() && row % static_cast<std::uint64_t>(block_size) != 0)
      throw UsageError(name + ": the last axis has " + std::to_string(row) +
                       " values, not a multiple of the block size " + std::to_string(block_size) +
                       " (blocks run along the last axis; --block-size N chooses another)");
    check_finite_inputs(in.x, name);
    in.source = "the " + std::to_string(in.x.size()) + " pre-activations of " + quote(*blocks_file, 200);
  } else {
    in.x = stochastic::sample_normal(dist.first, dist.second,
                                     static_cast<std::size_t>(nblocks) * static_cast<std::size_t>(block_size),
                                     seed);
    in.source = std::to_string(nblocks) + " blocks of pre-activations ~ normal(" + format_f64(dist.first) +
                ", " + format_f64(dist.second) + "), seed " + std::to_string(seed);
  }
  return in;
}

void json_inputs(json::Builder& w, const std::optional<std::string>& blocks_file,
                 std::pair<double, double> dist, std::uint64_t seed) {
  w.key("inputs").begin_object();
  if (blocks_file) {
    w.key("source").value("npy");
    w.key("file").value(*blocks_file);
  } else {
    w.key("source").value("normal");
    w.key("mu").value(dist.first);
    w.key("sigma").value(dist.second);
    w.key("seed").value(static_cast<unsigned long long>(seed));
  }
  w.end_object();
}

}  // namespace

// [SECTION] eval --dtype BLOCK

int run_eval_blocks(Args& args) {
  const auto id = args.option("fn");
  if (!id) throw UsageError("missing --fn ID (" + function_choices() + ")");
  const Subject s = subject(*id, "fn");
  no_order(args);
  const BlockFormat f = parse_block_dtype(args);
  const Format compute = parse_block_compute(args, s);
  const std::vector<std::string> param_text = args.options("param");
  const auto block_max_text = args.option("block-max");
  const auto input = args.option("input");
  if (const auto b = args.option("backend"); b && *b != "cpu")
    throw UsageError("--backend " + printable(*b) + ": block formats are computed on the CPU");
  args.finish();
  const Params p = s.fn ? parse_params(*s.fn, param_text, "param") : Params{};
  if (!s.fn && !param_text.empty())
    throw UsageError("--param: the zoo entry " + s.id() + " has no parameters");
  std::optional<double> block_max;
  if (block_max_text) {
    block_max = parse_f64(*block_max_text);
    if (!block_max || !std::isfinite(*block_max) || !(*block_max > 0))
      throw UsageError("--block-max: " + printable(*block_max_text) + " is not a finite number > 0");
  }
  if (dry_run()) return 0;

  std::string text;
  if (input && *input != "-") {
    try {
      text = read_file(*input, std::size_t{1} << 30);
    } catch (const FileError& e) {
      throw UsageError(std::string("--input ") + e.what());
    }
  } else {
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
      text.append(buf, n);
      if (text.size() > (std::size_t{1} << 30)) throw UsageError("stdin: more than 1 GiB of input");
    }
  }
  const std::string name = input && *input != "-" ? "--input " + quote(*input, 200) : "stdin";
  std::vector<double> x;
  std::size_t line = 1, i = 0;
  while (i < text.size()) {
    if (text[i] == '\n') ++line;
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    const std::string tok = text.substr(i, j - i);
    const auto v = parse_f64(tok);
    if (!v)
      throw UsageError(name + ", line " + std::to_string(line) + ": " + quote(tok) + " is not a number");
    if (x.size() == kMaxElements)
      throw UsageError(name + ": more than " + std::to_string(kMaxElements) + " numbers in one run");
    x.push_back(*v);
    i = j;
  }
  std::vector<double> y(x.size()), stored(x.size());
  evaluate(s, p, compute, x, y);
  if (block_max) {
    const BlockScale sc = f.scale_for_max(*block_max);
    for (std::size_t k = 0; k < y.size(); ++k) stored[k] = f.quantize(y[k], sc);
  } else {
    f.quantize_blocks(y, stored);
  }
  std::string out;
  for (double v : stored) out += format_f64(v) + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  command::note_after_output("evaluated as " +
                             precision::stored_semantics(s.id(), compute.name(), f.name(), false));
  return 0;
}

// [SECTION] error --dtype BLOCK

/// The line every block report ends with: how many negative outputs were stored as 0, and where.
template <class Report>
void print_stored_as_zero(const Report& r) {
  std::printf("negative outputs: %zu of %zu; stored as 0: %zu (%s%%)", r.negative, r.n, r.flushed,
              format_f64(std::round(1e4 * r.flushed_share()) / 100).c_str());
  if (r.flushed)
    std::printf(", at x in [%s, %s]", format_f64(r.flushed_x_lo).c_str(), format_f64(r.flushed_x_hi).c_str());
  std::printf("\n");
}

int run_error_blocks(Args& args) {
  const std::vector<std::string> fn_ids = args.options("fn");
  if (fn_ids.empty()) throw UsageError("missing --fn ID (" + function_choices() + ")");
  if (fn_ids.size() > 1) throw UsageError("--fn: a block format measures one function at a time");
  const Subject s = subject(fn_ids[0], "fn");
  const Activation& vs = required_function(args, "vs");
  no_order(args);
  const BlockFormat f = parse_block_dtype(args);
  const Format compute = parse_block_compute(args, s);
  const std::vector<std::string> param_text = args.options("param");
  const Params vs_params = parse_params(vs, args.options("vs-param"), "vs-param");
  const auto blocks_file = args.option("blocks");
  const auto dist_text = args.option("block-dist");
  const auto nblocks_text = args.option("num-blocks");
  const auto seed_text = args.option("seed");
  const bool json = args.flag("json");
  for (const char* o : {"range", "samples", "metric", "csv"})
    if (args.option(o))
      throw UsageError("--" + std::string(o) + ": not with a block format (--blocks or --block-dist)");
  if (args.flag("all")) throw UsageError("--all: not with a block format (--blocks or --block-dist)");
  if (args.flag("markdown")) throw UsageError("--markdown: not with a block format; --json or text");
  args.finish();
  const Params p = s.fn ? parse_params(*s.fn, param_text, "param") : Params{};
  if (!s.fn && !param_text.empty())
    throw UsageError("--param: the zoo entry " + s.id() + " has no parameters");
  if (blocks_file && dist_text) throw UsageError("--blocks: give one of --blocks FILE.npy and --block-dist");
  if (!blocks_file && !dist_text)
    throw UsageError(
        "--dtype " + std::string(f.name()) +
        ": needs the blocks, --blocks FILE.npy (pre-activations) or --block-dist normal:MU,SIGMA");
  if (blocks_file && (nblocks_text || seed_text))
    throw UsageError(std::string(nblocks_text ? "--num-blocks" : "--seed") + ": applies to --block-dist");
  const std::int64_t max_blocks = static_cast<std::int64_t>(kMaxElements) / f.block_size();
  const std::int64_t nblocks =
      nblocks_text ? Args::to_int("num-blocks", *nblocks_text, 1, max_blocks) : 10000;
  const auto seed = static_cast<std::uint64_t>(
      seed_text ? Args::to_int("seed", *seed_text, 0, std::numeric_limits<std::int64_t>::max()) : 1);
  std::pair<double, double> dist{0, 1};
  if (dist_text) dist = parse_dist(*dist_text);
  if (dry_run()) return 0;

  const Inputs in = load_inputs(blocks_file, dist, nblocks, seed, f.block_size());
  const std::vector<double>& x = in.x;
  const std::string& source = in.source;
  // --fn F --vs F: one evaluation serves as both (the same values, the same accurate function).
  std::vector<double> y;  // a zoo entry's outputs
  const BoundedReference yb = bounded_outputs(s, p, compute, x, y);
  const bool same = s.fn && std::string_view(s.fn->id) == vs.id && p == vs_params;
  std::optional<BoundedReference> rb;
  if (!same) rb = bounded_reference(vs, vs_params, x);
  const BlockErrorReport r = block_error(f, x, yb, same ? yb : *rb);  // one object when the same
  const std::string fn_text =
      s.id() + (!s.fn && s.entry->uses_compute ? " (computed in " + std::string(compute.name()) + ")" : "");
  const std::string how = precision::stored_semantics(s.id(), compute.name(), f.name(), false);

  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("fn").value(s.id());
    if (!s.fn && s.entry->uses_compute) w.key("compute").value(compute.name());
    w.key("semantics").value(how);
    w.key("vs").value(vs.id);
    w.key("dtype").value(f.name());
    w.key("element").value(f.element().name());
    w.key("block_size").value(f.block_size());
    w.key("scale_format").value(f.scale_format().name());
    json_inputs(w, blocks_file, dist, seed);
    w.key("n").value(static_cast<unsigned long long>(r.n));
    w.key("blocks").value(static_cast<unsigned long long>(r.blocks));
    w.key("max_ulp").value(static_cast<double>(r.max_ulp));
    w.key("mean_ulp").value(r.mean_ulp);
    w.key("mismatch").value(static_cast<unsigned long long>(r.mismatch));
    w.key("infinite").value(static_cast<unsigned long long>(r.infinite));
    w.key("max_abs").value(r.max_abs);
    w.key("at_max").begin_object();
    w.key("index").value(static_cast<unsigned long long>(r.at_index));
    w.key("block").value(static_cast<unsigned long long>(r.at_block));
    w.key("x").value(r.at_x);
    w.key("value").value(r.at_value);
    w.key("stored").value(r.at_stored);
    w.key("reference").value(r.at_reference);
    w.key("block_max").value(r.at_block_max);
    w.end_object();
    w.key("negative").value(static_cast<unsigned long long>(r.negative));
    w.key("flushed").value(static_cast<unsigned long long>(r.flushed));
    w.key("flushed_share").value(r.flushed_share());
    w.key("flushed_x");
    if (r.flushed) {
      w.begin_array().value(r.flushed_x_lo).value(r.flushed_x_hi).end_array();
    } else {
      w.null();
    }
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }
  std::printf("%s vs %s, stored in %s\n", fn_text.c_str(), vs.id, describe(f).c_str());
  std::printf("evaluated as: %s\n", how.c_str());
  std::printf("inputs: %s (%zu values, %zu blocks)\n", source.c_str(), r.n, r.blocks);
  std::printf(
      "max error: %s ULP of the block's lattice at x = %s (index %zu, block %zu of max %s): stored %s, "
      "reference %s\n",
      r.max_ulp == std::numeric_limits<std::uint64_t>::max() ? "inf" : std::to_string(r.max_ulp).c_str(),
      format_f64(r.at_x).c_str(), r.at_index, r.at_block, format_f64(r.at_block_max).c_str(),
      format_f64(r.at_stored).c_str(), format_f64(r.at_reference).c_str());
  std::printf(
      "mean error: %s ULP; %zu of %zu values differ from the reference rounded to their block's lattice\n",
      format_f64(r.mean_ulp).c_str(), r.mismatch, r.n);
  if (r.infinite)
    std::printf("infinite: %zu values (NaN against a number), left out of the mean\n", r.infinite);
  print_stored_as_zero(r);
  return 0;
}

// [SECTION] check --dtype BLOCK

int run_check_blocks(Args& args) {
  const auto id = args.option("fn");
  if (!id) throw UsageError("missing --fn ID (" + function_choices() + ")");
  const Subject s = subject(*id, "fn");
  no_order(args);
  const BlockFormat f = parse_block_dtype(args);
  const std::vector<std::string> param_text = args.options("param");
  const auto xf = args.option("x"), yf = args.option("y");
  if (args.option("pairs"))
    throw UsageError("--pairs: a block format takes --x X.npy --y Y.npy (blocks run along the arrays)");
  const auto max_ulp_text = args.option("max-ulp");
  const bool json = args.flag("json");
  args.finish();
  const Params p = s.fn ? parse_params(*s.fn, param_text, "param") : Params{};
  if (!s.fn && !param_text.empty())
    throw UsageError("--param: the zoo entry " + s.id() + " has no parameters");
  if (!xf || !yf) throw UsageError("--dtype " + std::string(f.name()) + ": needs --x X.npy --y Y.npy");
  const std::uint64_t max_ulp =
      max_ulp_text ? static_cast<std::uint64_t>(Args::to_int("max-ulp", *max_ulp_text, 0, 1'000'000)) : 0;
  if (dry_run()) return 0;

  const auto [x, y] = read_pairs(*xf, *yf);
  // The exact function's outputs and their blocks (scales from the exact outputs), then y on those lattices.
  std::vector<double> ref(x.size()), expected(x.size());
  evaluate(s, p, Format(FormatId::F64), x, ref);
  std::vector<BlockScale> scales;
  f.quantize_blocks(ref, expected, &scales);
  const auto bs = static_cast<std::size_t>(f.block_size());
  std::uint64_t worst = 0;
  std::size_t at = 0, mismatch = 0, off_lattice = 0;
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const BlockScale& sc = scales[i / bs];
    if (std::isnan(y[i]) || f.quantize(y[i], sc) != y[i]) ++off_lattice;
    const std::uint64_t d = f.ulp_distance(y[i], expected[i], sc);
    if (d) ++mismatch;
    sum += d == std::numeric_limits<std::uint64_t>::max() ? 0.0 : static_cast<double>(d);
    if (d > worst) worst = d, at = i;
  }
  const double mean = sum / static_cast<double>(x.size());
  const std::string how = precision::stored_semantics(s.id(), "f64", f.name(), false);
  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("fn").value(s.id());
    w.key("semantics").value(how);
    w.key("dtype").value(f.name());
    w.key("block_size").value(f.block_size());
    w.key("n").value(static_cast<unsigned long long>(x.size()));
    w.key("blocks").value(static_cast<unsigned long long>(scales.size()));
    w.key("max_ulp").value(static_cast<double>(worst));
    w.key("x_at_max").value(x[at]);
    w.key("block_at_max").value(static_cast<unsigned long long>(at / bs));
    w.key("mean_ulp").value(mean);
    w.key("mismatch").value(static_cast<unsigned long long>(mismatch));
    w.key("off_lattice").value(static_cast<unsigned long long>(off_lattice));
    w.end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("%s in %s: %zu values in %zu blocks\n", s.id().c_str(), describe(f).c_str(), x.size(),
                scales.size());
    std::printf("checked against: %s\n", how.c_str());
    std::printf(
        "max error: %s ULP of the block's lattice at x = %s (index %zu, block %zu): y = %s, expected %s\n",
        worst == std::numeric_limits<std::uint64_t>::max() ? "inf" : std::to_string(worst).c_str(),
        format_f64(x[at]).c_str(), at, at / bs, format_f64(y[at]).c_str(), format_f64(expected[at]).c_str());
    std::printf("mean error: %s ULP; %zu of %zu values differ; %zu are not on their block's lattice\n",
                format_f64(mean).c_str(), mismatch, x.size(), off_lattice);
  }
  if (std::fflush(stdout) != 0) return 1;
  if (max_ulp_text && worst > max_ulp) {
    std::fprintf(stderr, "gelulab check: max ULP error %s exceeds --max-ulp %llu (at x = %s)\n",
                 worst == std::numeric_limits<std::uint64_t>::max() ? "inf" : std::to_string(worst).c_str(),
                 static_cast<unsigned long long>(max_ulp), format_f64(x[at]).c_str());
    return 1;
  }
  return 0;
}

// [SECTION] error --store FMT, check --store FMT (a rounding-point chain, cli/chain_options.hpp)

namespace {

std::string ulp_text(std::uint64_t d) {
  return d == std::numeric_limits<std::uint64_t>::max() ? "inf" : std::to_string(d);
}

/// What a chain's ULPs are counted in: "the block's lattice" or "bf16".
std::string lattice_name(const Chain& c) {
  return c.store.block ? "the block's lattice" : std::string(c.store.plain->name());
}

/// How the chain computes `id` (precision::stored_semantics): a zoo entry as shipped in the compute format, a
/// registry function correctly rounded to it.
std::string chain_semantics(std::string_view id, const Chain& c) {
  return precision::stored_semantics(id, c.compute.name(), c.store.name(), true);
}

void json_chain(json::Builder& w, const Chain& c) {
  w.key("chain").value(c.name());
  w.key("accumulator").value(c.accumulator.name());
  w.key("compute").value(c.compute.name());
  w.key("store").value(c.store.name());
  w.key("block_size").value(c.store.block ? c.store.block->block_size() : 0);
}

}  // namespace

int run_error_chain(Args& args) {
  const std::vector<std::string> fn_ids = args.options("fn");
  if (fn_ids.empty()) throw UsageError("missing --fn ID (" + function_choices() + ")");
  if (fn_ids.size() > 1) throw UsageError("--fn: a rounding-point chain measures one function at a time");
  const Subject s = subject(fn_ids[0], "fn");
  const Activation& vs = required_function(args, "vs");
  const Chain chain = parse_chain_options(args);
  const auto order_text = args.option("order");
  const std::vector<std::string> param_text = args.options("param");
  const Params vs_params = parse_params(vs, args.options("vs-param"), "vs-param");
  const auto blocks_file = args.option("blocks");
  const auto dist_text = args.option("block-dist");
  const auto nblocks_text = args.option("num-blocks");
  const auto seed_text = args.option("seed");
  const bool json = args.flag("json");
  for (const char* o : {"range", "samples", "metric", "csv"})
    if (args.option(o))
      throw UsageError("--" + std::string(o) +
                       ": not with --store (the inputs are --blocks or --block-dist)");
  if (args.flag("all")) throw UsageError("--all: not with --store (the inputs are --blocks or --block-dist)");
  if (args.flag("markdown")) throw UsageError("--markdown: not with --store; --json or text");
  args.finish();
  const int order = order_text ? static_cast<int>(Args::to_int("order", *order_text, 0, 1)) : 0;
  const Params p = s.fn ? parse_params(*s.fn, param_text, "param") : Params{};
  if (!s.fn && !param_text.empty())
    throw UsageError("--param: the zoo entry " + s.id() + " has no parameters");
  if (!s.fn && order == 1 && !s.entry->has_d1())
    throw UsageError("--order 1: the zoo entry " + s.id() + " has no meaningful derivative");
  if (blocks_file && dist_text) throw UsageError("--blocks: give one of --blocks FILE.npy and --block-dist");
  if (!blocks_file && !dist_text)
    throw UsageError(
        "--store " + std::string(chain.store.name()) +
        ": needs the inputs, --blocks FILE.npy (pre-activations) or --block-dist normal:MU,SIGMA");
  if (blocks_file && (nblocks_text || seed_text))
    throw UsageError(std::string(nblocks_text ? "--num-blocks" : "--seed") + ": applies to --block-dist");
  // A number format as storage has no blocks: the inputs are drawn (and a .npy taken) in runs of 32.
  const int block_size = chain.store.block ? chain.store.block->block_size() : 32;
  const std::int64_t nblocks =
      nblocks_text
          ? Args::to_int("num-blocks", *nblocks_text, 1, static_cast<std::int64_t>(kMaxElements) / block_size)
          : 10000;
  const auto seed = static_cast<std::uint64_t>(
      seed_text ? Args::to_int("seed", *seed_text, 0, std::numeric_limits<std::int64_t>::max()) : 1);
  std::pair<double, double> dist{0, 1};
  if (dist_text) dist = parse_dist(*dist_text);
  if (dry_run()) return 0;

  const Inputs in = load_inputs(blocks_file, dist, nblocks, seed, block_size, chain.store.block.has_value());
  const zoo::Entry e = s.fn ? zoo::from_registry(*s.fn, p) : *s.entry;
  BlockErrorReport r;
  if (chain.store.block && order == 0) {
    // Block storage needs the reference only rounded to each block's lattice (and at the largest errors).
    const ChainValues v = run_chain_values(e, chain, in.x, order);
    r = block_error(*chain.store.block, in.x, v.computed, bounded_reference(vs, vs_params, in.x));
  } else {
    std::vector<double> ref(in.x.size());
    vs.eval(std::span<const double>(in.x), std::span<double>(ref), order, &vs_params);
    r = chain_error(e, chain, in.x, ref, order);
  }
  const std::string fn = s.id() + (order ? "'" : "");
  const std::string how = chain_semantics(s.id(), chain);
  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("fn").value(fn);
    w.key("semantics").value(how);
    w.key("vs").value(std::string(vs.id) + (order ? "'" : ""));
    w.key("order").value(order);
    json_chain(w, chain);
    json_inputs(w, blocks_file, dist, seed);
    w.key("n").value(static_cast<unsigned long long>(r.n));
    w.key("blocks").value(static_cast<unsigned long long>(r.blocks));
    w.key("max_ulp").value(static_cast<double>(r.max_ulp));
    w.key("mean_ulp").value(r.mean_ulp);
    w.key("mismatch").value(static_cast<unsigned long long>(r.mismatch));
    w.key("infinite").value(static_cast<unsigned long long>(r.infinite));
    w.key("max_abs").value(r.max_abs);
    w.key("at_max").begin_object();
    w.key("index").value(static_cast<unsigned long long>(r.at_index));
    w.key("x").value(r.at_x);
    w.key("computed").value(r.at_value);
    w.key("stored").value(r.at_stored);
    w.key("reference").value(r.at_reference);
    w.end_object();
    w.key("negative").value(static_cast<unsigned long long>(r.negative));
    w.key("flushed").value(static_cast<unsigned long long>(r.flushed));
    w.key("flushed_share").value(r.flushed_share());
    w.key("flushed_x");
    if (r.flushed)
      w.begin_array().value(r.flushed_x_lo).value(r.flushed_x_hi).end_array();
    else
      w.null();
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }
  std::printf("%s vs %s%s through the chain %s (accumulator:compute:storage)\n", fn.c_str(), vs.id,
              order ? "'" : "", chain.name().c_str());
  std::printf("evaluated as: %s\n", how.c_str());
  std::printf("inputs: %s (%zu values)\n", in.source.c_str(), r.n);
  std::printf("max error: %s ULP of %s at x = %s (index %zu): computed %s, stored %s, reference %s\n",
              ulp_text(r.max_ulp).c_str(), lattice_name(chain).c_str(), format_f64(r.at_x).c_str(),
              r.at_index, format_f64(r.at_value).c_str(), format_f64(r.at_stored).c_str(),
              format_f64(r.at_reference).c_str());
  std::printf(
      "mean error: %s ULP; %zu of %zu values differ from the reference rounded to the storage; max |error| "
      "%s\n",
      format_f64(r.mean_ulp).c_str(), r.mismatch, r.n, format_f64(r.max_abs).c_str());
  print_stored_as_zero(r);
  return 0;
}

int run_check_chain(Args& args) {
  const auto id = args.option("fn");
  if (!id) throw UsageError("missing --fn ID (" + function_choices() + ")");
  const Subject s = subject(*id, "fn");
  const Chain chain = parse_chain_options(args);
  const auto order_text = args.option("order");
  const std::vector<std::string> param_text = args.options("param");
  const auto xf = args.option("x"), yf = args.option("y");
  if (args.option("pairs"))
    throw UsageError("--pairs: with --store give --x X.npy --y Y.npy (blocks run along the arrays)");
  const auto max_ulp_text = args.option("max-ulp");
  const bool json = args.flag("json");
  args.finish();
  const int order = order_text ? static_cast<int>(Args::to_int("order", *order_text, 0, 1)) : 0;
  const Params p = s.fn ? parse_params(*s.fn, param_text, "param") : Params{};
  if (!s.fn && !param_text.empty())
    throw UsageError("--param: the zoo entry " + s.id() + " has no parameters");
  if (!s.fn && order == 1 && !s.entry->has_d1())
    throw UsageError("--order 1: the zoo entry " + s.id() + " has no meaningful derivative");
  if (!xf || !yf)
    throw UsageError("--store " + std::string(chain.store.name()) + ": needs --x X.npy --y Y.npy");
  const std::uint64_t max_ulp =
      max_ulp_text ? static_cast<std::uint64_t>(Args::to_int("max-ulp", *max_ulp_text, 0, 1'000'000)) : 0;
  if (dry_run()) return 0;

  const auto [x, y] = read_pairs(*xf, *yf);
  // What the chain stores: the kernel's y is expected to be exactly that, and is measured on its lattice.
  const zoo::Entry e = s.fn ? zoo::from_registry(*s.fn, p) : *s.entry;
  const ChainValues want = run_chain_values(e, chain, x, order);
  const std::size_t bs = chain.store.block ? static_cast<std::size_t>(chain.store.block->block_size()) : 1;
  std::uint64_t worst = 0;
  std::size_t at = 0, mismatch = 0, off_lattice = 0;
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::uint64_t d = 0;
    if (chain.store.block) {
      const BlockScale& sc = want.scales[i / bs];
      if (std::isnan(y[i]) || chain.store.block->quantize(y[i], sc) != y[i]) ++off_lattice;
      d = chain.store.block->ulp_distance(y[i], want.stored[i], sc);
    } else {
      const Format& f = *chain.store.plain;
      if (!(f.round(y[i]) == y[i] || (std::isnan(y[i]) && std::isnan(f.round(y[i]))))) ++off_lattice;
      d = f.ulp_distance(y[i], want.stored[i]);
    }
    if (d) ++mismatch;
    sum += d == std::numeric_limits<std::uint64_t>::max() ? 0.0 : static_cast<double>(d);
    if (d > worst) worst = d, at = i;
  }
  const double mean = sum / static_cast<double>(x.size());
  const std::string fn = s.id() + (order ? "'" : "");
  const std::string how = chain_semantics(s.id(), chain);
  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("fn").value(fn);
    w.key("semantics").value(how);
    w.key("order").value(order);
    json_chain(w, chain);
    w.key("n").value(static_cast<unsigned long long>(x.size()));
    w.key("max_ulp").value(static_cast<double>(worst));
    w.key("x_at_max").value(x[at]);
    w.key("y_at_max").value(y[at]);
    w.key("expected_at_max").value(want.stored[at]);
    w.key("mean_ulp").value(mean);
    w.key("mismatch").value(static_cast<unsigned long long>(mismatch));
    w.key("off_lattice").value(static_cast<unsigned long long>(off_lattice));
    w.end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("%s through the chain %s (accumulator:compute:storage): %zu values\n", fn.c_str(),
                chain.name().c_str(), x.size());
    std::printf("checked against: %s\n", how.c_str());
    std::printf("max error: %s ULP of %s at x = %s (index %zu): y = %s, the chain stores %s\n",
                ulp_text(worst).c_str(), lattice_name(chain).c_str(), format_f64(x[at]).c_str(), at,
                format_f64(y[at]).c_str(), format_f64(want.stored[at]).c_str());
    std::printf("mean error: %s ULP; %zu of %zu values differ; %zu are not values of the storage\n",
                format_f64(mean).c_str(), mismatch, x.size(), off_lattice);
  }
  if (std::fflush(stdout) != 0) return 1;
  if (max_ulp_text && worst > max_ulp) {
    std::fprintf(stderr, "gelulab check: max ULP error %s exceeds --max-ulp %llu (at x = %s)\n",
                 ulp_text(worst).c_str(), static_cast<unsigned long long>(max_ulp),
                 format_f64(x[at]).c_str());
    return 1;
  }
  return 0;
}

}  // namespace gelu::cli
