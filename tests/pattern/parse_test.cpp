#include <ctein/pattern/parse.hpp>

#include <catch2/catch.hpp>

#include <string>

using namespace ctein::pattern;
using ctein::errc;

namespace {
constexpr std::string_view name_of(std::string_view text, const expression& e, std::size_t dim,
                                   std::size_t i = 0) {
    return e.axis_of(e.dims[dim], i).where.in(text);
}
} // namespace

TEST_CASE("a head split parses into lone axes and a group", "[pattern]") {
    constexpr std::string_view text = "b s (h d) -> b h s d";
    constexpr auto p = parse_pattern(text);
    STATIC_REQUIRE(!p.error);
    STATIC_REQUIRE(p.left.dim_count == 3);
    STATIC_REQUIRE(p.left.axis_count == 4);
    STATIC_REQUIRE(p.left.dims[2].grouped);
    STATIC_REQUIRE(p.left.dims[2].count == 2);
    STATIC_REQUIRE(name_of(text, p.left, 2, 0) == "h");
    STATIC_REQUIRE(name_of(text, p.left, 2, 1) == "d");
    STATIC_REQUIRE(p.left.dims[2].where.in(text) == "(h d)");
    STATIC_REQUIRE(p.right.dim_count == 4);
    STATIC_REQUIRE(name_of(text, p.right, 1) == "h");
    STATIC_REQUIRE(!p.left.has_ellipsis && !p.left.has_non_unitary_anonymous);
}

TEST_CASE("units, anonymous axes and multi-letter names", "[pattern]") {
    constexpr std::string_view text = "batch 1 () (1 d_in) (h 2) -> batch";
    constexpr auto p = parse_pattern(text);
    STATIC_REQUIRE(!p.error);
    STATIC_REQUIRE(p.left.dim_count == 5);
    STATIC_REQUIRE(name_of(text, p.left, 0) == "batch");
    STATIC_REQUIRE(p.left.dims[1].count == 0); // `1` alone is a unit dimension
    STATIC_REQUIRE(!p.left.dims[1].grouped);
    STATIC_REQUIRE(p.left.dims[2].count == 0); // so is `()`
    STATIC_REQUIRE(p.left.dims[2].grouped);
    STATIC_REQUIRE(p.left.dims[3].count == 1); // a `1` inside a group is dropped
    STATIC_REQUIRE(name_of(text, p.left, 3) == "d_in");
    STATIC_REQUIRE(p.left.axis_of(p.left.dims[4], 1).kind == axis_kind::anonymous);
    STATIC_REQUIRE(p.left.axis_of(p.left.dims[4], 1).length == 2);
    STATIC_REQUIRE(p.left.has_non_unitary_anonymous);
}

TEST_CASE("the ellipsis: alone, in a group, and written as one character", "[pattern]") {
    constexpr auto lone = parse_pattern("b ... d -> (...) b d");
    STATIC_REQUIRE(!lone.error);
    STATIC_REQUIRE(lone.left.has_ellipsis && !lone.left.ellipsis_parenthesized);
    STATIC_REQUIRE(lone.left.ellipsis_dim() == 1);
    STATIC_REQUIRE(lone.right.has_ellipsis && lone.right.ellipsis_parenthesized);
    STATIC_REQUIRE(lone.right.ellipsis_dim() == lone.right.dim_count); // not a lone dimension there
    constexpr auto symbol = parse_pattern("b \xE2\x80\xA6 -> \xE2\x80\xA6 b");
    STATIC_REQUIRE(!symbol.error);
    STATIC_REQUIRE(symbol.left.ellipsis_dim() == 1);
}

TEST_CASE("spaces only separate: none around the arrow or groups is fine", "[pattern]") {
    constexpr auto tight = parse_pattern("b s(h d)->b h s d");
    constexpr auto loose = parse_pattern("  b   s  ( h  d )  ->  b h  s d ");
    STATIC_REQUIRE(!tight.error && !loose.error);
    STATIC_REQUIRE(tight.left.dim_count == 3 && loose.left.dim_count == 3);
    STATIC_REQUIRE(tight.right.dim_count == 4 && loose.right.dim_count == 4);
    constexpr auto empty = parse_pattern(" -> ");
    STATIC_REQUIRE(!empty.error);
    STATIC_REQUIRE(empty.left.dim_count == 0 && empty.right.dim_count == 0);
}

TEST_CASE("errors carry einops' text and the column where they were found", "[pattern]") {
    constexpr auto unknown = parse_pattern("a b c! -> a b c");
    STATIC_REQUIRE(unknown.error.code == errc::unknown_character);
    STATIC_REQUIRE(unknown.error.column == 5);
    STATIC_REQUIRE(unknown.error.message().view() == "Unknown character '!'");

    constexpr auto duplicate = parse_pattern("a b -> a b b");
    STATIC_REQUIRE(duplicate.error.code == errc::duplicate_axis);
    STATIC_REQUIRE(duplicate.error.column == 11);
    STATIC_REQUIRE(duplicate.error.message().view() ==
                   "Indexing expression contains duplicate dimension \"b\"");

    constexpr auto open = parse_pattern("a (b ... -> a b");
    STATIC_REQUIRE(open.error.message().view() ==
                   "Imbalanced parentheses in expression: \"a (b \xE2\x80\xA6 \"");

    constexpr auto glued = parse_pattern("...h -> h");
    STATIC_REQUIRE(glued.error.message().view() ==
                   "Invalid axis identifier: \xE2\x80\xA6h\nnot a valid python identifier");

    STATIC_REQUIRE(parse_pattern("a b").error.message().view() ==
                   "Pattern must contain '->' exactly once, it contains it 0 times");
    STATIC_REQUIRE(parse_pattern("a -> b -> c").error.code == errc::no_arrow);
    STATIC_REQUIRE(parse_pattern("a\tb -> a b").error.message().view() == "Unknown character '\t'");
    STATIC_REQUIRE(parse_pattern("a \xC3\xA9 -> a").error.message().view() == "Unknown character '\xC3\xA9'");
}

TEST_CASE("the left side is checked before the right side", "[pattern]") {
    constexpr auto both = parse_pattern("a a -> b! b");
    STATIC_REQUIRE(both.error.code == errc::duplicate_axis);
}

TEST_CASE("axis names follow einops' identifier rules", "[pattern]") {
    STATIC_REQUIRE(axis_name_problem("d_in").empty());
    STATIC_REQUIRE(axis_name_problem("h2").empty());
    STATIC_REQUIRE(axis_name_problem("_").size() != 0);
    STATIC_REQUIRE(axis_name_problem("_", true).empty());
    STATIC_REQUIRE(axis_name_problem("d_") == "axis name should should not start or end with underscore");
    STATIC_REQUIRE(axis_name_problem("2h") == "not a valid python identifier");
    STATIC_REQUIRE(axis_name_problem("") == "not a valid python identifier");
}

TEST_CASE("the parser gives the same results at run time", "[pattern]") {
    // the compiler's results for these patterns are the STATIC_REQUIREs above; here the same
    // strings, built at run time, must parse identically
    for (const char* literal :
         {"b s (h d) -> b h s d", "batch 1 () (1 d_in) (h 2) -> batch", "b ... d -> (...) b d",
          "a b c! -> a b c", "a (b ... -> a b", "  b   s  ( h  d )  ->  b h  s d "}) {
        const std::string text = literal;
        const auto p = parse_pattern(text);
        const auto q = parse_pattern(std::string_view(literal));
        CHECK(p.error.code == q.error.code);
        CHECK(p.error.message().view() == q.error.message().view());
        CHECK(p.left.dim_count == q.left.dim_count);
        CHECK(p.right.dim_count == q.right.dim_count);
    }
    const std::string text = "b s (h d) -> b h s d";
    const auto p = parse_pattern(text);
    REQUIRE(!p.error);
    CHECK(p.left.dims[2].count == 2);
    CHECK(p.left.axis_of(p.left.dims[2], 1).where.in(text) == "d");
}
