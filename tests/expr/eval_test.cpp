#include <ctein/expr/eval.hpp>
#include <ctein/expr/rearrange.hpp>

#include <catch2/catch.hpp>

#include <type_traits>

using namespace ctein;

namespace {
template <class V>
void check_matches(const V& v) {
    auto copy = eval(v);
    STATIC_REQUIRE(std::is_same_v<typename decltype(copy)::extents_type, typename V::extents_type>);
    STATIC_REQUIRE(decltype(copy)::names == V::names);
    std::size_t i = 0;
    for (std::size_t a = 0; a < v.extent(0); ++a)
        for (std::size_t b = 0; b < v.extent(1); ++b)
            for (std::size_t c = 0; c < v.extent(2); ++c) REQUIRE(copy.data()[i++] == v(a, b, c));
}
} // namespace

TEST_CASE("eval copies every layout into row-major order", "[expr]") {
    tensor<int, "x y z", 3, 4, 5> t;
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<int>(i);
    check_matches(t.view());                                                 // contiguous
    check_matches(rearrange<"x y z -> z x y">(t));                           // strided
    check_matches(rearrange<"x y z -> y (z x) 1">(t));                       // grouped
    check_matches(rearrange<"x (y1 y2) z -> (y2 z) x y1">(t, len<"y1", 2>)); // grouped, split
}

TEST_CASE("eval of an empty tensor is empty", "[expr]") {
    tensor<float, "a b", dyn, 3> t(0);
    auto copy = eval(rearrange<"a b -> b a">(t));
    CHECK(copy.size() == 0);
    CHECK(copy.extent(0) == 3);
}
