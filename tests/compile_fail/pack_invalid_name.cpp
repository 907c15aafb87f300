// A pack pattern with a name einops refuses.
// expect-error-gcc: Invalid axis name _b in pack(..., "_b *")
// expect-error-clang: Invalid axis name {} in {}(..., "{}")
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto [y, shapes] = ctein::pack<"_b *">(x);
#else
    auto [y, shapes] = ctein::pack<"b *">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
