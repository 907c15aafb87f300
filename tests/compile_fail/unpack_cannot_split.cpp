// Packed shapes that do not add up to the packed axis.
// expect-error-gcc: Error during unpack(..., "b * c"): could not split axis of size 10 into requested [[3], [2, 2]]
// expect-error-clang: Error during unpack(..., "{}"): could not split axis of size {} into requested {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 10, 4> x;
    ctein::packed_shapes bad{ctein::extents<3>{}, ctein::extents<2, 2>{}};
    ctein::packed_shapes good{ctein::extents<6>{}, ctein::extents<2, 2>{}};
#ifdef CTEIN_COMPILE_FAIL
    auto [a, b] = ctein::unpack<"b * c">(x, bad);
#else
    auto [a, b] = ctein::unpack<"b * c">(x, good);
#endif
    return static_cast<int>(a.size() == 0);
}
