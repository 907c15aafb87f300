// slice, index and chunk: one named axis of a tensor narrowed to a range, to one position (the
// axis dropped) or cut into equal parts — views of the input, no copy. The checks are
// plan/axis_range_plan.hpp's: compile errors for static extents and bounds, ctein::shape_errors
// with the same text otherwise.
#pragma once

#include "../plan/axis_range_plan.hpp"
#include "as_view.hpp"
#include "operation.hpp"
#include "view.hpp"

#include <array>
#include <concepts>
#include <cstddef>
#include <string>
#include <utility>

namespace ctein {
namespace detail {

/// V's extents with dimension Dim's length replaced by `Length` (`dyn` or a constant).
template <class V, std::size_t Dim, std::size_t Length, std::size_t... R>
auto replaced_extents_type(std::index_sequence<R...>)
    -> extents<(R == Dim ? Length : V::extents_type::static_extent(R))...>;
template <class V, std::size_t Dim, std::size_t Length>
using replaced_extents =
    decltype(replaced_extents_type<V, Dim, Length>(std::make_index_sequence<V::rank()>{}));

/// V's extents without dimension Dim.
template <class V, std::size_t Dim, std::size_t... R>
auto dropped_extents_type(std::index_sequence<R...>)
    -> extents<V::extents_type::static_extent(R < Dim ? R : R + 1)...>;
template <class V, std::size_t Dim>
using dropped_extents = decltype(dropped_extents_type<V, Dim>(std::make_index_sequence<V::rank() - 1>{}));

/// V's axis names without dimension Dim.
template <class V, std::size_t Dim>
constexpr bounded_string<256> names_without() {
    const pattern::dim_names names = pattern::split_dim_names(V::names.view());
    bounded_string<256> out;
    for (std::size_t d = 0; d < names.count; ++d) {
        if (d == Dim) continue;
        if (!out.empty()) out.push_back(' ');
        out.append(names[d]);
    }
    return out;
}
template <class V, std::size_t Dim>
inline constexpr bounded_string<256> names_without_text = names_without<V, Dim>();
template <class V, std::size_t Dim>
inline constexpr auto
    names_without_v = fixed_string<names_without_text<V, Dim>.size()>(names_without_text<V, Dim>.view());

/// Throws the plan's error for the actual extents, with the call as context.
inline void throw_if(const plan::axis_range_plan& actual, std::string_view operation, std::string shape) {
    if (actual.error)
        throw_error(actual.error,
                    " while processing " + std::string(operation) + " on a tensor of shape " + shape);
}

/// Dimension `Dim` of strided view `v` from `begin`, `length` long: a strided view of the same names.
template <class Result, std::size_t Dim, class V>
Result narrowed(const V& v, std::size_t begin, std::size_t length) {
    std::array<std::size_t, V::rank()> lengths{};
    std::array<std::ptrdiff_t, V::rank()> strides{};
    for (std::size_t r = 0; r < V::rank(); ++r) {
        lengths[r] = r == Dim ? length : v.extent(r);
        strides[r] = v.stride(r);
    }
    using E = typename Result::extents_type;
    return Result(v.data() + static_cast<std::ptrdiff_t>(begin) * v.stride(Dim),
                  typename Result::mapping_type(E::from_all(lengths), strides));
}

/// The plan of a slice with bounds Begin, End (`dyn`: given at run time) on X.
template <fixed_string Axis, std::size_t Begin, std::size_t End, class X>
struct slice_planned {
    static constexpr plan::axis_range_plan plan =
        plan::make_slice_plan(operand_of<view_of<X>>(), Axis.view(), Begin, End);
    static constexpr diagnostic error = plan.error;
};

template <fixed_string Axis, std::size_t Index, class X>
struct index_planned {
    static constexpr plan::axis_range_plan plan =
        plan::make_index_plan(operand_of<view_of<X>>(), Axis.view(), Index);
    static constexpr diagnostic error = plan.error;
};
template <fixed_string Axis, std::size_t Count, class X>
struct chunk_planned {
    static constexpr plan::axis_range_plan plan =
        plan::make_chunk_plan(operand_of<view_of<X>>(), Axis.view(), Count);
    static constexpr diagnostic error = plan.error;
};

/// The mistake `Planned` finds in a call on X, reported at the call on g++ (core/diagnose.hpp);
/// none when X cannot be read or viewed, which the body reports.
template <class Planned, class X>
struct narrowing_error {
    static constexpr diagnostic value = [] {
        if constexpr (!viewable<X>) { // substituted before the overload's constraints are checked
            return diagnostic{};
        } else if constexpr (failed_view<view_of<X>> || !borrowable<X> || !view_of<X>::is_strided) {
            return diagnostic{};
        } else {
            return Planned::error;
        }
    }();
};
template <fixed_string Axis, std::size_t Begin, std::size_t End, class X>
inline constexpr const diagnostic& slice_error =
    narrowing_error<slice_planned<Axis, Begin, End, X>, X>::value;
template <fixed_string Axis, std::size_t Index, class X>
inline constexpr const diagnostic& index_error = narrowing_error<index_planned<Axis, Index, X>, X>::value;
template <fixed_string Axis, std::size_t Count, class X>
inline constexpr const diagnostic& chunk_error = narrowing_error<chunk_planned<Axis, Count, X>, X>::value;

template <fixed_string Axis, std::size_t Begin, std::size_t End, class X>
auto slice_of(X&& x, std::size_t begin, std::size_t end) {
    using V = view_of<X>;
    using planned = slice_planned<Axis, Begin, End, X>;
    if constexpr (!can_view_without_copy<X&&>()) {
        return failed_operation{};
    } else if constexpr (planned::plan.error) {
        report<planned::error>();
        return failed_operation{};
    } else {
        constexpr std::size_t dim = planned::plan.dim;
        const V v = as_view(x);
        throw_if(plan::make_slice_plan(actual_operand(v), Axis.view(), begin, end), "slice", shape_text(v));
        using result = view<typename V::element_type, V::names,
                            replaced_extents<V, dim, planned::plan.extent>, layout_stride>;
        return narrowed<result, dim>(v, begin, end - begin);
    }
}
} // namespace detail

/// Positions [begin, end) of the axis named `Axis`: a view of `x` (no copy), with the same names
/// and a dynamic extent there. A KV cache's first `length` tokens, the seeds' `x[:, :, :t]`:
///
///     auto k_now = ctein::slice<"s">(k_cache, 0, length);   // [B, H, length, D], a view
///
/// Bounds out of range throw ctein::shape_error naming the axis; an axis the tensor's names do
/// not have is a compile error (name an unnamed tensor with ctein::named first).
template <fixed_string Axis, viewable X, std::integral Begin, std::integral End>
requires(!detail::fails_at_call<detail::slice_error<Axis, dyn, dyn, X&&>>) auto slice(X&& x, Begin begin,
                                                                                      End end) {
    return detail::slice_of<Axis, dyn, dyn>(std::forward<X>(x), static_cast<std::size_t>(begin),
                                            static_cast<std::size_t>(end));
}
template <fixed_string Axis, viewable X, std::integral Begin, std::integral End,
          class Mistake = detail::reported_at_call<detail::slice_error<Axis, dyn, dyn, X&&>>>
requires detail::fails_at_call<detail::slice_error<Axis, dyn, dyn, X&&>> Mistake slice(X&& x, Begin begin,
                                                                                       End end)
= delete;

/// Positions [Begin, End) of the axis named `Axis`, bounds known to the compiler: the extent is
/// static, and bounds out of a static extent are a compile error.
///
///     auto first_half = ctein::slice<"d", 0, 32>(q);   // extent 32 in the type
template <fixed_string Axis, std::size_t Begin, std::size_t End, viewable X>
requires(!detail::fails_at_call<detail::slice_error<Axis, Begin, End, X&&>>) auto slice(X&& x) {
    return detail::slice_of<Axis, Begin, End>(std::forward<X>(x), Begin, End);
}
template <fixed_string Axis, std::size_t Begin, std::size_t End, viewable X,
          class Mistake = detail::reported_at_call<detail::slice_error<Axis, Begin, End, X&&>>>
requires detail::fails_at_call<detail::slice_error<Axis, Begin, End, X&&>> Mistake slice(X&& x)
= delete;

namespace detail {
template <fixed_string Axis, std::size_t Index, class X>
auto index_of(X&& x, std::size_t index) {
    using V = view_of<X>;
    if constexpr (!can_view_without_copy<X&&>()) {
        return failed_operation{};
    } else {
        using planned = index_planned<Axis, Index, X>;
        if constexpr (planned::plan.error) {
            report<planned::error>();
            return failed_operation{};
        } else {
            constexpr std::size_t dim = planned::plan.dim;
            const V v = as_view(x);
            throw_if(plan::make_index_plan(actual_operand(v), Axis.view(), index), "index", shape_text(v));
            std::array<std::size_t, V::rank() - 1> lengths{};
            std::array<std::ptrdiff_t, V::rank() - 1> strides{};
            for (std::size_t r = 0, k = 0; r < V::rank(); ++r) {
                if (r == dim) continue;
                lengths[k] = v.extent(r);
                strides[k++] = v.stride(r);
            }
            using E = dropped_extents<V, dim>;
            using result = view<typename V::element_type, names_without_v<V, dim>, E, layout_stride>;
            return result(v.data() + static_cast<std::ptrdiff_t>(index) * v.stride(dim),
                          typename result::mapping_type(E::from_all(lengths), strides));
        }
    }
}
} // namespace detail

/// Position `i` of the axis named `Axis`, which the result drops: a view of `x`. The seeds'
/// `qkv[0]` of a `"three b h s d"` tensor:
///
///     auto q = ctein::index<"three">(qkv, 0);   // "b h s d"
template <fixed_string Axis, viewable X, std::integral I>
requires(!detail::fails_at_call<detail::index_error<Axis, dyn, X&&>>) auto index(X&& x, I i) {
    return detail::index_of<Axis, dyn>(std::forward<X>(x), static_cast<std::size_t>(i));
}
template <fixed_string Axis, viewable X, std::integral I,
          class Mistake = detail::reported_at_call<detail::index_error<Axis, dyn, X&&>>>
requires detail::fails_at_call<detail::index_error<Axis, dyn, X&&>> Mistake index(X&& x, I i)
= delete;
/// Position `I` of the axis named `Axis`, known to the compiler (a compile error when out of a
/// static extent).
template <fixed_string Axis, std::size_t I, viewable X>
requires(!detail::fails_at_call<detail::index_error<Axis, I, X&&>>) auto index(X&& x) {
    return detail::index_of<Axis, I>(std::forward<X>(x), I);
}
template <fixed_string Axis, std::size_t I, viewable X,
          class Mistake = detail::reported_at_call<detail::index_error<Axis, I, X&&>>>
requires detail::fails_at_call<detail::index_error<Axis, I, X&&>> Mistake index(X&& x)
= delete;

/// The axis named `Axis` cut into `Count` equal parts (torch.chunk where the length divides): a
/// std::array of views of `x`, each with the static extent length / Count where the length is
/// static. A length that does not divide is a compile error (static) or a ctein::shape_error.
///
///     auto [x1, x2] = ctein::chunk<"d", 2>(x);   // RoPE's halves
template <fixed_string Axis, std::size_t Count, viewable X>
requires(!detail::fails_at_call<detail::chunk_error<Axis, Count, X&&>>) auto chunk(X&& x) {
    using V = view_of<X>;
    if constexpr (!detail::can_view_without_copy<X&&>()) {
        return std::array<detail::failed_operation, Count>{};
    } else {
        using planned = detail::chunk_planned<Axis, Count, X>;
        if constexpr (planned::plan.error) {
            detail::report<planned::error>();
            return std::array<detail::failed_operation, Count>{};
        } else {
            constexpr std::size_t dim = planned::plan.dim;
            const V v = as_view(x);
            const plan::axis_range_plan actual =
                plan::make_chunk_plan(detail::actual_operand(v), Axis.view(), Count);
            detail::throw_if(actual, "chunk", detail::shape_text(v));
            using result = view<typename V::element_type, V::names,
                                detail::replaced_extents<V, dim, planned::plan.extent>, layout_stride>;
            std::array<result, Count> parts;
            for (std::size_t c = 0; c < Count; ++c)
                parts[c] = detail::narrowed<result, dim>(v, c * actual.extent, actual.extent);
            return parts;
        }
    }
}

/// A mistaken chunk, reported at the caller's line (g++).
template <fixed_string Axis, std::size_t Count, viewable X,
          class Mistake = detail::reported_at_call<detail::chunk_error<Axis, Count, X&&>>>
requires detail::fails_at_call<detail::chunk_error<Axis, Count, X&&>> std::array<Mistake, Count> chunk(X&& x)
= delete;

} // namespace ctein
