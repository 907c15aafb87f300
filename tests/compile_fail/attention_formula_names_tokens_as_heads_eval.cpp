// The same mistake when the weights themselves are read: softmax reports it, eval adds nothing.
// expect-error: put tokens where the heads belong (attention reads [batch, heads, tokens, features])
// expect-error-gcc: Axis names of attention queries "b s h d" put tokens where the heads belong
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s c", 2, 16, 512> x;
#ifdef CTEIN_COMPILE_FAIL
    auto q = ctein::rearrange<"b s (h d) -> b s h d">(x, ctein::len<"h", 8>);
#else
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
#endif
    auto w = ctein::eval(ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, q) * 0.125f));
    return static_cast<int>(w.size() == 0);
}
