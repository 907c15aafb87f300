// attention: the fused, flash-style attention kernel behind ctein::attention. Queries go through
// the keys in register tiles with an online softmax (no [queries, keys] buffer); a call with a few
// queries per head splits the keys across threads instead (attention_decode.hpp).
#pragma once

#include "attention_decode.hpp"
#include "attention_prefill.hpp"
#include "attention_problem.hpp"
#include "attention_rows.hpp"

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <type_traits>

#include "detail/quiet_intrinsics_begin.hpp"

// Head sizes 32, 64, 80 and 128 have their own compiled kernels in optimised builds only. They
// exist for speed; an unoptimised build (debug, sanitizers) runs the generic kernel for every
// head size, which compiles in a fifth of the time (minutes less under sanitizers).
#if defined(__OPTIMIZE__)
#define CTEIN_ATTENTION_SPECIALISED_HEAD_SIZES 1
#else
#define CTEIN_ATTENTION_SPECIALISED_HEAD_SIZES 0
#endif

namespace ctein::kernels {

namespace attention_detail {
template <std::size_t D>
void attention_for_head_size(const attention_problem& p) {
    const std::size_t dp = D != 0 ? D : padded_head_size(p.head_size);
    if (p.weights == nullptr && p.queries <= decode_queries)
        decode<D>(p, dp);
    else
        prefill<D>(p, dp);
}

/// Calls f(std::integral_constant<std::size_t, D>) for the kernel compiled for `head_size`: D is the
/// head size itself for 32, 64, 80 and 128 in optimised builds, 0 (the generic kernel) otherwise.
template <class F>
void with_compiled_head_size(std::size_t head_size, F&& f) {
#if CTEIN_ATTENTION_SPECIALISED_HEAD_SIZES
    switch (head_size) {
    case 32:
        return f(std::integral_constant<std::size_t, 32>{});
    case 64:
        return f(std::integral_constant<std::size_t, 64>{});
    case 80:
        return f(std::integral_constant<std::size_t, 80>{});
    case 128:
        return f(std::integral_constant<std::size_t, 128>{});
    default:
        break;
    }
#else
    static_cast<void>(head_size);
#endif
    f(std::integral_constant<std::size_t, 0>{});
}

/// A call without keys: every row is fully masked, so its output is zeros.
inline void zero_outputs(const attention_problem& p) noexcept {
    for (std::size_t b = 0; b < p.batch; ++b)
        for (std::size_t h = 0; h < p.query_heads; ++h)
            for (std::size_t i = 0; i < p.queries; ++i) {
                float* out = p.out + static_cast<std::ptrdiff_t>(b) * p.out_strides.batch +
                             static_cast<std::ptrdiff_t>(h) * p.out_strides.head +
                             static_cast<std::ptrdiff_t>(i) * p.out_strides.token;
                std::fill(out, out + p.head_size, 0.0f);
            }
}
} // namespace attention_detail

/// Computes `p.out` (and `p.weights` when given) for the attention call `p`: per batch and query
/// head h, softmax(q·kᵀ·scale + masks)·v over key/value head h / (query_heads / kv_heads), with
/// dropout on the normalised weights. Rows whose keys are all masked give zeros (additive mask
/// values below about -3.5e29, -inf and the float minimum included, mask their key). Results do
/// not depend on `p.threads`. Head sizes 32, 64, 80 and 128 have their own compiled kernels in
/// optimised builds; others run a generic one (padded to whole vectors). Needs kv_heads dividing
/// query_heads.
///
///     ctein::kernels::attention_problem p;
///     p.queries = p.keys = 128; p.head_size = 64;
///     p.q = q; p.k = k; p.v = v; p.out = out;            // [1, 1, 128, 64], contiguous
///     p.q_strides = p.k_strides = p.v_strides = p.out_strides = {128 * 64, 128 * 64, 64};
///     p.scale = 0.125f; p.causal = true;
///     ctein::kernels::attention(p);
///
/// A template only so that the kernel is compiled in the files that call it: as a plain inline
/// function, every file including ctein.hpp instantiated it (1.3-1.7 s of each one's compile).
template <class Problem = attention_problem>
requires std::same_as<Problem, attention_problem>
void attention(const Problem& p) {
    if (p.batch == 0 || p.query_heads == 0 || p.queries == 0 || p.head_size == 0) return;
    if (p.keys == 0) {
        attention_detail::zero_outputs(p);
        return;
    }
    attention_detail::with_compiled_head_size(
        p.head_size, [&](auto d) { attention_detail::attention_for_head_size<d>(p); });
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
