// The GEMM micro-kernel: one tile of C, `Rows` rows by a few batches of columns, held in
// registers while it takes the product of a packed panel of A (one broadcast per row and step of
// k) and a packed panel of B (one row of batches per step). The innermost loop of kernels/gemm.hpp.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../core/simd_headers.hpp"
#include "multiply_add.hpp"

#if defined(__AVX512F__)
#include "detail/quiet_intrinsics_begin.hpp"
#endif

namespace ctein::kernels {

/// The register tile of the GEMM for T: `rows` rows of C by `vectors` batches of columns.
/// AVX-512 has 32 vector registers: 14 x 2 batches keep 28 accumulators, a row of B and a
/// broadcast in registers (BLIS's Skylake-X sgemm tile, 32 x 12, is the same shape transposed).
/// Measured on the projections of bench_gemm: 12 x 2 the same within noise, 6 x 4 5-30 % slower.
/// With 16 registers (AVX2, SSE), 6 x 2 (BLIS's Haswell tile).
template <class T>
struct gemm_tile {
    using batch = xsimd::batch<T>;
    static constexpr std::size_t lanes = batch::size;
    static constexpr bool wide_register_file = sizeof(batch) == 64;
    static constexpr std::size_t vectors = 2;
    static constexpr std::size_t rows = wide_register_file ? 14 : 6;
    static constexpr std::size_t cols = vectors * lanes;
};

/// Where a tile of C goes: its first element, its strides, how many of its columns exist (the
/// last tile of a row may be cut), whether the product is added to C or overwrites it, and a
/// bias per column to start the sums from (Tile::cols values, aligned to a batch; none if null).
template <class T>
struct gemm_tile_target {
    T* c;
    std::ptrdiff_t row_stride;
    std::ptrdiff_t col_stride;
    std::size_t cols;
    bool accumulate;
    const T* column_bias = nullptr;
};

/// `C[0, Rows) x [0, cols) (+)= A_panel * B_panel` over `kc` steps of k: `a[k * Tile::rows + i]`
/// is A's element (i, k), `b[k * Tile::cols + j]` is B's element (k, j), `b` aligned to a batch.
/// Full tiles of row-major C are written from registers; other tiles go through a buffer.
///
///     gemm_micro_kernel<float, 14>(kc, a_panel, b_panel, {c, ldc, 1, 32, false});
template <class T, std::size_t Rows, class Tile = gemm_tile<T>>
void gemm_micro_kernel(std::size_t kc, const T* a, const T* b, const gemm_tile_target<T>& to) noexcept {
    using batch = typename Tile::batch;
    constexpr std::size_t w = Tile::lanes, v = Tile::vectors, mr = Tile::rows, nr = Tile::cols;
    static_assert(Rows >= 1 && Rows <= mr);
    batch acc[Rows][v];
    // the tile's lines of C, wanted at the end: their misses overlap the products
    const auto last = static_cast<std::ptrdiff_t>(to.cols - 1) * to.col_stride;
#pragma GCC unroll 16
    for (std::size_t i = 0; i < Rows; ++i) {
        T* const row = to.c + static_cast<std::ptrdiff_t>(i) * to.row_stride;
        __builtin_prefetch(row, 1);
        __builtin_prefetch(row + last, 1);
#pragma GCC unroll 4
        for (std::size_t j = 0; j < v; ++j)
            acc[i][j] = to.column_bias ? batch::load_aligned(to.column_bias + j * w)
                                       : batch(T(0)); // the epilogue's bias, for free
    }
#pragma GCC unroll 4
    for (std::size_t k = 0; k < kc; ++k) {
        batch row[v];
#pragma GCC unroll 4
        for (std::size_t j = 0; j < v; ++j) row[j] = batch::load_aligned(b + k * nr + j * w);
#pragma GCC unroll 16
        for (std::size_t i = 0; i < Rows; ++i) {
            const batch x(a[k * mr + i]);
#pragma GCC unroll 4
            for (std::size_t j = 0; j < v; ++j) acc[i][j] = multiply_add(x, row[j], acc[i][j]);
        }
    }
    if (to.col_stride == 1 && to.cols == nr) {
#pragma GCC unroll 16
        for (std::size_t i = 0; i < Rows; ++i) {
            T* c = to.c + static_cast<std::ptrdiff_t>(i) * to.row_stride;
#pragma GCC unroll 4
            for (std::size_t j = 0; j < v; ++j) {
                const batch sum = to.accumulate ? acc[i][j] + batch::load_unaligned(c + j * w) : acc[i][j];
                sum.store_unaligned(c + j * w);
            }
        }
        return;
    }
    alignas(64) T tile[Rows * nr];
#pragma GCC unroll 16
    for (std::size_t i = 0; i < Rows; ++i)
#pragma GCC unroll 4
        for (std::size_t j = 0; j < v; ++j) acc[i][j].store_aligned(tile + i * nr + j * w);
    for (std::size_t i = 0; i < Rows; ++i) {
        T* c = to.c + static_cast<std::ptrdiff_t>(i) * to.row_stride;
        for (std::size_t j = 0; j < to.cols; ++j) {
            T& out = c[static_cast<std::ptrdiff_t>(j) * to.col_stride];
            out = to.accumulate ? out + tile[i * nr + j] : tile[i * nr + j];
        }
    }
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
