// The same swap inside the attention formula, its weights read by eval: one error, einsum's.
// expect-error: Axis names disagree in einsum for axis
// expect-error-gcc: Axis names disagree in einsum for axis d: operand #0 names it d, operand #1 names it s
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 64, 64> q, k, v;
    auto kt = ctein::rearrange<"b h s d -> b h d s">(k);
#ifdef CTEIN_COMPILE_FAIL
    auto w = ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, kt) * 0.125f);
#else
    auto w = ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * 0.125f);
#endif
    auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(ctein::dropout(w, 0.1f, 7), v);
    return static_cast<int>(ctein::eval(w).size() + o.size() == 0);
}
