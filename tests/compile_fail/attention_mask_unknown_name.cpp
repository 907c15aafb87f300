// A mask named with an axis the scores do not have.
// expect-error: of attention mask
// expect-error-gcc: Axis x of attention mask "b x" names no axis of the scores "b h s t"
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q;
    ctein::tensor<float, "b h t d", 2, 8, 12, 64> k, v;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<bool, "b x", 2, 12> keep;
#else
    ctein::tensor<bool, "b t", 2, 12> keep;
#endif
    auto o = ctein::attention(q, k, v, ctein::mask(keep));
    return static_cast<int>(o.size() == 0);
}
