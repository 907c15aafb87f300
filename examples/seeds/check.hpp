// What every seed example shares: where the weights and inputs PyTorch saved are (the files the
// fixture tests read, tests/fixtures/data), and the comparison with PyTorch's output each prints.
#pragma once

#include <ctein/ctein.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>

namespace seeds {

/// The directory of the saved modules: the program's first argument, else the repository's.
inline std::string data_dir(int argc, char** argv, const std::string& kind) {
    return std::string(argc > 1 ? argv[1] : CTEIN_SEED_DATA) + "/" + kind + "/";
}

/// Prints `what`, the output's shape and its largest difference from PyTorch's; true when every
/// element is within 1e-4 * max|reference| + 1e-5.
template <class A, class R>
bool compare(const char* what, const A& actual, const R& reference) {
    float largest = 0.0f, worst = 0.0f;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        largest = std::max(largest, std::abs(reference.data()[i]));
        worst = std::max(worst, std::abs(actual.data()[i] - reference.data()[i]));
    }
    const bool close = actual.size() == reference.size() && worst <= 1e-4f * largest + 1e-5f;
    std::printf("%-34s %-28s largest difference from PyTorch %.1e (of %.2g): %s\n", what,
                ctein::describe(actual).c_str(), worst, largest, close ? "matches" : "DIFFERS");
    return close;
}

} // namespace seeds
