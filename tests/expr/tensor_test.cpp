#include <ctein/expr/tensor.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>

using namespace ctein;

TEST_CASE("tensors are zero-initialised, aligned, and know their extents", "[expr]") {
    tensor<float, "b s c", 2, dyn, 16> x(5);
    CHECK(x.size() == 160);
    CHECK(x.extent(1) == 5);
    CHECK(reinterpret_cast<std::uintptr_t>(x.data()) % 64 == 0);
    for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(x.data()[i] == 0.0f);
    x(1, 4, 15) = 3.0f;
    CHECK(x.data()[159] == 3.0f);
    STATIC_REQUIRE(std::is_same_v<decltype(x.view()), view<float, "b s c", extents<2, dyn, 16>>>);
    const auto& cx = x;
    STATIC_REQUIRE(std::is_same_v<decltype(cx.view()), view<const float, "b s c", extents<2, dyn, 16>>>);
}

TEST_CASE("uninitialized tensors have their extents and alignment, and keep what is written", "[expr]") {
    tensor<float, "b s c", 2, 3, 16> fixed(uninitialized);
    CHECK(fixed.size() == 96);
    CHECK(reinterpret_cast<std::uintptr_t>(fixed.data()) % 64 == 0);
    tensor<float, "b s c", 2, dyn, 16> sized(extents<2, dyn, 16>(5), uninitialized);
    CHECK(sized.size() == 160);
    CHECK(sized.extent(1) == 5);
    CHECK(reinterpret_cast<std::uintptr_t>(sized.data()) % 64 == 0);
    for (std::size_t i = 0; i < sized.size(); ++i) sized.data()[i] = static_cast<float>(i);
    CHECK(sized(1, 4, 15) == 159.0f);
    tensor<float, "b", 0> empty(uninitialized);
    CHECK(empty.data() == nullptr);
    STATIC_REQUIRE_FALSE(std::is_convertible_v<decltype(uninitialized), std::size_t>);
}

TEST_CASE("tensors copy and move their elements", "[expr]") {
    tensor<int, "", 3> a;
    a(2) = 7;
    tensor<int, "", 3> b = a;
    b(2) = 8;
    CHECK(a(2) == 7);
    tensor<int, "", 3> c = std::move(b);
    CHECK(c(2) == 8);
    a = c;
    CHECK(a(2) == 8);
}

TEST_CASE("boolean tensors hold one bool per element", "[expr]") {
    tensor<bool, "i j", 2, 3> mask;
    mask(1, 2) = true;
    CHECK(mask.data()[5]);
    CHECK_FALSE(mask.data()[4]);
}

TEST_CASE("tensor_of names the tensor that copies a view", "[expr]") {
    STATIC_REQUIRE(
        std::is_same_v<tensor_of<const float, "a b", extents<2, dyn>>, tensor<float, "a b", 2, dyn>>);
    STATIC_REQUIRE(tensor_type<tensor<float, "", 1>>);
    STATIC_REQUIRE(!tensor_type<view<float, "", extents<1>>>);
}

TEST_CASE("a tensor whose size overflows is a shape_error naming the axis, not a short buffer", "[tensor]") {
    using ctein::dyn;
    using big = ctein::tensor<float, "b h s d", dyn, dyn, dyn, dyn>;
    CHECK_THROWS_WITH(
        (big(1ull << 32, 1ull << 32, 1, 1)),
        Catch::StartsWith("A tensor of shape (4294967296, 4294967296, 1, 1) does not fit in memory: its "
                          "size overflows at axis h (dimension 1)"));
    CHECK_THROWS_AS((big(dyn, 1, 1, 1)), ctein::shape_error); // the dynamic-extent marker is no length
    CHECK_THROWS_AS((ctein::tensor<std::uint8_t, "", dyn>(dyn)), ctein::shape_error);
    CHECK((big(0, 1ull << 20, 1ull << 20, 1).size() == 0)); // empty, and its strides fit
}
