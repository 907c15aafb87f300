// read_patterns: how fast one core reads a decode's K and V, as plain loads in the orders a
// decode can take, from memory or from L3. No attention: the bound the loads alone set.
//
//   read_patterns PATTERN BLOCK_KIB [AHEAD_KIB [HUGE [WORKING_MIB]]]
//
// 12 heads of K (1 MiB each) and 12 of V, as the MHA 12 × 64, Tk = 4096 decode reads them, from
// copies rotated through WORKING_MIB (768: from memory; 24: one copy, warm in L3). PATTERN:
//   sequential   each head's K, then its V
//   interleaved  BLOCK_KIB of K, then as much of V, block by block (the decode's order)
//   burst        interleaved, asking for each line of the block AHEAD_KIB ahead at once
//                (prefetcht0), as the decode does
//   spread       interleaved, each 256 bytes read asking for the 256 bytes AHEAD_KIB ahead (prefetcht1)
//   pages        interleaved, asking for the first line of each 4 KiB page AHEAD_KIB ahead (prefetcht1)
// HUGE 1: the copies in memory advised for transparent huge pages (madvise), as NumPy's arrays
// of 4 MiB or more are.
#include <ctein/kernels/attention_rows.hpp> // request_line: the kernel's own requests

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr std::size_t heads = 12, head_bytes = std::size_t{1} << 20, copy_bytes = 2 * heads * head_bytes;

// 64 bytes as the compiler's vector of floats: one line per load on any x86-64 build
typedef float line __attribute__((vector_size(64)));
line sums[4];

enum class pattern { sequential, interleaved, burst, spread, pages };

using ctein::kernels::attention_detail::cache_level;
using ctein::kernels::attention_detail::request_line;

// Reads [at, at + bytes), 256 bytes at a time; `spread_ahead` > 0 asks for the 256 bytes that far
// ahead (within `end`) with each.
void read(const char* at, std::size_t bytes, std::size_t spread_ahead, const char* end) {
    line a = sums[0], b = sums[1], c = sums[2], d = sums[3];
    for (std::size_t i = 0; i < bytes; i += 256) {
        if (spread_ahead && at + i + spread_ahead < end)
            for (std::size_t offset = 0; offset < 256; offset += 64)
                request_line<cache_level::l2>(at + i + spread_ahead + offset);
        a += *reinterpret_cast<const line*>(at + i);
        b += *reinterpret_cast<const line*>(at + i + 64);
        c += *reinterpret_cast<const line*>(at + i + 128);
        d += *reinterpret_cast<const line*>(at + i + 192);
    }
    sums[0] = a, sums[1] = b, sums[2] = c, sums[3] = d;
}

void read_copy(const char* base, pattern how, std::size_t block, std::size_t ahead) {
    for (std::size_t h = 0; h < heads; ++h) {
        const char* k = base + h * head_bytes;
        const char* v = base + (heads + h) * head_bytes;
        if (how == pattern::sequential) {
            read(k, head_bytes, 0, nullptr);
            read(v, head_bytes, 0, nullptr);
            continue;
        }
        for (std::size_t at = 0; at < head_bytes; at += block) {
            const bool within = at + ahead < head_bytes;
            if (how == pattern::burst && within)
                for (std::size_t offset = 0; offset < block; offset += 64) {
                    request_line(k + at + ahead + offset);
                    request_line(v + at + ahead + offset);
                }
            if (how == pattern::pages && within)
                for (std::size_t page = 0; page < block; page += 4096) {
                    request_line<cache_level::l2>(k + at + ahead + page);
                    request_line<cache_level::l2>(v + at + ahead + page);
                }
            const std::size_t spread = how == pattern::spread ? ahead : 0;
            read(k + at, block, spread, k + head_bytes);
            read(v + at, block, spread, v + head_bytes);
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: %s sequential|interleaved|burst|spread|pages BLOCK_KIB [AHEAD_KIB [HUGE "
                     "[WORKING_MIB]]]\n",
                     argv[0]);
        return 2;
    }
    const std::string name = argv[1];
    const pattern how = name == "sequential"    ? pattern::sequential
                        : name == "interleaved" ? pattern::interleaved
                        : name == "burst"       ? pattern::burst
                        : name == "spread"      ? pattern::spread
                                                : pattern::pages;
    const std::size_t block = std::stoul(argv[2]) << 10;
    const std::size_t ahead = argc > 3 ? std::stoul(argv[3]) << 10 : 0;
    const bool huge = argc > 4 && std::stoi(argv[4]) != 0;
    const std::size_t working =
        std::max<std::size_t>(copy_bytes, (argc > 5 ? std::stoul(argv[5]) : 768) << 20);
    const std::size_t copies = working / copy_bytes;
    auto* memory = static_cast<char*>(std::aligned_alloc(std::size_t{2} << 20, copies * copy_bytes));
    if (huge) madvise(memory, copies * copy_bytes, MADV_HUGEPAGE);
    std::memset(memory, 1, copies * copy_bytes);
    std::vector<double> seconds;
    for (std::size_t call = 0; call < copies + 60; ++call) {
        const auto start = std::chrono::steady_clock::now();
        read_copy(memory + call % copies * copy_bytes, how, block, ahead);
        if (call >= copies) // every copy read once first
            seconds.push_back(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("%s, blocks of %zu KiB, ahead %zu KiB, %s pages, %zu MiB rotated: fastest %.1f GB/s, median "
                "%.1f GB/s\n",
                name.c_str(), block >> 10, ahead >> 10, huge ? "huge" : "4 KiB", copies * copy_bytes >> 20,
                copy_bytes / seconds.front() * 1e-9, copy_bytes / seconds[seconds.size() / 2] * 1e-9);
    std::free(memory);
}
