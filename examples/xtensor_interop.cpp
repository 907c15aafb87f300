// ctein with xtensor: an xtensor array is read without a copy, split into heads by a checked
// pattern, and handed back to xtensor as a statically shaped expression.
#include <ctein/ctein.hpp>
#include <ctein/xtensor.hpp>

#include <xtensor/xfixed.hpp>
#include <xtensor/xio.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <iostream>

int main() {
    // a [batch, seq, d_model] activation with static extents, as xtensor_fixed
    xt::xtensor_fixed<float, xt::xshape<1, 4, 8>> x = xt::arange<float>(32).reshape({1, 4, 8});

    // two heads of four: the view's type knows (1, 2, 4, 4)
    auto heads = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 2>);
    std::cout << "heads: " << ctein::describe(heads) << "\n";

    // K transposed for Q K^T, then back to xtensor: a strided view is an xtensor adaptor
    auto k_t = ctein::rearrange<"b h s d -> b h d s">(heads);
    xt::xtensor<float, 4> scaled = ctein::to_xtensor(k_t) * 0.5f;
    std::cout << "K^T / 2, head 1:\n" << xt::view(scaled, 0, 1) << "\n";

    // a contiguous view with static extents becomes an xtensor expression with a fixed shape
    auto rows = ctein::to_xtensor(ctein::rearrange<"b s c -> (b s) c">(x));
    static_assert(std::is_same_v<decltype(rows)::shape_type, xt::fixed_shape<4, 8>>);
    std::cout << "row sums: " << xt::sum(rows, {1}) << "\n";
    return xt::sum(rows)() == 496.0f ? 0 : 1;
}
