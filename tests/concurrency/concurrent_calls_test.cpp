// Concurrent callers on ctein's shared thread pool: eight user threads call ctein::attention,
// einsum and eval at once (different shapes, thread counts and options), and every result is
// bitwise the one computed by one thread alone. Built with -fsanitize=thread by make test's
// ThreadSanitizer stage (and plainly by the others), so a data race fails it as well.
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // compiled in tests/support/*instances.cpp

#include "../support/deterministic_fill.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using ctein::dyn;
using ctein::testing::deterministic_fill;
using heads_tensor = ctein::tensor<float, "b h s d", dyn, dyn, dyn, 32>;
using tokens_tensor = ctein::tensor<float, "b s e", dyn, dyn, 64>;

/// One caller's work, fixed by its index: shapes, thread count and options differ between
/// callers. `run` returns the outputs of one round, flattened.
struct workload {
    std::size_t index;
    heads_tensor q, k, v;
    tokens_tensor x;
    ctein::tensor<float, "o e", 48, 64> w;

    explicit workload(std::size_t i)
        : index(i)
        , q(1 + i % 2, 4, 9 + 13 * i)
        , k(1 + i % 2, 2, 9 + 13 * i + 4 * (i % 3))
        , v(1 + i % 2, 2, 9 + 13 * i + 4 * (i % 3))
        , x(1 + i % 2, 5 + 7 * i) {
        deterministic_fill(q, 1 + static_cast<unsigned>(i));
        deterministic_fill(k, 20 + static_cast<unsigned>(i));
        deterministic_fill(v, 40 + static_cast<unsigned>(i));
        deterministic_fill(x, 60 + static_cast<unsigned>(i));
        deterministic_fill(w, 80);
    }

    [[nodiscard]] std::vector<float> run(std::size_t threads) const {
        const ctein::scoped_thread_count scoped(threads); // einsum's and eval's count
        std::vector<float> out;
        const auto append = [&](const auto& t) { out.insert(out.end(), t.data(), t.data() + t.size()); };
        const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(k.extent(2) - q.extent(2));
        append(ctein::attention(q, k, v, ctein::causal_if(index % 2 == 1, offset), ctein::threads(threads)));
        append(ctein::eval(ctein::einsum<"b s e, o e -> b s o">(x, w)));
        append(ctein::eval(ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h=4">)));
        return out;
    }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace

TEST_CASE("eight threads calling attention, einsum and eval at once get the single-threaded results",
          "[concurrency]") {
    constexpr std::size_t callers = 8, rounds = 10;
    std::vector<workload> work;
    std::vector<std::vector<float>> expected;
    for (std::size_t i = 0; i < callers; ++i) {
        work.emplace_back(i);
        expected.push_back(work.back().run(1));
    }
    std::vector<std::vector<std::vector<float>>> got(callers, std::vector<std::vector<float>>(rounds));
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < callers; ++i)
        threads.emplace_back([&, i] {
            for (std::size_t r = 0; r < rounds; ++r) got[i][r] = work[i].run(1 + (i + r) % 3);
        });
    for (std::thread& t : threads) t.join();
    for (std::size_t i = 0; i < callers; ++i)
        for (std::size_t r = 0; r < rounds; ++r) {
            INFO("caller " << i << ", round " << r << ", " << 1 + (i + r) % 3 << " threads");
            CHECK(same_bits(got[i][r], expected[i]));
        }
}

TEST_CASE("an exception inside a pool task reaches its caller while other callers go on", "[concurrency]") {
    // Two callers throw from their pieces while two others run attention: the throwers see
    // their exception, the others their results, and the pool serves a call afterwards.
    const workload w(3);
    const std::vector<float> expected = w.run(1);
    std::vector<std::vector<float>> got(2);
    std::vector<int> caught(2, 0);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < 2; ++i) {
        threads.emplace_back([&, i] {
            for (int r = 0; r < 5; ++r) {
                try {
                    ctein::kernels::thread_pool::instance().run(64, 2, [&](std::size_t item) {
                        if (item == 7 + i) throw std::runtime_error("piece failed");
                    });
                } catch (const std::runtime_error&) {
                    ++caught[i];
                }
            }
        });
        threads.emplace_back([&, i] { got[i] = w.run(2); });
    }
    for (std::thread& t : threads) t.join();
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(caught[i] == 5);
        CHECK(same_bits(got[i], expected));
    }
    CHECK(same_bits(w.run(2), expected));
}
