// A weight of the wrong static shape computed by an expression and evaluated: still one error,
// naming the dimension and both lengths, where it is assigned to the [16, 64] key projection.
// expect-error-in-header: the shapes are compared where ctein::assign copies
// expect-error: Shape mismatch in assignment
// expect-error-gcc: Shape mismatch in assignment, dimension 0: a length of 64 given to one of 16
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

int main() {
    ctein::nn::attention_block<64, 8, 2> gqa;
    const ctein::tensor<float, "o i", 64, 64> full;
    const ctein::tensor<float, "o i", 16, 64> grouped;
#ifdef CTEIN_COMPILE_FAIL
    gqa.k_proj.weight() = ctein::eval(full * 0.5f);
#else
    gqa.k_proj.weight() = ctein::eval(grouped * 0.5f);
#endif
    return static_cast<int>(gqa.k_proj.weight().size() + full.size() != 16 * 64 + 64 * 64);
}
