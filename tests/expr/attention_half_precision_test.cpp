// ctein::attention on ctein::bfloat16 and ctein::float16 tensors and views: the kernel reads them
// widened to float, so the result is exactly that of float tensors holding the same values; except
// the decode over bfloat16 keys and values, which reads them in split chunks and so adds its
// products in another order (float rounding: 1e-6 of the largest output), and
// where bfloat16 queries, keys and values run on AVX512-BF16's dot products or AMX tiles: q·kᵀ
// sums exact products (float rounding: 1e-6 of the largest output) and P·V rounds the weights to
// bfloat16 (each moves by at most 2^-8 of itself, so an output by at most 2^-8 of the largest
// |value|).
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // compiled in tests/support/*instances.cpp

#include "../support/deterministic_fill.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace {
using ctein::testing::deterministic_fill;

/// A tensor of floats holding the values of `x`, [2, 4, 33, 64] of 16-bit floats.
template <class T>
auto widened(const T& x) {
    ctein::tensor<float, "b h s d", 2, 4, 33, 64> out;
    for (std::size_t i = 0; i < x.size(); ++i) out.data()[i] = x.data()[i];
    return out;
}

template <class A, class B>
bool same_bits(const A& a, const B& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// The largest |element| of x.
template <class T>
float largest(const T& x) {
    float top = 0.0f;
    for (std::size_t i = 0; i < x.size(); ++i) top = std::max(top, std::abs(static_cast<float>(x.data()[i])));
    return top;
}

/// Equal up to float rounding and the rounding of the weights to bfloat16 of values as large as
/// `values` (see above): |a - b| <= 1e-6 * max|b| + 2^-8 * values everywhere.
template <class A, class B>
bool within_rounding(const A& a, const B& b, float values) {
    float worst = 0.0f;
    for (std::size_t i = 0; i < b.size(); ++i) worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]));
    return a.size() == b.size() && worst <= 1e-6f * largest(b) + std::ldexp(values, -8);
}

template <class H>
void check_element_type() {
    ctein::tensor<H, "b h s d", 2, 4, 33, 64> q, k, v;
    deterministic_fill(q, 1);
    deterministic_fill(k, 2);
    deterministic_fill(v, 3);
    for (std::size_t i = 0; i < q.size(); ++i) q.data()[i] = H(q.data()[i] * 1.7f); // rounded
    const auto qf = widened(q), kf = widened(k), vf = widened(v);

    const auto out = ctein::attention(q, k, v, ctein::causal);
    STATIC_REQUIRE(std::is_same_v<typename std::remove_const_t<decltype(out)>::value_type, float>);
    const auto expected = ctein::attention(qf, kf, vf, ctein::causal);
    ctein::kernels::attention_problem bf16_operands;
    bf16_operands.q_type = bf16_operands.kv_type = ctein::kernels::element_type::bf16;
    if (std::is_same_v<H, ctein::bfloat16> &&
        ctein::kernels::attention_detail::bf16_dot_products(bf16_operands))
        CHECK(within_rounding(out, expected, largest(v))); // q·kᵀ and P·V by vdpbf16ps or AMX
    else
        CHECK(same_bits(out, expected));
    // float queries over 16-bit keys and values (a 16-bit KV cache); grouped-query heads
    const auto k2 = ctein::slice<"h">(k, 0, 2), v2 = ctein::slice<"h">(v, 0, 2);
    CHECK(
        same_bits(ctein::attention(qf, k2, v2), ctein::attention(qf, ctein::eval(ctein::slice<"h">(kf, 0, 2)),
                                                                 ctein::eval(ctein::slice<"h">(vf, 0, 2)))));
    // a decode step (one query), read by the decode path: bfloat16 split (no weights rounded)
    const auto q1 = ctein::slice<"s">(q, 32, 33);
    const auto decoded = ctein::attention(q1, k, v);
    const auto decoded_floats = ctein::attention(ctein::eval(ctein::slice<"s">(qf, 32, 33)), kf, vf);
    if (std::is_same_v<H, ctein::bfloat16>)
        CHECK(within_rounding(decoded, decoded_floats, 0.0f));
    else
        CHECK(same_bits(decoded, decoded_floats));
    // heads split by a rearrange view of [B, S, H·D], read in place
    ctein::tensor<H, "b s e", 2, 33, 256> x;
    deterministic_fill(x, 4);
    ctein::tensor<float, "b s e", 2, 33, 256> xf;
    for (std::size_t i = 0; i < x.size(); ++i) xf.data()[i] = x.data()[i];
    const auto heads = [](const auto& t) {
        return ctein::rearrange<"b s (h d) -> b h s d">(t, ctein::len<"h", 4>);
    };
    CHECK(within_rounding(ctein::attention(heads(x), heads(x), heads(x)),
                          ctein::attention(heads(xf), heads(xf), heads(xf)), largest(x)));
    // keys transposed in memory: copied (as floats) before the kernel reads them, so the same bits
    // as float operands
    const auto kt = ctein::eval(ctein::rearrange<"b h s d -> b h d s">(k)); // stored [B, H, D, S]
    CHECK(same_bits(ctein::attention(q, ctein::rearrange<"b h d s -> b h s d">(kt), v),
                    ctein::attention(qf, kf, vf)));
}
} // namespace

TEST_CASE("attention on bfloat16 tensors is attention on floats of the same values", "[attention][half]") {
    check_element_type<ctein::bfloat16>();
}

TEST_CASE("attention on float16 tensors is attention on floats of the same values", "[attention][half]") {
    check_element_type<ctein::float16>();
}
