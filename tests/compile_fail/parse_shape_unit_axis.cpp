// A unit where the tensor's dimension is not 1.
// expect-error-gcc: Length of axis is not 1: a 1 (2, 3)
// expect-error-clang: Length of axis is not 1: {} {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto s = ctein::parse_shape<"a 1">(x);
#else
    auto s = ctein::parse_shape<"a _">(x);
#endif
    return static_cast<int>(s.size() == 0);
}
