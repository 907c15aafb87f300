// The GEMM kernel against a plain triple loop in double precision, for shapes on and across
// every edge of its tiles and cache blocks, operands of any strides, batches and sums of
// products, and threads.
#include <ctein/kernels/gemm.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace {

using ctein::kernels::gemm_loop;
using ctein::kernels::strided_matrix;

/// How a matrix lies in its buffer.
enum class layout { row_major, column_major, padded };

/// A rows x cols matrix of uniform values in [-1, 1], laid out as `how` says (padded: rows of
/// cols + 3 elements, every second element used).
template <class T>
struct test_matrix {
    test_matrix(std::size_t rows, std::size_t cols, layout how, std::uint32_t seed)
        : m{nullptr, rows, cols, 0, 1} {
        switch (how) {
        case layout::row_major:
            m.row_stride = static_cast<std::ptrdiff_t>(cols);
            break;
        case layout::column_major:
            m.row_stride = 1;
            m.col_stride = static_cast<std::ptrdiff_t>(rows);
            break;
        case layout::padded:
            m.col_stride = 2;
            m.row_stride = static_cast<std::ptrdiff_t>(2 * cols + 3);
            break;
        }
        buffer.resize(std::max<std::size_t>(1, rows * static_cast<std::size_t>(m.row_stride) +
                                                   cols * static_cast<std::size_t>(m.col_stride)));
        std::mt19937 random(seed);
        std::uniform_real_distribution<double> uniform(-1.0, 1.0);
        for (T& x : buffer) x = static_cast<T>(uniform(random));
        m.data = buffer.data();
    }
    T at(std::size_t i, std::size_t j) const {
        return m.data[static_cast<std::ptrdiff_t>(i) * m.row_stride +
                      static_cast<std::ptrdiff_t>(j) * m.col_stride];
    }
    strided_matrix<const T> in() const { return {m.data, m.rows, m.cols, m.row_stride, m.col_stride}; }

    std::vector<T> buffer;
    strided_matrix<T> m;
};

/// Checks C against A B computed in double: |c - exact| <= rel * sum_k |a_ik b_kj| (+ the
/// smallest normal number, for a sum of no terms). fp32 sums of k terms carry a relative error
/// of about sqrt(k) * 2^-24 (1.7e-6 at k = 768), so rel = 1e-5 leaves no room for a lost term.
template <class T>
void check_product(const strided_matrix<const T>& a, const strided_matrix<const T>& b,
                   const strided_matrix<T>& c, double rel) {
    const auto at = [](const auto& x, std::size_t i, std::size_t j) {
        return static_cast<double>(x.data[static_cast<std::ptrdiff_t>(i) * x.row_stride +
                                          static_cast<std::ptrdiff_t>(j) * x.col_stride]);
    };
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < c.rows; ++i)
        for (std::size_t j = 0; j < c.cols; ++j) {
            double exact = 0, bound = 0;
            for (std::size_t k = 0; k < a.cols; ++k) {
                exact += at(a, i, k) * at(b, k, j);
                bound += std::abs(at(a, i, k) * at(b, k, j));
            }
            const double got = at(c, i, j);
            if (!(std::abs(got - exact) <= rel * bound + std::numeric_limits<T>::min())) {
                if (wrong++ < 5) FAIL_CHECK("C(" << i << ", " << j << ") = " << got << ", exact " << exact);
            }
        }
    CHECK(wrong == 0);
}

template <class T>
void check_gemm(std::size_t m, std::size_t n, std::size_t k, layout a_layout, layout b_layout,
                layout c_layout, std::size_t threads, double rel) {
    INFO("m " << m << ", n " << n << ", k " << k << ", layouts " << int(a_layout) << int(b_layout)
              << int(c_layout) << ", threads " << threads);
    const test_matrix<T> a(m, k, a_layout, 1), b(k, n, b_layout, 2);
    test_matrix<T> c(m, n, c_layout, 3);
    for (T& x : c.buffer) x = std::numeric_limits<T>::quiet_NaN(); // overwritten, never read
    ctein::kernels::gemm<T>(a.in(), b.in(), c.m, threads);
    check_product<T>(a.in(), b.in(), c.m, rel);
}

} // namespace

TEST_CASE("gemm: every shape around the tile and block edges, row-major", "[gemm]") {
    const auto [m, n, k] = GENERATE(table<std::size_t, std::size_t, std::size_t>({
        {1, 1, 1},
        {1, 1, 7},
        {2, 3, 5},
        {7, 11, 13},
        {13, 31, 3},
        {14, 32, 16},
        {15, 33, 17},
        {17, 33, 65},
        {28, 64, 255},
        {29, 65, 257},
        {31, 97, 513},
        {43, 1, 300},
        {1, 100, 50},
        {101, 61, 1},
        {3, 800, 20},
        {200, 777, 33},
        {45, 130, 770},
        {14, 16, 1000},
    }));
    check_gemm<float>(m, n, k, layout::row_major, layout::row_major, layout::row_major, 1, 1e-5);
}

TEST_CASE("gemm: strided, transposed and padded operands and outputs", "[gemm]") {
    const auto [m, n, k] = GENERATE(table<std::size_t, std::size_t, std::size_t>({
        {1, 1, 1},
        {5, 3, 2},
        {17, 33, 65},
        {30, 70, 300},
    }));
    const layout a_layout = GENERATE(layout::row_major, layout::column_major, layout::padded);
    const layout b_layout = GENERATE(layout::row_major, layout::column_major, layout::padded);
    const layout c_layout = GENERATE(layout::row_major, layout::column_major, layout::padded);
    check_gemm<float>(m, n, k, a_layout, b_layout, c_layout, 1, 1e-5);
}

TEST_CASE("gemm: the shapes of projections and attention, weights in (out, in) layout", "[gemm]") {
    // x [M, C] times w [O, C] read transposed; q [T, D] times k [T, D] transposed
    check_gemm<float>(64, 2304, 768, layout::row_major, layout::column_major, layout::row_major, 2, 1e-5);
    check_gemm<float>(128, 128, 64, layout::row_major, layout::column_major, layout::row_major, 2, 1e-5);
    check_gemm<float>(128, 64, 128, layout::row_major, layout::row_major, layout::row_major, 2, 1e-5);
}

TEST_CASE("gemm: double precision", "[gemm]") {
    const auto [m, n, k] = GENERATE(table<std::size_t, std::size_t, std::size_t>({
        {1, 1, 1},
        {9, 17, 9},
        {15, 33, 130},
        {31, 40, 300},
    }));
    const layout a_layout = GENERATE(layout::row_major, layout::column_major);
    const layout b_layout = GENERATE(layout::row_major, layout::column_major);
    check_gemm<double>(m, n, k, a_layout, b_layout, layout::row_major, 1, 1e-13);
}

TEST_CASE("gemm: a sum of no terms writes zeros, and empty outputs write nothing", "[gemm]") {
    std::vector<float> c(6, 5.0f);
    const float none = 0;
    ctein::kernels::gemm<float>({&none, 2, 0, 0, 1}, {&none, 0, 3, 3, 1}, {c.data(), 2, 3, 3, 1});
    CHECK(c == std::vector<float>(6, 0.0f));
    std::vector<float> untouched(4, 5.0f);
    ctein::kernels::gemm<float>({&none, 0, 4, 4, 1}, {untouched.data(), 4, 4, 4, 1},
                                {untouched.data(), 0, 4, 4, 1});
    CHECK(untouched == std::vector<float>(4, 5.0f));
}

TEST_CASE("gemm: one thread and two give the same bits", "[gemm]") {
    const auto [m, n, k] = GENERATE(table<std::size_t, std::size_t, std::size_t>({
        {300, 800, 300},
        {700, 40, 200},
        {4, 2304, 768},
    }));
    const test_matrix<float> a(m, k, layout::row_major, 4), b(k, n, layout::column_major, 5);
    test_matrix<float> one(m, n, layout::row_major, 6), two(m, n, layout::row_major, 6);
    ctein::kernels::gemm<float>(a.in(), b.in(), one.m, 1);
    ctein::kernels::gemm<float>(a.in(), b.in(), two.m, 2);
    CHECK(one.buffer == two.buffer);
    check_product<float>(a.in(), b.in(), two.m, 1e-5);
}

TEST_CASE("gemm: shapes that do not chain are refused", "[gemm]") {
    std::vector<float> x(16);
    CHECK_THROWS_AS(
        ctein::kernels::gemm<float>({x.data(), 2, 3, 3, 1}, {x.data(), 2, 2, 2, 1}, {x.data(), 2, 2, 2, 1}),
        std::invalid_argument);
}

TEST_CASE("gemm_batched: batches and sums of products", "[gemm]") {
    // C[b, i, j] = sum_s sum_k A[b, s, i, k] B[s, k, j, b] (+ bias[j], once): a batch loop (b) and a
    // summed one (s)
    constexpr std::size_t batches = 3, sums = 2, m = 60, n = 70, k = 90; // 2^21 multiply-adds: 2 threads
    const std::size_t threads = GENERATE(1, 2);
    const bool with_bias = GENERATE(false, true);
    INFO("threads " << threads << ", bias " << with_bias);
    std::vector<float> bias(n);
    for (std::size_t j = 0; j < n; ++j) bias[j] = 0.25f * static_cast<float>(j % 9) - 1.0f;
    std::vector<float> a(batches * sums * m * k), b(sums * k * n * batches), c(batches * m * n, 7.0f);
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& x : a) x = uniform(random);
    for (float& x : b) x = uniform(random);
    const auto ai = [&](std::size_t bi, std::size_t s, std::size_t i, std::size_t kk) {
        return a[((bi * sums + s) * m + i) * k + kk];
    };
    const auto bi_ = [&](std::size_t s, std::size_t kk, std::size_t j, std::size_t bi) {
        return b[((s * k + kk) * n + j) * batches + bi];
    };
    const std::array<gemm_loop, 2> loops{{
        {batches, sums * m * k, 1, m * n, false},
        {sums, m * k, k * n * batches, 0, true},
    }};
    ctein::kernels::gemm_batched<float>({a.data(), m, k, k, 1},
                                        {b.data(), k, n, static_cast<std::ptrdiff_t>(n * batches), batches},
                                        {c.data(), m, n, n, 1}, loops, threads, with_bias ? bias.data() : nullptr);
    std::size_t wrong = 0;
    for (std::size_t bi = 0; bi < batches; ++bi)
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double exact = with_bias ? bias[j] : 0.0, bound = with_bias ? std::abs(bias[j]) : 0.0;
                for (std::size_t s = 0; s < sums; ++s)
                    for (std::size_t kk = 0; kk < k; ++kk) {
                        exact += double(ai(bi, s, i, kk)) * bi_(s, kk, j, bi);
                        bound += std::abs(double(ai(bi, s, i, kk)) * bi_(s, kk, j, bi));
                    }
                if (!(std::abs(c[(bi * m + i) * n + j] - exact) <= 1e-5 * bound)) ++wrong;
            }
    CHECK(wrong == 0);
}

TEST_CASE("gemm_batched: a bias in the epilogue across column blocks, depth blocks and threads", "[gemm]") {
    // n over two column blocks and a cut last tile, k over two depth blocks (the bias only once)
    const auto [m, n, k] = GENERATE(table<std::size_t, std::size_t, std::size_t>({{29, 1000, 300}, {3, 45, 7}}));
    const std::size_t threads = GENERATE(1, 2);
    INFO("m " << m << ", n " << n << ", k " << k << ", threads " << threads);
    const test_matrix<float> a(m, k, layout::row_major, 11), b(k, n, layout::column_major, 12);
    test_matrix<float> c(m, n, layout::row_major, 13);
    std::vector<float> bias(n);
    for (std::size_t j = 0; j < n; ++j) bias[j] = static_cast<float>(j % 13) - 6.0f;
    ctein::kernels::gemm_batched<float>(a.in(), b.in(), c.m, {}, threads, bias.data());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double exact = bias[j], bound = std::abs(bias[j]);
            for (std::size_t kk = 0; kk < k; ++kk) {
                exact += double(a.at(i, kk)) * b.at(kk, j);
                bound += std::abs(double(a.at(i, kk)) * b.at(kk, j));
            }
            if (!(std::abs(c.at(i, j) - exact) <= 1e-5 * bound)) ++wrong;
        }
    CHECK(wrong == 0);
}

TEST_CASE("gemm_batched: a sum of no terms with a bias writes the bias", "[gemm]") {
    std::vector<float> a(1), b(1), c(6, 3.0f);
    const std::vector<float> bias{1.0f, -2.0f, 0.5f};
    ctein::kernels::gemm_batched<float>({a.data(), 2, 0, 0, 1}, {b.data(), 0, 3, 3, 1}, {c.data(), 2, 3, 3, 1}, {},
                                        1, bias.data());
    CHECK(c == std::vector<float>{1.0f, -2.0f, 0.5f, 1.0f, -2.0f, 0.5f});
}

TEST_CASE("gemm_batched: a summed loop of no steps writes zeros", "[gemm]") {
    std::vector<float> a(12, 1.0f), b(12, 1.0f), c(4, 3.0f);
    const gemm_loop none{0, 4, 4, 0, true};
    ctein::kernels::gemm_batched<float>({a.data(), 2, 2, 2, 1}, {b.data(), 2, 2, 2, 1},
                                        {c.data(), 2, 2, 2, 1}, std::span(&none, 1));
    CHECK(c == std::vector<float>(4, 0.0f));
}
