// nn/ (linear.hpp, rotary.hpp, kv_cache.hpp, attention_block.hpp): nn.Linear against a naive loop;
// the block against the same computation written step by step; a GQA + RoPE block's prefill and
// token-by-token decode through its KV cache against one causal pass over every token; the cache's
// checks and seed 002's size formula.
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // compiled in tests/support/*instances.cpp
#include <ctein/nn.hpp>

#include "../support/deterministic_fill.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace {
using ctein::dyn;
using ctein::testing::deterministic_fill;

/// Fills every projection of a block with small values (|w| < 0.2, so the outputs stay near 1).
template <class Block>
void fill_weights(Block& block) {
    unsigned salt = 100;
    const auto fill = [&](auto& layer) {
        deterministic_fill(layer.weight(), salt++);
        for (std::size_t i = 0; i < layer.weight().size(); ++i) layer.weight().data()[i] *= 0.2f;
        if constexpr (std::remove_reference_t<decltype(layer)>::has_bias)
            deterministic_fill(layer.bias(), salt++);
    };
    fill(block.q_proj);
    fill(block.k_proj);
    fill(block.v_proj);
    fill(block.o_proj);
}

template <class A, class B>
float largest_difference(const A& a, const B& b) {
    float worst = 0.0f;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]));
    return worst;
}

/// A GQA + RoPE block (6 query heads over 2 key/value heads) with weights, an input of T tokens,
/// and its output in one causal pass: what decoding through any cache must give back.
struct decode_case {
    static constexpr std::size_t E = 48, H = 6, Hkv = 2, T = 13;
    ctein::nn::attention_block<E, H, Hkv, false, true> block{64};
    ctein::tensor<float, "b s e", 2, T, E> x, full;

    explicit decode_case(unsigned salt) {
        fill_weights(block);
        deterministic_fill(x, salt);
        full = block(x, ctein::causal);
    }

    /// The largest difference from `full` of the first `prompt` tokens prefilled through
    /// `cache`, then of every later token decoded alone; `after_prefill()` runs in between.
    template <class Cache, class AfterPrefill>
    float decode_difference(Cache& cache, std::size_t prompt, AfterPrefill&& after_prefill) {
        float worst = largest_difference(block(ctein::slice<"s">(x, 0, prompt), cache),
                                         ctein::eval(ctein::slice<"s">(full, 0, prompt)));
        after_prefill();
        for (std::size_t t = prompt; t < T; ++t) {
            const auto step = block(ctein::slice<"s">(x, t, t + 1), cache);
            REQUIRE(step.extent(1) == 1);
            worst = std::max(worst, largest_difference(step, ctein::eval(ctein::slice<"s">(full, t, t + 1))));
        }
        return worst;
    }
};
} // namespace

TEST_CASE("linear is x Wᵀ + b with PyTorch's [out, in] weight", "[nn]") {
    ctein::nn::linear<12, 5> layer;
    deterministic_fill(layer.weight(), 1);
    deterministic_fill(layer.bias(), 2);
    ctein::tensor<float, "b s e", 2, dyn, 12> x(3);
    deterministic_fill(x, 3);
    const auto y = layer(x);
    static_assert(std::is_same_v<std::remove_const_t<decltype(y)>, ctein::tensor<float, "b s o", 2, dyn, 5>>);
    REQUIRE(y.extent(1) == 3);
    std::size_t differ = 0;
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t s = 0; s < 3; ++s)
            for (std::size_t o = 0; o < 5; ++o) {
                float expected = layer.bias()(o);
                for (std::size_t i = 0; i < 12; ++i) expected += x(b, s, i) * layer.weight()(o, i);
                differ += std::abs(y(b, s, o) - expected) > 1e-5f;
            }
    CHECK(differ == 0);
    ctein::nn::linear<12, 5, false, "f"> plain(layer.weight());
    const auto z = plain(x);
    static_assert(decltype(z)::names == ctein::fixed_string("b s f"));
    CHECK(std::abs(z(1, 2, 4) + layer.bias()(4) - y(1, 2, 4)) < 1e-5f);
    ctein::tensor<float, "b s e", 2, 3, dyn> wide(13); // a dynamic feature count is checked at run time
    CHECK_THROWS_AS(layer(wide), ctein::shape_error);
}

TEST_CASE("a weight assigned from a tensor of dynamic lengths: checked when it runs", "[nn]") {
    ctein::nn::linear<4, 3> layer;
    ctein::tensor<float, "o i", dyn, dyn> loaded(3, 4);
    deterministic_fill(loaded, 11);
    layer.weight() = loaded; // [dyn, dyn] into [3, 4]: lengths compared at run time
    CHECK(layer.weight()(2, 3) == loaded(2, 3));
    CHECK(layer.weight()(1, 0) == loaded(1, 0));
    const ctein::tensor<float, "o i", dyn, dyn> transposed(4, 3);
    CHECK_THROWS_WITH(
        layer.weight() = transposed,
        Catch::StartsWith("Shape mismatch in assignment, dimension 0: a length of 4 given to one of 3"));
    ctein::tensor<float, "", 3, 4> unnamed;
    unnamed(0, 0) = 5.0f;
    layer.weight() = unnamed; // no names: the lengths alone are compared
    CHECK(layer.weight()(0, 0) == 5.0f);
}

TEST_CASE("the block is its forward written step by step, self and cross", "[nn]") {
    constexpr std::size_t E = 32, H = 4;
    ctein::nn::attention_block<E, H> block;
    fill_weights(block);
    ctein::tensor<float, "b s e", 2, 7, E> x;
    ctein::tensor<float, "b s e", 2, 11, E> memory;
    deterministic_fill(x, 4);
    deterministic_fill(memory, 5);

    const auto by_steps = [&](const auto& queries, const auto& context, const auto&... options) {
        const auto q = ctein::eval(block.q_proj(queries));
        const auto k = ctein::eval(block.k_proj(context));
        const auto v = ctein::eval(block.v_proj(context));
        const auto o =
            ctein::attention(ctein::rearrange<"b s (h d) -> b h s d">(q, ctein::len<"h", H>),
                             ctein::rearrange<"b s (h d) -> b h s d">(k, ctein::len<"h", H>),
                             ctein::rearrange<"b s (h d) -> b h s d">(v, ctein::len<"h", H>), options...);
        return block.o_proj(ctein::rearrange<"b h s d -> b s (h d)">(o));
    };
    const auto self = block(x, ctein::causal);
    static_assert(
        std::is_same_v<std::remove_const_t<decltype(self)>, ctein::tensor<float, "b s e", 2, 7, E>>);
    CHECK(largest_difference(self, by_steps(x, x, ctein::causal)) == 0.0f);
    const auto cross = block.cross(x, memory);
    static_assert(
        std::is_same_v<std::remove_const_t<decltype(cross)>, ctein::tensor<float, "b s e", 2, 7, E>>);
    CHECK(largest_difference(cross, by_steps(x, memory)) == 0.0f);
}

TEST_CASE("GQA + RoPE: prefill then token-by-token decode through the cache equals one causal pass", "[nn]") {
    decode_case c(6);
    decltype(c.block)::cache_type cache(2, 32);
    const float worst = c.decode_difference(cache, 5, [] {});
    CHECK(cache.length() == decode_case::T);
    CHECK(worst <= 1e-5f);
}

TEST_CASE("the KV cache: views of its tokens, its capacity enforced, seed 002's size formula", "[nn]") {
    ctein::nn::kv_cache<2, 4, 6> cache(1);
    ctein::tensor<float, "b h s d", 1, 2, 4, 4> k, v;
    deterministic_fill(k, 7);
    deterministic_fill(v, 8);
    cache.append(k, v);
    REQUIRE(cache.length() == 4);
    const auto keys = cache.keys();
    CHECK(keys.extent(2) == 4);
    CHECK(keys(0, 1, 3, 2) == k(0, 1, 3, 2));
    CHECK(cache.values()(0, 0, 2, 1) == v(0, 0, 2, 1));
    CHECK_THROWS_WITH(cache.append(k, v),
                      Catch::StartsWith("KV cache of capacity 6 cannot take 4 more tokens after 4"));
    CHECK(cache.length() == 4); // nothing written
    cache.append(ctein::slice<"s">(k, 0, 2), ctein::slice<"s">(v, 0, 2));
    CHECK(cache.length() == 6);
    CHECK(cache.keys()(0, 1, 5, 3) == k(0, 1, 1, 3));
    cache.truncate(3);
    CHECK(cache.keys().extent(2) == 3);
    CHECK_THROWS_AS(cache.truncate(4), ctein::shape_error);
    cache.clear();
    CHECK(cache.keys().extent(2) == 0);
    STATIC_REQUIRE(ctein::nn::kv_cache_bytes(24, 1, 2048, 32, 128, 2) == 805306368); // seed 002: 805 MB
}

TEST_CASE("a fused grouped-query block: one [(H + 2 Hkv) D, E] weight, the separate block's rows stacked",
          "[nn]") {
    constexpr std::size_t E = 48, H = 6, Hkv = 2, D = E / H, T = 7;
    ctein::nn::attention_block<E, H, Hkv> separate;
    fill_weights(separate);
    ctein::nn::fused_attention_block<E, H, Hkv> fused;
    static_assert(std::is_same_v<decltype(fused.qkv_proj), ctein::nn::linear<E, (H + 2 * Hkv) * D>>);
    // rows: q's H·D, then k's Hkv·D, then v's Hkv·D
    const auto stack = [&](const auto& layer, std::size_t first_row) {
        for (std::size_t o = 0; o < layer.weight().extent(0); ++o) {
            for (std::size_t i = 0; i < E; ++i)
                fused.qkv_proj.weight()(first_row + o, i) = layer.weight()(o, i);
            fused.qkv_proj.bias()(first_row + o) = layer.bias()(o);
        }
    };
    stack(separate.q_proj, 0);
    stack(separate.k_proj, H * D);
    stack(separate.v_proj, (H + Hkv) * D);
    fused.o_proj = separate.o_proj;

    ctein::tensor<float, "b s e", 2, T, E> x;
    deterministic_fill(x, 12);
    const auto expected = separate(x, ctein::causal);
    const auto out = fused(x, ctein::causal);
    CHECK(largest_difference(out, expected) <= 1e-5f);
    CHECK(largest_difference(expected, ctein::tensor<float, "b s e", 2, T, E>{}) > 1e-2f); // not all zeros
}

TEST_CASE("a growing KV cache moves to twice its capacity and keeps every token", "[nn]") {
    decode_case c(9);
    ctein::nn::growing_kv_cache<decode_case::Hkv, decode_case::E / decode_case::H> cache(
        2, 1); // room for one token
    const float worst = c.decode_difference(cache, 3, [&] {
        CHECK(cache.capacity() == 3); // what the 3 tokens needed (more than twice 1)
    });
    CHECK(cache.length() == decode_case::T);
    CHECK(cache.capacity() == 24); // 3, 6, 12, 24
    CHECK(worst <= 1e-5f);

    // the tokens moved with it: each step's keys are the ones a cache of fixed capacity holds
    decltype(c.block)::cache_type fixed(2, decode_case::T);
    static_cast<void>(c.block(c.x, fixed));
    CHECK(largest_difference(ctein::eval(cache.keys()), ctein::eval(fixed.keys())) == 0.0f);
    CHECK(largest_difference(ctein::eval(cache.values()), ctein::eval(fixed.values())) == 0.0f);
}

TEST_CASE("rotary tables: LLaMA's frequencies, positions from an offset", "[nn]") {
    ctein::nn::rotary<8> rope(16, 500.0);
    CHECK(rope.cos()(0, 3) == 1.0f);
    CHECK(std::abs(rope.sin()(5, 1) - static_cast<float>(std::sin(5.0 / std::pow(500.0, 2.0 / 8)))) < 1e-6f);
    CHECK(rope.cos()(5, 1) == rope.cos()(5, 5)); // both halves share their frequencies
    ctein::tensor<float, "b h s d", 1, 1, 3, 8> q;
    deterministic_fill(q, 9);
    const auto at_4 = ctein::eval(rope.apply(q, 4));
    const auto x1 = q(0, 0, 2, 1), x2 = q(0, 0, 2, 5);
    CHECK(std::abs(at_4(0, 0, 2, 1) - (x1 * rope.cos()(6, 1) - x2 * rope.sin()(6, 1))) < 1e-6f);
    CHECK_THROWS_AS(rope.apply(q, 14), ctein::shape_error); // positions 14..16 past the tables
}

TEST_CASE("rotary at position ids: each batch at its own positions (a left-padded batch)", "[nn]") {
    ctein::nn::rotary<8> rope(16);
    ctein::tensor<float, "b h s d", 2, 3, 4, 8> x;
    deterministic_fill(x, 20);
    ctein::tensor<std::int64_t, "b s", 2, 4> ids;
    for (std::int64_t s = 0; s < 4; ++s) {
        ids(0, s) = s;     // 0, 1, 2, 3
        ids(1, s) = 5 + s; // 5, 6, 7, 8: as if after 5 earlier tokens
    }
    const auto rotated = rope.rotated(x, ids);
    static_assert(
        std::is_same_v<std::remove_const_t<decltype(rotated)>, ctein::tensor<float, "b h s d", 2, 3, 4, 8>>);
    const std::size_t starts[2] = {0, 5};
    for (std::size_t b = 0; b < 2; ++b) {
        const auto one = ctein::slice<"b">(x, b, b + 1);
        const auto expected = ctein::eval(rope.apply(one, starts[b]));
        CHECK(largest_difference(ctein::eval(ctein::slice<"b">(rotated, b, b + 1)), expected) == 0.0f);
    }
    ids(1, 3) = 16; // past the tables
    CHECK_THROWS_WITH(rope.rotated(x, ids),
                      Catch::StartsWith("Index 16 is out of range for axis s of length 16"));
}

TEST_CASE("a bfloat16 or float16 KV cache holds the tokens rounded, in half the bytes", "[nn][half]") {
    constexpr std::size_t Hkv = 2, D = 64;
    ctein::tensor<float, "b h s d", 2, Hkv, 5, D> k, v;
    deterministic_fill(k, 31);
    deterministic_fill(v, 32);
    for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] *= 1.0f + 1.0f / 3.0f; // not exact in 16 bits
    const auto check = [&](auto cache) {
        using element = typename decltype(cache)::element_type;
        STATIC_REQUIRE(sizeof(element) == 2);
        cache.append(ctein::slice<"s">(k, 0, 2), ctein::slice<"s">(v, 0, 2));
        cache.append(ctein::slice<"s">(k, 2, 5), ctein::slice<"s">(v, 2, 5));
        REQUIRE(cache.length() == 5);
        std::size_t wrong = 0;
        for (std::size_t b = 0; b < 2; ++b)
            for (std::size_t h = 0; h < Hkv; ++h)
                for (std::size_t s = 0; s < 5; ++s)
                    for (std::size_t d = 0; d < D; ++d) {
                        wrong += cache.keys()(b, h, s, d).bits != element(k(b, h, s, d)).bits;
                        wrong += cache.values()(b, h, s, d).bits != element(v(b, h, s, d)).bits;
                    }
        CHECK(wrong == 0);
        // attention over the cache is attention over float tensors of the same rounded values: the
        // same bits for float16; for bfloat16 up to float rounding (its decode reads split chunks,
        // adding its products in another order), outputs below 1
        ctein::tensor<float, "b h q d", 2, 4, 1, D> q;
        deterministic_fill(q, 33);
        const auto widened = [&](const auto& x) {
            ctein::tensor<float, "b h s d", 2, Hkv, 5, D> out;
            for (std::size_t i = 0; i < out.size(); ++i) out.data()[i] = ctein::eval(x).data()[i];
            return out;
        };
        const auto expected = ctein::attention(q, widened(cache.keys()), widened(cache.values()));
        const float rounding = std::is_same_v<element, ctein::bfloat16> ? 1e-6f : 0.0f;
        CHECK(largest_difference(ctein::attention(q, cache.keys(), cache.values()), expected) <= rounding);
    };
    check(ctein::nn::kv_cache_of<ctein::bfloat16, Hkv, D, 8>(2));
    check(ctein::nn::kv_cache_of<ctein::float16, Hkv, D>(2, 8));
    STATIC_REQUIRE(sizeof(decltype(std::declval<ctein::nn::kv_cache_of<ctein::bfloat16, Hkv, D, 8>>()
                                       .keys())::value_type) == 2);
}

TEST_CASE("GQA + RoPE decode through a bfloat16 cache: the float cache's result within bfloat16's rounding",
          "[nn][half]") {
    decode_case c(6);
    ctein::nn::kv_cache_of<ctein::bfloat16, decode_case::Hkv, decode_case::E / decode_case::H> cache(2, 32);
    const float worst = c.decode_difference(cache, 5, [] {});
    CHECK(cache.length() == decode_case::T);
    CHECK(worst <=
          1e-2f); // keys and values rounded to 8 bits of mantissa (relative 2^-8 at most), outputs near 1
    CHECK(worst > 1e-5f); // and the rounding is there: the cache does hold bfloat16
}
