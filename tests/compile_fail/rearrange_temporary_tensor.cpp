// A view of a temporary tensor would dangle.
// expect-error-in-header: a static_assert on the argument type (a temporary)
// expect-error: the result would view a temporary tensor that is about to be destroyed
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b c -> c b a">(ctein::tensor<float, "", 2, 3, 4>{});
#else
    auto y = ctein::rearrange<"a b c -> c b a">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
