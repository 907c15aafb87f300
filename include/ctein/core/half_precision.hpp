// half_precision: ctein::bfloat16 and ctein::float16, 16-bit storage types for attention's inputs
// and KV caches. They hold bits and convert to and from float (round to nearest, ties to even;
// NaN stays NaN); arithmetic is done in float. g++ 12 and clang 14 do not agree on __bf16 and
// _Float16 on x86, so the conversions are written here, bit by bit.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace ctein {

namespace detail {
constexpr std::uint32_t float_bits(float f) noexcept {
    return std::bit_cast<std::uint32_t>(f);
}
constexpr float bits_float(std::uint32_t u) noexcept {
    return std::bit_cast<float>(u);
}
} // namespace detail

// The types live in a namespace of their own, brought into ctein by name: a bfloat16 converts to
// float, and argument-dependent lookup from `x * 1.7f` would otherwise reach ctein's operator
// templates for expressions, whose declarations clang 14 rejects outright for float operands.
namespace float_formats {

/// Brain floating point: float's sign and 8-bit exponent with 7 bits of mantissa (the upper half
/// of a float), the format of AVX512-BF16's dot products.
struct bfloat16 {
    std::uint16_t bits = 0;

    constexpr bfloat16() noexcept = default;
    /// Rounds to the nearest bfloat16, ties to even; NaN stays a (quiet) NaN.
    constexpr bfloat16(float f) noexcept // NOLINT(google-explicit-constructor): a float type
        : bits(from_float(f)) {}
    constexpr operator float() const noexcept { return detail::bits_float(std::uint32_t{bits} << 16); }

    static constexpr bfloat16 from_bits(std::uint16_t b) noexcept {
        bfloat16 h;
        h.bits = b;
        return h;
    }

private:
    static constexpr std::uint16_t from_float(float f) noexcept {
        const std::uint32_t u = detail::float_bits(f);
        if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
        return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
};

/// IEEE 754 binary16: 5-bit exponent, 10-bit mantissa, largest finite value 65504; floats beyond
/// it become infinities, small ones subnormals or zeros.
struct float16 {
    std::uint16_t bits = 0;

    constexpr float16() noexcept = default;
    /// Rounds to the nearest float16, ties to even; NaN stays a (quiet) NaN.
    constexpr float16(float f) noexcept // NOLINT(google-explicit-constructor): a float type
        : bits(from_float(f)) {}
    constexpr operator float() const noexcept { return to_float(bits); }

    static constexpr float16 from_bits(std::uint16_t b) noexcept {
        float16 h;
        h.bits = b;
        return h;
    }

    /// The float of binary16 bits `h` (exact: every float16 is a float).
    static constexpr float to_float(std::uint16_t h) noexcept {
        const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
        const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
        if (exponent == 0x1fu) return detail::bits_float(sign | 0x7f800000u | (mantissa << 13)); // inf, NaN
        if (exponent != 0) return detail::bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
        // subnormal or zero: mantissa · 2^-24, exact in float
        const float magnitude = static_cast<float>(mantissa) * detail::bits_float(0x33800000u); // 2^-24
        return detail::bits_float(sign | detail::float_bits(magnitude));
    }

private:
    static constexpr std::uint16_t from_float(float f) noexcept {
        std::uint32_t u = detail::float_bits(f);
        const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
        u &= 0x7fffffffu;
        if (u > 0x7f800000u) return sign | 0x7e00u;  // NaN
        if (u >= 0x47800000u) return sign | 0x7c00u; // 65536 and beyond (and inf): inf
        if (u < 0x38800000u) {                       // below 2^-14: subnormal or zero
            // adding 0.5 moves the 24 - 14 bits kept into the low mantissa, rounded to even by the
            // float addition itself
            const float shifted = detail::bits_float(u) + 0.5f;
            return static_cast<std::uint16_t>(sign | (detail::float_bits(shifted) - 0x3f000000u));
        }
        const std::uint32_t odd = (u >> 13) & 1u;
        u += 0xc8000fffu + odd; // rebias the exponent (-112 << 23, modulo 2^32) and round to even
        return static_cast<std::uint16_t>(sign | (u >> 13));
    }
};

} // namespace float_formats

using float_formats::bfloat16;
using float_formats::float16;

static_assert(sizeof(bfloat16) == 2 && sizeof(float16) == 2 && std::is_trivially_copyable_v<bfloat16> &&
              std::is_trivially_copyable_v<float16>);

/// The 16-bit storage types attention reads (besides float).
template <class T>
inline constexpr bool is_half_precision = std::is_same_v<T, bfloat16> || std::is_same_v<T, float16>;

} // namespace ctein
