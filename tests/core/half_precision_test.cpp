#include <ctein/core/half_precision.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace {

/// Checks rounding between every two neighbours a < b of a 16-bit type `H` (finite, positive, and
/// the largest finite one against infinity): just below their midpoint goes to a, just above to
/// b, the midpoint itself (exact in float) to the one whose last bit is 0; negatives mirror.
template <class H>
void check_rounding(std::uint16_t infinity_bits) {
    std::size_t wrong = 0;
    for (std::uint32_t bits = 0; bits < infinity_bits; ++bits) {
        const auto low = static_cast<std::uint16_t>(bits), high = static_cast<std::uint16_t>(bits + 1);
        const float a = H::from_bits(low), b = H::from_bits(high);
        // the midpoint of the largest finite value and the first power of two beyond it
        // (a + b) / 2 would overflow near float's largest values
        const float mid =
            high == infinity_bits ? a + (a - float(H::from_bits(low - 1))) / 2 : a + (b - a) / 2;
        const std::uint16_t even = (low & 1u) == 0 ? low : high;
        const float below = std::nextafter(mid, 0.0f), above = std::nextafter(mid, 2 * mid + 1);
        if (H(below).bits != low || H(above).bits != high || H(mid).bits != even) ++wrong;
        if (H(-mid).bits != (even | 0x8000u) || H(-a).bits != (low | 0x8000u)) ++wrong;
    }
    CHECK(wrong == 0);
}

/// Checks that every one of the 65536 values of H (whose exponent bits are `infinity_bits`)
/// converts to float and back to the same bits, and every NaN to a NaN and back to a NaN.
template <class H>
void check_round_trip(std::uint16_t infinity_bits) {
    std::size_t wrong = 0;
    for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
        const auto h = static_cast<std::uint16_t>(bits);
        const float f = H::from_bits(h);
        const bool nan = (h & infinity_bits) == infinity_bits && (h & 0x7fffu & ~infinity_bits) != 0;
        if (nan ? !std::isnan(f) || !std::isnan(float(H(f))) : H(f).bits != h) ++wrong;
    }
    CHECK(wrong == 0);
}

} // namespace

TEST_CASE("float16 holds IEEE binary16: every value converts to float and back exactly", "[half]") {
    check_round_trip<ctein::float16>(0x7c00);
    CHECK(float(ctein::float16::from_bits(0x3c00)) == 1.0f);
    CHECK(float(ctein::float16::from_bits(0x7bff)) == 65504.0f);
    CHECK(float(ctein::float16::from_bits(0x0001)) == std::ldexp(1.0f, -24)); // the smallest subnormal
    CHECK(float(ctein::float16::from_bits(0xfc00)) == -std::numeric_limits<float>::infinity());
}

TEST_CASE("float16 rounds floats to nearest, ties to even, overflow to infinity", "[half]") {
    check_rounding<ctein::float16>(0x7c00);
    CHECK(ctein::float16(65519.996f).bits == 0x7bff);
    CHECK(ctein::float16(65520.0f).bits == 0x7c00);
    CHECK(ctein::float16(1e30f).bits == 0x7c00);
    CHECK(ctein::float16(std::ldexp(1.0f, -26)).bits == 0x0000); // a quarter of the smallest: to zero
    CHECK(ctein::float16(-0.0f).bits == 0x8000);
    CHECK(std::isnan(float(ctein::float16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST_CASE("bfloat16 is the upper half of a float, rounded to nearest, ties to even", "[half]") {
    check_round_trip<ctein::bfloat16>(0x7f80);
    check_rounding<ctein::bfloat16>(0x7f80);
    CHECK(float(ctein::bfloat16(1.0f)) == 1.0f);
    CHECK(ctein::bfloat16(std::numeric_limits<float>::max()).bits == 0x7f80); // rounds up to infinity
    // a NaN whose payload lies only in the lower half stays NaN (truncation would make it infinity)
    CHECK(std::isnan(float(ctein::bfloat16(std::bit_cast<float>(0x7f800001u)))));
}
