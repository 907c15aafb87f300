// fused_attention_block: self-attention with one projection for Q, K and V together — seed 001's
// W_qkv, seed 002's FusedMultiHeadAttention, nn.MultiheadAttention's in_proj_weight, GPT-2's
// c_attn, and with fewer key/value heads the fused [(Hq + 2 Hkv) D, E] weight of grouped-query
// models — split into q, k and v by a pattern and static slices, views of the projection's output
// (no copy).
#pragma once

#include "../expr/attention.hpp"
#include "../expr/rearrange.hpp"
#include "../expr/slice.hpp"
#include "attention_block.hpp"
#include "linear.hpp"

#include <cstddef>

namespace ctein::nn {

/// Self-attention of width E with H query heads and Hkv key/value heads whose Q, K and V
/// projections are one [(H + 2 Hkv) D, E] weight (D = E / H), rows in the order q heads, k heads,
/// v heads, each head's D features together: with Hkv = H, nn.MultiheadAttention's
/// `in_proj_weight` [3 E, E] and seed 001's `W_qkv`. `o_proj` is `out_proj`. The configuration is
/// checked as attention_block's is (compile errors naming both numbers).
///
///     ctein::nn::fused_attention_block<768, 12> mha;
///     ctein::nn::load(mha, ctein::safetensors_file("mha.safetensors"), ctein::nn::multihead_names());
///     auto y = mha(x, ctein::key_padding_mask(padded), ctein::causal);
template <std::size_t E, std::size_t H, std::size_t Hkv = H, bool Bias = true>
class fused_attention_block {
    using checked = decltype(ctein::detail::report<detail::block_config<E, H, Hkv, false>>());

public:
    static constexpr std::size_t model_width = E;
    static constexpr std::size_t heads = H;
    static constexpr std::size_t kv_heads = Hkv;
    static constexpr std::size_t head_size = H == 0 ? 0 : E / H;

    linear<E, (H + 2 * Hkv) * head_size, Bias> qkv_proj;
    linear<H * head_size, E, Bias, "e"> o_proj;

    /// Self-attention of x [B, T, E] with `ctein::attention`'s options; with `ctein::with_weights`,
    /// an `attention_result{output, weights}` (seed 001 returns both).
    template <viewable X, attention_option... Options>
    auto operator()(const X& x, const Options&... options) const {
        const scoped_thread_count scope(detail::threads_among(options...));
        const auto qkv = qkv_proj(x);
        // every head of q, k and v side by side: q is the first H, k the next Hkv, v the last Hkv
        const auto all_heads = rearrange<"b s (h d) -> b h s d">(qkv, len<"h", H + 2 * Hkv>);
        return detail::merge_and_project(o_proj, attention(slice<"h", 0, H>(all_heads),
                                                           slice<"h", H, H + Hkv>(all_heads),
                                                           slice<"h", H + Hkv, H + 2 * Hkv>(all_heads), options...));
    }
};

} // namespace ctein::nn
