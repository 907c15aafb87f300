// kernel_call: one attention call given on the command line, with seeded inputs, as the kernel
// tools (kernel_ab, kernel_phases) run it:
//
//   HQ HKV D TK TYPE [TQ [CAUSAL [THREADS [COLD [KEY_LENGTH]]]]]    TYPE: f32, bf16 (the KV
//   cache's; float queries) or bf16-qkv (queries too, as a bfloat16 prefill); THREADS: 1 unless given; COLD:
//   1 to read K and V from memory (each call takes the next of copies worth cold_bytes, as the benchmark's
//   cold rows); KEY_LENGTH: keys past it are left out (a padded sequence: attention_problem::key_lengths),
//   all TK keys count unless given
#pragma once

#include "cold_bytes.hpp"

#include <ctein/core/half_precision.hpp>
#include <ctein/kernels/attention_problem.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <sys/mman.h>

#include <xsimd/xsimd.hpp>

namespace ctein::bench {

/// 64-byte aligned, as ctein::tensor's storage: the prefill then reads V in place, as it does for
/// a user's tensors (with 16-byte aligned vectors it packed V, work the benchmark does not do).
/// Made with `huge_pages`, blocks of 4 MiB or more are advised for transparent huge pages before
/// they are first written, as NumPy advises its arrays (the engines' inputs in engine_peers.py).
template <class T>
class aligned_allocator {
public:
    using value_type = T;
    aligned_allocator() noexcept = default;
    explicit aligned_allocator(bool huge_pages) noexcept
        : huge_pages_(huge_pages) {}
    template <class U>
    aligned_allocator(const aligned_allocator<U>& other) noexcept // NOLINT: as std::allocator's
        : huge_pages_(other.huge_pages()) {}

    T* allocate(std::size_t n) {
        T* p = xsimd::aligned_allocator<T, 64>().allocate(n);
        const std::size_t bytes = n * sizeof(T);
        if (huge_pages_ && bytes >= (std::size_t{4} << 20)) { // the pages wholly inside the block
            const auto first = (reinterpret_cast<std::uintptr_t>(p) + 4095) / 4096 * 4096;
            const auto last = (reinterpret_cast<std::uintptr_t>(p) + bytes) / 4096 * 4096;
            ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
        }
        return p;
    }
    void deallocate(T* p, std::size_t n) noexcept { xsimd::aligned_allocator<T, 64>().deallocate(p, n); }
    [[nodiscard]] bool huge_pages() const noexcept { return huge_pages_; }
    template <class U>
    bool operator==(const aligned_allocator<U>& other) const noexcept {
        return huge_pages_ == other.huge_pages();
    }

private:
    bool huge_pages_ = false;
};

template <class T>
using aligned_vector = std::vector<T, aligned_allocator<T>>;

class kernel_call {
public:
    static constexpr const char* usage =
        "HQ HKV D TK f32|bf16|bf16-qkv [TQ [CAUSAL [THREADS [COLD [KEY_LENGTH]]]]]";

    /// The call of argv[first...]; `valid()` is false when there are too few arguments. With
    /// `huge_pages`, K and V are advised for transparent huge pages (aligned_allocator).
    kernel_call(int argc, char** argv, int first = 1, bool huge_pages = false)
        : k_(aligned_allocator<float>(huge_pages))
        , v_(aligned_allocator<float>(huge_pages))
        , k16_(aligned_allocator<std::uint16_t>(huge_pages))
        , v16_(aligned_allocator<std::uint16_t>(huge_pages)) {
        if (argc - first < 5) return;
        const auto arg = [&](int i) { return std::string(argv[first + i]); };
        const auto given = [&](int i) { return argc - first > i; };
        hq_ = std::stoul(arg(0));
        hkv_ = std::stoul(arg(1));
        d_ = std::stoul(arg(2));
        tk_ = std::stoul(arg(3));
        bf16_queries_ = arg(4) == "bf16-qkv";
        bf16_ = arg(4) == "bf16" || bf16_queries_;
        tq_ = given(5) ? std::stoul(arg(5)) : 1;
        causal_ = given(6) && std::stoi(arg(6)) != 0;
        threads_ = given(7) ? std::stoul(arg(7)) : 1;
        cold_ = given(8) && std::stoi(arg(8)) != 0;
        key_length_ = given(9) ? std::stoll(arg(9)) : static_cast<std::int64_t>(tk_);
        fill();
        valid_ = true;
    }

    [[nodiscard]] bool valid() const noexcept { return valid_; }

    /// valid(); when not, prints the tool's usage to stderr: `program`, its own arguments
    /// (`before`, those ahead of the call's) and the call's.
    [[nodiscard]] bool valid_or_usage(const char* program, const char* before = "") const {
        if (!valid_) std::fprintf(stderr, "usage: %s %s%s\n", program, before, usage);
        return valid_;
    }
    [[nodiscard]] std::size_t query_size() const noexcept { return q_.size(); }

    /// The problem writing to `out` (query_size() floats), with K and V not yet chosen (take).
    [[nodiscard]] kernels::attention_problem problem(float* out) const {
        kernels::attention_problem p;
        p.query_heads = hq_;
        p.kv_heads = hkv_;
        p.queries = tq_;
        p.keys = tk_;
        p.head_size = d_;
        p.q = bf16_queries_ ? static_cast<const void*>(q16_.data()) : q_.data();
        if (bf16_queries_) p.q_type = kernels::element_type::bf16;
        p.out = out;
        p.q_strides =
            p.out_strides = {static_cast<std::ptrdiff_t>(hq_ * tq_ * d_),
                             static_cast<std::ptrdiff_t>(tq_ * d_), static_cast<std::ptrdiff_t>(d_)};
        p.kv_type = bf16_ ? kernels::element_type::bf16 : kernels::element_type::f32;
        p.k_strides = p.v_strides = {static_cast<std::ptrdiff_t>(hkv_ * tk_ * d_),
                                     static_cast<std::ptrdiff_t>(tk_ * d_), static_cast<std::ptrdiff_t>(d_)};
        p.scale = 1.0f / std::sqrt(static_cast<float>(d_));
        p.causal = causal_;
        p.threads = threads_;
        p.causal_offset = causal_ ? static_cast<std::ptrdiff_t>(tk_) - static_cast<std::ptrdiff_t>(tq_) : 0;
        if (key_length_ != static_cast<std::int64_t>(tk_)) p.key_lengths = &key_length_;
        return p;
    }

    /// Points `p` at the next copy of K and V (in cold calls, each call reads another copy).
    void take(kernels::attention_problem& p) {
        const std::size_t c = next_copy_++ % copies_, n = hkv_ * tk_ * d_;
        p.k = bf16_ ? static_cast<const void*>(k16_.data() + c * n) : k_.data() + c * n;
        p.v = bf16_ ? static_cast<const void*>(v16_.data() + c * n) : v_.data() + c * n;
    }

    /// "f32 Hq 12 Hkv 12 D 64 Tk 512 Tq 512 causal, 1 thread(s)", and ", K and V from memory".
    [[nodiscard]] std::string describe() const {
        char text[200];
        const std::string length = key_length_ != static_cast<std::int64_t>(tk_)
                                       ? " (key length " + std::to_string(key_length_) + ")"
                                       : "";
        std::snprintf(text, sizeof text, "%s Hq %zu Hkv %zu D %zu Tk %zu%s Tq %zu%s, %zu thread(s)%s",
                      bf16_queries_ ? "bf16-qkv"
                      : bf16_       ? "bf16"
                                    : "f32",
                      hq_, hkv_, d_, tk_, length.c_str(), tq_, causal_ ? " causal" : "", threads_,
                      cold_ ? ", K and V from memory" : "");
        return text;
    }

private:
    /// Normal inputs from a fixed seed; K and V in the cache's type, copied back to back worth
    /// the benchmark's cold_bytes in cold calls (one copy, read by every call, otherwise).
    void fill() {
        std::mt19937 rng(1);
        std::normal_distribution<float> normal;
        const std::size_t n = hkv_ * tk_ * d_;
        q_.resize(hq_ * tq_ * d_);
        aligned_vector<float> k(n), v(n);
        for (aligned_vector<float>* x : {&q_, &k, &v})
            for (float& e : *x) e = normal(rng);
        const std::size_t kv_bytes = 2 * n * (bf16_ ? 2 : 4);
        copies_ = cold_ ? std::max<std::size_t>(2, (cold_bytes() + kv_bytes - 1) / kv_bytes) : 1;
        const auto to_bfloat16 = [](float x) { return bfloat16(x).bits; };
        if (bf16_queries_) std::transform(q_.begin(), q_.end(), std::back_inserter(q16_), to_bfloat16);
        for (std::size_t c = 0; c < copies_; ++c) {
            if (bf16_) {
                std::transform(k.begin(), k.end(), std::back_inserter(k16_), to_bfloat16);
                std::transform(v.begin(), v.end(), std::back_inserter(v16_), to_bfloat16);
            } else {
                k_.insert(k_.end(), k.begin(), k.end());
                v_.insert(v_.end(), v.begin(), v.end());
            }
        }
    }

    bool valid_ = false;
    std::size_t hq_ = 0, hkv_ = 0, d_ = 0, tk_ = 0, tq_ = 1, threads_ = 1;
    bool bf16_ = false, bf16_queries_ = false, causal_ = false, cold_ = false;
    std::int64_t key_length_ = 0; ///< one batch element, so one length
    aligned_vector<float> q_, k_, v_;
    aligned_vector<std::uint16_t> q16_, k16_, v16_;
    std::size_t copies_ = 1, next_copy_ = 0;
};

} // namespace ctein::bench
