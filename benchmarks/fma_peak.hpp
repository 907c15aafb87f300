// fma_peak: the machine's fp32 FMA peak, measured in the same run as the kernels it judges, so that
// "% of peak" compares numbers taken under the same clock, turbo and neighbour load.
#pragma once

#include "timing.hpp"

#include <ctein/kernels/attention_amx.hpp>
#include <ctein/kernels/multiply_add.hpp>

#include <xsimd/xsimd.hpp>

#if defined(__AVX512BF16__) && defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace ctein::bench {

/// GFLOP/s of `threads` threads each running `one_thread` (which does `flops_per_thread`): the
/// fastest of `runs` runs (see fma_peak_gflops).
template <class F>
double peak_gflops(F one_thread, double flops_per_thread, std::size_t threads, int runs) {
    const auto all_threads = [&] {
        std::vector<std::thread> others;
        for (std::size_t t = 1; t < threads; ++t) others.emplace_back(one_thread);
        one_thread();
        for (std::thread& t : others) t.join();
    };
    return flops_per_thread * static_cast<double>(threads) / fastest_seconds(all_threads, runs) * 1e-9;
}

/// GFLOP/s of independent fused multiply-adds on `threads` threads (2 flops per lane), the
/// kernels' own (kernels::multiply_add: with xsimd::fma a clang build on AVX-512 timed a multiply
/// and an add, half the peak, 74.8 against 153 GFLOP/s on a Cascade Lake core): enough
/// chains per thread to hide the FMA latency on two ports (4 cycles x 2 ports = 8 in flight at
/// least), and few enough that they and the two operands stay in registers: 16 of AVX-512's 32,
/// 12 of AVX2's 16 (16 chains spilled there, and the loop measured half the peak: 56 against 98
/// GFLOP/s on a Zen 3 core, below the attention kernel it judges). The fastest of `runs` runs of
/// about 5 ms each: a neighbour on this shared machine only ever slows the loop down, and a median
/// let one busy core halve the 2-thread figure. `steps` of `chains` multiply-adds per run: 2^20
/// take about 5 ms (thread start-up is noise); fewer serve runs whose timings mean nothing (an
/// unoptimised sanitizer build, where 2^20 took a minute).
inline double fma_peak_gflops(std::size_t threads = 1, int runs = 7,
                              std::size_t steps = std::size_t{1} << 20) {
    using batch = xsimd::batch<float>;
    constexpr std::size_t chains = sizeof(batch) == 64 ? 16 : 12;
    const auto one_thread = [steps] {
        std::array<batch, chains> acc;
        for (std::size_t c = 0; c < chains; ++c) acc[c] = batch(1.0f + 1e-7f * static_cast<float>(c));
        const batch a(0.999999f), b(1e-7f);
        for (std::size_t s = 0; s < steps; ++s) {
#pragma GCC unroll 16 // every chain in its own register
            for (std::size_t c = 0; c < chains; ++c) acc[c] = kernels::multiply_add(acc[c], a, b);
        }
        batch sum(0.0f);
        for (const batch& x : acc) sum += x;
        volatile float sink = xsimd::hadd(sum); // the chains are not dead code
        static_cast<void>(sink);
    };
    return peak_gflops(one_thread, 2.0 * batch::size * chains * static_cast<double>(steps), threads, runs);
}

/// GFLOP/s of independent bfloat16 dot products (vdpbf16ps: 2 products and 2 adds per float
/// lane) on `threads` threads, as fma_peak_gflops; 0 when the build has no AVX512-BF16. The
/// bound of the prefill's two products when they run on these instructions.
inline double bf16_dot_peak_gflops([[maybe_unused]] std::size_t threads = 1, [[maybe_unused]] int runs = 7) {
#if defined(__AVX512BF16__) && defined(__AVX512F__)
    constexpr std::size_t chains = 16;
    constexpr std::size_t steps = 1 << 20;
    const auto one_thread = [] {
        __m512 acc[chains];
        for (std::size_t c = 0; c < chains; ++c) acc[c] = _mm512_set1_ps(static_cast<float>(c));
        const __m512i a = _mm512_set1_epi32(0x3f803f80),
                      b = _mm512_set1_epi32(0x33803380); // (1, 1), (6e-8, 6e-8)
        for (std::size_t s = 0; s < steps; ++s) {
#pragma GCC unroll 16 // every chain in its own register
            for (std::size_t c = 0; c < chains; ++c)
                acc[c] = _mm512_dpbf16_ps(acc[c], (__m512bh)a, (__m512bh)b);
        }
        xsimd::batch<float> sum(0.0f);
        for (const __m512& x : acc) sum += xsimd::batch<float>(x);
        volatile float sink = xsimd::hadd(sum); // the chains are not dead code
        static_cast<void>(sink);
    };
    return peak_gflops(one_thread, 4.0 * 16 * chains * steps, threads, runs);
#else
    return 0.0;
#endif
}

/// GFLOP/s of AMX bfloat16 tile multiplies (16 x 16 x 32 products and as many adds each, into
/// four independent accumulators so that their latency is hidden) on `threads` threads, as
/// fma_peak_gflops; 0 where the build or the process has no AMX.
inline double amx_bf16_peak_gflops([[maybe_unused]] std::size_t threads = 1, [[maybe_unused]] int runs = 7) {
#if CTEIN_ATTENTION_AMX
    if (!kernels::attention_detail::amx_usable()) return 0.0;
    constexpr std::size_t steps = 1 << 16;
    const auto one_thread = [] {
        namespace amx = kernels::attention_detail;
        const amx::amx_tiles tiles;                     // every register 16 rows of 64 bytes
        alignas(64) std::uint16_t operand[16][32] = {}; // zeros: the speed does not depend on them
        amx::unrolled<4>([](auto c) { amx::tile_zero<c>(); });
        amx::tile_load<4>(operand, 64);
        amx::tile_load<5>(operand, 64);
        for (std::size_t s = 0; s < steps; ++s)
            amx::unrolled<4>([](auto c) { amx::tile_multiply<c, 4, 5>(); });
        alignas(64) float sink[16][16];
        amx::tile_store<0>(sink, 64);
        volatile float kept = sink[0][0]; // the multiplies are not dead code
        static_cast<void>(kept);
    };
    return peak_gflops(one_thread, 2.0 * 16 * 16 * 32 * 4 * steps, threads, runs);
#else
    return 0.0;
#endif
}

/// The bound of the bfloat16 prefill's two products: AMX's peak where the kernel multiplies on
/// AMX tiles (attention_amx.hpp), else vdpbf16ps's; 0 where it has neither.
inline double bf16_products_peak_gflops(std::size_t threads = 1, int runs = 7) {
    const double amx = amx_bf16_peak_gflops(threads, runs);
    return amx > 0.0 ? amx : bf16_dot_peak_gflops(threads, runs);
}

} // namespace ctein::bench
