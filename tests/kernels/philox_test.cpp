#include <ctein/kernels/philox.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <set>

using ctein::kernels::dropout_uniforms;
using ctein::kernels::philox4x32;

TEST_CASE("philox4x32 gives the known answers of Random123", "[philox]") {
    // Random123's kat_vectors for philox4x32 with 10 rounds.
    using words = std::array<std::uint32_t, 4>;
    STATIC_REQUIRE(philox4x32({0, 0, 0, 0}, {0, 0}) == words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
    STATIC_REQUIRE(philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
                   words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
    CHECK(philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
          words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("dropout_uniforms are 24-bit uniforms, 0 <= u < 1, of the seed, row and key block", "[philox]") {
    double sum = 0.0;
    std::size_t below_tenth = 0, count = 0, outside = 0, not_24_bits = 0;
    std::set<float> seen;
    for (std::uint64_t row = 0; row < 64; ++row) {
        for (std::uint64_t block = 0; block < 64; ++block) {
            for (float u : dropout_uniforms(42, row, block)) {
                outside += !(u >= 0.0f && u < 1.0f);
                not_24_bits += u * 0x1p24f != static_cast<float>(static_cast<std::uint32_t>(u * 0x1p24f));
                sum += u;
                below_tenth += u < 0.1f;
                ++count;
                seen.insert(u);
            }
        }
    }
    CHECK(outside == 0);
    CHECK(not_24_bits == 0);
    // 16384 draws: the mean is within 0.01 of 1/2 and the share below 0.1 within 0.012 of 0.1,
    // five standard deviations each; all but a few draws differ.
    CHECK(sum / static_cast<double>(count) == Approx(0.5).margin(0.01));
    CHECK(static_cast<double>(below_tenth) / static_cast<double>(count) == Approx(0.1).margin(0.012));
    CHECK(seen.size() > count - 32);

    // The draws are the Philox words of counter {block, row low, row high, block high} under the
    // seed, top 24 bits.
    const std::uint64_t seed = 0x0123456789abcdefULL, row = 0x1'0000'0005ULL, block = 0x2'0000'0007ULL;
    const auto words = philox4x32({7, 5, 1, 2}, {0x89abcdef, 0x01234567});
    const auto u = dropout_uniforms(seed, row, block);
    for (int i = 0; i < 4; ++i) CHECK(u[i] == static_cast<float>(words[i] >> 8) * 0x1p-24f);
    CHECK(dropout_uniforms(seed, row, block) == u);
    CHECK(dropout_uniforms(seed + 1, row, block) != u);
    CHECK(dropout_uniforms(seed, row + 1, block) != u);
    CHECK(dropout_uniforms(seed, row, block + 1) != u);
}
