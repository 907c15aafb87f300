// kv_cache: keys and values of the tokens seen so far, [B, Hkv, capacity, D], with a run-time
// length; attention reads slices of the first `length` tokens in place (no copy per step).
#pragma once

#include "../core/error.hpp"
#include "../core/half_precision.hpp"
#include "../expr/eval.hpp"
#include "../expr/operation.hpp"
#include "../expr/slice.hpp"
#include "../expr/tensor.hpp"
#include "../expr/view.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>

namespace ctein::nn {

/// The bytes of the K and V caches of a model (seed 002's formula): layers x batch x length x
/// kv_heads x head_size x 2 (K and V) x bytes per element.
///
///     kv_cache_bytes(24, 1, 2048, 32, 128, 2) == 805306368   // 805 MB in fp16
constexpr std::size_t kv_cache_bytes(std::size_t layers, std::size_t batch, std::size_t length,
                                     std::size_t kv_heads, std::size_t head_size,
                                     std::size_t bytes_per_element) noexcept {
    return layers * batch * length * kv_heads * head_size * 2 * bytes_per_element;
}

/// Keys and values of Hkv heads of D features, stored as `Element` (float, or ctein::bfloat16 or
/// ctein::float16 for half the bytes: `kv_cache_of`), for up to `Capacity` tokens (a constant, or
/// `ctein::dyn` for one given to the constructor), for a batch given to the constructor.
/// `append` writes new tokens after the `length()` already there; `keys()` and `values()` are
/// views of the first `length()` tokens, which `ctein::attention` reads in place. Appending past
/// the capacity throws ctein::shape_error naming the capacity and both lengths, and writes nothing
/// — unless the cache `Grows` (`growing_kv_cache`): then it moves to twice the capacity (or what
/// the new tokens need), as std::vector does, and views taken before are left dangling.
///
///     ctein::nn::kv_cache<8, 64, 4096> cache(batch);
///     cache.append(k, v);                                    // [B, 8, t, 64] each
///     auto o = ctein::attention(q, cache.keys(), cache.values(), ctein::causal_offset(cache.length() - t));
///
/// Tokens appended to a 16-bit cache are rounded to its type (to nearest, ties to even); attention
/// reads them widened to float.
template <std::size_t Hkv, std::size_t D, std::size_t Capacity = dyn, bool Grows = false,
          class Element = float>
class kv_cache {
    static_assert(!Grows || Capacity == dyn,
                  "ctein::nn::kv_cache: a cache that grows has no static capacity");
    static_assert(std::is_same_v<Element, float> || is_half_precision<Element>,
                  "ctein::nn::kv_cache: elements are float, ctein::bfloat16 or ctein::float16");

public:
    using element_type = Element;
    using tensor_type = tensor<Element, "b h s d", dyn, Hkv, Capacity, D>;

    explicit kv_cache(std::size_t batch) requires(Capacity != dyn)
        : k_(batch)
        , v_(batch) {}
    kv_cache(std::size_t batch, std::size_t capacity) requires(Capacity == dyn)
        : k_(batch, capacity)
        , v_(batch, capacity) {}

    std::size_t length() const noexcept { return length_; }
    std::size_t capacity() const noexcept { return k_.extent(2); }
    std::size_t batch() const noexcept { return k_.extent(0); }
    /// Forgets every token (the memory stays).
    void clear() noexcept { length_ = 0; }
    /// Keeps the first `length` tokens, forgetting the rest (a rejected draft, a step undone); a
    /// length beyond the cache's throws ctein::shape_error.
    void truncate(std::size_t length) {
        if (length > length_)
            throw_error(make_error(errc::length_mismatch).with_number(length).with_number(length_),
                        " while truncating a KV cache: it holds fewer tokens");
        length_ = length;
    }

    /// Appends the keys and values of `t` new tokens, [B, Hkv, t, D] each (views or tensors,
    /// named as "b h s d" or unnamed).
    template <viewable K, viewable V>
    void append(const K& k, const V& v) {
        const auto kv = as_view(k);
        const std::size_t tokens = kv.extent(2);
        if (kv.extent(0) != batch())
            throw_error(make_error(errc::length_mismatch).with_number(kv.extent(0)).with_number(batch()),
                        " while appending to a KV cache of batch " + std::to_string(batch()));
        if (tokens > capacity() - length_) {
            if constexpr (Grows)
                reallocate(std::max(2 * capacity(), length_ + tokens));
            else
                throw_error(make_error(errc::cache_overflow)
                                .with_number(capacity())
                                .with_number(tokens)
                                .with_number(length_));
        }
        if (tokens == 0) return;
        write(k_, k, tokens);
        write(v_, v, tokens);
        length_ += tokens;
    }

    /// The first length() tokens: views of the cache.
    auto keys() const { return slice<"s">(k_, 0, length_); }
    auto values() const { return slice<"s">(v_, 0, length_); }

private:
    /// Moves the tokens held to buffers of `capacity` tokens.
    void reallocate(std::size_t capacity) {
        tensor_type k(batch(), capacity);
        tensor_type v(batch(), capacity);
        const std::size_t held = length_;
        length_ = 0;
        if (held != 0) {
            write(k, slice<"s">(k_, 0, held), held);
            write(v, slice<"s">(v_, 0, held), held);
        }
        length_ = held;
        k_ = std::move(k);
        v_ = std::move(v);
    }

    /// Each (batch, head) block of new tokens is contiguous in the cache: one copy per block, or
    /// one rounding per element when the cache stores another type than the tokens.
    template <class X>
    void write(tensor_type& cache, const X& x, std::size_t tokens) {
        const auto source = named<"b h s d">(x);
        using source_element = std::remove_cv_t<typename decltype(eval(source))::value_type>;
        if constexpr (std::is_same_v<source_element, Element>) {
            for (std::size_t b = 0; b < batch(); ++b)
                for (std::size_t h = 0; h < Hkv; ++h) {
                    auto block = adapt<"s d", dyn, D>(&cache(b, h, length_, 0), tokens);
                    assign(block, index<"h">(index<"b">(source, b), h));
                }
        } else {
            const auto values = eval(source); // an expression (RoPE) computed once, then rounded
            for (std::size_t b = 0; b < batch(); ++b)
                for (std::size_t h = 0; h < Hkv; ++h)
                    for (std::size_t t = 0; t < tokens; ++t)
                        for (std::size_t d = 0; d < D; ++d)
                            cache(b, h, length_ + t, d) = Element(static_cast<float>(values(b, h, t, d)));
        }
    }

    tensor_type k_;
    tensor_type v_;
    std::size_t length_ = 0;
};

/// A KV cache that starts at `initial_capacity` tokens and doubles when full (views of it taken
/// before an append that grows it dangle, as iterators of a std::vector do).
///
///     ctein::nn::growing_kv_cache<8, 64> cache(batch, 256);
template <std::size_t Hkv, std::size_t D>
using growing_kv_cache = kv_cache<Hkv, D, dyn, true>;

/// A KV cache whose elements are `Element`: `kv_cache_of<ctein::bfloat16, 8, 128, 4096>` holds
/// half the bytes of `kv_cache<8, 128, 4096>`.
template <class Element, std::size_t Hkv, std::size_t D, std::size_t Capacity = dyn>
using kv_cache_of = kv_cache<Hkv, D, Capacity, false, Element>;

} // namespace ctein::nn
