// attention_memory: how much resident memory one call adds at its peak, read from the kernel's
// own accounting (VmHWM in /proc/self/status), so that a benchmark can show that attention keeps
// no T x T score matrix while its peers may.
#pragma once

#include <malloc.h>

#include <cstddef>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace ctein::bench {

/// A field of /proc/self/status in bytes ("VmRSS", "VmHWM"), or nothing where there is none.
inline std::optional<double> status_bytes(const std::string& field) {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.compare(0, field.size() + 1, field + ":") != 0) continue;
        std::istringstream value(line.substr(field.size() + 1));
        double kib = 0;
        if (value >> kib) return kib * 1024;
    }
    return std::nullopt;
}

/// The growth of resident memory at the peak of `f()` over what was resident before it, in
/// bytes; nothing where the high-water mark cannot be reset (Linux before 4.0, no /proc).
///
/// The call must not reuse pages that earlier calls left resident without being counted: every
/// allocation of 64 KiB or more is made its own mapping from here on (M_MMAP_THRESHOLD, which also
/// stops glibc raising that threshold after each large free), so that it is returned to the
/// system when freed; a freed output of an earlier row otherwise stayed at the top of a thread's
/// arena, which malloc_trim does not hand back, and the next row's output took its resident
/// pages uncounted (-24 MiB beyond its output, T = 8192). Other freed heap memory is handed back
/// (malloc_trim), and the high-water mark reset to the current resident size (writing 5 to
/// /proc/self/clear_refs).
///
///     const auto grew = peak_growth_bytes([&] { ctein::attention(q, k, v); });
template <class F>
std::optional<double> peak_growth_bytes(F&& f) {
    mallopt(M_MMAP_THRESHOLD, 64 << 10);
    malloc_trim(0);
    {
        std::ofstream clear("/proc/self/clear_refs");
        if (!(clear << "5" << std::flush)) return std::nullopt;
    }
    const std::optional<double> before = status_bytes("VmRSS");
    f();
    const std::optional<double> peak = status_bytes("VmHWM");
    if (!before || !peak) return std::nullopt;
    return *peak - *before;
}

} // namespace ctein::bench
