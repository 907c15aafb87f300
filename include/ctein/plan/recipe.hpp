// The recipe: what a rearrange, reduce or repeat pattern does to a tensor, lowered to
// elementary axes (einops' _prepare_transformation_recipe and _reconstruct_from_shape, as
// constexpr code). Built in the compiler from what the types say (static extents, names, given
// lengths) and finished at run time by the same `solve_lengths` for what only then is known.
#pragma once

#include "../core/extents.hpp"
#include "../core/text_search.hpp"
#include "../pattern/axis_names.hpp"
#include "../pattern/parse.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ctein::plan {

using pattern::max_axes;
using pattern::max_dims;

enum class operation : unsigned char { rearrange, reduce, repeat };

/// What the planner knows of the input tensor: its rank, its extents (`dyn` where known only at
/// run time) and its axis names ("" when unnamed).
struct operand {
    std::size_t rank = 0;
    std::array<std::size_t, max_dims> extents{};
    std::string_view names;
};

/// A length the caller gives for an axis, einops' `h=8`; `dyn` when known only at run time.
struct given_length {
    std::string_view name;
    std::size_t value = dyn;
};

enum class length_source : unsigned char { inferred, anonymous, given };

/// An axis after groups are split and the ellipsis expanded. Axes of the left side come first, in
/// the order they are written (which is their order in memory), then axes new on the right.
struct elementary_axis {
    length_source source = length_source::inferred;
    std::size_t length = dyn; ///< anonymous axes: their length
    std::size_t given = 0;    ///< source::given: index into the given lengths
    bool on_left = true;      ///< false for axes new on the right (repeat)
    bool on_right = true;     ///< false for reduced axes
};

/// A run of axes: `count` entries starting at `first`.
struct group {
    std::uint8_t first = 0;
    std::uint8_t count = 0;
};

struct recipe {
    diagnostic error;
    operation op = operation::rearrange;

    std::size_t axis_count = 0;
    std::array<elementary_axis, max_axes> axes{};
    /// Input dimension k holds the elementary axes input_dims[k] (consecutive ids).
    std::size_t input_rank = 0;
    std::array<group, max_dims> input_dims{};
    /// Output dimension k holds output_axes[output_dims[k].first ...] (ids, in output order).
    std::size_t output_rank = 0;
    std::array<group, max_dims> output_dims{};
    std::size_t output_axis_count = 0;
    std::array<std::uint8_t, max_axes> output_axes{};

    /// Lengths solved from what the planner knew: `dyn` where known only at run time.
    std::array<std::size_t, max_axes> lengths{};
    std::array<std::size_t, max_dims> output_extents{};
    /// The axis names of the result, for its type.
    bounded_string<256> output_names;

    constexpr bool ok() const noexcept { return !error; }
};

/// Fills `lengths` (one per elementary axis) from the input extents and the given values,
/// leaving `dyn` where an input is `dyn`, and checks each input dimension against the axes it
/// holds when their lengths are known. Runs in the compiler on static extents and at run time on
/// actual ones, so both report the same mismatch.
constexpr diagnostic solve_lengths(const recipe& r, std::span<const std::size_t> extents,
                                   std::span<const std::size_t> given, std::span<std::size_t> lengths) noexcept {
    for (std::size_t a = 0; a < r.axis_count; ++a) {
        const elementary_axis& axis = r.axes[a];
        lengths[a] = axis.source == length_source::anonymous ? axis.length
                     : axis.source == length_source::given   ? given[axis.given]
                                                             : dyn;
    }
    for (std::size_t k = 0; k < r.input_rank; ++k) {
        const group dim = r.input_dims[k];
        const std::size_t length = extents[k];
        std::size_t known_product = 1;
        std::size_t unknown = r.axis_count;
        for (std::size_t i = dim.first; i < dim.first + dim.count; ++i) {
            if (r.axes[i].source == length_source::inferred) {
                unknown = i;
            } else {
                known_product = known_product == dyn || lengths[i] == dyn ? dyn : known_product * lengths[i];
            }
        }
        const bool known = length != dyn && known_product != dyn;
        if (unknown == r.axis_count) {
            if (known && length != known_product)
                return make_error(errc::length_mismatch).with_number(length).with_number(known_product);
        } else if (!known) {
            lengths[unknown] = known_product == 1 ? length : dyn;
        } else if (known_product == 0 || length % known_product != 0) {
            return make_error(errc::not_divisible).with_number(length).with_number(known_product);
        } else {
            lengths[unknown] = length / known_product;
        }
    }
    return diagnostic{};
}

/// The extent of each output dimension: the product of its axes' lengths (`dyn` if any is).
constexpr void output_extents(const recipe& r, std::span<const std::size_t> lengths,
                              std::span<std::size_t> extents) noexcept {
    for (std::size_t k = 0; k < r.output_rank; ++k) {
        std::size_t product = 1;
        for (std::size_t i = 0; i < r.output_dims[k].count; ++i) {
            const std::size_t length = lengths[r.output_axes[r.output_dims[k].first + i]];
            product = product == dyn || length == dyn ? dyn : product * length;
        }
        extents[k] = product;
    }
}

namespace detail {

// Elementary axes are always written whole: g++ 12 can leave default member initialisers of
// the recipe's array unapplied when several recipes are evaluated in one translation unit.
constexpr elementary_axis inferred_axis() noexcept {
    return {length_source::inferred, dyn, 0, true, true};
}
constexpr elementary_axis anonymous_axis(std::size_t length) noexcept {
    return {length_source::anonymous, length, 0, true, true};
}

/// How an axis of a pattern side is printed in einops' messages: its name, `…`, or `2-axis`.
constexpr bounded_string<32> identifier(std::string_view text, const pattern::axis& a) {
    bounded_string<32> out;
    if (a.is_ellipsis()) {
        out.append("\xE2\x80\xA6");
    } else if (a.is_named()) {
        out.append(a.where.in(text));
    } else {
        out.append_number(a.length);
        out.append("-axis");
    }
    return out;
}

/// Whether identifier `a` of one side is also an identifier of `other` (einops' set semantics:
/// every anonymous axis is distinct, names and the ellipsis compare equal).
constexpr bool shared_identifier(std::string_view text, const pattern::axis& a, const pattern::expression& other) {
    if (a.is_ellipsis()) return other.has_ellipsis;
    if (!a.is_named()) return false;
    return other.has_name(text, a.where.in(text));
}

/// Appends to `d` (a set argument) each identifier of `side` missing from `other`.
constexpr void add_identifiers_missing_from(diagnostic& d, std::string_view text, const pattern::expression& side,
                                            const pattern::expression& other) {
    for (std::size_t i = 0; i < side.axis_count; ++i)
        if (!shared_identifier(text, side.axes[i], other)) d.with_name(identifier(text, side.axes[i]).view());
}

constexpr bool has_identifiers_missing_from(std::string_view text, const pattern::expression& side,
                                            const pattern::expression& other) {
    for (std::size_t i = 0; i < side.axis_count; ++i)
        if (!shared_identifier(text, side.axes[i], other)) return true;
    return false;
}

/// The text of a side without its surrounding spaces, for messages.
constexpr std::string_view trimmed(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

/// Whether left dimension `p` of the pattern may bind tensor dimension `t` (named `names`).
/// `_` binds anything; a lone name binds the same name; a unit binds a unit; a group splits a
/// lone name (naming its parts) or binds a group of the same names.
constexpr bool binds(std::string_view text, const pattern::expression& left, const pattern::dim& p,
                     std::string_view names, const pattern::expression& tensor, const pattern::dim& t) {
    if (pattern::is_unnamed(names, tensor, t)) return true;
    const bool t_lone = !t.grouped && t.count == 1;
    if (p.count == 0 || t.count == 0) return p.count == 0 && t.count == 0;
    if (!p.grouped) {
        return t_lone && left.axis_of(p, 0).is_named() &&
               left.axis_of(p, 0).where.in(text) == tensor.axis_of(t, 0).where.in(names);
    }
    if (t_lone) return true;
    if (p.count != t.count) return false;
    for (std::size_t i = 0; i < p.count; ++i)
        if (!left.axis_of(p, i).is_named() ||
            left.axis_of(p, i).where.in(text) != tensor.axis_of(t, i).where.in(names))
            return false;
    return true;
}

/// Whether every name in a list of axis names is `_`.
constexpr bool all_unnamed(std::string_view names) {
    for (char c : names)
        if (c != '_' && c != ' ') return false;
    return true;
}

/// Appends the name of tensor dimension `t` to `out`, dropping the parentheses of a group when
/// it goes inside another group.
constexpr void append_dim_name(bounded_string<256>& out, std::string_view names, const pattern::dim& t,
                               bool inside_group) {
    std::string_view name = t.where.in(names);
    if (inside_group && t.grouped) name = trimmed(name.substr(1, name.size() - 2));
    out.append(name);
}

} // namespace detail

/// Builds the recipe of `pattern_text` applied by `op` to `input` with the `given` lengths,
/// reporting the first error in einops' order: parsing, the ellipsis, the operation's identifier
/// rules, the number of dimensions, the tensor's axis names, the given lengths, what cannot be
/// inferred, and finally the lengths that are known.
///
///     constexpr auto r = make_recipe("b s (h d) -> b h s d", operation::rearrange,
///                                    {3, {2, dyn, 512}, ""}, std::array{given_length{"h", 8}});
///     static_assert(r.ok() && r.output_extents[3] == 64 && r.output_extents[2] == dyn);
constexpr recipe make_recipe(std::string_view pattern_text, operation op, const operand& input,
                             std::span<const given_length> given, std::string_view reduction = {}) {
    using pattern::axis;
    using pattern::dim;
    recipe r;
    r.op = op;
    const auto fail = [&](diagnostic d) -> recipe& {
        r.error = d;
        return r;
    };

    const auto parsed = pattern::parse_pattern(pattern_text);
    if (parsed.error) return fail(parsed.error);
    const pattern::expression& left = parsed.left;
    const pattern::expression& right = parsed.right;
    const std::string_view text = pattern_text;

    if (!left.has_ellipsis && right.has_ellipsis)
        return fail(make_error(errc::ellipsis_right_only, right.where.begin).with_text(text));
    if (left.has_ellipsis && left.ellipsis_parenthesized)
        return fail(make_error(errc::ellipsis_parenthesized_left, left.where.begin).with_text(text));

    // each operation's rule on identifiers
    const auto set_error = [&](errc code, const pattern::expression& side, const pattern::expression& other) {
        diagnostic d = make_error(code);
        if (code == errc::reduce_unknown_right) d.with_text(reduction);
        d.with_set();
        detail::add_identifiers_missing_from(d, text, side, other);
        return d;
    };
    if (op == operation::rearrange) {
        if (left.has_non_unitary_anonymous || right.has_non_unitary_anonymous)
            return fail(make_error(errc::rearrange_anonymous_axis));
        if (detail::has_identifiers_missing_from(text, left, right) ||
            detail::has_identifiers_missing_from(text, right, left)) {
            diagnostic d = set_error(errc::identifiers_one_side, left, right);
            detail::add_identifiers_missing_from(d, text, right, left);
            return fail(d);
        }
    } else if (op == operation::repeat) {
        if (detail::has_identifiers_missing_from(text, left, right))
            return fail(set_error(errc::repeat_left_axis, left, right));
        diagnostic d = make_error(errc::repeat_missing_size).with_set();
        bool missing = false;
        for (std::size_t i = 0; i < right.axis_count; ++i) {
            const std::string_view name = right.axes[i].where.in(text);
            bool sized = !right.axes[i].is_named() || left.has_name(text, name);
            for (const given_length& g : given) sized = sized || g.name == name;
            if (!sized) {
                d.with_name(name);
                missing = true;
            }
        }
        if (missing) return fail(d);
    } else if (detail::has_identifiers_missing_from(text, right, left)) {
        return fail(set_error(errc::reduce_unknown_right, right, left));
    }

    // the number of dimensions, and how many the ellipsis stands for
    const std::size_t ellipsis_dim = left.ellipsis_dim();
    std::size_t ellipsis_rank = 0;
    if (left.has_ellipsis) {
        const std::size_t others = left.dim_count - 1;
        if (input.rank < others)
            return fail(make_error(errc::wrong_ndim_ellipsis).with_number(others).with_number(input.rank));
        ellipsis_rank = input.rank - others;
    } else if (input.rank != left.dim_count) {
        return fail(make_error(errc::wrong_ndim).with_number(left.dim_count).with_number(input.rank));
    }
    if (input.rank > max_dims) return fail(make_error(errc::too_many_axes).with_number(max_dims));

    // the tensor's axis names against the left side
    const auto names = pattern::parse_axis_names(input.names);
    const bool named = !input.names.empty() && !names.error && names.value.dim_count == input.rank;
    if (named) {
        for (std::size_t p = 0, t = 0; p < left.dim_count; ++p) {
            if (p == ellipsis_dim) {
                t += ellipsis_rank;
                continue;
            }
            if (!detail::binds(text, left, left.dims[p], input.names, names.value, names.value.dims[t++]))
                return fail(make_error(errc::axis_names_mismatch, left.dims[p].where.begin)
                                .with_text(detail::trimmed(left.where.in(text)))
                                .with_text(input.names));
        }
    }

    // elementary axes of the left side; left_first[i] is the first elementary id of left axis i
    std::array<std::size_t, max_axes> left_first{};
    if (left.axis_count + ellipsis_rank > max_axes)
        return fail(make_error(errc::too_many_axes).with_number(max_axes));
    for (std::size_t p = 0; p < left.dim_count; ++p) {
        const dim& d = left.dims[p];
        if (p == ellipsis_dim) {
            left_first[d.first] = r.axis_count;
            for (std::size_t e = 0; e < ellipsis_rank; ++e) {
                r.input_dims[r.input_rank++] = {static_cast<std::uint8_t>(r.axis_count), 1};
                r.axes[r.axis_count++] = detail::inferred_axis();
            }
            continue;
        }
        r.input_dims[r.input_rank++] = {static_cast<std::uint8_t>(r.axis_count), d.count};
        for (std::size_t i = 0; i < d.count; ++i) {
            const axis& a = left.axis_of(d, i);
            left_first[d.first + i] = r.axis_count;
            r.axes[r.axis_count++] = a.is_named() ? detail::inferred_axis() : detail::anonymous_axis(a.length);
        }
    }
    const std::size_t left_axis_count = r.axis_count;

    // axes new on the right (repeat): named or anonymous
    std::array<std::size_t, max_axes> right_new{};
    for (std::size_t i = 0; i < right.axis_count; ++i) {
        const axis& a = right.axes[i];
        if (a.is_ellipsis() || detail::shared_identifier(text, a, left)) continue;
        if (r.axis_count == max_axes) return fail(make_error(errc::too_many_axes).with_number(max_axes));
        right_new[i] = r.axis_count;
        elementary_axis e = a.is_named() ? detail::inferred_axis() : detail::anonymous_axis(a.length);
        e.on_left = false;
        r.axes[r.axis_count++] = e;
    }

    // the given lengths: valid names, used, given once
    for (std::size_t g = 0; g < given.size(); ++g) {
        const std::string_view name = given[g].name;
        if (!pattern::axis_name_problem(name).empty())
            return fail(make_error(errc::invalid_length_name).with_text(name));
        std::size_t id = max_axes;
        if (const std::size_t i = left.find_name(text, name); i != left.axis_count) id = left_first[i];
        else if (const std::size_t j = right.find_name(text, name); j != right.axis_count) id = right_new[j];
        if (id == max_axes) return fail(make_error(errc::unused_axis_length).with_text(name));
        if (r.axes[id].source == length_source::given)
            return fail(make_error(errc::length_given_twice).with_text(name));
        r.axes[id].source = length_source::given;
        r.axes[id].given = g;
    }
    // a dimension may hold at most one axis of unknown length
    for (std::size_t k = 0; k < r.input_rank; ++k) {
        std::size_t unknown = 0;
        for (std::size_t i = 0; i < r.input_dims[k].count; ++i)
            unknown += r.axes[r.input_dims[k].first + i].source == length_source::inferred ? 1 : 0;
        if (unknown > 1) {
            diagnostic d = make_error(errc::cannot_infer).with_set();
            for (std::size_t i = 0; i < left.axis_count; ++i)
                if (left.axes[i].is_named() && left_first[i] >= r.input_dims[k].first &&
                    left_first[i] < r.input_dims[k].first + r.input_dims[k].count &&
                    r.axes[left_first[i]].source == length_source::inferred)
                    d.with_name(left.axes[i].where.in(text));
            return fail(d);
        }
    }

    // the output: dimensions as groups of elementary axes, and their names
    const auto add_output_axis = [&](std::size_t id) {
        r.output_axes[r.output_axis_count++] = static_cast<std::uint8_t>(id);
    };
    // appends the name of the axis the ellipsis takes from input dimension k; false if unnamed
    const auto append_ellipsis_name = [&](bounded_string<256>& out, std::size_t k, bool inside_group) {
        if (!named || pattern::is_unnamed(input.names, names.value, names.value.dims[k])) return false;
        detail::append_dim_name(out, input.names, names.value.dims[k], inside_group);
        return true;
    };
    const std::size_t ellipsis_first = left.has_ellipsis ? left_first[left.dims[ellipsis_dim].first] : 0;
    for (std::size_t p = 0; p < right.dim_count; ++p) {
        const dim& d = right.dims[p];
        const bool lone_ellipsis = p == right.ellipsis_dim();
        if (r.output_rank + (lone_ellipsis ? ellipsis_rank : 1) > max_dims)
            return fail(make_error(errc::too_many_axes).with_number(max_dims));
        if (lone_ellipsis) {
            for (std::size_t e = 0; e < ellipsis_rank; ++e) {
                r.output_dims[r.output_rank++] = {static_cast<std::uint8_t>(r.output_axis_count), 1};
                add_output_axis(ellipsis_first + e);
                if (!r.output_names.empty()) r.output_names.push_back(' ');
                if (!append_ellipsis_name(r.output_names, ellipsis_dim + e, false)) r.output_names.push_back('_');
            }
            continue;
        }
        group out{static_cast<std::uint8_t>(r.output_axis_count), 0};
        bounded_string<256> words; // the names of the axes in this dimension
        bool all_named = true;
        const auto next_word = [&] {
            if (!words.empty()) words.push_back(' ');
        };
        for (std::size_t i = 0; i < d.count; ++i) {
            const axis& a = right.axis_of(d, i);
            if (a.is_ellipsis()) {
                for (std::size_t e = 0; e < ellipsis_rank; ++e, ++out.count) {
                    add_output_axis(ellipsis_first + e);
                    next_word();
                    all_named = append_ellipsis_name(words, ellipsis_dim + e, true) && all_named;
                }
                continue;
            }
            const bool from_left = detail::shared_identifier(text, a, left);
            add_output_axis(from_left ? left_first[left.find_name(text, a.where.in(text))] : right_new[d.first + i]);
            ++out.count;
            next_word();
            if (a.is_named()) words.append(a.where.in(text));
            all_named = all_named && a.is_named();
        }
        r.output_dims[r.output_rank++] = out;
        if (!r.output_names.empty()) r.output_names.push_back(' ');
        if (out.count == 0) {
            r.output_names.push_back('1');
        } else if (!all_named) {
            r.output_names.push_back('_');
        } else if (ctein::detail::find(words.view(), " ") != ctein::detail::not_found) {
            r.output_names.push_back('(');
            r.output_names.append(words.view());
            r.output_names.push_back(')');
        } else {
            r.output_names.append(words.view());
        }
    }
    if (detail::all_unnamed(r.output_names.view())) r.output_names = {};
    for (std::size_t a = 0; a < left_axis_count; ++a) r.axes[a].on_right = false;
    for (std::size_t i = 0; i < r.output_axis_count; ++i) r.axes[r.output_axes[i]].on_right = true;

    // lengths known now; the rest are found at run time by the same function
    std::array<std::size_t, max_axes> given_values{};
    for (std::size_t g = 0; g < given.size() && g < max_axes; ++g) given_values[g] = given[g].value;
    if (diagnostic d = solve_lengths(r, input.extents, given_values, r.lengths)) return fail(d);
    output_extents(r, r.lengths, r.output_extents);
    return r;
}

} // namespace ctein::plan
