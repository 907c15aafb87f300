// A float 0/1 mask given where a bool one is read: ctein never reads floats as 0/1 (it would be
// a silent addition in PyTorch's convention), and says how to write the additive meaning.
// expect-error-in-header: a static_assert on the mask's element type
// expect-error: a float mask is added to the scaled scores with ctein::mask(m), never read as 0/1
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q, k, v;
    ctein::tensor<float, "b k", 2, 10> padding; // 0 or -inf
#ifdef CTEIN_COMPILE_FAIL
    auto o = ctein::attention(q, k, v, ctein::ignore_mask(padding));
#else
    auto o = ctein::attention(q, k, v, ctein::mask(padding));
#endif
    return static_cast<int>(o.size() == 0);
}
