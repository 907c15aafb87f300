// The fused attention kernel for each head size, compiled once for every test file and example
// that runs it (the 16-bit decode steps: attention_16bit_decode_instances.cpp, built beside it).
#define CTEIN_ATTENTION_HEAD_SIZE_INSTANCES
#include <ctein/kernels/attention_instances.hpp>
