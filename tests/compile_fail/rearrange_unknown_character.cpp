// A character that is not part of the grammar.
// expect-error-gcc: Unknown character '!'
// expect-error-clang: Unknown character '{}'
// expect-error-clang: text<'!'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b c! -> a b c!">(x);
#else
    auto y = ctein::rearrange<"a b c -> a b c">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
