// The same mask when the weights are read: softmax reports it, eval adds nothing.
// expect-error: are not in the order of the scores
// expect-error-gcc: Axes of attention mask "k q" are not in the order of the scores "b h q k"
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q, k;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<bool, "k q", 10, 10> keep;
#else
    ctein::tensor<bool, "q k", 10, 10> keep;
#endif
    auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * 0.125f;
    auto w = ctein::eval(ctein::softmax<"k">(scores + ctein::mask(keep)));
    return static_cast<int>(w.size() == 0);
}
