// gelulab chain: where the rounding happens. Two rounding-point chains ACC:COMPUTE:STORE (gelu/chain.hpp)
// side by side on the same pre-activations: each one's error against the exact function, the negative outputs
// it stores as 0, and the values where the two chains differ; --order 1 for the backward pass's f' through
// the same chains; and whether running each chain again on the input as saved in its storage format (the
// recompute in the backward) gives bit-identical results.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/fn_options.hpp"
#include "gelu/chain.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "gelu/precision.hpp"
#include "gelu/stochastic.hpp"
#include "gelu/zoo.hpp"

namespace gelu::cli {
namespace {

constexpr std::size_t kMaxValues = 10'000'000;
constexpr std::size_t kListed = 10;

int run_chain_cmd(Args& args) {
  const auto id = args.option("fn");
  if (!id) throw UsageError("missing --fn ID (" + function_choices() + ")");
  const Subject s = subject(*id, "fn");
  const std::vector<std::string> chain_text = args.options("chain");
  const auto order_text = args.option("order");
  const auto dist_text = args.option("block-dist");
  const auto n_text = args.option("num-blocks");
  const auto seed_text = args.option("seed");
  const bool json = args.flag("json");
  args.finish();
  if (chain_text.size() != 2)
    throw UsageError(
        "--chain: give two chains ACC:COMPUTE:STORE to compare (e.g. --chain f32:f32:mxfp4 --chain "
        "bf16:bf16:bf16), not " +
        std::to_string(chain_text.size()));
  std::vector<Chain> chains;
  for (const std::string& t : chain_text) {
    std::string why;
    const std::optional<Chain> c = Chain::parse(t, &why);
    if (!c) throw UsageError("--chain: " + quote(t) + " " + why);
    chains.push_back(*c);
  }
  const int order = order_text ? static_cast<int>(Args::to_int("order", *order_text, 0, 1)) : 0;
  if (!s.fn && order == 1 && !s.entry->has_d1())
    throw UsageError("--order 1: the zoo entry " + s.id() + " has no meaningful derivative");
  const std::int64_t blocks = n_text ? Args::to_int("num-blocks", *n_text, 1, 100'000) : 1000;
  const auto seed = static_cast<std::uint64_t>(
      seed_text ? Args::to_int("seed", *seed_text, 0, std::numeric_limits<std::int64_t>::max()) : 1);
  double mu = 0, sigma = 1;
  if (dist_text) {
    const std::string what = "--block-dist: " + quote(*dist_text);
    const auto comma = dist_text->find(',');
    if (dist_text->rfind("normal:", 0) != 0 || comma == std::string::npos)
      throw UsageError(what + " is not normal:MU,SIGMA");
    const auto m = parse_f64(dist_text->substr(7, comma - 7)), sd = parse_f64(dist_text->substr(comma + 1));
    if (!m || !sd || !std::isfinite(*m) || std::fabs(*m) > 1e6 || !(*sd > 0) || *sd > 1e6)
      throw UsageError(what + ": MU in [-1e6, 1e6] and SIGMA in (0, 1e6] are needed");
    mu = *m, sigma = *sd;
  }
  if (dry_run()) return 0;

  const std::size_t n = std::min(kMaxValues, static_cast<std::size_t>(blocks) * 32);
  const std::vector<double> x = stochastic::sample_normal(mu, sigma, n, seed);
  const zoo::Entry e = s.fn ? zoo::from_registry(*s.fn) : *s.entry;
  std::vector<double> ref(n);
  zoo::from_registry(s.fn ? *s.fn : *find_activation("gelu")).eval(x, ref, order, Format(FormatId::F64));
  const ChainComparison cmp = compare_chains(e, chains, x, ref, order, kListed);
  const std::vector<ChainSide>& r = cmp.sides;
  const std::vector<std::size_t>& diff = cmp.differences;
  const std::size_t ndiff = cmp.differ;
  const std::string fn = s.id() + (order ? "'" : "");
  // Which semantics: a zoo entry as shipped in each chain's compute format, a registry function correctly
  // rounded to it (precision::stored_semantics).
  const std::string how =
      precision::stored_semantics(s.id(), "each chain's compute format", "each chain's storage", true);
  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("fn").value(fn);
    w.key("semantics").value(how);
    w.key("n").value(static_cast<unsigned long long>(n));
    w.key("chains").begin_array();
    for (const ChainSide& c : r) {
      w.begin_object();
      w.key("chain").value(c.chain.name());
      w.key("max_abs").value(c.max_abs);
      w.key("x_at_max").value(c.x_at_max);
      w.key("negative").value(static_cast<unsigned long long>(c.negative));
      w.key("flushed").value(static_cast<unsigned long long>(c.flushed));
      w.key("recompute_identical").value(c.recompute_identical);
      w.key("recompute_differ").value(static_cast<unsigned long long>(c.recompute_differ));
      w.end_object();
    }
    w.end_array();
    w.key("differ").value(static_cast<unsigned long long>(ndiff));
    w.key("differences").begin_array();
    for (std::size_t i : diff)
      w.begin_array().value(x[i]).value(r[0].stored[i]).value(r[1].stored[i]).end_array();
    w.end_array();
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }
  std::printf(
      "%s through two chains (accumulator:compute:storage), %zu pre-activations ~ normal(%s, %s), seed "
      "%llu\n",
      fn.c_str(), n, format_f64(mu).c_str(), format_f64(sigma).c_str(),
      static_cast<unsigned long long>(seed));
  std::printf("evaluated as: %s\n", how.c_str());
  for (const ChainSide& c : r)
    std::printf(
        "  %-22s max |error| %s at x = %s; negative outputs stored as 0: %zu of %zu; recomputed from the "
        "input saved in %s: %s\n",
        c.chain.name().c_str(), format_f64(c.max_abs).c_str(), format_f64(c.x_at_max).c_str(), c.flushed,
        c.negative, std::string(c.chain.store.name()).c_str(),
        c.recompute_identical ? "bit-identical"
                              : ("differs on " + std::to_string(c.recompute_differ)).c_str());
  std::printf("differ: %zu of %zu values (x: %s | %s)\n", ndiff, n, r[0].chain.name().c_str(),
              r[1].chain.name().c_str());
  for (std::size_t i : diff)
    std::printf("  x = %-22s %-22s %s\n", format_f64(x[i]).c_str(), format_f64(r[0].stored[i]).c_str(),
                format_f64(r[1].stored[i]).c_str());
  return 0;
}

}  // namespace

GELU_COMMAND(
    chain, "chain", "two rounding-point chains (accumulator, compute, storage format) side by side",
    "usage: gelulab chain --fn ID --chain ACC:COMPUTE:STORE --chain ACC:COMPUTE:STORE [--order 0|1]\n"
    "                     [--block-dist normal:MU,SIGMA] [--num-blocks N] [--seed S] [--json]\n\n"
    "Draws N·32 pre-activations (default N = 1000) from N(MU, SIGMA^2) (default normal:0,1), and runs each\n"
    "through both chains: rounded to the accumulator format, the function computed in the compute format\n"
    "(a zoo entry with its intermediates there; a registry function correctly rounded to it), the result\n"
    "stored in the storage format (any number format, or a block format stored in blocks of its size).\n"
    "Reports per chain the largest |stored - exact| and where, the negative outputs stored as 0, and\n"
    "whether recomputing from the pre-activation as saved for the backward (in the storage format) gives\n"
    "the same bits, and on how many values not; then how many values the two chains store differently, the\n"
    "first ten listed. --order 1: the backward pass's f' through the same chains.\n\n"
    "Example: gelulab chain --fn gelu --chain f32:f32:mxfp4 --chain bf16:bf16:bf16\n",
    run_chain_cmd);

}  // namespace gelu::cli
