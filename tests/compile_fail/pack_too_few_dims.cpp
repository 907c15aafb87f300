// A tensor with fewer dimensions than the pattern names.
// expect-error-gcc: packed tensor #1 (enumeration starts with 0) has shape (2,), while pattern b * c assumes at least 2 axes
// expect-error-clang: packed tensor #{} (enumeration starts with 0) has shape {}, while pattern {} assumes at least {} axes
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3> a;
    ctein::tensor<float, "", 2> b1;
    ctein::tensor<float, "", 2, 3> b2;
#ifdef CTEIN_COMPILE_FAIL
    auto [y, shapes] = ctein::pack<"b * c">(a, b1);
#else
    auto [y, shapes] = ctein::pack<"b * c">(a, b2);
#endif
    return static_cast<int>(y.size() == 0);
}
