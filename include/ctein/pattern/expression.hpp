// The parsed form of one side of a pattern ("b s (h d)"), as plain constexpr data.
// Names are kept as positions in the pattern text, so results can be copied, compared and
// stored in constexpr variables without pointing into strings.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ctein::pattern {

/// ctein's limits: elementary axes per side and dimensions per tensor.
inline constexpr std::size_t max_axes = 24;
inline constexpr std::size_t max_dims = 16;

/// A span of the pattern text.
struct text_ref {
    std::uint16_t begin = 0;
    std::uint16_t size = 0;

    constexpr std::string_view in(std::string_view text) const noexcept { return text.substr(begin, size); }
};

enum class axis_kind : unsigned char { named, anonymous, ellipsis };

/// An elementary axis as written: a name, a number (an anonymous axis), or the ellipsis.
struct axis {
    axis_kind kind = axis_kind::named;
    text_ref where;
    std::size_t length = 0; ///< anonymous axes only

    constexpr bool is_named() const noexcept { return kind == axis_kind::named; }
    constexpr bool is_ellipsis() const noexcept { return kind == axis_kind::ellipsis; }
};

/// One entry of a side's top-level composition: a lone axis, a group `(h d)`, the ellipsis,
/// or a unit dimension (`()` or `1`, a group with no axes).
struct dim {
    std::uint8_t first = 0; ///< index of its first axis in expression::axes
    std::uint8_t count = 0; ///< number of axes; 0 for a unit dimension
    bool grouped = false;   ///< written in parentheses
    text_ref where;
};

/// One side of a pattern.
struct expression {
    std::array<axis, max_axes> axes{};
    std::size_t axis_count = 0;
    std::array<dim, max_dims> dims{};
    std::size_t dim_count = 0;

    bool has_ellipsis = false;
    bool ellipsis_parenthesized = false;
    bool has_non_unitary_anonymous = false;
    text_ref where; ///< the whole side, spaces included

    constexpr const axis& axis_of(const dim& d, std::size_t i) const noexcept { return axes[d.first + i]; }

    /// The dimension holding the ellipsis as a lone entry, or dim_count when there is none.
    constexpr std::size_t ellipsis_dim() const noexcept {
        for (std::size_t i = 0; i < dim_count; ++i)
            if (!dims[i].grouped && dims[i].count == 1 && axes[dims[i].first].is_ellipsis()) return i;
        return dim_count;
    }

    /// Whether the named axis `name` appears on this side.
    constexpr bool has_name(std::string_view text, std::string_view name) const noexcept {
        return find_name(text, name) != axis_count;
    }
    /// The index of the named axis `name`, or axis_count.
    constexpr std::size_t find_name(std::string_view text, std::string_view name) const noexcept {
        for (std::size_t i = 0; i < axis_count; ++i)
            if (axes[i].is_named() && axes[i].where.in(text) == name) return i;
        return axis_count;
    }
};

} // namespace ctein::pattern
