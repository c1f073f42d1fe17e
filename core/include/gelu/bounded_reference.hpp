// GELU Lab core: a reference known cheaply within a proven bound, computed accurately only where the bound
// does not settle what is asked of it (a rounding to a format or to a block's lattice). Rounding is
// monotone: when both ends of the interval round to one value, so does every value between them, the
// accurate one included. The same idea as correctly_rounded's fast path for GELU's negative side.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/block_format.hpp"

namespace gelu {

/// fn's values (order 0) in double for a pipeline that needs them only as roundings: where fn has a
/// cheap double form y gets it, and the return value r > 0 bounds its error, |fn.eval(x) − y| ≤ r·|y| for
/// every y that is a normal double; elsewhere y is fn.eval(x)'s own value. The forms: GELU for
/// 0 < |x| <= 20, formulas::gelu_erfc_fast (one double erfc instead of the x87 erfcl and the double-double
/// tail; error below 2^-43, r = 2^-40, kGeluFastRelError); gelu_tanh (c >= 0), gelu_sigmoid and silu for
/// |z| <= 700, formulas::x_times_sigmoid_fast (x·σ(z) from one double exp instead of the double-double z and
/// the corrected division; error below 2^-40, r = 2^-33, kSigmoidFastRelError). Returns 0 when every y is
/// fn.eval's (every other function, and gelu_tanh with c < 0).
double eval_bounded(const Activation& fn, std::span<const double> x, std::span<double> y,
                    const Params* p = nullptr);

/// A reference known cheaply to within a relative bound, its accurate value computed only where the cheap
/// one does not settle the result: |accurate(i) − approx[i]| ≤ rel_error·|approx[i]| wherever approx[i] is
/// a normal double (rel_error a generous bound, far above the true error, so that the rounded ends
/// d·(1 ± rel_error) still enclose the accurate value: eval_bounded's); accurate(i) is called (from pool
/// threads) for every other element and wherever the interval straddles a rounding boundary.
struct BoundedReference {
  std::span<const double> approx;
  double rel_error = 0;
  std::function<double(std::size_t)> accurate;
  std::shared_ptr<const double[]> storage = nullptr;  // what approx points into, when the reference owns it
};

/// The same report as block_error(f, x, y, ref) with ref[i] = accurate(i), bit for bit: an element's
/// lattice ordinal (so its ULP count) is a monotone rounding of the reference, settled when both ends of
/// its interval give the same one; max_abs is the largest |stored − accurate| over the elements whose
/// interval can reach the largest lower bound; at_reference is accurate(at_index). Throws
/// std::invalid_argument when the sizes differ or rel_error is not in [0, 2^-20).
BlockErrorReport block_error(const BlockFormat& f, std::span<const double> x, std::span<const double> y,
                             const BoundedReference& ref);

/// The same report again, bit for bit, with the function under test's outputs known only within a bound too
/// (y.approx, y.rel_error, y.accurate: eval_bounded's values of the function under test): a block's scale is
/// settled when both ends of its largest |y|'s interval give one scale (NVFP4's tensor scale likewise), each
/// stored value when both ends of its interval round to one lattice value (store_within); y.accurate(i) is
/// called for the rest, and at_value and at_block_max are the accurate values. y and ref may be one object
/// (the function against itself, `error --fn F --vs F`: one set of values and one accurate function); each
/// rounding is then settled once. The same exceptions.
BlockErrorReport block_error(const BlockFormat& f, std::span<const double> x, const BoundedReference& y,
                             const BoundedReference& ref);

/// A function's values on x as a BoundedReference that owns them: eval_bounded's (written into fresh,
/// untouched storage on the pool, so that its pages are first touched by the threads that compute them), and
/// fn.eval(x[i]) as the accurate value (x and p must outlive it). What `gelulab error --dtype BLOCK` and its
/// benchmark take for both the function under test and the reference.
BoundedReference bounded_values(const Activation& fn, std::span<const double> x, const Params* p = nullptr);

}  // namespace gelu
