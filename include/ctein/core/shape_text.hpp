// Shapes written the way einops' messages write them: Python tuples and lists.
#pragma once

#include "bounded_string.hpp"
#include "extents.hpp"

#include <cstddef>
#include <span>

namespace ctein {

/// Appends `(2, 3)`, `(2,)` for one dimension, `()` for none; a length the compiler does not
/// know (`dyn`) as `?`.
template <std::size_t Capacity>
constexpr void append_python_tuple(bounded_string<Capacity>& out,
                                   std::span<const std::size_t> shape) noexcept {
    out.push_back('(');
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i != 0) out.append(", ");
        if (shape[i] == dyn) {
            out.push_back('?');
        } else {
            out.append_number(shape[i]);
        }
    }
    if (shape.size() == 1) out.push_back(',');
    out.push_back(')');
}

/// Appends `[2, 3]`, writing `dyn` as einops' `-1` ("infer this length").
template <std::size_t Capacity>
constexpr void append_python_list(bounded_string<Capacity>& out,
                                  std::span<const std::size_t> shape) noexcept {
    out.push_back('[');
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i != 0) out.append(", ");
        if (shape[i] == dyn) {
            out.append("-1");
        } else {
            out.append_number(shape[i]);
        }
    }
    out.push_back(']');
}

} // namespace ctein
