// attention_options: what a caller may add to an attention call — masks, scale, dropout, weights,
// threads. Both entry points (ctein::attention and the recognised softmax/einsum formula) read the
// same option types, gathered into one `attention_request`.
#pragma once

#include "../core/error.hpp"
#include "../kernels/attention_problem.hpp"
#include "../plan/attention_names.hpp"
#include "as_view.hpp"
#include "eval.hpp"

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <vector>

namespace ctein {

/// Causal masking: query i sees key j only when j <= i + offset. `ctein::causal` has offset 0
/// (PyTorch's is_causal); see `causal_offset` for a KV-cache step.
struct causal_t {
    std::ptrdiff_t offset = 0;
};
inline constexpr causal_t causal{};

/// Causal masking shifted by `offset` keys: with `past` tokens in a KV cache and new queries
/// appended after them, `causal_offset(past)` lets each new query see the cache and itself.
///
///     auto o = ctein::attention(q, k_cache, v_cache, ctein::causal_offset(k_len - q_len));
constexpr causal_t causal_offset(std::ptrdiff_t offset) noexcept {
    return {offset};
}

/// Causal masking chosen at run time, as the seeds' `causal=True` flag: `causal_if(flag)` is
/// `ctein::causal` when flag is true and no mask otherwise, so a module with the flag has one call
/// site and one result type.
///
///     auto o = ctein::attention(q, k, v, ctein::causal_if(is_decoder));
struct causal_if_t {
    bool on;
    std::ptrdiff_t offset = 0;
};
constexpr causal_if_t causal_if(bool on, std::ptrdiff_t offset = 0) noexcept {
    return {on, offset};
}

/// Key padding: for batch b, keys j >= lengths[b] are left out.
struct key_padding_t {
    std::vector<std::int64_t> lengths;
};

/// Key padding from one length per batch element (any range of integers).
///
///     auto o = ctein::attention(q, k, v, ctein::key_padding({5, 3}));   // batch of 2
template <std::ranges::input_range R>
requires std::integral<std::ranges::range_value_t<R>> key_padding_t key_padding(const R& lengths) {
    key_padding_t padding;
    for (const auto length : lengths) padding.lengths.push_back(static_cast<std::int64_t>(length));
    return padding;
}
inline key_padding_t key_padding(std::initializer_list<std::int64_t> lengths) {
    return {std::vector<std::int64_t>(lengths)};
}

/// An explicit mask: a view of bool (keep or ignore) or float (added to the scaled scores), bound
/// to the scores [batch, heads, queries, keys] as `Binding` says.
template <class View, plan::mask_binding Binding = plan::mask_binding::scores>
struct mask_t {
    View view;
    kernels::mask_kind kind;
    std::shared_ptr<const void> owner; ///< the elements of a mask computed from an expression
    static constexpr plan::mask_binding binding = Binding;
};

namespace detail {
/// A mask's element type; bool for a mask that has already reported why it cannot be read, so
/// that the options' element checks add nothing.
template <class X>
using mask_element =
    typename std::conditional_t<failed_view<view_of<X>>, std::type_identity<bool>, view_of<X>>::value_type;

/// How each mask option reads its elements.
enum class mask_reading : unsigned char { keep_or_add, ignore, key_padding };

/// The kernel's reading of a mask of `Element`s given to option `R`, after the one check of the
/// element type each option makes (a float mask is added, never read as 0/1).
template <mask_reading R, class Element>
constexpr kernels::mask_kind mask_kind_of() {
    if constexpr (R == mask_reading::keep_or_add) {
        static_assert(std::is_integral_v<Element> || std::is_same_v<Element, float>,
                      "ctein::mask: a mask holds bool or integers (true, nonzero = keep) or float (added to "
                      "the scores)");
        return std::is_integral_v<Element> ? kernels::mask_kind::keep : kernels::mask_kind::additive;
    } else if constexpr (R == mask_reading::ignore) {
        static_assert(
            std::is_integral_v<Element>,
            "ctein::ignore_mask: the mask holds bool or integers (true, nonzero = left out); a float "
            "mask is added to the scaled scores with ctein::mask(m), never read as 0/1");
        return kernels::mask_kind::ignore;
    } else {
        static_assert(
            std::is_integral_v<Element>,
            "ctein::key_padding_mask: the mask holds bool or integers (true, nonzero = a padded key, "
            "left out); a float mask is added to the scaled scores with ctein::mask(m), never read "
            "as 0/1");
        return kernels::mask_kind::ignore;
    }
}

template <mask_reading R>
inline constexpr plan::mask_binding binding_of =
    R == mask_reading::key_padding ? plan::mask_binding::key_padding : plan::mask_binding::scores;

/// The option of mask `m` read as `R`; a failure (reported once) when `m` is a temporary the
/// option would outlive.
template <mask_reading R, class X>
auto mask_option(X&& m) {
    constexpr kernels::mask_kind kind = mask_kind_of<R, mask_element<X>>();
    if constexpr (computed<X>) { // an expression (`mask == 0`), evaluated once and kept by the option
        const auto elements = std::make_shared<const decltype(eval(m))>(eval(m));
        return mask_t<decltype(elements->view()), binding_of<R>>{elements->view(), kind, elements};
    } else if constexpr (!can_borrow<X&&>()) {
        return failed_operation{};
    } else {
        return mask_t<view_of<X>, binding_of<R>>{as_view(m), kind, {}};
    }
}

/// The option of a mask that may be absent (the seeds' `mask=None`): read only when present.
template <mask_reading R, class X>
auto optional_mask_option(const std::optional<X>& m) {
    using view_type = view_of<const X&>;
    constexpr kernels::mask_kind kind = mask_kind_of<R, typename view_type::value_type>();
    using option = mask_t<view_type, binding_of<R>>;
    return m ? option{as_view(*m), kind, {}} : option{{}, kernels::mask_kind::none, {}};
}
} // namespace detail

/// A mask tensor, as PyTorch's scaled_dot_product_attention reads its attn_mask. Bool (or integer,
/// nonzero as true, read from a copy made once per call): true = the key takes part (the seeds'
/// `masked_fill(mask == 0, ...)`). Float: added to the scaled scores (-inf leaves the key out). It
/// broadcasts against the scores [batch, heads, queries, keys]: a named mask by its names (`"b k"`,
/// `"q k"`, `"b 1 q k"`: each name one of the scores', in their order; `1` and `_` take the next
/// axis to the left), an unnamed one by its rank: [Tk], [Tq, Tk], [B, Tq, Tk] (a per-batch mask, as
/// the seeds pass it), [B, H, Tq, Tk]. Any axis but the keys' may have length 1 and is then
/// broadcast.
///
///     ctein::tensor<bool, "q k", ctein::dyn, ctein::dyn> allowed(t, t);   // (T, T)
///     auto o = ctein::attention(q, k, v, ctein::mask(allowed));
template <viewable X>
auto mask(X&& m) {
    return detail::mask_option<detail::mask_reading::keep_or_add>(std::forward<X>(m));
}

/// A bool (or integer) mask whose true (nonzero) elements are left out (nn.MultiheadAttention's
/// bool attn_mask, the seeds' `masked_fill(future_mask, ...)`); it broadcasts as `ctein::mask`.
///
///     auto o = ctein::attention(q, k, v, ctein::ignore_mask(future));   // (T, T), true above the diagonal
template <viewable X>
auto ignore_mask(X&& m) {
    return detail::mask_option<detail::mask_reading::ignore>(std::forward<X>(m));
}

/// Key padding as nn.MultiheadAttention's key_padding_mask: bool (or integer) [batch, keys], true =
/// a padded key, left out for every query.
///
///     ctein::tensor<bool, "b s", 2, 7> padded;
///     auto o = ctein::attention(q, k, v, ctein::key_padding_mask(padded));
template <viewable X>
auto key_padding_mask(X&& m) {
    return detail::mask_option<detail::mask_reading::key_padding>(std::forward<X>(m));
}

/// The same three options for a mask that may be absent, as the seeds' `mask=None`: a
/// `std::optional` of a tensor (or view), kept by the caller. Absent, the call applies no mask;
/// either way the call has one type.
///
///     std::optional<ctein::tensor<bool, "q k", ctein::dyn, ctein::dyn>> allowed;   // empty: no mask
///     auto o = ctein::attention(q, k, v, ctein::mask(allowed));
template <class X>
auto mask(const std::optional<X>& m) {
    return detail::optional_mask_option<detail::mask_reading::keep_or_add>(m);
}
template <class X>
auto ignore_mask(const std::optional<X>& m) {
    return detail::optional_mask_option<detail::mask_reading::ignore>(m);
}
template <class X>
auto key_padding_mask(const std::optional<X>& m) {
    return detail::optional_mask_option<detail::mask_reading::key_padding>(m);
}

/// The factor of q·kᵀ; 1/sqrt(head size) when not given.
struct scale_t {
    float value;
};
constexpr scale_t scale(float value) noexcept {
    return {value};
}

/// Dropout on the attention weights with probability `p` in [0, 1), reproducible from `seed`
/// (a counter-based generator: the same seed gives the same result on any thread count).
struct dropout_t {
    float probability;
    std::uint64_t seed;
};
constexpr dropout_t dropout(float probability, std::uint64_t seed) noexcept {
    return {probability, seed};
}

/// The thread count of one call (ctein::set_thread_count sets the default).
struct threads_t {
    std::size_t count;
};
constexpr threads_t threads(std::size_t count) noexcept {
    return {count};
}

/// Asks ctein::attention to also return the weights, [B, H, Tq, Tk] (materialised).
struct with_weights_t {};
inline constexpr with_weights_t with_weights{};

namespace detail {
template <class T>
inline constexpr bool is_mask = false;
template <class V, plan::mask_binding B>
inline constexpr bool is_mask<mask_t<V, B>> = true;

template <class T>
concept attention_option_type = std::same_as<T, causal_t> || std::same_as<T, causal_if_t> ||
    std::same_as<T, key_padding_t> || is_mask<T> || std::same_as<T, scale_t> || std::same_as<T, dropout_t> ||
    std::same_as<T, threads_t> || std::same_as<T, with_weights_t> ||
    std::same_as<T, failed_operation>; // an option whose making has reported an error

/// How many explicit masks the options hold: at most one (a key must pass every mask, so several
/// are one tensor combined by the caller, or key_padding and causal beside one).
template <class... Options>
inline constexpr int mask_count = (0 + ... + int(is_mask<Options>));

/// The mask's type among the options, or void when there is none.
template <class... Options>
struct mask_among {
    using type = void;
};
template <class First, class... Rest>
struct mask_among<First, Rest...> {
    using type = std::conditional_t<is_mask<First>, First, typename mask_among<Rest...>::type>;
};

/// An attention call's options, gathered.
struct attention_request {
    std::optional<float> scale;
    std::optional<causal_t> causal;
    std::vector<std::int64_t> key_lengths;
    bool has_key_padding = false;
    float dropout = 0.0f;
    std::uint64_t dropout_seed = 0;
    std::size_t threads = 0; // 0: ctein::thread_count()
};

inline void apply(attention_request& r, const causal_t& c) {
    r.causal = c;
}
inline void apply(attention_request& r, const causal_if_t& c) {
    if (c.on) r.causal = causal_t{c.offset};
}
inline void apply(attention_request& r, const key_padding_t& p) {
    r.key_lengths = p.lengths;
    r.has_key_padding = true;
}
inline void apply(attention_request& r, const scale_t& s) {
    r.scale = s.value;
}
inline void apply(attention_request& r, const dropout_t& d) {
    if (!(d.probability >= 0.0f && d.probability < 1.0f))
        throw_error(make_error(errc::dropout_probability).with_text(std::to_string(d.probability)));
    r.dropout = d.probability;
    r.dropout_seed = d.seed;
}
inline void apply(attention_request& r, const threads_t& t) {
    r.threads = t.count;
}
inline void apply(attention_request&, const with_weights_t&) {}
inline void apply(attention_request&, const failed_operation&) {}
/// A mask is read from the option itself, once the plan has bound its axes to the scores.
template <class V, plan::mask_binding B>
void apply(attention_request&, const mask_t<V, B>&) {}

/// The kernel's view of a mask whose dimension i stands for score axis `axes[i]`: its strides as
/// [batch, heads, queries, keys], 0 along the axes it lacks or has length 1.
template <class V, plan::mask_binding B>
kernels::explicit_mask explicit_mask_of(const mask_t<V, B>& m,
                                        const std::array<plan::score_axis, plan::score_rank>& axes) {
    kernels::explicit_mask out;
    out.data = m.view.data();
    out.kind = m.kind;
    for (std::size_t i = 0; i < V::rank(); ++i)
        out.strides[static_cast<std::size_t>(axes[i])] = m.view.extent(i) != 1 ? m.view.stride(i) : 0;
    return out;
}
} // namespace detail

/// Satisfied by the option types ctein::attention accepts.
template <class T>
concept attention_option = detail::attention_option_type<std::remove_cvref_t<T>>;

} // namespace ctein
