#include <ctein/expr/eval.hpp>
#include <ctein/expr/rearrange.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <random>
#include <type_traits>
#include <utility>

using namespace ctein;

namespace {
template <class Tensor>
void iota(Tensor& t) {
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<typename Tensor::value_type>(i);
}
} // namespace

TEST_CASE("a head split is a strided view whose type knows the heads", "[expr][rearrange]") {
    tensor<float, "b s c", 2, 5, 512> x;
    iota(x);
    auto q = rearrange<"b s (h d) -> b h s d">(x, len<"h", 8>);
    STATIC_REQUIRE(std::is_same_v<decltype(q), view<float, "b h s d", extents<2, 8, 5, 64>, layout_stride>>);
    CHECK(q.data() == x.data()); // no copy
    CHECK(q(1, 3, 4, 5) == x(1, 4, 3 * 64 + 5));
    CHECK(q.stride(1) == 64);
    CHECK(q.stride(2) == 512);
}

TEST_CASE("a reshape stays contiguous, a head merge becomes a grouped view", "[expr][rearrange]") {
    tensor<float, "b h s d", 2, 8, 5, 64> q;
    iota(q);
    auto flat = rearrange<"b h s d -> (b h) s d">(q);
    STATIC_REQUIRE(
        std::is_same_v<decltype(flat), view<float, "(b h) s d", extents<16, 5, 64>, layout_right>>);
    auto merged = rearrange<"b h s d -> b s (h d)">(q);
    STATIC_REQUIRE(std::is_same_v<decltype(merged)::layout_type, layout_grouped<1, 1, 2>>);
    STATIC_REQUIRE(decltype(merged)::names == fixed_string("b s (h d)"));
    CHECK(merged(1, 2, 3 * 64 + 7) == q(1, 3, 2, 7));
    const auto merged_copy = eval(merged);
    const auto back = rearrange<"b s (h d) -> b h s d">(merged_copy, len<"h", 8>);
    CHECK(back(1, 3, 2, 7) == q(1, 3, 2, 7));
}

TEST_CASE("dynamic extents and run-time lengths", "[expr][rearrange]") {
    tensor<float, "b s c", 2, dyn, 512> x(7);
    iota(x);
    auto q = rearrange<"b s (h d) -> b h s d">(x, len<"h", 8>);
    STATIC_REQUIRE(std::is_same_v<decltype(q)::extents_type, extents<2, 8, dyn, 64>>);
    CHECK(q.extent(2) == 7);
    tensor<int, "", 12, 3> y;
    iota(y);
    const std::size_t tokens = 4;
    auto z = rearrange<"(b t) c -> b t c">(y, len<"t">(tokens));
    STATIC_REQUIRE(std::is_same_v<decltype(z)::extents_type, extents<dyn, dyn, 3>>);
    CHECK(z.extent(0) == 3);
    CHECK(z.extent(1) == 4);
    CHECK(z(2, 1, 2) == y(9, 2));
}

TEST_CASE("a dynamic shape mistake throws the compile-time message, with context", "[expr][rearrange]") {
    tensor<float, "b s c", 2, dyn, dyn> x(3, 500);
    try {
        (void)rearrange<"b s (h d) -> b h s d">(x, len<"h", 8>);
        FAIL("no exception");
    } catch (const shape_error& e) {
        CHECK(e.code() == errc::not_divisible);
        CHECK(e.message() == "Shape mismatch, can't divide axis of length 500 in chunks of 8");
        CHECK(std::string(e.what()) == "Shape mismatch, can't divide axis of length 500 in chunks of 8\n "
                                       "while processing rearrange pattern "
                                       "\"b s (h d) -> b h s d\" on a tensor of shape (2, 3, 500), h=8");
    }
    tensor<float, "", dyn, dyn> y(2, 12);
    CHECK_THROWS_WITH(rearrange<"a (b c) -> a b c">(y, len<"b">(2), len<"c">(5)),
                      Catch::Contains("Shape mismatch, 12 != 10"));
}

TEST_CASE("names: a named tensor binds by name, named<> renames, _ binds anything", "[expr][rearrange]") {
    tensor<float, "b h s d", 1, 2, 3, 4> q;
    iota(q);
    auto positional = rearrange<"w x y z -> w y x z">(named<"">(q));
    STATIC_REQUIRE(decltype(positional)::names == fixed_string("w y x z"));
    auto renamed = rearrange<"b n s e -> b s (n e)">(named<"b n s e">(q));
    CHECK(renamed(0, 2, 4 + 1) == q(0, 1, 2, 1));
    tensor<float, "_ s c", 2, 3, 4> partly;
    auto t = rearrange<"batch s c -> c s batch">(partly);
    STATIC_REQUIRE(decltype(t)::names == fixed_string("c s batch"));
}

TEST_CASE("ellipsis, units and zero-dimensional tensors", "[expr][rearrange]") {
    tensor<float, "", 2, 3, 4> x;
    iota(x);
    auto e = rearrange<"... c -> c ...">(x);
    STATIC_REQUIRE(std::is_same_v<decltype(e)::extents_type, extents<4, 2, 3>>);
    CHECK(e(3, 1, 2) == x(1, 2, 3));
    auto u = rearrange<"a b c -> a 1 b () c">(x);
    STATIC_REQUIRE(std::is_same_v<decltype(u)::extents_type, extents<2, 1, 3, 1, 4>>);
    CHECK(u(1, 0, 2, 0, 3) == x(1, 2, 3));
    tensor<float, ""> scalar;
    scalar() = 5.0f;
    auto s = rearrange<" -> 1 1">(scalar);
    STATIC_REQUIRE(std::is_same_v<decltype(s)::extents_type, extents<1, 1>>);
    CHECK(s(0, 0) == 5.0f);
}

// Property: a rearrange followed by its inverse is the identity, for every permutation of four
// axes, each with the output grouped in one of the eight ways (neighbour pairs merged or not),
// on static extents and on dynamic ones of random lengths.
namespace {
constexpr std::array<char, 4> names{'a', 'b', 'c', 'd'};

constexpr std::array<std::size_t, 4> permutation(std::size_t index) {
    std::array<std::size_t, 4> p{0, 1, 2, 3};
    std::array<std::size_t, 4> out{};
    std::size_t left = 4;
    for (std::size_t i = 0; i < 4; ++i) {
        std::size_t f = 1;
        for (std::size_t k = 1; k < left; ++k) f *= k;
        const std::size_t pick = index / f;
        index %= f;
        out[i] = p[pick];
        for (std::size_t k = pick; k + 1 < left; ++k) p[k] = p[k + 1];
        --left;
    }
    return out;
}

/// "a b c d -> (c a) d b" and so on: permutation `index % 24`, neighbours merged by the bits of
/// `index / 24`.
constexpr bounded_string<64> grouped_side(std::size_t index) {
    const auto p = permutation(index % 24);
    const std::size_t merges = index / 24;
    bounded_string<64> s;
    for (std::size_t i = 0; i < 4; ++i) {
        const bool merged_with_previous = i > 0 && (merges >> (i - 1) & 1);
        const bool merged_with_next = i < 3 && (merges >> i & 1);
        if (i > 0) s.push_back(' ');
        if (merged_with_next && !merged_with_previous) s.push_back('(');
        s.push_back(names[p[i]]);
        if (merged_with_previous && !merged_with_next) s.push_back(')');
    }
    return s;
}
constexpr bounded_string<64> forward_pattern(std::size_t index) {
    bounded_string<64> s("a b c d -> ");
    s.append(grouped_side(index).view());
    return s;
}
constexpr bounded_string<64> inverse_pattern(std::size_t index) {
    bounded_string<64> s = grouped_side(index);
    s.append(" -> a b c d");
    return s;
}
template <std::size_t I>
inline constexpr auto forward = fixed_string<forward_pattern(I).size()>(forward_pattern(I).view());
template <std::size_t I>
inline constexpr auto inverse = fixed_string<inverse_pattern(I).size()>(inverse_pattern(I).view());

template <std::size_t I, class Tensor, class... Lengths>
void round_trip(const Tensor& x, Lengths... lengths) {
    INFO("forward " << forward_pattern(I).view() << ", inverse " << inverse_pattern(I).view());
    auto there = eval(rearrange<forward<I>>(x));
    auto back = eval(rearrange<inverse<I>>(there, lengths...));
    STATIC_REQUIRE(std::is_same_v<typename decltype(back)::extents_type, typename Tensor::extents_type>);
    REQUIRE(back.size() == x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        if (back.data()[i] != x.data()[i]) FAIL("element " << i << " differs");
}
} // namespace

TEST_CASE("rearrange then its inverse is the identity (all permutations of 4 axes, grouped)",
          "[expr][rearrange][property]") {
    STATIC_REQUIRE(forward_pattern(0).view() == "a b c d -> a b c d");
    STATIC_REQUIRE(forward_pattern(23 + 24 * 5).view() == "a b c d -> (d c) (b a)");
    tensor<int, "", 2, 3, 4, 5> x;
    iota(x);
    std::mt19937 random(20261121);
    std::uniform_int_distribution<std::size_t> length(1, 6);
    // permutation I with grouping (5 I) mod 8: every grouping occurs three times
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (round_trip<I + 24 * (5 * I % 8)>(x, len<"a", 2>, len<"b", 3>, len<"c", 4>, len<"d", 5>), ...);
        (
            [&] {
                const std::size_t a = length(random), b = length(random), c = length(random),
                                  d = length(random);
                tensor<int, "", dyn, dyn, dyn, dyn> y(a, b, c, d);
                iota(y);
                round_trip<I + 24 * (5 * I % 8)>(y, len<"a">(a), len<"b">(b), len<"c">(c), len<"d">(d));
            }(),
            ...);
    }
    (std::make_index_sequence<24>{});
}
