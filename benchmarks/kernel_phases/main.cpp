// Where one prefill call's time goes: the kernel built with -DCTEIN_KERNEL_PHASES (phase_clock),
// one attention call given on the command line run `CALLS` times after a few unmeasured ones, and
// each phase's share of the calls' ticks. Built at level 1 (run.sh's first line per call) only the
// packing and the pieces are counted, and the call runs at its own speed; at level 2 (its second
// line) the steps' phases too, but each counted phase then costs about 40 ticks of its own (a call
// took 1.07-1.18 x as long on one Zen 3 core), as much as the overheads between the steps: read
// that line for how a step splits between its phases, the first for everything else.
//
//   kernel_phases CALLS HQ HKV D TK TYPE [TQ [CAUSAL [THREADS [COLD [KEY_LENGTH]]]]]    (the call:
//   ../kernel_call.hpp)
#include "../kernel_call.hpp"

#include <ctein/kernels/attention.hpp>
#include <ctein/kernels/phase_clock.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>

#if !defined(CTEIN_KERNEL_PHASES)
#error kernel_phases counts phases only in a kernel built with -DCTEIN_KERNEL_PHASES (run.sh builds it so)
#endif

int main(int argc, char** argv) {
    ctein::bench::kernel_call given(argc, argv, 2);
    if (!given.valid_or_usage(argv[0], "CALLS ")) return 2;
    const int calls = std::stoi(argv[1]);
    ctein::bench::aligned_vector<float> out(given.query_size());
    ctein::kernels::attention_problem p = given.problem(out.data());
    for (int i = 0; i < 3; ++i) {
        given.take(p);
        ctein::kernels::attention(p);
    }

    static_cast<void>(ctein::kernels::take_phase_counts());
    const auto start = std::chrono::steady_clock::now();
    const unsigned long long first_tick = ctein::kernels::detail::phase_now();
    for (int i = 0; i < calls; ++i) {
        given.take(p);
        ctein::kernels::attention(p);
    }
    const unsigned long long ticks = ctein::kernels::detail::phase_now() - first_tick;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const ctein::kernels::phase_counts counts = ctein::kernels::take_phase_counts();

    static constexpr std::array<const char*, ctein::kernels::kernel_phases> names = {
        " packing K",    "first pieces", "later pieces", " scores (q·kᵀ, softmax)",
        " values (P·V)", " queries",     " finish"};
    std::printf("%s; level %d; %d calls of %.1f us, %.3f Mticks each (%.3f GHz ticks)\n",
                given.describe().c_str(), CTEIN_KERNEL_PHASES, calls, seconds / calls * 1e6,
                static_cast<double>(ticks) / calls * 1e-6, static_cast<double>(ticks) / seconds * 1e-9);
    std::printf("%-26s %12s %14s %10s %12s\n", "phase (indented: in the pieces)", "per call", "Mticks a call",
                "% of call", "ticks each");
    for (std::size_t i = 0; i < names.size(); ++i) {
        const double entries = static_cast<double>(counts.entries[i]);
        if (entries == 0) continue; // not counted at this level, or not in this call
        std::printf("%-26s %12.0f %14.3f %10.1f %12.1f\n", names[i], entries / calls,
                    static_cast<double>(counts.ticks[i]) / calls * 1e-6,
                    100.0 * static_cast<double>(counts.ticks[i]) / static_cast<double>(ticks),
                    entries > 0 ? static_cast<double>(counts.ticks[i]) / entries : 0.0);
    }
}
