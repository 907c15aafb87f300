// A tensor type's axis names must be valid names, one per dimension.
// expect-error-in-header: the tensor type checks its names where it is declared (a class template)
// expect-error-gcc: Invalid axis names "b s" for a tensor of 3 dimensions: it names 2
// expect-error-clang: Invalid axis names "{}" for a tensor of {} dimensions: {}
// expect-error-clang: text<'b', ' ', 's'>
#include <ctein/ctein.hpp>

int main() {
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "b s", 2, 3, 4> y;
#else
    ctein::tensor<float, "b s c", 2, 3, 4> y;
#endif
    return static_cast<int>(y.size()) - 24;
}
