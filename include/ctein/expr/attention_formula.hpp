// attention_formula: the attention pipeline written as the seeds write it,
//     einsum<"b h q k, b h k d -> b h q d">(softmax<"k">(einsum<"b h q d, b h k d -> b h q k">(q, k) * scale
//     + mask), v)
// (optionally with ctein::dropout(weights, p, seed) around the softmax) recognised from its types
// and run by the same fused kernel as ctein::attention. Each step is a lazy node; the scores are
// never materialised unless the weights themselves are read.
#pragma once

#include "attention.hpp"
#include "attention_options.hpp"
#include "einsum.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

namespace ctein {
namespace detail {

/// Whether an einsum plan has the axes of `ops` and `out`, numbered in order of first appearance.
constexpr bool has_axes(const plan::einsum_plan& p, std::array<std::array<int, 4>, 2> ops,
                        std::array<int, 4> out) noexcept {
    if (!p.ok() || p.operand_count != 2 || p.ellipsis_rank != 0 || p.axis_count != 5 || p.output_rank != 4)
        return false;
    for (std::size_t i = 0; i < 2; ++i) {
        if (p.operand_ranks[i] != 4) return false;
        for (std::size_t k = 0; k < 4; ++k)
            if (p.operand_axes[i][k] != ops[i][k]) return false;
    }
    for (std::size_t k = 0; k < 4; ++k)
        if (p.output_axes[k] != out[k]) return false;
    return true;
}
/// "b h q d, b h k d -> b h q k", whatever the names.
constexpr bool is_scores_plan(const plan::einsum_plan& p) noexcept {
    return has_axes(p, {{{0, 1, 2, 3}, {0, 1, 4, 3}}}, {0, 1, 2, 4});
}
/// "b h q k, b h k d -> b h q d", whatever the names.
constexpr bool is_weighted_values_plan(const plan::einsum_plan& p) noexcept {
    return has_axes(p, {{{0, 1, 2, 3}, {0, 1, 3, 4}}}, {0, 1, 2, 4});
}

template <class E>
inline constexpr bool is_scores_einsum = false;
template <fixed_string P, class Q, class K>
inline constexpr bool is_scores_einsum<einsum_expression<P, Q, K>> =
    is_scores_plan(einsum_planned<P, Q, K>::plan) && std::is_same_v<typename Q::value_type, float>;

/// The last name of a space-separated list of axis names.
constexpr std::string_view last_name(std::string_view names) noexcept {
    const std::size_t space = names.rfind(' ');
    return space == std::string_view::npos ? names : names.substr(space + 1);
}
} // namespace detail

/// Attention scores q·kᵀ with a scale and masks, not computed: what `einsum(q, k) * scale + mask`
/// gives when the einsum has the shape of attention scores. Only `ctein::softmax` reads it.
template <class Scores, class Mask = void>
struct attention_scores {
    Scores scores; ///< the einsum_expression of q·kᵀ
    detail::attention_request request;
    std::conditional_t<std::is_void_v<Mask>, std::nullptr_t, Mask> mask{};
};

namespace detail {
template <class E>
inline constexpr bool is_attention_scores = false;
template <class S, class M>
inline constexpr bool is_attention_scores<attention_scores<S, M>> = true;

/// Scores with scale 1 and no masks, or the scores as they are.
template <class E>
auto as_attention_scores(const E& e) {
    if constexpr (is_attention_scores<E>) {
        return e;
    } else {
        attention_scores<E> s{e, {}, nullptr};
        s.request.scale = 1.0f;
        return s;
    }
}
} // namespace detail

/// An einsum with the shape of attention scores, or scores already scaled or masked.
template <class E>
concept scores_expression = detail::is_scores_einsum<E> || detail::is_attention_scores<E>;

/// Scales the scores (the seeds' `/ math.sqrt(d_k)` is `/ std::sqrt(d)`).
template <scores_expression E>
auto operator*(const E& e, float factor) {
    auto s = detail::as_attention_scores(e);
    s.request.scale = *s.request.scale * factor;
    return s;
}
template <scores_expression E>
auto operator*(float factor, const E& e) {
    return e * factor;
}
template <scores_expression E>
auto operator/(const E& e, float divisor) {
    return e * (1.0f / divisor);
}

/// Masks the scores: `+ ctein::causal`, `+ ctein::causal_offset(n)`, `+ ctein::key_padding(lengths)`,
/// `+ ctein::mask(m)`, `+ ctein::ignore_mask(m)`; masks combine as in ctein::attention.
template <scores_expression E>
auto operator+(const E& e, const causal_t& c) {
    auto s = detail::as_attention_scores(e);
    s.request.causal = c;
    return s;
}
template <scores_expression E>
auto operator+(const E& e, const causal_if_t& c) {
    auto s = detail::as_attention_scores(e);
    detail::apply(s.request, c);
    return s;
}
template <scores_expression E>
auto operator+(const E& e, const key_padding_t& padding) {
    auto s = detail::as_attention_scores(e);
    detail::apply(s.request, padding);
    return s;
}
template <scores_expression E, class V, plan::mask_binding B>
auto operator+(const E& e, const mask_t<V, B>& m) {
    auto s = detail::as_attention_scores(e);
    static_assert(std::is_same_v<decltype(s.mask), std::nullptr_t>,
                  "ctein: the scores already have an explicit mask; combine the masks into one tensor");
    return attention_scores<decltype(s.scores), mask_t<V, B>>{s.scores, s.request, m};
}

namespace detail {
template <class E>
struct scores_operands;
template <fixed_string P, class Q, class K>
struct scores_operands<einsum_expression<P, Q, K>> {
    using q = Q;
    using k = K;
};
} // namespace detail

/// softmax over the keys of attention scores: the attention weights, computed (by the fused
/// kernel, with every mask applied) only when read, and never when einsum multiplies them with v.
template <class Scores, class Mask>
class softmax_expression {
    using q_view = typename detail::scores_operands<Scores>::q;
    using k_view = typename detail::scores_operands<Scores>::k;
    using planned = detail::attention_planned<q_view, k_view, k_view, Mask, Scores::names>;

public:
    using weights_type =
        tensor_of<float, detail::weights_names<planned::plan>, typename planned::weights_extents>;

    explicit softmax_expression(attention_scores<Scores, Mask> s)
        : scores_(std::move(s)) {}

    /// Calls f(q, k, mask, request): the query and key views, the mask (null when there is
    /// none) and the options gathered from the formula.
    template <class F>
    decltype(auto) with_inputs(F&& f) const {
        const auto& [q, k] = scores_.scores.operands();
        return f(q, k, mask_pointer(), scores_.request);
    }

    /// These weights with dropout: what `ctein::dropout(weights, probability, seed)` gives.
    softmax_expression with(const dropout_t& d) const {
        attention_scores<Scores, Mask> s = scores_;
        detail::apply(s.request, d);
        return softmax_expression(std::move(s));
    }

    /// The weights [b, h, q, k] (computed on the first call).
    const weights_type& value() const {
        if (!value_) {
            // the kernel computes the weights alongside an output; k stands in for v there, and
            // that output is dropped
            const auto& [q, k] = scores_.scores.operands();
            value_.emplace(
                detail::compute_attention<true, Scores::names>(q, k, k, mask_pointer(), scores_.request)
                    .weights);
        }
        return *value_;
    }

    static constexpr std::size_t rank() noexcept { return 4; }
    std::size_t extent(std::size_t r) const { return value().extent(r); }
    std::size_t size() const { return value().size(); }
    const float* data() const { return value().data(); }
    template <class... I>
    const float& operator()(I... index) const {
        return value()(index...);
    }

private:
    const Mask* mask_pointer() const noexcept {
        if constexpr (std::is_void_v<Mask>) {
            return nullptr;
        } else {
            return &scores_.mask;
        }
    }

    attention_scores<Scores, Mask> scores_;
    mutable std::optional<weights_type> value_;
};

namespace detail {
/// The scores' einsum and mask types of a scores expression.
template <class E>
struct scores_parts {
    using scores = E;
    using mask = void;
};
template <class S, class M>
struct scores_parts<attention_scores<S, M>> {
    using scores = S;
    using mask = M;
};

/// The mistake softmax finds in attention scores (attention's checks), reported at the call on g++.
template <class E>
struct softmax_error {
    static constexpr diagnostic value = [] {
        if constexpr (!scores_expression<E>) { // substituted before the overload's constraints are checked
            return diagnostic{};
        } else {
            using parts = scores_parts<E>;
            using operands = scores_operands<typename parts::scores>;
            return attention_planned<typename operands::q, typename operands::k, typename operands::k,
                                     typename parts::mask, parts::scores::names>::error;
        }
    }();
};
} // namespace detail

/// softmax over axis `Axis` of attention scores; `Axis` must be the keys (the scores' last axis).
/// Shape mistakes of q, k and the mask are reported here.
///
///     auto weights = ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * scale);
template <fixed_string Axis, scores_expression E>
requires(!detail::fails_at_call<detail::softmax_error<E>::value>) auto softmax(const E& e) {
    auto s = detail::as_attention_scores(e);
    using parts = detail::scores_parts<E>;
    constexpr std::string_view names = parts::scores::names.view();
    static_assert(
        detail::last_name(names) == Axis.view(),
        "ctein::softmax: attention weights are normalised over the keys, the last axis of the scores");
    if constexpr (detail::softmax_error<E>::value) {
        detail::report<detail::softmax_error<E>::value>();
        return detail::failed_operation{};
    } else {
        return softmax_expression<typename parts::scores, typename parts::mask>(std::move(s));
    }
}

/// A softmax of mistaken scores, reported at the caller's line (g++).
template <fixed_string Axis, scores_expression E,
          class Mistake = detail::reported_at_call<detail::softmax_error<E>::value>>
requires detail::fails_at_call<detail::softmax_error<E>::value> Mistake softmax(const E& e)
= delete;

/// softmax of scores whose einsum has reported a compile error: that failure, and no error more.
template <fixed_string Axis>
detail::failed_operation softmax(const detail::failed_operation& failed) {
    return failed;
}

/// Dropout on attention weights, as the seeds' `dropout(p_attn)`: each weight is zeroed with
/// `probability` and the others divided by 1 - probability, drawn exactly as
/// `ctein::attention(..., ctein::dropout(probability, seed))` draws them, so the formula and
/// the named call give the same bits. Throws ctein::argument_error unless 0 <= probability < 1.
///
///     auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * scale;
///     auto w = ctein::dropout(ctein::softmax<"k">(scores), 0.1f, step);
///     auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(w, v);  // still one fused kernel call
template <class S, class M>
softmax_expression<S, M> dropout(const softmax_expression<S, M>& weights, float probability,
                                 std::uint64_t seed) {
    return weights.with(dropout(probability, seed));
}

template <class S, class M>
struct view_adaptor<softmax_expression<S, M>> {
    static auto view(const softmax_expression<S, M>& e) { return e.value().view(); }
    static constexpr bool owning = true;
};

/// Dropout on weights whose softmax has reported a compile error: that failure, and no error more.
inline detail::failed_operation dropout(const detail::failed_operation& failed, float, std::uint64_t) {
    return failed;
}

namespace detail {
/// einsum(softmax(scores), v) with the shape "b h q k, b h k d -> b h q d": one fused kernel call.
/// Another pattern reads the weights like any tensor.
template <fixed_string Pattern, class S, class M, class V>
struct einsum_fusion<Pattern, softmax_expression<S, M>, V> {
    static constexpr bool applies = true;
    using weights_view = view_of<const softmax_expression<S, M>>;
    /// Whether einsum(weights, v) with values X is the attention's P·V (and so one fused call).
    template <class X>
    static constexpr bool
        fused = is_weighted_values_plan(einsum_structure<Pattern, weights_view, view_of<X>>::plan);

    /// What `run` reports: attention's checks for the fused shape, einsum's otherwise.
    template <class W, class X>
    static constexpr diagnostic error() {
        if constexpr (failed_view<view_of<X>>) {
            return diagnostic{};
        } else if constexpr (fused<X>) {
            using operands = scores_operands<S>;
            return attention_planned<typename operands::q, typename operands::k, view_of<X>, M,
                                     S::names>::error;
        } else {
            return einsum_planned<Pattern, weights_view, view_of<X>>::error;
        }
    }

    template <class W, class X>
    static auto run(const W& weights, X& v) {
        if constexpr (failed_view<view_of<X>>) {
            return failed_operation{};
        } else if constexpr (fused<X>) {
            // the attention's own checks report mismatched lengths, in attention's words; v is read
            // as it is (values repeated per head by a repeat view are read once per head)
            return weights.with_inputs([&](const auto& q, const auto& k, const M* mask, const auto& request) {
                return checked_attention<std::remove_cvref_t<decltype(q)>, std::remove_cvref_t<decltype(k)>,
                                         view_of<X>, M, false, S::names>(q, k, as_view(v), mask, request);
            });
        } else if constexpr (einsum_planned<Pattern, weights_view, view_of<X>>::error) {
            report<einsum_planned<Pattern, weights_view, view_of<X>>::error>();
            return failed_operation{};
        } else { // computed now: the weights may be a temporary of the caller's expression
            return einsum_of_any<Pattern>(as_view(weights), as_view(v)); // the weights, read as a tensor
        }
    }
};
} // namespace detail

} // namespace ctein
