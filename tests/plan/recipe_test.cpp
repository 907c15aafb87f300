#include <ctein/plan/recipe.hpp>

#include <catch2/catch.hpp>

#include <array>

using namespace ctein::plan;
using ctein::dyn;
using ctein::errc;

namespace {
constexpr recipe rearrange(std::string_view pattern, operand input,
                           std::span<const given_length> given = {}) {
    return make_recipe(pattern, operation::rearrange, input, given);
}
constexpr std::array<given_length, 1> h8{given_length{"h", 8}};
} // namespace

TEST_CASE("a head split: static lengths solved, a dynamic one left to run time", "[plan]") {
    constexpr auto r = rearrange("b s (h d) -> b h s d", {3, {2, dyn, 512}, ""}, h8);
    STATIC_REQUIRE(r.ok());
    STATIC_REQUIRE(r.axis_count == 4);
    STATIC_REQUIRE(r.input_rank == 3);
    STATIC_REQUIRE(r.input_dims[2].first == 2);
    STATIC_REQUIRE(r.input_dims[2].count == 2);
    STATIC_REQUIRE(r.axes[2].source == length_source::given);
    STATIC_REQUIRE(r.output_rank == 4);
    STATIC_REQUIRE(r.output_axes[1] == 2); // h
    STATIC_REQUIRE(r.output_axes[2] == 1); // s
    STATIC_REQUIRE(r.output_extents[0] == 2);
    STATIC_REQUIRE(r.output_extents[1] == 8);
    STATIC_REQUIRE(r.output_extents[2] == dyn);
    STATIC_REQUIRE(r.output_extents[3] == 64);
    STATIC_REQUIRE(r.output_names.view() == "b h s d");
}

TEST_CASE("solve_lengths finishes at run time what the compiler left open", "[plan]") {
    constexpr auto r = rearrange("b s (h d) -> b h s d", {3, {2, dyn, dyn}, ""}, h8);
    STATIC_REQUIRE(r.lengths[3] == dyn); // d: the channels are dynamic
    std::array<std::size_t, max_axes> lengths{};
    const std::array<std::size_t, 3> extents{2, 5, 512};
    const std::array<std::size_t, 1> given{8};
    CHECK_FALSE(solve_lengths(r, extents, given, lengths));
    CHECK(lengths[1] == 5);
    CHECK(lengths[3] == 64);
    const std::array<std::size_t, 3> bad{2, 5, 500};
    const auto d = solve_lengths(r, bad, given, lengths);
    CHECK(d.message().view() == "Shape mismatch, can't divide axis of length 500 in chunks of 8");
}

TEST_CASE("a merge names the merged axis by its parts", "[plan]") {
    constexpr auto r = rearrange("b h s d -> b s (h d)", {4, {2, 8, dyn, 64}, "b h s d"});
    STATIC_REQUIRE(r.ok());
    STATIC_REQUIRE(r.output_names.view() == "b s (h d)");
    STATIC_REQUIRE(r.output_extents[2] == 512);
    constexpr auto back = rearrange("b s (h d) -> b h s d", {3, {2, dyn, 512}, "b s (h d)"}, h8);
    STATIC_REQUIRE(back.ok());
    STATIC_REQUIRE(back.output_names.view() == "b h s d");
}

TEST_CASE("the ellipsis carries the tensor's names to the output", "[plan]") {
    constexpr auto r = rearrange("... s (h d) -> ... h s d", {4, {2, 3, 5, 16}, "b t s c"}, h8);
    STATIC_REQUIRE(r.ok());
    STATIC_REQUIRE(r.output_names.view() == "b t h s d");
    constexpr auto merged = rearrange("... c -> (...) c", {3, {2, 3, 4}, "b (h d) c"});
    STATIC_REQUIRE(merged.output_names.view() == "(b h d) c");
    constexpr auto unnamed = rearrange("... c -> (...) c", {3, {2, 3, 4}, ""});
    STATIC_REQUIRE(unnamed.output_names.view() == "_ c");
    constexpr auto units = rearrange("a b -> a 1 b ()", {2, {2, 3}, ""});
    STATIC_REQUIRE(units.output_names.view() == "a 1 b 1");
    STATIC_REQUIRE(units.output_extents[3] == 1);
}

TEST_CASE("names bind: a lone name the same name, a group splits a name, _ anything", "[plan]") {
    STATIC_REQUIRE(rearrange("b s (h d) -> b h s d", {3, {2, 5, 512}, "b s c"}, h8).ok());
    STATIC_REQUIRE(rearrange("b s (h d) -> b h s d", {3, {2, 5, 512}, "_ s (h d)"}, h8).ok());
    STATIC_REQUIRE(rearrange("a b -> b a", {2, {2, 5}, "_ _"}).ok());
    STATIC_REQUIRE(rearrange("a 1 -> a", {2, {2, 1}, "a 1"}).ok());
    constexpr auto swapped = rearrange("b s h d -> b s (h d)", {4, {2, 8, 5, 64}, "b h s d"});
    STATIC_REQUIRE(swapped.error.code == errc::axis_names_mismatch);
    STATIC_REQUIRE(swapped.error.message().view() ==
                   "pattern axes \"b s h d\" do not match tensor axes \"b h s d\"");
    STATIC_REQUIRE(swapped.error.column == 2); // the first dimension that does not bind
    STATIC_REQUIRE(rearrange("b s c -> b c s", {3, {2, 5, 512}, "b s (h d)"}).error.code ==
                   errc::axis_names_mismatch);
    STATIC_REQUIRE(
        rearrange("b s (x y) -> b s x y", {3, {2, 5, 512}, "b s (h d)"}, std::array{given_length{"x", 8}})
            .error.code == errc::axis_names_mismatch);
    STATIC_REQUIRE(rearrange("b 1 c -> b c", {3, {2, 1, 4}, "b s c"}).error.code ==
                   errc::axis_names_mismatch);
}

TEST_CASE("errors come in einops' order", "[plan]") {
    // identifiers before the number of dimensions
    STATIC_REQUIRE(rearrange("a b c d -> a b c e", {3, {2, 3, 4}, ""}).error.code ==
                   errc::identifiers_one_side);
    // the number of dimensions before the given lengths
    STATIC_REQUIRE(
        rearrange("a b c d -> a b c d", {3, {2, 3, 4}, ""}, std::array{given_length{"z", 1}}).error.code ==
        errc::wrong_ndim);
    // given lengths in the order given: an unused one before a later invalid one
    constexpr std::array<given_length, 2> lengths{given_length{"z", 2}, given_length{"_x", 3}};
    STATIC_REQUIRE(rearrange("a b -> b a", {2, {2, 3}, ""}, lengths).error.code == errc::unused_axis_length);
    // what cannot be inferred before the lengths that are known
    STATIC_REQUIRE(
        rearrange("(a b) (c d) -> a b c d", {2, {3, 4}, ""}, std::array{given_length{"a", 2}}).error.code ==
        errc::cannot_infer);
    // ctein's own: a length given twice
    constexpr std::array<given_length, 2> twice{given_length{"h", 2}, given_length{"h", 2}};
    STATIC_REQUIRE(rearrange("(h d) -> h d", {1, {4}, ""}, twice).error.code == errc::length_given_twice);
}

TEST_CASE("reduce and repeat follow their own identifier rules", "[plan]") {
    constexpr auto reduce = make_recipe("a b -> a c", operation::reduce, {2, {2, 3}, ""}, {}, "max");
    STATIC_REQUIRE(reduce.error.message().view() ==
                   "Unexpected identifiers on the right side of reduce max: {'c'}");
    constexpr auto reduced =
        make_recipe("b h s d -> b s d", operation::reduce, {4, {2, 8, 5, 64}, ""}, {}, "sum");
    STATIC_REQUIRE(reduced.ok());
    STATIC_REQUIRE(!reduced.axes[1].on_right); // h is reduced
    STATIC_REQUIRE(reduced.output_names.view() == "b s d");
    constexpr auto repeat =
        make_recipe("h w -> h w c", operation::repeat, {2, {2, 3}, ""}, std::array{given_length{"d", 3}});
    STATIC_REQUIRE(repeat.error.message().view() == "Specify sizes for new axes in repeat: {'c'}");
    constexpr auto gqa = make_recipe("b g s d -> b (g r) s d", operation::repeat, {4, {1, 8, 5, 64}, ""},
                                     std::array{given_length{"r", 4}});
    STATIC_REQUIRE(gqa.ok());
    STATIC_REQUIRE(gqa.output_extents[1] == 32);
    STATIC_REQUIRE(!gqa.axes[4].on_left); // r is new
}
