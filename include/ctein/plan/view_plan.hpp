// How a rearrange recipe becomes a view of its input, with no copy: which layout the result
// needs (decided at compile time from the recipe), and the strides of its axes (at run time).
#pragma once

#include "recipe.hpp"

#include <cstddef>
#include <span>

namespace ctein::plan {

/// The layout a rearranged view needs: `contiguous` for a pure reshape of contiguous memory,
/// `strided` when every output dimension is one stride (permutations, splits, merges of axes
/// adjacent in memory), `grouped` when some output dimension merges axes that are not.
enum class view_kind : unsigned char { contiguous, strided, grouped };

/// The input dimension that elementary axis `a` comes from.
constexpr std::size_t input_dim_of(const recipe& r, std::size_t a) noexcept {
    for (std::size_t k = 0; k < r.input_rank; ++k)
        if (a < std::size_t{r.input_dims[k].first} + r.input_dims[k].count) return k;
    return r.input_rank;
}

/// Whether output dimension `k` is a single stride: each axis follows the previous one in
/// memory, within one input dimension or, for contiguous inputs, across neighbouring ones.
constexpr bool merges(const recipe& r, std::size_t k, bool input_contiguous) noexcept {
    const group g = r.output_dims[k];
    for (std::size_t i = 1; i < g.count; ++i) {
        const std::size_t a = r.output_axes[g.first + i - 1];
        const std::size_t b = r.output_axes[g.first + i];
        if (b != a + 1 || !r.axes[a].on_left || !r.axes[b].on_left) return false;
        if (!input_contiguous && input_dim_of(r, a) != input_dim_of(r, b)) return false;
    }
    return true;
}

constexpr view_kind view_kind_of(const recipe& r, bool input_contiguous) noexcept {
    for (std::size_t k = 0; k < r.output_rank; ++k)
        if (!merges(r, k, input_contiguous)) return view_kind::grouped;
    if (!input_contiguous) return view_kind::strided;
    for (std::size_t i = 0; i < r.output_axis_count; ++i)
        if (r.output_axes[i] != i || !r.axes[i].on_left) return view_kind::strided;
    return r.output_axis_count == r.axis_count ? view_kind::contiguous : view_kind::strided;
}

/// The stride of every elementary axis, from the strides of the input dimensions: the last axis
/// of a dimension keeps its stride, each one before it steps over the axes after it.
constexpr void axis_strides(const recipe& r, std::span<const std::ptrdiff_t> input_strides,
                            std::span<const std::size_t> lengths,
                            std::span<std::ptrdiff_t> strides) noexcept {
    for (std::size_t k = 0; k < r.input_rank; ++k) {
        std::ptrdiff_t stride = input_strides[k];
        for (std::size_t i = r.input_dims[k].count; i-- > 0;) {
            const std::size_t a = r.input_dims[k].first + i;
            strides[a] = stride;
            stride *= static_cast<std::ptrdiff_t>(lengths[a]);
        }
    }
    for (std::size_t a = 0; a < r.axis_count; ++a)
        if (!r.axes[a].on_left) strides[a] = 0; // new axes repeat what they are added to
}

} // namespace ctein::plan
