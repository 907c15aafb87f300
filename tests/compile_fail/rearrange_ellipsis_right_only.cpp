// An ellipsis on the right has nothing to stand for.
// expect-error-gcc: Ellipsis found in right side, but not left side of a pattern a b c -> a b c ...
// expect-error-clang: Ellipsis found in right side, but not left side of a pattern {}
// expect-error-clang: text<'a', ' ', 'b', ' ', 'c', ' ', '-', '>', ' ', 'a', ' ', 'b', ' ', 'c', ' ', '.',
// '.', '.'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 4> x;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b c -> a b c ...">(x);
#else
    auto y = ctein::rearrange<"a b ... -> a b ...">(x);
#endif
    return static_cast<int>(y.size() == 0);
}
