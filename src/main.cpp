// The `ctein` command: `ctein explain PATTERN ...` (see src/explain.hpp).
#include "explain.hpp"

#include <iostream>
#include <string_view>
#include <vector>

int main(int argc, char** argv) {
    const std::vector<std::string_view> words(argv + 1, argv + argc);
    if (words.empty() || words[0] != "explain") {
        std::cerr << ctein::tool::usage();
        return 2;
    }
    const auto result = ctein::tool::explain(std::span(words).subspan(1));
    (result.status == 2 ? std::cerr : std::cout) << result.text;
    return result.status;
}
