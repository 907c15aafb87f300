// bounded_string: a fixed-capacity string that constexpr code can build, copy and return.
// Error messages and the axis names of result types are composed in it, at compile time and
// at run time by the same code.
#pragma once

#include <cstddef>
#include <string_view>

namespace ctein {

/// Characters in a fixed array with a length; appending past the capacity truncates and
/// marks the string with a trailing "..." so a cut message is never mistaken for a whole one.
///
///     ctein::bounded_string<64> s;
///     s.append("expected ");
///     s.append_number(4);          // s.view() == "expected 4"
template <std::size_t Capacity>
struct bounded_string {
    char chars[Capacity]{};
    std::size_t length = 0;

    constexpr bounded_string() = default;
    constexpr bounded_string(std::string_view text) noexcept { append(text); }

    constexpr std::string_view view() const noexcept { return {chars, length}; }
    constexpr std::size_t size() const noexcept { return length; }
    constexpr bool empty() const noexcept { return length == 0; }

    constexpr void push_back(char c) noexcept {
        if (length < Capacity) {
            chars[length++] = c;
        } else {
            for (std::size_t i = Capacity - 3; i < Capacity; ++i) chars[i] = '.';
        }
    }
    constexpr void append(std::string_view text) noexcept {
        for (char c : text) push_back(c);
    }
    constexpr void append_number(std::size_t value) noexcept {
        char digits[24]{};
        std::size_t n = 0;
        do {
            digits[n++] = static_cast<char>('0' + value % 10);
            value /= 10;
        } while (value != 0);
        while (n != 0) push_back(digits[--n]);
    }

    constexpr bool operator==(std::string_view other) const noexcept { return view() == other; }
};

} // namespace ctein
