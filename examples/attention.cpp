// The attention variants of the seeds, written with ctein: multi-head self-attention from a fused
// QKV projection with a causal mask, cross-attention with padded keys, grouped-query and
// multi-query heads, a KV-cache decode step, the seeds' own formula and the weights; then a short
// timing table. Run by `make demo`.
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // the kernel, compiled once for the examples

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string_view>
#include <vector>

namespace {

/// Random activations in [-1, 1); `seed` gives each tensor its own.
template <class Tensor>
void fill(Tensor& t, unsigned seed) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = uniform(engine);
}

template <class A, class B>
float largest_difference(const A& a, const B& b) {
    float d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a.data()[i] - b.data()[i]));
    return d;
}

/// The best of `runs` timings of f, in seconds.
template <class F>
double best_seconds(F&& f, int runs = 3) {
    double best = 1e30;
    for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        f();
        best =
            std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

/// Attention as plain loops compute it, one head at a time: the whole score matrix, softmax, ·v.
template <class T>
void naive_attention(const T& q, const T& k, const T& v, std::vector<float>& out) {
    const std::size_t heads = q.extent(1), n = q.extent(2), d = q.extent(3);
    std::vector<float> scores(n * n);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    std::fill(out.begin(), out.end(), 0.0f);
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t i = 0; i < n; ++i) {
            float* row = &scores[i * n];
            for (std::size_t j = 0; j < n; ++j) {
                float s = 0;
                for (std::size_t c = 0; c < d; ++c) s += q(0, h, i, c) * k(0, h, j, c);
                row[j] = s * scale;
            }
            const float m = *std::max_element(row, row + n);
            float sum = 0;
            for (std::size_t j = 0; j < n; ++j) sum += row[j] = std::exp(row[j] - m);
            for (std::size_t j = 0; j < n; ++j)
                for (std::size_t c = 0; c < d; ++c) out[(h * n + i) * d + c] += row[j] / sum * v(0, h, j, c);
        }
}

} // namespace

int main(int argc, char** argv) {
    // --no-timing: the variants only (the sanitizer build's test: its -O0 loops would take minutes)
    const bool timing = !(argc > 1 && std::string_view(argv[1]) == "--no-timing");
    constexpr std::size_t batch = 2, heads = 8, d = 64, model = heads * d;
    const std::size_t tokens = 37; // a prompt length the compiler does not know
    std::printf("attention, batch %zu, %zu tokens, %zu heads of %zu (* = dynamic extent)\n", batch, tokens,
                heads, d);

    // 1. self-attention from a fused QKV projection (seed 002), causal (seeds 001, 003)
    ctein::tensor<float, "b s c", batch, ctein::dyn, 3 * model> qkv(tokens);
    fill(qkv, 1);
    const auto [xq, xk, xv] = ctein::unpack<"b s *">(
        qkv, ctein::packed_shapes<ctein::extents<model>, ctein::extents<model>, ctein::extents<model>>{});
    const auto q = ctein::rearrange<"b s (h d) -> b h s d">(xq, ctein::len<"h", heads>); // strided views
    const auto k = ctein::rearrange<"b s (h d) -> b h s d">(xk, ctein::len<"h", heads>);
    const auto v = ctein::rearrange<"b s (h d) -> b h s d">(xv, ctein::len<"h", heads>);
    const auto self = ctein::attention(q, k, v, ctein::causal);
    const auto merged = ctein::eval(ctein::rearrange<"b h s d -> b s (h d)">(self));
    std::printf("  self-attention, causal        %s\n", ctein::describe(merged).c_str());

    // 2. the seeds' formula: recognised, the same kernel, the same bits
    const auto formula = ctein::einsum<"b h q k, b h k d -> b h q d">(
        ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) / std::sqrt(float(d)) +
                            ctein::causal),
        v);
    std::printf("  the formula, causal           same bits as attention(): %s\n",
                largest_difference(formula, self) == 0.0f ? "yes" : "NO");

    // 3. cross-attention: 12 encoder tokens, padded to different lengths per batch element
    ctein::tensor<float, "b h s d", batch, heads, 12, d> memory_k, memory_v;
    fill(memory_k, 2);
    fill(memory_v, 3);
    const auto cross = ctein::attention(q, memory_k, memory_v, ctein::key_padding({12, 7}));
    std::printf("  cross-attention, padded keys  %s\n", ctein::describe(cross).c_str());

    // 4. grouped-query (seed 003: 2 key/value heads for 8 query heads) and multi-query attention,
    //    without repeating the key/value heads
    ctein::tensor<float, "b g s d", batch, 2, ctein::dyn, d> group_k(tokens), group_v(tokens);
    fill(group_k, 4);
    fill(group_v, 5);
    const auto grouped = ctein::attention(q, group_k, group_v, ctein::causal);
    ctein::tensor<float, "b g s d", batch, 1, ctein::dyn, d> shared_k(tokens), shared_v(tokens);
    fill(shared_k, 10);
    fill(shared_v, 11);
    const auto multi = ctein::attention(q, shared_k, shared_v, ctein::causal);
    std::printf("  grouped-query, 2 kv heads     %s\n", ctein::describe(grouped).c_str());
    std::printf("  multi-query, 1 kv head        %s\n", ctein::describe(multi).c_str());
    //    ... and as seed 003 writes it, repeat_interleave then the formula: the repeats are views,
    //    read once per key/value head by the same kernel
    const auto repeated_k = ctein::repeat<"b g s d -> b (g r) s d">(group_k, ctein::len<"r", 4>);
    const auto repeated_v = ctein::repeat<"b g s d -> b (g r) s d">(group_v, ctein::len<"r", 4>);
    const auto seed_gqa = ctein::einsum<"b h q k, b h k d -> b h q d">(
        ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, repeated_k) /
                                std::sqrt(float(d)) +
                            ctein::causal),
        repeated_v);
    std::printf("  grouped-query, seed 003's way same bits, no copy: %s\n",
                largest_difference(seed_gqa, grouped) == 0.0f ? "yes" : "NO");

    // seed 001's (T, T) future mask (true = left out), read as PyTorch reads a 2-D attn_mask
    ctein::tensor<bool, "", ctein::dyn, ctein::dyn> future(tokens, tokens);
    for (std::size_t i = 0; i < tokens; ++i)
        for (std::size_t j = 0; j < tokens; ++j) future(i, j) = j > i;
    const auto masked = ctein::attention(q, k, v, ctein::ignore_mask(future));
    std::printf("  a (T, T) future mask          the causal result: %s\n",
                largest_difference(masked, self) <= 1e-5f ? "yes" : "NO");

    // 5. a KV-cache decode step: one new query against the cache, offset so it sees every key
    ctein::tensor<float, "b h s d", batch, heads, 1, d> step;
    fill(step, 6);
    const auto decoded =
        ctein::attention(step, k, v, ctein::causal_offset(static_cast<std::ptrdiff_t>(tokens) - 1));
    std::printf("  decode step                   %s\n", ctein::describe(decoded).c_str());

    // 6. the weights, as seeds 001 and 002 return them (materialised on request)
    const auto [out, weights] = ctein::attention(q, k, v, ctein::causal, ctein::with_weights);
    float row_sum = 0;
    for (std::size_t j = 0; j < tokens; ++j) row_sum += weights(1, 3, tokens - 1, j);
    std::printf("  weights                       %s, a row sums to %.6f\n", ctein::describe(weights).c_str(),
                row_sum);

    // timing: one batch element, 12 heads of 64, against plain loops
    const bool same = largest_difference(formula, self) == 0.0f && std::abs(row_sum - 1.0f) < 1e-5f &&
                      largest_difference(seed_gqa, grouped) == 0.0f &&
                      largest_difference(masked, self) <= 1e-5f;
    if (!timing) return same ? EXIT_SUCCESS : EXIT_FAILURE;
    std::printf("\n%-8s %-22s %-22s %s\n", "tokens", "ctein::attention", "naive loops", "speed-up");
    for (const std::size_t n : {256, 1024}) {
        ctein::tensor<float, "b h s d", 1, 12, ctein::dyn, 64> tq(n), tk(n), tv(n);
        fill(tq, 7);
        fill(tk, 8);
        fill(tv, 9);
        const double flops = 4.0 * 12 * double(n) * double(n) * 64;
        const double fused = best_seconds([&] { static_cast<void>(ctein::attention(tq, tk, tv)); });
        std::vector<float> reference(12 * n * 64);
        const double loops = best_seconds([&] { naive_attention(tq, tk, tv, reference); }, 1);
        std::printf("%-8zu %6.1f GFLOP/s %9.2f ms %6.1f GFLOP/s %9.2f ms %6.0fx\n", n, flops / fused * 1e-9,
                    fused * 1e3, flops / loops * 1e-9, loops * 1e3, loops / fused);
    }
    return same ? EXIT_SUCCESS : EXIT_FAILURE;
}
