// A prototype, not the kernel's: the prefill's steps with a query per lane. A tile holds W = QB
// batches of query rows transposed (qt: [D][W]); each group of G keys is read where it is, one
// element broadcast at a time, so K needs no packing; the softmax works lane by lane (a row's
// maximum and sum are vertical operations); the weights are kept as [key][W] and the P·V runs on
// the transposed outputs (ot: [D][W]) F features at a time, V's elements broadcast too. Only what
// timing needs: f32, no mask, keys a multiple of KB.
#pragma once

#include <ctein/kernels/attention.hpp>
#include <ctein/kernels/exp2.hpp>
#include <ctein/kernels/multiply_add.hpp>
#include <ctein/kernels/transpose.hpp>

#include <cstddef>
#include <limits>

namespace query_lanes {
using namespace ctein::kernels;
using namespace ctein::kernels::attention_detail;

template <std::size_t D, std::size_t QB, std::size_t G, std::size_t F, std::size_t KB>
struct piece {
    static constexpr std::size_t W = QB * lanes;
    static_assert(KB % G == 0 && D % F == 0);
    alignas(64) float qt[D * W];
    alignas(64) float ot[D * W];
    alignas(64) float pt[KB * W];
    alignas(64) float m[W], l[W], t[W];

    /// The W query rows at q (qs apart) against `keys` keys of k and v (ks, vs apart), their
    /// outputs to `out` (os apart).
    void tile(const float* q, std::ptrdiff_t qs, const float* k, std::ptrdiff_t ks, const float* v,
              std::ptrdiff_t vs, std::size_t keys, float scale, float* out, std::ptrdiff_t os) noexcept {
        transpose_tiled(q, qs, D, W, qt, static_cast<std::ptrdiff_t>(W));
        const batch factor(scale * log2e);
        for (std::size_t i = 0; i < D * W; i += lanes)
            (batch::load_aligned(qt + i) * factor).store_aligned(qt + i);
        for (std::size_t i = 0; i < D * W; i += lanes) batch(0.0f).store_aligned(ot + i);
        for (std::size_t i = 0; i < W; i += lanes) {
            batch(0.0f).store_aligned(m + i);
            batch(0.0f).store_aligned(l + i);
            batch(-std::numeric_limits<float>::infinity()).store_aligned(t + i);
        }
        for (std::size_t j0 = 0; j0 < keys; j0 += KB) {
            for (std::size_t g = 0; g < KB; g += G)
                group(k + static_cast<std::ptrdiff_t>(j0 + g) * ks, ks, g);
            values(v + static_cast<std::ptrdiff_t>(j0) * vs, vs);
        }
        for (std::size_t d = 0; d < D; ++d)
            for (std::size_t i = 0; i < W; ++i)
                out[static_cast<std::ptrdiff_t>(i) * os + d] = ot[d * W + i] / l[i];
    }

    /// Scores of keys [g, g + G) of the block, the softmax's reference raised where they pass it,
    /// their weights stored at pt[g..].
    [[gnu::always_inline]] void group(const float* k, std::ptrdiff_t ks, std::size_t g) noexcept {
        batch s[G][QB];
        unrolled<QB>([&](auto b) __attribute__((always_inline)) {
            const batch start = -batch::load_aligned(m + b * lanes);
            unrolled<G>([&](auto j) __attribute__((always_inline)) { s[j][b] = start; });
        });
        for (std::size_t d = 0; d < D; ++d) {
            batch qd[QB];
            unrolled<QB>([&](auto b) __attribute__((always_inline)) {
                qd[b] = batch::load_aligned(qt + d * W + b * lanes);
            });
            unrolled<G>([&](auto j) __attribute__((always_inline)) {
                const batch kj(k[static_cast<std::ptrdiff_t>(j) * ks + static_cast<std::ptrdiff_t>(d)]);
                unrolled<QB>([&](auto b) __attribute__((always_inline)) {
                    s[j][b] = multiply_add(qd[b], kj, s[j][b]);
                });
            });
        }
        batch top[QB];
        auto raise = batch(0.0f) != batch(0.0f);
        unrolled<QB>([&](auto b) __attribute__((always_inline)) {
            top[b] = s[0][b];
            unrolled<G - 1>([&](auto j)
                                __attribute__((always_inline)) { top[b] = xsimd::max(top[b], s[j + 1][b]); });
            raise = raise | (top[b] > batch::load_aligned(t + b * lanes));
        });
        if (xsimd::any(raise)) {
            unrolled<QB>([&](auto b) __attribute__((always_inline)) {
                const batch thr = batch::load_aligned(t + b * lanes);
                const auto up = top[b] > thr;
                if (!xsimd::any(up)) return;
                const batch lift = xsimd::select(up, top[b], batch(0.0f));
                const auto unseen = thr == batch(-std::numeric_limits<float>::infinity());
                const batch scale = xsimd::select(unseen, batch(0.0f), exp2_poly(-lift));
                (batch::load_aligned(m + b * lanes) + lift).store_aligned(m + b * lanes);
                (batch::load_aligned(l + b * lanes) * scale).store_aligned(l + b * lanes);
                xsimd::select(up, batch(rescale_slack), thr).store_aligned(t + b * lanes);
                for (std::size_t d = 0; d < D; ++d)
                    (batch::load_aligned(ot + d * W + b * lanes) * scale)
                        .store_aligned(ot + d * W + b * lanes);
                for (std::size_t j = 0; j < g; ++j)
                    (batch::load_aligned(pt + j * W + b * lanes) * scale)
                        .store_aligned(pt + j * W + b * lanes);
                unrolled<G>([&](auto j) __attribute__((always_inline)) { s[j][b] -= lift; });
            });
        }
        batch sum[QB];
        unrolled<QB>([&](auto b) __attribute__((always_inline)) { sum[b] = batch(0.0f); });
        unrolled<G>([&](auto j) __attribute__((always_inline)) {
            unrolled<QB>([&](auto b) __attribute__((always_inline)) {
                const batch e = exp2_poly(s[j][b]);
                sum[b] += e;
                e.store_aligned(pt + (g + j) * W + b * lanes);
            });
        });
        unrolled<QB>([&](auto b) __attribute__((always_inline)) {
            (batch::load_aligned(l + b * lanes) + sum[b]).store_aligned(l + b * lanes);
        });
    }

    /// ot += the block's weights · V, F features at a time.
    [[gnu::always_inline]] void values(const float* v, std::ptrdiff_t vs) noexcept {
        for (std::size_t f0 = 0; f0 < D; f0 += F) {
            batch acc[F][QB];
            unrolled<F>([&](auto f) __attribute__((always_inline)) {
                unrolled<QB>([&](auto b) __attribute__((always_inline)) {
                    acc[f][b] = batch::load_aligned(ot + (f0 + f) * W + b * lanes);
                });
            });
            for (std::size_t j = 0; j < KB; ++j) {
                batch pj[QB];
                unrolled<QB>([&](auto b) __attribute__((always_inline)) {
                    pj[b] = batch::load_aligned(pt + j * W + b * lanes);
                });
                const float* row = v + static_cast<std::ptrdiff_t>(j) * vs + static_cast<std::ptrdiff_t>(f0);
                unrolled<F>([&](auto f) __attribute__((always_inline)) {
                    const batch vf(row[f]);
                    unrolled<QB>([&](auto b) __attribute__((always_inline)) {
                        acc[f][b] = multiply_add(pj[b], vf, acc[f][b]);
                    });
                });
            }
            unrolled<F>([&](auto f) __attribute__((always_inline)) {
                unrolled<QB>([&](auto b) __attribute__((always_inline)) {
                    acc[f][b].store_aligned(ot + (f0 + f) * W + b * lanes);
                });
            });
        }
    }
};
} // namespace query_lanes
