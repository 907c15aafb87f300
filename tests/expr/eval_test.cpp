#include <ctein/expr/eval.hpp>
#include <ctein/expr/rearrange.hpp>

#include <catch2/catch.hpp>

#include <type_traits>
#include <vector>

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

TEST_CASE("assign copies a view into a tensor the caller owns", "[expr][assign]") {
    tensor<float, "b s c", 2, 5, 24> x;
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i);
    const auto heads = rearrange<"b s (h d) -> b h s d">(x, len<"h", 3>);
    tensor<float, "b h s d", 2, 3, 5, 8> out;
    float* const storage = out.data();
    assign(out, heads);
    CHECK(out.data() == storage);
    const auto expected = eval(heads);
    bool same = true;
    for (std::size_t i = 0; i < out.size(); ++i) same = same && out.data()[i] == expected.data()[i];
    CHECK(same);
    CHECK(out(1, 2, 4, 7) == x(1, 4, 2 * 8 + 7));
}

TEST_CASE("assign writes through a contiguous view of a buffer, checking dynamic extents", "[expr][assign]") {
    tensor<int, "", dyn, 4> t(3);
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<int>(i);
    std::vector<int> buffer(12, -1);
    assign(adapt<"", 4, dyn>(buffer.data(), 3), rearrange<"a b -> b a">(t));
    CHECK(buffer == std::vector<int>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});

    std::vector<int> short_buffer(8, -1);
    CHECK_THROWS_AS(assign(adapt<"", 4, dyn>(short_buffer.data(), 2), rearrange<"a b -> b a">(t)),
                    shape_error);
    CHECK(short_buffer == std::vector<int>(8, -1)); // nothing written
    try {
        assign(adapt<"", 4, dyn>(short_buffer.data(), 2), rearrange<"a b -> b a">(t));
    } catch (const shape_error& e) {
        CHECK(e.message() == "Shape mismatch in assignment, dimension 1: a length of 3 given to one of 2");
    }
}

TEST_CASE("assign of an empty view matches only an empty output", "[expr][assign]") {
    tensor<float, "a b", dyn, 3> t(0);
    tensor<float, "b a", 3, dyn> empty(0), one_column(1);
    CHECK_NOTHROW(assign(empty, rearrange<"a b -> b a">(t)));
    CHECK_THROWS_AS(assign(one_column, rearrange<"a b -> b a">(t)), shape_error);
}
