// Grouped-query attention whose query heads the key/value heads do not divide (seed 003).
// expect-error-in-header: the block's configuration is checked when its type is made
// expect-error: query heads are not a multiple of
// expect-error-gcc: Attention block: 8 query heads are not a multiple of 3 key/value heads
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

int main() {
#ifdef CTEIN_COMPILE_FAIL
    ctein::nn::attention_block<512, 8, 3> block;
#else
    ctein::nn::attention_block<512, 8, 4> block;
#endif
    return static_cast<int>(block.head_size == 0);
}
