#include <ctein/plan/view_plan.hpp>

#include <catch2/catch.hpp>

#include <array>

using namespace ctein::plan;

namespace {
constexpr view_kind kind(std::string_view pattern, bool contiguous, std::size_t rank = 3) {
    const operand input{rank, {2, 4, 4, 5}, ""};
    const std::array<given_length, 1> h{given_length{"h", 2}};
    const auto r =
        make_recipe(pattern, operation::rearrange, input,
                    pattern.find('h') == std::string_view::npos ? std::span(h).first(0) : std::span(h));
    if (!r.ok()) throw "the pattern must be valid"; // fails the constant evaluation
    return view_kind_of(r, contiguous);
}
} // namespace

TEST_CASE("reshapes stay contiguous, permutations and splits become strided", "[plan]") {
    STATIC_REQUIRE(kind("a b c -> a (b c)", true) == view_kind::contiguous);
    STATIC_REQUIRE(kind("a b (h d) -> (a b) h d", true) == view_kind::contiguous);
    STATIC_REQUIRE(kind("a b c -> c b a", true) == view_kind::strided);
    STATIC_REQUIRE(kind("a b (h d) -> a h b d", true) == view_kind::strided);
    STATIC_REQUIRE(kind("a b c -> a (b c)", false) == view_kind::grouped);       // strides of b and c unknown
    STATIC_REQUIRE(kind("a (h d) c -> a (h d) c", false) == view_kind::strided); // one input dimension
}

TEST_CASE("merging axes that are not neighbours in memory needs a grouped layout", "[plan]") {
    STATIC_REQUIRE(kind("a b c -> (c a) b", true) == view_kind::grouped);
    STATIC_REQUIRE(kind("a b c d -> a c (b d)", true, 4) == view_kind::grouped);
    STATIC_REQUIRE(kind("a b c d -> a (b c) d", true, 4) == view_kind::contiguous);
}

TEST_CASE("axis strides step over the axes after them in their dimension", "[plan]") {
    constexpr auto r = make_recipe("a (h d) c -> a h d c", operation::rearrange, {3, {2, 6, 4}, ""},
                                   std::array{given_length{"h", 2}});
    constexpr auto strides = [&] {
        std::array<std::ptrdiff_t, max_axes> out{};
        const std::array<std::ptrdiff_t, 3> input{100, 10, 1};
        axis_strides(r, input, r.lengths, out);
        return out;
    }();
    STATIC_REQUIRE(strides[0] == 100);
    STATIC_REQUIRE(strides[1] == 30); // h steps over d (3 long) of stride 10
    STATIC_REQUIRE(strides[2] == 10);
    STATIC_REQUIRE(strides[3] == 1);
    STATIC_REQUIRE(input_dim_of(r, 2) == 1);
}
