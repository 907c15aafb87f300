// The fused attention kernel, compiled once for every test file and example that runs it.
#define CTEIN_ATTENTION_INSTANCES
#include <ctein/kernels/attention_instances.hpp>
