// key_padding_mask is nn.MultiheadAttention's: [batch, keys], not a [B, 1, Tk] mask.
// expect-error: Wrong shape of attention key padding mask: expected 2 dims [batch, keys]. Received
// expect-error-gcc: Wrong shape of attention key padding mask: expected 2 dims [batch, keys]. Received 3-dim tensor.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q, k, v;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<bool, "b 1 s", 2, 1, 10> padded;
#else
    ctein::tensor<bool, "b s", 2, 10> padded;
#endif
    auto o = ctein::attention(q, k, v, ctein::key_padding_mask(padded));
    return static_cast<int>(o.size() == 0);
}
