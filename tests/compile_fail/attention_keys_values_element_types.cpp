// Keys in bfloat16 beside values in float16: the kernel reads keys and values as one element type
// (a KV cache stores both alike), so the mix is refused rather than converted behind the user's back.
// expect-error-in-header: a static_assert on the operands' element types
// expect-error: ctein::attention: keys and values hold one element type
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 1, 8, 1, 64> q;
    ctein::tensor<ctein::bfloat16, "b h s d", 1, 8, 100, 64> k;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<ctein::float16, "b h s d", 1, 8, 100, 64> v;
#else
    ctein::tensor<ctein::bfloat16, "b h s d", 1, 8, 100, 64> v;
#endif
    auto o = ctein::eval(ctein::attention(q, k, v)); // wrapped: still the one error
    return static_cast<int>(o.size() == 0);
}
