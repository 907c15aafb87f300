// Packing for the GEMM kernel: copies a block of A or of B, whatever its strides, into the
// panels the micro-kernel (gemm_micro_kernel.hpp) reads as one sequential stream. Sources that
// are contiguous along k (row-major activations, PyTorch's [out, in] weights) are transposed in
// registers, 16 x 16 floats at a time (transpose.hpp's line_tile).
#pragma once

#include "gemm_micro_kernel.hpp"
#include "transpose.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <utility>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels {

/// Packs rows [0, rows) (at most `Tile::rows`) and steps [0, kc) of A, element (i, k) at
/// `a[i * row_stride + k * k_stride]`, into `panel[k * Tile::rows + i]`. Rows past `rows` are
/// left as they were: the micro-kernel for `rows` rows never reads them. `panel` has room for
/// one line (64 bytes) past its end: the in-register path writes whole lines.
///
///     pack_a_panel<float>(a + i0 * lda + k0, lda, 1, 14, kc, panel);
template <class T, class Tile = gemm_tile<T>>
void pack_a_panel(const T* a, std::ptrdiff_t row_stride, std::ptrdiff_t k_stride, std::size_t rows,
                  std::size_t kc, T* panel) noexcept {
    constexpr std::size_t mr = Tile::rows;
    std::size_t k = 0;
    if constexpr (detail::transposes_in_registers<T>) {
        using U = bits_of<T>;
        constexpr std::size_t n = detail::line_lanes<U>, groups = (mr + n - 1) / n;
        if (k_stride == 1 && rows == mr) {
            for (; k + n <= kc; k += n) {
                detail::line_tile<U> tiles[groups];
                [&]<std::size_t... G>(std::index_sequence<G...>) {
                    (tiles[G].template load_transposed<std::min(n, mr - G * n)>(
                         a + static_cast<std::ptrdiff_t>(G * n) * row_stride + k, row_stride),
                     ...);
                }
                (std::make_index_sequence<groups>{});
                // in order of k, the lanes of a line past `mr` are overwritten by the next line
#pragma GCC unroll 16
                for (std::size_t s = 0; s < n; ++s)
#pragma GCC unroll 4
                    for (std::size_t g = 0; g < groups; ++g)
                        std::memcpy(panel + (k + s) * mr + g * n, &tiles[g].r[s], sizeof(tiles[g].r[s]));
            }
        }
    }
    if (row_stride == 1) {
        for (; k < kc; ++k) std::copy_n(a + static_cast<std::ptrdiff_t>(k) * k_stride, rows, panel + k * mr);
        return;
    }
    for (; k < kc; ++k)
        for (std::size_t i = 0; i < rows; ++i)
            panel[k * mr + i] =
                a[static_cast<std::ptrdiff_t>(i) * row_stride + static_cast<std::ptrdiff_t>(k) * k_stride];
}

/// Packs steps [0, kc) and columns [0, cols) (at most `Tile::cols`) of B, element (k, j) at
/// `b[k * k_stride + j * col_stride]`, into `panel[k * Tile::cols + j]`, with zeros in the
/// columns past `cols` (the micro-kernel multiplies them; zeros cannot be slow denormals).
///
///     pack_b_panel<float>(w + j0 * ldw + k0, 1, ldw, 32, kc, panel);  // weights [N, K]
template <class T, class Tile = gemm_tile<T>>
void pack_b_panel(const T* b, std::ptrdiff_t k_stride, std::ptrdiff_t col_stride, std::size_t cols,
                  std::size_t kc, T* panel) noexcept {
    constexpr std::size_t nr = Tile::cols;
    if (col_stride == 1) {
        for (std::size_t k = 0; k < kc; ++k) {
            T* to = panel + k * nr;
            std::copy_n(b + static_cast<std::ptrdiff_t>(k) * k_stride, cols, to);
            std::fill(to + cols, to + nr, T(0));
        }
        return;
    }
    std::size_t j = 0;
    if constexpr (detail::transposes_in_registers<T> && nr % detail::line_lanes<bits_of<T>> == 0) {
        using U = bits_of<T>;
        constexpr std::size_t n = detail::line_lanes<U>;
        if (k_stride == 1) {
            for (; j + n <= cols; j += n) {
                const T* from = b + static_cast<std::ptrdiff_t>(j) * col_stride;
                std::size_t k = 0;
                for (; k + n <= kc; k += n) {
                    detail::line_tile<U> tile;
                    tile.template load_transposed<n>(from + k, col_stride);
#pragma GCC unroll 16
                    for (std::size_t s = 0; s < n; ++s)
                        std::memcpy(panel + (k + s) * nr + j, &tile.r[s], sizeof(tile.r[s]));
                }
                for (; k < kc; ++k)
                    for (std::size_t t = 0; t < n; ++t)
                        panel[k * nr + j + t] = from[static_cast<std::ptrdiff_t>(t) * col_stride +
                                                     static_cast<std::ptrdiff_t>(k)];
            }
        }
    }
    for (std::size_t k = 0; k < kc; ++k) {
        T* to = panel + k * nr;
        for (std::size_t t = j; t < cols; ++t)
            to[t] =
                b[static_cast<std::ptrdiff_t>(k) * k_stride + static_cast<std::ptrdiff_t>(t) * col_stride];
        std::fill(to + cols, to + nr, T(0));
    }
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
