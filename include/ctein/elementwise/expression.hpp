// The nodes of an element-wise expression: a tensor or view read in place (`operand`), a scalar
// (`constant`), an operation on other nodes (`elementwise`) and a concatenation along a named axis
// (`concatenated`, elementwise/concat.hpp). Each node knows its shape at compile time (names, static
// extents) from plan/broadcast_plan.hpp and computes its actual one at run time with the same
// functions; evaluation is elementwise/evaluate.hpp's.
#pragma once

#include "../core/diagnose.hpp"
#include "../core/error.hpp"
#include "../core/fixed_string.hpp"
#include "../expr/as_view.hpp"
#include "../expr/tensor.hpp"
#include "../expr/view.hpp"
#include "../plan/broadcast_plan.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ctein {

namespace detail {
/// The shape the compiler knows of a view type.
template <class V>
constexpr plan::elementwise_shape static_shape_of() {
    plan::elementwise_shape s;
    s.rank = V::rank();
    for (std::size_t r = 0; r < V::rank(); ++r) s.extents[r] = V::extents_type::static_extent(r);
    s.names = bounded_string<256>(V::names.view());
    return s;
}

/// The shape of an actual view.
template <class V>
plan::elementwise_shape actual_shape_of(const V& v) {
    plan::elementwise_shape s = static_shape_of<V>();
    for (std::size_t r = 0; r < V::rank(); ++r) s.extents[r] = v.extent(r);
    return s;
}

/// extents<...> of a compile-time shape.
template <const plan::elementwise_shape& S, std::size_t... R>
auto extents_of_shape(std::index_sequence<R...>) -> extents<S.extents[R]...>;
template <const plan::elementwise_shape& S>
using shape_extents = decltype(extents_of_shape<S>(std::make_index_sequence<S.rank>{}));
template <const plan::elementwise_shape& S>
inline constexpr auto shape_names = fixed_string<S.names.size()>(S.names.view());

/// Extents E of the first E::rank() of `lengths`.
template <class E>
E extents_from(const std::array<std::size_t, plan::max_dims>& lengths) {
    std::array<std::size_t, E::rank()> all{};
    for (std::size_t r = 0; r < E::rank(); ++r) all[r] = lengths[r];
    return E::from_all(all);
}
} // namespace detail

/// A tensor or view read in place by an expression: holds the view (never the elements).
template <class V>
class operand {
public:
    using view_type = V;
    using value_type = typename V::value_type;
    static constexpr plan::elementwise_shape static_shape = detail::static_shape_of<V>();
    static constexpr diagnostic error{};

    explicit operand(const V& v)
        : view_(v) {}
    const V& view() const noexcept { return view_; }
    plan::elementwise_shape actual_shape() const { return detail::actual_shape_of(view_); }
    std::array<std::size_t, plan::max_dims> actual_lengths() const noexcept {
        std::array<std::size_t, plan::max_dims> lengths{};
        for (std::size_t r = 0; r < V::rank(); ++r) lengths[r] = view_.extent(r);
        return lengths;
    }

private:
    V view_;
};

/// A scalar in an expression, of the type of the operand it meets (`x * 0.5` stays float, as in
/// numpy): rank 0, broadcast everywhere.
template <class T>
class constant {
public:
    using value_type = T;
    static constexpr plan::elementwise_shape static_shape{};
    static constexpr diagnostic error{};

    explicit constant(T value)
        : value_(value) {}
    T value() const noexcept { return value_; }
    plan::elementwise_shape actual_shape() const { return {}; }
    std::array<std::size_t, plan::max_dims> actual_lengths() const noexcept { return {}; }

private:
    T value_;
};

namespace detail {
/// Lines up the shapes of an operation's operands, left to right: the result's shape, and for
/// each operand, the operand's dimension read at each result dimension (`none`: broadcast).
template <std::size_t N>
struct combined_shape {
    diagnostic error;
    plan::elementwise_shape result;
    std::array<std::array<std::size_t, plan::max_dims>, N> source{};
};

template <std::size_t N>
constexpr combined_shape<N> combine_shapes(const std::array<plan::elementwise_shape, N>& shapes) {
    combined_shape<N> c;
    c.result = shapes[0];
    for (std::size_t r = 0; r < shapes[0].rank; ++r) c.source[0][r] = r;
    for (std::size_t i = 1; i < N; ++i) {
        const plan::broadcast_plan p = plan::make_broadcast_plan(c.result, shapes[i]);
        if (p.error) {
            c.error = p.error;
            return c;
        }
        for (std::size_t k = 0; k < i; ++k) { // the earlier operands' dimensions, through the new result
            std::array<std::size_t, plan::max_dims> moved{};
            for (std::size_t r = 0; r < p.result.rank; ++r)
                moved[r] = p.source[0][r] == plan::broadcast_plan::none ? plan::broadcast_plan::none
                                                                        : c.source[k][p.source[0][r]];
            c.source[k] = moved;
        }
        c.source[i] = p.source[1];
        c.result = p.result;
    }
    return c;
}

template <class... Args>
inline constexpr combined_shape<sizeof...(Args)>
    combined_static_shape = combine_shapes<sizeof...(Args)>({Args::static_shape...});

/// The first compile error among the operands, else that of lining them up.
template <class... Args>
constexpr diagnostic first_error() {
    diagnostic d;
    ((d = d ? d : Args::error), ...);
    return d ? d : combined_static_shape<Args...>.error;
}

/// The actual shape of a node that lines up `args`: a ctein::shape_error with the compiler's text
/// where dynamic lengths do not meet.
template <class... Args>
combined_shape<sizeof...(Args)> combine_actual(const std::tuple<Args...>& args) {
    const combined_shape<sizeof...(Args)> c = std::apply(
        [](const auto&... a) { return combine_shapes<sizeof...(Args)>({a.actual_shape()...}); }, args);
    if (c.error) throw_error(c.error, " while evaluating an element-wise expression");
    return c;
}
} // namespace detail

/// An element-wise operation `Op` on its operands (`operand`s, `constant`s and other nodes):
/// what `x * cos + y`, `ctein::exp(x)` and `ctein::where(m, x, y)` return. Lazy: nothing is read
/// until the expression is evaluated (ctein::eval, ctein::assign, or an operation given it).
/// Its names and static extents are in the type (`names`, `extents_type`).
template <class Op, class... Args>
class elementwise {
public:
    using value_type = decltype(Op{}(std::declval<typename Args::value_type>()...));
    static constexpr diagnostic error = detail::first_error<Args...>();
    static constexpr plan::elementwise_shape static_shape = detail::combined_static_shape<Args...>.result;
    using extents_type = detail::shape_extents<static_shape>;
    static constexpr auto names = detail::shape_names<static_shape>;
    static constexpr std::size_t rank() noexcept { return static_shape.rank; }

    explicit elementwise(const Args&... args)
        : args_(args...) {}
    const std::tuple<Args...>& operands() const noexcept { return args_; }

    /// The actual shape, names included: a ctein::shape_error where dynamic lengths do not meet.
    plan::elementwise_shape actual_shape() const { return detail::combine_actual(args_).result; }
    /// The actual lengths. Where the operands' lengths of each axis are equal (the usual case),
    /// they are read without the names; otherwise the full plan decides (a length 1 broadcast
    /// between unnamed operands, or the error).
    std::array<std::size_t, plan::max_dims> actual_lengths() const {
        constexpr auto& combined = detail::combined_static_shape<Args...>;
        const auto operand_lengths = std::apply(
            [](const auto&... a) {
                return std::array<std::array<std::size_t, plan::max_dims>, sizeof...(Args)>{
                    a.actual_lengths()...};
            },
            args_);
        std::array<std::size_t, plan::max_dims> lengths{};
        for (std::size_t r = 0; r < rank(); ++r) {
            lengths[r] = dyn;
            for (std::size_t i = 0; i < sizeof...(Args); ++i) {
                if (combined.source[i][r] == plan::broadcast_plan::none) continue;
                const std::size_t length = operand_lengths[i][combined.source[i][r]];
                if (lengths[r] != dyn && lengths[r] != length) return actual_shape().extents;
                lengths[r] = length;
            }
        }
        return lengths;
    }
    /// The actual extents, checked where they are dynamic (a ctein::shape_error).
    extents_type extents() const { return detail::extents_from<extents_type>(actual_lengths()); }

private:
    std::tuple<Args...> args_;
};

namespace detail {
template <class E>
struct is_elementwise_node : std::false_type {};
template <class Op, class... A>
struct is_elementwise_node<elementwise<Op, A...>> : std::true_type {};
} // namespace detail

/// Satisfied by the element-wise expressions (and concatenations) ctein builds.
template <class E>
concept elementwise_expression = detail::is_elementwise_node<std::remove_cvref_t<E>>::value;

} // namespace ctein
