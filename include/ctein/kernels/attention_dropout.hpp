// attention_dropout: one tile's dropout factors (0, or 1 / (1 - p) for kept weights), from the
// Philox draws of kernels/philox.hpp computed a whole block of keys at a time in vector registers.
// The draws depend only on (seed, batch, head, query, key), never on tiling or threads.
#pragma once

#include "attention_rows.hpp"
#include "philox.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

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

/// The dropout factors of keys [kb, kb + block_keys) of Philox row `row` (kb a multiple of 4):
/// the `block_keys / 4` Philox blocks of those keys side by side in vector lanes, one 32-bit
/// word per 64-bit lane so that each multiply gives the full 64-bit product.
inline void dropout_row(std::uint64_t seed, std::uint64_t row, std::size_t kb, const dropout_rule& rule,
                        float* factors) noexcept {
    constexpr std::size_t blocks = block_keys / 4;
    typedef std::uint64_t words __attribute__((vector_size(blocks * sizeof(std::uint64_t))));
    constexpr std::uint64_t low = 0xFFFFFFFFu;
    words c0, c3;
    for (std::size_t t = 0; t < blocks; ++t) {
        const std::uint64_t block = kb / 4 + t;
        c0[t] = block & low;
        c3[t] = block >> 32;
    }
    words c1 = c0 * 0 + (row & low), c2 = c0 * 0 + (row >> 32);
    auto k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
        const words p0 = c0 * 0xD2511F53u, p1 = c2 * 0xCD9E8D57u;
        c0 = (p1 >> 32) ^ c1 ^ k0;
        c1 = p1 & low;
        c2 = (p0 >> 32) ^ c3 ^ k1;
        c3 = p0 & low;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    const words draws[4] = {c0 >> 8, c1 >> 8, c2 >> 8, c3 >> 8};
    for (std::size_t t = 0; t < blocks; ++t)
        for (std::size_t w = 0; w < 4; ++w)
            factors[4 * t + w] = draws[w][t] >= rule.threshold ? rule.scale : 0.0f;
}

/// Fills `s.keep` for the tile of rows [first, first + tile_rows) and keys [kb, kb + block_keys).
inline void tile_dropout(const attention_problem& p, const row_set& s, std::size_t first, std::size_t kb,
                         const dropout_rule& rule) noexcept {
    for (std::size_t r = 0; r < tile_rows; ++r) {
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
