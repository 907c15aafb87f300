// Element-wise expressions (elementwise/operations.hpp, evaluate.hpp): each operation and
// broadcast rule against a naive loop, named and positional, static and dynamic extents, strided
// and broadcast operands, rows longer than a chunk; the names and static extents in the types; the
// run-time errors; results fed to eval, assign, einsum, attention, reduce and rearrange.
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // compiled in tests/support/*instances.cpp

#include "../support/deterministic_fill.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <type_traits>

namespace {
using ctein::dyn;
using ctein::testing::deterministic_fill;
constexpr std::size_t B = 2, H = 3, S = 5, D = 8;

/// |a - b| <= 1e-6·max(1, |b|): float results computed in another order (FMA contraction, xsimd's
/// exp/sin/tanh within a few ulp).
bool close(float a, float b) {
    return std::abs(a - b) <= 1e-6f * std::max(1.0f, std::abs(b));
}

template <class A, class F>
std::size_t count_differences(const A& actual, F&& expected) {
    std::size_t differ = 0;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t s = 0; s < S; ++s)
                for (std::size_t d = 0; d < D; ++d)
                    differ += !close(actual(b, h, s, d), expected(b, h, s, d));
    return differ;
}
} // namespace

TEST_CASE("named operands broadcast by names, and their names and static extents stay in the type",
          "[elementwise]") {
    ctein::tensor<float, "b h s d", B, H, S, D> x;
    ctein::tensor<float, "s d", S, D> c;
    ctein::tensor<float, "d", D> bias;
    deterministic_fill(x, 1);
    deterministic_fill(c, 2);
    deterministic_fill(bias, 3);
    auto e = x * c + bias;
    static_assert(decltype(e)::names == ctein::fixed_string("b h s d"));
    static_assert(std::is_same_v<decltype(e)::extents_type, ctein::extents<B, H, S, D>>);
    static_assert(std::is_same_v<decltype(e)::value_type, float>);
    const auto y = ctein::eval(e);
    static_assert(
        std::is_same_v<std::remove_const_t<decltype(y)>, ctein::tensor<float, "b h s d", B, H, S, D>>);
    CHECK(count_differences(
              y, [&](auto b, auto h, auto s, auto d) { return x(b, h, s, d) * c(s, d) + bias(d); }) == 0);
    // the smaller operand first: the one that holds every name sets the order
    const auto z = ctein::eval(c * x);
    static_assert(decltype(z)::names == ctein::fixed_string("b h s d"));
    CHECK(count_differences(z, [&](auto b, auto h, auto s, auto d) { return c(s, d) * x(b, h, s, d); }) == 0);
    // names in another order meet by name: a transposed view read in place
    const auto t = ctein::rearrange<"b h s d -> b s h d">(x);
    const auto sum = ctein::eval(x + t);
    CHECK(count_differences(sum, [&](auto b, auto h, auto s, auto d) { return 2 * x(b, h, s, d); }) == 0);
    // neither holds the other: the union, in order of appearance
    ctein::tensor<float, "b s", B, S> per_token;
    deterministic_fill(per_token, 4);
    const auto outer = ctein::eval(per_token * c);
    static_assert(decltype(outer)::names == ctein::fixed_string("b s d"));
    static_assert(std::is_same_v<decltype(outer)::extents_type, ctein::extents<B, S, D>>);
    CHECK(close(outer(1, 4, 7), per_token(1, 4) * c(4, 7)));
}

TEST_CASE("dynamic extents: the lengths are checked when the expression is evaluated", "[elementwise]") {
    ctein::tensor<float, "b s d", B, dyn, D> x(S);
    ctein::tensor<float, "s d", dyn, D> c(S);
    deterministic_fill(x, 5);
    deterministic_fill(c, 6);
    auto e = x - c;
    static_assert(std::is_same_v<decltype(e)::extents_type, ctein::extents<B, dyn, D>>);
    const auto y = ctein::eval(e);
    REQUIRE(y.extent(1) == S);
    CHECK(close(y(1, 3, 2), x(1, 3, 2) - c(3, 2)));
    // a static length meets a dynamic one: the result is static
    ctein::tensor<float, "s d", S, D> fixed;
    static_assert(std::is_same_v<decltype(x / fixed)::extents_type, ctein::extents<B, S, D>>);

    ctein::tensor<float, "s d", dyn, D> longer(S + 1);
    auto wrong = x * longer;
    CHECK_THROWS_AS(ctein::eval(wrong), ctein::shape_error);
    CHECK_THROWS_WITH(ctein::eval(wrong),
                      Catch::StartsWith("Shape mismatch in element-wise expression for axis s: 5 != 6"));
}

TEST_CASE("unnamed operands broadcast from the right as numpy, with run-time ones", "[elementwise]") {
    ctein::tensor<float, "", 2, 1, 5> a;
    ctein::tensor<float, "", 3, 1> b;
    deterministic_fill(a, 7);
    deterministic_fill(b, 8);
    const auto y = ctein::eval(a + b);
    static_assert(std::is_same_v<decltype(y)::extents_type, ctein::extents<2, 3, 5>>);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            for (std::size_t k = 0; k < 5; ++k) differ += !close(y(i, j, k), a(i, 0, k) + b(j, 0));
    CHECK(differ == 0);

    ctein::tensor<float, "", dyn, dyn> column(4, 1), row(1, 6);
    deterministic_fill(column, 9);
    deterministic_fill(row, 10);
    const auto grid = ctein::eval(column * row); // lengths 1 known only at run time broadcast too
    REQUIRE(grid.extent(0) == 4);
    REQUIRE(grid.extent(1) == 6);
    CHECK(close(grid(3, 5), column(3, 0) * row(0, 5)));

    ctein::tensor<float, "", dyn, dyn> p(2, 3), q(4, 3);
    CHECK_THROWS_WITH(
        ctein::eval(p + q),
        Catch::StartsWith("operands could not be broadcast together with shapes (2, 3) (4, 3)"));
    // an unnamed operand meets a named one from the right and takes its names
    ctein::tensor<float, "b s d", B, S, D> x;
    deterministic_fill(x, 11);
    const auto shifted = ctein::eval(x + b.view().data()[0] + ctein::named<"">(ctein::index<"b">(x, 0)));
    static_assert(decltype(shifted)::names == ctein::fixed_string("b s d"));
    CHECK(close(shifted(1, 2, 3), x(1, 2, 3) + b(0, 0) + x(0, 2, 3)));
}

TEST_CASE("rows longer than a chunk, strided and broadcast operands in the innermost axis", "[elementwise]") {
    constexpr std::size_t n = 1299; // more than two chunks of 512, and not a multiple of any batch
    ctein::tensor<float, "i j", dyn, 2> pairs(n);
    ctein::tensor<float, "i", dyn> line(n);
    ctein::tensor<float, "j", 2> scale;
    deterministic_fill(pairs, 12);
    deterministic_fill(line, 13);
    scale(0) = 0.5f;
    scale(1) = -2.0f;
    // pairs' axis i has stride 2 (gathered per chunk); after the transpose, scale is constant along
    // the innermost axis (broadcast); line is contiguous
    const auto transposed = ctein::rearrange<"i j -> j i">(pairs);
    const auto y = ctein::eval(transposed * scale + line);
    static_assert(decltype(y)::names == ctein::fixed_string("j i"));
    std::size_t differ = 0;
    for (std::size_t j = 0; j < 2; ++j)
        for (std::size_t i = 0; i < n; ++i) differ += !close(y(j, i), pairs(i, j) * scale(j) + line(i));
    CHECK(differ == 0);
    // the whole tensor as one row (every operand contiguous): one long loop
    const auto doubled = ctein::eval(line + line);
    for (std::size_t i = 0; i < n; ++i) differ += !close(doubled(i), 2 * line(i));
    CHECK(differ == 0);
}

TEST_CASE("functions, comparisons, where and as", "[elementwise]") {
    ctein::tensor<float, "b h s d", B, H, S, D> x;
    deterministic_fill(x, 14);
    const auto positive = ctein::eval(ctein::abs(x) + 0.25f);
    const auto checks = [&](auto&& actual, auto&& expected) {
        return count_differences(ctein::eval(actual), [&](auto b, auto h, auto s, auto d) {
            return expected(x(b, h, s, d), positive(b, h, s, d));
        });
    };
    CHECK(checks(ctein::exp(x), [](float v, float) { return std::exp(v); }) == 0);
    CHECK(checks(ctein::log(positive), [](float, float p) { return std::log(p); }) == 0);
    CHECK(checks(ctein::sqrt(positive), [](float, float p) { return std::sqrt(p); }) == 0);
    CHECK(checks(ctein::rsqrt(positive), [](float, float p) { return 1 / std::sqrt(p); }) == 0);
    CHECK(checks(ctein::tanh(x), [](float v, float) { return std::tanh(v); }) == 0);
    CHECK(checks(ctein::sin(x * 3.0f), [](float v, float) { return std::sin(v * 3.0f); }) == 0);
    CHECK(checks(ctein::cos(x * 3.0f), [](float v, float) { return std::cos(v * 3.0f); }) == 0);
    CHECK(checks(-x, [](float v, float) { return -v; }) == 0);
    CHECK(checks(ctein::max(x, 0.0f), [](float v, float) { return std::max(v, 0.0f); }) == 0);
    CHECK(checks(ctein::min(x, positive), [](float v, float p) { return std::min(v, p); }) == 0);
    CHECK(checks(ctein::where(x > 0.0f, x, x * 0.01f),
                 [](float v, float) { return v > 0 ? v : v * 0.01f; }) == 0);

    // comparisons are bool expressions; as<T> converts
    auto above = x >= 0.5f;
    static_assert(std::is_same_v<decltype(above)::value_type, bool>);
    const auto mask = ctein::eval(above);
    static_assert(std::is_same_v<decltype(mask)::value_type, bool>);
    const auto ones = ctein::eval(ctein::as<float>(mask));
    const auto kept = ctein::eval(ctein::where(!mask, 0.0f, x)); // a bool tensor as the condition
    std::size_t differ = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        differ += mask.data()[i] != (x.data()[i] >= 0.5f);
        differ += ones.data()[i] != (x.data()[i] >= 0.5f ? 1.0f : 0.0f);
        differ += kept.data()[i] != (x.data()[i] >= 0.5f ? x.data()[i] : 0.0f);
    }
    CHECK(differ == 0);
    CHECK(ctein::eval(ctein::as<int>(x * 10.0f))(1, 2, 3, 4) == static_cast<int>(x(1, 2, 3, 4) * 10.0f));
}

TEST_CASE("scalars take the tensor's type, unless that would truncate them", "[elementwise]") {
    ctein::tensor<float, "d", D> x;
    ctein::tensor<int, "d", D> counts;
    deterministic_fill(x, 15);
    for (std::size_t d = 0; d < D; ++d) counts(d) = static_cast<int>(d);
    static_assert(std::is_same_v<decltype(x * 0.5)::value_type, float>); // a double literal stays float
    static_assert(std::is_same_v<decltype(counts * 2)::value_type, int>);
    static_assert(std::is_same_v<decltype(counts * 0.5)::value_type, double>);
    const auto halves = ctein::eval(counts * 0.5);
    CHECK(halves(3) == 1.5);
    static_assert(std::is_same_v<decltype(2.0 * x)::value_type, float>);
    CHECK(ctein::eval(1.0 - x)(2) == 1.0f - x(2));
}

TEST_CASE("the seeds' mask conversions, each one line", "[elementwise]") {
    // seed 000: a float 0/1 keep mask, additive form (mask - 1) * 1e9, and masked_fill(mask == 0, -1e9)
    ctein::tensor<float, "q k", 4, 6> keep;
    ctein::tensor<float, "b h q k", 1, 2, 4, 6> scores;
    deterministic_fill(scores, 16);
    for (std::size_t q = 0; q < 4; ++q)
        for (std::size_t k = 0; k < 6; ++k) keep(q, k) = k <= q + 1 ? 1.0f : 0.0f;
    const auto additive = ctein::eval((keep - 1) * 1e9f);
    CHECK(additive(0, 0) == 0.0f);
    CHECK(additive(0, 5) == -1e9f);
    const auto filled = ctein::eval(ctein::where(keep == 0, -1e9f, scores));
    static_assert(decltype(filled)::names == ctein::fixed_string("b h q k"));
    CHECK(filled(0, 1, 0, 5) == -1e9f);
    CHECK(filled(0, 1, 3, 2) == scores(0, 1, 3, 2));
    // an int mask to bools
    ctein::tensor<int, "b k", 2, 6> padding;
    padding(1, 5) = 1;
    const auto padded = ctein::eval(padding != 0);
    CHECK(padded(1, 5));
    CHECK(!padded(0, 5));
}

TEST_CASE("assign computes into existing storage, in place too", "[elementwise]") {
    ctein::tensor<float, "b s d", B, S, D> x;
    ctein::tensor<float, "s d", S, D> c;
    deterministic_fill(x, 17);
    deterministic_fill(c, 18);
    const auto before = ctein::eval(x);
    ctein::assign(x, x * c + 1.0f); // reads each element at the position it writes
    std::size_t differ = 0;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t d = 0; d < D; ++d)
                differ += !close(x(b, s, d), before(b, s, d) * c(s, d) + 1.0f);
    CHECK(differ == 0);
    ctein::tensor<float, "b s d", B, dyn, D> shorter(S - 1);
    ctein::tensor<float, "b s d", B, dyn, D> other(S);
    CHECK_THROWS_AS(ctein::assign(shorter, other * 2.0f), ctein::shape_error);
}

TEST_CASE("expressions feed einsum, attention, reduce and rearrange", "[elementwise]") {
    ctein::tensor<float, "b h s d", B, H, S, D> q, k, v;
    deterministic_fill(q, 19);
    deterministic_fill(k, 20);
    deterministic_fill(v, 21);
    const auto scaled = ctein::eval(q * 0.5f);
    const auto by_expression = ctein::eval(ctein::einsum<"b h q d, b h k d -> b h q k">(q * 0.5f, k));
    const auto by_tensor = ctein::eval(ctein::einsum<"b h q d, b h k d -> b h q k">(scaled, k));
    static_assert(std::is_same_v<decltype(by_expression), decltype(by_tensor)>);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < by_tensor.size(); ++i)
        differ += by_expression.data()[i] != by_tensor.data()[i];
    CHECK(differ == 0);

    // an additive mask written as an expression, and k, v as expressions: evaluated once each
    ctein::tensor<float, "q k", S, S> bias;
    deterministic_fill(bias, 22);
    const auto mask_tensor = ctein::eval(bias * 2.0f);
    const auto k2 = ctein::eval(k + 1.0f);
    const auto expected = ctein::attention(q, k2, v, ctein::mask(mask_tensor));
    const auto actual = ctein::attention(q * 1.0f, k + 1.0f, v * 1.0f, ctein::mask(bias * 2.0f));
    static_assert(std::is_same_v<decltype(actual), decltype(expected)>);
    differ = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) differ += !close(actual.data()[i], expected.data()[i]);
    CHECK(differ == 0);
    // a keep mask from a comparison (the seeds' mask == 1)
    const auto keep_tensor = ctein::eval(bias > 0.0f);
    const auto kept = ctein::attention(q, k, v, ctein::mask(bias > 0.0f));
    const auto kept_expected = ctein::attention(q, k, v, ctein::mask(keep_tensor));
    differ = 0;
    for (std::size_t i = 0; i < kept.size(); ++i) differ += kept.data()[i] != kept_expected.data()[i];
    CHECK(differ == 0);

    const auto sums = ctein::reduce<"b h s d -> b h", "sum">(q * 2.0f);
    const auto sums_expected = ctein::reduce<"b h s d -> b h", "sum">(q);
    CHECK(close(sums(1, 2), 2 * sums_expected(1, 2)));
    const auto evaluated = ctein::eval(q + k);
    const auto merged = ctein::rearrange<"b h s d -> b s (h d)">(evaluated);
    CHECK(merged(1, 4, 2 * D + 3) == evaluated(1, 2, 4, 3));
}

TEST_CASE("edge cases: empty and single-element results, doubles, bool operands, named ones",
          "[elementwise]") {
    ctein::tensor<float, "b s", dyn, dyn> empty(3, 0);
    CHECK(ctein::eval(empty * 2.0f).size() == 0); // nothing is read or written
    ctein::tensor<float, "a b c", 1, 1, 1> one;
    one(0, 0, 0) = 3.0f;
    CHECK(ctein::eval(one * one + 1.0f)(0, 0, 0) == 10.0f); // every axis of length 1

    ctein::tensor<double, "i", dyn> wide(2500); // batches of double, more than one chunk
    for (std::size_t i = 0; i < wide.size(); ++i) wide(i) = 0.001 * static_cast<double>(i);
    const auto squared = ctein::eval(wide * wide - 0.5);
    static_assert(std::is_same_v<decltype(squared)::value_type, double>);
    CHECK(squared(2499) == wide(2499) * wide(2499) - 0.5);

    // bool operands are computed element by element (no batches), across chunks too
    ctein::tensor<bool, "i", dyn> flags(4100);
    for (std::size_t i = 0; i < flags.size(); ++i) flags(i) = i % 3 == 0;
    const auto picked = ctein::eval(ctein::where(flags, 1.0f, -1.0f));
    std::size_t differ = 0;
    for (std::size_t i = 0; i < flags.size(); ++i) differ += picked(i) != (i % 3 == 0 ? 1.0f : -1.0f);
    CHECK(differ == 0);

    // a named length 1 does not broadcast at run time either
    ctein::tensor<float, "b s", dyn, dyn> a(2, 1), b(2, 5);
    CHECK_THROWS_WITH(ctein::eval(a + b),
                      Catch::StartsWith("Shape mismatch in element-wise expression for axis s: 1 != 5"));
}

TEST_CASE("a join of gathered operands: the innermost axis read with a stride", "[elementwise]") {
    ctein::tensor<float, "d s", 6, S> stored; // read as "s d": d has stride S
    ctein::tensor<float, "s d", S, 4> other;
    deterministic_fill(stored, 23);
    deterministic_fill(other, 24);
    const auto by_token = ctein::rearrange<"d s -> s d">(stored);
    const auto joined = ctein::eval(ctein::concat<"d">(other, by_token) * 2.0f);
    static_assert(std::is_same_v<decltype(joined)::extents_type, ctein::extents<S, 10>>);
    std::size_t differ = 0;
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t d = 0; d < 10; ++d)
            differ += joined(s, d) != 2.0f * (d < 4 ? other(s, d) : stored(d - 4, s));
    CHECK(differ == 0);
}
