// A cross-attention mask built for the queries' length where the keys' is needed ([B, Tq] for [B, Tk]).
// expect-error: Shape mismatch in attention mask, 
// expect-error-gcc: Shape mismatch in attention mask, keys axis: 10 does not broadcast to 12
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q;
    ctein::tensor<float, "b h s d", 2, 8, 12, 64> k, v;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<bool, "b s", 2, 10> keep;
#else
    ctein::tensor<bool, "b s", 2, 12> keep;
#endif
    auto o = ctein::attention(q, k, v, ctein::mask(keep));
    return static_cast<int>(o.size() == 0);
}
