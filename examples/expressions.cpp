// Element-wise expressions around attention, each one line of ctein: a bias add, RoPE, a mask
// conversion, a KV cache narrowed to its filled tokens. Each result is checked against a plain
// loop; the program prints what it computed and whether it matches.
#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp> // the kernel, compiled once for the examples

#include <cmath>
#include <cstddef>
#include <cstdio>

namespace {
constexpr std::size_t B = 2, H = 4, S = 6, D = 16, capacity = 32;

template <class T>
void fill(T& t, float step) {
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = std::sin(static_cast<float>(i) * step);
}
} // namespace

int main() {
    bool all_match = true;
    const auto report = [&](const char* what, bool matches) {
        std::printf("%-44s %s\n", what, matches ? "matches the loop" : "DIFFERS");
        all_match = all_match && matches;
    };

    ctein::tensor<float, "b s c", B, S, H * D> projected;
    ctein::tensor<float, "c", H * D> bias;
    fill(projected, 0.37f);
    fill(bias, 1.1f);
    auto q = ctein::rearrange<"b s (h d) -> b h s d">(projected, ctein::len<"h", H>);
    ctein::tensor<float, "s d", S, D> cos, sin;
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t d = 0; d < D; ++d) {
            const double angle = static_cast<double>(s) * std::pow(10000.0, -2.0 * (d % (D / 2)) / D);
            cos(s, d) = static_cast<float>(std::cos(angle));
            sin(s, d) = static_cast<float>(std::sin(angle));
        }
    ctein::tensor<float, "q k", S, S> keep; // the seeds' float 0/1 mask: 1 = attend
    for (std::size_t i = 0; i < S; ++i)
        for (std::size_t j = 0; j < S; ++j) keep(i, j) = j <= i ? 1.0f : 0.0f;
    ctein::tensor<float, "b h s d", B, H, capacity, D> k_cache, v_cache;
    fill(k_cache, 0.11f);
    fill(v_cache, 0.23f);
    const std::size_t length = S;

    // --- the snippets of README.md's "Expressions" section, as written there
    auto x = ctein::eval(projected + bias);                                // "b s c" + "c": a bias add
    auto q_rope = ctein::eval(q * cos + ctein::rotate_half<"d">(q) * sin); // RoPE, one pass
    auto additive = ctein::eval((keep - 1.0f) * 1e9f);                     // 0 where kept, -1e9 elsewhere
    auto k_now = ctein::slice<"s">(k_cache, 0, length);                    // the filled tokens, a view
    auto v_now = ctein::slice<"s">(v_cache, 0, length);
    auto o = ctein::attention(q_rope, k_now, v_now, ctein::mask(keep == 1.0f));
    // ---

    bool matches = true;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t c = 0; c < H * D; ++c)
                matches = matches && x(b, s, c) == projected(b, s, c) + bias(c);
    report("bias add  x + bias", matches);

    matches = true;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t s = 0; s < S; ++s)
                for (std::size_t d = 0; d < D; ++d) {
                    const float half = d < D / 2 ? -q(b, h, s, d + D / 2) : q(b, h, s, d - D / 2);
                    const float expected = q(b, h, s, d) * cos(s, d) + half * sin(s, d);
                    matches = matches && std::abs(q_rope(b, h, s, d) - expected) <= 1e-6f;
                }
    report("RoPE  q * cos + rotate_half(q) * sin", matches);

    matches = true;
    for (std::size_t i = 0; i < S; ++i)
        for (std::size_t j = 0; j < S; ++j) matches = matches && additive(i, j) == (j <= i ? 0.0f : -1e9f);
    report("additive mask  (keep - 1) * 1e9", matches);

    // the keep mask as a comparison gives the additive mask's attention (up to rounding)
    const auto o_additive = ctein::attention(q_rope, k_now, v_now, ctein::mask(additive));
    matches = true;
    for (std::size_t i = 0; i < o.size(); ++i)
        matches = matches && std::abs(o.data()[i] - o_additive.data()[i]) <= 1e-5f;
    report("attention over the cache's first tokens", matches);
    std::printf("o is %s\n", ctein::describe(o).c_str());
    return all_match ? 0 : 1;
}
