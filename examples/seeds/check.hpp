// What every seed example shares: where the weights and inputs PyTorch saved are (the files the
// fixture tests read, tests/fixtures/data), and the comparison with PyTorch's output each prints.
#pragma once

#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // the kernel compiled once, not in each example

#include "../difference.hpp"

#include <cstdio>
#include <string>

namespace seeds {

/// The directory of the saved modules: the program's first argument, else the repository's.
inline std::string data_dir(int argc, char** argv, const std::string& kind) {
    return std::string(argc > 1 ? argv[1] : CTEIN_SEED_DATA) + "/" + kind + "/";
}

/// Prints `what`, the output's shape and its largest difference from PyTorch's; true when every
/// element is within the tolerance (../difference.hpp).
template <class A, class R>
bool compare(const char* what, const A& actual, const R& reference) {
    const examples::difference d = examples::difference_of(actual, reference);
    std::printf("%-34s %-28s largest difference from PyTorch %.1e (of %.2g): %s\n", what,
                ctein::describe(actual).c_str(), d.largest_difference, d.largest_value,
                d.close ? "matches" : "DIFFERS");
    return d.close;
}

} // namespace seeds
