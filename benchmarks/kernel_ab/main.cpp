// Two versions of the attention kernel (a: a git revision, b: the work tree; run.sh) timed in one
// process, calls alternated, on one attention call given on the command line. On a noisy machine
// (a VM whose FMA loop reads 71-98 GFLOP/s from second to second) only such paired calls tell a
// few per cent apart: separate runs of the benchmark differ by more than that.
//
//   kernel_ab HQ HKV D TK TYPE [TQ [CAUSAL [THREADS]]]    TYPE: f32 or bf16 (the KV cache's);
//   THREADS: 1 unless given (each version has its own pool of workers)
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

extern "C" void run_ctein_a(const void* problem);
extern "C" void run_ctein_b(const void* problem);

namespace {
using problem = ctein::kernels::attention_problem;

double seconds(const problem& p, void (*run)(const void*)) {
    const auto t0 = std::chrono::steady_clock::now();
    run(&p);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 6) {
        std::fprintf(stderr, "usage: %s HQ HKV D TK f32|bf16 [TQ [CAUSAL [THREADS]]]\n", argv[0]);
        return 2;
    }
    const std::size_t hq = std::stoul(argv[1]), hkv = std::stoul(argv[2]), d = std::stoul(argv[3]),
                      tk = std::stoul(argv[4]);
    const bool bf16 = std::string(argv[5]) == "bf16";
    const std::size_t tq = argc > 6 ? std::stoul(argv[6]) : 1;
    const bool causal = argc > 7 && std::stoi(argv[7]) != 0;
    const std::size_t threads = argc > 8 ? std::stoul(argv[8]) : 1;

    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    std::vector<float> q(hq * tq * d), k(hkv * tk * d), v(hkv * tk * d), out_a(q.size()), out_b(q.size());
    for (std::vector<float>* x : {&q, &k, &v})
        for (float& e : *x) e = normal(rng);
    std::vector<std::uint16_t> k16(k.size()), v16(v.size());
    const auto to_bfloat16 = [](float x) { return ctein::bfloat16(x).bits; };
    std::transform(k.begin(), k.end(), k16.begin(), to_bfloat16);
    std::transform(v.begin(), v.end(), v16.begin(), to_bfloat16);

    problem p;
    p.query_heads = hq;
    p.kv_heads = hkv;
    p.queries = tq;
    p.keys = tk;
    p.head_size = d;
    p.q = q.data();
    p.q_strides = p.out_strides = {static_cast<std::ptrdiff_t>(hq * tq * d),
                                   static_cast<std::ptrdiff_t>(tq * d), static_cast<std::ptrdiff_t>(d)};
    p.k = bf16 ? static_cast<const void*>(k16.data()) : k.data();
    p.v = bf16 ? static_cast<const void*>(v16.data()) : v.data();
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

    run_ctein_a(&pa);
    run_ctein_b(&pb);
    double difference = 0, largest = 0;
    for (std::size_t i = 0; i < out_a.size(); ++i) {
        difference = std::max(difference, static_cast<double>(std::abs(out_a[i] - out_b[i])));
        largest = std::max(largest, static_cast<double>(std::abs(out_a[i])));
    }

    // 40 rounds of about 20 ms per version each, a's and b's calls alternated
    const int calls = std::max(1, static_cast<int>(0.02 / seconds(pa, run_ctein_a)));
    std::vector<double> ratios;
    double best_a = 1e30, best_b = 1e30;
    for (int round = 0; round < 40; ++round) {
        double a = 0, b = 0;
        for (int c = 0; c < calls; ++c) {
            a += seconds(pa, run_ctein_a);
            b += seconds(pb, run_ctein_b);
        }
        best_a = std::min(best_a, a / calls);
        best_b = std::min(best_b, b / calls);
        ratios.push_back(a / b);
    }
    std::sort(ratios.begin(), ratios.end());
    std::printf("%s Hq %zu Hkv %zu D %zu Tk %zu Tq %zu%s, %zu thread(s): a %.1f us, b %.1f us; a / b: "
                "fastest calls %.3f, "
                "median of rounds %.3f; max |a - b| %.2e (max |a| %.2f)\n",
                bf16 ? "bf16" : "f32", hq, hkv, d, tk, tq, causal ? " causal" : "", threads, best_a * 1e6,
                best_b * 1e6, best_a / best_b, ratios[ratios.size() / 2], difference, largest);
}
