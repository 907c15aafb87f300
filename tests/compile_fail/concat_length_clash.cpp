// concat's operands must agree on every axis but the joined one.
// expect-error: Shape mismatch in concat along
// expect-error-gcc: Shape mismatch in concat along d for axis s: 10 != 9
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s d", 2, 10, 32> x1;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "b s d", 2, 9, 32> x2;
#else
    ctein::tensor<float, "b s d", 2, 10, 32> x2;
#endif
    return static_cast<int>(ctein::eval(ctein::concat<"d">(x1, x2)).size() == 0);
}
