// strided_axis: one axis of a walk over memory, the common language of layouts and kernels.
#pragma once

#include <cstddef>

namespace ctein {

/// `length` steps of `stride` elements.
struct strided_axis {
    std::size_t length = 1;
    std::ptrdiff_t stride = 0;
};

} // namespace ctein
