// Rounding-point chains (see gelu/chain.hpp).
#include "gelu/chain.hpp"

#include <stdexcept>
#include <tuple>

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

std::vector<double> run_chain(const zoo::Entry& e, const Chain& c, std::span<const double> x, int order) {
  if (!c.store.block && !c.store.plain)
    throw std::invalid_argument("run_chain: the chain has no storage format");
  std::vector<double> a(x.size()), y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) a[i] = c.accumulator.round(x[i]);
  e.eval(a, y, order, c.compute);
  for (double& v : y) v = c.compute.round(v);
  if (c.store.block) {
    std::vector<double> out(y.size());
    c.store.block->quantize_blocks(y, out);
    return out;
  }
  for (double& v : y) v = c.store.plain->round(v);
  return y;
}

}  // namespace gelu
