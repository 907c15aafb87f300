// Grouped-query attention whose key/value heads do not divide the query heads.
// expect-error: Shape mismatch in attention: 
// expect-error-gcc: Shape mismatch in attention: 12 query heads are not a multiple of 5 key/value heads
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 1, 12, 16, 64> q;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "b g s d", 1, 5, 16, 64> k, v;
#else
    ctein::tensor<float, "b g s d", 1, 4, 16, 64> k, v;
#endif
    auto o = ctein::attention(q, k, v, ctein::causal);
    return static_cast<int>(o.size() == 0);
}
