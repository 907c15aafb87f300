// attention_instances: the fused attention kernel compiled once per program instead of once in
// every file that calls it (it is most of such a file's build: 25-35 s of g++ -O2 or -O3). Include
// this header in each file that uses attention; in exactly one of them, define
// CTEIN_ATTENTION_INSTANCES first, and that file compiles the kernel for all the others:
//
//     // attention_kernel.cpp
//     #define CTEIN_ATTENTION_INSTANCES
//     #include <ctein/kernels/attention_instances.hpp>
//
// Or compile it in two files that build in parallel: one defines
// CTEIN_ATTENTION_HEAD_SIZE_INSTANCES (the kernel for each head size, with its fp32 decode), the
// other CTEIN_ATTENTION_16BIT_DECODE_INSTANCES (the decode's steps over bfloat16 and float16 keys
// and values, about half of an unoptimised build's kernel).
//
// Without this header every file compiles its own copy, as header-only code does.
#pragma once

#include "attention.hpp"

#ifdef CTEIN_ATTENTION_INSTANCES
#define CTEIN_ATTENTION_HEAD_SIZE_INSTANCES
#define CTEIN_ATTENTION_16BIT_DECODE_INSTANCES
#endif

namespace ctein::kernels::attention_detail {
// Declared first: the head sizes' decode calls them.
#ifdef CTEIN_ATTENTION_16BIT_DECODE_INSTANCES
template void row_step<0, bfloat16>(std::size_t, const attention_problem&, row_set&, std::size_t,
                                    const key_block&) noexcept;
template void row_step<0, float16>(std::size_t, const attention_problem&, row_set&, std::size_t,
                                   const key_block&) noexcept;
#else
extern template void row_step<0, bfloat16>(std::size_t, const attention_problem&, row_set&, std::size_t,
                                           const key_block&) noexcept;
extern template void row_step<0, float16>(std::size_t, const attention_problem&, row_set&, std::size_t,
                                          const key_block&) noexcept;
#endif

#ifdef CTEIN_ATTENTION_HEAD_SIZE_INSTANCES
#define CTEIN_ATTENTION_INSTANCE template
#else
#define CTEIN_ATTENTION_INSTANCE extern template
#endif
// Every head size attention() dispatches to (0: the generic kernel).
#if CTEIN_ATTENTION_SPECIALISED_HEAD_SIZES
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<32>(const attention_problem&);
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<64>(const attention_problem&);
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<80>(const attention_problem&);
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<128>(const attention_problem&);
#endif
CTEIN_ATTENTION_INSTANCE void attention_for_head_size<0>(const attention_problem&);
#undef CTEIN_ATTENTION_INSTANCE
} // namespace ctein::kernels::attention_detail
