// Materialising a head split `b s (h d) -> b h s d` and a head merge `b h s d -> b s (h d)`
// (h = 12, d = 64, S = 2048, fp32, B = 2, 4, 8: 12.5 to 50 MB, around the size of the L3 cache;
// where the machine reports a larger last-level cache, ctein's rows and the copies also run at a
// batch beyond it) with ctein, with xtensor's transpose, and with a naive loop, each against memcpy of the
// same bytes and a copy with streaming stores, both measured in the same benchmark; and a plain transpose of
// the same bytes seen as a (B S) x 768 matrix. Bytes counted: read + written (2 x the tensor).
#include "same_run.hpp"

#include <ctein/ctein.hpp>
#include <ctein/xtensor.hpp>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <unistd.h>
#include <utility>

namespace {

constexpr std::size_t heads = 12, head_size = 64, channels = heads * head_size, tokens = 2048;

using tokens_t = ctein::tensor<float, "b s (h d)", ctein::dyn, ctein::dyn, channels>;
using heads_t = ctein::tensor<float, "b h s d", ctein::dyn, heads, ctein::dyn, head_size>;

/// One pair of tensors per batch size, allocated (and touched) once: the benchmarks measure
/// copies, not page faults.
struct tensors {
    explicit tensors(std::size_t batch)
        : by_token(batch, tokens)
        , by_head(batch, tokens) {
        for (std::size_t i = 0; i < by_token.size(); ++i) by_token.data()[i] = static_cast<float>(i % 1000);
        for (std::size_t i = 0; i < by_head.size(); ++i) by_head.data()[i] = static_cast<float>(i % 997);
    }
    tokens_t by_token;
    heads_t by_head;
    std::size_t bytes() const { return by_token.size() * sizeof(float); }
};

tensors& tensors_for(std::size_t batch) {
    static std::map<std::size_t, std::unique_ptr<tensors>> cache;
    auto& t = cache[batch];
    if (!t) t = std::make_unique<tensors>(batch);
    return *t;
}

enum class direction { split, merge };

double memcpy_seconds(const float* from, float* to, std::size_t bytes) {
    return ctein::bench::median_seconds([&] {
        std::memcpy(to, from, bytes);
        benchmark::ClobberMemory();
    });
}

/// glibc's memcpy, as a copy function of the rows.
void plain_memcpy(const float* from, float* to, std::size_t bytes) {
    std::memcpy(to, from, bytes);
}

/// A plain copy whose stores stream past the cache (non-temporal): what a copy of these bytes
/// can reach on this machine, when the C library's memcpy does not use such stores at this size.
void stream_copy(const float* from, float* to, std::size_t bytes) {
    ctein::kernels::copy_run<ctein::kernels::store_kind::streaming>(from, to, bytes / sizeof(float));
    ctein::kernels::finish_streaming_stores();
}

double stream_copy_seconds(const float* from, float* to, std::size_t bytes) {
    return ctein::bench::median_seconds([&] {
        stream_copy(from, to, bytes);
        benchmark::ClobberMemory();
    });
}

/// Both baselines of a row, measured on its buffers just before it.
template <class F>
void run_against_copies(benchmark::State& state, const float* from, float* to, std::size_t bytes, F&& f) {
    ctein::bench::run_against(
        state,
        {{"memcpy", memcpy_seconds(from, to, bytes)}, {"stream_copy", stream_copy_seconds(from, to, bytes)}},
        2 * bytes, f);
}

/// The source and the output of a direction: a split reads by token and writes by head.
template <direction D>
std::pair<const float*, float*> ends_of(tensors& t) {
    if constexpr (D == direction::split)
        return {t.by_token.data(), t.by_head.data()};
    else
        return {t.by_head.data(), t.by_token.data()};
}

/// A baseline's own row (memcpy or stream_copy), against both baselines: the noise of the comparison.
template <direction D, void (*Copy)(const float*, float*, std::size_t)>
void bm_copy(benchmark::State& state) {
    tensors& t = tensors_for(static_cast<std::size_t>(state.range(0)));
    const auto ends = ends_of<D>(t);
    run_against_copies(state, ends.first, ends.second, t.bytes(),
                       [&] { Copy(ends.first, ends.second, t.bytes()); });
}

template <direction D>
void bm_ctein(benchmark::State& state) {
    tensors& t = tensors_for(static_cast<std::size_t>(state.range(0)));
    const auto run = [&] {
        if constexpr (D == direction::split) {
            ctein::assign(t.by_head,
                          ctein::rearrange<"b s (h d) -> b h s d">(t.by_token, ctein::len<"h", heads>));
        } else {
            ctein::assign(t.by_token, ctein::rearrange<"b h s d -> b s (h d)">(t.by_head));
        }
    };
    const auto [from, to] = ends_of<D>(t);
    run_against_copies(state, from, to, t.bytes(), run);
}

template <direction D>
void bm_xtensor(benchmark::State& state) {
    const std::size_t batch = static_cast<std::size_t>(state.range(0));
    // split: (B, S, H, D) -> (B, H, S, D); merge: (B, H, S, D) -> (B, S, H, D), i.e. (B, S, H*D)
    const std::array<std::size_t, 4> by_token{batch, tokens, heads, head_size},
        by_head{batch, heads, tokens, head_size};
    xt::xtensor<float, 4> in(D == direction::split ? by_token : by_head, 1.0f);
    xt::xtensor<float, 4> out(D == direction::split ? by_head : by_token, 0.0f);
    const std::size_t bytes = in.size() * sizeof(float);
    run_against_copies(state, in.data(), out.data(), bytes, [&] {
        xt::noalias(out) = xt::transpose(in, {0, 2, 1, 3});
    });
}

template <direction D>
void bm_naive(benchmark::State& state) {
    const std::size_t batch = static_cast<std::size_t>(state.range(0));
    tensors& t = tensors_for(batch);
    const auto run = [&, batch] {
        const auto [from, to] = ends_of<D>(t);
        for (std::size_t b = 0; b < batch; ++b)
            for (std::size_t h = 0; h < heads; ++h)
                for (std::size_t s = 0; s < tokens; ++s)
                    for (std::size_t d = 0; d < head_size; ++d) {
                        const std::size_t token_major = ((b * tokens + s) * heads + h) * head_size + d;
                        const std::size_t head_major = ((b * heads + h) * tokens + s) * head_size + d;
                        if constexpr (D == direction::split) {
                            to[head_major] = from[token_major];
                        } else {
                            to[token_major] = from[head_major];
                        }
                    }
    };
    const auto [from, to] = ends_of<D>(t);
    run_against_copies(state, from, to, t.bytes(), run);
}

/// `b s (h d) -> (h d) (b s)`: a transpose, whose source is contiguous along the output's rows.
void bm_transpose_ctein(benchmark::State& state) {
    const std::size_t batch = static_cast<std::size_t>(state.range(0));
    tensors& t = tensors_for(batch);
    auto out = ctein::adapt<"", channels, ctein::dyn>(t.by_head.data(), batch * tokens);
    run_against_copies(state, t.by_token.data(), t.by_head.data(), t.bytes(), [&] {
        ctein::assign(out, ctein::rearrange<"b s (h d) -> (h d) (b s)">(t.by_token, ctein::len<"h", heads>));
    });
}

void bm_transpose_xtensor(benchmark::State& state) {
    const std::size_t batch = static_cast<std::size_t>(state.range(0));
    xt::xtensor<float, 2> in(std::array<std::size_t, 2>{batch * tokens, channels}, 1.0f);
    xt::xtensor<float, 2> out(std::array<std::size_t, 2>{channels, batch * tokens}, 0.0f);
    const std::size_t bytes = in.size() * sizeof(float);
    run_against_copies(state, in.data(), out.data(), bytes, [&] { xt::noalias(out) = xt::transpose(in); });
}

void batches(benchmark::internal::Benchmark* b) {
    b->ArgName("B")->Arg(2)->Arg(4)->Arg(8)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
    b->Unit(benchmark::kMillisecond);
}

/// The first batch whose tensor alone outgrows the last-level cache the machine reports, so that
/// a head split's source and output together are twice that cache (the engines issue's goal is
/// judged on such rows); 0 when B = 8 already does, when the cache is not reported, or when the
/// two tensors would take more than a quarter of the memory. (Some virtual machines report a
/// cache of hundreds of MiB: a Sapphire Rapids guest, 480 MiB, where B = 8 is 50 MB.)
std::size_t batch_beyond_cache() {
    const long cache = sysconf(_SC_LEVEL3_CACHE_SIZE), pages = sysconf(_SC_PHYS_PAGES),
               page = sysconf(_SC_PAGESIZE);
    if (cache <= 0 || pages <= 0 || page <= 0) return 0;
    const std::size_t per_batch = tokens * channels * sizeof(float);
    const std::size_t batch = (static_cast<std::size_t>(cache) + per_batch - 1) / per_batch;
    const std::size_t memory = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
    return batch > 8 && 2 * batch * per_batch <= memory / 4 ? batch : 0;
}

/// batches, and batch_beyond_cache when there is one: for ctein's head split and merge and their
/// copies only (xtensor and the naive loop run 6-30 x slower, and would add minutes at that size).
void batches_and_beyond(benchmark::internal::Benchmark* b) {
    batches(b);
    if (const std::size_t beyond = batch_beyond_cache()) b->Arg(static_cast<std::int64_t>(beyond));
}

} // namespace

BENCHMARK(bm_copy<direction::split, plain_memcpy>)->Name("head_split/memcpy")->Apply(batches_and_beyond);
BENCHMARK(bm_copy<direction::split, stream_copy>)->Name("head_split/stream_copy")->Apply(batches_and_beyond);
BENCHMARK(bm_ctein<direction::split>)->Name("head_split/ctein")->Apply(batches_and_beyond);
BENCHMARK(bm_xtensor<direction::split>)->Name("head_split/xtensor")->Apply(batches);
BENCHMARK(bm_naive<direction::split>)->Name("head_split/naive")->Apply(batches);
BENCHMARK(bm_copy<direction::merge, plain_memcpy>)->Name("head_merge/memcpy")->Apply(batches_and_beyond);
BENCHMARK(bm_copy<direction::merge, stream_copy>)->Name("head_merge/stream_copy")->Apply(batches_and_beyond);
BENCHMARK(bm_ctein<direction::merge>)->Name("head_merge/ctein")->Apply(batches_and_beyond);
BENCHMARK(bm_xtensor<direction::merge>)->Name("head_merge/xtensor")->Apply(batches);
BENCHMARK(bm_naive<direction::merge>)->Name("head_merge/naive")->Apply(batches);
BENCHMARK(bm_transpose_ctein)->Name("transpose/ctein")->Apply(batches);
BENCHMARK(bm_transpose_xtensor)->Name("transpose/xtensor")->Apply(batches);

BENCHMARK_MAIN();
