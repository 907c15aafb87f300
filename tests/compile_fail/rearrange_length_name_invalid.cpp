// A given length whose name cannot be an axis name.
// expect-error-gcc: Invalid name for an axis: _c
// expect-error-clang: Invalid name for an axis: {}
// expect-error-clang: text<'_', 'c'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 12> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a (b c) -> a b c">(x, ctein::len<"_c", 3>);
#else
    auto y = ctein::rearrange<"a (b c) -> a b c">(x, ctein::len<"c", 3>);
#endif
    return static_cast<int>(y.size() == 0);
}
