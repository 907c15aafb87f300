// concat joins operands with the same axes: here the second names its tokens t.
// expect-error: Axes of concat operands differ
// expect-error-gcc: Axes of concat operands differ: "b t d" against "b s d"
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s d", 2, 10, 32> x1;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "b t d", 2, 10, 32> x2;
#else
    ctein::tensor<float, "b s d", 2, 10, 32> x2;
#endif
    return static_cast<int>(ctein::eval(ctein::concat<"d">(-x2, x1)).size() == 0);
}
