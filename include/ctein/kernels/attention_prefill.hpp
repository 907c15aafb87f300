// attention_prefill: the fused attention kernel for many queries. K is packed transposed in blocks
// of block_keys keys, each block once per call, by the first piece that needs it; each piece of
// work takes a tile of queries of one key/value head, for every query head of its group, through
// the key blocks it sees, so a block is read once for the whole group while it is in cache.
#pragma once

#include "attention_amx.hpp"
#include "attention_dropout.hpp"
#include "attention_mask.hpp"
#include "attention_rows.hpp"
#include "attention_tile.hpp"
#include "head_rooms.hpp"
#include "phase_clock.hpp"
#include "thread_pool.hpp"
#include "transpose.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>
#include <utility>
#include <vector>

#if __has_include(<unistd.h>) // sysconf: the caches' sizes (cache_bytes)
#include <unistd.h>
#endif

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels::attention_detail {

/// Query positions per piece of work, so that a piece has 32 tiles (of all the query heads of its
/// group): the first tile to reach a key block reads it from L3 once keys outgrow L2 (measured:
/// 8 tiles per block lose 10 % at d = 128 and 2048 keys, 32 tiles 2 %); later tiles find it in
/// L2. At least 8 tiles per head.
inline std::size_t prefill_queries(std::size_t group) noexcept {
    return tile_rows * std::max<std::size_t>(8, (32 + group - 1) / group);
}

/// Uninitialised 64-byte aligned floats for one call (every element is written before use).
class call_buffer {
public:
    call_buffer() noexcept = default;
    explicit call_buffer(std::size_t count)
        : data_(count ? static_cast<float*>(::operator new (count * sizeof(float), std::align_val_t{64}))
                      : nullptr)
        , count_(count) {}
    call_buffer(call_buffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr))
        , count_(std::exchange(other.count_, 0)) {}
    call_buffer& operator=(call_buffer&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        return *this;
    }
    ~call_buffer() {
        if (data_) ::operator delete (data_, std::align_val_t{64});
    }
    [[nodiscard]] float* data() const noexcept { return data_; }
    [[nodiscard]] std::size_t size() const noexcept { return count_; }

private:
    float* data_ = nullptr;
    std::size_t count_ = 0;
};

/// Packed keys (and values) kept between calls up to this size: a new buffer of megabytes at every
/// call cost its page faults again (measured at T = 2048, H = 12, d = 64: about 2 % of a full
/// prefill, 5 % of a causal one; packed values of their own, 1.007-1.009 x at T = 2048 and 4096 in
/// bfloat16); a larger buffer is freed when its call ends.
inline constexpr std::size_t kept_packing_bytes = std::size_t{64} << 20;

/// Space for `count` floats of packed keys and values: the calling thread's buffer, kept for its
/// next call when it is at most kept_packing_bytes. (A thread runs one prefill at a time: the
/// pool's workers never call it, and a call returns before its thread can make another.)
class kept_packing_buffer {
public:
    explicit kept_packing_buffer(std::size_t count)
        : kept_(kept()) {
        if (kept_.size() < count) kept_ = call_buffer(count);
    }
    kept_packing_buffer(const kept_packing_buffer&) = delete;
    kept_packing_buffer& operator=(const kept_packing_buffer&) = delete;
    ~kept_packing_buffer() {
        if (kept_.size() * sizeof(float) > kept_packing_bytes) kept_ = call_buffer();
    }
    [[nodiscard]] float* data() const noexcept { return kept_.data(); }

private:
    static call_buffer& kept() {
        thread_local call_buffer buffer;
        return buffer;
    }
    call_buffer& kept_;
};

/// Whether V is read in place: rows of whole batches, each starting on a cache line (rows that
/// straddle lines made the prefill 15 % slower at d = 128, measured).
inline bool values_in_place(const attention_problem& p, std::size_t dp) noexcept {
    const auto line = static_cast<std::ptrdiff_t>(64 / sizeof(float));
    return p.kv_type == element_type::f32 && p.head_size == dp &&
           reinterpret_cast<std::uintptr_t>(p.v) % 64 == 0 && p.v_strides.batch % line == 0 &&
           p.v_strides.head % line == 0 && p.v_strides.token % line == 0;
}

/// K and, unless V can be read in place, V as the prefill reads them: each key block packed once,
/// by the first piece that needs it (packed_block), in the room its head holds (head_rooms).
struct packed_operands {
    std::size_t dp = 0;
    std::size_t blocks = 0; ///< key blocks per head
    /// The packed keys, [room][block][dp][block_keys] (pairs: [dp / 2][block_keys] pairs), then
    /// the packed values (v)
    kept_packing_buffer packed;
    /// In `packed` after the keys: [room][key][dp] (pairs: [room][block][block_keys / 2][dp] pairs
    /// of keys), or null: V is read in place
    float* v = nullptr;
    /// Keys packed as bfloat16 pairs of features, values as pairs of keys (bf16_dot_products).
    bool pairs = false;
    /// Pairs multiplied on AMX tiles (attention_amx.hpp).
    bool amx = false;
    /// Per key block of each (batch, kv head): unpacked, being packed, or packed.
    std::unique_ptr<std::atomic<unsigned char>[]> state;
    /// The room of `packed` each (batch, kv head) holds while its pieces run (a piece enters it
    /// first: head_room_scope); rooms come and go while the packed layout stays.
    mutable head_rooms rooms;

    /// `rooms_count` rooms, lent to heads of `pieces` pieces each: as many as the threads that run
    /// pieces at once, or the heads if fewer (head_rooms).
    packed_operands(const attention_problem& p, std::size_t padded, std::size_t rooms_count,
                    std::size_t pieces)
        : dp(padded)
        , blocks(key_blocks(p))
        , packed(rooms_count * (blocks * dp * block_keys + values_per_room(p, padded)))
        , pairs(packs_pairs(p))
        , amx(amx_products(pairs, padded))
        , state(new std::atomic<unsigned char>[p.batch * p.kv_heads * blocks]())
        , rooms(p.batch * p.kv_heads, pieces, rooms_count) {
        if (values_per_room(p, padded) > 0) v = packed.data() + rooms_count * blocks * dp * block_keys;
    }

    /// Whether keys and values are packed in bfloat16 pairs (the weights path's steps read floats).
    static bool packs_pairs(const attention_problem& p) noexcept {
        return bf16_dot_products(p) && p.weights == nullptr;
    }

    /// Floats of packed values a room holds: none when V is read in place.
    static std::size_t values_per_room(const attention_problem& p, std::size_t padded) noexcept {
        if (values_in_place(p, padded)) return 0;
        // a pair of bfloat16 values takes a float's bytes
        return (packs_pairs(p) ? key_blocks(p) * block_keys / 2 : p.keys) * padded;
    }

    static std::size_t key_blocks(const attention_problem& p) noexcept {
        return (p.keys + block_keys - 1) / block_keys;
    }

    /// Bytes of one packed key block: dp x block_keys floats, or as many bfloat16 in pairs.
    [[nodiscard]] std::size_t key_block_bytes() const noexcept {
        return dp * block_keys * (pairs ? sizeof(std::uint16_t) : sizeof(float));
    }

    [[nodiscard]] float* k_block(const attention_problem& p, std::size_t b, std::size_t kh,
                                 std::size_t block) const noexcept {
        return packed.data() + (rooms.of(b * p.kv_heads + kh) * blocks + block) * dp * block_keys;
    }

    /// The values of key block `block` as the steps read them (packed; not in place).
    [[nodiscard]] float* v_block(const attention_problem& p, std::size_t b, std::size_t kh,
                                 std::size_t block) const noexcept {
        const std::size_t room = rooms.of(b * p.kv_heads + kh);
        return pairs ? v + (room * blocks + block) * block_keys / 2 * dp
                     : v + (room * p.keys + block * block_keys) * dp;
    }

    /// The packing state of key block `block` of (b, kh).
    [[nodiscard]] std::atomic<unsigned char>& state_of(const attention_problem& p, std::size_t b,
                                                       std::size_t kh, std::size_t block) const noexcept {
        return state[(b * p.kv_heads + kh) * blocks + block];
    }
};

/// Side of the square tiles K is transposed in: one cache line of floats.
inline constexpr std::size_t k_tile = kernels::detail::line_lanes<float>;

/// Transposes the k_tile x k_tile tile of 32-bit elements (floats, or pairs of bfloat16) at
/// `from` (rows `stride` apart) into `to` (rows block_keys apart) in registers.
template <class Word>
inline void transpose_tile(const Word* from, std::ptrdiff_t stride, Word* to) noexcept {
    static_assert(sizeof(Word) == sizeof(float));
    kernels::detail::transpose_lines<Word, k_tile>(
        from,
        stride, [&](std::size_t line, std::size_t lane, const auto& part) __attribute__((always_inline)) {
            std::memcpy(to + line * block_keys + lane, &part, sizeof part);
        });
}

/// Asks for share `part` of `parts` of key rows [first, end) of the head whose first key row (as
/// it is in the operand) is at `keys` to be brought into L2. The packing spreads its requests for
/// the next k_tile keys over the transposes of the current ones: a transpose reads the same line
/// of k_tile rows at once, which the hardware's prefetchers did not run ahead of, and from memory
/// a block packed so took 3 times as long as a plain read of it in order (one Zen 4 core, D =
/// 128, causal T = 512 from memory: 9.8 k ticks a block, 6.8-7.0 k with these requests; a
/// distance of 2 to 4 tiles the same).
inline void prefetch_key_rows_share(const attention_problem& p, const void* keys, std::size_t first,
                                    std::size_t end, std::size_t part, std::size_t parts) noexcept {
    const std::size_t rows = end - std::min(first, end);
    prefetch_operand_rows<cache_level::l2>(p, keys, p.k_strides.token, first + rows * part / parts,
                                           first + rows * (part + 1) / parts);
}

/// Copies values [first, first + keys) of (b, kh) to `vto` as aligned, zero-padded floats.
inline void pack_values(const attention_problem& p, std::size_t dp, std::size_t b, std::size_t kh,
                        std::size_t first, std::size_t keys, float* vto) noexcept {
    const void* vfrom = element_at(p.v, p.kv_type, token_offset(p.v_strides, b, kh, first));
    for (std::size_t j = 0; j < keys; ++j) {
        widen(p.kv_type, vfrom, vto, p.head_size);
        std::fill(vto + p.head_size, vto + dp, 0.0f);
        vfrom = element_at(vfrom, p.kv_type, p.v_strides.token);
        vto += dp;
    }
}

/// Packs bfloat16 keys [first, first + keys) of (b, kh) as pairs of features: element (i, j) of
/// the [dp / 2][block_keys] block holds features 2i and 2i + 1 of key j, as vdpbf16ps reads them;
/// zeros past the last key and the head size. A key row read as 32-bit words is such pairs, so
/// whole tiles of them are transposed as floats are (rows of 4-byte aligned pairs; element by
/// element, the packing took 16 % of a bfloat16 prefill at T = 512, D = 128 on AMX).
inline void pack_key_pairs(const attention_problem& p, const packed_operands& ops, std::size_t b,
                           std::size_t kh, std::size_t first, std::size_t keys, float* block) noexcept {
    auto* to = reinterpret_cast<std::uint32_t*>(block);
    const auto* from = static_cast<const std::uint16_t*>(
        element_at(p.k, p.kv_type, token_offset(p.k_strides, b, kh, first)));
    const std::ptrdiff_t ks = p.k_strides.token;
    const auto feature = [&](std::size_t j, std::size_t d) -> std::uint32_t {
        return j < keys && d < p.head_size
                   ? from[static_cast<std::ptrdiff_t>(j) * ks + static_cast<std::ptrdiff_t>(d)]
                   : 0u;
    };
    const bool words = ks % 2 == 0 && reinterpret_cast<std::uintptr_t>(from) % sizeof(std::uint32_t) == 0;
    const std::size_t whole_pairs = words ? p.head_size / 2 / k_tile * k_tile : 0;
    const std::size_t whole_keys = keys / k_tile * k_tile;
    const auto* rows = reinterpret_cast<const std::uint32_t*>(from);
    const std::size_t head_keys = p.keys - first;
    for (std::size_t j = 0; j < whole_keys; j += k_tile) // key by key, each read in order
        for (std::size_t i = 0; i < whole_pairs; i += k_tile) {
            prefetch_key_rows_share(p, from, j + k_tile, std::min(head_keys, j + 2 * k_tile), i / k_tile,
                                    whole_pairs / k_tile);
            transpose_tile(rows + static_cast<std::ptrdiff_t>(j) * (ks / 2) + i, ks / 2,
                           to + i * block_keys + j);
        }
    for (std::size_t i = 0; i < ops.dp / 2; ++i)
        for (std::size_t j = i < whole_pairs ? whole_keys : 0; j < block_keys; ++j)
            to[i * block_keys + j] = feature(j, 2 * i) | feature(j, 2 * i + 1) << 16;
}

/// Packs bfloat16 values [first, first + keys) of (b, kh) as pairs of keys: element (i, f) of the
/// [block_keys / 2][dp] block holds feature f of keys 2i and 2i + 1, as vdpbf16ps reads them;
/// zeros past the last key and the head size. With AVX-512, 16 features of both keys at a time.
inline void pack_value_pairs(const attention_problem& p, std::size_t b, std::size_t kh, std::size_t first,
                             std::size_t keys, std::size_t dp, float* block) noexcept {
    auto* to = reinterpret_cast<std::uint32_t*>(block);
    const auto* from = static_cast<const std::uint16_t*>(
        element_at(p.v, p.kv_type, token_offset(p.v_strides, b, kh, first)));
    const auto value_row = [&](std::size_t j) {
        return from + static_cast<std::ptrdiff_t>(j) * p.v_strides.token;
    };
    for (std::size_t i = 0; i < block_keys / 2; ++i) {
        std::uint32_t* row = to + i * dp;
        const std::uint16_t* even = 2 * i < keys ? value_row(2 * i) : nullptr;
        const std::uint16_t* odd = 2 * i + 1 < keys ? value_row(2 * i + 1) : nullptr;
        std::size_t d = 0;
#if defined(__AVX512F__)
        const auto wide = [](const std::uint16_t* x, std::size_t at) {
            return x ? _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + at)))
                     : _mm512_setzero_si512();
        };
        for (; d + 16 <= p.head_size; d += 16)
            _mm512_storeu_si512(row + d, _mm512_or_si512(wide(even, d), _mm512_slli_epi32(wide(odd, d), 16)));
#endif
        for (; d < p.head_size; ++d)
            row[d] = (even ? std::uint32_t{even[d]} : 0u) | (odd ? std::uint32_t{odd[d]} : 0u) << 16;
        std::fill(row + p.head_size, row + dp, 0u);
    }
}

/// Packs key block `block` of (b, kh) into `to`: keys transposed, zeros past the last key and the
/// head size; and its values into `vto`, aligned and zero-padded, unless they are read in place
/// (`vto` null).
inline void pack_key_block(const attention_problem& p, const packed_operands& ops, std::size_t b,
                           std::size_t kh, std::size_t block, float* to, float* vto) noexcept {
    const std::size_t first = block * block_keys, keys = std::min(block_keys, p.keys - first);
    if (ops.pairs) {
        pack_key_pairs(p, ops, b, kh, first, keys, to);
        pack_value_pairs(p, b, kh, first, keys, ops.dp, vto);
        return;
    }
    std::ptrdiff_t ks = p.k_strides.token;
    const void* keys_at = element_at(p.k, p.kv_type, token_offset(p.k_strides, b, kh, first));
    const float* from = static_cast<const float*>(keys_at);
    if (p.kv_type != element_type::f32) { // 16-bit keys: widened first, then packed as floats are
        thread_local std::vector<float> wide;
        wide.resize(keys * p.head_size);
        for (std::size_t j = 0; j < keys; ++j)
            widen(p.kv_type, element_at(keys_at, p.kv_type, static_cast<std::ptrdiff_t>(j) * ks),
                  wide.data() + j * p.head_size, p.head_size);
        from = wide.data();
        ks = static_cast<std::ptrdiff_t>(p.head_size);
    }
    const std::size_t whole_d = p.head_size / k_tile * k_tile, whole_keys = keys / k_tile * k_tile;
    // the next keys asked for from the operand (16-bit keys were read in order to widen them)
    const std::size_t asked_end = p.kv_type == element_type::f32 ? p.keys - first : 0;
    for (std::size_t j = 0; j < whole_keys; j += k_tile) // key by key, each read in order
        for (std::size_t d = 0; d < whole_d; d += k_tile) {
            prefetch_key_rows_share(p, keys_at, j + k_tile, std::min(asked_end, j + 2 * k_tile), d / k_tile,
                                    whole_d / k_tile);
            transpose_tile(from + static_cast<std::ptrdiff_t>(j) * ks + d, ks, to + d * block_keys + j);
        }
    for (std::size_t d = 0; d < ops.dp; ++d) {
        float* row = to + d * block_keys;
        for (std::size_t j = d < whole_d ? whole_keys : 0; j < block_keys; ++j)
            row[j] = d < p.head_size && j < keys ? from[static_cast<std::ptrdiff_t>(j) * ks + d] : 0.0f;
    }
    if (vto) pack_values(p, ops.dp, b, kh, first, keys, vto);
}

/// Where the steps read a key block: its packed keys, and its packed values (null: in place).
struct packed_block_at {
    float* k;
    float* v;
};

/// Where key block `block` of (b, kh) is packed for every piece (values null: read in place).
inline packed_block_at shared_place(const attention_problem& p, const packed_operands& ops, std::size_t b,
                                    std::size_t kh, std::size_t block) noexcept {
    return {ops.k_block(p, b, kh, block), ops.v ? ops.v_block(p, b, kh, block) : nullptr};
}

/// States of a key block in packed_operands::state.
enum : unsigned char { block_unpacked, block_packing, block_packed };

/// Packs key block `block` of (b, kh) in its place unless another thread has begun to; whether
/// this call packed it.
inline bool pack_unless_begun(const attention_problem& p, const packed_operands& ops, std::size_t b,
                              std::size_t kh, std::size_t block) noexcept {
    std::atomic<unsigned char>& state = ops.state_of(p, b, kh, block);
    unsigned char seen = block_unpacked;
    if (state.load(std::memory_order_relaxed) != block_unpacked ||
        !state.compare_exchange_strong(seen, block_packing, std::memory_order_relaxed))
        return false;
    const packed_block_at place = shared_place(p, ops, b, kh, block);
    pack_key_block(p, ops, b, kh, block, place.k, place.v);
    state.store(block_packed, std::memory_order_release);
    return true;
}

/// How long a piece with nothing else to pack waits for another thread to finish packing a block
/// before it packs its own copy: several times a block's packing from memory (2-3 us measured on
/// one Zen 3 core, 32 keys of d = 64), and short enough that a packing thread descheduled on a
/// shared machine costs little.
inline constexpr std::chrono::microseconds packing_wait{20};

/// Key block `block` of (b, kh), packed by the first piece that needs it: K is then read from
/// memory block by block between steps, not in a pass of its own before them, and blocks that
/// no piece reaches (past a batch element's key length, or a causal limit) are never copied.
/// A piece that finds another thread packing the block packs the next blocks it will reach
/// (before `reached`) meanwhile, so that threads working on one head share its packing; with none
/// left it waits up to packing_wait, then packs its own copy in its thread's scratch, which holds
/// until the thread next packs such a copy in the same `slot` (the caller reads it for this block
/// only; the blocks of an AMX span take a slot each).
inline packed_block_at packed_block(const attention_problem& p, const packed_operands& ops, std::size_t b,
                                    std::size_t kh, std::size_t block, std::size_t reached,
                                    std::size_t slot = 0) noexcept {
    const packed_block_at shared = shared_place(p, ops, b, kh, block);
    const std::atomic<unsigned char>& state = ops.state_of(p, b, kh, block);
    if (state.load(std::memory_order_acquire) == block_packed) return shared;
    [[maybe_unused]] const phase_scope phase(kernel_phase::packing);
    if (pack_unless_begun(p, ops, b, kh, block)) return shared;
    std::size_t ahead = block + 1;
    std::chrono::steady_clock::time_point deadline{};
    for (unsigned idle = 0; state.load(std::memory_order_acquire) != block_packed;) {
        if (ahead < reached) {
            pack_unless_begun(p, ops, b, kh, ahead++);
            continue;
        }
        if (idle++ == 0) deadline = std::chrono::steady_clock::now() + packing_wait;
        if (idle % 16 == 0 && std::chrono::steady_clock::now() > deadline) {
            thread_local call_buffer scratch; // per slot, a block of keys, then one of values
            const std::size_t floats = ops.dp * block_keys, slots = ops.amx ? amx_span_blocks : 1;
            if (scratch.size() < 2 * floats * slots) scratch = call_buffer(2 * floats * slots);
            float* const place = scratch.data() + slot * 2 * floats;
            const packed_block_at own{place, shared.v ? place + floats : nullptr};
            pack_key_block(p, ops, b, kh, block, own.k, own.v);
            return own;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    return shared;
}

/// Bytes of this core's L1 data cache (`level` 1) or L2 (any other) as the system reports them,
/// `otherwise` where it does not say.
inline std::size_t cache_bytes([[maybe_unused]] int level, std::size_t otherwise) noexcept {
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    const long reported = ::sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : _SC_LEVEL2_CACHE_SIZE);
    if (reported > 0) return static_cast<std::size_t>(reported);
#endif
    return otherwise;
}

/// Bytes of this core's L1 data cache and L2 (48 KiB and 1 MiB where the system does not say).
inline std::size_t l1_cache_bytes() noexcept {
    static const std::size_t bytes = cache_bytes(1, std::size_t{48} << 10);
    return bytes;
}
inline std::size_t l2_cache_bytes() noexcept {
    static const std::size_t bytes = cache_bytes(2, std::size_t{1} << 20);
    return bytes;
}

/// Whether the steps ask for the next span's packed keys and values during the span before
/// (prefetch_block_share; the rows of blocks not yet packed are asked for on every core): when a
/// head's K and V take L2's size or more, every piece reads them again from L3, which cost 3 points
/// of the FMA peak at D = 128, T = 2048 on a Sapphire Rapids core (`kernel_layers`: 90.5 % with 8
/// blocks in L2 over and over, 87.4 % over all 32). Asked for ahead there (L1 48 KiB, L2 2 MiB),
/// D = 128 calls at T = 2048 and 4096 ran 1.015-1.03 x faster (medians of rounds; D = 64 at T =
/// 4096 level); where K and V stay in L2 the requests only took L1's room, 0.983-0.995 x. On a Zen 4
/// core (L1 32 KiB, L2 1 MiB) the same requests made D = 64 and 128 at T = 2048 1.003-1.016 x
/// slower and T = 4096 1.000-1.009 x (asked into L2 only, 1.000-1.007 x): there a block of keys and
/// a round's weights fill L1, and the hardware's own prefetchers keep up. So they are made only
/// where L1 holds 48 KiB or more (paired calls, docs/benchmarks.md).
/// `l1` and `l2`: the caches' bytes (this core's unless given).
inline bool asks_blocks_ahead(const attention_problem& p, const packed_operands& ops,
                              std::size_t l1 = l1_cache_bytes(), std::size_t l2 = l2_cache_bytes()) noexcept {
    if (l1 < (std::size_t{48} << 10)) return false;
    const std::size_t k_bytes = ops.blocks * ops.key_block_bytes();
    // packed values take the keys' room (pairs of keys, or padded float rows); in place, V's rows
    return k_bytes + (ops.v ? k_bytes : p.keys * p.head_size * sizeof(float)) >= l2;
}

/// Asks for share `part` of `parts` of key block `block` of (b, kh) as the first step to reach
/// it will read it. Unpacked: its rows of K and V as they are in the operands, which the piece
/// that packs it reads first (packing a block from L3 took 5300 ticks at D = 64, T = 2048, asked
/// for during the block before 1460: `kernel_phases`, Sapphire Rapids). Asked for on every core:
/// on a Zen 4 core, whose L1 takes no packed block ahead, calls from memory at T = 512 ran
/// 1.003-1.020 x faster (D = 64, bfloat16 at D = 128; D = 128 float level; built for AVX2
/// 1.008-1.031; paired calls). With `packed` (asks_blocks_ahead), a packed block too: its packed
/// keys, and its values (packed, or their rows in place).
inline void prefetch_block_share(const attention_problem& p, const packed_operands& ops, std::size_t b,
                                 std::size_t kh, std::size_t block, std::size_t part, std::size_t parts,
                                 bool packed) noexcept {
    const std::size_t first = block * block_keys, keys = std::min(block_keys, p.keys - first);
    const std::size_t from = first + keys * part / parts, to = first + keys * (part + 1) / parts;
    const unsigned char state = ops.state_of(p, b, kh, block).load(std::memory_order_relaxed);
    if (state == block_unpacked) {
        prefetch_operand_rows(p, element_at(p.k, p.kv_type, token_offset(p.k_strides, b, kh, 0)),
                              p.k_strides.token, from, to);
        prefetch_operand_rows(p, element_at(p.v, p.kv_type, token_offset(p.v_strides, b, kh, 0)),
                              p.v_strides.token, from, to);
        return;
    }
    if (state != block_packed || !packed) return; // being packed by another thread, or not asked
    prefetch_share(ops.k_block(p, b, kh, block), ops.key_block_bytes(), part, parts);
    if (ops.v) {
        prefetch_share(ops.v_block(p, b, kh, block),
                       ops.pairs ? ops.key_block_bytes() : keys * ops.dp * sizeof(float), part, parts);
        return;
    }
    const float* v = static_cast<const float*>(p.v) + token_offset(p.v_strides, b, kh, 0);
    for (std::size_t j = from; j < to; ++j)
        prefetch_share(v + static_cast<std::ptrdiff_t>(j) * p.v_strides.token, p.head_size * sizeof(float));
}

/// The first key and the row range (over every row of the tile [first, first + rows)) a tile sees.
struct tile_keys {
    std::ptrdiff_t min_end, max_end;
};
inline tile_keys tile_ends(const row_set& s, std::size_t first, std::size_t rows) noexcept {
    const auto [lo, hi] = std::minmax_element(s.end + first, s.end + first + rows);
    return {*lo, *hi};
}

/// Writes the outputs of the real rows of the tile [first, first + rows): accumulators over sums
/// (see normaliser).
inline void finish_tile(const attention_problem& p, const row_set& s, std::size_t first,
                        std::size_t rows = tile_rows) noexcept {
    for (std::size_t r = first; r < first + rows; ++r) {
        if (!s.real(r)) continue;
        write_out_row(p, s, r, normaliser(row_sum(s, r)));
    }
}

/// Rows of the softmax steps an AMX tile's scores go through (tile_step), four at a time: 16
/// batches of scores in registers, as a tile_rows step holds 24.
inline constexpr std::size_t amx_softmax_rows = 4;

/// One pass of a piece's tiles over the key blocks they see. The first pass loads each tile's
/// queries when it first needs them, asking for the next tile's meanwhile; the online pass
/// writes a tile's outputs after its last block. Both keep memory traffic from piling up at the
/// ends of a piece, where nothing hides it.
///
/// The online pass takes a block in rounds of up to round_tiles tiles: the scores and weights of
/// each tile of the round, then the P·V of each. K's block alone is then read in the first half
/// and V's in the second: read by turns in each step, at d = 128 the two filled an AVX2 core's
/// L1 (16 KiB each for a 32-key block) and the prefill ran 1.05-1.2 x slower (one Zen 3 core,
/// paired calls). And no P·V waits on its own tile's softmax.
///
/// `Amx`: tiles of amx_rows rows whose two products run on AMX (attention_amx.hpp), their
/// softmax in steps of amx_softmax_rows rows between them, over spans of amx_span_blocks blocks
/// (one P·V each); the rows of a round fill the same weights buffer.
template <std::size_t D, step_mode Mode, bool Amx = false>
void prefill_pass(const attention_problem& p, const packed_operands& ops, row_set& s, std::size_t kh) {
    static_assert(!Amx || Mode == step_mode::online);
    constexpr std::size_t rows = Amx ? amx_rows : tile_rows;
    constexpr std::size_t span = Amx ? amx_span_blocks : 1;
    constexpr std::size_t weights_row = Amx ? amx_weights_row : block_keys; // floats a row of weights takes
    [[maybe_unused]] const std::size_t dp = D != 0 ? D : s.dp;              // read by the AMX products
    const std::ptrdiff_t last = *std::max_element(s.end, s.end + s.count);
    const bool dropout = Mode != step_mode::reference && p.dropout > 0.0f;
    const bool first_pass = Mode != step_mode::weights;
    constexpr bool rounds = Mode == step_mode::online; // the weights path's steps end with their P·V
    const dropout_rule rule(dropout ? p.dropout : 0.0f);
    const std::size_t b = s.batch_index;
    const std::size_t round_count = rounds ? round_rows(rows) : s.count;
    const std::size_t blocks = (static_cast<std::size_t>(last) + block_keys - 1) / block_keys;
    const bool packed_ahead = asks_blocks_ahead(p, ops);
    if (first_pass) prefetch_queries(p, s, 0, rows);
    for (std::size_t kb = 0; static_cast<std::ptrdiff_t>(kb) < last; kb += span * block_keys) {
        // the span's blocks (h: the block's place in the span), each a key_block as the steps read it
        const std::size_t in_span = std::min(span, blocks - kb / block_keys);
        key_block blk[span];
        for (std::size_t h = 0; h < in_span; ++h) {
            const std::size_t first_key = kb + h * block_keys;
            const packed_block_at packed = packed_block(p, ops, b, kh, first_key / block_keys, blocks, h);
            blk[h].first = first_key;
            blk[h].k = packed.k;
            blk[h].bf16_pairs = ops.pairs;
            blk[h].scores_given = Amx;
            blk[h].weights_offset = h * block_keys;
            blk[h].weights_stride = weights_row;
            if (packed.v) {
                blk[h].v = packed.v;
                blk[h].v_stride = static_cast<std::ptrdiff_t>(ops.dp);
            } else {
                blk[h].v = static_cast<const float*>(p.v) + token_offset(p.v_strides, b, kh, first_key);
                blk[h].v_stride = p.v_strides.token;
            }
        }
        // the keys of block h a tile sees (t: its rows' key ends), 0 when it sees none
        const auto tile_block_keys = [&](const tile_keys& t, std::size_t h) {
            const std::size_t first_key = kb + h * block_keys;
            return h >= in_span || t.max_end <= static_cast<std::ptrdiff_t>(first_key)
                       ? std::size_t{0}
                       : std::min(block_keys, static_cast<std::size_t>(t.max_end) - first_key);
        };
        // The softmax step (and, without rounds, the P·V) of `Step` rows from `first` through
        // block `k` over its first `cols` batches of keys, its weights at `weights`.
        const auto step = [&]<std::size_t Step>(std::integral_constant<std::size_t, Step>, key_block& k,
                                                std::size_t first, std::size_t cols, float* weights) {
            k.limit = tile_ends(s, first, Step).min_end < static_cast<std::ptrdiff_t>(k.first + cols * lanes);
            k.bias = p.mask.kind != mask_kind::none && p.mask.data != nullptr;
            if (k.bias) tile_bias(p, s, first, Step, k.first, k.keys);
            k.dropout = dropout;
            if (dropout) tile_dropout(p, s, first, Step, k.first, rule);
            [[maybe_unused]] const step_phase_scope phase(kernel_phase::scores);
            packed_step<D, Mode, !rounds, Step>(cols, p, s, first, k, weights);
        };
        // The next span's blocks, a share of each asked for before each tile's step
        const std::size_t next_block = kb / block_keys + span;
        const std::size_t next_span = std::min(span, blocks - std::min(blocks, next_block));
        const std::size_t span_steps = in_span * ((s.count + rows - 1) / rows);
        std::size_t span_step = 0;
        for (std::size_t round = 0; round < s.count; round += round_count) {
            const std::size_t round_end = std::min(s.count, round + round_count);
            // Block by block of the span, each through every tile of the round: the block's keys
            // stay in L1 from one tile to the next (tile by tile over a span of 8 blocks, 128 KiB of
            // keys at D = 128, each tile read them from L2 again).
            for (std::size_t h = 0; h < in_span; ++h)
                for (std::size_t first = round; first < round_end; first += rows) {
                    for (std::size_t n = 0; n < next_span; ++n)
                        prefetch_block_share(p, ops, b, kh, next_block + n, span_step, span_steps,
                                             packed_ahead);
                    ++span_step;
                    const tile_keys t = tile_ends(s, first, rows);
                    blk[h].keys = tile_block_keys(t, h);
                    if (blk[h].keys == 0) continue;
                    if (first_pass && kb == 0 && h == 0) {
                        [[maybe_unused]] const step_phase_scope phase(kernel_phase::queries);
                        prefetch_queries(p, s, first + rows, rows);
                        load_queries(p, s, first, rows, ops.pairs);
                    }
                    // a round keeps each tile's weights; a step with its own P·V needs them no longer
                    float* const weights = rounds ? s.p + (first - round) * weights_row : s.p;
                    if constexpr (Amx) {
#if CTEIN_ATTENTION_AMX
                        const std::size_t cols = (blk[h].keys + lanes - 1) / lanes;
                        {
                            [[maybe_unused]] const step_phase_scope phase(kernel_phase::scores);
                            amx_scores<D>(s.q + first * dp, dp, blk[h].k, cols, s.scores);
                        }
                        for (std::size_t sub = 0; sub < rows; sub += amx_softmax_rows) {
                            blk[h].raw_scores = s.scores + sub * block_keys;
                            step(std::integral_constant<std::size_t, amx_softmax_rows>{}, blk[h], first + sub,
                                 cols, weights + sub * weights_row);
                        }
                        if (cols % 2 != 0) // P·V reads 32 keys at a time: the last 16 weigh 0
                            for (std::size_t r = 0; r < rows; ++r)
                                std::memset(reinterpret_cast<std::uint16_t*>(weights + r * weights_row) +
                                                h * block_keys + cols * lanes,
                                            0, lanes * sizeof(std::uint16_t));
#endif
                    } else {
                        const std::size_t cols =
                            Mode == step_mode::online ? (blk[h].keys + lanes - 1) / lanes : 4;
                        step(std::integral_constant<std::size_t, tile_rows>{}, blk[h], first, cols, weights);
                    }
                }
            if constexpr (rounds) {
                for (std::size_t first = round; first < round_end; first += rows) {
                    const tile_keys t = tile_ends(s, first, rows);
                    const std::size_t keys = tile_block_keys(t, 0);
                    if (keys == 0) continue;
                    {
                        [[maybe_unused]] const step_phase_scope phase(kernel_phase::values);
                        float* const weights = s.p + (first - round) * weights_row;
                        if constexpr (Amx) {
#if CTEIN_ATTENTION_AMX
                            span_weighted_values<D>(s.o + first * dp, dp, weights, blk, in_span,
                                                    [&](std::size_t h) { return tile_block_keys(t, h); });
#endif
                        } else {
                            blk[0].keys = keys;
                            step_values<D, tile_rows, true>(s, first, blk[0], keys, weights);
                        }
                    }
                    if (t.max_end <= static_cast<std::ptrdiff_t>(kb + span * block_keys)) {
                        [[maybe_unused]] const step_phase_scope phase(kernel_phase::finish);
                        finish_tile(p, s, first, rows);
                    }
                }
            }
        }
    }
    if (Mode == step_mode::online) // tiles that saw no key at all give zeros
        for (std::size_t first = 0; first < s.count; first += rows)
            if (tile_ends(s, first, rows).max_end <= 0) finish_tile(p, s, first, rows);
}

/// Query positions [first, end) of piece `t` of `pieces` (of `piece` positions each, the first
/// one shorter where `queries` is no multiple): the pieces end at the last query, so that the
/// filler rows a short piece's last tile needs (prefill_piece puts them before its queries) go
/// with the first queries. Under a causal mask those see the fewest keys: at the end of the last
/// piece, a tile of tile_rows rows went through every key for its few real ones (4 of 6 rows at
/// T = 512, 1.6 % of a causal call's products).
struct piece_range {
    std::size_t first, end;
};
inline piece_range piece_queries(std::size_t queries, std::size_t piece, std::size_t pieces,
                                 std::size_t t) noexcept {
    const std::size_t end = queries - (pieces - 1 - t) * piece;
    return {end > piece ? end - piece : 0, end};
}

/// One piece of work: query positions [i0, i1) of every query head of key/value head kh, each
/// head's filler rows (up to a whole number of tiles) before its queries (piece_queries).
template <std::size_t D>
void prefill_piece(const attention_problem& p, const packed_operands& ops, std::size_t b, std::size_t kh,
                   std::size_t i0, std::size_t i1) {
    const std::size_t group = p.query_heads / p.kv_heads;
    const std::size_t per_head = (i1 - i0 + tile_rows - 1) / tile_rows * tile_rows;
    const std::size_t fillers = per_head - (i1 - i0);
    // AMX tiles take 16 rows, across heads where a head's rows end inside one: fillers after
    // the last head make the count whole.
    const std::size_t rows =
        ops.amx ? (group * per_head + amx_rows - 1) / amx_rows * amx_rows : group * per_head;
    row_set s = thread_row_storage().rows(rows, ops.dp);
    s.batch_index = b;
    for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t g = std::min(r / per_head, group - 1), k = r - g * per_head;
        s.head[r] = static_cast<std::uint32_t>(kh * group + g);
        s.query[r] = k >= fillers && k < per_head ? static_cast<std::int64_t>(i0 + (k - fillers)) : -1;
    }
    start_rows(p, s, false);
    if (p.weights == nullptr) {
#if CTEIN_ATTENTION_AMX
        if constexpr (D % amx_depth == 0) {
            if (ops.amx) {
                const amx_tiles tiles;
                prefill_pass<D, step_mode::online, true>(p, ops, s, kh);
                return;
            }
        }
#endif
        prefill_pass<D, step_mode::online>(p, ops, s, kh);
        return;
    }
    // The weights path: the final references first (sums and accumulators stay at the zeros
    // start_rows wrote), then the unnormalised weights, written out and multiplied with v, then
    // both divided by the sum of exactly the weights written. Keys no tile reaches keep the zeros
    // written here.
    prefill_pass<D, step_mode::reference>(p, ops, s, kh);
    for (std::size_t r = 0; r < s.count; ++r) {
        if (!s.real(r)) continue;
        const weights_row w = weights_of(p, s, r);
        for (std::size_t j = 0; j < p.keys; ++j) w.at(j) = 0.0f;
    }
    prefill_pass<D, step_mode::weights>(p, ops, s, kh);
    for (std::size_t r = 0; r < s.count; ++r) {
        if (!s.real(r)) continue;
        const float factor = normaliser(row_sum(s, r));
        const weights_row w = weights_of(p, s, r);
        for (std::size_t j = 0; j < p.keys; ++j) w.at(j) *= factor;
        write_out_row(p, s, r, factor);
    }
}

/// The prefill path: the pieces, head by head and largest first (under a causal mask the last
/// query tiles see the most keys), each thread on a head of its own while heads are left, a piece
/// packing the key blocks it is the first to reach (packed_block).
template <std::size_t D>
void prefill(const attention_problem& p, std::size_t dp) {
    thread_pool& pool = thread_pool::instance();
    const std::size_t threads = std::max<std::size_t>(p.threads, 1);
    const std::size_t heads = p.batch * p.kv_heads;
    const std::size_t piece = prefill_queries(p.query_heads / p.kv_heads);
    const std::size_t pieces = (p.queries + piece - 1) / piece;
    // The threads that run pieces at once (the pool runs no more than the machine does), and the
    // rooms of packed keys they need: one per thread, and never more than the heads.
    const std::size_t workers = std::min({threads, heads * pieces, thread_pool::hardware_threads()});
    const packed_operands ops(p, dp, std::min(workers, heads), pieces);
    std::vector<std::size_t> order(heads * pieces);
    std::vector<std::ptrdiff_t> cost(order.size()), head_cost(heads, 0);
    for (std::size_t item = 0; item < order.size(); ++item) {
        const std::size_t b = item / p.kv_heads / pieces;
        const piece_range queries = piece_queries(p.queries, piece, pieces, item % pieces);
        cost[item] = 0;
        for (std::size_t i = queries.first; i < queries.end; ++i) cost[item] += key_end(p, b, i);
        head_cost[item / pieces] += cost[item];
    }
    // Head by head, so that a thread's pieces share their K and V in its cache (taking every
    // head's largest piece first read 12 heads' K and V by turns: a causal prefill of 12 × 64 at
    // T = 4096 took 1.2 × as long as one head at a time); the costliest heads first, and within a
    // head the costliest pieces, so that the last pieces claimed are small.
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) {
        const std::ptrdiff_t ha = head_cost[a / pieces], hc = head_cost[c / pieces];
        if (ha != hc) return ha > hc;
        if (a / pieces != c / pieces) return a < c;
        return cost[a] > cost[c];
    });
    // Each thread takes the next head in that order and claims its pieces until none is left, then
    // the next head; with no head left, it claims the pieces still left in other threads' heads.
    // Threads that shared each head instead (every piece claimed in that order by whichever
    // thread was free) read K and V packed by the other core: 2 threads ran 1.02-1.06 x slower
    // at T = 512 and 1.01 x at T = 2048 and 4096 (paired calls, Cascade Lake).
    std::unique_ptr<std::atomic<std::size_t>[]> next_piece(new std::atomic<std::size_t>[heads]());
    std::atomic<std::size_t> next_head{0};
    const auto run_piece = [&](std::size_t worker, std::size_t rank, std::size_t i) {
        const std::size_t item = order[rank * pieces + i], bh = item / pieces;
        const piece_range queries = piece_queries(p.queries, piece, pieces, item % pieces);
        [[maybe_unused]] const phase_scope phase(i == 0 ? kernel_phase::first_pieces
                                                        : kernel_phase::later_pieces);
        const head_room_scope room(ops.rooms, bh, worker);
        prefill_piece<D>(p, ops, bh / p.kv_heads, bh % p.kv_heads, queries.first, queries.end);
    };
    const auto claim_pieces = [&](std::size_t worker, std::size_t rank) {
        for (std::size_t i = next_piece[rank].fetch_add(1); i < pieces; i = next_piece[rank].fetch_add(1))
            run_piece(worker, rank, i);
    };
    pool.run(workers, threads, [&](std::size_t worker) {
        try {
            for (std::size_t rank = next_head.fetch_add(1); rank < heads; rank = next_head.fetch_add(1))
                claim_pieces(worker, rank);
            for (std::size_t rank = 0; rank < heads; ++rank) claim_pieces(worker, rank);
        } catch (...) { // as the pool does: the other threads start no further piece
            next_head = heads;
            for (std::size_t rank = 0; rank < heads; ++rank) next_piece[rank] = pieces;
            throw;
        }
    });
}

} // namespace ctein::kernels::attention_detail

#include "detail/quiet_intrinsics_end.hpp"
