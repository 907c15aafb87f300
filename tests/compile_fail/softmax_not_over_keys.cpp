// softmax over the queries instead of the keys (dim=-2 for dim=-1).
// expect-error-in-header: a static_assert on the axis given to softmax
// expect-error: ctein::softmax: attention weights are normalised over the keys, the last axis of the scores
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 1, 4, 16, 64> q, k, v;
    const auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) * 0.125f;
#ifdef CTEIN_COMPILE_FAIL
    auto weights = ctein::softmax<"q">(scores);
#else
    auto weights = ctein::softmax<"k">(scores);
#endif
    auto o = ctein::einsum<"b h q k, b h k d -> b h q d">(weights, v);
    return static_cast<int>(o.size() == 0);
}
