#include <ctein/expr/view.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <numeric>
#include <type_traits>
#include <vector>

using namespace ctein;

TEST_CASE("a contiguous view indexes row-major memory", "[expr]") {
    std::array<float, 24> buffer{};
    std::iota(buffer.begin(), buffer.end(), 0.0f);
    const view<float, "a b c", extents<2, 3, 4>> v(buffer.data(), extents<2, 3, 4>{});
    STATIC_REQUIRE(decltype(v)::rank() == 3);
    STATIC_REQUIRE(decltype(v)::names == fixed_string("a b c"));
    CHECK(v(1, 2, 3) == 23.0f);
    CHECK(v(0, 1, 0) == 4.0f);
    CHECK(v.stride(0) == 12);
    CHECK(v.size() == 24);
    v(1, 0, 0) = -1.0f;
    CHECK(buffer[12] == -1.0f);
}

TEST_CASE("a strided view walks its strides, and views convert to const and to strided", "[expr]") {
    std::array<int, 6> buffer{0, 1, 2, 3, 4, 5};
    using E = extents<3, 2>;
    // the transpose of a 2 x 3 row-major matrix
    const view<int, "j i", E, layout_stride> t(buffer.data(), layout_stride::mapping<E>(E{}, {1, 3}));
    CHECK(t(2, 1) == 5);
    CHECK(t(1, 0) == 1);
    CHECK(t.mapping().required_span_size() == 6);
    const view<const int, "j i", E, layout_stride> c = t;
    CHECK(c(2, 0) == 2);
    const view<int, "a b", extents<2, 3>> right(buffer.data(), extents<2, 3>{});
    const view<int, "a b", extents<2, 3>, layout_stride> as_strided = right;
    CHECK(as_strided.stride(0) == 3);
    STATIC_REQUIRE(!std::is_convertible_v<decltype(c), view<int, "j i", E, layout_stride>>);
}

TEST_CASE("a grouped view decomposes each index over its axes", "[expr]") {
    // (b h s d) memory, viewed as b s (h d) without a copy: h and d are not neighbours
    std::array<int, 2 * 2 * 3 * 4> buffer{};
    std::iota(buffer.begin(), buffer.end(), 0);
    using E = extents<2, 3, 8>;
    using L = layout_grouped<1, 1, 2>;
    const std::array<strided_axis, 4> axes{{{2, 24}, {3, 4}, {2, 12}, {4, 1}}};
    const view<int, "b s (h d)", E, L> v(buffer.data(), L::mapping<E>(E{}, axes));
    STATIC_REQUIRE(!decltype(v)::is_strided);
    CHECK(v(1, 2, 5) == 24 + 2 * 4 + 12 + 1); // b=1, s=2, h=1, d=1
    CHECK(v(0, 0, 3) == 3);
    CHECK(v.mapping().required_span_size() == 48);
}

TEST_CASE("adapt views a caller's buffer with static and dynamic extents", "[expr]") {
    std::array<float, 12> buffer{};
    std::iota(buffer.begin(), buffer.end(), 0.0f);
    auto k = adapt<"s d", dyn, 4>(buffer.data(), 3);
    STATIC_REQUIRE(std::is_same_v<decltype(k), view<float, "s d", extents<dyn, 4>>>);
    CHECK(k(2, 1) == 9.0f);
    const std::array<int, 6> fixed{1, 2, 3, 4, 5, 6};
    auto f = adapt<"", 2, 3>(fixed.data());
    STATIC_REQUIRE(std::is_same_v<decltype(f), view<const int, "", extents<2, 3>>>);
    CHECK(f(1, 0) == 4);
}

TEST_CASE("adapt checks what it can of its contract: null with elements, sizes that do not fit", "[view]") {
    using ctein::dyn;
    float buffer[6] = {};
    CHECK_THROWS_AS((ctein::adapt<"s d", dyn, 3>(static_cast<float*>(nullptr), 2)), ctein::argument_error);
    CHECK_THROWS_WITH((ctein::adapt<"s d", dyn, 3>(static_cast<float*>(nullptr), 2)),
                      Catch::StartsWith("ctein::adapt: a null pointer for a buffer of 6 elements"));
    CHECK_NOTHROW(ctein::adapt<"s d", dyn, 3>(static_cast<float*>(nullptr), 0)); // no elements, no reads
    CHECK_THROWS_AS((ctein::adapt<"s d", dyn, 3>(buffer, dyn)),
                    ctein::shape_error); // the marker is no length
    CHECK_THROWS_WITH(
        (ctein::adapt<"a b c", dyn, dyn, 2>(buffer, 1ull << 32, 1ull << 32)),
        Catch::StartsWith("The buffer of shape (4294967296, 4294967296, 2) does not fit in memory: "
                          "its size overflows at dimension 1"));
    CHECK(ctein::adapt<"s d", dyn, 3>(buffer, 2).size() == 6);
}

TEST_CASE("adapt over a range checks its length, and any buffer its alignment", "[view]") {
    using ctein::dyn;
    std::vector<float> keys(5 * 4);
    const auto k = ctein::adapt<"s d", dyn, 4>(keys, 5);
    STATIC_REQUIRE(std::is_same_v<decltype(k), const ctein::view<float, "s d", ctein::extents<dyn, 4>>>);
    CHECK(k.data() == keys.data());
    CHECK_THROWS_AS((ctein::adapt<"s d", dyn, 4>(keys, 6)), ctein::argument_error);
    CHECK_THROWS_WITH((ctein::adapt<"s d", dyn, 4>(keys, 6)),
                      Catch::StartsWith("ctein::adapt: a buffer of 20 elements for a view of shape (6, 4), "
                                        "which needs 24"));
    const std::array<int, 6> fixed{};
    CHECK(ctein::adapt<"", 2, 3>(fixed).size() == 6);
    CHECK_THROWS_AS((ctein::adapt<"", 2, 4>(fixed)), ctein::argument_error);
    std::vector<float> empty;
    CHECK(ctein::adapt<"s d", dyn, 4>(empty, 0).size() == 0);
    // One byte past a float's alignment: a misaligned load, undefined, if it were read.
    alignas(4) unsigned char bytes[64] = {};
    auto* misaligned = reinterpret_cast<float*>(bytes + 1);
    CHECK_THROWS_AS((ctein::adapt<"s d", dyn, 4>(misaligned, 2)), ctein::argument_error);
    CHECK_THROWS_WITH((ctein::adapt<"s d", dyn, 4>(misaligned, 2)),
                      Catch::StartsWith("ctein::adapt: address 0x") &&
                          Catch::Contains("is not aligned for its element type (a multiple of 4)"));
    CHECK_NOTHROW(ctein::adapt<"s d", dyn, 4>(reinterpret_cast<float*>(bytes), 2));
}
