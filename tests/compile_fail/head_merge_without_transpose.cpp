// Seed 001's mistake: merging heads of a (b, h, s, d) tensor as if it were (b, s, h, d),
// i.e. reshape(B, T, C) without transpose(1, 2). The tensor's axis names make it a compile error.
// expect-error-gcc: pattern axes "b s h d" do not match tensor axes "b h s d"
// expect-error-clang: pattern axes "{}" do not match tensor axes "{}"
// expect-error-clang: text<'b', ' ', 's', ' ', 'h', ' ', 'd'>
// expect-error-clang: text<'b', ' ', 'h', ' ', 's', ' ', 'd'>
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b s c", 2, 5, 512> x;
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h", 8>);
#ifdef CTEIN_COMPILE_FAIL
    auto bad = ctein::rearrange<"b s h d -> b s (h d)">(q);
#else
    auto bad = ctein::rearrange<"b h s d -> b s (h d)">(q);
#endif
    return static_cast<int>(bad.size() == 0);
}
