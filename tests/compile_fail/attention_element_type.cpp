// Queries of double: attention computes in float and reads float, bfloat16 and float16; a double
// tensor would be narrowed silently, so it is refused, inside an expression too.
// expect-error-in-header: a static_assert on the operands' element types
// expect-error: ctein::attention: queries, keys and values hold float, ctein::bfloat16 or ctein::float16
#include <ctein/ctein.hpp>

int main() {
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<double, "b h s d", 1, 8, 10, 64> q;
#else
    ctein::tensor<float, "b h s d", 1, 8, 10, 64> q;
#endif
    ctein::tensor<float, "b h s d", 1, 8, 10, 64> k, v;
    auto o = ctein::eval(ctein::attention(q, k, v, ctein::causal));
    return static_cast<int>(o.size() == 0);
}
