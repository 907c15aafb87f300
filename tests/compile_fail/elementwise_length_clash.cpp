// RoPE's tables sized for another sequence: cos is [S, D] of 12 tokens, q has 10. Axes of one
// name must have one length.
// expect-error: Shape mismatch in element-wise expression for axis
// expect-error-gcc: Shape mismatch in element-wise expression for axis s: 10 != 12
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "s d", 12, 64> cos;
#else
    ctein::tensor<float, "s d", 10, 64> cos;
#endif
    auto rotated = q * cos;
    return static_cast<int>(ctein::eval(rotated).size() == 0);
}
