// gelulab fit --correctly-rounded FMT: the designer's correctly rounded target (gelu/fit_cr.hpp, built with
// GLPK and MPFR): a poly or piecewise candidate whose compute-format result rounds to the correctly rounded
// GELU (or GELU′) for every finite input of FMT, verified exhaustively; exports and test vectors of every
// input with the `gelulab check … --max-mismatch 0` command. Kept apart from cmd_fit.cpp's minimax path.
#include "cli/cmd_fit_cr.hpp"

#include <cstdio>
#include <string>

#include "cli/cli.hpp"
#include "cli/fn_options.hpp"
#include "gelu/fileio.hpp"
#include "gelu/fit.hpp"
#include "gelu/fit_export.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#ifdef GELU_HAVE_FIT_CR
#include "gelu/fit_cr.hpp"
#endif

namespace gelu::cli {

#ifndef GELU_HAVE_FIT_CR

int run_fit_cr(Args&, const std::string&) {
  throw UsageError(
      "--correctly-rounded: this gelulab was built without GLPK and MPFR (apt install libglpk-dev "
      "libmpfr-dev, then reconfigure)");
}

#else

namespace {

void write_out(const char* option, const std::string& path, const std::string& text) {
  try {
    write_file_atomic(path, text);
  } catch (const FileError& e) {
    throw UsageError("--" + std::string(option) + ": " + e.what());
  }
}

std::string cr_command_line(const fit::CrResult& r) {
  const fit::CrSpec& s = r.spec;
  std::string c = "gelulab fit --target " + std::string(fit::name(s.target)) + " --correctly-rounded " +
                  number_format(s.format).name + " --compute " + number_format(s.compute).name + " --fma " +
                  (s.fma ? "on" : "off") + " --form " + fit::name(s.form);
  if (s.form == fit::Form::Piecewise) c += " --pieces " + std::to_string(r.candidate.spec.pieces);
  c += " --range " + format_f64(*s.a) + ":" + format_f64(*s.b);
  return c;
}

}  // namespace

int run_fit_cr(Args& args, const std::string& format_text) {
  fit::CrSpec s;
  if (const auto t = args.option("target")) {
    const auto target = fit::parse_target(*t);
    if (!target || (*target != fit::Target::Gelu && *target != fit::Target::GeluPrime))
      throw UsageError("--target: " + quote(*t) +
                       " is not one of gelu, gelu_prime (with --correctly-rounded)");
    s.target = *target;
  }
  {
    const auto f = Format::parse(format_text);
    if (!f || (f->id() != FormatId::BF16 && f->id() != FormatId::F16 && f->id() != FormatId::E4M3 &&
               f->id() != FormatId::E5M2))
      throw UsageError("--correctly-rounded: " + quote(format_text) + " is not one of bf16, f16, e4m3, e5m2");
    s.format = f->id();
  }
  if (const auto c = args.option("compute")) {
    if (*c == "f32")
      s.compute = FormatId::F32;
    else if (*c == "f64")
      s.compute = FormatId::F64;
    else
      throw UsageError("--compute: " + quote(*c) + " is not one of f32, f64");
  }
  if (const auto f = args.option("fma")) {
    if (*f != "on" && *f != "off") throw UsageError("--fma: " + quote(*f) + " is not one of on, off");
    s.fma = *f == "on";
  }
  if (const auto f = args.option("form")) {
    if (*f == "poly")
      s.form = fit::Form::Poly;
    else if (*f == "piecewise")
      s.form = fit::Form::Piecewise;
    else
      throw UsageError("--form: " + quote(*f) + " is not one of poly, piecewise (with --correctly-rounded)");
  }
  if (const auto k = args.option("pieces")) {
    if (s.form != fit::Form::Piecewise) throw UsageError("--pieces is for --form piecewise");
    s.pieces = *k == "auto" ? 0 : static_cast<int>(Args::to_int("pieces", *k, 1, fit::kMaxPieces));
  }
  if (const auto d = args.option("max-degree"))
    s.max_degree = static_cast<int>(Args::to_int("max-degree", *d, 0, fit::kMaxDegree));
  if (const auto r = args.option("range")) {
    const Range range = parse_range(*r, "range");
    s.a = range.a;
    s.b = range.b;
  }
  for (const char* refused : {"degree", "weight", "format", "clamp", "method", "breakpoints"})
    if (args.option(refused))
      throw UsageError("--" + std::string(refused) +
                       " is not for --correctly-rounded (the fit chooses the degree; the clamp is 0 below, x "
                       "or 1 above; the arithmetic is --compute)");
  if (args.flag("no-reoptimize")) throw UsageError("--no-reoptimize is not for --correctly-rounded");
  const bool json = args.flag("json");
  const auto export_cpp = args.option("export-cpp");
  const auto export_glsl = args.option("export-glsl");
  const auto export_cuda = args.option("export-cuda");
  const auto vectors = args.option("vectors");
  const auto name = args.option("name");
  args.finish();
  if (name && !fit::is_identifier(*name))
    throw UsageError("--name: " + quote(*name) +
                     " is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 64, not a keyword)");
  for (const auto& [opt, path] : {std::pair{"export-cpp", export_cpp},
                                  {"export-glsl", export_glsl},
                                  {"export-cuda", export_cuda},
                                  {"vectors", vectors}})
    if (path) check_output_path(opt, *path);
  try {
    fit::validate(s);
  } catch (const fit::FitError& e) {
    throw UsageError(e.what());
  }
  if (dry_run()) return 0;

  fit::CrResult r;
  try {
    r = fit::fit_correctly_rounded(s);
  } catch (const fit::FitError& e) {
    throw UsageError(e.what());
  }
  const fit::Candidate& c = r.candidate;
  const std::string pairs = "your_outputs.txt";
  const std::string check = fit::cr_check_command(r, pairs);
  const char* fmt_name = number_format(r.spec.format).name;
  const char* arith = number_format(r.spec.compute).name;
  fit::ExportOptions eo;
  eo.name = name.value_or(r.spec.target == fit::Target::GeluPrime ? "gelu_prime_cr" : "gelu_cr");
  eo.command = cr_command_line(r);
  eo.note = std::string("Correctly rounded: the ") + (r.spec.compute == FormatId::F32 ? "float" : "double") +
            " result rounded to " + fmt_name + " (nearest, ties to even) is the correctly rounded " +
            fit::name(r.spec.target) + " for all " + std::to_string(r.inputs) + " finite inputs of " +
            fmt_name + ".";
  eo.vectors_file = vectors.value_or("");
  eo.check = check;
  if (export_cpp) write_out("export-cpp", *export_cpp, fit::export_cpp(c, eo));
  if (export_glsl) write_out("export-glsl", *export_glsl, fit::export_glsl(c, eo));
  if (export_cuda) write_out("export-cuda", *export_cuda, fit::export_cuda(c, eo));
  if (vectors) write_out("vectors", *vectors, fit::cr_test_vectors(r).text());
  const Cost cost = c.cost();

  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("target").value(fit::name(r.spec.target));
    w.key("correctly_rounded").value(fmt_name);
    w.key("compute").value(arith);
    w.key("fma").value(r.spec.fma);
    w.key("form").value(fit::name(c.spec.form));
    w.key("degree").value(c.spec.degree);
    w.key("pieces").value(c.spec.pieces);
    w.key("range").begin_array().value(*r.spec.a).value(*r.spec.b).end_array();
    w.key("piece_degrees").begin_array();
    for (const fit::CrPiece& p : r.pieces) w.value(p.degree);
    w.end_array();
    w.key("centers").begin_array();
    for (double m : c.centers) w.value(m);
    w.end_array();
    w.key("coefficients").begin_array();
    for (double v : c.coefficients) w.value(v);
    w.end_array();
    w.key("coefficients_hex").begin_array();
    for (double v : c.coefficients) w.value(fit::hex_literal(v, false));
    w.end_array();
    w.key("cost").begin_object();
    w.key("multiply_adds").value(cost.multiply_adds);
    w.key("comparisons").value(cost.comparisons);
    w.key("table_bytes").value(cost.table_bytes);
    w.key("weighted").value(cost.weighted());
    w.end_object();
    w.key("inputs").value(r.inputs);
    w.key("correct").value(r.correct);
    w.key("lp_solves").value(r.lp_solves);
    w.key("fit_ms").value(r.seconds * 1e3);
    w.key("check").value(check);
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }

  std::printf("correctly rounded %s in %s: %s, %d piece%s of degree %d on [%s, %s] (%s arithmetic, %s)\n",
              fit::name(r.spec.target), fmt_name, fit::name(c.spec.form), c.spec.pieces,
              c.spec.pieces == 1 ? "" : "s", c.spec.degree, format_f64(*r.spec.a).c_str(),
              format_f64(*r.spec.b).c_str(), arith, r.spec.fma ? "fma" : "no fma");
  std::printf("outside: %s below, %s above\n", "0", r.spec.target == fit::Target::GeluPrime ? "1" : "x");
  const std::size_t n = static_cast<std::size_t>(c.spec.degree) + 1;
  std::printf("%-5s %-14s %-14s %-16s %-6s %-7s %s\n", "piece", "from", "to", "centre", "degree", "inputs",
              "margin");
  for (std::size_t j = 0; j < r.pieces.size(); ++j) {
    const fit::CrPiece& p = r.pieces[j];
    const double m = c.centers.empty() ? 0.0 : c.centers[j];
    std::printf("%-5zu %-14s %-14s %-16s %-6d %-7zu %.3g\n", j, p.inputs ? format_f64(p.from).c_str() : "-",
                p.inputs ? format_f64(p.to).c_str() : "-", fit::hex_literal(m, false).c_str(), p.degree,
                p.inputs, p.margin);
  }
  std::printf("coefficients (%s, lowest power first, in x%s):\n", arith,
              c.spec.form == fit::Form::Piecewise ? " - centre" : "");
  for (std::size_t j = 0; j * n < c.coefficients.size(); ++j) {
    std::printf("  %zu:", j);
    for (std::size_t k = 0; k < n; ++k)
      std::printf(" %s",
                  fit::hex_literal(c.coefficients[j * n + k], r.spec.compute == FormatId::F32).c_str());
    std::printf("\n");
  }
  std::printf("cost  %s (weighted %g)\n", cost.text().c_str(), cost.weighted());
  std::printf("correctly rounded: %zu of %zu inputs\n", r.correct, r.inputs);
  std::printf("fit time  %.1f ms (%d LP solves)\n", r.seconds * 1e3, r.lp_solves);
  std::printf("check  %s\n", check.c_str());
  for (const auto& [what, path] : {std::pair{"C++", export_cpp},
                                   {"GLSL", export_glsl},
                                   {"CUDA C", export_cuda},
                                   {"test vectors", vectors}})
    if (path) std::printf("wrote %s: %s\n", what, path->c_str());
  return 0;
}

#endif

}  // namespace gelu::cli
