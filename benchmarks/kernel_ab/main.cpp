// Two versions of the attention kernel (a: a git revision, b: the work tree; run.sh) timed in one
// process, calls alternated (calls of several threads: bursts alternated), on one attention call
// given on the command line. On a noisy machine (a VM whose FMA loop reads 71-98 GFLOP/s from
// second to second) only such paired calls tell a few per cent apart: separate runs of the
// benchmark differ by more than that.
//
//   kernel_ab HQ HKV D TK TYPE [TQ [CAUSAL [THREADS [COLD [KEY_LENGTH]]]]]    (the call: ../kernel_call.hpp;
//   each version has its own pool of workers)
//
// CTEIN_AB_HUGE_PAGES_B=1: b reads K and V of its own, advised for transparent huge pages (as
// NumPy's arrays are), a those of 4 KiB pages; with REV the work tree's commit, the same kernel
// on both kinds of pages.
#include "../kernel_call.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>

extern "C" void run_ctein_a(const void* problem);
extern "C" void run_ctein_b(const void* problem);

namespace {
using problem = ctein::kernels::attention_problem;

double seconds(const problem& p, void (*run)(const void*)) {
    const auto t0 = std::chrono::steady_clock::now();
    run(&p);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

int main(int argc, char** argv) {
    ctein::bench::kernel_call given(argc, argv);
    if (!given.valid_or_usage(argv[0])) return 2;
    const bool huge_b = std::getenv("CTEIN_AB_HUGE_PAGES_B") != nullptr;
    std::optional<ctein::bench::kernel_call> own_b;
    if (huge_b) own_b.emplace(argc, argv, 1, true);
    ctein::bench::kernel_call& given_b = huge_b ? *own_b : given;
    ctein::bench::aligned_vector<float> out_a(given.query_size()), out_b(given.query_size());
    problem pa = given.problem(out_a.data()), pb = given_b.problem(out_b.data());
    const auto call = [&](problem& p, void (*run)(const void*)) {
        (&p == &pb ? given_b : given).take(p);
        return seconds(p, run);
    };

    call(pa, run_ctein_a);
    call(pb, run_ctein_b);
    double difference = 0, largest = 0;
    for (std::size_t i = 0; i < out_a.size(); ++i) {
        difference = std::max(difference, static_cast<double>(std::abs(out_a[i] - out_b[i])));
        largest = std::max(largest, static_cast<double>(std::abs(out_a[i])));
    }

    // 40 rounds of about 20 ms per version each, a's and b's calls alternated
    const int calls = std::max(1, static_cast<int>(0.02 / call(pa, run_ctein_a)));
    std::vector<double> ratios;
    double best_a = 1e30, best_b = 1e30;
    // With more than one thread, each version's calls run in a burst of their own, after a pause
    // and an untimed call: a version's worker spins for up to 100 us after its job (thread_pool),
    // and alternated calls of 2 threads on 2 cores then ran beside the other version's spinning
    // worker, whose core their own worker waited for.
    const bool bursts = pa.threads > 1;
    const auto burst = [&](problem& p, void (*run)(const void*)) {
        std::this_thread::sleep_for(std::chrono::microseconds(300));
        call(p, run);
        double total = 0;
        for (int c = 0; c < calls; ++c) total += call(p, run);
        return total;
    };
    for (int round = 0; round < 40; ++round) {
        double a = 0, b = 0;
        if (bursts) {
            a = burst(pa, run_ctein_a);
            b = burst(pb, run_ctein_b);
        } else {
            for (int c = 0; c < calls; ++c) {
                a += call(pa, run_ctein_a);
                b += call(pb, run_ctein_b);
            }
        }
        best_a = std::min(best_a, a / calls);
        best_b = std::min(best_b, b / calls);
        ratios.push_back(a / b);
    }
    std::sort(ratios.begin(), ratios.end());
    std::printf("%s: a %.1f us, b %.1f us; a / b: fastest calls %.3f, median of rounds %.3f; max |a - b| "
                "%.2e (max |a| %.2f)\n",
                (given.describe() + (huge_b ? ", b on huge pages" : "")).c_str(), best_a * 1e6, best_b * 1e6,
                best_a / best_b, ratios[ratios.size() / 2], difference, largest);
}
