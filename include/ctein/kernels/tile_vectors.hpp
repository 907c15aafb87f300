// tile_vectors: a batch of floats as the compiler's own vector type, for lane shuffles written
// with __builtin_shufflevector (the attention kernel's folds and maxima, the decode's split rows).
#pragma once

#include "../core/simd_headers.hpp"

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels::attention_detail::tile_vectors {

using batch = xsimd::batch<float>;
typedef float floats __attribute__((vector_size(batch::size * sizeof(float))));

/// A batch as the compiler's vector of floats, and back, register to register: copied with
/// memcpy, g++ 12 moved batches through the stack in 16-byte halves and reloaded them whole, each
/// reload waiting on both stores (on AVX2 a 16-bit decode's q·kᵀ took 1.2 x as long).
[[gnu::always_inline]] inline floats as_floats(batch x) noexcept {
    return static_cast<floats>(static_cast<batch::register_type>(x));
}
[[gnu::always_inline]] inline batch as_batch(floats x) noexcept {
    return batch(static_cast<batch::register_type>(x));
}

} // namespace ctein::kernels::attention_detail::tile_vectors

#include "detail/quiet_intrinsics_end.hpp"
