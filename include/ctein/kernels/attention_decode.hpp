// attention_decode: the fused attention kernel for a few queries over many keys (a KV-cache decode
// step). Work is split along the keys into chunks of a fixed length; each chunk leaves a partial
// softmax state (max, sum, unnormalised output) per row, and a merge combines them. Keys are read
// as they are stored, once for every query head of their group: the step is bound by memory, or,
// for a group's heads over keys in the cache, by its multiply-adds. bfloat16 keys and values are
// read in split chunks (split_pairs.hpp), which spares the lane shuffles of widening.
#pragma once

#include "attention_dropout.hpp"
#include "attention_mask.hpp"
#include "attention_prefill.hpp"
#include "attention_rows.hpp"
#include "attention_tile.hpp"
#include "split_pairs.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels::attention_detail {

/// Queries per head up to which a call takes the decode path.
inline constexpr std::size_t decode_queries = 4;

/// Keys per chunk: fixed, not derived from the thread count, so that results do not depend on
/// it; 512 keys of d = 64 are 256 KiB of K and V, enough to hide a piece's start-up, and a
/// 4096-key cache still splits into 8 pieces per head.
inline constexpr std::size_t decode_chunk = 8 * block_keys;

/// Whether the decode asks for each key's values into L2 rather than L1 (row_scores): where a
/// block's keys and values take L1's size or more, in blocks of 64 keys (AVX-512). Into L1 they
/// evicted the lines the q·kᵀ was reading; into L2, paired calls on one Zen 4 core (L1 32 KiB)
/// ran 1.05-1.18 x faster from memory and level to 1.08 x in the cache (GQA 32/8 x 128, float
/// and bfloat16: blocks of 64 and 32 KiB; 12 heads x 96, 3 queries: 48 KiB). Built for AVX2 on
/// the same core (blocks of 32 keys), float at D = 128 (32 KiB) ran 0.96-0.99 x as fast into L2,
/// bfloat16 (16 KiB) 0.90 x: those keep L1. `l1`: L1's bytes (this core's unless given).
inline bool asks_values_into_l2(const attention_problem& p, std::size_t l1 = l1_cache_bytes()) noexcept {
    return values_into_l2_blocks && 2 * block_keys * p.head_size * element_bytes(p.kv_type) >= l1;
}

/// Whether a decode of one row per key/value head (a multi-head decode of one query) asks, as each
/// block begins, for the first line of every 4 KiB page of the next block's keys and of this
/// block's values, into L2 (request_page_starts). Its steps read K and V in order, and the
/// hardware's stream prefetchers, which stay within a page, start over on each new one: a 64-key
/// block of float keys at D = 64 starts four pages of K and four of V. Asked for (paired calls in
/// both orders, one Zen 4 core, 12 heads x 64, Tk 4096, float): 1.26 x faster from memory (1.18 x
/// at Tk 512, 1.17 x for 8 heads x 128), 1.12 x with 2 threads, 1.14 x in L3; a float16 cache
/// 1.15 x, a bfloat16 one level; level at Tk 512 in the cache and for grouped-query calls.
/// Requests for every line of the next block instead ran 0.83-0.96 x as fast. AVX2's 32-key
/// blocks (two pages of K at D = 64) do not ask: built so, the same core read 0.97-1.06 x, and
/// asking 64 keys ahead 0.93-0.95 x in the cache.
inline constexpr bool one_row_page_requests = block_keys >= 64;

/// One chunk of keys of key/value head kh: rows are (query head of the group, query) pairs.
/// Writes each row's partial state to `state` (rows of dp + 2 floats: max, sum, accumulators).
template <std::size_t D>
void decode_chunk_piece(const attention_problem& p, std::size_t dp, std::size_t b, std::size_t kh,
                        std::size_t chunk, float* state) {
    const std::size_t group = p.query_heads / p.kv_heads, rows = group * p.queries;
    // keys and values copied, as floats with zero padding, when the head size is not whole
    // batches; otherwise read as they are stored (16-bit ones widened as they are loaded)
    const bool padded = dp != p.head_size;
    // the element type of the rows the steps read: the copies are floats
    const element_type rows_type = padded ? element_type::f32 : p.kv_type;
    // whole tiles (decode_tile_rows: the 16-bit ones larger), of fewer rows when there are fewer
    const std::size_t tile = row_step_rows(std::min(rows, decode_tile_rows(rows_type == element_type::f32)));
    const std::size_t count = (rows + tile - 1) / tile * tile;
    float* copies = nullptr;
    row_set s = thread_row_storage().rows(count, dp, padded ? 2 * block_keys * dp : 0, &copies);
    s.batch_index = b;
    for (std::size_t r = 0; r < count; ++r) {
        s.head[r] = static_cast<std::uint32_t>(kh * group + std::min(r, rows - 1) / p.queries);
        s.query[r] = r < rows ? static_cast<std::int64_t>(r % p.queries) : -1;
    }
    start_rows(p, s, true);
    // bfloat16 keys and values are read split (split_pairs.hpp): the queries they meet are put in
    // that order, and the outputs back in feature order at the end
    if (rows_type == element_type::bf16)
        for (std::size_t r = 0; r < count; ++r) split_row(s.q + r * dp, dp);

    const std::size_t c0 = chunk * decode_chunk;
    const auto c1 = static_cast<std::ptrdiff_t>(std::min(p.keys, c0 + decode_chunk));
    const std::ptrdiff_t stop = std::min(c1, *std::max_element(s.end, s.end + count));
    const bool dropout = p.dropout > 0.0f;
    const dropout_rule rule(dropout ? p.dropout : 0.0f);
    const bool into_l2 = asks_values_into_l2(p);
    const bool asks_next_keys = !padded && rows > 1; // the steps ask (key_block::next_keys)
    const bool asks_pages = one_row_page_requests && !padded && rows == 1;
    const void* k_head = element_at(p.k, p.kv_type, token_offset(p.k_strides, b, kh, 0));
    const void* v_head = element_at(p.v, p.kv_type, token_offset(p.v_strides, b, kh, 0));
    // Steps of several rows ask for each block's values during its scores (row_scores) and for
    // the next block's keys during its P·V (key_block::next_keys), a row per key read, into L2:
    // memory then works through both halves of a step. Before, the next block's keys waited for
    // its scores to read them, and a grouped-query decode from memory took about its time in the
    // cache plus the time of reading its bytes. With them (paired calls, one Zen 4 core, K and V
    // from memory): GQA 32/8 x 128 bfloat16 1.17-1.36 x faster (Tk 512 and 4096, 1 and 2
    // threads), float 1.10-1.19 x at Tk 512 and 2048 but 0.95-1.02 x at Tk 4096; 3 queries of 12
    // x 64 1.15 x (1.43 x in L3); in the cache level. Built for AVX2: 0.95-1.12 x.
    // One-row steps ask for the first line of each page instead (one_row_page_requests).
    // Asking for the next blocks' keys and values two blocks ahead into L1 (a burst of requests
    // per block) ran 0.73-0.87 x as fast, from memory and in the cache (MHA 12 x 64 and GQA 32/8
    // x 128, float and bfloat16).
    for (std::size_t kb = c0; static_cast<std::ptrdiff_t>(kb) < stop; kb += block_keys) {
        key_block blk;
        blk.first = kb;
        const auto key = [&](std::size_t j) {
            return element_at(k_head, p.kv_type, static_cast<std::ptrdiff_t>(j) * p.k_strides.token);
        };
        const auto value = [&](std::size_t j) {
            return element_at(v_head, p.kv_type, static_cast<std::ptrdiff_t>(j) * p.v_strides.token);
        };
        if (padded) {
            const std::size_t keys = std::min(block_keys, static_cast<std::size_t>(stop) - kb);
            float* kc = copies;
            float* vc = copies + block_keys * dp;
            for (std::size_t j = 0; j < keys; ++j) {
                widen(p.kv_type, key(kb + j), kc + j * dp, p.head_size);
                std::fill(kc + j * dp + p.head_size, kc + (j + 1) * dp, 0.0f);
                widen(p.kv_type, value(kb + j), vc + j * dp, p.head_size);
                std::fill(vc + j * dp + p.head_size, vc + (j + 1) * dp, 0.0f);
            }
            blk.k = kc;
            blk.v = vc;
            blk.k_stride = blk.v_stride = static_cast<std::ptrdiff_t>(dp);
        } else {
            blk.k = key(kb);
            blk.k_stride = p.k_strides.token;
            blk.v = value(kb);
            blk.v_stride = p.v_strides.token;
        }
        if (asks_pages) { // a step of one row: the page starts of the next block's keys, this one's values
            const std::size_t next = kb + block_keys, row_bytes = p.head_size * element_bytes(p.kv_type);
            if (next < p.keys)
                request_page_starts<cache_level::l2>(key(next),
                                                     std::min(block_keys, p.keys - next) * row_bytes);
            request_page_starts<cache_level::l2>(
                value(kb), std::min(block_keys, static_cast<std::size_t>(stop) - kb) * row_bytes);
        }
        for (std::size_t first = 0; first < rows; first += tile) {
            // the rows the step reads: a smaller tile's fillers (key end 0) would otherwise limit
            // every block of the rows before them
            const std::size_t step_rows = std::min(tile, rows - first);
            const tile_keys t = tile_ends(s, first, row_step_rows(step_rows));
            if (t.max_end <= static_cast<std::ptrdiff_t>(kb)) continue;
            blk.keys =
                std::min<std::size_t>(block_keys, static_cast<std::size_t>(std::min(t.max_end, c1)) - kb);
            blk.limit = t.min_end < static_cast<std::ptrdiff_t>(kb + block_keys);
            blk.bias = p.mask.kind != mask_kind::none && p.mask.data != nullptr;
            if (blk.bias) tile_bias(p, s, first, tile, kb, blk.keys);
            blk.dropout = dropout;
            if (dropout) tile_dropout(p, s, first, tile, kb, rule);
            // The first tile asks for the block's values as it reads the keys (row_scores; steps of
            // one row never do); later tiles find them in the cache, and copies are in it already.
            blk.prefetch_values = !padded && first == 0;
            blk.values_into_l2 = into_l2;
            if (asks_next_keys) { // the first tile asks, as for the values
                const std::size_t next = kb + block_keys;
                const bool asks = first == 0 && next < p.keys;
                blk.next_keys = asks ? key(next) : nullptr;
                blk.next_key_count = asks ? std::min(block_keys, p.keys - next) : 0;
            }
            // 16-bit rows through the generic head size's steps only: compiled for every head size,
            // they doubled the kernel's build (the decode is bound by memory, not by its loops)
            switch (rows_type) {
            case element_type::bf16:
                row_step<0, bfloat16>(step_rows, p, s, first, blk);
                break;
            case element_type::f16:
                row_step<0, float16>(step_rows, p, s, first, blk);
                break;
            default:
                row_step<D, float>(step_rows, p, s, first, blk);
                break;
            }
        }
    }
    for (std::size_t r = 0; r < rows; ++r) {
        float* to = state + r * (dp + 2);
        to[0] = s.m[r];
        to[1] = row_sum(s, r);
        if (rows_type == element_type::bf16)
            join_row(s.o + r * dp, to + 2, dp);
        else
            std::copy_n(s.o + r * dp, dp, to + 2);
    }
}

/// Combines the chunks' partial states of one row (`stride` floats apart): sums and outputs
/// scaled to the largest max, in chunk order. A chunk whose sum is 0 saw no key and holds
/// nothing; a NaN sum (a NaN or infinite input) makes the row NaN, as normaliser does.
inline void merge_row(const attention_problem& p, const float* state, std::size_t stride, std::size_t chunks,
                      float* out) noexcept {
    const auto seen = [&](std::size_t c) { return state[c * stride + 1] != 0.0f; };
    float top = -std::numeric_limits<float>::infinity();
    for (std::size_t c = 0; c < chunks; ++c)
        if (seen(c)) top = std::max(top, state[c * stride]);
    float sum = 0.0f;
    for (std::size_t c = 0; c < chunks; ++c)
        if (seen(c)) sum += state[c * stride + 1] * std::exp2(state[c * stride] - top);
    std::fill(out, out + p.head_size, 0.0f);
    const float inverse = normaliser(sum); // 0 when no chunk saw a key, NaN for a NaN sum
    if (inverse == 0.0f) return;
    for (std::size_t c = 0; c < chunks; ++c) {
        if (!seen(c)) continue;
        const float factor = std::exp2(state[c * stride] - top) * inverse;
        const float* partial = state + c * stride + 2;
        for (std::size_t k = 0; k < p.head_size; ++k) out[k] += factor * partial[k];
    }
}

/// The decode path: every (batch, key/value head, chunk) in parallel, then the merge.
template <std::size_t D>
void decode(const attention_problem& p, std::size_t dp) {
    thread_pool& pool = thread_pool::instance();
    const std::size_t threads = std::max<std::size_t>(p.threads, 1);
    const std::size_t group = p.query_heads / p.kv_heads, rows = group * p.queries;
    const std::size_t chunks = (p.keys + decode_chunk - 1) / decode_chunk;
    const std::size_t stride = dp + 2, heads = p.batch * p.kv_heads;
    call_buffer states(heads * chunks * rows * stride);
    pool.run(heads * chunks, threads, [&](std::size_t item) {
        const std::size_t bh = item / chunks, c = item % chunks;
        decode_chunk_piece<D>(p, dp, bh / p.kv_heads, bh % p.kv_heads, c,
                              states.data() + item * rows * stride);
    });
    pool.run(heads, threads, [&](std::size_t bh) {
        const std::size_t b = bh / p.kv_heads, kh = bh % p.kv_heads;
        for (std::size_t r = 0; r < rows; ++r) {
            const std::size_t h = kh * group + r / p.queries, i = r % p.queries;
            float* out = p.out + static_cast<std::ptrdiff_t>(b) * p.out_strides.batch +
                         static_cast<std::ptrdiff_t>(h) * p.out_strides.head +
                         static_cast<std::ptrdiff_t>(i) * p.out_strides.token;
            merge_row(p, states.data() + (bh * chunks * rows + r) * stride, rows * stride, chunks, out);
        }
    });
}

} // namespace ctein::kernels::attention_detail

#include "detail/quiet_intrinsics_end.hpp"
