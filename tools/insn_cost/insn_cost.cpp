// What one AVX-512 instruction costs inside fma-bound code on this CPU, in fma slots: 36 independent fmas per
// iteration keep both vector ports busy; each candidate is added to them (1 or 4 copies, results unused) and
// the extra time is divided by the time of one fma. 1.0 = as much as one more fma; 0 = free (eliminated).
// docs/perf-log/issue-16-targets.md quotes its figures for the Xeon. x86-64 with AVX-512F/DQ only.
//
//   build/tools/insn_cost          (configure with -DGELU_BUILD_TOOLS=ON), or
//   g++ -O2 -mavx512f -mavx512dq tools/insn_cost/insn_cost.cpp -o /tmp/insn_cost && /tmp/insn_cost
#include <algorithm>
#include <chrono>
#include <cstdio>

namespace {

constexpr long kIters = 20000000;

#define FMA12                                                                   \
  "vfmadd231ps %%zmm20,%%zmm21,%%zmm0\n vfmadd231ps %%zmm20,%%zmm21,%%zmm1\n"   \
  "vfmadd231ps %%zmm20,%%zmm21,%%zmm2\n vfmadd231ps %%zmm20,%%zmm21,%%zmm3\n"   \
  "vfmadd231ps %%zmm20,%%zmm21,%%zmm4\n vfmadd231ps %%zmm20,%%zmm21,%%zmm5\n"   \
  "vfmadd231ps %%zmm20,%%zmm21,%%zmm6\n vfmadd231ps %%zmm20,%%zmm21,%%zmm7\n"   \
  "vfmadd231ps %%zmm20,%%zmm21,%%zmm12\n vfmadd231ps %%zmm20,%%zmm21,%%zmm13\n" \
  "vfmadd231ps %%zmm20,%%zmm21,%%zmm14\n vfmadd231ps %%zmm20,%%zmm21,%%zmm15\n"
#define CLOBBER                                                                                              \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", \
      "xmm13", "xmm14", "xmm15", "k1", "k2", "k3", "k4", "rax", "rcx"

template <class F>
double best_of_5(F f) {
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

#define CASE(name, count, insns)                                                           \
  {                                                                                        \
    const double t = best_of_5([] {                                                        \
      for (long i = 0; i < kIters; ++i) asm volatile(FMA12 FMA12 FMA12 insns ::: CLOBBER); \
    });                                                                                    \
    std::printf("%-34s %5.2f fma slots each\n", name, (t - base) / fma / (count));         \
  }

int main() {
  const double base = best_of_5([] {
    for (long i = 0; i < kIters; ++i) asm volatile(FMA12 FMA12 FMA12 ::: CLOBBER);
  });
  const double fma = base / 36;
  std::printf("36 fmas per iteration: %.2f ns (%.3f ns per fma)\n", base / kIters * 1e9, fma / kIters * 1e9);
  CASE("vaddps zmm", 4,
       "vaddps %%zmm22,%%zmm26,%%zmm8\n vaddps %%zmm23,%%zmm26,%%zmm9\n"
       "vaddps %%zmm24,%%zmm26,%%zmm10\n vaddps %%zmm25,%%zmm26,%%zmm11\n")
  CASE(
      "vmovaps zmm (register copy)", 4,
      "vmovaps %%zmm22,%%zmm8\n vmovaps %%zmm23,%%zmm9\n vmovaps %%zmm24,%%zmm10\n vmovaps %%zmm25,%%zmm11\n")
  CASE("vrcp14ps zmm", 1, "vrcp14ps %%zmm22,%%zmm8\n")
  CASE("vdivps zmm (one per 36 fmas)", 1, "vdivps %%zmm22,%%zmm26,%%zmm8\n")
  CASE("vpermt2ps zmm", 4,
       "vpermt2ps %%zmm22,%%zmm26,%%zmm8\n vpermt2ps %%zmm23,%%zmm26,%%zmm9\n"
       "vpermt2ps %%zmm24,%%zmm26,%%zmm10\n vpermt2ps %%zmm25,%%zmm26,%%zmm11\n")
  CASE("vcmpps zmm -> k", 4,
       "vcmpps $1,%%zmm22,%%zmm26,%%k1\n vcmpps $1,%%zmm23,%%zmm26,%%k2\n"
       "vcmpps $1,%%zmm24,%%zmm26,%%k3\n vcmpps $1,%%zmm25,%%zmm26,%%k4\n")
  CASE("vpslld zmm", 4,
       "vpslld $18,%%zmm22,%%zmm8\n vpslld $18,%%zmm23,%%zmm9\n vpslld $18,%%zmm24,%%zmm10\n"
       "vpslld $18,%%zmm25,%%zmm11\n")
  CASE("vscalefps zmm", 4,
       "vscalefps %%zmm22,%%zmm26,%%zmm8\n vscalefps %%zmm23,%%zmm26,%%zmm9\n"
       "vscalefps %%zmm24,%%zmm26,%%zmm10\n vscalefps %%zmm25,%%zmm26,%%zmm11\n")
  CASE("vfixupimmps zmm", 4,
       "vfixupimmps $0,%%zmm22,%%zmm26,%%zmm8\n vfixupimmps $0,%%zmm23,%%zmm26,%%zmm9\n"
       "vfixupimmps $0,%%zmm24,%%zmm26,%%zmm10\n vfixupimmps $0,%%zmm25,%%zmm26,%%zmm11\n")
  CASE("vcvtps2pd ymm -> zmm", 4,
       "vcvtps2pd %%ymm22,%%zmm8\n vcvtps2pd %%ymm23,%%zmm9\n vcvtps2pd %%ymm24,%%zmm10\n"
       "vcvtps2pd %%ymm25,%%zmm11\n")
  CASE("kmovw k -> r32 twice, or", 1, "kmovw %%k1,%%eax\n kmovw %%k2,%%ecx\n or %%cx,%%ax\n")
  CASE("kortestw", 1, "kortestw %%k1,%%k2\n")
  return 0;
}
