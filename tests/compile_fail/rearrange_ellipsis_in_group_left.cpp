// On the left, an ellipsis cannot be inside a group.
// expect-error-gcc: Ellipsis inside parenthesis in the left side is not allowed: a (b ...) -> a b ...
// expect-error-clang: Ellipsis inside parenthesis in the left side is not allowed: {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a (b ...) -> a b ...">(x);
#else
    auto y = ctein::rearrange<"a b ... -> a (b ...)">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
