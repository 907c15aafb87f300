// A pattern needs exactly one arrow; einops itself fails here with a Python unpacking error.
// expect-error-gcc: Pattern must contain '->' exactly once, it contains it 0 times
// expect-error-clang: Pattern must contain '->' exactly once, it contains it {} times
// expect-error-clang: text<'0'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b c">(x);
#else
    auto y = ctein::rearrange<"a b c -> a b c">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
