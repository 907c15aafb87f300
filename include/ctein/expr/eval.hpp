// eval: copies any view into a contiguous tensor with the same axis names and extents.
#pragma once

#include "../kernels/copy.hpp"
#include "as_view.hpp"
#include "tensor.hpp"

namespace ctein {

/// A contiguous, owning copy of `x`, with the same axis names and extents in its type.
///
///     auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);   // a view
///     auto q_contiguous = ctein::eval(q);                                          // a ctein::tensor
template <viewable X>
auto eval(X&& x) {
    return detail::with_view(x, []<class V>(const V& v) {
        tensor_of<typename V::element_type, V::names, typename V::extents_type> out(v.extents());
        kernels::copy_strided(v.data(), v.mapping().axes(), out.data());
        return out;
    });
}

} // namespace ctein
