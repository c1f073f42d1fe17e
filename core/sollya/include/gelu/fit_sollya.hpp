// GELU Lab: certified error bounds for designer candidates through Sollya (libsollya, optional).
//
// Built only when cmake/GeluOptional.cmake finds Sollya (target gelu::fit_sollya, which defines
// GELU_HAVE_SOLLYA=1 for its users); gelu::core never depends on it. Sollya's supnorm encloses
// sup_{x ∈ [A, B]} |p(x) − g(x)| (absolute weight) or |p(x)/g(x) − 1| (relative weight) for a polynomial p,
// rigorously (interval arithmetic with a Taylor-model proof), with the target g written in Sollya's language
// (erf, exp). Sollya is not thread-safe: calls are serialized by a lock.
#pragma once

#include <string>

#include "gelu/fit.hpp"

namespace gelu::fit {

/// Encloses the candidate's maximum error on [A, B]: on success sets c.certified, c.certified_lo and
/// c.certified_hi (relative width about `accuracy`) and returns true. Returns false with *why when it cannot:
/// a rational candidate (not a polynomial), the ulp weight (its jumps are outside supnorm's errors), or
/// Sollya failing on an interval. The half_x_poly_abs form is certified on [A, 0] and [0, B] apart (|x| is
/// −x, then x there), piecewise candidates piece by piece.
bool certify(Candidate& c, std::string* why, double accuracy = 0x1p-20);

}  // namespace gelu::fit
