// The formula's values come from another sequence than its keys.
// expect-error: Shape mismatch in attention, 
// expect-error-gcc: Shape mismatch in attention, tokens of keys and values: 16 != 20
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 1, 4, 16, 64> q, k, v;
    ctein::tensor<float, "b h s d", 1, 4, 20, 64> other;
    const auto weights = ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * 0.125f);
#ifdef CTEIN_COMPILE_FAIL
    auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(weights, other);
#else
    auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(weights, v);
#endif
    return static_cast<int>(o.size() + other.size() == 0);
}
