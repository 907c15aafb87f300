// Two unknown lengths in one group cannot be inferred.
// expect-error-gcc: Could not infer sizes for {'c', 'd'}
// expect-error-clang: Could not infer sizes for {}
// expect-error-clang: text<'c', ' ', 'd'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 12> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a (b c d) -> a b c d">(x, ctein::len<"b", 2>);
#else
    auto y = ctein::rearrange<"a (b c d) -> a b c d">(x, ctein::len<"b", 2>, ctein::len<"c", 3>);
#endif
    return static_cast<int>(y.size() == 0);
}
