// ctein/nn: attention blocks built from ctein's public pieces — nn.Linear, RoPE, a KV cache and
// the attention module of the seeds and of LLaMA, and
// the loading of their PyTorch weights. Include with <ctein/ctein.hpp>.
#pragma once

#include "ctein.hpp"
#include "nn/attention_block.hpp"
#include "nn/fused_attention_block.hpp"
#include "nn/kv_cache.hpp"
#include "nn/linear.hpp"
#include "nn/load.hpp"
#include "nn/rotary.hpp"
