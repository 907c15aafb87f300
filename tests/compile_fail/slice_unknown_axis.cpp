// Slicing an axis the tensor's names do not have (its tokens are named t, not s): wrapped in eval.
// expect-error: is not an axis of the tensor named
// expect-error-gcc: Axis s is not an axis of the tensor named "b h t d"
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h t d", 2, 8, 10, 64> k;
#ifdef CTEIN_COMPILE_FAIL
    auto first = ctein::eval(ctein::slice<"s">(k, 0, 4));
#else
    auto first = ctein::eval(ctein::slice<"t">(k, 0, 4));
#endif
    return static_cast<int>(first.size() == 0);
}
