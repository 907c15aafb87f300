// Two explicit masks in one call: the kernel reads one, so ctein refuses rather than drop one.
// expect-error-in-header: a static_assert on the option types
// expect-error: one explicit mask per call
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 2, 8, 10, 64> q, k, v;
    ctein::tensor<bool, "q k", 10, 10> allowed;
    ctein::tensor<bool, "b k", 2, 10> padded;
#ifdef CTEIN_COMPILE_FAIL
    auto o = ctein::attention(q, k, v, ctein::mask(allowed), ctein::key_padding_mask(padded));
#else
    auto o = ctein::attention(q, k, v, ctein::mask(allowed), ctein::key_padding({10, 7}));
#endif
    return static_cast<int>(o.size() == 0);
}
