// An einsum pattern without its right side.
// expect-error: Einsum pattern must contain '->'.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> a;
    ctein::tensor<float, "", 3, 4> b;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"i j, j k">(a, b);
#else
    auto y = ctein::einsum<"i j, j k -> i k">(a, b);
#endif
    return static_cast<int>(y.size() == 0);
}
