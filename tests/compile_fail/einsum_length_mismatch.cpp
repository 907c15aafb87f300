// Seed 000's projection with the weight in [in, out] layout instead of PyTorch's [out, in].
// expect-error-gcc: Shape mismatch in einsum for axis c: 512 != 1536
// expect-error-clang: Shape mismatch in einsum for axis {}: {} != {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 8, 512> x;
    ctein::tensor<float, "", 512, 1536> w_in_out;
    ctein::tensor<float, "", 1536, 512> w;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"b s c, o c -> b s o">(x, w_in_out);
#else
    auto y = ctein::einsum<"b s c, o c -> b s o">(x, w);
#endif
    return static_cast<int>(y.size() == 0);
}
