// q·kᵀ with k's axes swapped: T == D, so the lengths agree, but the names do not.
// expect-error: Axis names disagree in einsum for axis
// expect-error-gcc: Axis names disagree in einsum for axis d: operand #0 names it d, operand #1 names it s
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 64, 64> q, k;
    auto kt = ctein::rearrange<"b h s d -> b h d s">(k);
#ifdef CTEIN_COMPILE_FAIL
    auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, kt);
#else
    auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, ctein::rearrange<"b h d s -> b h s d">(kt));
#endif
    return static_cast<int>(scores.size() == 0);
}
