// gelulab._core: the C++ side of the Python module (python/gelulab). Every result comes from the same core
// code the command line runs — gelu::check for check(), the registry and the zoo for eval(), analysis and
// precision for error() — so the CLI and Python cannot disagree. Bad input raises ValueError with the CLI's
// message (gelu::check::InputError and the core's std::invalid_argument / domain_error).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/analysis.hpp"
#include "gelu/check.hpp"
#include "gelu/format.hpp"
#include "gelu/numio.hpp"
#include "gelu/precision.hpp"
#include "gelu/zoo.hpp"

namespace py = pybind11;
using namespace gelu;

namespace {

Format format_of(const std::string& name) {
  const auto f = Format::parse(name);
  if (!f || f->id() == FormatId::Int8)
    throw check::InputError("dtype: " + quote(name) + " is not one of f64, f32, bf16, f16, e4m3, e5m2");
  return *f;
}

/// The values of a NumPy array (any shape, read in C order) as values of `f`: float16/32/64 as they are;
/// integer arrays as bit patterns of the format (uint16/int16 for bf16 and f16 — a bf16 tensor's int16 view
/// —, uint8/int8 for e4m3 and e5m2), decoded without a copy through text.
class Column {
 public:
  Column(const py::array& a, const Format& f, const char* what) : f_(f), what_(what) {
    const py::dtype dt = a.dtype();
    kind_ = dt.kind();
    size_ = static_cast<int>(dt.itemsize());
    arr_ = py::array::ensure(a, py::array::c_style);
    if (!arr_) throw check::InputError(std::string(what) + ": cannot read the array");
    n_ = static_cast<std::size_t>(arr_.size());
    const bool is_float = kind_ == 'f' && (size_ == 2 || size_ == 4 || size_ == 8);
    const bool is_bits = (kind_ == 'u' || kind_ == 'i') && (size_ == 1 || size_ == 2);
    if (!is_float && !is_bits)
      throw check::InputError(std::string(what) + ": dtype " +
                              py::str(static_cast<py::handle>(dt)).cast<std::string>() +
                              " is not float16/float32/float64 or uint16/int16/uint8/int8 bit patterns");
    if (is_bits) {
      const int want = f.row().bits;
      const bool ok = (want == 16 && (f.id() == FormatId::BF16 || f.id() == FormatId::F16)) ||
                      (want == 8 && (f.id() == FormatId::E4M3 || f.id() == FormatId::E5M2));
      if (!ok || want != 8 * size_)
        throw check::InputError(
            std::string(what) + ": dtype " + py::str(static_cast<py::handle>(dt)).cast<std::string>() +
            " holds " + std::to_string(8 * size_) + "-bit patterns, which dtype " + std::string(f.name()) +
            " cannot take (16-bit patterns are bf16 or f16, 8-bit ones e4m3 or e5m2)");
    }
    data_ = static_cast<const unsigned char*>(arr_.data());
  }
  std::size_t size() const { return n_; }
  double operator[](std::size_t i) const {
    const unsigned char* p = data_ + i * static_cast<std::size_t>(size_);
    if (kind_ == 'f') {
      if (size_ == 8) {
        double v;
        std::memcpy(&v, p, 8);
        return v;
      }
      if (size_ == 4) {
        float v;
        std::memcpy(&v, p, 4);
        return v;
      }
      std::uint16_t b;
      std::memcpy(&b, p, 2);
      return half_.decode(b);
    }
    std::uint64_t bits = 0;
    std::memcpy(&bits, p, static_cast<std::size_t>(size_));
    return f_.decode(bits);
  }

 private:
  Format f_;
  Format half_{FormatId::F16};
  const char* what_;
  py::array arr_;
  char kind_;
  int size_;
  std::size_t n_;
  const unsigned char* data_ = nullptr;
};

py::dict stats_dict(const check::Stats& st) {
  py::dict d;
  d["n"] = st.n;
  d["mismatch"] = st.mismatch;
  d["max_ulp"] = st.max_ulp;
  d["x_at_max"] = st.x_at_max;
  d["max_abs"] = st.max_abs;
  d["x_at_max_abs"] = st.x_at_max_abs;
  d["specials"] = st.specials;
  d["specials_mismatch"] = st.specials_mismatch;
  return d;
}

py::dict run_check(const py::array& x, const py::array& y, const std::string& fn, const std::string& dtype,
                   int order, py::object range, const std::string& budget_json,
                   const std::string& budget_name, py::object max_ulp, py::object max_mismatch,
                   py::object max_abs, py::object compute) {
  check::Setup s;
  s.format = format_of(dtype);
  const std::optional<zoo::Entry> e = zoo::resolve(fn);
  if (!e)
    throw check::InputError("fn: unknown function " + quote(fn) + " (registry: " + activation_ids() +
                            "; zoo: " + zoo::ids() + ")");
  s.reference = *e;
  s.registry = find_activation(fn) != nullptr;
  s.fn = fn;
  if (order != 0 && order != 1) throw check::InputError("order: check compares f (0) or f' (1)");
  if (order == 1 && !e->has_d1()) throw check::InputError("order 1: " + fn + " has no meaningful derivative");
  s.order = order;
  if (!compute.is_none()) {
    if (s.registry)
      throw check::InputError("compute: " + fn +
                              " is a registry function, checked against its correctly "
                              "rounded value; compute is for zoo entries");
    s.compute = format_of(compute.cast<std::string>());
  }
  if (!range.is_none()) {
    const auto r = range.cast<std::pair<double, double>>();
    if (!(r.first <= r.second))
      throw check::InputError("range: (" + format_f64(r.first) + ", " + format_f64(r.second) +
                              ") is reversed (A must not be above B)");
    s.have_range = true;
    s.lo = r.first;
    s.hi = r.second;
  }
  if (!budget_json.empty()) s.budget = check::parse_budget(budget_json, budget_name);
  check::Scope flags;
  flags.options = true;
  if (!max_ulp.is_none()) {
    const long long v = max_ulp.cast<long long>();
    if (v < 0) throw check::InputError("max_ulp: " + std::to_string(v) + " is negative");
    flags.limits.max_ulp = static_cast<std::uint64_t>(v);
    flags.name += " --max-ulp " + std::to_string(v);
  }
  if (!max_mismatch.is_none()) {
    const std::string t = py::str(max_mismatch);
    check::parse_mismatch(t, "--max-mismatch", flags.limits);
    flags.name += " --max-mismatch " + t;
  }
  if (!max_abs.is_none()) {
    const double v = max_abs.cast<double>();
    if (!(v >= 0) || std::isinf(v))
      throw check::InputError("max_abs: " + format_f64(v) + " is not a finite number, 0 or more");
    flags.limits.max_abs = v;
    flags.name += " --max-abs " + format_f64(v);
  }
  if (flags.limits.any()) {
    flags.name.erase(0, 1);
    s.budget.scopes.insert(s.budget.scopes.begin(), flags);
  }
  const Column xs(x, s.format, "x"), ys(y, s.format, "y");
  if (xs.size() != ys.size())
    throw check::InputError("x has " + std::to_string(xs.size()) + " values but y has " +
                            std::to_string(ys.size()) + "; x and y must have the same length");
  check::Checker checker(s);
  const check::Values values(s.format);
  {
    py::gil_scoped_release nogil;  // the arrays are kept alive by the caller's references
    constexpr std::size_t kBatch = std::size_t{1} << 16;
    std::vector<double> bx(kBatch), by(kBatch);
    for (std::size_t first = 0; first < xs.size(); first += kBatch) {
      const std::size_t n = std::min(kBatch, xs.size() - first);
      for (std::size_t k = 0; k < n; ++k) {
        const double xv = xs[first + k], yv = ys[first + k];
        if (!s.format.representable(xv) || !s.format.representable(yv)) {
          // Not a value of the format (a float32 array for bf16, say): the CLI's message, naming the index.
          const std::string where = "index " + std::to_string(first + k);
          values.from_binary(xv, where, "x");
          values.from_binary(yv, where, "y");
        }
        bx[k] = xv;
        by[k] = yv;
      }
      checker.add_many(bx.data(), by.data(), n, first);
    }
  }
  const check::Result r = checker.result("x, y");
  py::dict d;
  d["fn"] = r.fn;
  d["dtype"] = r.format;
  d["semantics"] = r.semantics;
  d["n"] = r.n;
  d["outside"] = r.outside;
  d["max_ulp"] = r.finite.max_ulp;
  d["x_at_max"] = r.finite.x_at_max;
  d["mean_ulp"] = r.finite.mean_ulp;
  d["mismatch"] = r.mismatch;
  d["max_abs"] = r.max_abs;
  d["x_at_max_abs"] = r.x_at_max_abs;
  py::list hist;
  for (const auto& b : r.finite.histogram) hist.append(py::make_tuple(b.lo, b.hi, b.count));
  d["histogram"] = hist;
  py::list worst;
  for (const auto& w : r.finite.worst) {
    py::dict o;
    o["row"] = w.row;
    o["x"] = w.x;
    o["y"] = w.y;
    o["expected"] = w.expected;
    o["ulp"] = w.ulp;
    worst.append(o);
  }
  d["worst"] = worst;
  py::dict sp;
  sp["n"] = r.specials;
  sp["mismatch"] = r.specials_mismatch;
  sp["policy"] = r.specials_policy == check::Specials::Exact ? "exact" : "ignore";
  py::list differ;
  for (const auto& m : r.special_mismatches) {
    py::dict o;
    o["row"] = m.row;
    o["x"] = m.x;
    o["y"] = m.y;
    o["expected"] = m.expected;
    differ.append(o);
  }
  sp["differ"] = differ;
  d["specials"] = sp;
  py::list budgets;
  for (std::size_t i = 0; i < r.scopes.size(); ++i) {
    py::dict b = stats_dict(r.scope_stats[i]);
    b["name"] = r.scopes[i].name;
    if (!r.scopes[i].all) b["range"] = py::make_tuple(r.scopes[i].lo, r.scopes[i].hi);
    budgets.append(b);
  }
  d["budgets"] = budgets;
  py::list broken;
  for (const auto& b : r.broken) broken.append(py::make_tuple(b.budget, b.message, b.x));
  d["broken"] = broken;
  d["verdict"] = r.scopes.empty() ? "no budget" : (r.passed() ? "pass" : "fail");
  return d;
}

py::array_t<double> run_eval(const std::string& fn,
                             const py::array_t<double, py::array::c_style | py::array::forcecast>& x,
                             const std::string& dtype, int order) {
  const Format f = format_of(dtype);
  const std::optional<zoo::Entry> e = zoo::resolve(fn);
  if (!e) throw check::InputError("fn: unknown function " + quote(fn));
  const bool registry = find_activation(fn) != nullptr;
  if (order < 0 || order > 1 || (order == 1 && !e->has_d1()))
    throw check::InputError("order: " + std::to_string(order) + " is not available for " + fn + " (0 or 1)");
  const Format compute = registry ? Format(FormatId::F64) : precision::default_compute(f);
  std::vector<double> in(x.data(), x.data() + x.size());
  for (double& v : in) v = f.round(v);  // inputs are values of the format
  std::vector<double> out(in.size());
  e->eval(in, out, order, compute);
  py::array_t<double> y(static_cast<py::ssize_t>(out.size()));
  double* p = y.mutable_data();
  for (std::size_t i = 0; i < out.size(); ++i) p[i] = zoo::rounded_result(*e, f, in[i], out[i], order);
  return y;
}

py::dict run_error(const std::string& fn, const std::string& vs, const std::string& dtype, bool all,
                   py::object range, std::size_t samples, int order) {
  const Format f = format_of(dtype);
  const Activation* ref = find_activation(vs);
  if (!ref)
    throw check::InputError("vs: " + quote(vs) + " is not a registry function (" + activation_ids() + ")");
  if (all && !f.enumerable())
    throw check::InputError("all: " + std::string(f.name()) + " has " + std::to_string(f.count_finite()) +
                            " values; all=True takes the 8- and 16-bit formats");
  double lo = all ? -INFINITY : -10.0, hi = all ? INFINITY : 10.0;
  if (!range.is_none()) {
    const auto r = range.cast<std::pair<double, double>>();
    if (!(r.first < r.second)) throw check::InputError("range: A must be less than B");
    lo = r.first;
    hi = r.second;
  }
  const std::vector<double> x = precision::inputs(f, lo, hi, all ? 0 : samples);
  if (x.empty()) throw check::InputError("range: no value of " + std::string(f.name()) + " lies in it");
  const analysis::FunctionSpec rs = analysis::spec(*ref, order);
  analysis::ErrorReport rep;
  std::string compute;
  if (const Activation* a = find_activation(fn)) {
    rep = analysis::compare_at(analysis::spec(*a, order), rs, x, f);
  } else if (const auto e = zoo::find(fn)) {
    const Format c = precision::default_compute(f);
    compute = std::string(c.name());
    rep = precision::sweep_at(*e, rs, x, f, c, order).errors;
  } else {
    throw check::InputError("fn: unknown function " + quote(fn));
  }
  py::dict d;
  d["fn"] = fn;
  d["vs"] = vs;
  d["dtype"] = std::string(f.name());
  d["compute"] = compute;
  d["n"] = x.size();
  for (const auto m : {analysis::ErrorMetric::Abs, analysis::ErrorMetric::Rel, analysis::ErrorMetric::Ulp}) {
    const analysis::ErrorStats& s = rep.stats(m);
    py::dict o;
    o["max"] = s.max;
    o["x_at_max"] = s.x_at_max;
    o["mean"] = s.mean;
    o["mismatch"] = s.mismatch;
    o["nonfinite"] = s.nonfinite;
    d[py::str(std::string(analysis::to_string(m)))] = o;
  }
  if (all) {
    precision::Sweep sw;
    sw.errors = rep;
    sw.order = order;
    d["verdict"] = precision::verdict(sw).text;
  }
  return d;
}

py::list formats() {
  py::list l;
  for (const NumberFormat& f : number_formats()) {
    py::dict d;
    d["name"] = f.name;
    d["title"] = f.title;
    d["description"] = f.description;
    d["bits"] = f.bits;
    d["exponent_bits"] = f.exponent_bits;
    d["fraction_bits"] = f.fraction_bits;
    d["has_infinity"] = f.has_infinity;
    d["has_nan"] = f.has_nan;
    l.append(d);
  }
  return l;
}

py::list zoo_entries() {
  py::list l;
  for (const zoo::Entry& e : zoo::entries()) {
    py::dict d;
    d["id"] = e.id;
    d["name"] = e.name;
    d["formula"] = e.formula;
    d["used_in"] = e.used_in;
    d["citation"] = e.citation;
    d["has_derivative"] = e.has_d1();
    l.append(d);
  }
  return l;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "GELU Lab's core (C++): check, eval, error, formats, zoo. Use the gelulab package.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const check::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::domain_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("check", &run_check, py::arg("x"), py::arg("y"), py::arg("fn"), py::arg("dtype"), py::arg("order"),
        py::arg("range"), py::arg("budget_json"), py::arg("budget_name"), py::arg("max_ulp"),
        py::arg("max_mismatch"), py::arg("max_abs"), py::arg("compute"));
  m.def("eval", &run_eval, py::arg("fn"), py::arg("x"), py::arg("dtype"), py::arg("order"));
  m.def("error", &run_error, py::arg("fn"), py::arg("vs"), py::arg("dtype"), py::arg("all"), py::arg("range"),
        py::arg("samples"), py::arg("order"));
  m.def("formats", &formats);
  m.def("zoo", &zoo_entries);
}
