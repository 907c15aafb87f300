// A mask option viewing a temporary tensor would dangle before the call reads it: one error, in
// the mask, and none from the attention call around it.
// expect-error-in-header: a static_assert on the argument type (a temporary)
// expect-error: the result would view a temporary tensor that is about to be destroyed
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q, k, v;
    ctein::tensor<bool, "q k", 10, 10> keep;
#ifdef CTEIN_COMPILE_FAIL
    auto o = ctein::attention(q, k, v, ctein::mask(ctein::eval(keep)));
#else
    auto o = ctein::attention(q, k, v, ctein::mask(keep));
#endif
    return static_cast<int>(o.size() == 0);
}
