// Given lengths whose product is not the length of the dimension.
// expect-error-gcc: Shape mismatch, 12 != 10
// expect-error-clang: Shape mismatch, {} != {}
// expect-error-clang: text<'1', '2'>
// expect-error-clang: text<'1', '0'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 12> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a (b c) -> a b c">(x, ctein::len<"b", 2>, ctein::len<"c", 5>);
#else
    auto y = ctein::rearrange<"a (b c) -> a b c">(x, ctein::len<"b", 2>, ctein::len<"c", 6>);
#endif
    return static_cast<int>(y.size() == 0);
}
