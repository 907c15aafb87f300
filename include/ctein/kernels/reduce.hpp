// Reductions over a strided walk: the kernel behind `ctein::reduce`. Rows contiguous in the
// source are folded with xsimd batches, either across the kept axis (a batch of outputs at a
// time) or along the reduced one (batch accumulators, folded across lanes at the end).
#pragma once

#include "../core/reduction.hpp"
#include "../core/simd_headers.hpp"
#include "../core/strided_axis.hpp"
#include "copy.hpp"
#include "strided_walk.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels {

/// How reduction R folds elements of T: its identity (the result over no elements), a step
/// that folds one element (or one accumulator) into an accumulator, and the final touch.
template <reduction R, class T>
struct reducer {
    static constexpr T identity() noexcept {
        if constexpr (R == reduction::min) return std::numeric_limits<T>::max();
        if constexpr (R == reduction::max) return std::numeric_limits<T>::lowest();
        if constexpr (R == reduction::prod || R == reduction::all) return T(1);
        return T(0);
    }
    static constexpr T fold(T acc, T x) noexcept {
        if constexpr (R == reduction::sum || R == reduction::mean) return static_cast<T>(acc + x);
        if constexpr (R == reduction::prod) return static_cast<T>(acc * x);
        if constexpr (R == reduction::min) return x < acc ? x : acc;
        if constexpr (R == reduction::max) return acc < x ? x : acc;
        if constexpr (R == reduction::any) return static_cast<T>(acc != T(0) || x != T(0));
        if constexpr (R == reduction::all) return static_cast<T>(acc != T(0) && x != T(0));
    }
    static constexpr T finish(T acc, std::size_t count) noexcept {
        if constexpr (R == reduction::mean) {
            if (count == 0) return std::numeric_limits<T>::quiet_NaN();
            return static_cast<T>(acc / static_cast<T>(count));
        }
        return acc;
    }
};

namespace detail {
/// The lane type of the batches that reduce T, or void (scalar loops). bools are 0 or 1 in a
/// byte, so any/all (and min/max) are max/min of bytes.
template <reduction R, class T>
constexpr auto reduce_lane() {
    constexpr bool logical = R == reduction::any || R == reduction::all;
    if constexpr (std::is_same_v<T, bool>) {
        if constexpr (logical || R == reduction::min || R == reduction::max) return std::uint8_t{};
    } else if constexpr (std::is_arithmetic_v<T> && !logical && xsimd::has_simd_register<T>::value) {
        return T{};
    }
}

template <reduction R, class T>
using reduce_lane_t = decltype(reduce_lane<R, T>());

/// The batch form of `reducer<R, T>::fold`.
template <reduction R, class B>
B fold_batch(const B& acc, const B& x) noexcept {
    if constexpr (R == reduction::sum || R == reduction::mean) return acc + x;
    if constexpr (R == reduction::prod) return acc * x;
    // floats: compare and select, as the scalar fold does (g++ 12 warns inside _mm512_min_ps);
    // integers: min and max (g++ at -O0 cannot compile xsimd's integer select on AVX-512, whose
    // blend intrinsics are macros there)
    if constexpr (std::is_floating_point_v<typename B::value_type>) {
        if constexpr (R == reduction::min || R == reduction::all) return xsimd::select(x < acc, x, acc);
        if constexpr (R == reduction::max || R == reduction::any) return xsimd::select(acc < x, x, acc);
    } else {
        if constexpr (R == reduction::min || R == reduction::all) return xsimd::min(acc, x);
        if constexpr (R == reduction::max || R == reduction::any) return xsimd::max(acc, x);
    }
}

template <reduction R, class T>
auto load_lanes(const T* p) noexcept {
    using lane = reduce_lane_t<R, T>;
    return xsimd::batch<lane>::load_unaligned(reinterpret_cast<const lane*>(p));
}

/// `acc[0, n) = fold(acc[0, n), row[0, n))`: one reduced step of a row of outputs.
template <reduction R, class T>
void fold_row(T* acc, const T* row, std::size_t n) noexcept {
    using lane = reduce_lane_t<R, T>;
    std::size_t i = 0;
    if constexpr (!std::is_void_v<lane>) {
        constexpr std::size_t w = xsimd::batch<lane>::size;
        for (; i + w <= n; i += w)
            fold_batch<R>(load_lanes<R>(acc + i), load_lanes<R>(row + i))
                .store_unaligned(reinterpret_cast<lane*>(acc + i));
    }
    for (; i < n; ++i) acc[i] = reducer<R, T>::fold(acc[i], row[i]);
}

/// `acc[0, n) = finish(acc[0, n))`: a mean's division, in batches (a scalar division per
/// output would cost as much as reading the input).
template <reduction R, class T>
void finish_row(T* acc, std::size_t n, std::size_t count) noexcept {
    if constexpr (R == reduction::mean) {
        using lane = reduce_lane_t<R, T>;
        std::size_t i = 0;
        if constexpr (!std::is_void_v<lane>) {
            constexpr std::size_t w = xsimd::batch<lane>::size;
            const xsimd::batch<lane> divisor(static_cast<lane>(count));
            for (; i + w <= n; i += w) (load_lanes<R>(acc + i) / divisor).store_unaligned(acc + i);
        }
        for (; i < n; ++i) acc[i] = reducer<R, T>::finish(acc[i], count);
    }
}

/// Outputs of a row are folded in chunks that stay in the first-level cache while every
/// reduced step passes over them (8 KiB: a quarter of a 32-48 KiB L1).
template <class T>
inline constexpr std::size_t row_chunk = std::max<std::size_t>(1, 8192 / sizeof(T));

/// A short row of outputs (M batches and fewer than a batch more): its accumulators stay in
/// registers while every reduced step folds the source into them (the few left over in `dst`).
template <reduction R, std::size_t M, class T, std::size_t N>
void reduce_short_row(const T* src, const simplified_walk<N>& reduced, std::size_t row, std::size_t count,
                      T* dst) {
    using lane = reduce_lane_t<R, T>;
    using batch = xsimd::batch<lane>;
    constexpr std::size_t w = batch::size;
    std::array<batch, M> acc;
    acc.fill(batch(reducer<R, lane>::identity()));
    std::fill(dst + M * w, dst + row, reducer<R, T>::identity());
    for_each_offset(reduced, reduced.rank, [&](std::ptrdiff_t step) {
        const T* from = src + step;
        for (std::size_t k = 0; k < M; ++k) acc[k] = fold_batch<R>(acc[k], load_lanes<R>(from + k * w));
        for (std::size_t i = M * w; i < row; ++i) dst[i] = reducer<R, T>::fold(dst[i], from[i]);
    });
    for (std::size_t k = 0; k < M; ++k) acc[k].store_unaligned(reinterpret_cast<lane*>(dst + k * w));
    finish_row<R>(dst, row, count);
}

/// The innermost kept axis is contiguous in the source: rows of outputs are folded a batch at a
/// time. A short row (`b h s d -> b s d`, d = 64) in registers; a long one (`b s d -> b d`) in
/// chunks of `dst`, into which every reduced step folds a row of the source, so that the
/// source is still read row after row.
template <reduction R, class T, std::size_t K, std::size_t N>
void reduce_across_rows(const T* src, const simplified_walk<K>& kept, const simplified_walk<N>& reduced,
                        std::size_t count, T* dst) {
    constexpr std::size_t w = xsimd::batch<reduce_lane_t<R, T>>::size;
    const std::size_t row = kept.axes[kept.rank - 1].length;
    const auto short_row = [&]<std::size_t M>(std::integral_constant<std::size_t, M>) {
        for_each_offset(kept, kept.rank - 1, [&](std::ptrdiff_t base) {
            reduce_short_row<R, M>(src + base, reduced, row, count, dst);
            dst += row;
        });
    };
    switch (row / w) {
    case 0:
        return short_row(std::integral_constant<std::size_t, 0>{});
    case 1:
        return short_row(std::integral_constant<std::size_t, 1>{});
    case 2:
        return short_row(std::integral_constant<std::size_t, 2>{});
    case 3:
        return short_row(std::integral_constant<std::size_t, 3>{});
    case 4:
        return short_row(std::integral_constant<std::size_t, 4>{});
    default:
        break;
    }
    for_each_offset(kept, kept.rank - 1, [&](std::ptrdiff_t base) {
        for (std::size_t c0 = 0; c0 < row; c0 += row_chunk<T>) {
            const std::size_t n = std::min(row_chunk<T>, row - c0);
            T* acc = dst + c0;
            std::fill_n(acc, n, reducer<R, T>::identity());
            for_each_offset(reduced, reduced.rank,
                            [&](std::ptrdiff_t step) { fold_row<R>(acc, src + base + step + c0, n); });
            finish_row<R>(acc, n, count);
        }
        dst += row;
    });
}

/// The innermost reduced axis is contiguous in the source: each output folds runs of it into
/// independent batch accumulators (so that additions overlap), then across their lanes.
template <reduction R, class T, std::size_t K, std::size_t N>
void reduce_along_runs(const T* src, const simplified_walk<K>& kept, const simplified_walk<N>& reduced,
                       std::size_t count, T* dst) {
    using lane = reduce_lane_t<R, T>;
    using batch = xsimd::batch<lane>;
    constexpr std::size_t w = batch::size;
    using reduce_t = reducer<R, lane>;
    const std::size_t run = reduced.axes[reduced.rank - 1].length;
    for_each_offset(kept, kept.rank, [&](std::ptrdiff_t base) {
        const batch identity(reduce_t::identity());
        batch a0 = identity, a1 = identity, a2 = identity, a3 = identity;
        T tail = reducer<R, T>::identity();
        for_each_offset(reduced, reduced.rank - 1, [&](std::ptrdiff_t step) {
            const T* p = src + base + step;
            std::size_t i = 0;
            for (; i + 4 * w <= run; i += 4 * w) {
                a0 = fold_batch<R>(a0, load_lanes<R>(p + i));
                a1 = fold_batch<R>(a1, load_lanes<R>(p + i + w));
                a2 = fold_batch<R>(a2, load_lanes<R>(p + i + 2 * w));
                a3 = fold_batch<R>(a3, load_lanes<R>(p + i + 3 * w));
            }
            for (; i + w <= run; i += w) a0 = fold_batch<R>(a0, load_lanes<R>(p + i));
            for (; i < run; ++i) tail = reducer<R, T>::fold(tail, p[i]);
        });
        alignas(64) std::array<lane, w> lanes{};
        fold_batch<R>(fold_batch<R>(a0, a1), fold_batch<R>(a2, a3)).store_aligned(lanes.data());
        lane folded = reduce_t::identity();
        for (const lane& l : lanes) folded = reduce_t::fold(folded, l);
        *dst++ = reducer<R, T>::finish(reducer<R, T>::fold(tail, static_cast<T>(folded)), count);
    });
}

/// Any layout, element by element.
template <reduction R, class T, std::size_t K, std::size_t N>
void reduce_elementwise(const T* src, const simplified_walk<K>& kept, const simplified_walk<N>& reduced,
                        std::size_t count, T* dst) {
    for_each_offset(kept, kept.rank, [&](std::ptrdiff_t base) {
        T acc = reducer<R, T>::identity();
        for_each_offset(reduced, reduced.rank,
                        [&](std::ptrdiff_t step) { acc = reducer<R, T>::fold(acc, src[base + step]); });
        *dst++ = reducer<R, T>::finish(acc, count);
    });
}
} // namespace detail

/// Writes to `dst` (contiguous, one element per index of `kept`, in row-major order) the
/// reduction R over all indices of `reduced` of `src[kept offset + reduced offset]`. Strides are
/// in elements. `mean` is for floating-point T; `any` and `all` take nonzero as true. Over no
/// elements (a reduced axis of length 0) the result is the reduction's identity: 0 for sum, 1
/// for prod, false for any, true for all, NaN for mean, `std::numeric_limits<T>::max()` for min
/// and `lowest()` for max. With no reduced axes it is a copy (any/all: `T(x != 0)`).
///
///     // dst[b * S + s] = sum over d of src[(b * S + s) * D + d]  (b s d -> b s)
///     ctein::kernels::reduce_strided<ctein::reduction::sum>(
///         src, std::array<ctein::strided_axis, 2>{{{B, S * D}, {S, D}}},
///         std::array<ctein::strided_axis, 1>{{{D, 1}}}, dst);
///
/// Sums are accumulated in T, in an order that differs from a plain loop's.
template <reduction R, class T, std::size_t K, std::size_t N>
void reduce_strided(const T* src, const std::array<strided_axis, K>& kept,
                    const std::array<strided_axis, N>& reduced, T* dst) {
    const simplified_walk<K> out = simplify(kept);
    if (out.empty) return;
    // the order of the reduced axes does not matter: sorted by stride, neighbours merge and the
    // contiguous one comes last
    std::array<strided_axis, N> by_stride = reduced;
    std::stable_sort(by_stride.begin(), by_stride.end(), [](const strided_axis& a, const strided_axis& b) {
        return (a.stride < 0 ? -a.stride : a.stride) > (b.stride < 0 ? -b.stride : b.stride);
    });
    const simplified_walk<N> over = simplify(by_stride);
    const std::size_t count = over.size();
    if (count == 0) {
        std::fill_n(dst, out.size(), reducer<R, T>::finish(reducer<R, T>::identity(), 0));
        return;
    }
    constexpr bool logical = R == reduction::any || R == reduction::all;
    if (over.rank == 0 && (!logical || std::is_same_v<T, bool>)) return copy_strided(src, out.axes, dst);

    constexpr bool vectorised = !std::is_void_v<detail::reduce_lane_t<R, T>>;
    const bool kept_contiguous = out.rank != 0 && out.axes[out.rank - 1].stride == 1;
    const bool reduced_contiguous = over.rank != 0 && over.axes[over.rank - 1].stride == 1;
    if constexpr (vectorised) {
        constexpr std::size_t w = xsimd::batch<detail::reduce_lane_t<R, T>>::size;
        const bool long_rows = kept_contiguous && out.axes[out.rank - 1].length >= w;
        const bool long_runs = reduced_contiguous && over.axes[over.rank - 1].length >= w;
        if (long_rows || (kept_contiguous && !long_runs))
            return detail::reduce_across_rows<R>(src, out, over, count, dst);
        if (reduced_contiguous) return detail::reduce_along_runs<R>(src, out, over, count, dst);
    }
    detail::reduce_elementwise<R>(src, out, over, count, dst);
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
