// The README's code blocks, compiled and run: each function holds one block's lines as the README
// shows them (the test "docs: snippets are compiled code" checks that they are these lines), and
// main checks what the README says of their results.
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>
#include <ctein/kernels/attention_instances.hpp> // the kernel, compiled once for the examples

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>

namespace {

bool opening(std::size_t tokens) {
    ctein::tensor<float, "b s c", 2, ctein::dyn, 512> x(tokens);              // axis names and extents in the type
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(x, ctein::len<"h=8">);   // a view, no copy: (2, 8, tokens, 64)
    static_assert(decltype(q)::extents_type::static_extent(3) == 64);          // the compiler solved d = 512 / 8
    auto o = ctein::rearrange<"b h s d -> b s (h d)">(q);                      // merge the heads back
    auto o_copy = ctein::eval(o);                                              // contiguous (2, tokens, 512) tensor
    return o_copy.extent(1) == tokens && o_copy.extent(2) == 512;
}

template <class T>
void fill(T& t, float step) {
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = std::sin(static_cast<float>(i) * step);
}

/// The largest |a - b| over every element.
template <class A, class B>
float difference(const A& a, const B& b) {
    float worst = 0.0f;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]));
    return worst;
}

bool attention_entry_points() {
    ctein::tensor<float, "b h s d", 2, 8, 33, 64> q, k, v;
    fill(q, 0.1f);
    fill(k, 0.2f);
    fill(v, 0.3f);
    // q [B, Hq, Tq, D]; k, v [B, Hkv, Tk, D] (Hkv divides Hq: grouped-query, multi-query when 1)
    auto o = ctein::attention(q, k, v, ctein::causal);                   // named like q: "b h s d"

    // the formula as the seeds write it, recognised from its types: the same kernel, the same bits
    auto o2 = ctein::einsum<"b h q k, b h k d -> b h q d">(
        ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, k) / std::sqrt(64.0f) + ctein::causal), v);
    const bool same = difference(o, ctein::eval(o2)) == 0.0f;

    ctein::tensor<float, "b g s d", 2, 2, 33, 64> kg, vg;
    fill(kg, 0.2f);
    fill(vg, 0.3f);
    const auto repeated = [&](const auto& k, const auto& v) {
        // grouped-query attention as the seeds write it (repeat_interleave): the repeats are views, and the
        // kernel reads each key/value head once, without copying them
        auto kr = ctein::repeat<"b g s d -> b (g r) s d">(k, ctein::len<"r", 4>);
        auto vr = ctein::repeat<"b g s d -> b (g r) s d">(v, ctein::len<"r", 4>);
        auto o3 = ctein::einsum<"b h q k, b h k d -> b h q d">(
            ctein::softmax<"k">(ctein::einsum<"b h q d, b h k d -> b h q k">(q, kr) / std::sqrt(64.0f)), vr);
        return ctein::eval(o3);
    };
    const auto grouped = repeated(kg, vg);
    const bool grouped_same = difference(grouped, ctein::attention(q, kg, vg)) <= 1e-6f;
    std::printf("attention and its formula: %s; grouped-query formula: %s\n", same ? "the same bits" : "DIFFER",
                grouped_same ? "matches" : "DIFFERS");
    return same && grouped_same;
}

bool slices_of_a_cache() {
    ctein::tensor<float, "b h s d", 1, 4, 64, 32> q, k_cache, v_cache;
    fill(k_cache, 0.05f);
    fill(v_cache, 0.07f);
    const std::ptrdiff_t q_len = 64, length = 40;
    auto k_now = ctein::slice<"s">(k_cache, 0, length);        // [B, H, length, D] of [B, H, capacity, D]
    auto v_now = ctein::slice<"s">(v_cache, 0, length);
    auto o = ctein::attention(q, k_now, v_now, ctein::causal_offset(length - q_len));
    return o.extent(2) == 64;
}

bool sixteen_bit_operands() {
    ctein::tensor<float, "b h s d", 1, 8, 1, 128> q;
    ctein::tensor<float, "b h s d", 1, 2, 100, 128> k, v;
    fill(q, 0.1f);
    fill(k, 0.2f);
    fill(v, 0.3f);
    ctein::nn::kv_cache_of<ctein::bfloat16, 2, 128, 4096> cache(1); // 2 bytes per element
    cache.append(k, v);                                               // rounded to bfloat16
    auto o = ctein::attention(q, cache.keys(), cache.values());       // read widened, computed in float

    ctein::tensor<ctein::float16, "b h s d", 1, 8, 1, 128> q16;
    for (std::size_t i = 0; i < q.size(); ++i) q16.data()[i] = q.data()[i];
    const float error = difference(o, ctein::attention(q, k, v));
    std::printf("bfloat16 KV cache: max |error| %.2g against float\n", error);
    return error < 1e-2f && difference(ctein::attention(q16, q16, q16), ctein::attention(q, q, q)) < 1e-3f;
}

} // namespace

int main() {
    const bool ok = opening(5) && attention_entry_points() && slices_of_a_cache() && sixteen_bit_operands();
    std::printf("README blocks: %s\n", ok ? "ran as described" : "DIFFER from the README");
    return ok ? 0 : 1;
}
