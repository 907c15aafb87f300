// A (Tq, Tk) mask of a cross-attention typed with its axes the wrong way round.
// expect-error: are not in the order of the scores
// expect-error-gcc: Axes of attention mask "t s" are not in the order of the scores "b h s t"
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q;
    ctein::tensor<float, "b h t d", 2, 8, 12, 64> k, v;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<bool, "t s", 12, 10> keep;
#else
    ctein::tensor<bool, "s t", 10, 12> keep;
#endif
    auto o = ctein::eval(ctein::attention(q, k, v, ctein::mask(keep)));
    return static_cast<int>(o.size() == 0);
}
