// Two versions of the attention kernel (a: a git revision, b: the work tree; run.sh) timed in one
// process, calls alternated, on one attention call given on the command line. On a noisy machine
// (a VM whose FMA loop reads 71-98 GFLOP/s from second to second) only such paired calls tell a
// few per cent apart: separate runs of the benchmark differ by more than that.
//
//   kernel_ab HQ HKV D TK TYPE [TQ [CAUSAL [THREADS [COLD]]]]    TYPE: f32 or bf16 (the KV cache's);
//   THREADS: 1 unless given (each version has its own pool of workers); COLD: 1 to read K and V
//   from memory (each call takes the next of copies worth cold_bytes, as the benchmark's cold rows)
#include "../cold_bytes.hpp"

#include <ctein/core/half_precision.hpp>
#include <ctein/kernels/attention_problem.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <xsimd/xsimd.hpp>

extern "C" void run_ctein_a(const void* problem);
extern "C" void run_ctein_b(const void* problem);

namespace {
using problem = ctein::kernels::attention_problem;

/// 64-byte aligned, as ctein::tensor's storage: the prefill then reads V in place, as it does for
/// a user's tensors (with 16-byte aligned vectors it packed V, work the benchmark does not do).
template <class T>
using aligned_vector = std::vector<T, xsimd::aligned_allocator<T, 64>>;

double seconds(const problem& p, void (*run)(const void*)) {
    const auto t0 = std::chrono::steady_clock::now();
    run(&p);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 6) {
        std::fprintf(stderr, "usage: %s HQ HKV D TK f32|bf16 [TQ [CAUSAL [THREADS [COLD]]]]\n", argv[0]);
        return 2;
    }
    const std::size_t hq = std::stoul(argv[1]), hkv = std::stoul(argv[2]), d = std::stoul(argv[3]),
                      tk = std::stoul(argv[4]);
    const bool bf16 = std::string(argv[5]) == "bf16";
    const std::size_t tq = argc > 6 ? std::stoul(argv[6]) : 1;
    const bool causal = argc > 7 && std::stoi(argv[7]) != 0;
    const std::size_t threads = argc > 8 ? std::stoul(argv[8]) : 1;
    const bool cold = argc > 9 && std::stoi(argv[9]) != 0;

    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    aligned_vector<float> q(hq * tq * d), k(hkv * tk * d), v(hkv * tk * d), out_a(q.size()), out_b(q.size());
    for (aligned_vector<float>* x : {&q, &k, &v})
        for (float& e : *x) e = normal(rng);
    aligned_vector<std::uint16_t> k16(k.size()), v16(v.size());
    const auto to_bfloat16 = [](float x) { return ctein::bfloat16(x).bits; };
    std::transform(k.begin(), k.end(), k16.begin(), to_bfloat16);
    std::transform(v.begin(), v.end(), v16.begin(), to_bfloat16);

    // Cold: copies of K and V back to back, worth the benchmark's cold_bytes, each call reading
    // the next; warm: one copy, read by every call.
    const std::size_t kv_bytes = 2 * k.size() * (bf16 ? 2 : 4);
    const std::size_t copies =
        cold ? std::max<std::size_t>(2, (ctein::bench::cold_bytes() + kv_bytes - 1) / kv_bytes) : 1;
    aligned_vector<float> k_copies, v_copies;
    aligned_vector<std::uint16_t> k16_copies, v16_copies;
    for (std::size_t c = 0; c < copies; ++c) {
        if (bf16) {
            k16_copies.insert(k16_copies.end(), k16.begin(), k16.end());
            v16_copies.insert(v16_copies.end(), v16.begin(), v16.end());
        } else {
            k_copies.insert(k_copies.end(), k.begin(), k.end());
            v_copies.insert(v_copies.end(), v.begin(), v.end());
        }
    }
    std::size_t next_copy = 0;
    // the operands of the next call: in cold runs, the next copy of K and V
    const auto take = [&](problem& p) {
        const std::size_t c = next_copy++ % copies;
        p.k = bf16 ? static_cast<const void*>(k16_copies.data() + c * k.size())
                   : k_copies.data() + c * k.size();
        p.v = bf16 ? static_cast<const void*>(v16_copies.data() + c * v.size())
                   : v_copies.data() + c * v.size();
    };

    problem p;
    p.query_heads = hq;
    p.kv_heads = hkv;
    p.queries = tq;
    p.keys = tk;
    p.head_size = d;
    p.q = q.data();
    p.q_strides = p.out_strides = {static_cast<std::ptrdiff_t>(hq * tq * d),
                                   static_cast<std::ptrdiff_t>(tq * d), static_cast<std::ptrdiff_t>(d)};
    p.kv_type = bf16 ? ctein::kernels::element_type::bf16 : ctein::kernels::element_type::f32;
    p.k_strides = p.v_strides = {static_cast<std::ptrdiff_t>(hkv * tk * d),
                                 static_cast<std::ptrdiff_t>(tk * d), static_cast<std::ptrdiff_t>(d)};
    p.scale = 1.0f / std::sqrt(static_cast<float>(d));
    p.causal = causal;
    p.threads = threads;
    p.causal_offset = causal ? static_cast<std::ptrdiff_t>(tk) - static_cast<std::ptrdiff_t>(tq) : 0;
    problem pa = p, pb = p;
    pa.out = out_a.data();
    pb.out = out_b.data();
    const auto call = [&](problem& p, void (*run)(const void*)) {
        take(p);
        return seconds(p, run);
    };

    call(pa, run_ctein_a);
    call(pb, run_ctein_b);
    double difference = 0, largest = 0;
    for (std::size_t i = 0; i < out_a.size(); ++i) {
        difference = std::max(difference, static_cast<double>(std::abs(out_a[i] - out_b[i])));
        largest = std::max(largest, static_cast<double>(std::abs(out_a[i])));
    }

    // 40 rounds of about 20 ms per version each, a's and b's calls alternated
    const int calls = std::max(1, static_cast<int>(0.02 / call(pa, run_ctein_a)));
    std::vector<double> ratios;
    double best_a = 1e30, best_b = 1e30;
    for (int round = 0; round < 40; ++round) {
        double a = 0, b = 0;
        for (int c = 0; c < calls; ++c) {
            a += call(pa, run_ctein_a);
            b += call(pb, run_ctein_b);
        }
        best_a = std::min(best_a, a / calls);
        best_b = std::min(best_b, b / calls);
        ratios.push_back(a / b);
    }
    std::sort(ratios.begin(), ratios.end());
    std::printf("%s Hq %zu Hkv %zu D %zu Tk %zu Tq %zu%s, %zu thread(s)%s: a %.1f us, b %.1f us; a / b: "
                "fastest calls %.3f, "
                "median of rounds %.3f; max |a - b| %.2e (max |a| %.2f)\n",
                bf16 ? "bf16" : "f32", hq, hkv, d, tk, tq, causal ? " causal" : "", threads,
                cold ? ", K and V from memory" : "", best_a * 1e6, best_b * 1e6, best_a / best_b,
                ratios[ratios.size() / 2], difference, largest);
}
