// attention_block: the attention module of the seeds and of LLaMA — Q, K, V projections, heads
// split, optional RoPE, ctein::attention (masks, GQA, dropout, a KV cache), heads merged, output
// projection — written with ctein's public pieces only, so that a variant is a copy of forward().
#pragma once

#include "../core/diagnose.hpp"
#include "../core/error.hpp"
#include "../expr/attention.hpp"
#include "../expr/attention_options.hpp"
#include "../expr/eval.hpp"
#include "../expr/rearrange.hpp"
#include "kv_cache.hpp"
#include "linear.hpp"
#include "rotary.hpp"

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

namespace ctein::nn {

namespace detail {
template <std::size_t E, std::size_t H, std::size_t Hkv, bool Rope>
constexpr diagnostic block_config_error() {
    if (H == 0 || E % H != 0) return make_error(errc::block_heads).with_number(E).with_number(H);
    if (Hkv == 0 || H % Hkv != 0) return make_error(errc::block_kv_heads).with_number(H).with_number(Hkv);
    if (Rope && (E / H) % 2 != 0) return make_error(errc::block_rope_odd_head).with_number(E / H);
    return diagnostic{};
}
template <std::size_t E, std::size_t H, std::size_t Hkv, bool Rope>
inline constexpr diagnostic block_config = block_config_error<E, H, Hkv, Rope>();

template <class R>
inline constexpr bool is_attention_result = false;
template <class O, class W>
inline constexpr bool is_attention_result<attention_result<O, W>> = true;

/// The thread count among a call's options (ctein::threads), or the default: what the block's
/// projections run on too.
template <class... Options>
std::size_t threads_among(const Options&... options) {
    std::size_t count = thread_count();
    [[maybe_unused]] const auto pick = [&](const auto& option) {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(option)>, threads_t>) count = option.count;
    };
    (pick(options), ...);
    return count;
}

/// The heads of attention's output [B, H, T, D] merged to [B, T, H·D] and projected by `o_proj`;
/// with the weights alongside when attention returned them (`ctein::with_weights`).
template <class Projection, class Result>
auto merge_and_project(const Projection& o_proj, const Result& result) {
    if constexpr (is_attention_result<Result>) {
        auto output = o_proj(rearrange<"b h s d -> b s (h d)">(result.output));
        return attention_result<decltype(output), decltype(result.weights)>{std::move(output),
                                                                            result.weights};
    } else {
        return o_proj(rearrange<"b h s d -> b s (h d)">(result));
    }
}
} // namespace detail

/// Multi-head attention of model width E with H query heads and Hkv key/value heads (H: the
/// seeds' MHA; fewer: grouped-query, 1: multi-query), head size E / H, projections with or without
/// bias, RoPE on q and k when `Rope`. The configuration is checked by the compiler: a width that
/// heads do not divide, heads that kv heads do not divide, an odd head size with RoPE are compile
/// errors naming both numbers.
///
/// The projections are nn.Linear's (`q_proj.weight()` [H·D, E], `k_proj`, `v_proj` [Hkv·D, E],
/// `o_proj` [E, H·D]), loaded from PyTorch's weights. Inputs are [B, T, E] (`"b s e"` or unnamed).
///
///     ctein::nn::attention_block<768, 12> mha;                         // seed 000's module
///     auto y = mha(x, ctein::ignore_mask(mask == 0.0f));              // self-attention
///     auto z = mha.cross(x, memory, ctein::key_padding_mask(padded)); // Tq != Tk
///     auto w = mha(query, key, value, ctein::mask(keep));             // three inputs
///     ctein::nn::attention_block<2048, 32, 8, false, true> llama(4096); // GQA + RoPE, 4096 positions
///     auto step = llama(token, cache);                                // causal over the cache
template <std::size_t E, std::size_t H, std::size_t Hkv = H, bool Bias = true, bool Rope = false>
class attention_block {
    using checked = decltype(ctein::detail::report<detail::block_config<E, H, Hkv, Rope>>());

public:
    static constexpr std::size_t model_width = E;
    static constexpr std::size_t heads = H;
    static constexpr std::size_t kv_heads = Hkv;
    static constexpr std::size_t head_size = H == 0 ? 0 : E / H;
    using cache_type = kv_cache<Hkv, head_size>;

    linear<E, H * head_size, Bias> q_proj;
    linear<E, Hkv * head_size, Bias> k_proj;
    linear<E, Hkv * head_size, Bias> v_proj;
    linear<H * head_size, E, Bias, "e"> o_proj;

    attention_block() requires(!Rope) = default;
    /// With RoPE: tables for positions [0, max_positions), `base` as in LLaMA's rope_theta.
    explicit attention_block(std::size_t max_positions, double base = 10000.0) requires Rope
        : rope_(std::in_place, max_positions, base) {}

    /// Self-attention of x [B, T, E] with `ctein::attention`'s options (masks, causal, dropout,
    /// threads...): [B, T, E].
    template <viewable X, attention_option... Options>
    auto operator()(const X& x, const Options&... options) const {
        return forward(x, x, x, options...);
    }

    /// Cross-attention: queries from x [B, Tq, E], keys and values from context [B, Tk, E].
    template <viewable X, viewable C, attention_option... Options>
    auto cross(const X& x, const C& context, const Options&... options) const {
        return forward(x, context, context, options...);
    }

    /// The seeds' forward(query, key, value, mask): queries from `query` [B, Tq, E], keys from
    /// `key` and values from `value` [B, Tk, E].
    template <viewable Q, viewable K, viewable V, attention_option... Options>
    auto operator()(const Q& query, const K& key, const V& value, const Options&... options) const {
        return forward(query, key, value, options...);
    }

    /// A step of a decoder with a KV cache: x's tokens come after the cache's, their keys and
    /// values are appended to it, and each query attends causally to the cache (with RoPE, at
    /// positions cache.length() onwards). Prefill and token-by-token decode are the same call;
    /// the cache is `cache_type`, one of static capacity, a `growing_kv_cache`, or a 16-bit
    /// `kv_cache_of` (the new keys and values rounded to it).
    template <viewable X, std::size_t Capacity, bool Grows, class Element, attention_option... Options>
    auto operator()(const X& x, kv_cache<Hkv, head_size, Capacity, Grows, Element>& cache,
                    const Options&... options) const {
        const scoped_thread_count scope(detail::threads_among(options...));
        const std::size_t start = cache.length();
        const auto q_projected = q_proj(x);
        const auto k_projected = k_proj(x);
        const auto v_projected = v_proj(x);
        cache.append(heads_of<Hkv>(k_projected, start), split_heads<Hkv>(v_projected));
        return detail::merge_and_project(
            o_proj, attention(heads_of<H>(q_projected, start), cache.keys(), cache.values(),
                              causal_offset(static_cast<std::ptrdiff_t>(start)), options...));
    }

private:
    template <class Q, class K, class V, class... Options>
    auto forward(const Q& query, const K& key, const V& value, const Options&... options) const {
        const scoped_thread_count scope(detail::threads_among(options...));
        const auto q_projected = q_proj(query); // kept: the heads are views of the projections
        const auto k_projected = k_proj(key);
        const auto v_projected = v_proj(value);
        return detail::merge_and_project(o_proj,
                                         attention(heads_of<H>(q_projected, 0), heads_of<Hkv>(k_projected, 0),
                                                   split_heads<Hkv>(v_projected), options...));
    }

    /// [B, T, Heads·D] as [B, Heads, T, D]: a view of the projection's output.
    template <std::size_t Heads, class P>
    static auto split_heads(const P& projected) {
        return rearrange<"b s (h d) -> b h s d">(projected, len<"h", Heads>);
    }
    /// The heads of q or k: rotated into a new tensor when the block has RoPE, else a view of
    /// `projected` (which the caller keeps alive).
    template <std::size_t Heads, class P>
    auto heads_of(const P& projected, std::size_t start) const {
        if constexpr (Rope) {
            return eval(rope_->apply(split_heads<Heads>(projected), start));
        } else {
            return split_heads<Heads>(projected);
        }
    }

    // (a rotary of 2 features stands in where RoPE is off, or the configuration already failed)
    std::optional<rotary<(Rope && !detail::block_config<E, H, Hkv, Rope> ? head_size : 2)>> rope_;
};

} // namespace ctein::nn
