#include <ctein/kernels/exp2.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

// The versions of 2^x: exp2_poly as the kernels call it (the table on AVX2 and AVX-512), and each
// version on its own, so that both are checked on such a machine, the table at each width it has;
// on AVX-512 also the coarser exp2_for_bfloat16. Each with the bound it states.
struct dispatched {
    using batch = xsimd::batch<float>;
    static batch of(batch x) { return ctein::kernels::exp2_poly(x); }
    static constexpr double bound = ctein::kernels::exp2_max_relative_error;
};
struct polynomial {
    using batch = xsimd::batch<float>;
    static batch of(batch x) { return ctein::kernels::exp2_polynomial(x); }
    static constexpr double bound = ctein::kernels::exp2_max_relative_error;
};
#if XSIMD_WITH_FMA3_AVX2
struct table {
    using batch = xsimd::batch<float, xsimd::fma3<xsimd::avx2>>;
    static batch of(batch x) { return ctein::kernels::exp2_table(x); }
    static constexpr double bound = ctein::kernels::exp2_max_relative_error;
};
#endif
#if XSIMD_WITH_AVX512F
struct table_avx512 {
    using batch = xsimd::batch<float, xsimd::avx512f>;
    static batch of(batch x) { return ctein::kernels::exp2_table(x); }
    static constexpr double bound = ctein::kernels::exp2_max_relative_error;
};
struct for_bfloat16 {
    using batch = xsimd::batch<float, xsimd::avx512f>;
    static batch of(batch x) { return ctein::kernels::exp2_for_bfloat16(x); }
    static constexpr double bound = ctein::kernels::exp2_for_bfloat16_max_relative_error;
};
#endif
#if XSIMD_WITH_FMA3_AVX2 && XSIMD_WITH_AVX512F
#define CTEIN_EXP2_VERSIONS dispatched, polynomial, table, table_avx512, for_bfloat16
#elif XSIMD_WITH_FMA3_AVX2
#define CTEIN_EXP2_VERSIONS dispatched, polynomial, table
#else
#define CTEIN_EXP2_VERSIONS dispatched, polynomial
#endif

/// 2^x by version V of every value of `xs`, a batch at a time.
template <class V>
std::vector<float> exp2_all(const std::vector<float>& xs) {
    using batch = typename V::batch;
    std::vector<float> ys(xs.size());
    std::size_t i = 0;
    for (; i + batch::size <= xs.size(); i += batch::size)
        V::of(batch::load_unaligned(xs.data() + i)).store_unaligned(ys.data() + i);
    for (; i < xs.size(); ++i) ys[i] = V::of(batch(xs[i])).get(0);
    return ys;
}

/// 2^x by version V of one value.
template <class V>
float exp2_one(float x) {
    return V::of(typename V::batch(x)).get(0);
}

/// The largest relative error of version V over `xs` against 2^x in double precision.
template <class V>
double worst_relative_error(const std::vector<float>& xs) {
    const std::vector<float> ys = exp2_all<V>(xs);
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

TEMPLATE_TEST_CASE("exp2_poly stays within its stated error bound", "[exp2]", CTEIN_EXP2_VERSIONS) {
    SECTION("every 97th float of [-1, 1], where the polynomial's fraction comes from") {
        std::vector<float> xs;
        for (std::uint32_t bits = 0; bits <= 0x3F800000u; bits += 97) {
            xs.push_back(from_bits(bits));
            xs.push_back(-from_bits(bits));
        }
        const double worst = worst_relative_error<TestType>(xs);
        INFO("worst relative error " << worst);
        CHECK(worst <= TestType::bound);
    }
    SECTION("a sweep of [-126, 127] in steps of 2^-10, and odd points between") {
        std::vector<float> xs;
        for (int k = -126 * 1024; k <= 127 * 1024; ++k) xs.push_back(static_cast<float>(k) / 1024.0f);
        for (int k = 0; k < 100000; ++k) xs.push_back(-126.0f + 253.0f * static_cast<float>(k) / 99999.37f);
        const double worst = worst_relative_error<TestType>(xs);
        INFO("worst relative error " << worst);
        CHECK(worst <= TestType::bound);
    }
}

// Every float of [-126, 127], where the bound is stated: about 2.2e9 of them, 15 s a version
// in a Release build, so hidden from the suite's runs. Run it by hand after a change to 2^x or its
// bound: `build/tests/ctein_unit_tests "[exp2-every-float]" -s` prints each version's worst.
TEMPLATE_TEST_CASE("exp2_poly stays within its bound on every float of [-126, 127]", "[.][exp2-every-float]",
                   CTEIN_EXP2_VERSIONS) {
    constexpr std::uint32_t last = 0x42FE0000u; // 127.0f
    double worst = 0.0;
    std::vector<float> chunk;
    for (std::uint32_t sign : {0u, 0x80000000u}) {
        for (std::uint32_t bits = 0; bits <= last;) {
            chunk.clear();
            for (; bits <= last && chunk.size() < (std::size_t{1} << 20); ++bits) {
                const float x = from_bits(bits | sign);
                if (x >= -126.0f) chunk.push_back(x);
            }
            worst = std::max(worst, worst_relative_error<TestType>(chunk));
        }
    }
    INFO("worst relative error " << worst);
    CHECK(worst <= TestType::bound);
}

TEMPLATE_TEST_CASE("exp2_poly is exact at integers and 0 far below", "[exp2]", CTEIN_EXP2_VERSIONS) {
    for (int n = -126; n <= 127; ++n) CHECK(exp2_one<TestType>(static_cast<float>(n)) == std::ldexp(1.0f, n));
    // Masked scores (-1e30), the float minimum and -inf give exactly 0, as does anything at or
    // below -127.
    for (float x : {-127.0f, -127.25f, -128.0f, -200.0f, -1e30f, -std::numeric_limits<float>::max(),
                    -std::numeric_limits<float>::infinity()})
        CHECK(exp2_one<TestType>(x) == 0.0f);
    // Between -127 and -126 the result is below the smallest normal float, never negative.
    for (float x = -126.9f; x < -126.0f; x += 0.05f) {
        const float y = exp2_one<TestType>(x);
        CHECK(y >= 0.0f);
        CHECK(y <= std::numeric_limits<float>::min());
    }
    CHECK(std::isnan(exp2_one<TestType>(std::numeric_limits<float>::quiet_NaN())));
}

TEMPLATE_TEST_CASE("exp2_poly works lane by lane", "[exp2]", CTEIN_EXP2_VERSIONS) {
    using batch = typename TestType::batch;
    alignas(64) float xs[batch::size], ys[batch::size];
    for (std::size_t i = 0; i < batch::size; ++i)
        xs[i] = i % 3 == 0 ? -1e30f : static_cast<float>(i) * 0.37f - 2.0f;
    TestType::of(batch::load_aligned(xs)).store_aligned(ys);
    for (std::size_t i = 0; i < batch::size; ++i) {
        if (i % 3 == 0)
            CHECK(ys[i] == 0.0f);
        else
            CHECK(ys[i] == Approx(std::exp2(xs[i])).epsilon(TestType::bound));
    }
}
