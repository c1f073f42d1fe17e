// The correctly rounded fit's GLSL export (gelu/fit_cr.hpp) run through the GPU backend's shader path
// (gpu::Evaluator::eval_glsl) over every finite bf16 input, its float results rounded to bf16 and compared
// with the correctly rounded GELU and GELU′. The fit without fma is exported with `precise` a·b + c, which
// every GLSL implementation must evaluate with two roundings: zero wrong results are required. (With fma the
// export calls fma(), which GLSL allows to be unfused — llvmpipe does so — so that variant is only reported.)
#ifdef GELU_HAVE_FIT_CR
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gelu/fit_cr.hpp"
#include "gelu/fit_export.hpp"
#include "gpu_fixture.hpp"

namespace {

using namespace gelu::fit;
using gelu::Format;
using gelu::FormatId;
using gelu::gpu::test::context;

std::size_t gpu_wrong(gelu::gpu::Evaluator& ev, const CrResult& r) {
  const auto t = cr_table(r.spec.target, r.spec.format, r.spec.compute);
  ExportOptions opt;
  opt.name = "cand";
  const std::string glsl = export_glsl(r.candidate, opt);
  std::vector<float> x(t->x.begin(), t->x.end()), y(x.size());
  const auto e = ev.eval_glsl(glsl, "cand", x, y);
  EXPECT_FALSE(e) << *e << "\n" << glsl;
  if (e) return x.size();
  const Format fmt(r.spec.format);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!(fmt.round(static_cast<double>(y[i])) == t->r[i])) ++wrong;
  return wrong;
}

TEST(GpuFitCrGlsl, Bf16ExportWithoutFmaIsCorrectlyRoundedOnTheGpu) {
  gelu::gpu::Context* ctx = context();
  ASSERT_NE(ctx, nullptr);
  std::string err;
  auto ev = gelu::gpu::Evaluator::create(*ctx, &err);
  ASSERT_NE(ev, nullptr) << err;
  for (Target target : {Target::Gelu, Target::GeluPrime}) {
    for (bool fma : {false, true}) {
      CrSpec s;
      s.target = target;
      s.format = FormatId::BF16;
      s.fma = fma;
      const CrResult r = fit_correctly_rounded(s);
      ASSERT_EQ(r.correct, r.inputs);
      const std::size_t wrong = gpu_wrong(*ev, r);
      std::printf("%s bf16, fma %s: %zu of %zu wrong on the GPU\n", name(target), fma ? "on" : "off", wrong,
                  r.inputs);
      if (!fma) {
        EXPECT_EQ(wrong, 0u) << name(target);
      }
    }
  }
}

}  // namespace
#endif
