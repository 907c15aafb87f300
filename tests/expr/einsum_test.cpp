// einsum's GEMM path against its reference kernel: projections, attention's two products,
// batched and multi-axis contractions, outer products, matrix-vector products, strided views,
// dynamic extents and broadcasting, and the patterns that stay with the reference kernel.
#include <ctein/ctein.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <random>
#include <type_traits>
#include <vector>

namespace {

/// Multiples of 1/8 in [-2, 2]: every product is a multiple of 1/64 below 4 in magnitude, so
/// sums of fewer than 2^16 of them are exact in fp32 and the GEMM path must give the reference
/// kernel's result to the bit, whatever order either sums in.
template <class T>
void fill(T* data, std::size_t size, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> eighths(-16, 16);
    for (std::size_t i = 0; i < size; ++i)
        data[i] = static_cast<typename std::remove_cv_t<T>>(eighths(random)) / 8;
}
template <class Tensor>
void fill(Tensor& t, unsigned seed) {
    fill(t.data(), t.size(), seed);
}

/// Whether einsum computes `Pattern` on these operands with the GEMM kernel.
template <ctein::fixed_string Pattern, class X, class Y>
bool takes_gemm(const X& x, const Y& y) {
    namespace d = ctein::detail;
    using planned = d::einsum_planned<Pattern, ctein::view_of<const X&>, ctein::view_of<const Y&>>;
    using T = typename ctein::view_of<const X&>::value_type;
    const auto actual =
        d::einsum_plan_at_run_time<Pattern, planned::plan>(ctein::as_view(x), ctein::as_view(y));
    auto out = d::einsum_result<T, planned::plan>(actual);
    const auto operands =
        d::einsum_operands_of<T, planned::plan>(actual, ctein::as_view(x), ctein::as_view(y));
    return d::einsum_by_gemm<T>(actual, operands, out.data(), 1);
}

/// einsum's result equals the reference kernel's, element for element and in every extent.
template <ctein::fixed_string Pattern, class... X>
void check_against_reference(const X&... x) {
    const auto got = ctein::eval(ctein::einsum<Pattern>(x...));
    const auto expected = ctein::detail::einsum_of_views_by_reference<Pattern>(ctein::as_view(x)...);
    static_assert(std::is_same_v<std::remove_cv_t<decltype(got)>, std::remove_cv_t<decltype(expected)>>);
    for (std::size_t r = 0; r < expected.rank(); ++r) CHECK(got.extent(r) == expected.extent(r));
    REQUIRE(got.size() == expected.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i) differ += got.data()[i] != expected.data()[i];
    CHECK(differ == 0);
}

} // namespace

TEST_CASE("einsum by GEMM: a projection with weights in PyTorch's (out, in) layout", "[einsum]") {
    ctein::tensor<float, "b s c", 2, 37, 70> x;
    ctein::tensor<float, "o c", 45, 70> w;
    fill(x, 1);
    fill(w, 2);
    CHECK(takes_gemm<"b s c, o c -> b s o">(x, w));
    check_against_reference<"b s c, o c -> b s o">(x, w);
}

TEST_CASE("einsum by GEMM: attention's scores and weighted values, batched over b h", "[einsum]") {
    ctein::tensor<float, "b h q d", 2, 3, 29, 16> q;
    ctein::tensor<float, "b h k d", 2, 3, 31, 16> k, v;
    ctein::tensor<float, "b h q k", 2, 3, 29, 31> p;
    fill(q, 3);
    fill(k, 4);
    fill(v, 5);
    fill(p, 6);
    CHECK(takes_gemm<"b h q d, b h k d -> b h q k">(q, k));
    check_against_reference<"b h q d, b h k d -> b h q k">(q, k);
    CHECK(takes_gemm<"b h q k, b h k d -> b h q d">(p, v));
    check_against_reference<"b h q k, b h k d -> b h q d">(p, v);
}

TEST_CASE("einsum by GEMM: batched matrix products, in any output order", "[einsum]") {
    ctein::tensor<float, "", 4, 19, 23> a;
    ctein::tensor<float, "", 4, 23, 40> b;
    fill(a, 7);
    fill(b, 8);
    CHECK(takes_gemm<"b i j, b j k -> b i k">(a, b));
    check_against_reference<"b i j, b j k -> b i k">(a, b);
    CHECK(takes_gemm<"b i j, b j k -> k b i">(a, b)); // C's contiguous axis is an m axis: operands swap
    check_against_reference<"b i j, b j k -> k b i">(a, b);
    CHECK(takes_gemm<"b i j, b j k -> i k b">(a, b)); // no output axis contiguous: C written strided
    check_against_reference<"b i j, b j k -> i k b">(a, b);
}

TEST_CASE("einsum by GEMM: axes that do not merge loop around the product", "[einsum]") {
    ctein::tensor<float, "", 5, 6, 7> a;
    ctein::tensor<float, "", 7, 6, 9> b;
    fill(a, 9);
    fill(b, 10);
    CHECK(takes_gemm<"a b c, c b d -> a d">(a, b)); // two contracted axes, one summed by a loop
    check_against_reference<"a b c, c b d -> a d">(a, b);
    ctein::tensor<float, "", 3, 17, 20> x;
    ctein::tensor<float, "", 33, 20> w;
    fill(x, 11);
    fill(w, 12);
    CHECK(takes_gemm<"b i c, o c -> i b o">(x, w)); // b and i do not merge: b loops
    check_against_reference<"b i c, o c -> i b o">(x, w);
}

TEST_CASE("einsum by GEMM: outer products and matrix-vector products", "[einsum]") {
    ctein::tensor<float, "", 37> u;
    ctein::tensor<float, "", 50> v;
    ctein::tensor<float, "", 37, 50> m;
    fill(u, 13);
    fill(v, 14);
    fill(m, 15);
    CHECK(takes_gemm<"i, j -> i j">(u, v));
    check_against_reference<"i, j -> i j">(u, v);
    CHECK(takes_gemm<"i j, j -> i">(m, v));
    check_against_reference<"i j, j -> i">(m, v);
    CHECK(takes_gemm<"i, i j -> j">(u, m));
    check_against_reference<"i, i j -> j">(u, m);
    CHECK(takes_gemm<"i, i ->">(u, u));
    check_against_reference<"i, i ->">(u, u);
}

TEST_CASE("einsum by GEMM: strided views from rearrange", "[einsum]") {
    ctein::tensor<float, "b s c", 2, 19, 64> x, y;
    fill(x, 16);
    fill(y, 17);
    const auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 4>);
    const auto k = ctein::rearrange<"b s (h d) -> b h s d">(y, ctein::len<"h", 4>);
    CHECK(takes_gemm<"b h q d, b h k d -> b h q k">(q, k));
    check_against_reference<"b h q d, b h k d -> b h q k">(q, k);
    const auto yt = ctein::rearrange<"b s c -> b c s">(y); // transposed: B contiguous along n
    CHECK(takes_gemm<"b s c, b c t -> b s t">(x, yt));
    check_against_reference<"b s c, b c t -> b s t">(x, yt);
}

TEST_CASE("einsum by GEMM: dynamic extents, including a sum of no terms", "[einsum]") {
    const std::size_t rows = GENERATE(1, 15, 40), inner = GENERATE(0, 1, 33);
    std::vector<float> a(rows * inner), b(inner * 21);
    fill(a.data(), a.size(), 18);
    fill(b.data(), b.size(), 19);
    const auto va = ctein::adapt<"", ctein::dyn, ctein::dyn>(a.data(), rows, inner);
    const auto vb = ctein::adapt<"", ctein::dyn, 21>(b.data(), inner);
    CHECK(takes_gemm<"i j, j k -> i k">(va, vb));
    check_against_reference<"i j, j k -> i k">(va, vb);
}

TEST_CASE("einsum by GEMM: the ellipsis, with a length 1 that broadcasts", "[einsum]") {
    ctein::tensor<float, "", 1, 5, 6> a;
    ctein::tensor<float, "", 3, 6, 7> b;
    fill(a, 20);
    fill(b, 21);
    CHECK(takes_gemm<"... i j, ... j k -> ... i k">(a, b));
    check_against_reference<"... i j, ... j k -> ... i k">(a, b);
}

TEST_CASE("einsum by GEMM: double precision", "[einsum]") {
    ctein::tensor<double, "", 2, 30, 17> a;
    ctein::tensor<double, "", 40, 17> w;
    fill(a, 22);
    fill(w, 23);
    CHECK(takes_gemm<"b s c, o c -> b s o">(a, w));
    check_against_reference<"b s c, o c -> b s o">(a, w);
}

TEST_CASE("einsum: diagonals and axes summed within one operand stay with the reference kernel", "[einsum]") {
    ctein::tensor<float, "", 6, 6> s;
    ctein::tensor<float, "", 6, 9> m;
    fill(s, 24);
    fill(m, 25);
    CHECK_FALSE(takes_gemm<"i i, i j -> i j">(s, m));
    check_against_reference<"i i, i j -> i j">(s, m);
    CHECK_FALSE(takes_gemm<"i j, j k -> k">(s, m));
    check_against_reference<"i j, j k -> k">(s, m);
    check_against_reference<"i i -> i">(s);
    const auto diagonal = ctein::eval(ctein::einsum<"i i -> i">(s));
    for (std::size_t i = 0; i < 6; ++i) CHECK(diagonal(i) == s(i, i));
}

TEST_CASE("contraction plan: axes merge into the GEMM's dimensions where their strides compose", "[einsum]") {
    using ctein::plan::make_contraction_plan;
    using ctein::plan::make_einsum_plan;
    using strides = std::array<std::ptrdiff_t, ctein::plan::max_axes>;
    using extents = std::array<std::size_t, ctein::plan::max_dims>;
    constexpr auto operand = [](std::size_t rank, extents e) {
        return ctein::plan::operand{rank, e, "", true};
    };
    // b s c, o c -> b s o on [2, 512, 768] and [2304, 768]; axes b s c o
    constexpr std::array<ctein::plan::operand, 2> projection{operand(3, {2, 512, 768}),
                                                             operand(2, {2304, 768})};
    constexpr auto p = make_einsum_plan("b s c, o c -> b s o", projection);
    constexpr auto g = make_contraction_plan(p, strides{512 * 768, 768, 1, 0}, strides{0, 0, 1, 768},
                                             strides{512 * 2304, 2304, 0, 1});
    STATIC_REQUIRE(g.is_gemm);
    STATIC_REQUIRE(!g.swapped);
    STATIC_REQUIRE(g.loop_count == 0);
    STATIC_REQUIRE((g.m.length == 1024 && g.m.a == 768 && g.m.c == 2304));
    STATIC_REQUIRE((g.n.length == 2304 && g.n.b == 768 && g.n.c == 1));
    STATIC_REQUIRE((g.k.length == 768 && g.k.a == 1 && g.k.b == 1));

    // b h q d, b h k d -> b h q k on [2, 12, 128, 64] each: b and h merge into one batch loop
    constexpr std::array<ctein::plan::operand, 2> scores{operand(4, {2, 12, 128, 64}),
                                                         operand(4, {2, 12, 128, 64})};
    constexpr auto qk = make_contraction_plan(
        make_einsum_plan("b h q d, b h k d -> b h q k", scores), strides{12 * 128 * 64, 128 * 64, 64, 1, 0},
        strides{12 * 128 * 64, 128 * 64, 0, 1, 64}, strides{12 * 128 * 128, 128 * 128, 128, 0, 1});
    STATIC_REQUIRE((qk.is_gemm && qk.loop_count == 1 && qk.loops[0].length == 24 && !qk.summed[0]));
    STATIC_REQUIRE((qk.m.length == 128 && qk.n.length == 128 && qk.k.length == 64));

    // a b c, c b d -> a d on [5, 6, 7] and [7, 6, 9]: c is the GEMM's k, b a summed loop
    constexpr std::array<ctein::plan::operand, 2> two{operand(3, {5, 6, 7}), operand(3, {7, 6, 9})};
    constexpr auto ab =
        make_contraction_plan(make_einsum_plan("a b c, c b d -> a d", two), strides{42, 7, 1, 0},
                              strides{0, 9, 54, 1}, strides{9, 0, 0, 1});
    STATIC_REQUIRE((ab.is_gemm && ab.loop_count == 1 && ab.summed[0] && ab.loops[0].length == 6));
    STATIC_REQUIRE((ab.k.length == 7 && ab.k.a == 1 && ab.k.b == 54));

    // i j, j k -> k i: C's contiguous axis is i, so the operands swap
    constexpr std::array<ctein::plan::operand, 2> mm{operand(2, {3, 4}), operand(2, {4, 5})};
    constexpr auto t = make_contraction_plan(make_einsum_plan("i j, j k -> k i", mm), strides{4, 1, 0},
                                             strides{0, 5, 1}, strides{1, 0, 3});
    STATIC_REQUIRE((t.is_gemm && t.swapped && t.m.length == 5 && t.m.a == 1 && t.m.c == 3 && t.n.b == 4));
}
