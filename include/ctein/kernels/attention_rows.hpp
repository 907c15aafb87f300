// attention_rows: the query rows one piece of the fused attention kernel works on, and their state
// between key blocks (pre-scaled queries, output accumulators, running max and sum). Both the
// prefill (attention_prefill.hpp) and the decode (attention_decode.hpp) paths keep their rows here.
#pragma once

#include "../core/simd_headers.hpp"
#include "attention_problem.hpp"
#include "widen.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels::attention_detail {

using batch = xsimd::batch<float>;
inline constexpr std::size_t lanes = batch::size;

/// Keys per block: 4 batches, so one broadcast query element multiplies 4 registers of keys.
inline constexpr std::size_t block_keys = 4 * lanes;

/// Query rows per register tile: 6 rows x 4 batches of scores is 24 of AVX-512's 32 registers,
/// leaving 4 for keys and the broadcast; with 16 registers, 2 rows.
#if XSIMD_WITH_AVX512F || XSIMD_WITH_NEON64
inline constexpr std::size_t tile_rows = 6;
inline constexpr std::size_t vector_registers = 32;
#else
inline constexpr std::size_t tile_rows = 2;
inline constexpr std::size_t vector_registers = 16;
#endif

/// Rows of the decode's tiles over 16-bit keys and values: at least 4, so that the four query
/// heads of a grouped-query head widen each key and value once per block, not twice (its scores
/// are not held in registers, so the prefill's 2-row limit does not apply). Paired calls, one Zen
/// 3 core, GQA 32/8 x 128, bf16: 1.10-1.14 x at Tk 512 and 1024 (keys in the cache), 0.93-1.12 x
/// at Tk 2048 and 4096 (read from memory; level within the machine's noise). Float rows keep
/// tile_rows: 4 rows were 1.1 x faster in the cache, but 1.04-1.1 x slower from memory.
constexpr std::size_t decode_tile_rows(bool float_rows) noexcept {
    return float_rows ? tile_rows : std::max<std::size_t>(tile_rows, 4);
}

/// Rows a row set's tile buffers (weights, mask, dropout) hold: the larger of the tiles.
inline constexpr std::size_t most_tile_rows = std::max(tile_rows, decode_tile_rows(false));

/// Rows of an AMX tile register, the prefill's tile on AMX (attention_amx.hpp).
inline constexpr std::size_t amx_rows = 16;

/// Tiles per round of the prefill's online pass (prefill_pass): their weights, kept from the
/// round's scores to its P·V, take 16 KiB, so they stay in L1 beside a block of K or V.
inline constexpr std::size_t round_tiles =
    std::max<std::size_t>(1, (std::size_t{16} << 10) / (tile_rows * block_keys * sizeof(float)));

/// Rows of a round of the prefill's tiles of `rows` rows: as many whole tiles as round_tiles of
/// tile_rows hold.
constexpr std::size_t round_rows(std::size_t rows) noexcept {
    return round_tiles * tile_rows / rows * rows;
}

/// Key blocks an AMX tile's P·V takes at once (a span): each row keeps the bfloat16 weights of
/// the span's blocks until one P·V over all of them, so the tile's outputs pass through the tile
/// registers once per span instead of once per block (1.03-1.05 x with 2 blocks). 4 blocks: a
/// round's weights take 24 KiB; 8 (48 KiB, all of L1) were level at D = 128 and 0.94 x at D = 64,
/// 4 measured 0.98-1.06 x against 2 (paired calls, one Sapphire Rapids core, T = 512 to 4096).
inline constexpr std::size_t amx_span_blocks = 4;

/// Floats of an AMX weights row: the span's bfloat16 weights, two to a float.
inline constexpr std::size_t amx_weights_row = amx_span_blocks * block_keys / 2;

/// Scores are kept in log2 units (q pre-scaled by scale * log2(e)), so softmax uses 2^x.
inline constexpr float log2e = 1.44269504088896340736f;

/// A masked score: finite, so that no inf - inf appears whatever the compiler's float model, and
/// far enough below any real score that 2^(masked - max) is exactly 0.
inline constexpr float masked_score = -1e30f;

/// A row's scores are kept relative to a reference m (its running max, roughly): a step computes
/// x = s - m and weights 2^x. The reference is raised when a block's largest x exceeds the row's
/// threshold: `rescale_slack` once the row has seen a key, so weights stay below 2^8 (float sums
/// hold them as well as weights below 1) and most blocks skip rescaling the output rows; before
/// that `unseen_threshold`, above every masked score and below every real one, so the first real
/// score becomes the reference.
inline constexpr float rescale_slack = 8.0f;
inline constexpr float unseen_threshold = -0.5e30f;

/// Keys [0, end) of query `i` in batch `b` pass the causal and key-length limits.
inline std::ptrdiff_t key_end(const attention_problem& p, std::size_t b, std::size_t i) noexcept {
    auto end = static_cast<std::ptrdiff_t>(p.keys);
    if (p.key_lengths) end = std::min<std::ptrdiff_t>(end, std::max<std::int64_t>(p.key_lengths[b], 0));
    // Compared before it is added, so that no offset (PTRDIFF_MAX included) overflows.
    const auto query = static_cast<std::ptrdiff_t>(i);
    if (p.causal && p.causal_offset < end - query - 1)
        end = std::max<std::ptrdiff_t>(query + p.causal_offset + 1, 0);
    return end;
}

/// The head size rounded up to whole batches (the scratch copies of q, k, v are padded with 0).
inline std::size_t padded_head_size(std::size_t head_size) noexcept {
    return (head_size + lanes - 1) / lanes * lanes;
}

using aligned_floats = std::vector<float, xsimd::aligned_allocator<float, 64>>;

/// The rows a piece of work holds, a tile (up to tile_rows, or decode_tile_rows) at a time. A row
/// is a (head, query) pair; rows with query -1 only fill a tile (their key end is 0, so every
/// score of theirs is masked).
struct row_set {
    std::size_t batch_index = 0;
    std::size_t count = 0; ///< a multiple of the tile's rows (tile_rows, or amx_rows on AMX)
    std::size_t dp = 0;    ///< padded head size: the stride of q and o
    float* q = nullptr;    ///< scaled queries, in log2 units
    float* o = nullptr;    ///< output accumulators (unnormalised until the end)
    float* l = nullptr;    ///< running sums, one batch per row (lanes summed at the end)
    float* m = nullptr;    ///< reference (running max) per row, log2 units
    float* t = nullptr;    ///< threshold per row: the reference is raised when an x exceeds it
    std::ptrdiff_t* end = nullptr;
    std::uint32_t* head = nullptr;
    std::int64_t* query = nullptr;
    /// weights: a round of the prefill's tiles, [round_tiles][tile_rows][block_keys], on AMX
    /// [round_rows(amx_rows)][amx_weights_row] (prefill_pass); the decode's one tile,
    /// [most_tile_rows][block_keys]
    float* p = nullptr;
    float* bias = nullptr; ///< one tile's mask, [most_tile_rows][block_keys]
    float* keep = nullptr; ///< one tile's dropout factors, [most_tile_rows][block_keys]
    /// An AMX tile's raw q·k of one key block, [amx_rows][block_keys] (prefill_pass)
    float* scores = nullptr;

    [[nodiscard]] bool real(std::size_t r) const noexcept { return query[r] >= 0; }
};

/// Per-thread storage for row sets, reused by every call on the thread (the pool's workers live
/// as long as the program), so steady-state calls allocate nothing.
struct row_storage {
    aligned_floats floats;
    std::vector<std::ptrdiff_t> ends;
    std::vector<std::uint32_t> heads;
    std::vector<std::int64_t> queries;

    /// A row set of `count` rows (a multiple of the tile's rows) with padded head size `dp`, and
    /// `extra` further floats (64-byte aligned) at `*extra_out` for the caller.
    row_set rows(std::size_t count, std::size_t dp, std::size_t extra = 0, float** extra_out = nullptr) {
        const std::size_t tile = most_tile_rows * block_keys;
        const std::size_t m_floats = (count + lanes - 1) / lanes * lanes;
        const std::size_t extra_floats = (extra + lanes - 1) / lanes * lanes;
        const std::size_t weights =
            std::max({tile, round_rows(tile_rows) * block_keys, round_rows(amx_rows) * amx_weights_row});
        const std::size_t amx_scores = amx_rows * block_keys;
        const std::size_t need =
            2 * count * dp + count * lanes + 2 * m_floats + weights + 2 * tile + amx_scores + extra_floats;
        if (floats.size() < need) floats.resize(need);
        if (ends.size() < count) {
            ends.resize(count);
            heads.resize(count);
            queries.resize(count);
        }
        row_set s;
        s.count = count;
        s.dp = dp;
        float* at = floats.data();
        const auto take = [&](std::size_t n) { return std::exchange(at, at + n); };
        s.q = take(count * dp);
        s.o = take(count * dp);
        s.l = take(count * lanes);
        s.m = take(m_floats);
        s.t = take(m_floats);
        s.p = take(weights);
        s.bias = take(tile);
        s.keep = take(tile);
        s.scores = take(amx_scores);
        if (extra_out) *extra_out = take(extra_floats);
        s.end = ends.data();
        s.head = heads.data();
        s.query = queries.data();
        return s;
    }
};

inline row_storage& thread_row_storage() {
    thread_local row_storage storage;
    return storage;
}

/// Where row r's query starts (elements of p.q_type).
inline const void* query_row(const attention_problem& p, const row_set& s, std::size_t r) noexcept {
    return element_at(
        p.q, p.q_type,
        token_offset(p.q_strides, s.batch_index, s.head[r], static_cast<std::size_t>(s.query[r])));
}

/// Whether the prefill runs its products on AVX512-BF16's dot products (vdpbf16ps: pairs of
/// products, exact, summed in float): built for a CPU that has them, and q, k and v in bfloat16.
/// Its queries are kept as they are (bfloat16 pairs, unscaled), its keys packed in pairs of
/// features and its values in pairs of keys; the scale is applied to the scores, and the
/// weights are rounded to bfloat16 for P·V.
inline bool bf16_dot_products(const attention_problem& p) noexcept {
#if defined(__AVX512BF16__) && defined(__AVX512F__)
    return p.q_type == element_type::bf16 && p.kv_type == element_type::bf16;
#else
    static_cast<void>(p);
    return false;
#endif
}

/// Copies the queries of rows [first, first + count) scaled to log2 units, zero-padded (zeros for
/// filler rows); with `pairs` (bf16_dot_products), their bfloat16 bits as they are, zero-padded.
inline void load_queries(const attention_problem& p, row_set& s, std::size_t first, std::size_t count,
                         bool pairs = false) noexcept {
    const float scale = p.scale * log2e;
    const batch factor(scale), zero(0.0f);
    const std::size_t d = p.head_size;
    for (std::size_t r = first; r < first + count; ++r) {
        float* q = s.q + r * s.dp;
        for (std::size_t k = 0; k < s.dp; k += lanes) zero.store_aligned(q + k);
        if (!s.real(r)) continue;
        if (pairs) {
            std::memcpy(q, query_row(p, s, r), d * sizeof(std::uint16_t));
            continue;
        }
        const void* row = query_row(p, s, r);
        const float* from = q; // a 16-bit query is widened in place, then scaled there
        if (p.q_type == element_type::f32)
            from = static_cast<const float*>(row);
        else
            widen(p.q_type, row, q, d);
        std::size_t k = 0;
        for (; k + lanes <= d; k += lanes) (batch::load_unaligned(from + k) * factor).store_aligned(q + k);
        for (; k < d; ++k) q[k] = from[k] * scale;
    }
}

/// The cache a request ahead brings its lines into: L1 (and the levels below it), or L2 only.
enum class cache_level { l1, l2 };

/// Asks for the 64-byte line at `at` to be brought into `Level`. The empty volatile asm makes the
/// request an effect g++ keeps: g++ 12 takes a function whose only effects are prefetches for one
/// without effects and drops its calls where it does not inline it, which had silently removed
/// the decode's requests ahead and the prefill's for the next queries and for unpacked key rows
/// (tests/kernels/requests).
template <cache_level Level = cache_level::l1>
[[gnu::always_inline]] inline void request_line(const void* at) noexcept {
    __builtin_prefetch(at, 0, Level == cache_level::l1 ? 3 : 2);
    asm volatile("");
}

/// Asks for every 64-byte line of the `bytes` at `from` to be brought into `Level`.
template <cache_level Level = cache_level::l1>
[[gnu::always_inline]] inline void prefetch_lines(const void* from, std::size_t bytes) noexcept {
    const auto* at = static_cast<const char*>(from);
    for (std::size_t b = 0; b < bytes; b += 64) request_line<Level>(at + b);
}

/// The pages within which the hardware's stream prefetchers work (x86's base page).
inline constexpr std::uintptr_t page_bytes = 4096;

/// Calls `visit` with the address of the first of the `bytes` at `from` and with the start of
/// every later page (page_bytes) they reach: one line per page (request_page_starts).
template <class Visit>
[[gnu::always_inline]] inline void for_each_page_start(const void* from, std::size_t bytes, Visit&& visit) {
    if (bytes == 0) return;
    const auto at = reinterpret_cast<std::uintptr_t>(from);
    visit(at);
    for (std::uintptr_t page = (at | (page_bytes - 1)) + 1; page < at + bytes; page += page_bytes)
        visit(page);
}

/// Asks for one line of each 4 KiB page of the `bytes` at `from` (for_each_page_start) to be brought
/// into `Level`: the hardware's stream prefetchers work within a page, so a stream read in order
/// waits for each new page's first lines; asked for ahead, they are on their way.
template <cache_level Level = cache_level::l1>
[[gnu::always_inline]] inline void request_page_starts(const void* from, std::size_t bytes) noexcept {
    for_each_page_start(
        from, bytes, [](std::uintptr_t line) __attribute__((always_inline)) {
            request_line<Level>(reinterpret_cast<const void*>(line));
        });
}

/// Asks for share `part` of `parts` of the `bytes` at `from` to be loaded into L1 (all of them:
/// part 0 of 1).
inline void prefetch_share(const void* from, std::size_t bytes, std::size_t part = 0,
                           std::size_t parts = 1) noexcept {
    const std::size_t first = bytes * part / parts / 64 * 64, end = bytes * (part + 1) / parts;
    prefetch_lines(static_cast<const char*>(from) + first, end - first);
}

/// The cache prefetch_queries asks for the next tile's queries into: L2 with AVX-512's 64-key
/// blocks, whose step reads a block of keys and a round's weights that fill a 32 KiB L1: asked
/// into L1, the queries were evicted before their tile loaded them (`kernel_phases`, causal T =
/// 512, D = 128: 1000 ticks a tile's queries, 520-620 into L2; paired calls on one Zen 4 core,
/// T = 512: D = 128 causal 1.017-1.022 x, full 1.011 x, D = 64 and T = 2048 level). AVX2's
/// 32-key blocks keep L1 (into L2: 0.987-1.000 x).
inline constexpr cache_level queries_level = block_keys >= 64 ? cache_level::l2 : cache_level::l1;

/// Asks for the queries of rows [first, first + count) to be brought into the cache
/// (queries_level), so that loading them later does not wait for memory.
inline void prefetch_queries(const attention_problem& p, const row_set& s, std::size_t first,
                             std::size_t count) noexcept {
    const std::size_t bytes = p.head_size * element_bytes(p.q_type);
    for (std::size_t r = first; r < std::min(first + count, s.count); ++r) {
        if (!s.real(r)) continue;
        prefetch_lines<queries_level>(query_row(p, s, r), bytes);
    }
}

/// Asks for rows [first, end) of one head's keys or values as they are in the operands (its first
/// row at `head`, rows `stride` elements of p.kv_type apart) to be brought into `Level`.
template <cache_level Level = cache_level::l1>
[[gnu::always_inline]] inline void prefetch_operand_rows(const attention_problem& p, const void* head,
                                                         std::ptrdiff_t stride, std::size_t first,
                                                         std::size_t end) noexcept {
    const std::size_t bytes = p.head_size * element_bytes(p.kv_type);
    for (std::size_t j = first; j < end; ++j)
        prefetch_lines<Level>(element_at(head, p.kv_type, static_cast<std::ptrdiff_t>(j) * stride), bytes);
}

/// Fills the state of every row whose head and query are set: empty accumulators, no key seen,
/// key ends; and, with `queries`, the scaled queries (else load_queries does, tile by tile).
inline void start_rows(const attention_problem& p, row_set& s, bool queries) {
    const batch zero(0.0f);
    for (std::size_t r = 0; r < s.count; ++r) {
        float* o = s.o + r * s.dp;
        for (std::size_t k = 0; k < s.dp; k += lanes) zero.store_aligned(o + k);
        zero.store_aligned(s.l + r * lanes);
        s.m[r] = 0.0f;
        s.t[r] = unseen_threshold;
        s.end[r] = s.real(r) ? key_end(p, s.batch_index, static_cast<std::size_t>(s.query[r])) : 0;
    }
    if (queries) load_queries(p, s, 0, s.count);
}

/// The sum of a row's running-sum lanes (always in the same order: xsimd's reduction tree).
inline float row_sum(const row_set& s, std::size_t r) noexcept {
    return xsimd::hadd(batch::load_aligned(s.l + r * lanes));
}

/// Row r's weights in the weights output: key j at `at(j)`.
struct weights_row {
    float* first;
    std::ptrdiff_t stride;
    float& at(std::size_t j) const noexcept { return first[static_cast<std::ptrdiff_t>(j) * stride]; }
};

inline weights_row weights_of(const attention_problem& p, const row_set& s, std::size_t r) noexcept {
    const auto& ws = p.weights_strides;
    return {p.weights + static_cast<std::ptrdiff_t>(s.batch_index) * ws[0] +
                static_cast<std::ptrdiff_t>(s.head[r]) * ws[1] +
                static_cast<std::ptrdiff_t>(s.query[r]) * ws[2],
            ws[3]};
}

/// Where row r's output starts.
inline float* out_row(const attention_problem& p, const row_set& s, std::size_t r) noexcept {
    return p.out + static_cast<std::ptrdiff_t>(s.batch_index) * p.out_strides.batch +
           static_cast<std::ptrdiff_t>(s.head[r]) * p.out_strides.head +
           static_cast<std::ptrdiff_t>(s.query[r]) * p.out_strides.token;
}

/// The factor that normalises a row whose weights sum to `sum`: 0 for a row that saw no key
/// (every key masked: zeros by design), and NaN for a NaN sum, so that a NaN or an infinity in
/// q, k, v or the scale reaches the output as IEEE arithmetic (and PyTorch) would carry it.
/// (An infinite sum only follows an infinite score, whose inf - inf made a NaN weight.)
inline float normaliser(float sum) noexcept {
    if (sum == 0.0f) return 0.0f;
    return std::isfinite(sum) ? 1.0f / sum : std::numeric_limits<float>::quiet_NaN();
}

/// Writes `factor` times row r's accumulator to the output (factor 0 writes zeros, also over
/// whatever the accumulator holds).
inline void write_out_row(const attention_problem& p, const row_set& s, std::size_t r,
                          float factor) noexcept {
    float* to = out_row(p, s, r);
    const float* from = s.o + r * s.dp;
    const std::size_t d = p.head_size;
    std::size_t k = 0;
    if (factor == 0.0f) {
        std::fill(to, to + d, 0.0f);
        return;
    }
    for (; k + lanes <= d; k += lanes)
        (batch::load_aligned(from + k) * batch(factor)).store_unaligned(to + k);
    for (; k < d; ++k) to[k] = from[k] * factor;
}

} // namespace ctein::kernels::attention_detail

#include "detail/quiet_intrinsics_end.hpp"
