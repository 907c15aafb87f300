// The checks of slice, index and chunk (plan/axis_range_plan.hpp), run by the compiler.
#include <ctein/plan/axis_range_plan.hpp>

#include <catch2/catch.hpp>

using namespace ctein::plan;
using ctein::dyn;
using ctein::errc;

namespace {
constexpr operand x{3, {2, 16, 64}, "b s d"};
constexpr operand dynamic_s{3, {2, dyn, 64}, "b s d"};
} // namespace

TEST_CASE("slice plans: the axis, the extent, the bounds", "[plan][slice]") {
    STATIC_REQUIRE(make_slice_plan(x, "s", 4, 12).dim == 1);
    STATIC_REQUIRE(make_slice_plan(x, "s", 4, 12).extent == 8);
    STATIC_REQUIRE(make_slice_plan(x, "s", dyn, 12).extent == dyn);
    STATIC_REQUIRE(make_slice_plan(x, "s", 16, 16).extent == 0);
    STATIC_REQUIRE(make_slice_plan(x, "s", 4, 17).error.code == errc::slice_out_of_range);
    STATIC_REQUIRE(make_slice_plan(x, "s", 5, 4).error.code == errc::slice_out_of_range);
    STATIC_REQUIRE(make_slice_plan(x, "s", 17, dyn).error.code == errc::slice_out_of_range);
    STATIC_REQUIRE(!make_slice_plan(dynamic_s, "s", 4, 100).error); // checked at run time
    STATIC_REQUIRE(make_slice_plan(x, "t", 0, 1).error.code == errc::axis_not_in_tensor);
    STATIC_REQUIRE(make_slice_plan(operand{3, {2, 16, 64}, ""}, "s", 0, 1).error.code ==
                   errc::axis_not_in_tensor);
    STATIC_REQUIRE(make_slice_plan(x, "s", 4, 17).error.message().view() ==
                   "Slice [4, 17) is out of range for axis s of length 16");
    STATIC_REQUIRE(make_slice_plan(x, "t", 0, 1).error.message().view() ==
                   "Axis t is not an axis of the tensor named \"b s d\"");
}

TEST_CASE("index and chunk plans", "[plan][slice]") {
    STATIC_REQUIRE(make_index_plan(x, "b", 1).dim == 0);
    STATIC_REQUIRE(make_index_plan(x, "b", 2).error.code == errc::index_out_of_range);
    STATIC_REQUIRE(!make_index_plan(x, "b", dyn).error);
    STATIC_REQUIRE(make_chunk_plan(x, "d", 2).extent == 32);
    STATIC_REQUIRE(make_chunk_plan(x, "d", 3).error.code == errc::chunk_not_divisible);
    STATIC_REQUIRE(make_chunk_plan(x, "d", 0).error.code == errc::chunk_not_divisible);
    STATIC_REQUIRE(make_chunk_plan(dynamic_s, "s", 3).extent == dyn);
}
