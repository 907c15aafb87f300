// ctein::attention, the named entry point: options, mask forms and their broadcasts, grouped
// queries, strided and xtensor inputs, weights, and the shape checks made at run time. The kernel's
// numerics are tested against a naive loop in tests/kernels/attention_test.cpp and against PyTorch in
// tests/fixtures/; here every option is checked against an equivalent way of saying the same thing.
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // compiled in tests/support/*instances.cpp
#include <ctein/xtensor.hpp>

#include "../support/deterministic_fill.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace {

using ctein::testing::deterministic_fill;

/// |a - b| <= 1e-5 · max |b| element by element: the same kernel on equivalent inputs, summed in
/// another order at most.
template <class A, class B>
void check_close(const A& a, const B& b) {
    REQUIRE(a.size() == b.size());
    float largest = 0;
    for (std::size_t i = 0; i < b.size(); ++i) largest = std::max(largest, std::abs(b.data()[i]));
    for (std::size_t i = 0; i < b.size(); ++i)
        if (std::abs(a.data()[i] - b.data()[i]) > 1e-5f * largest)
            FAIL_CHECK("element " << i << ": " << a.data()[i] << " != " << b.data()[i]);
}

template <class A, class B>
bool bitwise_equal(const A& a, const B& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a.data()[i] != b.data()[i]) return false;
    return true;
}

constexpr std::size_t B = 2, H = 4, T = 9, D = 32;
using qkv_tensor = ctein::tensor<float, "b h s d", B, H, T, D>;

struct inputs {
    qkv_tensor q, k, v;
    inputs() {
        deterministic_fill(q, 1);
        deterministic_fill(k, 2);
        deterministic_fill(v, 3);
    }
};

} // namespace

TEST_CASE("attention returns a tensor named like the queries, with their static extents", "[attention]") {
    const inputs in;
    const auto o = ctein::attention(in.q, in.k, in.v);
    static_assert(std::is_same_v<decltype(o), const ctein::tensor<float, "b h s d", B, H, T, D>>);
    const auto unnamed = ctein::attention(ctein::named<"">(in.q), in.k, in.v);
    static_assert(std::is_same_v<decltype(unnamed), const ctein::tensor<float, "b h q d", B, H, T, D>>);
    // one query row by hand: softmax(q·kᵀ / sqrt(D))·v
    double m = -1e300, sum = 0, out0 = 0;
    double s[T];
    for (std::size_t j = 0; j < T; ++j) {
        double dot = 0;
        for (std::size_t d = 0; d < D; ++d) dot += double(in.q(1, 2, 3, d)) * in.k(1, 2, j, d);
        s[j] = dot / std::sqrt(double(D));
        m = std::max(m, s[j]);
    }
    for (std::size_t j = 0; j < T; ++j) sum += std::exp(s[j] - m);
    for (std::size_t j = 0; j < T; ++j) out0 += std::exp(s[j] - m) / sum * in.v(1, 2, j, 0);
    CHECK(o(1, 2, 3, 0) == Approx(out0).epsilon(1e-5));
}

TEST_CASE("every form of a key mask means the same", "[attention]") {
    const inputs in;
    const std::int64_t lengths[B] = {6, 3};
    const auto padded = ctein::attention(in.q, in.k, in.v, ctein::key_padding(lengths));

    ctein::tensor<bool, "b k", B, T> keep;            // [B, Tk], true = keep
    ctein::tensor<bool, "b k", B, T> ignore;          // true = left out
    ctein::tensor<float, "b k", B, T> additive;       // 0 or -inf
    ctein::tensor<bool, "b 1 k", B, 1, T> keep3;      // [B, 1, Tk]
    ctein::tensor<bool, "b q k", B, T, T> keep_rows;  // [B, Tq, Tk]
    ctein::tensor<bool, "b 1 q k", B, 1, T, T> keep4; // [B, 1, Tq, Tk]
    ctein::tensor<bool, "b h q k", B, H, T, T> full;  // [B, H, Tq, Tk]
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < T; ++j) {
            const bool kept = static_cast<std::int64_t>(j) < lengths[b];
            keep(b, j) = kept;
            ignore(b, j) = !kept;
            additive(b, j) = kept ? 0.0f : -std::numeric_limits<float>::infinity();
            keep3(b, 0, j) = kept;
            for (std::size_t i = 0; i < T; ++i) {
                keep_rows(b, i, j) = kept;
                keep4(b, 0, i, j) = kept;
                for (std::size_t h = 0; h < H; ++h) full(b, h, i, j) = kept;
            }
        }
    check_close(ctein::attention(in.q, in.k, in.v, ctein::mask(keep)), padded);
    check_close(ctein::attention(in.q, in.k, in.v, ctein::ignore_mask(ignore)), padded);
    check_close(ctein::attention(in.q, in.k, in.v, ctein::mask(additive)), padded);
    check_close(ctein::attention(in.q, in.k, in.v, ctein::mask(keep3)), padded);
    check_close(ctein::attention(in.q, in.k, in.v, ctein::mask(keep_rows)), padded);
    check_close(ctein::attention(in.q, in.k, in.v, ctein::mask(keep4)), padded);
    check_close(ctein::attention(in.q, in.k, in.v, ctein::mask(full)), padded);
    // and it is not the unmasked result
    CHECK_FALSE(bitwise_equal(ctein::attention(in.q, in.k, in.v), padded));
}

TEST_CASE("causal masks are lower-triangular keep masks, shifted by the offset", "[attention]") {
    const inputs in;
    for (const std::ptrdiff_t offset : {0, 2, -3}) {
        ctein::tensor<bool, "b q k", 1, T, T> lower;
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t j = 0; j < T; ++j)
                lower(0, i, j) = static_cast<std::ptrdiff_t>(j) <= static_cast<std::ptrdiff_t>(i) + offset;
        INFO("offset " << offset);
        check_close(ctein::attention(in.q, in.k, in.v, ctein::causal_offset(offset)),
                    ctein::attention(in.q, in.k, in.v, ctein::mask(lower)));
    }
    CHECK(bitwise_equal(ctein::attention(in.q, in.k, in.v, ctein::causal),
                        ctein::attention(in.q, in.k, in.v, ctein::causal_offset(0))));
}

TEST_CASE("masks combine, and a query with no key left gets zeros", "[attention]") {
    const inputs in;
    const std::int64_t lengths[B] = {0, 4};
    const auto o = ctein::attention(in.q, in.k, in.v, ctein::key_padding(lengths), ctein::causal_offset(-2));
    for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t d = 0; d < D; ++d) {
                const bool none_left = i < 2; // batch 1: keys j <= i - 2 and j < 4
                CHECK(o(0, h, i, d) == 0.0f);
                if (none_left) CHECK(o(1, h, i, d) == 0.0f);
                CHECK(std::isfinite(o(1, h, i, d)));
            }
    const auto [out, weights] =
        ctein::attention(in.q, in.k, in.v, ctein::key_padding(lengths), ctein::with_weights);
    for (std::size_t j = 0; j < T; ++j) CHECK(weights(0, 1, 5, j) == 0.0f);
}

TEST_CASE("grouped-query attention equals attention on repeated key/value heads", "[attention]") {
    const inputs in;
    for (const std::size_t groups : {1, 2, 4}) {
        INFO(groups << " key/value heads");
        ctein::tensor<float, "b g s d", B, ctein::dyn, T, D> k(groups), v(groups);
        deterministic_fill(k, 7);
        deterministic_fill(v, 8);
        const std::size_t r = H / groups;
        const auto k_all = ctein::eval(ctein::repeat<"b g s d -> b (g r) s d">(k, ctein::len<"r">(r)));
        const auto v_all = ctein::eval(ctein::repeat<"b g s d -> b (g r) s d">(v, ctein::len<"r">(r)));
        check_close(ctein::attention(in.q, k, v, ctein::causal),
                    ctein::attention(in.q, k_all, v_all, ctein::causal));
    }
}

TEST_CASE("attention reads head-split views in place and xtensor containers", "[attention]") {
    ctein::tensor<float, "b s c", B, T, H * D> x;
    deterministic_fill(x, 11);
    const auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", H>);
    const auto contiguous = ctein::eval(q);
    CHECK(bitwise_equal(ctein::attention(q, q, q), ctein::attention(contiguous, contiguous, contiguous)));

    xt::xtensor<float, 4> xq = xt::zeros<float>({B, H, T, D});
    std::copy_n(contiguous.data(), contiguous.size(), xq.data());
    CHECK(bitwise_equal(ctein::attention(xq, xq, xq), ctein::attention(contiguous, contiguous, contiguous)));

    // features not contiguous (a view that swaps s and d): copied once, same result
    const auto swapped = ctein::rearrange<"b h s d -> b h d s">(contiguous);
    const auto back = ctein::rearrange<"b h d s -> b h s d">(swapped);
    CHECK(bitwise_equal(ctein::attention(back, back, back),
                        ctein::attention(contiguous, contiguous, contiguous)));
}

TEST_CASE("weights are the softmax rows the output is made of", "[attention]") {
    const inputs in;
    const auto [o, w] = ctein::attention(in.q, in.k, in.v, ctein::causal, ctein::with_weights);
    static_assert(
        std::is_same_v<std::remove_cvref_t<decltype(w)>, ctein::tensor<float, "b h q k", B, H, T, T>>);
    check_close(o, ctein::attention(in.q, in.k, in.v, ctein::causal)); // a second pass makes both
    for (std::size_t i = 0; i < T; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < T; ++j) sum += w(1, 3, i, j);
        CHECK(sum == Approx(1.0).epsilon(1e-5));
        CHECK(w(1, 3, i, T - 1) == (i == T - 1 ? w(1, 3, i, T - 1) : 0.0f));
    }
    const auto product = ctein::eval(ctein::einsum<"b h q k, b h k d -> b h q d">(w, in.v));
    check_close(product, o);
}

TEST_CASE("scale, threads and dropout", "[attention]") {
    const inputs in;
    const auto halved = ctein::attention(in.q, in.k, in.v, ctein::scale(0.5f / std::sqrt(float(D))));
    ctein::tensor<float, "b h s d", B, H, T, D> q2;
    for (std::size_t i = 0; i < q2.size(); ++i) q2.data()[i] = in.q.data()[i] * 0.5f;
    check_close(halved, ctein::attention(q2, in.k, in.v));

    CHECK(bitwise_equal(ctein::attention(in.q, in.k, in.v, ctein::threads(1)),
                        ctein::attention(in.q, in.k, in.v, ctein::threads(2))));

    const auto none = ctein::attention(in.q, in.k, in.v);
    CHECK(bitwise_equal(ctein::attention(in.q, in.k, in.v, ctein::dropout(0.0f, 5)), none));
    const auto a = ctein::attention(in.q, in.k, in.v, ctein::dropout(0.5f, 42), ctein::threads(1));
    const auto b = ctein::attention(in.q, in.k, in.v, ctein::dropout(0.5f, 42), ctein::threads(2));
    const auto c = ctein::attention(in.q, in.k, in.v, ctein::dropout(0.5f, 43));
    CHECK(bitwise_equal(a, b));
    CHECK_FALSE(bitwise_equal(a, c));
    CHECK_FALSE(bitwise_equal(a, none));
    CHECK_THROWS_AS(ctein::attention(in.q, in.k, in.v, ctein::dropout(1.0f, 1)), ctein::argument_error);
    CHECK_THROWS_WITH(ctein::attention(in.q, in.k, in.v, ctein::dropout(-0.5f, 1)),
                      Catch::StartsWith("Dropout probability must be in [0, 1), not -0.5"));
}

TEST_CASE("an empty sequence: no keys gives zeros, no queries an empty result", "[attention]") {
    using dynamic = ctein::tensor<float, "b h s d", ctein::dyn, ctein::dyn, ctein::dyn, ctein::dyn>;
    dynamic q(2, 4, 3, 32), none(2, 4, 0, 32), no_queries(2, 4, 0, 32), k(2, 4, 6, 32);
    deterministic_fill(q, 1);
    deterministic_fill(k, 2);
    const auto o = ctein::attention(q, none, none, ctein::causal);
    REQUIRE(o.extent(2) == 3);
    bool zeros = true;
    for (std::size_t i = 0; i < o.size(); ++i) zeros = zeros && o.data()[i] == 0.0f;
    CHECK(zeros); // a row that sees no key is a fully masked one
    const auto empty = ctein::attention(no_queries, k, k);
    CHECK(empty.extent(2) == 0);
    CHECK(empty.size() == 0);
}

TEST_CASE("dynamic extents are checked at run time with the compiler's messages", "[attention]") {
    using dynamic = ctein::tensor<float, "b h s d", ctein::dyn, ctein::dyn, ctein::dyn, ctein::dyn>;
    const dynamic q(1, 4, 5, 32), k(1, 4, 6, 32), v7(1, 4, 7, 32), k3(1, 3, 6, 32), k16(1, 4, 6, 16),
        v(1, 4, 6, 32);
    CHECK_NOTHROW(ctein::attention(q, k, v));
    CHECK_THROWS_WITH(ctein::attention(q, k, v7),
                      Catch::StartsWith("Shape mismatch in attention, tokens of keys and values: 6 != 7") &&
                          Catch::Contains("keys (1, 4, 6, 32), values (1, 4, 7, 32)"));
    CHECK_THROWS_WITH(
        ctein::attention(q, k16, v),
        Catch::StartsWith("Shape mismatch in attention, features of queries and keys: 32 != 16"));
    CHECK_THROWS_WITH(ctein::attention(q, k3, k3),
                      Catch::StartsWith("Shape mismatch in attention: 4 query heads are not a multiple of 3 "
                                        "key/value heads"));
    CHECK_THROWS_AS(ctein::attention(q, k, v, ctein::key_padding({1, 2})), ctein::shape_error);
    CHECK_THROWS_WITH(
        ctein::attention(q, k, v, ctein::key_padding({1, 2})),
        Catch::StartsWith("Shape mismatch in attention key padding: 2 lengths for a batch of 1"));
    ctein::tensor<bool, "b k", ctein::dyn, ctein::dyn> keep(1, 5);
    CHECK_THROWS_WITH(
        ctein::attention(q, k, v, ctein::mask(keep)),
        Catch::StartsWith("Shape mismatch in attention mask, keys axis: 5 does not broadcast to 6"));
    // unnamed masks as PyTorch reads them: a (Tq, Tk) mask of the wrong length names the queries
    ctein::tensor<bool, "", ctein::dyn, ctein::dyn> allowed(5, 6);
    CHECK_NOTHROW(ctein::attention(q, k, v, ctein::mask(allowed)));
    ctein::tensor<bool, "", ctein::dyn, ctein::dyn> wrong_queries(4, 6);
    CHECK_THROWS_WITH(
        ctein::attention(q, k, v, ctein::mask(wrong_queries)),
        Catch::StartsWith("Shape mismatch in attention mask, queries axis: 4 does not broadcast to 5") &&
            Catch::Contains("mask (4, 6)"));
    ctein::tensor<bool, "b k", ctein::dyn, ctein::dyn> padding(2, 6);
    CHECK_THROWS_WITH(
        ctein::attention(q, k, v, ctein::key_padding_mask(padding)),
        Catch::StartsWith("Shape mismatch in attention mask, batch axis: 2 does not broadcast to 1"));
    // the same lengths in the formula, with the formula's names for the scores
    ctein::tensor<bool, "q k", ctein::dyn, ctein::dyn> named_wrong(5, 5);
    const auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k);
    CHECK_THROWS_WITH(
        ctein::eval(ctein::softmax<"k">(scores + ctein::mask(named_wrong))),
        Catch::StartsWith("Shape mismatch in attention mask, keys axis: 5 does not broadcast to 6"));
}

TEST_CASE("a B x Tk mask is key padding by its names or as key_padding_mask, a T x T one by its rank",
          "[attention]") {
    const inputs in;
    const std::int64_t lengths[B] = {6, 3};
    const auto padded = ctein::attention(in.q, in.k, in.v, ctein::key_padding(lengths));
    ctein::tensor<bool, "", B, T> padding; // true = padded, unnamed
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < T; ++j) padding(b, j) = static_cast<std::int64_t>(j) >= lengths[b];
    check_close(ctein::attention(in.q, in.k, in.v, ctein::key_padding_mask(padding)), padded);
    check_close(ctein::attention(in.q, in.k, in.v, ctein::ignore_mask(ctein::named<"b k">(padding))), padded);
    // an unnamed (T, T) mask is read as [queries, keys], whatever the batch
    ctein::tensor<bool, "", T, T> lower;
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < T; ++j) lower(i, j) = j <= i;
    check_close(ctein::attention(in.q, in.k, in.v, ctein::mask(lower)),
                ctein::attention(in.q, in.k, in.v, ctein::causal));
    // the output and the weights are named the same way by both entry points
    const auto [o, w] = ctein::attention(in.q, in.k, in.v, ctein::with_weights);
    static_assert(
        std::is_same_v<std::remove_cvref_t<decltype(o)>, ctein::tensor<float, "b h s d", B, H, T, D>>);
    const auto [o2, w2] = ctein::attention(in.q, ctein::named<"b h t d">(in.k), ctein::named<"b h t d">(in.v),
                                           ctein::with_weights);
    static_assert(
        std::is_same_v<std::remove_cvref_t<decltype(w2)>, ctein::tensor<float, "b h s t", B, H, T, T>>);
    CHECK(bitwise_equal(o, o2));
    CHECK(bitwise_equal(w, w2));
}

TEST_CASE("run-time options: causal_if, an optional mask, dropout 0 in evaluation, one call site",
          "[attention]") {
    const inputs in;
    const auto plain = ctein::attention(in.q, in.k, in.v);
    const auto causal = ctein::attention(in.q, in.k, in.v, ctein::causal);
    using keep_tensor = ctein::tensor<bool, "q k", T, T>;
    std::optional<keep_tensor> allowed;
    for (const bool is_decoder : {false, true}) {
        for (const bool has_mask : {false, true}) {
            for (const bool training : {false, true}) {
                // one call site, one result type, whatever the flags
                if (has_mask) {
                    allowed.emplace();
                    for (std::size_t i = 0; i < T; ++i)
                        for (std::size_t j = 0; j < T; ++j) (*allowed)(i, j) = j <= i;
                } else {
                    allowed.reset();
                }
                const auto o =
                    ctein::attention(in.q, in.k, in.v, ctein::causal_if(is_decoder), ctein::mask(allowed),
                                     ctein::dropout(training ? 0.5f : 0.0f, 7));
                static_assert(std::is_same_v<decltype(o), const qkv_tensor>);
                INFO("decoder " << is_decoder << ", mask " << has_mask << ", training " << training);
                if (training) {
                    CHECK_FALSE(bitwise_equal(o, is_decoder || has_mask ? causal : plain));
                } else if (is_decoder) {
                    CHECK(bitwise_equal(o, causal));
                } else if (has_mask) {
                    check_close(o, causal); // the same keys, masked by the tensor instead
                } else {
                    CHECK(bitwise_equal(o, plain));
                }
            }
        }
    }
    // the formula takes the same options
    std::optional<ctein::tensor<bool, "b k", B, T>> padding;
    const auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(in.q, in.k) / std::sqrt(float(D));
    const auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(
        ctein::softmax<"k">(scores + ctein::causal_if(true) + ctein::ignore_mask(padding)), in.v);
    CHECK(bitwise_equal(o, causal));
}

TEST_CASE("causal offsets at the limits of ptrdiff_t see every key or none, without overflow",
          "[attention]") {
    const inputs in;
    CHECK(bitwise_equal(ctein::attention(in.q, in.k, in.v, ctein::causal_offset(PTRDIFF_MAX)),
                        ctein::attention(in.q, in.k, in.v)));
    const auto none = ctein::attention(in.q, in.k, in.v, ctein::causal_offset(PTRDIFF_MIN));
    std::size_t nonzero = 0;
    for (std::size_t i = 0; i < none.size(); ++i) nonzero += none.data()[i] != 0.0f;
    CHECK(nonzero == 0); // every row fully masked: zeros by definition
    CHECK(bitwise_equal(ctein::attention(in.q, in.k, in.v, ctein::causal_offset(T)),
                        ctein::attention(in.q, in.k, in.v)));
}

TEST_CASE("integer masks: nonzero is true, in every option", "[attention]") {
    const inputs in;
    ctein::tensor<bool, "b k", B, T> keep;
    ctein::tensor<std::int32_t, "b k", B, T> keep_int;
    ctein::tensor<std::uint8_t, "q k", T, T> future_bytes; // 2 rather than 1: nonzero, not == 1
    ctein::tensor<bool, "q k", T, T> future;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < T; ++j) {
            keep(b, j) = j % 3 != b;
            keep_int(b, j) = keep(b, j) ? -7 : 0;
        }
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < T; ++j) {
            future(i, j) = j > i;
            future_bytes(i, j) = future(i, j) ? 2 : 0;
        }
    CHECK(bitwise_equal(ctein::attention(in.q, in.k, in.v, ctein::mask(keep_int)),
                        ctein::attention(in.q, in.k, in.v, ctein::mask(keep))));
    CHECK(bitwise_equal(ctein::attention(in.q, in.k, in.v, ctein::ignore_mask(future_bytes)),
                        ctein::attention(in.q, in.k, in.v, ctein::ignore_mask(future))));
    CHECK(bitwise_equal(ctein::attention(in.q, in.k, in.v, ctein::key_padding_mask(ctein::named<"">(keep_int))),
                        ctein::attention(in.q, in.k, in.v, ctein::key_padding_mask(ctein::named<"">(keep)))));
    // a strided integer mask (stored [k, q], read as a "q k" view) is read in its own order
    const auto stored_transposed = ctein::eval(ctein::rearrange<"q k -> k q">(future_bytes));
    CHECK(bitwise_equal(
        ctein::attention(in.q, in.k, in.v, ctein::ignore_mask(ctein::rearrange<"k q -> q k">(stored_transposed))),
        ctein::attention(in.q, in.k, in.v, ctein::ignore_mask(future))));
}
