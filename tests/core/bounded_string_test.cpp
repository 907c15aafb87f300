#include <ctein/core/bounded_string.hpp>

#include <catch2/catch.hpp>

using ctein::bounded_string;

TEST_CASE("bounded_string builds text and numbers in constant expressions", "[core]") {
    constexpr auto text = [] {
        bounded_string<32> s("expected ");
        s.append_number(4);
        s.append(" dims, got ");
        s.append_number(0);
        return s;
    }();
    STATIC_REQUIRE(text.view() == "expected 4 dims, got 0");
    STATIC_REQUIRE(text.size() == 22);

    constexpr auto big = [] {
        bounded_string<32> s;
        s.append_number(18446744073709551615ull);
        return s;
    }();
    STATIC_REQUIRE(big.view() == "18446744073709551615");
}

TEST_CASE("bounded_string marks a truncated text with a trailing ellipsis", "[core]") {
    bounded_string<8> s;
    s.append("0123456789");
    CHECK(s.view() == "01234...");
    CHECK(s.size() == 8);
}
