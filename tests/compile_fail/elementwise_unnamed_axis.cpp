// A named operand with an unnamed axis: named operands meet by names, so every axis needs one.
// expect-error: has no name: named operands of an element-wise expression meet by their names
// expect-error-gcc: Dimension 1 of "b _ d" has no name
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s d", 2, 10, 64> x;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "b _ d", 2, 10, 64> y;
#else
    ctein::tensor<float, "b s d", 2, 10, 64> y;
#endif
    return static_cast<int>(ctein::eval(x + y).size() == 0);
}
