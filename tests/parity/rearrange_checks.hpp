// The rearrange parity check, instantiated for each recorded case by the generated shards:
// with static extents (the compiler plans it and finds every mistake), with dynamic extents
// (shape mistakes become exceptions), and through the run-time planner (`ctein explain`).
#pragma once

#include "parity.hpp"

#include <string>

namespace parity {

template <ctein::fixed_string Pattern, class T, class Extents, class... Lengths>
void check_rearrange(const json& c) {
    using ctein::plan::operation;
    const bool expect_error = c.at("expect") == "error";

    // static extents and constant lengths: the compiler's plan
    using static_view = ctein::view<const T, "", Extents>;
    using static_plan = ctein::detail::planned<Pattern, operation::rearrange, static_view, Lengths...>;
    ctein::tensor_of<T, "", Extents> input(Extents{});
    fill(input, c);
    if constexpr (static_plan::error) {
        CHECK(expect_error);
        check_message(static_plan::error.message().view(), c);
    } else {
        REQUIRE_FALSE(expect_error);
        check_output(ctein::eval(ctein::rearrange<Pattern>(input, Lengths{}...)), c);
    }

    // dynamic extents and run-time lengths: what the compiler cannot see is checked at run time
    using dynamic_extents = ctein::dims<Extents::rank()>;
    using dynamic_view = ctein::view<const T, "", dynamic_extents>;
    using dynamic_plan = ctein::detail::planned<Pattern, operation::rearrange, dynamic_view,
                                                ctein::axis_length<Lengths::name, ctein::dyn>...>;
    const dynamic_view dynamic(input.data(), dynamic_extents::from_all(input.extents().values()));
    if constexpr (dynamic_plan::error) {
        CHECK(expect_error);
        check_message(dynamic_plan::error.message().view(), c);
    } else if (expect_error) {
        try {
            (void)ctein::rearrange<Pattern>(dynamic, ctein::len<Lengths::name>(Lengths::static_value)...);
            FAIL("no exception for " << c.at("id").get<std::string>());
        } catch (const ctein::shape_error& e) {
            check_message(e.message(), c);
        }
    } else {
        check_output(ctein::eval(ctein::rearrange<Pattern>(
                         dynamic, ctein::len<Lengths::name>(Lengths::static_value)...)),
                     c);
    }

    // the run-time planner, on the pattern as a run-time string
    const std::string pattern = c.at("pattern");
    const auto given = given_lengths(c);
    const auto recipe = ctein::plan::make_recipe(pattern, operation::rearrange, operand_of(c), given);
    if (expect_error) {
        check_message(recipe.error.message().view(), c);
    } else {
        REQUIRE(recipe.ok());
        const auto shape = c.at("output_shape").get<std::vector<std::size_t>>();
        REQUIRE(recipe.output_rank == shape.size());
        for (std::size_t r = 0; r < shape.size(); ++r) CHECK(recipe.output_extents[r] == shape[r]);
    }
}

} // namespace parity
