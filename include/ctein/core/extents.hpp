// extents: the lengths of a tensor's dimensions, each either a compile-time constant or
// `ctein::dyn` (known only at run time), in the spirit of std::mdspan's extents.
// Static lengths live in the type and cost nothing at run time; only dynamic ones are stored.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace ctein {

/// Marks an extent (or an axis length) that is known only at run time.
inline constexpr std::size_t dyn = std::numeric_limits<std::size_t>::max();

/// The lengths of a tensor's dimensions; `E...` are constants or `ctein::dyn`.
///
///     ctein::extents<2, ctein::dyn, 512> e{seq_len};   // rank 3, one dynamic extent
///     e.extent(1) == seq_len;  decltype(e)::static_extent(2) == 512;
template <std::size_t... E>
class extents {
public:
    static constexpr std::size_t rank() noexcept { return sizeof...(E); }
    static constexpr std::size_t rank_dynamic() noexcept { return ((E == dyn ? 1 : 0) + ... + 0); }
    static constexpr bool is_static() noexcept { return rank_dynamic() == 0; }

    /// The constant length of dimension `r`, or `dyn`.
    static constexpr std::size_t static_extent(std::size_t r) noexcept { return static_values[r]; }

    /// All static lengths; `dyn` where a length is dynamic.
    static constexpr std::array<std::size_t, rank()> static_values{E...};

    constexpr extents() noexcept = default;

    /// Takes the dynamic lengths, in order.
    template <std::integral... Lengths>
    constexpr explicit extents(Lengths... dynamic_lengths) noexcept
        requires(sizeof...(Lengths) == rank_dynamic() && sizeof...(Lengths) != 0)
        : dynamic_{static_cast<std::size_t>(dynamic_lengths)...} {}

    /// Takes every length (static ones included, which the caller has already checked).
    static constexpr extents from_all(const std::array<std::size_t, rank()>& all) noexcept {
        extents result;
        std::size_t d = 0;
        for (std::size_t r = 0; r < rank(); ++r)
            if (static_values[r] == dyn) result.dynamic_[d++] = all[r];
        return result;
    }

    constexpr std::size_t extent(std::size_t r) const noexcept {
        if (static_values[r] != dyn) return static_values[r];
        return dynamic_[dynamic_index(r)];
    }

    constexpr std::array<std::size_t, rank()> values() const noexcept {
        std::array<std::size_t, rank()> all{};
        for (std::size_t r = 0; r < rank(); ++r) all[r] = extent(r);
        return all;
    }

    /// Number of elements.
    constexpr std::size_t size() const noexcept {
        std::size_t n = 1;
        for (std::size_t r = 0; r < rank(); ++r) n *= extent(r);
        return n;
    }

    friend constexpr bool operator==(const extents& a, const extents& b) noexcept {
        return a.dynamic_ == b.dynamic_;
    }

private:
    static constexpr std::size_t dynamic_index(std::size_t r) noexcept {
        std::size_t d = 0;
        for (std::size_t i = 0; i < r; ++i) d += static_values[i] == dyn ? 1 : 0;
        return d;
    }

    std::array<std::size_t, rank_dynamic()> dynamic_{};
};

namespace detail {
template <class T>
struct is_extents : std::false_type {};
template <std::size_t... E>
struct is_extents<extents<E...>> : std::true_type {};

template <std::size_t R, class Seq = std::make_index_sequence<R>>
struct all_dynamic;
template <std::size_t R, std::size_t... I>
struct all_dynamic<R, std::index_sequence<I...>> {
    using type = extents<(static_cast<void>(I), dyn)...>;
};
} // namespace detail

/// Extents of rank `R` whose lengths are all dynamic.
template <std::size_t R>
using dims = typename detail::all_dynamic<R>::type;

/// Satisfied by `ctein::extents<...>`.
template <class T>
concept extents_type = detail::is_extents<T>::value;

/// The first dimension at which the product of `extents` stops fitting in a ptrdiff_t (strides
/// and offsets are ptrdiff_t), or extents.size() when it fits. A planner's `dyn` is a length not
/// known yet and skipped; with `actual`, every value is a length (so `dyn` overflows).
constexpr std::size_t overflowing_dimension(std::span<const std::size_t> extents,
                                            bool actual = false) noexcept {
    constexpr std::size_t limit = static_cast<std::size_t>(PTRDIFF_MAX);
    std::size_t product = 1;
    for (std::size_t k = 0; k < extents.size(); ++k) {
        if ((extents[k] == dyn && !actual) || extents[k] == 0) continue;
        if (product > limit / extents[k]) return k;
        product *= extents[k];
    }
    return extents.size();
}

} // namespace ctein
