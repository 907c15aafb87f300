// Keys laid out [B, T, C] where the pattern expects heads split.
// expect-error-gcc: Wrong shape of einsum operand #1: expected 4 dims. Received 3-dim tensor.
// expect-error-clang: Wrong shape of einsum operand #{}: expected {} dims. Received {}-dim tensor.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 1, 2, 5, 4> q;
    ctein::tensor<float, "", 1, 5, 8> k3;
    ctein::tensor<float, "", 1, 2, 5, 4> k4;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k3);
#else
    auto y = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k4);
#endif
    return static_cast<int>(y.size() == 0);
}
