// What every pattern operation shares at its entry point: the recipe, made once per
// (pattern, input type, given lengths) in the compiler; the error report when it fails; the
// run-time solve of dynamic lengths; and the value returned after a compile error.
#pragma once

#include "../core/axis_length.hpp"
#include "../core/diagnose.hpp"
#include "../core/shape_text.hpp"
#include "../plan/recipe.hpp"
#include "../plan/view_plan.hpp"
#include "as_view.hpp"
#include "eval.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace ctein::detail {

/// What the compiler knows of a view type, for the planner.
template <class V>
constexpr plan::operand operand_of() {
    plan::operand o;
    o.rank = V::rank();
    for (std::size_t r = 0; r < V::rank() && r < plan::max_dims; ++r)
        o.extents[r] = V::extents_type::static_extent(r);
    o.names = V::names.view();
    o.floating_point = std::is_floating_point_v<typename V::value_type>;
    return o;
}

/// The recipe of `Pattern` for operation `Op` (a reduce's reduction named `Reduction`) on views
/// of type V with given lengths `Lengths`.
template <fixed_string Pattern, plan::operation Op, fixed_string Reduction, class V, class... Lengths>
struct planned_as {
    static constexpr std::array<plan::given_length, sizeof...(Lengths)> given{
        plan::given_length{Lengths::name.view(), Lengths::static_value}...};
    static constexpr plan::recipe recipe =
        plan::make_recipe(Pattern.view(), Op, operand_of<V>(), given, Reduction.view());
    static constexpr diagnostic error = recipe.error;
};
template <fixed_string Pattern, plan::operation Op, class V, class... Lengths>
using planned = planned_as<Pattern, Op, "", V, Lengths...>;

/// The shape of a view as einops prints it: `(2, 3)`.
template <class V>
std::string shape_text(const V& v) {
    std::array<std::size_t, V::rank()> shape{};
    for (std::size_t r = 0; r < V::rank(); ++r) shape[r] = v.extent(r);
    bounded_string<8 * plan::max_dims> text;
    append_python_tuple(text, shape);
    return std::string(text.view());
}

/// What the program knows of a view: its actual extents.
template <class V>
plan::operand actual_operand(const V& v) {
    plan::operand o = operand_of<V>();
    for (std::size_t r = 0; r < V::rank(); ++r) o.extents[r] = v.extent(r);
    return o;
}

/// Whether an operation can return a view of X; if not, reports why (as_view's failure, a
/// temporary that would leave the view dangling, or a grouped view that has no single stride
/// per axis) as one compile error.
template <class X>
constexpr bool can_view_without_copy() {
    using V = view_of<X>;
    if constexpr (!can_borrow<X>()) {
        return false;
    } else if constexpr (!V::is_strided) {
        static_assert(always_false<V>, "ctein: the input merges axes that are not adjacent in memory; "
                                       "materialise it with ctein::eval first");
        return false;
    } else {
        return true;
    }
}

/// A strided view of x, or for a grouped view (which has no single stride per axis) a
/// contiguous copy: what operations that compute a new tensor read.
template <class X>
decltype(auto) strided_or_copy(X& x) {
    if constexpr (view_of<X>::is_strided) {
        return as_view(x);
    } else {
        return eval(x);
    }
}

/// x, or for an element-wise expression the tensor it evaluates to: for operations that read some
/// operands in place whatever their layout (attention's k and v).
template <class X>
decltype(auto) evaluated_if_computed(X&& x) {
    if constexpr (computed<X>) {
        return eval(x);
    } else {
        return std::forward<X>(x);
    }
}

/// The context line of a run-time error: the operation, its pattern, the input shape, the lengths.
template <class V, class... Lengths>
std::string error_context(std::string_view operation, std::string_view pattern, const V& input,
                          const Lengths&... lengths) {
    std::string context = " while processing " + std::string(operation) + " pattern \"" +
                          std::string(pattern) + "\" on a tensor of shape " + shape_text(input);
    ((context += ", " + std::string(Lengths::name.view()) + "=" + std::to_string(lengths.value())), ...);
    return context;
}

/// The lengths of the recipe's axes for this input and these lengths, solved at run time by the
/// function the compiler used; throws ctein::shape_error where dynamic extents disagree.
template <const plan::recipe& R, class V, class... Lengths>
std::array<std::size_t, plan::max_axes> solve_at_run_time(std::string_view operation,
                                                          std::string_view pattern, const V& input,
                                                          const Lengths&... lengths) {
    std::array<std::size_t, plan::max_dims> extents{};
    for (std::size_t r = 0; r < V::rank(); ++r) extents[r] = input.extent(r);
    const std::array<std::size_t, plan::max_axes> given{lengths.value()...};
    std::array<std::size_t, plan::max_axes> axis_lengths{};
    if (diagnostic d = plan::solve_lengths(R, extents, given, axis_lengths))
        throw_error(d, error_context(operation, pattern, input, lengths...));
    return axis_lengths;
}

/// extents<...> of a plan's output (a recipe, an einsum plan...): static where the compiler
/// solved the length.
template <const auto& R, std::size_t... K>
auto output_extents_type(std::index_sequence<K...>) -> extents<R.output_extents[K]...>;
template <const auto& R>
using output_extents_t = decltype(output_extents_type<R>(std::make_index_sequence<R.output_rank>{}));

/// The extents of the recipe's output for these lengths of its axes.
template <const plan::recipe& R>
output_extents_t<R> output_extents_for(const std::array<std::size_t, plan::max_axes>& lengths) {
    std::array<std::size_t, plan::max_dims> all{};
    plan::output_extents(R, lengths, all);
    std::array<std::size_t, R.output_rank> values{};
    for (std::size_t k = 0; k < R.output_rank; ++k) values[k] = all[k];
    return output_extents_t<R>::from_all(values);
}

/// The stride in `input`'s memory of each of the recipe's axes (0 for axes new on the right).
template <const plan::recipe& R, class V>
std::array<std::ptrdiff_t, plan::max_axes>
axis_strides_in(const V& input, const std::array<std::size_t, plan::max_axes>& lengths) {
    std::array<std::ptrdiff_t, plan::max_dims> input_strides{};
    for (std::size_t k = 0; k < V::rank(); ++k) input_strides[k] = input.stride(k);
    std::array<std::ptrdiff_t, plan::max_axes> strides{};
    plan::axis_strides(R, input_strides, lengths, strides);
    return strides;
}

/// The axis names of a plan's output, as a type-level string.
template <const auto& R>
inline constexpr auto output_names = fixed_string<R.output_names.size()>(R.output_names.view());

} // namespace ctein::detail
