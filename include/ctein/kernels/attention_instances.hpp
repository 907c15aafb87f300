// attention_instances: the fused attention kernel compiled once per program instead of once in
// every file that calls it (it is most of such a file's build: 25-35 s of g++ -O2 or -O3). Include
// this header in each file that uses attention; in exactly one of them, define
// CTEIN_ATTENTION_INSTANCES first, and that file compiles the kernel for all the others:
//
//     // attention_kernel.cpp
//     #define CTEIN_ATTENTION_INSTANCES
//     #include <ctein/kernels/attention_instances.hpp>
//
// Without this header every file compiles its own copy, as header-only code does.
#pragma once

#include "attention.hpp"

#ifdef CTEIN_ATTENTION_INSTANCES
#define CTEIN_ATTENTION_INSTANCE template
#else
#define CTEIN_ATTENTION_INSTANCE extern template
#endif

namespace ctein::kernels::attention_detail {
// Every head size attention() dispatches to (0: the generic kernel).
#if CTEIN_ATTENTION_SPECIALISED_HEAD_SIZES
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<32>(const attention_problem&);
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<64>(const attention_problem&);
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<80>(const attention_problem&);
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<128>(const attention_problem&);
#endif
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<0>(const attention_problem&);
} // namespace ctein::kernels::attention_detail

#undef CTEIN_ATTENTION_INSTANCE
