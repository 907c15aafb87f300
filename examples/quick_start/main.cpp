// The quick start (docs/quick-start.md shows this file, and the package test builds it against
// an installed ctein and runs it): one attention call on heads split by a pattern, then a
// grouped-query block with RoPE, prefilled from a prompt and then fed one token through its cache.
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>

template <class T>
void fill(T& t, float step) { // stands in for real data and weights (see ctein::nn::load)
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = 0.1f * std::sin(static_cast<float>(i) * step);
}

int main() {
    ctein::tensor<float, "b s c", 2, 128, 512> x;                            // batch 2, 128 tokens, 512 channels
    fill(x, 0.37f);
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h=8">);  // a view: (2, 8, 128, 64)
    auto o = ctein::attention(q, q, q, ctein::causal);                        // one fused kernel call
    std::printf("attention: %s\n", ctein::describe(o).c_str());

    ctein::nn::attention_block<512, 8, 2, false, true> block(1024);          // 8 query heads, 2 kv heads, RoPE
    for (auto* w : {&block.q_proj.weight(), &block.o_proj.weight()}) fill(*w, 0.011f);
    for (auto* w : {&block.k_proj.weight(), &block.v_proj.weight()}) fill(*w, 0.007f);
    decltype(block)::cache_type cache(2, 1024);                               // batch 2, up to 1024 tokens
    auto prompt = block(x, cache);                                            // prefill: (2, 128, 512)
    auto next = block(ctein::slice<"s">(x, 0, 1), cache);                     // decode: (2, 1, 512)
    std::printf("block: prompt %s, next %s, cache %zu tokens\n", ctein::describe(prompt).c_str(),
                ctein::describe(next).c_str(), cache.length());
    return std::isfinite(next(1, 0, 511)) && next(1, 0, 511) != 0.0f ? 0 : 1;
}
