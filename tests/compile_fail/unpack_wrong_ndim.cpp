// unpack of a tensor without the axes the pattern names.
// expect-error-gcc: unpack(..., b * c) received input of wrong dim with shape (2, 10)
// expect-error-clang: unpack(..., {}) received input of wrong dim with shape {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 10> x2;
    ctein::tensor<float, "", 2, 10, 4> x3;
    ctein::packed_shapes shapes{ctein::extents<3>{}, ctein::extents<7>{}};
#ifdef CTEIN_COMPILE_FAIL
    auto [a, b] = ctein::unpack<"b * c">(x2, shapes);
#else
    auto [a, b] = ctein::unpack<"b * c">(x3, shapes);
#endif
    return static_cast<int>(a.size() == 0);
}
