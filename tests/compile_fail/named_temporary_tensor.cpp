// Renaming the axes of a temporary tensor gives a view that would dangle.
// expect-error-in-header: a static_assert on the argument type (a temporary)
// expect-error: the result would view a temporary tensor that is about to be destroyed
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 5, 512> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::named<"b s c">(ctein::eval(x));
#else
    auto y = ctein::named<"b s c">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
