// widen: rows of bfloat16 or float16 to float, where the attention kernel reads its operands. The
// kernel computes in float; 16-bit inputs only halve the bytes it reads.
#pragma once

#include "../core/half_precision.hpp"
#include "../core/simd_headers.hpp"
#include "attention_problem.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ctein::kernels {

/// Bytes of one element of type `t`.
constexpr std::size_t element_bytes(element_type t) noexcept {
    return t == element_type::f32 ? sizeof(float) : sizeof(std::uint16_t);
}

/// `base` moved by `elements` elements of type `t`.
inline const void* element_at(const void* base, element_type t, std::ptrdiff_t elements) noexcept {
    return static_cast<const std::byte*>(base) + elements * static_cast<std::ptrdiff_t>(element_bytes(t));
}

/// to[0, n) = from[0, n) read as elements of type `t`, as floats (exact: every bfloat16 and
/// float16 is a float).
inline void widen(element_type t, const void* from, float* to, std::size_t n) noexcept {
    if (t == element_type::f32) {
        std::memcpy(to, from, n * sizeof(float));
        return;
    }
    const auto* h = static_cast<const std::uint16_t*>(from);
    if (t == element_type::bf16) {
        for (std::size_t i = 0; i < n; ++i) { // a shift per element: compilers vectorise it
            const std::uint32_t bits = std::uint32_t{h[i]} << 16;
            std::memcpy(to + i, &bits, sizeof bits);
        }
        return;
    }
    std::size_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(to + i,
                         _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + i))));
#endif
#if defined(__F16C__)
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(to + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i))));
#endif
    for (; i < n; ++i) to[i] = float16::to_float(h[i]);
}

} // namespace ctein::kernels
