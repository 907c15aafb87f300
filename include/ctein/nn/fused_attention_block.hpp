// fused_attention_block: self-attention with one projection for Q, K and V together — seed 001's
// W_qkv, seed 002's FusedMultiHeadAttention, nn.MultiheadAttention's in_proj_weight — split into
// q, k and v by a pattern and indices, views of the projection's output (no copy).
#pragma once

#include "../expr/attention.hpp"
#include "../expr/rearrange.hpp"
#include "../expr/slice.hpp"
#include "attention_block.hpp"
#include "linear.hpp"

#include <cstddef>

namespace ctein::nn {

/// Self-attention of width E with H heads whose Q, K and V projections are one [3·E, E] weight,
/// rows in the order q, k, v, each (h d) (nn.MultiheadAttention's `in_proj_weight` and
/// `in_proj_bias`, seed 001's `W_qkv`); `o_proj` is `out_proj`. A width that the heads do not
/// divide is a compile error naming both numbers.
///
///     ctein::nn::fused_attention_block<768, 12> mha;
///     mha.qkv_proj.weight() = ctein::load_npy<float, "o i", 2304, 768>("in_proj_weight.npy");
///     auto y = mha(x, ctein::key_padding_mask(padded), ctein::causal);
template <std::size_t E, std::size_t H, bool Bias = true>
class fused_attention_block {
    using checked = decltype(ctein::detail::report<detail::block_config<E, H, H, false>>());

public:
    static constexpr std::size_t model_width = E;
    static constexpr std::size_t heads = H;
    static constexpr std::size_t head_size = H == 0 ? 0 : E / H;

    linear<E, 3 * E, Bias> qkv_proj;
    linear<E, E, Bias, "e"> o_proj;

    /// Self-attention of x [B, T, E] with `ctein::attention`'s options; with `ctein::with_weights`,
    /// an `attention_result{output, weights}` (seed 001 returns both).
    template <viewable X, attention_option... Options>
    auto operator()(const X& x, const Options&... options) const {
        const scoped_thread_count scope(detail::threads_among(options...));
        const auto qkv = qkv_proj(x);
        const auto split = rearrange<"b s (three h d) -> three b h s d">(qkv, len<"three", 3>, len<"h", H>);
        return detail::merge_and_project(o_proj, attention(index<"three">(split, 0), index<"three">(split, 1),
                                                           index<"three">(split, 2), options...));
    }
};

} // namespace ctein::nn
