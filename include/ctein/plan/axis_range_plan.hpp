// axis_range_plan: the checks of slice, index and chunk — one named axis of a tensor narrowed to a
// range, one index or equal chunks — as constexpr functions run by the compiler on static extents
// and bounds and by the program on actual ones, so both report a mistake with the same text.
#pragma once

#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "../pattern/axis_names.hpp"
#include "recipe.hpp"

#include <cstddef>
#include <string_view>

namespace ctein::plan {

/// Which dimension the axis is, and the narrowed axis's length (`dyn` where not known).
struct axis_range_plan {
    diagnostic error;
    std::size_t dim = 0;
    std::size_t extent = dyn;
};

namespace detail {
/// The dimension of `x` named `axis` (a lone name; not `_`, a unit or a group).
constexpr axis_range_plan find_axis(const operand& x, std::string_view axis) {
    axis_range_plan p;
    const pattern::dim_names names = pattern::split_dim_names(x.names);
    for (std::size_t d = 0; d < names.count; ++d)
        if (names.names(d) && names[d] == axis) {
            p.dim = d;
            return p;
        }
    p.error = make_error(errc::axis_not_in_tensor).with_text(axis).with_text(x.names);
    return p;
}
} // namespace detail

/// `slice<Axis>(x, begin, end)`: the axis narrowed to [begin, end); `dyn` for a bound known only
/// at run time.
///
///     static_assert(make_slice_plan({3, {2, 16, 64}, "b s d"}, "s", 4, 12).extent == 8);
constexpr axis_range_plan make_slice_plan(const operand& x, std::string_view axis, std::size_t begin,
                                          std::size_t end) {
    axis_range_plan p = detail::find_axis(x, axis);
    if (p.error) return p;
    const std::size_t length = x.extents[p.dim];
    if ((begin != dyn && end != dyn && begin > end) || (end != dyn && length != dyn && end > length) ||
        (begin != dyn && length != dyn && begin > length)) {
        p.error = make_error(errc::slice_out_of_range)
                      .with_number(begin)
                      .with_number(end)
                      .with_text(axis)
                      .with_number(length);
        return p;
    }
    p.extent = begin != dyn && end != dyn ? end - begin : dyn;
    return p;
}

/// `index<Axis>(x, i)`: one position of the axis, which the result drops.
constexpr axis_range_plan make_index_plan(const operand& x, std::string_view axis, std::size_t index) {
    axis_range_plan p = detail::find_axis(x, axis);
    if (p.error) return p;
    const std::size_t length = x.extents[p.dim];
    if (index != dyn && length != dyn && index >= length) {
        p.error = make_error(errc::index_out_of_range).with_number(index).with_text(axis).with_number(length);
        return p;
    }
    p.extent = 1;
    return p;
}

/// `chunk<Axis, Count>(x)`: the axis cut into `count` equal parts (as torch.chunk when it divides).
constexpr axis_range_plan make_chunk_plan(const operand& x, std::string_view axis, std::size_t count) {
    axis_range_plan p = detail::find_axis(x, axis);
    if (p.error) return p;
    const std::size_t length = x.extents[p.dim];
    if (count == 0 || (length != dyn && length % count != 0)) {
        p.error =
            make_error(errc::chunk_not_divisible).with_text(axis).with_number(length).with_number(count);
        return p;
    }
    p.extent = length != dyn ? length / count : dyn;
    return p;
}

} // namespace ctein::plan
