// A given length for an axis the pattern does not have.
// expect-error-gcc: Axis d is not used in transform
// expect-error-clang: Axis {} is not used in transform
// expect-error-clang: text<'d'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b c -> c b a">(x, ctein::len<"d", 3>);
#else
    auto y = ctein::rearrange<"a b c -> c b a">(x, ctein::len<"c", 4>);
#endif
    return static_cast<int>(y.size() == 0);
}
