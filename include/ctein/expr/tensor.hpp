// tensor: an owning, contiguous, 64-byte aligned tensor whose type carries its axis names and
// extents. What `ctein::eval` returns; a named source for patterns.
#pragma once

#include "../core/diagnose.hpp"
#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "../core/fixed_string.hpp"
#include "../core/shape_text.hpp"
#include "view.hpp"

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace ctein {

/// Asks a tensor to leave its elements unwritten: for an output that is written whole next, so
/// that its elements are not written twice. Reading an element before writing it is undefined.
///
///     ctein::tensor<float, "b s c", 2, 128, 512> out(ctein::uninitialized);
///     ctein::tensor<float, "b s c", 2, ctein::dyn, 512> y(ctein::extents<2, ctein::dyn, 512>(n),
///     ctein::uninitialized);
struct uninitialized_t {
    explicit uninitialized_t() = default;
};
inline constexpr uninitialized_t uninitialized{};

namespace detail {
/// Zero-initialised elements (or, asked, default-initialised ones) on a 64-byte boundary, so rows of AVX-512
/// vectors start aligned. (Not std::vector: std::vector<bool> packs bits and has no data().)
template <class T>
class aligned_buffer {
public:
    static constexpr std::align_val_t alignment{64};

    aligned_buffer() noexcept = default;
    explicit aligned_buffer(std::size_t size)
        : data_(allocate(size))
        , size_(size) {
        std::uninitialized_value_construct_n(data_, size);
    }
    aligned_buffer(std::size_t size, uninitialized_t)
        : data_(allocate(size))
        , size_(size) {
        std::uninitialized_default_construct_n(data_, size);
    }
    aligned_buffer(const aligned_buffer& other)
        : aligned_buffer(other.size_) {
        std::copy_n(other.data_, size_, data_);
    }
    aligned_buffer(aligned_buffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr))
        , size_(std::exchange(other.size_, 0)) {}
    aligned_buffer& operator=(aligned_buffer other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        return *this;
    }
    ~aligned_buffer() {
        std::destroy_n(data_, size_);
        if (data_ != nullptr) ::operator delete(data_, alignment);
    }

    T* data() noexcept { return data_; }
    const T* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    T& operator[](std::size_t i) noexcept { return data_[i]; }
    const T& operator[](std::size_t i) const noexcept { return data_[i]; }

private:
    /// Room for `size` elements (none for 0); a size whose bytes overflow throws, as new T[size] does.
    static T* allocate(std::size_t size) {
        if (size == 0) return nullptr;
        if (size > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
        return static_cast<T*>(::operator new(size * sizeof(T), alignment));
    }

    T* data_ = nullptr;
    std::size_t size_ = 0;
};
} // namespace detail

/// An owning tensor of `T` with axis names `Names` and extents `E...` (constants or `ctein::dyn`),
/// zero-initialised (unless made with `ctein::uninitialized` last), stored contiguously in
/// row-major order.
///
///     ctein::tensor<float, "b s c", 2, ctein::dyn, 512> x(seq_len);   // dynamic lengths in order
///     x(0, 1, 2) = 1.0f;
///     auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
namespace detail {
/// The first dimension whose static lengths differ, as an assign_shape error (none if they agree):
/// what ctein::assign and tensor's assignment from another tensor report.
template <class Out, class In>
constexpr diagnostic static_assign_error() {
    if constexpr (Out::rank() != In::rank()) return diagnostic{}; // ranks: ctein::assign's static_assert
    for (std::size_t r = 0; r < Out::rank(); ++r)
        if (Out::static_extent(r) != dyn && In::static_extent(r) != dyn && Out::static_extent(r) != In::static_extent(r))
            return make_error(errc::assign_shape).with_number(r).with_number(In::static_extent(r)).with_number(Out::static_extent(r));
    return diagnostic{};
}
template <class Out, class In>
inline constexpr diagnostic static_assign = static_assign_error<Out, In>();

} // namespace detail

template <class T, fixed_string Names, std::size_t... E>
class tensor {
    using names_checked = decltype(detail::report<detail::axis_names_check<Names, sizeof...(E)>::error>());

public:
    using value_type = T;
    using extents_type = ctein::extents<E...>;
    using view_type = ctein::view<T, Names, extents_type, layout_right>;
    using const_view_type = ctein::view<const T, Names, extents_type, layout_right>;

    static constexpr auto names = Names;
    static constexpr std::size_t rank() noexcept { return sizeof...(E); }

    tensor() requires(extents_type::rank_dynamic() == 0)
        : data_(element_count(extents_type{})) {}
    template <std::integral... Lengths>
    explicit tensor(Lengths... dynamic_lengths) requires(sizeof...(Lengths) == extents_type::rank_dynamic() &&
                                                         sizeof...(Lengths) != 0)
        : extents_(dynamic_lengths...)
        , data_(element_count(extents_)) {}
    explicit tensor(const extents_type& extents)
        : extents_(extents)
        , data_(element_count(extents)) {}
    explicit tensor(uninitialized_t u) requires(extents_type::rank_dynamic() == 0)
        : data_(element_count(extents_type{}), u) {}
    tensor(const extents_type& extents, uninitialized_t u)
        : extents_(extents)
        , data_(element_count(extents), u) {}

    /// The elements of a tensor whose type differs from this one's only in which lengths are
    /// static, or in having no names (`layer.weight() = file.load<float, "o i", dyn, dyn>(name)`),
    /// checked as `ctein::assign` checks: a static length that differs is a compile error naming
    /// the dimension and both lengths, a dynamic one a ctein::shape_error. (Found by
    /// argument-dependent lookup in <ctein/expr/eval.hpp>, which every ctein header that makes
    /// tensors includes.)
    template <fixed_string OtherNames, std::size_t... Other>
        requires(!std::is_same_v<tensor<T, OtherNames, Other...>, tensor>)
    tensor& operator=(const tensor<T, OtherNames, Other...>& other) {
        constexpr const diagnostic& error = detail::static_assign<extents_type, ctein::extents<Other...>>;
        if constexpr (static_cast<bool>(error))
            detail::report<error>(); // reported here: the first line of the error is the caller's
        else
            assign(*this, other);
        return *this;
    }

    T* data() noexcept { return data_.data(); }
    const T* data() const noexcept { return data_.data(); }
    const extents_type& extents() const noexcept { return extents_; }
    std::size_t extent(std::size_t r) const noexcept { return extents_.extent(r); }
    std::size_t size() const noexcept { return data_.size(); }

    view_type view() noexcept { return view_type(data(), extents_); }
    const_view_type view() const noexcept { return const_view_type(data(), extents_); }
    operator view_type() noexcept { return view(); }
    operator const_view_type() const noexcept { return view(); }

    template <std::integral... I>
    T& operator()(I... index) noexcept requires(sizeof...(I) == rank()) {
        return data_[static_cast<std::size_t>(view().mapping()(index...))];
    }
    template <std::integral... I>
    const T& operator()(I... index) const noexcept requires(sizeof...(I) == rank()) {
        return data_[static_cast<std::size_t>(view().mapping()(index...))];
    }

private:
    /// The element count of `e`; a ctein::shape_error naming the axis where the product of the
    /// lengths (in bytes) stops fitting in an address, rather than a wrapped count and a buffer
    /// shorter than the extents say.
    static std::size_t element_count(const extents_type& e) {
        constexpr std::size_t limit = static_cast<std::size_t>(PTRDIFF_MAX) / sizeof(T);
        std::size_t n = 1;
        for (std::size_t r = 0; r < rank(); ++r) {
            const std::size_t length = e.extent(r);
            if (length != 0 && n > limit / length) {
                const pattern::dim_names names = pattern::split_dim_names(Names.view());
                bounded_string<8 * pattern::max_dims> shape;
                const auto values = e.values();
                append_python_tuple(shape, values);
                throw_error(make_error(errc::size_overflow)
                                .with_text(shape.view())
                                .with_text(names.count == rank() ? names[r] : std::string_view("#"))
                                .with_number(r));
            }
            n *= length;
        }
        return n;
    }

    extents_type extents_{};
    detail::aligned_buffer<T> data_;
};

namespace detail {
template <class T>
struct is_tensor : std::false_type {};
template <class T, fixed_string N, std::size_t... E>
struct is_tensor<tensor<T, N, E...>> : std::true_type {};

template <class T, fixed_string Names, class Extents>
struct tensor_for;
template <class T, fixed_string Names, std::size_t... E>
struct tensor_for<T, Names, extents<E...>> {
    using type = tensor<T, Names, E...>;
};
} // namespace detail

/// Satisfied by `ctein::tensor<...>`.
template <class T>
concept tensor_type = detail::is_tensor<std::remove_cvref_t<T>>::value;

/// The tensor type that holds a copy of a view with these names and extents.
template <class T, fixed_string Names, extents_type Extents>
using tensor_of = typename detail::tensor_for<std::remove_cv_t<T>, Names, Extents>::type;

} // namespace ctein
