// The recipe: what a rearrange, reduce or repeat pattern does to a tensor, lowered to
// elementary axes (einops' _prepare_transformation_recipe and _reconstruct_from_shape, as
// constexpr code). Built in the compiler from what the types say (static extents, names, given
// lengths) and finished at run time by the same `solve_lengths` for what only then is known.
#pragma once

#include "../core/extents.hpp"
#include "../core/reduction.hpp"
#include "../core/shape_text.hpp"
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
/// run time), its axis names ("" when unnamed), and whether its elements are floating-point
/// (a mean needs them to be).
struct operand {
    std::size_t rank = 0;
    std::array<std::size_t, max_dims> extents{};
    std::string_view names;
    bool floating_point = true;
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
    pattern::text_ref where;  ///< how the pattern writes it (for an ellipsis' axes: the ellipsis)
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
                                   std::span<const std::size_t> given,
                                   std::span<std::size_t> lengths) noexcept {
    // strides and offsets are ptrdiff_t: a shape whose size does not fit would wrap them
    if (const std::size_t k = overflowing_dimension(extents.first(r.input_rank)); k != r.input_rank) {
        bounded_string<256> shape;
        append_python_tuple(shape, extents.first(r.input_rank));
        return make_error(errc::operand_size_overflow)
            .with_text("input")
            .with_text(shape.view())
            .with_number(k);
    }
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
constexpr elementary_axis inferred_axis(pattern::text_ref where) noexcept {
    return {length_source::inferred, dyn, 0, true, true, where};
}
constexpr elementary_axis anonymous_axis(std::size_t length, pattern::text_ref where) noexcept {
    return {length_source::anonymous, length, 0, true, true, where};
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
constexpr bool shared_identifier(std::string_view text, const pattern::axis& a,
                                 const pattern::expression& other) {
    if (a.is_ellipsis()) return other.has_ellipsis;
    if (!a.is_named()) return false;
    return other.has_name(text, a.where.in(text));
}

/// Appends to `d` (a set argument) each identifier of `side` missing from `other`.
constexpr void add_identifiers_missing_from(diagnostic& d, std::string_view text,
                                            const pattern::expression& side,
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

namespace detail {

/// Builds a recipe stage by stage, in einops' order of checks; each stage returns the first
/// error it finds, or none.
class recipe_builder {
public:
    constexpr recipe_builder(std::string_view text, const pattern::parsed_pattern& parsed, operation op,
                             const operand& input, std::span<const given_length> given,
                             std::string_view reduction)
        : text_(text)
        , left_(parsed.left)
        , right_(parsed.right)
        , input_(input)
        , given_(given)
        , reduction_(reduction)
        , names_(pattern::parse_axis_names(input.names)) {
        r.op = op;
    }

    recipe r;

    /// An ellipsis on the right needs one on the left, and the left one cannot be in a group.
    constexpr diagnostic check_ellipsis() {
        if (!left_.has_ellipsis && right_.has_ellipsis)
            return make_error(errc::ellipsis_right_only, right_.where.begin).with_text(text_);
        if (left_.has_ellipsis && left_.ellipsis_parenthesized)
            return make_error(errc::ellipsis_parenthesized_left, left_.where.begin).with_text(text_);
        return diagnostic{};
    }

    /// Each operation's rule on identifiers: rearrange keeps all, repeat drops none and needs
    /// sizes for new ones, reduce invents none.
    constexpr diagnostic check_identifiers() {
        if (r.op == operation::rearrange) {
            if (left_.has_non_unitary_anonymous || right_.has_non_unitary_anonymous)
                return make_error(errc::rearrange_anonymous_axis);
            if (has_identifiers_missing_from(text_, left_, right_) ||
                has_identifiers_missing_from(text_, right_, left_)) {
                diagnostic d = missing_identifiers(errc::identifiers_one_side, left_, right_);
                add_identifiers_missing_from(d, text_, right_, left_);
                return d;
            }
        } else if (r.op == operation::repeat) {
            if (has_identifiers_missing_from(text_, left_, right_))
                return missing_identifiers(errc::repeat_left_axis, left_, right_);
            diagnostic d = make_error(errc::repeat_missing_size).with_set();
            bool missing = false;
            for (std::size_t i = 0; i < right_.axis_count; ++i) {
                const std::string_view name = right_.axes[i].where.in(text_);
                bool sized = !right_.axes[i].is_named() || left_.has_name(text_, name);
                for (const given_length& g : given_) sized = sized || g.name == name;
                if (!sized) {
                    d.with_name(name);
                    missing = true;
                }
            }
            if (missing) return d;
        } else if (!reduction_named(reduction_)) {
            return make_error(errc::unknown_reduction).with_text(reduction_);
        } else if (has_identifiers_missing_from(text_, right_, left_)) {
            return missing_identifiers(errc::reduce_unknown_right, right_, left_);
        }
        return diagnostic{};
    }

    /// The number of dimensions, and how many of them the ellipsis stands for.
    constexpr diagnostic check_rank() {
        if (left_.has_ellipsis) {
            const std::size_t others = left_.dim_count - 1;
            if (input_.rank < others)
                return make_error(errc::wrong_ndim_ellipsis).with_number(others).with_number(input_.rank);
            ellipsis_rank_ = input_.rank - others;
        } else if (input_.rank != left_.dim_count) {
            return make_error(errc::wrong_ndim).with_number(left_.dim_count).with_number(input_.rank);
        }
        if (input_.rank > max_dims) return make_error(errc::too_many_axes).with_number(max_dims);
        if (left_.axis_count + ellipsis_rank_ > max_axes)
            return make_error(errc::too_many_axes).with_number(max_axes);
        return diagnostic{};
    }

    /// The tensor's axis names against the left side (ctein's own check).
    constexpr diagnostic check_names() {
        if (!named()) return diagnostic{};
        for (std::size_t p = 0, t = 0; p < left_.dim_count; ++p) {
            if (p == ellipsis_dim()) {
                t += ellipsis_rank_;
                continue;
            }
            if (!binds(text_, left_, left_.dims[p], input_.names, names_.value, names_.value.dims[t++]))
                return make_error(errc::axis_names_mismatch, left_.dims[p].where.begin)
                    .with_text(trimmed(left_.where.in(text_)))
                    .with_text(input_.names);
        }
        return diagnostic{};
    }

    /// Elementary axes: those of the left side in order (the ellipsis expanded), then those new
    /// on the right (repeat).
    constexpr diagnostic add_axes() {
        for (std::size_t p = 0; p < left_.dim_count; ++p) {
            const pattern::dim& d = left_.dims[p];
            const bool is_ellipsis = p == ellipsis_dim();
            left_first_[d.first] = r.axis_count;
            for (std::size_t i = 0; i < (is_ellipsis ? ellipsis_rank_ : d.count); ++i) {
                if (is_ellipsis) r.input_dims[r.input_rank++] = {static_cast<std::uint8_t>(r.axis_count), 1};
                const pattern::axis& a = left_.axis_of(d, is_ellipsis ? 0 : i);
                if (!is_ellipsis) left_first_[d.first + i] = r.axis_count;
                r.axes[r.axis_count++] = a.kind == pattern::axis_kind::anonymous
                                             ? anonymous_axis(a.length, a.where)
                                             : inferred_axis(a.where);
            }
            if (!is_ellipsis)
                r.input_dims[r.input_rank++] = {static_cast<std::uint8_t>(r.axis_count - d.count), d.count};
        }
        left_axis_count_ = r.axis_count;
        for (std::size_t i = 0; i < right_.axis_count; ++i) {
            const pattern::axis& a = right_.axes[i];
            if (a.is_ellipsis() || shared_identifier(text_, a, left_)) continue;
            if (r.axis_count == max_axes) return make_error(errc::too_many_axes).with_number(max_axes);
            right_new_[i] = r.axis_count;
            elementary_axis e = a.is_named() ? inferred_axis(a.where) : anonymous_axis(a.length, a.where);
            e.on_left = false;
            r.axes[r.axis_count++] = e;
        }
        return diagnostic{};
    }

    /// The given lengths, in the order given: valid names, used by the pattern, given once.
    constexpr diagnostic apply_given() {
        for (std::size_t g = 0; g < given_.size(); ++g) {
            const std::string_view name = given_[g].name;
            if (!pattern::axis_name_problem(name).empty())
                return make_error(errc::invalid_length_name).with_text(name);
            std::size_t id = max_axes;
            if (const std::size_t i = left_.find_name(text_, name); i != left_.axis_count)
                id = left_first_[i];
            else if (const std::size_t j = right_.find_name(text_, name); j != right_.axis_count)
                id = right_new_[j];
            if (id == max_axes) return make_error(errc::unused_axis_length).with_text(name);
            if (r.axes[id].source == length_source::given)
                return make_error(errc::length_given_twice).with_text(name);
            r.axes[id].source = length_source::given;
            r.axes[id].given = g;
        }
        return diagnostic{};
    }

    /// A dimension may hold at most one axis of unknown length.
    constexpr diagnostic check_inferable() {
        for (std::size_t k = 0; k < r.input_rank; ++k) {
            const group dim = r.input_dims[k];
            std::size_t unknown = 0;
            for (std::size_t i = dim.first; i < dim.first + dim.count; ++i)
                unknown += r.axes[i].source == length_source::inferred ? 1 : 0;
            if (unknown <= 1) continue;
            diagnostic d = make_error(errc::cannot_infer).with_set();
            for (std::size_t i = 0; i < left_.axis_count; ++i)
                if (left_.axes[i].is_named() && left_first_[i] >= dim.first &&
                    left_first_[i] < dim.first + dim.count &&
                    r.axes[left_first_[i]].source == length_source::inferred)
                    d.with_name(left_.axes[i].where.in(text_));
            return d;
        }
        return diagnostic{};
    }

    /// The output dimensions as groups of elementary axes, and the names of the result: the
    /// right side's names, the tensor's for axes the ellipsis takes, `(a b)` for a merge, `1`
    /// for a unit, `_` where a part is unnamed.
    constexpr diagnostic add_output() {
        for (std::size_t p = 0; p < right_.dim_count; ++p) {
            const pattern::dim& d = right_.dims[p];
            const bool lone_ellipsis = p == right_.ellipsis_dim();
            if (r.output_rank + (lone_ellipsis ? ellipsis_rank_ : 1) > max_dims)
                return make_error(errc::too_many_axes).with_number(max_dims);
            if (lone_ellipsis) {
                for (std::size_t e = 0; e < ellipsis_rank_; ++e) {
                    r.output_dims[r.output_rank++] = {static_cast<std::uint8_t>(r.output_axis_count), 1};
                    add_output_axis(ellipsis_first() + e);
                    bounded_string<256> name;
                    add_dimension_name(append_ellipsis_name(name, e, false), name.view());
                }
                continue;
            }
            group out{static_cast<std::uint8_t>(r.output_axis_count), 0};
            bounded_string<256> words; // the names of the axes in this dimension
            bool all_named = true;
            const auto add = [&](std::size_t id, bool has_name, std::string_view name) {
                add_output_axis(id);
                ++out.count;
                if (!words.empty()) words.push_back(' ');
                words.append(name);
                all_named = all_named && has_name;
            };
            for (std::size_t i = 0; i < d.count; ++i) {
                const pattern::axis& a = right_.axis_of(d, i);
                if (a.is_ellipsis()) {
                    for (std::size_t e = 0; e < ellipsis_rank_; ++e) {
                        bounded_string<256> name;
                        const bool has_name = append_ellipsis_name(name, e, true);
                        add(ellipsis_first() + e, has_name, name.view());
                    }
                } else if (shared_identifier(text_, a, left_)) {
                    add(left_first_[left_.find_name(text_, a.where.in(text_))], true, a.where.in(text_));
                } else {
                    add(right_new_[d.first + i], a.is_named(), a.is_named() ? a.where.in(text_) : "");
                }
            }
            r.output_dims[r.output_rank++] = out;
            if (out.count == 0) {
                add_dimension_name(true, "1");
            } else if (ctein::detail::find(words.view(), " ") != ctein::detail::not_found) {
                bounded_string<256> merged("(");
                merged.append(words.view());
                merged.push_back(')');
                add_dimension_name(all_named, merged.view());
            } else {
                add_dimension_name(all_named, words.view());
            }
        }
        if (all_unnamed(r.output_names.view())) r.output_names = {};
        for (std::size_t a = 0; a < left_axis_count_; ++a) r.axes[a].on_right = false;
        for (std::size_t i = 0; i < r.output_axis_count; ++i) r.axes[r.output_axes[i]].on_right = true;
        return diagnostic{};
    }

    /// The lengths known now; the rest are found at run time by the same function.
    constexpr diagnostic solve() {
        std::array<std::size_t, max_axes> given_values{};
        for (std::size_t g = 0; g < given_.size() && g < max_axes; ++g) given_values[g] = given_[g].value;
        if (diagnostic d = solve_lengths(r, input_.extents, given_values, r.lengths)) return d;
        output_extents(r, r.lengths, r.output_extents);
        return diagnostic{};
    }

    /// Last, as einops finds it only when it reduces: a mean of integers or booleans.
    constexpr diagnostic check_element_type() {
        if (r.op != operation::reduce || input_.floating_point ||
            reduction_named(reduction_) != reduction::mean)
            return diagnostic{};
        for (std::size_t a = 0; a < r.axis_count; ++a)
            if (!r.axes[a].on_right) return make_error(errc::mean_non_float);
        return diagnostic{};
    }

private:
    constexpr bool named() const {
        return !input_.names.empty() && !names_.error && names_.value.dim_count == input_.rank;
    }
    constexpr std::size_t ellipsis_dim() const { return left_.ellipsis_dim(); }
    constexpr std::size_t ellipsis_first() const {
        return left_.has_ellipsis ? left_first_[left_.dims[ellipsis_dim()].first] : 0;
    }

    constexpr diagnostic missing_identifiers(errc code, const pattern::expression& side,
                                             const pattern::expression& other) const {
        diagnostic d = make_error(code);
        if (code == errc::reduce_unknown_right) d.with_text(reduction_);
        d.with_set();
        add_identifiers_missing_from(d, text_, side, other);
        return d;
    }
    constexpr void add_output_axis(std::size_t id) {
        r.output_axes[r.output_axis_count++] = static_cast<std::uint8_t>(id);
    }
    /// Appends the name of the axis the ellipsis takes from its e-th input dimension; false if
    /// that dimension is unnamed.
    constexpr bool append_ellipsis_name(bounded_string<256>& out, std::size_t e, bool inside_group) const {
        const pattern::dim& t = names_.value.dims[ellipsis_dim() + e];
        if (!named() || pattern::is_unnamed(input_.names, names_.value, t)) return false;
        append_dim_name(out, input_.names, t, inside_group);
        return true;
    }
    constexpr void add_dimension_name(bool has_name, std::string_view name) {
        if (!r.output_names.empty()) r.output_names.push_back(' ');
        if (has_name) {
            r.output_names.append(name);
        } else {
            r.output_names.push_back('_');
        }
    }

    std::string_view text_;
    const pattern::expression& left_;
    const pattern::expression& right_;
    const operand& input_;
    std::span<const given_length> given_;
    std::string_view reduction_;
    pattern::parsed_axis_names names_;
    std::size_t ellipsis_rank_ = 0;
    std::size_t left_axis_count_ = 0;
    std::array<std::size_t, max_axes> left_first_{}; ///< first elementary id of each left axis
    std::array<std::size_t, max_axes> right_new_{};  ///< elementary id of each axis new on the right
};

} // namespace detail

/// Builds the recipe of `pattern_text` applied by `op` to `input` with the `given` lengths,
/// reporting the first error in einops' order: parsing, the ellipsis, the operation's identifier
/// rules, the number of dimensions, the tensor's axis names, the given lengths, what cannot be
/// inferred, the lengths that are known, and finally a mean of integers. `reduction` is the name
/// of a reduce's reduction (einops' names: "sum", "mean", ...).
///
///     constexpr auto r = make_recipe("b s (h d) -> b h s d", operation::rearrange,
///                                    {3, {2, dyn, 512}, ""}, std::array{given_length{"h", 8}});
///     static_assert(r.ok() && r.output_extents[3] == 64 && r.output_extents[2] == dyn);
constexpr recipe make_recipe(std::string_view pattern_text, operation op, const operand& input,
                             std::span<const given_length> given, std::string_view reduction = {}) {
    const auto parsed = pattern::parse_pattern(pattern_text);
    if (parsed.error) {
        recipe r;
        r.op = op;
        r.error = parsed.error;
        return r;
    }
    using builder = detail::recipe_builder;
    builder b(pattern_text, parsed, op, input, given, reduction);
    for (const auto stage :
         {&builder::check_ellipsis, &builder::check_identifiers, &builder::check_rank, &builder::check_names,
          &builder::add_axes, &builder::apply_given, &builder::check_inferable, &builder::add_output,
          &builder::solve, &builder::check_element_type}) {
        if (diagnostic d = (b.*stage)()) {
            b.r.error = d;
            break;
        }
    }
    return b.r;
}

} // namespace ctein::plan
