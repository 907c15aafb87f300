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

/// Gives the length of an axis: `ctein::len<"h", 8>` (checked at compile time) or
/// `ctein::len<"t">(n)` (checked at run time).
///
///     auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
///     auto w = ctein::rearrange<"(b t) c -> b t c">(y, ctein::len<"t">(tokens));
template <fixed_string Name, std::size_t N = dyn>
inline constexpr std::conditional_t<N == dyn, axis_length_of<Name>, axis_length<Name, N>> len{};

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
