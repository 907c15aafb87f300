// Seed 001's missing transpose(1, 2) in the formula as the seeds write it: one error, attention's.
// expect-error: put tokens where the heads belong (attention reads [batch, heads, tokens, features])
// expect-error-gcc: Axis names of attention queries "b s h d" put tokens where the heads belong
#include <ctein/ctein.hpp>

#include <cmath>

int main() {
    ctein::tensor<float, "b s c", 2, 16, 512> x;
#ifdef CTEIN_COMPILE_FAIL
    auto q = ctein::rearrange<"b s (h d) -> b s h d">(x, ctein::len<"h", 8>);
#else
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
#endif
    auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, q) / std::sqrt(64.0f);
    auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(ctein::softmax<"k">(scores + ctein::causal), q);
    return static_cast<int>(o.size() == 0);
}
