// A unit axis in an einsum pattern.
// expect-error: Singleton () axes are not yet supported in einsum.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 1> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"a 1 -> a">(x);
#else
    auto y = ctein::einsum<"a b -> a">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
