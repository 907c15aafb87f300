// The pattern names four dimensions, the tensor has three.
// expect-error-gcc: Wrong shape: expected 4 dims. Received 3-dim tensor.
// expect-error-clang: Wrong shape: expected {} dims. Received {}-dim tensor.
// expect-error-clang: text<'4'>
// expect-error-clang: text<'3'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b c d -> b a c d">(x);
#else
    auto y = ctein::rearrange<"a b c -> b a c">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
