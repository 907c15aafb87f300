// concat and rotate_half (elementwise/concat.hpp): joins along the innermost and an outer axis,
// operands named in another order, dynamic lengths, nested joins, and RoPE's one line against a
// naive loop of Hugging Face's apply_rotary_pos_emb.
#include <ctein/ctein.hpp>

#include "../support/deterministic_fill.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <type_traits>

namespace {
using ctein::dyn;
using ctein::testing::deterministic_fill;
constexpr std::size_t B = 2, H = 3, S = 5, D = 8;
} // namespace

TEST_CASE("concat along the innermost axis and along an outer one", "[concat]") {
    ctein::tensor<float, "b s d", B, S, 3> a;
    ctein::tensor<float, "b s d", B, S, 5> b;
    deterministic_fill(a, 1);
    deterministic_fill(b, 2);
    const auto inner = ctein::eval(ctein::concat<"d">(a, b * 2.0f));
    static_assert(std::is_same_v<decltype(inner)::extents_type, ctein::extents<B, S, 8>>);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < B; ++i)
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t d = 0; d < 8; ++d)
                differ += inner(i, s, d) != (d < 3 ? a(i, s, d) : 2.0f * b(i, s, d - 3));
    CHECK(differ == 0);

    ctein::tensor<float, "b s d", B, 2, 3> c;
    deterministic_fill(c, 3);
    const auto outer = ctein::eval(ctein::concat<"s">(a, c));
    static_assert(std::is_same_v<decltype(outer)::extents_type, ctein::extents<B, S + 2, 3>>);
    differ = 0;
    for (std::size_t i = 0; i < B; ++i)
        for (std::size_t s = 0; s < S + 2; ++s)
            for (std::size_t d = 0; d < 3; ++d)
                differ += outer(i, s, d) != (s < S ? a(i, s, d) : c(i, s - S, d));
    CHECK(differ == 0);
}

TEST_CASE("concat matches the second operand by names, with dynamic lengths checked", "[concat]") {
    ctein::tensor<float, "b s d", B, dyn, 4> a(S);
    ctein::tensor<float, "d s b", 6, dyn, B> b(S);
    deterministic_fill(a, 4);
    deterministic_fill(b, 5);
    const auto joined = ctein::eval(ctein::concat<"d">(a, b));
    static_assert(decltype(joined)::names == ctein::fixed_string("b s d"));
    static_assert(std::is_same_v<decltype(joined)::extents_type, ctein::extents<B, dyn, 10>>);
    CHECK(joined(1, 4, 2) == a(1, 4, 2));
    CHECK(joined(1, 4, 7) == b(3, 4, 1));
    ctein::tensor<float, "d s b", 6, dyn, B> longer(S + 1);
    CHECK_THROWS_WITH(ctein::eval(ctein::concat<"d">(a, longer)),
                      Catch::StartsWith("Shape mismatch in concat along d for axis s: 5 != 6"));
}

TEST_CASE("nested concats and an expression around them", "[concat]") {
    ctein::tensor<float, "s d", S, 2> a, b, c;
    deterministic_fill(a, 6);
    deterministic_fill(b, 7);
    deterministic_fill(c, 8);
    const auto y = ctein::eval(ctein::concat<"d">(ctein::concat<"d">(a, b), c) + 1.0f);
    static_assert(std::is_same_v<decltype(y)::extents_type, ctein::extents<S, 6>>);
    std::size_t differ = 0;
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t d = 0; d < 6; ++d) {
            const float expected = (d < 2 ? a(s, d) : d < 4 ? b(s, d - 2) : c(s, d - 4)) + 1.0f;
            differ += y(s, d) != expected;
        }
    CHECK(differ == 0);
}

TEST_CASE("RoPE in one line: x * cos + rotate_half(x) * sin", "[concat]") {
    ctein::tensor<float, "b h s d", B, H, S, D> q;
    deterministic_fill(q, 9);
    // Hugging Face's tables: freqs repeated over both halves, [S, D]
    ctein::tensor<float, "s d", S, D> cos, sin;
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t d = 0; d < D; ++d) {
            const double inv_freq = std::pow(10000.0, -2.0 * static_cast<double>(d % (D / 2)) / D);
            cos(s, d) = static_cast<float>(std::cos(static_cast<double>(s) * inv_freq));
            sin(s, d) = static_cast<float>(std::sin(static_cast<double>(s) * inv_freq));
        }
    const auto rotated = ctein::eval(q * cos + ctein::rotate_half<"d">(q) * sin);
    static_assert(
        std::is_same_v<std::remove_const_t<decltype(rotated)>, ctein::tensor<float, "b h s d", B, H, S, D>>);
    std::size_t differ = 0;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t s = 0; s < S; ++s)
                for (std::size_t d = 0; d < D; ++d) {
                    const float half = d < D / 2 ? -q(b, h, s, d + D / 2) : q(b, h, s, d - D / 2);
                    const float expected = q(b, h, s, d) * cos(s, d) + half * sin(s, d);
                    differ += std::abs(rotated(b, h, s, d) - expected) > 1e-6f;
                }
    CHECK(differ == 0);
}
