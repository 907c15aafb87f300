// Seed 004's MultiHeadAttention with query, key and value from three inputs: cross-attention of 5
// queries over 7 keys, a [B, 1, 1, Tk] padding mask filled with -1e9.
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

#include "check.hpp"

int main(int argc, char** argv) {
    const std::string dir = seeds::data_dir(argc, argv, "modules");
    const auto query = ctein::load_npy<float, "b s e", 2, 5, 64>(dir + "seed004.query.npy");
    const auto key = ctein::load_npy<float, "b s e", 2, 7, 64>(dir + "seed004.key.npy");
    const auto value = ctein::load_npy<float, "b s e", 2, 7, 64>(dir + "seed004.value.npy");
    const auto keep = ctein::load_npy<float, "b 1 1 k", 2, 1, 1, 7>(dir + "seed004.keep.npy");

    // ---
    ctein::nn::attention_block<64, 8> mha;
    ctein::nn::load(mha, ctein::npy_directory(dir, "seed004."), ctein::nn::projections("w_q", "w_k", "w_v", "w_o"));
    auto out = mha(query, key, value, ctein::mask(keep != 0.0f)); // masked_fill(mask == 0, -1e9)
    // ---
    return seeds::compare("seed 004: cross-attention", out,
                          ctein::load_npy<float, "b s e", 2, 5, 64>(dir + "seed004.out.npy"))
               ? 0
               : 1;
}
