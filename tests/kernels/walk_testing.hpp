// Test helpers for the kernels: naive walks over strided axes, and random walks with a buffer
// that holds every element they visit.
#pragma once

#include <ctein/core/strided_axis.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

namespace ctein::testing {

/// Every offset the axes visit, in row-major order (nothing if an axis has length 0).
template <std::size_t N>
std::vector<std::ptrdiff_t> naive_offsets(const std::array<strided_axis, N>& axes) {
    std::vector<std::ptrdiff_t> offsets{0};
    for (const strided_axis& a : axes) {
        std::vector<std::ptrdiff_t> next;
        for (std::ptrdiff_t o : offsets)
            for (std::size_t i = 0; i < a.length; ++i)
                next.push_back(o + static_cast<std::ptrdiff_t>(i) * a.stride);
        offsets = std::move(next);
    }
    return offsets;
}

/// Random axes: lengths in [0, max_length] (mostly not 0), strides in [-max_stride, max_stride]
/// with 0 and 1 (contiguous, repeated) made common.
template <std::size_t N>
std::array<strided_axis, N> random_axes(std::mt19937& rng, std::size_t max_length,
                                        std::ptrdiff_t max_stride) {
    std::uniform_int_distribution<std::size_t> length(1, max_length);
    std::uniform_int_distribution<std::ptrdiff_t> stride(-max_stride, max_stride);
    std::uniform_int_distribution<int> choice(0, 19);
    std::array<strided_axis, N> axes{};
    for (strided_axis& a : axes) {
        a.length = choice(rng) == 0 ? 0 : length(rng);
        const int kind = choice(rng);
        a.stride = kind < 3 ? 1 : kind < 5 ? 0 : stride(rng);
    }
    return axes;
}

/// The lowest and one past the highest offset some walks visit, so that a buffer of
/// `end - begin` elements with the origin at `-begin` holds all of them.
struct offset_range {
    std::ptrdiff_t begin = 0;
    std::ptrdiff_t end = 1;
};

template <std::size_t N>
void extend(offset_range& range, const std::array<strided_axis, N>& axes) {
    std::ptrdiff_t low = range.begin, high = range.end - 1;
    for (const strided_axis& a : axes) {
        if (a.length == 0) continue;
        const std::ptrdiff_t reach = static_cast<std::ptrdiff_t>(a.length - 1) * a.stride;
        (reach < 0 ? low : high) += reach;
    }
    range.begin = std::min(range.begin, low);
    range.end = std::max(range.end, high + 1);
}

/// Elements in an array (std::vector<bool> has no data()).
template <class T>
class buffer {
public:
    buffer(std::size_t size, const T& value = T{})
        : data_(std::make_unique<T[]>(size))
        , size_(size) {
        std::fill_n(data_.get(), size, value);
    }
    T* data() noexcept { return data_.get(); }
    const T* data() const noexcept { return data_.get(); }
    std::size_t size() const noexcept { return size_; }
    T& operator[](std::size_t i) noexcept { return data_[i]; }
    const T& operator[](std::size_t i) const noexcept { return data_[i]; }
    const T& back() const noexcept { return data_[size_ - 1]; }

private:
    std::unique_ptr<T[]> data_;
    std::size_t size_;
};

} // namespace ctein::testing
