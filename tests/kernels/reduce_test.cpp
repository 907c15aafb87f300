#include <ctein/kernels/reduce.hpp>

#include "walk_testing.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace ctein;
using ctein::kernels::reduce_strided;

namespace {
/// Source values whose sums and products are exact in every type the tests use: small
/// integers, and for prod mostly 1 and -1 (so that products stay small).
template <reduction R, class T>
T value_for(std::size_t i) {
    if constexpr (std::is_same_v<T, bool>) {
        return R == reduction::all ? (i * 7919) % 11 != 0 : (i * 7919) % 11 == 0;
    } else if constexpr (R == reduction::prod) {
        return static_cast<T>(i % 23 == 0 ? 2 : i % 3 == 0 ? -1 : 1);
    } else if constexpr (R == reduction::any || R == reduction::all) {
        return static_cast<T>((i * 7919) % 13 == 0 ? (R == reduction::all ? 0 : 3)
                                                   : (R == reduction::all ? -2 : 0));
    } else {
        return static_cast<T>(static_cast<int>((i * 7919) % 17) - 8);
    }
}

/// The reduction of `xs` as its definition says, independently of the kernel.
template <reduction R, class T>
T naive_reduce(const std::vector<T>& xs) {
    switch (R) {
    case reduction::sum:
    case reduction::mean: {
        T sum = T(0);
        for (T x : xs) sum = static_cast<T>(sum + x);
        if (R == reduction::sum) return sum;
        return xs.empty() ? std::numeric_limits<T>::quiet_NaN()
                          : static_cast<T>(sum / static_cast<T>(xs.size()));
    }
    case reduction::prod: {
        T prod = T(1);
        for (T x : xs) prod = static_cast<T>(prod * x);
        return prod;
    }
    case reduction::min:
        return xs.empty() ? std::numeric_limits<T>::max() : *std::min_element(xs.begin(), xs.end());
    case reduction::max:
        return xs.empty() ? std::numeric_limits<T>::lowest() : *std::max_element(xs.begin(), xs.end());
    case reduction::any:
        return static_cast<T>(std::any_of(xs.begin(), xs.end(), [](T x) { return x != T(0); }));
    case reduction::all:
        return static_cast<T>(std::all_of(xs.begin(), xs.end(), [](T x) { return x != T(0); }));
    }
    return T{};
}

template <class T>
bool agrees(T actual, T expected) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(expected)) return std::isnan(actual);
        return actual == Approx(expected).epsilon(1e-6);
    } else {
        return actual == expected;
    }
}

template <reduction R, class T, std::size_t K, std::size_t N>
void check_reduce_as_given(const std::array<strided_axis, K>& kept, const std::array<strided_axis, N>& reduced,
                           T (*value)(std::size_t)) {
    testing::offset_range range;
    testing::extend(range, kept);
    testing::extend(range, reduced);
    testing::buffer<T> source(static_cast<std::size_t>(range.end - range.begin));
    for (std::size_t i = 0; i < source.size(); ++i) source[i] = value(i);
    const T* origin = source.data() - range.begin;

    const std::vector<std::ptrdiff_t> outputs = testing::naive_offsets(kept);
    const std::vector<std::ptrdiff_t> steps = testing::naive_offsets(reduced);
    const T guard = value(777);
    testing::buffer<T> out(outputs.size() + 1, guard);
    reduce_strided<R>(origin, kept, reduced, out.data());
    bool same = true;
    for (std::size_t o = 0; o < outputs.size(); ++o) {
        std::vector<T> xs;
        for (std::ptrdiff_t s : steps) xs.push_back(origin[outputs[o] + s]);
        const bool ok = agrees(out[o], naive_reduce<R>(xs));
        if (!ok)
            UNSCOPED_INFO("output " << o << " of " << outputs.size() << ": " << +out[o]
                                    << " != " << +naive_reduce<R>(xs));
        same = same && ok;
    }
    CAPTURE(name_of(R), K, N);
    CHECK(same);
    CHECK(agrees(out.back(), guard));
}

/// `axes` after axes of length 1, up to 3 axes (none stays none). The kernel drops axes of
/// length 1 before it walks, so the walk is the same.
template <std::size_t N>
std::array<strided_axis, (N == 0 ? 0 : 3)> padded(const std::array<strided_axis, N>& axes) {
    static_assert(N <= 3);
    std::array<strided_axis, (N == 0 ? 0 : 3)> out{};
    std::fill(out.begin(), out.end(), strided_axis{1, 0});
    std::copy(axes.begin(), axes.end(), out.end() - N);
    return out;
}

/// Checks the reduction of the walk `kept` x `reduced` against naive_reduce. Sums of floats run
/// at the ranks given; every other reduction and type at 3 (or 0) kept and reduced axes, padded
/// with axes of length 1: each rank pair is an instantiation of the kernel that costs seconds
/// of -O3, and there are 26 reductions and types (with 7 rank pairs each, this file took 174 s).
template <reduction R, class T, std::size_t K, std::size_t N>
void check_reduce(const std::array<strided_axis, K>& kept, const std::array<strided_axis, N>& reduced,
                  T (*value)(std::size_t) = value_for<R, T>) {
    if constexpr (R == reduction::sum && std::is_same_v<T, float>)
        check_reduce_as_given<R, T>(kept, reduced, value);
    else
        check_reduce_as_given<R, T>(padded(kept), padded(reduced), value);
}

constexpr std::ptrdiff_t i(std::size_t n) {
    return static_cast<std::ptrdiff_t>(n);
}

/// The layouts reductions meet, at lengths shorter and longer than a batch and not multiples of it.
template <reduction R, class T>
void check_layouts() {
    const std::size_t b = 2, h = 3;
    for (std::size_t s : {1u, 5u}) {
        for (std::size_t d : {3u, 16u, 37u, 100u}) {
            CAPTURE(s, d);
            // b s d -> b s: the reduced axis is contiguous
            check_reduce<R, T>(std::array<strided_axis, 2>{{{b, i(s * d)}, {s, i(d)}}},
                               std::array<strided_axis, 1>{{{d, 1}}});
            // b s d -> b d: the kept axis is contiguous
            check_reduce<R, T>(std::array<strided_axis, 2>{{{b, i(s * d)}, {d, 1}}},
                               std::array<strided_axis, 1>{{{s, i(d)}}});
            // b h s d -> b s d, and b h s d -> b h with the reduced axes given out of order
            check_reduce<R, T>(std::array<strided_axis, 3>{{{b, i(h * s * d)}, {s, i(d)}, {d, 1}}},
                               std::array<strided_axis, 1>{{{h, i(s * d)}}});
            check_reduce<R, T>(std::array<strided_axis, 2>{{{b, i(h * s * d)}, {h, i(s * d)}}},
                               std::array<strided_axis, 2>{{{d, 1}, {s, i(d)}}});
            // a transposed source: neither the kept nor the reduced axis is contiguous
            check_reduce<R, T>(std::array<strided_axis, 1>{{{d, i(s + 2)}}},
                               std::array<strided_axis, 1>{{{s, 3}}});
            // to a scalar
            check_reduce<R, T>(std::array<strided_axis, 0>{},
                               std::array<strided_axis, 2>{{{s, i(d)}, {d, 1}}});
        }
    }
    // nothing to reduce over, no reduced axes, reduced axes of length 1, no outputs
    check_reduce<R, T>(std::array<strided_axis, 2>{{{3, 20}, {20, 1}}},
                       std::array<strided_axis, 1>{{{0, 1}}});
    check_reduce<R, T>(std::array<strided_axis, 0>{}, std::array<strided_axis, 2>{{{4, 1}, {0, 4}}});
    check_reduce<R, T>(std::array<strided_axis, 2>{{{3, 20}, {20, 1}}}, std::array<strided_axis, 0>{});
    check_reduce<R, T>(std::array<strided_axis, 2>{{{20, 1}, {3, 20}}},
                       std::array<strided_axis, 2>{{{1, 5}, {1, 9}}});
    check_reduce<R, T>(std::array<strided_axis, 2>{{{3, 20}, {0, 1}}},
                       std::array<strided_axis, 1>{{{4, 60}}});
}

/// Random walks may visit an element many times (stride 0): products of signs stay exact.
template <reduction R, class T>
T random_walk_value(std::size_t i) {
    if constexpr (R == reduction::prod) return static_cast<T>(i % 3 == 0 ? -1 : 1);
    return value_for<R, T>(i);
}

template <reduction R, class T>
void check_random_walks() {
    std::mt19937 rng(7);
    constexpr auto value = random_walk_value<R, T>;
    for (int trial = 0; trial < 40; ++trial) {
        check_reduce<R, T>(testing::random_axes<1>(rng, 40, 30), testing::random_axes<1>(rng, 40, 30), value);
        check_reduce<R, T>(testing::random_axes<2>(rng, 12, 20), testing::random_axes<2>(rng, 12, 20), value);
        check_reduce<R, T>(testing::random_axes<3>(rng, 6, 12), testing::random_axes<3>(rng, 6, 12), value);
        check_reduce<R, T>(testing::random_axes<0>(rng, 1, 1), testing::random_axes<2>(rng, 50, 40), value);
    }
}

template <reduction R, class T>
void check_reduction() {
    check_layouts<R, T>();
    check_random_walks<R, T>();
}
} // namespace

TEMPLATE_TEST_CASE("reduce_strided sums, multiplies, takes min and max", "[kernels][reduce]", float, double,
                   std::int32_t, std::int64_t) {
    check_reduction<reduction::sum, TestType>();
    check_reduction<reduction::prod, TestType>();
    check_reduction<reduction::min, TestType>();
    check_reduction<reduction::max, TestType>();
}

TEMPLATE_TEST_CASE("reduce_strided takes means of floating-point values", "[kernels][reduce]", float,
                   double) {
    check_reduction<reduction::mean, TestType>();
}

TEMPLATE_TEST_CASE("reduce_strided takes any and all, nonzero as true", "[kernels][reduce]", bool, float,
                   std::int32_t) {
    check_reduction<reduction::any, TestType>();
    check_reduction<reduction::all, TestType>();
}

TEST_CASE("reduce_strided takes min and max of bools", "[kernels][reduce]") {
    check_reduction<reduction::min, bool>();
    check_reduction<reduction::max, bool>();
}

TEST_CASE("reduce_strided sums real-valued floats within 1e-6", "[kernels][reduce]") {
    const auto real = [](std::size_t k) {
        return 0.5f + static_cast<float>((k * 2654435761u) % 1000) / 997.0f;
    };
    check_reduce<reduction::sum, float>(std::array<strided_axis, 1>{{{4, 300}}},
                                        std::array<strided_axis, 1>{{{300, 1}}}, +real);
    check_reduce<reduction::mean, float>(std::array<strided_axis, 1>{{{300, 1}}},
                                         std::array<strided_axis, 1>{{{40, 300}}}, +real);
}

TEST_CASE("reduce_strided over nothing gives each reduction's identity", "[kernels][reduce]") {
    const std::array<strided_axis, 1> two{{{2, 1}}};
    const std::array<strided_axis, 1> none{{{0, 2}}};
    const float x[2] = {1, 2};
    float out[2] = {};
    reduce_strided<reduction::sum>(x, two, none, out);
    CHECK(out[1] == 0.0f);
    reduce_strided<reduction::prod>(x, two, none, out);
    CHECK(out[1] == 1.0f);
    reduce_strided<reduction::mean>(x, two, none, out);
    CHECK(std::isnan(out[1]));
    reduce_strided<reduction::min>(x, two, none, out);
    CHECK(out[1] == std::numeric_limits<float>::max());
    reduce_strided<reduction::max>(x, two, none, out);
    CHECK(out[1] == std::numeric_limits<float>::lowest());
    const bool flags[2] = {true, false};
    bool flags_out[2] = {};
    reduce_strided<reduction::all>(flags, two, none, flags_out);
    CHECK((flags_out[0] && flags_out[1]));
    reduce_strided<reduction::any>(flags, two, none, flags_out);
    CHECK(!(flags_out[0] || flags_out[1]));
}
