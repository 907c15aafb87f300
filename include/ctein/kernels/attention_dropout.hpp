// attention_dropout: one tile's dropout factors (0, or 1 / (1 - p) for kept weights), from the
// Philox draws of kernels/philox.hpp computed a whole block of keys at a time in vector registers.
// The draws depend only on (seed, batch, head, query, key), never on tiling or threads.
#pragma once

#include "../core/simd_headers.hpp"
#include "attention_rows.hpp"
#include "attention_tile.hpp"
#include "philox.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels::attention_detail {

/// How a weight is kept: its draw's top 24 bits (u times 2^24, exactly) reach `threshold`, the
/// least integer not below p * 2^24 (so u >= p, as dropout_uniforms compares).
struct dropout_rule {
    std::uint32_t threshold = 0;
    float scale = 1.0f;

    explicit dropout_rule(float p) noexcept
        : threshold(static_cast<std::uint32_t>(std::ceil(static_cast<double>(p) * 0x1p24)))
        , scale(1.0f / (1.0f - p)) {}
};

namespace dropout_vectors {
// Vectors of the machine's width in the vector extensions g++ and clang share (wider ones compile
// to code that goes through memory): 64-bit lanes, one 32-bit Philox word in the low half of each.
constexpr std::size_t per_vector = sizeof(batch) / sizeof(std::uint64_t);
typedef std::uint64_t words __attribute__((vector_size(sizeof(batch))));
typedef std::uint32_t halves __attribute__((vector_size(sizeof(batch) / 2)));
typedef std::uint32_t draws __attribute__((vector_size(sizeof(batch))));

/// The low 32 bits of each lane times `m`, as 64-bit products (x86's pmuludq; g++ does not find
/// it in `(a & 0xFFFFFFFF) * m` and multiplies 64 bits by 64, three times slower).
[[gnu::always_inline]] inline words low_products(words a, std::uint32_t m) noexcept {
#if XSIMD_WITH_AVX512F
    return (words)_mm512_mul_epu32((__m512i)a, _mm512_set1_epi64(m));
#elif XSIMD_WITH_AVX2
    return (words)_mm256_mul_epu32((__m256i)a, _mm256_set1_epi64x(m));
#elif XSIMD_WITH_SSE2 && !XSIMD_WITH_AVX
    return (words)_mm_mul_epu32((__m128i)a, _mm_set1_epi64x(m));
#else
    return (a & 0xFFFFFFFFu) * m;
#endif
}

/// Draws of four words side by side, a b c d, put in key order: a0 b0 c0 d0 a1 b1 ... (the
/// first or second half, `Half`, of the 4 * per_vector keys).
template <std::size_t Half, std::size_t... I>
[[gnu::always_inline]] inline draws in_key_order(halves a, halves b, halves c, halves d,
                                                 std::index_sequence<I...>) noexcept {
    constexpr std::size_t n = per_vector;
    // ab = a0 b0 a1 b1 ..., cd likewise; then pairs of ab and cd alternate.
    const draws ab = __builtin_shufflevector(a, b, static_cast<int>(I % 2 == 0 ? I / 2 : n + I / 2)...);
    const draws cd = __builtin_shufflevector(c, d, static_cast<int>(I % 2 == 0 ? I / 2 : n + I / 2)...);
    constexpr auto pick = [](std::size_t i) {
        const std::size_t key = Half * 2 * n + i, pair = key / 4, within = key % 4;
        return static_cast<int>(within < 2 ? 2 * pair + within : 2 * n + 2 * pair + within - 2);
    };
    return __builtin_shufflevector(ab, cd, pick(I)...);
}
} // namespace dropout_vectors

/// The dropout factors of keys [kb, kb + block_keys) of Philox row `row` (kb a multiple of 4):
/// the `block_keys / 4` Philox blocks of those keys side by side, one 32-bit word per 64-bit
/// lane so that each multiply gives the full 64-bit product. The high halves of the lanes are
/// never cleared: the multiplies and the final draws read only the low ones.
inline void dropout_row(std::uint64_t seed, std::uint64_t row, std::size_t kb, const dropout_rule& rule,
                        float* factors) noexcept {
    using namespace dropout_vectors;
    constexpr std::size_t vectors = block_keys / 4 / per_vector;
    words c0[vectors], c1[vectors], c2[vectors], c3[vectors];
    const words first = [&]<std::size_t... T>(std::index_sequence<T...>) {
        return words{(kb / 4 + T)...};
    }
    (std::make_index_sequence<per_vector>{});
    unrolled<vectors>([&](auto v) __attribute__((always_inline)) {
        const words block = first + v * per_vector;
        c0[v] = block & 0xFFFFFFFFu;
        c3[v] = block >> 32;
        c1[v] = block * 0 + (row & 0xFFFFFFFFu);
        c2[v] = block * 0 + (row >> 32);
    });
    auto k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
        unrolled<vectors>([&](auto v) __attribute__((always_inline)) {
            const words p0 = low_products(c0[v], 0xD2511F53u), p1 = low_products(c2[v], 0xCD9E8D57u);
            c0[v] = (p1 >> 32) ^ c1[v] ^ k0;
            c1[v] = p1;
            c2[v] = (p0 >> 32) ^ c3[v] ^ k1;
            c3[v] = p0;
        });
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    std::uint32_t scale_bits;
    std::memcpy(&scale_bits, &rule.scale, sizeof scale_bits);
    unrolled<vectors>([&](auto v) __attribute__((always_inline)) {
        const auto low = [](words w) { return __builtin_convertvector(w, halves); };
        unrolled<2>([&](auto half) __attribute__((always_inline)) {
            const draws d = in_key_order<half>(low(c0[v]), low(c1[v]), low(c2[v]), low(c3[v]),
                                               std::make_index_sequence<2 * per_vector>{});
            const draws kept = (d >> 8) >= rule.threshold; // all ones or zeros
            const draws bits = kept & scale_bits;
            std::memcpy(factors + (2 * v + half) * 2 * per_vector, &bits, sizeof bits);
        });
    });
}

/// Fills `s.keep` for the tile of rows [first, first + rows) and keys [kb, kb + block_keys).
inline void tile_dropout(const attention_problem& p, const row_set& s, std::size_t first, std::size_t rows,
                         std::size_t kb, const dropout_rule& rule) noexcept {
    for (std::size_t r = 0; r < rows; ++r) {
        if (!s.real(first + r)) {
            std::fill(s.keep + r * block_keys, s.keep + (r + 1) * block_keys, 0.0f);
            continue;
        }
        const std::uint64_t row =
            (static_cast<std::uint64_t>(s.batch_index) * p.query_heads + s.head[first + r]) * p.queries +
            static_cast<std::uint64_t>(s.query[first + r]);
        dropout_row(p.dropout_seed, row, kb, rule, s.keep + r * block_keys);
    }
}

} // namespace ctein::kernels::attention_detail

#include "detail/quiet_intrinsics_end.hpp"
