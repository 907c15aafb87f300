// A number that is not the dimension's length.
// expect-error-gcc: Length of anonymous axis does not match: a 2 (2, 3)
// expect-error-clang: Length of anonymous axis does not match: {} {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto s = ctein::parse_shape<"a 2">(x);
#else
    auto s = ctein::parse_shape<"a 3">(x);
#endif
    return static_cast<int>(s.size() == 0);
}
