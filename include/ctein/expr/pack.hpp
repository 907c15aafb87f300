// pack and unpack: einops' pack ("b * c": tensors of any rank joined along one axis) and its
// inverse. pack copies into a new tensor; unpack returns views of its input.
#pragma once

#include "../core/text_search.hpp"
#include "../kernels/copy.hpp"
#include "../plan/pack_plan.hpp"
#include "as_view.hpp"
#include "eval.hpp"
#include "operation.hpp"
#include "tensor.hpp"
#include "view.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ctein {

/// The shapes that pack joined along `*`, one extents per tensor (einops' `packed_shapes`):
/// what unpack needs to split them again. A dynamic length equal to `ctein::dyn` asks unpack
/// to infer it from the others (einops' -1).
///
///     auto [tokens, shapes] = ctein::pack<"b * c">(cls, patches);   // shapes: {extents<>, extents<14, 14>}
///     auto [cls2, patches2] = ctein::unpack<"b * c">(tokens, shapes);
///     ctein::packed_shapes heads{ctein::extents<4>{}, ctein::dims<1>(ctein::dyn)};   // [[4], [-1]]
template <extents_type... E>
struct packed_shapes {
    std::tuple<E...> shapes;

    constexpr packed_shapes() requires(E::is_static() && ...) = default;
    constexpr packed_shapes(const E&... e)
        : shapes(e...) {}

    static constexpr std::size_t size() noexcept { return sizeof...(E); }
};

namespace detail {

/// The shape of an extents object as the planner takes it, `dyn` (einops' -1) as `infer_length`.
template <class E>
constexpr plan::packed_shape packed_shape_of(const E& e, bool at_run_time) {
    plan::packed_shape s;
    s.rank = E::rank();
    for (std::size_t r = 0; r < E::rank(); ++r) {
        const std::size_t length = at_run_time ? e.extent(r) : E::static_extent(r);
        s.lengths[r] = at_run_time && length == dyn ? plan::infer_length : length;
    }
    return s;
}

/// The extents of the dimensions that tensor type V packs into `*`.
template <class V, std::size_t Before, std::size_t... K>
auto packed_extents_type(std::index_sequence<K...>) -> extents<V::extents_type::static_extent(Before + K)...>;
template <class V, std::size_t Before, std::size_t After>
using packed_extents_t =
    decltype(packed_extents_type<V, Before>(std::make_index_sequence<V::rank() - Before - After>{}));

template <fixed_string Pattern, class... V>
struct pack_planned {
    static constexpr std::array<plan::operand, sizeof...(V)> operands{operand_of<V>()...};
    static constexpr plan::pack_plan plan = plan::make_pack_plan(Pattern.view(), operands);
    static constexpr diagnostic error = plan.error;
};

/// Copies `v` into its place in the packed tensor: for each index of the axes before `*`, its
/// remaining axes are one contiguous run of the output.
template <std::size_t Before, class V, class T>
void pack_one(const V& v, T* out, std::size_t out_row, std::size_t offset) {
    const auto axes = v.mapping().axes();
    std::array<strided_axis, V::rank() - Before> inner{};
    for (std::size_t r = 0; r < inner.size(); ++r) inner[r] = axes[Before + r];
    std::array<std::size_t, Before + 1> index{};
    std::size_t outer = 1;
    for (std::size_t r = 0; r < Before; ++r) outer *= axes[r].length;
    for (std::size_t o = 0; o < outer; ++o) {
        std::ptrdiff_t from = 0;
        for (std::size_t r = 0; r < Before; ++r)
            from += static_cast<std::ptrdiff_t>(index[r]) * axes[r].stride;
        kernels::copy_strided(v.data() + from, inner, out + o * out_row + offset);
        for (std::size_t r = Before; r-- > 0;) {
            if (++index[r] < axes[r].length) break;
            index[r] = 0;
        }
    }
}

template <fixed_string Pattern, class... V>
auto pack_views(const V&... input) {
    using planned = pack_planned<Pattern, V...>;
    using T = std::common_type_t<typename V::value_type...>;
    constexpr std::size_t before = planned::plan.axes.before, after = planned::plan.axes.after;
    plan::pack_plan actual = planned::plan;
    if constexpr ((V::extents_type::rank_dynamic() + ...) != 0) {
        const std::array<plan::operand, sizeof...(V)> operands{actual_operand(input)...};
        actual = plan::make_pack_plan(Pattern.view(), operands);
        if (actual.error) {
            std::string shapes;
            ((shapes += (shapes.empty() ? "" : ", ") + shape_text(input)), ...);
            throw_error(actual.error, " while processing pack pattern \"" + std::string(Pattern.view()) +
                                          "\" on tensors of shapes " + shapes);
        }
    }
    using result_extents = output_extents_t<planned::plan>;
    std::array<std::size_t, result_extents::rank()> values{};
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = actual.output_extents[k];
    tensor_of<T, output_names<planned::plan>, result_extents> out(result_extents::from_all(values),
                                                                  uninitialized);

    std::size_t after_size = 1;
    for (std::size_t k = before + 1; k < values.size(); ++k) after_size *= values[k];
    const std::size_t out_row = values[before] * after_size;
    std::size_t i = 0, offset = 0;
    const auto place = [&](const auto& v) {
        pack_one<before>(v, out.data(), out_row, offset * after_size);
        offset += actual.packed_lengths[i++];
    };
    (place(input), ...);

    packed_shapes<packed_extents_t<V, before, after>...> shapes{
        packed_extents_t<V, before, after>::from_all([&] {
            std::array<std::size_t, packed_extents_t<V, before, after>::rank()> e{};
            for (std::size_t r = 0; r < e.size(); ++r) e[r] = input.extent(before + r);
            return e;
        }())...};
    return std::pair{std::move(out), shapes};
}

} // namespace detail

/// einops' pack: joins tensors along the `*` of `Pattern` ("b * c"), each contributing the
/// product of the dimensions it has between the axes named before and after `*`. Returns the
/// packed tensor (a new contiguous `ctein::tensor`, named by the pattern) and the packed shapes
/// that `ctein::unpack` takes to split it again.
///
///     ctein::tensor<float, "b c", 2, 64> cls;
///     ctein::tensor<float, "b h w c", 2, 14, 14, 64> patches;
///     auto [tokens, shapes] = ctein::pack<"b * c">(cls, patches);   // 2 x 197 x 64
namespace detail {
/// The mistake pack's planner finds in a call, reported at the call on g++ (core/diagnose.hpp).
template <fixed_string Pattern, class... X>
struct pack_error {
    static constexpr diagnostic value = [] {
        if constexpr (!(viewable<X> && ...) || (failed_view<view_of<X>> || ...)) {
            return diagnostic{};
        } else {
            return pack_planned<Pattern, view_of<X>...>::error;
        }
    }();
};
} // namespace detail

template <fixed_string Pattern, viewable... X>
requires(!detail::fails_at_call<detail::pack_error<Pattern, X...>::value>) auto pack(X&&... x) {
    using planned = detail::pack_planned<Pattern, view_of<X>...>;
    using failed =
        std::pair<detail::failed_operation, detail::failed_operation>; // for `auto [packed, shapes]`
    if constexpr ((detail::failed_view<view_of<X>> || ...)) {
        return failed{};
    } else if constexpr (planned::error) {
        detail::report<planned::error>();
        return failed{};
    } else if constexpr (!(view_of<X>::is_strided && ...)) {
        return pack<Pattern>(detail::strided_or_copy(x)...);
    } else {
        return detail::pack_views<Pattern>(as_view(x)...);
    }
}

/// A mistaken pack, reported at the caller's line (g++).
template <fixed_string Pattern, viewable... X,
          class Mistake = detail::reported_at_call<detail::pack_error<Pattern, X...>::value>>
requires detail::fails_at_call<detail::pack_error<Pattern, X...>::value> std::pair<Mistake, Mistake>
pack(X&&... x)
= delete;

namespace detail {

/// One failed_operation per piece, after a compile error.
template <class>
using failed_for = failed_operation;

template <fixed_string Pattern, class V, class... E>
struct unpack_planned {
    static constexpr std::array<plan::packed_shape, sizeof...(E)> shapes{packed_shape_of(E{}, false)...};
    static constexpr plan::unpack_plan plan = plan::make_unpack_plan(Pattern.view(), operand_of<V>(), shapes);
    static constexpr diagnostic error = plan.error;
};

/// The names of unpacked piece `I`: the pattern's, `_` for each dimension it unpacks ("" when
/// the pattern names nothing).
template <const plan::unpack_plan& P, std::size_t I>
constexpr bounded_string<256> piece_name_text() {
    bounded_string<256> out;
    std::string_view rest = P.axes.names.view();
    for (std::size_t axis = 0; !rest.empty(); ++axis) {
        const std::size_t end = ctein::detail::find(rest, " ");
        const std::string_view name = rest.substr(0, end);
        rest = end == ctein::detail::not_found ? std::string_view{} : rest.substr(end + 1);
        for (std::size_t d = 0; d < (axis == P.axes.before ? P.shapes[I].rank : 1); ++d) {
            if (!out.empty()) out.push_back(' ');
            out.append(axis == P.axes.before ? "_" : name);
        }
    }
    return out;
}
template <const plan::unpack_plan& P, std::size_t I>
struct piece_names {
    static constexpr bounded_string<256> text = piece_name_text<P, I>();
    static constexpr auto value = fixed_string<text.size()>(text.view());
};

template <const plan::unpack_plan& P, std::size_t I, class V, std::size_t... K>
auto piece_extents_type(std::index_sequence<K...>)
    -> extents<(K < P.axes.before ? V::extents_type::static_extent(K)
                : K < P.axes.before + P.shapes[I].rank
                    ? P.shapes[I].lengths[K - P.axes.before]
                    : V::extents_type::static_extent(K - P.shapes[I].rank + 1))...>;

/// The type of unpacked piece `I` of a V.
template <const plan::unpack_plan& P, std::size_t I, class V>
using piece_t =
    view<typename V::element_type, piece_names<P, I>::value,
         decltype(piece_extents_type<P, I, V>(std::make_index_sequence<V::rank() - 1 + P.shapes[I].rank>{})),
         layout_stride>;

template <const plan::unpack_plan& P, std::size_t I, class V>
piece_t<P, I, V> piece(const V& input, const plan::unpack_plan& actual) {
    using piece_type = piece_t<P, I, V>;
    using piece_extents = typename piece_type::extents_type;
    constexpr std::size_t before = P.axes.before, rank = P.shapes[I].rank;
    std::array<std::size_t, piece_extents::rank()> lengths{};
    std::array<std::ptrdiff_t, piece_extents::rank()> strides{};
    std::ptrdiff_t inner = input.stride(before);
    for (std::size_t k = piece_extents::rank(); k-- > 0;) {
        if (k < before || k >= before + rank) {
            const std::size_t from = k < before ? k : k - rank + 1;
            lengths[k] = input.extent(from);
            strides[k] = input.stride(from);
        } else {
            lengths[k] = actual.shapes[I].lengths[k - before];
            strides[k] = inner;
            inner *= static_cast<std::ptrdiff_t>(lengths[k]);
        }
    }
    const auto* start = input.data() + static_cast<std::ptrdiff_t>(actual.offsets[I]) * input.stride(before);
    return piece_type(const_cast<typename V::element_type*>(start),
                      typename piece_type::mapping_type(piece_extents::from_all(lengths), strides));
}

template <fixed_string Pattern, class V, class... E, std::size_t... I>
auto unpack_view(const V& input, const packed_shapes<E...>& shapes, std::index_sequence<I...>) {
    using planned = unpack_planned<Pattern, V, E...>;
    const std::array<plan::packed_shape, sizeof...(E)> actual_shapes{
        packed_shape_of(std::get<I>(shapes.shapes), true)...};
    const plan::unpack_plan actual =
        plan::make_unpack_plan(Pattern.view(), actual_operand(input), actual_shapes);
    if (actual.error)
        throw_error(actual.error, " while processing unpack pattern \"" + std::string(Pattern.view()) +
                                      "\" on a tensor of shape " + shape_text(input));
    return std::tuple{piece<planned::plan, I>(input, actual)...};
}

} // namespace detail

/// einops' unpack: splits `x` along the `*` of `Pattern` into tensors of the packed shapes
/// (from `ctein::pack`, or written: a length `ctein::dyn` is inferred, einops' -1). Returns a
/// std::tuple of views of `x`, no copy, each with the static extents the shapes give.
///
///     auto [cls, patches] = ctein::unpack<"b * c">(tokens, shapes);
namespace detail {
/// The mistake unpack's planner finds in a call, reported at the call on g++ (core/diagnose.hpp).
template <fixed_string Pattern, class X, class... E>
struct unpack_error {
    static constexpr diagnostic value = [] {
        if constexpr (!viewable<X>) {
            return diagnostic{};
        } else if constexpr (failed_view<view_of<X>> || !borrowable<X> || !view_of<X>::is_strided) {
            return diagnostic{}; // reported by the body
        } else {
            return unpack_planned<Pattern, view_of<X>, E...>::error;
        }
    }();
};
} // namespace detail

template <fixed_string Pattern, viewable X, extents_type... E>
requires(!detail::fails_at_call<detail::unpack_error<Pattern, X&&, E...>::value>) auto unpack(
    X&& x, const packed_shapes<E...>& shapes) {
    using V = view_of<X>;
    using failed = std::tuple<detail::failed_for<E>...>; // for `auto [a, b, ...]`
    if constexpr (!detail::can_view_without_copy<X&&>()) {
        return failed{};
    } else if constexpr (detail::unpack_planned<Pattern, V, E...>::error) {
        detail::report<detail::unpack_planned<Pattern, V, E...>::error>();
        return failed{};
    } else {
        return detail::unpack_view<Pattern>(as_view(x), shapes, std::index_sequence_for<E...>{});
    }
}

/// A mistaken unpack, reported at the caller's line (g++).
template <fixed_string Pattern, viewable X, extents_type... E,
          class Mistake = detail::reported_at_call<detail::unpack_error<Pattern, X&&, E...>::value>>
requires detail::fails_at_call<detail::unpack_error<Pattern, X&&, E...>::value>
    std::tuple<detail::failed_for<E>...> unpack(X&& x, const packed_shapes<E...>& shapes)
= delete;

} // namespace ctein
