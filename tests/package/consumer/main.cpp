// Uses the installed headers: a head split whose extents the compiler knows.
#include <ctein/ctein.hpp>
#include <ctein/xtensor.hpp>

#include <iostream>

int main() {
    ctein::tensor<float, "b s c", 2, 3, 16> x;
    x(1, 2, 15) = 1.0f;
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 4>);
    static_assert(decltype(q)::extents_type::static_extent(3) == 4);
    const auto total = xt::sum(ctein::to_xtensor(q))();
    std::cout << ctein::describe(q) << ", sum " << total << "\n";
    return q(1, 3, 2, 3) == 1.0f && total == 1.0f ? 0 : 1;
}
