// Seed 002's RoPEMultiHeadAttention in a generation loop: a 6-token prompt, then one token at a
// time through a KV cache, RoPE at each token's position. The seed's cos/sin tables are d_k / 2
// wide, which does not broadcast against q (a compile error in ctein); the block uses LLaMA's
// [positions, d_k]. Then Hugging Face's LlamaAttention (8 query heads, 2 key/value heads) the same
// way, against its DynamicCache.
#include <ctein/ctein.hpp>
#include <ctein/io/safetensors.hpp>
#include <ctein/nn.hpp>

#include "check.hpp"

namespace {
/// Prefill with tokens [0, 6), then decode tokens 6, 7, 8 one by one; every output against PyTorch's.
template <class Block>
bool generate(const char* what, Block& block, const ctein::tensor<float, "b s e", 2, 9, 64>& x,
              const ctein::tensor<float, "b s e", 2, 9, 64>& reference) {
    // ---
    typename Block::cache_type cache(2, 32); // batch 2, room for 32 tokens
    auto prompt = block(ctein::slice<"s">(x, 0, 6), cache); // causal over the prompt
    bool close = seeds::compare(what, prompt, ctein::eval(ctein::slice<"s">(reference, 0, 6)));
    for (std::size_t t = 6; t < 9; ++t) {
        auto next = block(ctein::slice<"s">(x, t, t + 1), cache); // attends to every token before
        close &= seeds::compare("  one more token", next, ctein::eval(ctein::slice<"s">(reference, t, t + 1)));
    }
    // ---
    return close;
}
} // namespace

int main(int argc, char** argv) {
    const std::string modules = seeds::data_dir(argc, argv, "modules"), hf = seeds::data_dir(argc, argv, "hf");

    // ---
    ctein::nn::attention_block<64, 4, 4, false, true> rope(32); // no bias, RoPE, tables for 32 positions
    ctein::nn::load(rope, ctein::safetensors_file(modules + "seed002_rope.safetensors"),
                    ctein::nn::projections("W_q", "W_k", "W_v", "W_o"));
    // ---
    const bool seed_matches = generate("seed 002: RoPE, prompt", rope,
                                       ctein::load_npy<float, "b s e", 2, 9, 64>(modules + "seed002.x.npy"),
                                       ctein::load_npy<float, "b s e", 2, 9, 64>(modules + "seed002_rope.out.npy"));

    // ---
    ctein::nn::attention_block<64, 8, 2, false, true> llama(32); // LlamaConfig(hidden_size=64, heads 8, kv 2)
    ctein::nn::load(llama, ctein::safetensors_file(hf + "llama.safetensors"),
                    ctein::nn::llama_names("model.layers.0.self_attn."));
    // ---
    const bool llama_matches = generate("LlamaAttention: prompt", llama,
                                        ctein::load_npy<float, "b s e", 2, 9, 64>(hf + "llama.x.npy"),
                                        ctein::load_npy<float, "b s e", 2, 9, 64>(hf + "llama.out.npy"));
    return seed_matches && llama_matches ? 0 : 1;
}
