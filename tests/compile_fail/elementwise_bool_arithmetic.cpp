// Arithmetic on a bool mask (the seeds' (mask - 1) * 1e9 on a bool tensor): ctein asks for the
// number it means.
// expect-error-in-header: a static_assert on the operands' element types
// expect-error: arithmetic on a bool tensor; make it a number first: ctein::as<float>(mask)
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<bool, "q k", 10, 10> mask;
#ifdef CTEIN_COMPILE_FAIL
    auto additive = ctein::eval((mask - 1.0f) * 1e9f);
#else
    auto additive = ctein::eval((ctein::as<float>(mask) - 1.0f) * 1e9f);
#endif
    return static_cast<int>(additive.size() == 0);
}
