// More tensors than the pattern has terms.
// expect-error: more operands provided to einstein sum function than specified in the subscripts string
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> a, b;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"i j -> j">(a, b);
#else
    auto y = ctein::einsum<"i j, i j -> j">(a, b);
#endif
    return static_cast<int>(y.size() == 0);
}
