// eval and assign: copy any view into contiguous memory, a new tensor (eval) or one the caller
// owns (assign), with the copy kernel.
#pragma once

#include "../core/diagnose.hpp"
#include "../core/error.hpp"
#include "../kernels/copy.hpp"
#include "as_view.hpp"
#include "tensor.hpp"

#include <cstddef>
#include <string>
#include <type_traits>

namespace ctein {

/// A contiguous, owning copy of `x`, with the same axis names and extents in its type.
///
///     auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);   // a view
///     auto q_contiguous = ctein::eval(q);                                          // a ctein::tensor
template <viewable X>
auto eval(X&& x) {
    using V = view_of<X>;
    if constexpr (detail::failed_view<V>) {
        return V{}; // as_view has reported why it cannot read X
    } else if constexpr (detail::computed<X>) {
        return view_adaptor<std::remove_cvref_t<X>>::evaluate(x);
    } else {
        const V v = as_view(x);
        tensor_of<typename V::element_type, V::names, typename V::extents_type> out(v.extents(), uninitialized); // the copy writes every element
        kernels::copy_strided(v.data(), v.mapping().axes(), out.data());
        return out;
    }
}

namespace detail {
template <class Out, class V>
void check_assignable(const Out& out, const V& v) {
    static_assert(!std::is_const_v<typename Out::element_type>,
                  "ctein::assign: the output is read-only (const)");
    static_assert(std::is_same_v<typename Out::layout_type, layout_right>,
                  "ctein::assign: the output must be contiguous (a ctein::tensor, ctein::adapt or a "
                  "row-major container)");
    static_assert(std::is_same_v<typename Out::value_type, typename V::value_type>,
                  "ctein::assign: the output and the input have different element types");
    static_assert(Out::rank() == V::rank(), "ctein::assign: the output and the input have different ranks");
    static_assert(Out::names.view().empty() || V::names.view().empty() || Out::names == V::names,
                  "ctein::assign: the output and the input name their axes differently");
    if constexpr (Out::rank() == V::rank()) {
        constexpr const diagnostic& static_error = static_assign<typename Out::extents_type, typename V::extents_type>;
        if constexpr (static_cast<bool>(static_error)) {
            report<static_error>(); // a weight of [64, 32] given to a layer's [64, 64]
        } else {
            for (std::size_t r = 0; r < V::rank(); ++r) {
                if (out.extent(r) != v.extent(r))
                    throw_error(make_error(errc::assign_shape).with_number(r).with_number(v.extent(r)).with_number(out.extent(r)),
                                "in ctein::assign");
            }
        }
    }
}
} // namespace detail

/// Copies the elements of `x` into `out`, which must be contiguous and writable (a
/// `ctein::tensor`, `ctein::adapt` over a buffer, a row-major xtensor container) with the same
/// element type and extents: compared at compile time where both are static, else at run time
/// (a `ctein::shape_error`). If both name their axes, the names must agree. `x` must not
/// overlap `out`. Unlike `eval`, allocates nothing: for loops that reuse their buffers.
///
///     ctein::tensor<float, "b h s d", 2, 8, 128, 64> q;
///     ctein::assign(q, ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>));
template <viewable Out, viewable X>
void assign(Out&& out, X&& x) {
    if constexpr (detail::computed<X>) { // an element-wise expression, computed into out in one pass
        detail::with_view(out, [&]<class O>(const O& o) {
            using adaptor = view_adaptor<std::remove_cvref_t<X>>;
            using V = typename adaptor::computed_view;
            detail::check_assignable(o, V(nullptr, typename V::mapping_type(x.extents())));
            adaptor::evaluate_into(o, x);
        });
    } else {
        detail::with_view(out, [&]<class O>(const O& o) {
            return detail::with_view(x, [&]<class V>(const V& v) {
                detail::check_assignable(o, v);
                kernels::copy_strided(v.data(), v.mapping().axes(), o.data());
            });
        });
    }
}

} // namespace ctein
