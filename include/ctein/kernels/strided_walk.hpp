// A walk over memory as the kernels run it: simplified first (axes of length 1 dropped,
// neighbours whose strides chain merged into one axis), then visited offset by offset.
// Shared by the copy and the reduction kernels.
#pragma once

#include "../core/strided_axis.hpp"

#include <array>
#include <cstddef>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels {

/// The axes of a walk that matter: `rank` of them, none of length 1; `empty` when an axis has
/// length 0 (the walk visits nothing).
template <std::size_t N>
struct simplified_walk {
    std::array<strided_axis, N> axes{};
    std::size_t rank = 0;
    bool empty = false;

    /// Number of offsets the walk visits.
    constexpr std::size_t size() const noexcept {
        if (empty) return 0;
        std::size_t n = 1;
        for (std::size_t r = 0; r < rank; ++r) n *= axes[r].length;
        return n;
    }
};

/// The same walk, in the same row-major order, with as few axes as memory allows, so that
/// inner loops are long: `(2, 768) (12, 64) (64, 1)` becomes `(2, 768) (768, 1)`.
template <std::size_t N>
constexpr simplified_walk<N> simplify(const std::array<strided_axis, N>& axes) noexcept {
    simplified_walk<N> walk;
    for (const strided_axis& a : axes) {
        if (a.length == 0) walk.empty = true;
        if (a.length <= 1) continue;
        strided_axis* last = walk.rank == 0 ? nullptr : &walk.axes[walk.rank - 1];
        if (last != nullptr && last->stride == a.stride * static_cast<std::ptrdiff_t>(a.length)) {
            *last = {last->length * a.length, a.stride};
        } else {
            walk.axes[walk.rank++] = a;
        }
    }
    return walk;
}

/// Calls `visit(offset)` for every offset of the first `rank` axes of `walk`, in row-major
/// order. The walk must not be empty.
template <std::size_t N, class Visit>
void for_each_offset(const simplified_walk<N>& walk, std::size_t rank, Visit&& visit) {
    std::array<std::size_t, N> index{};
    std::ptrdiff_t offset = 0;
    for (;;) {
        visit(offset);
        std::size_t r = rank;
        for (; r > 0; --r) {
            const strided_axis& a = walk.axes[r - 1];
            if (++index[r - 1] < a.length) {
                offset += a.stride;
                break;
            }
            index[r - 1] = 0;
            offset -= static_cast<std::ptrdiff_t>(a.length - 1) * a.stride;
        }
        if (r == 0) return;
    }
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
