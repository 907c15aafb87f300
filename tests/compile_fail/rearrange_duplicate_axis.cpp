// An axis named twice on one side.
// expect-error-gcc: Indexing expression contains duplicate dimension "b"
// expect-error-clang: Indexing expression contains duplicate dimension "{}"
// expect-error-clang: text<'b'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b b -> a b">(x);
#else
    auto y = ctein::rearrange<"a b c -> a (b c)">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
