// Axis names are identifiers that neither start nor end with an underscore.
// expect-error-gcc: Invalid axis identifier: _b\012axis name should should not start or end with underscore
// expect-error-clang: Invalid axis identifier: {}\n{}
// expect-error-clang: text<'_', 'b'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a _b c -> a _b c">(x);
#else
    auto y = ctein::rearrange<"a b c -> a b c">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
