#include <ctein/kernels/exp2.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using ctein::kernels::exp2_poly;
using batch = xsimd::batch<float>;

namespace {

/// exp2_poly of every value of `xs`, a batch at a time.
std::vector<float> exp2_all(const std::vector<float>& xs) {
    std::vector<float> ys(xs.size());
    std::size_t i = 0;
    for (; i + batch::size <= xs.size(); i += batch::size)
        exp2_poly(batch::load_unaligned(xs.data() + i)).store_unaligned(ys.data() + i);
    for (; i < xs.size(); ++i) ys[i] = exp2_poly(batch(xs[i])).get(0);
    return ys;
}

/// The largest relative error of exp2_poly over `xs` against 2^x in double precision.
double worst_relative_error(const std::vector<float>& xs) {
    const std::vector<float> ys = exp2_all(xs);
    double worst = 0.0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const double exact = std::exp2(static_cast<double>(xs[i]));
        worst = std::max(worst, std::abs(ys[i] - exact) / exact);
    }
    return worst;
}

float from_bits(std::uint32_t bits) {
    float x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

} // namespace

TEST_CASE("exp2_poly stays within its stated error bound", "[exp2]") {
    SECTION("every 97th float of [-1, 1], where the polynomial's fraction comes from") {
        std::vector<float> xs;
        for (std::uint32_t bits = 0; bits <= 0x3F800000u; bits += 97) {
            xs.push_back(from_bits(bits));
            xs.push_back(-from_bits(bits));
        }
        const double worst = worst_relative_error(xs);
        INFO("worst relative error " << worst);
        CHECK(worst <= ctein::kernels::exp2_max_relative_error);
    }
    SECTION("a sweep of [-126, 127] in steps of 2^-10, and odd points between") {
        std::vector<float> xs;
        for (int k = -126 * 1024; k <= 127 * 1024; ++k) xs.push_back(static_cast<float>(k) / 1024.0f);
        for (int k = 0; k < 100000; ++k) xs.push_back(-126.0f + 253.0f * static_cast<float>(k) / 99999.37f);
        const double worst = worst_relative_error(xs);
        INFO("worst relative error " << worst);
        CHECK(worst <= ctein::kernels::exp2_max_relative_error);
    }
}

TEST_CASE("exp2_poly is exact at integers and 0 far below", "[exp2]") {
    for (int n = -126; n <= 127; ++n)
        CHECK(exp2_poly(batch(static_cast<float>(n))).get(0) == std::ldexp(1.0f, n));
    // Masked scores (-1e30), the float minimum and -inf give exactly 0, as does anything at or
    // below -127.
    for (float x : {-127.0f, -127.25f, -128.0f, -200.0f, -1e30f, -std::numeric_limits<float>::max(),
                    -std::numeric_limits<float>::infinity()})
        CHECK(exp2_poly(batch(x)).get(0) == 0.0f);
    // Between -127 and -126 the result is below the smallest normal float, never negative.
    for (float x = -126.9f; x < -126.0f; x += 0.05f) {
        const float y = exp2_poly(batch(x)).get(0);
        CHECK(y >= 0.0f);
        CHECK(y <= std::numeric_limits<float>::min());
    }
    CHECK(std::isnan(exp2_poly(batch(std::numeric_limits<float>::quiet_NaN())).get(0)));
}

TEST_CASE("exp2_poly works lane by lane", "[exp2]") {
    alignas(64) float xs[batch::size], ys[batch::size];
    for (std::size_t i = 0; i < batch::size; ++i)
        xs[i] = i % 3 == 0 ? -1e30f : static_cast<float>(i) * 0.37f - 2.0f;
    exp2_poly(batch::load_aligned(xs)).store_aligned(ys);
    for (std::size_t i = 0; i < batch::size; ++i) {
        if (i % 3 == 0)
            CHECK(ys[i] == 0.0f);
        else
            CHECK(ys[i] == Approx(std::exp2(xs[i])).epsilon(1e-7));
    }
}
