// GEMM (fp32) next to OpenBLAS's cblas_sgemm (openblas_peer.cmake), timed in the same run: the
// projections of a 768-wide transformer (activations [M, K] row-major, weights [N, K] in
// PyTorch's [out, in] layout, so B is read transposed; N = 768 and the fused QKV's 2304) on 1 and
// 2 threads, attention's batched products (12 heads of 1024 x 1024, d = 64), the projection
// through ctein::einsum (a new output each call), and a naive loop over xtensor containers for
// one small shape. Rows report GFLOP/s, % of the FMA peak measured in the same run
// (fma_peak.hpp) and, where OpenBLAS is built in, their ratio to it on the same operands.
#include "fma_peak.hpp"
#include "same_run.hpp"

#include <ctein/ctein.hpp>
#include <ctein/kernels/gemm.hpp>

#include <xtensor/xtensor.hpp>

#include <benchmark/benchmark.h>

#ifdef CTEIN_BENCH_OPENBLAS
#include <cblas.h>
extern "C" void openblas_set_num_threads(int);
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

namespace {

using ctein::kernels::strided_matrix;

/// Uniform values in [-1, 1) from xorshift64.
void fill(float* data, std::size_t size, std::uint64_t seed) {
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull;
    for (std::size_t i = 0; i < size; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = static_cast<float>(x >> 40) * 0x1p-23f - 1.0f;
    }
}

/// The operands of one projection: x [M, K], w [N, K], y [M, N], allocated and touched once.
struct projection {
    projection(std::size_t m, std::size_t n, std::size_t k)
        : m(m)
        , n(n)
        , k(k)
        , x(m, k)
        , w(n, k)
        , y(m, n) {
        fill(x.data(), x.size(), 1);
        fill(w.data(), w.size(), 2);
    }
    std::size_t m, n, k;
    ctein::tensor<float, "s c", ctein::dyn, ctein::dyn> x;
    ctein::tensor<float, "o c", ctein::dyn, ctein::dyn> w;
    ctein::tensor<float, "s o", ctein::dyn, ctein::dyn> y;
    double flops() const { return 2.0 * static_cast<double>(m * n * k); }
};

projection& projection_for(std::size_t m, std::size_t n, std::size_t k) {
    static std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::unique_ptr<projection>> cache;
    auto& p = cache[{m, n, k}];
    if (!p) p = std::make_unique<projection>(m, n, k);
    return *p;
}

/// Runs the benchmark loop over `f` and reports GFLOP/s, `pct_peak` (of the FMA peak on the
/// row's threads, measured just before, as the peer is: the machine's load changes) and, when a
/// peer was timed (`peer_seconds` > 0), `vs_openblas` = the peer's time / this row's: above 1 is
/// faster than OpenBLAS.
template <class F>
void run_flops(benchmark::State& state, double flops, std::size_t threads, double peer_seconds, F&& f) {
    const double peak = ctein::bench::fma_peak_gflops(threads);
    const auto start = ctein::bench::clock::now();
    for (auto _ : state) {
        f();
        benchmark::ClobberMemory();
    }
    const double seconds = std::chrono::duration<double>(ctein::bench::clock::now() - start).count() /
                           static_cast<double>(state.iterations());
    const double gflops = flops / seconds * 1e-9;
    state.counters["GFLOPs"] = gflops;
    state.counters["pct_peak"] = 100.0 * gflops / peak;
    if (peer_seconds > 0) state.counters["vs_openblas"] = peer_seconds / seconds;
}

#ifdef CTEIN_BENCH_OPENBLAS
void openblas_projection(projection& p) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(p.m), static_cast<int>(p.n),
                static_cast<int>(p.k), 1.0f, p.x.data(), static_cast<int>(p.k), p.w.data(),
                static_cast<int>(p.k), 0.0f, p.y.data(), static_cast<int>(p.n));
}
#endif

/// OpenBLAS's median time for `f` on `threads` threads, or 0 when it is not built in.
template <class F>
double openblas_seconds([[maybe_unused]] std::size_t threads, [[maybe_unused]] F&& f) {
#ifdef CTEIN_BENCH_OPENBLAS
    openblas_set_num_threads(static_cast<int>(threads));
    return ctein::bench::median_seconds(f);
#else
    return 0;
#endif
}

void ctein_projection(projection& p, std::size_t threads) {
    const auto n = static_cast<std::ptrdiff_t>(p.n), k = static_cast<std::ptrdiff_t>(p.k);
    ctein::kernels::gemm<float>({p.x.data(), p.m, p.k, k, 1}, {p.w.data(), p.k, p.n, 1, k},
                                {p.y.data(), p.m, p.n, n, 1}, threads);
}

projection& projection_of(const benchmark::State& state) {
    return projection_for(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)),
                          static_cast<std::size_t>(state.range(2)));
}

void bm_gemm_ctein(benchmark::State& state) {
    projection& p = projection_of(state);
    const auto threads = static_cast<std::size_t>(state.range(3));
#ifdef CTEIN_BENCH_OPENBLAS
    const double peer = openblas_seconds(threads, [&] { openblas_projection(p); });
#else
    const double peer = 0;
#endif
    run_flops(state, p.flops(), threads, peer, [&] { ctein_projection(p, threads); });
}

#ifdef CTEIN_BENCH_OPENBLAS
void bm_gemm_openblas(benchmark::State& state) {
    projection& p = projection_of(state);
    const auto threads = static_cast<std::size_t>(state.range(3));
    const double peer = openblas_seconds(threads, [&] { openblas_projection(p); });
    run_flops(state, p.flops(), threads, peer, [&] { openblas_projection(p); });
}
#endif

/// The projection as a model writes it: a new output tensor from ctein::einsum each call.
void bm_einsum_projection(benchmark::State& state) {
    projection& p = projection_of(state);
    const auto threads = static_cast<std::size_t>(state.range(3));
#ifdef CTEIN_BENCH_OPENBLAS
    const double peer = openblas_seconds(threads, [&] { openblas_projection(p); });
#else
    const double peer = 0;
#endif
    ctein::set_thread_count(threads);
    run_flops(state, p.flops(), threads, peer, [&] {
        auto y = ctein::eval(ctein::einsum<"s c, o c -> s o">(p.x, p.w));
        benchmark::DoNotOptimize(y.data());
    });
}

/// One small projection by a naive triple loop over xtensor containers (xtensor has no GEMM of
/// its own without xtensor-blas), next to ctein on the same operands.
void bm_gemm_naive(benchmark::State& state) {
    projection& p = projection_of(state);
    const auto threads = static_cast<std::size_t>(state.range(3));
    xt::xtensor<float, 2> x(std::array<std::size_t, 2>{p.m, p.k}), w(std::array<std::size_t, 2>{p.n, p.k}),
        y(std::array<std::size_t, 2>{p.m, p.n});
    std::copy_n(p.x.data(), x.size(), x.data());
    std::copy_n(p.w.data(), w.size(), w.data());
#ifdef CTEIN_BENCH_OPENBLAS
    const double peer = openblas_seconds(threads, [&] { openblas_projection(p); });
#else
    const double peer = 0;
#endif
    run_flops(state, p.flops(), threads, peer, [&] {
        for (std::size_t i = 0; i < p.m; ++i)
            for (std::size_t j = 0; j < p.n; ++j) {
                float sum = 0;
                for (std::size_t c = 0; c < p.k; ++c) sum += x(i, c) * w(j, c);
                y(i, j) = sum;
            }
    });
}

/// Attention's two products over 12 heads of 1024 tokens, d = 64: scores q kᵀ and values p v.
struct attention_products {
    static constexpr std::size_t heads = 12, tokens = 1024, d = 64;
    attention_products()
        : q(heads * tokens * d)
        , k(heads * tokens * d)
        , v(heads * tokens * d)
        , p(heads * tokens * tokens)
        , out(heads * tokens * d) {
        fill(q.data(), q.size(), 3);
        fill(k.data(), k.size(), 4);
        fill(v.data(), v.size(), 5);
        fill(p.data(), p.size(), 6);
    }
    std::vector<float> q, k, v, p, out;
    static double flops() { return 2.0 * heads * tokens * tokens * d; }
};

attention_products& attention() {
    static attention_products a;
    return a;
}

enum class product { scores, values };

template <product P>
void bm_attention_ctein(benchmark::State& state) {
    attention_products& a = attention();
    const auto threads = static_cast<std::size_t>(state.range(0));
    constexpr std::size_t t = attention_products::tokens, d = attention_products::d;
    constexpr auto ti = static_cast<std::ptrdiff_t>(t), di = static_cast<std::ptrdiff_t>(d);
    const auto run = [&] {
        if constexpr (P == product::scores) {
            const ctein::kernels::gemm_loop heads{attention_products::heads, ti * di, ti * di, ti * ti,
                                                  false};
            ctein::kernels::gemm_batched<float>({a.q.data(), t, d, di, 1}, {a.k.data(), d, t, 1, di},
                                                {a.p.data(), t, t, ti, 1}, std::span(&heads, 1), threads);
        } else {
            const ctein::kernels::gemm_loop heads{attention_products::heads, ti * ti, ti * di, ti * di,
                                                  false};
            ctein::kernels::gemm_batched<float>({a.p.data(), t, t, ti, 1}, {a.v.data(), t, d, di, 1},
                                                {a.out.data(), t, d, di, 1}, std::span(&heads, 1), threads);
        }
    };
    double peer = 0;
#ifdef CTEIN_BENCH_OPENBLAS
    peer = openblas_seconds(threads, [&] {
        for (std::size_t h = 0; h < attention_products::heads; ++h) {
            if constexpr (P == product::scores) {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, t, t, d, 1.0f, a.q.data() + h * t * d, d,
                            a.k.data() + h * t * d, d, 0.0f, a.p.data() + h * t * t, t);
            } else {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, t, d, t, 1.0f, a.p.data() + h * t * t,
                            t, a.v.data() + h * t * d, d, 0.0f, a.out.data() + h * t * d, d);
            }
        }
    });
#endif
    run_flops(state, attention_products::flops(), threads, peer, run);
}

void projections(benchmark::internal::Benchmark* b) {
    b->ArgNames({"M", "N", "K", "threads"});
    for (std::int64_t threads : {1, 2})
        for (std::int64_t m : {512, 1024, 2048})
            for (std::int64_t n : {768, 2304}) b->Args({m, n, 768, threads});
    b->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond);
}

void one_projection(benchmark::internal::Benchmark* b) {
    b->ArgNames({"M", "N", "K", "threads"});
    for (std::int64_t threads : {1, 2}) b->Args({2048, 2304, 768, threads});
    b->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond);
}

void small_projection(benchmark::internal::Benchmark* b) {
    b->ArgNames({"M", "N", "K", "threads"})->Args({64, 768, 768, 1});
    b->UseRealTime()->Repetitions(3)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond);
}

void thread_counts(benchmark::internal::Benchmark* b) {
    b->ArgName("threads")->Arg(1)->Arg(2);
    b->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond);
}

} // namespace

BENCHMARK(bm_gemm_ctein)->Name("gemm/ctein")->Apply(projections);
#ifdef CTEIN_BENCH_OPENBLAS
BENCHMARK(bm_gemm_openblas)->Name("gemm/openblas")->Apply(projections);
#endif
BENCHMARK(bm_einsum_projection)->Name("einsum_projection/ctein")->Apply(one_projection);
BENCHMARK(bm_attention_ctein<product::scores>)->Name("attention_scores/ctein")->Apply(thread_counts);
BENCHMARK(bm_attention_ctein<product::values>)->Name("attention_values/ctein")->Apply(thread_counts);
BENCHMARK(bm_gemm_naive)->Name("gemm/naive_xtensor")->Apply(small_projection);

BENCHMARK_MAIN();
