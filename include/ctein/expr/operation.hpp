// What every pattern operation shares at its entry point: the recipe, made once per
// (pattern, input type, given lengths) in the compiler; the error report when it fails; the
// run-time solve of dynamic lengths; and the value returned after a compile error.
#pragma once

#include "../core/axis_length.hpp"
#include "../core/diagnose.hpp"
#include "../plan/recipe.hpp"
#include "as_view.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace ctein::detail {

/// What the compiler knows of a view type, for the planner.
template <class V>
constexpr plan::operand operand_of() {
    plan::operand o;
    o.rank = V::rank();
    for (std::size_t r = 0; r < V::rank() && r < plan::max_dims; ++r)
        o.extents[r] = V::extents_type::static_extent(r);
    o.names = V::names.view();
    return o;
}

/// The recipe of `Pattern` for operation `Op` on views of type V with given lengths `Lengths`.
template <fixed_string Pattern, plan::operation Op, class V, class... Lengths>
struct planned {
    static constexpr std::array<plan::given_length, sizeof...(Lengths)> given{
        plan::given_length{Lengths::name.view(), Lengths::static_value}...};
    static constexpr plan::recipe recipe = plan::make_recipe(Pattern.view(), Op, operand_of<V>(), given);
    static constexpr diagnostic error = recipe.error;
};

/// The context line of a run-time error: the operation, its pattern, the input shape, the lengths.
template <class V, class... Lengths>
std::string error_context(std::string_view operation, std::string_view pattern, const V& input,
                          const Lengths&... lengths) {
    std::string context = " while processing " + std::string(operation) + " pattern \"" +
                          std::string(pattern) + "\" on a tensor of shape (";
    for (std::size_t r = 0; r < V::rank(); ++r)
        context += (r == 0 ? "" : ", ") + std::to_string(input.extent(r)) + (V::rank() == 1 ? "," : "");
    context += ")";
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

/// extents<...> of the recipe's output: static where the compiler solved the length.
template <const plan::recipe& R, std::size_t... K>
auto output_extents_type(std::index_sequence<K...>) -> extents<R.output_extents[K]...>;
template <const plan::recipe& R>
using output_extents_t = decltype(output_extents_type<R>(std::make_index_sequence<R.output_rank>{}));

/// The axis names of the recipe's output, as a type-level string.
template <const plan::recipe& R>
inline constexpr auto output_names = fixed_string<R.output_names.size()>(R.output_names.view());

} // namespace ctein::detail
