// A group in an einsum pattern.
// expect-error: Shape rearrangement is not yet supported in einsum.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 12> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"a (b c) -> a">(x);
#else
    auto y = ctein::einsum<"a b -> a">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
