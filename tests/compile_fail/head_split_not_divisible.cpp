// Seed 000: d_model must be divisible by num_heads; 512 channels do not split into 12 heads.
// expect-error-gcc: Shape mismatch, can't divide axis of length 512 in chunks of 12
// expect-error-clang: Shape mismatch, can't divide axis of length {} in chunks of {}
// expect-error-clang: text<'5', '1', '2'>
// expect-error-clang: text<'1', '2'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s c", 2, 5, 512> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 12>);
#else
    auto y = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
#endif
    return static_cast<int>(y.size() == 0);
}
