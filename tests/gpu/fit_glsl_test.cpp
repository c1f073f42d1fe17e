// A designer candidate's GLSL export run on the GPU through the backend's shader path (ShaderLibrary include
// expansion, build_compute_program, the evaluator's chunked dispatch: gpu::Evaluator::eval_glsl) against the
// designer's own float evaluation on the CPU, for every form. GLSL's fma() may be fused or not (llvmpipe
// computes a·b + c with two roundings), so each GPU value must match the CPU's fused or unfused evaluation
// within 2 ULP.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "fit/fit_internal.hpp"
#include "gelu/fit.hpp"
#include "gelu/fit_export.hpp"
#include "gpu_fixture.hpp"
#include "support/fit_spec.hpp"

namespace {

using namespace gelu::fit;
using gelu::FormatId;
using gelu::gpu::test::context;
using gelu::gpu::test::ulp_distance;

std::vector<Spec> specs() {
  std::vector<Spec> v;
  const auto add = [&v](Target t, Form f, int d, double a, double b, FormatId fmt) -> Spec& {
    v.push_back(gelu::test::fit_spec(t, f, d, a, b, gelu::fit::Weight::Abs, fmt));
    return v.back();
  };
  add(Target::Gelu, Form::HalfXPolyAbs, 8, -4, 4, FormatId::F32);
  add(Target::Gelu, Form::Poly, 10, -5, 5, FormatId::F64);  // exported in float
  add(Target::Gelu, Form::Even, 4, -3, 3, FormatId::F16);
  add(Target::Phi, Form::Poly, 7, -4, 4, FormatId::F32).clamp = Clamp::Zero;
  add(Target::Erf, Form::Poly, 9, -3, 3, FormatId::BF16);
  add(Target::GeluPrime, Form::Poly, 8, -4, 4, FormatId::F32);
  add(Target::Gelu, Form::Rational, 3, -4, 4, FormatId::F32).denominator_degree = 3;
  add(Target::Gelu, Form::Piecewise, 3, -4, 4, FormatId::F32).pieces = 6;
  Spec& o = add(Target::Gelu, Form::Piecewise, 2, -6, 6, FormatId::F32);
  o.pieces = 5;
  o.breakpoints = Breakpoints::Optimized;
  o.clamp = Clamp::X;
  return v;
}

TEST(GpuFitGlsl, ExportedCandidatesMatchTheCpu) {
  gelu::gpu::Context* ctx = context();
  ASSERT_NE(ctx, nullptr);
  std::string err;
  auto ev = gelu::gpu::Evaluator::create(*ctx, &err);
  ASSERT_NE(ev, nullptr) << err;
  std::mt19937 rng(3);
  for (const Spec& s : specs()) {
    const Candidate c = fit(s);
    SCOPED_TRACE(c.name());
    ExportOptions opt;
    opt.name = "cand";
    const std::string glsl = export_glsl(c, opt);
    std::vector<float> x;
    std::uniform_real_distribution<float> in(static_cast<float>(s.a) - 1, static_cast<float>(s.b) + 1);
    for (int i = 0; i < 20000; ++i) x.push_back(in(rng));
    for (double b : c.breakpoints) x.push_back(static_cast<float>(b));
    x.insert(x.end(), {0.0f, -0.0f, static_cast<float>(s.a), static_cast<float>(s.b), 1e30f, -1e30f});
    std::vector<float> y(x.size());
    const auto e = ev->eval_glsl(glsl, "cand", x, y);
    ASSERT_FALSE(e) << *e << "\n" << glsl;
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      float fused, unfused;
      detail::eval_block<float, true>(c, &x[i], &fused, 1);
      detail::eval_block<float, false>(c, &x[i], &unfused, 1);
      const double d = std::min(ulp_distance(y[i], fused), ulp_distance(y[i], unfused));
      if (d > worst) worst = d, at = i;
    }
    EXPECT_LE(worst, 2.0) << "at x = " << x[at] << ": GPU " << y[at] << ", CPU " << c.eval(x[at]);
    std::printf("%-48s GPU vs CPU: %g ULP max\n", c.name().c_str(), worst);
  }
}

TEST(GpuFitGlsl, ABadSourceIsReportedNotCrashed) {
  gelu::gpu::Context* ctx = context();
  ASSERT_NE(ctx, nullptr);
  std::string err;
  auto ev = gelu::gpu::Evaluator::create(*ctx, &err);
  ASSERT_NE(ev, nullptr) << err;
  std::vector<float> x(4, 1.0f), y(4);
  const auto e = ev->eval_glsl("float cand(float x) { return x +; }", "cand", x, y);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("fit_candidate.glsl"), std::string::npos) << *e;  // the log names the in-memory file
}

}  // namespace
