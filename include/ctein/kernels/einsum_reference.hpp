// The reference contraction: every output element is the sum, over the axes the output drops,
// of the product of the operands. Plain loops, correct for any pattern einsum accepts; the
// GEMM kernels serve the patterns that need speed.
#pragma once

#include <array>
#include <cstddef>
#include <span>

namespace ctein::kernels {

/// `dst` (contiguous, row-major over `output_axes`) gets Σ Π operands[i][offset], where axis `a`
/// has length `lengths[a]` and moves operand i by `strides[i][a]` elements (the sum of the
/// strides of the dimensions it indexes, so a repeated axis walks a diagonal; 0 where the
/// operand does not have it or broadcasts it).
template <class T, std::size_t N, std::size_t A>
void einsum_reference(const std::array<const T*, N>& operands,
                      const std::array<std::array<std::ptrdiff_t, A>, N>& strides,
                      std::span<const std::size_t> lengths, std::span<const std::size_t> output_axes,
                      std::span<const std::size_t> summed_axes, T* dst) {
    std::size_t outputs = 1, terms = 1;
    for (std::size_t a : output_axes) outputs *= lengths[a];
    for (std::size_t a : summed_axes) terms *= lengths[a];
    std::array<std::size_t, A> index{};
    // the offset of each operand at the current index of the axes in `axes`
    const auto offsets = [&](std::span<const std::size_t> axes, std::array<std::ptrdiff_t, N>& out) {
        for (std::size_t i = 0; i < N; ++i) {
            out[i] = 0;
            for (std::size_t a : axes) out[i] += static_cast<std::ptrdiff_t>(index[a]) * strides[i][a];
        }
    };
    const auto advance = [&](std::span<const std::size_t> axes) {
        for (std::size_t k = axes.size(); k-- > 0;) {
            if (++index[axes[k]] < lengths[axes[k]]) return;
            index[axes[k]] = 0;
        }
    };
    std::array<std::ptrdiff_t, N> base{}, inner{};
    for (std::size_t o = 0; o < outputs; ++o, advance(output_axes)) {
        offsets(output_axes, base);
        T sum{};
        for (std::size_t t = 0; t < terms; ++t, advance(summed_axes)) {
            offsets(summed_axes, inner);
            T product = operands[0][base[0] + inner[0]];
            for (std::size_t i = 1; i < N; ++i) product = product * operands[i][base[i] + inner[i]];
            sum = sum + product;
        }
        dst[o] = sum;
    }
}

} // namespace ctein::kernels
