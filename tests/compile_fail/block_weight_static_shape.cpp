// A weight of the wrong static shape given to a block: the key projection of an 8-query-head,
// 2-kv-head block is [16, 64], and a [64, 64] weight (made for full multi-head attention) is
// given to it.
// expect-error-in-header: the shapes are compared where ctein::assign copies
// expect-error: Shape mismatch in assignment
// expect-error-gcc: Shape mismatch in assignment, dimension 0: a length of 64 given to one of 16
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

int main() {
    ctein::nn::attention_block<64, 8, 2> gqa;
#ifdef CTEIN_COMPILE_FAIL
    gqa.k_proj.weight() = ctein::tensor<float, "o i", 64, 64>{};
#else
    gqa.k_proj.weight() = ctein::tensor<float, "o i", 16, 64>{};
#endif
    return static_cast<int>(gqa.k_proj.weight().size() != 16 * 64);
}
