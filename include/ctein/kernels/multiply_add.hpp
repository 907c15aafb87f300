// multiply_add: `x * y + z` on batches in one rounding, for every kernel's fused multiply-adds.
#pragma once

#include "../core/simd_headers.hpp"

#include <type_traits>

namespace ctein::kernels {

/// `x * y + z` in one rounding where the CPU has FMA. xsimd 8.1 has no AVX-512 fma: its generic
/// `x * y + z` is fused by g++ (-ffp-contract=fast) but not by clang, whose AVX-512 builds then
/// ran every product of the GEMM and the attention kernel as a multiply and an add (half the
/// speed, and two roundings: 2^x's error rose to 1.25e-7, over its bound).
template <class B>
[[gnu::always_inline]] inline B multiply_add(const B& x, const B& y, const B& z) noexcept {
#if defined(__AVX512F__)
    if constexpr (sizeof(typename B::register_type) == 64) {
        if constexpr (std::is_same_v<typename B::value_type, float>) return _mm512_fmadd_ps(x, y, z);
        if constexpr (std::is_same_v<typename B::value_type, double>) return _mm512_fmadd_pd(x, y, z);
    }
#endif
    return xsimd::fma(x, y, z);
}

} // namespace ctein::kernels
