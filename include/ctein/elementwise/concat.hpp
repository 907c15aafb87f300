// concat: two operands joined along a named axis, as a lazy expression node (no copy until the
// expression is evaluated), and rotate_half, RoPE's rotation written with it. The shapes are
// plan/broadcast_plan.hpp's concat_plan; evaluation walks the first operand, then the second.
#pragma once

#include "../core/diagnose.hpp"
#include "../core/fixed_string.hpp"
#include "../expr/slice.hpp"
#include "evaluate.hpp"
#include "expression.hpp"
#include "operations.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ctein {

/// `a` then `b` along the axis named `Axis`; every other axis the same in both (by name).
template <fixed_string Axis, class A, class B>
class concatenated {
    static constexpr plan::concat_plan planned =
        plan::make_concat_plan(A::static_shape, B::static_shape, Axis.view());

public:
    using value_type = typename A::value_type;
    static constexpr diagnostic error = A::error ? A::error : B::error ? B::error : planned.error;
    static constexpr plan::elementwise_shape static_shape = planned.result;
    static constexpr std::size_t dim = planned.dim;
    static constexpr std::array<std::size_t, plan::max_dims> second_source = planned.b_source;
    using extents_type = detail::shape_extents<static_shape>;
    static constexpr auto names = detail::shape_names<static_shape>;
    static constexpr std::size_t rank() noexcept { return static_shape.rank; }

    concatenated(const A& a, const B& b)
        : a_(a)
        , b_(b) {}
    const A& first() const noexcept { return a_; }
    const B& second() const noexcept { return b_; }

    plan::elementwise_shape actual_shape() const {
        const plan::concat_plan p = plan::make_concat_plan(a_.actual_shape(), b_.actual_shape(), Axis.view());
        if (p.error) throw_error(p.error, " while evaluating a concat");
        return p.result;
    }
    /// The actual lengths, read without the names where the operands agree (else the full plan
    /// gives the error).
    std::array<std::size_t, plan::max_dims> actual_lengths() const {
        const auto a = a_.actual_lengths();
        const auto b = b_.actual_lengths();
        std::array<std::size_t, plan::max_dims> lengths{};
        for (std::size_t d = 0; d < rank(); ++d) {
            const std::size_t other = b[second_source[d]];
            if (d != dim && a[d] != other) return actual_shape().extents;
            lengths[d] = d == dim ? a[d] + other : a[d];
        }
        return lengths;
    }
    extents_type extents() const { return detail::extents_from<extents_type>(actual_lengths()); }

private:
    A a_;
    B b_;
};

namespace detail {
template <fixed_string Axis, class A, class B>
struct is_elementwise_node<concatenated<Axis, A, B>> : std::true_type {};

template <fixed_string Axis, class A, class B, class T>
struct computes_in_batches_of<concatenated<Axis, A, B>, T>
    : std::bool_constant<computes_in_batches_of<A, T>::value && computes_in_batches_of<B, T>::value> {};

/// Reads the first operand before the join and the second after it; the join is a break in the
/// row when the axis is the innermost, so that no chunk straddles it.
template <fixed_string Axis, class A, class B, std::size_t Capacity>
class evaluator<concatenated<Axis, A, B>, Capacity> {
    using node = concatenated<Axis, A, B>;
    using value_type = typename node::value_type;

public:
    evaluator(const node& c, const placement<Capacity>& at, const loop_dims<Capacity>& loop)
        : axis_(at.loop_dim[node::dim])
        , inner_(loop.rank - 1)
        , first_length_(c.first().actual_lengths()[node::dim])
        , split_(axis_ == no_dim ? 0 : static_cast<std::size_t>(at.origin[axis_]) + first_length_)
        , second_side_(axis_ == no_dim && first_length_ == 0)
        , first_(c.first(), first_placement(at), loop)
        , second_(c.second(), second_placement(at), loop) {}

    bool mergeable(std::size_t r, const loop_dims<Capacity>& loop) const noexcept {
        return axis_ != r && axis_ != r + 1 && first_.mergeable(r, loop) && second_.mergeable(r, loop);
    }
    void start_rows(std::size_t outer, const loop_dims<Capacity>& loop) noexcept {
        outer_ = outer;
        if (axis_ != no_dim && axis_ < outer) second_side_ = split_ == 0;
        first_.start_rows(outer, loop);
        second_.start_rows(outer, loop);
    }
    void next_row(const std::array<std::size_t, Capacity>& index, std::size_t stepped) noexcept {
        if (axis_ != no_dim && axis_ < outer_) second_side_ = index[axis_] >= split_;
        first_.next_row(index, stepped);
        second_.next_row(index, stepped);
    }
    void prepare(std::size_t begin, std::size_t length, std::size_t inner) noexcept {
        if (axis_ == inner) second_side_ = begin >= split_;
        if (second_side_) {
            second_.prepare(begin, length, inner);
        } else {
            first_.prepare(begin, length, inner);
        }
    }
    std::size_t next_break(std::size_t begin) const noexcept {
        const std::size_t own =
            axis_ == inner_ && split_ > begin ? split_ : std::numeric_limits<std::size_t>::max();
        return std::min({own, first_.next_break(begin), second_.next_break(begin)});
    }
    template <class T>
    simd_of<value_type, T> batch(std::size_t i) const noexcept {
        return second_side_ ? second_.template batch<T>(i) : first_.template batch<T>(i);
    }
    value_type value(std::size_t i) const noexcept {
        return second_side_ ? second_.value(i) : first_.value(i);
    }

private:
    static placement<Capacity> first_placement(const placement<Capacity>& at) { return at; }
    placement<Capacity> second_placement(const placement<Capacity>& at) const {
        placement<Capacity> p = at;
        p.loop_dim.fill(no_dim);
        for (std::size_t r = 0; r < node::rank(); ++r) p.loop_dim[node::second_source[r]] = at.loop_dim[r];
        if (axis_ != no_dim) p.origin[axis_] += static_cast<std::ptrdiff_t>(first_length_);
        return p;
    }

    std::size_t axis_;
    std::size_t inner_;
    std::size_t outer_ = 0;
    std::size_t first_length_;
    std::size_t split_;
    bool second_side_;
    evaluator<A, Capacity> first_;
    evaluator<B, Capacity> second_;
};

template <fixed_string Axis, class A, class B>
using concat_node = concatenated<Axis, typename node_for<typename peer_value<A, B>::type, A>::type,
                                 typename node_for<typename peer_value<A, B>::type, B>::type>;

template <fixed_string Axis, class A, class B>
struct concat_error_of {
    static constexpr diagnostic value = [] {
        if constexpr (!(array_operand<A> && array_operand<B>)) {
            return diagnostic{}; // substituted before the overload's constraints are checked
        } else if constexpr (!(reads_in_place<A>() && reads_in_place<B>())) {
            return diagnostic{};
        } else {
            return concat_node<Axis, A, B>::error;
        }
    }();
};
template <fixed_string Axis, class A, class B>
inline constexpr const diagnostic& concat_error = concat_error_of<Axis, A, B>::value;
} // namespace detail

template <fixed_string Axis, class A, class B>
struct view_adaptor<concatenated<Axis, A, B>> : detail::elementwise_adaptor<concatenated<Axis, A, B>> {};

/// `a` and `b` joined along the axis named `Axis` (torch.cat): a lazy expression, evaluated with
/// the rest of the expression it is part of. Both must have the same axis names (in any order;
/// the result has a's) and the same lengths on every other axis: a compile error when static, a
/// ctein::shape_error otherwise.
///
///     auto [x1, x2] = ctein::chunk<"d", 2>(x);
///     auto rotated = ctein::concat<"d">(-x2, x1);   // RoPE's rotate_half
template <fixed_string Axis, class A, class B>
requires(detail::array_operand<A>&& detail::array_operand<B> &&
         !detail::fails_at_call<detail::concat_error<Axis, A, B>>) auto concat(A&& a, B&& b) {
    if constexpr (!(detail::readable_in_place<A>() && detail::readable_in_place<B>())) {
        return detail::failed_operation{};
    } else {
        using node = detail::concat_node<Axis, A, B>;
        using peer = typename detail::peer_value<A, B>::type;
        static_assert(
            std::is_same_v<typename detail::value_of<A>::type, typename detail::value_of<B>::type>,
            "ctein::concat: the operands have different element types; convert one with ctein::as<T>");
        if constexpr (node::error) {
            detail::report<node::error>();
            return detail::failed_operation{};
        } else {
            return node(detail::node_of<peer>(std::forward<A>(a)), detail::node_of<peer>(std::forward<B>(b)));
        }
    }
}
template <fixed_string Axis, class A, class B,
          class Mistake = detail::reported_at_call<detail::concat_error<Axis, A, B>>>
requires(detail::array_operand<A>&& detail::array_operand<B>&&
             detail::fails_at_call<detail::concat_error<Axis, A, B>>) Mistake concat(A&& a, B&& b)
= delete;

/// RoPE's rotation in the rotate-half layout (LLaMA, Hugging Face's `rotate_half`): the axis named
/// `Axis` cut in halves x1, x2 and joined as (-x2, x1). A lazy expression over x (no copy).
///
///     auto q_rotated = ctein::eval(q * cos + ctein::rotate_half<"d">(q) * sin);
template <fixed_string Axis, viewable X>
auto rotate_half(X&& x) {
    auto halves = chunk<Axis, 2>(std::forward<X>(x));
    if constexpr (std::is_base_of_v<detail::failed_operation, typename decltype(halves)::value_type>) {
        return detail::failed_operation{};
    } else {
        return concat<Axis>(-halves[1], halves[0]);
    }
}

} // namespace ctein
