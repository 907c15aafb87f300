// attention_tile: the register-tiled step of the fused attention kernel: a tile of query rows
// through one block of keys (scores in log2 units, masks, online softmax, dropout, weights, P·V).
// The prefill and decode paths differ only in how they feed it keys.
#pragma once

#include "../core/half_precision.hpp"
#include "../core/simd_headers.hpp"
#include "attention_rows.hpp"
#include "exp2.hpp"
#include "multiply_add.hpp"
#include "register_hint.hpp"
#include "split_pairs.hpp"
#include "tile_vectors.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

#include "detail/quiet_intrinsics_begin.hpp"

namespace ctein::kernels::attention_detail {

/// What a step does with its scores. `online`: softmax with a running max and sum, weights times
/// v into the accumulators. `reference`: only the running reference (the first pass of the
/// weights path). `weights`: the reference is final (no rescaling); the weights 2^(x - m),
/// unnormalised, are summed, written out and multiplied with v, and the caller divides both by
/// that sum, so the weights written sum to 1 up to one rounding.
enum class step_mode : unsigned char { online, reference, weights };

template <class F, std::size_t... I>
[[gnu::always_inline]] inline void unrolled_calls(F& f, std::index_sequence<I...>) {
    (f(std::integral_constant<std::size_t, I>{}), ...);
}

/// Calls f(integral_constant<I>) for I in [0, N): loops over registers must be unrolled for the
/// arrays of batches to stay in registers, so the lambdas given are always_inline too (an
/// out-of-line call would put the arrays in memory).
template <std::size_t N, class F>
[[gnu::always_inline]] inline void unrolled(F&& f) {
    unrolled_calls(f, std::make_index_sequence<N>{});
}

/// 0, 1, ..., block_keys - 1: a key's place in its block, compared with a row's key end.
inline constexpr auto key_offsets = [] {
    std::array<float, block_keys> offsets{};
    for (std::size_t j = 0; j < block_keys; ++j) offsets[j] = static_cast<float>(j);
    return offsets;
}();

/// Whether a decode can ask for its values into L2 (asks_values_into_l2): in blocks of 64 keys
/// (AVX-512) only. AVX2's blocks of 32 keys keep L1, and their loop has no test for it (with the
/// test alone, a grouped-query decode in the cache ran 0.95 x as fast).
inline constexpr bool values_into_l2_blocks = block_keys >= 64;

/// One block of keys as a step reads it.
struct key_block {
    std::size_t first = 0; ///< the block's first key
    std::size_t keys = 0;  ///< keys [first, first + keys) are read; the others of the block weigh 0
    /// Packed: floats [dp][block_keys] (keys transposed); rows: key `first`, elements of the step's
    /// element type (float, or a 16-bit type widened as it is loaded).
    const void* k = nullptr;
    std::ptrdiff_t k_stride = 0; ///< rows layout: elements from one key to the next
    /// Value row of key `first`, elements as k's; with bf16_pairs, the block's values packed in
    /// pairs of keys: [block_keys / 2][dp] pairs, element (i, f) holding feature f of keys 2i and
    /// 2i + 1 (as vdpbf16ps reads them).
    const void* v = nullptr;
    std::ptrdiff_t v_stride = 0;
    bool limit = false;   ///< some row's key end falls before the tile's last column
    bool bias = false;    ///< the row set's bias tile holds the explicit mask of this block
    bool dropout = false; ///< the row set's keep tile holds the dropout factors of this block
    /// Rows layout: the scores' pass asks for each key's values as it reads the key (row_scores),
    /// into L2 with values_into_l2 (asks_values_into_l2), else into L1.
    bool prefetch_values = false;
    bool values_into_l2 = false;
    /// Rows layout, steps of more than one row: the next block's first key row (k_stride apart,
    /// elements as k's) and how many of its rows the P·V asks for into L2, the row of its j-th key
    /// as it reads the j-th value (step_values). Memory then works during the P·V too: the scores'
    /// pass asks for the block's values, and without these requests the next block's keys waited
    /// until its scores read them.
    const void* next_keys = nullptr;
    std::size_t next_key_count = 0;
    /// Packed keys and values are bfloat16 pairs and the rows' queries bfloat16
    /// (bf16_dot_products): both products run on vdpbf16ps, the weights rounded to bfloat16.
    bool bf16_pairs = false;
    /// With bf16_pairs: the step's raw q·k (unscaled) are already in raw_scores, computed on AMX
    /// tiles for 16 rows at once (attention_amx.hpp); the step scales them.
    bool scores_given = false;
    /// With scores_given: where the raw q·k are, rows block_keys floats apart.
    const float* raw_scores = nullptr;
    /// With bf16_pairs: the bfloat16 weight of each weights row this block's weights begin at. 0,
    /// or h · block_keys when the row's first weights are those of the h blocks before it in an
    /// AMX span, whose P·V waits for this one's: a raised reference scales those too.
    std::size_t weights_offset = 0;
    /// With bf16_pairs: floats from one weights row to the next (amx_weights_row on AMX).
    std::size_t weights_stride = block_keys;
};

namespace tile_vectors { // the folds' shuffles, on tile_vectors.hpp's vectors

/// Lane L of a fold with half-width W: the low halves of the W-wide groups of a and b, side by
/// side (the high halves are the same indices plus W).
constexpr int fold_index(std::size_t w, std::size_t lane) noexcept {
    const std::size_t group = lane / (2 * w) * 2 * w, at = lane % (2 * w);
    return static_cast<int>(at < w ? group + at : lanes + group + at - w);
}

template <std::size_t W, std::size_t... L>
[[gnu::always_inline]] inline floats fold(floats a, floats b, std::index_sequence<L...>) noexcept {
    return __builtin_shufflevector(a, b, fold_index(W, L)...) +
           __builtin_shufflevector(a, b, (fold_index(W, L) + static_cast<int>(W))...);
}

/// The bit-reversed order of log2(lanes) bits: the lane that slot t ends in after the folds of
/// transposed_sums, and the slot that lane t holds there (the order is its own inverse).
constexpr std::size_t bit_reversed(std::size_t t) noexcept {
    std::size_t r = 0;
    for (std::size_t bit = 1; bit < lanes; bit <<= 1, t >>= 1) r = (r << 1) | (t & 1);
    return r;
}

/// Lane t of `folded` moved to lane bit_reversed(t).
template <std::size_t... L>
[[gnu::always_inline]] inline floats bit_reversed_lanes(floats folded, std::index_sequence<L...>) noexcept {
    return __builtin_shufflevector(folded, folded, static_cast<int>(bit_reversed(L))...);
}
} // namespace tile_vectors

/// Sums of `lanes` batches, transposed: lane t of the result is the sum of the lanes of slots[t].
/// log2(lanes) rounds of halving folds (two shuffles and an add each, neighbours 2t and 2t + 1
/// into t) instead of a horizontal sum per batch; they leave slot t's sum in lane bit_reversed(t),
/// and one shuffle puts it back.
[[gnu::always_inline]] inline batch transposed_sums(const batch (&slots)[lanes]) noexcept {
    tile_vectors::floats v[lanes];
    for (std::size_t t = 0; t < lanes; ++t) v[t] = tile_vectors::as_floats(slots[t]);
    unrolled<std::countr_zero(lanes)>([&](auto i) __attribute__((always_inline)) {
        constexpr std::size_t w = lanes >> (i + 1), n = lanes >> i;
        for (std::size_t t = 0; t < n / 2; ++t)
            v[t] = tile_vectors::fold<w>(v[2 * t], v[2 * t + 1], std::make_index_sequence<lanes>{});
    });
    v[0] = tile_vectors::bit_reversed_lanes(v[0], std::make_index_sequence<lanes>{});
    return tile_vectors::as_batch(v[0]);
}

/// Scores minus the rows' references (x = q·k - m) of `Rows` rows against a packed block: one
/// broadcast query element times `Cols` batches of transposed keys per row, fused multiply-adds
/// into Rows x Cols registers that start at -m.
template <std::size_t Rows, std::size_t Cols>
[[gnu::always_inline]] inline void packed_scores(const float* q, std::size_t dp, const float* k,
                                                 const float* m, batch (&s)[Rows][Cols]) noexcept {
    batch kv[Cols];
    unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
        kv[c] = in_register(batch::load_aligned(k + c * lanes));
    });
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
        const batch q0(q[r * dp]), start(-m[r]);
        unrolled<Cols>([&](auto c)
                           __attribute__((always_inline)) { s[r][c] = multiply_add(q0, kv[c], start); });
    });
    for (std::size_t d = 1; d < dp; ++d) {
        const float* kd = k + d * block_keys;
        unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
            kv[c] = in_register(batch::load_aligned(kd + c * lanes));
        });
        unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
            const batch qd(q[r * dp + d]);
            unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
                s[r][c] = multiply_add(qd, kv[c], s[r][c]);
            });
        });
    }
}

#if defined(__AVX512BF16__) && defined(__AVX512F__)
/// Scores minus the rows' references from raw (unscaled) dot products, `raw(r, c)` the batch of
/// row r, column c: scaled by `factor` (scale · log2 e) and moved by the rows' references. The
/// bfloat16 products leave their sums unscaled, in registers (vdpbf16ps) or in memory (AMX).
template <std::size_t Rows, std::size_t Cols, class Raw>
[[gnu::always_inline]] inline void scaled_scores(Raw&& raw, const float* m, float factor,
                                                 batch (&s)[Rows][Cols]) noexcept {
    const batch scale(factor);
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
        const batch start(-m[r]);
        unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
            s[r][c] = multiply_add(raw(r, c), scale, start);
        });
    });
}

/// scaled_scores of raw q·k already in `raw` ([Rows][block_keys] floats: the AMX products).
template <std::size_t Rows, std::size_t Cols>
[[gnu::always_inline]] inline void given_scores(const float* raw, const float* m, float factor,
                                                batch (&s)[Rows][Cols]) noexcept {
    scaled_scores<Rows, Cols>(
        [&](auto r, auto c)
            __attribute__((always_inline)) { return batch::load_aligned(raw + r * block_keys + c * lanes); },
        m, factor, s);
}

/// packed_scores for bfloat16 operands: `q` rows of dp bfloat16 values (unscaled), `k` a block of
/// [dp / 2][block_keys] pairs of features; vdpbf16ps adds both products of a pair at once, half
/// the instructions of the float loop. Scores are then scaled (`factor`: scale · log2 e) and
/// moved by the rows' references.
template <std::size_t Rows, std::size_t Cols>
[[gnu::always_inline]] inline void packed_pair_scores(const float* q, std::size_t dp, const void* k,
                                                      const float* m, float factor,
                                                      batch (&s)[Rows][Cols]) noexcept {
    static_assert(lanes == 16);
    const auto* pairs = static_cast<const std::uint32_t*>(k);
    const auto* queries = reinterpret_cast<const char*>(q);
    __m512 acc[Rows][Cols];
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
        unrolled<Cols>([&](auto c) __attribute__((always_inline)) { acc[r][c] = _mm512_setzero_ps(); });
    });
    for (std::size_t i = 0; i < dp / 2; ++i) {
        __m512i kv[Cols];
        unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
            kv[c] = _mm512_load_si512(pairs + i * block_keys + c * lanes);
        });
        unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
            std::uint32_t pair;
            std::memcpy(&pair, queries + r * dp * sizeof(float) + i * sizeof pair, sizeof pair);
            const __m512i qq = _mm512_set1_epi32(static_cast<int>(pair));
            unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
                acc[r][c] = _mm512_dpbf16_ps(acc[r][c], (__m512bh)qq, (__m512bh)kv[c]);
            });
        });
    }
    scaled_scores<Rows, Cols>(
        [&](auto r, auto c) __attribute__((always_inline)) { return batch(acc[r][c]); }, m, factor, s);
}

#endif

/// A batch of floats from the `lanes` elements at `from`: floats as they are, bfloat16 and float16
/// widened as they are loaded (so a 16-bit KV cache is read at half the bytes, without a copy).
template <class E>
[[gnu::always_inline]] inline batch load_widened(const E* from) noexcept {
    if constexpr (std::is_same_v<E, float>) {
        return batch::load_unaligned(from);
    } else {
        [[maybe_unused]] constexpr bool brain = std::is_same_v<E, bfloat16>;
        // xsimd's batches are the widest the build enables: 16 lanes with AVX-512, 8 with AVX2
#if defined(__AVX512F__)
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from));
        if constexpr (brain)
            return batch(_mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
        else
            return batch(_mm512_cvtph_ps(h));
#elif defined(__AVX2__) && defined(__F16C__)
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
        if constexpr (brain)
            return batch(_mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)));
        else
            return batch(_mm256_cvtph_ps(h));
#else
        alignas(64) float wide[lanes];
        for (std::size_t i = 0; i < lanes; ++i) wide[i] = static_cast<float>(from[i]);
        return batch::load_aligned(wide);
#endif
    }
}

/// A batch that `Uses` multiply-adds take (a key batch several rows multiply, a query batch
/// several keys do): held in a register when several do (folded into each multiply-add, it was
/// loaded once per use); a memory operand of the one multiply-add otherwise.
template <std::size_t Uses>
[[gnu::always_inline]] inline batch shared_by(batch x) noexcept {
    if constexpr (Uses > 1) return in_register(x);
    return x;
}

/// Keys whose dot products row_scores computes together: each batch of a query row loaded then
/// serves all of them. For 16-bit keys, as many as the registers allow (each of Rows x keys has
/// two chains): one key at a time, q was loaded again for every key, and a 16-bit decode took
/// 1.02-1.10 x as long (paired calls, one Zen 3 core, MHA and GQA, Tk 512-2048). Float keys go
/// one at a time: read 4 at a time, their lines were no longer read in order, and a decode whose
/// keys came from memory (GQA 32/8 x 128, Tk 2048 and 4096) took 1.15-1.2 x as long. bfloat16
/// keys of 4 rows 4 at a time (their registers would hold them, with one chain) ran 0.87 x as
/// fast from memory (one Zen 4 core).
template <std::size_t Rows, class E>
inline constexpr std::size_t keys_at_once = std::is_same_v<E, float>
                                                ? 1
                                                : std::clamp<std::size_t>(vector_registers / 2 / (2 * Rows),
                                                                          1, 4);

/// acc[r][k] += q row r's batch at feature w times key k's: the keys' batches loaded (and
/// widened) once for all the rows, the query's once for all the keys.
template <std::size_t Rows, std::size_t Keys, class E>
[[gnu::always_inline]] inline void add_feature_batch(batch (&acc)[Rows][Keys], const float* q, std::size_t dp,
                                                     const E* const (&key)[Keys], std::size_t w) noexcept {
    batch kw[Keys];
    unrolled<Keys>([&](auto k)
                       __attribute__((always_inline)) { kw[k] = shared_by<Rows>(load_widened(key[k] + w)); });
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
        const batch qr = shared_by<Keys>(batch::load_aligned(q + r * dp + w));
        unrolled<Keys>([&](auto k) __attribute__((always_inline)) {
            acc[r][k] = multiply_add(qr, kw[k], acc[r][k]);
        });
    });
}

/// add_feature_batch over the split chunk of bfloat16 keys at feature w, the queries in split
/// order (split_pairs.hpp): a load, a shift and a mask per key for two batches of features, where
/// widening took a load, a lane shuffle and a shift per batch.
template <std::size_t Rows, std::size_t Keys>
[[gnu::always_inline]] inline void add_split_chunk(batch (&acc)[Rows][Keys], const float* q, std::size_t dp,
                                                   const bfloat16* const (&key)[Keys],
                                                   std::size_t w) noexcept {
    batch even[Keys], odd[Keys];
    unrolled<Keys>([&](auto k) __attribute__((always_inline)) {
        const auto [e, o] = load_split(key[k] + w);
        even[k] = shared_by<Rows>(e);
        odd[k] = shared_by<Rows>(o);
    });
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
        const batch qe = shared_by<Keys>(batch::load_aligned(q + r * dp + w));
        const batch qo = shared_by<Keys>(batch::load_aligned(q + r * dp + w + lanes));
        unrolled<Keys>([&](auto k) __attribute__((always_inline)) {
            acc[r][k] = multiply_add(qo, odd[k], multiply_add(qe, even[k], acc[r][k]));
        });
    });
}

/// Scores minus the rows' references of `Rows` rows against keys stored row by row (decode reads
/// K as it is), written to `out` ([Rows][block_keys]): per key and row a batch of partial dot
/// products, summed `lanes` keys at a time into one batch of scores (transposed_sums). Keys are
/// read in their order: in the order of the folds' lanes (0, 8, 4, 12, ...) the hardware
/// prefetchers lost the stream, and a cold cache was read at half the bandwidth (measured: 10.8
/// against 19.2 GiB/s, one Zen 4 core). Keys from `keys` on are not read (their scores are those
/// of the last key read; limits mask them). A grouped-query head's rows share their keys: each
/// key batch is loaded once for all the rows, each query batch once for keys_at_once keys.
/// Compiled per row count but not per head size (the loop over features stays a loop): as fast
/// (measured), and the kernel's build 9 s shorter.
///
/// `values` (rows `vs` apart), when given: each key's value row is asked for as the key is read,
/// so that the block's values are in the cache when its P·V reads them. That P·V takes a few
/// batches of features of every key per pass, lines a row apart, and from memory the hardware
/// prefetchers did not bring them in ahead: a GQA 32/8 x 128 decode from memory took 2.4 x as
/// long with its P·V as without, in the cache 1.75 x (one Zen 3 core). Asked for here: 1.24-1.34
/// x faster from memory (fp32), 1.32-1.46 x (bfloat16), level in the cache (paired calls).
/// Steps of one row never ask, and have no test for it in their loop: a multi-head decode gained
/// at most 1.06 x from memory and ran 1.1 x slower in the cache (asked into L2, 0.74-0.89 x).
/// `into_l2`: asked into L2 only (asks_values_into_l2 says when).
template <std::size_t Rows, class E>
[[gnu::noinline]] void row_scores(const float* q, std::size_t dp, const E* k, std::ptrdiff_t ks,
                                  std::size_t keys, const float* m, float* out, const E* values,
                                  std::ptrdiff_t vs, bool into_l2) noexcept {
    constexpr std::size_t together = keys_at_once<Rows, E>;
    // Two chains per row and key (even and odd batches of features): in one, each multiply-add
    // waited on the one before (16 in a row at d = 128), and float16 keys give the scores of
    // floats of the same values, bit for bit. bfloat16 keys, read split (add_split_chunk), take
    // one: with `together` x Rows >= 4 chains in flight, the second only cost its adds
    // (paired calls, one Zen 4 core, keys in the cache: 1.02-1.10 x faster with one, GQA 32/8 x
    // 128, MHA 12 x 64, 3 queries of d = 96; twice as many keys at once then ran 0.87 x as fast
    // from memory, see keys_at_once).
    constexpr std::size_t chains = std::is_same_v<E, bfloat16> ? 1 : 2;
    static_assert(lanes % together == 0);
    for (std::size_t c = 0; c < block_keys / lanes; ++c) {
        // per row, a batch of partial products per key, summed once the `lanes` keys are done
        batch partial[Rows][lanes];
        // A few keys at a time, each from its start to its end, in a loop that stays a loop: each
        // load instruction then steps `together` keys at a time, which the stride prefetcher
        // follows (unrolled, each ran once per 16 keys, 4 KiB apart, and the K pass took twice
        // the V pass's time). Keys are independent: out-of-order execution overlaps their chains.
#if defined(__clang__)
#pragma clang loop unroll(disable)
#else
#pragma GCC unroll 1
#endif
        for (std::size_t t = 0; t < lanes; t += together) {
            const E* key[together];
            unrolled<together>([&](auto i) __attribute__((always_inline)) {
                const auto j = static_cast<std::ptrdiff_t>(std::min(c * lanes + t + i, keys - 1));
                key[i] = k + j * ks;
                if constexpr (Rows > 1) {
                    if (values == nullptr) return;
                    if (values_into_l2_blocks && into_l2)
                        prefetch_lines<cache_level::l2>(values + j * vs, dp * sizeof(E));
                    else
                        prefetch_lines(values + j * vs, dp * sizeof(E));
                }
            });
            batch acc[chains][Rows][together];
            unrolled<chains>([&](auto h) __attribute__((always_inline)) {
                unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
                    unrolled<together>([&](auto i)
                                           __attribute__((always_inline)) { acc[h][r][i] = batch(0.0f); });
                });
            });
            std::size_t w = 0;
            if constexpr (std::is_same_v<E, bfloat16>) // split chunks: even features in chain 0
                for (; w < split_features(dp); w += split_chunk) add_split_chunk(acc[0], q, dp, key, w);
            else
                for (; w + chains * lanes <= dp; w += chains * lanes)
                    unrolled<chains>([&](auto h) __attribute__((always_inline)) {
                        add_feature_batch(acc[h], q, dp, key, w + h * lanes);
                    });
            if (w < dp) add_feature_batch(acc[0], q, dp, key, w); // an odd number of batches
            unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
                unrolled<together>([&](auto i) __attribute__((always_inline)) {
                    batch sum = acc[0][r][i];
                    unrolled<chains - 1>([&](auto h)
                                             __attribute__((always_inline)) { sum += acc[h + 1][r][i]; });
                    partial[r][t + i] = sum;
                });
            });
        }
        for (std::size_t r = 0; r < Rows; ++r)
            (transposed_sums(partial[r]) - batch(m[r])).store_aligned(out + r * block_keys + c * lanes);
    }
}

/// Accumulators [Rows][W batches] at feature offset `at` += weights (s.p) times value rows.
/// `Split`: the W batches are W / 2 split chunks of bfloat16 values, the accumulators in split
/// order (split_pairs.hpp). `Asks`: with each of the first `ask_rows` keys j, the same features of
/// the row at `ask` + j · `ask_stride` are asked for into L2 (key_block::next_keys).
template <std::size_t Rows, std::size_t W, class E, bool Split = false, bool Asks = false>
[[gnu::always_inline]] inline void
weighted_values(float* o, std::size_t dp, const float* p, const E* v, std::ptrdiff_t vs, std::size_t keys,
                const E* ask = nullptr, std::ptrdiff_t ask_stride = 0, std::size_t ask_rows = 0) noexcept {
    batch acc[Rows][W];
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
        unrolled<W>([&](auto w) __attribute__((always_inline)) {
            acc[r][w] = batch::load_aligned(o + r * dp + w * lanes);
        });
    });
    for (std::size_t j = 0; j < keys; ++j) {
        const E* vj = v + static_cast<std::ptrdiff_t>(j) * vs;
        if (Asks && j < ask_rows)
            prefetch_lines<cache_level::l2>(ask + static_cast<std::ptrdiff_t>(j) * ask_stride,
                                            W * lanes * sizeof(E));
        batch vv[W];
        if constexpr (Split) {
            unrolled<W / 2>([&](auto c) __attribute__((always_inline)) {
                const auto [even, odd] = load_split(vj + c * split_chunk);
                vv[2 * c] = in_register(even);
                vv[2 * c + 1] = in_register(odd);
            });
        } else {
            unrolled<W>([&](auto w) __attribute__((always_inline)) {
                vv[w] = in_register(load_widened(vj + w * lanes));
            });
        }
        unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
            const batch pj(p[r * block_keys + j]);
            unrolled<W>([&](auto w) __attribute__((always_inline)) {
                acc[r][w] = multiply_add(pj, vv[w], acc[r][w]);
            });
        });
    }
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
        unrolled<W>([&](auto w)
                        __attribute__((always_inline)) { acc[r][w].store_aligned(o + r * dp + w * lanes); });
    });
}

/// Batches of features a P·V pass of `Rows` rows covers at most: Rows x W accumulators, W value
/// batches and a broadcast weight within the registers, with one to spare; 4 at most (2 for a
/// 4-row tile in 16 registers).
template <std::size_t Rows>
inline constexpr std::size_t widest_pass = std::min<std::size_t>(4, (vector_registers - 2) / (Rows + 1));

/// How many batches of features the i-th of the P·V passes covers: at most `widest`, the passes
/// as even as possible.
constexpr std::size_t pass_width(std::size_t batches, std::size_t widest, std::size_t i) noexcept {
    const std::size_t passes = (batches + widest - 1) / widest;
    return batches / passes + (i < batches % passes ? 1 : 0);
}

/// Calls pass(integral_constant<W>, at) for every pass of the P·V of `Rows` rows over the padded
/// head size (W batches of features from feature `at`): unrolled when D is known, dispatched
/// otherwise.
template <std::size_t D, std::size_t Rows, class Pass>
[[gnu::always_inline]] inline void for_each_value_pass(std::size_t dp, Pass&& pass) {
    constexpr std::size_t widest = widest_pass<Rows>;
    static_assert(widest >= 1 && widest <= 4);
    if constexpr (D != 0) {
        constexpr std::size_t batches = D / lanes, passes = (batches + widest - 1) / widest;
        std::size_t at = 0;
        unrolled<passes>([&](auto i) __attribute__((always_inline)) {
            constexpr std::size_t width = pass_width(batches, widest, i);
            pass(std::integral_constant<std::size_t, width>{}, at);
            at += width * lanes;
        });
    } else {
        const std::size_t batches = dp / lanes, passes = (batches + widest - 1) / widest;
        std::size_t at = 0;
        for (std::size_t i = 0; i < passes; ++i) {
            const std::size_t width = pass_width(batches, widest, i);
            switch (width) {
            case 1:
                pass(std::integral_constant<std::size_t, 1>{}, at);
                break;
            case 2:
                pass(std::integral_constant<std::size_t, 2>{}, at);
                break;
            case 3:
                pass(std::integral_constant<std::size_t, 3>{}, at);
                break;
            default:
                pass(std::integral_constant<std::size_t, 4>{}, at);
                break;
            }
            at += width * lanes;
        }
    }
}

/// for_each_value_pass over bfloat16 values read split (split_pairs.hpp): passes of whole split
/// chunks, pass(integral_constant<W>, at, true), then the last batch, in feature order, when the
/// head size is an odd number of batches: pass(integral_constant<1>, at, false).
template <std::size_t Rows, class Pass>
[[gnu::always_inline]] inline void for_each_split_value_pass(std::size_t dp, Pass&& pass) {
    constexpr std::size_t widest = widest_pass<Rows> / 2; // in chunks
    static_assert(widest >= 1 && widest <= 2);
    const std::size_t chunks = split_features(dp) / split_chunk, passes = (chunks + widest - 1) / widest;
    std::size_t at = 0;
    for (std::size_t i = 0; i < passes; ++i) {
        const std::size_t width = pass_width(chunks, widest, i);
        if (width == 1)
            pass(std::integral_constant<std::size_t, 2>{}, at, std::true_type{});
        else
            pass(std::integral_constant<std::size_t, 2 * widest>{}, at, std::true_type{});
        at += width * split_chunk;
    }
    if (at < dp) pass(std::integral_constant<std::size_t, 1>{}, at, std::false_type{});
}

/// P·V over every pass of the padded head size; bfloat16 values read split, into accumulators in
/// split order. `Asks`: each pass asks for its features of the rows at `ask` (weighted_values).
template <std::size_t D, std::size_t Rows, class E, bool Asks = false>
inline void all_weighted_values(float* o, std::size_t dp, const float* p, const E* v, std::ptrdiff_t vs,
                                std::size_t keys, const E* ask = nullptr, std::ptrdiff_t ask_stride = 0,
                                std::size_t ask_rows = 0) noexcept {
    if constexpr (D != 0) dp = D;
    if constexpr (std::is_same_v<E, bfloat16>) {
        for_each_split_value_pass<Rows>(
            dp, [&](auto width, std::size_t at, auto split) __attribute__((always_inline)) {
                weighted_values<Rows, width, E, split, Asks>(o + at, dp, p, v + at, vs, keys,
                                                             ask ? ask + at : nullptr, ask_stride, ask_rows);
            });
    } else {
        for_each_value_pass<D, Rows>(
            dp, [&](auto width, std::size_t at) __attribute__((always_inline)) {
                weighted_values<Rows, width, E, false, Asks>(o + at, dp, p, v + at, vs, keys,
                                                             ask ? ask + at : nullptr, ask_stride, ask_rows);
            });
    }
}

#if defined(__AVX512BF16__) && defined(__AVX512F__)
/// weighted_values on vdpbf16ps: `p` rows of bfloat16 weights ([Rows][2 * block_keys] halves, so
/// that keys 2i and 2i + 1 are one pair), `v` the block's values in pairs of keys (key_block::v).
/// Half the instructions of the float loop: each adds the products of two keys.
template <std::size_t Rows, std::size_t W>
[[gnu::always_inline]] inline void weighted_value_pairs(float* o, std::size_t dp, const std::uint16_t* p,
                                                        const std::uint32_t* v, std::size_t keys) noexcept {
    __m512 acc[Rows][W];
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
        unrolled<W>([&](auto w) __attribute__((always_inline)) {
            acc[r][w] = _mm512_load_ps(o + r * dp + w * lanes);
        });
    });
    for (std::size_t i = 0; i < (keys + 1) / 2; ++i) {
        __m512i vv[W];
        unrolled<W>([&](auto w) __attribute__((always_inline)) {
            vv[w] = _mm512_load_si512(v + i * dp + w * lanes);
        });
        unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
            std::uint32_t pair;
            std::memcpy(&pair, p + r * 2 * block_keys + 2 * i, sizeof pair);
            const __m512i pp = _mm512_set1_epi32(static_cast<int>(pair));
            unrolled<W>([&](auto w) __attribute__((always_inline)) {
                acc[r][w] = _mm512_dpbf16_ps(acc[r][w], (__m512bh)pp, (__m512bh)vv[w]);
            });
        });
    }
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
        unrolled<W>([&](auto w) __attribute__((always_inline)) {
            _mm512_store_ps(o + r * dp + w * lanes, acc[r][w]);
        });
    });
}

/// P·V on vdpbf16ps over every pass of the padded head size.
template <std::size_t D, std::size_t Rows>
inline void all_weighted_value_pairs(float* o, std::size_t dp, const float* p, const void* v,
                                     std::size_t keys) noexcept {
    if constexpr (D != 0) dp = D;
    const auto* weights = reinterpret_cast<const std::uint16_t*>(p);
    const auto* pairs = static_cast<const std::uint32_t*>(v);
    for_each_value_pass<D, Rows>(
        dp, [&](auto width, std::size_t at) __attribute__((always_inline)) {
            weighted_value_pairs<Rows, width>(o + at, dp, weights, pairs + at, keys);
        });
}
#endif

/// Every lane of the result is the largest lane of `x`: log2(lanes) rounds of a max with the
/// lanes swapped in pairs, quadruples, ... (xsimd 8.1 has no reduce_max).
[[gnu::always_inline]] inline batch all_lanes_max(batch x) noexcept {
    unrolled<std::countr_zero(lanes)>([&](auto round) __attribute__((always_inline)) {
        constexpr std::size_t w = lanes >> (round + 1);
        const tile_vectors::floats v = tile_vectors::as_floats(x);
        const auto swapped = [&]<std::size_t... L>(std::index_sequence<L...>) {
            return __builtin_shufflevector(v, v, static_cast<int>(L ^ w)...);
        }
        (std::make_index_sequence<lanes>{});
        x = xsimd::max(x, tile_vectors::as_batch(swapped));
    });
    return x;
}

/// The rare part of the online softmax: row `row`'s largest x in a block, `lift`, exceeds its
/// threshold. Its reference rises by `lift` (the caller takes it off the row's scores), and its
/// sum (and, online, its accumulators) are scaled by 2^-lift, unless it had seen no key yet.
/// Whether it had (a first reference is no rise: 2^-lift may then overflow).
template <step_mode Mode>
[[gnu::always_inline]] inline bool raise_reference(row_set& s, std::size_t row, float lift) noexcept {
    s.m[row] += lift;
    if (std::exchange(s.t[row], rescale_slack) == unseen_threshold) return false; // nothing to rescale
    if constexpr (Mode == step_mode::reference) return true;                      // no sum kept
    const batch alpha = exp2_poly(batch(-lift));
    float* l = s.l + row * lanes;
    (batch::load_aligned(l) * alpha).store_aligned(l);
    if constexpr (Mode == step_mode::online) {
        float* o = s.o + row * s.dp;
        for (std::size_t k = 0; k < s.dp; k += lanes)
            (batch::load_aligned(o + k) * alpha).store_aligned(o + k);
    }
    return true;
}

#if defined(__AVX512BF16__) && defined(__AVX512F__)
/// Stores a batch of weights rounded to bfloat16 at `to` (32-byte aligned), as the paired P·V
/// reads them.
[[gnu::always_inline]] inline void store_bfloat16(std::uint16_t* to, batch x) noexcept {
    _mm256_store_si256(reinterpret_cast<__m256i*>(to), (__m256i)_mm512_cvtneps_pbh(x));
}

/// Stores two batches of weights rounded to bfloat16 at `to`, `low`'s first: one conversion of
/// both instead of one each.
[[gnu::always_inline]] inline void store_bfloat16_pair(std::uint16_t* to, batch low, batch high) noexcept {
    _mm512_storeu_si512(to, (__m512i)_mm512_cvtne2ps_pbh(high, low));
}

/// Multiplies `count` bfloat16 weights (a multiple of lanes) by `factor`, rounding again: a raised
/// reference's scaling of weights already rounded whose P·V has not run yet (tile_step).
inline void scale_bfloat16(std::uint16_t* weights, std::size_t count, batch factor) noexcept {
    for (std::size_t j = 0; j < count; j += lanes)
        store_bfloat16(weights + j, load_widened(reinterpret_cast<const bfloat16*>(weights + j)) * factor);
}
#endif

/// Copies a tile's weights (`weights`) to the weights output: keys [kb, kb + keys).
inline void write_weights(const attention_problem& p, const row_set& s, std::size_t first,
                          const float* weights, std::size_t kb, std::size_t keys) noexcept {
    for (std::size_t r = 0; r < tile_rows; ++r) {
        if (!s.real(first + r)) continue;
        const weights_row w = weights_of(p, s, first + r);
        const float* from = weights + r * block_keys;
        if (w.stride == 1) {
            std::copy(from, from + keys, &w.at(kb));
        } else {
            for (std::size_t j = 0; j < keys; ++j) w.at(kb + j) = from[j];
        }
    }
}

/// The P·V of a step (tile_step) over the first `keys` keys of block `b`, its weights at
/// `weights`: on vdpbf16ps when the block is packed in bfloat16 pairs. Steps of more than one row
/// over key rows ask for b.next_keys meanwhile; one-row steps, whose P·V is a few multiply-adds a
/// key, ran 0.83-0.96 x as fast with those requests (multi-head decode, Tk 512 and 4096).
template <std::size_t D, std::size_t Rows, bool Packed, class E = float>
void step_values(row_set& s, std::size_t first, const key_block& b, std::size_t keys,
                 float* weights) noexcept {
    const std::size_t dp = D != 0 ? D : s.dp;
#if defined(__AVX512BF16__) && defined(__AVX512F__)
    if (Packed && b.bf16_pairs)
        return all_weighted_value_pairs<D, Rows>(s.o + first * dp, dp, weights, b.v, keys);
#endif
    if constexpr (!Packed && Rows > 1)
        all_weighted_values<D, Rows, E, true>(s.o + first * dp, dp, weights, static_cast<const E*>(b.v),
                                              b.v_stride, keys, static_cast<const E*>(b.next_keys),
                                              b.k_stride, b.next_key_count);
    else
        all_weighted_values<D, Rows>(s.o + first * dp, dp, weights, static_cast<const E*>(b.v), b.v_stride,
                                     keys);
}

/// One step: rows [first, first + Rows) of `s` through block `b`, scores over its first Cols
/// batches of keys (later keys of the block are masked for every row), weights kept at
/// `weights` ([Rows][block_keys]). `Packed` says whether b.k is a packed block (of floats) or key
/// rows (of E, as the values). `Values`: whether the step ends with its P·V, or leaves it to the
/// caller (step_values), which can then run it beside the next step's scores.
template <std::size_t D, std::size_t Rows, std::size_t Cols, step_mode Mode, bool Packed, class E = float,
          bool Values = true>
void tile_step(const attention_problem& p, row_set& s, std::size_t first, const key_block& b,
               float* const weights) noexcept {
    static_assert(!Packed || std::is_same_v<E, float>);
    // Locals, not members of s: stores through float pointers could otherwise change them.
    const std::size_t dp = D != 0 ? D : s.dp;
    const float* const q = s.q + first * dp;
    const float* const m = s.m + first;
    const float* const threshold = s.t + first;
    float* const l = s.l + first * lanes;
    const float* const keep = s.keep;
    const std::ptrdiff_t* const end = s.end + first;
    batch sc[Rows][Cols];
    bool paired = false; // scores and P·V on vdpbf16ps
    if constexpr (Packed) {
#if defined(__AVX512BF16__) && defined(__AVX512F__)
        if constexpr (Mode == step_mode::online) { // the weights path packs floats: fewer steps to compile
            paired = b.bf16_pairs;
            if (paired && b.scores_given)
                given_scores<Rows, Cols>(b.raw_scores, m, p.scale * log2e, sc);
            else if (paired)
                packed_pair_scores<Rows, Cols>(q, dp, b.k, m, p.scale * log2e, sc);
        }
#endif
        if (!paired) packed_scores<Rows, Cols>(q, dp, static_cast<const float*>(b.k), m, sc);
    } else {
        row_scores<Rows>(q, dp, static_cast<const E*>(b.k), b.k_stride, b.keys, m, weights,
                         b.prefetch_values ? static_cast<const E*>(b.v) : nullptr, b.v_stride,
                         b.values_into_l2);
        unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
            unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
                sc[r][c] = batch::load_aligned(weights + r * block_keys + c * lanes);
            });
        });
    }

    if (b.bias) {
        // A key the mask leaves out takes the masked score whatever its own is, so that a NaN
        // or an infinity in it cannot reach the row (as the causal and length limits below).
        const float* const bias = s.bias;
        unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
            unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
                const batch add = batch::load_aligned(bias + r * block_keys + c * lanes);
                sc[r][c] = xsimd::select(add == batch(masked_score), add, sc[r][c] + add);
            });
        });
    }
    if (b.limit) {
        unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
            const auto keys = std::clamp<std::ptrdiff_t>(end[r] - static_cast<std::ptrdiff_t>(b.first), 0,
                                                         static_cast<std::ptrdiff_t>(block_keys));
            const batch limit(static_cast<float>(keys));
            unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
                const batch at = batch::load_unaligned(key_offsets.data() + c * lanes);
                sc[r][c] = xsimd::select(at < limit, sc[r][c], batch(masked_score));
            });
        });
    }

    if constexpr (Mode != step_mode::weights) {
        batch top[Rows];
        auto raise = batch(0.0f) != batch(0.0f);
        unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
            top[r] = sc[r][0];
            unrolled<Cols - 1>([&](auto c) __attribute__((always_inline)) {
                top[r] = xsimd::max(top[r], sc[r][c + 1]);
            });
            raise = raise | (top[r] > batch(threshold[r]));
        });
        if (xsimd::any(raise)) {
            unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
                const batch lift = all_lanes_max(top[r]);
                if (!(lift.get(0) > threshold[r])) return;
                [[maybe_unused]] const bool seen = raise_reference<Mode>(s, first + r, lift.get(0));
#if defined(__AVX512BF16__) && defined(__AVX512F__)
                if (paired && seen && b.weights_offset != 0) // weights of keys the row saw before
                    scale_bfloat16(reinterpret_cast<std::uint16_t*>(weights + r * b.weights_stride),
                                   b.weights_offset, exp2_poly(batch(-lift)));
#endif
                unrolled<Cols>([&](auto c) __attribute__((always_inline)) { sc[r][c] -= lift; });
            });
        }
    }
    if constexpr (Mode == step_mode::reference) return; // the reference is all this pass keeps
    // Row by row, so that a row's registers are free once its weights are stored.
    unrolled<Rows>([&](auto r) __attribute__((always_inline)) {
#if defined(__AVX512BF16__) && defined(__AVX512F__)
        if (paired) // weights rounded to bfloat16 next: a coarser 2^x will do
            unrolled<Cols>([&](auto c)
                               __attribute__((always_inline)) { sc[r][c] = exp2_for_bfloat16(sc[r][c]); });
        else
#endif
            unrolled<Cols>([&](auto c) __attribute__((always_inline)) { sc[r][c] = exp2_poly(sc[r][c]); });
        batch sum = sc[r][0];
        unrolled<Cols - 1>([&](auto c) __attribute__((always_inline)) { sum += sc[r][c + 1]; });
        (batch::load_aligned(l + r * lanes) + sum).store_aligned(l + r * lanes);
        if (b.dropout) {
            unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
                sc[r][c] *= batch::load_aligned(keep + r * block_keys + c * lanes);
            });
        }
#if defined(__AVX512BF16__) && defined(__AVX512F__)
        if (paired) { // rounded to bfloat16, in the row's first half, or after the previous block's
            auto* row = reinterpret_cast<std::uint16_t*>(weights + r * b.weights_stride) + b.weights_offset;
            unrolled<Cols / 2>([&](auto c) __attribute__((always_inline)) {
                store_bfloat16_pair(row + 2 * c * lanes, sc[r][2 * c], sc[r][2 * c + 1]);
            });
            if constexpr (Cols % 2 == 1) store_bfloat16(row + (Cols - 1) * lanes, sc[r][Cols - 1]);
            return;
        }
#endif
        unrolled<Cols>([&](auto c) __attribute__((always_inline)) {
            sc[r][c].store_aligned(weights + r * block_keys + c * lanes);
        });
    });
    if constexpr (Mode == step_mode::weights)
        write_weights(p, s, first, weights, b.first, std::min(Cols * lanes, p.keys - b.first));
    if constexpr (Values)
        step_values<D, Rows, Packed, E>(s, first, b, std::min(b.keys, Cols * lanes), weights);
}

/// A step of a full tile (`Rows` rows) over its first `cols` batches of keys (1 to 4), its
/// weights kept at `weights`, with or without its P·V (tile_step's `Values`): the online pass
/// trims a block on a causal diagonal or at the keys' end to the columns any row sees. The two
/// passes of the weights path, slow anyway, always take 4 (limits mask the rest): fewer
/// functions to compile.
template <std::size_t D, step_mode Mode, bool Values, std::size_t Rows = tile_rows>
void packed_step(std::size_t cols, const attention_problem& p, row_set& s, std::size_t first,
                 const key_block& b, float* weights) noexcept {
    if constexpr (Mode != step_mode::online) {
        tile_step<D, Rows, 4, Mode, true, float, Values>(p, s, first, b, weights);
    } else {
        switch (cols) {
        case 1:
            tile_step<D, Rows, 1, Mode, true, float, Values>(p, s, first, b, weights);
            break;
        case 2:
            tile_step<D, Rows, 2, Mode, true, float, Values>(p, s, first, b, weights);
            break;
        case 3:
            tile_step<D, Rows, 3, Mode, true, float, Values>(p, s, first, b, weights);
            break;
        default:
            tile_step<D, Rows, 4, Mode, true, float, Values>(p, s, first, b, weights);
            break;
        }
    }
}

/// Rows of the decode path's steps: a tile of other sizes takes the next one up (its last rows
/// are fillers, masked), so that only four versions are compiled.
inline constexpr std::size_t row_step_rows(std::size_t rows) noexcept {
    return rows <= 1 ? 1 : rows <= 2 ? 2 : rows <= 4 ? 4 : most_tile_rows;
}

/// A decode step of more than one row, out of line. Inlined into the decode's loop, as g++ 12
/// chose once their P·V asked for the next block's keys, they made the loop's one-row steps (a
/// multi-head decode) 0.94-0.96 x as fast (paired calls, one Zen 4 core).
template <std::size_t D, std::size_t Rows, class E>
[[gnu::noinline]] void grouped_row_step(const attention_problem& p, row_set& s, std::size_t first,
                                        const key_block& b) noexcept {
    tile_step<D, Rows, 4, step_mode::online, false, E>(p, s, first, b, s.p);
}

/// A step of rows [first, first + row_step_rows(rows)) over key rows of E: the decode path, whose
/// tiles are the few (head, query) rows of one key/value head.
/// Steps larger than E's decode tile are never asked for: capped, they compile to the same one.
template <std::size_t D, class E>
void row_step(std::size_t rows, const attention_problem& p, row_set& s, std::size_t first,
              const key_block& b) noexcept {
    constexpr std::size_t most = decode_tile_rows(std::is_same_v<E, float>);
    switch (row_step_rows(rows)) {
    case 1:
        tile_step<D, 1, 4, step_mode::online, false, E>(p, s, first, b, s.p);
        break;
    case 2:
        grouped_row_step<D, std::min<std::size_t>(2, most), E>(p, s, first, b);
        break;
    case 4:
        grouped_row_step<D, std::min<std::size_t>(4, most), E>(p, s, first, b);
        break;
    default:
        grouped_row_step<D, most, E>(p, s, first, b);
        break;
    }
}

} // namespace ctein::kernels::attention_detail

#include "detail/quiet_intrinsics_end.hpp"
