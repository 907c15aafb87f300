// rotary: rotary position embeddings in the rotate-half layout (LLaMA, Hugging Face's
// apply_rotary_pos_emb): cos/sin tables computed once, applied as the ctein expression
// `x * cos + rotate_half<"d">(x) * sin` over positions [start, start + tokens).
#pragma once

#include "../core/diagnose.hpp"
#include "../core/error.hpp"
#include "../elementwise/concat.hpp"
#include "../elementwise/operations.hpp"
#include "../expr/eval.hpp"
#include "../expr/slice.hpp"
#include "../expr/tensor.hpp"

#include <cmath>
#include <cstddef>
#include <type_traits>

namespace ctein::nn {

namespace detail {
template <std::size_t D>
inline constexpr diagnostic rotary_head_error = D % 2 == 0
                                                    ? diagnostic{}
                                                    : make_error(errc::block_rope_odd_head).with_number(D);
} // namespace detail

/// The tables of RoPE for heads of D features and positions [0, max_positions): for position s
/// and feature i, the angle s / base^(2 (i mod D/2) / D), the frequencies repeated over both
/// halves as LLaMA lays them out. An odd D does not compile (RoPE rotates pairs).
///
///     ctein::nn::rotary<64> rope(4096);                       // base 10000
///     auto q_rotated = ctein::eval(rope.apply(q, start));     // q "b h s d", positions start...
template <std::size_t D>
class rotary {
    using checked = decltype(ctein::detail::report<detail::rotary_head_error<D>>());

public:
    using table_type = tensor<float, "s d", dyn, D>;

    explicit rotary(std::size_t max_positions, double base = 10000.0)
        : cos_(max_positions)
        , sin_(max_positions)
        , base_(base) {
        for (std::size_t s = 0; s < max_positions; ++s)
            for (std::size_t i = 0; i < D; ++i) {
                const double angle =
                    static_cast<double>(s) / std::pow(base, static_cast<double>(2 * (i % (D / 2))) / D);
                cos_(s, i) = static_cast<float>(std::cos(angle));
                sin_(s, i) = static_cast<float>(std::sin(angle));
            }
    }

    std::size_t max_positions() const noexcept { return cos_.extent(0); }
    double base() const noexcept { return base_; }
    const table_type& cos() const noexcept { return cos_; }
    const table_type& sin() const noexcept { return sin_; }

    /// x rotated for positions start, start + 1, ...: a lazy expression over x (named with its
    /// tokens `s` and features `d`, as `"b h s d"`) and the tables; positions past the tables
    /// throw ctein::shape_error.
    template <viewable X>
    auto apply(const X& x, std::size_t start = 0) const {
        const std::size_t tokens = as_view(x).extent(token_axis<X>());
        const auto cos = slice<"s">(cos_, start, start + tokens);
        const auto sin = slice<"s">(sin_, start, start + tokens);
        return x * cos + rotate_half<"d">(x) * sin;
    }

    /// x "b h s d" rotated at each batch's own positions, `position_ids` [B, T] of integers (named
    /// "b s" or unnamed: Hugging Face's position_ids, a left-padded batch's positions), into a new
    /// tensor: the tables' rows gathered as [B, 1, T, D] and met by name. A position past the tables
    /// or below 0 throws ctein::shape_error; so does a [B, T] that is not x's batch and tokens.
    template <viewable X, viewable P>
    auto rotated(const X& x, const P& position_ids) const {
        const auto ids = named<"b s">(position_ids);
        using id_type = typename view_of<decltype(ids)>::value_type;
        static_assert(std::is_integral_v<id_type>, "ctein::nn::rotary: position ids are integers");
        const auto xv = as_view(x);
        const std::size_t batch = ids.extent(0), tokens = ids.extent(1);
        if (batch != xv.extent(0) || tokens != xv.extent(token_axis<X>()))
            throw_error(make_error(errc::length_mismatch).with_number(batch * tokens).with_number(xv.extent(0) * xv.extent(token_axis<X>())),
                        " while rotating: position ids [B, T] against x's batch and tokens");
        tensor<float, "b 1 s d", dyn, 1, dyn, D> cos(batch, tokens), sin(batch, tokens);
        for (std::size_t b = 0; b < batch; ++b)
            for (std::size_t s = 0; s < tokens; ++s) {
                const auto position = ids(b, s);
                if (position < 0 || static_cast<std::size_t>(position) >= max_positions())
                    throw_error(make_error(errc::index_out_of_range)
                                    .with_number(static_cast<std::size_t>(position))
                                    .with_text("s")
                                    .with_number(max_positions()),
                                " while rotating at position ids");
                for (std::size_t i = 0; i < D; ++i) {
                    cos(b, 0, s, i) = cos_(static_cast<std::size_t>(position), i);
                    sin(b, 0, s, i) = sin_(static_cast<std::size_t>(position), i);
                }
            }
        return eval(x * cos + rotate_half<"d">(x) * sin);
    }

private:
    template <class X>
    static constexpr std::size_t token_axis() {
        const pattern::dim_names names = pattern::split_dim_names(view_of<const X&>::names.view());
        for (std::size_t r = 0; r < names.count; ++r)
            if (names[r] == "s") return r;
        return view_of<const X&>::rank() - 2; // unnamed: [..., tokens, features]
    }

    table_type cos_;
    table_type sin_;
    double base_;
};

} // namespace ctein::nn
