// The axis names a tensor type carries ("b h s d", "b s (h d)", "_ s c"), parsed and checked
// with the pattern grammar. `_` names an axis "unnamed"; a group names a merged axis; `1` a unit.
#pragma once

#include "parse.hpp"

#include <string_view>

namespace ctein::pattern {

struct parsed_axis_names {
    expression value;
    diagnostic error;
};

/// Parses the axis names of a tensor type: one side of a pattern, without ellipsis or anonymous
/// axes other than `1`, where `_` may repeat. An empty string means "unnamed, any rank".
constexpr parsed_axis_names parse_axis_names(std::string_view names) {
    auto parsed = parse_expression(names, {0, static_cast<std::uint16_t>(names.size())}, {.allow_underscore = true});
    parsed_axis_names result{parsed.value, parsed.error};
    if (!result.error && result.value.has_ellipsis)
        result.error = make_error(errc::bad_dots, names.find('.'));
    if (!result.error && result.value.has_non_unitary_anonymous)
        result.error = make_error(errc::rearrange_anonymous_axis);
    return result;
}

/// Whether `names` is a valid list of tensor axis names for a tensor of rank `rank`.
constexpr bool valid_axis_names(std::string_view names, std::size_t rank) {
    if (names.empty()) return true;
    auto parsed = parse_axis_names(names);
    return !parsed.error && parsed.value.dim_count == rank;
}

/// Whether dimension `d` of parsed names is unnamed (`_`).
constexpr bool is_unnamed(std::string_view text, const expression& names, const dim& d) {
    return !d.grouped && d.count == 1 && names.axis_of(d, 0).where.in(text) == "_";
}

} // namespace ctein::pattern
