// A static slice past the end of a static axis: the seeds' x[:, :, :t] with t too large.
// expect-error: is out of range for axis
// expect-error-gcc: 0, 12) is out of range for axis s of length 10
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> k;
#ifdef CTEIN_COMPILE_FAIL
    auto first = ctein::slice<"s", 0, 12>(k);
#else
    auto first = ctein::slice<"s", 0, 10>(k);
#endif
    return static_cast<int>(ctein::eval(first).size() == 0);
}
