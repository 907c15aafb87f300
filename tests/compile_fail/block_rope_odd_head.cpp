// RoPE rotates pairs of features: a head size of 15 has an odd one out.
// expect-error-in-header: the block's configuration is checked when its type is made
// expect-error: RoPE rotates pairs of features, and the head size
// expect-error-gcc: Attention block: RoPE rotates pairs of features, and the head size 15 is odd
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

int main() {
#ifdef CTEIN_COMPILE_FAIL
    ctein::nn::attention_block<60, 4, 4, false, true> block(128);
#else
    ctein::nn::attention_block<64, 4, 4, false, true> block(128);
#endif
    return static_cast<int>(block.head_size == 0);
}
