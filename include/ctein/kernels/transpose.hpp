// Out-of-place transpose of a strided block into rows of the output, in tiles: the copy
// kernel's leaf for walks whose contiguous source axis is not the innermost one (`a b -> b a`).
// Tiles of 4- and 8-byte elements are transposed in registers with the compilers' vector
// extensions (xsimd 8.1's zip_lo/zip_hi interleave within 128-bit lanes only, which does not
// transpose); other tiles element by element.
#pragma once

#include "contiguous_run.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels {

namespace detail {
/// Vectors of 16, 32 and 64 bytes of 4- and 8-byte lanes, in the vector extensions g++ and clang
/// share (spelled out per size: g++ drops the attribute on a dependent type).
namespace vectors {
typedef std::uint32_t u32x4 __attribute__((vector_size(16)));
typedef std::uint32_t u32x8 __attribute__((vector_size(32)));
typedef std::uint32_t u32x16 __attribute__((vector_size(64)));
typedef std::uint64_t u64x2 __attribute__((vector_size(16)));
typedef std::uint64_t u64x4 __attribute__((vector_size(32)));
typedef std::uint64_t u64x8 __attribute__((vector_size(64)));
} // namespace vectors

/// The vector of `Bytes` bytes (16, 32 or 64) of `Element`-byte lanes (4 or 8); any other size
/// is a compile error, not a silent fallback to the last type.
template <std::size_t Bytes, std::size_t Element>
struct lane_vector_of {
    static_assert(Bytes == 16 || Bytes == 32 || Bytes == 64,
                  "lane_vector has vectors of 16, 32 and 64 bytes");
    static_assert(Element == 4 || Element == 8, "lane_vector has lanes of 4 and 8 bytes");
    using type = std::conditional_t<
        Element == 4,
        std::conditional_t<Bytes == 16, vectors::u32x4,
                           std::conditional_t<Bytes == 32, vectors::u32x8, vectors::u32x16>>,
        std::conditional_t<Bytes == 16, vectors::u64x2,
                           std::conditional_t<Bytes == 32, vectors::u64x4, vectors::u64x8>>>;
};
template <std::size_t Bytes, std::size_t Element>
using lane_vector = typename lane_vector_of<Bytes, Element>::type;

/// One cache line of U.
template <class U>
using line_of = lane_vector<64, sizeof(U)>;

template <class U>
inline constexpr std::size_t line_lanes = 64 / sizeof(U);

/// `out` = the lanes of `a` and `b` (vectors of `n` lanes) interleaved: the first halves
/// (`Half` = 0) or the second ones. (Vectors by reference: passed or returned by value, 64-byte
/// vectors of a build without AVX-512 would change the ABI, which g++ reports.)
template <std::size_t Half, class V, std::size_t... I>
[[gnu::always_inline]] inline void interleave(const V& a, const V& b, V& out,
                                              std::index_sequence<I...>) noexcept {
    constexpr std::size_t n = sizeof...(I);
    out = __builtin_shufflevector(a, b, (I % 2 == 0 ? Half * n / 2 + I / 2 : n + Half * n / 2 + I / 2)...);
}

/// Transposes the square tile of `n` vectors of `n` lanes in place: log2(n) rounds of
/// interleaving row i with row i + n/2 (a perfect shuffle, applied log2(n) times, transposes),
/// unrolled at compile time so that the tile stays in registers (a loop form went through the
/// stack: measured 1.7 cycles an element instead of 0.6).
template <class V, std::size_t n>
[[gnu::always_inline]] inline void transpose_square(std::array<V, n>& r) noexcept {
    const auto round = [&]<std::size_t... I>(std::index_sequence<I...>) __attribute__((always_inline)) {
        constexpr auto lanes = std::make_index_sequence<n>{};
        std::array<V, n> next;
        (interleave<0>(r[I], r[I + n / 2], next[2 * I], lanes), ...);
        (interleave<1>(r[I], r[I + n / 2], next[2 * I + 1], lanes), ...);
        r = next;
    };
#pragma GCC unroll 8
    for (std::size_t width = 1; width < n; width *= 2) round(std::make_index_sequence<n / 2>{});
}

/// Writes the vector `v` (a line, or a block's part of one) to `to` (streaming only where `to` is
/// aligned to a batch).
template <store_kind Stores, class T, class Line>
void store_line(T* to, const Line& v) noexcept {
    using batch = xsimd::batch<bits_of<T>>;
    if (Stores == store_kind::cached || !is_batch_aligned(to)) {
        std::memcpy(to, &v, sizeof(Line));
        return;
    }
    const auto* bits = reinterpret_cast<const bits_of<T>*>(&v);
    for (std::size_t k = 0; k < sizeof(Line) / sizeof(batch); ++k)
        store_bits<Stores>(to + k * batch::size, batch::load_unaligned(bits + k * batch::size));
}

/// Whether tiles of T are transposed in registers.
template <class T>
inline constexpr bool transposes_in_registers = has_bits_batch<T> && (sizeof(T) == 4 || sizeof(T) == 8);
/// Bytes of the widest vector the build enables (xsimd's batches: 16, 32 or 64).
inline constexpr std::size_t native_vector_bytes = sizeof(xsimd::batch<float>);

/// Transposes the square tile of line_lanes<U> lines (one cache line of U each) whose first `Count`
/// lines are at `src`, `stride` elements apart (the others are zeros), in registers: in square
/// blocks of the build's vectors, each loaded from `src`, transposed, and handed at once to
/// `put(line, lane, part)`, where `part` holds lanes [lane, lane + its lanes) of line `line` of the
/// transposed tile. (One 64-byte transpose where the vectors are that wide: g++ 12 lowered the
/// shuffles of 64-byte vectors on AVX2 to 1008 scalar moves per 16 x 16 floats, and packing K
/// took 10 % of a causal prefill, D = 128, T = 512, on one Zen 3 core.) The strided copy's
/// transpose, the GEMM's packing and the attention kernel's packing of K use it.
template <class U, std::size_t Count, class T, class Put>
[[gnu::always_inline]] inline void transpose_lines(const T* src, std::ptrdiff_t stride, Put&& put) noexcept {
    constexpr std::size_t n = line_lanes<U>, bytes = std::min<std::size_t>(native_vector_bytes, 64);
    constexpr std::size_t m = bytes / sizeof(U), blocks = n / m;
    static_assert(Count <= n);
    using part = lane_vector<bytes, sizeof(U)>;
    // block (i, j) of the result is block (j, i) of the tile, transposed
#pragma GCC unroll 4
    for (std::size_t i = 0; i < blocks; ++i) {
#pragma GCC unroll 4
        for (std::size_t j = 0; j < blocks; ++j) {
            std::array<part, m> block;
#pragma GCC unroll 16
            for (std::size_t t = 0; t < m; ++t) {
                if (j * m + t < Count) {
                    std::memcpy(&block[t], src + static_cast<std::ptrdiff_t>(j * m + t) * stride + i * m,
                                bytes);
                } else {
                    block[t] = part{};
                }
            }
            transpose_square(block);
#pragma GCC unroll 16
            for (std::size_t t = 0; t < m; ++t) put(i * m + t, j * m, block[t]);
        }
    }
}

/// A square tile of lines (one cache line of U each), transposed in registers (transpose_lines),
/// kept whole: the GEMM's packing writes each line in order.
template <class U>
struct line_tile {
    static constexpr std::size_t n = line_lanes<U>;
    std::array<line_of<U>, n> r;

    /// Loads the transpose of the tile whose first `Count` lines start `stride` elements apart
    /// (the others are zero).
    template <std::size_t Count, class T>
    void load_transposed(const T* src, std::ptrdiff_t stride) noexcept {
        transpose_lines<U, Count>(
            src,
            stride, [&](std::size_t line, std::size_t lane, const auto& part) __attribute__((always_inline)) {
                std::memcpy(reinterpret_cast<char*>(&r[line]) + lane * sizeof(U), &part, sizeof part);
            });
    }
};
} // namespace detail

/// `dst[a * dst_stride + b] = src[a + b * src_stride]` for a < rows, b < cols, in square tiles
/// of one cache line per row on each side, so that reads and writes both use whole lines.
template <store_kind Stores = store_kind::cached, class T>
void transpose_tiled(const T* src, std::ptrdiff_t src_stride, std::size_t rows, std::size_t cols, T* dst,
                     std::ptrdiff_t dst_stride) noexcept {
    constexpr std::size_t tile = std::max<std::size_t>(8, 64 / sizeof(T));
    const auto transpose_tile = [&](std::size_t a0, std::size_t b0) {
        const std::size_t a1 = std::min(rows, a0 + tile), b1 = std::min(cols, b0 + tile);
        if constexpr (detail::transposes_in_registers<T>) {
            if (a1 - a0 == tile && b1 - b0 == tile) {
                detail::transpose_lines<bits_of<T>, tile>(
                    src + static_cast<std::ptrdiff_t>(b0) * src_stride + a0, src_stride,
                    [&](std::size_t a, std::size_t b, const auto& part) __attribute__((always_inline)) {
                        detail::store_line<Stores>(
                            dst + static_cast<std::ptrdiff_t>(a0 + a) * dst_stride + b0 + b, part);
                    });
                return;
            }
        }
        for (std::size_t a = a0; a < a1; ++a) {
            const T* from = src + static_cast<std::ptrdiff_t>(a);
            T* to = dst + static_cast<std::ptrdiff_t>(a) * dst_stride;
            for (std::size_t b = b0; b < b1; ++b) to[b] = from[static_cast<std::ptrdiff_t>(b) * src_stride];
        }
    };
    for (std::size_t a0 = 0; a0 < rows; a0 += tile)
        for (std::size_t b0 = 0; b0 < cols; b0 += tile) transpose_tile(a0, b0);
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
