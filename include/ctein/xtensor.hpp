// xtensor interoperability: xtensor containers and adaptors are read as ctein views (no copy;
// xtensor_fixed keeps its static extents), and ctein views are handed to xtensor as
// expressions (static-shaped when their extents and layout allow).
#pragma once

#include "core/diagnose.hpp"
#include "core/simd_headers.hpp" // before xtensor, which includes xsimd: its warnings stay quiet
#include "expr/as_view.hpp"
#include "expr/layout.hpp"
#include "expr/view.hpp"

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace ctein {

namespace detail {
/// An xtensor expression with static rank N, read through its data, shape and strides.
template <class X, std::size_t N, bool Owning>
struct xtensor_strided_adaptor {
    static constexpr bool owning = Owning;
    template <class Y> // X or const X
    static auto view(Y& x) {
        using T = std::remove_reference_t<decltype(*x.data())>;
        using E = dims<N>;
        std::array<std::size_t, N> shape{};
        for (std::size_t r = 0; r < N; ++r) shape[r] = x.shape()[r];
        if constexpr (std::remove_cv_t<X>::static_layout == xt::layout_type::row_major) {
            return ctein::view<T, "", E, layout_right>(x.data(), E::from_all(shape));
        } else {
            std::array<std::ptrdiff_t, N> strides{};
            for (std::size_t r = 0; r < N; ++r) strides[r] = static_cast<std::ptrdiff_t>(x.strides()[r]);
            return ctein::view<T, "", E, layout_stride>(
                x.data(), typename layout_stride::template mapping<E>(E::from_all(shape), strides));
        }
    }
};

/// xtensor_fixed and fixed adaptors: the extents are in the type, and stay there.
template <class X, class Shape, bool Owning>
struct xtensor_fixed_adaptor;
template <class X, std::size_t... S, bool Owning>
struct xtensor_fixed_adaptor<X, xt::fixed_shape<S...>, Owning> {
    static constexpr bool owning = Owning;
    template <class Y> // X or const X
    static auto view(Y& x) {
        using T = std::remove_reference_t<decltype(*x.data())>;
        static_assert(std::remove_cv_t<X>::static_layout == xt::layout_type::row_major,
                      "ctein reads xtensor_fixed in row-major layout only");
        return ctein::view<T, "", extents<S...>, layout_right>(x.data(), extents<S...>{});
    }
};
} // namespace detail

template <class EC, std::size_t N, xt::layout_type L, class Tag>
struct view_adaptor<xt::xtensor_container<EC, N, L, Tag>>
    : detail::xtensor_strided_adaptor<xt::xtensor_container<EC, N, L, Tag>, N, true> {};
template <class EC, std::size_t N, xt::layout_type L, class Tag>
struct view_adaptor<xt::xtensor_adaptor<EC, N, L, Tag>>
    : detail::xtensor_strided_adaptor<xt::xtensor_adaptor<EC, N, L, Tag>, N, false> {};
template <class ET, class S, xt::layout_type L, bool SH, class Tag>
struct view_adaptor<xt::xfixed_container<ET, S, L, SH, Tag>>
    : detail::xtensor_fixed_adaptor<xt::xfixed_container<ET, S, L, SH, Tag>, S, true> {};
template <class EC, class S, xt::layout_type L, bool SH, class Tag>
struct view_adaptor<xt::xfixed_adaptor<EC, S, L, SH, Tag>>
    : detail::xtensor_fixed_adaptor<xt::xfixed_adaptor<EC, S, L, SH, Tag>, S, false> {};

namespace detail {
/// xtensor's own views: their rank and strides are not in a form ctein can read in place (an
/// xt::view's slices are resolved only through its element access), so ctein refuses them with
/// a reason rather than copy behind the caller's back.
struct xtensor_view_refused {
    static constexpr bool owning = false;
    template <class Y>
    static auto view(Y&) {
        static_assert(
            always_false<Y>,
            "ctein does not read xt::view or xt::strided_view in place: read the container and narrow "
            "it with ctein::slice / ctein::index, or copy the view into an xt::xtensor<T, N>");
        return failed_operation{};
    }
};
} // namespace detail
template <class CT, class... S>
struct view_adaptor<xt::xview<CT, S...>> : detail::xtensor_view_refused {};
template <class CT, class S, xt::layout_type L, class FST>
struct view_adaptor<xt::xstrided_view<CT, S, L, FST>> : detail::xtensor_view_refused {};

/// xt::xarray has no rank in its type, and ctein's results need one.
template <class EC, xt::layout_type L, class SC, class Tag>
struct view_adaptor<xt::xarray_container<EC, L, SC, Tag>> {
    static constexpr bool owning = true;
    template <class Y>
    static auto view(Y&) {
        static_assert(detail::always_false<Y>,
                      "ctein reads tensors whose rank is in their type: use xt::xtensor<T, N>, "
                      "or ctein::adapt<\"names\", extents...>(a.data(), ...)");
        return detail::failed_operation{};
    }
};

namespace detail {
template <class V>
auto to_xtensor_of(const V& v) {
    using E = typename V::extents_type;
    static_assert(V::is_strided, "ctein::to_xtensor: the view merges axes that are not adjacent in memory; "
                                 "materialise it with ctein::eval first");
    if constexpr (std::is_same_v<typename V::layout_type, layout_right> && E::is_static()) {
        return [&]<std::size_t... R>(std::index_sequence<R...>) {
            return xt::adapt(v.data(), xt::fixed_shape<E::static_extent(R)...>{});
        }
        (std::make_index_sequence<E::rank()>{});
    } else {
        std::array<std::size_t, E::rank()> shape{};
        std::array<std::ptrdiff_t, E::rank()> strides{};
        for (std::size_t r = 0; r < E::rank(); ++r) {
            shape[r] = v.extent(r);
            strides[r] = shape[r] == 1 ? 0 : v.stride(r); // xtensor's convention for unit dimensions
        }
        return xt::adapt(v.data(), v.mapping().required_span_size(), xt::no_ownership(), shape, strides);
    }
}
} // namespace detail

/// An xtensor expression over the elements of `x` (no copy). A contiguous view with static
/// extents gives an `xt::xfixed_adaptor`, whose shape is in its type; other strided views give an
/// `xt::xtensor_adaptor`. Views that merge axes not adjacent in memory need `ctein::eval` first; a
/// temporary tensor (`to_xtensor(ctein::eval(v))`) is a compile error, as the adaptor would dangle.
///
///     auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
///     xt::xtensor<float, 4> doubled = 2.0f * ctein::to_xtensor(q);
template <viewable X>
auto to_xtensor(X&& x) {
    if constexpr (!detail::can_borrow<X&&>()) {
        return detail::failed_operation{}; // the adaptor would outlive a temporary tensor
    } else {
        return detail::to_xtensor_of(as_view(x));
    }
}

} // namespace ctein
