// The ctein demo: the head split and merge of multi-head attention, written as einops patterns
// that the compiler checks. Run by `make demo`.
#include <ctein/ctein.hpp>

#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
    // Seed 000's shapes: batch 2, 5 tokens, d_model 512, 8 heads. The sequence length is dynamic
    // (prompts differ); batch, heads and head size are compile-time constants.
    const std::size_t tokens = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 5;
    ctein::tensor<float, "b s c", 2, ctein::dyn, 512> x(tokens);
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i % 1000) * 0.001f;

    // split: [batch, seq, d_model] -> [batch, heads, seq, d_k], a strided view, no copy
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h=8">);
    // merge back: h is no longer next to d in memory, so this is a grouped view...
    auto merged = ctein::rearrange<"b h s d -> b s (h d)">(q);
    // ...which ctein::eval copies into a contiguous tensor
    auto context = ctein::eval(merged);
    // fused QKV (seed 002): one projection output holding q, k and v for every head
    ctein::tensor<float, "b s c", 2, ctein::dyn, 3 * 512> qkv(tokens);
    auto heads =
        ctein::rearrange<"b s (three h d) -> three b h s d">(qkv, ctein::len<"three=3">, ctein::len<"h=8">);

    std::cout << "x       " << ctein::describe(x) << "\n"
              << "q       " << ctein::describe(q) << "\n"
              << "merged  " << ctein::describe(merged) << "\n"
              << "context " << ctein::describe(context) << "\n"
              << "qkv     " << ctein::describe(heads) << "\n";

    bool same = true;
    for (std::size_t i = 0; i < x.size(); ++i) same = same && context.data()[i] == x.data()[i];
    std::cout << "split then merge gives x back: " << (same ? "yes" : "NO") << "\n"
              << "(* marks a dynamic extent; merging heads without moving h next to d,\n"
              << " rearrange<\"b s h d -> b s (h d)\">(q), does not compile: q's axes are b h s d)\n";
    return same ? EXIT_SUCCESS : EXIT_FAILURE;
}
