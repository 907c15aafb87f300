// naive_attention: the attention call of kernels/attention_problem.hpp computed the obvious way, in
// double precision, one (batch, head, query) row at a time. The reference the fused kernel is
// tested against; it reads the same operands, strides and masks and draws the same dropout.
#pragma once

#include <ctein/core/half_precision.hpp>
#include <ctein/kernels/attention_problem.hpp>
#include <ctein/kernels/philox.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace ctein::testing {

/// Element `at` of an operand stored as `type`, exactly.
inline double element(const void* data, kernels::element_type type, std::ptrdiff_t at) {
    switch (type) {
    case kernels::element_type::bf16:
        return static_cast<const bfloat16*>(data)[at];
    case kernels::element_type::f16:
        return static_cast<const float16*>(data)[at];
    default:
        return static_cast<const float*>(data)[at];
    }
}

/// The reference results, contiguous: out [batch][query_heads][queries][head_size] and weights
/// [batch][query_heads][queries][keys] (after dropout).
struct naive_attention_result {
    std::size_t query_heads = 0, queries = 0, keys = 0, head_size = 0;
    std::vector<double> out;
    std::vector<double> weights;

    [[nodiscard]] double out_at(std::size_t b, std::size_t h, std::size_t i, std::size_t d) const {
        return out[((b * query_heads + h) * queries + i) * head_size + d];
    }
    [[nodiscard]] double weight_at(std::size_t b, std::size_t h, std::size_t i, std::size_t j) const {
        return weights[((b * query_heads + h) * queries + i) * keys + j];
    }
};

/// Additive mask values at or below this leave their key out, as -inf does (the kernel keeps
/// masked scores finite: 2^(a log2 e) with a below this is its "masked" sentinel). So a float
/// minimum, as PyTorch code often uses, masks, and a row of them gives zeros.
inline constexpr double additive_masks_below = -3.4e29;

/// Whether key j takes part in row (b, h, i), and the additive term of its score.
struct naive_key {
    bool kept = true;
    double added = 0.0;
};

inline naive_key naive_mask(const kernels::attention_problem& p, std::size_t b, std::size_t h, std::size_t i,
                            std::size_t j) {
    naive_key key;
    if (j >= p.keys) key.kept = false;
    if (p.key_lengths && static_cast<std::int64_t>(j) >= p.key_lengths[b]) key.kept = false;
    if (p.causal && static_cast<std::ptrdiff_t>(j) > static_cast<std::ptrdiff_t>(i) + p.causal_offset)
        key.kept = false;
    const kernels::explicit_mask& m = p.mask;
    if (m.kind == kernels::mask_kind::none || m.data == nullptr) return key;
    const std::ptrdiff_t at =
        static_cast<std::ptrdiff_t>(b) * m.strides[0] + static_cast<std::ptrdiff_t>(h) * m.strides[1] +
        static_cast<std::ptrdiff_t>(i) * m.strides[2] + static_cast<std::ptrdiff_t>(j) * m.strides[3];
    switch (m.kind) {
    case kernels::mask_kind::keep:
        if (!static_cast<const bool*>(m.data)[at]) key.kept = false;
        break;
    case kernels::mask_kind::ignore:
        if (static_cast<const bool*>(m.data)[at]) key.kept = false;
        break;
    case kernels::mask_kind::additive: {
        const float a = static_cast<const float*>(m.data)[at];
        if (a <= additive_masks_below) key.kept = false;
        key.added = a;
        break;
    }
    case kernels::mask_kind::none:
        break;
    }
    return key;
}

/// out = softmax(q·kᵀ·scale + masks)·v per row, with weight (b, h, i, j) kept when its Philox
/// draw reaches the dropout probability and then scaled by 1 / (1 - p); a row whose keys are all
/// masked gives zeros, and a NaN or infinite score NaN (std::max skips NaN, the sum does not).
/// 16-bit operands are read exactly, as the kernel widens them.
/// p.out and p.weights are not touched.
///
///     const auto ref = ctein::testing::naive_attention(problem);
///     double x = ref.out_at(0, 0, 3, 1);
inline naive_attention_result naive_attention(const kernels::attention_problem& p) {
    naive_attention_result r;
    r.query_heads = p.query_heads;
    r.queries = p.queries;
    r.keys = p.keys;
    r.head_size = p.head_size;
    r.out.assign(p.batch * p.query_heads * p.queries * p.head_size, 0.0);
    r.weights.assign(p.batch * p.query_heads * p.queries * p.keys, 0.0);
    const std::size_t group = p.query_heads / p.kv_heads;
    std::vector<double> score(p.keys);
    std::vector<naive_key> keys(p.keys);
    for (std::size_t b = 0; b < p.batch; ++b)
        for (std::size_t h = 0; h < p.query_heads; ++h)
            for (std::size_t i = 0; i < p.queries; ++i) {
                const std::size_t kh = h / group;
                const std::ptrdiff_t q = static_cast<std::ptrdiff_t>(b) * p.q_strides.batch +
                                         static_cast<std::ptrdiff_t>(h) * p.q_strides.head +
                                         static_cast<std::ptrdiff_t>(i) * p.q_strides.token;
                double top = -std::numeric_limits<double>::infinity();
                bool any_kept = false;
                for (std::size_t j = 0; j < p.keys; ++j) {
                    keys[j] = naive_mask(p, b, h, i, j);
                    if (!keys[j].kept) continue;
                    any_kept = true;
                    const std::ptrdiff_t k = static_cast<std::ptrdiff_t>(b) * p.k_strides.batch +
                                             static_cast<std::ptrdiff_t>(kh) * p.k_strides.head +
                                             static_cast<std::ptrdiff_t>(j) * p.k_strides.token;
                    double dot = 0.0;
                    for (std::size_t d = 0; d < p.head_size; ++d) {
                        const auto at = static_cast<std::ptrdiff_t>(d);
                        dot += element(p.q, p.q_type, q + at) * element(p.k, p.kv_type, k + at);
                    }
                    score[j] = dot * p.scale + keys[j].added;
                    top = std::max(top, score[j]);
                }
                if (!any_kept) continue; // fully masked: zeros (NaN scores give NaN below)
                double sum = 0.0;
                for (std::size_t j = 0; j < p.keys; ++j)
                    if (keys[j].kept) sum += std::exp(score[j] - top);
                const std::uint64_t row = (b * p.query_heads + h) * p.queries + i;
                double* weights = &r.weights[row * p.keys];
                double* out = &r.out[row * p.head_size];
                for (std::size_t j = 0; j < p.keys; ++j) {
                    if (!keys[j].kept) continue;
                    double w = std::exp(score[j] - top) / sum;
                    if (p.dropout > 0.0f) {
                        const float u = kernels::dropout_uniforms(p.dropout_seed, row, j / 4)[j % 4];
                        w = u >= p.dropout ? w / (1.0 - static_cast<double>(p.dropout)) : 0.0;
                    }
                    weights[j] = w;
                    const std::ptrdiff_t v = static_cast<std::ptrdiff_t>(b) * p.v_strides.batch +
                                             static_cast<std::ptrdiff_t>(kh) * p.v_strides.head +
                                             static_cast<std::ptrdiff_t>(j) * p.v_strides.token;
                    for (std::size_t d = 0; d < p.head_size; ++d)
                        out[d] += w * element(p.v, p.kv_type, v + static_cast<std::ptrdiff_t>(d));
                }
            }
    return r;
}

} // namespace ctein::testing
