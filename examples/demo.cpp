// The ctein demo: the head split and merge of multi-head attention, scores, a grouped-query
// repeat and a reduction, written as einops patterns that the compiler checks. Run by `make demo`.
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

    // attention scores: QK^T for every head, an einsum that sums over the head size d
    auto scores = ctein::einsum<"b h q d, b h k d -> b h q k">(q, q);
    // grouped-query attention (seed 004): 2 key/value heads, each shared by 4 query heads; the
    // repeat is a view whose new axis has stride 0, so nothing is copied
    ctein::tensor<float, "b s c", 2, ctein::dyn, 2 * 64> kv_projection(tokens);
    auto kv_heads = ctein::rearrange<"b s (g d) -> b g s d">(kv_projection, ctein::len<"g=2">);
    auto shared = ctein::repeat<"b g s d -> b (g r) s d">(kv_heads, ctein::len<"r=4">);
    // the mean over heads of every token: a reduction into a new tensor
    auto pooled = ctein::reduce<"b h s d -> b s d", "mean">(q);
    std::cout << "x       " << ctein::describe(x) << "\n"
              << "q       " << ctein::describe(q) << "\n"
              << "merged  " << ctein::describe(merged) << "\n"
              << "context " << ctein::describe(context) << "\n"
              << "qkv     " << ctein::describe(heads) << "\n"
              << "scores  " << ctein::describe(scores) << "\n"
              << "shared  " << ctein::describe(shared) << "\n"
              << "pooled  " << ctein::describe(pooled) << "\n";

    bool same = true;
    for (std::size_t i = 0; i < x.size(); ++i) same = same && context.data()[i] == x.data()[i];
    std::cout << "split then merge gives x back: " << (same ? "yes" : "NO") << "\n"
              << "(* marks a dynamic extent; merging heads without moving h next to d,\n"
              << " rearrange<\"b s h d -> b s (h d)\">(q), does not compile: q's axes are b h s d)\n";
    return same ? EXIT_SUCCESS : EXIT_FAILURE;
}
