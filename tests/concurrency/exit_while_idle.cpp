// A program that used ctein's thread pool and returns from main while the workers wait: it must
// exit at once with status 0 (the pool's destructor stops and joins them). Run as a test, with a
// timeout, by every make test stage.
#include <ctein/kernels/thread_pool.hpp>

#include <atomic>
#include <cstddef>

int main() {
    std::atomic<std::size_t> ran{0};
    ctein::kernels::thread_pool::instance().run(100, 2, [&](std::size_t) { ++ran; });
    return ran == 100 ? 0 : 1;
}
