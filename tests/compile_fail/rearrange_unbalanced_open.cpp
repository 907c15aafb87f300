// An opening bracket that is never closed.
// expect-error-gcc: Imbalanced parentheses in expression: " a (b c"
// expect-error-clang: Imbalanced parentheses in expression: "{}"
// expect-error-clang: text<' ', 'a', ' ', '(', 'b', ' ', 'c'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b c -> a (b c">(x);
#else
    auto y = ctein::rearrange<"a b c -> a (b c)">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
