#include <ctein/core/error.hpp>

#include <catch2/catch.hpp>

using ctein::errc;
using ctein::make_error;

TEST_CASE("messages fill the format's placeholders in order", "[core]") {
    constexpr auto d = make_error(errc::wrong_ndim).with_number(4).with_number(3);
    STATIC_REQUIRE(d.message().view() == "Wrong shape: expected 4 dims. Received 3-dim tensor.");
    STATIC_REQUIRE(static_cast<bool>(d));
    STATIC_REQUIRE(!ctein::diagnostic{});
    constexpr auto t = make_error(errc::reduce_unknown_right).with_text("max").with_set().with_name("x");
    STATIC_REQUIRE(t.message().view() == "Unexpected identifiers on the right side of reduce max: {'x'}");
}

TEST_CASE("name sets print as einops prints a Python set", "[core]") {
    constexpr auto names = make_error(errc::cannot_infer).with_set().with_name("d").with_name("c");
    STATIC_REQUIRE(names.message().view() == "Could not infer sizes for {'d', 'c'}");
    // an anonymous axis is an object in einops, printed without quotes
    constexpr auto anonymous =
        make_error(errc::identifiers_one_side).with_set().with_name("2-axis").with_name("\xE2\x80\xA6");
    STATIC_REQUIRE(
        anonymous.message().view() ==
        "Identifiers only on one side of expression (should be on both): {2-axis, '\xE2\x80\xA6'}");
}

TEST_CASE("every error code has a message format", "[core]") {
    for (std::size_t code = 1; code <= ctein::error_code_count; ++code)
        CHECK_FALSE(ctein::error_format(static_cast<errc>(code)).empty());
    CHECK(ctein::error_format(errc::none).empty());
}

TEST_CASE("run-time errors carry the message first and the context after it", "[core]") {
    const auto mismatch = make_error(errc::length_mismatch).with_number(12).with_number(10);
    try {
        ctein::throw_error(mismatch, "while processing rearrange pattern \"a (b c) -> a b c\"");
        FAIL("no exception");
    } catch (const ctein::shape_error& e) {
        CHECK(e.code() == errc::length_mismatch);
        CHECK(e.message() == "Shape mismatch, 12 != 10");
        CHECK(std::string(e.what()) ==
              "Shape mismatch, 12 != 10\nwhile processing rearrange pattern \"a (b c) -> a b c\"");
    }
    CHECK_THROWS_AS(ctein::throw_error(make_error(errc::bad_dots)), ctein::pattern_error);
    CHECK_THROWS_AS(ctein::throw_error(make_error(errc::bad_dots)), ctein::error);
}
