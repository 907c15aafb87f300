// attention_shape: the sizes of one benchmarked attention call, shared by bench_attention.cpp and
// its peers (attention_naive.hpp, attention_torch.hpp), with the work and bytes it is judged by.
#pragma once

#include <cstddef>
#include <string>

namespace ctein::bench {

/// q: [batch, query_heads, queries, head_size]; k, v: [batch, kv_heads, keys, head_size], all
/// contiguous. Causal: query i sees key j <= i + causal_offset (0: PyTorch's is_causal).
struct attention_shape {
    std::size_t batch = 1;
    std::size_t query_heads = 1;
    std::size_t kv_heads = 1;
    std::size_t queries = 1;
    std::size_t keys = 1;
    std::size_t head_size = 64;
    bool causal = false;
    std::ptrdiff_t causal_offset = 0;
    std::size_t threads = 1;
    /// Decode: how many copies of K and V the calls rotate through; more than one keeps them out
    /// of the caches (a cold row), one lets them stay (a warm row).
    std::size_t copies = 1;
    /// Bytes of each element of K and V as the row stores them (2 for a 16-bit KV cache).
    std::size_t kv_element_bytes = sizeof(float);

    std::size_t q_size() const { return batch * query_heads * queries * head_size; }
    std::size_t kv_size() const { return batch * kv_heads * keys * head_size; }

    /// Whether the causal mask leaves out any key: with an offset of keys - 1 or more (a decode
    /// step that sees the whole cache), it does not.
    bool masks_keys() const { return causal && causal_offset < static_cast<std::ptrdiff_t>(keys) - 1; }

    /// The flops attention is credited with: 2 per multiply-add of q·kᵀ and of p·v, halved when
    /// causal (the convention of FlashAttention's benchmarks), however many the kernel skips.
    double flops() const {
        const double full =
            4.0 * static_cast<double>(batch * query_heads * queries) * static_cast<double>(keys * head_size);
        return masks_keys() ? full / 2 : full;
    }

    /// Bytes of K and V, what a decode step must read at least.
    double kv_bytes() const { return 2.0 * static_cast<double>(kv_size() * kv_element_bytes); }

    /// Bytes of q, k, v and the output.
    double io_bytes() const { return static_cast<double>((2 * q_size() + 2 * kv_size()) * sizeof(float)); }
};

} // namespace ctein::bench
