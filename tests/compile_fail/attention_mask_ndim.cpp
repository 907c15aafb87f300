// A mask with an extra axis (unsqueezed once too often).
// expect-error: Wrong shape of attention mask: expected 1 to 4 dims, broadcast against the scores [batch, heads, queries, keys]. Received
// expect-error-gcc: Wrong shape of attention mask: expected 1 to 4 dims, broadcast against the scores [batch, heads, queries, keys]. Received 5-dim tensor.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q, k, v;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<bool, "", 2, 1, 1, 1, 10> keep;
#else
    ctein::tensor<bool, "", 2, 1, 1, 10> keep;
#endif
    auto o = ctein::attention(q, k, v, ctein::mask(keep));
    return static_cast<int>(o.size() == 0);
}
