// Asking a parsed shape for a name its pattern does not have.
// expect-error-in-header: a static_assert in the member function asked for
// expect-error: the pattern names no such axis
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "", 2, 3, 32, 32> x;
    auto s = ctein::parse_shape<"b _ h w">(x);
#ifdef CTEIN_COMPILE_FAIL
    auto y = s.get<"c">();
#else
    auto y = s.get<"h">();
#endif
    return static_cast<int>(y == 0);
}
