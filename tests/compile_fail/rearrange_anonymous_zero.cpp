// An anonymous axis of length 0.
// expect-error-gcc: Anonymous axis should have positive length, not 0
// expect-error-clang: Anonymous axis should have positive length, not {}
// expect-error-clang: text<'0'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b 0 -> a b">(x);
#else
    auto y = ctein::rearrange<"a b c -> a b c">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
