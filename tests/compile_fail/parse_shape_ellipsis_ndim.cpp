// More names than dimensions around an ellipsis.
// expect-error-gcc: Can't parse shape with this number of dimensions: a b ... c (2, 3)
// expect-error-clang: Can't parse shape with this number of dimensions: {} {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto s = ctein::parse_shape<"a b ... c">(x);
#else
    auto s = ctein::parse_shape<"a ... c">(x);
#endif
    return static_cast<int>(s.size() == 0);
}
