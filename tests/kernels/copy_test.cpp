#include <ctein/kernels/copy.hpp>

#include "walk_testing.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

using namespace ctein;
using ctein::kernels::copy_strided;

namespace {
/// A type without a batch stand-in: copied element by element.
struct rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    friend bool operator==(const rgb&, const rgb&) = default;
};
struct wide {
    double re = 0, im = 0;
    friend bool operator==(const wide&, const wide&) = default;
};

template <class T>
T value_for(std::size_t i) {
    if constexpr (std::is_same_v<T, bool>) {
        return (i * 7919) % 3 == 0;
    } else if constexpr (std::is_same_v<T, rgb>) {
        return {static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(i >> 8),
                static_cast<std::uint8_t>(i * 3)};
    } else if constexpr (std::is_same_v<T, wide>) {
        return {static_cast<double>(i), -static_cast<double>(i)};
    } else {
        return static_cast<T>(i * 7 + 1);
    }
}

/// Copies the walk `axes` with copy_strided and with a naive loop; they must agree, and
/// nothing past the output may be written. `dst_shift` misaligns the output.
template <class T, std::size_t N>
void check_copy(const std::array<strided_axis, N>& axes, std::size_t dst_shift = 0) {
    testing::offset_range range;
    testing::extend(range, axes);
    testing::buffer<T> source(static_cast<std::size_t>(range.end - range.begin));
    for (std::size_t i = 0; i < source.size(); ++i) source[i] = value_for<T>(i);
    const T* origin = source.data() - range.begin;

    const std::vector<std::ptrdiff_t> offsets = testing::naive_offsets(axes);
    const T guard = value_for<T>(12345);
    testing::buffer<T> out(dst_shift + offsets.size() + 1, guard);
    copy_strided(origin, axes, out.data() + dst_shift);
    bool same = true;
    for (std::size_t i = 0; i < offsets.size(); ++i) same = same && out[dst_shift + i] == origin[offsets[i]];
    CHECK(same);
    CHECK(out.back() == guard);
}

template <class T>
void check_random_walks(std::mt19937& rng) {
    for (int trial = 0; trial < 60; ++trial) {
        check_copy<T>(testing::random_axes<1>(rng, 150, 40), trial % 3);
        check_copy<T>(testing::random_axes<2>(rng, 40, 60));
        check_copy<T>(testing::random_axes<3>(rng, 20, 30), trial % 2);
        check_copy<T>(testing::random_axes<4>(rng, 9, 20));
        check_copy<T>(testing::random_axes<5>(rng, 5, 12));
        check_copy<T>(testing::random_axes<6>(rng, 4, 9));
    }
}
} // namespace

TEMPLATE_TEST_CASE("copy_strided agrees with a naive loop on random walks", "[kernels][copy]", float, double,
                   std::int32_t, std::int64_t, bool, std::uint16_t, rgb, wide) {
    std::mt19937 rng(42);
    check_random_walks<TestType>(rng);
}

TEMPLATE_TEST_CASE("copy_strided of rank 0 copies one element, of a zero length nothing", "[kernels][copy]",
                   float, bool, rgb) {
    check_copy<TestType>(std::array<strided_axis, 0>{});
    check_copy<TestType>(std::array<strided_axis, 3>{{{1, 5}, {1, -2}, {1, 0}}});
    check_copy<TestType>(std::array<strided_axis, 3>{{{4, 5}, {0, 1}, {3, 0}}});
}

TEMPLATE_TEST_CASE("copy_strided transposes in tiles, whole and partial", "[kernels][copy]", float, double,
                   std::int64_t, bool, rgb) {
    for (std::size_t rows : {1u, 7u, 32u, 37u, 100u})
        for (std::size_t cols : {2u, 16u, 33u, 65u}) {
            CAPTURE(rows, cols);
            check_copy<TestType>(
                std::array<strided_axis, 2>{{{cols, 1}, {rows, static_cast<std::ptrdiff_t>(cols)}}});
            // with padded rows, a batch of transposes and an axis between the two swapped ones
            const auto pitch = static_cast<std::ptrdiff_t>(cols + 3);
            check_copy<TestType>(std::array<strided_axis, 3>{{{3, pitch * 101}, {cols, 1}, {rows, pitch}}});
            check_copy<TestType>(std::array<strided_axis, 3>{{{cols, 1}, {3, pitch * 101}, {rows, pitch}}},
                                 1);
        }
}

TEST_CASE("copy_strided splits and merges heads", "[kernels][copy]") {
    // with few tokens the split writes in order; with many it reads in order instead
    for (std::size_t s : {9u, 40u}) {
        CAPTURE(s);
        const std::size_t b = 2, h = 3, d = 64, c = h * d;
        // b s (h d) -> b h s d
        check_copy<float>(std::array<strided_axis, 4>{{{b, static_cast<std::ptrdiff_t>(s * c)},
                                                       {h, static_cast<std::ptrdiff_t>(d)},
                                                       {s, static_cast<std::ptrdiff_t>(c)},
                                                       {d, 1}}});
        // b h s d -> b s (h d)
        check_copy<float>(std::array<strided_axis, 4>{{{b, static_cast<std::ptrdiff_t>(h * s * d)},
                                                       {s, static_cast<std::ptrdiff_t>(d)},
                                                       {h, static_cast<std::ptrdiff_t>(s * d)},
                                                       {d, 1}}},
                          1);
        // a repeated head split: r b s (h d) -> r b h s d
        check_copy<double>(std::array<strided_axis, 5>{{{3, 0},
                                                        {b, static_cast<std::ptrdiff_t>(s * c)},
                                                        {h, static_cast<std::ptrdiff_t>(d)},
                                                        {s, static_cast<std::ptrdiff_t>(c)},
                                                        {d, 1}}});
    }
}

TEST_CASE("copy_strided splits heads of many tokens a block of runs at a time", "[kernels][copy]") {
    // Read in order, a head split takes kernels::detail::block_runs tokens per head stream at once:
    // whole blocks and a last partial one, runs of whole batches (copy_whole_runs: 48 elements are 3
    // AVX-512 batches of floats, 64 and 128 groups of 4) and others, an aligned output and a
    // misaligned one; then large enough for streaming stores.
    static_assert(kernels::detail::block_runs == 16);
    for (std::size_t s : {33u, 40u, 100u})
        for (std::size_t d : {20u, 48u, 64u, 128u})
            for (std::size_t shift : {0u, 1u}) {
                CAPTURE(s, d, shift);
                const std::size_t b = 2, h = 3, c = h * d;
                check_copy<float>(std::array<strided_axis, 4>{{{b, static_cast<std::ptrdiff_t>(s * c)},
                                                               {h, static_cast<std::ptrdiff_t>(d)},
                                                               {s, static_cast<std::ptrdiff_t>(c)},
                                                               {d, 1}}},
                                  shift);
            }
    // Streamed: runs of whole batches, and (misaligned, or of 20 elements) runs gathered in L1 first
    const auto split = [](std::size_t s, std::size_t h, std::size_t d) {
        return std::array<strided_axis, 3>{
            {{h, static_cast<std::ptrdiff_t>(d)}, {s, static_cast<std::ptrdiff_t>(h * d)}, {d, 1}}};
    };
    static_assert(2900 * 12 * 64 * sizeof(float) >= kernels::streaming_threshold_bytes);
    static_assert(2900 * 40 * 20 * sizeof(float) >= kernels::streaming_threshold_bytes);
    static_assert(1500 * 40 * 20 * sizeof(double) >= kernels::streaming_threshold_bytes);
    static_assert(2900 * 16 * 48 * sizeof(float) >= kernels::streaming_threshold_bytes);
    for (std::size_t shift : {0u, 1u}) {
        CAPTURE(shift);
        check_copy<float>(split(2900, 12, 64), shift);
        check_copy<float>(split(2900, 16, 48), shift);
        check_copy<float>(split(2900, 40, 20), shift);
        check_copy<double>(split(1500, 40, 20), shift);
    }
}

TEMPLATE_TEST_CASE("copy_strided repeats: inner fills, outer blocks", "[kernels][copy]", float, std::int64_t,
                   bool, rgb) {
    for (std::size_t r : {1u, 2u, 5u, 70u}) {
        CAPTURE(r);
        // h w -> h (w r): an inner axis of stride 0
        check_copy<TestType>(std::array<strided_axis, 3>{{{3, 40}, {40, 1}, {r, 0}}});
        // h w -> (r h) w and h w -> h r w: an outer axis of stride 0
        check_copy<TestType>(std::array<strided_axis, 3>{{{r, 0}, {3, 40}, {40, 1}}}, 1);
        check_copy<TestType>(std::array<strided_axis, 3>{{{3, 40}, {r, 0}, {40, 1}}});
        // a repeat outside a transpose, and one between the transposed axes
        check_copy<TestType>(std::array<strided_axis, 3>{{{r, 0}, {40, 1}, {3, 40}}});
        check_copy<TestType>(std::array<strided_axis, 3>{{{40, 1}, {r, 0}, {3, 40}}});
        // a repeat outside a gather
        check_copy<TestType>(std::array<strided_axis, 3>{{{r, 0}, {4, 3}, {17, -2}}});
    }
}

TEST_CASE("copy_strided of outputs larger than the cache streams its stores", "[kernels][copy]") {
    const std::size_t rows = 2100, cols = 1027;
    static_assert(rows * cols * sizeof(float) >= kernels::streaming_threshold_bytes);
    // padded rows into a misaligned output, a repeated block, and a fill
    check_copy<float>(std::array<strided_axis, 2>{{{rows, 1030}, {cols, 1}}}, 1);
    check_copy<float>(std::array<strided_axis, 3>{{{rows / 100, 0}, {100, 1030}, {cols, 1}}}, 2);
    check_copy<std::int64_t>(std::array<strided_axis, 2>{{{rows / 2, 1}, {cols, 0}}}, 1);
    // a transpose, into an aligned output and a misaligned one
    check_copy<float>(std::array<strided_axis, 2>{{{cols, 1}, {rows, 1030}}});
    check_copy<float>(std::array<strided_axis, 2>{{{cols, 1}, {rows, 1030}}}, 1);
}
