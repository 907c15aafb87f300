// Keys whose features axis is named otherwise than the queries' (another projection's output).
// expect-error: Axis names of attention
// expect-error-gcc: Axis names of attention queries and keys disagree on the features axis: "b h s d" against "b h s e"
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q, v;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "b h s e", 2, 8, 10, 64> k;
    auto o = ctein::attention(q, k, ctein::named<"b h s e">(v));
#else
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> k;
    auto o = ctein::attention(q, k, ctein::named<"b h s d">(v));
#endif
    return static_cast<int>(o.size() == 0);
}
