// Seed 002's QK^T with the keys forgotten.
// expect-error: fewer operands provided to einstein sum function than specified in the subscripts string
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 1, 2, 5, 4> q, k;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"b h q d, b h k d -> b h q k">(q);
#else
    auto y = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k);
#endif
    return static_cast<int>(y.size() == 0);
}
