// Keys split into heads of another size than the queries' (d_model / num_heads computed twice).
// expect-error: Shape mismatch in attention, 
// expect-error-gcc: Shape mismatch in attention, features of queries and keys: 64 != 32
#include <ctein/ctein.hpp>

int main() {
    ctein::tensor<float, "b h s d", 1, 8, 16, 64> q, v;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "b h s d", 1, 8, 16, 32> k;
#else
    ctein::tensor<float, "b h s d", 1, 8, 16, 64> k;
#endif
    auto o = ctein::attention(q, k, v);
    return static_cast<int>(o.size() == 0);
}
