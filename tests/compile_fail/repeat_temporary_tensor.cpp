// A repeat view of a temporary tensor would dangle.
// expect-error-in-header: a static_assert on the argument type (a temporary)
// expect-error: the result would view a temporary tensor that is about to be destroyed
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b g s d", 1, 2, 5, 64> k;
#ifdef CTEIN_COMPILE_FAIL
    auto kr = ctein::repeat<"b g s d -> b (g r) s d">(ctein::eval(k), ctein::len<"r", 4>);
#else
    auto kr = ctein::repeat<"b g s d -> b (g r) s d">(k, ctein::len<"r", 4>);
#endif
    return static_cast<int>(kr.size() == 0);
}
