// An einsum without tensors.
// expect-error: ctein::einsum takes at least one tensor
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"a b -> a">();
#else
    auto y = ctein::einsum<"a b -> a">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
