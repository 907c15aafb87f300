// Attention blocks from <ctein/nn.hpp>: seed 000's multi-head attention with weights loaded from
// .npy files as PyTorch would save them, and a LLaMA-sized grouped-query block with RoPE and a KV
// cache, prefilled with a prompt and then fed one token; the token's output is checked against a
// full causal pass over prompt and token.
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>
#include <ctein/kernels/attention_instances.hpp> // the kernel, compiled once for the examples

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace {
template <class T>
void fill(T& t, float step, float scale) {
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = scale * std::sin(static_cast<float>(i) * step);
}
} // namespace

int main() {
    // a directory of this run's own: two runs at once (make demo beside make test) would
    // otherwise write and remove each other's file
    const std::filesystem::path own =
        std::filesystem::temp_directory_path() / ("ctein-example-" + std::to_string(::getpid()));
    std::filesystem::create_directories(own);
    const std::string dir = own.string();
    constexpr std::size_t batch = 1;

    // weights as a PyTorch user would have saved them: numpy.save(w_q.weight), ...
    ctein::tensor<float, "o i", 512, 512> saved;
    fill(saved, 0.013f, 0.05f);
    ctein::save_npy(dir + "/w_q.weight.npy", saved);
    ctein::tensor<float, "b s e", batch, 10, 512> x;
    fill(x, 0.29f, 1.0f);
    ctein::tensor<float, "b 1 q k", batch, 1, 10, 10> mask; // 1 = attend, the seeds' float mask
    for (std::size_t i = 0; i < 10; ++i)
        for (std::size_t j = 0; j < 10; ++j) mask(0, 0, i, j) = j <= i ? 1.0f : 0.0f;

    // --- README.md's "Attention blocks" snippets, as written there
    ctein::nn::attention_block<512, 8> mha; // w_q, w_k, w_v, w_o: nn.Linear(512, 512)
    mha.q_proj.weight() = ctein::load_npy<float, "o i", 512, 512>(dir + "/w_q.weight.npy"); // and so on
    auto y = mha(x, ctein::ignore_mask(mask == 0.0f)); // PyTorch: mha(x, x, x, mask), masked_fill(mask == 0)
    // ---
    std::filesystem::remove_all(own);
    std::printf("seed 000 MHA: x %s -> y %s\n", ctein::describe(x).c_str(), ctein::describe(y).c_str());

    ctein::tensor<float, "b s e", batch, 17, 2048> tokens;
    fill(tokens, 0.17f, 1.0f);
    const auto prompt = ctein::slice<"s">(tokens, 0, 16);
    const auto token = ctein::slice<"s">(tokens, 16, 17);

    // ---
    ctein::nn::attention_block<2048, 32, 8, false, true> attn(4096); // 32 query heads, 8 kv heads
    decltype(attn)::cache_type cache(batch, 4096);
    auto first = attn(prompt, cache); // prefill
    auto next = attn(token, cache);   // one token, attends to all before
    // ---
    std::printf("LLaMA-style block: prompt %s, then one token %s; cache of %zu tokens\n",
                ctein::describe(first).c_str(), ctein::describe(next).c_str(), cache.length());

    // weights were zeros until now: give the block some, and compare a decode step with a full pass
    fill(attn.q_proj.weight(), 0.011f, 0.1f);
    fill(attn.k_proj.weight(), 0.007f, 0.1f);
    fill(attn.v_proj.weight(), 0.005f, 0.1f);
    fill(attn.o_proj.weight(), 0.003f, 0.1f);
    cache.clear();
    attn(prompt, cache);
    const auto step = attn(token, cache);
    const auto full = attn(tokens, ctein::causal);
    float worst = 0.0f, largest = 0.0f;
    for (std::size_t e = 0; e < 2048; ++e) {
        worst = std::max(worst, std::abs(step(0, 0, e) - full(0, 16, e)));
        largest = std::max(largest, std::abs(full(0, 16, e)));
    }
    const bool matches = largest > 0.0f && worst <= 1e-4f * largest; // relative: the values are small
    std::printf(
        "decode step against the full causal pass: largest difference %.2g (of values up to %.2g): %s\n",
        worst, largest, matches ? "matches" : "DIFFERS");
    return matches ? 0 : 1;
}
