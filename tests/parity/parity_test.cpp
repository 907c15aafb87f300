// Runs every recorded einops case against its generated check, and through `ctein explain`.
#include "parity.hpp"

#include <explain.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace {

/// The case as a `ctein explain` command line: its pattern, operation, shapes and lengths.
std::vector<std::string> explain_arguments(const parity::json& c) {
    const std::string op = c.at("op");
    std::vector<std::string> args{c.at("pattern"), "--op",
                                  op == "reduce" ? "reduce:" + c.at("reduction").get<std::string>() : op};
    const auto add_shape = [&](const std::vector<std::size_t>& shape) {
        std::string text;
        for (std::size_t length : shape) {
            if (!text.empty()) text += ',';
            text += std::to_string(length);
        }
        args.insert(args.end(), {"--shape", text.empty() ? "()" : text});
    };
    if (op == "einsum" || op == "pack") {
        for (const auto& shape : c.at("input_shapes")) add_shape(shape.get<std::vector<std::size_t>>());
    } else if (!c.at("input_shapes").empty()) {
        add_shape(parity::input_shape(c));
    }
    for (const auto& [name, value] : c.at("axes_lengths").items())
        args.insert(args.end(), {"-a", name + "=" + std::to_string(value.get<long>())});
    if (c.contains("packed_shapes")) args.insert(args.end(), {"--packed", c.at("packed_shapes").dump()});
    const std::string formula = c.at("input_formula");
    if (formula == "bool_mod3" || formula == "int_arange") args.insert(args.end(), {"--dtype", "int"});
    return args;
}

/// `ctein explain` gives the case's error with the same text, or plans the case's output shape.
void check_explain(const parity::json& c) {
    const std::vector<std::string> args = explain_arguments(c);
    const std::vector<std::string_view> words(args.begin(), args.end());
    const auto result = ctein::tool::explain(words);
    INFO("ctein explain output:\n" << result.text);
    if (c.at("expect") == "error") {
        REQUIRE(result.status == 1);
        const std::size_t at = result.text.find("error:     ");
        REQUIRE(at != std::string::npos);
        std::string message = result.text.substr(at + 11);
        message.pop_back(); // the newline
        parity::check_message(message, c);
        return;
    }
    REQUIRE(result.status == 0);
    if (c.contains("output_shape")) {
        std::string shape = "(";
        const auto& s = c.at("output_shape");
        for (std::size_t i = 0; i < s.size(); ++i)
            shape += (i ? ", " : "") + std::to_string(s[i].get<long>());
        shape += s.size() == 1 ? ",)" : ")";
        CHECK(result.text.find("output:    " + shape) != std::string::npos);
    }
}

void check_all(const std::string& operation, std::size_t at_least) {
    const auto& checks = parity::registry()[operation];
    std::size_t checked = 0;
    for (const auto& c : parity::records()) {
        if (c.at("op") != operation) continue;
        // the pattern is a C++ template argument: it cannot be passed in the wrong place
        if (c.value("error_kind", "") == "einsum_pattern_not_last") continue;
        const std::string id = c.at("id");
        const auto check = checks.find(id);
        REQUIRE(check != checks.end()); // every recorded case has its instantiated check
        DYNAMIC_SECTION(id) {
            check->second(c);
            check_explain(c);
        }
        ++checked;
    }
    CHECK(checked == checks.size()); // and every check its recorded case
    CHECK(checked >= at_least);
}
} // namespace

TEST_CASE("rearrange agrees with einops on every recorded case", "[parity][rearrange]") {
    check_all("rearrange", 182);
}
TEST_CASE("reduce agrees with einops on every recorded case", "[parity][reduce]") {
    check_all("reduce", 79);
}
TEST_CASE("repeat agrees with einops on every recorded case", "[parity][repeat]") {
    check_all("repeat", 50);
}
TEST_CASE("einsum agrees with einops on every recorded case", "[parity][einsum]") {
    check_all("einsum", 33);
}
TEST_CASE("pack agrees with einops on every recorded case", "[parity][pack]") {
    check_all("pack", 17);
}
TEST_CASE("unpack agrees with einops on every recorded case", "[parity][unpack]") {
    check_all("unpack", 19);
}
TEST_CASE("parse_shape agrees with einops on every recorded case", "[parity][parse_shape]") {
    check_all("parse_shape", 25);
}
