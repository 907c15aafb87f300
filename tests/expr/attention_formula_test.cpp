// The attention formula as the seeds write it — softmax(einsum(q, k) * scale + mask), then einsum
// with v — is recognised and runs the kernel ctein::attention runs: bitwise-equal results. Also
// the lazy einsum it builds on, and the weights read on their own.
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // compiled in tests/support/*instances.cpp

#include "../support/deterministic_fill.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <type_traits>

namespace {

using ctein::testing::deterministic_fill;

template <class A, class B>
bool bitwise_equal(const A& a, const B& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a.data()[i] != b.data()[i]) return false;
    return true;
}

constexpr std::size_t B = 2, H = 4, T = 33, D = 64;

} // namespace

TEST_CASE("the formula and ctein::attention give bitwise-equal results", "[attention][formula]") {
    ctein::tensor<float, "b h s d", B, H, T, D> q, k, v;
    deterministic_fill(q, 1);
    deterministic_fill(k, 2);
    deterministic_fill(v, 3);
    const float scale = 1.0f / std::sqrt(float(D));

    SECTION("no mask") {
        const auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(
            ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * scale), v);
        // named like q, as ctein::attention names it
        static_assert(std::is_same_v<decltype(o), const ctein::tensor<float, "b h s d", B, H, T, D>>);
        CHECK(bitwise_equal(o, ctein::attention(q, k, v, ctein::scale(scale))));
    }
    SECTION("causal, divided by sqrt(d) as the seeds write it") {
        const auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(
            ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) / std::sqrt(float(D)) +
                                ctein::causal),
            v);
        CHECK(bitwise_equal(
            o, ctein::attention(q, k, v, ctein::causal, ctein::scale(1.0f / std::sqrt(float(D))))));
    }
    SECTION("a key-padding mask tensor and key lengths, other axis names") {
        ctein::tensor<bool, "b k", B, T> keep;
        for (std::size_t j = 0; j < T; ++j) keep(0, j) = keep(1, j) = j % 3 != 1;
        // the scores are named by their einsum, so the mask names their axes that way
        const auto weights = ctein::softmax<"key">(
            scale * ctein::einsum<"batch head query dim, batch head key dim -> batch head query key">(q, k) +
            ctein::mask(ctein::named<"batch key">(keep)) + ctein::key_padding({T, 20}));
        static_assert(std::is_same_v<decltype(ctein::eval(weights)),
                                     ctein::tensor<float, "batch head query key", B, H, T, T>>);
        const auto o =
            ctein::einsum<"batch head query key, batch head key dim -> batch head query dim">(weights, v);
        static_assert(std::is_same_v<decltype(o), const ctein::tensor<float, "b h s d", B, H, T, D>>);
        CHECK(bitwise_equal(o, ctein::attention(q, k, v, ctein::scale(scale), ctein::mask(keep),
                                                ctein::key_padding({T, 20}))));
        // the weights read on their own are attention's weights
        const auto [out, w] = ctein::attention(q, k, v, ctein::scale(scale), ctein::mask(keep),
                                               ctein::key_padding({T, 20}), ctein::with_weights);
        CHECK(bitwise_equal(ctein::eval(weights), w));
        CHECK(weights(1, 2, 3, 1) == 0.0f);
    }
}

TEST_CASE("dropout in the formula draws what ctein::attention's dropout draws", "[attention][formula]") {
    ctein::tensor<float, "b h s d", B, H, T, D> q, k, v;
    deterministic_fill(q, 1);
    deterministic_fill(k, 2);
    deterministic_fill(v, 3);
    const auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * 0.125f + ctein::causal;
    const auto weights = ctein::dropout(ctein::softmax<"k">(scores), 0.25f, 7);
    const auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(weights, v);
    const auto expected =
        ctein::attention(q, k, v, ctein::scale(0.125f), ctein::causal, ctein::dropout(0.25f, 7));
    CHECK(bitwise_equal(o, expected));
    CHECK_FALSE(bitwise_equal(o, ctein::attention(q, k, v, ctein::scale(0.125f), ctein::causal)));
    // the weights read on their own are the dropped ones, about a quarter of the keys each row sees
    const auto [out, w] = ctein::attention(q, k, v, ctein::scale(0.125f), ctein::causal,
                                           ctein::dropout(0.25f, 7), ctein::with_weights);
    CHECK(bitwise_equal(ctein::eval(weights), w));
    std::size_t dropped = 0, seen = 0;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t i = 0; i < T; ++i)
                for (std::size_t j = 0; j <= i; ++j, ++seen) dropped += w(b, h, i, j) == 0.0f;
    CHECK(double(dropped) / double(seen) == Approx(0.25).margin(0.03)); // 4488 draws: 4.6 sigma
    // a probability outside [0, 1) is refused when the weights are made
    CHECK_THROWS_AS(ctein::dropout(ctein::softmax<"k">(scores), 1.0f, 7), ctein::argument_error);
}

TEST_CASE("weights multiplied by another pattern are read as a tensor", "[attention][formula]") {
    ctein::tensor<float, "b h s d", 1, 2, 7, 32> q, k, v;
    deterministic_fill(q, 1);
    deterministic_fill(k, 2);
    deterministic_fill(v, 3);
    const auto weights = ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * 0.25f);
    const auto merged = ctein::einsum<"b h q k, b h k d -> b q h d">(weights, v); // not attention's layout
    const auto o = ctein::attention(q, k, v, ctein::scale(0.25f));
    for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t i = 0; i < 7; ++i)
            for (std::size_t d = 0; d < 32; ++d) // |v| < 1, so outputs are too: 1e-5 of their largest
                CHECK(merged(0, i, h, d) == Approx(o(0, h, i, d)).margin(1e-5));
}

TEST_CASE("einsum is lazy: computed when read, shapes checked when made", "[einsum][formula]") {
    ctein::tensor<float, "i j", 2, 3> a;
    ctein::tensor<float, "j k", 3, 2> b;
    a(0, 0) = 1;
    b(0, 1) = 2;
    const auto product = ctein::einsum<"i j, j k -> i k">(a, b);
    a(0, 0) = 3; // read below: the operands are borrowed until then
    CHECK(product(0, 1) == 6.0f);
    a(0, 0) = 5; // already computed
    CHECK(product(0, 1) == 6.0f);
    CHECK(ctein::eval(product)(0, 1) == 6.0f);
    // a temporary operand is computed at once, giving the tensor itself
    const auto now = ctein::einsum<"i j, j k -> i k">(ctein::eval(a), b);
    static_assert(std::is_same_v<decltype(now), const ctein::tensor<float, "i k", 2, 2>>);
    CHECK(now(0, 1) == 10.0f);

    std::vector<float> data(6);
    const auto dynamic = ctein::adapt<"", ctein::dyn, ctein::dyn>(data.data(), 3, 2);
    CHECK_THROWS_AS((ctein::einsum<"i j, j k -> i k">(a, ctein::rearrange<"x y -> y x">(dynamic))),
                    ctein::shape_error);
}

TEST_CASE("grouped-query attention as the seeds write it: k and v repeated per query head",
          "[attention][formula]") {
    constexpr std::size_t G = 2, R = 4; // 8 query heads, 2 key/value heads
    ctein::tensor<float, "b h s d", B, G * R, T, D> q;
    ctein::tensor<float, "b g s d", B, G, T, D> k, v;
    deterministic_fill(q, 1);
    deterministic_fill(k, 2);
    deterministic_fill(v, 3);
    const auto grouped = ctein::attention(q, k, v, ctein::causal);

    // the seeds' repeat_interleave, as views: the kernel reads each of the G heads once
    const auto kr = ctein::repeat<"b g s d -> b (g r) s d">(k, ctein::len<"r", R>);
    const auto vr = ctein::repeat<"b g s d -> b (g r) s d">(v, ctein::len<"r", R>);
    CHECK(ctein::detail::repeated_heads(kr) == R);
    const auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, kr) / std::sqrt(float(D));
    const auto o =
        ctein::einsum<"b h q k, b h k d -> b h q d">(ctein::softmax<"k">(scores + ctein::causal), vr);
    static_assert(std::is_same_v<decltype(o), const ctein::tensor<float, "b h s d", B, G * R, T, D>>);
    CHECK(bitwise_equal(o, grouped));
    CHECK(bitwise_equal(ctein::attention(q, kr, vr, ctein::causal), grouped));

    // their evaluated copies, and one of each
    const auto kc = ctein::eval(kr);
    const auto vc = ctein::eval(vr);
    const auto copied = ctein::einsum<"b h q k, b h k d -> b h q d">(
        ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, kc) / std::sqrt(float(D)) +
                            ctein::causal),
        vc);
    CHECK(bitwise_equal(copied, grouped));
    CHECK(bitwise_equal(ctein::attention(q, kr, vc, ctein::causal), grouped));

    // a repeat that tiles the heads ((r g): head h reads h % G) is not the kernel's grouping: copied
    const auto tiled_k = ctein::repeat<"b g s d -> b (r g) s d">(k, ctein::len<"r", R>);
    const auto tiled_v = ctein::repeat<"b g s d -> b (r g) s d">(v, ctein::len<"r", R>);
    CHECK(ctein::detail::repeated_heads(tiled_k) == 0);
    CHECK(bitwise_equal(ctein::attention(q, tiled_k, tiled_v, ctein::causal),
                        ctein::attention(q, ctein::eval(tiled_k), ctein::eval(tiled_v), ctein::causal)));
    CHECK_FALSE(bitwise_equal(ctein::attention(q, tiled_k, tiled_v, ctein::causal), grouped));
}
