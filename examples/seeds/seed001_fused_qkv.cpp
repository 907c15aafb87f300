// Seed 001's fused-QKV module: one W_qkv [3 E, E] split by "b s (three h d) -> three b h s d"
// with no copy, a [B, 1, T] keep mask, and the attention weights returned beside the output.
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

#include "check.hpp"

int main(int argc, char** argv) {
    const std::string dir = seeds::data_dir(argc, argv, "modules");
    const auto x = ctein::load_npy<float, "b s e", 3, 5, 48>(dir + "fused.x.npy");
    const auto keep = ctein::load_npy<float, "b 1 k", 3, 1, 5>(dir + "fused.keep.npy");

    // ---
    ctein::nn::fused_attention_block<48, 6> mha; // W_qkv: nn.Linear(48, 144), W_o: nn.Linear(48, 48)
    ctein::nn::load(mha, ctein::npy_directory(dir, "fused."),
                    {ctein::nn::torch_linear("W_qkv"), ctein::nn::torch_linear("W_o")});
    auto [out, weights] = mha(x, ctein::mask(keep != 0.0f), ctein::with_weights);
    // ---
    const bool out_matches = seeds::compare("seed 001: fused QKV", out,
                                            ctein::load_npy<float, "b s e", 3, 5, 48>(dir + "fused.out.npy"));
    const bool weights_match = seeds::compare("seed 001: its attention weights", weights,
                                              ctein::load_npy<float, "b h q k", 3, 6, 5, 5>(dir + "fused.weights.npy"));
    return out_matches && weights_match ? 0 : 1;
}
