// describe: a one-line account of a tensor or view for logs and examples: its axis names,
// extents (static ones marked), element type and layout.
#pragma once

#include "as_view.hpp"

#include <cstdint>
#include <string>
#include <type_traits>

namespace ctein {

namespace detail {
template <class T>
constexpr const char* element_name() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, float>)
        return "float";
    else if constexpr (std::is_same_v<U, double>)
        return "double";
    else if constexpr (std::is_same_v<U, bool>)
        return "bool";
    else if constexpr (std::is_same_v<U, std::int64_t>)
        return "int64";
    else if constexpr (std::is_same_v<U, std::int32_t>)
        return "int32";
    else
        return "element";
}
} // namespace detail

/// "b h s d (2, 8, 5*, 64) float, strided view": names, extents (`*` marks a dynamic one),
/// element type and layout.
///
///     std::cout << ctein::describe(ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>));
template <viewable X>
std::string describe(X&& x) {
    return detail::with_view(x, []<class V>(const V& v) {
        std::string out = V::names.view().empty() ? std::string("(unnamed)") : std::string(V::names.view());
        out += " (";
        for (std::size_t r = 0; r < V::rank(); ++r) {
            out += (r == 0 ? "" : ", ") + std::to_string(v.extent(r));
            if (V::extents_type::static_extent(r) == dyn) out += "*";
        }
        out += std::string(") ") + detail::element_name<typename V::element_type>();
        if constexpr (tensor_type<X>) {
            out += ", tensor";
        } else if constexpr (std::is_same_v<typename V::layout_type, layout_right>) {
            out += ", contiguous view";
        } else if constexpr (V::is_strided) {
            out += ", strided view";
        } else {
            out += ", grouped view (copy with ctein::eval to make it strided)";
        }
        return out;
    });
}

} // namespace ctein
