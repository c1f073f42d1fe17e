// [SECTION] The CPU tuning (cpu_tuning.hpp): cpuid, or GELU_TUNING.
#include "cpu_tuning.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace gelu::simd {
namespace {

Tuning from_cpu() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  // Vendor "AuthenticAMD" (EBX, EDX, ECX = "Auth", "enti", "cAMD"), then the family of leaf 1: base family,
  // plus the extended family where the base is 0xF.
  if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x68747541 || d != 0x69746e65 || c != 0x444d4163)
    return Tuning::Default;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return Tuning::Default;
  const unsigned base = (a >> 8) & 0xF;
  const unsigned family = base + (base == 0xF ? (a >> 20) & 0xFF : 0);
  // Family 25 is Zen 3 and Zen 4; only Zen 4 has AVX-512 (the kernels' builds without it ignore the tuning).
  if (family == 0x19 && __builtin_cpu_supports("avx512f")) return Tuning::Zen4;
#endif
  return Tuning::Default;
}

}  // namespace

Tuning tuning() {
  static const Tuning t = [] {
    if (const char* e = std::getenv("GELU_TUNING"); e != nullptr && *e != '\0') {
      if (std::strcmp(e, "zen4") == 0) return Tuning::Zen4;
      if (std::strcmp(e, "default") == 0) return Tuning::Default;
      std::fprintf(stderr, "GELU_TUNING=%s: expected zen4 or default; using this CPU's own tuning\n", e);
    }
    return from_cpu();
  }();
  return t;
}

const char* tuning_name(Tuning t) {
  return t == Tuning::Zen4 ? "zen4" : "default";
}

int fast_bins() {
  return tuning() == Tuning::Zen4 ? 16 : 32;
}

}  // namespace gelu::simd
