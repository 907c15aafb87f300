// Layouts map a multi-index to an offset in memory, as std::mdspan's layout policies do.
// layout_right: row-major and contiguous. layout_stride: a stride per dimension (transposes,
// splits). layout_grouped: a dimension made of several axes whose strides do not merge into one
// (what `b h s d -> b s (h d)` gives): still zero-copy, but a copy is needed to make it strided.
// Every mapping also describes itself as a list of (length, stride) axes in row-major order of
// the view, which is all the copy kernels need. layout_computed: no memory at all, the type of what
// an element-wise expression would be once evaluated.
#pragma once

#include "../core/extents.hpp"
#include "../core/strided_axis.hpp"

#include <array>
#include <cstddef>
#include <span>

namespace ctein {

/// Row-major, contiguous.
struct layout_right {
    static constexpr bool strided = true;

    template <extents_type E>
    class mapping {
    public:
        using extents_type = E;
        static constexpr std::size_t rank = E::rank();

        constexpr mapping() noexcept = default;
        constexpr explicit mapping(const E& extents) noexcept
            : extents_(extents) {}

        constexpr const E& extents() const noexcept { return extents_; }
        constexpr std::ptrdiff_t stride(std::size_t r) const noexcept {
            std::ptrdiff_t s = 1;
            for (std::size_t i = r + 1; i < rank; ++i) s *= static_cast<std::ptrdiff_t>(extents_.extent(i));
            return s;
        }
        template <class... I>
        constexpr std::ptrdiff_t operator()(I... index) const noexcept {
            std::ptrdiff_t offset = 0;
            std::size_t r = 0;
            ((offset = offset * static_cast<std::ptrdiff_t>(extents_.extent(r++)) +
                       static_cast<std::ptrdiff_t>(index)),
             ...);
            return offset;
        }
        constexpr std::size_t required_span_size() const noexcept { return extents_.size(); }
        constexpr std::array<strided_axis, rank> axes() const noexcept {
            std::array<strided_axis, rank> out{};
            for (std::size_t r = 0; r < rank; ++r) out[r] = {extents_.extent(r), stride(r)};
            return out;
        }

    private:
        E extents_{};
    };
};

/// A stride per dimension.
struct layout_stride {
    static constexpr bool strided = true;

    template <extents_type E>
    class mapping {
    public:
        using extents_type = E;
        static constexpr std::size_t rank = E::rank();

        constexpr mapping() noexcept = default;
        constexpr mapping(const E& extents, const std::array<std::ptrdiff_t, rank>& strides) noexcept
            : extents_(extents)
            , strides_(strides) {}
        /// Any strided mapping converts to this one.
        template <class Other>
        constexpr mapping(const Other& other) noexcept
            requires(Other::rank == rank && requires(const Other& o) { o.stride(0); })
            : extents_(other.extents()) {
            for (std::size_t r = 0; r < rank; ++r) strides_[r] = other.stride(r);
        }

        constexpr const E& extents() const noexcept { return extents_; }
        constexpr std::ptrdiff_t stride(std::size_t r) const noexcept { return strides_[r]; }
        template <class... I>
        constexpr std::ptrdiff_t operator()(I... index) const noexcept {
            std::ptrdiff_t offset = 0;
            std::size_t r = 0;
            ((offset += static_cast<std::ptrdiff_t>(index) * strides_[r++]), ...);
            return offset;
        }
        constexpr std::size_t required_span_size() const noexcept {
            if (extents_.size() == 0) return 0;
            std::ptrdiff_t last = 0;
            for (std::size_t r = 0; r < rank; ++r)
                last += static_cast<std::ptrdiff_t>(extents_.extent(r) - 1) * strides_[r];
            return static_cast<std::size_t>(last) + 1;
        }
        constexpr std::array<strided_axis, rank> axes() const noexcept {
            std::array<strided_axis, rank> out{};
            for (std::size_t r = 0; r < rank; ++r) out[r] = {extents_.extent(r), strides_[r]};
            return out;
        }

    private:
        E extents_{};
        std::array<std::ptrdiff_t, rank> strides_{};
    };
};

/// Dimension r is made of `Counts...[r]` axes, each with its own length and stride; a dimension
/// with no axes has extent 1.
template <std::size_t... Counts>
struct layout_grouped {
    static constexpr bool strided = false;
    static constexpr std::size_t axis_count = (Counts + ... + 0);

    template <extents_type E>
    class mapping {
    public:
        using extents_type = E;
        static constexpr std::size_t rank = E::rank();
        static_assert(rank == sizeof...(Counts));

        constexpr mapping() noexcept = default;
        /// `axes` in row-major order of the view: dimension 0's axes first.
        constexpr mapping(const E& extents, const std::array<strided_axis, axis_count>& axes) noexcept
            : extents_(extents)
            , axes_(axes) {}

        constexpr const E& extents() const noexcept { return extents_; }
        template <class... I>
        constexpr std::ptrdiff_t operator()(I... index) const noexcept {
            const std::array<std::size_t, rank> indices{static_cast<std::size_t>(index)...};
            std::ptrdiff_t offset = 0;
            std::size_t end = 0;
            for (std::size_t r = 0; r < rank; ++r) {
                end += counts[r];
                std::size_t i = indices[r];
                for (std::size_t a = end; a-- > end - counts[r];) {
                    offset += static_cast<std::ptrdiff_t>(i % axes_[a].length) * axes_[a].stride;
                    i /= axes_[a].length;
                }
            }
            return offset;
        }
        constexpr std::size_t required_span_size() const noexcept {
            if (extents_.size() == 0) return 0;
            std::ptrdiff_t last = 0;
            for (const strided_axis& a : axes_) last += static_cast<std::ptrdiff_t>(a.length - 1) * a.stride;
            return static_cast<std::size_t>(last) + 1;
        }
        constexpr const std::array<strided_axis, axis_count>& axes() const noexcept { return axes_; }

    private:
        static constexpr std::array<std::size_t, rank> counts{Counts...};
        E extents_{};
        std::array<strided_axis, axis_count> axes_{};
    };
};

/// An element-wise expression's elements are computed when read: no memory, so no offsets. Only
/// the extents are known; operations that read such a "view" evaluate the expression first.
struct layout_computed {
    static constexpr bool strided = false;

    template <extents_type E>
    class mapping {
    public:
        using extents_type = E;
        static constexpr std::size_t rank = E::rank();

        constexpr mapping() noexcept = default;
        constexpr explicit mapping(const E& extents) noexcept
            : extents_(extents) {}
        constexpr const E& extents() const noexcept { return extents_; }

    private:
        E extents_{};
    };
};

} // namespace ctein
