// load: a PyTorch state_dict into ctein's layers and blocks, by the names PyTorch writes —
// nn.Linear's `<name>.weight` [out, in], GPT-2's Conv1D (`c_attn`, `c_proj`, stored [in, out]),
// nn.MultiheadAttention's `in_proj_weight` — from a .safetensors file or a directory of .npy files.
#pragma once

#include "../core/error.hpp"
#include "../expr/eval.hpp"
#include "../expr/rearrange.hpp"
#include "../expr/tensor.hpp"
#include "../io/npy.hpp" // ctein::file_error, ctein::npy_directory
#include "attention_block.hpp"
#include "fused_attention_block.hpp"
#include "linear.hpp"

#include <cstddef>
#include <string>
#include <utility>

namespace ctein::nn {

/// How a file stores a projection's weight: nn.Linear's [out, in], or [in, out] as GPT-2's Conv1D.
enum class weight_layout { out_in, in_out };

/// Where one projection's parameters are in a state_dict.
struct linear_names {
    std::string weight;
    std::string bias;
    weight_layout layout = weight_layout::out_in;
};

/// nn.Linear `name`: `name.weight` [out, in] and `name.bias`.
inline linear_names torch_linear(const std::string& name) { return {name + ".weight", name + ".bias"}; }
/// GPT-2's Conv1D `name`: `name.weight` [in, out] and `name.bias`.
inline linear_names conv1d(const std::string& name) {
    return {name + ".weight", name + ".bias", weight_layout::in_out};
}

/// A state_dict: ctein::safetensors_file, ctein::npy_directory, or anything with their two members.
template <class S>
concept weight_source = requires(const S& source, const std::string& name) {
    { source.contains(name) } -> std::convertible_to<bool>;
    source.template load<float, "o i", 1, 1>(name);
};

/// Reads `layer`'s weight (and bias) from `source`. A missing tensor, or one of another shape or
/// dtype, throws ctein::file_error naming it; a bias in the file for a layer declared without one
/// throws too, rather than be left out of the sums unseen.
template <weight_source Source, std::size_t In, std::size_t Out, bool Bias, fixed_string Name>
void load(linear<In, Out, Bias, Name>& layer, const Source& source, const linear_names& names) {
    if (names.layout == weight_layout::out_in) {
        layer.weight() = source.template load<float, "o i", Out, In>(names.weight);
    } else {
        const auto stored = source.template load<float, "i o", In, Out>(names.weight);
        assign(layer.weight(), rearrange<"i o -> o i">(stored));
    }
    if constexpr (Bias) {
        layer.bias() = source.template load<float, "o", Out>(names.bias);
    } else if (source.contains(names.bias)) {
        throw file_error("tensor " + names.bias + " is in the weights, and the layer " + names.weight +
                         " belongs to was declared without a bias (Bias = false)");
    }
}

/// Where an attention block's four projections are in a state_dict.
struct attention_names {
    linear_names q, k, v, o;
};
/// Four nn.Linear (seeds 000-004: `{"W_q", "W_k", "W_v", "W_o"}`), with `prefix` before each
/// (`"model.layers.0.self_attn."`).
inline attention_names projections(const std::string& q, const std::string& k, const std::string& v,
                                   const std::string& o, const std::string& prefix = {}) {
    return {torch_linear(prefix + q), torch_linear(prefix + k), torch_linear(prefix + v), torch_linear(prefix + o)};
}
/// Hugging Face's LLaMA (and Mistral, Qwen2): q_proj, k_proj, v_proj, o_proj.
inline attention_names llama_names(const std::string& prefix = {}) {
    return projections("q_proj", "k_proj", "v_proj", "o_proj", prefix);
}

/// Where a fused-QKV block's two projections are in a state_dict.
struct fused_attention_names {
    linear_names qkv, o;
};
/// torch.nn.MultiheadAttention: in_proj_weight, in_proj_bias, out_proj.
inline fused_attention_names multihead_names(const std::string& prefix = {}) {
    return {{prefix + "in_proj_weight", prefix + "in_proj_bias"}, torch_linear(prefix + "out_proj")};
}
/// Hugging Face's GPT-2: the Conv1D c_attn and c_proj.
inline fused_attention_names gpt2_names(const std::string& prefix = {}) {
    return {conv1d(prefix + "c_attn"), conv1d(prefix + "c_proj")};
}

/// Reads an attention block's projections from `source`.
///
///     ctein::nn::attention_block<2048, 32, 8, false, true> attention(4096);
///     ctein::nn::load(attention, ctein::safetensors_file("model.safetensors"),
///                     ctein::nn::llama_names("model.layers.0.self_attn."));
template <weight_source Source, std::size_t E, std::size_t H, std::size_t Hkv, bool Bias, bool Rope>
void load(attention_block<E, H, Hkv, Bias, Rope>& block, const Source& source, const attention_names& names) {
    load(block.q_proj, source, names.q);
    load(block.k_proj, source, names.k);
    load(block.v_proj, source, names.v);
    load(block.o_proj, source, names.o);
}

/// Reads a fused-QKV block's projections from `source`.
template <weight_source Source, std::size_t E, std::size_t H, std::size_t Hkv, bool Bias>
void load(fused_attention_block<E, H, Hkv, Bias>& block, const Source& source, const fused_attention_names& names) {
    load(block.qkv_proj, source, names.qkv);
    load(block.o_proj, source, names.o);
}

} // namespace ctein::nn
