// A view that merges axes not adjacent in memory must be materialised before it is rearranged.
// expect-error-in-header: a static_assert on the input layout
// expect-error: the input merges axes that are not adjacent in memory; materialise it with ctein::eval first
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
    auto merged = ctein::rearrange<"a b c -> (c a) b">(x);
    auto copy = ctein::eval(merged);
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"(c a) b -> b (c a)">(merged, ctein::len<"c", 4>);
#else
    auto y = ctein::rearrange<"(c a) b -> b (c a)">(copy, ctein::len<"c", 4>);
#endif
    return static_cast<int>(y.size() == 0);
}
