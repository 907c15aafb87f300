#include <ctein/core/axis_length.hpp>

#include <catch2/catch.hpp>

#include <type_traits>

using namespace ctein;

TEST_CASE("lengths read like einops' h=8, or take a constant, or a run-time value", "[core]") {
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(len<"h=8">)>, axis_length<"h", 8>>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(len<"d_in=512">)>, axis_length<"d_in", 512>>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(len<"h", 8>)>, axis_length<"h", 8>>);
    constexpr std::size_t heads = 12;
    STATIC_REQUIRE(len<"h", heads>.value() == 12);
    STATIC_REQUIRE(decltype(len<"h=8">)::name == fixed_string("h"));
    constexpr auto t = len<"t">(5);
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(t)>, axis_length<"t", dyn>>);
    STATIC_REQUIRE(t.value() == 5);
    STATIC_REQUIRE(axis_length_type<decltype(t)>);
    STATIC_REQUIRE(!axis_length_type<decltype(len<"t">)>); // not given its value yet
}

TEST_CASE("a spelling that is not name=digits stays a name, which the pattern then rejects", "[core]") {
    STATIC_REQUIRE(decltype(len<"h=x", 3>)::name == fixed_string("h=x"));
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(len<"h=">)>, axis_length_of<"h=">>);
}
