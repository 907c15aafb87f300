// The axis names a tensor type carries ("b h s d", "b s (h d)", "_ s c"), parsed and checked
// with the pattern grammar. `_` names an axis "unnamed"; a group names a merged axis; `1` a unit.
#pragma once

#include "parse.hpp"

#include <array>
#include <cstddef>
#include <string_view>

namespace ctein::pattern {

struct parsed_axis_names {
    expression value;
    diagnostic error;
};

/// Parses the axis names of a tensor type: one side of a pattern, without ellipsis or anonymous
/// axes other than `1`, where `_` may repeat. An empty string means "unnamed".
constexpr parsed_axis_names parse_axis_names(std::string_view names) {
    auto parsed =
        parse_expression(names, {0, static_cast<std::uint16_t>(names.size())}, {.allow_underscore = true});
    return {parsed.value, parsed.error};
}

/// Why `names` cannot name the axes of a tensor of `rank` dimensions, or no error.
///
///     check_axis_names("b s", 3).message() == "Invalid axis names \"b s\" for a tensor of 3 dimensions: it
///     names 2"
constexpr diagnostic check_axis_names(std::string_view names, std::size_t rank) {
    if (names.empty()) return diagnostic{};
    const auto parsed = parse_axis_names(names);
    const auto fail = [&](std::string_view reason) {
        return make_error(errc::invalid_axis_names).with_text(names).with_number(rank).with_text(reason);
    };
    if (parsed.error) return fail(parsed.error.message().view());
    if (parsed.value.has_ellipsis) return fail("an ellipsis names no particular axes");
    if (parsed.value.has_non_unitary_anonymous) return fail("a number is a length, not a name");
    if (parsed.value.dim_count != rank) {
        bounded_string<40> reason("it names ");
        reason.append_number(parsed.value.dim_count);
        return fail(reason.view());
    }
    return diagnostic{};
}

/// The names of a tensor type's dimensions as written: a name, `_`, `1`, or a group `(h d)`;
/// all empty for an unnamed tensor.
struct dim_names {
    std::array<std::string_view, max_dims> of{};
    std::size_t count = 0;

    constexpr std::string_view operator[](std::size_t i) const noexcept { return i < count ? of[i] : ""; }
    /// Whether dimension i carries a name that says something (not unnamed, `_` or a unit).
    constexpr bool names(std::size_t i) const noexcept {
        const std::string_view n = (*this)[i];
        return !n.empty() && n != "_" && n != "1" && n != "()";
    }
};

constexpr dim_names split_dim_names(std::string_view names) {
    dim_names out;
    if (names.empty()) return out;
    const auto parsed = pattern::parse_axis_names(names);
    if (parsed.error) return out;
    out.count = parsed.value.dim_count;
    for (std::size_t i = 0; i < out.count; ++i) out.of[i] = parsed.value.dims[i].where.in(names);
    return out;
}

/// Whether dimension `d` of parsed names is unnamed (`_`).
constexpr bool is_unnamed(std::string_view text, const expression& names, const dim& d) {
    return !d.grouped && d.count == 1 && names.axis_of(d, 0).where.in(text) == "_";
}

} // namespace ctein::pattern
