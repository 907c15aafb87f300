// broadcast_plan: how two operands of an element-wise expression line up — by their axis names when
// they have names, from the right as numpy does when they do not — and how two operands of a
// concat line up beside the joined axis. Constexpr functions run by the compiler on static extents
// and by the program on actual ones, so both report a mistake with the same text.
#pragma once

#include "../core/bounded_string.hpp"
#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "../core/shape_text.hpp"
#include "../pattern/axis_names.hpp"
#include "recipe.hpp"

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

namespace ctein::plan {

/// What an operand of an element-wise expression is: its rank, extents (`dyn` where not known)
/// and axis names ("" for none). Unlike `operand`, it owns its names: an expression's result
/// names are computed.
struct elementwise_shape {
    std::size_t rank = 0;
    std::array<std::size_t, max_dims> extents{};
    bounded_string<256> names;

    constexpr std::span<const std::size_t> lengths() const noexcept { return {extents.data(), rank}; }
};

/// The result of lining up operands a and b, and where each result dimension comes from.
struct broadcast_plan {
    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    diagnostic error;
    elementwise_shape result;
    /// source[i][r]: the dimension of operand i read at result dimension r, or `none` (broadcast).
    std::array<std::array<std::size_t, max_dims>, 2> source{};
};

namespace detail {
/// The length where lengths a and b of one axis meet (`dyn` for one not known yet); a length 1
/// broadcasts when `ones_broadcast` (numpy's rule, for unnamed operands). `ok` is false when they
/// cannot meet.
struct merged_length {
    std::size_t value = dyn;
    bool ok = true;
};
constexpr merged_length merge_length(std::size_t a, std::size_t b, bool ones_broadcast) noexcept {
    if (a == b) return {a};
    if (ones_broadcast && a == 1) return {b};
    if (ones_broadcast && b == 1) return {a};
    if (a == dyn) return {b}; // 1 broadcasts to the unknown length; any other length is the result
    if (b == dyn) return {a};
    return {dyn, false};
}

constexpr diagnostic shapes_mismatch(const elementwise_shape& a, const elementwise_shape& b) {
    bounded_string<128> sa;
    bounded_string<128> sb;
    append_python_tuple(sa, a.lengths());
    append_python_tuple(sb, b.lengths());
    return make_error(errc::broadcast_shapes).with_text(sa.view()).with_text(sb.view());
}

/// The dimensions of a named operand that meet others by name: every dimension but units (`1`,
/// `()`) of static length 1, which meet nothing and broadcast (a mask `"b 1 q k"`).
struct matched_dims {
    std::array<std::string_view, max_dims> name{};
    std::array<std::size_t, max_dims> dim{};
    std::size_t count = 0;
    std::size_t unnamed = broadcast_plan::none; ///< a dimension that has no name, if any

    constexpr std::size_t find(std::string_view n) const {
        for (std::size_t i = 0; i < count; ++i)
            if (name[i] == n) return dim[i];
        return broadcast_plan::none;
    }
};

constexpr matched_dims matched_dims_of(const elementwise_shape& s) {
    matched_dims m;
    const pattern::dim_names names = pattern::split_dim_names(s.names.view());
    for (std::size_t d = 0; d < names.count; ++d) {
        const bool unit = names[d] == "1" || names[d] == "()";
        if (unit && s.extents[d] == 1) continue;
        if (!names.names(d) && m.unnamed == broadcast_plan::none) m.unnamed = d;
        m.name[m.count] = names[d];
        m.dim[m.count++] = d;
    }
    return m;
}

constexpr std::size_t find_name(const pattern::dim_names& names, std::string_view name) {
    for (std::size_t d = 0; d < names.count; ++d)
        if (names[d] == name) return d;
    return broadcast_plan::none;
}

/// numpy's broadcasting: a and b aligned from the right; the result takes the names of a named
/// operand (the unnamed one must not be the longer).
constexpr broadcast_plan broadcast_by_position(const elementwise_shape& a, const elementwise_shape& b) {
    broadcast_plan p;
    p.result.rank = a.rank > b.rank ? a.rank : b.rank;
    p.result.names = !a.names.empty() ? a.names : b.names;
    if ((!a.names.empty() && a.rank < b.rank) || (!b.names.empty() && b.rank < a.rank)) {
        p.error = shapes_mismatch(a, b); // the unnamed operand's extra axes would have no name
        return p;
    }
    for (std::size_t r = 0; r < p.result.rank; ++r) {
        const std::size_t from_right = p.result.rank - 1 - r;
        const bool in_a = from_right < a.rank;
        const bool in_b = from_right < b.rank;
        p.source[0][r] = in_a ? a.rank - 1 - from_right : broadcast_plan::none;
        p.source[1][r] = in_b ? b.rank - 1 - from_right : broadcast_plan::none;
        const std::size_t la = in_a ? a.extents[p.source[0][r]] : 1;
        const std::size_t lb = in_b ? b.extents[p.source[1][r]] : 1;
        const merged_length m = merge_length(la, lb, true);
        if (!m.ok) {
            p.error = shapes_mismatch(a, b);
            return p;
        }
        p.result.extents[r] = m.value;
    }
    return p;
}

/// Broadcasting by names: an axis is matched with the axis of the same name. The result's order
/// is that of the operand whose names hold all the others' (the first such), else a's names then
/// b's new ones.
constexpr broadcast_plan broadcast_by_name(const elementwise_shape& a, const elementwise_shape& b) {
    broadcast_plan p;
    const matched_dims na = matched_dims_of(a);
    const matched_dims nb = matched_dims_of(b);
    for (const auto& [m, s] : {std::pair{&na, &a}, std::pair{&nb, &b}}) {
        if (m->unnamed != broadcast_plan::none) {
            p.error =
                make_error(errc::broadcast_unnamed_axis).with_number(m->unnamed).with_text(s->names.view());
            return p;
        }
    }
    bool b_holds_a = true;
    for (std::size_t i = 0; i < na.count; ++i)
        b_holds_a = b_holds_a && nb.find(na.name[i]) != broadcast_plan::none;
    bool a_holds_b = true;
    for (std::size_t i = 0; i < nb.count; ++i)
        a_holds_b = a_holds_b && na.find(nb.name[i]) != broadcast_plan::none;
    const bool b_first = b_holds_a && !a_holds_b;
    const matched_dims& lead = b_first ? nb : na;
    const matched_dims& other = b_first ? na : nb;
    std::array<std::string_view, max_dims> order{};
    std::size_t rank = 0;
    for (std::size_t i = 0; i < lead.count; ++i) order[rank++] = lead.name[i];
    for (std::size_t i = 0; i < other.count; ++i) {
        if (lead.find(other.name[i]) != broadcast_plan::none) continue;
        if (rank == max_dims) {
            p.error = make_error(errc::too_many_axes).with_number(max_dims);
            return p;
        }
        order[rank++] = other.name[i];
    }
    p.result.rank = rank;
    for (std::size_t r = 0; r < rank; ++r) {
        if (r != 0) p.result.names.push_back(' ');
        p.result.names.append(order[r]);
        p.source[0][r] = na.find(order[r]);
        p.source[1][r] = nb.find(order[r]);
        const std::size_t la = p.source[0][r] != broadcast_plan::none ? a.extents[p.source[0][r]] : dyn;
        const std::size_t lb = p.source[1][r] != broadcast_plan::none ? b.extents[p.source[1][r]] : dyn;
        const bool both = p.source[0][r] != broadcast_plan::none && p.source[1][r] != broadcast_plan::none;
        const merged_length m = merge_length(la, lb, false);
        if (both && !m.ok) {
            p.error = make_error(errc::broadcast_length_mismatch)
                          .with_text(order[r])
                          .with_number(la)
                          .with_number(lb);
            return p;
        }
        p.result.extents[r] = both ? m.value : (p.source[0][r] != broadcast_plan::none ? la : lb);
    }
    return p;
}
} // namespace detail

/// Lines up operands a and b of an element-wise expression. Named operands meet by names
/// (`"b h s d" * "s d"` broadcasts over b and h; an axis of one name must have one length); an
/// unnamed operand meets the other from the right, as in numpy (a length 1 broadcasts). Lengths
/// not known (`dyn`) are left for the program, which calls this again with the actual lengths.
///
///     make_broadcast_plan({2, {8, 64}, "s d"}, {4, {2, 4, 8, 64}, "b h s d"}).result.names == "b h s d"
constexpr broadcast_plan make_broadcast_plan(const elementwise_shape& a, const elementwise_shape& b) {
    if (!a.names.empty() && !b.names.empty()) return detail::broadcast_by_name(a, b);
    return detail::broadcast_by_position(a, b);
}

/// Where the operands of a concat meet: the joined axis `axis`, which both must have, and the
/// result, a's shape with the joined lengths added. Every other axis must be in both, with one
/// length (matched by names; named operands only).
struct concat_plan {
    diagnostic error;
    elementwise_shape result;
    std::size_t dim = 0;                          ///< the joined axis, in the result (and in a)
    std::array<std::size_t, max_dims> b_source{}; ///< b's dimension at each result dimension
};

constexpr concat_plan make_concat_plan(const elementwise_shape& a, const elementwise_shape& b,
                                       std::string_view axis) {
    concat_plan p;
    p.result = a;
    const pattern::dim_names na = pattern::split_dim_names(a.names.view());
    const pattern::dim_names nb = pattern::split_dim_names(b.names.view());
    const std::size_t dim = detail::find_name(na, axis);
    const std::size_t b_dim = detail::find_name(nb, axis);
    if (dim == broadcast_plan::none || b_dim == broadcast_plan::none) {
        p.error = make_error(errc::axis_not_in_tensor)
                      .with_text(axis)
                      .with_text(dim == broadcast_plan::none ? a.names.view() : b.names.view());
        return p;
    }
    p.dim = dim;
    bool same_names = na.count == nb.count;
    for (std::size_t d = 0; d < na.count && same_names; ++d) {
        p.b_source[d] = detail::find_name(nb, na[d]);
        same_names = p.b_source[d] != broadcast_plan::none;
    }
    if (!same_names) {
        p.error = make_error(errc::concat_names_mismatch).with_text(a.names.view()).with_text(b.names.view());
        return p;
    }
    for (std::size_t d = 0; d < na.count; ++d) {
        const std::size_t la = a.extents[d];
        const std::size_t lb = b.extents[p.b_source[d]];
        if (d == dim) {
            p.result.extents[d] = la == dyn || lb == dyn ? dyn : la + lb;
            continue;
        }
        const detail::merged_length m = detail::merge_length(la, lb, false);
        if (!m.ok) {
            p.error = make_error(errc::concat_length_mismatch)
                          .with_text(axis)
                          .with_text(na[d])
                          .with_number(la)
                          .with_number(lb);
            return p;
        }
        p.result.extents[d] = m.value;
    }
    return p;
}

} // namespace ctein::plan
