// A group in a parse_shape pattern.
// expect-error-gcc: Can't parse shape with composite axes: a (b c) (2, 12)
// expect-error-clang: Can't parse shape with composite axes: {} {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 12> x;
#ifdef CTEIN_COMPILE_FAIL
    auto s = ctein::parse_shape<"a (b c)">(x);
#else
    auto s = ctein::parse_shape<"a bc">(x);
#endif
    return static_cast<int>(s.size() == 0);
}
