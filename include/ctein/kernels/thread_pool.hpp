// thread_pool: the worker threads ctein's kernels share, and the caller's control of how many run.
// A std::thread pool rather than OpenMP: the library stays header-only without asking users for
// -fopenmp (and clang 14's libomp), and the workers persist, so a decode step of a few
// microseconds does not pay for starting threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace ctein {
namespace kernels {

/// Runs `items` independent pieces of work on up to `threads` threads (the caller's thread is one
/// of them); each piece is claimed from a shared counter, so uneven pieces balance themselves.
class thread_pool {
public:
    static thread_pool& instance() {
        static thread_pool pool;
        return pool;
    }

    /// Calls `work(i)` once for every i in [0, items), on at most `threads` threads; returns when
    /// all calls have returned. Pieces run on the caller's thread alone when `threads` <= 1. If a
    /// call throws, pieces not yet started are skipped and the exception reaches the caller.
    template <class Work>
    void run(std::size_t items, std::size_t threads, Work&& work) {
        // more threads than items, or than the machine runs at once, would only wait (and live on)
        threads = std::min({threads, items, hardware_threads()});
        if (threads <= 1 || inside_a_job()) { // a nested job runs on the thread that asked for it
            for (std::size_t i = 0; i < items; ++i) work(i);
            return;
        }
        std::unique_lock job_lock(job_mutex_); // one parallel job at a time
        ensure_workers(threads - 1);
        std::atomic<std::size_t> next{0};
        // A piece that throws stops the claiming; the first exception is rethrown here once every
        // thread has left the job (the job's state lives on this stack frame).
        std::exception_ptr failure;
        std::mutex failure_mutex;
        const std::function<void()> claim = [&] {
            const job_marker marker;
            try {
                for (std::size_t i = next.fetch_add(1); i < items; i = next.fetch_add(1)) work(i);
            } catch (...) {
                next = items;
                const std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
            }
        };
        {
            std::lock_guard lock(mutex_);
            job_ = &claim;
            helpers_wanted_ = threads - 1;
            helpers_done_ = 0;
            ++generation_;
        }
        wake_.notify_all();
        claim();
        // Every piece is claimed: the job closes, and only the helpers that joined it are waited
        // for. A worker the system has not run yet (a busy machine, a stolen virtual CPU) would
        // otherwise hold the caller until it runs, only to find nothing left to do.
        std::size_t joined = 0;
        {
            std::lock_guard lock(mutex_);
            joined = threads - 1 - helpers_wanted_;
            helpers_wanted_ = 0;
        }
        spin_until([&] { return helpers_done_.load(std::memory_order_acquire) == joined; });
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return helpers_done_ == joined; });
        job_ = nullptr;
        lock.unlock();
        if (failure) std::rethrow_exception(failure);
    }

    ~thread_pool() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
    }

    /// The threads the machine runs at once (at least 1): the most one job uses. Asked of the
    /// system once: glibc reads /sys/devices/system/cpu/online at every asking, an open, a read
    /// and a close that cost a small decode step several microseconds per call (measured).
    static std::size_t hardware_threads() noexcept {
        static const std::size_t count = std::max<std::size_t>(1, std::thread::hardware_concurrency());
        return count;
    }
    /// The worker threads started so far (they persist between jobs).
    std::size_t worker_count() {
        std::lock_guard lock(job_mutex_);
        return workers_.size();
    }

private:
    thread_pool() = default;

    static bool& inside_a_job() {
        thread_local bool inside = false;
        return inside;
    }
    struct job_marker {
        job_marker() { inside_a_job() = true; }
        ~job_marker() { inside_a_job() = false; }
    };

    void ensure_workers(std::size_t count) {
        while (workers_.size() < count) workers_.emplace_back([this] { serve(); });
    }

    /// Waits, without sleeping, until `ready()` or for spin_time: a worker that slept between two
    /// jobs took tens of microseconds to wake (a futex and the scheduler), more than a whole
    /// decode step of a small model; a job that follows within spin_time finds it awake.
    template <class Ready>
    static void spin_until(Ready ready) noexcept {
        const auto deadline = std::chrono::steady_clock::now() + spin_time;
        for (unsigned i = 1;; ++i) {
            if (ready()) return;
            if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) return;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
    }
    static constexpr std::chrono::microseconds spin_time{100};

    void serve() {
        std::size_t seen = 0;
        std::unique_lock lock(mutex_);
        for (;;) {
            lock.unlock();
            spin_until([&] {
                return stopping_.load(std::memory_order_acquire) ||
                       generation_.load(std::memory_order_acquire) != seen;
            });
            lock.lock();
            wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_) return;
            seen = generation_;
            if (helpers_wanted_ == 0) continue; // closed, or it has its helpers: wait for the next
            --helpers_wanted_;
            const std::function<void()>* job = job_;
            lock.unlock();
            (*job)();
            lock.lock();
            ++helpers_done_;
            done_.notify_one();
        }
    }

    std::mutex job_mutex_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    std::vector<std::thread> workers_;
    const std::function<void()>* job_ = nullptr;
    // written under mutex_; atomic so that the spinning waits may read them without it
    std::atomic<std::size_t> generation_ = 0;
    std::size_t helpers_wanted_ = 0;
    std::atomic<std::size_t> helpers_done_ = 0;
    std::atomic<bool> stopping_ = false;
};

inline std::atomic<std::size_t>& thread_count_setting() {
    static std::atomic<std::size_t> count{thread_pool::hardware_threads()};
    return count;
}

/// This thread's own count while a scoped_thread_count lives (0: none).
inline std::size_t& thread_count_override() noexcept {
    thread_local std::size_t count = 0;
    return count;
}

} // namespace kernels

/// How many threads ctein's kernels use by default: the machine's hardware threads unless
/// `set_thread_count` said otherwise, or a `scoped_thread_count` on the calling thread. A call may
/// also ask for its own count (`ctein::threads(n)`).
inline std::size_t thread_count() noexcept {
    const std::size_t scoped = kernels::thread_count_override();
    return scoped != 0 ? scoped : kernels::thread_count_setting().load();
}

/// For its lifetime, the default thread count of the calling thread's ctein calls (other threads
/// keep theirs): what a block given `ctein::threads(n)` uses for its projections as well.
///
///     { ctein::scoped_thread_count one(1); auto y = layer(x); }   // one thread for this layer
class scoped_thread_count {
public:
    explicit scoped_thread_count(std::size_t count) noexcept
        : previous_(std::exchange(kernels::thread_count_override(), std::max<std::size_t>(count, 1))) {}
    scoped_thread_count(const scoped_thread_count&) = delete;
    scoped_thread_count& operator=(const scoped_thread_count&) = delete;
    ~scoped_thread_count() { kernels::thread_count_override() = previous_; }

private:
    std::size_t previous_;
};

/// Sets the default thread count of ctein's kernels (at least 1).
///
///     ctein::set_thread_count(1);   // single-threaded from here on
inline void set_thread_count(std::size_t count) noexcept {
    kernels::thread_count_setting().store(std::max<std::size_t>(count, 1));
}

} // namespace ctein
