// Every attention block of the seeds at realistic sizes (d_model 768, 12 heads, T = 512; the
// grouped-query block at LLaMA-like sizes), timed, and each checked against a plain loop version
// of the same forward: one table of variant, shapes, ms, GFLOP/s, % of this machine's FMA peak
// (measured in the same run, on the same threads), speed-up over the loops, and the check.
// `--small` runs small sizes (the sanitizer build, where timing means nothing).
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // the kernel compiled once, not in each example
#include <ctein/nn.hpp>

#include "difference.hpp"
#include "fma_peak.hpp"
#include "timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

/// Values uniform in [-scale, scale), a stream of their own for each seed.
template <class T>
void fill(T& t, unsigned seed, float scale = 1.0f) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> uniform(-scale, scale);
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = uniform(engine);
}

/// A projection as the loops read it: the weight transposed to [in, out] (so that the innermost
/// loop walks memory in order) and the bias, or none.
struct loop_linear {
    std::size_t in = 0, out = 0;
    std::vector<float> weight_in_out, bias;

    /// Rows [first, first + count) of a ctein::nn::linear's [out, in] weight (a fused projection's
    /// q, k or v part).
    template <class Layer>
    static loop_linear of(const Layer& layer, std::size_t first = 0, std::size_t count = Layer::out_features) {
        loop_linear l{Layer::in_features, count, std::vector<float>(Layer::in_features * count), {}};
        for (std::size_t o = 0; o < count; ++o)
            for (std::size_t i = 0; i < l.in; ++i) l.weight_in_out[i * count + o] = layer.weight()(first + o, i);
        if constexpr (Layer::has_bias)
            l.bias.assign(layer.bias().data() + first, layer.bias().data() + first + count);
        return l;
    }
    std::vector<float> operator()(const float* x, std::size_t rows) const {
        std::vector<float> y(rows * out, 0.0f);
        for (std::size_t r = 0; r < rows; ++r) {
            float* yr = &y[r * out];
            if (!bias.empty()) std::copy(bias.begin(), bias.end(), yr);
            for (std::size_t i = 0; i < in; ++i)
                for (std::size_t o = 0; o < out; ++o) yr[o] += x[r * in + i] * weight_in_out[i * out + o];
        }
        return y;
    }
};

/// The forward of every block as loops, batch 1: projections, RoPE (LLaMA's tables) from position
/// `start`, attention of Tq queries over Tk keys (causal: query i sees keys up to start + i;
/// keys from `padded_from` on left out), heads merged, output projection.
struct loop_block {
    std::size_t heads = 0, kv_heads = 0, head_size = 0;
    loop_linear q, k, v, o;
    bool rope = false;

    std::vector<float> operator()(const float* x, std::size_t tq, const float* context, std::size_t tk,
                                  bool causal, std::size_t padded_from, std::size_t start = 0) const {
        std::vector<float> qp = q(x, tq), kp = k(context, tk), vp = v(context, tk);
        if (rope) {
            rotate(qp, tq, heads, start);
            rotate(kp, tk, kv_heads, start);
        }
        const std::size_t d = head_size, group = heads / kv_heads;
        std::vector<float> merged(tq * heads * d, 0.0f), scores(tk);
        const float scale = 1.0f / std::sqrt(static_cast<float>(d));
        for (std::size_t h = 0; h < heads; ++h)
            for (std::size_t i = 0; i < tq; ++i) {
                const float* qi = &qp[i * heads * d + h * d];
                const std::size_t keys = std::min(padded_from, causal ? start + i + 1 : tk);
                float largest = -INFINITY, total = 0.0f;
                for (std::size_t j = 0; j < keys; ++j) {
                    const float* kj = &kp[j * kv_heads * d + h / group * d];
                    float dot = 0.0f;
                    for (std::size_t c = 0; c < d; ++c) dot += qi[c] * kj[c];
                    scores[j] = dot * scale;
                    largest = std::max(largest, scores[j]);
                }
                for (std::size_t j = 0; j < keys; ++j) total += scores[j] = std::exp(scores[j] - largest);
                float* out = &merged[i * heads * d + h * d];
                for (std::size_t j = 0; j < keys; ++j) {
                    const float* vj = &vp[j * kv_heads * d + h / group * d];
                    for (std::size_t c = 0; c < d; ++c) out[c] += scores[j] / total * vj[c];
                }
            }
        return o(merged.data(), tq);
    }

    /// RoPE on the heads of a projection [t, count · d] at positions start...
    void rotate(std::vector<float>& p, std::size_t t, std::size_t count, std::size_t start) const {
        const std::size_t d = head_size, half = d / 2;
        for (std::size_t s = 0; s < t; ++s)
            for (std::size_t h = 0; h < count; ++h) {
                float* x = &p[s * count * d + h * d];
                for (std::size_t i = 0; i < half; ++i) {
                    const double angle = static_cast<double>(start + s) / std::pow(10000.0, 2.0 * i / d);
                    const float c = static_cast<float>(std::cos(angle)), sn = static_cast<float>(std::sin(angle));
                    const float x1 = x[i], x2 = x[i + half];
                    x[i] = x1 * c - x2 * sn;
                    x[i + half] = x2 * c + x1 * sn;
                }
            }
    }
};

template <class Block>
loop_block loops_of(const Block& b, bool rope = false) {
    return {Block::heads, Block::kv_heads, Block::head_size, loop_linear::of(b.q_proj), loop_linear::of(b.k_proj),
            loop_linear::of(b.v_proj), loop_linear::of(b.o_proj), rope};
}
template <class Block>
loop_block loops_of_fused(const Block& b) {
    constexpr std::size_t q = Block::heads * Block::head_size, kv = Block::kv_heads * Block::head_size;
    return {Block::heads, Block::kv_heads, Block::head_size, loop_linear::of(b.qkv_proj, 0, q),
            loop_linear::of(b.qkv_proj, q, kv), loop_linear::of(b.qkv_proj, q + kv, kv), loop_linear::of(b.o_proj)};
}

/// Weights as nn.Linear initialises them (uniform in ±1/sqrt(in)), biases too, so that every
/// output is of order one and the check's relative tolerance is what decides.
template <class Block>
void fill_weights(Block& block) {
    unsigned seed = 1;
    const auto layer = [&](auto& l) {
        const float bound = 1.0f / std::sqrt(static_cast<float>(std::remove_reference_t<decltype(l)>::in_features));
        fill(l.weight(), seed++, bound);
        if constexpr (requires { l.bias(); }) fill(l.bias(), seed++, bound);
    };
    if constexpr (requires { block.qkv_proj; }) {
        layer(block.qkv_proj);
    } else {
        layer(block.q_proj);
        layer(block.k_proj);
        layer(block.v_proj);
    }
    layer(block.o_proj);
}

struct row_printer {
    double peak;
    bool all_match = true;

    /// One row: ctein's output against the loops', and both timed (the best of a few calls).
    template <class Ctein, class Loops>
    void operator()(const char* variant, const std::string& shapes, double flops, bool decode, Ctein&& ctein_call,
                    Loops&& loop_call) {
        const examples::difference check = examples::difference_of(ctein_call(), loop_call());
        all_match &= check.close;
        const double seconds = ctein::bench::fastest_seconds([&] { static_cast<void>(ctein_call()); }, 5);
        const double loop_seconds = ctein::bench::fastest_seconds([&] { static_cast<void>(loop_call()); }, 1);
        const double gflops = flops / seconds * 1e-9;
        char share[16] = "-";
        if (!decode) std::snprintf(share, sizeof share, "%.0f %%", 100.0 * gflops / peak);
        std::printf("%-36s %-28s %9.2f %8.1f %7s %8.0fx  %s (%.1e of %.2g)\n", variant, shapes.c_str(), seconds * 1e3,
                    gflops, share, loop_seconds / seconds, check.close ? "matches" : "DIFFERS",
                    check.largest_difference, check.largest_value);
    }
};

/// Flops of a block: projections of Tq queries and Tk keys/values, and attention (half the
/// scores when causal over Tq = Tk).
double block_flops(double tq, double tk, double e, double heads_width, double kv_width, bool causal_square) {
    const double projections = 2 * tq * e * heads_width * 2 + 2 * tk * e * 2 * kv_width;
    return projections + 4 * tq * tk * heads_width * (causal_square ? 0.5 : 1.0);
}

/// The table for blocks of width E, H heads, T tokens, and a LLaMA-like block of width LE.
/// `brief`: the FMA peak from one short run (timings that mean nothing: the sanitizer build).
template <std::size_t E, std::size_t H, std::size_t LE, std::size_t LH, std::size_t LKV>
bool table(std::size_t t, bool brief) {
    const std::size_t threads = ctein::thread_count();
    row_printer row{brief ? ctein::bench::fma_peak_gflops(threads, 1, 1 << 10)
                          : ctein::bench::fma_peak_gflops(threads)};
    std::printf("Attention blocks, batch 1, fp32, %zu thread(s); FMA peak measured now: %.0f GFLOP/s%s\n",
                threads, row.peak, brief ? " (--small: timings mean nothing)" : "");
    std::printf("%-36s %-28s %9s %8s %7s %9s  %s\n", "variant", "shapes", "ms", "GFLOP/s", "peak", "vs loops",
                "check: largest difference from the loops (of their largest value)");
    const std::string width = "E " + std::to_string(E) + ", H " + std::to_string(H);
    const double e = static_cast<double>(E), tt = static_cast<double>(t);

    ctein::tensor<float, "b s e", 1, ctein::dyn, E> x(t), context(t / 2);
    fill(x, 100);
    fill(context, 101);

    ctein::nn::attention_block<E, H> mha;
    fill_weights(mha);
    const loop_block mha_loops = loops_of(mha);
    row("multi-head self (seed 000)", width + ", T " + std::to_string(t), block_flops(tt, tt, e, e, e, false), false,
        [&] { return mha(x); }, [&] { return mha_loops(x.data(), t, x.data(), t, false, t); });
    row("cross, Tk = T / 2 (seed 004)", width + ", Tk " + std::to_string(t / 2),
        block_flops(tt, tt / 2, e, e, e, false), false, [&] { return mha.cross(x, context); },
        [&] { return mha_loops(x.data(), t, context.data(), t / 2, false, t / 2); });

    ctein::nn::fused_attention_block<E, H> fused;
    fill_weights(fused);
    const loop_block fused_loops = loops_of_fused(fused);
    row("fused QKV, causal (seed 001)", width + ", T " + std::to_string(t), block_flops(tt, tt, e, e, e, true), false,
        [&] { return fused(x, ctein::causal); }, [&] { return fused_loops(x.data(), t, x.data(), t, true, t); });
    ctein::tensor<bool, "b k", 1, ctein::dyn> padded(t);
    for (std::size_t j = t - t / 8; j < t; ++j) padded(0, j) = true; // the last eighth is padding
    row("GPT-2: causal + key padding", width + ", T/8 padded", block_flops(tt, tt, e, e, e, true), false,
        [&] { return fused(x, ctein::causal, ctein::key_padding_mask(padded)); },
        [&] { return fused_loops(x.data(), t, x.data(), t, true, t - t / 8); });

    ctein::nn::attention_block<E, H, H / 3> gqa;
    fill_weights(gqa);
    const loop_block gqa_loops = loops_of(gqa);
    row("grouped-query 3:1, causal (003)", width + ", Hkv " + std::to_string(H / 3),
        block_flops(tt, tt, e, e, e / 3, true), false, [&] { return gqa(x, ctein::causal); },
        [&] { return gqa_loops(x.data(), t, x.data(), t, true, t); });
    ctein::nn::attention_block<E, H, 1> mqa;
    fill_weights(mqa);
    const loop_block mqa_loops = loops_of(mqa);
    row("multi-query, causal (seed 003)", width + ", Hkv 1", block_flops(tt, tt, e, e, e / H, true), false,
        [&] { return mqa(x, ctein::causal); }, [&] { return mqa_loops(x.data(), t, x.data(), t, true, t); });

    // LLaMA-like: GQA, RoPE, no bias, through a KV cache
    using llama_type = ctein::nn::attention_block<LE, LH, LKV, false, true>;
    llama_type llama(t + 1);
    fill_weights(llama);
    const loop_block llama_loops = loops_of(llama, true);
    ctein::tensor<float, "b s e", 1, ctein::dyn, LE> prompt(t + 1);
    fill(prompt, 102);
    const auto first = ctein::slice<"s">(prompt, 0, t);
    const auto last = ctein::slice<"s">(prompt, t, t + 1);
    typename llama_type::cache_type cache(1, t + 1);
    const double le = static_cast<double>(LE), kv = static_cast<double>(LKV * (LE / LH));
    const std::string llama_width = "E " + std::to_string(LE) + ", " + std::to_string(LH) + ":" + std::to_string(LKV);
    const auto prompt_copy = ctein::eval(first);
    row("LLaMA-like prefill, GQA + RoPE", llama_width + ", T " + std::to_string(t),
        block_flops(tt, tt, le, le, kv, true), false,
        [&] {
            cache.clear();
            return llama(first, cache);
        },
        [&] { return llama_loops(prompt_copy.data(), t, prompt_copy.data(), t, true, t); });
    // one token after the prompt, ctein through its cache; the loops, having no cache, run the
    // causal pass over prompt and token again and keep the token's row
    row("LLaMA-like decode (loops: no cache)", llama_width + ", " + std::to_string(t) + " cached",
        block_flops(1, tt + 1, le, le, kv, false), true,
        [&] {
            cache.truncate(t);
            return llama(last, cache);
        },
        [&] {
            const std::vector<float> all = llama_loops(prompt.data(), t + 1, prompt.data(), t + 1, true, t + 1);
            return std::vector<float>(all.end() - static_cast<std::ptrdiff_t>(LE), all.end());
        });
    return row.all_match;
}

} // namespace

int main(int argc, char** argv) {
    const bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
    const bool matches = small ? table<96, 6, 128, 8, 2>(32, true) : table<768, 12, 2048, 32, 8>(512, false);
    std::printf("%s\n", matches ? "every block matches its loops" : "a block DIFFERS from its loops");
    return matches ? 0 : 1;
}
