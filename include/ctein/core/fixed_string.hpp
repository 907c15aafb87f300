// fixed_string: a string literal usable as a template argument (C++20 class-type NTTP).
// Patterns and axis names enter ctein through it; everything above `core/` reads them as
// std::string_view and parses them in constexpr code.
#pragma once

#include <cstddef>
#include <string_view>

namespace ctein {

/// A string of `N` characters (plus a terminating NUL) that can be a template argument.
///
///     template <ctein::fixed_string P> void f();
///     f<"b s (h d) -> b h s d">();
template <std::size_t N>
struct fixed_string {
    char chars[N + 1]{};

    constexpr fixed_string() = default;
    constexpr fixed_string(const char (&text)[N + 1]) noexcept {
        for (std::size_t i = 0; i < N; ++i) chars[i] = text[i];
    }
    /// Copies the first N characters of `text`; used to turn computed strings into types.
    constexpr explicit fixed_string(std::string_view text) noexcept {
        for (std::size_t i = 0; i < N && i < text.size(); ++i) chars[i] = text[i];
    }

    static constexpr std::size_t size() noexcept { return N; }
    constexpr std::string_view view() const noexcept { return {chars, N}; }
    constexpr operator std::string_view() const noexcept { return view(); }

    template <std::size_t M>
    constexpr bool operator==(const fixed_string<M>& other) const noexcept {
        return view() == other.view();
    }
};

template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N - 1>;

} // namespace ctein
