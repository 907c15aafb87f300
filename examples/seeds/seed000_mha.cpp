// Seed 000's MultiHeadAttention (nn.Linear w_q, w_k, w_v, w_o with bias; a [B, 1, T, T] float mask
// read as masked_fill(mask == 0, -1e9)), its weights loaded from the .npy files PyTorch saved.
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

#include "check.hpp"

int main(int argc, char** argv) {
    const std::string dir = seeds::data_dir(argc, argv, "modules");
    const auto x = ctein::load_npy<float, "b s e", 2, 9, 64>(dir + "mha.x.npy");
    const auto mask = ctein::load_npy<float, "b 1 q k", 2, 1, 9, 9>(dir + "mha.mask.npy");

    // ---
    ctein::nn::attention_block<64, 4> mha; // MultiHeadAttention(d_model=64, num_heads=4)
    ctein::nn::load(mha, ctein::npy_directory(dir, "mha."), ctein::nn::projections("w_q", "w_k", "w_v", "w_o"));
    auto out = mha(x, ctein::ignore_mask(mask == 0.0f)); // mha(x, x, x, mask)
    // ---
    return seeds::compare("seed 000: multi-head attention", out,
                          ctein::load_npy<float, "b s e", 2, 9, 64>(dir + "mha.out.npy"))
               ? 0
               : 1;
}
