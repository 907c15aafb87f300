// attention_problem: everything the fused attention kernel needs, as plain pointers, lengths and
// element strides. The expression layer (expr/attention.hpp) fills it from typed tensors; the
// kernel (kernels/attention.hpp) reads nothing else.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace ctein::kernels {

/// How q, k and v store their elements: float, or 16-bit floats (ctein::bfloat16,
/// ctein::float16) that the kernel widens to float as it reads them.
enum class element_type : std::uint8_t { f32, bf16, f16 };

/// Element strides of a [batch, head, token, feature] operand; features are contiguous.
struct token_strides {
    std::ptrdiff_t batch = 0;
    std::ptrdiff_t head = 0;
    std::ptrdiff_t token = 0;
};

/// Elements from an operand's start to token `t` of head `h` of batch `b`.
constexpr std::ptrdiff_t token_offset(const token_strides& s, std::size_t b, std::size_t h,
                                      std::size_t t) noexcept {
    return static_cast<std::ptrdiff_t>(b) * s.batch + static_cast<std::ptrdiff_t>(h) * s.head +
           static_cast<std::ptrdiff_t>(t) * s.token;
}

/// How an explicit mask's elements are read.
enum class mask_kind : std::uint8_t {
    none,
    keep,     ///< bool, true = the key takes part (PyTorch's scaled_dot_product_attention attn_mask)
    ignore,   ///< bool, true = the key is left out (nn.MultiheadAttention's key_padding_mask)
    additive, ///< float, added to the scaled scores (-inf or a large negative value masks)
};

/// An explicit mask broadcast to [batch, head, query, key]: a stride of 0 repeats the mask along
/// that axis (a [B, Tk] key mask has head and query strides 0).
struct explicit_mask {
    const void* data = nullptr;
    mask_kind kind = mask_kind::none;
    std::array<std::ptrdiff_t, 4> strides{}; ///< batch, head, query, key
};

/// One attention call: out = softmax(q·kᵀ·scale + mask)·v per (batch, query head), where query
/// head h reads key/value head h / (query_heads / kv_heads) (grouped-query attention; multi-query
/// when kv_heads == 1).
///
/// Masks combine: a key takes part only if every mask given keeps it. A query row whose keys are
/// all masked gives zeros (and zero weights), not NaN.
struct attention_problem {
    std::size_t batch = 1;
    std::size_t query_heads = 1;
    std::size_t kv_heads = 1; ///< divides query_heads
    std::size_t queries = 0;  ///< query tokens per head
    std::size_t keys = 0;     ///< key/value tokens per head
    std::size_t head_size = 0;

    /// q, k and v: elements of q_type and kv_type (k and v share theirs); strides in elements.
    const void* q = nullptr;
    token_strides q_strides;
    const void* k = nullptr;
    token_strides k_strides;
    const void* v = nullptr;
    token_strides v_strides;
    element_type q_type = element_type::f32;
    element_type kv_type = element_type::f32;
    float* out = nullptr;
    token_strides out_strides;

    float scale = 1.0f; ///< multiplies q·kᵀ; usually 1/sqrt(head_size)

    /// Causal: query i sees key j only when j <= i + causal_offset. An offset of 0 is PyTorch's
    /// is_causal (top-left aligned); keys - queries aligns the last query with the last key, as a
    /// KV-cache decode step needs.
    bool causal = false;
    std::ptrdiff_t causal_offset = 0;

    /// Key padding: keys j >= key_lengths[b] are left out for batch b (nullptr: none).
    const std::int64_t* key_lengths = nullptr;

    explicit_mask mask;

    /// Dropout on the normalised weights: each weight is kept with probability 1 - dropout and
    /// then scaled by 1 / (1 - dropout). Whether weight (b, h, i, j) is kept depends only on
    /// (dropout_seed, b, h, i, j), through a Philox-4x32-10 counter-based generator
    /// (kernels/philox.hpp), so results do not depend on tiling or thread count.
    float dropout = 0.0f;
    std::uint64_t dropout_seed = 0;

    /// When not null, the weights (after dropout, the ones multiplied with v) are written here,
    /// [batch, query_heads, queries, keys] with these element strides.
    float* weights = nullptr;
    std::array<std::ptrdiff_t, 4> weights_strides{};

    std::size_t threads = 1;
};

} // namespace ctein::kernels
