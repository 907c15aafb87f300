// Ratios to a baseline measured in the same run: each benchmark times its baseline (memcpy, or
// a read-only pass) on its own buffers just before its own loop, so that both numbers see the
// same machine state, then reports bytes/second and the ratio as counters.
#pragma once

#include "timing.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace ctein::bench {

/// One baseline of a row: its name (the counter is `vs_<name>`) and its median seconds.
struct baseline {
    const char* name;
    double seconds;
};

/// Runs the benchmark loop over `f`, timed both by Google Benchmark and here, and reports
/// `bytes` per call as bytes/second and as the counter `bytes`, and, per baseline, `vs_<name>` =
/// this row's bandwidth / the baseline's. The loop mean and the baseline median differ as
/// statistics; over 5 repetitions, the reported median of `vs_...` is what the docs quote.
template <class F>
void run_against(benchmark::State& state, std::initializer_list<baseline> baselines, std::size_t bytes,
                 F&& f) {
    const auto start = clock::now();
    for (auto _ : state) {
        f();
        benchmark::ClobberMemory();
    }
    const double seconds =
        std::chrono::duration<double>(clock::now() - start).count() / static_cast<double>(state.iterations());
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
    state.counters["bytes"] = static_cast<double>(bytes); // per call: which rows exceed the caches
    for (const baseline& b : baselines) state.counters[std::string("vs_") + b.name] = b.seconds / seconds;
}

template <class F>
void run_against(benchmark::State& state, const char* name, double baseline_seconds, std::size_t bytes,
                 F&& f) {
    run_against(state, {baseline{name, baseline_seconds}}, bytes, static_cast<F&&>(f));
}

} // namespace ctein::bench
