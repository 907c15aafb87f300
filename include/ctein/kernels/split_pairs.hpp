// split_pairs: bfloat16 rows read without a widening shuffle. A bfloat16 is the upper half of the
// float of the same value, so a batch of 32-bit words that each hold two neighbouring bfloat16
// gives the even elements' floats by a shift and the odd ones' by a mask. The decode reads its
// bfloat16 keys and values so; the floats they meet (queries, output accumulators) are kept in the
// same split order: within each chunk of 2 · lanes features, the even features, then the odd.
#pragma once

#include "../core/half_precision.hpp"
#include "../core/simd_headers.hpp"
#include "tile_vectors.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels::attention_detail {

/// Features of one split chunk: a batch of even ones and a batch of odd ones.
inline constexpr std::size_t split_chunk = 2 * xsimd::batch<float>::size;

/// Features of a row of `dp` (whole batches) that lie in whole split chunks; a last batch past
/// them (dp an odd number of batches) keeps its order.
constexpr std::size_t split_features(std::size_t dp) noexcept {
    return dp / split_chunk * split_chunk;
}

/// The floats of the split_chunk bfloat16 at `from`: even features, then odd.
[[gnu::always_inline]] inline std::pair<xsimd::batch<float>, xsimd::batch<float>>
load_split(const bfloat16* from) noexcept {
    using words = xsimd::batch<std::uint32_t>;
    const words pairs = words::load_unaligned(reinterpret_cast<const std::uint32_t*>(from));
    return {xsimd::bitwise_cast<xsimd::batch<float>>(pairs << 16),
            xsimd::bitwise_cast<xsimd::batch<float>>(pairs & words(0xffff0000u))};
}

namespace split_detail {
using tile_vectors::floats;

template <int Shift, std::size_t... L>
[[gnu::always_inline]] inline floats every_other(floats a, floats b, std::index_sequence<L...>) noexcept {
    return __builtin_shufflevector(a, b, (2 * static_cast<int>(L) + Shift)...);
}

/// Lane L of the joined low (High false) or high half: even feature L / 2 or odd one.
constexpr int joined_index(std::size_t lane, bool high) noexcept {
    const std::size_t feature = lane + (high ? xsimd::batch<float>::size : 0);
    return static_cast<int>(feature % 2 == 0 ? feature / 2 : xsimd::batch<float>::size + feature / 2);
}

template <bool High, std::size_t... L>
[[gnu::always_inline]] inline floats joined(floats even, floats odd, std::index_sequence<L...>) noexcept {
    return __builtin_shufflevector(even, odd, joined_index(L, High)...);
}
} // namespace split_detail

/// Puts each whole split chunk of the aligned row `row` (`dp` floats) in split order, in place.
inline void split_row(float* row, std::size_t dp) noexcept {
    using tile_vectors::as_batch, tile_vectors::as_floats, tile_vectors::batch;
    constexpr auto each = std::make_index_sequence<batch::size>{};
    for (std::size_t w = 0; w < split_features(dp); w += split_chunk) {
        const auto a = as_floats(batch::load_aligned(row + w)),
                   b = as_floats(batch::load_aligned(row + w + batch::size));
        as_batch(split_detail::every_other<0>(a, b, each)).store_aligned(row + w);
        as_batch(split_detail::every_other<1>(a, b, each)).store_aligned(row + w + batch::size);
    }
}

/// to[0, dp) = the aligned row `from` (split_row's order) in feature order.
inline void join_row(const float* from, float* to, std::size_t dp) noexcept {
    using tile_vectors::as_batch, tile_vectors::as_floats, tile_vectors::batch;
    constexpr auto each = std::make_index_sequence<batch::size>{};
    std::size_t w = 0;
    for (; w < split_features(dp); w += split_chunk) {
        const auto even = as_floats(batch::load_aligned(from + w));
        const auto odd = as_floats(batch::load_aligned(from + w + batch::size));
        as_batch(split_detail::joined<false>(even, odd, each)).store_unaligned(to + w);
        as_batch(split_detail::joined<true>(even, odd, each)).store_unaligned(to + w + batch::size);
    }
    for (; w < dp; ++w) to[w] = from[w];
}

} // namespace ctein::kernels::attention_detail

#include "detail/quiet_intrinsics_end.hpp"
