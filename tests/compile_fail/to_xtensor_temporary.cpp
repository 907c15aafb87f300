// An xtensor adaptor of a temporary tensor would dangle: to_xtensor(eval(view)) used to compile and
// read freed memory.
// expect-error-in-header: a static_assert on the argument type (a temporary)
// expect-error: the result would view a temporary tensor that is about to be destroyed
#include <ctein/ctein.hpp>
#include <ctein/xtensor.hpp>

int main() {
    ctein::tensor<float, "b s c", 2, 5, 512> x;
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
#ifdef CTEIN_COMPILE_FAIL
    auto a = ctein::to_xtensor(ctein::eval(q));
#else
    const auto q_copy = ctein::eval(q);
    auto a = ctein::to_xtensor(q_copy);
#endif
    return static_cast<int>(a.size() == 0);
}
