#include <ctein/core/half_precision.hpp>
#include <ctein/kernels/attention.hpp>
#include <ctein/kernels/attention_instances.hpp> // compiled in tests/support/*instances.cpp

#include "../support/naive_attention.hpp"

#include <catch2/catch.hpp>
#include <xsimd/xsimd.hpp>

#include <atomic>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

using ctein::kernels::attention_problem;
using ctein::kernels::mask_kind;

namespace {

constexpr float nan = std::numeric_limits<float>::quiet_NaN();
constexpr float inf = std::numeric_limits<float>::infinity();

struct shape {
    std::size_t batch = 1, query_heads = 1, kv_heads = 1, queries = 1, keys = 1, head_size = 64;
};

/// The operands of one call and the problem that points at them. Strided operands are stored
/// token-major with their heads interleaved and padded rows; padding holds NaN, and so does the
/// output before the call, so reading padding or leaving an output unwritten shows up as NaN.
struct call {
    shape sh;
    using floats = std::vector<float, xsimd::aligned_allocator<float, 64>>;
    floats q, k, v, out, weights;
    std::vector<float> additive;
    std::unique_ptr<bool[]> flags;
    std::vector<std::int64_t> lengths;
    attention_problem p;

    call(const shape& s, bool strided, std::uint32_t seed = 1)
        : sh(s) {
        std::mt19937 gen(seed);
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        const auto place = [&](floats& data, std::size_t heads, std::size_t tokens,
                               ctein::kernels::token_strides& st, std::size_t pad, bool fill) {
            const std::size_t row = s.head_size + (strided ? pad : 0);
            data.assign(s.batch * heads * tokens * row, nan);
            if (strided)
                st = {static_cast<std::ptrdiff_t>(tokens * heads * row), static_cast<std::ptrdiff_t>(row),
                      static_cast<std::ptrdiff_t>(heads * row)};
            else
                st = {static_cast<std::ptrdiff_t>(heads * tokens * row),
                      static_cast<std::ptrdiff_t>(tokens * row), static_cast<std::ptrdiff_t>(row)};
            if (!fill) return;
            for (std::size_t b = 0; b < s.batch; ++b)
                for (std::size_t h = 0; h < heads; ++h)
                    for (std::size_t t = 0; t < tokens; ++t)
                        for (std::size_t d = 0; d < s.head_size; ++d)
                            data[b * st.batch + h * st.head + t * st.token + d] = uniform(gen);
        };
        place(q, s.query_heads, s.queries, p.q_strides, 3, true);
        place(k, s.kv_heads, s.keys, p.k_strides, 5, true);
        place(v, s.kv_heads, s.keys, p.v_strides, 1, true);
        place(out, s.query_heads, s.queries, p.out_strides, 2, false);
        p.batch = s.batch;
        p.query_heads = s.query_heads;
        p.kv_heads = s.kv_heads;
        p.queries = s.queries;
        p.keys = s.keys;
        p.head_size = s.head_size;
        p.q = q.data();
        p.k = k.data();
        p.v = v.data();
        p.out = out.data();
        p.scale = 1.0f / std::sqrt(static_cast<float>(s.head_size));
    }

    /// Stores q (when `queries`) and k and v as `type`: each element rounded to it, in a copy with
    /// the same strides (padding stays NaN); the reference reads the rounded values.
    void narrow(ctein::kernels::element_type type, bool queries) {
        const auto to = [type](const floats& from, std::vector<std::uint16_t>& bits) {
            bits.resize(from.size());
            for (std::size_t i = 0; i < from.size(); ++i)
                bits[i] = type == ctein::kernels::element_type::bf16 ? ctein::bfloat16(from[i]).bits
                                                                     : ctein::float16(from[i]).bits;
            return static_cast<const void*>(bits.data());
        };
        if (queries) {
            p.q = to(q, q16);
            p.q_type = type;
        }
        p.k = to(k, k16);
        p.v = to(v, v16);
        p.kv_type = type;
    }
    std::vector<std::uint16_t> q16, k16, v16;

    /// Asks for the weights too, [B, H, Tq, Tk] contiguous or, strided, with keys `Tq + 1` apart.
    void want_weights(bool strided = false) {
        weights.assign(sh.batch * sh.query_heads * sh.queries * sh.keys * (strided ? sh.queries + 1 : 1),
                       nan);
        p.weights = weights.data();
        const auto keys = static_cast<std::ptrdiff_t>(sh.keys),
                   queries = static_cast<std::ptrdiff_t>(sh.queries);
        const auto heads = static_cast<std::ptrdiff_t>(sh.query_heads);
        if (strided)
            p.weights_strides = {heads * queries * keys * (queries + 1), queries * keys * (queries + 1), 1,
                                 queries + 1};
        else
            p.weights_strides = {heads * queries * keys, queries * keys, keys, 1};
    }

    /// A boolean mask of `elements` flags (true with probability `density`) read with `strides`.
    void bool_mask(mask_kind kind, std::size_t elements, std::array<std::ptrdiff_t, 4> strides,
                   double density, std::uint32_t seed = 7) {
        std::mt19937 gen(seed);
        std::bernoulli_distribution flag(density);
        flags = std::make_unique<bool[]>(elements);
        for (std::size_t e = 0; e < elements; ++e) flags[e] = flag(gen);
        p.mask = {flags.get(), kind, strides};
    }

    /// An additive mask: 0 mostly, some -inf, some float minimum, some -2.5 and 1.25, read with
    /// `strides`.
    void additive_mask(std::size_t elements, std::array<std::ptrdiff_t, 4> strides, std::uint32_t seed = 9) {
        std::mt19937 gen(seed);
        std::uniform_int_distribution<int> pick(0, 9);
        additive.resize(elements);
        for (float& a : additive) {
            const int x = pick(gen);
            a = x < 1    ? -inf
                : x < 2  ? -std::numeric_limits<float>::max()
                : x < 4  ? -2.5f
                : x == 4 ? 1.25f
                         : 0.0f;
        }
        p.mask = {additive.data(), mask_kind::additive, strides};
    }

    [[nodiscard]] float out_at(std::size_t b, std::size_t h, std::size_t i, std::size_t d) const {
        return out[b * p.out_strides.batch + h * p.out_strides.head + i * p.out_strides.token + d];
    }
    [[nodiscard]] float weight_at(std::size_t b, std::size_t h, std::size_t i, std::size_t j) const {
        const auto& w = p.weights_strides;
        return weights[b * w[0] + h * w[1] + i * w[2] + j * w[3]];
    }
};

/// The worst ratio, over every output (and weight), of |kernel - reference| to its tolerance
/// 1e-4 * (largest |reference| of its row) + 1e-6 (+ `rounding` for outputs): at most 1 passes.
/// NaN counts as infinitely wrong.
double worst_error(const call& c, const ctein::testing::naive_attention_result& ref, std::string& where,
                   double rounding = 0.0) {
    double worst = 0.0;
    const auto note = [&](double error, double tolerance, const char* what, std::size_t b, std::size_t h,
                          std::size_t i, std::size_t x) {
        const double ratio = std::isnan(error) ? inf : error / tolerance;
        if (ratio > worst) {
            worst = ratio;
            where = std::string(what) + " b" + std::to_string(b) + " h" + std::to_string(h) + " i" +
                    std::to_string(i) + " at " + std::to_string(x);
        }
    };
    const shape& s = c.sh;
    for (std::size_t b = 0; b < s.batch; ++b)
        for (std::size_t h = 0; h < s.query_heads; ++h)
            for (std::size_t i = 0; i < s.queries; ++i) {
                double top = 0.0;
                for (std::size_t d = 0; d < s.head_size; ++d)
                    top = std::max(top, std::abs(ref.out_at(b, h, i, d)));
                for (std::size_t d = 0; d < s.head_size; ++d)
                    note(std::abs(c.out_at(b, h, i, d) - ref.out_at(b, h, i, d)),
                         1e-4 * top + 1e-6 + rounding, "out", b, h, i, d);
                if (c.p.weights == nullptr) continue;
                double wtop = 0.0;
                for (std::size_t j = 0; j < s.keys; ++j)
                    wtop = std::max(wtop, std::abs(ref.weight_at(b, h, i, j)));
                for (std::size_t j = 0; j < s.keys; ++j)
                    note(std::abs(c.weight_at(b, h, i, j) - ref.weight_at(b, h, i, j)), 1e-4 * wtop + 1e-6,
                         "weight", b, h, i, j);
            }
    return worst;
}

/// What rounding the weights to bfloat16 may add to an output: when the kernel's P·V runs on
/// vdpbf16ps or AMX (bfloat16 q, k and v on a CPU with AVX512-BF16, no weights asked for), each
/// weight moves by at most 2^-8 of itself (8 significant bits, rounded to nearest), and the
/// output, a sum of values with weights that add up to 1 (1 / (1 - p) at most after dropout), by
/// at most 2^-8 of the largest |value| times that sum. Their 2^x before the rounding
/// (exp2_for_bfloat16, 6e-7 of a weight) is left to the float part of the tolerance, as the float
/// path's own 2^x is. Elsewhere nothing: the decode, too, keeps float weights.
double weight_rounding(const call& c) {
    using namespace ctein::kernels::attention_detail;
    if (!bf16_dot_products(c.p) || c.p.weights != nullptr || c.p.queries <= decode_queries) return 0.0;
    float largest = 0.0f;
    for (float x : c.v)
        if (!std::isnan(x)) largest = std::max(largest, std::abs(x));
    const double kept_sum = c.p.dropout > 0.0f ? 1.0 / (1.0 - static_cast<double>(c.p.dropout)) : 1.0;
    return std::ldexp(static_cast<double>(largest), -8) * kept_sum;
}

/// Runs the kernel on `c` and checks it against the reference.
void check_against_reference(call& c) {
    ctein::kernels::attention(c.p);
    const auto ref = ctein::testing::naive_attention(c.p);
    std::string where;
    const double worst = worst_error(c, ref, where, weight_rounding(c));
    INFO("B=" << c.sh.batch << " Hq=" << c.sh.query_heads << " Hkv=" << c.sh.kv_heads << " Tq="
              << c.sh.queries << " Tk=" << c.sh.keys << " D=" << c.sh.head_size << " worst at " << where);
    CHECK(worst <= 1.0);
}

std::string describe(const shape& s) {
    return "Tq " + std::to_string(s.queries) + ", Tk " + std::to_string(s.keys) + ", D " +
           std::to_string(s.head_size);
}

/// Bitwise equality of two float buffers (NaN patterns included).
bool same_bits(const call::floats& a, const call::floats& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

/// Whether every output (and weight) of row (b, h, i) is exactly +0.
bool row_is_zero(const call& c, std::size_t b, std::size_t h, std::size_t i) {
    for (std::size_t d = 0; d < c.sh.head_size; ++d)
        if (c.out_at(b, h, i, d) != 0.0f) return false;
    if (c.p.weights)
        for (std::size_t j = 0; j < c.sh.keys; ++j)
            if (c.weight_at(b, h, i, j) != 0.0f) return false;
    return true;
}

} // namespace

// Tolerance throughout: |kernel - reference| <= 1e-4 * max|reference row| + 1e-6, per output row
// (and per weights row), against a double-precision loop over the same operands; plus
// 2^-8 * max|v| (times 1 / (1 - p) with dropout) for outputs whose weights the kernel rounds to
// bfloat16 (weight_rounding).

TEST_CASE("attention matches the reference for every head size, length and layout", "[attention]") {
    const std::size_t sizes[] = {32, 64, 80, 128, 40, 96};
    const std::pair<std::size_t, std::size_t> lengths[] = {{1, 1},  {7, 7},  {33, 33},
                                                           {7, 33}, {33, 7}, {2, 257}};
    for (std::size_t d : sizes) {
        for (auto [tq, tk] : lengths) {
            for (bool strided : {false, true}) {
                call c({2, 2, 1, tq, tk, d}, strided);
                INFO(describe(c.sh) << (strided ? ", strided" : ""));
                check_against_reference(c);
            }
        }
    }
    SECTION("257 queries and keys") {
        for (std::size_t d : {64, 128, 40}) {
            call c({1, 2, 2, 257, 257, d}, d == 40);
            check_against_reference(c);
        }
    }
    SECTION("another scale") {
        call c({1, 2, 1, 33, 70, 64}, false);
        c.p.scale = 0.9f;
        check_against_reference(c);
    }
}

TEST_CASE("attention applies every form of explicit mask", "[attention]") {
    using strides = std::array<std::ptrdiff_t, 4>;
    for (std::size_t tq : {33, 3}) {
        const shape sh{2, 4, 2, tq, 70, 64};
        const auto T = static_cast<std::ptrdiff_t>(tq), K = static_cast<std::ptrdiff_t>(sh.keys);
        const std::ptrdiff_t H = 4;
        struct form {
            const char* name;
            std::size_t elements;
            strides st;
        };
        const form forms[] = {
            {"[B, Tk] and [B, 1, Tk]", 2 * sh.keys, {K, 0, 0, 1}},
            {"[B, Tq, Tk] and [B, 1, Tq, Tk]", 2 * tq * sh.keys, {T * K, 0, K, 1}},
            {"[B, H, Tq, Tk]", 2 * 4 * tq * sh.keys, {H * T * K, T * K, K, 1}},
            {"[B, H, Tq, Tk] stored [B, Tk, H, Tq]", 2 * 4 * tq * sh.keys, {H * T * K, T, 1, H * T}},
            {"[B, H, Tq, 1]: one value for all keys", 2 * 4 * tq, {H * T, T, 1, 0}},
        };
        for (const form& f : forms) {
            for (mask_kind kind : {mask_kind::keep, mask_kind::ignore, mask_kind::additive}) {
                call c(sh, false);
                if (kind == mask_kind::additive)
                    c.additive_mask(f.elements, f.st);
                else
                    c.bool_mask(kind, f.elements, f.st, 0.8);
                INFO(f.name << ", kind " << static_cast<int>(kind) << ", Tq " << tq);
                check_against_reference(c);
            }
        }
    }
}

TEST_CASE("attention honours causal offsets and key lengths", "[attention]") {
    SECTION("causal offsets") {
        for (std::size_t tq : {33, 3}) {
            const std::size_t tk = tq == 3 ? 1000 : 70;
            const auto diagonal = static_cast<std::ptrdiff_t>(tk) - static_cast<std::ptrdiff_t>(tq);
            for (std::ptrdiff_t offset :
                 {std::ptrdiff_t{0}, std::ptrdiff_t{5}, diagonal, std::ptrdiff_t{-3}, std::ptrdiff_t{-40}}) {
                call c({2, 2, 1, tq, tk, 64}, true);
                c.p.causal = true;
                c.p.causal_offset = offset;
                INFO("Tq " << tq << ", offset " << offset);
                check_against_reference(c);
                for (std::size_t i = 0; i < tq; ++i)
                    if (static_cast<std::ptrdiff_t>(i) + offset < 0) CHECK(row_is_zero(c, 1, 1, i));
            }
        }
    }
    SECTION("key lengths, 0 included, with causal and a mask") {
        for (std::size_t tq : {33, 2}) {
            call c({7, 2, 2, tq, 70, 80}, false);
            c.lengths = {0, 1, 63, 64, 65, 70, 75};
            c.p.key_lengths = c.lengths.data();
            check_against_reference(c);
            for (std::size_t i = 0; i < tq; ++i) CHECK(row_is_zero(c, 0, 1, i));
            call d({7, 2, 2, tq, 70, 80}, true);
            d.lengths = c.lengths;
            d.p.key_lengths = d.lengths.data();
            d.p.causal = true;
            d.p.causal_offset = 70 - static_cast<std::ptrdiff_t>(tq);
            d.bool_mask(mask_kind::ignore, 7 * 70, {70, 0, 0, 1}, 0.2);
            check_against_reference(d);
        }
    }
}

TEST_CASE("a prefill's pieces end at the last query, a short piece's filler rows before its first queries",
          "[attention]") {
    using ctein::kernels::attention_detail::piece_queries;
    const auto range = [](std::size_t queries, std::size_t piece, std::size_t t) {
        const std::size_t pieces = (queries + piece - 1) / piece;
        const auto r = piece_queries(queries, piece, pieces, t);
        return std::pair{r.first, r.end};
    };
    CHECK(range(512, 192, 0) == std::pair<std::size_t, std::size_t>{0, 128});
    CHECK(range(512, 192, 1) == std::pair<std::size_t, std::size_t>{128, 320});
    CHECK(range(512, 192, 2) == std::pair<std::size_t, std::size_t>{320, 512});
    CHECK(range(384, 192, 0) == std::pair<std::size_t, std::size_t>{0, 192});
    CHECK(range(100, 192, 0) == std::pair<std::size_t, std::size_t>{0, 100});
    // Whole pieces after a short first one: with AVX-512's pieces of 192 (96 in groups of 2,
    // prefill_queries) and tiles of 6, 386 queries start with a piece of 2 (4 fillers), 389 with
    // one of 5 (1 filler); AVX2's pieces of 64 and tiles of 2 leave 0 and 1.
    for (std::size_t queries : {386, 389}) {
        for (std::size_t kv_heads : {2, 1}) {
            for (bool causal : {true, false}) {
                call c({1, 2, kv_heads, queries, queries, 32}, false);
                c.p.causal = causal;
                INFO(queries << " queries, groups of " << 2 / kv_heads << (causal ? ", causal" : ""));
                check_against_reference(c);
                c.p.dropout = 0.2f; // and with dropout, the weights written
                c.p.dropout_seed = 5;
                c.want_weights();
                check_against_reference(c);
            }
        }
    }
}

TEST_CASE("attention maps query heads to grouped key/value heads", "[attention]") {
    for (std::size_t kv_heads : {8, 4, 2, 1}) {
        for (std::size_t tq : {33, 2}) {
            for (bool causal : {false, true}) {
                call c({2, 8, kv_heads, tq, 70, 64}, false);
                c.p.causal = causal;
                c.p.causal_offset = 70 - static_cast<std::ptrdiff_t>(tq);
                INFO("groups of " << 8 / kv_heads << ", Tq " << tq << (causal ? ", causal" : ""));
                check_against_reference(c);
            }
        }
    }
}

TEST_CASE("attention decodes a few queries over many keys", "[attention]") {
    for (std::size_t tk : {1, 2, 63, 64, 65, 1000, 4097}) {
        for (std::size_t tq = 1; tq <= 4; ++tq) {
            for (std::size_t d : {64, 128}) {
                call c({1, 4, 2, tq, tk, d}, tk == 65);
                INFO(describe(c.sh));
                check_against_reference(c);
            }
        }
        call c({1, 2, 1, 1, tk, 40}, true);
        INFO("generic head size, Tk " << tk);
        check_against_reference(c);
        // one query per key/value head: steps of one row, which ask for pages ahead
        // (one_row_page_requests), the last block's requests stopping at the keys' end
        for (std::size_t d : {64, 128}) {
            call one({1, 3, 3, 1, tk, d}, tk % 2 == 1);
            INFO("one row per key/value head, " << describe(one.sh));
            check_against_reference(one);
        }
    }
}

TEST_CASE("requests for page starts name the first line and each later 4 KiB page's start", "[attention]") {
    using ctein::kernels::attention_detail::for_each_page_start;
    const auto starts = [](std::uintptr_t from, std::size_t bytes) {
        std::vector<std::uintptr_t> lines;
        for_each_page_start(reinterpret_cast<const void*>(from), bytes,
                            [&](std::uintptr_t line) { lines.push_back(line); });
        return lines;
    };
    using lines = std::vector<std::uintptr_t>;
    CHECK(starts(0x10000, 4096) == lines{0x10000});
    CHECK(starts(0x10000, 4097) == lines{0x10000, 0x11000});
    CHECK(starts(0x10040, 0x2000) == lines{0x10040, 0x11000, 0x12000});
    CHECK(starts(0x10fc0, 64) == lines{0x10fc0});
    CHECK(starts(0x10fc0, 65) == lines{0x10fc0, 0x11000});
    CHECK(starts(0x10000, 0).empty());
}

TEST_CASE("attention gives zeros for rows whose keys are all masked", "[attention]") {
    // Row i of batch 0 is masked entirely when i is even (an ignore mask, or an additive one of
    // -inf and float minimums); every row of batch 1 by key length 0. Online, weights and
    // dropout paths, many and few queries.
    for (std::size_t tq : {9, 3}) {
        for (int path = 0; path < 4; ++path) {
            call c({2, 2, 1, tq, 70, 64}, false);
            const std::array<std::ptrdiff_t, 4> strides{static_cast<std::ptrdiff_t>(tq * 70), 0, 70, 1};
            if (path == 3) {
                c.additive.resize(2 * tq * 70);
                for (std::size_t e = 0; e < c.additive.size(); ++e) {
                    const std::size_t i = e / 70 % tq, j = e % 70;
                    c.additive[e] =
                        i % 2 == 0 || j % 3 == 0 ? (j % 2 ? -inf : -std::numeric_limits<float>::max()) : 0.5f;
                }
                c.p.mask = {c.additive.data(), mask_kind::additive, strides};
            } else {
                c.flags = std::make_unique<bool[]>(2 * tq * 70);
                for (std::size_t e = 0; e < 2 * tq * 70; ++e)
                    c.flags[e] = e / 70 % tq % 2 == 0 || e % 70 % 3 == 0;
                c.p.mask = {c.flags.get(), mask_kind::ignore, strides};
            }
            c.lengths = {70, 0};
            c.p.key_lengths = c.lengths.data();
            if (path == 1) c.want_weights();
            if (path == 2) {
                c.p.dropout = 0.25f;
                c.p.dropout_seed = 99;
            }
            INFO("Tq " << tq << ", path " << path);
            check_against_reference(c);
            for (std::size_t h = 0; h < 2; ++h)
                for (std::size_t i = 0; i < tq; ++i) {
                    if (i % 2 == 0) CHECK(row_is_zero(c, 0, h, i));
                    CHECK(row_is_zero(c, 1, h, i));
                }
        }
    }
}

TEST_CASE("attention stays finite and right with logits of +-1e4", "[attention]") {
    // q = 100 e0 and keys whose first feature is +-100 or 99: scores of +-1e4 (and 9900), exact
    // in floats, so the reference's softmax is the kernel's. Online and two-pass (weights) paths.
    for (std::size_t tq : {7, 2}) {
        for (bool causal : {false, true}) {
            for (bool weights : {false, true}) {
                call c({1, 2, 1, tq, 65, 64}, false);
                for (std::size_t h = 0; h < 2; ++h)
                    for (std::size_t i = 0; i < tq; ++i)
                        for (std::size_t d = 0; d < 64; ++d)
                            c.q[h * c.p.q_strides.head + i * c.p.q_strides.token + d] =
                                d == 0 ? 100.0f : 0.0f;
                for (std::size_t j = 0; j < 65; ++j) {
                    c.k[j * c.p.k_strides.token] = j % 3 == 0 ? 100.0f : j % 3 == 1 ? -100.0f : 99.0f;
                    for (std::size_t d = 1; d < 64; ++d) c.k[j * c.p.k_strides.token + d] = 0.0f;
                }
                c.p.scale = 1.0f;
                c.p.causal = causal;
                if (weights) c.want_weights();
                INFO("Tq " << tq << (causal ? ", causal" : "") << (weights ? ", weights" : ""));
                check_against_reference(c);
                for (float x : c.out) CHECK(std::isfinite(x));
            }
        }
    }
}

namespace {

// (Not `nan`: test cases live outside the anonymous namespace, where ::nan is the C function.)
constexpr float not_a_number = std::numeric_limits<float>::quiet_NaN();

/// Whether every output (and weight) of row (b, h, i) is NaN.
bool row_is_nan(const call& c, std::size_t b, std::size_t h, std::size_t i) {
    for (std::size_t d = 0; d < c.sh.head_size; ++d)
        if (!std::isnan(c.out_at(b, h, i, d))) return false;
    if (c.p.weights)
        for (std::size_t j = 0; j < c.sh.keys; ++j)
            if (!std::isnan(c.weight_at(b, h, i, j))) return false;
    return true;
}

/// Whether row (b, h, i) is within tolerance of the reference (as worst_error measures).
bool row_matches(const call& c, const ctein::testing::naive_attention_result& ref, std::size_t b,
                 std::size_t h, std::size_t i) {
    double top = 0.0;
    for (std::size_t d = 0; d < c.sh.head_size; ++d) top = std::max(top, std::abs(ref.out_at(b, h, i, d)));
    for (std::size_t d = 0; d < c.sh.head_size; ++d)
        if (!(std::abs(c.out_at(b, h, i, d) - ref.out_at(b, h, i, d)) <= 1e-4 * top + 1e-6)) return false;
    return true;
}

/// Where feature d of token t of head h, batch b, sits in an operand placed with strides `st`.
std::size_t element(const ctein::kernels::token_strides& st, std::size_t b, std::size_t h, std::size_t t,
                    std::size_t d) {
    return b * st.batch + h * st.head + t * st.token + d;
}

} // namespace

TEST_CASE("attention carries a NaN or an infinity to every row that reads it, never zeros", "[attention]") {
    // Causal with the keys' end aligned to the last query, so query i sees keys up to
    // Tk - Tq + i. One poisoned key, Tk - Tq + 1: rows i >= 1 of batch 0's first key/value head
    // read it and must be NaN (IEEE arithmetic, and PyTorch's result); row 0 cannot see it and
    // every row of batch 1 reads other data, so they match the reference. Before the fix the
    // poisoned rows came out as zeros, like fully masked ones. Prefill (online and weights) and
    // decode (Tq 2 over several 512-key chunks, on 1 and 2 threads); NaN in k, q, v (whose NaN
    // reaches only its own feature), +inf in k where the query's feature is positive
    // (inf - inf), and a NaN or infinite scale.
    struct path {
        std::size_t queries, keys;
        bool weights;
        std::size_t threads;
    };
    enum class poison { k_nan, k_inf, v_nan, q_nan, scale_nan, scale_inf };
    for (const path& run :
         {path{9, 70, false, 1}, path{9, 70, true, 1}, path{2, 1100, false, 1}, path{2, 1100, false, 2}}) {
        for (poison what : {poison::k_nan, poison::k_inf, poison::v_nan, poison::q_nan, poison::scale_nan,
                            poison::scale_inf}) {
            call c({2, 2, 1, run.queries, run.keys, 64}, false);
            c.p.causal = true;
            c.p.causal_offset = static_cast<std::ptrdiff_t>(run.keys - run.queries);
            c.p.threads = run.threads;
            if (run.weights) c.want_weights();
            const std::size_t key = run.keys - run.queries + 1;
            switch (what) {
            case poison::k_nan:
                c.k[element(c.p.k_strides, 0, 0, key, 5)] = not_a_number;
                break;
            case poison::k_inf:
                for (std::size_t h = 0; h < 2; ++h)
                    for (std::size_t i = 0; i < run.queries; ++i)
                        c.q[element(c.p.q_strides, 0, h, i, 0)] = 0.5f;
                c.k[element(c.p.k_strides, 0, 0, key, 0)] = inf;
                break;
            case poison::v_nan:
                c.v[element(c.p.v_strides, 0, 0, key, 7)] = not_a_number;
                break;
            case poison::q_nan:
                for (std::size_t h = 0; h < 2; ++h)
                    for (std::size_t i = 1; i < run.queries; ++i)
                        c.q[element(c.p.q_strides, 0, h, i, 3)] = not_a_number;
                break;
            case poison::scale_nan:
                c.p.scale = not_a_number;
                break;
            case poison::scale_inf:
                c.p.scale = inf;
                break;
            }
            ctein::kernels::attention(c.p);
            const auto ref = ctein::testing::naive_attention(c.p);
            const bool everywhere = what == poison::scale_nan || what == poison::scale_inf;
            INFO("Tq " << run.queries << ", Tk " << run.keys << (run.weights ? ", weights" : "")
                       << ", threads " << run.threads << ", poison " << static_cast<int>(what));
            for (std::size_t b = 0; b < 2; ++b)
                for (std::size_t h = 0; h < 2; ++h)
                    for (std::size_t i = 0; i < run.queries; ++i) {
                        INFO("b" << b << " h" << h << " i" << i);
                        if (what == poison::v_nan && b == 0) {
                            // Only feature 7 of the rows that read the key; row 0 multiplies
                            // that value row by a weight of 0 (0 x NaN is NaN), as PyTorch's
                            // P·V does, so it is left unchecked.
                            if (i >= 1) CHECK(std::isnan(c.out_at(b, h, i, 7)));
                        } else if (everywhere || (b == 0 && i >= 1)) {
                            CHECK(row_is_nan(c, b, h, i));
                        } else {
                            CHECK(row_matches(c, ref, b, h, i));
                        }
                    }
        }
    }
}

TEST_CASE("attention leaves out keys a mask hides, whatever they hold", "[attention]") {
    // Keys hidden by a boolean or an additive (-inf) mask hold NaN or inf in k: the rows stay as
    // the reference gives them, and a row whose keys are all hidden stays zeros.
    for (bool additive : {false, true}) {
        call c({1, 1, 1, 6, 70, 64}, false);
        const std::array<std::ptrdiff_t, 4> strides{0, 0, 70, 1};
        const auto hidden = [](std::size_t i, std::size_t j) { return i == 0 || j % 5 == 0; };
        if (additive) {
            c.additive.resize(6 * 70);
            for (std::size_t e = 0; e < c.additive.size(); ++e)
                c.additive[e] = hidden(e / 70, e % 70) ? -inf : 0.0f;
            c.p.mask = {c.additive.data(), mask_kind::additive, strides};
        } else {
            c.flags = std::make_unique<bool[]>(6 * 70);
            for (std::size_t e = 0; e < 6 * 70; ++e) c.flags[e] = hidden(e / 70, e % 70);
            c.p.mask = {c.flags.get(), mask_kind::ignore, strides};
        }
        for (std::size_t j = 0; j < 70; j += 5)
            c.k[element(c.p.k_strides, 0, 0, j, j % 64)] = j % 2 ? inf : not_a_number;
        ctein::kernels::attention(c.p);
        const auto ref = ctein::testing::naive_attention(c.p);
        INFO((additive ? "additive" : "boolean") << " mask");
        CHECK(row_is_zero(c, 0, 0, 0));
        for (std::size_t i = 1; i < 6; ++i) CHECK(row_matches(c, ref, 0, 0, i));
    }
}

TEST_CASE("attention results do not depend on the thread count", "[attention]") {
    struct run {
        shape sh;
        bool weights;
    };
    for (const run& r : {run{{2, 4, 2, 70, 150, 64}, false}, run{{1, 4, 1, 1, 4097, 128}, false},
                         run{{2, 4, 2, 20, 100, 40}, true}}) {
        // 16: more threads than this machine runs, and than heads (each thread's packed keys:
        // head_rooms)
        constexpr std::size_t counts[] = {1, 2, 16};
        call::floats outs[3], weights[3];
        for (std::size_t i = 0; i < 3; ++i) {
            const std::size_t threads = counts[i];
            call c(r.sh, false);
            c.p.causal = true;
            c.p.causal_offset = static_cast<std::ptrdiff_t>(r.sh.keys - r.sh.queries);
            c.bool_mask(mask_kind::keep, r.sh.batch * r.sh.keys,
                        {static_cast<std::ptrdiff_t>(r.sh.keys), 0, 0, 1}, 0.9);
            c.p.dropout = 0.1f;
            c.p.dropout_seed = 5;
            if (r.weights) c.want_weights();
            c.p.threads = threads;
            ctein::kernels::attention(c.p);
            outs[i] = c.out;
            weights[i] = c.weights;
        }
        INFO(describe(r.sh));
        for (std::size_t i = 1; i < 3; ++i) {
            INFO(counts[i] << " threads");
            CHECK(same_bits(outs[0], outs[i]));
            CHECK(same_bits(weights[0], weights[i]));
        }
    }
}

TEST_CASE("attention drops weights as the reference does, reproducibly", "[attention]") {
    for (std::size_t tq : {40, 1}) {
        call c({2, 2, 1, tq, 300, 64}, false);
        c.p.dropout = 0.3f;
        c.p.dropout_seed = 0x123456789abcdefULL;
        c.p.threads = 2;
        check_against_reference(c);
        const call::floats first = c.out;
        ctein::kernels::attention(c.p);
        CHECK(same_bits(first, c.out));
        c.p.dropout_seed += 1;
        ctein::kernels::attention(c.p);
        CHECK_FALSE(same_bits(first, c.out));
    }
    SECTION("the weights show the drops: about 30 % zeros, the rest scaled") {
        call c({1, 2, 1, 50, 400, 32}, false);
        c.want_weights();
        c.p.dropout = 0.3f;
        c.p.dropout_seed = 17;
        check_against_reference(c);
        std::size_t zeros = 0;
        for (float w : c.weights) zeros += w == 0.0f;
        const double fraction = static_cast<double>(zeros) / static_cast<double>(c.weights.size());
        CHECK(fraction == Approx(0.3).margin(0.01)); // 40000 draws: 4.6 standard deviations
    }
}

TEST_CASE("attention writes the weights", "[attention]") {
    SECTION("rows sum to 1") {
        call c({2, 3, 3, 33, 70, 64}, true);
        c.want_weights();
        check_against_reference(c);
        for (std::size_t b = 0; b < 2; ++b)
            for (std::size_t h = 0; h < 3; ++h)
                for (std::size_t i = 0; i < 33; ++i) {
                    double sum = 0.0;
                    for (std::size_t j = 0; j < 70; ++j) sum += c.weight_at(b, h, i, j);
                    CHECK(sum == Approx(1.0).epsilon(1e-5));
                }
    }
    SECTION("with masks, causal and strided weights, few queries included") {
        for (std::size_t tq : {33, 2}) {
            call c({2, 4, 2, tq, 130, 80}, true);
            c.want_weights(true);
            c.p.causal = true;
            c.p.causal_offset = 3;
            c.additive_mask(2 * 130, {130, 0, 0, 1});
            check_against_reference(c);
        }
    }
}

TEST_CASE("attention's dropout factors are the Philox draws of each key", "[attention]") {
    using namespace ctein::kernels::attention_detail;
    for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{0xfedcba9876543210ULL}}) {
        for (std::uint64_t row : {std::uint64_t{0}, std::uint64_t{12345}, std::uint64_t{0x3'0000'0001ULL}}) {
            for (std::size_t kb : {std::size_t{0}, 7 * block_keys, std::size_t{0x4'0000'0000ULL}}) {
                for (float p : {0.1f, 0.5f, 0.97f}) {
                    const dropout_rule rule(p);
                    alignas(64) float factors[block_keys];
                    dropout_row(seed, row, kb, rule, factors);
                    std::size_t wrong = 0;
                    for (std::size_t j = 0; j < block_keys; ++j) {
                        const float u =
                            ctein::kernels::dropout_uniforms(seed, row, (kb + j) / 4)[(kb + j) % 4];
                        wrong += factors[j] != (u >= p ? 1.0f / (1.0f - p) : 0.0f);
                    }
                    INFO("seed " << seed << ", row " << row << ", key " << kb << ", p " << p);
                    CHECK(wrong == 0);
                }
            }
        }
    }
}

TEST_CASE("attention without keys or queries", "[attention]") {
    call c({2, 2, 1, 5, 0, 64}, false);
    ctein::kernels::attention(c.p);
    for (float x : c.out) CHECK(x == 0.0f);
    call d({2, 2, 1, 0, 9, 64}, false);
    ctein::kernels::attention(d.p);
    CHECK(d.out.empty());
}

TEST_CASE("attention reads bfloat16 and float16 operands as the floats they hold", "[attention]") {
    using ctein::kernels::element_type;
    const std::pair<std::size_t, std::size_t> lengths[] = {{1, 1}, {1, 600}, {3, 70}, {33, 33}, {7, 257}};
    for (element_type type : {element_type::bf16, element_type::f16})
        for (bool queries : {false, true})
            for (std::size_t d : {64, 128, 40})
                for (auto [tq, tk] : lengths)
                    for (bool strided : {false, true}) {
                        call c({2, 4, 2, tq, tk, d}, strided);
                        c.narrow(type, queries);
                        INFO(describe(c.sh)
                             << (type == element_type::bf16 ? ", bfloat16" : ", float16")
                             << (queries ? " q, k, v" : " k, v") << (strided ? ", strided" : ""));
                        check_against_reference(c);
                    }
    SECTION("with masks, dropout and weights") {
        call c({2, 2, 1, 17, 70, 64}, true);
        c.narrow(element_type::bf16, true);
        c.p.causal = true;
        c.p.dropout = 0.25f;
        c.p.dropout_seed = 5;
        c.bool_mask(mask_kind::keep, 2 * 70, {70, 0, 0, 1}, 0.8);
        c.want_weights();
        check_against_reference(c);
    }
}

// The decode reads bfloat16 keys and values split (split_pairs.hpp): the even features of each
// chunk of 2 · lanes by a shift of the 32-bit words, the odd ones by a mask, the queries and
// output accumulators in that order, and a head size of an odd number of batches ends on one
// batch in feature order.
TEST_CASE("split bfloat16 chunks hold the floats of the even, then the odd features", "[attention]") {
    using namespace ctein::kernels::attention_detail;
    constexpr std::size_t n = lanes * 5; // two whole chunks and a batch past them
    alignas(64) float row[n], back[n];
    std::vector<ctein::bfloat16> h(n);
    for (std::size_t f = 0; f < n; ++f) {
        h[f] = ctein::bfloat16(static_cast<float>(f) + 0.5f);
        row[f] = static_cast<float>(f);
    }
    REQUIRE(split_features(n) == 4 * lanes);
    for (std::size_t w = 0; w < split_features(n); w += split_chunk) {
        const auto [even, odd] = load_split(h.data() + w);
        for (std::size_t i = 0; i < lanes; ++i) {
            CHECK(even.get(i) == static_cast<float>(w + 2 * i) + 0.5f);
            CHECK(odd.get(i) == static_cast<float>(w + 2 * i + 1) + 0.5f);
        }
    }
    split_row(row, n);
    for (std::size_t w = 0; w < split_features(n); w += split_chunk)
        for (std::size_t i = 0; i < lanes; ++i) {
            CHECK(row[w + i] == static_cast<float>(w + 2 * i));
            CHECK(row[w + lanes + i] == static_cast<float>(w + 2 * i + 1));
        }
    for (std::size_t f = split_features(n); f < n; ++f) CHECK(row[f] == static_cast<float>(f));
    join_row(row, back, n);
    for (std::size_t f = 0; f < n; ++f) CHECK(back[f] == static_cast<float>(f));
}

TEST_CASE("a bfloat16 KV cache's decode for every head size, group and query count", "[attention]") {
    using ctein::kernels::element_type;
    // 16 to 256 features: one split chunk, chunks with a batch past them (AVX-512: 48, 80; AVX2:
    // 40), P·V passes of one and two chunks; 70 keys (one partial block) and 600 (two chunks of
    // the decode's keys); groups of 1, 4 and 6 query heads, 1 to 4 queries.
    const std::size_t sizes[] = {16, 32, 40, 48, 80, 96, 128, 256};
    const std::pair<std::size_t, std::size_t> heads[] = {{2, 2}, {8, 2}, {6, 1}};
    for (std::size_t d : sizes)
        for (auto [hq, hkv] : heads)
            for (std::size_t tq : {1, 2, 4})
                for (std::size_t tk : {70, 600})
                    for (bool queries : {false, true}) {
                        const bool strided = (d + tq + tk) % 2 == 1;
                        call c({1, hq, hkv, tq, tk, d}, strided, static_cast<std::uint32_t>(d + tq));
                        c.narrow(element_type::bf16, queries);
                        INFO(describe(c.sh) << ", Hq " << hq << ", Hkv " << hkv
                                            << (queries ? ", bfloat16 q, k, v" : ", bfloat16 k, v")
                                            << (strided ? ", strided" : ""));
                        check_against_reference(c);
                    }
}

TEST_CASE("a grouped-query decode asks for each key's values into L2 where a block's keys and values fill L1 "
          "(64-key blocks), results unchanged",
          "[attention]") {
    using namespace ctein::kernels::attention_detail;
    using ctein::kernels::element_type;
    const bool wide_blocks = values_into_l2_blocks; // AVX-512; AVX2's 32-key blocks keep L1
    // D = 128: a block of float keys and values takes 64 KiB (AVX-512), of bfloat16 ones 32 KiB;
    // D = 32 bfloat16, 8 KiB. Each call's decode follows this core's L1, one way or the other.
    call wide({1, 8, 2, 1, 600, 128}, false);
    CHECK(asks_values_into_l2(wide.p, 32 << 10) == wide_blocks);
    CHECK(asks_values_into_l2(wide.p, 64 << 10) == wide_blocks);
    CHECK_FALSE(asks_values_into_l2(wide.p, 128 << 10));
    check_against_reference(wide);
    call half({1, 8, 2, 1, 600, 128}, true);
    half.narrow(element_type::bf16, false);
    CHECK(asks_values_into_l2(half.p, 32 << 10) == wide_blocks); // a Zen 4 core's L1
    CHECK_FALSE(asks_values_into_l2(half.p, 48 << 10));          // a Sapphire Rapids core's
    check_against_reference(half);
    call small({1, 8, 2, 2, 600, 32}, false);
    small.narrow(element_type::bf16, false);
    CHECK_FALSE(asks_values_into_l2(small.p, 16 << 10));
    CHECK_FALSE(asks_values_into_l2(small.p, 32 << 10));
    check_against_reference(small);
}

// With bfloat16 q, k and v the prefill multiplies pairs: on AMX tiles of 16 rows where the CPU has
// them and the head size is a multiple of 32 (the tiles' rows then cross from one head of a group
// to the next, and a block of 33 or 129 keys ends half-way through a tile's 32 keys), else on
// vdpbf16ps (D = 80 here), else widened to floats.
TEST_CASE("bfloat16 prefill across heads, partial key blocks, masks and dropout", "[attention]") {
    using ctein::kernels::element_type;
    for (std::size_t group : {1, 3})
        for (std::size_t d : {32, 64, 96, 128, 80})
            for (std::size_t tq : {17, 100})
                for (std::size_t tk : {33, 129, 200})
                    for (bool causal : {false, true}) {
                        call c({2, 2 * group, 2, tq, tk, d}, tq == 17); // strided or not
                        c.narrow(element_type::bf16, true);
                        c.p.causal = causal;
                        c.p.causal_offset = static_cast<std::ptrdiff_t>(tk) - static_cast<std::ptrdiff_t>(tq);
                        if (causal) { // the keep mask and dropout too
                            c.bool_mask(mask_kind::keep, 2 * tk, {static_cast<std::ptrdiff_t>(tk), 0, 0, 1},
                                        0.8);
                            c.p.dropout = 0.25f;
                            c.p.dropout_seed = 11;
                        }
                        c.p.threads = 2;
                        INFO("group " << group << ", " << describe(c.sh) << (causal ? ", causal" : ""));
                        check_against_reference(c);
                    }
}

// On AMX a tile's P·V takes two key blocks at once, the first block's bfloat16 weights kept
// while the second's scores are worked out: a reference raised by the second block scales those
// kept weights as it scales the outputs. Keys 64-127 (the second block) give scores 8 times as
// large, so most rows' references rise by more than the rescaling slack there.
TEST_CASE("bfloat16 prefill whose later key blocks of a span raise the rows' references", "[attention]") {
    using ctein::kernels::element_type;
    // every feature of the keys of block `block` (64 keys) of both kv heads, set to f(itself)
    const auto block_keys_of = [](call& c, std::size_t block, auto f) {
        for (std::size_t h = 0; h < 2; ++h)
            for (std::size_t t = 64 * block; t < 64 * (block + 1); ++t)
                for (std::size_t d = 0; d < c.sh.head_size; ++d) {
                    float& x = c.k[h * c.p.k_strides.head + t * c.p.k_strides.token + d];
                    x = f(x);
                }
    };
    // the second block of a span, and its last (AMX spans take 4 blocks: every earlier block's
    // kept weights are scaled then)
    for (std::size_t block : {1, 3})
        for (std::size_t group : {1, 3})
            for (std::size_t d : {64, 128})
                for (bool causal : {false, true}) {
                    call c({1, 2 * group, 2, 100, 256, d}, false);
                    block_keys_of(c, block, [](float x) { return 8.0f * x; });
                    c.narrow(element_type::bf16, true);
                    c.p.causal = causal;
                    c.p.causal_offset = 156;
                    INFO("block " << block << ", group " << group << ", D " << d
                                  << (causal ? ", causal" : ""));
                    check_against_reference(c);
                }
    // A row's first reference, taken in a later block of a span, scales nothing: here the blocks
    // before it are masked out and its scores are all -88.9 (zero keys, an additive mask), 2^128.3
    // in log2 units, beyond the float range (exp2_poly gives NaN there).
    for (std::size_t block : {1, 3})
        for (std::size_t d : {64, 128}) {
            const std::size_t keys = 64 * (block + 1);
            call c({1, 2, 2, 40, keys, d}, false);
            block_keys_of(c, block, [](float) { return 0.0f; });
            c.additive.resize(keys);
            for (std::size_t j = 0; j < keys; ++j) c.additive[j] = j < 64 * block ? -inf : -88.9f;
            c.p.mask = {c.additive.data(), mask_kind::additive, {0, 0, 0, 1}};
            c.narrow(element_type::bf16, true);
            INFO("blocks before " << block << " masked, D " << d);
            check_against_reference(c);
        }
}

#if CTEIN_ATTENTION_AMX
// A span's packed values lie one block after the other where they are shared; a block that a
// thread packed in its own scratch (packed_block) lies elsewhere, and the span's P·V then takes
// the blocks before it, it and the blocks after it each on their own: both give the sums of
// weights times values.
TEST_CASE("AMX P·V over a span of key blocks, packed together or apart", "[attention]") {
    using namespace ctein::kernels::attention_detail;
    constexpr std::size_t dp = 64, blocks = 3, keys = 2 * block_keys + 36; // the last: 36 keys
    static_assert(blocks <= amx_span_blocks);
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    // weights: each row's bfloat16 in its amx_weights_row floats; zeros past `keys`
    std::vector<float, xsimd::aligned_allocator<float, 64>> weights(amx_rows * amx_weights_row, 0.0f);
    std::vector<float> w(amx_rows * keys);
    for (std::size_t r = 0; r < amx_rows; ++r)
        for (std::size_t j = 0; j < keys; ++j) {
            const ctein::bfloat16 x(uniform(gen));
            w[r * keys + j] = static_cast<float>(x);
            std::memcpy(reinterpret_cast<char*>(weights.data() + r * amx_weights_row) + 2 * j, &x.bits, 2);
        }
    // values in pairs of keys, [block_keys / 2][dp] pairs per block; zeros past `keys`. Apart, the
    // middle block lies on its own, followed by other values (ones), and where it lay beside the
    // others are ones too: the P·V must read neither.
    const std::size_t block_pairs = block_keys / 2 * dp;
    constexpr std::uint32_t ones = 0x3f803f80u; // a pair of bfloat16 1.0
    using pairs = std::vector<std::uint32_t, xsimd::aligned_allocator<std::uint32_t, 64>>;
    pairs together(blocks * block_pairs, 0u), middle(2 * block_pairs, ones);
    std::vector<float> v(blocks * block_keys * dp, 0.0f);
    for (std::size_t j = 0; j < keys; ++j)
        for (std::size_t f = 0; f < dp; ++f) {
            const ctein::bfloat16 x(uniform(gen));
            v[j * dp + f] = static_cast<float>(x);
            together[j / 2 * dp + f] |= static_cast<std::uint32_t>(x.bits) << (j % 2 * 16);
        }
    std::copy(together.begin() + block_pairs, together.begin() + 2 * block_pairs, middle.begin());
    pairs scattered = together;
    std::fill(scattered.begin() + block_pairs, scattered.begin() + 2 * block_pairs, ones);
    REQUIRE(amx_usable()); // Linux grants the tiles (the kernel asks the same way before its first AMX call)
    for (bool apart : {false, true}) {
        key_block blk[amx_span_blocks];
        for (std::size_t h = 0; h < blocks; ++h)
            blk[h].v = (apart ? scattered : together).data() + h * block_pairs;
        if (apart) blk[1].v = middle.data();
        std::vector<float, xsimd::aligned_allocator<float, 64>> o(amx_rows * dp, 0.5f);
        {
            const amx_tiles tiles;
            span_weighted_values<dp>(o.data(), dp, weights.data(), blk, blocks, [](std::size_t h) {
                return std::min(block_keys, keys - h * block_keys);
            });
        }
        double worst = 0.0;
        for (std::size_t r = 0; r < amx_rows; ++r)
            for (std::size_t f = 0; f < dp; ++f) {
                double sum = 0.5;
                for (std::size_t j = 0; j < keys; ++j) sum += double{w[r * keys + j]} * v[j * dp + f];
                worst = std::max(worst, std::abs(o[r * dp + f] - sum));
            }
        INFO((apart ? "apart" : "together"));
        CHECK(worst <= 1e-4); // fp32 sums of 164 products of bfloat16 numbers below 1
    }
}
#endif

#if defined(CTEIN_TEST_NATIVE) && (defined(__x86_64__) || defined(__i386__))
// A build for this machine's CPU (-march=native) runs the bfloat16 prefill on AMX wherever the
// CPU has it and Linux grants the tiles: the kernel read only g++'s names of the AMX targets
// (__AMX_TILE__, __AMX_BF16__), and clang 14's builds (__AMXTILE__, __AMXBF16__) left AMX out
// without a word, their tests passing on vdpbf16ps.
TEST_CASE("a build for this CPU multiplies bfloat16 on AMX wherever the CPU has it", "[attention]") {
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool avx512f = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 16 & 1u) != 0;
    const bool amx_tile = (d >> 24 & 1u) != 0, amx_bf16 = (d >> 22 & 1u) != 0;
    const bool avx512_bf16 = __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 5 & 1u) != 0;
    // the operating system saves the tile state (XCR0 bits 17 and 18), as a native target asks
    const bool os_saves_tiles = __get_cpuid(1, &a, &b, &c, &d) && (c >> 27 & 1u) != 0 && [] {
        unsigned low = 0, high = 0;
        __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0u));
        return (low >> 17 & 3u) == 3u;
    }();
    const bool cpu_has_amx = avx512f && amx_tile && amx_bf16 && avx512_bf16 && os_saves_tiles;
    INFO("AVX-512 F " << avx512f << ", AMX-TILE " << amx_tile << ", AMX-BF16 " << amx_bf16 << ", AVX512-BF16 "
                      << avx512_bf16 << ", tile state saved " << os_saves_tiles);
    CHECK(CTEIN_ATTENTION_AMX == (cpu_has_amx ? 1 : 0));
#if CTEIN_ATTENTION_AMX
    CHECK(ctein::kernels::attention_detail::amx_products(true, 64));
#endif
}
#endif

namespace {

/// One random call: shape, layout, grouped heads, element types, masks, causal offset, key
/// lengths, dropout, weights and threads drawn from `gen`; `summary` says what was drawn.
call random_call(std::mt19937& gen, std::string& summary) {
    using ctein::kernels::element_type;
    const auto pick = [&](auto... options) {
        const std::size_t values[] = {static_cast<std::size_t>(options)...};
        return values[std::uniform_int_distribution<std::size_t>(0, sizeof...(options) - 1)(gen)];
    };
    const auto chance = [&](double p) { return std::bernoulli_distribution(p)(gen); };
    shape s;
    s.batch = pick(1, 2, 3);
    s.kv_heads = pick(1, 2, 3);
    s.query_heads = s.kv_heads * pick(1, 2, 3, 4, 8);
    s.queries = chance(0.4) ? pick(1, 2, 3, 4, 5) : pick(7, 16, 31, 33, 64, 65, 97, 130, 200);
    s.keys = pick(1, 2, 31, 32, 33, 63, 64, 65, 100, 129, 300, 513);
    s.head_size = pick(8, 16, 24, 32, 40, 64, 72, 80, 96, 128, 136);
    const bool strided = chance(0.5);
    call c(s, strided, static_cast<std::uint32_t>(gen()));
    summary = "B " + std::to_string(s.batch) + ", Hq " + std::to_string(s.query_heads) + ", Hkv " +
              std::to_string(s.kv_heads) + ", " + describe(s) + (strided ? ", strided" : "");
    if (chance(0.3)) {
        const auto type = chance(0.5) ? element_type::bf16 : element_type::f16;
        const bool queries = chance(0.5);
        c.narrow(type, queries);
        summary += type == element_type::bf16 ? ", bf16" : ", f16";
        summary += queries ? " q k v" : " k v";
    }
    if (chance(0.4)) {
        c.p.causal = true;
        const auto diagonal = static_cast<std::ptrdiff_t>(s.keys) - static_cast<std::ptrdiff_t>(s.queries);
        c.p.causal_offset =
            chance(0.6) ? diagonal : std::uniform_int_distribution<std::ptrdiff_t>(-20, 40)(gen);
        summary += ", causal offset " + std::to_string(c.p.causal_offset);
    }
    if (chance(0.3)) {
        c.lengths.resize(s.batch);
        for (auto& n : c.lengths)
            n = std::uniform_int_distribution<std::int64_t>(0, static_cast<std::int64_t>(s.keys) + 5)(gen);
        c.p.key_lengths = c.lengths.data();
        summary += ", key lengths";
    }
    const auto K = static_cast<std::ptrdiff_t>(s.keys), T = static_cast<std::ptrdiff_t>(s.queries),
               H = static_cast<std::ptrdiff_t>(s.query_heads);
    switch (pick(0, 0, 1, 2, 3)) {
    case 1:
        c.bool_mask(chance(0.5) ? mask_kind::keep : mask_kind::ignore, s.batch * s.keys, {K, 0, 0, 1}, 0.8,
                    static_cast<std::uint32_t>(gen()));
        summary += ", [B, Tk] bool mask";
        break;
    case 2:
        c.additive_mask(s.batch * s.query_heads * s.queries * s.keys, {H * T * K, T * K, K, 1},
                        static_cast<std::uint32_t>(gen()));
        summary += ", [B, H, Tq, Tk] additive mask";
        break;
    case 3:
        c.bool_mask(mask_kind::keep, s.batch * s.queries * s.keys, {T * K, 0, K, 1}, 0.7,
                    static_cast<std::uint32_t>(gen()));
        summary += ", [B, Tq, Tk] keep mask";
        break;
    default:
        break;
    }
    if (chance(0.2)) {
        c.p.dropout = 0.2f;
        c.p.dropout_seed = gen();
        summary += ", dropout";
    }
    if (chance(0.2)) {
        c.want_weights(chance(0.5));
        summary += ", weights";
    }
    c.p.threads = pick(1, 1, 2, 3);
    summary += ", " + std::to_string(c.p.threads) + " thread(s)";
    return c;
}

} // namespace

// Calls drawn from a fixed seed: 200, 2-3 s in a Release build; the first 40 under the sanitizers,
// whose -O0 build took 109 s for 200 (the double-precision reference, mostly). 20 000 calls of
// another seed passed when the test was written, 1 500 of a third under ASan and UBSan.
#if defined(__SANITIZE_ADDRESS__)
#define CTEIN_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CTEIN_SANITIZED_BUILD 1
#endif
#endif
#if defined(CTEIN_SANITIZED_BUILD)
constexpr int random_calls = 40;
#else
constexpr int random_calls = 200;
#endif

TEST_CASE("attention matches the reference on random combinations of every option", "[attention]") {
    std::mt19937 gen(2026);
    for (int n = 0; n < random_calls; ++n) {
        std::string summary;
        call c = random_call(gen, summary);
        INFO("call " << n << ": " << summary);
        check_against_reference(c);
    }
}

TEST_CASE("a prefill whose heads' keys and values outgrow L2 asks for each next block ahead where L1 holds "
          "48 KiB, results unchanged",
          "[attention]") {
    using namespace ctein::kernels::attention_detail;
    using ctein::kernels::element_type;
    struct kind {
        const char* name;
        bool strided;      // float V then packed (its rows straddle lines), not read in place
        element_type type; // bfloat16: keys and values packed in pairs (on AMX where the CPU has it)
        std::size_t threads;
    };
    for (const kind& k : {kind{"float, V read in place", false, element_type::f32, 1},
                          kind{"float, V packed", true, element_type::f32, 2},
                          kind{"bfloat16 q, k and v", false, element_type::bf16, 1}}) {
        // Enough keys that one head's K and V, as the steps read them, take L2's size (whatever this
        // machine's L2 is), and a partial last block; few queries, so that the reference stays quick.
        constexpr std::size_t d = 64;
        const std::size_t word = k.type == element_type::f32 ? 4 : 2;
        const std::size_t keys = l2_cache_bytes() / (2 * d * word) + 37;
        call c({1, 2, 1, 2 * tile_rows + 5, keys, d}, k.strided);
        if (k.type != element_type::f32) c.narrow(k.type, true);
        c.p.causal = true; // the last queries see every key; the first tiles stop short of the last blocks
        c.p.causal_offset = static_cast<std::ptrdiff_t>(keys - c.sh.queries);
        c.p.threads = k.threads;
        INFO(k.name << ", Tk " << keys);
        const packed_operands ops(c.p, padded_head_size(d), 1, 1);
        CHECK(asks_blocks_ahead(c.p, ops, 48 << 10, l2_cache_bytes()));
        CHECK_FALSE(asks_blocks_ahead(c.p, ops, 32 << 10, l2_cache_bytes()));     // a Zen 4 core's L1
        CHECK_FALSE(asks_blocks_ahead(c.p, ops, 48 << 10, 4 * l2_cache_bytes())); // K and V fit in L2
        {
            // Every share of every block, unpacked and packed, whether or not this core's calls ask:
            // the packing states the requests read (the sanitizers' build checks them).
            const ctein::kernels::head_room_scope room(ops.rooms, 0);
            for (std::size_t block = 0; block < ops.blocks; ++block) {
                for (std::size_t part = 0; part < 5; ++part)
                    prefetch_block_share(c.p, ops, 0, 0, block, part, 5, true);
                REQUIRE(pack_unless_begun(c.p, ops, 0, 0, block));
                for (std::size_t part = 0; part < 5; ++part)
                    prefetch_block_share(c.p, ops, 0, 0, block, part, 5, true);
            }
        }
        check_against_reference(c);
    }
}

TEST_CASE("a piece that finds a key block being packed by another thread packs the same copy of its own",
          "[attention]") {
    using namespace ctein::kernels::attention_detail;
    for (bool sixteen_bits : {false, true}) { // float V read in place; bfloat16 V packed as well
        // Block 1 is partial (its last keys), so that both copies' padding past them is compared
        // wherever the steps read it.
        constexpr std::size_t last_keys = 6;
        call c({1, 2, 2, 40, block_keys + last_keys, 64}, false);
        if (sixteen_bits) c.narrow(ctein::kernels::element_type::bf16, false);
        const packed_operands ops(c.p, padded_head_size(64), 1, 1); // one room, one piece a head
        REQUIRE((ops.v != nullptr) == sixteen_bits);
        const std::size_t head = 1, block = 1, k_floats = ops.dp * block_keys;
        const ctein::kernels::head_room_scope room(ops.rooms, head);
        // Pairs of keys fill the block with zeros past the last key; float values are read only
        // for the block's keys (weighted_values), so only those are written.
        const std::size_t v_floats = ops.pairs ? k_floats / 2 : ops.dp * last_keys;
        std::atomic<unsigned char>& state = ops.state_of(c.p, 0, head, block);
        state.store(block_packing); // as another thread would leave it while packing
        const packed_block_at own = packed_block(c.p, ops, 0, head, block, block + 1); // none to pack ahead
        CHECK(own.k != ops.k_block(c.p, 0, head, block)); // not the shared place, being written
        CHECK(state.load() == block_packing);             // the other thread's state is left to it
        // the copy in its place, packed as that thread would
        const packed_block_at place = shared_place(c.p, ops, 0, head, block);
        pack_key_block(c.p, ops, 0, head, block, place.k, place.v);
        state.store(block_packed);
        CHECK(std::memcmp(own.k, place.k, k_floats * sizeof(float)) == 0);
        if (sixteen_bits)
            CHECK(std::memcmp(own.v, place.v, v_floats * sizeof(float)) == 0);
        else
            CHECK(own.v == nullptr);
        CHECK(packed_block(c.p, ops, 0, head, block, block + 1).k == place.k); // packed now: read in place
    }
}
