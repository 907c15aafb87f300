// fma_peak: the machine's fp32 FMA peak, measured in the same run as the kernels it judges, so that
// "% of peak" compares numbers taken under the same clock, turbo and neighbour load.
#pragma once

#include "timing.hpp"

#include <xsimd/xsimd.hpp>

#include <array>
#include <cstddef>
#include <thread>
#include <vector>

namespace ctein::bench {

/// GFLOP/s of independent fused multiply-adds on `threads` threads (2 flops per lane): 16 chains
/// per thread hide the FMA latency on two ports (4 cycles x 2 ports = 8 in flight at least). The
/// fastest of `runs` runs of about 5 ms each: a neighbour on this shared machine only ever slows
/// the loop down, and a median let one busy core halve the 2-thread figure.
inline double fma_peak_gflops(std::size_t threads = 1, int runs = 7) {
    using batch = xsimd::batch<float>;
    constexpr std::size_t chains = 16;
    constexpr std::size_t steps = 1 << 20; // about 5 ms: thread start-up is noise
    const auto one_thread = [] {
        std::array<batch, chains> acc;
        for (std::size_t c = 0; c < chains; ++c) acc[c] = batch(1.0f + 1e-7f * static_cast<float>(c));
        const batch a(0.999999f), b(1e-7f);
        for (std::size_t s = 0; s < steps; ++s) {
#pragma GCC unroll 16 // every chain in its own register
            for (std::size_t c = 0; c < chains; ++c) acc[c] = xsimd::fma(acc[c], a, b);
        }
        batch sum(0.0f);
        for (const batch& x : acc) sum += x;
        volatile float sink = xsimd::hadd(sum); // the chains are not dead code
        static_cast<void>(sink);
    };
    const auto all_threads = [&] {
        std::vector<std::thread> others;
        for (std::size_t t = 1; t < threads; ++t) others.emplace_back(one_thread);
        one_thread();
        for (std::thread& t : others) t.join();
    };
    const double seconds = fastest_seconds(all_threads, runs);
    const double flops = 2.0 * batch::size * chains * steps * static_cast<double>(threads);
    return flops / seconds * 1e-9;
}

} // namespace ctein::bench
