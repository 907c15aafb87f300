// A reduction einops does not have.
// expect-error-gcc: Unknown reduction median. Expect one of ('min', 'max', 'sum', 'mean', 'prod', 'any', 'all').
// expect-error-clang: Unknown reduction {}. Expect one of ('min', 'max', 'sum', 'mean', 'prod', 'any', 'all').
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::reduce<"a b -> a", "median">(x);
#else
    auto y = ctein::reduce<"a b -> a", "max">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
