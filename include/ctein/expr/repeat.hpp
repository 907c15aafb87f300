// repeat: einops' repeat, as a view. Axes new on the right have stride 0, so nothing is copied
// until `ctein::eval` writes the repeated elements out.
#pragma once

#include "rearrange.hpp"

#include <utility>

namespace ctein {

/// Repeats `x` along the axes that `Pattern` adds on its right side: einops' repeat, checked at
/// compile time. New axes need their lengths, given as `ctein::len<"r", 4>` or
/// `ctein::len<"r">(n)`, or written as numbers (`h w -> h w 3`). In a group, the new axis before
/// an existing one tiles (`(r h)`), after it interleaves (`(h r)`).
///
/// The result is a view of `x` in which the new axes have stride 0: every repeated element is
/// the same element of `x`, so writing through the view writes all its copies. `ctein::eval`
/// materialises it. Errors are einops' messages, as for `ctein::rearrange`.
///
///     ctein::tensor<float, "b g s d", 1, 2, 128, 64> k;                 // 2 key/value heads
///     auto kk = ctein::repeat<"b g s d -> b (g r) s d">(k, ctein::len<"r", 4>);   // 8 heads
template <fixed_string Pattern, viewable X, axis_length_type... Lengths>
requires(!detail::fails_at_call<detail::view_operation_error_v<
             Pattern, plan::operation::repeat, X&&, Lengths...>>) constexpr auto repeat(X&& x,
                                                                                        Lengths... lengths) {
    return detail::view_operation<Pattern, plan::operation::repeat>("repeat", std::forward<X>(x), lengths...);
}
/// A mistaken repeat, reported at the caller's line (g++).
template <fixed_string Pattern, viewable X, axis_length_type... Lengths,
          class Mistake = detail::reported_at_call<
              detail::view_operation_error_v<Pattern, plan::operation::repeat, X&&, Lengths...>>>
requires detail::fails_at_call<
    detail::view_operation_error_v<Pattern, plan::operation::repeat, X&&, Lengths...>>
    Mistake repeat(X&& x, Lengths... lengths)
= delete;

} // namespace ctein
