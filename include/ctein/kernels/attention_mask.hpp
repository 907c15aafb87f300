// attention_mask: an explicit attention mask (keep/ignore booleans or additive floats, broadcast
// by zero strides) turned into one tile's additive bias in log2 units, read straight from the
// caller's mask: masks are never materialised at [B, H, Tq, Tk].
#pragma once

#include "attention_rows.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels::attention_detail {

namespace mask_vectors {
// A batch's worth of mask bytes and the floats they convert to, in the vector extensions g++ and
// clang share (xsimd 8.1 cannot widen bytes to floats).
typedef std::uint8_t bytes __attribute__((vector_size(lanes)));
typedef float floats __attribute__((vector_size(lanes * sizeof(float))));
} // namespace mask_vectors

/// The bias of a key: 0 when the mask keeps it, `masked_score` when it leaves it out.
inline float bool_bias(bool value, mask_kind kind) noexcept {
    return value == (kind == mask_kind::keep) ? 0.0f : masked_score;
}

/// An additive mask value in log2 units, never below the masked score (-inf becomes it). Values
/// below about -3.5e29 (-inf, the float minimum) leave the key out: their weight is exactly 0,
/// and a row with no other key gives zeros.
inline float additive_bias(float value) noexcept {
    return std::max(value * log2e, masked_score);
}

/// Writes row `bias` (`keys` floats, then zeros up to a block) from the mask row at `from`, whose
/// keys are `step` elements apart.
inline void mask_row_bias(const explicit_mask& mask, const void* from, std::ptrdiff_t step, std::size_t keys,
                          float* bias) noexcept {
    std::size_t j = 0;
    if (mask.kind == mask_kind::additive) {
        const auto* values = static_cast<const float*>(from);
        if (step == 1) {
            for (; j + lanes <= keys; j += lanes)
                xsimd::max(batch::load_unaligned(values + j) * batch(log2e), batch(masked_score))
                    .store_aligned(bias + j);
        }
        for (; j < keys; ++j) bias[j] = additive_bias(values[static_cast<std::ptrdiff_t>(j) * step]);
    } else {
        const auto* values = static_cast<const bool*>(from);
        if (step == 1) {
            // Booleans are bytes 0 or 1: the bias is their value times the bias of a 1, plus
            // that of a 0.
            const float one = bool_bias(true, mask.kind), zero = bool_bias(false, mask.kind);
            for (; j + lanes <= keys; j += lanes) {
                mask_vectors::bytes raw;
                std::memcpy(&raw, values + j, sizeof raw);
                const auto as_floats = __builtin_convertvector(raw, mask_vectors::floats);
                const mask_vectors::floats b = as_floats * (one - zero) + zero;
                std::memcpy(bias + j, &b, sizeof b);
            }
        }
        for (; j < keys; ++j) bias[j] = bool_bias(values[static_cast<std::ptrdiff_t>(j) * step], mask.kind);
    }
    std::fill(bias + keys, bias + block_keys, 0.0f);
}

/// Fills `s.bias` for the tile of rows [first, first + rows) and keys [kb, kb + keys): one row
/// of `block_keys` floats per tile row. Rows that read the same mask row (a mask broadcast over
/// heads or queries) share its conversion.
inline void tile_bias(const attention_problem& p, const row_set& s, std::size_t first, std::size_t rows,
                      std::size_t kb, std::size_t keys) noexcept {
    const explicit_mask& mask = p.mask;
    const auto* base = static_cast<const unsigned char*>(mask.data);
    const std::size_t element = mask.kind == mask_kind::additive ? sizeof(float) : sizeof(bool);
    const unsigned char* previous = nullptr;
    for (std::size_t r = 0; r < rows; ++r) {
        float* bias = s.bias + r * block_keys;
        if (!s.real(first + r)) {
            std::fill(bias, bias + block_keys, 0.0f);
            previous = nullptr;
            continue;
        }
        const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(s.batch_index) * mask.strides[0] +
                                      static_cast<std::ptrdiff_t>(s.head[first + r]) * mask.strides[1] +
                                      static_cast<std::ptrdiff_t>(s.query[first + r]) * mask.strides[2] +
                                      static_cast<std::ptrdiff_t>(kb) * mask.strides[3];
        const unsigned char* row = base + offset * static_cast<std::ptrdiff_t>(element);
        if (row == previous) {
            std::copy(bias - block_keys, bias, bias);
            continue;
        }
        mask_row_bias(mask, row, mask.strides[3], keys, bias);
        previous = row;
    }
}

} // namespace ctein::kernels::attention_detail

#include "detail/quiet_intrinsics_end.hpp"
