// timing: how long a call takes, as the benchmarks and the demo's table measure it (no Google
// Benchmark here, so that examples can time with it too).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
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

} // namespace ctein::bench
