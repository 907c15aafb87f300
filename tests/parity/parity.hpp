// Support for the einops parity tests: the recorded cases, their inputs, and how a ctein error
// message is compared with the one einops gave.
#pragma once

#include <ctein/ctein.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace parity {

using json = nlohmann::ordered_json;

/// Every recorded case, in file order: the einops recording shipped with the tests, then the
/// supplementary one made by tools/einops_cases.py.
inline const std::vector<json>& records() {
    static const std::vector<json> all = [] {
        std::vector<json> out;
        for (const char* file : {"einops_cases.jsonl", "einops_cases_extra.jsonl"}) {
            std::ifstream in(std::string(CTEIN_TEST_DATA_DIR) + "/" + file);
            REQUIRE(in.good());
            for (std::string line; std::getline(in, line);) {
                if (line.empty()) continue;
                json record = json::parse(line);
                if (record.at("op") != "_meta") out.push_back(std::move(record));
            }
        }
        return out;
    }();
    return all;
}

/// The input shape of a case (a list input is stacked on a new first axis, as einops does).
inline std::vector<std::size_t> input_shape(const json& c) {
    if (c.at("input_shapes").empty()) return {};
    std::vector<std::size_t> shape = c.at("input_shapes").at(0).get<std::vector<std::size_t>>();
    if (c.value("list_input", false)) shape.insert(shape.begin(), c.at("input_shapes").size());
    return shape;
}

/// Element n of input k (of a list input, or of einsum's and pack's operands), by the case's
/// formula (tests/data/einops_cases.md).
template <class T>
T formula_value(const json& c, std::size_t k, std::size_t n) {
    const std::string formula = c.at("input_formula");
    if (formula == "affine")
        return static_cast<T>(static_cast<float>(n) * 0.5f - 3.0f + 10.0f * static_cast<float>(k));
    if (formula == "prod_safe") return static_cast<T>(1.0f + static_cast<float>(n % 5) * 0.25f);
    if (formula == "bool_mod3") return static_cast<T>(n % 3 == 0);
    return static_cast<T>(n);
}

/// Fills input `k` of a case; a list input is stacked, element k of the list counting from 0.
template <class Tensor>
void fill(Tensor& t, const json& c, std::size_t k = 0) {
    using T = typename Tensor::value_type;
    std::size_t element = t.size();
    if (c.value("list_input", false)) {
        element = 1;
        for (std::size_t length : c.at("input_shapes").at(0).get<std::vector<std::size_t>>())
            element *= length;
    }
    for (std::size_t i = 0; i < t.size(); ++i)
        t.data()[i] = formula_value<T>(c, k + i / element, i % element);
}

/// The names of a printed Python set, `{'d', 'c'}` or `{2-axis}`.
inline std::set<std::string> set_names(std::string_view set) {
    std::set<std::string> names;
    set = set.substr(1, set.size() - 2);
    while (!set.empty()) {
        const std::size_t end = set.find(", ");
        std::string_view name = set.substr(0, end);
        if (name.size() >= 2 && name.front() == '\'') name = name.substr(1, name.size() - 2);
        names.emplace(name);
        set = end == std::string_view::npos ? std::string_view{} : set.substr(end + 2);
    }
    return names;
}

/// Checks ctein's message against the case's. The text must be einops' own, except where ctein
/// deliberately says more (documented in README "Errors"): a pattern without exactly one
/// arrow, where einops leaks a Python unpacking error; a bad name among the lengths, where
/// einops prints a tuple; and einsum or pack without tensors, where Python's message is about
/// its argument list; and einsum's operand count, where numpy's message is inverted. Messages
/// the compiler gives for dynamic extents write the lengths it does not know as `?`. Python sets are compared
/// as sets, their order being Python's hashing. Whether `ours` reads as `expected` where each `?` of ours (a
/// length the compiler did not know when it found the mistake) stands for a number.
inline bool same_but_unknown_lengths(std::string_view ours, std::string_view expected) {
    std::size_t e = 0;
    for (char c : ours) {
        if (c == '?') {
            if (e == expected.size() || !std::isdigit(static_cast<unsigned char>(expected[e]))) return false;
            while (e < expected.size() && std::isdigit(static_cast<unsigned char>(expected[e]))) ++e;
        } else if (e == expected.size() || expected[e++] != c) {
            return false;
        }
    }
    return e == expected.size();
}

inline void check_message(std::string_view ours, const json& c) {
    const std::string expected = c.at("error_core");
    const std::string pattern = c.at("pattern");
    INFO("case " << c.at("id").get<std::string>() << ": pattern \"" << pattern << "\"\n  ctein: " << ours
                 << "\n  einops: " << expected);
    if (c.at("error_kind") == "no_arrow") {
        std::size_t arrows = 0;
        for (std::size_t at = pattern.find("->"); at != std::string::npos; at = pattern.find("->", at + 2))
            ++arrows;
        CHECK(ours ==
              "Pattern must contain '->' exactly once, it contains it " + std::to_string(arrows) + " times");
        return;
    }
    // C++ calls that Python cannot make wrong the same way: no tensors at all
    if (c.at("error_kind") == "einsum_too_few_args") {
        CHECK(ours == "ctein::einsum takes at least one tensor");
        return;
    }
    if (c.at("error_kind") == "pack_empty") {
        CHECK(ours == "pack(..., \"" + pattern + "\") needs at least one tensor");
        return;
    }
    // numpy's two operand-count messages say the opposite of what happened; ctein's say which
    if (c.at("error_kind") == "einsum_operand_count") {
        const std::size_t subscripts = 1 + std::count(pattern.begin(), pattern.end(), ',');
        CHECK(ours ==
              std::string(subscripts > c.at("input_shapes").size() ? "fewer" : "more") +
                  " operands provided to einstein sum function than specified in the subscripts string");
        return;
    }
    if (ours.find('?') != std::string_view::npos) {
        CHECK(same_but_unknown_lengths(ours, expected));
        return;
    }
    if (expected.starts_with("('Invalid name for an axis', '")) {
        const std::string name = expected.substr(30, expected.size() - 32);
        CHECK(ours == "Invalid name for an axis: " + name);
        return;
    }
    const std::size_t open = expected.find('{');
    if (c.contains("error_axes") || (open != std::string::npos && expected.back() == '}' &&
                                     expected.find("-axis}") != std::string::npos)) {
        REQUIRE(ours.size() > open);
        CHECK(ours.substr(0, open) == expected.substr(0, open));
        CHECK(set_names(ours.substr(open)) == set_names(std::string_view(expected).substr(open)));
        return;
    }
    CHECK(ours == expected);
}

/// Checks a result's shape and elements against the case's output: exactly, or within a
/// relative `tolerance` (a mean divides, and its rounding may differ from numpy's).
template <class Tensor>
void check_output(const Tensor& out, const json& c, double tolerance = 0) {
    INFO("case " << c.at("id").get<std::string>() << ": pattern \"" << c.at("pattern").get<std::string>()
                 << "\"");
    const auto shape = c.at("output_shape").get<std::vector<std::size_t>>();
    REQUIRE(Tensor::rank() == shape.size());
    for (std::size_t r = 0; r < shape.size(); ++r) CHECK(out.extent(r) == shape[r]);
    const auto& values = c.at("output");
    REQUIRE(out.size() == values.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        using T = typename Tensor::value_type;
        if constexpr (std::is_floating_point_v<T>) {
            // exact: every input is a multiple of 0.25, so any order of sums and products is exact
            const double expected = values[i].get<double>(), got = out.data()[i];
            if (tolerance == 0 ? got != expected : std::abs(got - expected) > tolerance * std::abs(expected))
                FAIL_CHECK("element " << i << ": " << out.data()[i] << " != " << values[i]);
        } else {
            if (out.data()[i] != values[i].get<T>()) FAIL_CHECK("element " << i << " differs");
        }
    }
}

/// A case's given lengths as the run-time planner takes them.
inline std::vector<ctein::plan::given_length> given_lengths(const json& c) {
    std::vector<ctein::plan::given_length> given;
    for (const auto& [name, value] : c.at("axes_lengths").items())
        given.push_back({std::string_view(name), value.get<std::size_t>()});
    return given;
}

/// The run-time planner's operand for a shape, with the element type of the case.
inline ctein::plan::operand operand_of(const json& c, const std::vector<std::size_t>& shape) {
    ctein::plan::operand o;
    o.floating_point = c.at("input_formula") != "bool_mod3" && c.at("input_formula") != "int_arange";
    o.rank = shape.size();
    for (std::size_t r = 0; r < shape.size() && r < ctein::plan::max_dims; ++r) o.extents[r] = shape[r];
    return o;
}

/// The run-time planner's operand for a case's (first) input.
inline ctein::plan::operand operand_of(const json& c) {
    return operand_of(c, input_shape(c));
}

using check_function = void (*)(const json&);

/// The checks of each operation, by case id; filled by the shards' static registrars.
inline std::map<std::string, std::map<std::string, check_function>>& registry() {
    static std::map<std::string, std::map<std::string, check_function>> checks;
    return checks;
}

struct registered_case {
    const char* operation;
    const char* id;
    check_function check;
};

struct registrar {
    registrar(std::initializer_list<registered_case> cases) {
        for (const registered_case& c : cases) registry()[c.operation][c.id] = c.check;
    }
};

} // namespace parity
