// Copies a strided walk over memory into contiguous memory: the kernel behind materialising
// any view (transposes, head splits and merges, repeats).
#pragma once

#include "../core/strided_axis.hpp"
#include "contiguous_run.hpp"
#include "strided_walk.hpp"
#include "transpose.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels {

namespace detail {

/// One loop of the copy: its length and its steps in the source and in the output.
struct copy_loop {
    std::size_t length = 1;
    std::ptrdiff_t src_stride = 0;
    std::ptrdiff_t dst_stride = 0;
    /// The source does not move along this loop (a repeat) and the output of one step is a
    /// contiguous block: write it once, then copy it.
    bool repeats_block = false;
};

/// What the innermost two loops do; the innermost one writes contiguous output.
enum class leaf_kind : unsigned char {
    rows,      // the innermost loop reads contiguous source: runs copied with batches
    fill,      // it reads one element (stride 0): runs filled with batches
    transpose, // the rows loop reads contiguous source: tiles, so reads and writes both stream
    gather     // neither: element by element
};

/// The loops of a copy: `outer` in output order, then `rows` (the leaf's outer loop), then
/// `inner` (output stride 1).
template <std::size_t N>
struct copy_plan {
    std::array<copy_loop, N> outer{};
    std::size_t outer_rank = 0;
    copy_loop rows;
    strided_axis inner;
    leaf_kind leaf = leaf_kind::gather;
    /// Steps of the last outer loop each leaf takes (1: one): with a rows leaf chosen to read the
    /// source in order (a head split), `block_runs` steps whose runs are adjacent in the output,
    /// so that each output stream gets that many runs in a row.
    std::size_t block = 1;
};

/// How many sequential streams of the source a copy may read at once and still have each
/// prefetched (measured: 12 streams read at memcpy speed, 2048 at 60 % of it).
inline constexpr std::size_t max_read_streams = 32;

/// Runs a leaf that reads its source in order takes per output stream (copy_plan::block): a head
/// split of 480 MiB tensors (12 heads of 64 floats) that wrote one run of 256 bytes to each head's
/// stream in turn ran at 0.80-0.83 x memcpy on a Sapphire Rapids core, 16 runs in a row (4 KiB,
/// from 16 tokens' rows) at 0.96-1.0 x (8 runs: 0.94, 32: 0.96; docs/benchmarks.md).
inline constexpr std::size_t block_runs = 16;
static_assert(block_runs <= max_read_streams);

/// L1 room for a block of runs gathered before they are streamed out (run_block_leaf).
inline constexpr std::size_t staging_bytes = std::size_t{16} << 10;

/// The calling thread's staging room: one for every element type and rank (elements of any
/// trivially copyable type may live in its bytes).
inline unsigned char* staging_room() noexcept {
    alignas(64) static thread_local unsigned char room[staging_bytes];
    return room;
}

template <std::size_t N>
constexpr copy_plan<N> plan_copy(const simplified_walk<N>& walk) noexcept {
    copy_plan<N> plan;
    const std::size_t last = walk.rank - 1;
    plan.inner = walk.axes[last];
    std::array<std::ptrdiff_t, N> dst_stride{};
    std::ptrdiff_t block = static_cast<std::ptrdiff_t>(plan.inner.length);
    for (std::size_t r = last; r-- > 0;) {
        dst_stride[r] = block;
        block *= static_cast<std::ptrdiff_t>(walk.axes[r].length);
    }

    // The leaf's rows. For contiguous runs: the loop just outside the inner one, so that the
    // output is written in order, while the source is read in few streams (a head merge reads
    // one per head); when that would read too many streams at once (a head split would read
    // one per token), the loop whose source continues where a run ends, so that the source is
    // read in order instead (and written in a stream per head). When the inner loop is not
    // contiguous in the source but another is, that one, in tiles of a transpose. A loop that
    // repeats is left outside, so that the written block is copied rather than read again.
    const auto loop_with_stride = [&](std::ptrdiff_t stride) {
        for (std::size_t r = last; r-- > 0;)
            if (walk.axes[r].stride == stride) return r;
        return last;
    };
    std::size_t rows = last;
    bool in_order = false; // the rows leaf reads the source in order
    if (plan.inner.stride == 1) {
        plan.leaf = leaf_kind::rows;
        const std::size_t continuing = loop_with_stride(static_cast<std::ptrdiff_t>(plan.inner.length));
        std::size_t streams = 1;
        for (std::size_t r = continuing + 1; r < last; ++r) streams *= walk.axes[r].length;
        in_order = continuing != last && streams > max_read_streams;
        if (in_order) rows = continuing;
    } else if (plan.inner.stride == 0) {
        plan.leaf = leaf_kind::fill;
    } else {
        rows = loop_with_stride(1);
        plan.leaf = rows != last ? leaf_kind::transpose : leaf_kind::gather;
    }
    if (rows == last && last != 0 && walk.axes[last - 1].stride != 0) rows = last - 1;
    if (rows != last) plan.rows = {walk.axes[rows].length, walk.axes[rows].stride, dst_stride[rows], false};

    for (std::size_t r = 0; r < last; ++r) {
        if (r == rows) continue;
        const bool repeats = walk.axes[r].stride == 0 && r < rows;
        plan.outer[plan.outer_rank++] = {walk.axes[r].length, walk.axes[r].stride, dst_stride[r], repeats};
    }
    // In order, each run goes to another output stream; the last outer loop's runs are adjacent
    // in the output (its output stride is a run: the loop just outside the inner one).
    if (in_order && plan.outer_rank > 0) {
        const copy_loop& next = plan.outer[plan.outer_rank - 1];
        if (!next.repeats_block && next.dst_stride == static_cast<std::ptrdiff_t>(plan.inner.length))
            plan.block = block_runs;
    }
    return plan;
}

template <store_kind Stores, class T, std::size_t N>
void run_leaf(const copy_plan<N>& plan, const T* src, T* dst) noexcept {
    const copy_loop& rows = plan.rows;
    const std::size_t n = plan.inner.length;
    switch (plan.leaf) {
    case leaf_kind::rows:
        for (std::size_t a = 0; a < rows.length; ++a)
            copy_run<Stores>(src + static_cast<std::ptrdiff_t>(a) * rows.src_stride,
                             dst + static_cast<std::ptrdiff_t>(a) * rows.dst_stride, n);
        return;
    case leaf_kind::fill:
        for (std::size_t a = 0; a < rows.length; ++a)
            fill_run<Stores>(dst + static_cast<std::ptrdiff_t>(a) * rows.dst_stride,
                             src[static_cast<std::ptrdiff_t>(a) * rows.src_stride], n);
        return;
    case leaf_kind::transpose:
        transpose_tiled<Stores>(src, plan.inner.stride, rows.length, n, dst, rows.dst_stride);
        return;
    case leaf_kind::gather:
        for (std::size_t a = 0; a < rows.length; ++a) {
            const T* from = src + static_cast<std::ptrdiff_t>(a) * rows.src_stride;
            T* to = dst + static_cast<std::ptrdiff_t>(a) * rows.dst_stride;
            for (std::size_t i = 0; i < n; ++i)
                to[i] = from[static_cast<std::ptrdiff_t>(i) * plan.inner.stride];
        }
        return;
    }
}

/// A rows leaf over `count` steps of `loop` (copy_plan::block): each row's runs of those steps,
/// adjacent in the output, one after another.
template <store_kind Stores, class T, std::size_t N>
void run_block_leaf(const copy_plan<N>& plan, const copy_loop& loop, std::size_t count, const T* src,
                    T* dst) noexcept {
    const copy_loop& rows = plan.rows;
    const std::size_t n = plan.inner.length;
    if constexpr (has_bits_batch<T>) {
        constexpr std::size_t w = xsimd::batch<bits_of<T>>::size;
        constexpr auto sw = static_cast<std::ptrdiff_t>(w);
        // every run whole batches, and for streaming stores each starting on a batch
        const bool batch_runs = n % w == 0 && rows.dst_stride % sw == 0 && loop.dst_stride % sw == 0 &&
                                (Stores == store_kind::cached || is_batch_aligned(dst));
        if (batch_runs) {
            for (std::size_t a = 0; a < rows.length; ++a)
                copy_whole_runs<Stores>(
                    src + static_cast<std::ptrdiff_t>(a) * rows.src_stride, loop.src_stride,
                    dst + static_cast<std::ptrdiff_t>(a) * rows.dst_stride, loop.dst_stride, n, count);
            return;
        }
        // Streamed runs that are not whole batches on batch boundaries would store their first
        // and last elements one by one between the streamed lines. The block's runs are adjacent
        // in the output (plan_copy): gathered in L1, they are streamed out as one run. Splits of
        // 480 MiB tensors on Sapphire Rapids: outputs 16 bytes off a line 0.42-0.59 x memcpy run
        // by run, 0.64-0.72 x so, 0.71-0.76 x with runs of whole batches gathered by
        // copy_whole_runs; aligned runs of 24 floats 0.44 x run by run, 0.73 x so.
        if constexpr (Stores == store_kind::streaming) {
            if (!batch_runs && count * n * sizeof(T) <= staging_bytes) {
                T* const staged = reinterpret_cast<T*>(staging_room());
                for (std::size_t a = 0; a < rows.length; ++a) {
                    const T* from = src + static_cast<std::ptrdiff_t>(a) * rows.src_stride;
                    if (n % w == 0)
                        copy_whole_runs(from, loop.src_stride, staged, static_cast<std::ptrdiff_t>(n), n,
                                        count);
                    else
                        for (std::size_t j = 0; j < count; ++j)
                            copy_run(from + static_cast<std::ptrdiff_t>(j) * loop.src_stride, staged + j * n,
                                     n);
                    copy_run<Stores>(staged, dst + static_cast<std::ptrdiff_t>(a) * rows.dst_stride,
                                     count * n);
                }
                return;
            }
        }
    }
    for (std::size_t a = 0; a < rows.length; ++a) {
        const T* from = src + static_cast<std::ptrdiff_t>(a) * rows.src_stride;
        T* to = dst + static_cast<std::ptrdiff_t>(a) * rows.dst_stride;
        for (std::size_t j = 0; j < count; ++j)
            copy_run<Stores>(from + static_cast<std::ptrdiff_t>(j) * loop.src_stride,
                             to + static_cast<std::ptrdiff_t>(j) * loop.dst_stride, n);
    }
}

template <store_kind Stores, class T, std::size_t N>
void run_loops(const copy_plan<N>& plan, std::size_t level, const T* src, T* dst) noexcept {
    // (level < N always holds; saying so keeps g++ from warning about the recursion it unrolls)
    if (level == plan.outer_rank || level >= N) return run_leaf<Stores>(plan, src, dst);
    const copy_loop& loop = plan.outer[level];
    if (plan.block > 1 && level + 1 == plan.outer_rank) {
        for (std::size_t i = 0; i < loop.length; i += plan.block)
            run_block_leaf<Stores>(plan, loop, std::min(plan.block, loop.length - i),
                                   src + static_cast<std::ptrdiff_t>(i) * loop.src_stride,
                                   dst + static_cast<std::ptrdiff_t>(i) * loop.dst_stride);
        return;
    }
    if (loop.repeats_block) {
        run_loops<Stores>(plan, level + 1, src, dst);
        const std::size_t block = static_cast<std::size_t>(loop.dst_stride);
        for (std::size_t i = 1; i < loop.length; ++i) copy_run<Stores>(dst, dst + i * block, block);
        return;
    }
    for (std::size_t i = 0; i < loop.length; ++i)
        run_loops<Stores>(plan, level + 1, src + static_cast<std::ptrdiff_t>(i) * loop.src_stride,
                          dst + static_cast<std::ptrdiff_t>(i) * loop.dst_stride);
}

} // namespace detail

/// Writes, in row-major order of `axes`, the elements of `src` that the axes walk over into
/// `dst` (contiguous, not overlapping the source). Strides are in elements and may be 0 (the
/// source repeats) or negative; an axis of length 0 copies nothing, no axes copy one element.
///
///     // dst = the transpose of a 3 x 5 row-major matrix
///     ctein::kernels::copy_strided(src, std::array<ctein::strided_axis, 2>{{{5, 1}, {3, 5}}}, dst);
///
/// Runs that are contiguous in the source are copied with batches, runs of one repeated
/// element filled with batches, a walk whose contiguous source axis is not the innermost one
/// is copied in tiles, a repeated block is copied from the output once written, and outputs
/// larger than the cache use streaming stores.
template <class T, std::size_t N>
void copy_strided(const T* src, const std::array<strided_axis, N>& axes, T* dst) {
    const simplified_walk<N> walk = simplify(axes);
    if (walk.empty) return;
    if (walk.rank == 0) {
        *dst = *src;
        return;
    }
    const detail::copy_plan<N> plan = detail::plan_copy(walk);
    if (walk.size() * sizeof(T) >= streaming_threshold_bytes && has_bits_batch<T>) {
        detail::run_loops<store_kind::streaming>(plan, 0, src, dst);
        finish_streaming_stores();
    } else {
        detail::run_loops<store_kind::cached>(plan, 0, src, dst);
    }
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
