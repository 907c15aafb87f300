// Copies and fills of one contiguous run of elements with xsimd batches: the innermost loops of
// the copy kernel (and of anything that writes rows). Elements move as unsigned integers of
// their size, so one batch type serves floats, integers, bools and any trivially copyable type
// of 1, 2, 4 or 8 bytes; other types are copied one by one.
#pragma once

#include "../core/simd_headers.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include "detail/quiet_intrinsics_begin.hpp"
#endif

namespace ctein::kernels {

/// How a run's stores treat the cache: `cached` for outputs that will be read again soon,
/// `streaming` (non-temporal, past the cache) for outputs larger than the cache, where loading
/// each line before writing it would cost a third of the memory traffic.
enum class store_kind : unsigned char { cached, streaming };

/// Outputs of at least this many bytes are written with streaming stores. glibc's memcpy
/// switches to them at 19 MiB on the Ice Lake this was tuned on (3/4 of a thread's share of L3,
/// `ld.so --list-tunables`), but it copies below that with `rep movsb`, which also skips the
/// line loads; for plain stores the crossover measured there was below 8 MiB.
inline constexpr std::size_t streaming_threshold_bytes = std::size_t{8} << 20;

namespace detail {
template <std::size_t Size>
struct unsigned_of_size {
    using type = void;
};
template <>
struct unsigned_of_size<1> {
    using type = std::uint8_t;
};
template <>
struct unsigned_of_size<2> {
    using type = std::uint16_t;
};
template <>
struct unsigned_of_size<4> {
    using type = std::uint32_t;
};
template <>
struct unsigned_of_size<8> {
    using type = std::uint64_t;
};
} // namespace detail

/// The unsigned integer whose batches move T's bytes, or void if T has no such stand-in.
template <class T>
using bits_of = std::conditional_t<std::is_trivially_copyable_v<T> && alignof(T) == sizeof(T),
                                   typename detail::unsigned_of_size<sizeof(T)>::type, void>;

/// Whether T's runs are copied with batches.
template <class T>
inline constexpr bool has_bits_batch = !std::is_void_v<bits_of<T>>;

namespace detail {
// Batches are loaded and stored through intrinsics, which may alias any type; scalar code
// keeps using T itself.
template <class T>
auto load_bits(const T* p) noexcept {
    return xsimd::batch<bits_of<T>>::load_unaligned(reinterpret_cast<const bits_of<T>*>(p));
}

template <class T>
bool is_batch_aligned(const T* p) noexcept {
    return reinterpret_cast<std::uintptr_t>(p) % sizeof(xsimd::batch<bits_of<T>>) == 0;
}

/// Stores `b` at `p`: a plain unaligned store, or a non-temporal one (then `p` must be
/// aligned to the batch size).
template <store_kind Stores, class T, class Batch>
void store_bits(T* p, const Batch& b) noexcept {
    auto* to = reinterpret_cast<bits_of<T>*>(p);
    if constexpr (Stores == store_kind::streaming) {
        // register size rather than type: comparing vector types drops their attributes
        constexpr std::size_t bytes = sizeof(typename Batch::register_type);
#if defined(__AVX512F__)
        if constexpr (bytes == 64) return _mm512_stream_si512(reinterpret_cast<__m512i*>(to), b);
#endif
#if defined(__AVX__)
        if constexpr (bytes == 32) return _mm256_stream_si256(reinterpret_cast<__m256i*>(to), b);
#endif
#if defined(__SSE2__)
        if constexpr (bytes == 16) return _mm_stream_si128(reinterpret_cast<__m128i*>(to), b);
#endif
    }
    b.store_unaligned(to);
}

/// Copies 4 batches from `from` to `to`, their four loads in flight before the stores: head-split
/// rows are only 4 batches long (64 floats on AVX-512).
template <store_kind Stores, class T>
[[gnu::always_inline]] inline void copy_four_batches(const T* from, T* to) noexcept {
    constexpr std::size_t w = xsimd::batch<bits_of<T>>::size;
    const auto a = load_bits(from), b = load_bits(from + w), c = load_bits(from + 2 * w),
               d = load_bits(from + 3 * w);
    store_bits<Stores>(to, a);
    store_bits<Stores>(to + w, b);
    store_bits<Stores>(to + 2 * w, c);
    store_bits<Stores>(to + 3 * w, d);
}

/// How far ahead of a streamed copy's loads its source is asked for (ask_for_source). Streaming
/// stores leave the lines they write out of the cache, and the hardware prefetchers then ran
/// short of the reads: copies of 480 MiB read 0.84-0.85 x as fast as glibc's memcpy without it,
/// 1.04-1.13 x asking 8 KiB ahead into L2 (2 KiB: 1.05-1.09 x; into L1: 0.89-0.94 x); of 160
/// MiB, 1.37 x -> 1.74-1.78 x; 12 MiB level (a Sapphire Rapids core).
inline constexpr std::size_t streamed_source_ahead = 8192;

/// Asks for the cache lines of the N elements at `at` into L2 (prefetcht2).
template <class T, std::size_t N>
[[gnu::always_inline]] inline void ask_for_source(const T* at) noexcept {
    constexpr std::size_t line = 64;
    for (std::size_t b = 0; b < N * sizeof(T); b += line)
        __builtin_prefetch(reinterpret_cast<const char*>(at) + b, 0, 1);
}
} // namespace detail

/// Makes streaming stores visible to other threads (and ordered with later stores).
inline void finish_streaming_stores() noexcept {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/// `to[0, n) = from[0, n)`; the ranges must not overlap.
template <store_kind Stores = store_kind::cached, class T>
void copy_run(const T* from, T* to, std::size_t n) noexcept {
    if constexpr (!has_bits_batch<T>) {
        for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
    } else {
        constexpr std::size_t w = xsimd::batch<bits_of<T>>::size;
        std::size_t i = 0;
        if (n < w) {
            for (; i < n; ++i) to[i] = from[i];
            return;
        }
        if constexpr (Stores == store_kind::streaming) {
            for (; i < n && !detail::is_batch_aligned(to + i); ++i) to[i] = from[i];
            // a long run asks for its source ahead, up to its end (short runs and the rest: below)
            constexpr std::size_t ahead = detail::streamed_source_ahead / sizeof(T);
            for (; i + ahead + 4 * w <= n; i += 4 * w) {
                detail::ask_for_source<T, 4 * w>(from + i + ahead);
                detail::copy_four_batches<Stores>(from + i, to + i);
            }
        }
        for (; i + 4 * w <= n; i += 4 * w) detail::copy_four_batches<Stores>(from + i, to + i);
        for (; i + w <= n; i += w) detail::store_bits<Stores>(to + i, detail::load_bits(from + i));
        if constexpr (Stores == store_kind::streaming) {
            for (; i < n; ++i) to[i] = from[i];
        } else if (i < n) {
            // the last batch overlaps the previous one rather than ending with a scalar loop
            detail::store_bits<Stores>(to + n - w, detail::load_bits(from + n - w));
        }
    }
}

/// copy_run of `count` runs of n elements, n a multiple of a batch, run j at from + j * from_step
/// and to + j * to_step (aligned to a batch for streaming stores). A head split's runs are 4
/// batches long: one by one through copy_run, whose checks of alignment and tails sit between
/// each run's 8 memory operations, the split of 480 MiB tensors ran 0.89-0.91 x as fast as with
/// this plain loop (a Sapphire Rapids core, streaming stores); runs of 3 batches 0.84 x, and
/// gathering a split's runs for an unaligned output (copy.hpp's staging) 0.83-0.92 x.
template <store_kind Stores = store_kind::cached, class T>
void copy_whole_runs(const T* from, std::ptrdiff_t from_step, T* to, std::ptrdiff_t to_step, std::size_t n,
                     std::size_t count) noexcept {
    static_assert(has_bits_batch<T>);
    constexpr std::size_t w = xsimd::batch<bits_of<T>>::size;
    if (n == 4 * w) { // a loop over the runs alone
        for (std::size_t j = 0; j < count; ++j, from += from_step, to += to_step)
            detail::copy_four_batches<Stores>(from, to);
        return;
    }
    if (n % (4 * w) == 0) {
        for (std::size_t j = 0; j < count; ++j, from += from_step, to += to_step)
            for (std::size_t i = 0; i < n; i += 4 * w) detail::copy_four_batches<Stores>(from + i, to + i);
        return;
    }
    for (std::size_t j = 0; j < count; ++j, from += from_step, to += to_step)
        for (std::size_t i = 0; i < n; i += w)
            detail::store_bits<Stores>(to + i, detail::load_bits(from + i));
}

/// `to[0, n) = value`.
template <store_kind Stores = store_kind::cached, class T>
void fill_run(T* to, const T& value, std::size_t n) noexcept {
    if constexpr (!has_bits_batch<T>) {
        for (std::size_t i = 0; i < n; ++i) to[i] = value;
    } else {
        using bits = bits_of<T>;
        constexpr std::size_t w = xsimd::batch<bits>::size;
        std::size_t i = 0;
        if (n < w) {
            for (; i < n; ++i) to[i] = value;
            return;
        }
        bits pattern;
        std::memcpy(&pattern, &value, sizeof(T));
        const xsimd::batch<bits> all(pattern);
        if constexpr (Stores == store_kind::streaming) {
            for (; i < n && !detail::is_batch_aligned(to + i); ++i) to[i] = value;
            for (; i + w <= n; i += w) detail::store_bits<Stores>(to + i, all);
            for (; i < n; ++i) to[i] = value;
        } else {
            for (; i + w <= n; i += w) detail::store_bits<Stores>(to + i, all);
            if (i < n) detail::store_bits<Stores>(to + n - w, all);
        }
    }
}

} // namespace ctein::kernels

#include "detail/quiet_intrinsics_end.hpp"
