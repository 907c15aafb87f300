// The same in the formula: scores plus a mask of a temporary: one error, in the mask.
// expect-error-in-header: a static_assert on the argument type (a temporary)
// expect-error: the result would view a temporary tensor that is about to be destroyed
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q, k, v;
    ctein::tensor<bool, "q k", 10, 10> keep;
    auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * 0.125f;
#ifdef CTEIN_COMPILE_FAIL
    auto w = ctein::softmax<"k">(scores + ctein::ignore_mask(ctein::eval(keep)));
#else
    auto w = ctein::softmax<"k">(scores + ctein::ignore_mask(keep));
#endif
    auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(w, v);
    return static_cast<int>(o.size() == 0);
}
