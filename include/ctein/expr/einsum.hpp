// einsum: einops' einsum with the pattern checked by the compiler ("b h q d, b h k d -> b h q k":
// multi-letter axis names, `_`, the ellipsis): a lazy expression that computes a new contiguous
// tensor named by the right side when read, by the packed GEMM for two-operand contractions and by
// the reference loop otherwise.
#pragma once

#include "../kernels/einsum_reference.hpp"
#include "../kernels/gemm.hpp"
#include "../plan/contraction_plan.hpp"
#include "../plan/einsum_plan.hpp"
#include "as_view.hpp"
#include "operation.hpp"
#include "tensor.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

namespace ctein {
namespace detail {

template <fixed_string Pattern, class... V>
struct einsum_planned {
    static constexpr std::array<plan::operand, sizeof...(V)> operands{operand_of<V>()...};
    static constexpr plan::einsum_plan plan = plan::make_einsum_plan(Pattern.view(), operands);
    static constexpr diagnostic error = plan.error;
};

/// An operand's rank alone, as if every extent were known only at run time and it had no names.
constexpr plan::operand rank_only(plan::operand o) noexcept {
    o.extents.fill(dyn);
    o.names = {};
    return o;
}

/// The plan of the pattern and the operands' ranks alone: which axes are batch, contracted or
/// kept, whatever the extents and names (a mismatch is left for the checks of whoever asks).
template <fixed_string Pattern, class... V>
struct einsum_structure {
    static constexpr std::array<plan::operand, sizeof...(V)> operands{rank_only(operand_of<V>())...};
    static constexpr plan::einsum_plan plan = plan::make_einsum_plan(Pattern.view(), operands);
};

/// The plan for the operands' actual extents: the compiler's own when every extent is static,
/// otherwise made again by the same function, throwing ctein::shape_error where they disagree.
template <fixed_string Pattern, const plan::einsum_plan& P, class... V>
plan::einsum_plan einsum_plan_at_run_time(const V&... input) {
    if constexpr ((V::extents_type::rank_dynamic() + ... + 0) == 0) {
        return P;
    } else {
        const std::array<plan::operand, sizeof...(V)> operands{actual_operand(input)...};
        const plan::einsum_plan actual = plan::make_einsum_plan(Pattern.view(), operands);
        if (actual.error) {
            std::string shapes;
            ((shapes += (shapes.empty() ? "" : ", ") + shape_text(input)), ...);
            throw_error(actual.error, " while processing einsum pattern \"" + std::string(Pattern.view()) +
                                          "\" on tensors of shapes " + shapes);
        }
        return actual;
    }
}

/// What the kernels read of an einsum's operands: their data and, for every axis of the plan,
/// each one's stride (summed over a diagonal `i i`; 0 where it lacks the axis or broadcasts it).
template <class T, std::size_t N>
struct einsum_operands {
    std::array<const T*, N> data{};
    std::array<std::array<std::ptrdiff_t, plan::max_axes>, N> strides{};
};

template <class T, const plan::einsum_plan& P, class... V>
einsum_operands<T, sizeof...(V)> einsum_operands_of(const plan::einsum_plan& actual, const V&... input) {
    einsum_operands<T, sizeof...(V)> operands{{input.data()...}, {}};
    std::size_t i = 0;
    const auto read_strides = [&](const auto& v) {
        for (std::size_t k = 0; k < v.rank(); ++k) {
            const std::size_t a = P.operand_axes[i][k];
            const bool broadcast = v.extent(k) == 1 && actual.lengths[a] != 1;
            operands.strides[i][a] += broadcast ? 0 : v.stride(k);
        }
        ++i;
    };
    (read_strides(input), ...);
    return operands;
}

/// The einsum's result for the operands' actual extents, its elements not yet computed.
template <class T, const plan::einsum_plan& P>
auto einsum_result(const plan::einsum_plan& actual) {
    std::array<std::size_t, P.output_rank> values{};
    for (std::size_t k = 0; k < P.output_rank; ++k) values[k] = actual.output_extents[k];
    using result_extents = output_extents_t<P>;
    return tensor_of<T, output_names<P>, result_extents>(result_extents::from_all(values), uninitialized);
}

/// Computes the einsum into the contiguous `out` with the reference kernel.
template <class T, std::size_t N>
void einsum_by_reference(const plan::einsum_plan& actual, const einsum_operands<T, N>& operands, T* out) {
    std::array<std::size_t, plan::max_axes> output_axes{}, summed_axes{};
    std::size_t summed = 0;
    for (std::size_t k = 0; k < actual.output_rank; ++k) output_axes[k] = actual.output_axes[k];
    for (std::size_t a = 0; a < actual.axis_count; ++a)
        if (!actual.in_output(a)) summed_axes[summed++] = a;
    kernels::einsum_reference<T>(operands.data, operands.strides,
                                 std::span(actual.lengths).first(actual.axis_count),
                                 std::span<const std::size_t>(output_axes).first(actual.output_rank),
                                 std::span<const std::size_t>(summed_axes).first(summed), out);
}

/// Computes a two-operand einsum into the contiguous `out` as (batched) GEMMs, on up to
/// `threads` threads; false (and `out` untouched) when the pattern is not a GEMM. `last_axis_bias`
/// (the output's last length of values; none if null) is added in the GEMM's epilogue where the
/// GEMM's columns are the output's last axis, and `bias_added` says whether it was.
template <class T>
bool einsum_by_gemm(const plan::einsum_plan& actual, const einsum_operands<T, 2>& operands, T* out,
                    std::size_t threads, const T* last_axis_bias = nullptr, bool* bias_added = nullptr) {
    std::array<std::ptrdiff_t, plan::max_axes> out_strides{};
    std::ptrdiff_t step = 1;
    for (std::size_t k = actual.output_rank; k-- > 0;) {
        out_strides[actual.output_axes[k]] += actual.output_extents[k] == 1 ? 0 : step;
        step *= static_cast<std::ptrdiff_t>(actual.output_extents[k]);
    }
    const plan::contraction_plan g =
        plan::make_contraction_plan(actual, operands.strides[0], operands.strides[1], out_strides);
    if (!g.is_gemm) return false;
    const T* a = operands.data[g.swapped ? 1 : 0];
    const T* b = operands.data[g.swapped ? 0 : 1];
    std::array<kernels::gemm_loop, plan::max_axes> loops{};
    for (std::size_t l = 0; l < g.loop_count; ++l)
        loops[l] = {g.loops[l].length, g.loops[l].a, g.loops[l].b, g.loops[l].c, g.summed[l]};
    // the columns are the output's last axis when they walk it alone, with stride 1
    const std::size_t last_length = actual.output_rank == 0 ? 1 : actual.output_extents[actual.output_rank - 1];
    const bool columns_are_last_axis = g.n.c == 1 && g.n.length == last_length;
    const T* const column_bias = columns_are_last_axis ? last_axis_bias : nullptr;
    kernels::gemm_batched<T>({a, g.m.length, g.k.length, g.m.a, g.k.a}, {b, g.k.length, g.n.length, g.k.b, g.n.b},
                             {out, g.m.length, g.n.length, g.m.c, g.n.c}, std::span(loops).first(g.loop_count),
                             threads, column_bias);
    if (bias_added) *bias_added = column_bias != nullptr;
    return true;
}

/// Adds `bias` (the last axis' `length` values) to every row of the contiguous `out` of `size`.
template <class T>
void add_last_axis_bias(T* out, std::size_t size, const T* bias, std::size_t length) {
    for (std::size_t i = 0; i < size; i += length)
        for (std::size_t j = 0; j < length; ++j) out[i + j] += bias[j];
}

/// The einsum of strided views computed into the contiguous `out`, of the plan's output extents,
/// plus `last_axis_bias` (none if null) along the output's last axis: float and double
/// contractions of two operands that are (batched) GEMMs by the GEMM kernel (the bias in its
/// epilogue where it can), anything else by the reference kernel.
template <fixed_string Pattern, class T, class... V>
void einsum_into(const plan::einsum_plan& actual, T* out, const T* last_axis_bias, const V&... input) {
    using planned = einsum_planned<Pattern, V...>;
    const auto operands = einsum_operands_of<T, planned::plan>(actual, input...);
    std::size_t size = 1;
    for (std::size_t r = 0; r < actual.output_rank; ++r) size *= actual.output_extents[r];
    const std::size_t last = actual.output_rank == 0 ? 1 : actual.output_extents[actual.output_rank - 1];
    if constexpr (sizeof...(V) == 2 && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
        bool bias_added = false;
        if (einsum_by_gemm<T>(actual, operands, out, thread_count(), last_axis_bias, &bias_added)) {
            if (last_axis_bias && !bias_added && last != 0) add_last_axis_bias(out, size, last_axis_bias, last);
            return;
        }
    }
    einsum_by_reference<T>(actual, operands, out);
    if (last_axis_bias && last != 0) add_last_axis_bias(out, size, last_axis_bias, last);
}

/// The einsum of strided views into a new tensor: float and double contractions of two operands
/// that are (batched) GEMMs by the GEMM kernel, anything else by the reference kernel.
template <fixed_string Pattern, class... V>
auto einsum_of_views(const V&... input) {
    using T = std::common_type_t<typename V::value_type...>;
    using planned = einsum_planned<Pattern, V...>;
    const plan::einsum_plan actual = einsum_plan_at_run_time<Pattern, planned::plan>(input...);
    auto out = einsum_result<T, planned::plan>(actual);
    einsum_into<Pattern>(actual, out.data(), static_cast<const T*>(nullptr), input...);
    return out;
}

/// `einsum_of_views` over views of any layout: grouped ones (a `repeat`, a merge of axes that are
/// not neighbours) are copied to contiguous tensors first.
template <fixed_string Pattern, class... V>
auto einsum_of_any(const V&... input) {
    if constexpr ((V::is_strided && ...)) {
        return einsum_of_views<Pattern>(input...);
    } else {
        const auto readable = std::tuple{strided_or_copy(input)...}; // views, or copies of grouped ones
        return std::apply([](const auto&... r) { return einsum_of_views<Pattern>(as_view(r)...); }, readable);
    }
}

/// `einsum_of_views` by the reference kernel alone: what the GEMM path is tested against.
template <fixed_string Pattern, class... V>
auto einsum_of_views_by_reference(const V&... input) {
    using T = std::common_type_t<typename V::value_type...>;
    using planned = einsum_planned<Pattern, V...>;
    const plan::einsum_plan actual = einsum_plan_at_run_time<Pattern, planned::plan>(input...);
    auto out = einsum_result<T, planned::plan>(actual);
    einsum_by_reference<T>(actual, einsum_operands_of<T, planned::plan>(actual, input...), out.data());
    return out;
}

} // namespace detail

namespace detail {
/// Specialised by expressions that einsum hands to a fused kernel instead of computing operand by
/// operand (expr/attention_formula.hpp: softmax(q·kᵀ...)·v).
template <fixed_string Pattern, class... X>
struct einsum_fusion {
    static constexpr bool applies = false;
};

/// The mistake an einsum call's planner finds (or, for a fused expression, the fused kernel's
/// checks), reported at the call on g++ (core/diagnose.hpp).
template <fixed_string Pattern, class... X>
struct einsum_error {
    static constexpr diagnostic value = [] {
        using fusion = einsum_fusion<Pattern, std::remove_cvref_t<X>...>;
        if constexpr (!(viewable<X> && ...)) { // substituted before the overload's constraints are checked
            return diagnostic{};
        } else if constexpr (fusion::applies) {
            return fusion::template error<X...>();
        } else if constexpr ((failed_view<view_of<X>> || ...)) {
            return diagnostic{};
        } else {
            return einsum_planned<Pattern, view_of<X>...>::error;
        }
    }();
};
} // namespace detail

/// The value of `einsum<Pattern>(operands...)`, computed when first read: a lazy expression, so
/// that the attention formula written around it (`softmax(einsum(q, k) * scale) ...`) can be
/// recognised and run as one fused kernel. Shapes are checked when it is made. It reads like the
/// tensor it computes (`extent`, `operator()`, `data`, and every ctein operation through
/// `as_view`); `ctein::eval` gives the tensor itself. The operands are borrowed: keep them alive
/// and unchanged until the expression is read. Reading it from several threads at once before it
/// has been computed is a data race.
template <fixed_string Pattern, class... V>
class einsum_expression {
public:
    using result_type = decltype(detail::einsum_of_any<Pattern>(std::declval<const V&>()...));
    using value_type = typename result_type::value_type;
    using extents_type = typename result_type::extents_type;
    static constexpr auto names = result_type::names;
    static constexpr auto pattern = Pattern;

    explicit einsum_expression(const V&... operands)
        : operands_(operands...) {
        using planned = detail::einsum_planned<Pattern, V...>;
        detail::einsum_plan_at_run_time<Pattern, planned::plan>(operands...); // throws on a mismatch now
    }

    /// The computed tensor (computed on the first call).
    const result_type& value() const {
        if (!value_) value_.emplace(std::apply(detail::einsum_of_any<Pattern, V...>, operands_));
        return *value_;
    }
    const std::tuple<V...>& operands() const noexcept { return operands_; }

    static constexpr std::size_t rank() noexcept { return result_type::rank(); }
    std::size_t extent(std::size_t r) const { return value().extent(r); }
    std::size_t size() const { return value().size(); }
    const value_type* data() const { return value().data(); }
    template <class... I>
    const value_type& operator()(I... index) const {
        return value()(index...);
    }

private:
    std::tuple<V...> operands_;
    mutable std::optional<result_type> value_;
};

template <fixed_string Pattern, class... V>
struct view_adaptor<einsum_expression<Pattern, V...>> {
    static auto view(const einsum_expression<Pattern, V...>& e) { return e.value().view(); }
    static constexpr bool owning = true;
};

/// einops' einsum: `ctein::einsum<"b h q d, b h k d -> b h q k">(q, k)`. Axis names may have
/// several letters; a name repeated in one operand walks its diagonal (`i i -> i`); axes missing
/// from the right side are summed; `...` stands for the same leading axes in every operand
/// (aligned from the right; a length 1 broadcasts). Groups, units and numbers are not allowed,
/// as in einops. The pattern's letters are its own (q and k both named "b h s d" fit
/// "b h q d, b h k d"), but named operands must not be permuted against it: k transposed to
/// "b h d s" there does not compile (plan/einsum_plan.hpp, bind_names). The result is
/// a lazy `einsum_expression` over the operands (a new contiguous `ctein::tensor` named by the
/// right side once read, with static extents where the operands have them); given a temporary
/// tensor, einsum computes at once and returns the tensor. Mistakes are compile errors with
/// einops' messages (or numpy's, for the operand count), and run-time `ctein::shape_error`s for
/// dynamic extents.
///
///     auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k);
///     auto out = ctein::eval(ctein::einsum<"b h q k, b h k d -> b h q d">(weights, v));
template <fixed_string Pattern, viewable... X>
requires(!detail::fails_at_call<detail::einsum_error<Pattern, X...>::value>) auto einsum(X&&... x) {
    using planned = detail::einsum_planned<Pattern, view_of<X>...>;
    if constexpr (detail::einsum_fusion<Pattern, std::remove_cvref_t<X>...>::applies) {
        return detail::einsum_fusion<Pattern, std::remove_cvref_t<X>...>::run(x...);
    } else if constexpr ((detail::failed_view<view_of<X>> || ...)) {
        return detail::failed_operation{}; // as_view has reported why it cannot read an operand
    } else if constexpr ((detail::computed<X> || ...)) { // expressions, evaluated once, then multiplied
        return einsum<Pattern>(detail::evaluated_if_computed(std::forward<X>(x))...);
    } else if constexpr (planned::error) {
        detail::report<planned::error>();
        return detail::failed_operation{};
    } else {
        using first = std::tuple_element_t<0, std::tuple<view_of<X>...>>;
        static_assert((std::is_same_v<typename view_of<X>::value_type, typename first::value_type> && ...),
                      "ctein::einsum: the operands must have the same element type");
        if constexpr ((borrowable<X&&> && ...)) { // lazy, grouped views (a repeat) kept as they are
            return einsum_expression<Pattern, view_of<X>...>(as_view(x)...);
        } else {
            return detail::einsum_of_any<Pattern>(as_view(x)...);
        }
    }
}

/// A mistaken einsum (or attention formula), reported at the caller's line (g++).
template <fixed_string Pattern, viewable... X,
          class Mistake = detail::reported_at_call<detail::einsum_error<Pattern, X...>::value>>
requires detail::fails_at_call<detail::einsum_error<Pattern, X...>::value> Mistake einsum(X&&... x)
= delete;

} // namespace ctein
