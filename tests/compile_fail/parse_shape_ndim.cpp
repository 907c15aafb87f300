// A parse_shape pattern for another rank.
// expect-error-gcc: Can't parse shape with different number of dimensions: a b (2, 3, 4)
// expect-error-clang: Can't parse shape with different number of dimensions: {} {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto s = ctein::parse_shape<"a b">(x);
#else
    auto s = ctein::parse_shape<"a b c">(x);
#endif
    return static_cast<int>(s.size() == 0);
}
