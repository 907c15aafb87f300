// Reductions of a 50 MB fp32 tensor (B = 8, S = 2048, 768 channels = 12 heads x 64) with the
// ctein kernel into a preallocated output, and with `ctein::reduce` (which allocates its
// result), each against a read-only pass over the same bytes (a vectorised sum of the whole
// buffer) measured in the same benchmark. Bytes counted: the input, read once.
#include "same_run.hpp"

#include <ctein/ctein.hpp>
#include <ctein/expr/reduce.hpp>
#include <ctein/kernels/reduce.hpp>

#include <xsimd/xsimd.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <vector>

namespace {

constexpr std::size_t batch = 8, tokens = 2048, heads = 12, head_size = 64, channels = heads * head_size;
constexpr std::size_t elements = batch * tokens * channels;

using ctein::strided_axis;
constexpr auto i(std::size_t n) {
    return static_cast<std::ptrdiff_t>(n);
}

ctein::tensor<float, "b s c", batch, tokens, channels>& input() {
    static auto* x = [] {
        auto* t = new ctein::tensor<float, "b s c", batch, tokens, channels>;
        for (std::size_t k = 0; k < t->size(); ++k) t->data()[k] = static_cast<float>(k % 101) * 0.01f;
        return t;
    }();
    return *x;
}

static_assert(elements % (4 * xsimd::batch<float>::size) == 0);

/// The read-only pass: every byte loaded once, four accumulators so that loads, not additions,
/// bound it.
float read_all(const float* p, std::size_t n) {
    using batch_t = xsimd::batch<float>;
    constexpr std::size_t w = batch_t::size;
    batch_t a0(0.0f), a1(0.0f), a2(0.0f), a3(0.0f);
    std::size_t k = 0;
    for (; k + 4 * w <= n; k += 4 * w) {
        a0 += batch_t::load_aligned(p + k);
        a1 += batch_t::load_aligned(p + k + w);
        a2 += batch_t::load_aligned(p + k + 2 * w);
        a3 += batch_t::load_aligned(p + k + 3 * w);
    }
    return xsimd::hadd((a0 + a1) + (a2 + a3)); // elements is a multiple of 4 batches: no tail
}

double read_seconds() {
    return ctein::bench::median_seconds([] { benchmark::DoNotOptimize(read_all(input().data(), elements)); });
}

void bm_read(benchmark::State& state) {
    ctein::bench::run_against(state, "read", read_seconds(), elements * sizeof(float),
                              [] { benchmark::DoNotOptimize(read_all(input().data(), elements)); });
}

/// The kernel, with the axes `ctein::reduce` would give it, into an output allocated once.
template <ctein::reduction R, std::size_t K, std::size_t N>
void bm_kernel(benchmark::State& state, std::array<strided_axis, K> kept,
               std::array<strided_axis, N> reduced) {
    std::size_t outputs = 1;
    for (const strided_axis& a : kept) outputs *= a.length;
    std::vector<float> out(outputs);
    ctein::bench::run_against(state, "read", read_seconds(), elements * sizeof(float), [&] {
        ctein::kernels::reduce_strided<R>(input().data(), kept, reduced, out.data());
        benchmark::DoNotOptimize(out.data());
    });
}

template <ctein::fixed_string Pattern, ctein::fixed_string Reduction>
void bm_reduce(benchmark::State& state) {
    const auto x = ctein::named<"">(input());
    ctein::bench::run_against(state, "read", read_seconds(), elements * sizeof(float), [&] {
        if constexpr (Pattern.view().starts_with("b h")) {
            const auto by_head = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", heads>);
            auto out = ctein::reduce<Pattern, Reduction>(by_head);
            benchmark::DoNotOptimize(out.data());
        } else {
            auto out = ctein::reduce<Pattern, Reduction>(x);
            benchmark::DoNotOptimize(out.data());
        }
    });
}

void options(benchmark::internal::Benchmark* b) {
    b->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond);
}

// b s d -> b s: the reduced axis is contiguous
const std::array<strided_axis, 2> per_token{{{batch, i(tokens* channels)}, {tokens, i(channels)}}};
const std::array<strided_axis, 1> over_channels{{{channels, 1}}};
// b s d -> b d: the kept axis is contiguous
const std::array<strided_axis, 2> per_channel{{{batch, i(tokens* channels)}, {channels, 1}}};
const std::array<strided_axis, 1> over_tokens{{{tokens, i(channels)}}};
// b h s d -> b s d, over the head-split view of the same buffer
const std::array<strided_axis, 3> per_token_and_dim{
    {{batch, i(tokens* channels)}, {tokens, i(channels)}, {head_size, 1}}};
const std::array<strided_axis, 1> over_heads{{{heads, i(head_size)}}};

} // namespace

int main(int argc, char** argv) {
    using ctein::reduction;
    const auto add = [](const char* name, auto run) {
        benchmark::RegisterBenchmark(name, run)->Apply(options);
    };
    add("read_only/sum_all", bm_read);
    add("kernel/b s d -> b s sum",
        [](benchmark::State& s) { bm_kernel<reduction::sum>(s, per_token, over_channels); });
    add("kernel/b s d -> b d sum",
        [](benchmark::State& s) { bm_kernel<reduction::sum>(s, per_channel, over_tokens); });
    add("kernel/b h s d -> b s d mean",
        [](benchmark::State& s) { bm_kernel<reduction::mean>(s, per_token_and_dim, over_heads); });
    add("kernel/b h s d -> b s d max",
        [](benchmark::State& s) { bm_kernel<reduction::max>(s, per_token_and_dim, over_heads); });
    add("reduce/b s d -> b s sum", bm_reduce<"b s d -> b s", "sum">);
    add("reduce/b s d -> b d sum", bm_reduce<"b s d -> b d", "sum">);
    add("reduce/b h s d -> b s d mean", bm_reduce<"b h s d -> b s d", "mean">);
    add("reduce/b h s d -> b s d max", bm_reduce<"b h s d -> b s d", "max">);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
