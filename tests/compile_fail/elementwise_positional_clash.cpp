// Unnamed operands broadcast from the right as numpy does; these shapes do not.
// expect-error: operands could not be broadcast together with shapes
// expect-error-gcc: operands could not be broadcast together with shapes (4, 3) (2, 3)
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 4, 3> a;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "", 2, 3> b;
#else
    ctein::tensor<float, "", 1, 3> b;
#endif
    return static_cast<int>(ctein::eval(ctein::where(a > 0.0f, a, b)).size() == 0);
}
