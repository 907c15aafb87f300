// phase_clock: where a prefill call's time goes, phase by phase (packing K, the steps' scores and
// P·V, ...), counted in the time-stamp counter's ticks. Compiled in only with
// -DCTEIN_KERNEL_PHASES (level 1: packing and pieces) or -DCTEIN_KERNEL_PHASES=2 (also the
// steps' phases), as benchmarks/kernel_phases builds it; otherwise every scope is an empty object
// and the kernel's instructions are the same (compared instruction by instruction). A sampling
// profile could not say this on a VM whose perf has only its clock: samples land after the
// instructions that waited, and one put 72 % of a call in the multiply-add loops of a kernel
// running at 83 % of the FMA peak.
#pragma once

#include <array>
#include <cstddef>

#if defined(CTEIN_KERNEL_PHASES)
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#endif

namespace ctein::kernels {

/// The parts of a prefill call that phase_clock counts. The steps' phases nest in the pieces'.
enum class kernel_phase : unsigned char {
    packing,      ///< packing a block of K (and of V when it is not read in place), in the pieces: the
                  ///< first piece to reach a block packs it (waits for another thread included)
    first_pieces, ///< each head's first piece in the order: it reads the head's K and V from beyond L2
    later_pieces, ///< the other pieces
    scores,       ///< a step's q·kᵀ and softmax (in the pieces)
    values,       ///< a step's P·V (in the pieces)
    queries,      ///< loading a tile's queries (in the pieces)
    finish,       ///< writing a tile's outputs (in the pieces)
};
inline constexpr std::size_t kernel_phases = 7;
static_assert(static_cast<std::size_t>(kernel_phase::finish) + 1 == kernel_phases);

/// Ticks and entries of each phase since the last reset, summed over every thread.
struct phase_counts {
    std::array<unsigned long long, kernel_phases> ticks{}, entries{};
};

#if defined(CTEIN_KERNEL_PHASES)
namespace detail {
/// One thread's counts: written by that thread only (a load and a store, no locked add, which
/// cost more than the counter reads), read by take_phase_counts between calls.
struct phase_totals {
    std::array<std::atomic<unsigned long long>, kernel_phases> ticks{}, entries{};
};
struct phase_registry {
    std::mutex mutex;
    std::vector<std::unique_ptr<phase_totals>> threads; ///< every thread's counts, kept to the end
};
inline phase_registry& registry() {
    static phase_registry r;
    return r;
}
inline phase_totals& thread_totals() {
    thread_local phase_totals* mine = [] {
        phase_registry& r = registry();
        const std::lock_guard lock(r.mutex);
        return r.threads.emplace_back(std::make_unique<phase_totals>()).get();
    }();
    return *mine;
}
inline void add(std::atomic<unsigned long long>& to, unsigned long long x) noexcept {
    to.store(to.load(std::memory_order_relaxed) + x, std::memory_order_relaxed);
}
inline unsigned long long phase_now() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}
} // namespace detail

/// Counts the time from its construction to its end into `phase`.
class phase_scope {
public:
    explicit phase_scope(kernel_phase phase) noexcept
        : phase_(static_cast<std::size_t>(phase))
        , start_(detail::phase_now()) {}
    phase_scope(const phase_scope&) = delete;
    phase_scope& operator=(const phase_scope&) = delete;
    ~phase_scope() {
        detail::phase_totals& totals = detail::thread_totals();
        detail::add(totals.ticks[phase_], detail::phase_now() - start_);
        detail::add(totals.entries[phase_], 1);
    }

private:
    std::size_t phase_;
    unsigned long long start_;
};

/// Every thread's counts so far, summed, and zeros in their place. Call it between kernel calls.
inline phase_counts take_phase_counts() {
    detail::phase_registry& r = detail::registry();
    const std::lock_guard lock(r.mutex);
    phase_counts c;
    for (const auto& thread : r.threads)
        for (std::size_t i = 0; i < kernel_phases; ++i) {
            c.ticks[i] += thread->ticks[i].exchange(0);
            c.entries[i] += thread->entries[i].exchange(0);
        }
    return c;
}
#else
class phase_scope {
public:
    explicit constexpr phase_scope(kernel_phase) noexcept {}
};
#endif

/// A phase inside a step's loop (scores, values, queries, finish): counted only at level 2
/// (-DCTEIN_KERNEL_PHASES=2). Reading the counter twice a step made a prefill call 1.07-1.18 x
/// as long (one Zen 3 core, T = 512 and 2048), so level 1 counts only the few long phases,
/// which the steps' counters would otherwise lengthen.
#if defined(CTEIN_KERNEL_PHASES) && CTEIN_KERNEL_PHASES >= 2
using step_phase_scope = phase_scope;
#else
class step_phase_scope {
public:
    explicit constexpr step_phase_scope(kernel_phase) noexcept {}
};
#endif

} // namespace ctein::kernels
