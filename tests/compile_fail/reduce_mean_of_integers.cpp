// A mean of integers, which einops refuses.
// expect-error: reduce_mean is not available for non-floating tensors
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<int, "", 2, 3> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::reduce<"a b -> a", "mean">(x);
#else
    auto y = ctein::reduce<"a b -> a", "sum">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
