// A rearrange returns a view, and an expression has no memory to view until it is evaluated.
// expect-error-in-header: a static_assert on the kind of input
// expect-error: ctein: an element-wise expression has no memory to view; ctein::eval it first
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s d", 2, 10, 64> x;
#ifdef CTEIN_COMPILE_FAIL
    auto heads = ctein::rearrange<"b s (h d) -> b h s d">(x * 2.0f, ctein::len<"h", 8>);
#else
    auto doubled = ctein::eval(x * 2.0f);
    auto heads = ctein::rearrange<"b s (h d) -> b h s d">(doubled, ctein::len<"h", 8>);
#endif
    return static_cast<int>(ctein::eval(heads).size() == 0);
}
