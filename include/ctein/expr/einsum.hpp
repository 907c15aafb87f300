// einsum: einops' einsum with the pattern checked by the compiler ("b h q d, b h k d -> b h q k":
// multi-letter axis names, `_`, the ellipsis), computed by the reference contraction into a new
// contiguous tensor named by the right side.
#pragma once

#include "../kernels/einsum_reference.hpp"
#include "../plan/einsum_plan.hpp"
#include "as_view.hpp"
#include "operation.hpp"
#include "tensor.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

namespace ctein {
namespace detail {

template <fixed_string Pattern, class... V>
struct einsum_planned {
    static constexpr std::array<plan::operand, sizeof...(V)> operands{operand_of<V>()...};
    static constexpr plan::einsum_plan plan = plan::make_einsum_plan(Pattern.view(), operands);
    static constexpr diagnostic error = plan.error;
};

/// The plan for the operands' actual extents: the compiler's own when every extent is static,
/// otherwise made again by the same function, throwing ctein::shape_error where they disagree.
template <fixed_string Pattern, const plan::einsum_plan& P, class... V>
plan::einsum_plan einsum_plan_at_run_time(const V&... input) {
    if constexpr ((V::extents_type::rank_dynamic() + ... + 0) == 0) {
        return P;
    } else {
        const std::array<plan::operand, sizeof...(V)> operands{actual_operand(input)...};
        const plan::einsum_plan actual = plan::make_einsum_plan(Pattern.view(), operands);
        if (actual.error) {
            std::string shapes;
            ((shapes += (shapes.empty() ? "" : ", ") + shape_text(input)), ...);
            throw_error(actual.error, " while processing einsum pattern \"" + std::string(Pattern.view()) +
                                          "\" on tensors of shapes " + shapes);
        }
        return actual;
    }
}

template <fixed_string Pattern, class... V>
auto einsum_of_views(const V&... input) {
    using T = std::common_type_t<typename V::value_type...>;
    using planned = einsum_planned<Pattern, V...>;
    constexpr const plan::einsum_plan& P = planned::plan;
    const plan::einsum_plan actual = einsum_plan_at_run_time<Pattern, planned::plan>(input...);
    std::array<std::size_t, P.output_rank> values{};
    for (std::size_t k = 0; k < P.output_rank; ++k) values[k] = actual.output_extents[k];
    using result_extents = output_extents_t<planned::plan>;
    tensor_of<T, output_names<planned::plan>, result_extents> out(result_extents::from_all(values));

    constexpr std::size_t n = sizeof...(V);
    const std::array<const T*, n> data{input.data()...};
    std::array<std::array<std::ptrdiff_t, plan::max_axes>, n> strides{};
    std::size_t i = 0;
    const auto read_strides = [&](const auto& v) {
        for (std::size_t k = 0; k < v.rank(); ++k) {
            const std::size_t a = P.operand_axes[i][k];
            const bool broadcast = v.extent(k) == 1 && actual.lengths[a] != 1;
            strides[i][a] += broadcast ? 0 : v.stride(k);
        }
        ++i;
    };
    (read_strides(input), ...);
    std::array<std::size_t, plan::max_axes> output_axes{}, summed_axes{};
    std::size_t summed = 0;
    for (std::size_t k = 0; k < P.output_rank; ++k) output_axes[k] = P.output_axes[k];
    for (std::size_t a = 0; a < P.axis_count; ++a)
        if (!P.in_output(a)) summed_axes[summed++] = a;
    kernels::einsum_reference<T>(data, strides, std::span(actual.lengths).first(P.axis_count),
                                 std::span<const std::size_t>(output_axes).first(P.output_rank),
                                 std::span<const std::size_t>(summed_axes).first(summed), out.data());
    return out;
}

} // namespace detail

/// einops' einsum: `ctein::einsum<"b h q d, b h k d -> b h q k">(q, k)`. Axis names may have
/// several letters; a name repeated in one operand walks its diagonal (`i i -> i`); axes missing
/// from the right side are summed; `...` stands for the same leading axes in every operand
/// (aligned from the right; a length 1 broadcasts). Groups, units and numbers are not allowed,
/// as in einops. The pattern's names are its own (operand names are not checked): the result is
/// a new contiguous `ctein::tensor` named by the right side, with static extents where the
/// operands have them. Mistakes are compile errors with einops' messages (or numpy's, for the
/// operand count), and run-time `ctein::shape_error`s for dynamic extents.
///
///     auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k);
///     auto out = ctein::einsum<"b h q k, b h k d -> b h q d">(weights, v);
template <fixed_string Pattern, viewable... X>
auto einsum(X&&... x) {
    using planned = detail::einsum_planned<Pattern, view_of<X>...>;
    if constexpr ((detail::failed_view<view_of<X>> || ...)) {
        return detail::failed_operation{}; // as_view has reported why it cannot read an operand
    } else if constexpr (!(view_of<X>::is_strided && ...)) {
        return einsum<Pattern>(detail::strided_or_copy(x)...);
    } else if constexpr (planned::error) {
        detail::report<planned::error>();
        return detail::failed_operation{};
    } else {
        using first = std::tuple_element_t<0, std::tuple<view_of<X>...>>;
        static_assert((std::is_same_v<typename view_of<X>::value_type, typename first::value_type> && ...),
                      "ctein::einsum: the operands must have the same element type");
        return detail::einsum_of_views<Pattern>(as_view(x)...);
    }
}

} // namespace ctein
