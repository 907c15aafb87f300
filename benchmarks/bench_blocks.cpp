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
