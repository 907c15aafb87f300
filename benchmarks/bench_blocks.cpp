// Whole attention blocks from <ctein/nn.hpp>, forward passes, fp32, GFLOP/s as a share of the FMA
// peak measured in the same run (fma_peak.hpp):
// - seed 000's multi-head attention, E = 768, H = 12, B = 1, T = 512 and 2048, 1 and 2 threads;
//   flops = 8·T·E² (four projections) + 4·T²·E (QKᵀ and PV), as the attention-blocks issue counts;
// - a LLaMA-like GQA + RoPE block, E = 2048, Hq = 32, Hkv = 8, D = 64: prefill T = 512, and one decode
//   step over a cache of 4096 tokens, against memcpy of the bytes it must read (its weights and the
//   cached K and V) measured in the same run.
#include "fma_peak.hpp"
#include "same_run.hpp"

#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

#include <benchmark/benchmark.h>

#ifdef CTEIN_TORCH_PEER
#include "attention_torch.hpp" // set_torch_threads
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

namespace {

template <class T>
void fill(T& t, float step, float scale) {
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = scale * std::sin(static_cast<float>(i) * step);
}
template <class Block>
void fill_weights(Block& block) {
    fill(block.q_proj.weight(), 0.011f, 0.03f);
    fill(block.k_proj.weight(), 0.007f, 0.03f);
    fill(block.v_proj.weight(), 0.005f, 0.03f);
    fill(block.o_proj.weight(), 0.003f, 0.03f);
}

void report_flops(benchmark::State& state, double flops, double seconds_per_call, double peak) {
    const double gflops = flops / seconds_per_call * 1e-9;
    state.counters["GFLOPs"] = gflops;
    state.counters["pct_peak"] = 100.0 * gflops / peak;
}

template <class F>
double timed_loop(benchmark::State& state, F&& f) {
    const auto start = ctein::bench::clock::now();
    for (auto _ : state) {
        f();
        benchmark::ClobberMemory();
    }
    return std::chrono::duration<double>(ctein::bench::clock::now() - start).count() /
           static_cast<double>(state.iterations());
}

constexpr std::size_t E = 768, H = 12;

#ifdef CTEIN_TORCH_PEER
/// A [rows, cols] tensor of `t`'s values (copied: the peer owns its weights).
template <class T>
at::Tensor torch_copy(const T& t, std::int64_t rows, std::int64_t cols) {
    return at::from_blob(const_cast<float*>(t.data()), {rows, cols}, at::kFloat).clone();
}
template <class T>
at::Tensor torch_copy(const T& t, std::int64_t n) {
    return at::from_blob(const_cast<float*>(t.data()), {n}, at::kFloat).clone();
}

/// PyTorch's two ways to run seed 000's module, with the ctein block's weights: the fast path of
/// nn.MultiheadAttention in evaluation (at::_native_multi_head_attention: one fused in-projection,
/// its own attention kernel) and a module written with F.linear and F.scaled_dot_product_attention.
struct torch_mha {
    at::Tensor qkv_weight, qkv_bias, q_w, q_b, k_w, k_b, v_w, v_b, o_w, o_b;

    template <class Block>
    explicit torch_mha(const Block& block)
        : q_w(torch_copy(block.q_proj.weight(), E, E))
        , q_b(torch_copy(block.q_proj.bias(), E))
        , k_w(torch_copy(block.k_proj.weight(), E, E))
        , k_b(torch_copy(block.k_proj.bias(), E))
        , v_w(torch_copy(block.v_proj.weight(), E, E))
        , v_b(torch_copy(block.v_proj.bias(), E))
        , o_w(torch_copy(block.o_proj.weight(), E, E))
        , o_b(torch_copy(block.o_proj.bias(), E)) {
        qkv_weight = at::cat({q_w, k_w, v_w}, 0);
        qkv_bias = at::cat({q_b, k_b, v_b}, 0);
    }
    at::Tensor fast_path(const at::Tensor& x) const {
        return std::get<0>(at::_native_multi_head_attention(x, x, x, E, H, qkv_weight, qkv_bias, o_w, o_b, {},
                                                            /*need_weights=*/false));
    }
    at::Tensor sdpa(const at::Tensor& x) const {
        const auto heads = [&](const at::Tensor& w, const at::Tensor& b) {
            return at::linear(x, w, b).view({x.size(0), x.size(1), H, E / H}).transpose(1, 2);
        };
        const at::Tensor o = at::scaled_dot_product_attention(heads(q_w, q_b), heads(k_w, k_b), heads(v_w, v_b));
        return at::linear(o.transpose(1, 2).reshape({x.size(0), x.size(1), E}), o_w, o_b);
    }
};

/// The largest difference between a peer's output and ctein's, relative to ctein's largest value:
/// each peer is checked to compute the same block before its time counts.
template <class T>
double peer_difference(const at::Tensor& peer, const T& ours) {
    c10::InferenceMode inference;
    const at::Tensor o = at::from_blob(const_cast<float*>(ours.data()), peer.sizes(), at::kFloat);
    return ((peer - o).abs().max() / o.abs().max()).template item<double>();
}

/// Median seconds of a PyTorch call on `threads` threads, inference mode.
template <class F>
double torch_seconds(std::size_t threads, F&& f) {
    c10::InferenceMode inference;
    ctein::bench::set_torch_threads(threads);
    return ctein::bench::median_seconds([&] { benchmark::DoNotOptimize(f().data_ptr()); });
}
#endif

void bm_mha(benchmark::State& state) {
    const auto tokens = static_cast<std::size_t>(state.range(0));
    const auto threads = static_cast<std::size_t>(state.range(1));
    static const auto block = [] {
        auto b = std::make_unique<ctein::nn::attention_block<E, H>>();
        fill_weights(*b);
        return b;
    }();
    ctein::tensor<float, "b s e", 1, ctein::dyn, E> x(tokens);
    fill(x, 0.37f, 1.0f);
    const double peak = ctein::bench::fma_peak_gflops(threads);
    const double seconds =
        timed_loop(state, [&] { benchmark::DoNotOptimize((*block)(x, ctein::threads(threads)).data()); });
    const double t = static_cast<double>(tokens), e = static_cast<double>(E);
    report_flops(state, 8 * t * e * e + 4 * t * t * e, seconds, peak);
#ifdef CTEIN_TORCH_PEER
    // ctein's speed-up over each PyTorch block, timed in this row (medians against the loop's mean)
    static const torch_mha torch(*block);
    const at::Tensor torch_x = at::from_blob(x.data(), {1, static_cast<std::int64_t>(tokens), E}, at::kFloat);
    state.counters["x_torch_fastpath"] = torch_seconds(threads, [&] { return torch.fast_path(torch_x); }) / seconds;
    state.counters["x_torch_sdpa"] = torch_seconds(threads, [&] { return torch.sdpa(torch_x); }) / seconds;
    const auto ours = (*block)(x);
    state.counters["peer_difference"] =
        std::max(peer_difference(torch.fast_path(torch_x), ours), peer_difference(torch.sdpa(torch_x), ours));
#endif
}

constexpr std::size_t LE = 2048, LH = 32, LKV = 8, LD = LE / LH;
using llama_block = ctein::nn::attention_block<LE, LH, LKV, false, true>;

llama_block& llama() {
    static const auto block = [] {
        auto b = std::make_unique<llama_block>(8192);
        fill_weights(*b);
        return b;
    }();
    return *block;
}

#ifdef CTEIN_TORCH_PEER
/// The LLaMA-like block in PyTorch as transformers' sdpa LlamaAttention runs it: F.linear
/// projections, rotate-half RoPE, F.scaled_dot_product_attention with enable_gqa, and for decode a
/// DynamicCache's torch.cat of the cached K and V with the new token's.
struct torch_llama {
    at::Tensor q_w, k_w, v_w, o_w, cos, sin;

    torch_llama()
        : q_w(torch_copy(llama().q_proj.weight(), LE, LE))
        , k_w(torch_copy(llama().k_proj.weight(), LKV * LD, LE))
        , v_w(torch_copy(llama().v_proj.weight(), LKV * LD, LE))
        , o_w(torch_copy(llama().o_proj.weight(), LE, LE)) {
        const at::Tensor inv_freq = 1.0 / at::pow(10000.0, at::arange(0, LD, 2, at::kFloat) / double(LD));
        const at::Tensor freqs = at::outer(at::arange(8192, at::kFloat), inv_freq);
        const at::Tensor angles = at::cat({freqs, freqs}, -1);
        cos = angles.cos();
        sin = angles.sin();
    }
    static at::Tensor rotate_half(const at::Tensor& x) {
        const auto halves = x.chunk(2, -1);
        return at::cat({-halves[1], halves[0]}, -1);
    }
    at::Tensor heads(const at::Tensor& x, const at::Tensor& w, std::int64_t count) const {
        return at::linear(x, w).view({x.size(0), x.size(1), count, LD}).transpose(1, 2);
    }
    at::Tensor rope(const at::Tensor& x, std::int64_t start) const {
        const at::Tensor c = cos.narrow(0, start, x.size(2)), s = sin.narrow(0, start, x.size(2));
        return x * c + rotate_half(x) * s;
    }
    /// x's tokens after the `past` ones (none when undefined), causal: with `eager`, attention as
    /// transformers' eager LlamaAttention computes it (repeat_kv's copies, matmul, an additive
    /// causal mask, softmax, matmul), else F.scaled_dot_product_attention as its sdpa one does.
    at::Tensor forward(const at::Tensor& x, const at::Tensor& past_k, const at::Tensor& past_v,
                       bool eager = false) const {
        const std::int64_t start = past_k.defined() ? past_k.size(2) : 0;
        const at::Tensor q = rope(heads(x, q_w, LH), start);
        at::Tensor k = rope(heads(x, k_w, LKV), start), v = heads(x, v_w, LKV);
        if (past_k.defined()) {
            k = at::cat({past_k, k}, 2);
            v = at::cat({past_v, v}, 2);
        }
        const at::Tensor o = eager ? eager_attention(q, k, v)
                                   : at::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/!past_k.defined(),
                                                                      std::nullopt, /*enable_gqa=*/true);
        return at::linear(o.transpose(1, 2).reshape({x.size(0), x.size(1), LE}), o_w);
    }
    static at::Tensor eager_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
        const auto repeat_kv = [](const at::Tensor& t) {
            return t.unsqueeze(2).expand({t.size(0), LKV, LH / LKV, t.size(2), LD}).reshape({t.size(0), LH, t.size(2), LD});
        };
        at::Tensor scores = at::matmul(q, repeat_kv(k).transpose(2, 3)) * (1.0 / std::sqrt(double(LD)));
        const std::int64_t tq = q.size(2), tk = k.size(2);
        if (tq > 1) // a query sees keys up to its own position (the last tq of the tk)
            scores = scores + at::full({tq, tk}, -INFINITY, at::kFloat).triu(tk - tq + 1);
        return at::matmul(at::softmax(scores, -1), repeat_kv(v));
    }
};
#endif

void bm_llama_prefill(benchmark::State& state) {
    constexpr std::size_t tokens = 512;
    ctein::tensor<float, "b s e", 1, tokens, LE> x;
    fill(x, 0.29f, 1.0f);
    const double peak = ctein::bench::fma_peak_gflops(1);
    llama_block::cache_type cache(1, tokens);
    const double seconds = timed_loop(state, [&] {
        cache.clear();
        benchmark::DoNotOptimize(llama()(x, cache, ctein::threads(1)).data());
    });
    const double t = static_cast<double>(tokens), e = static_cast<double>(LE);
    const double projections = 2 * t * e * (e + 2 * LKV * LD + e);       // q, k, v, o
    report_flops(state, projections + 4 * t * t * e / 2, seconds, peak); // causal: half the scores
#ifdef CTEIN_TORCH_PEER
    static const torch_llama torch;
    const at::Tensor torch_x = at::from_blob(x.data(), {1, tokens, LE}, at::kFloat);
    state.counters["x_torch_sdpa"] = torch_seconds(1, [&] { return torch.forward(torch_x, {}, {}); }) / seconds;
    state.counters["x_torch_eager"] = torch_seconds(1, [&] { return torch.forward(torch_x, {}, {}, true); }) / seconds;
    cache.clear();
    const auto ours = llama()(x, cache);
    state.counters["peer_difference"] = std::max(peer_difference(torch.forward(torch_x, {}, {}), ours),
                                                 peer_difference(torch.forward(torch_x, {}, {}, true), ours));
#endif
}

void bm_llama_decode(benchmark::State& state) {
    constexpr std::size_t cached = 4096;
    llama_block::cache_type cache(1, cached + 1);
    ctein::tensor<float, "b s e", 1, cached, LE> history;
    fill(history, 0.21f, 1.0f);
    llama()(history, cache, ctein::threads(1));
    ctein::tensor<float, "b s e", 1, 1, LE> token;
    fill(token, 0.5f, 1.0f);
    // what a step must read: the four weights and the cached K and V
    const std::size_t weight_bytes = (2 * LE * LE + 2 * LKV * LD * LE) * sizeof(float);
    const std::size_t cache_bytes = 2 * LKV * cached * LD * sizeof(float);
    const std::size_t bytes = weight_bytes + cache_bytes;
    std::vector<char> from(bytes, 1), to(bytes);
    const double baseline = ctein::bench::median_seconds([&] {
        std::memcpy(to.data(), from.data(), bytes);
        benchmark::ClobberMemory();
    });
    ctein::bench::run_against(state, "memcpy", baseline, 2 * bytes, [&] {
        benchmark::DoNotOptimize(llama()(token, cache, ctein::threads(1)).data());
        cache.truncate(cached); // the next step sees the same 4096 tokens
    });
#ifdef CTEIN_TORCH_PEER
    static const torch_llama torch;
    const auto ctein_seconds = ctein::bench::median_seconds([&] {
        benchmark::DoNotOptimize(llama()(token, cache, ctein::threads(1)).data());
        cache.truncate(cached);
    });
    c10::InferenceMode inference;
    const at::Tensor past_k = at::from_blob(const_cast<float*>(cache.keys().data()), {1, LKV, cached, LD},
                                            {static_cast<std::int64_t>(LKV * (cached + 1) * LD),
                                             static_cast<std::int64_t>((cached + 1) * LD), LD, 1}, at::kFloat);
    const at::Tensor past_v = at::from_blob(const_cast<float*>(cache.values().data()), {1, LKV, cached, LD},
                                            past_k.strides(), at::kFloat);
    const at::Tensor torch_token = at::from_blob(token.data(), {1, 1, LE}, at::kFloat);
    state.counters["x_torch_sdpa"] =
        torch_seconds(1, [&] { return torch.forward(torch_token, past_k, past_v); }) / ctein_seconds;
    state.counters["x_torch_eager"] =
        torch_seconds(1, [&] { return torch.forward(torch_token, past_k, past_v, true); }) / ctein_seconds;
    const auto ours = llama()(token, cache);
    cache.truncate(cached);
    state.counters["peer_difference"] = std::max(peer_difference(torch.forward(torch_token, past_k, past_v), ours),
                                                 peer_difference(torch.forward(torch_token, past_k, past_v, true), ours));
#endif
}

} // namespace

BENCHMARK(bm_mha)
    ->Name("mha_block/E768_H12")
    ->ArgNames({"T", "threads"})
    ->Args({512, 1})
    ->Args({2048, 1})
    ->Args({512, 2})
    ->Args({2048, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_llama_prefill)->Name("llama_block/prefill_T512")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_llama_decode)
    ->Name("llama_block/decode_cache4096")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
