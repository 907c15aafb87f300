// attention: the named entry point of ctein's fused attention kernel. Checks the shapes of q, k, v
// and a mask (at compile time where extents are static), gathers the options, fills a
// kernels::attention_problem and returns the output as a new tensor.
#pragma once

#include "../core/half_precision.hpp"
#include "../kernels/attention.hpp"
#include "../kernels/thread_pool.hpp"
#include "../plan/attention_plan.hpp"
#include "attention_options.hpp"
#include "eval.hpp"
#include "operation.hpp"
#include "tensor.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>

namespace ctein {

/// The output of an attention call that also returns its weights.
template <class Output, class Weights>
struct attention_result {
    Output output;
    Weights weights;
};

namespace detail {

/// What the planner knows of an attention call's mask (of type Mask, or void) and of the scores'
/// names: `ScoreNames` when the formula's einsum names the scores, empty otherwise.
template <class Mask, fixed_string ScoreNames>
constexpr plan::attention_extras attention_extras_of(plan::operand mask = {}) {
    plan::attention_extras extras;
    extras.score_names = ScoreNames.view();
    if constexpr (!std::is_void_v<Mask>) {
        extras.mask = mask.rank != 0 ? mask : operand_of<decltype(Mask::view)>();
        extras.binding = Mask::binding;
    }
    return extras;
}

/// The names of the scores as one string, "b h q k" when two of them are the same (self-attention
/// of q and k both named "b h s d").
constexpr bounded_string<128> weights_names_of(const std::array<std::string_view, plan::score_rank>& names) {
    bounded_string<128> out;
    for (std::size_t a = 0; a < plan::score_rank; ++a)
        for (std::size_t b = 0; b < a; ++b)
            if (names[a] == names[b]) return bounded_string<128>("b h q k");
    for (const std::string_view n : names) {
        if (!out.empty()) out.push_back(' ');
        out.append(n);
    }
    return out;
}

/// The compiler's check of an attention call on views Q, K, V with mask type Mask (or void).
template <class Q, class K, class V, class Mask, fixed_string ScoreNames = "">
struct attention_planned {
    static constexpr plan::attention_plan plan = plan::make_attention_plan(
        operand_of<Q>(), operand_of<K>(), operand_of<V>(), attention_extras_of<Mask, ScoreNames>());
    static constexpr diagnostic error = plan.error;
    static constexpr plan::attention_shape shape = plan.shape;
    using output_extents = extents<shape.batch, shape.query_heads, shape.queries, shape.head_size>;
    using weights_extents = extents<shape.batch, shape.query_heads, shape.queries, shape.keys>;
};

/// The weights' axis names of a checked attention plan, as a type-level string.
template <const plan::attention_plan& P>
inline constexpr bounded_string<128> weights_text = weights_names_of(P.score_names);
template <const plan::attention_plan& P>
inline constexpr auto weights_names = fixed_string<weights_text<P>.size()>(weights_text<P>.view());

/// Whether a key/value view repeats each of its heads in place: the `b (g r) s d` of
/// `repeat<"b g s d -> b (g r) s d">`, whose r has stride 0 (the seeds' repeat_interleave for
/// grouped-query attention). Query head h then reads head h / r, which is how the kernel groups
/// heads, so the kernel reads the g heads themselves. Returns r, or 0 for any other view.
template <class View>
std::size_t repeated_heads(const View& v) {
    if constexpr (std::is_same_v<typename View::layout_type, layout_grouped<1, 2, 1, 1>>) {
        const auto& axes = v.mapping().axes(); // b | g r | s | d
        if ((axes[2].stride == 0 || axes[2].length == 1) && (axes[4].stride == 1 || axes[4].length <= 1))
            return axes[2].length;
    }
    return 0;
}

/// The element types attention reads: float, and the 16-bit ones it widens to float.
template <class T>
inline constexpr bool attention_element = std::is_same_v<T, float> || is_half_precision<T>;

template <class T>
inline constexpr kernels::element_type element_type_of =
    std::is_same_v<T, bfloat16>  ? kernels::element_type::bf16
    : std::is_same_v<T, float16> ? kernels::element_type::f16
                                 : kernels::element_type::f32;

/// An operand as the kernel reads it: features contiguous, and for keys and values (`in_place_repeat`)
/// heads repeated in place read once (`repeat` heads per head). Any other view is copied once into
/// `copy`.
struct token_rows {
    const void* data = nullptr;
    kernels::element_type type = kernels::element_type::f32;
    kernels::token_strides strides;
    std::size_t repeat = 1;
    aligned_buffer<float> copy;

    /// `as_floats`: copied as floats even where it could be read in place.
    template <class View>
    token_rows(const View& v, bool in_place_repeat, bool as_floats = false) {
        if (as_floats) {
            copy_as_floats(v);
            return;
        }
        if (const std::size_t r = repeated_heads(v); in_place_repeat && r != 0) {
            const auto& axes = v.mapping().axes();
            data = v.data();
            type = element_type_of<typename View::value_type>;
            strides = {axes[0].stride, axes[1].stride, axes[3].stride};
            repeat = r;
            return;
        }
        if constexpr (View::layout_type::strided) {
            if (v.stride(3) == 1 || v.extent(3) <= 1) {
                data = v.data();
                type = element_type_of<typename View::value_type>;
                strides = {v.stride(0), v.stride(1), v.stride(2)};
                return;
            }
        }
        copy_as_floats(v); // any other view
    }

private:
    template <class View>
    void copy_as_floats(const View& v) {
        const std::size_t n2 = v.extent(2), n3 = v.extent(3), n1 = v.extent(1);
        copy = aligned_buffer<float>(v.size());
        float* out = copy.data();
        for (std::size_t b = 0; b < v.extent(0); ++b)
            for (std::size_t h = 0; h < n1; ++h)
                for (std::size_t t = 0; t < n2; ++t)
                    for (std::size_t d = 0; d < n3; ++d) *out++ = static_cast<float>(v(b, h, t, d));
        data = copy.data();
        strides = {static_cast<std::ptrdiff_t>(n1 * n2 * n3), static_cast<std::ptrdiff_t>(n2 * n3),
                   static_cast<std::ptrdiff_t>(n3)};
    }
};

/// A mask as the kernel reads it: bool and float elements in place; integer ones (nonzero = true)
/// copied once into a bool tensor of the same shape, read the same way.
template <class Mask>
struct mask_rows {
    using view_type = decltype(Mask::view);
    using element = typename view_type::value_type;
    using bools = tensor_of<bool, view_type::names, typename view_type::extents_type>;

    static constexpr bool copied = std::is_integral_v<element> && !std::is_same_v<element, bool>;

    kernels::explicit_mask mask;
    /// Only integer masks hold a copy: an optional one in every mask_rows, g++ 12 at -O2 saw it
    /// as maybe uninitialised in its destructor (-Wmaybe-uninitialized in a user's build).
    std::conditional_t<copied, std::optional<bools>, std::nullptr_t> copy{};

    mask_rows(const Mask* given, const std::array<plan::score_axis, plan::score_rank>& axes) {
        const Mask& m = *given;
        if constexpr (copied) {
            if (m.kind == kernels::mask_kind::none) return;
            const auto values = eval(m.view);
            copy.emplace(values.extents(), uninitialized);
            for (std::size_t i = 0; i < values.size(); ++i) copy->data()[i] = values.data()[i] != 0;
            const bools& read = *copy;
            mask = explicit_mask_of(
                mask_t<typename bools::const_view_type, Mask::binding>{read.view(), m.kind, {}}, axes);
        } else {
            mask = explicit_mask_of(m, axes);
        }
    }
};

/// The mask_rows of a call without a mask: nothing to read.
struct no_mask_rows {
    kernels::explicit_mask mask;
    no_mask_rows(const void*, const std::array<plan::score_axis, plan::score_rank>&) noexcept {}
};

/// Keys and values as the kernel reads them: heads repeated in place are read once when k and v
/// repeat theirs alike; otherwise each is read (or copied) head by head.
struct key_value_rows {
    token_rows k, v;

    template <class K, class V>
    key_value_rows(const K& keys, const V& values)
        : k(keys, true)
        , v(values, true) {
        if (k.repeat != v.repeat) {
            k = token_rows(keys, false);
            v = token_rows(values, false);
        }
        // the kernel reads k and v as one element type: a 16-bit one beside one copied as floats
        // is copied too
        if (k.type != v.type) {
            k = token_rows(keys, false, true);
            v = token_rows(values, false, true);
        }
    }
};

template <class View>
std::size_t extent_or_zero(const View& v, std::size_t r) {
    return r < View::rank() ? v.extent(r) : 0;
}

/// The plan of the actual extents; throws ctein::shape_error with the compiler's text.
template <fixed_string ScoreNames, class Q, class K, class V, class Mask>
plan::attention_plan attention_plan_at_run_time(const Q& q, const K& k, const V& v, const Mask* mask,
                                                const attention_request& request) {
    plan::operand m{};
    if constexpr (!std::is_void_v<Mask>) {
        if (mask->kind != kernels::mask_kind::none)
            m = actual_operand(mask->view); // absent: nothing to check
    }
    plan::attention_extras extras = attention_extras_of<Mask, ScoreNames>(m);
    extras.key_padding_count = request.has_key_padding ? request.key_lengths.size() : dyn;
    const plan::attention_plan actual =
        plan::make_attention_plan(actual_operand(q), actual_operand(k), actual_operand(v), extras);
    if (actual.error) {
        std::string context = " while computing attention of queries " + shape_text(q) + ", keys " +
                              shape_text(k) + ", values " + shape_text(v);
        if constexpr (!std::is_void_v<Mask>) {
            if (mask->kind != kernels::mask_kind::none) context += ", mask " + shape_text(mask->view);
        }
        throw_error(actual.error, context);
    }
    return actual;
}

/// The output's axis names, whichever entry point computes it: the queries' when they have names,
/// otherwise "b h q d".
template <class Q>
constexpr auto attention_output_names() {
    if constexpr (Q::names.view().empty()) {
        return fixed_string("b h q d");
    } else {
        return Q::names;
    }
}

/// Runs the fused kernel on checked views: the output, or the output and its weights.
template <bool WithWeights, fixed_string ScoreNames = "", class Q, class K, class V, class Mask>
auto compute_attention(const Q& q, const K& k, const V& v, const Mask* mask,
                       const attention_request& request) {
    using planned = attention_planned<Q, K, V, Mask, ScoreNames>;
    const plan::attention_plan actual = attention_plan_at_run_time<ScoreNames>(q, k, v, mask, request);
    const plan::attention_shape& shape = actual.shape;
    using output_type = tensor_of<float, attention_output_names<Q>(), typename planned::output_extents>;
    output_type out(planned::output_extents::from_all(std::array<std::size_t, 4>{
                        shape.batch, shape.query_heads, shape.queries, shape.head_size}),
                    uninitialized); // the kernel writes every row, zeros for fully masked ones

    const token_rows q_rows(q, false);
    const key_value_rows kv(k, v);
    const token_rows &k_rows = kv.k, &v_rows = kv.v;
    kernels::attention_problem p;
    p.batch = shape.batch;
    p.query_heads = shape.query_heads;
    p.kv_heads = shape.kv_heads / k_rows.repeat;
    p.queries = shape.queries;
    p.keys = shape.keys;
    p.head_size = shape.head_size;
    p.q = q_rows.data;
    p.q_strides = q_rows.strides;
    p.q_type = q_rows.type;
    p.k = k_rows.data;
    p.k_strides = k_rows.strides;
    p.v = v_rows.data;
    p.v_strides = v_rows.strides;
    p.kv_type = k_rows.type; // key_value_rows gives v the same
    p.out = out.data();
    const auto hd = static_cast<std::ptrdiff_t>(shape.head_size);
    p.out_strides = {static_cast<std::ptrdiff_t>(shape.query_heads * shape.queries) * hd,
                     static_cast<std::ptrdiff_t>(shape.queries) * hd, hd};
    p.scale = request.scale ? *request.scale : 1.0f / std::sqrt(static_cast<float>(shape.head_size));
    if (request.causal) {
        // beyond these, every key (or none) is visible: clamped so that i + offset cannot overflow
        const auto tq = static_cast<std::ptrdiff_t>(shape.queries),
                   tk = static_cast<std::ptrdiff_t>(shape.keys);
        p.causal = true;
        p.causal_offset = std::clamp(request.causal->offset, -tq - 1, tk);
    }
    if (request.has_key_padding) p.key_lengths = request.key_lengths.data();
    const std::conditional_t<std::is_void_v<Mask>, no_mask_rows, mask_rows<Mask>> mask_read(
        mask, planned::plan.mask_axes);
    p.mask = mask_read.mask;
    p.dropout = request.dropout;
    p.dropout_seed = request.dropout_seed;
    p.threads = request.threads != 0 ? request.threads : thread_count();

    if constexpr (WithWeights) {
        using weights_type =
            tensor_of<float, weights_names<planned::plan>, typename planned::weights_extents>;
        weights_type weights(planned::weights_extents::from_all(std::array<std::size_t, 4>{
                                 shape.batch, shape.query_heads, shape.queries, shape.keys}),
                             uninitialized);
        p.weights = weights.data();
        const auto tk = static_cast<std::ptrdiff_t>(shape.keys);
        p.weights_strides = {static_cast<std::ptrdiff_t>(shape.query_heads * shape.queries) * tk,
                             static_cast<std::ptrdiff_t>(shape.queries) * tk, tk, 1};
        kernels::attention(p);
        return attention_result<output_type, weights_type>{std::move(out), std::move(weights)};
    } else {
        kernels::attention(p);
        return out;
    }
}

template <class... Options>
inline constexpr bool wants_weights = (std::is_same_v<std::remove_cvref_t<Options>, with_weights_t> || ...);

/// Checks at compile time, then computes; used by both entry points.
template <class Q, class K, class V, class Mask, bool WithWeights, fixed_string ScoreNames = "">
auto checked_attention(const Q& q, const K& k, const V& v, const Mask* mask,
                       const attention_request& request) {
    using planned = attention_planned<Q, K, V, Mask, ScoreNames>;
    using q_element = std::remove_cv_t<typename Q::value_type>;
    using k_element = std::remove_cv_t<typename K::value_type>;
    using v_element = std::remove_cv_t<typename V::value_type>;
    constexpr bool readable =
        attention_element<q_element> && attention_element<k_element> && attention_element<v_element>;
    constexpr bool kv_alike = std::is_same_v<k_element, v_element>;
    // one of these fails at a time; the kernel reads keys and values as one element type
    static_assert(readable, "ctein::attention: queries, keys and values hold float, ctein::bfloat16 or "
                            "ctein::float16");
    static_assert(!readable || kv_alike, "ctein::attention: keys and values hold one element type");
    if constexpr (!(readable && kv_alike) || planned::error) {
        if constexpr (readable && kv_alike) report<planned::error>();
        if constexpr (WithWeights) { // so that `auto [o, w] = ...` adds no error
            return attention_result<failed_operation, failed_operation>{};
        } else {
            return failed_operation{};
        }
    } else {
        return compute_attention<WithWeights, ScoreNames>(q, k, v, mask, request);
    }
}

/// The mistake attention's checks find in a call, reported at the call on g++ (core/diagnose.hpp);
/// none where an operand or option has reported its own, or where the body reports it.
template <class Q, class K, class V, class... Options>
struct attention_error {
    static constexpr diagnostic value = [] {
        if constexpr (!(viewable<Q> && viewable<K> && viewable<V> && (attention_option<Options> && ...))) {
            return diagnostic{}; // substituted before the overload's constraints are checked
        } else if constexpr (failed_view<view_of<Q>> || failed_view<view_of<K>> || failed_view<view_of<V>> ||
                             (std::is_same_v<Options, failed_operation> || ...) ||
                             mask_count<Options...> > 1) {
            return diagnostic{};
        } else {
            using q_view = view_of<decltype(strided_or_copy(std::declval<std::remove_reference_t<Q>&>()))>;
            return attention_planned<q_view, view_of<K>, view_of<V>,
                                     typename mask_among<Options...>::type>::error;
        }
    }();
};

/// What a mistaken call to attention returns: the failure, or a pair of them with weights.
template <class Mistake, class... Options>
using attention_mistake =
    std::conditional_t<wants_weights<Options...>, attention_result<Mistake, Mistake>, Mistake>;

} // namespace detail

/// Scaled dot-product attention in one fused kernel: softmax(q·kᵀ·scale + masks)·v, without a
/// Tq x Tk buffer. q is [B, Hq, Tq, D]; k and v are [B, Hkv, Tk, D] with Hkv dividing Hq (query
/// head h reads key/value head h / (Hq / Hkv): grouped-query, or multi-query when Hkv = 1). Any
/// readable float tensor or view works (strided views from rearrange are read in place). Returns
/// a `ctein::tensor<float, Names, ...>` named like q (`"b h q d"` when q has no names), with static
/// extents where the inputs have them; with
/// `ctein::with_weights`, an `attention_result{output, weights}`.
///
/// Options: `ctein::causal` / `ctein::causal_offset(n)`, `ctein::key_padding(lengths)`,
/// `ctein::mask(m)` / `ctein::ignore_mask(m)`, `ctein::scale(s)`, `ctein::dropout(p, seed)`,
/// `ctein::threads(n)`, `ctein::with_weights`. Masks combine (a key must pass all of them); a
/// query whose keys are all masked gets zeros (and zero weights), not NaN. Shape mistakes are
/// compile errors for static extents and ctein::shape_errors otherwise, with the same text.
///
///     auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
///     auto o = ctein::attention(q, k, v, ctein::causal);
///     auto [o2, w] = ctein::attention(q, k, v, ctein::mask(keep), ctein::with_weights);
template <viewable Q, viewable K, viewable V, attention_option... Options>
requires(!detail::fails_at_call<detail::attention_error<
             Q, K, V, std::remove_cvref_t<Options>...>::value>) auto attention(Q&& q, K&& k, V&& v,
                                                                               const Options&... options) {
    if constexpr (detail::failed_view<view_of<Q>> || detail::failed_view<view_of<K>> ||
                  detail::failed_view<view_of<V>> ||
                  (std::is_same_v<std::remove_cvref_t<Options>, detail::failed_operation> || ...)) {
        return detail::failed_operation{}; // an operand or an option has reported why it cannot be read
    } else if constexpr (!view_of<Q>::is_strided) { // k and v are read as they are: repeated heads in place
        return attention(detail::strided_or_copy(q), k, v, options...);
    } else if constexpr (detail::computed<K> || detail::computed<V>) { // expressions, evaluated once
        return attention(q, detail::evaluated_if_computed(k), detail::evaluated_if_computed(v), options...);
    } else if constexpr (detail::mask_count<std::remove_cvref_t<Options>...> > 1) {
        static_assert(detail::always_false<Q>,
                      "ctein::attention: one explicit mask per call; combine the masks into one tensor (key "
                      "lengths go in ctein::key_padding, future keys in ctein::causal)");
        return detail::failed_operation{};
    } else {
        using mask_type = typename detail::mask_among<std::remove_cvref_t<Options>...>::type;
        detail::attention_request request;
        (detail::apply(request, options), ...);
        const mask_type* mask = nullptr;
        if constexpr (!std::is_void_v<mask_type>) {
            const auto pick = [&](const auto& option) {
                if constexpr (std::is_same_v<std::remove_cvref_t<decltype(option)>, mask_type>)
                    mask = &option;
            };
            (pick(options), ...);
        }
        return detail::checked_attention<view_of<Q>, view_of<K>, view_of<V>, mask_type,
                                         detail::wants_weights<Options...>>(as_view(q), as_view(k),
                                                                            as_view(v), mask, request);
    }
}

/// A mistaken attention call, reported at the caller's line (g++).
template <viewable Q, viewable K, viewable V, attention_option... Options,
          class Mistake = detail::reported_at_call<
              detail::attention_error<Q, K, V, std::remove_cvref_t<Options>...>::value>>
requires detail::fails_at_call<detail::attention_error<Q, K, V, std::remove_cvref_t<Options>...>::value>
    detail::attention_mistake<Mistake, Options...> attention(Q&& q, K&& k, V&& v, const Options&... options)
= delete;

} // namespace ctein
