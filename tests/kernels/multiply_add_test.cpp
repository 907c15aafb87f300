#include <ctein/kernels/multiply_add.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

// x * x - (1 + 2h) for x = 1 + h, h = 2^-ceil(m/2), m the type's digits (24, 53): the product's
// last term, h^2, is at most half a unit in its last place, so a multiply then an add gives 0 and
// only one rounding keeps it. Machines without FMA have no such instruction to check.
TEMPLATE_TEST_CASE("multiply_add rounds once, at every batch width of the machine", "[multiply_add]", float,
                   double) {
    constexpr int m = std::numeric_limits<TestType>::digits; // 24 or 53 with the hidden bit
    const TestType h = std::ldexp(TestType(1), -((m + 1) / 2));
    const TestType x = 1 + h, z = -(1 + 2 * h), product_tail = h * h;
    const auto check = [&](auto batch) {
        using B = decltype(batch);
        const B r = ctein::kernels::multiply_add(B(x), B(x), B(z));
        for (std::size_t i = 0; i < B::size; ++i) CHECK(r.get(i) == product_tail);
    };
#if defined(__FMA__) || defined(__AVX512F__)
    check(xsimd::batch<TestType>{});
#endif
#if XSIMD_WITH_FMA3_AVX2
    check(xsimd::batch<TestType, xsimd::fma3<xsimd::avx2>>{});
#endif
#if XSIMD_WITH_AVX512F
    check(xsimd::batch<TestType, xsimd::avx512f>{});
#endif
}
