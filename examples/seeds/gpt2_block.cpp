// Hugging Face's GPT2Attention: a causal block with padding, its fused c_attn and c_proj stored by
// Conv1D as [in, out], loaded from a checkpoint's names (h.0.attn.c_attn.weight, ...).
#include <ctein/ctein.hpp>
#include <ctein/io/safetensors.hpp>
#include <ctein/nn.hpp>

#include "check.hpp"

int main(int argc, char** argv) {
    const std::string dir = seeds::data_dir(argc, argv, "hf");
    const auto x = ctein::load_npy<float, "b s e", 2, 7, 48>(dir + "gpt2.x.npy");
    const auto padded = ctein::load_npy<float, "b k", 2, 7>(dir + "gpt2.padded.npy"); // 1 = padding

    // ---
    ctein::nn::fused_attention_block<48, 4> attn; // GPT2Config(n_embd=48, n_head=4)
    ctein::nn::load(attn, ctein::safetensors_file(dir + "gpt2.safetensors"), ctein::nn::gpt2_names("h.0.attn."));
    auto out = attn(x, ctein::causal, ctein::key_padding_mask(padded != 0.0f));
    // ---
    return seeds::compare("GPT-2: causal, padded", out, ctein::load_npy<float, "b s e", 2, 7, 48>(dir + "gpt2.out.npy"))
               ? 0
               : 1;
}
