// Checking an implementation's pairs (gelu/check.hpp).
//
// Index of this file:
//   [SECTION] Budgets
//   [SECTION] The checker
//   [SECTION] Values
//   [SECTION] Readers
#include "gelu/check.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>

#include "gelu/fileio.hpp"
#include "gelu/json.hpp"
#include "gelu/kernels.hpp"
#include "gelu/npy.hpp"
#include "gelu/numio.hpp"

namespace gelu::check {
namespace {

constexpr std::size_t kChunk = std::size_t{4} << 20;
constexpr std::size_t kMaxLine = 8192;
constexpr std::size_t kNpyBatch = std::size_t{1} << 16;
constexpr std::size_t kMaxBudgetBytes = std::size_t{1} << 20;

std::string num(double v) {
  return format_f64(v);
}

std::string range_text(double lo, double hi) {
  std::string s = "[";  // (appends: GCC 12 reports a false -Wrestrict on "[" + std::string)
  s.append(num(lo)).append(", ").append(num(hi)).append("]");
  return s;
}

/// A special pair matches when y is the expected value (NaN matches NaN; ±0 alike).
bool same(double y, double want) {
  if (std::isnan(y) || std::isnan(want)) return std::isnan(y) && std::isnan(want);
  return y == want;
}

}  // namespace

// [SECTION] Budgets

void parse_mismatch(std::string_view text, const std::string& what, Limits& l) {
  if (!text.empty() && text.back() == '%') {
    const std::optional<double> p = parse_f64(text.substr(0, text.size() - 1));
    if (!p || !(*p >= 0 && *p <= 100))
      throw InputError(what + ": " + quote(text) + " is not a percentage from 0% to 100%");
    l.max_mismatch_percent = *p;
    return;
  }
  const std::optional<double> n = parse_f64(text);
  if (!n || !(*n >= 0) || *n != std::floor(*n) || *n > 9.007199254740992e15)
    throw InputError(what + ": " + quote(text) + " is not a count of pairs (N) or a percentage (P%)");
  l.max_mismatch = static_cast<std::uint64_t>(*n);
}

namespace {

double bound(const json::Value& v, const std::string& where) {
  if (v.is_number()) return v.as_number();
  if (v.is_string()) {
    const std::string& s = v.as_string();
    if (s == "-inf") return -kInf;
    if (s == "inf" || s == "+inf") return kInf;
  }
  throw InputError(where + " must be a number or \"-inf\"/\"inf\", got " + v.type_name());
}

Limits limits_of(const json::Object& o, const std::string& where, std::set<std::string_view> extra) {
  Limits l;
  for (const auto& [key, v] : o) {
    const std::string at = where + ": '" + printable(key) + "'";
    if (key == "max_ulp") {
      if (!v.is_number() || !(v.as_number() >= 0) || v.as_number() != std::floor(v.as_number()) ||
          v.as_number() > 1.8446744073709552e19)
        throw InputError(at + " must be a whole number of ULPs (0 or more)");
      l.max_ulp = v.as_number() >= 1.8446744073709552e19 ? std::numeric_limits<std::uint64_t>::max()
                                                         : static_cast<std::uint64_t>(v.as_number());
    } else if (key == "max_mismatch") {
      if (v.is_number())
        parse_mismatch(format_f64(v.as_number()), at, l);
      else if (v.is_string())
        parse_mismatch(v.as_string(), at, l);
      else
        throw InputError(at + " must be a count (N) or a percentage (\"P%\")");
    } else if (key == "max_abs") {
      if (!v.is_number() || !(v.as_number() >= 0)) throw InputError(at + " must be a number, 0 or more");
      l.max_abs = v.as_number();
    } else if (!extra.count(key)) {
      throw InputError(at + " is not a budget key (max_ulp, max_mismatch, max_abs" +
                       std::string(extra.count("ranges") ? ", specials, ranges" : ", range") + ")");
    }
  }
  return l;
}

}  // namespace

Budget parse_budget(std::string_view text, const std::string& name) {
  json::Value doc;
  try {
    doc = json::parse(text);
  } catch (const json::JsonError& e) {
    throw InputError(name + ": " + e.what());
  }
  if (!doc.is_object()) throw InputError(name + ": a budget is a JSON object, got " + doc.type_name());
  const json::Object& o = doc.as_object();
  Budget b;
  Scope top;
  top.name = name;
  top.limits = limits_of(o, name, {"specials", "ranges"});
  if (const json::Value* s = doc.find("specials")) {
    if (s->is_string() && s->as_string() == "exact")
      b.specials = Specials::Exact;
    else if (s->is_string() && s->as_string() == "ignore")
      b.specials = Specials::Ignore;
    else
      throw InputError(name + ": 'specials' must be \"exact\" or \"ignore\"");
  }
  if (top.limits.any()) b.scopes.push_back(top);
  if (const json::Value* r = doc.find("ranges")) {
    if (!r->is_array()) throw InputError(name + ": 'ranges' must be an array of objects");
    std::size_t i = 0;
    for (const json::Value& e : r->as_array()) {
      const std::string at = name + ": 'ranges[" + std::to_string(i++) + "]'";
      if (!e.is_object()) throw InputError(at + " must be an object");
      const json::Value* rv = e.find("range");
      if (!rv || !rv->is_array() || rv->as_array().size() != 2)
        throw InputError(at + ": 'range' must be [A, B]");
      Scope s;
      s.all = false;
      s.lo = bound(rv->as_array()[0], at + ": 'range[0]'");
      s.hi = bound(rv->as_array()[1], at + ": 'range[1]'");
      if (!(s.lo <= s.hi)) throw InputError(at + ": 'range' " + range_text(s.lo, s.hi) + " is empty (A > B)");
      s.limits = limits_of(e.as_object(), at, {"range"});
      if (!s.limits.any()) throw InputError(at + " has no limit (max_ulp, max_mismatch or max_abs)");
      s.name = name + " range " + range_text(s.lo, s.hi);
      b.scopes.push_back(s);
    }
  }
  if (b.scopes.empty()) throw InputError(name + ": no limit in the budget (max_ulp, max_mismatch, max_abs)");
  return b;
}

Budget read_budget(const std::string& path) {
  const std::string name = "--budget " + quote(path, 200);
  std::string text;
  try {
    text = read_file(path, kMaxBudgetBytes);
  } catch (const FileError& e) {
    throw InputError("--budget: " + std::string(e.what()));
  }
  return parse_budget(text, name);
}

// [SECTION] The checker

std::string semantics(const Setup& s) {
  const std::string f = std::string(s.format.name());
  const std::string what = s.fn + (s.order == 1 ? "'" : "");
  if (s.registry) return "registry function " + what + ", correctly rounded to " + f;
  const Format c = s.compute.value_or(precision::default_compute(s.format));
  return "zoo entry " + what + " as shipped, computed in " +
         (s.reference.uses_compute ? std::string(c.name()) : std::string("its own arithmetic")) +
         ", rounded to " + f;
}

namespace {
Format compute_of(const Setup& s) {
  if (s.registry) return Format(FormatId::F64);
  return s.compute.value_or(precision::default_compute(s.format));
}
}  // namespace

Checker::Checker(Setup s)
    : s_(std::move(s)), compute_(compute_of(s_)), pairs_(s_.reference, s_.format, s_.order, compute_) {
  stats_.resize(s_.budget.scopes.size());
}

double Checker::special_expected(double x) const {
  double v = s_.reference.eval(x, s_.order, compute_);
  // At ±inf the naive formula is often ∞·0; the function's limit is its value at the far end of f64.
  if (std::isnan(v) && std::isinf(x))
    v = s_.reference.eval(std::copysign(std::numeric_limits<double>::max(), x), s_.order, compute_);
  return zoo::rounded_result(s_.reference, s_.format, x, v, s_.order);
}

void Checker::add(std::size_t row, double x, double y) {
  add_with(row, x, y, nullptr);
}

void Checker::add_many(const double* x, const double* y, std::size_t n, std::size_t first_row) {
  // The 8- and 16-bit formats keep a cache that is not shared across threads; zoo entries may share state.
  if (!s_.registry || s_.format.enumerable() || n < 4096) {
    for (std::size_t i = 0; i < n; ++i) add_with(first_row + i, x[i], y[i], nullptr);
    return;
  }
  want_.resize(n);
  // A parameterless registry function is rounded by correctly_rounded itself, which has fast paths.
  const Activation* act = find_activation(s_.reference.id);
  if (act && !act->params.empty()) act = nullptr;
  parallel_for(n, 2048, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i)
      want_[i] = !std::isfinite(x[i]) ? 0.0
                 : act                ? correctly_rounded(*act, s_.format, x[i], s_.order)
                                      : zoo::rounded_result(s_.reference, s_.format, x[i],
                                                            s_.reference.eval(x[i], s_.order, compute_), s_.order);
  });
  for (std::size_t i = 0; i < n; ++i)
    add_with(first_row + i, x[i], y[i], std::isfinite(x[i]) ? &want_[i] : nullptr);
}

void Checker::add_with(std::size_t row, double x, double y, const double* given) {
  if (s_.have_range && !(x >= s_.lo && x <= s_.hi)) {
    ++outside_;
    return;
  }
  bool special = !std::isfinite(x) || !std::isfinite(y);
  double want = 0;
  std::uint64_t ulp = 0;
  double abs_err = 0;
  if (!special) {
    want = given ? *given : pairs_.expected(x);
    special = !std::isfinite(want);
  } else if (std::isfinite(x)) {
    want = given ? *given : pairs_.expected(x);
  }
  bool differs;
  if (special) {
    if (!std::isfinite(x)) want = special_expected(x);
    differs = !same(y, want);
    ++specials_;
    if (differs) {
      ++specials_mismatch_;
      if (special_mismatches_.size() < 10) special_mismatches_.push_back({row, x, y, want});
    }
  } else {
    ulp = pairs_.add(row, x, y, want);
    differs = ulp != 0;
    abs_err = std::fabs(y - want);
    if (abs_err > max_abs_) max_abs_ = abs_err, x_at_max_abs_ = x;
  }
  if (differs) ++mismatch_;
  for (std::size_t i = 0; i < stats_.size(); ++i) {
    if (!s_.budget.scopes[i].contains(x)) continue;
    Stats& st = stats_[i];
    ++st.n;
    if (differs) ++st.mismatch;
    if (special) {
      ++st.specials;
      if (differs && st.specials_mismatch++ == 0) st.x_first_special_mismatch = x;
    } else {
      if (st.n - st.specials == 1 || ulp > st.max_ulp) st.max_ulp = ulp, st.x_at_max = x;
      if (abs_err > st.max_abs) st.max_abs = abs_err, st.x_at_max_abs = x;
    }
  }
}

Result Checker::result(const std::string& source) const {
  Result r;
  r.fn = s_.fn + std::string(static_cast<std::size_t>(s_.order), '\'');
  r.format = std::string(s_.format.name());
  r.semantics = semantics(s_);
  r.finite = pairs_.result();
  r.outside = outside_;
  r.n = r.finite.n + specials_;
  if (r.n == 0) {
    if (outside_)
      throw InputError(source + ": no pair has x in --range " + range_text(s_.lo, s_.hi) + " (" +
                       std::to_string(outside_) + " pair" + (outside_ == 1 ? "" : "s") +
                       " outside it): nothing to check");
    throw InputError(source +
                     ": no pairs (the input is empty, or holds only a header, comments or blank lines): "
                     "nothing to check");
  }
  r.mismatch = mismatch_;
  r.max_abs = max_abs_;
  r.x_at_max_abs = x_at_max_abs_;
  r.specials = specials_;
  r.specials_mismatch = specials_mismatch_;
  r.special_mismatches = special_mismatches_;
  r.scopes = s_.budget.scopes;
  r.scope_stats = stats_;
  r.specials_policy = s_.budget.specials;
  const Format& f = s_.format;
  for (std::size_t i = 0; i < r.scopes.size(); ++i) {
    const Scope& sc = r.scopes[i];
    const Stats& st = r.scope_stats[i];
    const bool flag = sc.options;
    const auto label = [&](const char* key, const std::string& opt, const std::string& value) {
      return flag ? opt + " " + value : sc.name + ": " + key + " " + value;
    };
    if (st.n == 0) {
      r.broken.push_back({sc.name,
                          sc.name + ": no pair has x in " + range_text(sc.lo, sc.hi) +
                              " (a budget over nothing is not a pass)",
                          sc.lo});
      continue;
    }
    const Limits& l = sc.limits;
    if (l.max_ulp && st.max_ulp > *l.max_ulp) {
      const std::string b = label("max_ulp", "--max-ulp", std::to_string(*l.max_ulp));
      r.broken.push_back({b,
                          "max ULP error " + std::to_string(st.max_ulp) + " exceeds " + b +
                              " (at x = " + format_in(st.x_at_max, f) + ")",
                          st.x_at_max});
    }
    if (l.max_abs && st.max_abs > *l.max_abs) {
      const std::string b = label("max_abs", "--max-abs", num(*l.max_abs));
      r.broken.push_back({b,
                          "max abs error " + num(st.max_abs) + " exceeds " + b +
                              " (at x = " + format_in(st.x_at_max_abs, f) + ")",
                          st.x_at_max_abs});
    }
    const double pct = 100.0 * static_cast<double>(st.mismatch) / static_cast<double>(st.n);
    const bool over_count = l.max_mismatch && st.mismatch > *l.max_mismatch;
    const bool over_pct = l.max_mismatch_percent && pct > *l.max_mismatch_percent;
    if (over_count || over_pct) {
      const std::string b =
          label("max_mismatch", "--max-mismatch",
                over_count ? std::to_string(*l.max_mismatch) : num(*l.max_mismatch_percent) + "%");
      const double x = st.specials_mismatch && st.max_ulp == 0 ? st.x_first_special_mismatch : st.x_at_max;
      char p[32];
      std::snprintf(p, sizeof p, "%.4g%%", pct);
      r.broken.push_back({b,
                          std::to_string(st.mismatch) + " of " + std::to_string(st.n) + " pairs differ (" +
                              p + "), more than " + b + " (worst at x = " + format_in(x, f) + ")",
                          x});
    }
    if (r.specials_policy == Specials::Exact && st.specials_mismatch) {
      const Special* first = nullptr;
      for (const Special& s : r.special_mismatches)
        if (sc.contains(s.x)) {
          first = &s;
          break;
        }
      std::string where = "x = " + format_in(st.x_first_special_mismatch, f);
      if (first) where += ": y = " + format_in(first->y, f) + ", expected " + format_in(first->expected, f);
      const std::string b = (flag ? std::string("specials") : sc.name + ": specials exact");
      r.broken.push_back({b,
                          std::to_string(st.specials_mismatch) + " of " + std::to_string(st.specials) +
                              " special pairs (x = ±inf/NaN, or NaN/inf y or expected) differ under " +
                              (flag ? sc.name : b) + " (first at " + where + ")",
                          st.x_first_special_mismatch});
    }
  }
  return r;
}

// [SECTION] Values

void Values::not_a_value(std::string_view shown, double nearest, const std::string& where,
                         const char* what) const {
  throw InputError(where + ": " + what + " = " + printable(shown) + " is not a value of " +
                   std::string(f_.name()) + " (the nearest is " + format_in(nearest, f_) + ")");
}

namespace {
bool is_infinity_text(std::string_view t) {
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
  return t.size() >= 3 && std::tolower(static_cast<unsigned char>(t[0])) == 'i';
}
}  // namespace

double Values::from_text(std::string_view tok, const std::string& where, const char* what) const {
  const std::optional<double> d = parse_f64(tok);
  if (!d) throw InputError(where + ": " + what + " = " + quote(tok) + " is not a number");
  if (!std::isfinite(*d)) {
    if (std::isinf(*d) && !is_infinity_text(tok))
      throw InputError(where + ": " + what + " = " + printable(tok) + " is beyond " + std::string(f_.name()) +
                       "'s largest finite value");
    if (!f_.representable(*d))
      throw InputError(where + ": " + what + " = " + printable(tok) + " is not a value of " +
                       std::string(f_.name()) + " (it has no " + (std::isnan(*d) ? "NaN" : "infinity") + ")");
    return *d;
  }
  const FormatId id = f_.id();
  if (id == FormatId::F64) return *d;  // parse_f64 rounds the decimal once, to the nearest double
  if (f_.round(*d) == *d) return *d;   // the value itself (an exact print): the usual case
  const std::optional<double> v = parse_in_format(tok, f_);
  if (std::isinf(*v))
    throw InputError(where + ": " + what + " = " + printable(tok) + " is beyond " + std::string(f_.name()) +
                     "'s largest finite value");
  if (id == FormatId::F32) return *v;  // a decimal that reads to a float is that float (%.9g prints)
  if (*v == *d || std::fabs(*d - *v) <= f_.spacing(*v) / 16) return *v;
  if (parse_f64(format_in(*v, f_)) == *d) return *v;
  not_a_value(tok, *v, where, what);
}

double Values::from_binary(double d, const std::string& where, const char* what) const {
  if (std::isnan(d) || std::isinf(d)) {
    if (f_.representable(d)) return d;
    throw InputError(where + ": " + what + " = " + format_f64(d) + " is not a value of " +
                     std::string(f_.name()) + " (it has no " + (std::isnan(d) ? "NaN" : "infinity") + ")");
  }
  if (std::isinf(f_.round(d)))
    throw InputError(where + ": " + what + " = " + format_f64(d) + " is beyond " + std::string(f_.name()) +
                     "'s largest finite value");
  if (!f_.representable(d)) not_a_value(format_f64(d), f_.round(d), where, what);
  return d;
}

// [SECTION] Readers

namespace {

constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// A field without the double quotes a CSV writer may put around it ("x" → x).
std::string_view unquoted(std::string_view f) {
  if (f.size() >= 2 && f.front() == '"' && f.back() == '"') return f.substr(1, f.size() - 2);
  return f;
}

std::string at(const std::string& name, const char* unit, std::size_t n) {
  return name + ", " + unit + " " + std::to_string(n);
}

std::string shape_text(const NpyHeader& h) {
  std::string s = "(";
  for (std::size_t i = 0; i < h.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(h.shape[i]);
  return s + (h.shape.size() == 1 ? ",)" : ")");
}

}  // namespace

void read_text(int fd, const std::string& name, Checker& check) {
  const Values values(check.format());
  std::vector<char> buf(kChunk);
  std::size_t have = 0, line = 0;
  bool eof = false, first = true;
  const auto handle = [&](std::string_view l) {
    ++line;
    if (l.size() > kMaxLine)
      throw InputError(at(name, "line", line) + ": a line of more than " + std::to_string(kMaxLine) +
                       " bytes (" + quote(l) + ")");
    std::string_view fields[2];
    std::size_t count = 0, i = 0;  // fields beyond the second are counted, not kept
    while (i < l.size()) {
      while (i < l.size() && is_space(l[i])) ++i;
      if (i == l.size()) break;
      if (l[i] == ',' && count > 0) {
        ++i;  // one comma between fields (CSV), with optional spaces around it
        while (i < l.size() && is_space(l[i])) ++i;
      }
      const std::size_t start = i;
      while (i < l.size() && !is_space(l[i]) && l[i] != ',') ++i;
      if (count < 2) fields[count] = unquoted(l.substr(start, i - start));
      ++count;
      if (i < l.size() && l[i] == ',' && i + 1 == l.size())
        throw InputError(at(name, "line", line) + ": a line ends with a comma (" + quote(l) + ")");
    }
    if (count == 0 || fields[0].starts_with("#")) return;
    const bool header = first && count == 2 && !parse_f64(fields[0]) && !parse_f64(fields[1]) &&
                        !fields[0].empty() && std::isalpha(static_cast<unsigned char>(fields[0][0]));
    first = false;
    if (header) return;
    const std::string where = at(name, "line", line);
    if (count != 2)
      throw InputError(where + ": expected two numbers x y, got " + std::to_string(count) + " field" +
                       (count == 1 ? "" : "s") + " (" + quote(l) + ")");
    const double x = values.from_text(fields[0], where, "x");
    const double y = values.from_text(fields[1], where, "y");
    check.add(line, x, y);
  };
  while (!eof) {
    ssize_t got;
    do got = ::read(fd, buf.data() + have, buf.size() - have);
    while (got < 0 && errno == EINTR);
    if (got < 0) throw InputError(name + ": cannot read: " + std::strerror(errno));
    if (got == 0) eof = true;
    const std::size_t end = have + static_cast<std::size_t>(got);
    std::size_t start = 0;
    for (std::size_t i = have; i < end; ++i) {
      if (buf[i] == '\0')
        throw InputError(
            at(name, "line",
               line + 1 + static_cast<std::size_t>(std::count(buf.data() + start, buf.data() + i, '\n'))) +
            ": a NUL byte (this is not a text file)");
      if (buf[i] != '\n') continue;
      handle(std::string_view(buf.data() + start, i - start));
      start = i + 1;
    }
    if (eof) {
      if (start < end) handle(std::string_view(buf.data() + start, end - start));
      break;
    }
    have = end - start;
    if (have > kMaxLine)
      throw InputError(at(name, "line", line + 1) + ": a line of more than " + std::to_string(kMaxLine) +
                       " bytes (" + quote(std::string_view(buf.data() + start, have)) + ")");
    std::memmove(buf.data(), buf.data() + start, have);
  }
}

void read_pairs(const std::string& path, const std::string& name, Checker& check) {
  const Values values(check.format());
  if (!is_npy_file(path)) {
    int fd = -1;
    try {
      fd = open_for_reading(path);
    } catch (const FileError& e) {
      std::string why = e.what();
      if (why.rfind(path + ": ", 0) == 0) why = why.substr(path.size() + 2);
      throw InputError(name + ": " + why);
    }
    try {
      read_text(fd, name, check);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    return;
  }
  try {
    NpyReader r(path, name);
    r.bits_as(check.format(), "--dtype " + std::string(check.format().name()));
    if (r.header().shape.size() != 2 || r.header().shape[1] != 2)
      throw InputError(name + ": shape " + shape_text(r.header()) +
                       " is not (N, 2); for two 1-D arrays use --x X.npy --y Y.npy");
    std::vector<double> v(2 * kNpyBatch);
    std::size_t row = 0;
    std::vector<double> xs(kNpyBatch), ys(kNpyBatch);
    for (std::size_t got; (got = r.read(v.data(), v.size())) > 0;) {
      const std::size_t first = row;
      std::size_t k = 0;
      for (std::size_t i = 0; i + 1 < got; i += 2, ++row, ++k) {
        xs[k] = values.from_binary(v[i], at(name, "row", row), "x");
        ys[k] = values.from_binary(v[i + 1], at(name, "row", row), "y");
      }
      check.add_many(xs.data(), ys.data(), k, first);
    }
  } catch (const NpyError& e) {
    throw InputError(e.what());
  }
}

void read_columns(const std::string& xpath, const std::string& xname, const std::string& ypath,
                  const std::string& yname, Checker& check) {
  const Values values(check.format());
  try {
    NpyReader rx(xpath, xname), ry(ypath, yname);
    for (NpyReader* r : {&rx, &ry}) {
      r->bits_as(check.format(), "--dtype " + std::string(check.format().name()));
      if (r->header().shape.size() != 1)
        throw InputError(r->name() + ": shape " + shape_text(r->header()) +
                         " is not (N,); a single (N, 2) array goes with --pairs");
    }
    if (rx.header().count != ry.header().count)
      throw InputError(xname + " has " + std::to_string(rx.header().count) + " values but " + yname +
                       " has " + std::to_string(ry.header().count) + "; x and y must have the same length");
    std::vector<double> x(kNpyBatch), y(kNpyBatch);
    std::size_t row = 0;
    for (std::size_t got; (got = rx.read(x.data(), x.size())) > 0;) {
      if (ry.read(y.data(), got) != got) throw InputError(yname + ": cannot read: the file got shorter");
      for (std::size_t i = 0; i < got; ++i) {
        values.from_binary(x[i], at(xname, "row", row + i), "x");
        values.from_binary(y[i], at(yname, "row", row + i), "y");
      }
      check.add_many(x.data(), y.data(), got, row);
      row += got;
    }
  } catch (const NpyError& e) {
    throw InputError(e.what());
  }
}

}  // namespace gelu::check
