// reduce, repeat, einsum, pack, unpack and parse_shape beyond the einops parity cases: named
// tensors, dynamic extents, views and what their types say.
#include <ctein/ctein.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <type_traits>

namespace {
template <class Tensor>
void iota(Tensor& t, float start = 0.0f) {
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = start + static_cast<float>(i);
}
} // namespace

TEST_CASE("reduce names its result by the right side and keeps static extents") {
    ctein::tensor<float, "b h s d", 2, 3, 4, 5> x;
    iota(x);
    const auto m = ctein::reduce<"b h s d -> b s d", "mean">(x);
    static_assert(std::is_same_v<decltype(m), const ctein::tensor<float, "b s d", 2, 4, 5>>);
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t s = 0; s < 4; ++s)
            for (std::size_t d = 0; d < 5; ++d) {
                float sum = 0;
                for (std::size_t h = 0; h < 3; ++h) sum += x(b, h, s, d);
                CHECK(m(b, s, d) == Approx(sum / 3).epsilon(1e-6));
            }
    const auto top = ctein::reduce<"b h s d -> (d b) 1", "max">(x);
    static_assert(std::is_same_v<decltype(top), const ctein::tensor<float, "(d b) 1", 10, 1>>);
    CHECK(top(9, 0) == x(1, 2, 3, 4));
}

TEST_CASE("reduce reads grouped views and temporaries, and checks dynamic extents at run time") {
    ctein::tensor<float, "b h s d", 1, 2, 3, 4> x;
    iota(x);
    const auto merged = ctein::rearrange<"b h s d -> b s (h d)">(x); // grouped: h and d are apart
    const auto sums = ctein::reduce<"b s (h d) -> b (h d)", "sum">(merged, ctein::len<"h", 2>);
    CHECK(sums(0, 5) == x(0, 1, 0, 1) + x(0, 1, 1, 1) + x(0, 1, 2, 1));
    const auto total = ctein::reduce<"a b -> ", "sum">(ctein::tensor<float, "", 2, 2>{});
    CHECK(total() == 0.0f);

    std::vector<float> data(12, 1.0f);
    const auto v = ctein::adapt<"", ctein::dyn, ctein::dyn>(data.data(), 2, 6);
    CHECK(ctein::reduce<"a (b 3) -> a b", "sum">(v)(1, 1) == 3.0f);
    CHECK_THROWS_AS((ctein::reduce<"a (b 4) -> a b", "sum">(v)), ctein::shape_error);
    CHECK_THROWS_WITH((ctein::reduce<"a (b 4) -> a b", "sum">(v)),
                      Catch::StartsWith("Shape mismatch, can't divide axis of length 6 in chunks of 4") &&
                          Catch::Contains("sum-reduction pattern"));
}

TEST_CASE("reduce any and all on booleans, prod and min on integers") {
    ctein::tensor<bool, "", 2, 3> flags;
    flags(0, 1) = true;
    CHECK(ctein::reduce<"a b -> a", "any">(flags)(0));
    CHECK_FALSE(ctein::reduce<"a b -> a", "any">(flags)(1));
    CHECK_FALSE(ctein::reduce<"a b -> b", "all">(flags)(1));
    ctein::tensor<int, "", 2, 3> n;
    std::iota(n.data(), n.data() + n.size(), 1);
    CHECK(ctein::reduce<"a b -> a", "prod">(n)(1) == 4 * 5 * 6);
    CHECK(ctein::reduce<"a b -> b", "min">(n)(2) == 3);
}

TEST_CASE("repeat is a view with stride 0 along new axes, which eval materialises") {
    ctein::tensor<float, "b g s d", 1, 2, 3, 4> k;
    iota(k);
    auto kk = ctein::repeat<"b g s d -> b (g r) s d">(k, ctein::len<"r", 3>);
    static_assert(std::is_same_v<decltype(kk)::extents_type, ctein::extents<1, 6, 3, 4>>);
    const auto kv = ctein::eval(kk);
    for (std::size_t h = 0; h < 6; ++h)
        CHECK(kv(0, h, 2, 1) == k(0, h / 3, 2, 1)); // (g r): interleaved heads
    const auto tiled = ctein::eval(ctein::repeat<"b g s d -> b (r g) s d">(k, ctein::len<"r", 3>));
    for (std::size_t h = 0; h < 6; ++h) CHECK(tiled(0, h, 2, 1) == k(0, h % 2, 2, 1));
    const auto fresh = ctein::repeat<"b g s d -> b g s d c">(k, ctein::len<"c", 2>);
    CHECK(fresh.stride(4) == 0);
    k(0, 1, 2, 3) = 100.0f; // a view: writes to the input show through every copy
    CHECK(fresh(0, 1, 2, 3, 1) == 100.0f);
}

TEST_CASE("repeat with a run-time number of copies") {
    ctein::tensor<float, "i j", 2, 2> mask;
    iota(mask);
    const auto heads = ctein::eval(ctein::repeat<"i j -> h i j">(mask, ctein::len<"h">(5)));
    CHECK(heads.extent(0) == 5);
    CHECK(heads(4, 1, 0) == 2.0f);
}

TEST_CASE("einsum: projections in PyTorch's weight layout, QK^T, diagonals and broadcasting") {
    ctein::tensor<float, "b s c", 2, 3, 4> x;
    ctein::tensor<float, "o c", 5, 4> w;
    iota(x);
    iota(w, -3.0f);
    const auto y = ctein::eval(ctein::einsum<"b s c, o c -> b s o">(x, w)); // einsum itself is lazy
    static_assert(std::is_same_v<decltype(y), const ctein::tensor<float, "b s o", 2, 3, 5>>);
    float expected = 0;
    for (std::size_t c = 0; c < 4; ++c) expected += x(1, 2, c) * w(3, c);
    CHECK(y(1, 2, 3) == expected);

    ctein::tensor<float, "", 3, 3> s;
    iota(s);
    CHECK(ctein::einsum<"i i ->">(s)() == 0 + 4 + 8);
    ctein::tensor<float, "", 1, 2> row;
    iota(row, 1.0f);
    ctein::tensor<float, "", 3, 2> rows;
    iota(rows);
    const auto broadcast = ctein::einsum<"... j, ... j -> ... j">(row, rows); // a length 1 broadcasts
    CHECK(broadcast(2, 1) == 2.0f * rows(2, 1));
}

TEST_CASE("einsum checks dynamic extents at run time with the compile-time message") {
    std::vector<float> a(6), b(8);
    const auto va = ctein::adapt<"", ctein::dyn, ctein::dyn>(a.data(), 2, 3);
    const auto vb = ctein::adapt<"", ctein::dyn, ctein::dyn>(b.data(), 4, 2);
    CHECK_THROWS_WITH((ctein::einsum<"i j, j k -> i k">(va, vb)),
                      Catch::StartsWith("Shape mismatch in einsum for axis j: 3 != 4"));
}

TEST_CASE("pack and unpack: class token and patches, round trip") {
    ctein::tensor<float, "b c", 2, 4> cls;
    ctein::tensor<float, "b h w c", 2, 2, 3, 4> patches;
    iota(cls);
    iota(patches, 100.0f);
    auto [tokens, shapes] = ctein::pack<"b * c">(cls, patches);
    static_assert(std::is_same_v<decltype(tokens), ctein::tensor<float, "b _ c", 2, 7, 4>>);
    static_assert(
        std::is_same_v<decltype(shapes), ctein::packed_shapes<ctein::extents<>, ctein::extents<2, 3>>>);
    CHECK(tokens(1, 0, 2) == cls(1, 2));
    CHECK(tokens(1, 5, 3) == patches(1, 1, 1, 3));
    auto [cls2, patches2] = ctein::unpack<"b * c">(tokens, shapes);
    static_assert(std::is_same_v<decltype(patches2)::extents_type, ctein::extents<2, 2, 3, 4>>);
    CHECK(decltype(patches2)::names == ctein::fixed_string("b _ _ c"));
    CHECK(cls2(1, 2) == cls(1, 2));
    CHECK(patches2(1, 1, 2, 3) == patches(1, 1, 2, 3));
    patches2(0, 0, 0, 0) = -1.0f; // views of the packed tensor
    CHECK(tokens(0, 1, 0) == -1.0f);
}

TEST_CASE("unpack infers a length given as dyn (einops' -1) and refuses shapes that do not fit") {
    ctein::tensor<float, "", 2, 12> packed;
    iota(packed);
    const ctein::packed_shapes qkv{ctein::extents<4>{}, ctein::dims<1>(ctein::dyn), ctein::extents<4>{}};
    auto [q, k, v] = ctein::unpack<"b *">(packed, qkv);
    CHECK(k.extent(1) == 4);
    CHECK(k(1, 0) == packed(1, 4));
    CHECK(v(1, 3) == packed(1, 11));
    const ctein::packed_shapes two_unknown{ctein::dims<1>(ctein::dyn), ctein::dims<1>(ctein::dyn)};
    CHECK_THROWS_WITH((ctein::unpack<"b *">(packed, two_unknown)),
                      Catch::StartsWith("unpack(..., b *) received more than one -1 in [[-1], [-1]]"));
    const ctein::packed_shapes too_long{ctein::dims<1>(5), ctein::dims<1>(8)};
    CHECK_THROWS_AS((ctein::unpack<"b *">(packed, too_long)), ctein::shape_error);
}

TEST_CASE("parse_shape gives named lengths, static where the extents are, usable as lengths") {
    ctein::tensor<float, "", 2, 3, 4, 5> x;
    const auto s = ctein::parse_shape<"b _ h w">(x);
    static_assert(s.get<"h">() == 4);
    static_assert(std::is_same_v<decltype(s)::extents_type, ctein::extents<2, 4, 5>>);
    CHECK(s["w"] == 5);
    CHECK_THROWS_AS(s["c"], std::out_of_range);
    const auto y =
        std::apply([&](auto... l) { return ctein::rearrange<"b c h w -> b (c h w)">(x, l...); }, s.lengths());
    CHECK(y.extent(1) == 60);

    std::vector<float> data(6);
    const auto v = ctein::adapt<"", ctein::dyn, ctein::dyn>(data.data(), 2, 3);
    CHECK(ctein::parse_shape<"a b">(v).get<"b">() == 3);
    CHECK_THROWS_WITH((ctein::parse_shape<"a 2">(v)),
                      Catch::StartsWith("Length of anonymous axis does not match: a 2 (2, 3)"));
}
