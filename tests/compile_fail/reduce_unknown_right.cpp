// An axis on the right of a reduce that the left does not have.
// expect-error-gcc: Unexpected identifiers on the right side of reduce sum: {'c'}
// expect-error-clang: Unexpected identifiers on the right side of reduce {}: {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::reduce<"a b -> a c", "sum">(x);
#else
    auto y = ctein::reduce<"a b -> a", "sum">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
