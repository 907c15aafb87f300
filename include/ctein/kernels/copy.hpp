// Copies a strided walk over memory into contiguous memory: the kernel behind materialising
// any view (transposes, head splits and merges).
#pragma once

#include "../core/strided_axis.hpp"

#include <array>
#include <cstddef>
#include <span>

namespace ctein::kernels {

/// Writes, in row-major order of `axes`, the elements of `src` that the axes walk over into
/// `dst` (contiguous). Axes of length 1 are dropped and neighbours that form one stride merged
/// first, so the innermost loop is as long as memory allows.
template <class T, std::size_t N>
void copy_strided(const T* src, const std::array<strided_axis, N>& axes, T* dst) {
    std::array<strided_axis, N + 1> walk{};
    std::size_t rank = 0;
    for (const strided_axis& a : axes) {
        if (a.length == 0) return;
        if (a.length == 1) continue;
        if (rank != 0 && walk[rank - 1].stride == a.stride * static_cast<std::ptrdiff_t>(a.length)) {
            walk[rank - 1] = {walk[rank - 1].length * a.length, a.stride};
        } else {
            walk[rank++] = a;
        }
    }
    if (rank == 0) walk[rank++] = {1, 1};

    const strided_axis inner = walk[rank - 1];
    std::array<std::size_t, N + 1> index{};
    std::size_t outer = 1;
    for (std::size_t r = 0; r + 1 < rank; ++r) outer *= walk[r].length;
    for (std::size_t o = 0; o < outer; ++o) {
        std::ptrdiff_t offset = 0;
        for (std::size_t r = 0; r + 1 < rank; ++r)
            offset += static_cast<std::ptrdiff_t>(index[r]) * walk[r].stride;
        const T* from = src + offset;
        if (inner.stride == 1) {
            for (std::size_t i = 0; i < inner.length; ++i) dst[i] = from[i];
        } else {
            for (std::size_t i = 0; i < inner.length; ++i)
                dst[i] = from[static_cast<std::ptrdiff_t>(i) * inner.stride];
        }
        dst += inner.length;
        for (std::size_t r = rank - 1; r-- > 0;) {
            if (++index[r] < walk[r].length) break;
            index[r] = 0;
        }
    }
}

} // namespace ctein::kernels
