// The attention decode's steps over bfloat16 and float16 keys and values, compiled beside
// attention_instances.cpp so that the two halves of the kernel build in parallel.
#define CTEIN_ATTENTION_16BIT_DECODE_INSTANCES
#include <ctein/kernels/attention_instances.hpp>
