// A name twice in a pack pattern.
// expect-error-gcc: Duplicates in axes names in pack(..., "b b *")
// expect-error-clang: Duplicates in axes names in {}(..., "{}")
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto [y, shapes] = ctein::pack<"b b *">(x);
#else
    auto [y, shapes] = ctein::pack<"b c *">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
