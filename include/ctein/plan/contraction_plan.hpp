// The contraction plan: a two-operand einsum seen as a (batched) GEMM, from its plan and the
// operands' strides. Each axis is a batch, m, n or k axis by which sides have it; axes of one
// kind whose strides compose merge into one GEMM dimension, and the others become loops around
// the GEMM. Patterns a GEMM cannot express (a diagonal, an axis summed within one operand) are
// left to the reference kernel.
#pragma once

#include "einsum_plan.hpp"

#include <array>
#include <cstddef>
#include <span>

namespace ctein::plan {

/// An axis of a contraction, or a run of axes merged into one: its length and how far one step
/// moves A (the GEMM's left operand), B and C, in elements (0 where one lacks it).
struct contraction_axis {
    std::size_t length = 1;
    std::ptrdiff_t a = 0;
    std::ptrdiff_t b = 0;
    std::ptrdiff_t c = 0;
};

/// An einsum `A, B -> C` as GEMMs `C[m, n] (+)= A[m, k] B[k, n]`, repeated over `loops`.
struct contraction_plan {
    bool is_gemm = false; ///< false: the pattern is not a (batched) GEMM
    bool swapped = false; ///< the GEMM's A is the einsum's second operand (C^T = B^T A^T)
    contraction_axis m;   ///< axes of the first operand and the output (length 1 if none)
    contraction_axis n;   ///< axes of the second operand and the output
    contraction_axis k;   ///< axes of both operands, summed
    /// The other axes: batch axes (both operands and the output), m or n axes that did not merge,
    /// and `summed` ones, k axes that did not merge, whose products add up in C.
    std::size_t loop_count = 0;
    std::array<contraction_axis, max_axes> loops{};
    std::array<bool, max_axes> summed{};
};

namespace detail {

enum class contraction_role : unsigned char { batch, m, n, k };

/// Whether `inner` continues `outer` in A, B and C alike, so the two walk as one axis.
constexpr bool composes(const contraction_axis& outer, const contraction_axis& inner) noexcept {
    const auto length = static_cast<std::ptrdiff_t>(inner.length);
    return outer.a == inner.a * length && outer.b == inner.b * length && outer.c == inner.c * length;
}

/// Merges the axes of one role pairwise while any two compose; returns how many are left.
constexpr std::size_t merge_axes(std::array<contraction_axis, max_axes>& axes, std::size_t count) noexcept {
    for (bool merged = true; merged;) {
        merged = false;
        for (std::size_t o = 0; o < count && !merged; ++o) {
            for (std::size_t i = 0; i < count && !merged; ++i) {
                if (i == o || !composes(axes[o], axes[i])) continue;
                axes[o] = {axes[o].length * axes[i].length, axes[i].a, axes[i].b, axes[i].c};
                axes[i] = axes[--count];
                merged = true;
            }
        }
    }
    return count;
}

constexpr bool repeats_an_axis(std::span<const std::uint8_t> axes) noexcept {
    for (std::size_t i = 0; i < axes.size(); ++i)
        for (std::size_t j = i + 1; j < axes.size(); ++j)
            if (axes[i] == axes[j]) return true;
    return false;
}

constexpr bool has_axis(std::span<const std::uint8_t> axes, std::size_t axis) noexcept {
    for (std::uint8_t a : axes)
        if (a == axis) return true;
    return false;
}

} // namespace detail

/// Lowers a two-operand einsum (`p`, planned for the operands' actual extents) to a GEMM, given
/// each axis's stride in the first operand, the second, and the output (as the reference kernel
/// takes them: 0 where a side lacks the axis or broadcasts it). Length-1 axes drop out; of each
/// role the longest run of merged axes becomes the GEMM's dimension. The operands swap when the
/// output's contiguous axis is an m axis, so that the micro-kernel writes rows of C.
///
///     // "b s c, o c -> b s o" on contiguous [2, 512, 768] and [2304, 768]:
///     // m = b s (1024 rows, a = 768, c = 2304), n = o (2304, b = 768, c = 1), k = c (768)
///     const contraction_plan g = make_contraction_plan(p, a_strides, b_strides, out_strides);
constexpr contraction_plan make_contraction_plan(const einsum_plan& p,
                                                 std::span<const std::ptrdiff_t> a_strides,
                                                 std::span<const std::ptrdiff_t> b_strides,
                                                 std::span<const std::ptrdiff_t> c_strides) noexcept {
    using detail::contraction_role;
    contraction_plan g;
    if (p.operand_count != 2) return g;
    const std::span<const std::uint8_t> in_a(p.operand_axes[0].data(), p.operand_ranks[0]);
    const std::span<const std::uint8_t> in_b(p.operand_axes[1].data(), p.operand_ranks[1]);
    const std::span<const std::uint8_t> in_c(p.output_axes.data(), p.output_rank);
    if (detail::repeats_an_axis(in_a) || detail::repeats_an_axis(in_b) || detail::repeats_an_axis(in_c))
        return g;

    std::array<std::array<contraction_axis, max_axes>, 4> by_role{};
    std::array<std::size_t, 4> counts{};
    for (std::size_t axis = 0; axis < p.axis_count; ++axis) {
        if (p.lengths[axis] == 1) continue;
        const bool a = detail::has_axis(in_a, axis), b = detail::has_axis(in_b, axis);
        const bool c = detail::has_axis(in_c, axis);
        if (!c && a != b) return g; // summed within one operand
        const contraction_role role = !c       ? contraction_role::k
                                      : a && b ? contraction_role::batch
                                      : a      ? contraction_role::m
                                               : contraction_role::n;
        const auto r = static_cast<std::size_t>(role);
        by_role[r][counts[r]++] = {p.lengths[axis], a_strides[axis], b_strides[axis], c_strides[axis]};
    }
    // of each role but batch, the longest merged run is the GEMM's dimension; the rest loop
    const auto place = [&](contraction_role role, contraction_axis* dimension) {
        const auto r = static_cast<std::size_t>(role);
        const std::size_t count = detail::merge_axes(by_role[r], counts[r]);
        std::size_t longest = count;
        for (std::size_t i = 0; dimension != nullptr && i < count; ++i)
            if (longest == count || by_role[r][i].length > by_role[r][longest].length) longest = i;
        for (std::size_t i = 0; i < count; ++i) {
            if (i == longest) {
                *dimension = by_role[r][i];
            } else {
                g.summed[g.loop_count] = role == contraction_role::k;
                g.loops[g.loop_count++] = by_role[r][i];
            }
        }
    };
    place(contraction_role::batch, nullptr);
    place(contraction_role::m, &g.m);
    place(contraction_role::n, &g.n);
    place(contraction_role::k, &g.k);
    if (g.m.c == 1 && g.n.c != 1) {
        g.swapped = true;
        const contraction_axis m = g.m;
        g.m = g.n;
        g.n = m;
        for (contraction_axis* x : {&g.m, &g.n, &g.k}) *x = {x->length, x->b, x->a, x->c};
        for (std::size_t i = 0; i < g.loop_count; ++i)
            g.loops[i] = {g.loops[i].length, g.loops[i].b, g.loops[i].a, g.loops[i].c};
    }
    g.is_gemm = true;
    return g;
}

} // namespace ctein::plan
