// slice, index and chunk (expr/slice.hpp): views of one named axis, checked against plain indexing;
// static extents where the bounds are static; the same checks at run time; a KV cache narrowed
// to its first tokens read by attention in place.
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // compiled in tests/support/*instances.cpp

#include "../support/deterministic_fill.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <type_traits>

namespace {
using ctein::testing::deterministic_fill;
constexpr std::size_t B = 2, H = 3, S = 11, D = 8;
using cache_tensor = ctein::tensor<float, "b h s d", B, H, S, D>;
} // namespace

TEST_CASE("slice narrows one named axis, a view with the same names", "[slice]") {
    cache_tensor x;
    deterministic_fill(x, 1);
    const auto tokens = ctein::slice<"s">(x, 3, 9);
    static_assert(std::is_same_v<decltype(tokens)::extents_type, ctein::extents<B, H, ctein::dyn, D>>);
    static_assert(decltype(tokens)::names == ctein::fixed_string("b h s d"));
    REQUIRE(tokens.extent(2) == 6);
    CHECK(tokens.data() == &x(0, 0, 3, 0)); // no copy
    std::size_t differ = 0;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t s = 0; s < 6; ++s)
                for (std::size_t d = 0; d < D; ++d) differ += tokens(b, h, s, d) != x(b, h, s + 3, d);
    CHECK(differ == 0);

    const auto upper = ctein::slice<"d", 4, 8>(x); // static bounds: a static extent
    static_assert(std::is_same_v<decltype(upper)::extents_type, ctein::extents<B, H, S, 4>>);
    CHECK(upper(1, 2, 10, 3) == x(1, 2, 10, 7));
    CHECK(ctein::slice<"s">(x, 4, 4).size() == 0); // an empty range is a valid slice
    // a slice of a slice, and of a strided view
    const auto nested = ctein::slice<"h">(tokens, 1, 3);
    CHECK(nested(1, 1, 5, 2) == x(1, 2, 8, 2));
    const auto transposed = ctein::rearrange<"b h s d -> b s h d">(x);
    CHECK(ctein::slice<"h">(transposed, 2, 3)(1, 7, 0, 5) == x(1, 2, 7, 5));
}

TEST_CASE("index drops the axis, chunk cuts it into equal parts", "[slice]") {
    ctein::tensor<float, "three b h s d", 3, B, H, S, D> qkv;
    deterministic_fill(qkv, 2);
    const auto k = ctein::index<"three">(qkv, 1);
    static_assert(std::is_same_v<decltype(k)::extents_type, ctein::extents<B, H, S, D>>);
    static_assert(decltype(k)::names == ctein::fixed_string("b h s d"));
    CHECK(k(1, 2, 3, 4) == qkv(1, 1, 2, 3, 4));
    const auto v = ctein::index<"three", 2>(qkv);
    CHECK(v(0, 1, 10, 7) == qkv(2, 0, 1, 10, 7));
    const auto last_token = ctein::index<"s">(k, S - 1);
    static_assert(decltype(last_token)::names == ctein::fixed_string("b h d"));
    CHECK(last_token(1, 0, 5) == qkv(1, 1, 0, S - 1, 5));

    const auto [x1, x2] = ctein::chunk<"d", 2>(k); // RoPE's halves
    static_assert(
        std::is_same_v<std::remove_cvref_t<decltype(x1)>::extents_type, ctein::extents<B, H, S, D / 2>>);
    for (std::size_t d = 0; d < D / 2; ++d) {
        CHECK(x1(1, 2, 3, d) == k(1, 2, 3, d));
        CHECK(x2(1, 2, 3, d) == k(1, 2, 3, d + D / 2));
    }
    const auto thirds = ctein::chunk<"three", 3>(qkv);
    CHECK(thirds[2](0, 1, 0, 2, 3) == qkv(2, 1, 0, 2, 3));
}

TEST_CASE("bounds are checked at run time with the compiler's message, naming the axis", "[slice]") {
    ctein::tensor<float, "b s d", ctein::dyn, ctein::dyn, 4> x(2, 5);
    CHECK_THROWS_AS(ctein::slice<"s">(x, 2, 6), ctein::shape_error);
    CHECK_THROWS_WITH(ctein::slice<"s">(x, 2, 6),
                      Catch::StartsWith("Slice [2, 6) is out of range for axis s of length 5") &&
                          Catch::Contains("slice on a tensor of shape (2, 5, 4)"));
    CHECK_THROWS_WITH(ctein::slice<"s">(x, 4, 3),
                      Catch::StartsWith("Slice [4, 3) is out of range for axis s"));
    CHECK_THROWS_WITH(ctein::index<"b">(x, 2),
                      Catch::StartsWith("Index 2 is out of range for axis b of length 2"));
    CHECK_THROWS_WITH((ctein::chunk<"s", 2>(x)),
                      Catch::StartsWith("Axis s of length 5 does not split into 2 equal chunks"));
    CHECK_NOTHROW(ctein::slice<"s">(x, 5, 5));
    CHECK_NOTHROW(ctein::slice<"s", 0, 5>(x)); // static bounds against a dynamic extent: checked now
    CHECK_THROWS_AS((ctein::slice<"s", 0, 6>(x)), ctein::shape_error);
}

TEST_CASE("a KV cache narrowed to its first tokens is read by attention in place", "[slice][attention]") {
    constexpr std::size_t capacity = 64, length = 23;
    ctein::tensor<float, "b g s d", 1, 2, capacity, 64> k_cache, v_cache;
    ctein::tensor<float, "b h s d", 1, 8, 1, 64> q;
    deterministic_fill(k_cache, 3);
    deterministic_fill(v_cache, 4);
    deterministic_fill(q, 5);
    const auto k_now = ctein::slice<"s">(k_cache, 0, length);
    const auto v_now = ctein::slice<"s">(v_cache, 0, length);
    const auto o = ctein::attention(q, k_now, v_now, ctein::causal_offset(length - 1));
    const auto expected =
        ctein::attention(q, ctein::eval(k_now), ctein::eval(v_now), ctein::causal_offset(length - 1));
    for (std::size_t i = 0; i < o.size(); ++i) REQUIRE(o.data()[i] == expected.data()[i]);
}
