// A pack of nothing.
// expect-error-gcc: pack(..., "b * c") needs at least one tensor
// expect-error-clang: pack(..., "{}") needs at least one tensor
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto [y, shapes] = ctein::pack<"b * c">();
#else
    auto [y, shapes] = ctein::pack<"b * c">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
