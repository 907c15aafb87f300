// linear: PyTorch's nn.Linear, y = x Wᵀ + b, with its weight layout [out, in], on the packed GEMM
// (ctein::einsum's), the bias added in the GEMM's epilogue: the sums start from it. The first layer
// of nn/, the attention blocks built from ctein's public pieces.
#pragma once

#include "../core/diagnose.hpp"
#include "../core/error.hpp"
#include "../expr/as_view.hpp"
#include "../expr/operation.hpp"
#include "../expr/einsum.hpp"
#include "../expr/tensor.hpp"

#include <cstddef>
#include <type_traits>
#include <utility>

namespace ctein::nn {

namespace detail {
/// V's names with the last axis renamed `Last` (none when V is unnamed).
template <class V, fixed_string Last>
constexpr bounded_string<256> renamed_last() {
    bounded_string<256> out;
    if (V::names.view().empty()) return out;
    const pattern::dim_names names = pattern::split_dim_names(V::names.view());
    for (std::size_t d = 0; d + 1 < names.count; ++d) {
        out.append(names[d]);
        out.push_back(' ');
    }
    out.append(Last.view());
    return out;
}
template <class V, fixed_string Last>
inline constexpr bounded_string<256> renamed_last_text = renamed_last<V, Last>();
template <class V, fixed_string Last>
inline constexpr auto
    renamed_last_v = fixed_string<renamed_last_text<V, Last>.size()>(renamed_last_text<V, Last>.view());

/// V's extents with the last replaced by `Last`.
template <class V, std::size_t Last, std::size_t... R>
auto last_replaced(std::index_sequence<R...>)
    -> extents<(R + 1 == V::rank() ? Last : V::extents_type::static_extent(R))...>;

template <std::size_t In, class V>
struct linear_input_check {
    static constexpr std::size_t features = V::extents_type::static_extent(V::rank() - 1);
    static constexpr diagnostic error =
        features == dyn || features == In
            ? diagnostic{}
            : make_error(errc::linear_input_features).with_number(In).with_number(features);
};

/// Nothing, where a layer has no bias.
struct no_bias {};
} // namespace detail

/// nn.Linear(In, Out, bias=Bias): `weight` [Out, In] as PyTorch stores it, `bias` [Out]. Applied to
/// x of any rank whose last axis has In features, it gives a new tensor with Out there, named like
/// x with the last axis named `Name` ("o" unless given).
///
///     ctein::nn::linear<768, 2304> qkv;            // weight and bias loaded from a state_dict
///     auto y = qkv(x);                             // x "b s e" [B, T, 768] -> y "b s o" [B, T, 2304]
template <std::size_t In, std::size_t Out, bool Bias = true, fixed_string Name = "o">
class linear {
public:
    using weight_type = tensor<float, "o i", Out, In>;
    using bias_type = std::conditional_t<Bias, tensor<float, "o", Out>, detail::no_bias>;
    static constexpr std::size_t in_features = In;
    static constexpr std::size_t out_features = Out;
    static constexpr bool has_bias = Bias;

    linear() = default;
    explicit linear(weight_type w) requires(!Bias)
        : weight_(std::move(w)) {}
    linear(weight_type w, bias_type b) requires Bias : weight_(std::move(w)), bias_(std::move(b)) {}

    weight_type& weight() noexcept { return weight_; }
    const weight_type& weight() const noexcept { return weight_; }
    bias_type& bias() noexcept requires Bias { return bias_; }
    const bias_type& bias() const noexcept requires Bias { return bias_; }

    /// x Wᵀ + b for x of In features on its last axis (a compile error naming both numbers when
    /// its static length differs, a ctein::shape_error when a dynamic one does).
    template <viewable X>
    auto operator()(const X& x) const {
        using V = view_of<const X&>;
        using check = detail::linear_input_check<In, V>;
        if constexpr (static_cast<bool>(check::error)) {
            ctein::detail::report<check::error>();
            return ctein::detail::failed_operation{};
        } else {
            // a view the GEMM can read (a grouped one, such as a repeat, copied first)
            const auto readable = ctein::detail::strided_or_copy(x);
            return project<V>(named<"">(readable));
        }
    }

private:
    static constexpr fixed_string pattern = "... i, o i -> ... o";

    /// x Wᵀ (x: an unnamed view of the input, whose names `Named` has) into a new tensor named like
    /// the input, the bias added in the GEMM's epilogue.
    template <class Named, class V>
    auto project(const V& x) const {
        using E = decltype(detail::last_replaced<V, Out>(std::make_index_sequence<V::rank()>{}));
        const auto weight = named<"">(weight_);
        using planned = ctein::detail::einsum_planned<pattern, V, decltype(weight)>;
        const plan::einsum_plan actual = ctein::detail::einsum_plan_at_run_time<pattern, planned::plan>(x, weight);
        std::array<std::size_t, V::rank()> lengths{};
        for (std::size_t r = 0; r < V::rank(); ++r) lengths[r] = actual.output_extents[r];
        tensor_of<float, detail::renamed_last_v<Named, Name>, E> y(E::from_all(lengths), uninitialized);
        const float* bias = nullptr;
        if constexpr (Bias) bias = bias_.data();
        ctein::detail::einsum_into<pattern>(actual, y.data(), bias, x, weight);
        return y;
    }

    weight_type weight_;
    [[no_unique_address]] bias_type bias_;
};

} // namespace ctein::nn
