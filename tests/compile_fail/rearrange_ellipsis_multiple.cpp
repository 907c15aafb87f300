// Two ellipses on one side.
// expect-error: Expression may contain dots only inside ellipsis (...); only one ellipsis for tensor
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"... a ... -> a">(x);
#else
    auto y = ctein::rearrange<"... a -> a ...">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
