// Element-wise expressions evaluated in one pass, over tensors larger than the L3 cache (2^24
// floats, 64 MiB each):
// - a 3-operand chain `out = a * b + c` (reads 3 tensors, writes 1) with ctein, with xtensor's own
//   evaluation of the same expression (xsimd on), and with a naive loop, each against memcpy of
//   the same number of bytes (2 tensors copied: 4 tensors of traffic) measured in the same run;
// - RoPE, `q * cos + rotate_half(q) * sin` on [B, H, S, D] with [S, D] tables, against the same
//   memcpy of q's bytes and a naive loop.
// Bytes counted: read + written.
#include "same_run.hpp"

#include <ctein/ctein.hpp>
#include <ctein/xtensor.hpp>

#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>

namespace {

constexpr std::size_t elements = std::size_t{1} << 24;
using flat = ctein::tensor<float, "i", ctein::dyn>;

/// The chain's tensors and the memcpy baseline's (twice as long: the same traffic), allocated
/// and touched once.
struct chain_tensors {
    chain_tensors()
        : a(elements)
        , b(elements)
        , c(elements)
        , out(elements)
        , copy_from(2 * elements)
        , copy_to(2 * elements) {
        for (std::size_t i = 0; i < elements; ++i) {
            a.data()[i] = static_cast<float>(i % 1000) * 0.001f;
            b.data()[i] = static_cast<float>(i % 997) * 0.002f;
            c.data()[i] = static_cast<float>(i % 991);
        }
        std::memset(copy_from.data(), 1, copy_from.size() * sizeof(float));
    }
    flat a, b, c, out, copy_from, copy_to;
    static constexpr std::size_t bytes = 4 * elements * sizeof(float);
    double memcpy_seconds() {
        return ctein::bench::median_seconds([&] {
            std::memcpy(copy_to.data(), copy_from.data(), 2 * elements * sizeof(float));
            benchmark::ClobberMemory();
        });
    }
};

chain_tensors& chain() {
    static const auto t = std::make_unique<chain_tensors>();
    return *t;
}

void bm_chain_memcpy(benchmark::State& state) {
    chain_tensors& t = chain();
    ctein::bench::run_against(state, "memcpy", t.memcpy_seconds(), t.bytes, [&] {
        std::memcpy(t.copy_to.data(), t.copy_from.data(), 2 * elements * sizeof(float));
    });
}

void bm_chain_ctein(benchmark::State& state) {
    chain_tensors& t = chain();
    ctein::bench::run_against(state, "memcpy", t.memcpy_seconds(), t.bytes,
                              [&] { ctein::assign(t.out, t.a * t.b + t.c); });
}

void bm_chain_xtensor(benchmark::State& state) {
    chain_tensors& t = chain();
    const std::array<std::size_t, 1> shape{elements};
    auto a = xt::adapt(t.a.data(), elements, xt::no_ownership(), shape);
    auto b = xt::adapt(t.b.data(), elements, xt::no_ownership(), shape);
    auto c = xt::adapt(t.c.data(), elements, xt::no_ownership(), shape);
    auto out = xt::adapt(t.out.data(), elements, xt::no_ownership(), shape);
    ctein::bench::run_against(state, "memcpy", t.memcpy_seconds(), t.bytes,
                              [&] { xt::noalias(out) = a * b + c; });
}

void bm_chain_naive(benchmark::State& state) {
    chain_tensors& t = chain();
    ctein::bench::run_against(state, "memcpy", t.memcpy_seconds(), t.bytes, [&] {
        const float* a = t.a.data();
        const float* b = t.b.data();
        const float* c = t.c.data();
        float* out = t.out.data();
        for (std::size_t i = 0; i < elements; ++i) out[i] = a[i] * b[i] + c[i];
    });
}

/// RoPE on [B, H, S, D] = [4, 16, 4096, 64] (64 MiB) with [S, D] tables.
constexpr std::size_t rope_b = 4, rope_h = 16, rope_s = 4096, rope_d = 64;
using rope_q = ctein::tensor<float, "b h s d", rope_b, rope_h, rope_s, rope_d>;
using rope_table = ctein::tensor<float, "s d", rope_s, rope_d>;

struct rope_tensors {
    rope_tensors() {
        for (std::size_t i = 0; i < q->size(); ++i) q->data()[i] = static_cast<float>(i % 1000) * 0.001f;
        for (std::size_t s = 0; s < rope_s; ++s)
            for (std::size_t d = 0; d < rope_d; ++d) {
                const double angle =
                    static_cast<double>(s) * std::pow(10000.0, -2.0 * (d % (rope_d / 2)) / rope_d);
                (*cos)(s, d) = static_cast<float>(std::cos(angle));
                (*sin)(s, d) = static_cast<float>(std::sin(angle));
            }
    }
    std::unique_ptr<rope_q> q = std::make_unique<rope_q>(), out = std::make_unique<rope_q>();
    std::unique_ptr<rope_table> cos = std::make_unique<rope_table>(), sin = std::make_unique<rope_table>();
    static constexpr std::size_t bytes = 2 * rope_b * rope_h * rope_s * rope_d * sizeof(float);
    double memcpy_seconds() {
        return ctein::bench::median_seconds([&] {
            std::memcpy(out->data(), q->data(), bytes / 2);
            benchmark::ClobberMemory();
        });
    }
};

rope_tensors& rope() {
    static const auto t = std::make_unique<rope_tensors>();
    return *t;
}

void bm_rope_ctein(benchmark::State& state) {
    rope_tensors& t = rope();
    const rope_q& q = *t.q;
    const rope_table& cos = *t.cos;
    const rope_table& sin = *t.sin;
    ctein::bench::run_against(state, "memcpy", t.memcpy_seconds(), t.bytes,
                              [&] { ctein::assign(*t.out, q * cos + ctein::rotate_half<"d">(q) * sin); });
}

void bm_rope_naive(benchmark::State& state) {
    rope_tensors& t = rope();
    ctein::bench::run_against(state, "memcpy", t.memcpy_seconds(), t.bytes, [&] {
        const rope_q& q = *t.q;
        rope_q& out = *t.out;
        constexpr std::size_t half = rope_d / 2;
        for (std::size_t b = 0; b < rope_b; ++b)
            for (std::size_t h = 0; h < rope_h; ++h)
                for (std::size_t s = 0; s < rope_s; ++s)
                    for (std::size_t d = 0; d < rope_d; ++d) {
                        const float rotated = d < half ? -q(b, h, s, d + half) : q(b, h, s, d - half);
                        out(b, h, s, d) = q(b, h, s, d) * (*t.cos)(s, d) + rotated * (*t.sin)(s, d);
                    }
    });
}

void options(benchmark::internal::Benchmark* b) {
    b->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond);
}

} // namespace

BENCHMARK(bm_chain_memcpy)->Name("chain_a*b+c/memcpy")->Apply(options);
BENCHMARK(bm_chain_ctein)->Name("chain_a*b+c/ctein")->Apply(options);
BENCHMARK(bm_chain_xtensor)->Name("chain_a*b+c/xtensor")->Apply(options);
BENCHMARK(bm_chain_naive)->Name("chain_a*b+c/naive")->Apply(options);
BENCHMARK(bm_rope_ctein)->Name("rope/ctein")->Apply(options);
BENCHMARK(bm_rope_naive)->Name("rope/naive")->Apply(options);

BENCHMARK_MAIN();
