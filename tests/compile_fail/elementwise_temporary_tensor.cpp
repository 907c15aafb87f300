// An expression reads its tensors in place, so a temporary tensor would leave it dangling.
// expect-error-in-header: a static_assert on the operand's lifetime
// expect-error: ctein: the result would view a temporary tensor that is about to be destroyed
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s d", 2, 10, 64> x;
#ifdef CTEIN_COMPILE_FAIL
    auto scaled = ctein::eval(x) * 2.0f;
#else
    auto copy = ctein::eval(x);
    auto scaled = copy * 2.0f;
#endif
    return static_cast<int>(ctein::eval(scaled).size() == 0);
}
