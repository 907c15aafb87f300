// The GQA repeat of seed 004 without the number of copies.
// expect-error-gcc: Specify sizes for new axes in repeat: {'r'}
// expect-error-clang: Specify sizes for new axes in repeat: {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b g s d", 1, 2, 8, 4> k;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::repeat<"b g s d -> b (g r) s d">(k);
#else
    auto y = ctein::repeat<"b g s d -> b (g r) s d">(k, ctein::len<"r", 4>);
#endif
    return static_cast<int>(y.size() == 0);
}
