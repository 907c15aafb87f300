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
#include <string_view>
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

    using mapping_type = typename type::mapping_type;

    /// The result's mapping, from the lengths of the recipe's axes and the input's strides.
    static constexpr mapping_type
    mapping_for(const std::array<std::size_t, plan::max_axes>& lengths,
                const std::array<std::ptrdiff_t, plan::max_dims>& input_strides) {
        std::array<std::size_t, plan::max_dims> all_extents{};
        plan::output_extents(R, lengths, all_extents);
        std::array<std::size_t, extents_type::rank()> values{};
        for (std::size_t k = 0; k < values.size(); ++k) values[k] = all_extents[k];
        const extents_type extents = extents_type::from_all(values);
        if constexpr (kind == plan::view_kind::contiguous) {
            return mapping_type(extents);
        } else {
            std::array<std::ptrdiff_t, plan::max_axes> strides{};
            plan::axis_strides(R, input_strides, lengths, strides);
            if constexpr (kind == plan::view_kind::strided) {
                std::array<std::ptrdiff_t, extents_type::rank()> out_strides{};
                for (std::size_t k = 0; k < extents_type::rank(); ++k) {
                    const plan::group g = R.output_dims[k];
                    out_strides[k] = g.count == 0 ? 0 : strides[R.output_axes[g.first + g.count - 1]];
                }
                return mapping_type(extents, out_strides);
            } else {
                std::array<strided_axis, layout_type::axis_count> axes{};
                for (std::size_t i = 0; i < layout_type::axis_count; ++i)
                    axes[i] = {lengths[R.output_axes[i]], strides[R.output_axes[i]]};
                return mapping_type(extents, axes);
            }
        }
    }

    /// A contiguous input with static extents and constant lengths: the whole mapping is a
    /// constant, so the pattern costs the program (and the code generator) nothing.
    static constexpr bool constant =
        std::is_same_v<typename V::layout_type, layout_right> && V::extents_type::is_static() && [] {
            for (std::size_t a = 0; a < R.axis_count; ++a)
                if (R.lengths[a] == dyn) return false;
            return true;
        }();

    static constexpr std::array<std::ptrdiff_t, plan::max_dims> row_major_strides() {
        std::array<std::ptrdiff_t, plan::max_dims> strides{};
        std::ptrdiff_t stride = 1;
        for (std::size_t k = V::rank(); k-- > 0;) {
            strides[k] = stride;
            stride *= static_cast<std::ptrdiff_t>(V::extents_type::static_extent(k));
        }
        return strides;
    }

    static type make(const V& input, const std::array<std::size_t, plan::max_axes>& lengths) {
        std::array<std::ptrdiff_t, plan::max_dims> input_strides{};
        for (std::size_t k = 0; k < V::rank(); ++k) input_strides[k] = input.stride(k);
        return type(input.data(), mapping_for(lengths, input_strides));
    }
    static type make_constant(const V& input) {
        static constexpr mapping_type mapping = mapping_for(R.lengths, row_major_strides());
        return type(input.data(), mapping);
    }
};

/// What rearrange and repeat share: both plan `Pattern` for their input and return a view of it.
template <fixed_string Pattern, plan::operation Op, class X, class... Lengths>
constexpr auto view_operation(std::string_view operation, X&& x, Lengths... lengths) {
    using V = view_of<X>;
    if constexpr (!can_view_without_copy<X&&>()) {
        return failed_operation{};
    } else {
        using plan = planned<Pattern, Op, V, Lengths...>;
        if constexpr (plan::error) {
            report<plan::error>();
            return failed_operation{};
        } else {
            using result = rearranged<plan::recipe, V>;
            const V input = as_view(x);
            if constexpr (result::constant) {
                return result::make_constant(input); // the compiler has checked and solved everything
            } else {
                return result::make(
                    input, solve_at_run_time<plan::recipe>(operation, Pattern.view(), input, lengths...));
            }
        }
    }
}

/// The mistake a view operation's planner finds in a call, reported at the call on g++ (core/
/// diagnose.hpp); none when the input cannot be read or viewed, which the body reports.
template <fixed_string Pattern, plan::operation Op, class X, class... Lengths>
struct view_operation_error {
    static constexpr diagnostic value = [] {
        if constexpr (!viewable<X>) { // substituted before the overload's constraints are checked
            return diagnostic{};
        } else if constexpr (failed_view<view_of<X>>) {
            return diagnostic{};
        } else if constexpr (!borrowable<X> || !view_of<X>::is_strided) {
            return diagnostic{};
        } else {
            return planned<Pattern, Op, view_of<X>, Lengths...>::error;
        }
    }();
};
template <fixed_string Pattern, plan::operation Op, class X, class... Lengths>
inline constexpr const diagnostic& view_operation_error_v =
    view_operation_error<Pattern, Op, X, Lengths...>::value;

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
requires(
    !detail::fails_at_call<detail::view_operation_error_v<
        Pattern, plan::operation::rearrange, X&&, Lengths...>>) constexpr auto rearrange(X&& x,
                                                                                         Lengths... lengths) {
    return detail::view_operation<Pattern, plan::operation::rearrange>("rearrange", std::forward<X>(x),
                                                                       lengths...);
}
/// A mistaken rearrange, reported at the caller's line (g++).
template <fixed_string Pattern, viewable X, axis_length_type... Lengths,
          class Mistake = detail::reported_at_call<
              detail::view_operation_error_v<Pattern, plan::operation::rearrange, X&&, Lengths...>>>
requires detail::fails_at_call<
    detail::view_operation_error_v<Pattern, plan::operation::rearrange, X&&, Lengths...>>
    Mistake rearrange(X&& x, Lengths... lengths)
= delete;

} // namespace ctein
