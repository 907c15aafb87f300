// The pattern parser: einops' grammar (einops/parsing.py, ParsedExpression) as constexpr code.
// It runs in the compiler for patterns given as template arguments and at run time for the
// `ctein explain` tool and the tests, and reports the same errors, in the same order, as einops.
#pragma once

#include "../core/error.hpp"
#include "../core/text_search.hpp"
#include "expression.hpp"

#include <cstddef>
#include <string_view>

namespace ctein::pattern {

struct parse_options {
    /// Accept `_` as a name; tensor axis names use it for "unnamed".
    bool allow_underscore = false;
    /// Accept a name more than once (einsum's left sides: `i i -> i` is a diagonal).
    bool allow_duplicates = false;
};

struct parsed_expression {
    expression value;
    diagnostic error;
};

struct parsed_pattern {
    expression left;
    expression right;
    diagnostic error;
};

namespace detail {

constexpr bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}
constexpr bool is_alpha(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_alnum(char c) noexcept {
    return is_digit(c) || is_alpha(c);
}

constexpr bool is_decimal(std::string_view s) noexcept {
    if (s.empty()) return false;
    for (char c : s)
        if (!is_digit(c)) return false;
    return true;
}

constexpr std::size_t parse_decimal(std::string_view s) noexcept {
    constexpr std::size_t limit = static_cast<std::size_t>(-1) / 10 - 1;
    std::size_t value = 0;
    for (char c : s) value = value > limit ? value : value * 10 + static_cast<std::size_t>(c - '0');
    return value;
}

/// Width of the ellipsis at `s[i]` (ASCII "..." or UTF-8 "…"), or 0.
constexpr std::size_t ellipsis_width(std::string_view s, std::size_t i) noexcept {
    const std::string_view rest = s.substr(i);
    return ctein::detail::starts_with(rest, "...") || ctein::detail::starts_with(rest, "\xE2\x80\xA6") ? 3
                                                                                                       : 0;
}

/// Bytes in the UTF-8 sequence that starts with `lead` (1 for ASCII and stray bytes).
constexpr std::size_t utf8_width(char lead) noexcept {
    auto b = static_cast<unsigned char>(lead);
    return b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
}

} // namespace detail

/// Why `name` is not a valid axis name, or "" when it is (einops' check_axis_name rules: a
/// Python identifier that neither starts nor ends with `_`).
constexpr std::string_view axis_name_problem(std::string_view name, bool allow_underscore = false) noexcept {
    bool identifier = !name.empty() && (detail::is_alpha(name[0]) || name[0] == '_');
    for (char c : name) identifier = identifier && (detail::is_alnum(c) || c == '_');
    if (!identifier) return "not a valid python identifier";
    if (name.front() == '_' || name.back() == '_') {
        if (name == "_" && allow_underscore) return "";
        return "axis name should should not start or end with underscore";
    }
    return "";
}

/// `text` with each "..." written as "…", the way einops quotes an expression.
constexpr bounded_string<200> with_ellipsis_symbol(std::string_view text) noexcept {
    bounded_string<200> out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (ctein::detail::starts_with(text.substr(i), "...")) {
            out.append("\xE2\x80\xA6");
            i += 2;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

/// Parses one side of a pattern, `side` being its span in `text`.
///
///     auto r = ctein::pattern::parse_expression("b s (h d)", {0, 9});
///     r.value.dim_count == 3;  r.value.dims[2].count == 2;
constexpr parsed_expression parse_expression(std::string_view text, text_ref side,
                                             parse_options options = {}) {
    parsed_expression result;
    expression& e = result.value;
    e.where = side;
    const std::string_view s = side.in(text);
    const auto column = [&](std::size_t i) { return side.begin + i; };
    const auto fail = [&](errc code, std::size_t at) -> parsed_expression& {
        result.error = make_error(code, column(at));
        return result;
    };

    if (const std::size_t dot = ctein::detail::find(s, "."); dot != ctein::detail::not_found) {
        if (ctein::detail::find(s, "...") == ctein::detail::not_found) return fail(errc::bad_dots, dot);
        if (ctein::detail::count(s, "...") != 1 || ctein::detail::count(s, ".") != 3)
            return fail(errc::ellipsis_multiple, dot);
    }

    bool in_group = false;
    dim group{};
    std::size_t token = std::string_view::npos; // start of the current identifier

    const auto add_dim = [&](dim d) {
        if (e.dim_count == max_dims) return false;
        e.dims[e.dim_count++] = d;
        return true;
    };
    // einops' add_axis_name: the checks and their order are einops'.
    const auto add_axis = [&](std::size_t begin, std::size_t end) -> bool {
        const std::string_view name = s.substr(begin, end - begin);
        const text_ref where{static_cast<std::uint16_t>(column(begin)),
                             static_cast<std::uint16_t>(end - begin)};
        const bool is_ellipsis = name == "..." || name == "\xE2\x80\xA6";
        const bool duplicate = is_ellipsis ? e.has_ellipsis : e.has_name(text, name);
        if (duplicate && !(options.allow_underscore && name == "_") &&
            !(options.allow_duplicates && !is_ellipsis)) {
            result.error = make_error(errc::duplicate_axis, where.begin).with_text(name);
            return false;
        }
        axis a{axis_kind::named, where, 0};
        if (is_ellipsis) {
            a.kind = axis_kind::ellipsis;
            e.has_ellipsis = true;
            e.ellipsis_parenthesized = in_group;
        } else {
            const bool is_number = detail::is_decimal(name);
            if (is_number && detail::parse_decimal(name) == 1) {
                // a unit axis: a unit dimension on its own, nothing inside a group
                if (!in_group && !add_dim(dim{static_cast<std::uint8_t>(e.axis_count), 0, false, where})) {
                    result.error = make_error(errc::too_many_axes, where.begin).with_number(max_dims);
                    return false;
                }
                return true;
            }
            const std::string_view problem = axis_name_problem(name, options.allow_underscore);
            if (!is_number && !problem.empty()) {
                result.error = make_error(errc::invalid_axis_identifier, where.begin)
                                   .with_text(with_ellipsis_symbol(name).view())
                                   .with_text(problem);
                return false;
            }
            if (is_number) {
                a.kind = axis_kind::anonymous;
                a.length = detail::parse_decimal(name);
                if (a.length == 0) {
                    result.error = make_error(errc::anonymous_axis_nonpositive, where.begin).with_number(0);
                    return false;
                }
                e.has_non_unitary_anonymous = true;
            }
        }
        if (e.axis_count == max_axes) {
            result.error = make_error(errc::too_many_axes, where.begin).with_number(max_axes);
            return false;
        }
        e.axes[e.axis_count++] = a;
        if (in_group) {
            ++group.count;
        } else if (!add_dim(dim{static_cast<std::uint8_t>(e.axis_count - 1), 1, false, where})) {
            result.error = make_error(errc::too_many_axes, where.begin).with_number(max_dims);
            return false;
        }
        return true;
    };
    const auto end_token = [&](std::size_t at) {
        if (token == std::string_view::npos) return true;
        const std::size_t begin = token;
        token = std::string_view::npos;
        return add_axis(begin, at);
    };

    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        const std::size_t dots = detail::ellipsis_width(s, i);
        if (c == '(' || c == ')' || c == ' ') {
            if (!end_token(i)) return result;
            if (c == '(') {
                if (in_group) return fail(errc::nested_parens, i);
                in_group = true;
                group = dim{static_cast<std::uint8_t>(e.axis_count), 0, true, {}};
                group.where.begin = static_cast<std::uint16_t>(column(i));
            } else if (c == ')') {
                if (!in_group) return fail(errc::brackets_not_balanced, i);
                group.where.size = static_cast<std::uint16_t>(column(i) + 1 - group.where.begin);
                if (!add_dim(group)) {
                    result.error = make_error(errc::too_many_axes, column(i)).with_number(max_dims);
                    return result;
                }
                in_group = false;
            }
            ++i;
        } else if (dots != 0 || detail::is_alnum(c) || c == '_') {
            if (token == std::string_view::npos) token = i;
            i += dots != 0 ? dots : 1;
        } else {
            result.error =
                make_error(errc::unknown_character, column(i)).with_text(s.substr(i, detail::utf8_width(c)));
            return result;
        }
    }
    if (in_group) {
        result.error =
            make_error(errc::imbalanced_parentheses, column(0)).with_text(with_ellipsis_symbol(s).view());
        return result;
    }
    end_token(s.size());
    return result;
}

/// Parses "left -> right". Errors come in einops' order: the arrow, then the left side, then
/// the right side.
///
///     constexpr auto p = ctein::pattern::parse_pattern("b s (h d) -> b h s d");
///     static_assert(!p.error && p.right.dim_count == 4);
constexpr parsed_pattern parse_pattern(std::string_view text, parse_options options = {}) {
    parsed_pattern result;
    const std::size_t arrows = ctein::detail::count(text, "->");
    const std::size_t arrow = ctein::detail::find(text, "->");
    if (arrows != 1) {
        result.error = make_error(errc::no_arrow, arrows == 0 ? 0 : arrow).with_number(arrows);
        return result;
    }
    auto left = parse_expression(text, {0, static_cast<std::uint16_t>(arrow)}, options);
    if (left.error) {
        result.error = left.error;
        return result;
    }
    auto right = parse_expression(
        text, {static_cast<std::uint16_t>(arrow + 2), static_cast<std::uint16_t>(text.size() - arrow - 2)},
        options);
    result.left = left.value;
    result.right = right.value;
    result.error = right.error;
    return result;
}

} // namespace ctein::pattern
