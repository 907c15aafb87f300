// view: a non-owning, typed window on memory: element type, axis names, extents (static or
// dynamic) and a layout, all in the type. Rearranges return views; kernels read them.
#pragma once

#include "../core/diagnose.hpp"
#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "../core/fixed_string.hpp"
#include "../core/shape_text.hpp"
#include "../pattern/axis_names.hpp"
#include "layout.hpp"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ranges>
#include <type_traits>

namespace ctein {

namespace detail {
template <fixed_string Names, std::size_t Rank>
struct axis_names_check {
    static constexpr diagnostic error = pattern::check_axis_names(Names.view(), Rank);
};
} // namespace detail

/// A typed window on `data`: `view<float, "b h s d", extents<2, 8, dyn, 64>, layout_stride>`.
/// `Names` are the axis names ("" for an unnamed tensor, `_` for one unnamed axis); patterns
/// applied to the view are checked against them.
///
///     float buffer[2 * 3];
///     ctein::view<float, "s c", ctein::extents<ctein::dyn, 3>> v(buffer, ctein::extents<ctein::dyn, 3>(2));
///     v(1, 2) = 5.0f;   // buffer[5]
template <class T, fixed_string Names, extents_type Extents, class Layout = layout_right>
class view {
    using names_checked = decltype(detail::report<detail::axis_names_check<Names, Extents::rank()>::error>());

public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using extents_type = Extents;
    using layout_type = Layout;
    using mapping_type = typename Layout::template mapping<Extents>;

    static constexpr auto names = Names;
    static constexpr bool is_strided = Layout::strided;
    static constexpr std::size_t rank() noexcept { return Extents::rank(); }

    constexpr view() noexcept = default;
    constexpr view(T* data, const mapping_type& mapping) noexcept
        : data_(data)
        , mapping_(mapping) {}
    /// A contiguous row-major view of `extents` starting at `data`.
    constexpr view(T* data, const Extents& extents) noexcept requires std::is_same_v<Layout, layout_right>
        : data_(data), mapping_(extents) {}
    /// Adds `const`, or forgets that a layout is contiguous.
    template <class U, class OtherLayout>
    constexpr view(const view<U, Names, Extents, OtherLayout>& other) noexcept
        requires(std::is_convertible_v<U (*)[], T (*)[]>&&
                     std::is_constructible_v<mapping_type, typename OtherLayout::template mapping<Extents>>)
        : data_(other.data())
        , mapping_(other.mapping()) {}

    constexpr T* data() const noexcept { return data_; }
    constexpr const mapping_type& mapping() const noexcept { return mapping_; }
    constexpr const Extents& extents() const noexcept { return mapping_.extents(); }
    constexpr std::size_t extent(std::size_t r) const noexcept { return extents().extent(r); }
    constexpr std::size_t size() const noexcept { return extents().size(); }
    constexpr std::ptrdiff_t stride(std::size_t r) const noexcept requires Layout::strided {
        return mapping_.stride(r);
    }

    template <std::integral... I>
    constexpr T& operator()(I... index) const noexcept requires(sizeof...(I) == Extents::rank()) {
        return data_[mapping_(index...)];
    }

private:
    T* data_ = nullptr;
    mapping_type mapping_{};
};

namespace detail {
/// The extents of an adapted buffer, checked: the `ctein::dyn` marker given as a length, or a
/// product that does not fit in memory, is a ctein::shape_error.
template <std::size_t... E, std::integral... Lengths>
extents<E...> adapted_extents(Lengths... dynamic_lengths) {
    extents<E...> e;
    if constexpr (sizeof...(Lengths) != 0) e = extents<E...>(dynamic_lengths...);
    const auto values = e.values();
    if (const std::size_t k = overflowing_dimension(values, true); k != values.size()) {
        bounded_string<256> shape;
        append_python_tuple(shape, values);
        throw_error(make_error(errc::operand_size_overflow)
                        .with_text("buffer")
                        .with_text(shape.view())
                        .with_number(k));
    }
    return e;
}

/// A ctein::argument_error for a pointer an adapted view cannot read: null with elements, or
/// not a multiple of T's alignment (a misaligned load is undefined, and slow where it works).
template <class T, class E>
void check_adapted_pointer(const T* data, const E& e) {
    if (data == nullptr && e.size() != 0) throw_error(make_error(errc::adapt_null).with_number(e.size()));
    const auto address = reinterpret_cast<std::uintptr_t>(data);
    if (address % alignof(T) != 0) {
        char hex[2 + 2 * sizeof address + 1];
        std::snprintf(hex, sizeof hex, "0x%jx", static_cast<std::uintmax_t>(address));
        throw_error(make_error(errc::adapt_misaligned).with_text(hex).with_number(alignof(T)));
    }
}
} // namespace detail

/// A contiguous view of a buffer the caller owns: `E...` are the extents (constants or
/// `ctein::dyn`), the dynamic ones given after the buffer, in order. The buffer is a pointer or,
/// better, a contiguous range (a std::vector, std::array, std::span), whose length is then
/// checked too.
///
///     std::vector<float> keys(tokens * 64);
///     auto k = ctein::adapt<"s d", ctein::dyn, 64>(keys, tokens);
///
/// The caller's contract: the buffer holds at least the product of the extents elements of T,
/// aligned for T, alive while the view is used. ctein checks what it can, each a
/// ctein::argument_error: a null pointer with elements, a pointer misaligned for T, a range
/// shorter than the extents need; and a ctein::shape_error for extents whose product does not
/// fit in memory (the `ctein::dyn` marker given as a length among them). A bare pointer's
/// length cannot be checked: prefer a range.
template <fixed_string Names, std::size_t... E, class T, std::integral... Lengths>
view<T, Names, extents<E...>>
adapt(T* data, Lengths... dynamic_lengths) requires(sizeof...(Lengths) == extents<E...>::rank_dynamic()) {
    const extents<E...> e = detail::adapted_extents<E...>(dynamic_lengths...);
    detail::check_adapted_pointer(data, e);
    return {data, e};
}

/// `adapt` over a contiguous range: its size is checked against the extents' product.
template <fixed_string Names, std::size_t... E, std::ranges::contiguous_range R, std::integral... Lengths>
auto adapt(R&& buffer, Lengths... dynamic_lengths) requires(
    std::ranges::sized_range<R> && std::is_lvalue_reference_v<R> &&
    sizeof...(Lengths) == extents<E...>::rank_dynamic()) {
    using T = std::remove_reference_t<std::ranges::range_reference_t<R>>;
    const extents<E...> e = detail::adapted_extents<E...>(dynamic_lengths...);
    const auto length = static_cast<std::size_t>(std::ranges::size(buffer));
    if (length < e.size()) {
        bounded_string<256> shape;
        append_python_tuple(shape, e.values());
        throw_error(make_error(errc::adapt_short).with_number(length).with_text(shape.view()).with_number(e.size()));
    }
    T* data = std::ranges::data(buffer);
    detail::check_adapted_pointer(data, e);
    return view<T, Names, extents<E...>>{data, e};
}

namespace detail {
template <class T>
struct is_view : std::false_type {};
template <class T, fixed_string N, class E, class L>
struct is_view<view<T, N, E, L>> : std::true_type {};
} // namespace detail

/// Satisfied by `ctein::view<...>`.
template <class V>
concept view_type = detail::is_view<std::remove_cvref_t<V>>::value;

} // namespace ctein
