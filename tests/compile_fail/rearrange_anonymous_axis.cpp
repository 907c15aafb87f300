// rearrange cannot drop or invent an anonymous axis.
// expect-error: Non-unitary anonymous axes are not supported in rearrange (exception is length 1)
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b (c 2) -> a b c">(x);
#else
    auto y = ctein::rearrange<"a b (c d) -> a b c d">(x, ctein::len<"d", 2>);
#endif
    return static_cast<int>(y.size() == 0);
}
