// exp2_poly: 2^x on a batch of floats, the exponential inside the fused attention kernel's softmax
// (scores there are in log2 units, so softmax needs 2^x, never e^x). On AVX2 with FMA and on
// AVX-512, a table of 2^(j/8) read by one lane permute and a degree-3 polynomial on the rest;
// elsewhere plain xsimd operations: a degree-6 polynomial on the fraction. Either way the integer
// part goes straight into the float's exponent bits. exp2_for_bfloat16 (AVX-512): a table of
// 2^(j/16) and degree 2, for softmax weights that are rounded to bfloat16 next.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../core/simd_headers.hpp"
#include "multiply_add.hpp"

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels {

/// Inputs at or below this give exactly 0 (2^-127 is below the smallest normal float).
inline constexpr float exp2_zero_below = -127.0f;

/// A bound on the relative error of `exp2_poly` against the exact 2^x for x in [-126, 127]
/// (results that are normal floats), about one rounding of the result: measured over every float
/// of that range (exp2_test.cpp's hidden case [exp2-every-float]), 1.14e-7 at worst with the
/// table (AVX2 with FMA, AVX-512: its entries are rounded, then the result) and 8.0e-8
/// elsewhere; the suite's cases check both versions on samples.
inline constexpr double exp2_max_relative_error = 1.2e-7;

#if XSIMD_WITH_FMA3_AVX2 || XSIMD_WITH_AVX512F
/// The table method's two versions (exp2_table). Each gives its step (2^-step_bits), its entries
/// (entry j holds the bits of 2^(j · step) less j << (23 - step_bits), which exp2_table adds
/// back; 16 of them, one AVX-512 register) and its polynomial's coefficients, highest first:
/// 2^r - 1 = r (c1 + c2 r + ...), fitted for the least relative error on [-step / 2, step / 2];
/// 2^r as 1 + (2^r - 1) keeps integers exact (r = 0).
///
/// eighths: 2^(j/8) and degree 3 (2.5e-8 on r), a float's accuracy: exp2_poly on AVX2 with FMA
/// and on AVX-512. AVX2's permute reads 3 bits, AVX-512's 4 (j plus 8 times n's parity: the
/// entries twice over).
struct exp2_eighths {
    static constexpr int step_bits = 3;
    alignas(64) static constexpr float entries[16] = {
        0x1p+0f,        0x1.f72b84p-1f, 0x1.f06fe0p-1f, 0x1.ebfdaep-1f, 0x1.ea09e6p-1f, 0x1.eace54p-1f,
        0x1.ee89fap-1f, 0x1.f5818ep-1f, 0x1p+0f,        0x1.f72b84p-1f, 0x1.f06fe0p-1f, 0x1.ebfdaep-1f,
        0x1.ea09e6p-1f, 0x1.eace54p-1f, 0x1.ee89fap-1f, 0x1.f5818ep-1f};
    static constexpr float coefficients[] = {0x1.c6a002p-5f, 0x1.ec0c32p-3f, 0x1.62e432p-1f};
};

/// sixteenths (AVX-512 only): 2^(j/16) and degree 2 (4.3e-7 on r), one multiply-add fewer, for
/// softmax weights that are rounded to bfloat16 next (up to 2^-8 relative): exp2_for_bfloat16.
struct exp2_sixteenths {
    static constexpr int step_bits = 4;
    alignas(64) static constexpr float entries[16] = {
        0x1p+0f,        0x1.fb5586p-1f, 0x1.f72b84p-1f, 0x1.f387a6p-1f, 0x1.f06fe0p-1f, 0x1.edea64p-1f,
        0x1.ebfdaep-1f, 0x1.eab07ep-1f, 0x1.ea09e6p-1f, 0x1.ea1148p-1f, 0x1.eace54p-1f, 0x1.ec4918p-1f,
        0x1.ee89fap-1f, 0x1.f199bep-1f, 0x1.f5818ep-1f, 0x1.fa4afap-1f};
    static constexpr float coefficients[] = {0x1.ebf82ep-3f, 0x1.62e984p-1f};
};

/// The entry of j, the low bits of each lane of `bits`, read from a register by one lane permute.
template <class Table, class A>
[[gnu::always_inline]] inline xsimd::batch<float, A>
exp2_table_entry(xsimd::batch<std::int32_t, A> bits) noexcept {
#if XSIMD_WITH_AVX512F
    if constexpr (xsimd::batch<float, A>::size == 16) {
        return _mm512_permutexvar_ps(bits, _mm512_load_ps(Table::entries));
    } else
#endif
    {
        static_assert(xsimd::batch<float, A>::size == 8 && Table::step_bits == 3, "AVX2 permutes 8 entries");
        return _mm256_permutevar8x32_ps(_mm256_load_ps(Table::entries), bits);
    }
}

/// Adding 1.5 * 2^(23 - step_bits) rounds x to a multiple of the step, (n << step_bits) + j, and
/// leaves that in the low bits of the sum's mantissa: j indexes the table, and the bits shifted
/// left by 23 - step_bits are n << 23 plus j << (23 - step_bits).
template <class Table>
inline constexpr float exp2_table_shifter = 0x1.8p23f / (1 << Table::step_bits);

/// x less x rounded to a multiple of the step (ties to even), exactly: two subtractions of
/// `biased` (x + the shifter, rounded so), or on AVX-512 DQ one vreduceps of x, which rounds the
/// same way.
template <class Table, class A>
[[gnu::always_inline]] inline xsimd::batch<float, A>
exp2_table_remainder(xsimd::batch<float, A> x, xsimd::batch<float, A> biased) noexcept {
#if defined(__AVX512DQ__)
    if constexpr (xsimd::batch<float, A>::size == 16) {
        return _mm512_reduce_ps(x, Table::step_bits << 4 | _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
#endif
    return x - (biased - xsimd::batch<float, A>(exp2_table_shifter<Table>));
}

/// 2^x on AVX2 with FMA and on AVX-512 (exp2_poly there): x = n + j/8 + r with r in [-1/16, 1/16],
/// and 2^x = 2^n · 2^(j/8) · 2^r. One lane permute reads 2^(j/8) from a register, a degree-3
/// polynomial gives 2^r, and an integer add puts n in the exponent. In the attention kernel's
/// loops each operation of the softmax costs about half a cycle, and this takes 11 operations
/// (10 with AVX-512 DQ's vreduceps) instead of the polynomial's 12, 4 of them multiplies instead
/// of 7: prefill calls ran 1.01-1.05 x faster on one Zen 3 core (AVX2), 1.01-1.02 x on a Cascade
/// Lake core (AVX-512), the decode level (docs/benchmarks.md). With `exp2_sixteenths` the same in
/// steps of 1/16 and 3 multiplies (exp2_for_bfloat16).
template <class A, class Table = exp2_eighths>
[[gnu::always_inline]] inline xsimd::batch<float, A> exp2_table(xsimd::batch<float, A> x) noexcept {
    using batch = xsimd::batch<float, A>;
    using ints = xsimd::batch<std::int32_t, A>;
    x = xsimd::max(batch(exp2_zero_below), x); // NaN stays NaN (exp2_polynomial)
    const batch biased = x + batch(exp2_table_shifter<Table>);
    const batch r = exp2_table_remainder<Table, A>(x, biased);
    const ints bits = xsimd::bitwise_cast<ints>(biased);
    const batch entry = exp2_table_entry<Table, A>(bits);
    const batch scale =
        xsimd::bitwise_cast<batch>(xsimd::bitwise_cast<ints>(entry) + (bits << (23 - Table::step_bits)));
    batch p(Table::coefficients[0]);
    for (std::size_t i = 1; i < std::size(Table::coefficients); ++i)
        p = multiply_add(p, r, batch(Table::coefficients[i]));
    return multiply_add(scale, r * p, scale);
}
#endif

#if XSIMD_WITH_AVX512F
/// A bound on the relative error of `exp2_for_bfloat16`, as exp2_max_relative_error's: 5.4e-7
/// at worst over every float of [-126, 127] (exp2_test.cpp's [exp2-every-float]).
inline constexpr double exp2_for_bfloat16_max_relative_error = 6e-7;

/// 2^x as exp2_poly gives it, but within exp2_for_bfloat16_max_relative_error, for softmax
/// weights that are rounded to bfloat16 next (up to 2^-8 relative): one multiply-add fewer
/// (exp2_sixteenths). The bfloat16 prefill ran 1.01-1.02 x as fast with it at D = 64
/// (docs/benchmarks.md).
template <class A>
[[gnu::always_inline]] inline xsimd::batch<float, A> exp2_for_bfloat16(xsimd::batch<float, A> x) noexcept {
    static_assert(std::is_base_of_v<xsimd::avx512f, A>, "the table of sixteenths fills an AVX-512 register");
    return exp2_table<A, exp2_sixteenths>(x);
}
#endif

/// exp2_poly elsewhere: a degree-6 polynomial on the fraction.
template <class A>
[[gnu::always_inline]] inline xsimd::batch<float, A> exp2_polynomial(xsimd::batch<float, A> x) noexcept {
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
    p = multiply_add(p, f, batch(1.339887440266574e-3f));
    p = multiply_add(p, f, batch(9.618437357674640e-3f));
    p = multiply_add(p, f, batch(5.550332471162809e-2f));
    p = multiply_add(p, f, batch(2.402264791363012e-1f));
    p = multiply_add(p, f, batch(6.931472028550421e-1f));
    p = multiply_add(p, f, batch(1.0f));
    const batch scale = xsimd::bitwise_cast<batch>(xsimd::bitwise_cast<ints>(biased) << 23);
    return p * scale;
}

/// 2^x for every lane of `x` below 128: within `exp2_max_relative_error` of the exact value
/// where the result is a normal float (x in [-126, 127]); exactly 0 for x <= -127 (so -1e30, the
/// masked score, and -inf give 0); a subnormal result for x in (-127, -126); NaN for NaN. Unlike
/// xsimd::exp2 it checks no range above (softmax never asks for more than 2^8), which is what
/// makes it cheap: 12 operations, 7 of them multiplies (exp2_table on AVX2 and AVX-512: 10 or 11,
/// and 4).
///
///     auto y = ctein::kernels::exp2_poly(xsimd::batch<float>(-1.5f)); // every lane 0.35355339
template <class A>
[[gnu::always_inline]] inline xsimd::batch<float, A> exp2_poly(xsimd::batch<float, A> x) noexcept {
#if XSIMD_WITH_AVX512F
    if constexpr (std::is_base_of_v<xsimd::avx512f, A>) return exp2_table(x);
#endif
#if XSIMD_WITH_FMA3_AVX2 // unfused, its multiply-adds would round twice: 1.25e-7 at worst
    if constexpr (std::is_base_of_v<xsimd::fma3<xsimd::avx2>, A>) return exp2_table(x);
#endif
    return exp2_polynomial(x);
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
