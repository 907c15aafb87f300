// Attention (fp32) next to its peers, all timed in the same run: ctein::attention and the same
// attention written as a formula (einsum, softmax, einsum) against PyTorch (torch_peer.cmake), a
// naive loop, the FMA peak (prefill), the two products alone on PyTorch's GEMM (prefill: what
// the best GEMM reaches on them), a memcpy of the K and V bytes (decode), and ONNX Runtime and
// OpenVINO when CTEIN_ENGINE_PEERS names their server (engine_server.hpp); and the resident
// memory a long prefill adds. attention_table.py turns the JSON output into docs/benchmarks.md's
// tables. Built twice when a system libtorch is found: its binary has ctein's rows and its own.
#include "attention_memory.hpp"
#include "attention_naive.hpp"
#include "attention_shape.hpp"
#include "cold_bytes.hpp"
#include "engine_server.hpp"
#include "fma_peak.hpp"
#include "machine_context.hpp"
#include "same_run.hpp"

#ifdef CTEIN_TORCH_PEER
#include "attention_torch.hpp"
#endif

#include <ctein/ctein.hpp>
#if __has_include(<ctein/kernels/attention.hpp>)
#include <ctein/expr/attention.hpp>
#define CTEIN_BENCH_HAS_ATTENTION 1
#if __has_include(<ctein/expr/attention_formula.hpp>)
#include <ctein/expr/attention_formula.hpp>
#define CTEIN_BENCH_HAS_FORMULA 1
#endif
#endif

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using ctein::bench::attention_shape;
using ctein::bench::clock;
using ctein::bench::cold_bytes;

constexpr double mib = 1024.0 * 1024.0;

template <std::size_t D>
using heads_t = ctein::tensor<float, "b h t d", ctein::dyn, ctein::dyn, ctein::dyn, D>;
template <class H, std::size_t D>
using halves_t = ctein::tensor<H, "b h t d", ctein::dyn, ctein::dyn, ctein::dyn, D>;

/// Uniform values in [-1, 1) from xorshift64: the scores q·kᵀ/√D then spread with a standard
/// deviation of 1/3. Speed does not depend on the values.
template <class T>
void fill(T& t, std::uint64_t seed) {
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull;
    for (std::size_t i = 0; i < t.size(); ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t.data()[i] = static_cast<float>(x >> 40) * 0x1p-23f - 1.0f;
    }
}

/// q, and `shape.copies` pairs of k and v, of one shape; every implementation reads these same
/// buffers, the calls of a row rotating through the copies (one turn for all of them: see
/// rotating).
template <std::size_t D>
struct operands {
    explicit operands(const attention_shape& s)
        : shape(s)
        , q(s.batch, s.query_heads, s.queries) {
        fill(q, 1);
        for (std::size_t c = 0; c < s.copies; ++c) {
            k.emplace_back(s.batch, s.kv_heads, s.keys);
            v.emplace_back(s.batch, s.kv_heads, s.keys);
            fill(k.back(), 2 + 2 * c);
            fill(v.back(), 3 + 2 * c);
        }
    }
    attention_shape shape;
    heads_t<D> q;
    std::vector<heads_t<D>> k, v;
    std::size_t turn = 0; ///< the copy the next call reads, whichever implementation makes it

    /// q, k and v rounded to a 16-bit type H, made at the first row that reads them.
    template <class H>
    struct narrowed {
        halves_t<H, D> q;
        std::vector<halves_t<H, D>> k, v;
    };
    template <class H>
    const narrowed<H>& as() {
        auto& kept = std::get<std::unique_ptr<narrowed<H>>>(halves);
        if (!kept) {
            kept = std::make_unique<narrowed<H>>(narrowed<H>{round<H>(q), {}, {}});
            for (std::size_t c = 0; c < k.size(); ++c) {
                kept->k.push_back(round<H>(k[c]));
                kept->v.push_back(round<H>(v[c]));
            }
        }
        return *kept;
    }
    std::tuple<std::unique_ptr<narrowed<ctein::bfloat16>>, std::unique_ptr<narrowed<ctein::float16>>> halves;

private:
    template <class H>
    static halves_t<H, D> round(const heads_t<D>& x) {
        halves_t<H, D> out(x.extent(0), x.extent(1), x.extent(2));
        for (std::size_t i = 0; i < x.size(); ++i) out.data()[i] = H(x.data()[i]);
        return out;
    }
};

/// Calls f(copy) with the next copy of K and V at each call. Every call of a row's shape, its own
/// and its peers', takes the next turn of the shared `turn`: with a turn each, a peer called right
/// after the row read the copy the row had just brought into the caches (a cold row's memcpy and
/// PyTorch were partly warm).
template <class F>
std::function<void()> rotating(std::size_t& turn, std::size_t copies, F f) {
    return [f = std::move(f), copies, &turn]() { f(turn++ % copies); };
}

/// The operands of the last shape asked for (rows of one shape run one after another), so that
/// no more than one set per head size is alive.
template <std::size_t D>
operands<D>& operands_for(const attention_shape& s) {
    static std::unique_ptr<operands<D>> last;
    const auto same = [&](const attention_shape& o) {
        return o.batch == s.batch && o.query_heads == s.query_heads && o.kv_heads == s.kv_heads &&
               o.queries == s.queries && o.keys == s.keys && o.copies == s.copies;
    };
    if (!last || !same(last->shape)) {
        last.reset();
        last = std::make_unique<operands<D>>(s);
    }
    return *last;
}

/// ctein_bf16, ctein_f16: ctein::attention on bfloat16 or float16 q, k and v (prefill) or on a
/// 16-bit KV cache with float queries (decode). torch_products: q·kᵀ and its product with v on
/// PyTorch's GEMM, no softmax (ctein::bench::torch_products).
enum class entry { ctein, ctein_bf16, ctein_f16, formula, torch, torch_products, naive, memcpy };

constexpr bool half_precision(entry e) {
    return e == entry::ctein_bf16 || e == entry::ctein_f16;
}

#ifdef CTEIN_BENCH_TORCH_ROWS_ONLY
constexpr bool all_rows = false; // a second libtorch's binary: ctein's rows and that peer's
#else
constexpr bool all_rows = true;
#endif

constexpr bool available(entry e) {
    switch (e) {
    case entry::ctein:
    case entry::ctein_bf16:
    case entry::ctein_f16:
#ifdef CTEIN_BENCH_HAS_ATTENTION
        return true;
#else
        return false;
#endif
    case entry::formula:
#ifdef CTEIN_BENCH_HAS_FORMULA
        return true;
#else
        return false;
#endif
    case entry::torch:
    case entry::torch_products:
#ifdef CTEIN_TORCH_PEER
        return true;
#else
        return false;
#endif
    default:
        return true;
    }
}

/// The row name of an entry, and the `vs_<name>` of the rows compared with it.
std::string name_of(entry e) {
    switch (e) {
    case entry::ctein:
        return "ctein";
    case entry::ctein_bf16:
        return "ctein_bf16";
    case entry::ctein_f16:
        return "ctein_f16";
    case entry::formula:
        return "ctein_formula";
    case entry::torch:
#ifdef CTEIN_TORCH_PEER
        return CTEIN_TORCH_PEER;
#else
        return "torch";
#endif
    case entry::torch_products:
        return name_of(entry::torch) + "_products";
    case entry::naive:
        return "naive";
    default:
        return "memcpy";
    }
}

/// One thing to time: a call, the factor from its time to the whole call's (the naive loop and
/// the products run a sample), what the row's label should say, and the flops of a whole call
/// when they are not the row's (the products': every head's, unmasked).
struct timed_call {
    timed_call(std::function<void()> f = {}, double time_scale = 1.0, std::string what = {},
               double own_flops = 0.0)
        : run(std::move(f))
        , scale(time_scale)
        , label(std::move(what))
        , flops(own_flops) {}
    std::function<void()> run;
    double scale;
    std::string label;
    double flops;
};

template <class T>
void keep(const T& result) {
    benchmark::DoNotOptimize(result);
    benchmark::ClobberMemory();
}

/// ctein::attention over the copies of `y` (tensors with q, k and v) and the queries `q`.
template <class Q, class KV>
timed_call ctein_call(const Q& q, const KV& y, std::size_t& turn, const attention_shape& s) {
    const auto call = [&q, &y, &turn, s](const auto&... masks) {
        return rotating(turn, s.copies, [&q, &y, n = s.threads, masks...](std::size_t c) {
            keep(ctein::attention(q, y.k[c], y.v[c], masks..., ctein::threads(n)));
        });
    };
    if (!s.causal) return {call()};
    if (s.causal_offset == 0) return {call(ctein::causal)};
    return {call(ctein::causal_offset(s.causal_offset))};
}

/// A 16-bit row: q, k and v in H for a prefill, float queries over a 16-bit cache for a decode.
template <class H, std::size_t D>
timed_call ctein_half_call(operands<D>& x, const attention_shape& s) {
    const auto& y = x.template as<H>();
    if (s.queries > 4) return ctein_call(y.q, y, x.turn, s);
    return ctein_call(x.q, y, x.turn, s);
}

template <std::size_t D>
timed_call make_call(entry e, operands<D>& x, const attention_shape& s) {
    switch (e) {
#ifdef CTEIN_BENCH_HAS_ATTENTION
    case entry::ctein:
        return ctein_call(x.q, x, x.turn, s);
    case entry::ctein_bf16:
        return ctein_half_call<ctein::bfloat16>(x, s);
    case entry::ctein_f16:
        return ctein_half_call<ctein::float16>(x, s);
#endif
#ifdef CTEIN_BENCH_HAS_FORMULA
    // The same masks as ctein::attention's; threads: ctein::set_thread_count, which each row sets.
    case entry::formula: {
        const float scale = 1.0f / std::sqrt(static_cast<float>(D));
        const auto weighted = [&x](const auto& scores) {
            keep(ctein::einsum<"b h q k, b h k d -> b h q d">(ctein::softmax<"k">(scores), x.v[0]));
        };
        const auto scores = [&x] { return ctein::einsum<"b h q d, b h k d -> b h q k">(x.q, x.k[0]); };
        if (!s.causal) return {[=] { weighted(scores() * scale); }};
        if (s.causal_offset == 0) return {[=] { weighted(scores() * scale + ctein::causal); }};
        return {[=, past = s.causal_offset] { weighted(scores() * scale + ctein::causal_offset(past)); }};
    }
#endif
#ifdef CTEIN_TORCH_PEER
    case entry::torch: {
        ctein::bench::set_torch_threads(s.threads);
        std::vector<std::shared_ptr<ctein::bench::torch_attention>> torch;
        for (std::size_t c = 0; c < s.copies; ++c)
            torch.push_back(
                std::make_shared<ctein::bench::torch_attention>(s, x.q.data(), x.k[c].data(), x.v[c].data()));
        return {rotating(x.turn, s.copies, [torch](std::size_t c) { keep((*torch[c])().data_ptr()); })};
    }
    case entry::torch_products: {
        ctein::bench::set_torch_threads(s.threads);
        auto products =
            std::make_shared<ctein::bench::torch_products>(s, x.q.data(), x.k[0].data(), x.v[0].data());
        return {[products] {
                    (*products)();
                    keep(products->out());
                },
                products->time_scale(),
                {},
                products->flops()};
    }
#endif
    case entry::naive: {
        auto naive = std::make_shared<ctein::bench::naive_attention>(s);
        return {[naive, &x] {
                    (*naive)(x.q.data(), x.k[0].data(), x.v[0].data());
                    keep(naive->out());
                },
                naive->time_scale(), naive->sample()};
    }
    case entry::memcpy: { // of the bytes of K and V as the row stores them
        const std::size_t bytes = s.kv_size() * s.kv_element_bytes;
        auto to = std::make_shared<std::vector<char>>(2 * bytes);
        const auto copy = [to, bytes](const auto& k, const auto& v) {
            std::memcpy(to->data(), k.data(), bytes);
            std::memcpy(to->data() + bytes, v.data(), bytes);
            benchmark::ClobberMemory();
        };
        if (s.kv_element_bytes == 2) {
            const auto& y = x.template as<ctein::bfloat16>();
            return {rotating(x.turn, s.copies, [copy, &y](std::size_t c) { copy(y.k[c], y.v[c]); })};
        }
        return {rotating(x.turn, s.copies, [copy, &x](std::size_t c) { copy(x.k[c], x.v[c]); })};
    }
    default:
        return {};
    }
}

/// Seconds of one whole call of `c` (scaled, for a sampled naive loop).
double call_seconds(const timed_call& c) {
    return ctein::bench::call_seconds(c.run) * c.scale;
}

/// The fastest of a few calls of `c`, after a first one (caches, page faults): as many as fit in
/// about 0.5 s, from 3 to 21, so that a slow peer costs a few calls, not minutes.
double fastest_seconds(const timed_call& c) {
    const double first = ctein::bench::call_seconds(c.run);
    const auto runs = static_cast<int>(std::clamp(0.5 / first, 3.0, 21.0));
    return ctein::bench::fastest_seconds(c.run, runs) * c.scale;
}

enum class kind { prefill, decode };

/// The entries a row of `e` is compared with: timed just before the row's own loop, so that a
/// `vs_<peer>` counter (peer time / row time, above 1 when the row is faster) sees one machine state.
std::vector<entry> peers_of(entry e, kind k, const attention_shape& s) {
    std::vector<entry> peers;
    if (k == kind::decode) peers.push_back(entry::memcpy);
    if (e == entry::ctein_bf16 || e == entry::ctein_f16) peers.push_back(entry::ctein);
    if (e == entry::ctein) {
        if (available(entry::torch)) peers.push_back(entry::torch);
        if (available(entry::torch_products) && all_rows && k == kind::prefill)
            peers.push_back(entry::torch_products);
        if (all_rows && k == kind::prefill && s.threads == 1) peers.push_back(entry::naive);
    }
    if (e == entry::formula) peers.push_back(entry::ctein);
    return peers;
}

/// The engines of engine_peers.py a row of `e` is compared with, comma-separated (the server
/// leaves out those that do not run here): fp32 rows against the fp32 engines, 16-bit prefill
/// rows against OpenVINO's bf16 path, 16-bit KV caches against the engines of grouped-query decode.
std::string engines_of(entry e, kind k) {
    if (!all_rows) return {};
    if (k == kind::prefill)
        return e == entry::ctein   ? "onnxruntime_mha,onnxruntime_attn,openvino_f32"
               : half_precision(e) ? "openvino_bf16"
                                   : "";
    return e == entry::ctein   ? "onnxruntime_gqa,onnxruntime_attn,openvino_f32,openvino_bf16"
           : half_precision(e) ? "onnxruntime_gqa,openvino_f32,openvino_bf16"
                               : "";
}

/// Opens the row's shape on the engine server: {engine: its largest error against PyTorch}, for
/// each of `engines` that runs here; none without a server.
std::map<std::string, double> open_engines(const std::string& engines, kind k, const attention_shape& s) {
    ctein::bench::engine_server* server = ctein::bench::engine_peers();
    if (!server || engines.empty()) return {};
    const auto n = [](std::size_t x) { return std::to_string(x); };
    const auto reply = server->ask(std::string(k == kind::prefill ? "open prefill " : "open decode ") +
                                   n(s.query_heads) + " " + n(s.kv_heads) + " " + n(s.head_size) + " " +
                                   n(s.queries) + " " + n(s.keys) + " " + (s.masks_keys() ? "1 " : "0 ") +
                                   n(s.threads) + (s.copies > 1 ? " cold " : " warm ") + engines);
    std::map<std::string, double> errors;
    for (const auto& [engine, error] : reply) errors[engine] = std::stod(error);
    return errors;
}

/// Whether a row pauses before each of its calls: libtorch's OpenMP workers spin for a while after
/// each call, and a 2-thread call made meanwhile shares a core with them. Prefill rows pause for
/// their FMA peak loop; a decode row when PyTorch runs between its calls (a cold row's peers).
bool pauses_after_torch(entry e, kind k, const attention_shape& s) {
    const std::vector<entry> peers = peers_of(e, k, s);
    return k == kind::prefill || (s.threads > 1 && s.copies > 1 &&
                                  std::find(peers.begin(), peers.end(), entry::torch) != peers.end());
}

/// Seconds a fused kernel should take at 80 GFLOP/s per thread (half the FMA peak): what
/// decides how many times a row runs.
double expected_seconds(const attention_shape& s) {
    return s.flops() / (80e9 * static_cast<double>(s.threads));
}

/// Calls a prefill row's iteration times back to back after its first, for every entry alike:
/// engine_peers.py times ONNX Runtime and OpenVINO as the fastest of calls that follow one
/// another, and a call that follows a pause, the FMA peak loop and the other entries' calls
/// paid up to 0.6 ms more (no page faults: its operands out of L2, a sleeping worker): at T =
/// 512, 1-22 % of an fp32 call and a third of a bfloat16 one. Long calls (above 50 ms expected)
/// run once: that start is about 1 % of them. Decode rows keep their own protocol (warm and cold caches).
int calls_after_first(kind k, const attention_shape& s) {
    return k == kind::prefill && expected_seconds(s) < 0.05 ? 2 : 0;
}

/// The times of an iteration's calls of one entry: its first call (after whatever ran before it)
/// and the fastest of the `after` calls that follow it back to back (the first when none do).
struct burst_times {
    double first, back_to_back;
};
burst_times time_burst(const timed_call& c, int after) {
    const double first = call_seconds(c);
    return {first, after > 0 ? ctein::bench::fastest_seconds(c.run, after) * c.scale : first};
}

/// A row: its own calls, an iteration's (manual time) after one run of the FMA peak loop and
/// before each peer's, so that a neighbour's load on this shared machine falls on all of them
/// alike; a short prefill's iteration is three calls of each entry, the fastest of the last two
/// its time (calls_after_first), the first one's kept as first_call_seconds. Every figure is the fastest seen
/// (a neighbour only ever slows a call down; medians of a few calls moved by ±20 % from run to run). The
/// naive loop, too slow to run at every iteration, is timed before the loop.
template <std::size_t D>
void attention_row(benchmark::State& state, entry e, kind k, const attention_shape& s) {
    ctein::set_thread_count(s.threads);
    operands<D>& x = operands_for<D>(s);
    // A peer timed in the row's iterations: `untimed` makes a call, `burst` times one and the
    // calls after it (time_burst); an engine is timed by its server, in its own process.
    struct interleaved_peer {
        std::string name;
        std::function<void()> untimed;
        std::function<burst_times(int)> burst;
        double flops = 0.0;
        double fastest = 0.0;
    };
    std::vector<interleaved_peer> interleaved;
    std::vector<std::pair<std::string, double>> timed_before; // name, fastest call
    // A warm decode row's peers run before it: between its calls they would evict its K and V.
    const bool peers_first = k == kind::decode && s.copies == 1;
    for (entry p : peers_of(e, k, s)) {
        timed_call peer = make_call<D>(p, x, s);
        if (p == entry::naive || peers_first) {
            timed_before.emplace_back(name_of(p), fastest_seconds(peer));
        } else {
            peer.run();
            const double flops = peer.flops;
            auto shared = std::make_shared<timed_call>(std::move(peer));
            interleaved.push_back({name_of(p), [shared] { shared->run(); },
                                   [shared](int after) { return time_burst(*shared, after); }, flops});
        }
    }
    const std::map<std::string, double> engine_errors = open_engines(engines_of(e, k), k, s);
    for (const auto& [engine, error] : engine_errors) {
        ctein::bench::engine_server& server = *ctein::bench::engine_peers();
        const auto burst = [&server, name = engine](int after) {
            const auto reply = server.ask("burst " + name + " " + std::to_string(after));
            return burst_times{server.number(reply, "first"), server.number(reply, "back_to_back")};
        };
        if (peers_first) {
            timed_before.emplace_back(engine, server.number(server.ask("fastest " + engine), "seconds"));
        } else {
            burst(0);
            interleaved.push_back({engine, [burst] { burst(0); }, burst});
        }
    }
    const timed_call own = make_call<D>(e, x, s);
    if (!own.label.empty()) state.SetLabel(own.label);
    own.run();
    double seconds = 0.0, first_seconds = 0.0, peak = 0.0, bf16_peak = 0.0;
    const bool pause = pauses_after_torch(e, k, s);
    const int after_first = calls_after_first(k, s);
    for (auto _ : state) {
        // a pause first, or the 2-thread peak loop (or call) shares a core with libtorch's workers
        if (pause) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (k == kind::prefill) {
            peak = std::max(peak, ctein::bench::fma_peak_gflops(s.threads, 1));
            if (e == entry::ctein_bf16)
                bf16_peak = std::max(bf16_peak, ctein::bench::bf16_products_peak_gflops(s.threads, 1));
        }
        // After a pause the threads of a 2-thread call (the pool's, libtorch's) sleep, and waking
        // them cost a decode call tens of microseconds: a call first, untimed, as a step that
        // follows another finds them awake.
        if (pause && k == kind::decode) own.run();
        const burst_times t = time_burst(own, after_first);
        state.SetIterationTime(t.back_to_back);
        seconds = seconds == 0.0 ? t.back_to_back : std::min(seconds, t.back_to_back);
        first_seconds = first_seconds == 0.0 ? t.first : std::min(first_seconds, t.first);
        for (interleaved_peer& peer : interleaved) {
            if (pause && k == kind::decode) peer.untimed();
            const double p = peer.burst(after_first).back_to_back;
            peer.fastest = peer.fastest == 0.0 ? p : std::min(peer.fastest, p);
        }
    }
    state.counters["seconds"] = seconds; // the fastest call, beside which engine_peers.py's rows are put
    if (after_first > 0) state.counters["first_call_seconds"] = first_seconds; // after the peak loop
    if (k == kind::prefill) {
        const double gflops = s.flops() / seconds * 1e-9;
        state.counters["GFLOPs"] = gflops;
        state.counters["peak_GFLOPs"] = peak;
        state.counters["pct_peak"] = 100.0 * gflops / peak;
        if (bf16_peak > 0.0) { // the bound of products on AMX or vdpbf16ps, where the build has them
            state.counters["bf16_peak_GFLOPs"] = bf16_peak;
            state.counters["pct_bf16_peak"] = 100.0 * gflops / bf16_peak;
        }
    } else { // bytes of K and V per second of the fastest call
        state.counters["bytes_per_second"] = s.kv_bytes() / seconds;
    }
    for (const interleaved_peer& peer : interleaved) {
        state.counters["vs_" + peer.name] = peer.fastest / seconds;
        if (peer.flops > 0.0 && peak > 0.0) // a peer credited with flops of its own
            state.counters["pct_peak_" + peer.name] = 100.0 * peer.flops / peer.fastest * 1e-9 / peak;
        if (engine_errors.count(peer.name)) state.counters[peer.name + "_seconds"] = peer.fastest;
    }
    for (const auto& [name, peer] : timed_before) {
        state.counters["vs_" + name] = peer / seconds;
        if (engine_errors.count(name)) state.counters[name + "_seconds"] = peer;
    }
    // attention_table.py makes each engine's row of <engine>_seconds and this error.
    for (const auto& [engine, error] : engine_errors) state.counters[engine + "_max_abs_error"] = error;
}

/// Resident memory a call adds beyond its output (inputs are resident before), against the
/// inputs and outputs and against the score matrix that attention need not keep.
template <std::size_t D>
void memory_row(benchmark::State& state, entry e, const attention_shape& s) {
    ctein::set_thread_count(s.threads);
    operands<D>& x = operands_for<D>(s);
    const timed_call own = make_call<D>(e, x, s);
    std::optional<double> grew;
    for (auto _ : state) {
        const auto start = clock::now();
        // on a new thread: the buffers ctein keeps on a calling thread for its next call (the
        // packed keys) are then counted in every row, whatever rows ran before
        grew = ctein::bench::peak_growth_bytes([&] { std::thread(own.run).join(); });
        state.SetIterationTime(std::chrono::duration<double>(clock::now() - start).count());
    }
    if (!grew) {
        state.SkipWithError("the resident high-water mark cannot be reset (/proc/self/clear_refs)");
        return;
    }
    const double out_bytes = static_cast<double>(s.q_size() * sizeof(float));
    const double score_bytes =
        static_cast<double>(s.batch * s.query_heads * s.queries * s.keys * sizeof(float));
    state.counters["extra_MiB"] = (*grew - out_bytes) / mib;
    state.counters["io_MiB"] = s.io_bytes() / mib;
    state.counters["scores_MiB"] = score_bytes / mib;
}

const std::vector<entry> prefill_entries =
    all_rows ? std::vector{entry::torch,      entry::naive,     entry::ctein,
                           entry::ctein_bf16, entry::ctein_f16, entry::formula}
             : std::vector{entry::torch, entry::ctein};
const std::vector<entry> decode_entries =
    all_rows ? std::vector{entry::memcpy,     entry::torch,     entry::ctein,
                           entry::ctein_bf16, entry::ctein_f16, entry::formula}
             : std::vector{entry::torch, entry::ctein};
const std::vector<entry> memory_entries = all_rows ? std::vector{entry::torch, entry::ctein, entry::formula}
                                                   : std::vector{entry::torch, entry::ctein};

/// Registers a row; an exception (a shape the kernel refuses) fails that row, not the run.
template <class Row>
benchmark::internal::Benchmark* add(const std::string& name, Row row) {
    const auto guarded = [row](benchmark::State& state) {
        try {
            row(state);
        } catch (const std::exception& e) {
            state.SkipWithError(e.what());
        }
    };
    return benchmark::RegisterBenchmark(name.c_str(), guarded)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
}

template <class... Args>
void dispatch(std::size_t head_size, Args&&... args) {
    if (head_size == 64) {
        attention_row<64>(std::forward<Args>(args)...);
    } else {
        attention_row<128>(std::forward<Args>(args)...);
    }
}

/// Prefill: B = 1, H = 12 at D = 64 (GPT-2 small, BERT base) and H = 8 at D = 128, T = 512 to
/// 4096, full and causal, 1 and 2 threads.
void register_prefill() {
    struct heads {
        std::size_t count, size;
    };
    for (const heads h : {heads{12, 64}, heads{8, 128}})
        for (const std::size_t tokens : {512, 2048, 4096})
            for (const bool causal : {false, true})
                for (const std::size_t threads : {1, 2}) {
                    const attention_shape s{1, h.count, h.count, tokens, tokens, h.size, causal, 0, threads};
                    for (const entry e : prefill_entries) {
                        if (!available(e) || (e == entry::naive && threads != 1)) continue;
                        const std::string name =
                            "prefill/D:" + std::to_string(h.size) + "/H:" + std::to_string(h.count) +
                            "/T:" + std::to_string(tokens) + (causal ? "/causal" : "/full") +
                            "/threads:" + std::to_string(threads) + "/" + name_of(e);
                        auto* b = add(name, [e, s](benchmark::State& st) {
                            dispatch(s.head_size, st, e, kind::prefill, s);
                        });
                        const double expected = expected_seconds(s);
                        if (e == entry::naive) {
                            b->Iterations(3);
                        } else {
                            // each iteration also runs the peak loop and the peers: a few seconds per row
                            b->Iterations(std::clamp<std::int64_t>(std::llround(2.0 / expected), 5, 20));
                        }
                    }
                }
}

/// Copies of K and V a cold row rotates through (cold_bytes).
std::size_t cold_copies(attention_shape s) {
    s.kv_element_bytes = 2;
    const auto bytes = static_cast<std::size_t>(s.kv_bytes());
    return std::max<std::size_t>(2, (cold_bytes() + bytes - 1) / bytes);
}

/// The causal offset of one query that sees every one of `keys` keys.
std::ptrdiff_t past(std::size_t keys) {
    return static_cast<std::ptrdiff_t>(keys) - 1;
}

/// Decode: one query against a KV cache of 512 and 4096 tokens, multi-head (12 heads, D = 64)
/// and grouped-query (32 query heads over 8 key/value heads, D = 128, as Llama 3 8B). Warm: the
/// same K and V at every call, left in the caches by the call before (a small model, a short
/// context); cold: the calls rotate through copies worth three times the last-level cache, so
/// that K and V come from memory.
void register_decode() {
    struct heads {
        std::size_t query, kv, size;
    };
    for (const heads h : {heads{12, 12, 64}, heads{32, 8, 128}})
        for (const std::size_t keys : {512, 4096})
            for (const std::size_t threads : {1, 2})
                for (const bool cold : {false, true}) {
                    attention_shape s{1, h.query, h.kv, 1, keys, h.size, true, past(keys), threads};
                    if (cold) s.copies = cold_copies(s);
                    for (const entry e : decode_entries) {
                        // The formula's einsum pairs query head h with key head h: multi-head only;
                        // and it reads one copy of K and V: warm only.
                        if (!available(e) || (e == entry::formula && (h.query != h.kv || cold))) continue;
                        attention_shape row = s;
                        if (half_precision(e)) row.kv_element_bytes = 2;
                        const std::string name =
                            "decode/Hq:" + std::to_string(h.query) + "/Hkv:" + std::to_string(h.kv) +
                            "/D:" + std::to_string(h.size) + "/Tk:" + std::to_string(keys) +
                            "/threads:" + std::to_string(threads) + (cold ? "/cache:cold/" : "/cache:warm/") +
                            name_of(e);
                        auto* b = add(name, [e, row](benchmark::State& st) {
                            dispatch(row.head_size, st, e, kind::decode, row);
                        });
                        // A row that pauses 20 ms per call, or times the engines between its calls
                        // (OpenVINO's decode takes up to 30 times ctein's): a fixed count of calls,
                        // not 0.25 s of them.
                        const bool engines_between = cold && ctein::bench::engine_peers() &&
                                                     !engines_of(e, kind::decode).empty();
                        if (pauses_after_torch(e, kind::decode, row) || engines_between)
                            b->Iterations(
                                static_cast<std::int64_t>(std::clamp<std::size_t>(2 * row.copies, 20, 70)));
                        else
                            b->MinTime(0.25);
                    }
                }
}

/// Peak memory at T = 8192 (B = 1, H = 12, D = 64), where a materialised score matrix would be
/// 3 GiB; one call each. Registered last: peak_growth_bytes makes every later large allocation
/// a mapping of its own, which the timed rows should not pay.
void register_memory() {
    const attention_shape s{1, 12, 12, 8192, 8192, 64, false, 0, 2};
    for (const entry e : memory_entries) {
        if (!available(e)) continue;
        add("memory/T:8192/H:12/D:64/threads:2/" + name_of(e), [e, s](benchmark::State& st) {
            memory_row<64>(st, e, s);
        })->Iterations(1);
    }
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    ctein::bench::add_machine_context();
#ifdef CTEIN_TORCH_PEER
    benchmark::AddCustomContext("torch_peer", CTEIN_TORCH_PEER);
    benchmark::AddCustomContext("torch_version", CTEIN_TORCH_VERSION);
#endif
    if (ctein::bench::engine_server* server = ctein::bench::engine_peers()) {
        // the engines' versions, and why any is left out (attention_goals.py says so in its goal)
        for (const auto& [name, value] : server->ask("hello"))
            if (name.rfind("onnxruntime", 0) == 0 || name.rfind("openvino", 0) == 0 ||
                name.rfind("left_out_", 0) == 0)
                benchmark::AddCustomContext(name, value);
    }
    register_prefill();
    register_decode();
    register_memory();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
