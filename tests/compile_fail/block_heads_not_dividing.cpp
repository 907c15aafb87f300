// An attention block whose width its heads do not divide (seed 000's assert d_model % num_heads == 0).
// expect-error-in-header: the block's configuration is checked when its type is made
// expect-error: Attention block: d_model
// expect-error-gcc: Attention block: d_model 100 is not a multiple of 3 heads
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

int main() {
#ifdef CTEIN_COMPILE_FAIL
    ctein::nn::attention_block<100, 3> block;
#else
    ctein::nn::attention_block<96, 3> block;
#endif
    return static_cast<int>(block.head_size == 0);
}
