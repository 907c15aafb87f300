// Writes the C++ tables of parity cases: for each recorded einops case, a line that instantiates
// its operation's checker with the case's pattern, reduction, element type, input extents and
// given lengths or packed shapes as template arguments (they must be compile-time constants).
// einsum's "pattern not last" cases are left out: a C++ pattern is a template argument and
// cannot be put in the wrong place.
// The lines are dealt round-robin into SHARDS files, PREFIX_0.inc ..., so that the compiler
// can work on several at once. Run by the build, so the tables always match the recorded cases.
//
// usage: generate_cases PREFIX SHARDS CASES.jsonl...
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// A C++ string literal for `text`: octal escapes (never greedy, unlike \x) for anything that
/// is not printable ASCII.
std::string literal(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c >= 0x7f) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\%03o", c);
            out += buffer;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

std::string element_type(const std::string& formula) {
    if (formula == "bool_mod3") return "bool";
    if (formula == "int_arange") return "std::int64_t";
    return "float";
}

/// `ctein::extents<2, 3>` for a shape; a -1 (unpack's "infer this") becomes `ctein::dyn`.
std::string extents(const nlohmann::ordered_json& shape) {
    std::string out;
    for (const auto& length : shape) {
        const long value = length.get<long>();
        out += (out.empty() ? "" : ", ") + (value < 0 ? std::string("ctein::dyn") : std::to_string(value));
    }
    return "ctein::extents<" + out + ">";
}

/// The template arguments of the check of one case, after its pattern and element type.
std::string check_arguments(const nlohmann::ordered_json& record) {
    const std::string op = record.at("op");
    std::string out;
    const auto add = [&](const std::string& argument) { out += ", " + argument; };
    if (op == "einsum" || op == "pack") {
        for (const auto& shape : record.at("input_shapes")) add(extents(shape));
        return out;
    }
    // one input; a list input is stacked on a new first axis, as einops does
    auto shape =
        record.at("input_shapes").empty() ? nlohmann::ordered_json::array() : record.at("input_shapes").at(0);
    if (record.value("list_input", false)) shape.insert(shape.begin(), record.at("input_shapes").size());
    add(extents(shape));
    if (op == "unpack") {
        for (const auto& packed : record.at("packed_shapes")) add(extents(packed));
    } else {
        for (const auto& [name, value] : record.at("axes_lengths").items())
            add("ctein::axis_length<" + literal(name) + ", " + std::to_string(value.get<long>()) + ">");
    }
    return out;
}

/// The check function of one case, with its template arguments.
std::string check_of(const nlohmann::ordered_json& record) {
    const std::string op = record.at("op");
    const std::string pattern = literal(record.at("pattern"));
    const std::string type = element_type(record.at("input_formula"));
    if (op == "rearrange" || op == "repeat" || op == "reduce") {
        const std::string reduction = record.at("reduction").is_string() ? record.at("reduction") : "";
        return "parity::check_recipe<ctein::plan::operation::" + op + ", " + pattern + ", " +
               literal(reduction) + ", " + type + check_arguments(record) + ">";
    }
    return "parity::check_" + op + "<" + pattern + ", " + type + check_arguments(record) + ">";
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: generate_cases PREFIX SHARDS CASES.jsonl...\n";
        return 2;
    }
    const std::string prefix = argv[1];
    const std::size_t shards = std::stoul(argv[2]);
    const std::set<std::string> operations{"rearrange", "repeat", "reduce",     "einsum",
                                           "pack",      "unpack", "parse_shape"};
    std::vector<std::ostringstream> tables(shards);
    std::size_t count = 0;
    for (int f = 3; f < argc; ++f) {
        std::ifstream in(argv[f]);
        if (!in) {
            std::cerr << "generate_cases: cannot read " << argv[f] << "\n";
            return 1;
        }
        for (std::string line; std::getline(in, line);) {
            if (line.empty()) continue;
            const auto record = nlohmann::ordered_json::parse(line); // keeps axes_lengths in the given order
            const std::string op = record.at("op");
            if (!operations.contains(op) || record.value("error_kind", "") == "einsum_pattern_not_last")
                continue;
            tables[count % shards] << "    {" << literal(op) << ", " << literal(record.at("id")) << ", &"
                                   << check_of(record) << "},\n";
            ++count;
        }
    }
    for (std::size_t k = 0; k < shards; ++k) {
        std::ofstream out(prefix + "_" + std::to_string(k) + ".inc");
        out << "// Generated by tests/parity/generate_cases.cpp from the recorded einops cases: shard " << k
            << " of " << shards << ", out of " << count << " cases.\n"
            << tables[k].str();
        if (!out) return 1;
    }
    return 0;
}
