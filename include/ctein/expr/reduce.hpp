// reduce: einops' reduce with the pattern checked by the compiler, computed by the vectorised
// reduction kernel into a new contiguous tensor.
#pragma once

#include "../core/reduction.hpp"
#include "../kernels/reduce.hpp"
#include "eval.hpp"
#include "operation.hpp"
#include "tensor.hpp"

#include <array>
#include <cstddef>
#include <utility>

namespace ctein {
namespace detail {

/// "sum-reduction": how einops names a reduce in the context of its errors.
template <fixed_string Reduction>
inline constexpr auto reduction_context = [] {
    constexpr std::string_view suffix = "-reduction";
    fixed_string<Reduction.size() + suffix.size()> out;
    for (std::size_t i = 0; i < Reduction.size(); ++i) out.chars[i] = Reduction.chars[i];
    for (std::size_t i = 0; i < suffix.size(); ++i) out.chars[Reduction.size() + i] = suffix[i];
    return out;
}();

/// Reduces `input` as the recipe says: the kept axes walked in output order, the reduced ones
/// (those not on the right) folded by the kernel.
template <const plan::recipe& R, reduction Reduction, class V>
auto reduce_into_tensor(const V& input, const std::array<std::size_t, plan::max_axes>& lengths) {
    tensor_of<typename V::value_type, output_names<R>, output_extents_t<R>> out(
        output_extents_for<R>(lengths));
    const auto strides = axis_strides_in<R>(input, lengths);
    std::array<strided_axis, R.output_axis_count> kept{};
    for (std::size_t i = 0; i < kept.size(); ++i)
        kept[i] = {lengths[R.output_axes[i]], strides[R.output_axes[i]]};
    constexpr std::size_t reduced_count = [] {
        std::size_t n = 0;
        for (std::size_t a = 0; a < R.axis_count; ++a) n += R.axes[a].on_right ? 0 : 1;
        return n;
    }();
    std::array<strided_axis, reduced_count> reduced{};
    for (std::size_t a = 0, i = 0; a < R.axis_count; ++a)
        if (!R.axes[a].on_right) reduced[i++] = {lengths[a], strides[a]};
    kernels::reduce_strided<Reduction>(input.data(), kept, reduced, out.data());
    return out;
}

/// The mistake reduce's planner finds in a call, reported at the call on g++ (core/diagnose.hpp).
template <fixed_string Pattern, fixed_string Reduction, class X, class... Lengths>
struct reduce_error {
    static constexpr diagnostic value = [] {
        if constexpr (!viewable<X>) { // substituted before the overload's constraints are checked
            return diagnostic{};
        } else if constexpr (failed_view<view_of<X>>) {
            return diagnostic{};
        } else {
            return planned_as<Pattern, plan::operation::reduce, Reduction, view_of<X>, Lengths...>::error;
        }
    }();
};
} // namespace detail

/// Reduces `x` over the axes that `Pattern` drops from its right side, with einops' reduction
/// named `Reduction`: "sum", "mean", "max", "min", "prod", "any" or "all". Checked at compile
/// time like `ctein::rearrange` (anonymous axes on the left, such as `(h 2)`, are reduced away;
/// `()` or `1` on the right keeps a unit axis); the result is a new contiguous `ctein::tensor`
/// named by the right side. A mean of integers or booleans is a compile error, as in einops.
///
///     ctein::tensor<float, "b h s d", 2, 8, 128, 64> scores;
///     auto per_token = ctein::reduce<"b h s d -> b s d", "mean">(scores);        // 2 x 128 x 64
///     auto pooled = ctein::reduce<"b c (h 2) (w 2) -> b c h w", "max">(image);   // 2x2 max pool
template <fixed_string Pattern, fixed_string Reduction, viewable X, axis_length_type... Lengths>
requires(!detail::fails_at_call<detail::reduce_error<Pattern, Reduction, X, Lengths...>::value>) auto reduce(
    X&& x, Lengths... lengths) {
    using V = view_of<X>;
    if constexpr (detail::failed_view<V>) {
        return V{}; // as_view has reported why it cannot read X
    } else if constexpr (!V::is_strided) {
        return reduce<Pattern, Reduction>(detail::strided_or_copy(x), lengths...);
    } else {
        using plan = detail::planned_as<Pattern, plan::operation::reduce, Reduction, V, Lengths...>;
        if constexpr (plan::error) {
            detail::report<plan::error>();
            return detail::failed_operation{};
        } else {
            const V input = as_view(x);
            const auto axis_lengths = detail::solve_at_run_time<plan::recipe>(
                detail::reduction_context<Reduction>.view(), Pattern.view(), input, lengths...);
            return detail::reduce_into_tensor<plan::recipe, *reduction_named(Reduction.view())>(input,
                                                                                                axis_lengths);
        }
    }
}

/// A mistaken reduce, reported at the caller's line (g++).
template <fixed_string Pattern, fixed_string Reduction, viewable X, axis_length_type... Lengths,
          class Mistake =
              detail::reported_at_call<detail::reduce_error<Pattern, Reduction, X, Lengths...>::value>>
requires detail::fails_at_call<detail::reduce_error<Pattern, Reduction, X, Lengths...>::value>
    Mistake reduce(X&& x, Lengths... lengths)
= delete;

} // namespace ctein
