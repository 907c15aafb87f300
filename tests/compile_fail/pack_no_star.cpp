// A pack pattern without its `*`.
// expect-error-gcc: No *-axis in pack(..., "b c")
// expect-error-clang: No *-axis in {}(..., "{}")
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto [y, shapes] = ctein::pack<"b c">(x);
#else
    auto [y, shapes] = ctein::pack<"b *">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
