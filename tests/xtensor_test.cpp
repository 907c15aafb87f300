// ctein/xtensor.hpp first, as a user's file may include it: it then brings in xsimd (through
// xtensor) before the rest of ctein does, which must not make ctein's headers warn (see the
// element-wise case below).
#include <ctein/xtensor.hpp>

#include <ctein/ctein.hpp>

#include <catch2/catch.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

#include <cmath>
#include <type_traits>
#include <vector>

using namespace ctein;

TEST_CASE("xtensor containers are read without a copy", "[xtensor]") {
    xt::xtensor<float, 3> x = xt::arange<float>(48).reshape({2, 3, 8});
    auto q = rearrange<"b s (h d) -> b h s d">(x, len<"h", 2>);
    STATIC_REQUIRE(std::is_same_v<decltype(q)::extents_type, extents<dyn, 2, dyn, dyn>>);
    CHECK(q.data() == x.data());
    CHECK(q(1, 1, 2, 3) == x(1, 2, 4 + 3));
}

TEST_CASE("xtensor_fixed keeps its static extents", "[xtensor]") {
    const xt::xtensor_fixed<float, xt::xshape<2, 3, 8>> f = xt::arange<float>(48).reshape({2, 3, 8});
    auto q = rearrange<"b s (h d) -> b h s d">(f, len<"h", 2>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(q), view<const float, "b h s d", extents<2, 2, 3, 4>, layout_stride>>);
    CHECK(q(1, 1, 2, 3) == f(1, 2, 7));
}

TEST_CASE("column-major xtensor and adapted user buffers", "[xtensor]") {
    xt::xtensor<float, 2, xt::layout_type::column_major> cm = {{1, 2, 3}, {4, 5, 6}};
    auto t = rearrange<"i j -> j i">(cm);
    STATIC_REQUIRE(std::is_same_v<decltype(t)::layout_type, layout_stride>);
    CHECK(t(2, 1) == 6.0f);
    std::vector<int> buffer{0, 1, 2, 3, 4, 5};
    auto adapted = xt::adapt(buffer, std::array<std::size_t, 2>{2, 3});
    auto r = rearrange<"(a b) c -> a b c">(adapted, len<"a", 1>);
    CHECK(r(0, 1, 2) == 5);
    CHECK(r.data() == buffer.data());
}

TEST_CASE("views become xtensor expressions, static-shaped when they can be", "[xtensor]") {
    const xt::xtensor_fixed<float, xt::xshape<2, 3, 8>> f = xt::arange<float>(48).reshape({2, 3, 8});
    auto flat = rearrange<"b s c -> (b s) c">(f);
    auto e = to_xtensor(flat);
    STATIC_REQUIRE(std::is_same_v<decltype(e)::shape_type, xt::fixed_shape<6, 8>>);
    CHECK(xt::sum(e)() == Approx(1128.0));
    auto q = rearrange<"b s (h d) -> b h s d">(f, len<"h", 2>);
    xt::xtensor<float, 4> doubled = 2.0f * to_xtensor(q);
    CHECK(doubled(1, 1, 2, 3) == 2.0f * f(1, 2, 7));
    CHECK(doubled.shape()[3] == 4);
}

// Built by make test at -O2 with warnings as errors: with xsimd first included by xtensor, g++ 12
// warned inside its AVX-512 intrinsics here (core/simd_headers.hpp), failing the build.
TEST_CASE("element-wise sin and cos, ctein/xtensor.hpp included first", "[xtensor]") {
    tensor<float, "a", 64> x;
    for (std::size_t i = 0; i < 64; ++i) x(i) = -8.0f + 0.25f * static_cast<float>(i);
    const auto y = eval(ctein::sin(x) + ctein::cos(x * 2.0f));
    for (std::size_t i = 0; i < 64; ++i)
        CHECK(std::abs(y(i) - (std::sin(x(i)) + std::cos(x(i) * 2.0f))) <= 1e-6f);
}
