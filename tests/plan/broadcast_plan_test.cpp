// broadcast_plan (plan/broadcast_plan.hpp): how operands of an element-wise expression and of a
// concat line up, checked as the compiler runs it (static_assert) and as the program does.
#include <ctein/plan/broadcast_plan.hpp>

#include <catch2/catch.hpp>

#include <string_view>

namespace {
using ctein::dyn;
using ctein::errc;
using ctein::plan::broadcast_plan;
using ctein::plan::elementwise_shape;

constexpr elementwise_shape shape(std::initializer_list<std::size_t> lengths, std::string_view names) {
    elementwise_shape s;
    for (const std::size_t n : lengths) s.extents[s.rank++] = n;
    s.names.append(names);
    return s;
}
constexpr std::size_t none = broadcast_plan::none;
} // namespace

TEST_CASE("named operands meet by their names", "[broadcast_plan]") {
    constexpr broadcast_plan p =
        ctein::plan::make_broadcast_plan(shape({2, 4, 8, 64}, "b h s d"), shape({8, 64}, "s d"));
    STATIC_REQUIRE(!p.error);
    STATIC_REQUIRE(p.result.names == "b h s d");
    STATIC_REQUIRE(p.result.rank == 4);
    STATIC_REQUIRE(p.source[1][0] == none);
    STATIC_REQUIRE(p.source[1][2] == 0);
    STATIC_REQUIRE(p.source[1][3] == 1);
    // the operand that holds every name sets the order, whichever side it is on
    constexpr broadcast_plan q =
        ctein::plan::make_broadcast_plan(shape({8, 64}, "s d"), shape({2, 4, 8, 64}, "b h s d"));
    STATIC_REQUIRE(q.result.names == "b h s d");
    STATIC_REQUIRE(q.source[0][2] == 0);
    // a permuted operand is matched by names, not positions
    constexpr broadcast_plan t = ctein::plan::make_broadcast_plan(shape({3, 5}, "s d"), shape({5, 3}, "d s"));
    STATIC_REQUIRE(t.result.names == "s d");
    STATIC_REQUIRE(t.source[1][0] == 1);
    STATIC_REQUIRE(t.source[1][1] == 0);
    // neither holds the other: a's names, then b's new ones
    constexpr broadcast_plan u = ctein::plan::make_broadcast_plan(shape({2, 7}, "b s"), shape({7, 3}, "s d"));
    STATIC_REQUIRE(u.result.names == "b s d");
    STATIC_REQUIRE(u.result.extents[2] == 3);
    // a dynamic length takes the static one it meets
    constexpr broadcast_plan w =
        ctein::plan::make_broadcast_plan(shape({dyn, 64}, "s d"), shape({8, dyn}, "s d"));
    STATIC_REQUIRE(w.result.extents[0] == 8);
    STATIC_REQUIRE(w.result.extents[1] == 64);
}

TEST_CASE("named operands: a length clash and an unnamed axis are errors", "[broadcast_plan]") {
    constexpr broadcast_plan p =
        ctein::plan::make_broadcast_plan(shape({2, 8, 64}, "b s d"), shape({9, 64}, "s d"));
    STATIC_REQUIRE(p.error.code == errc::broadcast_length_mismatch);
    CHECK(p.error.message().view() == "Shape mismatch in element-wise expression for axis s: 8 != 9");
    // a named length 1 does not broadcast: the axis of one name has one length
    constexpr broadcast_plan one =
        ctein::plan::make_broadcast_plan(shape({2, 8}, "b s"), shape({1, 8}, "b s"));
    STATIC_REQUIRE(one.error.code == errc::broadcast_length_mismatch);
    constexpr broadcast_plan u = ctein::plan::make_broadcast_plan(shape({2, 8}, "b _"), shape({8}, "s"));
    STATIC_REQUIRE(u.error.code == errc::broadcast_unnamed_axis);
    CHECK(std::string_view(u.error.message().view()).starts_with("Dimension 1 of \"b _\" has no name"));
}

TEST_CASE("unnamed operands broadcast from the right, as numpy", "[broadcast_plan]") {
    constexpr broadcast_plan p = ctein::plan::make_broadcast_plan(shape({2, 1, 5}, ""), shape({3, 1}, ""));
    STATIC_REQUIRE(!p.error);
    STATIC_REQUIRE(p.result.rank == 3);
    STATIC_REQUIRE(p.result.extents[0] == 2);
    STATIC_REQUIRE(p.result.extents[1] == 3);
    STATIC_REQUIRE(p.result.extents[2] == 5);
    STATIC_REQUIRE(p.source[1][0] == none);
    STATIC_REQUIRE(p.source[1][1] == 0);
    constexpr broadcast_plan bad = ctein::plan::make_broadcast_plan(shape({2, 3}, ""), shape({4, 3}, ""));
    STATIC_REQUIRE(bad.error.code == errc::broadcast_shapes);
    CHECK(bad.error.message().view() == "operands could not be broadcast together with shapes (2, 3) (4, 3)");
    // a dynamic length meeting 1 stays dynamic; meeting 5, it is 5 (or the program says why not)
    constexpr broadcast_plan d = ctein::plan::make_broadcast_plan(shape({dyn, dyn}, ""), shape({1, 5}, ""));
    STATIC_REQUIRE(d.result.extents[0] == dyn);
    STATIC_REQUIRE(d.result.extents[1] == 5);
    // a scalar is rank 0
    constexpr broadcast_plan s = ctein::plan::make_broadcast_plan(shape({4}, "d"), elementwise_shape{});
    STATIC_REQUIRE(s.result.names == "d");
    STATIC_REQUIRE(s.source[1][0] == none);
}

TEST_CASE("an unnamed operand meets a named one from the right, and takes its names", "[broadcast_plan]") {
    constexpr broadcast_plan p =
        ctein::plan::make_broadcast_plan(shape({2, 8, 64}, "b s d"), shape({64}, ""));
    STATIC_REQUIRE(p.result.names == "b s d");
    STATIC_REQUIRE(p.source[1][2] == 0);
    // the unnamed one may not be longer: its extra axes would have no names
    constexpr broadcast_plan q = ctein::plan::make_broadcast_plan(shape({64}, "d"), shape({2, 64}, ""));
    STATIC_REQUIRE(q.error.code == errc::broadcast_shapes);
}

TEST_CASE("concat: the joined axis adds up, the others match by name", "[broadcast_plan]") {
    constexpr auto p =
        ctein::plan::make_concat_plan(shape({2, 8, 32}, "b s d"), shape({2, 8, 32}, "b s d"), "d");
    STATIC_REQUIRE(!p.error);
    STATIC_REQUIRE(p.dim == 2);
    STATIC_REQUIRE(p.result.extents[2] == 64);
    constexpr auto t =
        ctein::plan::make_concat_plan(shape({2, 8, 32}, "b s d"), shape({2, 32, 8}, "b d s"), "d");
    STATIC_REQUIRE(t.b_source[1] == 2);
    STATIC_REQUIRE(t.result.extents[2] == 64);
    constexpr auto d =
        ctein::plan::make_concat_plan(shape({2, dyn, 32}, "b s d"), shape({2, 8, dyn}, "b s d"), "d");
    STATIC_REQUIRE(d.result.extents[1] == 8);
    STATIC_REQUIRE(d.result.extents[2] == dyn);
    constexpr auto bad =
        ctein::plan::make_concat_plan(shape({2, 8, 32}, "b s d"), shape({2, 9, 32}, "b s d"), "d");
    STATIC_REQUIRE(bad.error.code == errc::concat_length_mismatch);
    CHECK(bad.error.message().view() == "Shape mismatch in concat along d for axis s: 8 != 9");
    constexpr auto names = ctein::plan::make_concat_plan(shape({2, 8}, "b d"), shape({2, 8}, "s d"), "d");
    STATIC_REQUIRE(names.error.code == errc::concat_names_mismatch);
    constexpr auto axis = ctein::plan::make_concat_plan(shape({2, 8}, "b d"), shape({2, 8}, "b d"), "s");
    STATIC_REQUIRE(axis.error.code == errc::axis_not_in_tensor);
}

TEST_CASE("a unit axis of length 1 meets nothing and broadcasts", "[broadcast_plan]") {
    constexpr broadcast_plan p =
        ctein::plan::make_broadcast_plan(shape({2, 1, 9, 9}, "b 1 q k"), shape({2, 4, 9, 9}, "b h q k"));
    STATIC_REQUIRE(!p.error);
    STATIC_REQUIRE(p.result.names == "b h q k");
    STATIC_REQUIRE(p.source[0][1] == none);
    STATIC_REQUIRE(p.source[0][2] == 2);
    // a unit name on a longer axis is no name at all
    constexpr broadcast_plan q = ctein::plan::make_broadcast_plan(shape({2, 3}, "b 1"), shape({2}, "b"));
    STATIC_REQUIRE(q.error.code == errc::broadcast_unnamed_axis);
}
