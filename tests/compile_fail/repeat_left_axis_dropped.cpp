// repeat cannot drop an axis (that is a reduce).
// expect-error-gcc: Unexpected identifiers on the left side of repeat: {'w'}
// expect-error-clang: Unexpected identifiers on the left side of repeat: {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::repeat<"h w -> h r">(x, ctein::len<"r", 2>);
#else
    auto y = ctein::repeat<"h w -> h w r">(x, ctein::len<"r", 2>);
#endif
    return static_cast<int>(y.size() == 0);
}
