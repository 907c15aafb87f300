// The same axis length given twice.
// expect-error-gcc: Length of axis c is given more than once
// expect-error-clang: Length of axis {} is given more than once
// expect-error-clang: text<'c'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 12> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a (b c) -> a b c">(x, ctein::len<"c", 3>, ctein::len<"c", 3>);
#else
    auto y = ctein::rearrange<"a (b c) -> a b c">(x, ctein::len<"c", 3>, ctein::len<"b", 4>);
#endif
    return static_cast<int>(y.size() == 0);
}
