// The plan of an einsum pattern ("b h q d, b h k d -> b h q k"): einops' rules for its text
// (einops.einsum: multi-letter names, `_`, the ellipsis; no groups, units or numbers), then each
// axis's length from the operands. The same constexpr function plans in the compiler, from
// static extents, and at run time, from actual ones.
#pragma once

#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "../core/text_search.hpp"
#include "../pattern/axis_names.hpp"
#include "../pattern/parse.hpp"
#include "recipe.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ctein::plan {

/// At most this many operands in one einsum.
inline constexpr std::size_t max_operands = 8;

struct einsum_plan {
    diagnostic error;
    std::size_t operand_count = 0;
    std::size_t ellipsis_rank = 0; ///< how many axes the ellipsis stands for (the last axes)
    /// Named axes in order of first appearance on the left, then the axes the ellipsis stands for.
    std::size_t axis_count = 0;
    std::array<std::size_t, max_axes> lengths{};     ///< `dyn` where known only at run time
    std::array<pattern::text_ref, max_axes> where{}; ///< where the pattern first names each axis
    /// Dimension k of operand i holds axis operand_axes[i][k] (repeated for a diagonal, `i i`).
    std::array<std::size_t, max_operands> operand_ranks{};
    std::array<std::array<std::uint8_t, max_dims>, max_operands> operand_axes{};
    std::size_t output_rank = 0;
    std::array<std::uint8_t, max_dims> output_axes{};
    std::array<std::size_t, max_dims> output_extents{};
    bounded_string<256> output_names; ///< the right side's names, `_` for the ellipsis' axes

    constexpr bool ok() const noexcept { return !error; }
    constexpr bool in_output(std::size_t axis) const noexcept {
        for (std::size_t k = 0; k < output_rank; ++k)
            if (output_axes[k] == axis) return true;
        return false;
    }
};

namespace detail {

/// einops' _validate_einsum_axis_name: a dimension of an einsum side is one named axis.
constexpr diagnostic einsum_dim_problem(const pattern::expression& side, const pattern::dim& d) {
    if (d.count == 0) return make_error(errc::einsum_singleton, d.where.begin);
    if (d.count > 1 || side.axis_of(d, 0).is_ellipsis())
        return make_error(errc::einsum_composition, d.where.begin);
    if (side.axis_of(d, 0).kind == pattern::axis_kind::anonymous)
        return make_error(errc::einsum_anonymous, d.where.begin);
    return diagnostic{};
}

class einsum_planner {
public:
    constexpr einsum_planner(std::string_view text, std::span<const operand> operands)
        : text_(text)
        , operands_(operands) {}

    einsum_plan p;

    constexpr diagnostic parse() {
        if (operands_.empty()) return make_error(errc::einsum_no_operands);
        const std::size_t arrows = ctein::detail::count(text_, "->");
        if (arrows == 0) return make_error(errc::einsum_no_arrow);
        if (arrows != 1)
            return make_error(errc::no_arrow, ctein::detail::find(text_, "->")).with_number(arrows);
        const std::size_t arrow = ctein::detail::find(text_, "->");
        for (std::size_t begin = 0; begin <= arrow;) {
            std::size_t end = begin;
            while (end < arrow && text_[end] != ',') ++end;
            if (left_count_ == max_operands) return make_error(errc::too_many_axes).with_number(max_operands);
            const auto parsed = pattern::parse_expression(text_, span(begin, end), {true, true});
            if (parsed.error) return parsed.error;
            lefts_[left_count_++] = parsed.value;
            begin = end + 1;
        }
        const auto parsed = pattern::parse_expression(text_, span(arrow + 2, text_.size()), {true, false});
        right_ = parsed.value;
        return parsed.error;
    }

    /// Each dimension one named axis; names get ids in order of first appearance.
    constexpr diagnostic name_axes() {
        for (std::size_t i = 0; i < left_count_; ++i) {
            const pattern::expression& left = lefts_[i];
            for (std::size_t k = 0; k < left.dim_count; ++k) {
                if (k == left.ellipsis_dim()) continue;
                if (diagnostic d = einsum_dim_problem(left, left.dims[k])) return d;
                const std::string_view name = name_of(left, k);
                if (id_of(name) == p.axis_count) {
                    if (p.axis_count == max_axes)
                        return make_error(errc::too_many_axes).with_number(max_axes);
                    p.where[p.axis_count] = left.axis_of(left.dims[k], 0).where;
                    names_[p.axis_count++] = name;
                }
            }
        }
        named_count_ = p.axis_count;
        for (std::size_t k = 0; k < right_.dim_count; ++k) {
            if (k == right_.ellipsis_dim()) continue;
            if (diagnostic d = einsum_dim_problem(right_, right_.dims[k])) return d;
            if (id_of(name_of(right_, k)) == named_count_)
                return make_error(errc::einsum_unknown_right_axis, right_.dims[k].where.begin)
                    .with_text(name_of(right_, k))
                    .with_text(text_);
        }
        return diagnostic{};
    }

    /// One operand per left side, each of the rank its side says.
    constexpr diagnostic bind_operands() {
        if (operands_.size() > left_count_) return make_error(errc::einsum_more_operands);
        if (operands_.size() < left_count_) return make_error(errc::einsum_fewer_operands);
        p.operand_count = left_count_;
        for (std::size_t i = 0; i < left_count_; ++i) {
            const pattern::expression& left = lefts_[i];
            const std::size_t rank = operands_[i].rank;
            if (left.has_ellipsis ? rank + 1 < left.dim_count : rank != left.dim_count) {
                return make_error(left.has_ellipsis ? errc::einsum_wrong_ndim_ellipsis
                                                    : errc::einsum_wrong_ndim)
                    .with_number(i)
                    .with_number(left.has_ellipsis ? left.dim_count - 1 : left.dim_count)
                    .with_number(rank);
            }
            if (rank > max_dims) return make_error(errc::too_many_axes).with_number(max_dims);
            if (left.has_ellipsis && rank + 1 - left.dim_count > ellipsis_rank_)
                ellipsis_rank_ = rank + 1 - left.dim_count;
        }
        if (named_count_ + ellipsis_rank_ > max_axes)
            return make_error(errc::too_many_axes).with_number(max_axes);
        p.axis_count = named_count_ + ellipsis_rank_;
        p.ellipsis_rank = ellipsis_rank_;
        for (std::size_t a = 0; a < p.axis_count; ++a) p.lengths[a] = dyn;
        for (std::size_t i = 0; i < left_count_; ++i) {
            const pattern::expression& left = lefts_[i];
            const std::size_t rank = operands_[i].rank;
            p.operand_ranks[i] = rank;
            const std::size_t covered = left.has_ellipsis ? rank + 1 - left.dim_count : 0;
            for (std::size_t k = 0, t = 0; k < left.dim_count; ++k) {
                if (k == left.ellipsis_dim()) {
                    // the ellipsis' axes align from the right, as numpy broadcasts them
                    for (std::size_t e = 0; e < covered; ++e)
                        p.operand_axes[i][t++] = static_cast<std::uint8_t>(p.axis_count - covered + e);
                } else {
                    p.operand_axes[i][t++] = static_cast<std::uint8_t>(id_of(name_of(left, k)));
                }
            }
        }
        return diagnostic{};
    }

    /// ctein's own check on named operands: their axes must not be permuted against the pattern.
    /// The letters are the pattern's own, so operands may name one letter's axes differently
    /// (`b h q d, b h k d` on q and k both "b h s d"; weights "b h q k" against values "b h s d");
    /// what does not compile is a name that stands at two letters while another name meets it at
    /// one of them (k transposed to "b h d s": letter d is d in q and s in k, and k's d stands at
    /// letter k). Unnamed operands and `_` axes bind anything.
    constexpr diagnostic bind_names() {
        struct binding {
            std::size_t operand, axis;
            std::string_view name;
        };
        std::array<binding, max_operands * max_dims> all{};
        std::size_t count = 0;
        for (std::size_t i = 0; i < p.operand_count; ++i) {
            const pattern::dim_names names = pattern::split_dim_names(operands_[i].names);
            if (names.count != p.operand_ranks[i]) continue;
            for (std::size_t k = 0; k < names.count; ++k)
                if (names.names(k)) all[count++] = {i, p.operand_axes[i][k], names[k]};
        }
        const auto elsewhere = [&](std::string_view name, std::size_t axis) {
            for (std::size_t e = 0; e < count; ++e)
                if (all[e].name == name && all[e].axis != axis) return true;
            return false;
        };
        for (std::size_t x = 0; x < count; ++x)
            for (std::size_t y = x + 1; y < count; ++y) {
                const binding &a = all[x], &b = all[y];
                if (a.axis != b.axis || a.name == b.name) continue;
                if (!elsewhere(a.name, a.axis) && !elsewhere(b.name, b.axis)) continue;
                bounded_string<128> how("operand #");
                how.append_number(a.operand);
                how.append(" names it ");
                how.append(a.name);
                how.append(", operand #");
                how.append_number(b.operand);
                how.append(" names it ");
                how.append(b.name);
                return make_error(errc::einsum_names_mismatch)
                    .with_text(a.axis < named_count_ ? names_[a.axis] : "\xE2\x80\xA6")
                    .with_text(how.view());
            }
        return diagnostic{};
    }

    /// Each axis's length: the same in every operand, or 1 against any length for the ellipsis'
    /// axes (broadcast). `dyn` extents are left for the run-time plan.
    constexpr diagnostic solve() {
        for (std::size_t i = 0; i < p.operand_count; ++i) {
            for (std::size_t k = 0; k < p.operand_ranks[i]; ++k) {
                const std::size_t a = p.operand_axes[i][k];
                const std::size_t extent = operands_[i].extents[k];
                std::size_t& length = p.lengths[a];
                if (extent == dyn || extent == length) continue;
                if (length == dyn) {
                    length = extent;
                } else if (a >= named_count_ && (length == 1 || extent == 1)) {
                    length = length == 1 ? extent : length;
                } else {
                    return make_error(errc::einsum_length_mismatch)
                        .with_text(a < named_count_ ? names_[a] : "\xE2\x80\xA6")
                        .with_number(length)
                        .with_number(extent);
                }
            }
        }
        return diagnostic{};
    }

    /// The result: the right side's axes in order, the ellipsis' in place of `...`.
    constexpr diagnostic add_output() {
        bool any_named = false;
        const auto add = [&](std::size_t axis, std::string_view name) {
            p.output_axes[p.output_rank] = static_cast<std::uint8_t>(axis);
            p.output_extents[p.output_rank++] = p.lengths[axis];
            if (!p.output_names.empty()) p.output_names.push_back(' ');
            p.output_names.append(name);
            any_named = any_named || name != "_";
        };
        for (std::size_t k = 0; k < right_.dim_count; ++k) {
            if (k == right_.ellipsis_dim()) {
                for (std::size_t e = 0; e < ellipsis_rank_; ++e) add(named_count_ + e, "_");
            } else {
                add(id_of(name_of(right_, k)), name_of(right_, k));
            }
        }
        if (!any_named) p.output_names = {};
        return diagnostic{};
    }

private:
    constexpr pattern::text_ref span(std::size_t begin, std::size_t end) const {
        return {static_cast<std::uint16_t>(begin), static_cast<std::uint16_t>(end - begin)};
    }
    constexpr std::string_view name_of(const pattern::expression& side, std::size_t k) const {
        return side.axis_of(side.dims[k], 0).where.in(text_);
    }
    constexpr std::size_t id_of(std::string_view name) const {
        for (std::size_t a = 0; a < p.axis_count; ++a)
            if (names_[a] == name) return a;
        return p.axis_count;
    }

    std::string_view text_;
    std::span<const operand> operands_;
    std::array<pattern::expression, max_operands> lefts_{};
    std::size_t left_count_ = 0;
    pattern::expression right_{};
    std::array<std::string_view, max_axes> names_{};
    std::size_t named_count_ = 0;
    std::size_t ellipsis_rank_ = 0;
};

} // namespace detail

/// Plans einsum `pattern_text` over `operands`, reporting the first error in einops' order: the
/// arrow, each side's text, each dimension of the left sides then of the right side, then the
/// operands (their number, ranks and lengths, which einops leaves to its backend).
///
///     constexpr std::array<operand, 2> qk{{{4, {1, 12, 128, 64}}, {4, {1, 12, 256, 64}}}};
///     constexpr auto p = make_einsum_plan("b h q d, b h k d -> b h q k", qk);
///     static_assert(p.ok() && p.output_extents[3] == 256);
constexpr einsum_plan make_einsum_plan(std::string_view pattern_text, std::span<const operand> operands) {
    using planner = detail::einsum_planner;
    planner planning(pattern_text, operands);
    for (const auto stage : {&planner::parse, &planner::name_axes, &planner::bind_operands,
                             &planner::bind_names, &planner::solve, &planner::add_output}) {
        if (diagnostic d = (planning.*stage)()) {
            planning.p.error = d;
            break;
        }
    }
    return planning.p;
}

} // namespace ctein::plan
