// Queries passed before the head split: [batch, tokens, channels] instead of [batch, heads, tokens, d].
// expect-error: Wrong shape of attention 
// expect-error-gcc: Wrong shape of attention queries: expected 4 dims [batch, heads, tokens, features]. Received 3-dim tensor.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s c", 2, 16, 512> x;
    ctein::tensor<float, "b h s d", 2, 8, 16, 64> k, v;
#ifdef CTEIN_COMPILE_FAIL
    auto o = ctein::attention(x, k, v);
#else
    auto o = ctein::attention(ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>), k, v);
#endif
    return static_cast<int>(o.size() == 0);
}
