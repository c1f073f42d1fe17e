// Rounding-point chains (see gelu/chain.hpp).
#include "gelu/chain.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "gelu/activation.hpp"

namespace gelu {

std::optional<Chain> Chain::parse(std::string_view text, std::string* why) {
  const auto fail = [&](const std::string& w) -> std::optional<Chain> {
    if (why) *why = w;
    return std::nullopt;
  };
  const auto a = text.find(':');
  const auto b = a == std::string_view::npos ? a : text.find(':', a + 1);
  if (b == std::string_view::npos || text.find(':', b + 1) != std::string_view::npos)
    return fail("is not ACC:COMPUTE:STORE");
  const std::string_view acc = text.substr(0, a), comp = text.substr(a + 1, b - a - 1),
                         st = text.substr(b + 1);
  Chain c;
  for (const auto& [part, slot, what] :
       {std::tuple{acc, &c.accumulator, "accumulator"}, std::tuple{comp, &c.compute, "compute"}}) {
    const std::optional<Format> f = Format::parse(part);
    if (!f)
      return fail(std::string("its ") + what + " format '" + std::string(part) + "' is not one of " +
                  number_format_names());
    if (f->id() == FormatId::Int8 || f->row().unsigned_only)
      return fail(std::string("its ") + what + " format " + std::string(part) + " is not one to compute in");
    *slot = *f;
  }
  if (std::optional<BlockFormat> bf = BlockFormat::parse(st)) {
    c.store.block = *bf;
  } else if (std::optional<Format> f = Format::parse(st)) {
    if (f->row().unsigned_only) return fail("its storage format " + std::string(st) + " is a scale format");
    c.store.plain = *f;
  } else {
    return fail("its storage format '" + std::string(st) + "' is not one of " + number_format_names() + ", " +
                block_format_names());
  }
  return c;
}

std::string Chain::name() const {
  return std::string(accumulator.name()) + ":" + std::string(compute.name()) + ":" +
         std::string(store.name());
}

ChainValues run_chain_values(const zoo::Entry& e, const Chain& c, std::span<const double> x, int order,
                             std::optional<double> block_max) {
  if (!c.store.block && !c.store.plain)
    throw std::invalid_argument("run_chain: the chain has no storage format");
  if (block_max && !c.store.block)
    throw std::invalid_argument("run_chain: a block max needs a block format as storage");
  ChainValues v;
  std::vector<double> a(x.size());
  v.computed.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) a[i] = c.accumulator.round(x[i]);
  e.eval(a, v.computed, order, c.compute);
  // A registry function's double rounded as its correctly rounded value (the tie rule included).
  const Activation* act = e.origin == zoo::Origin::Registry ? find_activation(e.id) : nullptr;
  for (std::size_t i = 0; i < x.size(); ++i)
    v.computed[i] =
        act ? correctly_rounded(*act, c.compute, a[i], v.computed[i], order) : c.compute.round(v.computed[i]);
  v.stored.resize(x.size());
  if (c.store.block && block_max) {
    const BlockScale s = c.store.block->scale_for_max(*block_max);
    for (std::size_t i = 0; i < x.size(); ++i) v.stored[i] = c.store.block->quantize(v.computed[i], s);
    v.scales.push_back(s);
  } else if (c.store.block) {
    c.store.block->quantize_blocks(v.computed, v.stored, &v.scales);
  } else {
    for (std::size_t i = 0; i < x.size(); ++i) v.stored[i] = c.store.plain->round(v.computed[i]);
  }
  return v;
}

std::vector<double> run_chain(const zoo::Entry& e, const Chain& c, std::span<const double> x, int order) {
  return run_chain_values(e, c, x, order).stored;
}

BlockErrorReport chain_error(const zoo::Entry& e, const Chain& c, std::span<const double> x,
                             std::span<const double> ref, int order) {
  if (x.size() != ref.size()) throw std::invalid_argument("chain_error: x and the reference differ in size");
  const ChainValues v = run_chain_values(e, c, x, order);
  if (c.store.block) return block_error(*c.store.block, x, v.computed, ref);
  const Format& s = *c.store.plain;
  BlockErrorReport r;
  r.n = x.size();
  double sum = 0;
  bool any_flush = false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double stored = v.stored[i];
    const std::uint64_t d = s.ulp_distance(stored, ref[i]);
    if (d != 0) ++r.mismatch;
    if (d == std::numeric_limits<std::uint64_t>::max())
      ++r.infinite;
    else
      sum += static_cast<double>(d);
    if (d > r.max_ulp || i == 0) {
      r.max_ulp = d;
      r.at_index = i;
      r.at_x = x[i];
      r.at_value = v.computed[i];
      r.at_stored = stored;
      r.at_reference = ref[i];
    }
    if (std::isfinite(stored) && std::isfinite(ref[i]))
      r.max_abs = std::max(r.max_abs, std::fabs(stored - ref[i]));
    if (ref[i] < 0) {
      ++r.negative;
      if (stored == 0) {
        ++r.flushed;
        if (!any_flush) r.flushed_x_lo = r.flushed_x_hi = x[i];
        r.flushed_x_lo = std::min(r.flushed_x_lo, x[i]);
        r.flushed_x_hi = std::max(r.flushed_x_hi, x[i]);
        any_flush = true;
      }
    }
  }
  r.mean_ulp = r.n > r.infinite ? sum / static_cast<double>(r.n - r.infinite) : 0;
  return r;
}

namespace {
bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// The pre-activation x as saved for the backward pass: in the chain's storage format.
std::vector<double> saved_input(const Chain& c, std::span<const double> x) {
  std::vector<double> v(x.size());
  if (c.store.block) {
    c.store.block->quantize_blocks(x, v);
  } else {
    for (std::size_t i = 0; i < x.size(); ++i) v[i] = c.store.plain->round(x[i]);
  }
  return v;
}
}  // namespace

ChainComparison compare_chains(const zoo::Entry& e, std::span<const Chain> chains, std::span<const double> x,
                               std::span<const double> exact, int order, std::size_t listed) {
  if (x.size() != exact.size())
    throw std::invalid_argument("compare_chains: x and the exact outputs differ in size");
  ChainComparison r;
  for (const Chain& c : chains) {
    ChainSide s;
    s.chain = c;
    s.stored = run_chain(e, c, x, order);
    const std::vector<double> again = run_chain(e, c, saved_input(c, x), order);
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!same_bits(again[i], s.stored[i])) ++s.recompute_differ;
      const double d = std::fabs(s.stored[i] - exact[i]);
      if (d > s.max_abs) s.max_abs = d, s.x_at_max = x[i];
      if (exact[i] < 0) {
        ++s.negative;
        if (s.stored[i] == 0) ++s.flushed;
      }
    }
    s.recompute_identical = s.recompute_differ == 0;
    r.sides.push_back(std::move(s));
  }
  if (r.sides.size() >= 2) {
    const std::vector<double>&a = r.sides[0].stored, &b = r.sides[1].stored;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!same_bits(a[i], b[i]) && !(a[i] == 0 && b[i] == 0)) {
        ++r.differ;
        if (r.differences.size() < listed) r.differences.push_back(i);
      }
  }
  return r;
}

}  // namespace gelu
