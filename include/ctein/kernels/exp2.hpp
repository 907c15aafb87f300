// exp2_poly: 2^x on a batch of floats, the exponential inside the fused attention kernel's softmax
// (scores there are in log2 units, so softmax needs 2^x, never e^x). Plain xsimd operations: a
// degree-6 polynomial on the fraction, the integer part shifted into a float's exponent.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstdint>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels {

/// Inputs at or below this give exactly 0 (2^-127 is below the smallest normal float).
inline constexpr float exp2_zero_below = -127.0f;

/// A bound on the relative error of `exp2_poly` against the exact 2^x for x in [-126, 127]
/// (results that are normal floats), measured by tests/kernels/exp2_test.cpp over every float
/// in [-1, 1] (8.0e-8 at worst) and a dense sweep of the rest: the polynomial's own error (Cephes'
/// exp2f coefficients) plus the rounding of its evaluation with fused multiply-adds.
inline constexpr double exp2_max_relative_error = 1e-7;

/// 2^x for every lane of `x` below 128: within `exp2_max_relative_error` of the exact value
/// where the result is a normal float (x in [-126, 127]); exactly 0 for x <= -127 (so -1e30, the
/// masked score, and -inf give 0); a subnormal result for x in (-127, -126); NaN for NaN. Unlike
/// xsimd::exp2 it checks no range above (softmax never asks for more than 2^8), which is what
/// makes it cheap: 12 operations, 6 of them the fused multiply-adds of the polynomial.
///
///     auto y = ctein::kernels::exp2_poly(xsimd::batch<float>(-1.5f)); // every lane 0.35355339
template <class A>
[[gnu::always_inline]] inline xsimd::batch<float, A> exp2_poly(xsimd::batch<float, A> x) noexcept {
    using batch = xsimd::batch<float, A>;
    using ints = xsimd::batch<std::int32_t, A>;
    // Adding 1.5 * 2^23 rounds to an integer n (ties to even) and leaves n + 127 in the low bits
    // of the sum's mantissa, so the sum's bits shifted left by 23 are the float 2^n.
    constexpr float shifter = 0x1.8p23f + 127.0f;
    // The max's second operand is returned for NaN: x first would turn NaN into 0.
    x = xsimd::max(batch(exp2_zero_below), x);
    const batch biased = x + batch(shifter);
    const batch n = biased - batch(shifter);
    const batch f = x - n; // in [-0.5, 0.5]
    // Cephes' exp2f (S. Moshier, cephes/single/exp2f.c): 2^f = 1 + f * P(f) on [-0.5, 0.5],
    // relative error 1.7e-7 peak.
    batch p(1.535336188319500e-4f);
    p = xsimd::fma(p, f, batch(1.339887440266574e-3f));
    p = xsimd::fma(p, f, batch(9.618437357674640e-3f));
    p = xsimd::fma(p, f, batch(5.550332471162809e-2f));
    p = xsimd::fma(p, f, batch(2.402264791363012e-1f));
    p = xsimd::fma(p, f, batch(6.931472028550421e-1f));
    p = xsimd::fma(p, f, batch(1.0f));
    const batch scale = xsimd::bitwise_cast<batch>(xsimd::bitwise_cast<ints>(biased) << 23);
    return p * scale;
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
