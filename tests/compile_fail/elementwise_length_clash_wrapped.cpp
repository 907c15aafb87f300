// Seed 002's RoPE mistake inside a whole formula: a cos table of width d/2 against q of width d.
// One error, the clash's, with the rest of the formula (rotate_half, +, exp, eval) adding none.
// expect-error: Shape mismatch in element-wise expression for axis
// expect-error-gcc: Shape mismatch in element-wise expression for axis d: 64 != 32
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q;
    ctein::tensor<float, "s d", 10, 64> sin;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "s d", 10, 32> cos;
#else
    ctein::tensor<float, "s d", 10, 64> cos;
#endif
    auto rotated = ctein::eval(ctein::exp(q * cos + ctein::rotate_half<"d">(q) * sin));
    return static_cast<int>(rotated.size() == 0);
}
