// philox: the counter-based random numbers behind dropout. Philox-4x32-10 (Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011) maps a counter and a key to four independent 32-bit
// words, so any weight's draw can be computed alone: results are the same for every tiling and
// thread count.
#pragma once

#include <array>
#include <cstdint>

namespace ctein::kernels {

/// Four 32-bit words for `counter` under `key` (ten rounds, the constants of the paper).
constexpr std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> counter,
                                                  std::array<std::uint32_t, 2> key) noexcept {
    constexpr std::uint64_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
    constexpr std::uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
        const std::uint64_t p0 = m0 * counter[0];
        const std::uint64_t p1 = m1 * counter[2];
        counter = {static_cast<std::uint32_t>(p1 >> 32) ^ counter[1] ^ key[0], static_cast<std::uint32_t>(p1),
                   static_cast<std::uint32_t>(p0 >> 32) ^ counter[3] ^ key[1],
                   static_cast<std::uint32_t>(p0)};
        key[0] += w0;
        key[1] += w1;
    }
    return counter;
}

/// The dropout draws of one attention row: row = (b · heads + h) · queries + i. Keys j .. j+3
/// (j a multiple of 4) share one Philox block, counter {j / 4, row low, row high, 0}, key = seed;
/// word j % 4, top 24 bits, is a uniform u in [0, 1): the weight is kept when u >= p.
constexpr std::array<float, 4> dropout_uniforms(std::uint64_t seed, std::uint64_t row,
                                                std::uint64_t key_block) noexcept {
    const auto words =
        philox4x32({static_cast<std::uint32_t>(key_block), static_cast<std::uint32_t>(row),
                    static_cast<std::uint32_t>(row >> 32), static_cast<std::uint32_t>(key_block >> 32)},
                   {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
    std::array<float, 4> u{};
    for (int i = 0; i < 4; ++i) u[i] = static_cast<float>(words[i] >> 8) * 0x1p-24f;
    return u;
}

} // namespace ctein::kernels
