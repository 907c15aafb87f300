// Class token and patches with different channel counts.
// expect-error-gcc: all the input array dimensions except for the concatenation axis must match exactly, but along dimension 2, the array at index 0 has size 64 and the array at index 1 has size 32
// expect-error-clang: all the input array dimensions except for the concatenation axis must match exactly, but along dimension {}, the array at index 0 has size {} and the array at index {} has size {}
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 64> cls;
    ctein::tensor<float, "", 2, 4, 4, 32> p32;
    ctein::tensor<float, "", 2, 4, 4, 64> p64;
#ifdef CTEIN_COMPILE_FAIL
    auto [y, shapes] = ctein::pack<"b * c">(cls, p32);
#else
    auto [y, shapes] = ctein::pack<"b * c">(cls, p64);
#endif
    return static_cast<int>(y.size() == 0);
}
