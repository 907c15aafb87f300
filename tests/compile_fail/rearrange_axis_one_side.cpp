// rearrange keeps every axis: one that appears on one side only is a mistake.
// expect-error-gcc: Identifiers only on one side of expression (should be on both): {'c', 'd'}
// expect-error-clang: Identifiers only on one side of expression (should be on both): {}
// expect-error-clang: text<'c', ' ', 'd'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b c -> a b d">(x);
#else
    auto y = ctein::rearrange<"a b c -> a b c">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
