// How far an output is from its reference, as every example that checks one judges it: the
// largest difference against 1e-4 x the reference's largest value + 1e-5 (the fixture tests' fp32
// tolerance).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace examples {

struct difference {
    float largest_difference = 0.0f; ///< max |actual - reference|
    float largest_value = 0.0f;      ///< max |reference|
    bool close = false;              ///< same size, and within the tolerance
};

/// `actual` against `reference`: anything with data() and size() (tensors, std::vector).
template <class A, class R>
difference difference_of(const A& actual, const R& reference) {
    difference d;
    for (std::size_t i = 0; i < reference.size() && i < actual.size(); ++i) {
        d.largest_value = std::max(d.largest_value, std::abs(reference.data()[i]));
        d.largest_difference = std::max(d.largest_difference, std::abs(actual.data()[i] - reference.data()[i]));
    }
    d.close = actual.size() == reference.size() && d.largest_difference <= 1e-4f * d.largest_value + 1e-5f;
    return d;
}

} // namespace examples
