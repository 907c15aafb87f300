// The element-wise operations users write: arithmetic and comparison operators, the usual
// functions, `where` and `as<T>`, on ctein tensors, views, expressions and scalars. Each builds an
// `elementwise` node (elementwise/expression.hpp); a name or length clash is one compile error at
// the user's line on g++ (core/diagnose.hpp), a ctein::shape_error with the same text at run time.
#pragma once

#include "../core/diagnose.hpp"
#include "../core/simd_headers.hpp"
#include "../expr/as_view.hpp"
#include "evaluate.hpp"
#include "expression.hpp"

#include <cmath>
#include <type_traits>
#include <utility>

namespace ctein {

namespace detail {
/// A tensor, view or expression: what an element-wise operation needs at least one of (so that
/// ctein's operators never compete with another library's on its own types).
template <class X>
concept array_operand =
    elementwise_expression<X> || tensor_type<std::remove_cvref_t<X>> || view_type<std::remove_cvref_t<X>>;
template <class X>
concept scalar_operand = std::is_arithmetic_v<std::remove_cvref_t<X>>;
/// A result that has already reported its mistake: taken, so that it adds no second error.
template <class X>
concept failed_operand = std::is_base_of_v<failed_operation, std::remove_cvref_t<X>>;
template <class X>
concept expression_operand = array_operand<X> || scalar_operand<X> || failed_operand<X>;
template <class... X>
concept elementwise_operands = (expression_operand<X> && ...) &&
                               ((array_operand<X> || failed_operand<X>) || ...);

/// The value type of operand X (its own type for a scalar).
template <class X>
struct value_of {
    using type = std::remove_cvref_t<X>;
};
template <array_operand X>
struct value_of<X> {
    using type = typename view_of<X>::value_type;
};
template <elementwise_expression X>
struct value_of<X> {
    using type = typename std::remove_cvref_t<X>::value_type;
};

/// The type a scalar takes among operands X...: that of the first tensor or expression (numpy's
/// rule: `x * 0.5` stays float), or the scalars' common type when there is none.
template <class... X>
struct peer_value {
    using type = std::common_type_t<typename value_of<X>::type...>;
};
template <class X, class... Rest>
requires array_operand<X>
struct peer_value<X, Rest...> {
    using type = typename value_of<X>::type;
};
template <class X, class... Rest>
requires(!array_operand<X> && (array_operand<Rest> || ...)) struct peer_value<X, Rest...>
    : peer_value<Rest...> {
};

/// The type of scalar S beside tensors of Peer: Peer (`x * 0.5` stays float), except that a
/// floating-point scalar is not truncated to an integer tensor's type (`counts * 0.5` is double).
template <class Peer, class S>
using scalar_type = std::conditional_t<std::is_integral_v<Peer> && std::is_floating_point_v<S>, S, Peer>;

/// The node that stands for operand X in an expression whose scalars take type Peer.
template <class Peer, class X>
struct node_for {
    using type = constant<scalar_type<Peer, std::remove_cvref_t<X>>>;
};
template <class Peer, array_operand X>
struct node_for<Peer, X> {
    using type = operand<std::remove_cv_t<view_of<X>>>;
};
template <class Peer, elementwise_expression X>
struct node_for<Peer, X> {
    using type = std::remove_cvref_t<X>;
};

template <class Peer, class X>
auto node_of(X&& x) {
    using node = typename node_for<Peer, X>::type;
    if constexpr (elementwise_expression<X>) {
        return node(x);
    } else if constexpr (array_operand<X>) {
        return node(as_view(x));
    } else {
        return node(static_cast<typename node::value_type>(x));
    }
}

/// Whether X can be read by an expression, without reporting anything.
template <class X>
constexpr bool reads_in_place() {
    if constexpr (!array_operand<X> || elementwise_expression<X>) {
        return true;
    } else {
        return borrowable<X&&> && view_of<X>::is_strided;
    }
}

/// Whether X can be read by an expression that may outlive the call; if not, reports why once
/// (a temporary tensor, a repeat or merge that has no stride per axis).
template <class X>
constexpr bool readable_in_place() {
    if constexpr (!array_operand<X> || elementwise_expression<X>) {
        return true;
    } else if constexpr (!can_borrow<X&&>()) {
        return false;
    } else if constexpr (!view_of<X>::is_strided) {
        static_assert(always_false<X>, "ctein: an element-wise expression reads tensors in place, and this "
                                       "view (a repeat, or a merge of axes that are not adjacent in "
                                       "memory) has no stride per axis; ctein::eval it first");
        return false;
    } else {
        return true;
    }
}

/// The type scalars take in operation Op on X...: where's condition does not count.
template <class Op, class... X>
struct peer_of_operation : peer_value<X...> {};
template <class Op, class C, class A, class B>
requires std::is_same_v<Op, struct where_op>
struct peer_of_operation<Op, C, A, B> : peer_value<A, B> {
};

/// The node operation Op makes of operands X...
template <class Op, class... X>
using node_of_operation =
    elementwise<Op, typename node_for<typename peer_of_operation<Op, X...>::type, X>::type...>;

/// The compile error a call of Op on X... makes (reported at the call on g++): none where an
/// operand cannot be read, which the body reports.
template <class Op, class... X>
struct elementwise_error_of {
    static constexpr diagnostic value = [] {
        if constexpr (!elementwise_operands<X...> || (failed_operand<X> || ...)) {
            return diagnostic{}; // substituted before the overload's constraints are checked
        } else if constexpr (!(reads_in_place<X>() && ...)) {
            return diagnostic{};
        } else {
            return node_of_operation<Op, X...>::error;
        }
    }();
};
template <class Op, class... X>
inline constexpr const diagnostic& elementwise_error = elementwise_error_of<Op, X...>::value;

/// The node of Op on x..., after the checks each operand and the operation make.
template <class Op, class... X>
auto make_elementwise(X&&... x) {
    if constexpr ((failed_operand<X> || ...) || !(readable_in_place<X>() && ...)) {
        return failed_operation{};
    } else {
        using peer = typename peer_of_operation<Op, X...>::type;
        using node = node_of_operation<Op, X...>;
        static_assert(!Op::arithmetic || !(std::is_same_v<typename value_of<X>::type, bool> || ...),
                      "ctein: arithmetic on a bool tensor; make it a number first: ctein::as<float>(mask), "
                      "or pick values with ctein::where(mask, a, b)");
        if constexpr (node::error) {
            report<node::error>();
            return failed_operation{};
        } else {
            return node(node_of<peer>(std::forward<X>(x))...);
        }
    }
}

/// Whether a value is an xsimd batch rather than a scalar.
template <class T>
inline constexpr bool is_scalar_value = std::is_arithmetic_v<T>;

/// The larger (`Larger`) or smaller of a and b, scalars or batches: torch.maximum / minimum.
template <bool Larger, class A, class B>
auto extremum(const A& a, const B& b) noexcept {
    if constexpr (is_scalar_value<A>) {
        using C = std::common_type_t<A, B>;
        return (Larger ? C(a) < C(b) : C(b) < C(a)) ? C(b) : C(a);
    } else if constexpr (Larger) {
        return xsimd::max(a, b);
    } else {
        return xsimd::min(a, b);
    }
}

// The operations, on scalars and on xsimd batches alike. `arithmetic`: refuses bool operands;
// `batches`: has a batch form.
#define CTEIN_ELEMENTWISE_OP(name, arithmetic_, expression)                                                  \
    struct name {                                                                                            \
        static constexpr bool arithmetic = arithmetic_;                                                      \
        static constexpr bool batches = true;                                                                \
        template <class... A>                                                                                \
        auto operator()(const A&... a) const noexcept {                                                      \
            return expression;                                                                               \
        }                                                                                                    \
    };
#define CTEIN_A0 std::get<0>(std::tie(a...))
#define CTEIN_A1 std::get<1>(std::tie(a...))
CTEIN_ELEMENTWISE_OP(plus_op, true, CTEIN_A0 + CTEIN_A1)
CTEIN_ELEMENTWISE_OP(minus_op, true, CTEIN_A0 - CTEIN_A1)
CTEIN_ELEMENTWISE_OP(multiplies_op, true, CTEIN_A0* CTEIN_A1)
CTEIN_ELEMENTWISE_OP(divides_op, true, CTEIN_A0 / CTEIN_A1)
CTEIN_ELEMENTWISE_OP(negate_op, true, -CTEIN_A0)
CTEIN_ELEMENTWISE_OP(less_op, false, CTEIN_A0 < CTEIN_A1)
CTEIN_ELEMENTWISE_OP(less_equal_op, false, CTEIN_A0 <= CTEIN_A1)
CTEIN_ELEMENTWISE_OP(greater_op, false, CTEIN_A0 > CTEIN_A1)
CTEIN_ELEMENTWISE_OP(greater_equal_op, false, CTEIN_A0 >= CTEIN_A1)
CTEIN_ELEMENTWISE_OP(equal_op, false, CTEIN_A0 == CTEIN_A1)
CTEIN_ELEMENTWISE_OP(not_equal_op, false, CTEIN_A0 != CTEIN_A1)
CTEIN_ELEMENTWISE_OP(maximum_op, true, extremum<true>(CTEIN_A0, CTEIN_A1))
CTEIN_ELEMENTWISE_OP(minimum_op, true, extremum<false>(CTEIN_A0, CTEIN_A1))
#undef CTEIN_A0
#undef CTEIN_A1
#undef CTEIN_ELEMENTWISE_OP

/// A function with a std:: form for scalars and, where `batches_`, an xsimd form for batches.
#define CTEIN_ELEMENTWISE_FUNCTION_OP(name, batches_, scalar, batch)                                         \
    struct name##_op {                                                                                       \
        static constexpr bool arithmetic = true;                                                             \
        static constexpr bool batches = batches_;                                                            \
        template <class A>                                                                                   \
        auto operator()(const A& a) const noexcept {                                                         \
            if constexpr (is_scalar_value<A>) {                                                              \
                return scalar;                                                                               \
            } else {                                                                                         \
                return batch;                                                                                \
            }                                                                                                \
        }                                                                                                    \
    };
CTEIN_ELEMENTWISE_FUNCTION_OP(exp, true, static_cast<A>(std::exp(a)), xsimd::exp(a))
// xsimd 8.1's log does not compile for AVX512BW: computed by std::log, element by element
CTEIN_ELEMENTWISE_FUNCTION_OP(log, false, static_cast<A>(std::log(a)), xsimd::log(a))
CTEIN_ELEMENTWISE_FUNCTION_OP(sqrt, true, static_cast<A>(std::sqrt(a)), xsimd::sqrt(a))
CTEIN_ELEMENTWISE_FUNCTION_OP(rsqrt, true, static_cast<A>(1 / std::sqrt(a)),
                              A(1) / xsimd::sqrt(a)) // exact, not rsqrtps
CTEIN_ELEMENTWISE_FUNCTION_OP(tanh, true, static_cast<A>(std::tanh(a)), xsimd::tanh(a))
CTEIN_ELEMENTWISE_FUNCTION_OP(sin, true, static_cast<A>(std::sin(a)), xsimd::sin(a))
CTEIN_ELEMENTWISE_FUNCTION_OP(cos, true, static_cast<A>(std::cos(a)), xsimd::cos(a))
CTEIN_ELEMENTWISE_FUNCTION_OP(abs, true, static_cast<A>(a < 0 ? -a : a), xsimd::abs(a))
#undef CTEIN_ELEMENTWISE_FUNCTION_OP

/// where(c, a, b): a where c is true, else b.
struct where_op {
    static constexpr bool arithmetic = false;
    static constexpr bool batches = true;
    template <class C, class A, class B>
    auto operator()(const C& c, const A& a, const B& b) const noexcept {
        if constexpr (is_scalar_value<A>) {
            return c ? a : b;
        } else {
            return xsimd::select(c, a, b);
        }
    }
};
/// A conversion, element by element (computed by scalars: the types differ).
template <class T>
struct cast_op {
    static constexpr bool arithmetic = false;
    static constexpr bool batches = false;
    template <class A>
    T operator()(const A& a) const noexcept {
        return static_cast<T>(a);
    }
};
struct logical_not_op {
    static constexpr bool arithmetic = false;
    static constexpr bool batches = true;
    template <class A>
    auto operator()(const A& a) const noexcept {
        return !a;
    }
};
} // namespace detail

// Each public operation is a pair (core/diagnose.hpp): the call, and a deleted overload that g++
// picks when the operands' names or lengths clash, so that the error is reported at the user's line.

/// `a + b` (and `- * /`) on tensors, views, expressions and scalars: a lazy element-wise expression.
/// Named operands meet by their names (`"b h s d" * "s d"` broadcasts over b and h; an axis of one
/// name must have one length), unnamed ones from the right as in numpy. A scalar takes the type of
/// the tensor it meets.
///
///     auto y = ctein::eval(x * cos + ctein::rotate_half<"d">(x) * sin);   // RoPE, one pass
#define CTEIN_ELEMENTWISE_BINARY(name, Op)                                                                   \
    template <class A, class B>                                                                              \
    requires(detail::elementwise_operands<A, B> &&                                                           \
             !detail::fails_at_call<detail::elementwise_error<Op, A, B>>) auto                               \
    name(A&& a, B&& b) {                                                                                     \
        return detail::make_elementwise<Op>(std::forward<A>(a), std::forward<B>(b));                         \
    }                                                                                                        \
    template <class A, class B,                                                                              \
              class Mistake = detail::reported_at_call<detail::elementwise_error<Op, A, B>>>                 \
    requires(detail::elementwise_operands<A, B> &&                                                           \
             detail::fails_at_call<detail::elementwise_error<Op, A, B>>) Mistake                             \
    name(A&& a, B&& b)                                                                                       \
    = delete;
#define CTEIN_ELEMENTWISE_UNARY(name, Op)                                                                    \
    template <class A>                                                                                       \
    requires(detail::elementwise_operands<A>) auto name(A&& a) {                                             \
        return detail::make_elementwise<Op>(std::forward<A>(a));                                             \
    }

CTEIN_ELEMENTWISE_BINARY(operator+, detail::plus_op)
CTEIN_ELEMENTWISE_BINARY(operator-, detail::minus_op)
CTEIN_ELEMENTWISE_BINARY(operator*, detail::multiplies_op)
CTEIN_ELEMENTWISE_BINARY(operator/, detail::divides_op)
/// Comparisons give bool expressions (masks): `ctein::ignore_mask(mask == 0)`.
CTEIN_ELEMENTWISE_BINARY(operator<, detail::less_op)
CTEIN_ELEMENTWISE_BINARY(operator<=, detail::less_equal_op)
CTEIN_ELEMENTWISE_BINARY(operator>, detail::greater_op)
CTEIN_ELEMENTWISE_BINARY(operator>=, detail::greater_equal_op)
CTEIN_ELEMENTWISE_BINARY(operator==, detail::equal_op)
CTEIN_ELEMENTWISE_BINARY(operator!=, detail::not_equal_op)
/// The larger (smaller) of two operands, element by element (torch.maximum, torch.minimum).
CTEIN_ELEMENTWISE_BINARY(max, detail::maximum_op)
CTEIN_ELEMENTWISE_BINARY(min, detail::minimum_op)

CTEIN_ELEMENTWISE_UNARY(operator-, detail::negate_op)
CTEIN_ELEMENTWISE_UNARY(operator!, detail::logical_not_op)
/// The usual functions, element by element: `ctein::exp(x)`, `ctein::rsqrt(var + 1e-5f)`.
CTEIN_ELEMENTWISE_UNARY(exp, detail::exp_op)
CTEIN_ELEMENTWISE_UNARY(log, detail::log_op)
CTEIN_ELEMENTWISE_UNARY(sqrt, detail::sqrt_op)
CTEIN_ELEMENTWISE_UNARY(rsqrt, detail::rsqrt_op)
CTEIN_ELEMENTWISE_UNARY(tanh, detail::tanh_op)
CTEIN_ELEMENTWISE_UNARY(sin, detail::sin_op)
CTEIN_ELEMENTWISE_UNARY(cos, detail::cos_op)
CTEIN_ELEMENTWISE_UNARY(abs, detail::abs_op)
#undef CTEIN_ELEMENTWISE_UNARY
#undef CTEIN_ELEMENTWISE_BINARY

/// `a` where `condition` is true, else `b` (torch.where); the three broadcast together. The seeds'
/// `scores.masked_fill(mask == 0, -1e9)` is `ctein::where(mask == 0, -1e9f, scores)`.
template <class C, class A, class B>
requires(
    detail::elementwise_operands<C, A, B> &&
    !detail::fails_at_call<detail::elementwise_error<detail::where_op, C, A, B>>) auto where(C&& condition,
                                                                                             A&& a, B&& b) {
    return detail::make_elementwise<detail::where_op>(std::forward<C>(condition), std::forward<A>(a),
                                                      std::forward<B>(b));
}
template <class C, class A, class B,
          class Mistake = detail::reported_at_call<detail::elementwise_error<detail::where_op, C, A, B>>>
requires(detail::elementwise_operands<C, A, B>&&
             detail::fails_at_call<detail::elementwise_error<detail::where_op, C, A, B>>) Mistake
    where(C&& condition, A&& a, B&& b)
= delete;

/// `x`'s elements converted to T, as `static_cast` does: a bool or integer mask as 0/1 floats
/// (`ctein::as<float>(mask)`), or the reverse. Lazy, like every expression.
template <class T, class X>
requires(detail::elementwise_operands<X>) auto as(X&& x) {
    return detail::make_elementwise<detail::cast_op<T>>(std::forward<X>(x));
}

} // namespace ctein
