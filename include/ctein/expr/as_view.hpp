// as_view: how ctein reads any tensor it is given. ctein's own views and tensors are read
// directly; other libraries' types through a `view_adaptor` specialisation (ctein/xtensor.hpp
// provides xtensor's).
#pragma once

#include "../core/diagnose.hpp"
#include "tensor.hpp"
#include "view.hpp"

#include <type_traits>
#include <utility>

namespace ctein {

/// Specialise with `static auto view(T&)` returning a `ctein::view`, and
/// `static constexpr bool owning` (true when T owns its elements, so that a temporary T would
/// leave the view dangling).
template <class T>
struct view_adaptor;

namespace detail {
/// Types whose elements are computed when read (element-wise expressions): their view_adaptor
/// names `computed_view`, the view type of the tensor they evaluate to, and has `evaluate(x)` and
/// `evaluate_into(out, x)`. Operations that compute a new tensor read them through one
/// evaluation; operations that return views of their input refuse them.
template <class X>
concept computed = requires { typename view_adaptor<std::remove_cvref_t<X>>::computed_view; };
} // namespace detail

/// The view of `x`: itself for a view, its elements for a tensor, or what `view_adaptor` says.
template <class X>
constexpr auto as_view(X& x) {
    using plain = std::remove_cv_t<X>;
    if constexpr (detail::computed<plain>) {
        static_assert(detail::always_false<plain>,
                      "ctein: an element-wise expression has no memory to view; ctein::eval it first");
        return typename view_adaptor<plain>::computed_view{};
    } else if constexpr (view_type<plain>) {
        return plain(x);
    } else if constexpr (tensor_type<plain>) {
        return x.view();
    } else {
        return view_adaptor<plain>::view(x);
    }
}

/// The result of an operation that has reported a compile error reads as that failure, so that
/// `ctein::eval(attention(...))` or an einsum around a failed one adds no error of its own.
template <>
struct view_adaptor<detail::failed_operation> {
    static detail::failed_operation view(const detail::failed_operation&);
    static constexpr bool owning = false;
};
template <class Error>
struct view_adaptor<detail::failed<Error>> : view_adaptor<detail::failed_operation> {};

namespace detail {
/// What as_view gives once a view_adaptor has reported that it cannot read its type.
template <class V>
concept failed_view = std::is_same_v<V, failed_operation>;
} // namespace detail

namespace detail {
template <class X>
struct view_type_of {
    using type = decltype(as_view(std::declval<X&>()));
};
template <computed X>
struct view_type_of<X> {
    using type = typename view_adaptor<std::remove_cv_t<X>>::computed_view;
};
} // namespace detail

/// The type `as_view` gives for X (for an element-wise expression, the view of what it evaluates to).
template <class X>
using view_of = typename detail::view_type_of<std::remove_reference_t<X>>::type;

namespace detail {
/// Types ctein reads: its own views and tensors, and those a view_adaptor specialisation reads
/// (tested without instantiating as_view, so that an overload for other types, a std::optional
/// mask, is not broken by it).
template <class X>
concept has_view = view_type<std::remove_cvref_t<X>> || tensor_type<std::remove_cvref_t<X>> || computed<X> ||
    requires(std::remove_cvref_t<X>& x) {
    view_adaptor<std::remove_cvref_t<X>>::view(x);
};
/// A view, or the failure an adaptor returns after reporting why it cannot make one.
template <class V>
concept view_or_failure = view_type<V> || failed_view<V>;
} // namespace detail

/// Satisfied by what `as_view` can read (or has already reported it cannot).
template <class X>
concept viewable = detail::has_view<X> && detail::view_or_failure<view_of<X>>;

namespace detail {
template <class X>
constexpr bool owns_elements() {
    if constexpr (view_type<X>) {
        return false;
    } else if constexpr (tensor_type<X>) {
        return true;
    } else {
        return view_adaptor<X>::owning;
    }
}
} // namespace detail

/// Whether a view of X may outlive the expression that passed X: true for lvalues, views and
/// non-owning adaptors; false for a temporary tensor or container, whose view would dangle.
template <class X>
inline constexpr bool borrowable =
    std::is_lvalue_reference_v<X> || !detail::owns_elements<std::remove_cvref_t<X>>();

namespace detail {
/// Calls `f` with the view of `x`, unless an adaptor has already reported that it cannot read x:
/// then gives back that failure, so that the caller adds no error of its own.
template <class X, class F>
constexpr auto with_view(X& x, F&& f) {
    auto v = as_view(x);
    if constexpr (failed_view<decltype(v)>) {
        return v;
    } else {
        return f(v);
    }
}
} // namespace detail

namespace detail {
/// Whether a view of X may be kept beyond the caller's expression; if not (a temporary tensor or
/// container), reports that as one compile error. What every function that returns a view, an
/// adaptor or an option holding a view asks first (rearrange, repeat, unpack, named, the masks,
/// to_xtensor).
template <class X>
constexpr bool can_borrow() {
    if constexpr (failed_view<view_of<X>>) {
        return false; // as_view has reported why it cannot read X
    } else if constexpr (computed<X>) {
        static_assert(always_false<view_of<X>>, "ctein: an element-wise expression has no memory to view; "
                                                "ctein::eval it first (or ctein::assign it into a tensor)");
        return false;
    } else if constexpr (!borrowable<X>) {
        static_assert(always_false<view_of<X>>, "ctein: the result would view a temporary tensor that is "
                                                "about to be destroyed; keep the tensor in a variable first");
        return false;
    } else {
        return true;
    }
}

} // namespace detail

/// The same memory with other axis names: `ctein::named<"b s c">(x)`, or no names:
/// `ctein::named<"">(x)`. Names are claims about the data, not checks; use it where a tensor
/// comes from code that does not name its axes.
template <fixed_string Names, viewable X>
constexpr auto named(X&& x) {
    if constexpr (!detail::can_borrow<X&&>()) {
        return detail::failed_operation{};
    } else {
        using V = view_of<X>;
        const V v = as_view(x);
        return view<typename V::element_type, Names, typename V::extents_type, typename V::layout_type>(
            v.data(), v.mapping());
    }
}

} // namespace ctein
