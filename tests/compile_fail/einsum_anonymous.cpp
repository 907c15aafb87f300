// A number in an einsum pattern.
// expect-error: Anonymous axes are not yet supported in einsum.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 3, 2> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"a 2 -> a">(x);
#else
    auto y = ctein::einsum<"a b -> a">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
