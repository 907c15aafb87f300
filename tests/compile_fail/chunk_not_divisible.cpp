// rotate_half's halves of an odd head size.
// expect-error: does not split into
// expect-error-gcc: Axis d of length 63 does not split into 2 equal chunks
#include <ctein/ctein.hpp>

int main() {
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "b h s d", 2, 8, 10, 63> q;
#else
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q;
#endif
    auto [x1, x2] = ctein::chunk<"d", 2>(q);
    return static_cast<int>(x1.size() + x2.size() == 0);
}
