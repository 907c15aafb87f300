// rearrange: einops' rearrange with the pattern parsed and checked by the compiler. The result
// is a view of the input (no copy) whose type knows its axis names and static extents.
#pragma once

#include "../plan/view_plan.hpp"
#include "as_view.hpp"
#include "layout.hpp"
#include "operation.hpp"
#include "view.hpp"

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace ctein {
namespace detail {

/// The view a successful rearrange recipe makes of an input view V.
template <const plan::recipe& R, class V>
struct rearranged {
    static constexpr plan::view_kind kind =
        plan::view_kind_of(R, std::is_same_v<typename V::layout_type, layout_right>);

    template <std::size_t... K>
    static auto grouped_layout(std::index_sequence<K...>) -> layout_grouped<R.output_dims[K].count...>;

    using extents_type = output_extents_t<R>;
    using layout_type = std::conditional_t<
        kind == plan::view_kind::contiguous, layout_right,
        std::conditional_t<kind == plan::view_kind::strided, layout_stride,
                           decltype(grouped_layout(std::make_index_sequence<R.output_rank>{}))>>;
    using type = view<typename V::element_type, output_names<R>, extents_type, layout_type>;

    static type make(const V& input, const std::array<std::size_t, plan::max_axes>& lengths) {
        std::array<std::size_t, plan::max_dims> out{};
        plan::output_extents(R, lengths, out);
        std::array<std::size_t, extents_type::rank()> out_extents{};
        for (std::size_t k = 0; k < extents_type::rank(); ++k) out_extents[k] = out[k];
        const auto extents = extents_type::from_all(out_extents);
        if constexpr (kind == plan::view_kind::contiguous) {
            return type(input.data(), extents);
        } else {
            std::array<std::ptrdiff_t, plan::max_dims> input_strides{};
            for (std::size_t k = 0; k < V::rank(); ++k) input_strides[k] = input.stride(k);
            std::array<std::ptrdiff_t, plan::max_axes> strides{};
            plan::axis_strides(R, input_strides, lengths, strides);
            if constexpr (kind == plan::view_kind::strided) {
                std::array<std::ptrdiff_t, extents_type::rank()> out_strides{};
                for (std::size_t k = 0; k < extents_type::rank(); ++k) {
                    const plan::group g = R.output_dims[k];
                    out_strides[k] = g.count == 0 ? 0 : strides[R.output_axes[g.first + g.count - 1]];
                }
                return type(input.data(), typename type::mapping_type(extents, out_strides));
            } else {
                std::array<strided_axis, layout_type::axis_count> axes{};
                for (std::size_t i = 0; i < layout_type::axis_count; ++i)
                    axes[i] = {lengths[R.output_axes[i]], strides[R.output_axes[i]]};
                return type(input.data(), typename type::mapping_type(extents, axes));
            }
        }
    }
};

} // namespace detail

/// Rearranges the axes of `x` as `Pattern` says: einops' rearrange, with the pattern parsed and
/// checked at compile time. Lengths the pattern cannot infer are given as `ctein::len<"h", 8>`
/// (a constant) or `ctein::len<"t">(n)` (a run-time value).
///
/// The result is a view of `x` (no copy) whose type carries the pattern's axis names and every
/// extent the compiler could work out; `ctein::eval` copies it into a contiguous tensor. A
/// mistake is a compile error with einops' message; with dynamic extents, a mismatch throws
/// `ctein::shape_error` with the same message. If `x` has axis names, the left side of the
/// pattern must match them.
///
///     ctein::tensor<float, "b s c", 2, 128, 512> x;
///     auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);  // 2 x 8 x 128 x 64
///     auto m = ctein::rearrange<"b h s d -> b s (h d)">(q);                         // back to 2 x 128 x 512
template <fixed_string Pattern, viewable X, axis_length_type... Lengths>
constexpr auto rearrange(X&& x, Lengths... lengths) {
    using V = view_of<X>;
    if constexpr (detail::failed_view<V>) {
        return V{}; // as_view has reported why it cannot read X
    } else if constexpr (!borrowable<X&&>) {
        static_assert(detail::always_false<V>,
                      "ctein::rearrange: the result would view a temporary tensor that "
                      "is about to be destroyed; keep the tensor in a variable first");
        return detail::failed_operation{};
    } else if constexpr (!V::is_strided) {
        static_assert(detail::always_false<V>,
                      "ctein::rearrange: the input merges axes that are not adjacent in "
                      "memory; materialise it with ctein::eval first");
        return detail::failed_operation{};
    } else {
        using planned = detail::planned<Pattern, plan::operation::rearrange, V, Lengths...>;
        if constexpr (planned::error) {
            detail::report<planned::error>();
            return detail::failed_operation{};
        } else {
            const V input = as_view(x);
            const auto axis_lengths =
                detail::solve_at_run_time<planned::recipe>("rearrange", Pattern.view(), input, lengths...);
            return detail::rearranged<planned::recipe, V>::make(input, axis_lengths);
        }
    }
}

} // namespace ctein
