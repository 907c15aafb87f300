// The parity checks, instantiated for each recorded case by the generated shards. Every case is
// run three ways: with static extents (the compiler plans it and finds every mistake), with
// dynamic extents (shape mistakes become exceptions), and through the run-time planner that
// `ctein explain` uses, on the pattern as a run-time string.
#pragma once

#include "parity.hpp"

#include <ctein/expr/einsum.hpp>
#include <ctein/expr/pack.hpp>
#include <ctein/expr/parse_shape.hpp>
#include <ctein/expr/reduce.hpp>
#include <ctein/expr/repeat.hpp>

#include <string>
#include <tuple>
#include <utility>

namespace parity {

using ctein::plan::operation;

/// Checks one way of running a case: `error` is the compiler's diagnostic (if any); otherwise
/// `run` computes the result, which must either match the output or throw the expected error.
template <class Run>
void check_way(const json& c, const ctein::diagnostic& error, Run run) {
    const bool expect_error = c.at("expect") == "error";
    if (error) {
        CHECK(expect_error);
        check_message(error.message().view(), c);
    } else if (expect_error) {
        try {
            run();
            FAIL("no exception for " << c.at("id").get<std::string>());
        } catch (const ctein::error& e) {
            check_message(e.message(), c);
        }
    } else {
        run();
    }
}

/// Checks the run-time planner's verdict: the expected message, or success.
inline void check_planned(const json& c, const ctein::diagnostic& error) {
    if (c.at("expect") == "error") {
        check_message(error.message().view(), c);
    } else {
        INFO("case " << c.at("id").get<std::string>() << ": " << error.message().view());
        CHECK_FALSE(error);
    }
}

template <operation Op, ctein::fixed_string Pattern, ctein::fixed_string Reduction, class X, class... Lengths>
auto apply(X&& x, Lengths... lengths) {
    if constexpr (Op == operation::rearrange) return ctein::rearrange<Pattern>(x, lengths...);
    if constexpr (Op == operation::repeat) return ctein::repeat<Pattern>(x, lengths...);
    if constexpr (Op == operation::reduce) return ctein::reduce<Pattern, Reduction>(x, lengths...);
}

/// rearrange, repeat and reduce: the recipe.
template <operation Op, ctein::fixed_string Pattern, ctein::fixed_string Reduction, class T, class Extents,
          class... Lengths>
void check_recipe(const json& c) {
    const double tolerance = Reduction == ctein::fixed_string("mean") ? 1e-6 : 0;
    ctein::tensor_of<T, "", Extents> input(Extents{});
    fill(input, c);

    using static_view = ctein::view<const T, "", Extents>;
    using static_plan = ctein::detail::planned_as<Pattern, Op, Reduction, static_view, Lengths...>;
    check_way(c, static_plan::error, [&] {
        if constexpr (!static_plan::error)
            check_output(ctein::eval(apply<Op, Pattern, Reduction>(input, Lengths{}...)), c, tolerance);
    });

    using dynamic_extents = ctein::dims<Extents::rank()>;
    using dynamic_view = ctein::view<const T, "", dynamic_extents>;
    using dynamic_plan = ctein::detail::planned_as<Pattern, Op, Reduction, dynamic_view,
                                                   ctein::axis_length<Lengths::name, ctein::dyn>...>;
    const dynamic_view dynamic(input.data(), dynamic_extents::from_all(input.extents().values()));
    check_way(c, dynamic_plan::error, [&] {
        if constexpr (!dynamic_plan::error)
            check_output(ctein::eval(apply<Op, Pattern, Reduction>(
                             dynamic, ctein::len<Lengths::name>(Lengths::static_value)...)),
                         c, tolerance);
    });

    const std::string pattern = c.at("pattern");
    const auto given = given_lengths(c);
    const std::string reduction = c.at("reduction").is_string() ? c.at("reduction").get<std::string>() : "";
    const auto recipe = ctein::plan::make_recipe(pattern, Op, operand_of(c), given, reduction);
    check_planned(c, recipe.error);
    if (recipe.ok() && c.at("expect") == "ok") {
        const auto shape = c.at("output_shape").get<std::vector<std::size_t>>();
        REQUIRE(recipe.output_rank == shape.size());
        for (std::size_t r = 0; r < shape.size(); ++r) CHECK(recipe.output_extents[r] == shape[r]);
    }
}

/// Operand tensors of a case, filled as einops' recorder filled them.
template <class T, class... Extents, std::size_t... K>
auto operands_of(const json& c, std::index_sequence<K...>) {
    std::tuple<ctein::tensor_of<T, "", Extents>...> tensors{ctein::tensor_of<T, "", Extents>(Extents{})...};
    (fill(std::get<K>(tensors), c, K), ...);
    return tensors;
}

template <class T, class Extents>
auto dynamic_view_of(const ctein::tensor_of<T, "", Extents>& t) {
    using dynamic_extents = ctein::dims<Extents::rank()>;
    return ctein::view<const T, "", dynamic_extents>(t.data(),
                                                     dynamic_extents::from_all(t.extents().values()));
}

inline std::vector<ctein::plan::operand> operands_of(const json& c) {
    std::vector<ctein::plan::operand> operands;
    for (const auto& shape : c.at("input_shapes"))
        operands.push_back(operand_of(c, shape.get<std::vector<std::size_t>>()));
    return operands;
}

template <ctein::fixed_string Pattern, class T, class... Extents>
void check_einsum(const json& c) {
    auto inputs = operands_of<T, Extents...>(c, std::index_sequence_for<Extents...>{});
    using static_plan = ctein::detail::einsum_planned<Pattern, ctein::view<const T, "", Extents>...>;
    check_way(c, static_plan::error, [&] {
        if constexpr (!static_plan::error)
            std::apply([&](const auto&... x) { check_output(ctein::einsum<Pattern>(x...), c); }, inputs);
    });
    using dynamic_plan =
        ctein::detail::einsum_planned<Pattern, ctein::view<const T, "", ctein::dims<Extents::rank()>>...>;
    check_way(c, dynamic_plan::error, [&] {
        if constexpr (!dynamic_plan::error)
            std::apply(
                [&](const auto&... x) {
                    check_output(ctein::einsum<Pattern>(dynamic_view_of<T, Extents>(x)...), c);
                },
                inputs);
    });
    const auto operands = operands_of(c);
    check_planned(c, ctein::plan::make_einsum_plan(c.at("pattern").get<std::string>(), operands).error);
}

template <ctein::fixed_string Pattern, class T, class... Extents>
void check_pack(const json& c) {
    auto inputs = operands_of<T, Extents...>(c, std::index_sequence_for<Extents...>{});
    const auto check_result = [&](const auto& packed) {
        check_output(packed.first, c);
        const auto expected = c.at("packed_shapes_out").get<std::vector<std::vector<std::size_t>>>();
        std::size_t i = 0;
        const auto check_shape = [&](const auto& shape) {
            const auto values = shape.values();
            CHECK(std::vector<std::size_t>(values.begin(), values.end()) == expected.at(i++));
        };
        std::apply([&](const auto&... shape) { (check_shape(shape), ...); }, packed.second.shapes);
    };
    using static_plan = ctein::detail::pack_planned<Pattern, ctein::view<const T, "", Extents>...>;
    check_way(c, static_plan::error, [&] {
        if constexpr (!static_plan::error)
            std::apply([&](const auto&... x) { check_result(ctein::pack<Pattern>(x...)); }, inputs);
    });
    using dynamic_plan =
        ctein::detail::pack_planned<Pattern, ctein::view<const T, "", ctein::dims<Extents::rank()>>...>;
    check_way(c, dynamic_plan::error, [&] {
        if constexpr (!dynamic_plan::error)
            std::apply(
                [&](const auto&... x) {
                    check_result(ctein::pack<Pattern>(dynamic_view_of<T, Extents>(x)...));
                },
                inputs);
    });
    const auto operands = operands_of(c);
    check_planned(c, ctein::plan::make_pack_plan(c.at("pattern").get<std::string>(), operands).error);
}

/// The packed shapes of a case as unpack takes them: a -1 is a dynamic length of value `dyn`.
template <class... Shapes>
ctein::packed_shapes<Shapes...> shapes_of() {
    const auto shape = []<class E>(E) {
        std::array<std::size_t, E::rank()> values{};
        for (std::size_t r = 0; r < E::rank(); ++r) values[r] = E::static_extent(r);
        return E::from_all(values);
    };
    return {shape(Shapes{})...};
}

template <ctein::fixed_string Pattern, class T, class Extents, class... Shapes>
void check_unpack(const json& c) {
    ctein::tensor_of<T, "", Extents> input(Extents{});
    fill(input, c);
    const auto shapes = shapes_of<Shapes...>();
    const auto check_result = [&](const auto& pieces) {
        const auto& outputs = c.at("outputs");
        REQUIRE(outputs.size() == sizeof...(Shapes));
        std::size_t i = 0;
        std::apply(
            [&](const auto&... piece) {
                ((check_output(ctein::eval(piece), json{{"id", c.at("id")},
                                                        {"pattern", c.at("pattern")},
                                                        {"output_shape", outputs.at(i).at("shape")},
                                                        {"output", outputs.at(i).at("values")}}),
                  ++i),
                 ...);
            },
            pieces);
    };
    using static_plan = ctein::detail::unpack_planned<Pattern, ctein::view<const T, "", Extents>, Shapes...>;
    check_way(c, static_plan::error, [&] {
        if constexpr (!static_plan::error) check_result(ctein::unpack<Pattern>(input, shapes));
    });
    const auto dynamic = dynamic_view_of<T, Extents>(input);
    using dynamic_plan = ctein::detail::unpack_planned<Pattern, decltype(dynamic), Shapes...>;
    check_way(c, dynamic_plan::error, [&] {
        if constexpr (!dynamic_plan::error) check_result(ctein::unpack<Pattern>(dynamic, shapes));
    });
    std::vector<ctein::plan::packed_shape> packed;
    for (const auto& shape : c.at("packed_shapes")) {
        ctein::plan::packed_shape s;
        s.rank = shape.size();
        for (std::size_t r = 0; r < s.rank; ++r)
            s.lengths[r] = shape[r].get<long>() < 0 ? ctein::plan::infer_length : shape[r].get<std::size_t>();
        packed.push_back(s);
    }
    check_planned(
        c, ctein::plan::make_unpack_plan(c.at("pattern").get<std::string>(), operand_of(c), packed).error);
}

template <ctein::fixed_string Pattern, class T, class Extents>
void check_parse_shape(const json& c) {
    ctein::tensor_of<T, "", Extents> input(Extents{});
    const auto check_result = [&](const auto& parsed) {
        const auto expected = c.at("parse_shape_result");
        REQUIRE(parsed.size() == expected.size());
        for (const auto& [name, length] : expected.items())
            CHECK(parsed[name] == length.template get<std::size_t>());
    };
    using static_plan = ctein::detail::parse_shape_planned<Pattern, ctein::view<const T, "", Extents>>;
    check_way(c, static_plan::error, [&] {
        if constexpr (!static_plan::error) check_result(ctein::parse_shape<Pattern>(input));
    });
    const auto dynamic = dynamic_view_of<T, Extents>(input);
    using dynamic_plan = ctein::detail::parse_shape_planned<Pattern, decltype(dynamic)>;
    check_way(c, dynamic_plan::error, [&] {
        if constexpr (!dynamic_plan::error) check_result(ctein::parse_shape<Pattern>(dynamic));
    });
    check_planned(
        c, ctein::plan::make_parse_shape_plan(c.at("pattern").get<std::string>(), operand_of(c)).error);
}

} // namespace parity
