// attention_amx: the prefill's two products on AMX tiles (Intel's Advanced Matrix Extensions,
// Sapphire Rapids and later), for bfloat16 q, k and v packed as for vdpbf16ps (pairs: keys in
// pairs of features, values in pairs of keys, which is the layout AMX reads its second operand
// in). One tile instruction multiplies 16 rows by 32 bfloat16 features into 16 x 16 floats, 16
// times the work of one vdpbf16ps, so the products of a 16-row tile through a key block take a
// fraction of the softmax between them; the softmax stays on AVX-512 (tile_step).
#pragma once

#include "attention_rows.hpp"
#include "attention_tile.hpp"

#include <cstddef>
#include <cstdint>

// g++ names the AMX targets __AMX_TILE__ and __AMX_BF16__, clang 14 __AMXTILE__ and __AMXBF16__
// (with only g++'s spelling, clang builds left AMX out).
#if (defined(__AMX_TILE__) || defined(__AMXTILE__)) && (defined(__AMX_BF16__) || defined(__AMXBF16__)) &&    \
    defined(__AVX512BF16__) && defined(__AVX512F__) && defined(__linux__)
#define CTEIN_ATTENTION_AMX 1
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#else
#define CTEIN_ATTENTION_AMX 0
#endif

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels::attention_detail {

/// Features (or keys) one tile multiply adds up: 32 bfloat16, one 64-byte tile row.
inline constexpr std::size_t amx_depth = 32;

#if CTEIN_ATTENTION_AMX

/// Whether this process may use AMX: Linux hands out the tile registers' state only to a process
/// that asks for it (arch_prctl ARCH_REQ_XCOMP_PERM for XTILEDATA), once; a kernel or a CPU
/// without AMX refuses, and the prefill then runs on vdpbf16ps.
inline bool amx_usable() noexcept {
    static const bool granted = [] {
        constexpr int request_permission = 0x1023; // ARCH_REQ_XCOMP_PERM
        constexpr int tile_data = 18;              // XFEATURE_XTILEDATA
        return syscall(SYS_arch_prctl, request_permission, tile_data) == 0;
    }();
    return granted;
}

/// Whether a prefill call runs its products on AMX: bfloat16 pairs (packed_operands::pairs) and
/// a padded head size of whole tile rows (32 features; other sizes stay on vdpbf16ps).
inline bool amx_products(bool pairs, std::size_t dp) noexcept {
    return pairs && dp % amx_depth == 0 && amx_usable();
}

/// The tile registers configured for the whole of a piece (loading a configuration clears them,
/// so it is done once, not per step), released when the piece ends so that the thread's saved
/// state shrinks back. Every register is 16 rows of 64 bytes: 16 x 16 floats of scores or
/// outputs, 16 x 32 bfloat16 of queries or weights, 16 pairs x 16 of keys or values.
/// Registers 0-3 accumulate, 4 holds the left operand, 5 the right one.
class amx_tiles {
public:
    amx_tiles() noexcept {
        struct alignas(64) {
            std::uint8_t palette = 1, start_row = 0, reserved[14] = {};
            std::uint16_t bytes_per_row[16] = {};
            std::uint8_t rows[16] = {};
        } config;
        for (int t = 0; t < 6; ++t) {
            config.bytes_per_row[t] = 64;
            config.rows[t] = amx_rows;
        }
        _tile_loadconfig(&config);
    }
    amx_tiles(const amx_tiles&) = delete;
    amx_tiles& operator=(const amx_tiles&) = delete;
    ~amx_tiles() { _tile_release(); }
};

/// Tile instructions on registers named by template arguments: the compilers' intrinsics take
/// only literal numbers, and their loads and stores do not tell the compiler that they read or
/// write memory (these do: "memory").
template <int T>
[[gnu::always_inline]] inline void tile_load(const void* from, long stride) noexcept {
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm%c2" ::"r"(from), "r"(stride), "i"(T) : "memory");
}
template <int T>
[[gnu::always_inline]] inline void tile_store(void* to, long stride) noexcept {
    __asm__ volatile("tilestored %%tmm%c2, (%0,%1,1)" ::"r"(to), "r"(stride), "i"(T) : "memory");
}
template <int T>
[[gnu::always_inline]] inline void tile_zero() noexcept {
    __asm__ volatile("tilezero %%tmm%c0" ::"i"(T));
}
/// Accumulator C += A · B (bfloat16 pairs).
template <int C, int A, int B>
[[gnu::always_inline]] inline void tile_multiply() noexcept {
    __asm__ volatile("tdpbf16ps %%tmm%c2, %%tmm%c1, %%tmm%c0" ::"i"(C), "i"(A), "i"(B));
}

/// The q·kᵀ of 16 rows (`q`: rows `dp` floats apart, each holding its dp bfloat16 features) with
/// the first `cols` batches of 16 keys of a packed block (`k`: [dp / 2][block_keys] pairs), as
/// raw dot products (unscaled) into `scores` ([16][block_keys] floats).
template <std::size_t D>
inline void amx_scores(const float* q, std::size_t dp, const void* k, std::size_t cols,
                       float* scores) noexcept {
    if constexpr (D != 0) dp = D;
    const auto* keys = static_cast<const char*>(k);
    const auto q_stride = static_cast<long>(dp * sizeof(float));
    constexpr long k_stride = block_keys * sizeof(std::uint32_t), s_stride = block_keys * sizeof(float);
    unrolled<4>([&](auto c) __attribute__((always_inline)) { tile_zero<c>(); });
    for (std::size_t f = 0; f < dp; f += amx_depth) { // a tile of queries times each column's keys
        tile_load<4>(reinterpret_cast<const char*>(q) + f * sizeof(std::uint16_t), q_stride);
        unrolled<4>([&](auto c) __attribute__((always_inline)) {
            if (c >= cols) return;
            tile_load<5>(keys + f / 2 * k_stride + c * 64, k_stride);
            tile_multiply<c, 4, 5>();
        });
    }
    unrolled<4>([&](auto c) __attribute__((always_inline)) {
        if (c < cols) tile_store<c>(scores + c * 16, s_stride);
    });
}

/// P·V of 16 rows: `o` (rows `dp` floats apart) += the bfloat16 weights of `weights` (rows of
/// amx_weights_row floats, each holding the bfloat16 weights of a span's blocks, as tile_step
/// stores them) times the values of blocks packed one after the other (`v`: [keys / 2][dp]
/// pairs), over the first `keys` keys rounded up to 32 (the weights and values past them must be
/// zeros).
template <std::size_t D>
inline void amx_weighted_values(float* o, std::size_t dp, const float* weights, const void* v,
                                std::size_t keys) noexcept {
    if constexpr (D != 0) dp = D;
    const auto* values = static_cast<const char*>(v);
    const auto stride = static_cast<long>(dp * sizeof(float));
    constexpr long p_stride = amx_weights_row * sizeof(float);
    const std::size_t depth = (keys + amx_depth - 1) / amx_depth;
    for (std::size_t f = 0; f < dp; f += 4 * 16) { // 64 features: the four accumulators
        const std::size_t width = (dp - f) / 16;   // 4, or 2 when dp is an odd multiple of 32
        char* out = reinterpret_cast<char*>(o + f);
        unrolled<4>([&](auto c) __attribute__((always_inline)) {
            if (c < width) tile_load<c>(out + c * 64, stride);
        });
        for (std::size_t j = 0; j < depth; ++j) { // 32 keys' weights times their values
            tile_load<4>(reinterpret_cast<const char*>(weights) + j * 64, p_stride);
            const char* at = values + (j * amx_depth / 2 * dp + f) * sizeof(std::uint32_t);
            unrolled<4>([&](auto c) __attribute__((always_inline)) {
                if (c >= width) return;
                tile_load<5>(at + c * 64, stride);
                tile_multiply<c, 4, 5>();
            });
        }
        unrolled<4>([&](auto c) __attribute__((always_inline)) {
            if (c < width) tile_store<c>(out + c * 64, stride);
        });
    }
}

/// The P·V of a tile over the first `blocks` blocks of a span (prefill_pass): `keys_of(h)` keys
/// of block h, its bfloat16 weights at weight h · block_keys of each row of `weights`. Blocks
/// whose packed values follow one another (in their shared place) take one pass of the outputs
/// through the tile registers; a block packed in a thread's scratch (packed_block) a pass of its
/// own.
template <std::size_t D, std::size_t Span, class Keys>
inline void span_weighted_values(float* o, std::size_t dp, const float* weights, const key_block (&blk)[Span],
                                 std::size_t blocks, Keys keys_of) noexcept {
    if constexpr (D != 0) dp = D;
    const std::size_t block_bytes = block_keys / 2 * dp * sizeof(std::uint32_t);
    for (std::size_t h = 0, end = 0; h < blocks; h = end) {
        std::size_t keys = keys_of(h);
        if (keys == 0) return;
        for (end = h + 1; end < blocks && keys == (end - h) * block_keys && keys_of(end) > 0 &&
                          blk[end].v == static_cast<const char*>(blk[h].v) + (end - h) * block_bytes;
             ++end)
            keys += keys_of(end);
        amx_weighted_values<D>(o, dp, weights + h * block_keys / 2, blk[h].v, keys);
    }
}

#else

inline bool amx_products(bool, std::size_t) noexcept {
    return false;
}

#endif

} // namespace ctein::kernels::attention_detail

#include "detail/quiet_intrinsics_end.hpp"
