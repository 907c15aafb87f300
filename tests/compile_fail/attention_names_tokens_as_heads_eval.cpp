// The same mistake inside ctein::eval: still one error, the attention's.
// expect-error: put tokens where the heads belong (attention reads [batch, heads, tokens, features])
// expect-error-gcc: Axis names of attention queries "b s h d" put tokens where the heads belong
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s c", 2, 16, 512> x;
#ifdef CTEIN_COMPILE_FAIL
    auto q = ctein::rearrange<"b s (h d) -> b s h d">(x, ctein::len<"h", 8>);
#else
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
#endif
    auto o = ctein::eval(ctein::attention(q, q, q));
    return static_cast<int>(o.size() == 0);
}
