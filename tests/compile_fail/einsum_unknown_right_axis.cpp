// An output axis no operand has.
// expect-error-gcc: Unknown axis c on right side of einsum a b -> c.
// expect-error-clang: Unknown axis {} on right side of einsum {}.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"a b -> c">(x);
#else
    auto y = ctein::einsum<"a b -> b">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
