// attention_naive: attention as a textbook writes it, the floor ctein's attention is compared
// with: scalar loops for S = q·kᵀ·scale, a separate softmax over each row of S, then O = S·v.
// Too slow to run whole at long sequences, so it runs on a sample and its time is scaled.
#pragma once

#include "attention_shape.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace ctein::bench {

/// The naive attention of one head (batch 0, query head 0, key/value head 0) for every
/// `stride()`-th query, with its score rows, so that `time_scale()` times its time is the time of
/// the whole call. Every sampled row costs what it would in the whole call, so a causal mask
/// scales too.
///
///     naive_attention naive(shape);
///     naive(q, k, v);    // q, k, v: the whole contiguous operands
class naive_attention {
public:
    /// Samples enough queries for about 2^26 flops (70 ms at the 1 GFLOP/s of these loops).
    explicit naive_attention(const attention_shape& shape)
        : shape_(shape)
        , stride_(sample_stride(shape))
        , rows_((shape.queries + stride_ - 1) / stride_)
        , scores_(rows_ * shape.keys)
        , out_(rows_ * shape.head_size) {}

    void operator()(const float* q, const float* k, const float* v) {
        const std::size_t keys = shape_.keys, d_size = shape_.head_size;
        const float scale = 1.0f / std::sqrt(static_cast<float>(d_size));
        for (std::size_t r = 0; r < rows_; ++r) {
            const float* q_row = q + r * stride_ * d_size;
            for (std::size_t j = 0; j < visible(r); ++j) {
                float dot = 0.0f;
                for (std::size_t d = 0; d < d_size; ++d) dot += q_row[d] * k[j * d_size + d];
                scores_[r * keys + j] = dot * scale;
            }
        }
        for (std::size_t r = 0; r < rows_; ++r) {
            float* s = scores_.data() + r * keys;
            const float top = *std::max_element(s, s + visible(r));
            float sum = 0.0f;
            for (std::size_t j = 0; j < visible(r); ++j) sum += s[j] = std::exp(s[j] - top);
            for (std::size_t j = 0; j < visible(r); ++j) s[j] /= sum;
        }
        for (std::size_t r = 0; r < rows_; ++r) {
            for (std::size_t d = 0; d < d_size; ++d) {
                float acc = 0.0f;
                for (std::size_t j = 0; j < visible(r); ++j) acc += scores_[r * keys + j] * v[j * d_size + d];
                out_[r * d_size + d] = acc;
            }
        }
    }

    /// Time of the whole call / time of the sample.
    double time_scale() const {
        return static_cast<double>(shape_.batch * shape_.query_heads) * static_cast<double>(shape_.queries) /
               static_cast<double>(rows_);
    }

    std::size_t stride() const { return stride_; }

    /// Says what was timed, for the benchmark's label.
    std::string sample() const {
        std::string text = "1 of " + std::to_string(shape_.batch * shape_.query_heads) + " heads";
        if (stride_ > 1) text += ", 1/" + std::to_string(stride_) + " of the queries";
        return text + ", time scaled";
    }

    const float* out() const { return out_.data(); }

private:
    static std::size_t sample_stride(const attention_shape& s) {
        const double head_flops = 4.0 * static_cast<double>(s.queries * s.keys * s.head_size);
        std::size_t stride = 1;
        while (stride < s.queries && head_flops / static_cast<double>(stride) > 0x1p26) stride *= 2;
        return stride;
    }

    std::size_t visible(std::size_t row) const {
        if (!shape_.causal) return shape_.keys;
        const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(row * stride_) + shape_.causal_offset;
        return static_cast<std::size_t>(
            std::clamp<std::ptrdiff_t>(last + 1, 0, static_cast<std::ptrdiff_t>(shape_.keys)));
    }

    attention_shape shape_;
    std::size_t stride_;
    std::size_t rows_;
    std::vector<float> scores_;
    std::vector<float> out_;
};

} // namespace ctein::bench
