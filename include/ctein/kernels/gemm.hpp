// GEMM: C = A B for float and double matrices of any strides, and batches of them, the kernel
// behind einsum's contractions (plan/contraction_plan.hpp). Blocks of B and panels of A are
// packed (gemm_pack.hpp) for the register-tiled micro-kernel (gemm_micro_kernel.hpp), in blocks
// sized for the caches, on the shared thread pool.
#pragma once

#include "gemm_micro_kernel.hpp"
#include "gemm_pack.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels {

/// A matrix in memory: element (i, j) at `data[i * row_stride + j * col_stride]`.
template <class T>
struct strided_matrix {
    T* data = nullptr;
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::ptrdiff_t row_stride = 0;
    std::ptrdiff_t col_stride = 1;
};

/// One loop around a GEMM: `length` steps that move A, B and C by `a`, `b` and `c` elements.
/// A `summed` loop (a contracted axis that could not join the GEMM's k) adds its products into
/// C; the others are a batch of independent products.
struct gemm_loop {
    std::size_t length = 1;
    std::ptrdiff_t a = 0;
    std::ptrdiff_t b = 0;
    std::ptrdiff_t c = 0;
    bool summed = false;
};

/// The GEMM's cache blocks for T. A panel of A (`Tile::rows` x `depth`) stays in L1 while the
/// micro-kernel streams panels of B past it from L2, where a block of B (`depth` x `width`)
/// stays while every panel of A meets it. On the Ice Lake server this was measured on (48 KiB
/// L1d, 1.25 MiB L2 per core): 14 x 256 floats of A are 14 KiB, 256 x 768 of B 768 KiB; depths
/// of 192 to 384 and widths of 768 to 1152 measured within 5 % of these, a width of 512 6 % slower.
template <class T>
struct gemm_blocking {
    static constexpr std::size_t depth = 256 * 4 / sizeof(T);
    static constexpr std::size_t width = 768;
};

namespace detail {

/// Products of fewer multiply-adds than this per thread run on fewer threads: waking a worker
/// costs tens of microseconds on a loaded machine, and 2^20 multiply-adds take about 15.
inline constexpr std::size_t gemm_min_work_per_thread = std::size_t{1} << 20;

/// A buffer of T on a 64-byte boundary that grows and is kept by its thread, so that repeated
/// products (a decoding loop, a batch) do not allocate.
template <class T>
class gemm_buffer {
public:
    T* get(std::size_t size) {
        if (size > size_) {
            data_.reset(static_cast<T*>(::operator new (size * sizeof(T), std::align_val_t{64})));
            size_ = size;
        }
        return data_.get();
    }

private:
    struct release {
        void operator()(T* p) const noexcept { ::operator delete (p, std::align_val_t{64}); }
    };
    std::unique_ptr<T, release> data_;
    std::size_t size_ = 0;
};

/// The packed block of B and panel of A of the calling thread.
template <class T>
struct gemm_scratch {
    gemm_buffer<T> b_block;
    gemm_buffer<T> a_panel;
    gemm_buffer<T> bias_block; // a block's columns of the bias, padded to whole panels
    static gemm_scratch& of_this_thread() {
        thread_local gemm_scratch scratch;
        return scratch;
    }
};

/// Calls the micro-kernel instantiated for `rows` rows (1 .. Tile::rows).
template <class T, class Tile, std::size_t... R>
void gemm_tile_of_rows(std::size_t rows, std::size_t kc, const T* a, const T* b,
                       const gemm_tile_target<T>& to, std::index_sequence<R...>) noexcept {
    ((rows == R + 1 ? gemm_micro_kernel<T, R + 1, Tile>(kc, a, b, to) : void()), ...);
}

/// `C (+)= A B` for C's rows [m0, m1) and columns [n0, n1): blocks of B packed once each and
/// met by every panel of A in turn (the loop order of BLIS). Unless accumulating, `column_bias`
/// (C's n values; none if null) is added to every row: the sums start from it.
template <class T, class Tile, class Blocking>
void gemm_block_range(const strided_matrix<const T>& a, const strided_matrix<const T>& b,
                      const strided_matrix<T>& c, std::size_t m0, std::size_t m1, std::size_t n0,
                      std::size_t n1, bool accumulate, const T* column_bias = nullptr) {
    constexpr std::size_t mr = Tile::rows, nr = Tile::cols;
    const std::size_t depth = a.cols;
    if (depth == 0) {
        if (!accumulate)
            for (std::size_t i = m0; i < m1; ++i)
                for (std::size_t j = n0; j < n1; ++j)
                    c.data[static_cast<std::ptrdiff_t>(i) * c.row_stride +
                           static_cast<std::ptrdiff_t>(j) * c.col_stride] = column_bias ? column_bias[j] : T(0);
        return;
    }
    // k in equal blocks of at most Blocking::depth, so that no block is a short remainder
    const std::size_t k_blocks = (depth + Blocking::depth - 1) / Blocking::depth;
    const std::size_t kc_max = (depth + k_blocks - 1) / k_blocks;
    // columns in equal blocks of whole panels, of at most Blocking::width
    const std::size_t panels = (n1 - n0 + nr - 1) / nr,
                      max_panels = std::max<std::size_t>(1, Blocking::width / nr);
    const std::size_t n_blocks = (panels + max_panels - 1) / max_panels;
    const std::size_t nc_max = (panels + n_blocks - 1) / n_blocks * nr;
    gemm_scratch<T>& scratch = gemm_scratch<T>::of_this_thread();
    T* const b_block = scratch.b_block.get(kc_max * nc_max);
    T* const a_panel = scratch.a_panel.get(kc_max * mr + 64 / sizeof(T));
    T* const bias_block = column_bias && !accumulate ? scratch.bias_block.get(nc_max) : nullptr;
    for (std::size_t jc = n0; jc < n1; jc += nc_max) {
        const std::size_t nc = std::min(nc_max, n1 - jc);
        if (bias_block) { // the micro-kernel loads whole panels: the last one padded with zeros
            std::copy(column_bias + jc, column_bias + jc + nc, bias_block);
            std::fill(bias_block + nc, bias_block + (nc + nr - 1) / nr * nr, T(0));
        }
        for (std::size_t pc = 0; pc < depth; pc += kc_max) {
            const std::size_t kc = std::min(kc_max, depth - pc);
            const T* const b_at = b.data + static_cast<std::ptrdiff_t>(pc) * b.row_stride;
            for (std::size_t jr = 0; jr < nc; jr += nr)
                pack_b_panel<T, Tile>(b_at + static_cast<std::ptrdiff_t>(jc + jr) * b.col_stride,
                                      b.row_stride, b.col_stride, std::min(nr, nc - jr), kc,
                                      b_block + jr * kc);
            const bool add = accumulate || pc > 0;
            for (std::size_t ic = m0; ic < m1; ic += mr) {
                const std::size_t rows = std::min(mr, m1 - ic);
                pack_a_panel<T, Tile>(a.data + static_cast<std::ptrdiff_t>(ic) * a.row_stride +
                                          static_cast<std::ptrdiff_t>(pc) * a.col_stride,
                                      a.row_stride, a.col_stride, rows, kc, a_panel);
                T* const c_row = c.data + static_cast<std::ptrdiff_t>(ic) * c.row_stride;
                for (std::size_t jr = 0; jr < nc; jr += nr) {
                    const gemm_tile_target<T> to{c_row + static_cast<std::ptrdiff_t>(jc + jr) * c.col_stride,
                                                 c.row_stride, c.col_stride, std::min(nr, nc - jr), add,
                                                 add || !bias_block ? nullptr : bias_block + jr};
                    gemm_tile_of_rows<T, Tile>(rows, kc, a_panel, b_block + jr * kc, to,
                                               std::make_index_sequence<mr>{});
                }
            }
        }
    }
}

/// How one product is cut into pieces for threads: `m_pieces` x `n_pieces`.
struct gemm_split {
    std::size_t m_pieces = 1;
    std::size_t n_pieces = 1;
};

/// Pieces for `products` independent products of m x n over `threads` threads: none when the
/// products alone balance; else columns first (a piece then packs only its own part of B, and
/// panels of A are cheap to pack twice), rows when there are too few columns.
inline gemm_split split_for_threads(std::size_t products, std::size_t m_tiles, std::size_t n_tiles,
                                    std::size_t threads) {
    if (threads <= 1 || products % threads == 0 || products >= 4 * threads) return {};
    const std::size_t pieces = threads;
    if (n_tiles >= 2 * pieces) return {1, pieces};
    if (m_tiles >= 2 * pieces) return {pieces, 1};
    const std::size_t n_pieces = std::max<std::size_t>(1, std::min(pieces, n_tiles));
    return {std::max<std::size_t>(1, std::min(m_tiles, pieces / n_pieces)), n_pieces};
}

/// `C = A B` over the loops: the work items of the thread pool are the batch's products, each
/// cut into pieces when they alone would leave threads idle; a piece runs its sums in order.
template <class T, class Tile = gemm_tile<T>, class Blocking = gemm_blocking<T>>
void gemm_looped(const strided_matrix<const T>& a, const strided_matrix<const T>& b,
                 const strided_matrix<T>& c, std::span<const gemm_loop> loops, std::size_t threads,
                 const T* column_bias = nullptr) {
    constexpr std::size_t mr = Tile::rows, nr = Tile::cols;
    const std::size_t m = c.rows, n = c.cols, k = a.cols;
    std::size_t products = 1, sums = 1;
    for (const gemm_loop& l : loops) (l.summed ? sums : products) *= l.length;
    if (products == 0 || m == 0 || n == 0) return;
    const bool no_terms = sums == 0; // C = 0: one pass over no depth
    sums = std::max<std::size_t>(sums, 1);
    const std::size_t work = products * sums * m * n * std::max<std::size_t>(k, 1);
    threads = std::max<std::size_t>(1, std::min(threads, work / gemm_min_work_per_thread));
    const std::size_t m_tiles = (m + mr - 1) / mr, n_tiles = (n + nr - 1) / nr;
    const gemm_split split = split_for_threads(products, m_tiles, n_tiles, threads);
    const std::size_t pieces = split.m_pieces * split.n_pieces;
    // the offsets of A, B and C at index `i` of the loops of one kind, the last loop fastest
    const auto offsets = [&](std::size_t i, bool summed) {
        std::array<std::ptrdiff_t, 3> at{};
        for (std::size_t l = loops.size(); l-- > 0;) {
            if (loops[l].summed != summed) continue;
            const auto step = static_cast<std::ptrdiff_t>(i % loops[l].length);
            i /= loops[l].length;
            at[0] += step * loops[l].a;
            at[1] += step * loops[l].b;
            at[2] += step * loops[l].c;
        }
        return at;
    };
    thread_pool::instance().run(products * pieces, threads, [&](std::size_t item) {
        const std::size_t p = item / pieces, q = item % pieces;
        const std::size_t qm = q / split.n_pieces, qn = q % split.n_pieces;
        const std::size_t m0 = std::min(m, qm * m_tiles / split.m_pieces * mr);
        const std::size_t m1 = std::min(m, (qm + 1) * m_tiles / split.m_pieces * mr);
        const std::size_t n0 = std::min(n, qn * n_tiles / split.n_pieces * nr);
        const std::size_t n1 = std::min(n, (qn + 1) * n_tiles / split.n_pieces * nr);
        const auto batch = offsets(p, false);
        for (std::size_t s = 0; s < sums; ++s) {
            const auto term = no_terms ? std::array<std::ptrdiff_t, 3>{} : offsets(s, true);
            strided_matrix<const T> a_at = a, b_at = b;
            a_at.data += batch[0] + term[0];
            b_at.data += batch[1] + term[1];
            if (no_terms) a_at.cols = 0;
            strided_matrix<T> c_at = c;
            c_at.data += batch[2];
            gemm_block_range<T, Tile, Blocking>(a_at, b_at, c_at, m0, m1, n0, n1, s > 0, column_bias);
        }
    });
}

} // namespace detail

/// `C = A B`: overwrites the m x n matrix C with the product of A (m x k) and B (k x n), each of
/// any strides (a transposed operand is a view with its strides swapped), for float or double,
/// on up to `threads` threads of the shared pool.
///
///     std::vector<float> x(512 * 768), w(2304 * 768), y(512 * 2304);  // w in [out, in] layout
///     kernels::gemm<float>({x.data(), 512, 768, 768, 1}, {w.data(), 768, 2304, 1, 768},
///                          {y.data(), 512, 2304, 2304, 1});
template <class T>
void gemm(const strided_matrix<const T>& a, const strided_matrix<const T>& b, const strided_matrix<T>& c,
          std::size_t threads =
              ctein::thread_count()) requires std::is_same_v<T, float> || std::is_same_v<T, double> {
    if (a.rows != c.rows || b.cols != c.cols || a.cols != b.rows)
        throw std::invalid_argument("ctein::kernels::gemm: the matrices' shapes do not chain");
    detail::gemm_looped<T>(a, b, c, {}, threads);
}

/// `C = A B` repeated over `loops`: a batch of products (`b h q d, b h k d -> b h q k` loops
/// over b and h) and sums of products (contracted axes beyond the GEMM's k). `a`, `b` and `c`
/// describe the product at index 0 of every loop; each loop moves them by its strides.
///
///     const kernels::gemm_loop heads{12, 128 * 64, 128 * 64, 128 * 128};
///     kernels::gemm_batched<float>({q, 128, 64, 64, 1}, {k, 64, 128, 1, 64}, {s, 128, 128, 128, 1},
///                                  std::span(&heads, 1));
///
/// `column_bias`, when given, holds C's n values, added to every row of every product (once, not
/// per summed term): nn.Linear's bias in the GEMM's epilogue rather than a pass of its own.
template <class T>
void gemm_batched(const strided_matrix<const T>& a, const strided_matrix<const T>& b,
                  const strided_matrix<T>& c, std::span<const gemm_loop> loops,
                  std::size_t threads = ctein::thread_count(),
                  const T* column_bias = nullptr) requires std::is_same_v<T, float> || std::is_same_v<T, double> {
    if (a.rows != c.rows || b.cols != c.cols || a.cols != b.rows)
        throw std::invalid_argument("ctein::kernels::gemm_batched: the matrices' shapes do not chain");
    detail::gemm_looped<T>(a, b, c, loops, threads, column_bias);
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
