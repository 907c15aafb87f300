#include <ctein/pattern/axis_names.hpp>

#include <catch2/catch.hpp>

using ctein::pattern::check_axis_names;
using ctein::pattern::parse_axis_names;

TEST_CASE("tensor axis names: names, groups, units and unnamed axes", "[pattern]") {
    STATIC_REQUIRE(!check_axis_names("b h s d", 4));
    STATIC_REQUIRE(!check_axis_names("b s (h d)", 3));
    STATIC_REQUIRE(!check_axis_names("_ _ c", 3)); // `_` may repeat
    STATIC_REQUIRE(!check_axis_names("b c 1 1", 4));
    STATIC_REQUIRE(!check_axis_names("", 7)); // unnamed, any rank
    constexpr std::string_view names = "b s (h d)";
    constexpr auto parsed = parse_axis_names(names);
    STATIC_REQUIRE(parsed.value.dims[2].where.in(names) == "(h d)");
    STATIC_REQUIRE(ctein::pattern::is_unnamed("_ c", parse_axis_names("_ c").value,
                                              parse_axis_names("_ c").value.dims[0]));
}

TEST_CASE("invalid tensor axis names say why", "[pattern]") {
    STATIC_REQUIRE(check_axis_names("b s", 3).message().view() ==
                   "Invalid axis names \"b s\" for a tensor of 3 dimensions: it names 2");
    STATIC_REQUIRE(
        check_axis_names("b b", 2).message().view() ==
        "Invalid axis names \"b b\" for a tensor of 2 dimensions: Indexing expression contains duplicate "
        "dimension \"b\"");
    STATIC_REQUIRE(
        check_axis_names("b ...", 2).message().view() ==
        "Invalid axis names \"b ...\" for a tensor of 2 dimensions: an ellipsis names no particular axes");
    STATIC_REQUIRE(
        check_axis_names("b 3", 2).message().view() ==
        "Invalid axis names \"b 3\" for a tensor of 2 dimensions: a number is a length, not a name");
}
