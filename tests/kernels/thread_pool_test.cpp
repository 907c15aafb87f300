#include <ctein/kernels/thread_pool.hpp>

#include <catch2/catch.hpp>

#ifdef __linux__
#include <sched.h>
#endif

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using ctein::kernels::thread_pool;

TEST_CASE("thread_pool runs every item exactly once", "[thread_pool]") {
    thread_pool& pool = thread_pool::instance();
    for (std::size_t threads : {1, 2, 3, 8}) {
        for (std::size_t items : {0, 1, 2, 5, 1000}) {
            std::vector<std::atomic<int>> runs(items);
            pool.run(items, threads, [&](std::size_t i) { runs[i].fetch_add(1); });
            std::size_t wrong = 0;
            for (const auto& r : runs) wrong += r.load() != 1;
            INFO(threads << " threads, " << items << " items");
            CHECK(wrong == 0);
        }
    }
    SECTION("job after job, reusing the workers") {
        std::atomic<long> total{0};
        for (int job = 0; job < 200; ++job)
            pool.run(7, 2, [&](std::size_t i) { total += static_cast<long>(i); });
        CHECK(total.load() == 200 * 21);
    }
}

namespace {

/// Whether a job of 2 threads ran items on both: item 0 waits (up to 10 s) until a thread other
/// than its own has run an item, so both threads must take part however the machine schedules them.
bool job_runs_on_two_threads() {
    std::mutex mutex;
    std::set<std::thread::id> ids;
    std::atomic<bool> other_ran{false};
    thread_pool::instance().run(64, 2, [&](std::size_t i) {
        {
            std::lock_guard lock(mutex);
            ids.insert(std::this_thread::get_id());
            // a second thread, before or after item 0 started (the spinning helper may take items
            // before item 0's thread gets here)
            if (ids.size() >= 2) other_ran = true;
        }
        if (i == 0) {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!other_ran && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        }
    });
    return other_ran && ids.size() == 2;
}

} // namespace

TEST_CASE("thread_pool shares items between threads", "[thread_pool]") {
    CHECK(job_runs_on_two_threads());
}

#ifdef __linux__
namespace {

/// Every thread of this process on one CPU while it lives (then back on the CPUs it had), so that
/// a job's helper often runs only after the caller has claimed every item.
class one_cpu_for_the_process {
public:
    one_cpu_for_the_process() {
        sched_getaffinity(0, sizeof(before_), &before_);
        cpu_set_t one;
        CPU_ZERO(&one);
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &before_)) {
                CPU_SET(cpu, &one);
                break;
            }
        set_every_thread(one);
    }
    one_cpu_for_the_process(const one_cpu_for_the_process&) = delete;
    one_cpu_for_the_process& operator=(const one_cpu_for_the_process&) = delete;
    ~one_cpu_for_the_process() { set_every_thread(before_); }

private:
    static void set_every_thread(const cpu_set_t& cpus) {
        for (const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
            sched_setaffinity(std::stoi(task.path().filename().string()), sizeof(cpus), &cpus);
    }
    cpu_set_t before_;
};

} // namespace

TEST_CASE("a job closes once its items are claimed, and a worker that missed it serves the next",
          "[thread_pool]") {
    thread_pool& pool = thread_pool::instance();
    pool.run(2, 2, [](std::size_t) {}); // the worker exists before the process moves to one CPU
    std::size_t wrong = 0;
    {
        const one_cpu_for_the_process pinned;
        for (int job = 0; job < 1000; ++job) {
            const std::size_t items = 1 + static_cast<std::size_t>(job % 3);
            std::vector<std::atomic<int>> runs(items);
            pool.run(items, 2, [&](std::size_t i) { runs[i].fetch_add(1); });
            for (const auto& r : runs) wrong += r.load() != 1;
        }
    }
    CHECK(wrong == 0);
    CHECK(job_runs_on_two_threads());
}
#endif

TEST_CASE("thread_pool runs on the caller alone for one thread or inside a job", "[thread_pool]") {
    const auto caller = std::this_thread::get_id();
    std::atomic<int> elsewhere{0};
    thread_pool::instance().run(50, 1,
                                [&](std::size_t) { elsewhere += std::this_thread::get_id() != caller; });
    CHECK(elsewhere.load() == 0);

    // A run inside a job runs serially on the thread of its outer item.
    std::atomic<int> inner_runs{0}, inner_elsewhere{0};
    thread_pool::instance().run(8, 2, [&](std::size_t) {
        const auto outer = std::this_thread::get_id();
        thread_pool::instance().run(10, 2, [&](std::size_t) {
            ++inner_runs;
            inner_elsewhere += std::this_thread::get_id() != outer;
        });
    });
    CHECK(inner_runs.load() == 80);
    CHECK(inner_elsewhere.load() == 0);
}

TEST_CASE("thread_pool hands an exception of a piece to the caller", "[thread_pool]") {
    for (std::size_t threads : {1, 2}) {
        std::atomic<int> ran{0};
        const auto job = [&] {
            thread_pool::instance().run(100, threads, [&](std::size_t i) {
                ++ran;
                if (i == 10) throw std::runtime_error("piece 10");
            });
        };
        CHECK_THROWS_WITH(job(), "piece 10");
        CHECK(ran.load() <= 100);
        // The pool still works afterwards.
        std::atomic<int> after{0};
        thread_pool::instance().run(50, threads, [&](std::size_t) { ++after; });
        CHECK(after.load() == 50);
    }
}

TEST_CASE("set_thread_count sets the default thread count, at least 1", "[thread_pool]") {
    const std::size_t before = ctein::thread_count();
    CHECK(before >= 1);
    ctein::set_thread_count(3);
    CHECK(ctein::thread_count() == 3);
    ctein::set_thread_count(0);
    CHECK(ctein::thread_count() == 1);
    ctein::set_thread_count(before);
    CHECK(ctein::thread_count() == before);
}

TEST_CASE("a job uses at most the machine's hardware threads, however many it asks for", "[thread_pool]") {
    auto& pool = ctein::kernels::thread_pool::instance();
    std::atomic<std::size_t> calls{0};
    pool.run(1000, 100000, [&](std::size_t) { ++calls; });
    CHECK(calls == 1000);
    CHECK(pool.worker_count() + 1 <= ctein::kernels::thread_pool::hardware_threads());
}

TEST_CASE("scoped_thread_count sets the calling thread's default, and only while it lives", "[threads]") {
    const std::size_t before = ctein::thread_count();
    {
        const ctein::scoped_thread_count one(1);
        CHECK(ctein::thread_count() == 1);
        std::size_t elsewhere = 0;
        std::thread([&] { elsewhere = ctein::thread_count(); }).join();
        CHECK(elsewhere == before); // other threads keep the default
        {
            const ctein::scoped_thread_count three(3);
            CHECK(ctein::thread_count() == 3);
        }
        CHECK(ctein::thread_count() == 1);
    }
    CHECK(ctein::thread_count() == before);
}
