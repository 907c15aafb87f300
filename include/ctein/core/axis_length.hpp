// Axis lengths given by the caller, einops' `h=8`: `ctein::len<"h", 8>` is a compile-time
// constant, `ctein::len<"t">(n)` a run-time value.
#pragma once

#include "extents.hpp"
#include "fixed_string.hpp"

#include <cstddef>
#include <type_traits>

namespace ctein {

/// The length of axis `Name`: the constant `N`, or (N == dyn) a value held at run time.
template <fixed_string Name, std::size_t N = dyn>
struct axis_length {
    static constexpr auto name = Name;
    static constexpr std::size_t static_value = N;
    constexpr std::size_t value() const noexcept { return N; }
};

template <fixed_string Name>
struct axis_length<Name, dyn> {
    static constexpr auto name = Name;
    static constexpr std::size_t static_value = dyn;
    std::size_t length = 0;
    constexpr std::size_t value() const noexcept { return length; }
};

/// `ctein::len<"t">` before it is given its run-time value: call it, `ctein::len<"t">(n)`.
template <fixed_string Name>
struct axis_length_of {
    constexpr axis_length<Name, dyn> operator()(std::size_t length) const noexcept { return {length}; }
};

namespace detail {
/// Where "h=8" splits: the length of the name and the value; `dyn` when there is no `=` followed
/// by digits only (then the whole text is the name, and an `=` in it makes an invalid name).
struct length_spelling {
    std::size_t name_size;
    std::size_t value;
};
template <std::size_t N>
constexpr length_spelling spelling_of(const fixed_string<N>& text) {
    const std::string_view s = text.view();
    std::size_t equals = 0;
    while (equals < s.size() && s[equals] != '=') ++equals;
    if (equals + 1 >= s.size()) return {s.size(), dyn};
    std::size_t value = 0;
    for (char c : s.substr(equals + 1)) {
        if (c < '0' || c > '9') return {s.size(), dyn};
        value = value * 10 + static_cast<std::size_t>(c - '0');
    }
    return {equals, value};
}

/// The value `len<Spelling, N>` stands for.
template <fixed_string Spelling, std::size_t N>
constexpr auto length_variable() {
    constexpr length_spelling spelled = spelling_of(Spelling);
    if constexpr (N != dyn) {
        return axis_length<Spelling, N>{};
    } else if constexpr (spelled.value == dyn) {
        return axis_length_of<Spelling>{};
    } else {
        return axis_length<fixed_string<spelled.name_size>(Spelling.view()), spelled.value>{};
    }
}
} // namespace detail

/// Gives the length of an axis as einops' `h=8` does: `ctein::len<"h=8">` or `ctein::len<"h", 8>`
/// (a constant, checked at compile time), or `ctein::len<"t">(n)` (checked at run time).
///
///     auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h=8">);
///     auto k = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", heads>);
///     auto w = ctein::rearrange<"(b t) c -> b t c">(y, ctein::len<"t">(tokens));
template <fixed_string Name, std::size_t N = dyn>
inline constexpr auto len = detail::length_variable<Name, N>();

namespace detail {
template <class T>
struct is_axis_length : std::false_type {};
template <fixed_string Name, std::size_t N>
struct is_axis_length<axis_length<Name, N>> : std::true_type {};
} // namespace detail

/// Satisfied by `ctein::len<"h", 8>` and `ctein::len<"t">(n)`.
template <class T>
concept axis_length_type = detail::is_axis_length<std::remove_cvref_t<T>>::value;

} // namespace ctein
