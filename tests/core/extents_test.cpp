#include <ctein/core/extents.hpp>

#include <catch2/catch.hpp>

#include <type_traits>

using ctein::dyn;
using ctein::extents;

TEST_CASE("static extents live in the type and store nothing", "[core]") {
    using e = extents<2, 3, 4>;
    STATIC_REQUIRE(e::rank() == 3);
    STATIC_REQUIRE(e::rank_dynamic() == 0);
    STATIC_REQUIRE(e::is_static());
    STATIC_REQUIRE(e{}.size() == 24);
    STATIC_REQUIRE(e{}.extent(1) == 3);
    STATIC_REQUIRE(sizeof(e) == 1);
    STATIC_REQUIRE(sizeof(extents<2, dyn, 4>) == sizeof(std::size_t));
}

TEST_CASE("dynamic extents are given in order and read back", "[core]") {
    using e = extents<2, dyn, 512, dyn>;
    STATIC_REQUIRE(e::rank() == 4);
    STATIC_REQUIRE(e::rank_dynamic() == 2);
    STATIC_REQUIRE(e::static_extent(1) == dyn);
    STATIC_REQUIRE(e::static_extent(2) == 512);
    constexpr e x(7, 9);
    STATIC_REQUIRE(x.extent(0) == 2);
    STATIC_REQUIRE(x.extent(1) == 7);
    STATIC_REQUIRE(x.extent(3) == 9);
    STATIC_REQUIRE(x.size() == 2 * 7 * 512 * 9);
    STATIC_REQUIRE(x.values() == std::array<std::size_t, 4>{2, 7, 512, 9});
    STATIC_REQUIRE(e::from_all({2, 7, 512, 9}) == x);
    STATIC_REQUIRE(!(e(7, 8) == x));
}

TEST_CASE("dims<R> has R dynamic extents", "[core]") {
    STATIC_REQUIRE(std::is_same_v<ctein::dims<3>, extents<dyn, dyn, dyn>>);
    STATIC_REQUIRE(std::is_same_v<ctein::dims<0>, extents<>>);
    STATIC_REQUIRE(extents<>{}.size() == 1);
    STATIC_REQUIRE(ctein::extents_type<extents<1>>);
    STATIC_REQUIRE(!ctein::extents_type<int>);
}
