// parse_shape: einops' parse_shape, the lengths of a tensor's dimensions by the names a pattern
// gives them ("b _ h w"), static where the tensor's extents are.
#pragma once

#include "../core/axis_length.hpp"
#include "../core/text_search.hpp"
#include "../plan/parse_shape_plan.hpp"
#include "as_view.hpp"
#include "operation.hpp"

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace ctein {

/// Named lengths: `get<"h">()` gives one, `lengths()` all of them as `ctein::axis_length`s that
/// rearrange, reduce and repeat take (`std::apply`). Extents is static where the compiler knew.
template <fixed_string Names, extents_type Extents>
class parsed_shape {
public:
    using extents_type = Extents;
    static constexpr auto names = Names;

    constexpr explicit parsed_shape(const Extents& lengths) noexcept
        : lengths_(lengths) {}

    static constexpr std::size_t size() noexcept { return Extents::rank(); }

    /// The length of the axis named `Name`; a compile error if the pattern has no such name.
    template <fixed_string Name>
    constexpr std::size_t get() const noexcept {
        constexpr std::size_t at = index_of(Name.view());
        static_assert(at != size(), "ctein::parsed_shape::get: the pattern names no such axis");
        return lengths_.extent(at);
    }
    /// The length of the axis named `name`; throws std::out_of_range if there is none.
    std::size_t operator[](std::string_view name) const {
        const std::size_t at = index_of(name);
        if (at == size()) throw std::out_of_range("ctein::parsed_shape: no axis named " + std::string(name));
        return lengths_.extent(at);
    }
    /// Every length as a `ctein::axis_length`, constant where the extent is static:
    ///     std::apply([&](auto... l) { return ctein::rearrange<"b (h w) c -> b h w c">(y, l...); },
    ///     s.lengths());
    constexpr auto lengths() const noexcept { return lengths_of(std::make_index_sequence<size()>{}); }

private:
    static constexpr std::string_view name_at(std::size_t k) noexcept {
        std::string_view rest = Names.view();
        for (; k != 0; --k) rest = rest.substr(ctein::detail::find(rest, " ") + 1);
        return rest.substr(0, ctein::detail::find(rest, " "));
    }
    static constexpr std::size_t index_of(std::string_view name) noexcept {
        for (std::size_t k = 0; k < size(); ++k)
            if (name_at(k) == name) return k;
        return size();
    }
    template <std::size_t K>
    static constexpr auto name_type = fixed_string<name_at(K).size()>(name_at(K));
    template <std::size_t... K>
    constexpr auto lengths_of(std::index_sequence<K...>) const noexcept {
        return std::tuple{length_at<K>()...};
    }
    template <std::size_t K>
    constexpr auto length_at() const noexcept {
        if constexpr (Extents::static_extent(K) == dyn) {
            return axis_length<name_type<K>, dyn>{lengths_.extent(K)};
        } else {
            return axis_length<name_type<K>, Extents::static_extent(K)>{};
        }
    }

    Extents lengths_;
};

namespace detail {

template <fixed_string Pattern, class V>
struct parse_shape_planned {
    static constexpr plan::parse_shape_plan plan =
        plan::make_parse_shape_plan(Pattern.view(), operand_of<V>());
    static constexpr diagnostic error = plan.error;
};

template <const plan::parse_shape_plan& P, class V, std::size_t... K>
auto parsed_extents_type(std::index_sequence<K...>) -> extents<V::extents_type::static_extent(P.dims[K])...>;

} // namespace detail

/// einops' parse_shape: the lengths of `x`'s dimensions that `Pattern` names, one entry per
/// dimension (`_` skips one, a number or `1` checks one, `...` skips any number).
///
///     ctein::tensor<float, "", 2, 3, 32, 32> images;
///     auto s = ctein::parse_shape<"b _ h w">(images);
///     s.get<"h">() == 32;   // a constant: decltype(s)::extents_type::static_extent(1) == 32
namespace detail {
/// The mistake parse_shape's planner finds in a call, reported at the call on g++.
template <fixed_string Pattern, class X>
struct parse_shape_error {
    static constexpr diagnostic value = [] {
        if constexpr (!viewable<X> || failed_view<view_of<X>>) {
            return diagnostic{};
        } else {
            return parse_shape_planned<Pattern, view_of<X>>::error;
        }
    }();
};
} // namespace detail

template <fixed_string Pattern, viewable X>
requires(!detail::fails_at_call<detail::parse_shape_error<Pattern, X>::value>) auto parse_shape(X&& x) {
    using V = view_of<X>;
    using planned = detail::parse_shape_planned<Pattern, V>;
    if constexpr (detail::failed_view<V>) {
        return detail::failed_operation{};
    } else if constexpr (planned::error) {
        detail::report<planned::error>();
        return detail::failed_operation{};
    } else {
        const V input = as_view(x);
        if constexpr (V::extents_type::rank_dynamic() != 0) {
            if (const auto actual =
                    plan::make_parse_shape_plan(Pattern.view(), detail::actual_operand(input));
                actual.error)
                throw_error(actual.error, " while processing parse_shape pattern \"" +
                                              std::string(Pattern.view()) + "\" on a tensor of shape " +
                                              detail::shape_text(input));
        }
        constexpr std::size_t count = planned::plan.count;
        using result_extents =
            decltype(detail::parsed_extents_type<planned::plan, V>(std::make_index_sequence<count>{}));
        std::array<std::size_t, count> lengths{};
        for (std::size_t k = 0; k < count; ++k) lengths[k] = input.extent(planned::plan.dims[k]);
        return parsed_shape<detail::output_names<planned::plan>, result_extents>(
            result_extents::from_all(lengths));
    }
}

/// A mistaken parse_shape, reported at the caller's line (g++).
template <fixed_string Pattern, viewable X,
          class Mistake = detail::reported_at_call<detail::parse_shape_error<Pattern, X>::value>>
requires detail::fails_at_call<detail::parse_shape_error<Pattern, X>::value> Mistake parse_shape(X&& x)
= delete;

} // namespace ctein
