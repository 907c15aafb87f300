// qkv[3] of a packed q, k, v: there are three.
// expect-error: is out of range for axis
// expect-error-gcc: Index 3 is out of range for axis three of length 3
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "three b h s d", 3, 2, 8, 10, 64> qkv;
#ifdef CTEIN_COMPILE_FAIL
    auto v = ctein::index<"three", 3>(qkv);
#else
    auto v = ctein::index<"three", 2>(qkv);
#endif
    return static_cast<int>(v.size() == 0);
}
