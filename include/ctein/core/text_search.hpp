// Searching text in constexpr code with plain loops. std::string_view::find goes through
// char_traits::find, whose null check g++ 12 cannot evaluate at compile time when the code is
// built with -fsanitize=null (part of -fsanitize=undefined).
#pragma once

#include <cstddef>
#include <string_view>

namespace ctein::detail {

inline constexpr std::size_t not_found = std::string_view::npos;

/// The position of the first `needle` in `text` at or after `from`, or `not_found`.
constexpr std::size_t find(std::string_view text, std::string_view needle, std::size_t from = 0) noexcept {
    for (std::size_t at = from; at + needle.size() <= text.size(); ++at) {
        std::size_t i = 0;
        while (i < needle.size() && text[at + i] == needle[i]) ++i;
        if (i == needle.size()) return at;
    }
    return not_found;
}

constexpr bool starts_with(std::string_view text, std::string_view prefix) noexcept {
    return find(text.substr(0, prefix.size()), prefix) == 0;
}

/// The number of non-overlapping `needle`s in `text`.
constexpr std::size_t count(std::string_view text, std::string_view needle) noexcept {
    std::size_t n = 0;
    for (std::size_t at = find(text, needle); at != not_found; at = find(text, needle, at + needle.size()))
        ++n;
    return n;
}

} // namespace ctein::detail
