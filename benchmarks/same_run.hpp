// Ratios to a baseline measured in the same run: each benchmark times its baseline (memcpy, or
// a read-only pass) on its own buffers just before its own loop, so that both numbers see the
// same machine state, then reports bytes/second and the ratio as counters.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ctein::bench {

using clock = std::chrono::steady_clock;

/// The median time of `runs` calls of `f` (after one to warm caches and TLBs), in seconds.
template <class F>
double median_seconds(F&& f, int runs = 5) {
    f();
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
        const auto start = clock::now();
        f();
        times.push_back(std::chrono::duration<double>(clock::now() - start).count());
    }
    std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
    return times[static_cast<std::size_t>(runs / 2)];
}

/// Seconds of one call of `f`.
template <class F>
double call_seconds(F&& f) {
    const auto start = clock::now();
    f();
    return std::chrono::duration<double>(clock::now() - start).count();
}

/// The fastest of `runs` calls of `f` (no warm-up call), in seconds: on a shared machine a
/// neighbour only ever slows a call down, so the fastest is the least disturbed.
template <class F>
double fastest_seconds(F&& f, int runs) {
    double fastest = call_seconds(f);
    for (int r = 1; r < runs; ++r) fastest = std::min(fastest, call_seconds(f));
    return fastest;
}

/// Runs the benchmark loop over `f`, timed both by Google Benchmark and here, and reports
/// `bytes` per call as bytes/second and `vs_<baseline>` = this row's bandwidth / the baseline's.
/// The loop mean and the baseline median differ as statistics; over 5 repetitions, the
/// reported median of `vs_...` is what the docs quote.
template <class F>
void run_against(benchmark::State& state, const char* baseline, double baseline_seconds, std::size_t bytes,
                 F&& f) {
    const auto start = clock::now();
    for (auto _ : state) {
        f();
        benchmark::ClobberMemory();
    }
    const double seconds =
        std::chrono::duration<double>(clock::now() - start).count() / static_cast<double>(state.iterations());
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
    state.counters[std::string("vs_") + baseline] = baseline_seconds / seconds;
}

} // namespace ctein::bench
