// Views unpacked from a temporary tensor would dangle.
// expect-error-in-header: a static_assert on the argument type (a temporary)
// expect-error: the result would view a temporary tensor that is about to be destroyed
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> packed;
    ctein::packed_shapes<ctein::extents<1>, ctein::extents<2>> shapes;
#ifdef CTEIN_COMPILE_FAIL
    auto [a, b] = ctein::unpack<"b * c">(ctein::eval(packed), shapes);
#else
    auto [a, b] = ctein::unpack<"b * c">(packed, shapes);
#endif
    return static_cast<int>(a.size() + b.size() == 0);
}
