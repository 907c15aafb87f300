// An operand with fewer dimensions than the named axes after the ellipsis.
// expect-error-gcc: Wrong shape of einsum operand #0: expected >=2 dims. Received 1-dim tensor.
// expect-error-clang: Wrong shape of einsum operand #{}: expected >={} dims. Received {}-dim tensor.
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 4> v;
    ctein::tensor<float, "", 3, 4> m;
    ctein::tensor<float, "", 4, 5> w;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::einsum<"... i j, j k -> ... i k">(v, w);
#else
    auto y = ctein::einsum<"... i j, j k -> ... i k">(m, w);
#endif
    return static_cast<int>(y.size() == 0);
}
