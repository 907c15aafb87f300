// The plan of parse_shape ("b _ h w"): which dimensions of a tensor the pattern names, checked
// with einops' rules (einops.parse_shape). Constexpr, for static and actual extents alike.
#pragma once

#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "../core/shape_text.hpp"
#include "../pattern/parse.hpp"
#include "recipe.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ctein::plan {

struct parse_shape_plan {
    diagnostic error;
    std::size_t count = 0;                     ///< named dimensions
    std::array<std::uint8_t, max_dims> dims{}; ///< the tensor dimension of each
    bounded_string<256> output_names;          ///< their names, space-separated

    constexpr bool ok() const noexcept { return !error; }
};

/// Plans `parse_shape(input, pattern)`: one name, `_`, number, `1`, `()` or `(name)` per
/// dimension, an ellipsis for any number of them. Lengths are checked where they are known.
constexpr parse_shape_plan make_parse_shape_plan(std::string_view text, const operand& input) {
    parse_shape_plan p;
    const auto parsed = pattern::parse_expression(text, {0, static_cast<std::uint16_t>(text.size())},
                                                  {.allow_underscore = true});
    if ((p.error = parsed.error)) return p;
    const pattern::expression& e = parsed.value;
    const auto fail = [&](errc code) -> parse_shape_plan& {
        bounded_string<8 * max_dims> shape;
        append_python_tuple(shape, std::span(input.extents).first(input.rank));
        p.error = make_error(code).with_text(text).with_text(shape.view());
        return p;
    };
    for (std::size_t k = 0; k < e.dim_count; ++k)
        if (e.dims[k].count > 1) return fail(errc::parse_shape_composite);
    if (e.has_ellipsis ? input.rank + 1 < e.dim_count : input.rank != e.dim_count)
        return fail(e.has_ellipsis ? errc::parse_shape_ellipsis_ndim : errc::parse_shape_ndim);
    const std::size_t covered = e.has_ellipsis ? input.rank + 1 - e.dim_count : 0;
    for (std::size_t k = 0, t = 0; k < e.dim_count; ++k) {
        if (k == e.ellipsis_dim()) {
            t += covered;
            continue;
        }
        const pattern::dim& d = e.dims[k];
        const std::size_t length = input.extents[t];
        if (d.count == 0) {
            if (length != dyn && length != 1) return fail(errc::parse_shape_unit_axis);
        } else if (const pattern::axis& a = e.axis_of(d, 0); a.kind == pattern::axis_kind::anonymous) {
            if (length != dyn && length != a.length) return fail(errc::parse_shape_anonymous_mismatch);
        } else if (a.where.in(text) != "_") {
            if (p.count != 0) p.output_names.push_back(' ');
            p.output_names.append(a.where.in(text));
            p.dims[p.count++] = static_cast<std::uint8_t>(t);
        }
        ++t;
    }
    return p;
}

} // namespace ctein::plan
