// Seed 003's GroupQueryAttention: 8 query heads sharing 2 key/value heads (and 1: multi-query),
// causal with a [B, T] padding mask (True = padded). Each key/value head is read once per group of
// query heads; nothing is repeated into memory as repeat_interleave does.
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

#include "check.hpp"

int main(int argc, char** argv) {
    const std::string dir = seeds::data_dir(argc, argv, "modules");
    const auto x = ctein::load_npy<float, "b s e", 2, 7, 64>(dir + "gqa.x.npy");
    const auto padded = ctein::load_npy<float, "b k", 2, 7>(dir + "gqa.padded.npy");
    const auto names = ctein::nn::projections("W_q", "W_k", "W_v", "out_proj");

    // ---
    ctein::nn::attention_block<64, 8, 2> gqa; // GroupQueryAttention(num_head=8, d_model=64, num_query_groups=2)
    ctein::nn::load(gqa, ctein::npy_directory(dir, "gqa2."), names);
    auto out = gqa(x, ctein::causal, ctein::key_padding_mask(padded != 0.0f));

    ctein::nn::attention_block<64, 8, 1> mqa; // one key/value head: multi-query
    ctein::nn::load(mqa, ctein::npy_directory(dir, "gqa1."), names);
    auto out_mqa = mqa(x, ctein::causal, ctein::key_padding_mask(padded != 0.0f));
    // ---
    const bool gqa_matches = seeds::compare("seed 003: grouped-query (8:2)", out,
                                            ctein::load_npy<float, "b s e", 2, 7, 64>(dir + "gqa2.out.npy"));
    const bool mqa_matches = seeds::compare("seed 003: multi-query (8:1)", out_mqa,
                                            ctein::load_npy<float, "b s e", 2, 7, 64>(dir + "gqa1.out.npy"));
    return gqa_matches && mqa_matches ? 0 : 1;
}
