// A (T, T) mask typed "k q" where the formula's scores are "b h q k": one error, in the formula.
// expect-error: are not in the order of the scores
// expect-error-gcc: Axes of attention mask "k q" are not in the order of the scores "b h q k"
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q, k, v;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<bool, "k q", 10, 10> keep;
#else
    ctein::tensor<bool, "q k", 10, 10> keep;
#endif
    auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * 0.125f;
    auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(ctein::softmax<"k">(scores + ctein::mask(keep)), v);
    return static_cast<int>(o.size() == 0);
}
