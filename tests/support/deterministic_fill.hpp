// Deterministic test inputs: the same values on every machine and compiler, without a random
// engine, for tests that compare two computations of the same inputs.
#pragma once

#include <cstddef>

namespace ctein::testing {

/// Fills `t` (anything with size() and data()) with values in [-1, 1) from a multiplicative hash
/// of the element's index; `salt` gives each tensor of a test its own values.
template <class Tensor>
void deterministic_fill(Tensor& t, unsigned salt) {
    for (std::size_t i = 0; i < t.size(); ++i) {
        const unsigned x = static_cast<unsigned>(i) * 2654435761u + salt * 40503u;
        t.data()[i] = static_cast<float>((x >> 8) % 2048) / 1024.0f - 1.0f;
    }
}

} // namespace ctein::testing
