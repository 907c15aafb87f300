// Where the prefill's step loses its time, layer by layer: each layer runs the one below it with
// more of the kernel around it, so the drop from one to the next is what that layer adds. Per
// step (a tile of query rows through a block of keys), the fastest of many runs (on a shared VM a
// neighbour only ever slows a run down), as a share of the FMA peak measured in the same run:
//
//   1. q·kᵀ's loop alone, its scores stored as a step stores its weights (summed instead, in
//      one chain of adds, the loop ran 3 points of the peak slower at D = 64);
//   1b. for comparison, not the kernel's: the same products with the queries transposed (32 rows
//      as two batches of lanes) and 12 keys broadcast from their own rows, so that K would need
//      no packing (the layout of the prototype of layers 4b and 6b below);
//   2. P·V's loop alone (both loops' blocks in L2, as in the kernel);
//   3. 2^x of a step's scores;
//   3a. the kernel's steps on one tile through one block whose keys and values are the same
//      floats, each step with its own P·V, so that what a step reads stays in L1: the step's own
//      cost (at D = 128 the block fills L1 alone);
//   3b. the kernel's steps (rounds of tiles) over one piece and as many blocks as layer 4, the
//      head's first 8 again and again: blocks from L2 (512 KiB at D = 128);
//   4. the kernel's steps (scores, softmax, P·V in rounds) over one piece's tiles and every key
//      block, on the call's packed keys and values, without the pass around them;
//   5. one piece's pass (prefill_pass: queries, bookkeeping, outputs), keys already packed;
//   6. the whole call (packing, every piece);
//   6a. the same call with every head on head 0's queries, keys, values and outputs (strides of
//      0 between heads): what reading each head's operands the first time costs;
//   6c. the call's own bytes alone: its q, k and v read once and its output written once, as
//      often as the call runs (ns per step of the call: its share of the call's time).
//
// and, for comparison, a prototype of a whole step with a query per lane (query_lanes.hpp: K and
// V read in place, the softmax lane by lane; not the kernel's, measured level with it):
//
//   4b. its steps over the piece's queries (48 a tile) and every key, queries transposed in and
//      outputs out, each checked once against the kernel's outputs;
//   6b. its steps over every head's queries, as the whole call (1 thread, no packing).
//
//   kernel_layers HQ HKV D TK f32 TQ      (the call: ../kernel_call.hpp; 1 thread, no mask, and D
//   one of the kernel's compiled head sizes: 32, 64, 80, 128)
#include "../fma_peak.hpp"
#include "../kernel_call.hpp"
#include "../timing.hpp"
#include "query_lanes.hpp"

#include <ctein/kernels/attention.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {
using namespace ctein::kernels;
using namespace ctein::kernels::attention_detail;
using ctein::bench::aligned_vector;

constexpr std::size_t cols = block_keys / lanes;

/// Layer 1b's tile: query rows as batches of lanes, keys a step.
constexpr std::size_t in_place_row_batches = 2, in_place_keys = 12;

/// Layer 1b: scores of in_place_row_batches * lanes query rows (`qt`: [D][rows], transposed)
/// against in_place_keys keys read in their rows (`k`, stride D), each key element broadcast.
template <std::size_t D>
[[gnu::always_inline]] inline void in_place_scores(const float* qt, const float* k,
                                                   batch (&s)[in_place_row_batches][in_place_keys]) {
    constexpr std::size_t rows = in_place_row_batches * lanes;
    unrolled<in_place_row_batches>(
        [&](auto r) { unrolled<in_place_keys>([&](auto j) { s[r][j] = batch(0.0f); }); });
    for (std::size_t d = 0; d < D; ++d) {
        batch qd[in_place_row_batches];
        unrolled<in_place_row_batches>(
            [&](auto r) { qd[r] = batch::load_aligned(qt + d * rows + r * lanes); });
        unrolled<in_place_keys>([&](auto j) {
            const batch kj(k[j * D + d]);
            unrolled<in_place_row_batches>([&](auto r) { s[r][j] = multiply_add(qd[r], kj, s[r][j]); });
        });
    }
}

/// Layers 4b and 6b: the query-per-lane prototype over queries [0, rows) of heads [0, heads),
/// outputs at `out` (`os` between tokens, `hs` between heads).
template <class Piece>
void query_lanes_heads(Piece& piece, const attention_problem& p, std::size_t heads, std::size_t rows,
                       float* out, std::ptrdiff_t os, std::ptrdiff_t hs) {
    const float* q = static_cast<const float*>(p.q);
    const float* k = static_cast<const float*>(p.k);
    const float* v = static_cast<const float*>(p.v);
    for (std::size_t h = 0; h < heads; ++h) {
        const auto head = static_cast<std::ptrdiff_t>(h);
        for (std::size_t i = 0; i < rows; i += Piece::W) {
            const auto row = static_cast<std::ptrdiff_t>(i);
            piece.tile(q + head * p.q_strides.head + row * p.q_strides.token, p.q_strides.token,
                       k + head * p.k_strides.head, p.k_strides.token, v + head * p.v_strides.head,
                       p.v_strides.token, p.keys, p.scale, out + head * hs + row * os, os);
        }
    }
}

constexpr int runs = 8;
constexpr int turns = 8;

/// One layer: its name, its work (`steps` steps a run) and the flops of a step (0: not counted).
struct layer {
    const char* name;
    std::function<void()> work;
    double steps, flops;
    double fastest = 1e30; ///< seconds a step
};

/// The layers and the FMA peak measured by turns, `turns` times `runs` runs each, so that each
/// figure's fastest run comes from a quiet moment of a shared machine rather than from one stretch
/// of it; the peak (GFLOP/s), the fastest of all its runs.
inline double measure(std::vector<layer>& all) {
    double peak = 0;
    for (int turn = 0; turn < turns; ++turn) {
        peak = std::max(peak, ctein::bench::fma_peak_gflops(1, runs));
        for (layer& l : all)
            l.fastest = std::min(l.fastest, ctein::bench::fastest_seconds(l.work, runs) / l.steps);
    }
    return peak;
}

struct layers {
    const attention_problem& p;
    std::string describe;
    std::size_t piece = prefill_queries(p.query_heads / p.kv_heads);

    /// Multiply-adds of one step's q·kᵀ (P·V has as many).
    [[nodiscard]] double product_flops() const {
        return 2.0 * tile_rows * block_keys * static_cast<double>(p.head_size);
    }
    static void print(const layer& l, double peak) {
        if (l.flops > 0)
            std::printf("  %-58s %8.0f ns  %5.1f %% of peak\n", l.name, l.fastest * 1e9,
                        100.0 * l.flops / l.fastest * 1e-9 / peak);
        else
            std::printf("  %-58s %8.0f ns\n", l.name, l.fastest * 1e9);
    }

    /// A row set of a whole piece of head 0, queries 0 to `piece`, in `storage` (not the thread's,
    /// which the whole call uses), its queries loaded, as prefill_piece starts one. (The call's
    /// pieces end at the last query, so its first one may be shorter: piece_queries.)
    [[nodiscard]] row_set first_piece(row_storage& storage) const {
        const std::size_t rows = (std::min(piece, p.queries) + tile_rows - 1) / tile_rows * tile_rows;
        row_set s = storage.rows(rows, p.head_size);
        s.batch_index = 0;
        for (std::size_t r = 0; r < rows; ++r) {
            s.head[r] = 0;
            s.query[r] = r < p.queries ? static_cast<std::int64_t>(r) : -1;
        }
        start_rows(p, s, true);
        return s;
    }

    template <std::size_t D>
    void run() const {
        constexpr std::size_t dp = D;
        aligned_vector<float> q(tile_rows * dp, 0.03f), m(tile_rows, 0.0f), o(tile_rows * dp, 0.0f),
            weights(tile_rows * block_keys, 0.01f);
        constexpr std::size_t blocks_in_l2 = 8;
        aligned_vector<float> k(blocks_in_l2 * dp * block_keys, 0.01f),
            v(blocks_in_l2 * block_keys * dp, 0.02f);
        aligned_vector<float> sink(lanes), scores(tile_rows * block_keys);
        std::vector<layer> all;
        const double loop_steps = 2000;
        all.push_back({"1. q·kᵀ loop alone",
                       [&] {
                           for (int i = 0; i < loop_steps; ++i) {
                               batch s[tile_rows][cols];
                               packed_scores<tile_rows, cols>(
                                   q.data(), dp, k.data() + i % blocks_in_l2 * dp * block_keys, m.data(), s);
                               unrolled<tile_rows>([&](auto r) {
                                   unrolled<cols>([&](auto c) {
                                       s[r][c].store_aligned(scores.data() + (r * cols + c) * lanes);
                                   });
                               });
                           }
                       },
                       loop_steps, product_flops()});
        // the same keys as layer 1 (8 blocks of 64), as rows
        aligned_vector<float> qt(D * in_place_row_batches * lanes, 0.03f);
        constexpr std::size_t key_rows = blocks_in_l2 * block_keys / in_place_keys * in_place_keys;
        const double in_place_flops = 2.0 * in_place_row_batches * lanes * key_rows * D;
        all.push_back({"1b. (not the kernel's) q·kᵀ loop, keys read in place",
                       [&] {
                           batch sum(0.0f);
                           for (std::size_t j = 0; j < key_rows; j += in_place_keys) {
                               batch s[in_place_row_batches][in_place_keys];
                               in_place_scores<D>(qt.data(), k.data() + j * dp, s);
                               unrolled<in_place_row_batches>([&](auto r) {
                                   unrolled<in_place_keys>([&](auto c) { sum = xsimd::max(sum, s[r][c]); });
                               });
                           }
                           sum.store_aligned(sink.data());
                       },
                       in_place_flops / product_flops(), product_flops()});
        all.push_back({"2. P·V loop alone",
                       [&] {
                           for (int i = 0; i < loop_steps; ++i)
                               all_weighted_values<D, tile_rows>(
                                   o.data(), dp, weights.data(),
                                   v.data() + i % blocks_in_l2 * block_keys * dp, dp, block_keys);
                       },
                       loop_steps, product_flops()});
        all.push_back({"3. 2^x of a step's scores",
                       [&] {
                           batch sum(0.0f);
                           for (int i = 0; i < loop_steps; ++i)
                               unrolled<tile_rows>([&](auto r) {
                                   unrolled<cols>([&](auto c) {
                                       sum += exp2_poly(
                                           batch::load_aligned(weights.data() + r * block_keys + c * lanes));
                                   });
                               });
                           sum.store_aligned(sink.data());
                       },
                       loop_steps, 0});

        const packed_operands ops(p, dp, 1, 1); // head 0 alone holds the one room
        ops.rooms.enter(0);
        row_storage storage;
        row_set s = first_piece(storage);
        prefill_pass<D, step_mode::online>(p, ops, s, 0); // packs every key block of head 0
        const std::size_t blocks = (p.keys + block_keys - 1) / block_keys;
        const std::size_t tiles = s.count / tile_rows;
        const double piece_steps = static_cast<double>(tiles * blocks);
        // 3a: one tile's steps over one block whose keys and values are the same floats, each step
        // with its own P·V, so that what a step reads stays in L1 (16 KiB at D = 64; at D = 128
        // 32 KiB, L1's size): the step's own cost
        aligned_vector<float> one_block(dp * block_keys, 0.01f);
        all.push_back({"3a. the kernel's steps, one tile through one block in L1",
                       [&] {
                           key_block blk;
                           blk.keys = block_keys;
                           blk.k = blk.v = one_block.data();
                           blk.v_stride = static_cast<std::ptrdiff_t>(dp);
                           for (int i = 0; i < loop_steps; ++i)
                               packed_step<D, step_mode::online, true>(cols, p, s, 0, blk, s.p);
                       },
                       loop_steps, 2 * product_flops()});
        // The kernel's steps (rounds of tiles) of the piece through `blocks` blocks, the first
        // `count` of the head's again and again
        const auto steps_over = [&](std::size_t count) {
            return [&, count] {
                for (std::size_t b = 0; b < blocks; ++b) {
                    key_block blk;
                    blk.first = b % count * block_keys;
                    blk.keys = std::min(block_keys, p.keys - blk.first);
                    const packed_block_at at = shared_place(p, ops, 0, 0, b % count);
                    blk.k = at.k;
                    blk.v = at.v ? at.v : static_cast<const float*>(p.v) + blk.first * dp;
                    blk.v_stride = static_cast<std::ptrdiff_t>(dp);
                    for (std::size_t round = 0; round < tiles; round += round_tiles) {
                        const std::size_t end = std::min(tiles, round + round_tiles);
                        for (std::size_t t = round; t < end; ++t)
                            packed_step<D, step_mode::online, false>(
                                cols, p, s, t * tile_rows, blk, s.p + (t - round) * tile_rows * block_keys);
                        for (std::size_t t = round; t < end; ++t)
                            step_values<D, tile_rows, true>(s, t * tile_rows, blk, blk.keys,
                                                            s.p + (t - round) * tile_rows * block_keys);
                    }
                }
            };
        };
        all.push_back({"3b. the steps over one piece, 8 blocks in L2 over and over",
                       steps_over(std::min<std::size_t>(8, blocks)), piece_steps, 2 * product_flops()});
        all.push_back({"4. the kernel's steps over one piece, no pass around them", steps_over(blocks),
                       piece_steps, 2 * product_flops()});
        // 4b: the prototype over the piece's queries of head 0 (whole tiles of 48), checked once
        using lanes_piece = query_lanes::piece<D, 3, 8, 8, block_keys>;
        auto lanes = std::make_shared<lanes_piece>();
        auto lanes_out = std::make_shared<aligned_vector<float>>(s.count * dp);
        const std::size_t lanes_rows = s.count / lanes_piece::W * lanes_piece::W;
        const auto lanes_piece_work = [=, &pr = p] {
            query_lanes_heads(*lanes, pr, 1, lanes_rows, lanes_out->data(), static_cast<std::ptrdiff_t>(dp),
                              0);
        };
        // the prototype reads whole blocks of keys and whole tiles: other calls leave out 4b and 6b,
        // as do outputs beyond the suite's fp32 tolerance of the kernel's (its times would not count)
        bool lanes_timed = p.keys % block_keys == 0 && lanes_rows > 0;
        if (lanes_timed) {
            lanes_piece_work();
            attention(p);
            float worst = 0, largest = 0;
            for (std::size_t i = 0; i < lanes_rows; ++i)
                for (std::size_t d = 0; d < D; ++d) {
                    const float ref = p.out[static_cast<std::ptrdiff_t>(i) * p.out_strides.token + d];
                    worst = std::max(worst, std::abs(ref - (*lanes_out)[i * dp + d]));
                    largest = std::max(largest, std::abs(ref));
                }
            lanes_timed = worst <= 1e-4f * largest + 1e-5f;
            std::printf("  (4b against the kernel: max |difference| %.3g, max |output| %.3g%s)\n", worst,
                        largest, lanes_timed ? "" : ": beyond 1e-4 max|output| + 1e-5, 4b and 6b not timed");
        } else {
            std::printf("  (4b and 6b need a multiple of %zu keys and %zu queries)\n", block_keys,
                        lanes_piece::W);
        }
        if (lanes_timed)
            all.push_back({"4b. (not the kernel's) steps with a query per lane", lanes_piece_work,
                           static_cast<double>(lanes_rows * p.keys) / (tile_rows * block_keys),
                           2 * product_flops()});
        all.push_back({"5. one piece's pass, keys packed",
                       [&] {
                           start_rows(p, s, false);
                           prefill_pass<D, step_mode::online>(p, ops, s, 0);
                       },
                       piece_steps, 2 * product_flops()});

        const std::size_t pieces = (p.queries + piece - 1) / piece;
        double call_steps = 0;
        for (std::size_t i = 0; i < pieces; ++i)
            call_steps +=
                static_cast<double>((std::min(piece, p.queries - i * piece) + tile_rows - 1) / tile_rows);
        call_steps *= static_cast<double>(p.query_heads * blocks);
        all.push_back({"6. the whole call", [&] { attention(p); }, call_steps, 2 * product_flops()});
        // 6a: every head reads head 0's queries, keys and values and writes its outputs, so that
        // only the first head reads them from beyond L2: what the other heads' first reads cost
        attention_problem one_head_data = p;
        one_head_data.q_strides.head = one_head_data.k_strides.head = one_head_data.v_strides.head =
            one_head_data.out_strides.head = 0;
        all.push_back({"6a. the whole call, every head on head 0's data", [&] { attention(one_head_data); },
                       call_steps, 2 * product_flops()});
        // 6c: the bytes the call must move, moved alone (read once, written once), as often as the
        // call runs, so that they come from where they come from in the call (kernel_call's
        // operands are contiguous)
        const std::size_t query_floats = p.batch * p.query_heads * p.queries * p.head_size,
                          kv_floats = p.batch * p.kv_heads * p.keys * p.head_size;
        all.push_back({"6c. the call's own bytes alone: q, k, v read, out written",
                       [&] {
                           batch acc[4] = {batch(0.0f), batch(0.0f), batch(0.0f), batch(0.0f)};
                           const auto read = [&](const void* from, std::size_t floats) {
                               const auto* x = static_cast<const float*>(from);
                               for (std::size_t i = 0; i + 4 * batch::size <= floats; i += 4 * batch::size)
                                   unrolled<4>([&](auto a) {
                                       acc[a] += batch::load_unaligned(x + i + a * batch::size);
                                   });
                           };
                           read(p.q, query_floats);
                           read(p.k, kv_floats);
                           read(p.v, kv_floats);
                           const batch written(0.5f);
                           for (std::size_t i = 0; i + batch::size <= query_floats; i += batch::size)
                               written.store_unaligned(p.out + i);
                           (acc[0] + acc[1] + acc[2] + acc[3]).store_aligned(sink.data());
                       },
                       call_steps, 0});
        const std::size_t every_row = p.queries / lanes_piece::W * lanes_piece::W;
        if (lanes_timed)
            all.push_back({"6b. (not the kernel's) every head, a query per lane",
                           [=, &pr = p] {
                               query_lanes_heads(*lanes, pr, pr.query_heads, every_row, pr.out,
                                                 pr.out_strides.token, pr.out_strides.head);
                           },
                           static_cast<double>(every_row * p.keys * p.query_heads) / (tile_rows * block_keys),
                           2 * product_flops()});
        const double peak = measure(all);
        std::printf("%s; FMA peak %.1f GFLOP/s; per step of %zu rows x %zu keys (fastest of %d x %d runs, by "
                    "turns):\n",
                    describe.c_str(), peak, tile_rows, block_keys, turns, runs);
        for (const layer& l : all) print(l, peak);
    }
};
} // namespace

int main(int argc, char** argv) {
    ctein::bench::kernel_call given(argc, argv);
    if (!given.valid_or_usage(argv[0])) return 2;
    aligned_vector<float> out(given.query_size());
    attention_problem p = given.problem(out.data());
    given.take(p);
    if (p.causal || p.threads != 1 || p.key_lengths || p.kv_type != element_type::f32 ||
        p.query_heads != p.kv_heads) {
        std::fprintf(stderr,
                     "kernel_layers: f32, one thread, no mask, as many key/value heads as query heads\n");
        return 2;
    }
    const layers l{p, given.describe()};
    bool compiled = true;
    with_compiled_head_size(p.head_size, [&](auto d) {
        if constexpr (d == 0)
            compiled = false; // the generic kernel: its steps take D at run time
        else
            l.run<d>();
    });
    if (!compiled) {
        std::fprintf(stderr,
                     "kernel_layers: D is one of the kernel's compiled head sizes (32, 64, 80, 128)\n");
        return 2;
    }
}
