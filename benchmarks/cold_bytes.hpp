// cold_bytes: how much memory a "cold" call's rotating copies of K and V must fill so that each
// call reads them from memory; shared by the attention benchmark and kernel_ab's COLD mode.
#pragma once

#include <algorithm>
#include <cstddef>

#include <unistd.h>

namespace ctein::bench {

/// Bytes a cold row's copies of K and V fill at least (the attention benchmark counts them in
/// 16-bit elements, so that a 16-bit row's copies fill them too, the float ones twice): three
/// times the last-level cache the system reports, and never less than 192 MiB, three times the
/// 32 MiB L3 of each of two core complexes. A 2-thread call whose threads ran on two complexes
/// (each with its own L3) found part of a 96 MiB rotation in the caches (measured: ONNX Runtime's
/// decode at 44 GiB/s in one run, 28 in the next); and a virtual machine may report a cache it
/// does not have (320 MiB).
inline std::size_t cold_bytes() {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return std::max<std::size_t>(l3 > 0 ? 3 * static_cast<std::size_t>(l3) : 0, std::size_t{192} << 20);
}

} // namespace ctein::bench
